//! Rust rename: a rename that changed both fields and methods of the name (renaming the field
//! `i` also renamed the method `i` of the same impl) touched a different symbol than its target.

use crate::lang::Language;
use crate::lang::rust::members::{MemberKind, member_sites};
use crate::refactor::{Finding, RenameRequest};

use super::wording as w;
use super::{Project, line_at};

pub(super) fn check(project: &Project<'_>, request: &RenameRequest) -> Vec<Finding> {
    let (old, new) = (request.symbol.name.as_str(), request.new_name.as_str());
    if project.lang != Language::Rust || old == new || old.is_empty() || new.is_empty() {
        return Vec::new();
    }
    let count = |sites: &[(usize, MemberKind)], kind: MemberKind| {
        sites.iter().filter(|(_, k)| *k == kind).count()
    };
    // Per file: the sites of the new name after, and how many of each kind were renamed.
    let mut renamed = [0usize; 2];
    let mut new_sites: Vec<(&str, &str, Vec<(usize, MemberKind)>, [usize; 2])> = Vec::new();
    let mut target: Option<MemberKind> = None;
    for change in project.own_changes() {
        let after = member_sites(&project.tree(change, true), &change.after, new);
        let (before_old, before_new) = if change.created() {
            (Vec::new(), Vec::new())
        } else {
            let tree = project.tree(change, false);
            (
                member_sites(&tree, &change.before, old),
                member_sites(&tree, &change.before, new),
            )
        };
        if change.path == request.file
            && let Some(line) = request.symbol.line
        {
            target = target.or(before_old
                .iter()
                .find(|(at, _)| line_at(&change.before, *at) == line)
                .map(|(_, k)| *k));
        }
        let mut added = [0usize; 2];
        for (i, kind) in [MemberKind::Field, MemberKind::Method]
            .into_iter()
            .enumerate()
        {
            added[i] = count(&after, kind).saturating_sub(count(&before_new, kind));
            renamed[i] += added[i];
        }
        new_sites.push((&change.path, &change.after, after, added));
    }
    if renamed[0] == 0 || renamed[1] == 0 {
        return Vec::new();
    }
    let target = target.unwrap_or(if renamed[0] >= renamed[1] {
        MemberKind::Field
    } else {
        MemberKind::Method
    });
    let (other, other_index) = match target {
        MemberKind::Field => (MemberKind::Method, 1),
        MemberKind::Method => (MemberKind::Field, 0),
    };
    let label = |k: MemberKind| match k {
        MemberKind::Field => "field",
        MemberKind::Method => "method",
    };
    let mut findings = Vec::new();
    for (path, text, sites, added) in new_sites {
        if added[other_index] == 0 {
            continue;
        }
        let mut lines: Vec<usize> = sites
            .iter()
            .filter(|(_, k)| *k == other)
            .map(|(at, _)| line_at(text, *at))
            .collect();
        lines.dedup();
        findings.extend(lines.into_iter().map(|line| {
            Finding::warning(
                path,
                line,
                w::other_symbol_kind(old, label(target), label(other)),
            )
            .with_kind(w::OTHER_SYMBOL_KIND)
        }));
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile};
    use crate::lang::symbols::SymbolQuery;
    use crate::refactor::MemorySources;

    fn run(before: &str, after: &str, line: Option<usize>) -> Vec<Finding> {
        let source = SourceFile::from_text("src/lib.rs", before);
        let change =
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap();
        let changes = vec![change];
        let sources = MemorySources::new().with("src/lib.rs", before);
        let request = RenameRequest {
            file: "src/lib.rs".to_string(),
            symbol: SymbolQuery {
                name: "i".to_string(),
                line,
                column: None,
            },
            new_name: "baz".to_string(),
            include_possible: Vec::new(),
        };
        check(&Project::new(Language::Rust, &changes, &sources), &request)
    }

    #[test]
    fn renaming_the_field_must_leave_the_method() {
        let before = "struct Foo {\n    i: u8,\n}\nimpl Foo {\n    fn i(&self) -> u8 {\n        self.i\n    }\n}\n";
        let both = "struct Foo {\n    baz: u8,\n}\nimpl Foo {\n    fn baz(&self) -> u8 {\n        self.baz\n    }\n}\n";
        let found = run(before, both, Some(2));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(
            (found[0].line, found[0].severity),
            (5, crate::refactor::Severity::Warning)
        );
        assert!(
            found[0]
                .message
                .contains("rename of the field `i` also renamed a method")
        );
        let right = "struct Foo {\n    baz: u8,\n}\nimpl Foo {\n    fn i(&self) -> u8 {\n        self.baz\n    }\n}\n";
        assert!(run(before, right, Some(2)).is_empty());
    }
}
