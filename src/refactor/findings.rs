//! Findings, the fourth honesty surface: concrete, located, best-effort notes on where a caveat
//! bites in this very edit. Also the check every result goes through: parse it again.

use serde::Serialize;

pub use super::sources::KnownParse;
use super::sources::{ParseOnDemand, ParsedFiles, map_in_parallel};
use crate::edit::FileChange;
use crate::lang::{Language, incremental, lex, partial, regions, syntax_errors};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// `{file, line, severity, message}` of the JSON contract, and `kind` where the finding has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub file: String,
    /// 1-based line.
    pub line: usize,
    pub severity: Severity,
    pub message: String,
    /// A stable key for what the finding is about (`inline.call_inlined`,
    /// `cross.return_in_block`), the same for every finding of the kind whatever the places and
    /// names its message holds: `data.finding_counts.by_kind` folds by it. A finding without one
    /// is folded by its message without the places it names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
}

/// The prefix of the message of a syntax-error finding; `Finding::is_syntax_error` keys on it.
pub const SYNTAX_ERROR_PREFIX: &str = "the result has a syntax error at line";
/// The kind of a syntax-error finding.
pub const SYNTAX_ERROR_KIND: &str = "syntax.error";

impl Finding {
    pub fn new(
        file: impl Into<String>,
        line: usize,
        severity: Severity,
        message: impl Into<String>,
    ) -> Finding {
        Finding {
            file: file.into(),
            line,
            severity,
            message: message.into(),
            kind: None,
        }
    }

    /// The finding with the stable `kind` (see [`Finding::kind`]).
    pub fn with_kind(mut self, kind: &'static str) -> Finding {
        self.kind = Some(kind);
        self
    }

    pub fn info(file: &str, line: usize, message: impl Into<String>) -> Finding {
        Finding::new(file, line, Severity::Info, message)
    }

    pub fn warning(file: &str, line: usize, message: impl Into<String>) -> Finding {
        Finding::new(file, line, Severity::Warning, message)
    }

    pub fn error(file: &str, line: usize, message: impl Into<String>) -> Finding {
        Finding::new(file, line, Severity::Error, message)
    }

    pub fn is_syntax_error(&self) -> bool {
        self.severity == Severity::Error && self.message.starts_with(SYNTAX_ERROR_PREFIX)
    }
}

/// Parses every changed file again (each in the language of its path). A file that parsed
/// before and does not now gets an error-severity finding at the first new error; a file that
/// was already broken gets a warning saying so (its errors are not ours to fix, but the user
/// should know).
pub fn check_syntax(changes: &[FileChange]) -> Vec<Finding> {
    changes
        .iter()
        .filter_map(|c| {
            Language::from_path(&c.path)
                .and_then(|lang| check_change(lang, c, None, &ParseOnDemand))
        })
        .collect()
}

/// [`check_syntax`] parsing every file whole, `after` and (when it has errors) `before`: the
/// reference the faster paths are checked against (`examples/refactor_check.rs`).
#[doc(hidden)]
pub fn check_syntax_whole(changes: &[FileChange]) -> Vec<Finding> {
    changes
        .iter()
        .filter_map(|change| {
            let lang = Language::from_path(&change.path)?;
            let known = (!change.created()).then(|| {
                let tree = lang.parse(&change.before);
                let errors = syntax_errors(&tree, &change.before);
                KnownParse { tree, errors }
            });
            check_change_whole(lang, change, known.as_ref(), &ParseOnDemand)
        })
        .collect()
}

/// [`check_syntax`] for the changes of one request in `lang`, where the parse of some files'
/// `before` is known (`known[i]` for `changes[i]`, from the shell's store), each file on one of
/// the store's workers. Those files are checked whole at any size, with the same verdicts as a
/// full parse, at the cost of the edits: the tree of `after` comes from an incremental re-parse,
/// and for Python first from the top-level statements the edits touch.
pub fn check_syntax_with(
    lang: Language,
    changes: &[FileChange],
    known: &[Option<KnownParse>],
    store: &dyn ParsedFiles,
) -> Vec<Finding> {
    let indexed: Vec<(usize, &FileChange)> = changes.iter().enumerate().collect();
    let findings = map_in_parallel(store, &indexed, &|(i, change)| {
        check_change(lang, change, known.get(*i).and_then(Option::as_ref), store)
    });
    findings.into_iter().flatten().collect()
}

/// [`check_syntax_with`] on the calling thread.
pub fn check_syntax_with_trees(
    lang: Language,
    changes: &[FileChange],
    known: &[Option<KnownParse>],
) -> Vec<Finding> {
    check_syntax_with(lang, changes, known, &ParseOnDemand)
}

/// From this many edits in one file with a known tree, the syntax check re-parses the whole
/// tree around them instead of parsing the statements (Python) or items (Rust) they touch.
pub(crate) const WHOLE_FROM_EDITS: usize = 2_000;

fn check_change(
    lang: Language,
    change: &FileChange,
    known: Option<&KnownParse>,
    store: &dyn ParsedFiles,
) -> Option<Finding> {
    let known = known.filter(|_| !change.created());
    match known {
        // Without the whole tree at hand, the statements around the edits are parsed first (a
        // full parse costs milliseconds per hundred kilobytes, and a search touches many files);
        // the whole file only when they do not parse cleanly.
        None if edits_parse_clean(lang, change) => return None,
        // A file without errors before: the top-level statements the edits touch tell — unless
        // the edits are so many that re-parsing the tree around them costs less than parsing
        // those statements anew (a change of signature with 100,000 calls in one function), and
        // the cross-checks then take that tree. Both say the same: clean statements there mean
        // a clean file.
        Some(known)
            if lang == Language::Python
                && known.errors.is_empty()
                && change.edits.len() < WHOLE_FROM_EDITS
                && partial::python_statements_clean(&change.after, &edited_ranges(change)) =>
        {
            return None;
        }
        // Rust: first the statements around the edits, as for a file without a known tree (a
        // method renamed in a large `impl` made the items' check parse the whole `impl`); then
        // the items the edits touch, with the same item boundaries around them. Not for 100,000
        // edits: they touch nearly every item, and the items' parse (1.1 s) is followed by a
        // parse of the whole result for the cross-checks (0.8 s); the whole result's parse is
        // both.
        Some(known)
            if lang == Language::Rust
                && known.errors.is_empty()
                && change.edits.len() < WHOLE_FROM_EDITS
                && (edits_parse_clean(lang, change)
                    || partial::rust_items_clean(
                        &change.before,
                        &change.after,
                        &change
                            .edits
                            .iter()
                            .map(|e| (e.range.clone(), e.new_text.len()))
                            .collect::<Vec<_>>(),
                    )) =>
        {
            return None;
        }
        _ => {}
    }
    check_change_whole(lang, change, known, store)
}

/// The whole-file verdict: `after` parsed (incrementally from `before` when its tree is known),
/// and that tree handed to the store for the cross-checks of the same request.
fn check_change_whole(
    lang: Language,
    change: &FileChange,
    known: Option<&KnownParse>,
    store: &dyn ParsedFiles,
) -> Option<Finding> {
    let known = known.filter(|_| !change.created());
    let after_tree = match known {
        Some(known) => incremental::reparse_edits(
            lang,
            &change.before,
            &known.tree,
            change
                .edits
                .iter()
                .map(|e| (e.range.clone(), e.new_text.as_str())),
            &change.after,
        ),
        None => lang.parse(&change.after),
    };
    store.keep_result_tree(lang, &change.path, &change.sha256_after, &after_tree);
    let after_errors = syntax_errors(&after_tree, &change.after);
    let first = after_errors.first()?;
    let before_errors = match (change.created(), known) {
        (true, _) => Vec::new(),
        (false, Some(known)) => known.errors.clone(),
        (false, None) => syntax_errors(&lang.parse(&change.before), &change.before),
    };
    if before_errors.is_empty() || after_errors.len() > before_errors.len() {
        Some(
            Finding::error(
                &change.path,
                first.line,
                result_has_a_syntax_error(first.line, &first.description),
            )
            .with_kind(SYNTAX_ERROR_KIND),
        )
    } else {
        Some(
            Finding::warning(
                &change.path,
                before_errors[0].line,
                had_a_syntax_error(before_errors[0].line),
            )
            .with_kind("syntax.already_broken"),
        )
    }
}

/// Whether the statements around every edit parse cleanly, which shows the edit introduced no
/// syntax error. Python edits qualify only inside one logical line, after its
/// indentation: a region cannot judge indentation against its surroundings.
fn edits_parse_clean(lang: Language, change: &FileChange) -> bool {
    let ranges = edited_ranges(change);
    if lang == Language::Python {
        let lexed = lex::lex(lang, &change.after);
        let within_one_line = |range: &std::ops::Range<usize>| {
            let index = lexed.logical_lines.partition_point(|s| *s <= range.start);
            let Some(line_start) = index.checked_sub(1).map(|i| lexed.logical_lines[i]) else {
                return false;
            };
            let next = lexed
                .logical_lines
                .get(index)
                .copied()
                .unwrap_or(change.after.len());
            let indentation_end = line_start + change.after[line_start..].len()
                - change.after[line_start..]
                    .trim_start_matches([' ', '\t'])
                    .len();
            range.start > indentation_end && range.end < next
        };
        if !ranges.iter().all(within_one_line) {
            return false;
        }
    }
    regions::regions_parse_clean(lang, &change.after, &ranges) == Some(true)
}

/// The ranges of `after` that the edits wrote.
fn edited_ranges(change: &FileChange) -> Vec<std::ops::Range<usize>> {
    let mut ranges = Vec::with_capacity(change.edits.len());
    let mut shift: isize = 0;
    for edit in &change.edits {
        let start = (edit.range.start as isize + shift) as usize;
        ranges.push(start..start + edit.new_text.len());
        shift += edit.new_text.len() as isize - edit.range.len() as isize;
    }
    ranges
}

/// Sorts findings by file, line and severity (errors first on a line) and drops exact duplicates.
pub fn normalize(findings: &mut Vec<Finding>) {
    findings.sort_by(|a, b| {
        (
            a.file.as_str(),
            a.line,
            std::cmp::Reverse(a.severity),
            a.message.as_str(),
        )
            .cmp(&(
                b.file.as_str(),
                b.line,
                std::cmp::Reverse(b.severity),
                b.message.as_str(),
            ))
    });
    findings.dedup();
}

/// The error finding of a result that does not parse (`what`: the parser's description).
pub fn result_has_a_syntax_error(line: usize, what: &str) -> String {
    format!(
        "{SYNTAX_ERROR_PREFIX} {line} ({what}); it will not be written unless you pass allow_syntax_errors"
    )
}

fn had_a_syntax_error(line: usize) -> String {
    format!(
        "the file already had a syntax error at line {line} before this refactor; the heuristic may misread the code around it"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{SourceFile, TextEdit};
    use tree_sitter::Tree;

    #[test]
    fn a_broken_result_is_an_error_finding() {
        let source = SourceFile::from_text("a.py", "def f():\n    return 1\n");
        let change = FileChange::modify(&source, vec![TextEdit::new(9..13, "")]).unwrap();
        let findings = check_syntax(&[change]);
        assert_eq!(findings.len(), 1);
        assert!(findings[0].is_syntax_error());
        assert_eq!(findings[0].severity, Severity::Error);
        let fine = FileChange::modify(&source, vec![TextEdit::new(20..21, "2")]).unwrap();
        assert!(check_syntax(&[fine]).is_empty());
    }

    /// A store that only records the result trees handed to it.
    #[derive(Default)]
    struct KeptResults(std::sync::Mutex<Vec<String>>);

    impl ParsedFiles for KeptResults {
        fn keep_result_tree(&self, _lang: Language, path: &str, _sha256: &str, _tree: &Tree) {
            self.0.lock().unwrap().push(path.to_string());
        }
    }

    #[test]
    fn a_rust_file_with_many_edits_is_parsed_whole_once_for_the_cross_checks() {
        let mut text = String::from(
            "fn f(a: u8, b: u8) {}
fn main() {
",
        );
        for i in 0..WHOLE_FROM_EDITS {
            text.push_str(&format!(
                "    f({}, 1);
",
                i % 200
            ));
        }
        text.push_str(
            "}
",
        );
        let source = SourceFile::from_text("src/main.rs", text.clone());
        let known = |change: &FileChange| {
            let tree = Language::Rust.parse(&change.before);
            let errors = syntax_errors(&tree, &change.before);
            Some(KnownParse { tree, errors })
        };
        let swaps = |count: usize, new_text: &str| -> FileChange {
            let edits = text
                .match_indices("f(")
                .skip(1)
                .take(count)
                .map(|(at, _)| {
                    let close = at + text[at..].find(')').unwrap();
                    TextEdit::new(at + 2..close, new_text)
                })
                .collect();
            FileChange::modify(&source, edits).unwrap()
        };
        // Few edits: the items they touch tell, and no whole tree is made.
        let check = |change: FileChange, store: &KeptResults| {
            let known = [known(&change)];
            check_syntax_with(Language::Rust, &[change], &known, store)
        };
        let store = KeptResults::default();
        assert!(check(swaps(WHOLE_FROM_EDITS - 1, "1, 0"), &store).is_empty());
        assert!(store.0.lock().unwrap().is_empty());
        // As many as the limit: the whole result, with the same verdicts, kept for the checks.
        let store = KeptResults::default();
        assert!(check(swaps(WHOLE_FROM_EDITS, "1, 0"), &store).is_empty());
        assert_eq!(*store.0.lock().unwrap(), ["src/main.rs"]);
        let found = check(swaps(WHOLE_FROM_EDITS, "1,, 0"), &store);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].is_syntax_error());
    }

    #[test]
    fn large_files_are_checked_by_regions_with_the_same_verdicts() {
        let mut text = String::new();
        for i in 0..2000 {
            text.push_str(&format!(
                "def f{i}(a, b):\n    a += 1\n    return g(a, b)\n\n\n"
            ));
        }
        let source = SourceFile::from_text("big.py", text.clone());
        let call = text.find("g(a, b)").unwrap() + 2;
        let good =
            FileChange::modify(&source, vec![TextEdit::new(call..call + 4, "a, b, None")]).unwrap();
        assert!(edits_parse_clean(Language::Python, &good));
        assert!(check_syntax(&[good]).is_empty());
        let bad =
            FileChange::modify(&source, vec![TextEdit::new(call..call + 4, "a,, b")]).unwrap();
        assert!(!edits_parse_clean(Language::Python, &bad));
        assert_eq!(check_syntax(&[bad]).len(), 1);
        // A change of indentation is never judged by a region.
        let line = text.find("    return").unwrap();
        let dedent =
            FileChange::modify(&source, vec![TextEdit::new(line..line + 4, "  ")]).unwrap();
        assert!(!edits_parse_clean(Language::Python, &dedent));
        assert_eq!(check_syntax(&[dedent]).len(), 1);
    }
}
