//! The notes of a move and where they point: a note is tied to an offset (of the source, the
//! moved code, the target, another file) and becomes a finding with a line once the changes are
//! built. The notes every language shares live here: collisions at the target, names the moved
//! code still needs, the files that reach the item, strings that name it.

use std::collections::BTreeSet;

use super::wording as w;
use super::{MAX_FINDINGS_PER_KIND, Move, ThirdFiles, bindings, file_name, python, rust};
use crate::edit::FileChange;
use crate::lang::Language;
use crate::lang::calls::{ReferenceKind, find_mentions};
use crate::lang::syntax::Binding;
use crate::refactor::{Finding, Severity};
use crate::text::LineIndex;

/// Where a finding points, resolved to a line once the changes are built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum At {
    /// An offset in the source as it was.
    Source(usize),
    /// An offset in the source inside the moved code: the line where it lands in the target.
    Moved(usize),
    /// An offset in the target as it was.
    Target(usize),
    /// The line holding `line_text`, inserted by this plan at `at` (an offset in `path` as it was).
    Inserted {
        path: String,
        at: usize,
        line_text: String,
    },
    /// A 1-based line of a file this plan does not change.
    Line { path: String, line: usize },
    /// An offset in another file as it was, which this plan may change (`line`: where it was).
    InFile {
        path: String,
        offset: usize,
        line: usize,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Note {
    pub at: At,
    pub severity: Severity,
    pub message: String,
}

impl Note {
    pub fn new(at: At, severity: Severity, message: impl Into<String>) -> Note {
        Note {
            at,
            severity,
            message: message.into(),
        }
    }
}

/// A name the moved code uses (first at `at`) that the source binds and the target does not.
#[derive(Debug, Clone)]
pub(super) struct Needed {
    pub name: String,
    pub at: usize,
    pub binding: Binding,
}

impl Move<'_> {
    /// The target already binds a name the moved code defines (an import of the moved item from
    /// the source, which the move removes, aside).
    pub(super) fn collision_notes(&self, removed: &[String]) -> Vec<Note> {
        let (Some(target), Some(tree)) = (self.target, self.target_tree) else {
            return Vec::new();
        };
        let bindings = bindings(self.lang, tree, &target.text);
        let index = LineIndex::new(&target.text);
        let mut notes = Vec::new();
        for name in self.moved_names() {
            for binding in bindings.iter().filter(|b| b.name == name) {
                if binding.imported && removed.iter().any(|r| r == name) {
                    continue;
                }
                let line = index.line_of(binding.offset) + 1;
                let (severity, message) = match (self.lang, binding.imported) {
                    (Language::Rust, false) => {
                        (Severity::Error, w::target_defines_the_name(name, line))
                    }
                    (Language::Rust, true) => {
                        (Severity::Error, w::target_imports_the_name(name, line))
                    }
                    (Language::Python, false) => {
                        (Severity::Warning, w::target_definition_replaced(name, line))
                    }
                    (Language::Python, true) => {
                        (Severity::Warning, w::target_import_shadowed(name, line))
                    }
                };
                notes.push(Note::new(At::Target(binding.offset), severity, message));
            }
        }
        notes
    }

    /// The names the moved code uses that the source binds (imports or defines) outside the
    /// moved code and the target does not: the target needs them. In order of first use.
    pub(super) fn needed_from_source(&self) -> Vec<Needed> {
        let source_bindings = bindings(self.lang, self.tree, &self.source.text);
        let target_bindings = match (self.target, self.target_tree) {
            (Some(t), Some(tree)) => bindings(self.lang, tree, &t.text),
            _ => Vec::new(),
        };
        let used = match self.lang {
            Language::Python => python::used_names(self),
            Language::Rust => rust::used_names(self),
        };
        let moved_names = self.moved_names();
        let mut needed = Vec::new();
        for (name, at) in used {
            if moved_names.contains(&name.as_str()) {
                continue;
            }
            let Some(binding) = source_bindings
                .iter()
                .find(|b| b.name == name && !self.moves(b.offset))
            else {
                continue;
            };
            // A module of that name in the target does not provide a function (`mod identifier;`
            // next to a call of `identifier(...)`).
            if target_bindings
                .iter()
                .any(|b| b.name == name && (!b.module || binding.module || binding.imported))
            {
                continue;
            }
            needed.push(Needed {
                name,
                at,
                binding: binding.clone(),
            });
        }
        needed
    }

    /// The names the moved code needs from the source that nothing carried to the target.
    pub(super) fn dependency_notes(
        &self,
        changes: &[FileChange],
        carried: &BTreeSet<String>,
    ) -> Vec<Note> {
        let source_after = changes.iter().find(|c| c.path == self.source.path);
        let mut notes = Vec::new();
        let mut skipped = 0;
        let target_name = file_name(&self.target_path);
        let source_name = &self.source.path;
        for Needed { name, at, binding } in self.needed_from_source() {
            if carried.contains(&name) {
                continue;
            }
            if notes.len() >= MAX_FINDINGS_PER_KIND {
                skipped += 1;
                continue;
            }
            let line = match source_after {
                Some(change) => line_after(change, binding.offset),
                None => LineIndex::new(&self.source.text).line_of(binding.offset) + 1,
            };
            let private = self.lang == Language::Rust && !binding.imported && !binding.public;
            notes.push(Note::new(
                At::Moved(at),
                Severity::Warning,
                w::name_not_imported(
                    &self.symbol.name,
                    &name,
                    binding.imported,
                    line,
                    source_name,
                    private,
                    target_name,
                ),
            ));
        }
        if skipped > 0 {
            notes.push(Note::new(
                At::Moved(self.symbol.range.start),
                Severity::Warning,
                w::more_names_not_imported(skipped, source_name),
            ));
        }
        notes
    }

    /// The notes about other files (`notes`), capped: the first [`MAX_FINDINGS_PER_KIND`], then
    /// how many more (a warning when one of them is), then how many files could not be searched.
    pub(super) fn other_file_notes(
        &self,
        name: &str,
        notes: Vec<Note>,
        skipped_files: &[(String, String)],
        words: ThirdFiles<'_>,
    ) -> Vec<Note> {
        let mut kept: Vec<Note> = Vec::new();
        let mut more = 0usize;
        let mut more_warnings = false;
        for note in notes {
            if kept.len() >= MAX_FINDINGS_PER_KIND {
                more += 1;
                more_warnings |= note.severity != Severity::Info;
                continue;
            }
            kept.push(note);
        }
        if more > 0 {
            let severity = if more_warnings {
                Severity::Warning
            } else {
                Severity::Info
            };
            kept.push(Note::new(
                At::Source(self.symbol.range.start),
                severity,
                w::more_in_other_files(more, words.counted, name, &self.source.path),
            ));
        }
        if let Some((path, why)) = skipped_files.first() {
            kept.push(Note::new(
                At::Source(self.symbol.range.start),
                Severity::Info,
                w::files_not_searched(skipped_files.len(), name, words.searched_for, path, why),
            ));
        }
        kept
    }

    /// Whole-word mentions of the name in the source's strings, which nothing rewrites.
    pub(super) fn string_notes(&self, name: Option<&str>) -> Vec<Note> {
        let Some(name) = name else { return Vec::new() };
        let mentions = find_mentions(self.lang, self.tree, &self.source.text, name);
        let exported = match self.lang {
            Language::Python => {
                crate::lang::python::imports::dunder_all_strings(self.tree, &self.source.text)
            }
            Language::Rust => Vec::new(),
        };
        mentions
            .references
            .iter()
            .filter(|r| r.kind == ReferenceKind::InString && !self.moves(r.range.start))
            .filter(|r| !exported.iter().any(|s| s.contains(&r.range.start)))
            .map(|r| {
                Note::new(
                    At::Source(r.range.start),
                    Severity::Info,
                    w::string_mentions_the_name(name),
                )
            })
            .collect()
    }
}

/// The offset in a change's new text of `offset` in its old text (after anything inserted there).
pub(super) fn offset_after(change: &FileChange, offset: usize) -> usize {
    let mut shift: isize = 0;
    for edit in &change.edits {
        if edit.range.start > offset {
            break;
        }
        if edit.range.end <= offset {
            shift += edit.new_text.len() as isize - edit.range.len() as isize;
        } else {
            return (edit.range.start as isize + shift) as usize;
        }
    }
    (offset as isize + shift).max(0) as usize
}

/// 1-based line in a change's new text of `offset` in its old text (the last line for an offset
/// that ends up past the final newline).
pub(super) fn line_after(change: &FileChange, offset: usize) -> usize {
    let mut after = offset_after(change, offset).min(change.after.len());
    if after == change.after.len() && change.after.ends_with('\n') {
        after -= 1;
    }
    change.after[..after].matches('\n').count() + 1
}

/// Turns notes into findings once the changes (and so the final line numbers) are known.
pub(super) struct Resolver<'a> {
    pub m: &'a Move<'a>,
    pub changes: &'a [FileChange],
    pub block_start: usize,
}

impl Resolver<'_> {
    fn change(&self, path: &str) -> Option<&FileChange> {
        self.changes.iter().find(|c| c.path == path)
    }

    pub fn finding(&self, note: Note) -> Finding {
        let (file, line) = match &note.at {
            At::Source(offset) => (self.m.source.path.clone(), self.source_line(*offset)),
            At::Target(offset) => (
                self.m.target_path.clone(),
                match self.change(&self.m.target_path) {
                    Some(change) => line_after(change, *offset),
                    None => 1,
                },
            ),
            At::Moved(offset) => (self.m.target_path.clone(), self.moved_line(*offset)),
            At::Inserted {
                path,
                at,
                line_text,
            } => (path.clone(), self.inserted_line(path, *at, line_text)),
            At::Line { path, line } => (path.clone(), *line),
            At::InFile { path, offset, line } => (
                path.clone(),
                self.change(path)
                    .map_or(*line, |change| line_after(change, *offset)),
            ),
        };
        Finding {
            file,
            line,
            severity: note.severity,
            message: note.message,
            kind: None,
        }
    }

    fn source_line(&self, offset: usize) -> usize {
        match self.change(&self.m.source.path) {
            Some(change) => line_after(change, offset),
            None => {
                self.m.source.text[..offset.min(self.m.source.text.len())]
                    .matches('\n')
                    .count()
                    + 1
            }
        }
    }

    /// The target line where a source line inside the moved pieces lands.
    fn moved_line(&self, offset: usize) -> usize {
        let Some(target) = self.change(&self.m.target_path) else {
            return 1;
        };
        let start_line = target.after[..self.block_start.min(target.after.len())]
            .matches('\n')
            .count();
        let source_line = self.m.source.text[..offset.min(self.m.source.text.len())]
            .matches('\n')
            .count();
        // Pieces are joined with one blank line.
        let separator_rows = 1;
        let mut row = 0;
        for piece in &self.m.pieces {
            if (piece.first_line..=piece.last_line).contains(&source_line) {
                return start_line + row + (source_line - piece.first_line) + 1;
            }
            row += piece.last_line - piece.first_line + 1 + separator_rows;
        }
        start_line + 1
    }

    fn inserted_line(&self, path: &str, at: usize, line_text: &str) -> usize {
        let Some(change) = self.change(path) else {
            return 1;
        };
        let mut shift: isize = 0;
        for edit in &change.edits {
            if edit.range.start >= at {
                break;
            }
            shift += edit.new_text.len() as isize - edit.range.len() as isize;
        }
        let from = ((at as isize + shift).max(0) as usize).min(change.after.len());
        match change.after[from..].find(line_text) {
            Some(found) => change.after[..from + found].matches('\n').count() + 1,
            None => change.after[..from].matches('\n').count() + 1,
        }
    }
}
