//! Which code action answers which request, and the text work around it: the selection range
//! of an extract, the choice among the actions a server offers, snippet markers stripped, the
//! function the server created found and renamed to the requested name. Pure.

use std::ops::Range;

use serde_json::Value;

use crate::lang::symbols::{self, Symbol};
use crate::lang::{Language, walk_tree};
use crate::refactor::RefactorError;
use crate::text::LineIndex;

/// The refactors language servers offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Extract,
    Inline,
    ExtractVariable,
    InlineVariable,
}

impl Operation {
    /// The code action kind asked for (`only`).
    pub fn kind(self) -> &'static str {
        match self {
            Operation::Extract | Operation::ExtractVariable => "refactor.extract",
            Operation::Inline | Operation::InlineVariable => "refactor.inline",
        }
    }

    /// Titles of the actions that do exactly this, best first: rust-analyzer, pylsp-rope,
    /// jedi-language-server (which appends the function name it chose).
    fn known_titles(self) -> &'static [TitleMatch] {
        match self {
            Operation::Extract => &[
                TitleMatch::Exact("Extract into function"),
                TitleMatch::Exact("Extract method"),
                TitleMatch::Prefix("Extract statements into function"),
                TitleMatch::Prefix("Extract expression into function"),
            ],
            Operation::Inline => &[
                TitleMatch::Exact("Inline into all callers"),
                TitleMatch::Exact("Inline method/variable/parameter"),
            ],
            // rust-analyzer's titles.
            Operation::ExtractVariable => &[TitleMatch::Exact("Extract into variable")],
            // rust-analyzer's, then pyrefly's ("Inline variable `total`").
            Operation::InlineVariable => &[
                TitleMatch::Exact("Inline variable"),
                TitleMatch::Prefix("Inline variable `"),
            ],
        }
    }
}

enum TitleMatch {
    Exact(&'static str),
    Prefix(&'static str),
}

impl TitleMatch {
    fn matches(&self, title: &str) -> bool {
        match self {
            TitleMatch::Exact(t) => title == *t,
            TitleMatch::Prefix(p) => title.starts_with(p),
        }
    }
}

/// The title of a code action or command.
pub fn title(action: &Value) -> &str {
    action.get("title").and_then(Value::as_str).unwrap_or("")
}

fn kind_fits(action: &Value, operation: Operation) -> bool {
    match action.get("kind").and_then(Value::as_str) {
        // A bare Command carries no kind; its title decides.
        None => true,
        Some(kind) => {
            kind == operation.kind() || kind.starts_with(&format!("{}.", operation.kind()))
        }
    }
}

/// The action that performs `operation` among those offered, if any. Known titles win, in
/// their order; an unknown server's action is taken only when exactly one plainly says it
/// extracts (or inlines) a function.
pub fn choose(operation: Operation, actions: &[Value]) -> Option<&Value> {
    let fitting: Vec<&Value> = actions.iter().filter(|a| kind_fits(a, operation)).collect();
    for wanted in operation.known_titles() {
        if let Some(action) = fitting.iter().find(|a| wanted.matches(title(a))) {
            return Some(action);
        }
    }
    let generic: Vec<&Value> = fitting
        .iter()
        .copied()
        .filter(|a| {
            let t = title(a).to_lowercase();
            match operation {
                Operation::Extract => {
                    t.starts_with("extract")
                        && (t.contains("function") || t.contains("method"))
                        && ![
                            "variable", "constant", "static", "global", "similar", "module",
                            "closure", "type",
                        ]
                        .iter()
                        .any(|w| t.contains(w))
                }
                Operation::Inline => {
                    t.starts_with("inline") && (t.contains("all callers") || t.contains("function"))
                }
                // Only the known titles: an unknown server's variable action is not guessed.
                Operation::ExtractVariable | Operation::InlineVariable => false,
            }
        })
        .collect();
    match generic.as_slice() {
        [one] => Some(one),
        _ => None,
    }
}

/// The byte range an extract asks the server about: from the first non-blank character of the
/// selection's first non-blank line to the end of its last non-blank line.
pub fn selection_range(
    text: &str,
    start_line: usize,
    end_line: usize,
) -> Result<Range<usize>, RefactorError> {
    let index = LineIndex::new(text);
    let count = index.line_count();
    if start_line == 0 || end_line < start_line {
        return Err(RefactorError::InvalidRange {
            line: start_line,
            message: format!(
                "lines {start_line}-{end_line} are not a selection; give 1-based lines, first then last"
            ),
        });
    }
    if end_line > count {
        return Err(RefactorError::InvalidRange {
            line: end_line,
            message: format!("line {end_line} is past the end of the file ({count} lines)"),
        });
    }
    let non_blank: Vec<Range<usize>> = (start_line - 1..end_line)
        .map(|line| index.line_range(text, line))
        .filter(|r| !text[r.clone()].trim().is_empty())
        .collect();
    let (Some(first), Some(last)) = (non_blank.first(), non_blank.last()) else {
        return Err(RefactorError::InvalidRange {
            line: start_line,
            message: format!(
                "lines {start_line}-{end_line} are blank; select the statements to extract"
            ),
        });
    };
    let indent = text[first.clone()].len() - text[first.clone()].trim_start().len();
    let trailing = text[last.clone()].len() - text[last.clone()].trim_end().len();
    Ok(first.start + indent..last.end - trailing)
}

/// Plain text of an LSP snippet: tab stops and variables dropped, placeholders and the first
/// choice kept, escapes resolved. Only for text a server marked as a snippet.
pub fn strip_snippet(snippet: &str) -> String {
    let chars: Vec<char> = snippet.chars().collect();
    let mut out = String::with_capacity(snippet.len());
    // How many `${…:` placeholders are open: their closing `}` is dropped.
    let mut open = 0usize;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\\' if matches!(chars.get(i + 1), Some('$' | '}' | '\\')) => {
                out.push(chars[i + 1]);
                i += 2;
            }
            '}' if open > 0 => {
                open -= 1;
                i += 1;
            }
            '$' => {
                let next = chars.get(i + 1).copied();
                match next {
                    Some(d) if d.is_ascii_digit() => {
                        i += 1;
                        while chars.get(i).is_some_and(char::is_ascii_digit) {
                            i += 1;
                        }
                    }
                    Some(v) if v == '_' || v.is_ascii_alphabetic() => {
                        i += 1;
                        while chars
                            .get(i)
                            .is_some_and(|c| *c == '_' || c.is_ascii_alphanumeric())
                        {
                            i += 1;
                        }
                    }
                    Some('{') => {
                        let mut j = i + 2;
                        while chars
                            .get(j)
                            .is_some_and(|c| *c == '_' || c.is_ascii_alphanumeric())
                        {
                            j += 1;
                        }
                        match chars.get(j) {
                            Some('}') => i = j + 1,
                            Some(':') => {
                                open += 1;
                                i = j + 1;
                            }
                            Some('|') => {
                                // A choice: keep the first option.
                                let mut k = j + 1;
                                while k < chars.len() && chars[k] != ',' && chars[k] != '|' {
                                    out.push(chars[k]);
                                    k += 1;
                                }
                                while k < chars.len()
                                    && !(chars[k] == '}' && chars.get(k - 1) == Some(&'|'))
                                {
                                    k += 1;
                                }
                                i = k + 1;
                            }
                            _ => {
                                out.push(c);
                                i += 1;
                            }
                        }
                    }
                    _ => {
                        out.push(c);
                        i += 1;
                    }
                }
            }
            _ => {
                out.push(c);
                i += 1;
            }
        }
    }
    out
}

/// Functions defined in `after` under a name no function of `before` has: what an extract
/// created. Each with the byte range of its name in `after`.
pub fn new_functions(lang: Language, before: &str, after: &str) -> Vec<(String, Range<usize>)> {
    let old: Vec<String> = symbols::outline(lang, &lang.parse(before), before)
        .into_iter()
        .filter(|s| s.kind.is_function())
        .map(|s| s.name)
        .collect();
    symbols::outline(lang, &lang.parse(after), after)
        .into_iter()
        .filter(|s| s.kind.is_function() && !old.contains(&s.name))
        .map(|s| (s.name, s.name_range))
        .collect()
}

/// Checks that the file the server edited ends with one new function, named `new_name`, and
/// that no trace of the server's `default_name` is left when the two differ. A requested name
/// equal to the server's default (`fun_name`, `extracted_method`, `jls_extract_def`) needs no
/// rename and leaves nothing behind. The error says what is wrong.
pub fn check_named(
    lang: Language,
    before: &str,
    after: &str,
    default_name: &str,
    new_name: &str,
) -> Result<(), String> {
    let names: Vec<String> = new_functions(lang, before, after)
        .into_iter()
        .map(|(n, _)| n)
        .collect();
    let leftover = default_name != new_name
        && has_identifier(lang, after, default_name)
        && !has_identifier(lang, before, default_name);
    if names != [new_name] || leftover {
        return Err(format!(
            "renaming the new function `{default_name}` to `{new_name}` left the file inconsistent (new functions: {})",
            names.join(", ")
        ));
    }
    Ok(())
}

/// Whether `word` occurs in `text` as a whole word.
pub fn contains_word(text: &str, word: &str) -> bool {
    let is_word = |c: char| c == '_' || c.is_alphanumeric();
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// Whether an identifier token of the syntax tree is `name`.
pub fn has_identifier(lang: Language, text: &str, name: &str) -> bool {
    !identifier_ranges(lang, text, name).is_empty()
}

fn identifier_ranges(lang: Language, text: &str, name: &str) -> Vec<Range<usize>> {
    let tree = lang.parse(text);
    let mut ranges = Vec::new();
    walk_tree(&tree, |node| {
        if matches!(node.kind(), "identifier" | "field_identifier")
            && text.get(node.byte_range()) == Some(name)
        {
            ranges.push(node.byte_range());
        }
        true
    });
    ranges
}

/// Renames every identifier token `old` of the syntax tree to `new` (strings and comments are
/// left alone). Only sound when `old` was absent from the file before the server added it.
pub fn rename_identifiers(lang: Language, text: &str, old: &str, new: &str) -> String {
    let ranges = identifier_ranges(lang, text, old);
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for range in ranges {
        out.push_str(&text[cursor..range.start]);
        out.push_str(new);
        cursor = range.end;
    }
    out.push_str(&text[cursor..]);
    out
}

/// An item that already has `name` where the extracted function would go (beside the function
/// holding `offset`): returns its 1-based line.
pub fn name_collision(lang: Language, text: &str, name: &str, offset: usize) -> Option<usize> {
    let outline = symbols::outline(lang, &lang.parse(text), text);
    let enclosing: Option<&Symbol> = outline
        .iter()
        .filter(|s| s.kind.is_function() && s.range.start <= offset && offset < s.range.end)
        .min_by_key(|s| s.range.len());
    let scope = enclosing.and_then(|s| s.container);
    outline
        .iter()
        .find(|s| s.name == name && s.container == scope)
        .map(|s| s.line)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selection_covers_the_statements_only() {
        let text = "fn f() {\n    let a = 1;\n\n    let b = 2;  \n\n}\n";
        let range = selection_range(text, 2, 5).unwrap();
        assert_eq!(&text[range], "let a = 1;\n\n    let b = 2;");
        assert!(matches!(
            selection_range(text, 3, 3),
            Err(RefactorError::InvalidRange { line: 3, .. })
        ));
        assert!(matches!(
            selection_range(text, 2, 9),
            Err(RefactorError::InvalidRange { line: 9, .. })
        ));
    }

    #[test]
    fn actions_are_chosen_by_kind_and_title() {
        let actions = vec![
            json!({"title": "Extract into variable", "kind": "refactor.extract"}),
            json!({"title": "Extract method including similar statements", "kind": "refactor.extract", "command": {}}),
            json!({"title": "Extract method", "kind": "refactor.extract", "command": {}}),
            json!({"title": "Extract into function", "kind": "refactor.rewrite"}),
        ];
        assert_eq!(
            title(choose(Operation::Extract, &actions).unwrap()),
            "Extract method"
        );
        let jedi = vec![
            json!({"title": "Extract expression into function 'jls_extract_def'", "kind": "refactor.extract"}),
        ];
        assert!(choose(Operation::Extract, &jedi).is_some());
        let inline = vec![
            json!({"title": "Inline", "kind": "refactor.inline"}),
            json!({"title": "Inline into all callers", "kind": "refactor.inline"}),
        ];
        assert_eq!(
            title(choose(Operation::Inline, &inline).unwrap()),
            "Inline into all callers"
        );
        let unknown = vec![
            json!({"title": "Extract to function in module scope", "kind": "refactor.extract.function"}),
        ];
        assert!(
            choose(Operation::Extract, &unknown).is_none(),
            "`module` disqualifies"
        );
        let unknown =
            vec![json!({"title": "Extract function", "kind": "refactor.extract.function"})];
        assert!(choose(Operation::Extract, &unknown).is_some());
        assert!(choose(Operation::Inline, &actions).is_none());
    }

    #[test]
    fn snippets_become_plain_text() {
        assert_eq!(strip_snippet("fn $0fun_name() {}"), "fn fun_name() {}");
        assert_eq!(
            strip_snippet("let ${1:x} = ${2:f(${3:a})};$0"),
            "let x = f(a);"
        );
        assert_eq!(strip_snippet("${1|one,two|} \\$5 \\} ${0}"), "one $5 } ");
        assert_eq!(strip_snippet("cost $ 5"), "cost $ 5");
    }

    #[test]
    fn created_functions_are_found_and_renamed() {
        let before = "fn a() {\n    let fun = 1;\n}\n";
        let after =
            "fn a() {\n    fun_name();\n}\n\nfn fun_name() {\n    let fun = 1; // fun_name\n}\n";
        let created = new_functions(Language::Rust, before, after);
        assert_eq!(created.len(), 1);
        assert_eq!(created[0].0, "fun_name");
        assert!(!contains_word(before, "fun_name"));
        assert!(contains_word(after, "fun_name"));
        assert!(!contains_word("fun_names", "fun_name"));
        let renamed = rename_identifiers(Language::Rust, after, "fun_name", "setup");
        assert_eq!(
            renamed,
            "fn a() {\n    setup();\n}\n\nfn setup() {\n    let fun = 1; // fun_name\n}\n"
        );
        assert!(!has_identifier(Language::Rust, &renamed, "fun_name"));
        assert!(has_identifier(Language::Rust, &renamed, "setup"));
        let python = "class A:\n    def f(self):\n        self.extracted_method()\n\n    def extracted_method(self):\n        pass\n";
        assert!(
            rename_identifiers(Language::Python, python, "extracted_method", "go")
                .contains("self.go()")
        );
    }

    #[test]
    fn a_requested_name_equal_to_the_server_default_is_consistent() {
        let before = "fn a() {\n    let x = 1;\n}\n";
        let after = "fn a() {\n    fun_name();\n}\n\nfn fun_name() {\n    let x = 1;\n}\n";
        assert_eq!(
            check_named(Language::Rust, before, after, "fun_name", "fun_name"),
            Ok(())
        );
        let python_before = "class A:\n    def f(self):\n        pass\n";
        let python_after = "class A:\n    def f(self):\n        self.extracted_method()\n\n    def extracted_method(self):\n        pass\n";
        assert_eq!(
            check_named(
                Language::Python,
                python_before,
                python_after,
                "extracted_method",
                "extracted_method"
            ),
            Ok(())
        );
        // A rename that left the default behind is still caught.
        let half = "fn a() {\n    fun_name();\n}\n\nfn setup() {\n    let x = 1;\n}\n";
        assert!(check_named(Language::Rust, before, half, "fun_name", "setup").is_err());
        let renamed = "fn a() {\n    setup();\n}\n\nfn setup() {\n    let x = 1;\n}\n";
        assert_eq!(
            check_named(Language::Rust, before, renamed, "fun_name", "setup"),
            Ok(())
        );
    }

    #[test]
    fn collisions_are_looked_for_beside_the_enclosing_function() {
        let text = "fn helper() {}\n\nstruct S;\nimpl S {\n    fn run(&self) {\n        let x = 1;\n    }\n    fn step(&self) {}\n}\n";
        let inside_run = text.find("let x").unwrap();
        assert_eq!(
            name_collision(Language::Rust, text, "step", inside_run),
            Some(8)
        );
        assert_eq!(
            name_collision(Language::Rust, text, "helper", inside_run),
            None
        );
        let top = "def helper():\n    pass\n\ndef main():\n    x = 1\n";
        assert_eq!(
            name_collision(Language::Python, top, "helper", top.find("x = 1").unwrap()),
            Some(1)
        );
    }
}
