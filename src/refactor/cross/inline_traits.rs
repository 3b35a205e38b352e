//! Rust inline: the inlined body needs an import that the definition's file has and a caller's
//! file does not — a method of a trait (`Prerelease::from_str(text)` pasted into a file without
//! `use std::str::FromStr;`, E0599) or a path's first name (`mem::forget(empty)` without
//! `use core::mem;`, E0433). rust-analyzer's inlines of semver's `Prerelease::new` and
//! `Identifier::is_empty` broke its build this way with no finding.

use crate::lang::Language;
use crate::lang::rust::imports::use_paths;
use crate::lang::rust::traits::needed_traits_with;
use crate::lang::symbols;
use crate::refactor::{Finding, InlineRequest};

use super::wording as w;
use super::{AfterMap, Project, line_at};

pub(super) fn check(project: &Project<'_>, request: &InlineRequest) -> Vec<Finding> {
    if project.lang != Language::Rust {
        return Vec::new();
    }
    let Some(definition) = project.change(&request.file).filter(|c| !c.created()) else {
        return Vec::new();
    };
    let tree = project.tree(definition, false);
    let outline = symbols::outline(Language::Rust, &tree, &definition.before);
    let Some(symbol) = symbols::resolve(&outline, &request.function, "function", |s| {
        s.kind.is_function()
    })
    .ok() else {
        return Vec::new();
    };
    // The traits the definition's file imports, with their methods: (name, methods, `use`).
    let mut findings = missing_path_imports(project, request, &tree, &definition.before);
    let imported = super::traits::imported_traits(project, &tree, &definition.before);
    if imported.is_empty() {
        return findings;
    }
    let extra: Vec<_> = imported
        .iter()
        .map(|(name, methods, _)| (name.clone(), methods.clone()))
        .collect();
    for caller in project.own_changes() {
        if caller.path == request.file {
            continue;
        }
        let caller_tree = project.tree(caller, true);
        // A glob import may bring the trait in.
        if use_paths(&caller_tree, &caller.after)
            .iter()
            .any(|(p, _, _)| p.last().is_some_and(|l| l == "*"))
        {
            continue;
        }
        let map = AfterMap::new(caller);
        for needed in needed_traits_with(
            &tree,
            &definition.before,
            &symbol.range,
            Some(&caller_tree),
            &caller.after,
            &extra,
        ) {
            // Where the inlined code calls it in this file.
            let method = needed.method.trim_end_matches('!');
            let Some(at) = map.spans().iter().find_map(|(_, after)| {
                crate::lang::calls::word_matches(&caller.after[after.clone()], method)
                    .first()
                    .map(|o| after.start + o)
            }) else {
                continue;
            };
            let Some((_, _, import)) = imported.iter().find(|(n, _, _)| *n == needed.trait_name)
            else {
                continue;
            };
            findings.push(
                Finding::error(
                    &caller.path,
                    line_at(&caller.after, at),
                    w::inlined_trait_not_imported(
                        method,
                        &needed.trait_name,
                        &request.file,
                        &caller.path,
                        import,
                    ),
                )
                .with_kind(w::TRAIT_NOT_IMPORTED),
            );
        }
    }
    findings
}

/// The first names of paths (`mem` in `mem::forget(x)`) in what the inline wrote into another
/// file, that the definition's file imports and that file neither imports nor defines.
fn missing_path_imports(
    project: &Project<'_>,
    request: &InlineRequest,
    tree: &tree_sitter::Tree,
    text: &str,
) -> Vec<Finding> {
    let syntax = Language::Rust.syntax();
    // (name, imported?): what the definition's file imports, and the items it defines, which
    // another file reaches only through an import of its own.
    let imported: Vec<(String, bool)> = syntax
        .top_level_bindings(tree, text)
        .into_iter()
        .filter(|b| !b.module)
        .map(|b| (b.name, b.imported))
        .collect();
    let mut findings = Vec::new();
    for caller in project.own_changes() {
        if caller.path == request.file || imported.is_empty() {
            continue;
        }
        let caller_tree = project.tree(caller, true);
        let bound: Vec<String> = syntax
            .top_level_bindings(&caller_tree, &caller.after)
            .into_iter()
            .map(|b| b.name)
            .collect();
        let globs: Vec<Vec<String>> = use_paths(&caller_tree, &caller.after)
            .into_iter()
            .filter(|(p, _, _)| p.last().is_some_and(|l| l == "*"))
            .map(|(p, _, _)| p)
            .collect();
        let map = AfterMap::new(caller);
        let mut said: Vec<&str> = Vec::new();
        for (_, after) in map.spans() {
            let written = &caller.after[after.clone()];
            for (name, is_import) in &imported {
                if bound.contains(name)
                    || said.contains(&name.as_str())
                    || globs
                        .iter()
                        .any(|g| glob_may_bring(project, &caller.path, g, name))
                {
                    continue;
                }
                // An import is used as a path's head (`mem::forget`); a defined function as a
                // call (`inline_as_str(x)`), never as a method or behind a path.
                let head = crate::lang::calls::word_matches(written, name)
                    .into_iter()
                    .find(|o| {
                        let after_name = &written[o + name.len()..];
                        let plain = !written[..*o].ends_with("::") && !written[..*o].ends_with('.');
                        plain
                            && if *is_import {
                                after_name.starts_with("::")
                            } else {
                                after_name.starts_with('(')
                            }
                    });
                if let Some(o) = head {
                    said.push(name);
                    let message = if *is_import {
                        w::inlined_path_not_imported(name, &request.file, &caller.path)
                    } else {
                        w::inlined_item_not_imported(name, &request.file, &caller.path)
                    };
                    findings.push(
                        Finding::error(
                            &caller.path,
                            line_at(&caller.after, after.start + o),
                            message,
                        )
                        .with_kind(w::INLINED_NAME_MISSING),
                    );
                }
            }
        }
    }
    findings
}

/// Whether `use glob::*;` in `file` may bring `name`: a glob of the crate's own module
/// (`crate::backport::*`) brings what that module's file binds at its top; any other glob (a
/// library's, `super::*`) may bring anything.
fn glob_may_bring(project: &Project<'_>, file: &str, glob: &[String], name: &str) -> bool {
    let Some(("crate", module)) = glob[..glob.len() - 1]
        .split_first()
        .map(|(first, rest)| (first.as_str(), rest))
    else {
        return true;
    };
    let Some(src) = file.rfind("src/").map(|i| &file[..i + 4]) else {
        return true;
    };
    let joined = module.join("/");
    let candidates = [format!("{src}{joined}.rs"), format!("{src}{joined}/mod.rs")];
    let Some(module_file) = candidates
        .iter()
        .find_map(|path| project.sources.file(path).ok().flatten())
    else {
        return true;
    };
    let tree = Language::Rust.parse(&module_file.text);
    Language::Rust
        .syntax()
        .top_level_bindings(&tree, &module_file.text)
        .iter()
        .any(|b| b.name == name)
        || use_paths(&tree, &module_file.text)
            .iter()
            .any(|(p, _, _)| p.last().is_some_and(|l| l == "*"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile};
    use crate::lang::symbols::SymbolQuery;
    use crate::refactor::MemorySources;

    /// The check on an inline of `function` from the first file; each file is (path, before,
    /// after), `unchanged` are the project's other files.
    fn run(
        function: &str,
        files: &[(&str, &str, &str)],
        unchanged: &[(&str, &str)],
    ) -> Vec<Finding> {
        let changes: Vec<FileChange> = files
            .iter()
            .map(|(path, before, after)| {
                FileChange::modify(
                    &SourceFile::from_text(*path, *before),
                    crate::backend::lsp::minimal_edits(before, after),
                )
                .unwrap()
            })
            .collect();
        let mut sources = MemorySources::new();
        for (path, before, _) in files {
            sources = sources.with(path, before);
        }
        for (path, text) in unchanged {
            sources = sources.with(path, text);
        }
        let request = InlineRequest {
            file: files[0].0.to_string(),
            function: SymbolQuery {
                name: function.to_string(),
                line: None,
                column: None,
            },
        };
        check(&Project::new(Language::Rust, &changes, &sources), &request)
    }

    #[test]
    fn an_inlined_trait_call_in_a_file_without_the_trait_is_an_error() {
        let lib_before = "use std::str::FromStr;\n\npub struct P(u8);\n\nimpl FromStr for P {\n    type Err = ();\n    fn from_str(s: &str) -> Result<P, ()> {\n        s.parse().map(P).map_err(|_| ())\n    }\n}\n\nimpl P {\n    pub fn new(text: &str) -> Result<P, ()> {\n        P::from_str(text)\n    }\n}\n";
        let lib_after = lib_before.replace(
            "    pub fn new(text: &str) -> Result<P, ()> {\n        P::from_str(text)\n    }\n",
            "",
        );
        let user_before = "use crate::P;\n\npub fn make() -> P {\n    P::new(\"1\").unwrap()\n}\n";
        let user_after =
            "use crate::P;\n\npub fn make() -> P {\n    P::from_str(\"1\").unwrap()\n}\n";
        let found = run(
            "P/new",
            &[
                ("src/lib.rs", lib_before, &lib_after),
                ("src/user.rs", user_before, user_after),
            ],
            &[],
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].file, "src/user.rs");
        assert_eq!(found[0].line, 4);
        assert!(
            found[0].message.contains("use std::str::FromStr;"),
            "{}",
            found[0].message
        );
        // With the import in the caller's file, nothing to say.
        let fixed_before = format!("use std::str::FromStr;\n{user_before}");
        let fixed_after = format!("use std::str::FromStr;\n{user_after}");
        let fixed = run(
            "P/new",
            &[
                ("src/lib.rs", lib_before, &lib_after),
                ("src/user.rs", &fixed_before, &fixed_after),
            ],
            &[],
        );
        assert!(fixed.is_empty(), "{fixed:?}");
    }

    #[test]
    fn an_inlined_path_whose_module_the_callers_file_does_not_import_is_an_error() {
        let id_before = "use core::mem;\n\npub struct Id(u8);\n\nimpl Id {\n    pub fn gone(&self) -> bool {\n        let x = Id(0);\n        mem::forget(x);\n        self.0 == 0\n    }\n}\n";
        let id_after = "use core::mem;\n\npub struct Id(u8);\n\nimpl Id {\n}\n";
        let lib_before = "mod id;\nuse id::Id;\nuse crate::util::*;\n\npub fn f(i: &Id) -> bool {\n    i.gone()\n}\n";
        let lib_after = "mod id;\nuse id::Id;\nuse crate::util::*;\n\npub fn f(i: &Id) -> bool {\n    {\n        let x = Id(0);\n        mem::forget(x);\n        i.0 == 0\n    }\n}\n";
        let found = run(
            "Id/gone",
            &[
                ("src/id.rs", id_before, id_after),
                ("src/lib.rs", lib_before, lib_after),
            ],
            &[("src/util.rs", "pub fn helper() {}\n")],
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].file, "src/lib.rs");
        assert_eq!(found[0].line, 8);
        assert!(found[0].message.contains("`mem`"), "{}", found[0].message);
    }

    #[test]
    fn an_inlined_call_of_a_function_the_callers_file_cannot_name_is_an_error() {
        let id_before =
            "fn raw(x: u8) -> u8 {\n    x\n}\n\npub fn cooked(x: u8) -> u8 {\n    raw(x) + 1\n}\n";
        let id_after = "fn raw(x: u8) -> u8 {\n    x\n}\n";
        let lib_before = "mod id;\nuse id::cooked;\n\npub fn f() -> u8 {\n    cooked(1)\n}\n";
        let lib_after = "mod id;\n\npub fn f() -> u8 {\n    raw(1) + 1\n}\n";
        let found = run(
            "cooked",
            &[
                ("src/id.rs", id_before, id_after),
                ("src/lib.rs", lib_before, lib_after),
            ],
            &[],
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].message.contains("calls `raw`"),
            "{}",
            found[0].message
        );
        assert_eq!(found[0].line, 4);
    }
}
