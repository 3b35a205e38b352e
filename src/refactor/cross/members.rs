//! Rust rename: a rename that changed both fields and methods of the name (renaming the field
//! `i` also renamed the method `i` of the same impl) touched a different symbol than its target.

use crate::lang::Language;
use crate::lang::calls::word_matches;
use crate::lang::rust::members::{MemberKind, member_sites};
use crate::refactor::{Finding, RenameRequest};

use super::wording as w;
use super::{Project, line_at};

/// Whether the check reads the changes' trees (around both names) for this rename.
pub(super) fn asks_trees(lang: Language, request: &RenameRequest) -> bool {
    let (old, new) = (request.symbol.name.as_str(), request.new_name.as_str());
    lang == Language::Rust && old != new && !old.is_empty() && !new.is_empty()
}

pub(super) fn check(project: &Project<'_>, request: &RenameRequest) -> Vec<Finding> {
    let (old, new) = (request.symbol.name.as_str(), request.new_name.as_str());
    if !asks_trees(project.lang, request) {
        return Vec::new();
    }
    let count = |sites: &[(usize, MemberKind)], kind: MemberKind| {
        sites.iter().filter(|(_, k)| *k == kind).count()
    };
    // Per file: the sites of the new name after, and how many of each kind were renamed.
    let mut renamed = [0usize; 2];
    let mut new_sites: Vec<(&str, &str, Vec<(usize, MemberKind)>, [usize; 2])> = Vec::new();
    let mut target: Option<MemberKind> = None;
    // A site is read from its name, its parent and grandparent (`member_sites`): a tree of the
    // statements around the names answers as the whole tree. Asked with the whole functions and
    // the `use` declarations, it is also the tree the patterns and imports checks read around the
    // rename's edits (one parse of each text), and before, the references judge's tree. After,
    // only the new name's sites are read: the old name's places left (possible references not
    // renamed, often many) are not parsed.
    let words = [old, new, "use", crate::lang::partial::WHOLE_FUNCTIONS];
    let words_after = [new, "use", crate::lang::partial::WHOLE_FUNCTIONS];
    for change in project.own_changes() {
        let after = member_sites(
            &project.tree_around(change, true, &words_after),
            &change.after,
            new,
        );
        // Before, the old name's sites tell the target's kind (in its file), and the new
        // name's are those the result already had: a text without the new name as a word has
        // none, and needs no tree.
        let target_line = request.symbol.line.filter(|_| change.path == request.file);
        let has_new = !word_matches(&change.before, new).is_empty();
        let (before_old, before_new) = if change.created() || (target_line.is_none() && !has_new) {
            (Vec::new(), Vec::new())
        } else {
            let tree = project.tree_around(change, false, &words);
            let sites = |name: &str, wanted: bool| match wanted {
                true => member_sites(&tree, &change.before, name),
                false => Vec::new(),
            };
            (sites(old, target_line.is_some()), sites(new, has_new))
        };
        if let Some(line) = target_line {
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

#[cfg(test)]
mod around_the_names {
    use super::*;
    use crate::edit::{FileChange, SourceFile};
    use crate::lang::symbols::SymbolQuery;
    use crate::refactor::{FullTrees, MemorySources, Sources};

    fn run(before: &str, after: &str, sources: &dyn Sources) -> Vec<Finding> {
        let source = SourceFile::from_text("src/lib.rs", before);
        let changes = vec![
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap(),
        ];
        let project = Project::new(Language::Rust, &changes, sources);
        let request = RenameRequest {
            file: "src/lib.rs".to_string(),
            symbol: SymbolQuery {
                name: "P/i".to_string(),
                line: Some(2),
                column: None,
            },
            new_name: "j".to_string(),
            include_possible: Vec::new(),
        };
        check(&project, &request)
    }

    #[test]
    fn a_field_rename_that_renamed_methods_of_the_name_is_a_warning_on_trees_around_the_names() {
        // The field `i` and the method `i` far apart, among other functions: the trees of the
        // statements around `i` and `j` tell a call (`p.i()`) from a field read (`p.i`).
        let before = "pub struct P {\n    i: u8,\n}\n\nfn other() -> u8 {\n    let q = 1;\n    q + 1\n}\n\nimpl P {\n    pub fn i(&self) -> u8 {\n        self.i\n    }\n\n    fn twice(&self) -> u8 {\n        if true { self.i() * 2 } else { 0 }\n    }\n}\n\nfn read(p: &P) -> u8 {\n    let v = vec![1];\n    p.i + v[0]\n}\n";
        let after = before
            .replace("    i: u8", "    j: u8")
            .replace("fn i(", "fn j(")
            .replace(".i", ".j");
        for text in [before, after.as_str()] {
            let (_, partial) =
                crate::lang::partial::parse_around_words(Language::Rust, text, &["i", "j"]);
            assert!(partial, "the check reads partial trees here");
        }
        let sources = MemorySources::new().with("src/lib.rs", before);
        let found = run(before, &after, &sources);
        let lines: Vec<usize> = found.iter().map(|f| f.line).collect();
        // The method's definition and its call, not the field reads.
        assert_eq!(lines, [11, 16], "{found:?}");
        assert!(found.iter().all(|f| f.kind == Some(w::OTHER_SYMBOL_KIND)));
        assert_eq!(run(before, &after, &FullTrees(&sources)), found);
        // Only the field renamed: nothing to say.
        let fields = before
            .replace("    i: u8", "    j: u8")
            .replace("self.i\n", "self.j\n")
            .replace("p.i +", "p.j +");
        assert_eq!(run(before, &fields, &sources), vec![]);
    }
}
