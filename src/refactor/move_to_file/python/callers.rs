//! Python: the files that reach the moved item through its old module, and the rewrite of what
//! can be rewritten to the new module — `from old import f [as g]` (relative ones stay
//! relative, a package's `__init__.py` re-export included), `old.f` through `import pkg.old` or
//! a module alias, a `from old import *` that no longer provides `f`; the target's own imports of
//! the item go. Strings (`mock.patch("pkg.old.f")`) and `getattr(old, "f")` stay findings.

use std::collections::BTreeMap;

use super::super::carry::ImportBack;
use super::super::wording as w;
use super::super::{At, Move, Note, bindings};
use super::{ModulePath, module_path, own_package, relative_spec};
use crate::edit::{SourceFile, TextEdit};
use crate::lang::Language;
use crate::lang::python::import_bindings::{
    FromImport, end_of_statement_line, from_import_at, from_items_removal, sole_module_import,
};
use crate::lang::python::imports::{
    Reference, Through, first_import_of, from_module, import_insertion, references_through,
    uses_relative_imports,
};
use crate::lang::python::modules::module_parts;
use crate::lang::python::names as py_names;
use crate::refactor::{RefactorError, Severity};
use crate::text::TextStyle;

/// The files that refer to the item, and those that could not be searched (path, why).
pub type Referrers = (Vec<Referrer>, Vec<(String, String)>);

/// A file that refers to a name through the source module, and where.
pub struct Referrer {
    pub file: SourceFile,
    pub references: Vec<Reference>,
}

/// The files other than the source that refer to `name` through the source module (imports of
/// it, `module.name`, strings naming `module.name`, `getattr(module, "name")`), and the files
/// that could not be searched (path, why). The one search for "who refers to the item".
pub fn referrers(m: &Move<'_>, name: &str) -> Result<Referrers, RefactorError> {
    let mentioning = m.sources.files_mentioning(Language::Python, name)?;
    let mut cache = BTreeMap::new();
    let mut found = Vec::new();
    for file in mentioning.files {
        if file.path == m.source.path {
            continue;
        }
        let Ok(old) = module_path(m.sources, &file.path, &m.source.path, &mut cache) else {
            continue;
        };
        let tree = crate::refactor::tree_of(m.sources, Language::Python, &file);
        let package = own_package(m.sources, &file.path, &mut cache);
        let references =
            references_through(&tree, &file.text, package.as_deref(), &old.parts, name);
        if !references.is_empty() {
            found.push(Referrer { file, references });
        }
    }
    Ok((found, mentioning.skipped))
}

/// Whether another file imports `name` from the source (so the source keeps its import of it).
pub fn imported_from_source(m: &Move<'_>, name: &str) -> Result<bool, RefactorError> {
    let (referrers, _) = referrers(m, name)?;
    Ok(referrers.iter().any(|r| {
        r.file.path != m.target_path
            && r.references.iter().any(|reference| {
                matches!(
                    reference.through,
                    Through::FromImport | Through::Attribute(_) | Through::Star
                )
            })
    }))
}

/// Rewrites the references to the moved item in other files, fixes the target's own imports of
/// it, and notes what could not be rewritten.
pub fn rewrite(m: &Move<'_>, back: &mut ImportBack) -> Result<(), RefactorError> {
    let Some(name) = m.importable_name() else {
        return Ok(());
    };
    let (referrers, skipped) = referrers(m, name)?;
    let mut cache = BTreeMap::new();
    let mut notes = Vec::new();
    for referrer in &referrers {
        if referrer.file.path == m.target_path {
            in_target(m, back, referrer, name);
        } else {
            let mut file = FileRewrite::new(m, referrer, name, &mut cache);
            file.rewrite(back, &mut notes);
        }
    }
    back.notes
        .extend(m.other_file_notes(name, notes, &skipped, w::PYTHON_THIRD_FILES));
    Ok(())
}

/// The target's own references to the item at its old place: `from old import f` goes, and
/// `old.f` becomes `f`.
fn in_target(m: &Move<'_>, back: &mut ImportBack, referrer: &Referrer, name: &str) {
    let file = &referrer.file;
    let tree = crate::refactor::tree_of(m.sources, Language::Python, file);
    for reference in &referrer.references {
        match &reference.through {
            Through::FromImport => {
                let Some(statement) = from_import_at(&tree, &file.text, &reference.range) else {
                    continue;
                };
                let ours = items_named(&statement, name);
                back.target_edits
                    .extend(from_items_removal(&file.text, &statement, &ours));
                back.target_imports_removed.push(name.to_string());
                back.notes.push(Note::new(
                    At::Target(reference.range.start),
                    Severity::Info,
                    w::target_import_of_item_removed(name, &m.source.path),
                ));
            }
            Through::Attribute(_) => {
                back.target_edits
                    .push(TextEdit::new(reference.range.clone(), name));
            }
            _ => {}
        }
    }
}

fn items_named(statement: &FromImport, name: &str) -> Vec<usize> {
    statement
        .items
        .iter()
        .enumerate()
        .filter(|(_, (n, _, _))| n == name)
        .map(|(i, _)| i)
        .collect()
}

/// The rewrite of one file's references.
struct FileRewrite<'a, 'm> {
    m: &'a Move<'m>,
    referrer: &'a Referrer,
    name: &'a str,
    tree: tree_sitter::Tree,
    package: Option<Vec<String>>,
    old: Option<ModulePath>,
    new: Option<ModulePath>,
    line_ending: &'static str,
    /// Import statements added to this file (once each).
    added: Vec<String>,
}

impl<'a, 'm> FileRewrite<'a, 'm> {
    fn new(
        m: &'a Move<'m>,
        referrer: &'a Referrer,
        name: &'a str,
        cache: &mut BTreeMap<String, bool>,
    ) -> FileRewrite<'a, 'm> {
        let path = &referrer.file.path;
        FileRewrite {
            m,
            referrer,
            name,
            tree: crate::refactor::tree_of(m.sources, Language::Python, &referrer.file),
            package: own_package(m.sources, path, cache),
            old: module_path(m.sources, path, &m.source.path, cache).ok(),
            new: module_path(m.sources, path, &m.target_path, cache).ok(),
            line_ending: TextStyle::detect(&referrer.file.text).line_ending,
            added: Vec::new(),
        }
    }

    fn file(&self) -> &SourceFile {
        &self.referrer.file
    }

    fn at(&self, reference: &Reference) -> At {
        At::InFile {
            path: self.file().path.clone(),
            offset: reference.range.start,
            line: reference.line,
        }
    }

    fn rewrite(&mut self, back: &mut ImportBack, notes: &mut Vec<Note>) {
        let (name, source) = (self.name, &self.m.source.path);
        let old_dotted = self.old.as_ref().map_or_else(String::new, |o| o.dotted());
        let new_dotted = self
            .new
            .as_ref()
            .map_or_else(|| self.m.target_path.clone(), |n| n.dotted());
        let still_works = if back.import_added.is_some() {
            w::works_only_through_the_import(source)
        } else {
            w::NO_LONGER_DEFINES_IT.to_string()
        };
        for reference in &self.referrer.references {
            let at = self.at(reference);
            let (severity, message) = match &reference.through {
                Through::FromImport => match self.rewrite_from_import(reference, back) {
                    Some(message) => (Severity::Info, message),
                    None => (
                        Severity::Warning,
                        w::imports_from_the_source(name, &old_dotted, &still_works, &new_dotted),
                    ),
                },
                Through::Attribute(object) => match self.attribute(reference, object, back) {
                    Some(message) => (Severity::Info, message),
                    None => (
                        Severity::Warning,
                        w::uses_through_the_module(object, name, &still_works, &new_dotted),
                    ),
                },
                Through::Star => match self.star(reference, back) {
                    Some(message) => (Severity::Info, message),
                    None => continue,
                },
                Through::DottedString(dotted) => (
                    Severity::Warning,
                    w::string_names_the_old_path(dotted, name, &new_dotted),
                ),
                Through::Lookup(object) => (
                    Severity::Warning,
                    w::looked_up_by_name(name, object, &new_dotted),
                ),
            };
            if severity != Severity::Info {
                back.summary.not_rewritten += 1;
            }
            notes.push(Note::new(at, severity, message));
        }
    }

    /// The new module as this file should write it: relative when the old one was (and both
    /// are in one package), else the old absolute path with its last parts replaced.
    fn new_spec(&self, written: &str) -> Option<String> {
        let new = self.new.as_ref()?;
        if written.starts_with('.') {
            return Some(
                self.package
                    .as_deref()
                    .and_then(|p| relative_spec(p, &new.parts))
                    .unwrap_or_else(|| new.dotted()),
            );
        }
        let written: Vec<String> = written.split('.').map(|s| s.trim().to_string()).collect();
        Some(rebase(&written, &self.old.as_ref()?.parts, &new.parts).join("."))
    }

    /// `from old import f` → `from new import f`, or `f` out of a longer list and a statement of
    /// its own below it.
    fn rewrite_from_import(
        &mut self,
        reference: &Reference,
        back: &mut ImportBack,
    ) -> Option<String> {
        let statement = from_import_at(&self.tree, &self.file().text, &reference.range)?;
        let spec = self.new_spec(&statement.module)?;
        let ours = items_named(&statement, self.name);
        if ours.is_empty() {
            return None;
        }
        let file = self.file().clone();
        if ours.len() == statement.items.len() {
            back.edit_other(&file, TextEdit::new(statement.module_range.clone(), &spec));
        } else {
            for edit in from_items_removal(&file.text, &statement, &ours) {
                back.edit_other(&file, edit);
            }
            let items: Vec<String> = ours
                .iter()
                .map(|i| match &statement.items[*i] {
                    (n, Some(alias), _) => format!("{n} as {alias}"),
                    (n, None, _) => n.clone(),
                })
                .collect();
            let line = format!(
                "{}from {spec} import {}",
                statement.indent,
                items.join(", ")
            );
            self.insert_after(&statement.range, &line, back);
        }
        back.rewrote(&file.path);
        Some(w::import_rewritten(
            &format!("from {}", statement.module),
            &format!("from {spec}"),
            self.name,
        ))
    }

    /// `pkg.old.f` → `pkg.new.f` (with `import pkg.new`), `old.f` → `new.f` (with the new module
    /// imported under its own name when that name is free).
    fn attribute(
        &mut self,
        reference: &Reference,
        object: &str,
        back: &mut ImportBack,
    ) -> Option<String> {
        let new = self.new.clone()?;
        let (replacement, statement) = if object.contains('.') {
            let written: Vec<String> = object.split('.').map(|s| s.trim().to_string()).collect();
            let dotted = rebase(&written, &self.old.as_ref()?.parts, &new.parts).join(".");
            let imported = first_import_of(
                &self.tree,
                &self.file().text,
                self.package.as_deref(),
                &new.parts,
                &dotted,
            )
            .is_some();
            let statement = (!imported).then(|| format!("import {dotted}"));
            (dotted, statement)
        } else {
            self.module_name(&new)?
        };
        let file = self.file().clone();
        // `import pkg.old` (or `from pkg import old`) that only served these uses becomes
        // `import pkg.new` (`from pkg import new`).
        // (`from . import old` → `from . import new` only when both are in one package.)
        let same_package = self.old.as_ref().is_some_and(|old| {
            old.parts.split_last().map(|(_, p)| p) == new.parts.split_last().map(|(_, p)| p)
        });
        let sole = statement
            .as_ref()
            .filter(|_| object.contains('.') || same_package)
            .and_then(|_| {
                let rewritten: Vec<usize> = self
                    .referrer
                    .references
                    .iter()
                    .filter(|r| matches!(&r.through, Through::Attribute(o) if o == object))
                    .map(|r| r.range.start)
                    .collect();
                sole_module_import(&self.tree, &file.text, object, &rewritten)
            });
        if let (Some(range), Some(statement)) = (sole, &statement) {
            if !self.added.contains(statement) {
                back.edit_other(&file, TextEdit::new(range, &replacement));
                self.added.push(statement.clone());
            }
        } else if let Some(statement) = statement
            && !self.added.contains(&statement)
        {
            let (at, text) =
                import_insertion(&self.tree, &file.text, &statement, self.line_ending, &[]);
            back.edit_other(&file, TextEdit::insert(at, text));
            self.added.push(statement);
        }
        let object_range = reference.range.start..reference.range.start + object.len();
        back.edit_other(&file, TextEdit::new(object_range, &replacement));
        back.rewrote(&file.path);
        Some(w::path_rewritten(
            &format!("{object}.{}", self.name),
            &format!("{replacement}.{}", self.name),
        ))
    }

    /// The name this file reaches the new module by, and the import that binds it when the file
    /// has none: `from pkg import new` (relative when the file imports relatively), `import new`.
    fn module_name(&self, new: &ModulePath) -> Option<(String, Option<String>)> {
        let text = &self.file().text;
        let target_file_parts = module_parts(&self.m.target_path);
        let existing = from_module(&self.tree, text, &self.file().path, "", &target_file_parts);
        if let Some(alias) = existing.module_aliases.first() {
            return Some((alias.clone(), None));
        }
        let (stem, parent) = new.parts.split_last()?;
        if bindings(Language::Python, &self.tree, text)
            .iter()
            .any(|b| &b.name == stem)
        {
            return None;
        }
        let statement = if parent.is_empty() {
            format!("import {stem}")
        } else {
            let relative = uses_relative_imports(&self.tree)
                .then(|| {
                    self.package
                        .as_deref()
                        .and_then(|p| relative_spec(p, parent))
                })
                .flatten();
            format!(
                "from {} import {stem}",
                relative.unwrap_or_else(|| parent.join("."))
            )
        };
        Some((stem.clone(), Some(statement)))
    }

    /// `from old import *` that provided `f` (no import back keeps it there): `from new import
    /// f` below it, when the file uses `f` and binds no `f` of its own.
    fn star(&mut self, reference: &Reference, back: &mut ImportBack) -> Option<String> {
        if back.import_added.is_some() {
            return None;
        }
        let text = &self.file().text;
        let uses = py_names::uses_outside(&self.tree, text, self.name, |_| false);
        let binds = bindings(Language::Python, &self.tree, text)
            .iter()
            .any(|b| b.name == self.name);
        if uses.is_empty() || binds {
            return None;
        }
        let statement = from_import_at(&self.tree, text, &reference.range)?;
        let spec = self.new_spec(&statement.module)?;
        let line = format!("{}from {spec} import {}", statement.indent, self.name);
        self.insert_after(&statement.range, &line, back);
        back.rewrote(&self.file().path);
        Some(w::star_import_completed(
            &statement.module,
            self.name,
            &spec,
        ))
    }

    /// Inserts `line` on the line after the statement at `range`.
    fn insert_after(&self, range: &std::ops::Range<usize>, line: &str, back: &mut ImportBack) {
        let file = self.file().clone();
        let (at, at_end_without_newline) = end_of_statement_line(&file.text, range);
        let text = if at_end_without_newline {
            format!("{}{line}", self.line_ending)
        } else {
            format!("{line}{}", self.line_ending)
        };
        back.edit_other(&file, TextEdit::insert(at, text));
    }
}

/// The module path `written` in an import, which names the module `old`, rewritten to name
/// `new` the same way: the parts they share at the end are replaced, a leading part written
/// before them (a `src.` the project's layout adds) kept.
fn rebase(written: &[String], old: &[String], new: &[String]) -> Vec<String> {
    if written.len() >= old.len() && written.ends_with(old) {
        let mut out = written[..written.len() - old.len()].to_vec();
        out.extend_from_slice(new);
        return out;
    }
    if old.ends_with(written) {
        // Written from a shorter root (`from cart import x` next to it): drop the same prefix
        // from the new path when it shares it.
        let prefix = &old[..old.len() - written.len()];
        if new.starts_with(prefix) {
            return new[prefix.len()..].to_vec();
        }
    }
    new.to_vec()
}

#[cfg(test)]
mod tests {
    use super::rebase;

    fn parts(dotted: &str) -> Vec<String> {
        dotted.split('.').map(str::to_string).collect()
    }

    #[test]
    fn module_paths_are_rebased_as_written() {
        let r = |w, o, n| rebase(&parts(w), &parts(o), &parts(n)).join(".");
        assert_eq!(r("shop.cart", "shop.cart", "shop.pricing"), "shop.pricing");
        assert_eq!(
            r("src.shop.cart", "shop.cart", "shop.pricing"),
            "src.shop.pricing"
        );
        assert_eq!(r("cart", "shop.cart", "shop.pricing"), "pricing");
        assert_eq!(r("cart", "shop.cart", "other.pricing"), "other.pricing");
    }
}
