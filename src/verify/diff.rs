//! What a refactor introduced: the diagnostics after it, minus those that were there before.
//! A diagnostic is matched by file, severity, code and message, at its line mapped through the
//! refactor's edits (lines below an edit move); what cannot be matched by line (it sat in edited
//! lines, or moved in a way the edits do not tell) is matched by the rest alone. Pure.

use std::collections::HashMap;

use crate::edit::FileChange;

use super::Diagnostic;

/// Maps 1-based lines of a file before the refactor to lines after it.
#[derive(Debug, Clone, Default)]
pub(crate) struct LineMap {
    /// Per edit: the first byte it replaces, the first byte after it, and how many lines it adds
    /// (negative: removes).
    edits: Vec<(usize, usize, isize)>,
    /// Byte offset where each line of the text before starts (index 0 = line 1), then its length.
    starts: Vec<usize>,
}

impl LineMap {
    pub fn new(change: &FileChange) -> LineMap {
        let before = &change.before;
        let mut starts = vec![0];
        starts.extend(before.match_indices('\n').map(|(i, _)| i + 1));
        starts.push(before.len());
        let edits = change
            .edits
            .iter()
            .map(|e| {
                let removed = before[e.range.clone()].matches('\n').count() as isize;
                let added = e.new_text.matches('\n').count() as isize;
                (e.range.start, e.range.end, added - removed)
            })
            .collect();
        LineMap { edits, starts }
    }

    /// Where `line` (1-based, before) is after the refactor; `None` when an edit touched it.
    pub fn map(&self, line: usize) -> Option<usize> {
        let start = *self.starts.get(line.checked_sub(1)?)?;
        let end = self.starts.get(line).copied().unwrap_or(start);
        let mut shift: isize = 0;
        for &(from, to, delta) in &self.edits {
            let touches = if from == to {
                from > start && from < end
            } else {
                from < end.max(start + 1) && to > start
            };
            if touches {
                return None;
            }
            if to <= start {
                shift += delta;
            }
        }
        usize::try_from(line as isize + shift)
            .ok()
            .filter(|l| *l >= 1)
    }
}

/// The line maps of the changed files that existed before (created files have none).
pub(crate) fn line_maps(changes: &[FileChange]) -> HashMap<String, LineMap> {
    changes
        .iter()
        .filter(|c| !c.created())
        .map(|c| (c.path.clone(), LineMap::new(c)))
        .collect()
}

/// The diagnostics of `after` that were not in `before`, and how many of `after` were.
pub(crate) fn introduced(
    before: &[Diagnostic],
    after: &[Diagnostic],
    maps: &HashMap<String, LineMap>,
) -> (Vec<Diagnostic>, usize) {
    let before = unique(before);
    let after = unique(after);
    let key = |d: &Diagnostic| {
        (
            d.file.clone(),
            d.severity,
            d.code.clone(),
            d.message.clone(),
        )
    };
    // The old diagnostics at their new lines (None: the line was edited).
    let mut old: Vec<(_, Option<usize>)> = before
        .iter()
        .map(|d| {
            let line = match maps.get(&d.file) {
                Some(map) => map.map(d.line),
                None => Some(d.line),
            };
            (key(d), line)
        })
        .collect();
    let mut matched = vec![false; after.len()];
    // First the same diagnostic at the line it moved to, then the same diagnostic anywhere.
    for exact in [true, false] {
        for (i, d) in after.iter().enumerate() {
            if matched[i] {
                continue;
            }
            let k = key(d);
            let found = old
                .iter()
                .position(|(ok, line)| *ok == k && (!exact || *line == Some(d.line)));
            if let Some(j) = found {
                old.swap_remove(j);
                matched[i] = true;
            }
        }
    }
    let preexisting = matched.iter().filter(|m| **m).count();
    let introduced = after
        .into_iter()
        .zip(matched)
        .filter(|(_, m)| !m)
        .map(|(d, _)| d)
        .collect();
    (introduced, preexisting)
}

/// The diagnostics without exact repeats (cargo reports a library's once per target).
fn unique(diagnostics: &[Diagnostic]) -> Vec<Diagnostic> {
    let mut seen = std::collections::HashSet::new();
    diagnostics
        .iter()
        .filter(|d| seen.insert((*d).clone()))
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{SourceFile, TextEdit};
    use crate::refactor::Severity;

    fn diag(file: &str, line: usize, code: &str, message: &str) -> Diagnostic {
        Diagnostic {
            file: file.to_string(),
            line,
            severity: Severity::Error,
            code: code.to_string(),
            message: message.to_string(),
            source: "test".to_string(),
        }
    }

    fn change(before: &str, edits: Vec<TextEdit>) -> FileChange {
        FileChange::modify(&SourceFile::from_text("a.rs", before), edits).unwrap()
    }

    #[test]
    fn lines_move_below_edits_and_edited_lines_have_no_place() {
        let before = "a\nb\nc\nd\ne\n";
        // Line 2 replaced by three lines; a line inserted before line 5.
        let c = change(
            before,
            vec![
                TextEdit::new(2..4, "x\ny\nz\n"),
                TextEdit::insert(8, "new\n"),
            ],
        );
        assert_eq!(c.after, "a\nx\ny\nz\nc\nd\nnew\ne\n");
        let map = LineMap::new(&c);
        assert_eq!(map.map(1), Some(1));
        assert_eq!(map.map(2), None);
        assert_eq!(map.map(3), Some(5));
        assert_eq!(map.map(4), Some(6));
        assert_eq!(map.map(5), Some(8));
        // An insertion inside a line touches that line.
        let c = change("abc\ndef\n", vec![TextEdit::insert(5, "X")]);
        let map = LineMap::new(&c);
        assert_eq!((map.map(1), map.map(2)), (Some(1), None));
        // Deleting lines moves what follows up.
        let c = change("a\nb\nc\nd\n", vec![TextEdit::delete(2..6)]);
        let map = LineMap::new(&c);
        assert_eq!((map.map(2), map.map(3), map.map(4)), (None, None, Some(2)));
    }

    #[test]
    fn only_new_diagnostics_are_introduced() {
        let before = "fn a() {}\nfn b() { x }\nfn c() {}\n";
        // Two lines inserted at the top: the old error moves from line 2 to 4.
        let c = change(before, vec![TextEdit::insert(0, "use y;\nfn d() { z }\n")]);
        let maps = line_maps(&[c]);
        let old = vec![
            diag("a.rs", 2, "E0425", "cannot find value `x` in this scope"),
            diag("b.rs", 7, "E0308", "mismatched types"),
        ];
        let new = vec![
            diag("a.rs", 2, "E0425", "cannot find value `z` in this scope"),
            diag("a.rs", 4, "E0425", "cannot find value `x` in this scope"),
            diag("a.rs", 4, "E0425", "cannot find value `x` in this scope"),
            diag("b.rs", 7, "E0308", "mismatched types"),
        ];
        let (found, preexisting) = introduced(&old, &new, &maps);
        assert_eq!(
            found,
            vec![diag(
                "a.rs",
                2,
                "E0425",
                "cannot find value `z` in this scope"
            )]
        );
        assert_eq!(preexisting, 2);
    }

    #[test]
    fn a_diagnostic_in_edited_lines_matches_by_its_text() {
        let c = change("a\nb\nc\n", vec![TextEdit::new(2..4, "b2\nb3\n")]);
        let maps = line_maps(&[c]);
        let old = vec![diag("a.rs", 2, "W1", "unused")];
        let new = vec![
            diag("a.rs", 3, "W1", "unused"),
            diag("a.rs", 3, "W1", "unused twice"),
        ];
        let (found, preexisting) = introduced(&old, &new, &maps);
        assert_eq!(found, vec![diag("a.rs", 3, "W1", "unused twice")]);
        assert_eq!(preexisting, 1);
        // The same message once more than before is one new diagnostic.
        let new = vec![
            diag("a.rs", 3, "W1", "unused"),
            diag("a.rs", 4, "W1", "unused"),
        ];
        let (found, _) = introduced(&old, &new, &maps);
        assert_eq!(found.len(), 1);
    }
}
