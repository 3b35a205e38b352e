//! Text surgery, the one place every refactor cuts and pastes lines: which lines an item owns,
//! removing them under the two blank-line rules, placing a block with blank-line separation,
//! removing an item of a comma-separated list, cutting a range into lines (after small edits,
//! multi-line string contents marked verbatim), re-indenting (base indentation and indent
//! unit), and writing line endings. Plain text in, ranges and strings out: no syntax tree, no
//! language rules beyond the comment marker a caller passes.

use std::ops::Range;

use super::{IndentUnit, LineIndex};
use crate::edit::TextEdit;

// ---------------------------------------------------------------------------------------------
// Lines

/// Whether a line (with or without its terminator) holds nothing but whitespace.
pub fn is_blank(line: &str) -> bool {
    line.trim().is_empty()
}

/// Start of the line containing `offset`.
pub fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |i| i + 1)
}

/// End of the line containing `offset`, after its `\n` (or the end of the text).
pub fn line_end_with_newline(text: &str, offset: usize) -> usize {
    text[offset..]
        .find('\n')
        .map_or(text.len(), |i| offset + i + 1)
}

/// End of the content of the line containing `offset`: before its `\r\n` or `\n`.
pub fn line_content_end(text: &str, offset: usize) -> usize {
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    if end > offset && text.as_bytes()[end - 1] == b'\r' {
        end - 1
    } else {
        end
    }
}

/// Whether only spaces and tabs precede `offset` on its line.
pub fn starts_its_line(text: &str, offset: usize) -> bool {
    text[line_start(text, offset)..offset]
        .chars()
        .all(|c| c == ' ' || c == '\t')
}

/// Whether only whitespace, or whitespace and a line comment starting with `comment`, follows
/// `offset` on its line.
pub fn ends_its_line(text: &str, offset: usize, comment: &str) -> bool {
    let end = text[offset..].find('\n').map_or(text.len(), |i| offset + i);
    let rest = text[offset..end].trim();
    rest.is_empty() || rest.starts_with(comment)
}

/// Whether `text` has at least one indented line that is not blank (evidence of its indent unit).
pub fn has_indented_line(text: &str) -> bool {
    text.lines()
        .any(|l| (l.starts_with(' ') || l.starts_with('\t')) && !is_blank(l))
}

/// The 0-based first and last line of `range`, when the range owns them: nothing but
/// whitespace before it on its first line, and nothing but whitespace or a comment (one of
/// `comment_markers`) after it on its last line. `Err` carries the 1-based line shared with
/// other code.
pub fn owned_lines(
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
pub fn lines_text(text: &str, index: &LineIndex, first: usize, last: usize) -> String {
    let mut block = text[index.line_start(first)..index.line_start(last + 1)].to_string();
    if !block.ends_with('\n') {
        block.push('\n');
    }
    block
}

/// Groups line spans (sorted, disjoint) whose gaps hold only blank lines, so that a group is
/// removed at once.
pub fn merge_spans(text: &str, index: &LineIndex, spans: &[(usize, usize)]) -> Vec<(usize, usize)> {
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

// ---------------------------------------------------------------------------------------------
// Removing lines: the two blank-line rules

/// The bytes to delete to remove lines `first..=last` (0-based) without leaving a run of blank
/// lines: the gap left between the code above and below is the larger of the two gaps that
/// surrounded the lines (the rule of move to file, where items leave a file); at the start or
/// end of the file the surrounding blank lines go too. A file that had no final newline keeps
/// having none.
pub fn removal_range(text: &str, index: &LineIndex, first: usize, last: usize) -> Range<usize> {
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

/// Removes `range` (an item with its docs and attributes) as whole lines when it owns them,
/// together with the blank lines that separated it from its neighbours on one side, so the
/// spacing between the items that remain stays what it was (the rule of inline, where a
/// definition or an import goes and its neighbours stay). `last_in_container` says that nothing
/// but the container's end follows the item: then the blank lines above it go. `comment` is the
/// line-comment marker, so a comment trailing the item's last line goes too. A range that shares
/// a line with other code is deleted alone.
pub fn remove_item_lines(
    text: &str,
    range: Range<usize>,
    last_in_container: bool,
    comment: &str,
) -> TextEdit {
    if !starts_its_line(text, range.start) || !ends_its_line(text, range.end, comment) {
        return TextEdit::delete(range);
    }
    let start = line_start(text, range.start);
    let end = line_end_with_newline(text, range.end);
    // Blank lines below the item.
    let mut below_end = end;
    while below_end < text.len() {
        let next = line_end_with_newline(text, below_end);
        if !is_blank(&text[below_end..next]) {
            break;
        }
        below_end = next;
    }
    let nothing_follows = below_end >= text.len();
    // Blank lines above the item.
    let mut above_start = start;
    while above_start > 0 {
        let previous = line_start(text, above_start - 1);
        if !is_blank(&text[previous..above_start]) {
            break;
        }
        above_start = previous;
    }
    if nothing_follows {
        // The end of the file: drop everything from the end of the last kept line, keeping
        // the file's final-newline convention.
        if above_start == 0 {
            return TextEdit::delete(0..text.len());
        }
        let cut = if text.ends_with('\n') {
            above_start
        } else {
            // The kept last line loses its terminator, as the original last line had none.
            let before = above_start - 1;
            if before > 0 && text.as_bytes()[before - 1] == b'\r' {
                before - 1
            } else {
                before
            }
        };
        return TextEdit::delete(cut..text.len());
    }
    if last_in_container && above_start > 0 {
        TextEdit::delete(above_start..end)
    } else if start == 0 || above_start < start || opens_a_block(&text[..start]) {
        // Blank lines (or the start of the file or block) above stay as the separator; those
        // below go.
        TextEdit::delete(start..below_end)
    } else {
        // Directly under the previous line: the blank lines below are the separator now.
        TextEdit::delete(start..end)
    }
}

/// Whether the last line of `before` opens a block (`impl A {`, `class A:`).
fn opens_a_block(before: &str) -> bool {
    before.trim_end().ends_with(['{', ':', '(', '['])
}

/// Removes the whole line(s) of a statement that owns them (with one line terminator), or the
/// statement alone when it shares its lines; `comment` is the line-comment marker.
pub fn remove_statement(text: &str, range: Range<usize>, comment: &str) -> TextEdit {
    if starts_its_line(text, range.start) && ends_its_line(text, range.end, comment) {
        TextEdit::delete(line_start(text, range.start)..line_end_with_newline(text, range.end))
    } else {
        TextEdit::delete(range)
    }
}

/// Removes item `index` of a comma-separated list whose items are at `items` (byte ranges);
/// `None` when the list has only that item (the caller removes the whole statement).
pub fn remove_list_item(items: &[Range<usize>], index: usize) -> Option<TextEdit> {
    if items.len() < 2 {
        return None;
    }
    let item = items.get(index)?;
    match (
        items.get(index + 1),
        index.checked_sub(1).and_then(|i| items.get(i)),
    ) {
        (Some(next), _) => Some(TextEdit::delete(item.start..next.start)),
        (None, Some(previous)) => Some(TextEdit::delete(previous.end..item.end)),
        (None, None) => None,
    }
}

/// Removes the items `indices` of a comma-separated list whose items are at `items` (byte
/// ranges), each run of neighbours at once (with the commas between them); `None` when every
/// item goes (the caller removes the whole statement).
pub fn remove_list_items(items: &[Range<usize>], indices: &[usize]) -> Option<Vec<TextEdit>> {
    let mut gone: Vec<usize> = indices
        .iter()
        .copied()
        .filter(|i| *i < items.len())
        .collect();
    gone.sort_unstable();
    gone.dedup();
    if gone.len() >= items.len() {
        return None;
    }
    let mut edits = Vec::new();
    let mut i = 0;
    while i < gone.len() {
        let first = gone[i];
        let mut last = first;
        while i + 1 < gone.len() && gone[i + 1] == last + 1 {
            i += 1;
            last = gone[i];
        }
        edits.push(match items.get(last + 1) {
            Some(next) => TextEdit::delete(items[first].start..next.start),
            // The run ends the list: a kept item comes before it.
            None => TextEdit::delete(items[first - 1].end..items[last].end),
        });
        i += 1;
    }
    Some(edits)
}

// ---------------------------------------------------------------------------------------------
// Placing a block

/// Where and how a block is added to an existing file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    pub edit: TextEdit,
    /// Offset of the block's first byte in the file after the edit.
    pub block_start: usize,
}

/// Adds `block` (whole lines, ending with `line_ending`) to `text`: before the line starting at
/// `before` when given, else at the end. The block gets `separator` blank lines from the code
/// around it (counting the blank lines already there). At the end of a file without a final
/// newline the result has none either; a file with nothing but whitespace is replaced by the block.
pub fn place_block(
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

/// Counts the blank lines from the line starting at `at` on, skipping lines inside `removals`,
/// up to the next line with code; returns the count and that line's start.
pub fn blank_lines_from(
    text: &str,
    at: usize,
    removals: &[Range<usize>],
) -> (usize, Option<usize>) {
    let index = LineIndex::new(text);
    let mut blanks = 0;
    let mut line = index.line_of(at.min(text.len()));
    while line < index.line_count() {
        let start = index.line_start(line);
        if start >= text.len() {
            break;
        }
        if !removals.iter().any(|r| r.contains(&start)) {
            if !is_blank(&text[index.line_range(text, line)]) {
                return (blanks, Some(start));
            }
            blanks += 1;
        }
        line += 1;
    }
    (blanks, None)
}

/// The blank lines right above `at` (a line start).
pub fn blank_lines_above(text: &str, at: usize) -> usize {
    text[..at]
        .split_inclusive('\n')
        .rev()
        .take_while(|line| line.trim().is_empty())
        .count()
}

// ---------------------------------------------------------------------------------------------
// Line endings

/// `text` with every line break written as `line_ending` (`\r\n` and `\n` alike).
pub fn with_line_endings(text: &str, line_ending: &str) -> String {
    let normalized = text.replace("\r\n", "\n");
    if line_ending == "\n" {
        normalized
    } else {
        normalized.replace('\n', line_ending)
    }
}

// ---------------------------------------------------------------------------------------------
// Cutting a range into lines

/// One line of a range of code, split into its indentation and the rest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// Leading spaces and tabs as written in the source (empty for a verbatim line).
    pub indent: String,
    /// The rest of the line, without its line terminator.
    pub content: String,
    /// The line starts inside a multi-line string literal: never re-indented.
    pub verbatim: bool,
}

/// An edit of the source text, in bytes of the whole file (must lie inside the cut range).
pub type Splice = (Range<usize>, String);

/// The lines of `text[range]` after `splices`, with the lines that start inside one of the
/// `protected` ranges (multi-line strings, byte ranges of the whole file) marked verbatim.
/// The first line's indentation is the whitespace before `range.start` on its line when there
/// is nothing else there, and `None` otherwise (code written after something on its line).
pub fn cut_lines(
    text: &str,
    range: Range<usize>,
    splices: &[Splice],
    protected: &[Range<usize>],
) -> (Vec<Line>, Option<String>) {
    let mut splices: Vec<&Splice> = splices
        .iter()
        .filter(|(r, _)| r.start >= range.start && r.end <= range.end)
        .collect();
    splices.sort_by_key(|(r, _)| (r.start, r.end));
    // Pieces of the edited text: (text, original offset of its first byte when it is original).
    let mut pieces: Vec<(&str, Option<usize>)> = Vec::new();
    let mut cursor = range.start;
    for (r, new_text) in splices {
        if r.start < cursor {
            continue; // overlapping splices are a caller bug; keep the first
        }
        pieces.push((&text[cursor..r.start], Some(cursor)));
        pieces.push((new_text.as_str(), None));
        cursor = r.end;
    }
    pieces.push((&text[cursor..range.end], Some(cursor)));

    let in_protected = |offset: usize| protected.iter().any(|p| p.start < offset && offset < p.end);
    let mut lines = Vec::new();
    let mut current = String::new();
    let mut current_verbatim = false;
    for (piece, origin) in pieces {
        let mut local = 0;
        for part in piece.split_inclusive('\n') {
            current.push_str(part);
            local += part.len();
            if part.ends_with('\n') {
                lines.push((std::mem::take(&mut current), current_verbatim));
                current_verbatim = origin.is_some_and(|o| in_protected(o + local));
            }
        }
    }
    lines.push((current, current_verbatim));

    let first_indent = {
        let before = &text[line_start(text, range.start)..range.start];
        before
            .chars()
            .all(|c| c == ' ' || c == '\t')
            .then(|| before.to_string())
    };
    let lines = lines
        .into_iter()
        .enumerate()
        .map(|(i, (raw, verbatim))| {
            let raw = raw.strip_suffix('\n').unwrap_or(&raw);
            let raw = raw.strip_suffix('\r').unwrap_or(raw);
            if verbatim {
                Line {
                    indent: String::new(),
                    content: raw.to_string(),
                    verbatim: true,
                }
            } else if i == 0 {
                Line {
                    indent: first_indent.clone().unwrap_or_default(),
                    content: raw.to_string(),
                    verbatim: false,
                }
            } else {
                let content = raw.trim_start_matches([' ', '\t']);
                Line {
                    indent: raw[..raw.len() - content.len()].to_string(),
                    content: content.to_string(),
                    verbatim: false,
                }
            }
        })
        .collect();
    (lines, first_indent)
}

/// The base indentation of cut lines: the first line's when known, else the smallest
/// indentation of the other code lines.
pub fn base_indent(lines: &[Line], first_indent: Option<&str>) -> String {
    if let Some(first) = first_indent {
        return first.to_string();
    }
    lines
        .iter()
        .skip(1)
        .filter(|l| !l.verbatim && !l.content.trim().is_empty())
        .map(|l| l.indent.as_str())
        .min_by_key(|i| i.len())
        .unwrap_or("")
        .to_string()
}

// ---------------------------------------------------------------------------------------------
// Re-indenting

/// How lines move from one indentation to another: the base indentation they share becomes
/// `to`, and each level beyond it is re-expressed from `from_unit` to `to_unit` (what does not
/// make a whole level, alignment spaces, is kept).
#[derive(Debug, Clone, Copy)]
pub struct Reindent<'a> {
    /// The indentation the lines share; a line that does not start with it loses all its
    /// leading whitespace.
    pub base: &'a str,
    /// What the base becomes.
    pub to: &'a str,
    /// The indent unit of the file the lines come from.
    pub from_unit: IndentUnit,
    /// The indent unit of the destination.
    pub to_unit: IndentUnit,
}

impl Reindent<'_> {
    /// A move between files that keeps the base: only the unit changes.
    pub fn units(from_unit: IndentUnit, to_unit: IndentUnit) -> Reindent<'static> {
        Reindent {
            base: "",
            to: "",
            from_unit,
            to_unit,
        }
    }

    /// The new indentation of a line indented with `indent`.
    pub fn indentation(&self, indent: &str) -> String {
        let relative = indent.strip_prefix(self.base).unwrap_or("");
        format!(
            "{}{}",
            self.to,
            convert_indent(relative, self.from_unit, self.to_unit)
        )
    }

    /// `lines` re-indented, without terminators: blank lines become empty, verbatim lines stay
    /// as they are, trailing whitespace goes.
    pub fn lines(&self, lines: &[Line]) -> Vec<String> {
        lines
            .iter()
            .map(|line| {
                if line.verbatim {
                    return line.content.clone();
                }
                if line.content.trim().is_empty() {
                    return String::new();
                }
                format!(
                    "{}{}",
                    self.indentation(&line.indent),
                    line.content.trim_end()
                )
            })
            .collect()
    }

    /// A block of whole lines re-indented, terminators and trailing whitespace kept: blank
    /// lines keep only their terminator; lines in `keep_lines` (0-based, relative to the block:
    /// lines that start inside a multi-line string) are kept as they are.
    pub fn block(&self, block: &str, keep_lines: &[usize]) -> String {
        let mut out = String::with_capacity(block.len());
        for (i, line) in block.split_inclusive('\n').enumerate() {
            if keep_lines.contains(&i) {
                out.push_str(line);
                continue;
            }
            let content = line.trim_end_matches(['\n', '\r']);
            if content.trim().is_empty() {
                out.push_str(&line[content.len()..]);
                continue;
            }
            let code = content.trim_start_matches([' ', '\t']);
            out.push_str(&self.indentation(&content[..content.len() - code.len()]));
            out.push_str(code);
            out.push_str(&line[content.len()..]);
        }
        out
    }

    /// [`Reindent::block`] for a unit change only, leaving alone what it cannot convert level
    /// for level: blank lines, lines in `keep_lines`, and lines whose indentation mixes tabs and
    /// spaces against the source unit.
    pub fn block_strict(&self, block: &str, keep_lines: &[usize]) -> String {
        if self.from_unit == self.to_unit {
            return block.to_string();
        }
        let mut keep: Vec<usize> = keep_lines.to_vec();
        for (row, line) in block.split_inclusive('\n').enumerate() {
            let content = line.trim_start_matches([' ', '\t']);
            let leading = &line[..line.len() - content.len()];
            let mixed = match self.from_unit {
                IndentUnit::Tab => !leading.trim_start_matches('\t').chars().all(|c| c == ' '),
                IndentUnit::Spaces(_) => !leading.chars().all(|c| c == ' '),
            };
            if is_blank(line) || leading.is_empty() || mixed {
                keep.push(row);
            }
        }
        self.block(block, &keep)
    }
}

/// Re-expresses relative indentation written in `from` units in `to` units; what does not make
/// a whole unit (alignment spaces) is kept.
pub fn convert_indent(relative: &str, from: IndentUnit, to: IndentUnit) -> String {
    if from == to {
        return relative.to_string();
    }
    let mut levels = 0usize;
    let mut rest = relative;
    loop {
        if let Some(r) = rest.strip_prefix('\t') {
            levels += 1;
            rest = r;
            continue;
        }
        if let IndentUnit::Spaces(n) = from
            && n > 0
            && rest.len() >= n
            && rest.as_bytes()[..n].iter().all(|b| *b == b' ')
        {
            levels += 1;
            rest = &rest[n..];
            continue;
        }
        break;
    }
    format!("{}{}", to.as_str().repeat(levels), rest)
}

#[cfg(test)]
mod tests;
