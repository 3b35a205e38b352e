//! The preview's diff model: for each changed file, rows of context, removed and added lines
//! with old and new line numbers and intraline (word) emphasis from `similar`, grouped in hunks.
//! Built from the very `FileChange` that will be written. Pure.

use similar::{ChangeTag, TextDiff};

use crate::edit::FileChange;

/// Lines of context around each hunk.
pub const CONTEXT: usize = 3;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    Context,
    Removed,
    Added,
}

/// One row of the diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Row {
    /// `@@ -12,7 +12,9 @@`
    Hunk(String),
    Line {
        kind: RowKind,
        /// 1-based line in the file before the change.
        old: Option<usize>,
        /// 1-based line in the file after the change.
        new: Option<usize>,
        /// The text in pieces; `true` marks the words that changed within the line.
        segments: Vec<(bool, String)>,
    },
    /// `\ No newline at end of file`
    NoNewline,
}

/// The diff of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    pub path: String,
    pub created: bool,
    pub rows: Vec<Row>,
    /// Indices in `rows` of the hunk headers.
    pub hunks: Vec<usize>,
    pub added: usize,
    pub removed: usize,
    /// Whether the rows show the whole file rather than the changes with context.
    pub whole_file: bool,
    /// The columns the widest row needs (see [`FileDiff::width`]), computed once.
    width: u16,
}

impl FileDiff {
    /// The columns the widest row needs: both line numbers, the marker and sign, the text
    /// (tabs as four columns). The split of the preview follows it.
    pub fn width(&self) -> u16 {
        self.width
    }

    fn measure(rows: &[Row]) -> u16 {
        let mut numbers = 0;
        let mut text = 0;
        for row in rows {
            match row {
                Row::Line {
                    old, new, segments, ..
                } => {
                    numbers = numbers.max(old.unwrap_or(0).max(new.unwrap_or(0)));
                    let width: usize = segments
                        .iter()
                        .map(|(_, s)| ratatui::text::Span::raw(s.replace('\t', "    ")).width())
                        .sum();
                    text = text.max(width);
                }
                Row::Hunk(header) => text = text.max(header.chars().count()),
                Row::NoNewline => {}
            }
        }
        let number_width = numbers.to_string().len().max(3);
        (2 * number_width + 3 + text).min(u16::MAX as usize) as u16
    }

    /// The row showing 1-based `line` of the new file, else of the old one.
    pub fn row_of_line(&self, line: usize) -> Option<usize> {
        let find = |want_new: bool| {
            self.rows.iter().position(|row| match row {
                Row::Line { old, new, .. } => {
                    if want_new {
                        *new == Some(line)
                    } else {
                        *old == Some(line)
                    }
                }
                _ => false,
            })
        };
        find(true).or_else(|| find(false))
    }
}

/// The diff of `change`, with [`CONTEXT`] lines around each hunk or the whole file.
pub fn file_diff(change: &FileChange, whole_file: bool) -> FileDiff {
    let diff = TextDiff::from_lines(change.before.as_str(), change.after.as_str());
    let context = if whole_file {
        change
            .before
            .lines()
            .count()
            .max(change.after.lines().count())
            + 1
    } else {
        CONTEXT
    };
    let mut rows = Vec::new();
    let mut hunks = Vec::new();
    let (mut added, mut removed) = (0, 0);
    for group in diff.grouped_ops(context) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let old = first.old_range().start..last.old_range().end;
        let new = first.new_range().start..last.new_range().end;
        hunks.push(rows.len());
        rows.push(Row::Hunk(format!(
            "@@ -{} +{} @@",
            hunk_range(old.start, old.len()),
            hunk_range(new.start, new.len())
        )));
        for op in &group {
            for change in diff.iter_inline_changes(op) {
                let kind = match change.tag() {
                    ChangeTag::Equal => RowKind::Context,
                    ChangeTag::Delete => {
                        removed += 1;
                        RowKind::Removed
                    }
                    ChangeTag::Insert => {
                        added += 1;
                        RowKind::Added
                    }
                };
                let mut segments: Vec<(bool, String)> = Vec::new();
                for (emphasized, text) in change.iter_strings_lossy() {
                    let text = text.trim_end_matches(['\n', '\r']);
                    if text.is_empty() {
                        continue;
                    }
                    // Emphasis only means something next to unchanged words of the same line.
                    let emphasized = emphasized && kind != RowKind::Context;
                    match segments.last_mut() {
                        Some((e, s)) if *e == emphasized => s.push_str(text),
                        _ => segments.push((emphasized, text.to_string())),
                    }
                }
                if segments.iter().all(|(e, _)| *e) {
                    for segment in &mut segments {
                        segment.0 = false;
                    }
                }
                rows.push(Row::Line {
                    kind,
                    old: change.old_index().map(|i| i + 1),
                    new: change.new_index().map(|i| i + 1),
                    segments,
                });
                if change.missing_newline() {
                    rows.push(Row::NoNewline);
                }
            }
        }
    }
    FileDiff {
        path: change.path.clone(),
        created: change.created(),
        width: FileDiff::measure(&rows),
        rows,
        hunks,
        added,
        removed,
        whole_file,
    }
}

fn hunk_range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{}", start + 1, len),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{SourceFile, TextEdit};

    fn text_of(row: &Row) -> String {
        match row {
            Row::Line { segments, .. } => segments.iter().map(|(_, s)| s.as_str()).collect(),
            Row::Hunk(h) => h.clone(),
            Row::NoNewline => "\\".to_string(),
        }
    }

    #[test]
    fn rows_carry_numbers_and_word_emphasis() {
        let before = "a\nb\nc\nlet total = 1;\nd\ne\nf\ng\nh\ni\nj\nk\n";
        let source = SourceFile::from_text("x.rs", before);
        let at = before.find("1;").unwrap();
        let change = FileChange::modify(
            &source,
            vec![
                TextEdit::new(at..at + 1, "2"),
                TextEdit::insert(before.len(), "l\n"),
            ],
        )
        .unwrap();
        let diff = file_diff(&change, false);
        assert_eq!((diff.added, diff.removed), (2, 1));
        assert_eq!(diff.hunks.len(), 2);
        assert_eq!(diff.rows[0], Row::Hunk("@@ -1,7 +1,7 @@".to_string()));
        let removed = diff
            .rows
            .iter()
            .find(|r| {
                matches!(
                    r,
                    Row::Line {
                        kind: RowKind::Removed,
                        ..
                    }
                )
            })
            .unwrap();
        let Row::Line {
            old, new, segments, ..
        } = removed
        else {
            unreachable!()
        };
        assert_eq!((*old, *new), (Some(4), None));
        assert!(
            segments.contains(&(true, "1;".to_string())),
            "the changed word: {segments:?}"
        );
        assert!(
            segments.contains(&(false, "let total = ".to_string())),
            "{segments:?}"
        );
        assert_eq!(
            diff.row_of_line(4),
            Some(5),
            "the added line 4 of the new file"
        );
        let whole = file_diff(&change, true);
        assert_eq!(whole.hunks.len(), 1);
        assert_eq!(
            whole
                .rows
                .iter()
                .filter(|r| matches!(r, Row::Line { .. }))
                .count(),
            14
        );
        assert_eq!(text_of(&whole.rows[1]), "a");
    }

    #[test]
    fn created_files_and_missing_newlines() {
        let change = FileChange::create("new.py", "x = 1");
        let diff = file_diff(&change, false);
        assert!(diff.created);
        assert_eq!(diff.rows[0], Row::Hunk("@@ -0,0 +1 @@".to_string()));
        assert_eq!(diff.rows.last(), Some(&Row::NoNewline));
        let Row::Line { segments, .. } = &diff.rows[1] else {
            panic!()
        };
        assert_eq!(
            segments,
            &vec![(false, "x = 1".to_string())],
            "a wholly new line is not emphasised word by word"
        );
    }
}
