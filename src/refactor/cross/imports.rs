//! Rust imports a result adds that nothing in the file uses (rust-analyzer's extract of a
//! `break` adds `use std::ops::ControlFlow;` and then does not use it). A name that may be a
//! trait is left alone: a trait import is used by method calls that never spell its name.
//! The text after is read through a tree around the edits, the text before through one around
//! its `use`s; both hold every `use` declaration whole (`Project::tree_around_edits`,
//! `Project::tree_around_uses`): the leaves are those of the whole files.

use std::collections::BTreeSet;

use crate::lang::Language;
use crate::lang::calls::word_matches;
use crate::lang::rust::imports::use_paths;
use crate::lang::rust::traits::std_trait_methods;
use crate::refactor::Finding;

use super::wording as w;
use super::{Project, line_at};

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
        let before_tree = match change.created() {
            true => None,
            false => project.tree_around_uses(change, false),
        };
        let before: BTreeSet<(Vec<String>, Option<String>)> = before_tree
            .map(|tree| {
                use_paths(&tree, &change.before)
                    .into_iter()
                    .map(|(p, a, _)| (p, a))
                    .collect()
            })
            .unwrap_or_default();
        let leaves = use_paths(&after_tree, &change.after);
        let declarations: Vec<std::ops::Range<usize>> =
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
