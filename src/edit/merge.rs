//! Reverting a write on top of later edits: a three-way merge by lines. The refactor turned
//! `before` into `after`; the file now holds `current` (`after` with edits made since). The
//! inverse of the refactor's edits (`after` → `before`) is applied to `current` where the later
//! edits (`after` → `current`) do not overlap or touch it; where they do, nothing is merged and
//! the places are reported, as line ranges of the current file and of what candor wrote. Works
//! on bytes, line by line (a line keeps its own ending), so every byte outside the reverted
//! lines stays as it is. Pure.

use similar::{Algorithm, DiffOp, capture_diff_slices};

/// 1-based inclusive line ranges; an empty range (`first > last`) is a point between lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lines {
    pub first: usize,
    pub last: usize,
}

impl Lines {
    /// `line 4`, `lines 4–6`, `after line 3` (an insertion point).
    pub fn describe(&self) -> String {
        if self.first > self.last {
            if self.last == 0 {
                "at the top".to_string()
            } else {
                format!("after line {}", self.last)
            }
        } else if self.first == self.last {
            format!("line {}", self.first)
        } else {
            format!("lines {}\u{2013}{}", self.first, self.last)
        }
    }

    /// The 0-based half-open range as 1-based inclusive lines.
    fn of(start: usize, end: usize) -> Lines {
        Lines {
            first: start + 1,
            last: end,
        }
    }
}

/// A later edit that overlaps (or touches) lines the refactor wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// Where the later edit is in the file as it is now.
    pub current: Lines,
    /// The lines the refactor wrote that it overlaps or touches, in what candor wrote.
    pub written: Lines,
}

/// A successful revert: the content to write, and where the later edits kept in it are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reverted {
    pub bytes: Vec<u8>,
    /// The later edits kept, as line ranges of the file as it is now.
    pub kept: Vec<Lines>,
}

/// One changed region: `old` lines of `after` (0-based, half-open) replaced by `new` lines of
/// the other side.
#[derive(Debug, Clone, Copy)]
struct Hunk {
    old: (usize, usize),
    new: (usize, usize),
}

fn lines(bytes: &[u8]) -> Vec<&[u8]> {
    bytes.split_inclusive(|b| *b == b'\n').collect()
}

fn hunks(from: &[&[u8]], to: &[&[u8]]) -> Vec<Hunk> {
    capture_diff_slices(Algorithm::Myers, from, to)
        .into_iter()
        .filter_map(|op| match op {
            DiffOp::Equal { .. } => None,
            other => Some(Hunk {
                old: (other.old_range().start, other.old_range().end),
                new: (other.new_range().start, other.new_range().end),
            }),
        })
        .collect()
}

/// Whether two edits of the same lines of `after` overlap or touch: sharing a line, one inserting
/// inside or at an edge of the other, or sitting right next to each other. Only edits with a
/// line of untouched text between them merge without a question.
fn collide(a: (usize, usize), b: (usize, usize)) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

/// Applies the inverse of `before` → `after` to `current` (see the module doc).
pub fn revert(before: &[u8], after: &[u8], current: &[u8]) -> Result<Reverted, Vec<Conflict>> {
    let (before, after, current) = (lines(before), lines(after), lines(current));
    let undo = hunks(&after, &before);
    let later = hunks(&after, &current);
    let conflicts: Vec<Conflict> = later
        .iter()
        .flat_map(|l| {
            undo.iter()
                .filter(|u| collide(u.old, l.old))
                .map(|u| Conflict {
                    current: Lines::of(l.new.0, l.new.1),
                    written: Lines::of(u.old.0, u.old.1),
                })
        })
        .collect();
    if !conflicts.is_empty() {
        return Err(conflicts);
    }
    // Both sets of hunks are sorted and disjoint: walk `after`, taking each region from the
    // side that changed it.
    let mut all: Vec<(Hunk, &[&[u8]])> = undo
        .iter()
        .map(|h| (*h, before.as_slice()))
        .chain(later.iter().map(|h| (*h, current.as_slice())))
        .collect();
    all.sort_by_key(|(h, _)| (h.old.0, h.old.1));
    let mut out = Vec::new();
    let mut at = 0;
    for (hunk, side) in &all {
        for line in &after[at..hunk.old.0] {
            out.extend_from_slice(line);
        }
        for line in &side[hunk.new.0..hunk.new.1] {
            out.extend_from_slice(line);
        }
        at = hunk.old.1;
    }
    for line in &after[at..] {
        out.extend_from_slice(line);
    }
    Ok(Reverted {
        bytes: out,
        kept: later.iter().map(|h| Lines::of(h.new.0, h.new.1)).collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn a_later_edit_far_from_the_refactor_is_kept() {
        let before = numbered(20);
        let after = before.replace("line 3\n", "LINE THREE\nLINE 3b\n");
        let current = after.replace("line 18\n", "edited 18\n");
        let reverted = revert(before.as_bytes(), after.as_bytes(), current.as_bytes()).unwrap();
        assert_eq!(
            String::from_utf8(reverted.bytes).unwrap(),
            before.replace("line 18\n", "edited 18\n")
        );
        assert_eq!(
            reverted.kept,
            vec![Lines {
                first: 19,
                last: 19
            }]
        );
        assert_eq!(reverted.kept[0].describe(), "line 19");
    }

    #[test]
    fn an_edit_of_a_line_the_refactor_wrote_is_a_conflict() {
        let before = numbered(10);
        let after = before.replace("line 5\n", "new 5\nnew 5b\n");
        let current = after.replace("new 5b\n", "mine\n");
        let conflicts =
            revert(before.as_bytes(), after.as_bytes(), current.as_bytes()).unwrap_err();
        assert_eq!(
            conflicts,
            vec![Conflict {
                current: Lines { first: 6, last: 6 },
                written: Lines { first: 5, last: 6 },
            }]
        );
        assert_eq!(conflicts[0].written.describe(), "lines 5\u{2013}6");
    }

    #[test]
    fn an_edit_right_next_to_the_refactor_is_a_conflict() {
        let before = numbered(10);
        let after = before.replace("line 5\n", "new 5\n");
        let current = after.replace("line 6\n", "mine\n");
        assert!(revert(before.as_bytes(), after.as_bytes(), current.as_bytes()).is_err());
        // One untouched line between them: merged.
        let current = after.replace("line 7\n", "mine\n");
        let reverted = revert(before.as_bytes(), after.as_bytes(), current.as_bytes()).unwrap();
        assert_eq!(
            String::from_utf8(reverted.bytes).unwrap(),
            before.replace("line 7\n", "mine\n")
        );
    }

    #[test]
    fn insertions_and_removals_on_both_sides_keep_every_other_byte() {
        let before = "a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh";
        // The refactor removed `b`, the user then added a line after `f` and changed the last
        // line, which has no line break.
        let after = "a\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh";
        let current = "a\r\nc\r\nd\r\ne\r\nf\r\nnew\r\ng\r\nH";
        let reverted = revert(before.as_bytes(), after.as_bytes(), current.as_bytes()).unwrap();
        assert_eq!(
            String::from_utf8(reverted.bytes).unwrap(),
            "a\r\nb\r\nc\r\nd\r\ne\r\nf\r\nnew\r\ng\r\nH"
        );
    }

    #[test]
    fn nothing_edited_since_gives_the_content_before() {
        let before = numbered(5);
        let after = before.replace("line 2\n", "");
        let reverted = revert(before.as_bytes(), after.as_bytes(), after.as_bytes()).unwrap();
        assert_eq!(reverted.bytes, before.as_bytes());
        assert!(reverted.kept.is_empty());
    }
}
