//! Rust: the files of the crate that reach the moved item through the source module's path, and
//! the rewrite of those paths to the new module — a `use` leaf (in place when the list it sits
//! in allows it, else taken out and given a `use` of its own), a qualified path
//! (`crate::old::f`, `super::f`, `old::f`), a glob import of the source that provided the item
//! (it gets an import of the item). The target's own imports of the item go. The item becomes
//! `pub(crate)` when a file outside the target module reaches it. A path through the crate's
//! name (from tests or examples) is rewritten only when the new path is public.

use super::super::carry::ImportBack;
use super::super::wording as w;
use super::super::{At, Move, Note, bindings};
use super::{Place, crate_path, locate};
use crate::edit::{SourceFile, TextEdit};
use crate::lang::Language;
use crate::lang::rust::imports::{PathTo, paths_to};
use crate::lang::rust::items::{top_level_node, widen_visibility};
use crate::lang::rust::names::uses_outside;
use crate::lang::rust::use_edits::{
    UseLeaf, leaf_at, leaves_removal, top_level_leaves, visibility_of,
};
use crate::refactor::{RefactorError, Severity};
use crate::text::TextStyle;

/// The files that refer to the item, and those that could not be searched (path, why).
pub type Referrers = (Vec<Referrer>, Vec<(String, String)>);

/// A file that reaches the item through the source module, and where.
pub struct Referrer {
    pub file: SourceFile,
    /// Its module path in the crate (none for a test, an example or a binary).
    pub module: Option<Vec<String>>,
    /// (1-based line, the path, the range of the `use` leaf or of the qualified path's head).
    pub sites: Vec<(usize, PathTo, std::ops::Range<usize>)>,
}

/// The files other than the source that reach `name` through the source module's path (`use`
/// leaves, globs in files that mention it, qualified paths), and the files that could not be
/// searched (path, why). The one search for "who refers to the item".
pub fn referrers(m: &Move<'_>, place: &Place, name: &str) -> Result<Referrers, RefactorError> {
    let mentioning = m.sources.files_mentioning(Language::Rust, name)?;
    let prefix = if place.krate.dir.is_empty() {
        String::new()
    } else {
        format!("{}/", place.krate.dir)
    };
    let source_is_lib = place.root.ends_with("lib.rs");
    let mut found = Vec::new();
    for file in mentioning.files {
        if file.path == m.source.path || !file.path.starts_with(&prefix) {
            continue;
        }
        let module = place.module_of(&file.path);
        let tree = crate::refactor::tree_of(m.sources, Language::Rust, &file);
        // The modules the file's own `use`s name (`use crate::text;` makes `text::f` a path).
        let imported: Vec<(String, Vec<String>)> = top_level_leaves(&tree, &file.text)
            .into_iter()
            .filter_map(|leaf| {
                let bound = leaf.bound_name()?;
                let mut path = leaf.path.clone();
                if path.last().is_some_and(|l| l == "self") {
                    path.pop();
                }
                let target = resolve_head(place, module.as_deref(), &[], &path, source_is_lib)?;
                Some((bound, target))
            })
            .collect();
        let reaches = |head: &[String], inline: &[String]| -> bool {
            let through_import = head.split_first().and_then(|(first, rest)| {
                let (_, target) = imported.iter().find(|(b, _)| b == first)?;
                let mut path = target.clone();
                path.extend(rest.iter().cloned());
                Some(path)
            });
            match through_import {
                Some(path) if inline.is_empty() => path == place.source,
                _ => {
                    resolve_head(place, module.as_deref(), inline, head, source_is_lib).as_ref()
                        == Some(&place.source)
                }
            }
        };
        let sites = paths_to(&tree, &file.text, name, reaches);
        if !sites.is_empty() {
            found.push(Referrer {
                file,
                module,
                sites,
            });
        }
    }
    Ok((found, mentioning.skipped))
}

/// The crate module a path head names, written in module `module` (inside the inline modules
/// `inline`): `crate::a`, `self`, `super::super`, a child module's name, the crate's own name.
fn resolve_head(
    place: &Place,
    module: Option<&[String]>,
    inline: &[String],
    head: &[String],
    source_is_lib: bool,
) -> Option<Vec<String>> {
    let (first, rest) = head.split_first()?;
    let here = || {
        module.map(|m| {
            let mut here = m.to_vec();
            here.extend(inline.iter().cloned());
            here
        })
    };
    match first.as_str() {
        "crate" => Some(rest.to_vec()),
        "self" => here().map(|mut h| {
            h.extend(rest.iter().cloned());
            h
        }),
        "super" => {
            let ups = head.iter().take_while(|s| *s == "super").count();
            let here = here()?;
            let keep = here.len().checked_sub(ups)?;
            let mut out = here[..keep].to_vec();
            out.extend(head[ups..].iter().cloned());
            Some(out)
        }
        _ if source_is_lib && place.krate.name.as_deref() == Some(first.as_str()) => {
            Some(rest.to_vec())
        }
        _ => here().map(|mut h| {
            h.extend(head.iter().cloned());
            h
        }),
    }
}

/// Rewrites the paths to the moved item, fixes the target's own imports of it, and notes what
/// could not be rewritten.
pub fn rewrite(m: &Move<'_>, back: &mut ImportBack) -> Result<(), RefactorError> {
    let Some(name) = m.importable_name() else {
        return Ok(());
    };
    let Some(place) = Place::of(m) else {
        return Ok(());
    };
    let (referrers, skipped) = referrers(m, &place, name)?;
    let new_path = crate_path(&place.target, name);
    let public = public_path(m, back.module_declared.as_deref());
    let mut notes = Vec::new();
    let mut reached_from_outside = false;
    for referrer in &referrers {
        if referrer.file.path == m.target_path {
            in_target(m, back, referrer, name);
            continue;
        }
        let file = FileRewrite {
            m,
            place: &place,
            referrer,
            name,
            new_path: &new_path,
            public,
        };
        let outside_target = !referrer
            .module
            .as_ref()
            .is_some_and(|module| module.starts_with(&place.target));
        for site in &referrer.sites {
            let before = back.summary.rewritten;
            let note = file.site(site, back);
            if note.severity != Severity::Info {
                back.summary.not_rewritten += 1;
            }
            notes.push(note);
            reached_from_outside |= outside_target && back.summary.rewritten > before;
        }
    }
    back.notes
        .extend(m.other_file_notes(name, notes, &skipped, w::RUST_THIRD_FILES));
    if reached_from_outside {
        make_reachable(m, back, name);
    }
    Ok(())
}

/// A private moved item that other modules now reach at its new place becomes `pub(crate)`.
fn make_reachable(m: &Move<'_>, back: &mut ImportBack, name: &str) {
    let Some(item) = top_level_node(m.tree, &m.symbol.range) else {
        return;
    };
    let Some(edit) = widen_visibility(item, &m.source.text) else {
        return;
    };
    if back
        .moved_edits
        .iter()
        .any(|e| e.range.start == edit.range.start)
    {
        return;
    }
    back.moved_edits.push(edit);
    back.notes.push(Note::new(
        At::Moved(item.start_byte()),
        Severity::Info,
        w::reached_from_other_files(name, &m.target_path),
    ));
}

/// The target's own paths to the item at its old place: a `use` of it goes, a qualified path
/// becomes `self::name`.
fn in_target(m: &Move<'_>, back: &mut ImportBack, referrer: &Referrer, name: &str) {
    let file = &referrer.file;
    let tree = crate::refactor::tree_of(m.sources, Language::Rust, file);
    for (_, path, range) in &referrer.sites {
        match path {
            PathTo::Use(_) => {
                let Some(leaf) = leaf_at(&tree, &file.text, range) else {
                    continue;
                };
                back.target_edits.extend(leaves_removal(
                    &file.text,
                    leaf.declaration,
                    &[leaf.node],
                    true,
                ));
                back.target_imports_removed.push(name.to_string());
                back.notes.push(Note::new(
                    At::Target(range.start),
                    Severity::Info,
                    w::target_import_of_item_removed(name, &m.source.path),
                ));
            }
            PathTo::Qualified(_) => back.target_edits.push(TextEdit::new(range.clone(), "self")),
            PathTo::Glob(_) => {}
        }
    }
}

/// The rewrite of one file's paths.
struct FileRewrite<'a, 'm> {
    m: &'a Move<'m>,
    place: &'a Place,
    referrer: &'a Referrer,
    name: &'a str,
    /// `crate::new::name`.
    new_path: &'a str,
    /// Whether other crates reach the item at its new place.
    public: bool,
}

impl FileRewrite<'_, '_> {
    fn file(&self) -> &SourceFile {
        &self.referrer.file
    }

    fn site(
        &self,
        (line, path, range): &(usize, PathTo, std::ops::Range<usize>),
        back: &mut ImportBack,
    ) -> Note {
        let at = At::InFile {
            path: self.file().path.clone(),
            offset: range.start,
            line: *line,
        };
        let done = match path {
            PathTo::Use(path) => self.use_leaf(path, range, back),
            PathTo::Glob(path) => return self.glob(path, range, at, back),
            PathTo::Qualified(head) => self.qualified(head, range, back),
        };
        // The new path as the file would write it: through the crate's name where it did.
        let written = match (path, &self.place.krate.name) {
            (PathTo::Use(p) | PathTo::Qualified(p) | PathTo::Glob(p), Some(krate))
                if p.first() == Some(krate) =>
            {
                self.new_path.replacen("crate", krate, 1)
            }
            _ => self.new_path.to_string(),
        };
        let message = match (done, path) {
            (Some(message), _) => return Note::new(at, Severity::Info, message),
            (None, PathTo::Use(path)) => w::use_path_moves(&path.join("::"), &written),
            (None, PathTo::Qualified(head)) => {
                w::qualified_path_moves(&head.join("::"), self.name, &written)
            }
            (None, PathTo::Glob(path)) => {
                w::glob_import_moves(&path.join("::"), self.name, &written)
            }
        };
        Note::new(at, Severity::Warning, message)
    }

    /// The new path as this file writes it: `crate::…`, or through the crate's name when the
    /// path went through it (only where that path is public).
    fn new_path_for(&self, written: &[String]) -> Option<Vec<String>> {
        let crate_relative: Vec<String> = self.new_path.split("::").map(str::to_string).collect();
        match written.first().map(String::as_str) {
            Some("crate" | "self" | "super") => Some(crate_relative),
            Some(first) if self.place.krate.name.as_deref() == Some(first) => {
                if !self.public {
                    return None;
                }
                let mut path = vec![first.to_string()];
                path.extend(crate_relative.into_iter().skip(1));
                Some(path)
            }
            _ if self.referrer.module.is_some() => Some(crate_relative),
            _ => None,
        }
    }

    /// `use crate::old::f;` → `use crate::new::f;`; in a list, the leaf rewritten relative to
    /// the list's path when the new path shares it, else taken out with a `use` of its own.
    fn use_leaf(
        &self,
        path: &[String],
        range: &std::ops::Range<usize>,
        back: &mut ImportBack,
    ) -> Option<String> {
        let file = self.file().clone();
        let tree = crate::refactor::tree_of(self.m.sources, Language::Rust, &file);
        let leaf = leaf_at(&tree, &file.text, range)?;
        let new = self.new_path_for(path)?;
        let alias = leaf
            .alias
            .as_ref()
            .map_or_else(String::new, |a| format!(" as {a}"));
        let prefix = leaf.list_prefix();
        let in_place = if prefix.is_empty() {
            Some(new.clone())
        } else {
            self.list_prefix_module(&leaf)
                .filter(|p| new.starts_with(p) && new.len() > p.len())
                .map(|p| new[p.len()..].to_vec())
        };
        match in_place {
            Some(written) => {
                back.edit_other(
                    &file,
                    TextEdit::new(range.clone(), format!("{}{alias}", written.join("::"))),
                );
            }
            None => {
                for edit in leaves_removal(&file.text, leaf.declaration, &[leaf.node], true) {
                    back.edit_other(&file, edit);
                }
                let visibility = visibility_of(leaf.declaration, &file.text)
                    .map_or_else(String::new, |v| format!("{v} "));
                let line = format!("{visibility}use {}{alias};", new.join("::"));
                insert_after(&file, leaf.declaration.byte_range(), &line, back);
            }
        }
        back.rewrote(&file.path);
        Some(w::path_rewritten(&path.join("::"), &new.join("::")))
    }

    /// The module path the lists around a leaf write, from the crate root (`crate::a` for
    /// `use crate::a::{…}`, `super` made absolute), or as written from the crate's name.
    fn list_prefix_module(&self, leaf: &UseLeaf<'_>) -> Option<Vec<String>> {
        let prefix = leaf.list_prefix();
        let first = prefix.first()?;
        if self.place.krate.name.as_deref() == Some(first.as_str()) {
            return Some(prefix.to_vec());
        }
        let module = resolve_head(
            self.place,
            self.referrer.module.as_deref(),
            &[],
            prefix,
            self.place.root.ends_with("lib.rs"),
        )?;
        let mut path = vec!["crate".to_string()];
        path.extend(module);
        Some(path)
    }

    /// `crate::old::f(..)`, `super::f`, `old::f` → `crate::new::f`.
    fn qualified(
        &self,
        head: &[String],
        range: &std::ops::Range<usize>,
        back: &mut ImportBack,
    ) -> Option<String> {
        let mut new = self.new_path_for(head)?;
        new.pop();
        let file = self.file().clone();
        back.edit_other(&file, TextEdit::new(range.clone(), new.join("::")));
        back.rewrote(&file.path);
        Some(w::path_rewritten(
            &format!("{}::{}", head.join("::"), self.name),
            &format!("{}::{}", new.join("::"), self.name),
        ))
    }

    /// `use crate::old::*;` in a file that uses the item: an import of the item below it, unless
    /// the file defines that name or still gets it through the source's import back.
    fn glob(
        &self,
        path: &[String],
        range: &std::ops::Range<usize>,
        at: At,
        back: &mut ImportBack,
    ) -> Note {
        let file = self.file().clone();
        let tree = crate::refactor::tree_of(self.m.sources, Language::Rust, &file);
        let uses = uses_outside(&tree, &file.text, self.name, |_| false);
        let binds = bindings(Language::Rust, &tree, &file.text)
            .iter()
            .any(|b| b.name == self.name);
        let under_source = self
            .referrer
            .module
            .as_ref()
            .is_some_and(|m| m.starts_with(&self.place.source));
        let glob_path = path.join("::");
        if uses.is_empty() || binds || (under_source && back.import_added.is_some()) {
            return Note::new(
                at,
                Severity::Info,
                w::glob_still_provides(&glob_path, self.name),
            );
        }
        let Some(leaf) = leaf_at(&tree, &file.text, range) else {
            return Note::new(
                at,
                Severity::Warning,
                w::glob_import_moves(&glob_path, self.name, self.new_path),
            );
        };
        let line = format!("use {};", self.new_path);
        insert_after(&file, leaf.declaration.byte_range(), &line, back);
        back.rewrote(&file.path);
        Note::new(
            at,
            Severity::Info,
            w::glob_import_completed(&glob_path, self.name, self.new_path),
        )
    }
}

/// Inserts `line` (indented as the declaration at `range`) on the line after it.
fn insert_after(
    file: &SourceFile,
    range: std::ops::Range<usize>,
    line: &str,
    back: &mut ImportBack,
) {
    let text = &file.text;
    let line_ending = TextStyle::detect(text).line_ending;
    let line_start = text[..range.start].rfind('\n').map_or(0, |i| i + 1);
    let indent = &text[line_start..range.start];
    let indent = if indent.trim().is_empty() { indent } else { "" };
    let edit = match text[range.end..].find('\n') {
        Some(at) => TextEdit::insert(range.end + at + 1, format!("{indent}{line}{line_ending}")),
        None => TextEdit::insert(text.len(), format!("{line_ending}{indent}{line}")),
    };
    back.edit_other(file, edit);
}

/// Whether other crates can reach the moved item at its new place: every module on the way is
/// `pub`, the one this plan declares (`declared`) included (the item keeps its own visibility).
fn public_path(m: &Move<'_>, declared: Option<&str>) -> bool {
    locate(m).is_ok_and(|located| {
        located.chain.iter().all(|(_, d)| d.exported)
            && (located.undeclared_in.is_none()
                || declared.is_some_and(|d| d.trim_start().starts_with("pub mod")))
    })
}
