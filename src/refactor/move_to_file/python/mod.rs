//! Python side of move to file: module paths from file paths (packages are directories with
//! `__init__.py`; without them, a sibling module or a path from the root, `src/` dropped), the
//! names a module binds and a moved definition reads, the `from … import …` added back to the
//! source, and the imports of the old location found in other files.

use super::wording as w;
use std::collections::BTreeMap;

use tree_sitter::Tree;

pub(super) mod callers;
pub(super) mod carry;

use super::carry::ImportBack;
use super::{At, Move, Note, file_name, parent_dir};
use crate::lang::Language;
use crate::lang::calls::word_matches;
use crate::lang::names::NameRole;
use crate::lang::python::imports as py_imports;
use crate::lang::python::names as py_names;
use crate::refactor::{RefactorError, Severity, Sources};

use super::Basis;

/// How one module is imported from one importer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ModulePath {
    /// Dotted parts, e.g. `["pkg", "sub", "helpers"]`.
    pub parts: Vec<String>,
    pub basis: Basis,
}

impl ModulePath {
    pub fn dotted(&self) -> String {
        self.parts.join(".")
    }
}

fn has_init(sources: &dyn Sources, dir: &str, cache: &mut BTreeMap<String, bool>) -> bool {
    if let Some(known) = cache.get(dir) {
        return *known;
    }
    let exists = ["__init__.py", "__init__.pyi"].iter().any(|init| {
        let path = if dir.is_empty() {
            init.to_string()
        } else {
            format!("{dir}/{init}")
        };
        // A file that exists but cannot be read still makes the directory a package.
        !matches!(sources.file(&path), Ok(None))
    });
    cache.insert(dir.to_string(), exists);
    exists
}

fn stem(path: &str) -> &str {
    let name = file_name(path);
    name.strip_suffix(".pyi")
        .or_else(|| name.strip_suffix(".py"))
        .unwrap_or(name)
}

/// The dotted parts of the package chain above `path` (empty when its directory is no package).
fn package_chain(
    sources: &dyn Sources,
    path: &str,
    cache: &mut BTreeMap<String, bool>,
) -> Vec<String> {
    let dir = parent_dir(path);
    let dirs: Vec<&str> = if dir.is_empty() {
        Vec::new()
    } else {
        dir.split('/').collect()
    };
    let mut top = dirs.len();
    while top > 0 && has_init(sources, &dirs[..top].join("/"), cache) {
        top -= 1;
    }
    dirs[top..].iter().map(|s| s.to_string()).collect()
}

/// The module path by which `importer` imports `module_file`, or why there is none.
pub(super) fn module_path(
    sources: &dyn Sources,
    importer: &str,
    module_file: &str,
    cache: &mut BTreeMap<String, bool>,
) -> Result<ModulePath, String> {
    let chain = package_chain(sources, module_file, cache);
    let own = stem(module_file);
    let (mut parts, basis) = if !chain.is_empty() {
        (chain, Basis::Package)
    } else if own != "__init__" && parent_dir(importer) == parent_dir(module_file) {
        (Vec::new(), Basis::SameDirectory)
    } else {
        let dir = parent_dir(module_file);
        let mut dirs: Vec<String> = if dir.is_empty() {
            Vec::new()
        } else {
            dir.split('/').map(str::to_string).collect()
        };
        if dirs.first().is_some_and(|d| d == "src") {
            dirs.remove(0);
        }
        (dirs, Basis::Root)
    };
    if own != "__init__" {
        parts.push(own.to_string());
    }
    if parts.is_empty() {
        return Err(w::not_in_a_package(module_file));
    }
    if let Some(bad) = parts
        .iter()
        .find(|p| Language::Python.validate_identifier(p).is_err())
    {
        return Err(w::invalid_module_name(bad, module_file));
    }
    Ok(ModulePath { parts, basis })
}

/// The package a module's relative imports start from: its parts without the module's own name
/// (a package's `__init__` is its own package). `None` outside packages.
pub(super) fn own_package(
    sources: &dyn Sources,
    path: &str,
    cache: &mut BTreeMap<String, bool>,
) -> Option<Vec<String>> {
    let chain = package_chain(sources, path, cache);
    (!chain.is_empty()).then_some(chain)
}

/// Offsets of the uses of `name` left in the source once the moved code is gone (including an
/// `__all__` entry, which `from module import *` needs bound).
pub(super) fn remaining_uses(m: &Move<'_>, name: &str) -> Vec<usize> {
    py_names::uses_outside(m.tree, &m.source.text, name, |at| m.moves(at))
}

/// Names the moved code reads, without those it binds itself, with their first offset. Names it
/// declares `global` are left out: `global_notes` reports them (an import would not do).
pub(super) fn used_names(m: &Move<'_>) -> Vec<(String, usize)> {
    let mut used: Vec<(String, usize)> = Vec::new();
    let mut bound: Vec<String> = Vec::new();
    let globals: Vec<String> = global_declarations(m).into_iter().map(|(n, _)| n).collect();
    for (name, role, at) in py_names::identifier_roles(m.tree, &m.source.text, &m.moved_ranges()) {
        match role {
            NameRole::Use if !used.iter().any(|(n, _)| n == name) => {
                used.push((name.to_string(), at))
            }
            NameRole::Bind => bound.push(name.to_string()),
            _ => {}
        }
    }
    used.retain(|(name, _)| !bound.contains(name) && !globals.contains(name));
    used
}

/// `global name` statements of the moved code: (name, offset).
fn global_declarations(m: &Move<'_>) -> Vec<(String, usize)> {
    py_names::global_names(m.tree, &m.source.text, &m.moved_ranges(), false)
}

/// Module-level state that does not travel with the code: a moved function that rebinds a
/// global of the source (`global count`), code left in the source that rebinds a moved
/// variable, and module attributes (`__name__`, `__file__`) whose value changes with the module.
pub(super) fn global_notes(m: &Move<'_>) -> Vec<Note> {
    let source_name = &m.source.path;
    let target_name = &m.target_path;
    let moved = m.moved_names();
    let mut notes = Vec::new();
    for (name, offset) in global_declarations(m) {
        if moved.contains(&name.as_str()) {
            continue;
        }
        notes.push(Note::new(
            At::Moved(offset),
            Severity::Warning,
            w::moved_code_rebinds_a_global(&m.symbol.name, &name, target_name, source_name),
        ));
    }
    // Code that stays and rebinds a moved variable.
    for (name_text, at) in py_names::global_names(m.tree, &m.source.text, &m.moved_ranges(), true) {
        if moved.contains(&name_text.as_str()) {
            notes.push(Note::new(
                At::Source(at),
                Severity::Warning,
                w::source_rebinds_a_moved_global(source_name, &name_text, target_name),
            ));
        }
    }
    let mut seen: Vec<&str> = Vec::new();
    for (name, role, at) in py_names::identifier_roles(m.tree, &m.source.text, &m.moved_ranges()) {
        if matches!(name, "__name__" | "__file__" | "__package__" | "__spec__")
            && role == NameRole::Use
            && !seen.contains(&name)
        {
            seen.push(name);
            notes.push(Note::new(
                At::Moved(at),
                Severity::Warning,
                w::reads_a_module_dunder(&m.symbol.name, name, target_name, source_name),
            ));
        }
    }
    notes
}

/// Blank lines around the moved code: two around definitions (PEP 8), one between plain
/// statements.
pub(super) fn separator(m: &Move<'_>, tree: &Tree, before: Option<usize>) -> usize {
    use crate::lang::symbols::SymbolKind;
    if matches!(m.symbol.kind, SymbolKind::Function | SymbolKind::Class) || before.is_some() {
        return 2;
    }
    if py_imports::ends_with_definition(tree) {
        2
    } else {
        1
    }
}

/// Adds `from <target module> import <name>` to the source when it still uses the name.
pub(super) fn import_back(m: &Move<'_>, uses: &[usize]) -> Result<ImportBack, RefactorError> {
    let mut back = ImportBack::default();
    let name = m.symbol.name.as_str();
    let source = &m.source.path;
    let Some(&first_use) = uses.first() else {
        back.no_import_needed(m, name);
        return Ok(back);
    };
    let mut cache = BTreeMap::new();
    let module = match module_path(m.sources, source, &m.target_path, &mut cache) {
        Ok(module) => module,
        Err(reason) => {
            back.notes.push(Note::new(
                At::Source(first_use),
                Severity::Warning,
                w::import_not_added(name, source, &reason),
            ));
            return Ok(back);
        }
    };
    let source_package = own_package(m.sources, source, &mut cache);
    if py_imports::imports_name_from(
        m.tree,
        &m.source.text,
        source_package.as_deref(),
        &module.parts,
        name,
    ) {
        back.notes.push(Note::new(
            At::Source(first_use),
            Severity::Info,
            w::already_imported_from(source, name, &module.dotted()),
        ));
        return Ok(back);
    }
    let relative = relative_form(m.tree, source_package.as_deref(), &module);
    let statement = format!(
        "from {} import {name}",
        relative.unwrap_or_else(|| module.dotted())
    );
    let style = m.source_style;
    let (at, text) = py_imports::import_insertion(
        m.tree,
        &m.source.text,
        &statement,
        style.line_ending,
        &m.removals,
    );
    let basis = w::python_import_basis(module.basis);
    back.import_inserted(m, name, (at, text), statement, basis, uses.len());
    if let (Some(target), Some(tree)) = (m.target, m.target_tree)
        && let Some(line) = imports_module_at(
            m.sources,
            tree,
            &target.text,
            &m.target_path,
            source,
            &mut cache,
        )
    {
        back.notes.push(Note::new(
            At::Line {
                path: m.target_path.clone(),
                line,
            },
            Severity::Warning,
            w::circular_import(&m.target_path, source),
        ));
    }
    Ok(back)
}

/// `.helpers` when the source already uses relative imports and both modules are in one package.
fn relative_form(tree: &Tree, package: Option<&[String]>, module: &ModulePath) -> Option<String> {
    if module.basis != Basis::Package || !py_imports::uses_relative_imports(tree) {
        return None;
    }
    relative_spec(package?, &module.parts)
}

/// The module `parts` written relative to a module of `package` (`..util`, `.`), when both are
/// in one top-level package.
pub(super) fn relative_spec(package: &[String], parts: &[String]) -> Option<String> {
    if package.is_empty() || package.first() != parts.first() {
        return None;
    }
    let common = package
        .iter()
        .zip(parts)
        .take_while(|(a, b)| a == b)
        .count();
    let dots = ".".repeat(1 + package.len() - common);
    Some(format!("{dots}{}", parts[common..].join(".")))
}

/// The first line (1-based) where `file` imports the module `imported` (any form).
fn imports_module_at(
    sources: &dyn Sources,
    tree: &Tree,
    text: &str,
    file: &str,
    imported: &str,
    cache: &mut BTreeMap<String, bool>,
) -> Option<usize> {
    let module = module_path(sources, file, imported, cache).ok()?;
    let package = own_package(sources, file, cache);
    py_imports::first_import_of(
        tree,
        text,
        package.as_deref(),
        &module.parts,
        &module.dotted(),
    )
}

/// The source's `__future__` imports, which a created target starts with.
pub(super) fn future_lines(m: &Move<'_>) -> Vec<String> {
    py_imports::future_imports(m.tree, &m.source.text)
        .into_iter()
        .map(|(statement, _)| statement)
        .collect()
}

/// Blank lines between the imports of a created target and the moved code: two before a
/// definition (PEP 8), one before a plain statement.
pub(super) fn created_separator(m: &Move<'_>) -> usize {
    use crate::lang::symbols::SymbolKind;
    if matches!(m.symbol.kind, SymbolKind::Variable) {
        1
    } else {
        2
    }
}

/// What the `__future__` imports became: copied into a created target, or missing from an
/// existing one.
pub(super) fn future_notes(m: &Move<'_>) -> Vec<Note> {
    let futures = py_imports::future_imports(m.tree, &m.source.text);
    let mut notes = Vec::new();
    match (m.target, m.target_tree) {
        (None, _) => {
            for (statement, _) in &futures {
                notes.push(Note::new(
                    At::Line {
                        path: m.target_path.clone(),
                        line: 1,
                    },
                    Severity::Info,
                    w::future_import_copied(statement, &m.source.path),
                ));
            }
        }
        (Some(target), Some(tree)) => {
            let present = py_imports::future_imports(tree, &target.text);
            for (statement, _) in &futures {
                let features: Vec<&str> = statement
                    .rsplit("import")
                    .next()
                    .unwrap_or("")
                    .split(',')
                    .map(str::trim)
                    .collect();
                let missing = features
                    .iter()
                    .any(|f| !present.iter().any(|(p, _)| !word_matches(p, f).is_empty()));
                if missing {
                    notes.push(Note::new(
                        At::Line {
                            path: m.target_path.clone(),
                            line: 1,
                        },
                        Severity::Warning,
                        w::future_import_missing(&m.source.path, statement, &m.target_path),
                    ));
                }
            }
        }
        _ => {}
    }
    notes
}

/// `__file__` in moved code names the target afterwards: a warning when the directory changes.
pub(super) fn file_relative_notes(m: &Move<'_>) -> Vec<Note> {
    let mut notes = Vec::new();
    let text = &m.source.text;
    let moves_dir = parent_dir(&m.source.path) != parent_dir(&m.target_path);
    for (name, _, at) in py_names::identifier_roles(m.tree, text, &m.moved_ranges()) {
        if notes.len() >= 2 {
            continue;
        }
        let message = match name {
            "__file__" if moves_dir => w::dunder_file_changes(
                &m.target_path,
                parent_dir(&m.target_path),
                &m.source.path,
                parent_dir(&m.source.path),
            ),
            "__name__" => w::dunder_name_changes(&m.source.path),
            _ => continue,
        };
        let severity = if name == "__file__" {
            Severity::Warning
        } else {
            Severity::Info
        };
        if !notes.iter().any(|n: &Note| n.message == message) {
            notes.push(Note::new(At::Moved(at), severity, message));
        }
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refactor::MemorySources;

    fn path_of(sources: &MemorySources, importer: &str, module: &str) -> Result<String, String> {
        module_path(sources, importer, module, &mut BTreeMap::new()).map(|p| p.dotted())
    }

    #[test]
    fn module_paths_follow_packages_and_layouts() {
        let sources = MemorySources::new()
            .with("app.py", "")
            .with("tools/run.py", "")
            .with("src/pkg/__init__.py", "")
            .with("src/pkg/sub/__init__.py", "")
            .with("src/pkg/sub/core.py", "")
            .with("scripts/my-tool/x.py", "");
        assert_eq!(
            path_of(&sources, "app.py", "helpers.py").unwrap(),
            "helpers"
        );
        assert_eq!(
            path_of(&sources, "tools/run.py", "tools/util.py").unwrap(),
            "util"
        );
        assert_eq!(
            path_of(&sources, "app.py", "tools/util.py").unwrap(),
            "tools.util"
        );
        assert_eq!(
            path_of(&sources, "src/pkg/sub/core.py", "src/pkg/sub/helpers.py").unwrap(),
            "pkg.sub.helpers"
        );
        assert_eq!(
            path_of(&sources, "app.py", "src/pkg/__init__.py").unwrap(),
            "pkg"
        );
        assert_eq!(
            path_of(&sources, "app.py", "src/loose.py").unwrap(),
            "loose"
        );
        assert!(
            path_of(&sources, "app.py", "scripts/my-tool/y.py")
                .unwrap_err()
                .contains("`my-tool`")
        );
        assert!(path_of(&sources, "app.py", "__init__.py").is_err());
    }
}
