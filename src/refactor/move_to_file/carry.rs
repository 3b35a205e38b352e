//! What a move does around the moved code, language-neutral: the import back into the source,
//! the imports the target needs for the moved code, the imports the source no longer needs, the
//! paths to the old location rewritten in other files, and the caveat notes that say what of it
//! was done. The languages fill an [`ImportBack`]; `assemble` turns it into file changes.

use std::collections::BTreeSet;

use super::wording as w;
use super::{At, Move, Note};
use crate::edit::{SourceFile, TextEdit};
use crate::honesty::{Caveat, CaveatNote};
use crate::refactor::Severity;

/// What a language adds around the move: the import back into the source, the imports carried
/// to the target, the edits of the source and of other files, visibility edits inside the moved
/// code, and notes about them.
#[derive(Debug, Default)]
pub(super) struct ImportBack {
    /// (offset, text) insertions into the source, in the order they should appear.
    pub source_inserts: Vec<(usize, String)>,
    /// Other edits of the source outside the moved code (a sibling made `pub(crate)`).
    pub source_edits: Vec<TextEdit>,
    /// Imports the source no longer needs.
    pub source_removals: Vec<Removal>,
    /// Edits of other existing files (kept with them to build their changes): module
    /// declarations, rewritten paths.
    pub other_edits: Vec<(SourceFile, Vec<TextEdit>)>,
    /// Edits inside the moved pieces (source offsets), e.g. `pub(crate) `.
    pub moved_edits: Vec<TextEdit>,
    /// Import statements the target gets, in order, each without its line ending (a statement
    /// may span lines, as a copied `try:` block does).
    pub target_imports: Vec<String>,
    /// Edits of the target as it was: its own imports of the moved item, and paths to it.
    pub target_edits: Vec<TextEdit>,
    /// Names the moved code uses whose import at the target is dealt with (added, or reported
    /// by a finding of its own): no "does not import it" finding for them.
    pub carried: BTreeSet<String>,
    /// Names of moved items that the target imported from the source: those imports go.
    pub target_imports_removed: Vec<String>,
    pub notes: Vec<Note>,
    /// The import line added to the source.
    pub import_added: Option<String>,
    /// The module declaration added (Rust).
    pub module_declared: Option<String>,
    pub summary: Summary,
}

/// An import the source no longer needs: `wide` takes the blank lines that went with it (as a
/// removed item), `narrow` only its own lines, for when something is inserted right there.
#[derive(Debug, Clone)]
pub(super) struct Removal {
    pub wide: Vec<TextEdit>,
    pub narrow: Vec<TextEdit>,
}

/// What was carried, for the caveat notes.
#[derive(Debug, Default)]
pub(super) struct Summary {
    /// Names imported at the target from where the source imported them.
    pub imported: Vec<String>,
    /// Names the source defines, imported at the target from the source.
    pub from_source: Vec<String>,
    /// How the target reaches the source's names in a circular import (`recipes.` before each).
    pub qualified_by: Option<String>,
    /// Names the source no longer imports.
    pub removed: Vec<String>,
    /// Paths and imports rewritten to the new location, and the files they are in.
    pub rewritten: usize,
    pub rewritten_files: BTreeSet<String>,
    /// References in other files left as they were, each with a warning of its own.
    pub not_rewritten: usize,
    /// Paths of the moved code written from the source module (`super::x`) made absolute.
    pub paths_made_absolute: usize,
    /// Whether the target's top-level names were checked against the moved names.
    pub collisions_checked: bool,
}

impl ImportBack {
    /// The source no longer uses the moved `name`: no import is added, and the note says so.
    pub fn no_import_needed(&mut self, m: &Move<'_>, name: &str) {
        self.notes.push(Note::new(
            At::Source(m.pieces[0].bytes.start),
            Severity::Info,
            w::no_import_needed(&m.source.path, name),
        ));
    }

    /// Inserts the import `statement` into the source (`inserted`: where, and the text with its
    /// line ending and blank lines), with the note that says so; `how` qualifies the statement
    /// (` (a module of the same directory)`), `uses` counts the uses it serves.
    pub fn import_inserted(
        &mut self,
        m: &Move<'_>,
        name: &str,
        inserted: (usize, String),
        statement: String,
        how: &str,
        uses: usize,
    ) {
        let source = &m.source.path;
        let at = inserted.0;
        self.source_inserts.push(inserted);
        self.notes.push(Note::new(
            At::Inserted {
                path: source.clone(),
                at,
                line_text: statement.clone(),
            },
            Severity::Info,
            w::import_added(&statement, how, source, name, uses),
        ));
        self.import_added = Some(statement);
    }

    /// Adds an edit of another file (grouped with the file's other edits).
    pub fn edit_other(&mut self, file: &SourceFile, edit: TextEdit) {
        match self
            .other_edits
            .iter_mut()
            .find(|(f, _)| f.path == file.path)
        {
            Some((_, edits)) => edits.push(edit),
            None => self.other_edits.push((file.clone(), vec![edit])),
        }
    }

    /// A rewritten path or import in `path` (the counts of the caveat note).
    pub fn rewrote(&mut self, path: &str) {
        self.summary.rewritten += 1;
        self.summary.rewritten_files.insert(path.to_string());
    }

    /// One note per canonical caveat that this result addressed, saying what was done.
    pub fn caveat_notes(&self, m: &Move<'_>) -> Vec<CaveatNote> {
        let s = &self.summary;
        let mut notes = Vec::new();
        let mut imports: Vec<String> = Vec::new();
        if !s.imported.is_empty() {
            imports.push(w::imported_at_the_target(&s.imported));
        }
        if !s.from_source.is_empty() {
            imports.push(w::needed_from_the_source(
                &s.from_source,
                &m.source.path,
                s.qualified_by.as_deref(),
            ));
        }
        if !s.removed.is_empty() {
            imports.push(w::removed_from_the_source(&s.removed, &m.source.path));
        }
        if !imports.is_empty() {
            notes.push(CaveatNote::new(Caveat::MoveImports, imports.join("; ")));
        }
        if s.rewritten > 0 {
            notes.push(CaveatNote::new(
                Caveat::MoveThirdFiles,
                w::references_rewritten(s.rewritten, s.rewritten_files.len(), s.not_rewritten),
            ));
        }
        if s.collisions_checked {
            notes.push(CaveatNote::new(
                Caveat::MoveNameCollision,
                w::COLLISIONS_CHECKED,
            ));
        }
        notes
    }
}
