//! Rust patterns a result must not write: an or-pattern whose alternatives bind different names
//! (a rename that changed `(foo | foo)` into `(bar | foo)`, E0408) and a field pattern with
//! `ref`/`mut` before `field: pattern` (`Foo { ref i }` renamed into `Foo { ref baz: i }`). Only
//! those the file did not have before count. A pattern the result wrote holds an edit: the result
//! is read around its edits (`Project::tree_around_edits`), and only when a pattern there that
//! touches an edit is wrong are the whole texts before and after compared.

use crate::lang::Language;
use crate::lang::rust::patterns::{
    BadPattern, invalid_field_patterns, invalid_field_patterns_within, uneven_or_patterns,
    uneven_or_patterns_within,
};
use crate::refactor::Finding;

use super::Project;
use super::around::{edited_ranges, touches_edits};
use super::wording as w;
use crate::edit::FileChange;

pub(super) fn check(project: &Project<'_>) -> Vec<Finding> {
    let mut findings = Vec::new();
    for change in project
        .changes
        .iter()
        .filter(|c| Language::from_path(&c.path) == Some(Language::Rust))
    {
        let around = project.tree_around_edits(change, true);
        let edited = edited_ranges(change, true);
        let touched =
            |bad: &BadPattern| touches_edits(&edited, &(bad.offset..bad.offset + bad.text.len()));
        // A pattern touches an edit only inside nodes that touch it: the walks enter no other.
        let near = |range: &std::ops::Range<usize>| touches_edits(&edited, range);
        let wrong_at_an_edit = uneven_or_patterns_within(&around, &change.after, near)
            .iter()
            .chain(&invalid_field_patterns_within(&around, &change.after, near))
            .any(touched);
        if wrong_at_an_edit {
            findings.extend(whole_file(project, change));
        }
    }
    findings
}

/// The patterns of the whole text after that the text before did not have.
fn whole_file(project: &Project<'_>, change: &FileChange) -> Vec<Finding> {
    let mut findings = Vec::new();
    let after_tree = project.tree(change, true);
    let new = |find: fn(&tree_sitter::Tree, &str) -> Vec<BadPattern>| {
        let after = find(&after_tree, &change.after);
        // The text before is looked at only when the result has such a pattern.
        if after.is_empty() {
            return after;
        }
        let mut before: Vec<String> = (!change.created())
            .then(|| find(&project.tree(change, false), &change.before))
            .unwrap_or_default()
            .into_iter()
            .map(|b| b.text)
            .collect();
        let mut fresh = Vec::new();
        for bad in after {
            match before.iter().position(|t| *t == bad.text) {
                Some(i) => {
                    before.swap_remove(i);
                }
                None => fresh.push(bad),
            }
        }
        fresh
    };
    for bad in new(uneven_or_patterns) {
        findings.push(
            Finding::error(
                &change.path,
                bad.line,
                w::uneven_or_pattern(&bad.text, &bad.unmatched),
            )
            .with_kind(w::UNEVEN_OR_PATTERN),
        );
    }
    for bad in new(invalid_field_patterns) {
        findings.push(
            Finding::error(&change.path, bad.line, w::invalid_field_pattern(&bad.text))
                .with_kind(w::INVALID_FIELD_PATTERN),
        );
    }
    findings
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile};
    use crate::refactor::MemorySources;

    fn run(before: &str, after: &str) -> Vec<Finding> {
        let source = SourceFile::from_text("src/lib.rs", before);
        let change =
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap();
        let changes = vec![change];
        let sources = MemorySources::new().with("src/lib.rs", before);
        check(&Project::new(Language::Rust, &changes, &sources))
    }

    /// `before` with each whole-word occurrence of `old` at the given (0-based) indexes renamed
    /// `new`, as the references engine's rename writes it: one edit per word.
    pub(in crate::refactor::cross) fn renamed_at(
        before: &str,
        old: &str,
        new: &str,
        which: &[usize],
    ) -> FileChange {
        let source = SourceFile::from_text("src/lib.rs", before);
        let edits = crate::lang::calls::word_matches(before, old)
            .into_iter()
            .enumerate()
            .filter(|(i, _)| which.contains(i))
            .map(|(_, at)| crate::edit::TextEdit::new(at..at + old.len(), new))
            .collect();
        FileChange::modify(&source, edits).unwrap()
    }

    #[test]
    fn a_bad_pattern_the_edits_wrote_is_found_on_the_tree_around_them() {
        // `foo` renamed in the first alternative only, in a function among others: the result is
        // read around the edited words, whose function is whole there and the others are not.
        let other = "fn other(v: &[u8]) -> usize {\n    let mut n = 0;\n    for x in v {\n        n += usize::from(*x);\n    }\n    n\n}\n";
        let before = format!(
            "{other}fn f(x: (u8, u8)) -> u8 {{\n    match x {{\n        (foo, _) | (_, foo) => foo,\n    }}\n}}\n{}",
            other.replace("other", "third")
        );
        let change = renamed_at(&before, "foo", "bar", &[0, 2]);
        let changes = vec![change];
        let sources = MemorySources::new().with("src/lib.rs", &before);
        let project = Project::new(Language::Rust, &changes, &sources);
        let around = project.tree_around_edits(&changes[0], true);
        let full = Language::Rust.parse(&changes[0].after);
        assert!(
            around.root_node().descendant_count() < full.root_node().descendant_count() / 2,
            "a partial tree"
        );
        let found = check(&project);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].line, found[0].kind),
            (10, Some(w::UNEVEN_OR_PATTERN))
        );
        assert!(found[0].message.contains("`bar`, `foo`"), "{found:?}");
        // Every occurrence renamed: nothing.
        let all = vec![renamed_at(&before, "foo", "bar", &[0, 1, 2])];
        assert!(check(&Project::new(Language::Rust, &all, &sources)).is_empty());
    }

    #[test]
    fn a_rename_of_some_alternatives_only_is_an_error() {
        let before = "fn f(x: (u8, u8)) -> u8 {\n    match x {\n        (foo, _) | (_, foo) => foo,\n    }\n}\n";
        let after = "fn f(x: (u8, u8)) -> u8 {\n    match x {\n        (bar, _) | (_, foo) => bar,\n    }\n}\n";
        let found = run(before, after);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].line, found[0].kind),
            (3, Some(w::UNEVEN_OR_PATTERN))
        );
        assert!(
            found[0].message.contains("`bar`, `foo`"),
            "{}",
            found[0].message
        );
        let renamed = "fn f(x: (u8, u8)) -> u8 {\n    match x {\n        (bar, _) | (_, bar) => bar,\n    }\n}\n";
        assert!(run(before, renamed).is_empty());
    }

    #[test]
    fn patterns_the_file_had_before_are_not_the_results() {
        // The text before is read only when the result has such a pattern: here it has, and
        // the file had both before (the rename touched another name).
        let before = "struct Foo { i: u8 }\nfn f(x: (u8, u8), y: &Foo) -> u8 {\n    let Foo { ref i: j } = *y;\n    match x {\n        (foo, _) | (_, bar) => foo,\n    }\n}\nfn g() {}\n";
        let after = before.replace("fn g()", "fn h()");
        assert!(run(before, &after).is_empty());
        let worse = after.replace("(_, bar)", "(_, baz) | (qux, _)");
        assert_eq!(run(before, &worse).len(), 1);
    }

    #[test]
    fn ref_shorthand_renamed_into_an_invalid_form_is_an_error() {
        let before =
            "struct Foo { i: u8 }\nfn f(x: &Foo) -> u8 {\n    let Foo { ref i } = *x;\n    *i\n}\n";
        let after = "struct Foo { baz: u8 }\nfn f(x: &Foo) -> u8 {\n    let Foo { ref baz: i } = *x;\n    *i\n}\n";
        let found = run(before, after);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].line, found[0].kind),
            (3, Some(w::INVALID_FIELD_PATTERN))
        );
        let right = "struct Foo { baz: u8 }\nfn f(x: &Foo) -> u8 {\n    let Foo { baz: ref i } = *x;\n    *i\n}\n";
        assert!(run(before, right).is_empty());
    }
}
