//! Python: what the moved code needs at the target. An import of the source is copied (a
//! relative one rewritten for the target's package, a `try:`/`if` block of imports copied whole);
//! a name the source defines is imported from the source — or, when the source imports the
//! moved code back (a circular import), reached through the source module (`recipes.sieve(..)`,
//! as rope does), which works as long as it is only used when a function runs. Imports the source
//! no longer needs after the move are removed, unless another file imports the name from it.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use super::super::carry::{ImportBack, Removal};
use super::super::notes::Needed;
use super::super::wording as w;
use super::super::{At, Move, Note, bindings};
use super::{ModulePath, callers, module_path, own_package, relative_spec, remaining_uses};
use crate::lang::names::NameRole;
use crate::lang::python::import_bindings::{
    ImportForm, ImportedName, imported_name, names_bound_by, names_read_by, names_removal,
    runs_at_call_time,
};
use crate::lang::python::imports::{
    first_import_of, from_module_parts, is_import_block, uses_relative_imports,
};
use crate::lang::python::modules::module_parts;
use crate::lang::python::names as py_names;
use crate::refactor::{RefactorError, Severity};

/// The imports the target gets, in the order they are written.
#[derive(Debug, Default)]
struct Statements {
    /// `try:`/`if` blocks of imports, copied whole (keyed by their offset in the source).
    blocks: Vec<(usize, String)>,
    /// `import a.b as c`.
    modules: Vec<String>,
    /// `from m import …`: the module as written for the target, and the names (`n as a`).
    froms: Vec<(String, Vec<String>)>,
}

impl Statements {
    fn from(&mut self, module: &str, item: String) {
        match self.froms.iter_mut().find(|(m, _)| m == module) {
            Some((_, items)) if !items.contains(&item) => items.push(item),
            Some(_) => {}
            None => self.froms.push((module.to_string(), vec![item])),
        }
    }

    fn module(&mut self, statement: String) {
        if !self.modules.contains(&statement) {
            self.modules.push(statement);
        }
    }

    fn lines(self) -> Vec<String> {
        let mut lines: Vec<String> = self.blocks.into_iter().map(|(_, b)| b).collect();
        lines.extend(self.modules);
        lines.extend(
            self.froms
                .into_iter()
                .map(|(module, items)| format!("from {module} import {}", items.join(", "))),
        );
        lines
    }
}

/// Fills `back` with the imports the target needs and the source no longer needs.
pub fn carry(m: &Move<'_>, back: &mut ImportBack) -> Result<(), RefactorError> {
    let needed = m.needed_from_source();
    if needed.is_empty() {
        return Ok(());
    }
    let mut cache = BTreeMap::new();
    let source_package = own_package(m.sources, &m.source.path, &mut cache);
    let target_package = own_package(m.sources, &m.target_path, &mut cache).unwrap_or_default();
    let target_parts = module_path(m.sources, &m.target_path, &m.target_path, &mut cache)
        .map(|p| p.parts)
        .unwrap_or_default();
    let target_bound: BTreeSet<String> = match (m.target, m.target_tree) {
        (Some(t), Some(tree)) => bindings(m.lang, tree, &t.text)
            .into_iter()
            .map(|b| b.name)
            .collect(),
        _ => BTreeSet::new(),
    };
    let source_bindings = bindings(m.lang, m.tree, &m.source.text);
    let mut statements = Statements::default();
    let mut copied: Vec<(String, ImportedName<'_>)> = Vec::new();
    let mut siblings: Vec<(String, usize)> = Vec::new();
    let mut queue: Vec<Needed> = needed;
    queue.reverse();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    while let Some(n) = queue.pop() {
        if !seen.insert(n.name.clone()) {
            continue;
        }
        if !n.binding.imported {
            siblings.push((n.name, n.at));
            continue;
        }
        let Some(imported) = imported_name(m.tree, &m.source.text, &n.name) else {
            continue;
        };
        if imported.in_block() {
            let top = imported.top;
            let binds = names_bound_by(top, &m.source.text);
            if !is_import_block(top) || binds.iter().any(|b| target_bound.contains(b)) {
                continue;
            }
            if !statements
                .blocks
                .iter()
                .any(|(at, _)| *at == top.start_byte())
            {
                statements
                    .blocks
                    .push((top.start_byte(), block_text(m, top)));
            }
            back.carried.extend(binds);
            back.summary.imported.push(n.name.clone());
            // The block's own names (`TYPE_CHECKING`, `sys`) must be there too.
            for read in names_read_by(top, &m.source.text) {
                if let Some(binding) = source_bindings
                    .iter()
                    .find(|b| b.name == read && b.imported && !m.moves(b.offset))
                    && !target_bound.contains(&read)
                {
                    queue.push(Needed {
                        name: read,
                        at: n.at,
                        binding: binding.clone(),
                    });
                }
            }
            continue;
        }
        match &imported.form {
            ImportForm::Module { dotted, alias } => statements.module(match alias {
                Some(alias) => format!("import {dotted} as {alias}"),
                None => format!("import {dotted}"),
            }),
            ImportForm::From {
                module,
                name,
                alias,
            } => {
                let spec = if module.starts_with('.') {
                    let Some(parts) = from_module_parts(
                        imported.statement,
                        &m.source.text,
                        source_package.as_deref(),
                    ) else {
                        continue;
                    };
                    if parts == target_parts {
                        continue;
                    }
                    relative_spec(&target_package, &parts).unwrap_or_else(|| parts.join("."))
                } else {
                    module.clone()
                };
                let item = match alias {
                    Some(alias) => format!("{name} as {alias}"),
                    None => name.clone(),
                };
                statements.from(&spec, item);
            }
        }
        back.carried.insert(n.name.clone());
        back.summary.imported.push(n.name.clone());
        copied.push((n.name, imported));
    }
    if !siblings.is_empty() {
        import_siblings(m, back, &mut statements, &siblings, &mut cache);
    }
    for line in statements.lines() {
        back.notes.push(Note::new(
            At::Inserted {
                path: m.target_path.clone(),
                at: 0,
                line_text: line.lines().next().unwrap_or(&line).to_string(),
            },
            Severity::Info,
            w::target_import_added(&line, &m.symbol.name),
        ));
        back.target_imports.push(line);
    }
    remove_unneeded(m, back, copied)
}

/// A `try:`/`if` block of imports as written, each line with the source's line ending removed
/// (the target's is put back when it is written).
fn block_text(m: &Move<'_>, top: Node<'_>) -> String {
    let text = &m.source.text[top.byte_range()];
    text.lines().collect::<Vec<_>>().join("\n")
}

/// Imports the names the source defines: `from <source> import a, b`; in a circular import
/// (the source imports the target), the module itself, and the moved code reaches them as
/// `source.a`.
fn import_siblings(
    m: &Move<'_>,
    back: &mut ImportBack,
    statements: &mut Statements,
    siblings: &[(String, usize)],
    cache: &mut BTreeMap<String, bool>,
) {
    let names: Vec<&str> = siblings.iter().map(|(n, _)| n.as_str()).collect();
    let module = match module_path(m.sources, &m.target_path, &m.source.path, cache) {
        Ok(module) => module,
        Err(reason) => {
            back.notes.push(Note::new(
                At::Moved(siblings[0].1),
                Severity::Warning,
                w::source_not_importable(&names, &m.source.path, &reason),
            ));
            back.carried.extend(names.iter().map(|n| n.to_string()));
            return;
        }
    };
    let target_package = own_package(m.sources, &m.target_path, cache).unwrap_or_default();
    let relative = prefers_relative(m);
    let spec_of = |parts: &[String]| -> String {
        relative
            .then(|| relative_spec(&target_package, parts))
            .flatten()
            .unwrap_or_else(|| parts.join("."))
    };
    let circular = back.import_added.is_some() || source_imports_target(m, cache);
    let qualified = circular
        .then(|| module_binding(m, &module, &spec_of))
        .flatten();
    match (circular, qualified) {
        (true, Some((statement, binding))) => {
            back.notes.push(Note::new(
                At::Inserted {
                    path: m.target_path.clone(),
                    at: 0,
                    line_text: statement.clone(),
                },
                Severity::Warning,
                w::modules_import_each_other(&m.source.path, &m.target_path, &names),
            ));
            statements.module(statement);
            qualify(m, back, &names, &binding);
            back.summary.qualified_by = Some(binding);
        }
        (circular, _) => {
            let spec = spec_of(&module.parts);
            for name in &names {
                statements.from(&spec, name.to_string());
            }
            if circular {
                back.notes.push(Note::new(
                    At::Moved(siblings[0].1),
                    Severity::Warning,
                    w::circular_sibling_import(&names, &m.source.path, &m.target_path),
                ));
            }
        }
    }
    back.carried.extend(names.iter().map(|n| n.to_string()));
    back.summary
        .from_source
        .extend(names.iter().map(|n| n.to_string()));
}

/// Whether relative imports suit the target: the target's own style when it has imports, the
/// source's otherwise.
fn prefers_relative(m: &Move<'_>) -> bool {
    match (m.target, m.target_tree) {
        (Some(t), Some(tree)) if !bindings(m.lang, tree, &t.text).iter().all(|b| !b.imported) => {
            uses_relative_imports(tree)
        }
        _ => uses_relative_imports(m.tree),
    }
}

/// Whether the source already imports the target module (in any form).
fn source_imports_target(m: &Move<'_>, cache: &mut BTreeMap<String, bool>) -> bool {
    let Ok(target) = module_path(m.sources, &m.source.path, &m.target_path, cache) else {
        return false;
    };
    let package = own_package(m.sources, &m.source.path, cache);
    first_import_of(
        m.tree,
        &m.source.text,
        package.as_deref(),
        &target.parts,
        &target.dotted(),
    )
    .is_some()
}

/// The import of the source module itself into the target (`from . import recipes`, `import
/// app`) and the name it binds, when that name is free in the target and in the moved code.
fn module_binding(
    m: &Move<'_>,
    module: &ModulePath,
    spec_of: &dyn Fn(&[String]) -> String,
) -> Option<(String, String)> {
    let (stem, parent) = module.parts.split_last()?;
    let statement = if parent.is_empty() {
        format!("import {stem}")
    } else {
        format!("from {} import {stem}", spec_of(parent))
    };
    let taken_in_target = match (m.target, m.target_tree) {
        (Some(t), Some(tree)) => bindings(m.lang, tree, &t.text)
            .iter()
            .any(|b| &b.name == stem),
        _ => false,
    };
    let taken_in_code = py_names::identifier_roles(m.tree, &m.source.text, &m.moved_ranges())
        .iter()
        .any(|(name, _, _)| name == stem);
    (!taken_in_target && !taken_in_code).then(|| (statement, stem.clone()))
}

/// Puts `binding.` before each use of `names` in the moved code; a use that runs when the module
/// is imported (a base class, a decorator, a default value) gets a warning: in the circular
/// import, the source may not have defined it yet.
fn qualify(m: &Move<'_>, back: &mut ImportBack, names: &[&str], binding: &str) {
    let ranges = m.moved_ranges();
    let mut warned: Vec<&str> = Vec::new();
    for (name, role, at) in py_names::identifier_roles(m.tree, &m.source.text, &ranges) {
        if role != NameRole::Use || !names.contains(&name) {
            continue;
        }
        back.moved_edits
            .push(crate::edit::TextEdit::insert(at, format!("{binding}.")));
        let piece = ranges.iter().find(|r| r.contains(&at));
        let at_call_time = piece.is_some_and(|r| runs_at_call_time(m.tree, r, at));
        if !at_call_time && !warned.contains(&name) {
            warned.push(name);
            back.notes.push(Note::new(
                At::Moved(at),
                Severity::Warning,
                w::used_at_import_time(&m.symbol.name, name, &m.source.path, &m.target_path),
            ));
        }
    }
}

/// Removes the copied imports the source no longer uses (never in an `__init__.py`, whose
/// imports are its interface, nor one another file imports from the source).
fn remove_unneeded(
    m: &Move<'_>,
    back: &mut ImportBack,
    copied: Vec<(String, ImportedName<'_>)>,
) -> Result<(), RefactorError> {
    if module_parts(&m.source.path).last().map(String::as_str) == Some("__init__")
        || m.source.path.ends_with("__init__.py")
    {
        return Ok(());
    }
    // Grouped by statement, so that a statement losing all its names goes whole.
    let mut by_statement: Vec<(ImportedName<'_>, Vec<String>)> = Vec::new();
    for (name, imported) in copied {
        if !remaining_uses(m, &name).is_empty() || callers::imported_from_source(m, &name)? {
            continue;
        }
        match by_statement
            .iter_mut()
            .find(|(i, _)| i.statement.id() == imported.statement.id())
        {
            Some((_, names)) => names.push(name),
            None => by_statement.push((imported, vec![name])),
        }
    }
    for (imported, names) in by_statement {
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        back.source_removals.push(Removal {
            wide: names_removal(&m.source.text, &imported, &refs, false),
            narrow: names_removal(&m.source.text, &imported, &refs, true),
        });
        back.notes.push(Note::new(
            At::Source(imported.statement.start_byte()),
            Severity::Info,
            w::source_import_removed(&refs, &m.source.path),
        ));
        back.summary.removed.extend(names);
    }
    Ok(())
}
