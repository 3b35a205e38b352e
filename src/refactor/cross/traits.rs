//! Rust move: the moved code calls a method of a trait that the source file imports and the
//! target does not (`().bar_func()` with `use crate::bar::Bar;` left behind, E0599).

use std::collections::BTreeSet;

use crate::lang::Language;
use crate::lang::rust::imports::use_paths;
use crate::lang::rust::traits::{methods_of_trait, needed_traits_with, std_trait_methods};
use crate::refactor::{Finding, MoveRequest};

use super::wording as w;
use super::{AfterMap, Project, line_at};

pub(super) fn check(project: &Project<'_>, request: &MoveRequest) -> Vec<Finding> {
    if project.lang != Language::Rust {
        return Vec::new();
    }
    let (Some(source), Some(target)) = (
        project.change(&request.file),
        project.change(&request.target_file),
    ) else {
        return Vec::new();
    };
    let source_tree = project.tree(source, false);
    let target_tree = project.tree(target, true);
    // A glob import in the target may bring the trait in.
    let target_leaves = use_paths(&target_tree, &target.after);
    if target_leaves
        .iter()
        .any(|(p, _, _)| p.last().is_some_and(|l| l == "*"))
    {
        return Vec::new();
    }
    let imported = imported_traits(project, &source_tree, &source.before);
    if imported.is_empty() {
        return Vec::new();
    }
    let code = if target.created() {
        0..target.after.len()
    } else {
        let map = AfterMap::new(target);
        let written = map.spans().iter().map(|(_, after)| after.clone());
        let start = written.clone().map(|r| r.start).min().unwrap_or(0);
        let end = written.map(|r| r.end).max().unwrap_or(0);
        start..end
    };
    let extra: Vec<(String, BTreeSet<String>)> = imported
        .iter()
        .map(|(name, methods, _)| (name.clone(), methods.clone()))
        .collect();
    needed_traits_with(
        &target_tree,
        &target.after,
        &code,
        Some(&target_tree),
        &target.after,
        &extra,
    )
    .into_iter()
    .filter_map(|needed| {
        let (_, _, import) = imported.iter().find(|(n, _, _)| *n == needed.trait_name)?;
        Some(
            Finding::error(
                &target.path,
                line_at(&target.after, needed.at),
                w::trait_not_imported(
                    needed.method.trim_end_matches('!'),
                    &needed.trait_name,
                    &source.path,
                    &target.path,
                    import,
                ),
            )
            .with_kind(w::TRAIT_NOT_IMPORTED),
        )
    })
    .collect()
}

/// The traits a file imports whose methods candor knows (the crate's, read from their own files,
/// and std's): (name in the file, its methods, the `use` that brings it).
pub(super) fn imported_traits(
    project: &Project<'_>,
    tree: &tree_sitter::Tree,
    text: &str,
) -> Vec<(String, BTreeSet<String>, String)> {
    let mut imported = Vec::new();
    for (path, alias, _) in use_paths(tree, text) {
        let Some(original) = path.last().filter(|l| *l != "*" && *l != "self") else {
            continue;
        };
        let name = alias.clone().unwrap_or_else(|| original.clone());
        let methods = match path.first().map(String::as_str) {
            Some("crate" | "self" | "super") => crate_trait_methods(project, original),
            Some("std" | "core" | "alloc") => std_trait_methods(original),
            _ => None,
        };
        if let Some(methods) = methods {
            let import = match &alias {
                Some(alias) => format!("use {} as {alias};", path.join("::")),
                None => format!("use {};", path.join("::")),
            };
            imported.push((name, methods, import));
        }
    }
    imported
}

/// The methods of the trait `name` as the crate defines it (in a file of the project, as the
/// result leaves it).
fn crate_trait_methods(project: &Project<'_>, name: &str) -> Option<BTreeSet<String>> {
    let defines = format!("trait {name}");
    let files = project.files_mentioning_after(name);
    files
        .iter()
        .filter(|(_, text)| text.contains(&defines))
        .find_map(|(_, text)| methods_of_trait(&Language::Rust.parse(text), text, name))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile};
    use crate::lang::symbols::SymbolQuery;
    use crate::refactor::MemorySources;

    #[test]
    fn a_trait_import_left_behind_is_an_error_naming_it() {
        let bar = "pub trait Bar {\n    fn bar_func(&self) {}\n}\nimpl Bar for () {}\n";
        let foo_before = "use crate::bar::Bar;\n\npub fn moved() {\n    ().bar_func();\n}\n\npub fn stays() {}\n";
        let foo_after = "use crate::bar::Bar;\n\npub fn stays() {}\n";
        let baz_after = "pub fn moved() {\n    ().bar_func();\n}\n";
        let source = SourceFile::from_text("src/foo.rs", foo_before);
        let changes = vec![
            FileChange::modify(
                &source,
                crate::backend::lsp::minimal_edits(foo_before, foo_after),
            )
            .unwrap(),
            FileChange::create("src/baz.rs", baz_after),
        ];
        let sources = MemorySources::new()
            .with("src/foo.rs", foo_before)
            .with("src/bar.rs", bar);
        let request = MoveRequest {
            file: "src/foo.rs".to_string(),
            symbol: SymbolQuery {
                name: "moved".to_string(),
                line: None,
                column: None,
            },
            target_file: "src/baz.rs".to_string(),
        };
        let found = check(&Project::new(Language::Rust, &changes, &sources), &request);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].file.as_str(), found[0].line), ("src/baz.rs", 2));
        assert!(
            found[0]
                .message
                .contains("add `use crate::bar::Bar;` to `src/baz.rs`"),
            "{}",
            found[0].message
        );
        // Carried, it passes.
        let carried = "use crate::bar::Bar;\n\npub fn moved() {\n    ().bar_func();\n}\n";
        let changes = vec![
            changes[0].clone(),
            FileChange::create("src/baz.rs", carried),
        ];
        assert!(check(&Project::new(Language::Rust, &changes, &sources), &request).is_empty());
    }
}
