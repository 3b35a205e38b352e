//! A file opened in the code view: its text split into lines, syntax colours, outline and the
//! parameter lists of its functions, all computed once when it is loaded. Pure: the caller
//! reads the file.

use std::ops::Range;

use tree_sitter::Tree;

use crate::edit::SourceFile;
use crate::lang::symbols::{self, Symbol, SymbolKind};
use crate::lang::{Language, node_text};

use super::highlight::{self, Run};

/// A source file ready to show.
#[derive(Debug, Clone)]
pub struct Document {
    /// Project-relative path.
    pub path: String,
    pub text: String,
    /// sha256 of the bytes on disk this text came from.
    pub sha256: String,
    pub language: Language,
    /// Byte range of each line, without its line ending.
    pub lines: Vec<Range<usize>>,
    /// Syntax colours per line.
    pub highlights: Vec<Vec<Run>>,
    pub symbols: Vec<Symbol>,
    /// For each symbol, its nesting depth in the outline.
    pub depths: Vec<usize>,
    /// For each function symbol, its parameter list as one line of text (`(a: i32, b: &str)`).
    pub parameters: Vec<Option<String>>,
    /// The syntax tree of `text` (what is under the cursor is looked up in it).
    pub tree: Tree,
}

impl Document {
    /// Builds the document of a decoded source file; refuses languages candor does not know.
    pub fn new(source: SourceFile) -> Result<Document, String> {
        let tree = Document::language_of(&source)?.parse(&source.text);
        Document::with_tree(source, tree)
    }

    fn language_of(source: &SourceFile) -> Result<Language, String> {
        source.language().ok_or_else(|| {
            format!(
                "{} is not a Rust (.rs) or Python (.py, .pyi) file; candor refactors only those",
                source.path
            )
        })
    }

    /// Like [`Document::new`] with the file's syntax tree already at hand (the engine's cache
    /// re-parses a changed file incrementally).
    pub fn with_tree(source: SourceFile, tree: Tree) -> Result<Document, String> {
        let language = Document::language_of(&source)?;
        let text = source.text.to_string();
        let lines = line_ranges(&text);
        let highlights = highlight::highlight_lines(language, &tree, &text, &lines);
        let symbols = symbols::outline(language, &tree, &text);
        let depths = symbols
            .iter()
            .map(|s| {
                let mut depth = 0;
                let mut container = s.container;
                while let Some(c) = container {
                    depth += 1;
                    container = symbols.get(c).and_then(|p| p.container);
                }
                depth
            })
            .collect();
        let parameters = symbols
            .iter()
            .map(|s| {
                s.kind
                    .is_function()
                    .then(|| parameter_text(&tree, &text, s))
                    .flatten()
            })
            .collect();
        Ok(Document {
            path: source.path,
            text,
            sha256: source.sha256,
            language,
            lines,
            highlights,
            symbols,
            depths,
            parameters,
            tree,
        })
    }

    pub fn line_count(&self) -> usize {
        self.lines.len()
    }

    /// The text of a 0-based line (without its line ending); empty past the end.
    pub fn line(&self, index: usize) -> &str {
        self.lines
            .get(index)
            .and_then(|r| self.text.get(r.clone()))
            .unwrap_or("")
    }

    /// The innermost symbol accepted by `accept` whose lines (1-based, with its docs) contain
    /// the 0-based `line`.
    pub fn symbol_at(&self, line: usize, accept: impl Fn(&Symbol) -> bool) -> Option<usize> {
        let line = line + 1;
        self.symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| accept(s) && s.first_line <= line && line <= s.end_line)
            .min_by_key(|(_, s)| s.end_line - s.first_line)
            .map(|(i, _)| i)
    }

    /// The symbol with this name path whose name is nearest `line` (to find a selection again
    /// after the file changed).
    pub fn find_symbol(
        &self,
        name_path: &str,
        kind: SymbolKind,
        near_line: usize,
    ) -> Option<usize> {
        self.symbols
            .iter()
            .enumerate()
            .filter(|(_, s)| s.name_path == name_path && s.kind == kind)
            .min_by_key(|(_, s)| s.line.abs_diff(near_line))
            .map(|(i, _)| i)
    }
}

/// The lines of `text`: byte ranges without `\n` or `\r\n`. A final newline does not start an
/// extra line; an empty text has one empty line.
pub fn line_ranges(text: &str) -> Vec<Range<usize>> {
    let mut lines = Vec::new();
    let mut start = 0;
    for (i, byte) in text.bytes().enumerate() {
        if byte == b'\n' {
            let end = if i > start && text.as_bytes()[i - 1] == b'\r' {
                i - 1
            } else {
                i
            };
            lines.push(start..end);
            start = i + 1;
        }
    }
    if start < text.len() || lines.is_empty() {
        lines.push(start..text.len());
    }
    lines
}

/// The parameter list of a function symbol on one line, spaces normalised.
fn parameter_text(tree: &Tree, text: &str, symbol: &Symbol) -> Option<String> {
    let name = tree
        .root_node()
        .descendant_for_byte_range(symbol.name_range.start, symbol.name_range.end)?;
    let function = name.parent()?;
    let parameters = function.child_by_field_name("parameters")?;
    Some(one_line(node_text(parameters, text)))
}

/// Joins a multi-line parameter list into one line: `(\n    a: i32,\n    b: u8,\n)` becomes
/// `(a: i32, b: u8)`.
fn one_line(list: &str) -> String {
    let joined = list
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    let joined = joined.replace("( ", "(").replace(" )", ")");
    match joined.strip_suffix(",)") {
        Some(head) => format!("{head})"),
        None => joined,
    }
}

/// `fn parse_header`, `class Box`, `impl Display for Foo`.
pub fn symbol_label(doc: &Document, symbol: &crate::lang::symbols::Symbol) -> String {
    use crate::lang::symbols::SymbolKind;
    if symbol.kind == SymbolKind::Impl {
        symbol.name.clone()
    } else {
        format!("{} {}", symbol.kind.label(doc.language), symbol.name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_drop_line_endings() {
        assert_eq!(line_ranges("a\r\nbc\n"), vec![0..1, 3..5]);
        assert_eq!(line_ranges("a\nb"), vec![0..1, 2..3]);
        assert_eq!(line_ranges(""), vec![0..0]);
        assert_eq!(line_ranges("\n"), vec![0..0]);
    }

    #[test]
    fn parameters_are_one_line_and_symbols_are_found_by_line() {
        let text = "struct A;\nimpl A {\n    fn new(\n        a: i32,\n        b: &str,\n    ) -> A {\n        A\n    }\n}\n";
        let doc = Document::new(SourceFile::from_text("src/a.rs", text)).unwrap();
        let new = doc.symbols.iter().position(|s| s.name == "new").unwrap();
        assert_eq!(doc.parameters[new].as_deref(), Some("(a: i32, b: &str)"));
        assert_eq!(doc.depths[new], 1);
        assert_eq!(doc.symbol_at(6, |s| s.kind.is_function()), Some(new));
        assert_eq!(doc.symbol_at(0, |s| s.kind.is_function()), None);
        assert_eq!(doc.line(2), "    fn new(");
        let py =
            Document::new(SourceFile::from_text("m.py", "def f(a, b=1):\n    pass\n")).unwrap();
        assert_eq!(py.parameters[0].as_deref(), Some("(a, b=1)"));
        assert!(Document::new(SourceFile::from_text("notes.txt", "x")).is_err());
    }
}
