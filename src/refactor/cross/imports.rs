//! Rust imports a result adds that nothing in the file uses (rust-analyzer's extract of a
//! `break` adds `use std::ops::ControlFlow;` and then does not use it). A name that may be a
//! trait is left alone: a trait import is used by method calls that never spell its name.
//! The text after is read through a tree around the edits, the text before through one around
//! its `use`s; both hold every `use` declaration whole (`Project::tree_around_edits`,
//! `Project::tree_around_uses`): the leaves are those of the whole files.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use tree_sitter::Node;

use crate::edit::FileChange;
use crate::lang::Language;
use crate::lang::calls::word_matches;
use crate::lang::rust::imports::use_paths;
use crate::lang::rust::traits::std_trait_methods;
use crate::refactor::Finding;

use super::around::word_for_word;
use super::wording as w;
use super::{AfterMap, Project, line_at};

/// Traits of std and core a file may import besides those [`std_trait_methods`] knows.
const STD_TRAITS: &[&str] = &[
    "Add",
    "AddAssign",
    "AsMut",
    "AsRef",
    "BitAnd",
    "BitOr",
    "BitXor",
    "BuildHasher",
    "Clone",
    "Debug",
    "Default",
    "Display",
    "Div",
    "DivAssign",
    "DoubleEndedIterator",
    "Drop",
    "Eq",
    "ExactSizeIterator",
    "Extend",
    "Fn",
    "FnMut",
    "FnOnce",
    "FromIterator",
    "Future",
    "Index",
    "IndexMut",
    "IntoIterator",
    "Iterator",
    "Mul",
    "MulAssign",
    "Neg",
    "Not",
    "Ord",
    "PartialEq",
    "PartialOrd",
    "Product",
    "RangeBounds",
    "Rem",
    "Shl",
    "Shr",
    "Sub",
    "SubAssign",
    "Sum",
    "ToOwned",
    "ToString",
    "TryFrom",
    "TryInto",
    "UpperHex",
    "LowerHex",
    "Binary",
    "Octal",
];

pub(super) fn check(project: &Project<'_>) -> Vec<Finding> {
    let mut findings = Vec::new();
    for change in project
        .changes
        .iter()
        .filter(|c| Language::from_path(&c.path) == Some(Language::Rust))
    {
        let after_tree = project.tree_around_edits(change, true);
        let leaves = use_paths(&after_tree, &change.after);
        let before: BTreeSet<Leaf> = match change.created() {
            true => BTreeSet::new(),
            false => leaves_before_off_word_edits(change, &leaves).unwrap_or_else(|| {
                project
                    .tree_around_uses(change, false)
                    .map(|tree| {
                        use_paths(&tree, &change.before)
                            .into_iter()
                            .map(|(p, a, _)| (p, a))
                            .collect()
                    })
                    .unwrap_or_default()
            }),
        };
        let declarations: Vec<Range<usize>> =
            leaves.iter().map(|(_, _, d)| d.byte_range()).collect();
        for (path, alias, declaration) in &leaves {
            // A `pub use` is used by whoever imports it from here.
            if before.contains(&(path.clone(), alias.clone()))
                || change.after[declaration.byte_range()].starts_with("pub")
            {
                continue;
            }
            let Some(name) = imported_name(path, alias.as_deref()) else {
                continue;
            };
            if may_be_trait(project, path, name) {
                continue;
            }
            let used = word_matches(&change.after, name)
                .into_iter()
                .any(|at| !declarations.iter().any(|d| d.contains(&at)));
            if !used {
                let text = change.after[declaration.byte_range()].trim();
                findings.push(
                    Finding::warning(
                        &change.path,
                        line_at(&change.after, declaration.start_byte()),
                        w::unused_import(text),
                    )
                    .with_kind(w::UNUSED_IMPORT),
                );
            }
        }
    }
    findings
}

/// A `use` leaf: its path's segments and its alias.
type Leaf = (Vec<String>, Option<String>);

/// The `use` leaves of a change's text before, read off `leaves` (those of the text after) when
/// the change is word for word ([`word_for_word`]): its tokens are the same kinds, so a
/// declaration no edit touches is the same declaration before, with the same leaves, and one an
/// edit touches is its text before, parsed alone. No parse of the text before, which is as long
/// as the text after's (a rename of a method used in five large files parsed them all twice).
/// `None` when the change is not word for word, or an edit reaches over a declaration's edge, or
/// a touched declaration's text before does not parse alone as one.
fn leaves_before_off_word_edits(
    change: &FileChange,
    leaves: &[(Vec<String>, Option<String>, Node<'_>)],
) -> Option<BTreeSet<Leaf>> {
    if !word_for_word(change) {
        return None;
    }
    let map = AfterMap::new(change);
    let spans = map.spans();
    // How much the first `k` edits lengthened the text: an offset of the text after that
    // follows them (and precedes the next) is that much further than in the text before.
    let mut grown: Vec<isize> = vec![0];
    for (before, after) in spans {
        let last = grown[grown.len() - 1];
        grown.push(last + after.len() as isize - before.len() as isize);
    }
    let to_before = |at: usize, k: usize| (at as isize - grown[k]) as usize;
    let mut declarations: BTreeMap<usize, (Range<usize>, Vec<Leaf>)> = BTreeMap::new();
    for (path, alias, declaration) in leaves {
        (declarations.entry(declaration.start_byte()))
            .or_insert_with(|| (declaration.byte_range(), Vec::new()))
            .1
            .push((path.clone(), alias.clone()));
    }
    let mut before = BTreeSet::new();
    for (range, its_leaves) in declarations.into_values() {
        // The edits are sorted and apart: those that end before the declaration, then those in it.
        let first = spans.partition_point(|(_, after)| after.end <= range.start);
        let touching = spans[first..]
            .iter()
            .take_while(|(_, after)| after.start < range.end)
            .count();
        if touching == 0 {
            before.extend(its_leaves);
            continue;
        }
        let (_, first_after) = &spans[first];
        let (_, last_after) = &spans[first + touching - 1];
        if first_after.start < range.start || last_after.end > range.end {
            return None;
        }
        let was = to_before(range.start, first)..to_before(range.end, first + touching);
        let text = change.before.get(was)?;
        let tree = Language::Rust.parse(text);
        let alone = use_paths(&tree, text);
        let declarations_alone: BTreeSet<usize> =
            alone.iter().map(|(_, _, d)| d.start_byte()).collect();
        if tree.root_node().has_error() || declarations_alone.len() != 1 {
            return None;
        }
        before.extend(alone.into_iter().map(|(path, alias, _)| (path, alias)));
    }
    Some(before)
}

/// The name a `use` leaf brings in scope (`None` for a glob or `_`).
fn imported_name<'p>(path: &'p [String], alias: Option<&'p str>) -> Option<&'p str> {
    let name = match alias {
        Some(alias) => alias,
        None => {
            let last = path.last()?.as_str();
            if last == "self" {
                path.get(path.len().checked_sub(2)?)?.as_str()
            } else {
                last
            }
        }
    };
    (name != "*" && name != "_").then_some(name)
}

/// Whether the leaf may import a trait: a trait of std, a trait the crate defines, anything of
/// another crate.
fn may_be_trait(project: &Project<'_>, path: &[String], name: &str) -> bool {
    let original = path.last().map(String::as_str).unwrap_or(name);
    match path.first().map(String::as_str) {
        Some("std" | "core" | "alloc") => {
            std_trait_methods(original).is_some() || STD_TRAITS.contains(&original)
        }
        Some("crate" | "self" | "super") => {
            let defines = format!("trait {original}");
            project
                .sources
                .files_mentioning(Language::Rust, original)
                .map(|m| m.files.iter().any(|f| f.text.contains(&defines)))
                .unwrap_or(true)
                || project.changes.iter().any(|c| c.after.contains(&defines))
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile};
    use crate::refactor::MemorySources;

    #[test]
    fn an_import_the_edits_made_unused_is_found_on_the_trees_around_them() {
        // `helper` renamed `assist` in the `use` only: the new leaf is used nowhere.
        let before = "use crate::a::helper;\n\nfn f() -> u8 {\n    helper()\n}\n\nfn h() -> u8 {\n    let x = 1;\n    x + 1\n}\n";
        let run = |before: &str| {
            let change =
                super::super::patterns::tests::renamed_at(before, "helper", "assist", &[0]);
            let changes = vec![change];
            let sources = MemorySources::new().with("src/lib.rs", before);
            let project = Project::new(Language::Rust, &changes, &sources);
            let around = project.tree_around_edits(&changes[0], true);
            let full = Language::Rust.parse(&changes[0].after);
            assert!(around.root_node().descendant_count() < full.root_node().descendant_count());
            check(&project)
        };
        let found = run(before);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].line, found[0].kind), (1, Some(w::UNUSED_IMPORT)));
        // The file imported `crate::a::assist` before, far from the edit (unused there too): the
        // leaf is not the result's. The tree before holds that `use` as well.
        let imported = format!("{before}\nuse crate::a::assist;\n");
        assert_eq!(run(&imported), Vec::new());
    }

    /// Every leaf of `text`'s `use`s, read off a full parse.
    fn all_leaves(text: &str) -> BTreeSet<Leaf> {
        let tree = Language::Rust.parse(text);
        use_paths(&tree, text)
            .into_iter()
            .map(|(p, a, _)| (p, a))
            .collect()
    }

    #[test]
    fn the_uses_before_read_off_a_word_for_word_change_are_those_a_parse_of_it_finds() {
        // Renames of `helper` at every subset of its places: in a group, under an alias, as a
        // path's middle, in a function's body and outside any `use`.
        let before = "use crate::a::{helper, other as o};\nuse crate::helper::x;\nuse crate::b::helper as h;\n\nfn f() -> u8 {\n    use crate::c::helper;\n    helper() + x() + h()\n}\n\nuse crate::d::{self, helper::{self as hh, y}};\n";
        let count = crate::lang::calls::word_matches(before, "helper").len();
        for subset in 0..(1u32 << count) {
            let which: Vec<usize> = (0..count).filter(|i| subset & (1 << i) != 0).collect();
            for new in ["assist", "other", "x"] {
                let change =
                    super::super::patterns::tests::renamed_at(before, "helper", new, &which);
                let tree = Language::Rust.parse(&change.after);
                let leaves = use_paths(&tree, &change.after);
                let read = leaves_before_off_word_edits(&change, &leaves);
                assert_eq!(read, Some(all_leaves(before)), "{which:?} → {new}");
            }
        }
    }

    #[test]
    fn a_change_not_word_for_word_has_its_uses_before_parsed() {
        // The edits take a comment's marks away: `use crate::a::x;` is a new declaration though
        // no edit touches it; the text before must be parsed, and the leaf is new.
        let before = "/*\nuse crate::a::x;\n*/\nfn f() {}\n";
        let source = SourceFile::from_text("src/lib.rs", before);
        let close = before.find("*/").unwrap();
        let edits = vec![
            crate::edit::TextEdit::new(0..3, ""),
            crate::edit::TextEdit::new(close..close + 3, ""),
        ];
        let change = FileChange::modify(&source, edits).unwrap();
        let tree = Language::Rust.parse(&change.after);
        assert_eq!(
            leaves_before_off_word_edits(&change, &use_paths(&tree, &change.after)),
            None
        );
        let changes = vec![change];
        let sources = MemorySources::new().with("src/lib.rs", before);
        let found = check(&Project::new(Language::Rust, &changes, &sources));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, Some(w::UNUSED_IMPORT));
    }

    #[test]
    fn an_added_import_nothing_uses_is_a_warning() {
        let before = "fn f(v: &[u8]) {\n    for x in v {\n        if *x == 0 {\n            break;\n        }\n    }\n}\n";
        let after = "use std::ops::ControlFlow;\nuse std::fmt::Write;\n\nfn f(v: &[u8]) {\n    for x in v {\n        if g(x) {\n            break;\n        }\n    }\n}\n\nfn g(x: &u8) -> bool {\n    *x == 0\n}\n";
        let source = SourceFile::from_text("src/lib.rs", before);
        let change =
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap();
        let changes = vec![change];
        let sources = MemorySources::new().with("src/lib.rs", before);
        let found = check(&Project::new(Language::Rust, &changes, &sources));
        // `Write` may be a trait used by a method call: not reported.
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 1);
        assert_eq!(found[0].kind, Some(w::UNUSED_IMPORT));
        assert!(found[0].message.contains("`use std::ops::ControlFlow;`"));
    }
}
