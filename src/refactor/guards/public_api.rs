//! Public API guard, on every backend: a move or rename that takes a Python top-level name off a
//! package's public surface is a warning naming the path it leaves and the re-export that keeps
//! it. The surface: the module's `__all__`, a package `__init__.py` that re-exports the name
//! (`from .recipes import powerset`, or `*` of a module that exports it), a public name (no
//! leading `_`) other project files import from the module. (rope's move of `powerset` out of
//! more-itertools' `recipes.py` took it out of `more_itertools`, with no word.) Rust: the move
//! says it itself (`move_to_file::rust`); a Rust rename is not guarded yet.

use crate::edit::FileChange;
use crate::lang::Language;
use crate::lang::calls::word_matches;
use crate::lang::python::imports::{dunder_all_strings, from_module, string_value};
use crate::lang::python::modules::{dotted_module, module_parts};
use crate::refactor::{Finding, Request, Sources};

use super::wording as w;

/// The findings for the result `changes` of a move or rename `request` in `lang`.
pub fn check(
    request: &Request,
    lang: Language,
    changes: &[FileChange],
    sources: &dyn Sources,
) -> Vec<Finding> {
    if lang != Language::Python {
        return Vec::new();
    }
    let (file, name, new_file, new_name) = match request {
        Request::Move(r) => (&r.file, &r.symbol.name, &r.target_file, &r.symbol.name),
        Request::Rename(r) => (&r.file, &r.symbol.name, &r.file, &r.new_name),
        _ => return Vec::new(),
    };
    // Only a module's top-level names are its surface.
    if name.contains(['/', '.']) {
        return Vec::new();
    }
    let project = Project { changes, sources };
    let Some(lost) = lost_paths(&project, file, name, new_file, new_name) else {
        return Vec::new();
    };
    let (old_path, old_file) = &lost.paths[0];
    let (new_path, re_export) = match request {
        // The moved name is at its new module; a re-export in the old one keeps every old path.
        Request::Move(_) => (
            format!("{}.{name}", dotted_module(new_file)),
            w::python_move_re_export(
                &format!("from {} import {name}", import_from(file, new_file)),
                file,
                name,
                lost.listed,
            ),
        ),
        // The renamed name is where the old one was (the references were renamed with it). An
        // alias in its module, listed in its `__all__`, keeps every path a `*` re-exports;
        // otherwise the alias goes where the old path was (the `__init__` that imports it).
        _ => {
            let alias_in: &str = if lost.listed { file } else { old_file };
            let listed = project
                .before(alias_in)
                .is_some_and(|t| Module::read(&t, name).listed(name));
            (
                format!(
                    "{}.{new_name}",
                    old_path.rsplit_once('.').map_or("", |(m, _)| m)
                ),
                w::python_rename_re_export(name, new_name, alias_in, listed),
            )
        }
    };
    let line = changes
        .iter()
        .find(|c| c.path == *file)
        .and_then(|c| c.edits.first())
        .map_or(1, |e| {
            line_of(&project.after(file).unwrap_or_default(), e.range.start)
        });
    vec![Finding::warning(
        file,
        line,
        w::public_api_moved(name, old_path, &new_path, "importers", &re_export),
    )]
}

/// The public paths of a name the result takes away, most public first, each with the file
/// that offered it, and whether the name was listed in its module's `__all__`.
struct Lost {
    paths: Vec<(String, String)>,
    listed: bool,
}

/// The project before and after the result.
struct Project<'a> {
    changes: &'a [FileChange],
    sources: &'a dyn Sources,
}

impl Project<'_> {
    fn before(&self, path: &str) -> Option<String> {
        match self.changes.iter().find(|c| c.path == path) {
            Some(c) => Some(c.before.clone()).filter(|_| c.sha256_before.is_some()),
            None => self.unchanged(path),
        }
    }

    fn after(&self, path: &str) -> Option<String> {
        match self.changes.iter().find(|c| c.path == path) {
            Some(c) => Some(c.after.clone()),
            None => self.unchanged(path),
        }
    }

    /// The text of a file the refactor does not change, as it is on disk.
    fn unchanged(&self, path: &str) -> Option<String> {
        let file = self.sources.file(path).ok().flatten()?;
        Some(file.text.to_string())
    }

    /// Paths of the Python files (before the result) that contain `word`, changed ones too.
    fn paths_mentioning(&self, word: &str) -> Vec<String> {
        let mut paths: Vec<String> = self
            .sources
            .files_mentioning(Language::Python, word)
            .map(|m| m.files.into_iter().map(|f| f.path).collect())
            .unwrap_or_default();
        for c in self.changes {
            if c.path.ends_with(".py") && c.before.contains(word) && !paths.contains(&c.path) {
                paths.push(c.path.clone());
            }
        }
        paths.sort();
        paths
    }
}

/// What a module's text says of a name: whether it binds it at top level, and its `__all__`.
struct Module {
    binds: bool,
    all: Option<Vec<String>>,
}

impl Module {
    fn read(text: &str, name: &str) -> Module {
        let lang = Language::Python;
        let tree = lang.parse(text);
        let binds = lang
            .syntax()
            .top_level_bindings(&tree, text)
            .iter()
            .any(|b| b.name == name);
        let strings = dunder_all_strings(&tree, text);
        let all = (!strings.is_empty()).then(|| {
            strings
                .iter()
                .filter_map(|r| string_value(&text[r.clone()]).map(str::to_string))
                .collect()
        });
        Module { binds, all }
    }

    fn listed(&self, name: &str) -> bool {
        self.all
            .as_ref()
            .is_some_and(|a| a.iter().any(|n| n == name))
    }

    /// Whether `from module import *` gives `name`.
    fn star_exports(&self, name: &str) -> bool {
        self.binds
            && match &self.all {
                Some(all) => all.iter().any(|n| n == name),
                None => !name.starts_with('_'),
            }
    }
}

fn lost_paths(
    project: &Project<'_>,
    file: &str,
    name: &str,
    new_file: &str,
    new_name: &str,
) -> Option<Lost> {
    let before = Module::read(&project.before(file)?, name);
    let defined = {
        let text = project.before(file)?;
        let tree = Language::Python.parse(&text);
        Language::Python
            .syntax()
            .top_level_bindings(&tree, &text)
            .iter()
            .any(|b| b.name == name && !b.imported)
    };
    if !defined {
        return None;
    }
    let after = Module::read(&project.after(file).unwrap_or_default(), name);
    let module = module_parts(file);
    let listed = before.listed(name);
    let kept_in_module = after.binds && (!listed || after.listed(name));
    let mut paths = Vec::new();
    // Imported by name from the module elsewhere in the project.
    let imported_elsewhere = !name.starts_with('_')
        && project
            .paths_mentioning(name)
            .iter()
            .filter(|p| p.as_str() != file && !p.ends_with("__init__.py"))
            .any(|p| imports_by_name(project.before(p).as_deref(), p, name, &module));
    if (listed || imported_elsewhere) && !kept_in_module {
        paths.push((format!("{}.{name}", dotted_module(file)), file.to_string()));
    }
    // Re-exported by a package's `__init__.py` (by name or by `*`), or by any other module's
    // `from module import *` (attrs' `attrs/setters.py` is `from attr.setters import *`): a
    // third file's import by name is rewritten by the move, a `*` is not.
    let stem = module.last().cloned().unwrap_or_default();
    let new_module = module_parts(new_file);
    for init in project
        .paths_mentioning(&stem)
        .into_iter()
        .filter(|p| p.ends_with(".py") && p != file && p != new_file)
    {
        let Some(init_before) = project.before(&init) else {
            continue;
        };
        // Another module re-exports by `*` only: one without it is not parsed.
        if !init.ends_with("__init__.py") && !has_star_import(&init_before) {
            continue;
        }
        let tree = Language::Python.parse(&init_before);
        let imports = from_module(&tree, &init_before, &init, name, &module);
        let by_name = init.ends_with("__init__.py") && imports.imported.iter().any(|n| n == name);
        let re_exported =
            by_name || (imports.imported.iter().any(|n| n == "*") && before.star_exports(name));
        if !re_exported {
            continue;
        }
        let init_after = project.after(&init).unwrap_or_default();
        let tree = Language::Python.parse(&init_after);
        // Still bound, and not by an import from a module that no longer has it.
        let stale = !after.binds
            && from_module(&tree, &init_after, &init, name, &module)
                .imported
                .iter()
                .any(|n| n == name);
        let binds = Module::read(&init_after, name).binds && !stale;
        let star_from = |parts: &[String]| {
            from_module(&tree, &init_after, &init, name, parts)
                .imported
                .iter()
                .any(|n| n == "*")
        };
        let through_star = (star_from(&module) && after.star_exports(name))
            || (new_name == name
                && star_from(&new_module)
                && Module::read(&project.after(new_file).unwrap_or_default(), name)
                    .star_exports(name));
        if !binds && !through_star {
            paths.insert(
                0,
                (format!("{}.{name}", dotted_module(&init)), init.clone()),
            );
        }
    }
    (!paths.is_empty()).then_some(Lost { paths, listed })
}

/// Whether `text` may hold a `from … import *`: the word `import` followed by `*` (the
/// cheap test before a module is parsed for it).
fn has_star_import(text: &str) -> bool {
    word_matches(text, "import")
        .into_iter()
        .any(|at| text[at + "import".len()..].trim_start().starts_with('*'))
}

/// Whether the file at `path` imports `name` itself from `module` (`from pkg.recipes import
/// powerset`).
fn imports_by_name(text: Option<&str>, path: &str, name: &str, module: &[String]) -> bool {
    let Some(text) = text else {
        return false;
    };
    let tree = Language::Python.parse(text);
    from_module(&tree, text, path, name, module)
        .imported
        .iter()
        .any(|n| n == name)
}

/// How `file` imports from `new_file`: `.sets` in the same package, else the dotted path.
fn import_from(file: &str, new_file: &str) -> String {
    let (dir, new_dir) = (
        file.rsplit_once('/').map_or("", |(d, _)| d),
        new_file.rsplit_once('/').map_or("", |(d, _)| d),
    );
    let new_module = module_parts(new_file);
    match new_module.last() {
        Some(last) if dir == new_dir && !dir.is_empty() => format!(".{last}"),
        _ => dotted_module(new_file),
    }
}

fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|b| **b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
#[path = "public_api_tests.rs"]
mod tests;
