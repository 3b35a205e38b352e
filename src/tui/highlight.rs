//! Syntax colours for the code view: the grammars' own highlight queries run over the tree,
//! resolved to one class per byte (the innermost capture wins; on the same node, the first
//! pattern), then cut into runs per line. Pure.

use std::ops::Range;
use std::sync::OnceLock;

use streaming_iterator::StreamingIterator;
use tree_sitter::{Query, QueryCursor, Tree};

use crate::lang::Language;

/// The syntax classes the theme colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Highlight {
    Keyword = 1,
    String,
    Comment,
    Number,
    Constant,
    Function,
    Type,
    Attribute,
    Property,
    Operator,
    Punctuation,
    Variable,
}

impl Highlight {
    const ALL: [Highlight; 12] = [
        Highlight::Keyword,
        Highlight::String,
        Highlight::Comment,
        Highlight::Number,
        Highlight::Constant,
        Highlight::Function,
        Highlight::Type,
        Highlight::Attribute,
        Highlight::Property,
        Highlight::Operator,
        Highlight::Punctuation,
        Highlight::Variable,
    ];

    /// The class of a capture name of the highlight queries (`function.method` → Function).
    fn of_capture(name: &str) -> Option<Highlight> {
        let head = name.split('.').next().unwrap_or(name);
        Some(match head {
            "keyword" => Highlight::Keyword,
            "string" | "escape" => Highlight::String,
            "comment" => Highlight::Comment,
            "number" => Highlight::Number,
            "constant" => Highlight::Constant,
            "function" => Highlight::Function,
            "constructor" | "type" => Highlight::Type,
            "attribute" | "label" => Highlight::Attribute,
            "property" => Highlight::Property,
            "operator" => Highlight::Operator,
            "punctuation" => Highlight::Punctuation,
            // Plain variables keep the default colour; not painting them lets a more specific
            // capture of the same node show.
            _ => return None,
        })
    }

    fn from_code(code: u8) -> Option<Highlight> {
        Highlight::ALL.into_iter().find(|h| *h as u8 == code)
    }
}

fn query(lang: Language) -> Option<&'static Query> {
    static RUST: OnceLock<Option<Query>> = OnceLock::new();
    static PYTHON: OnceLock<Option<Query>> = OnceLock::new();
    let (cell, source) = match lang {
        Language::Rust => (&RUST, tree_sitter_rust::HIGHLIGHTS_QUERY),
        Language::Python => (&PYTHON, tree_sitter_python::HIGHLIGHTS_QUERY),
    };
    // A query that does not compile against the bundled grammar only loses the colours.
    cell.get_or_init(|| Query::new(&lang.grammar(), source).ok())
        .as_ref()
}

/// One coloured run within a line: byte range relative to the line start.
pub type Run = (Range<usize>, Highlight);

/// The coloured runs of every line in `lines` (byte ranges of the lines in `text`).
pub fn highlight_lines(
    lang: Language,
    tree: &Tree,
    text: &str,
    lines: &[Range<usize>],
) -> Vec<Vec<Run>> {
    let mut classes = vec![0u8; text.len()];
    if let Some(query) = query(lang) {
        let names = query.capture_names();
        let mut painted: Vec<(Range<usize>, usize, Highlight)> = Vec::new();
        let mut cursor = QueryCursor::new();
        let mut matches = cursor.matches(query, tree.root_node(), text.as_bytes());
        while let Some(m) = matches.next() {
            for capture in m.captures() {
                let Some(name) = names.get(capture.index as usize) else {
                    continue;
                };
                if let Some(class) = Highlight::of_capture(name) {
                    painted.push((capture.node.byte_range(), m.pattern_index, class));
                }
            }
        }
        // Paint wide ranges first and, for the same range, later patterns first: what is painted
        // last wins, so the innermost node and the first pattern decide.
        painted.sort_by_key(|p| std::cmp::Reverse((p.0.len(), p.1)));
        for (range, _, class) in painted {
            if let Some(slot) = classes.get_mut(range) {
                slot.fill(class as u8);
            }
        }
    }
    lines
        .iter()
        .map(|line| {
            let mut runs: Vec<Run> = Vec::new();
            let Some(bytes) = classes.get(line.clone()) else {
                return runs;
            };
            let mut start = 0;
            while start < bytes.len() {
                let code = bytes[start];
                let mut end = start + 1;
                while end < bytes.len() && bytes[end] == code {
                    end += 1;
                }
                if let Some(class) = Highlight::from_code(code) {
                    runs.push((start..end, class));
                }
                start = end;
            }
            runs
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs_of(lang: Language, text: &str) -> Vec<Vec<(String, Highlight)>> {
        let tree = lang.parse(text);
        let mut lines = Vec::new();
        let mut start = 0;
        for line in text.split('\n') {
            lines.push(start..start + line.len());
            start += line.len() + 1;
        }
        highlight_lines(lang, &tree, text, &lines)
            .into_iter()
            .zip(&lines)
            .map(|(runs, line)| {
                runs.into_iter()
                    .map(|(r, h)| (text[line.clone()][r].to_string(), h))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn rust_keywords_strings_comments_and_functions_are_classed() {
        let runs = runs_of(Language::Rust, "// note\nfn main() { let s = \"hi\"; }\n");
        assert_eq!(runs[0], vec![("// note".to_string(), Highlight::Comment)]);
        assert!(runs[1].contains(&("fn".to_string(), Highlight::Keyword)));
        assert!(runs[1].contains(&("main".to_string(), Highlight::Function)));
        assert!(runs[1].contains(&("\"hi\"".to_string(), Highlight::String)));
        assert!(runs[1].contains(&("let".to_string(), Highlight::Keyword)));
    }

    #[test]
    fn python_definitions_and_literals_are_classed() {
        let runs = runs_of(Language::Python, "def f(x):\n    return 'a'  # c\n");
        assert!(runs[0].contains(&("def".to_string(), Highlight::Keyword)));
        assert!(runs[0].contains(&("f".to_string(), Highlight::Function)));
        assert!(runs[1].contains(&("return".to_string(), Highlight::Keyword)));
        assert!(runs[1].contains(&("'a'".to_string(), Highlight::String)));
        assert!(runs[1].contains(&("# c".to_string(), Highlight::Comment)));
    }
}
