//! The one edit model: byte-range text edits per file, validated in one place (sorted,
//! non-overlapping, in bounds, on character boundaries), applied and inverted; a `FileChange`
//! carries the sha256 of the bytes it was computed from. Pure: no disk, no terminal.

pub mod diff;
pub mod merge;
mod source;

use std::collections::BTreeMap;
use std::ops::Range;

use serde::Serialize;

pub use source::{DecodeError, SourceFile, sha256_hex};

/// Replace `range` (bytes of the text without BOM) with `new_text`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct TextEdit {
    pub range: Range<usize>,
    pub new_text: String,
}

impl TextEdit {
    pub fn new(range: Range<usize>, new_text: impl Into<String>) -> TextEdit {
        TextEdit {
            range,
            new_text: new_text.into(),
        }
    }

    pub fn insert(at: usize, new_text: impl Into<String>) -> TextEdit {
        TextEdit::new(at..at, new_text)
    }

    pub fn delete(range: Range<usize>) -> TextEdit {
        TextEdit::new(range, "")
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("edit {start}..{end} is outside the text ({len} bytes)")]
    OutOfBounds {
        start: usize,
        end: usize,
        len: usize,
    },
    #[error("edit {start}..{end} is reversed")]
    Reversed { start: usize, end: usize },
    #[error("edit {start}..{end} does not fall on character boundaries")]
    NotCharBoundary { start: usize, end: usize },
    #[error("edits {first:?} and {second:?} overlap")]
    Overlap {
        first: Range<usize>,
        second: Range<usize>,
    },
    #[error("{path}: the plan edits a file that was not loaded")]
    UnknownFile { path: String },
    #[error("{path}: {source}")]
    InFile {
        path: String,
        #[source]
        source: Box<EditError>,
    },
}

/// Sorts `edits` and checks every invariant; the only way to get edits that `apply` accepts.
/// Two insertions at the same offset are an overlap (their order would be a guess); an insertion
/// touching the boundary of a replacement is fine.
pub fn validate(text: &str, mut edits: Vec<TextEdit>) -> Result<Vec<TextEdit>, EditError> {
    for edit in &edits {
        let Range { start, end } = edit.range;
        if start > end {
            return Err(EditError::Reversed { start, end });
        }
        if end > text.len() {
            return Err(EditError::OutOfBounds {
                start,
                end,
                len: text.len(),
            });
        }
        if !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            return Err(EditError::NotCharBoundary { start, end });
        }
    }
    edits.retain(|e| !(e.range.is_empty() && e.new_text.is_empty()));
    edits.sort_by_key(|e| (e.range.start, e.range.end));
    for pair in edits.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let same_point_inserts =
            a.range.is_empty() && b.range.is_empty() && a.range.start == b.range.start;
        if a.range.end > b.range.start || same_point_inserts {
            return Err(EditError::Overlap {
                first: a.range.clone(),
                second: b.range.clone(),
            });
        }
    }
    Ok(edits)
}

/// Applies validated edits (as returned by [`validate`]).
pub fn apply(text: &str, edits: &[TextEdit]) -> String {
    let mut out =
        String::with_capacity(text.len() + edits.iter().map(|e| e.new_text.len()).sum::<usize>());
    let mut cursor = 0;
    for edit in edits {
        out.push_str(&text[cursor..edit.range.start]);
        out.push_str(&edit.new_text);
        cursor = edit.range.end;
    }
    out.push_str(&text[cursor..]);
    out
}

/// The edits that turn `apply(original, edits)` back into `original`, in the new text's offsets.
/// Inverse edits that touch are merged: two adjacent deletions would otherwise invert to two
/// insertions at one point, which [`validate`] rightly refuses.
pub fn invert(original: &str, edits: &[TextEdit]) -> Vec<TextEdit> {
    let mut shift: isize = 0;
    let mut inverse: Vec<TextEdit> = Vec::with_capacity(edits.len());
    for edit in edits {
        let start = (edit.range.start as isize + shift) as usize;
        let end = start + edit.new_text.len();
        shift += edit.new_text.len() as isize - edit.range.len() as isize;
        let old_text = &original[edit.range.clone()];
        match inverse.last_mut() {
            Some(previous) if previous.range.end == start => {
                previous.range.end = end;
                previous.new_text.push_str(old_text);
            }
            _ => inverse.push(TextEdit::new(start..end, old_text)),
        }
    }
    inverse
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    Modify,
    Create,
}

/// The planned new content of one file, with the hash of the bytes it was computed from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Project-relative path with `/` separators.
    pub path: String,
    pub kind: ChangeKind,
    /// Whether the file starts with a UTF-8 byte order mark (kept as it was).
    pub bom: bool,
    pub before: String,
    pub after: String,
    /// Validated edits from `before` to `after`.
    pub edits: Vec<TextEdit>,
    /// sha256 of the bytes on disk the plan was computed from; `None` for a created file.
    pub sha256_before: Option<String>,
    pub sha256_after: String,
}

impl FileChange {
    /// A change of an existing file.
    pub fn modify(source: &SourceFile, edits: Vec<TextEdit>) -> Result<FileChange, EditError> {
        let edits = validate(&source.text, edits).map_err(|e| EditError::InFile {
            path: source.path.clone(),
            source: Box::new(e),
        })?;
        let after = apply(&source.text, &edits);
        Ok(FileChange {
            path: source.path.clone(),
            kind: ChangeKind::Modify,
            bom: source.bom,
            sha256_before: Some(source.sha256.clone()),
            sha256_after: sha256_hex(&source::with_bom(source.bom, &after)),
            before: source.text.to_string(),
            after,
            edits,
        })
    }

    /// The file as it is, with no edit: a plan's base for sites it does not write by default.
    /// Its bytes after are its bytes before, whose hash the file has: not hashed again.
    pub fn unchanged(source: &SourceFile) -> FileChange {
        FileChange {
            path: source.path.clone(),
            kind: ChangeKind::Modify,
            bom: source.bom,
            sha256_before: Some(source.sha256.clone()),
            sha256_after: source.sha256.clone(),
            before: source.text.to_string(),
            after: source.text.to_string(),
            edits: Vec::new(),
        }
    }

    /// The same file changed by other `edits` (offsets in `before`), from the same bytes: the
    /// hash of the base is kept, the result and its hash are computed again.
    pub fn with_edits(&self, edits: Vec<TextEdit>) -> Result<FileChange, EditError> {
        let edits = validate(&self.before, edits).map_err(|e| EditError::InFile {
            path: self.path.clone(),
            source: Box::new(e),
        })?;
        let after = apply(&self.before, &edits);
        Ok(FileChange {
            path: self.path.clone(),
            kind: self.kind,
            bom: self.bom,
            sha256_before: self.sha256_before.clone(),
            sha256_after: sha256_hex(&source::with_bom(self.bom, &after)),
            before: self.before.clone(),
            after,
            edits,
        })
    }

    /// A new file with `text`.
    pub fn create(path: impl Into<String>, text: impl Into<String>) -> FileChange {
        let after: String = text.into();
        FileChange {
            path: path.into(),
            kind: ChangeKind::Create,
            bom: false,
            sha256_before: None,
            sha256_after: sha256_hex(after.as_bytes()),
            edits: vec![TextEdit::insert(0, after.clone())],
            before: String::new(),
            after,
        }
    }

    pub fn created(&self) -> bool {
        self.kind == ChangeKind::Create
    }

    /// The bytes to write.
    pub fn after_bytes(&self) -> Vec<u8> {
        source::with_bom(self.bom, &self.after)
    }

    /// The bytes the change was computed from (empty for a created file).
    pub fn before_bytes(&self) -> Vec<u8> {
        if self.created() {
            Vec::new()
        } else {
            source::with_bom(self.bom, &self.before)
        }
    }

    /// A unified diff with `a/` and `b/` headers (`/dev/null` for a created file).
    pub fn diff(&self) -> String {
        diff::unified(&self.path, &self.before, &self.after, self.created())
    }
}

/// Collects edits and new files across a project, then validates them per file at once, so
/// several steps of a refactor can touch one file.
#[derive(Debug, Default, Clone)]
pub struct ChangeSetBuilder {
    edits: BTreeMap<String, Vec<TextEdit>>,
    created: BTreeMap<String, String>,
}

impl ChangeSetBuilder {
    pub fn new() -> ChangeSetBuilder {
        ChangeSetBuilder::default()
    }

    pub fn edit(&mut self, path: &str, edit: TextEdit) -> &mut Self {
        self.edits.entry(path.to_string()).or_default().push(edit);
        self
    }

    pub fn create(&mut self, path: &str, text: impl Into<String>) -> &mut Self {
        self.created.insert(path.to_string(), text.into());
        self
    }

    pub fn is_empty(&self) -> bool {
        self.edits.values().all(Vec::is_empty) && self.created.is_empty()
    }

    /// Validates and builds the changes; `source` looks up the current content of a path.
    /// Files whose edits change nothing are left out.
    pub fn build<'s>(
        self,
        source: impl Fn(&str) -> Option<&'s SourceFile>,
    ) -> Result<Vec<FileChange>, EditError> {
        let mut changes = Vec::new();
        for (path, edits) in self.edits {
            let file =
                source(&path).ok_or_else(|| EditError::UnknownFile { path: path.clone() })?;
            let change = FileChange::modify(file, edits)?;
            if change.before != change.after {
                changes.push(change);
            }
        }
        for (path, text) in self.created {
            changes.push(FileChange::create(path, text));
        }
        Ok(changes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unchanged_file_is_a_change_without_edits() {
        for bytes in [&b"fn f() {}\r\n"[..], b"\xEF\xBB\xBFfn g() {}\n"] {
            let source = SourceFile::from_bytes("src/lib.rs", bytes).unwrap();
            assert_eq!(
                FileChange::unchanged(&source),
                FileChange::modify(&source, Vec::new()).unwrap()
            );
        }
    }

    #[test]
    fn validate_sorts_and_rejects_overlaps() {
        let text = "hello world";
        let edits = validate(
            text,
            vec![TextEdit::new(6..11, "there"), TextEdit::new(0..5, "hi")],
        )
        .unwrap();
        assert_eq!(edits[0].range, 0..5);
        assert_eq!(apply(text, &edits), "hi there");
        let overlap = validate(
            text,
            vec![TextEdit::new(0..6, "x"), TextEdit::new(5..7, "y")],
        );
        assert!(matches!(overlap, Err(EditError::Overlap { .. })));
        let twice = validate(
            text,
            vec![TextEdit::insert(3, "a"), TextEdit::insert(3, "b")],
        );
        assert!(matches!(twice, Err(EditError::Overlap { .. })));
        let touching = validate(
            text,
            vec![TextEdit::insert(5, "!"), TextEdit::new(5..6, "_")],
        );
        assert!(touching.is_ok());
        assert!(matches!(
            validate(text, vec![TextEdit::new(3..20, "")]),
            Err(EditError::OutOfBounds { .. })
        ));
        assert!(matches!(
            validate("é", vec![TextEdit::new(1..2, "")]),
            Err(EditError::NotCharBoundary { .. })
        ));
    }

    #[test]
    fn invert_restores_the_original() {
        let text = "fn a() {}\nfn b() {}\n";
        let edits = validate(
            text,
            vec![
                TextEdit::new(3..4, "alpha"),
                TextEdit::delete(10..20),
                TextEdit::insert(0, "// x\n"),
            ],
        )
        .unwrap();
        let after = apply(text, &edits);
        let inverse = validate(&after, invert(text, &edits)).unwrap();
        assert_eq!(apply(&after, &inverse), text);
        // Adjacent deletions (found by the property tests in tests/transaction.rs).
        let edits = validate("a,", vec![TextEdit::delete(0..1), TextEdit::delete(1..2)]).unwrap();
        let inverse = validate("", invert("a,", &edits)).unwrap();
        assert_eq!(apply("", &inverse), "a,");
    }

    #[test]
    fn file_change_keeps_bom_and_hashes() {
        let source = SourceFile::from_bytes("a.py", b"\xEF\xBB\xBFx = 1\n").unwrap();
        assert!(source.bom);
        assert_eq!(&*source.text, "x = 1\n");
        let change = FileChange::modify(&source, vec![TextEdit::new(4..5, "2")]).unwrap();
        assert_eq!(change.after_bytes(), b"\xEF\xBB\xBFx = 2\n");
        assert_eq!(
            change.sha256_before.as_deref(),
            Some(sha256_hex(b"\xEF\xBB\xBFx = 1\n").as_str())
        );
        assert_eq!(change.sha256_after, sha256_hex(b"\xEF\xBB\xBFx = 2\n"));
    }
}
