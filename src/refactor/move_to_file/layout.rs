//! Line-level text surgery for move to file: the whole lines an item occupies, removing them
//! without leaving a run of blank lines, placing a block in a file with a blank-line
//! separation, and converting indentation and line endings. Plain text in, ranges and strings
//! out; the syntax tree stays with the callers.

use std::ops::Range;

use crate::edit::TextEdit;
use crate::text::{IndentUnit, LineIndex};

/// Whether a line (with or without its terminator) holds nothing but whitespace.
pub(super) fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// The 0-based first and last line of `range`, when the range owns them: nothing but
/// whitespace before it on its first line, and nothing but whitespace or a comment after it on
/// its last line. `Err` carries the 1-based line shared with other code.
pub(super) fn owned_lines(
    text: &str,
    index: &LineIndex,
    range: &Range<usize>,
    comment_markers: &[&str],
) -> Result<(usize, usize), usize> {
    let first = index.line_of(range.start);
    let last = index.line_of(range.end.max(range.start + 1) - 1);
    let before = &text[index.line_start(first)..range.start];
    if !before.chars().all(|c| c == ' ' || c == '\t') {
        return Err(first + 1);
    }
    let line_end = index.line_range(text, last).end;
    let after = text
        .get(range.end..line_end.max(range.end))
        .unwrap_or("")
        .trim();
    let is_comment = comment_markers.iter().any(|m| after.starts_with(m));
    let open_block_comment = after.starts_with("/*") && !after.ends_with("*/");
    if !(after.is_empty() || is_comment) || open_block_comment {
        return Err(last + 1);
    }
    Ok((first, last))
}

/// Lines `first..=last` (0-based) as they are, each with its terminator; a last line without one
/// gets `\n` so the block always ends a line.
pub(super) fn lines_text(text: &str, index: &LineIndex, first: usize, last: usize) -> String {
    let mut block = text[index.line_start(first)..index.line_start(last + 1)].to_string();
    if !block.ends_with('\n') {
        block.push('\n');
    }
    block
}

/// Groups line spans (sorted, disjoint) whose gaps hold only blank lines, so that a group is
/// removed at once.
pub(super) fn merge_spans(
    text: &str,
    index: &LineIndex,
    spans: &[(usize, usize)],
) -> Vec<(usize, usize)> {
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for &(first, last) in spans {
        if let Some(previous) = merged.last_mut() {
            let gap_is_blank =
                (previous.1 + 1..first).all(|l| is_blank(&text[index.line_range(text, l)]));
            if gap_is_blank {
                previous.1 = previous.1.max(last);
                continue;
            }
        }
        merged.push((first, last));
    }
    merged
}

/// The bytes to delete to remove lines `first..=last` (0-based) without leaving a run of blank
/// lines: the gap left between the code above and below is the larger of the two gaps that
/// surrounded the lines; at the start or end of the file the surrounding blank lines go too. A
/// file that had no final newline keeps having none.
pub(super) fn removal_range(
    text: &str,
    index: &LineIndex,
    first: usize,
    last: usize,
) -> Range<usize> {
    let blank = |line: usize| is_blank(&text[index.line_range(text, line)]);
    let count = index.line_count();
    let mut above = 0;
    while first > above && blank(first - above - 1) {
        above += 1;
    }
    let mut below = 0;
    while last + below + 1 < count && blank(last + below + 1) {
        below += 1;
    }
    let content_above = first > above;
    let content_below = last + below + 1 < count;
    match (content_above, content_below) {
        (true, true) => index.line_start(first)..index.line_start(last + below.min(above) + 1),
        (false, true) => index.line_start(first - above)..index.line_start(last + below + 1),
        (true, false) => {
            let keep_last = first - above - 1;
            let start = if text.ends_with('\n') {
                index.line_start(keep_last + 1)
            } else {
                index.line_range(text, keep_last).end
            };
            start..text.len()
        }
        (false, false) => 0..text.len(),
    }
}

/// Where and how a block is added to an existing file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Placement {
    pub edit: TextEdit,
    /// Offset of the block's first byte in the file after the edit.
    pub block_start: usize,
}

/// Adds `block` (whole lines, ending with `line_ending`) to `text`: before the line starting at
/// `before` when given, else at the end. The block gets `separator` blank lines from the code
/// around it (counting the blank lines already there). At the end of a file without a final
/// newline the result has none either; a file with nothing but whitespace is replaced by the block.
pub(super) fn place_block(
    text: &str,
    block: &str,
    before: Option<usize>,
    separator: usize,
    line_ending: &str,
) -> Placement {
    if is_blank(text) {
        return Placement {
            edit: TextEdit::new(0..text.len(), block),
            block_start: 0,
        };
    }
    let index = LineIndex::new(text);
    let blank = |line: usize| is_blank(&text[index.line_range(text, line)]);
    match before {
        Some(at) => {
            let line = index.line_of(at);
            let mut above = 0;
            while line > above && blank(line - above - 1) {
                above += 1;
            }
            let lead = if line > above {
                separator.saturating_sub(above)
            } else {
                0
            };
            let mut new_text = line_ending.repeat(lead);
            new_text.push_str(block);
            new_text.push_str(&line_ending.repeat(separator));
            Placement {
                block_start: at + lead * line_ending.len(),
                edit: TextEdit::insert(at, new_text),
            }
        }
        None => {
            let count = index.line_count();
            let mut trailing = 0;
            while trailing < count && blank(count - trailing - 1) {
                trailing += 1;
            }
            let mut new_text = String::new();
            if !text.ends_with('\n') {
                new_text.push_str(line_ending);
            }
            new_text.push_str(&line_ending.repeat(separator.saturating_sub(trailing)));
            let block_start = text.len() + new_text.len();
            new_text.push_str(block);
            if !text.ends_with('\n') {
                let trimmed = new_text
                    .strip_suffix(line_ending)
                    .unwrap_or(&new_text)
                    .len();
                new_text.truncate(trimmed);
            }
            Placement {
                edit: TextEdit::insert(text.len(), new_text),
                block_start,
            }
        }
    }
}

/// `text` with every line break turned into `line_ending`.
pub(super) fn with_line_endings(text: &str, line_ending: &str) -> String {
    let normalized = text.replace("\r\n", "\n");
    if line_ending == "\n" {
        normalized
    } else {
        normalized.replace('\n', line_ending)
    }
}

/// Re-expresses the leading indentation of each line of `block` from unit `from` to unit `to`,
/// level for level (an alignment remainder is kept as spaces). Lines in `keep_rows` (0-based,
/// lines that start inside a multi-line string) and lines mixing tabs and spaces are left as
/// they are.
pub(super) fn convert_indentation(
    block: &str,
    from: IndentUnit,
    to: IndentUnit,
    keep_rows: &[usize],
) -> String {
    if from == to {
        return block.to_string();
    }
    let mut out = String::with_capacity(block.len());
    for (row, line) in block.split_inclusive('\n').enumerate() {
        let content = line.trim_start_matches([' ', '\t']);
        let leading = &line[..line.len() - content.len()];
        if keep_rows.contains(&row) || is_blank(line) || leading.is_empty() {
            out.push_str(line);
            continue;
        }
        let levels_and_rest = match from {
            IndentUnit::Tab => {
                let tabs = leading.len() - leading.trim_start_matches('\t').len();
                let rest = &leading[tabs..];
                rest.chars().all(|c| c == ' ').then_some((tabs, rest.len()))
            }
            IndentUnit::Spaces(width) => {
                let width = width.max(1);
                leading
                    .chars()
                    .all(|c| c == ' ')
                    .then_some((leading.len() / width, leading.len() % width))
            }
        };
        match levels_and_rest {
            Some((levels, rest)) => {
                out.push_str(&to.as_str().repeat(levels));
                out.push_str(&" ".repeat(rest));
                out.push_str(content);
            }
            None => out.push_str(line),
        }
    }
    out
}

/// Whether `text` has at least one indented line that is not blank (evidence of its indent unit).
pub(super) fn has_indented_line(text: &str) -> bool {
    text.lines()
        .any(|l| (l.starts_with(' ') || l.starts_with('\t')) && !is_blank(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remove(text: &str, first: usize, last: usize) -> String {
        let index = LineIndex::new(text);
        let range = removal_range(text, &index, first, last);
        format!("{}{}", &text[..range.start], &text[range.end..])
    }

    #[test]
    fn removal_keeps_the_larger_gap_between_neighbours() {
        let text = "import os\n\n\ndef a():\n    pass\n\n\ndef b():\n    pass\n";
        assert_eq!(remove(text, 3, 4), "import os\n\n\ndef b():\n    pass\n");
        let tight = "x = 1\ndef a():\n    pass\n\n\ny = 2\n";
        assert_eq!(remove(tight, 1, 2), "x = 1\n\n\ny = 2\n");
    }

    #[test]
    fn removal_at_the_edges_takes_the_blank_lines_along() {
        let text = "fn a() {}\n\nfn b() {}\n";
        assert_eq!(remove(text, 0, 0), "fn b() {}\n");
        assert_eq!(remove(text, 2, 2), "fn a() {}\n");
        assert_eq!(remove("fn a() {}\n\nfn b() {}", 2, 2), "fn a() {}");
        assert_eq!(remove("\nfn a() {}\n\n", 1, 1), "");
        assert_eq!(remove("a\r\n\r\nb\r\n\r\nc\r\n", 2, 2), "a\r\n\r\nc\r\n");
    }

    #[test]
    fn owned_lines_refuse_shared_lines() {
        let text = "struct A; struct B;\nfn f() {} // trailing\n";
        let index = LineIndex::new(text);
        assert_eq!(owned_lines(text, &index, &(0..9), &["//"]), Err(1));
        assert_eq!(owned_lines(text, &index, &(10..19), &["//"]), Err(1));
        assert_eq!(owned_lines(text, &index, &(20..29), &["//"]), Ok((1, 1)));
    }

    #[test]
    fn blocks_are_placed_with_separators() {
        let at_end = place_block(
            "def a():\n    pass\n",
            "def b():\n    pass\n",
            None,
            2,
            "\n",
        );
        assert_eq!(
            at_end.edit,
            TextEdit::insert(18, "\n\ndef b():\n    pass\n")
        );
        assert_eq!(at_end.block_start, 20);
        let no_newline = place_block("fn a() {}", "fn b() {}\n", None, 1, "\n");
        assert_eq!(no_newline.edit.new_text, "\n\nfn b() {}");
        let padded = place_block("fn a() {}\n\n\n", "fn b() {}\n", None, 1, "\n");
        assert_eq!(padded.edit.new_text, "fn b() {}\n");
        let guard = "def a():\n    pass\n\nif __name__ == \"__main__\":\n    a()\n";
        let before_guard = place_block(guard, "def b():\n    pass\n", Some(19), 2, "\n");
        assert_eq!(
            before_guard.edit,
            TextEdit::insert(19, "\ndef b():\n    pass\n\n\n")
        );
        assert_eq!(before_guard.block_start, 20);
        assert_eq!(
            place_block("\n \n", "x = 1\n", None, 2, "\n").edit,
            TextEdit::new(0..3, "x = 1\n")
        );
    }

    #[test]
    fn indentation_is_converted_level_for_level() {
        let block = "def f():\n\tif x:\n\t\treturn 1\n\ts = '''\n\tkept\n'''\n";
        assert_eq!(
            convert_indentation(block, IndentUnit::Tab, IndentUnit::Spaces(4), &[4, 5]),
            "def f():\n    if x:\n        return 1\n    s = '''\n\tkept\n'''\n"
        );
        assert_eq!(
            convert_indentation(
                "fn f() {\n    g(a,\n      b);\n}\n",
                IndentUnit::Spaces(4),
                IndentUnit::Spaces(2),
                &[]
            ),
            "fn f() {\n  g(a,\n    b);\n}\n"
        );
        assert_eq!(with_line_endings("a\r\nb\nc", "\r\n"), "a\r\nb\r\nc");
        assert_eq!(with_line_endings("a\r\nb\n", "\n"), "a\nb\n");
    }
}
