//! Plain-text facts about a source file: line offsets, 1-based line/column ↔ byte conversions
//! (characters and UTF-16), and the file's own conventions (indent unit, line ending, final
//! newline) that generated code must follow. Pure. The cutting and pasting of lines is
//! [`surgery`].

pub mod columns;
pub mod leb128;
pub mod normalize;
pub mod surgery;

use std::ops::Range;

/// Byte offsets of line starts, for 0-based line lookups.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineIndex {
    starts: Vec<usize>,
    len: usize,
}

impl LineIndex {
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0];
        starts.extend(memchr::memchr_iter(b'\n', text.as_bytes()).map(|i| i + 1));
        LineIndex {
            starts,
            len: text.len(),
        }
    }

    /// Number of lines; a final newline does not open a new line.
    pub fn line_count(&self) -> usize {
        if self.starts.len() > 1 && *self.starts.last().expect("non-empty") == self.len {
            self.starts.len() - 1
        } else {
            self.starts.len()
        }
    }

    /// 0-based line containing byte `offset`.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.starts.binary_search(&offset) {
            Ok(line) => line,
            Err(next) => next - 1,
        }
    }

    /// Byte offset where 0-based `line` starts (the text length past the end).
    pub fn line_start(&self, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(self.len)
    }

    /// The byte range of 0-based `line` including its line terminator.
    pub fn line_range_with_terminator(&self, line: usize) -> Range<usize> {
        self.line_start(line)..self.line_start(line + 1)
    }

    /// The byte range of 0-based `line` without its `\n` or `\r\n`.
    pub fn line_range(&self, text: &str, line: usize) -> Range<usize> {
        let range = self.line_range_with_terminator(line);
        let content = &text[range.clone()];
        let trimmed = content
            .strip_suffix('\n')
            .map(|c| c.strip_suffix('\r').unwrap_or(c))
            .unwrap_or(content);
        range.start..range.start + trimmed.len()
    }

    /// Byte offset of 1-based `line` and 1-based character `column`, if both exist.
    pub fn offset_of_line_column(&self, text: &str, line: usize, column: usize) -> Option<usize> {
        if line == 0 || column == 0 || line > self.line_count().max(1) {
            return None;
        }
        let range = self.line_range(text, line - 1);
        let content = &text[range.clone()];
        if column - 1 == content.chars().count() {
            return Some(range.end);
        }
        content
            .char_indices()
            .nth(column - 1)
            .map(|(i, _)| range.start + i)
    }

    /// 1-based line and 1-based character column of byte `offset`.
    pub fn line_column(&self, text: &str, offset: usize) -> (usize, usize) {
        let line = self.line_of(offset);
        let start = self.line_start(line);
        let column = text.get(start..offset).map_or(0, |s| s.chars().count());
        (line + 1, column + 1)
    }

    /// 0-based line and UTF-16 column (the LSP wire position) of byte `offset`.
    pub fn utf16_position(&self, text: &str, offset: usize) -> (u32, u32) {
        let line = self.line_of(offset);
        let start = self.line_start(line);
        let column: usize = text
            .get(start..offset)
            .map_or(0, |s| s.chars().map(char::len_utf16).sum());
        (line as u32, column as u32)
    }

    /// Byte offset of an LSP position (0-based line, UTF-16 column), clamped to the line's end
    /// as the LSP specification asks. `None` when the line does not exist.
    pub fn offset_of_utf16(&self, text: &str, line: u32, character: u32) -> Option<usize> {
        let line = line as usize;
        if line >= self.starts.len() {
            return if line == self.starts.len() && character == 0 {
                Some(self.len)
            } else {
                None
            };
        }
        let range = self.line_range(text, line);
        let mut units = 0u32;
        for (i, c) in text[range.clone()].char_indices() {
            if units >= character {
                return Some(range.start + i);
            }
            units += c.len_utf16() as u32;
        }
        Some(range.end)
    }
}

/// The unit one indentation level adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndentUnit {
    Tab,
    Spaces(usize),
}

impl IndentUnit {
    pub fn as_str(self) -> String {
        match self {
            IndentUnit::Tab => "\t".to_string(),
            IndentUnit::Spaces(n) => " ".repeat(n),
        }
    }
}

/// The conventions of a file that new code must keep.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TextStyle {
    pub indent: IndentUnit,
    /// `"\n"` or `"\r\n"`, whichever the file uses most.
    pub line_ending: &'static str,
    pub final_newline: bool,
}

impl TextStyle {
    /// Detects the file's conventions; an empty or flat file gets four spaces and `\n`.
    pub fn detect(text: &str) -> TextStyle {
        TextStyle {
            indent: detect_indent_unit(text),
            line_ending: line_ending(text),
            final_newline: text.is_empty() || text.ends_with('\n'),
        }
    }

    /// Rewrites every `\n` of generated `text` to this style's line ending.
    pub fn with_line_endings(&self, text: &str) -> String {
        surgery::with_line_endings(text, self.line_ending)
    }
}

/// The line ending a file uses most: `"\r\n"` or `"\n"` (the `line_ending` of
/// [`TextStyle::detect`], without looking at indentation).
pub fn line_ending(text: &str) -> &'static str {
    let bytes = text.as_bytes();
    let crlf = memchr::memmem::find_iter(bytes, b"\r\n").count();
    let lf = memchr::memchr_iter(b'\n', bytes).count() - crlf;
    if crlf > lf { "\r\n" } else { "\n" }
}

fn detect_indent_unit(text: &str) -> IndentUnit {
    let mut tabs = 0usize;
    let mut spaces = 0usize;
    // Histogram of increases in space indentation between consecutive code lines.
    let mut deltas = [0usize; 9];
    let mut previous = 0usize;
    let mut in_triple_string = false;
    for line in text.lines() {
        // Most lines hold no quote at all: no need to count triple quotes there.
        let quoted = memchr::memchr2(b'"', b'\'', line.as_bytes()).is_some();
        if quoted
            && (line.matches("\"\"\"").count() % 2 == 1 || line.matches("'''").count() % 2 == 1)
        {
            in_triple_string = !in_triple_string;
            continue;
        }
        if in_triple_string {
            continue;
        }
        let trimmed = line.trim_start_matches([' ', '\t']);
        if trimmed.trim().is_empty() || trimmed.starts_with('*') {
            continue;
        }
        let leading = &line[..line.len() - trimmed.len()];
        if leading.starts_with('\t') {
            tabs += 1;
            continue;
        }
        let width = leading.len();
        if width > 0 {
            spaces += 1;
        }
        if width > previous && width - previous <= 8 {
            deltas[width - previous] += 1;
        }
        previous = width;
    }
    if tabs > spaces {
        return IndentUnit::Tab;
    }
    let best = (1..=8)
        .max_by_key(|&d| (deltas[d], d == 4, d == 2))
        .unwrap_or(4);
    if deltas[best] == 0 {
        IndentUnit::Spaces(4)
    } else {
        IndentUnit::Spaces(best)
    }
}

/// Collapses every run of whitespace containing a line break to one space.
pub fn collapse_whitespace(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut run = String::new();
    for c in text.chars() {
        if c.is_whitespace() {
            run.push(c);
            continue;
        }
        if !run.is_empty() {
            out.push_str(if run.contains('\n') { " " } else { &run });
            run.clear();
        }
        out.push(c);
    }
    out
}

/// Columns of an indentation, a tab counting to the next multiple of 8 (as Python does).
pub fn indent_width(indent: &str) -> usize {
    indent
        .chars()
        .fold(0, |w, c| if c == '\t' { (w / 8 + 1) * 8 } else { w + 1 })
}

/// The leading spaces and tabs of the line containing byte `offset`.
pub fn indentation_at(text: &str, offset: usize) -> &str {
    let start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[start..];
    let end = line
        .find(|c: char| c != ' ' && c != '\t')
        .unwrap_or(line.len());
    &line[..end]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_positions() {
        let text = "ab\r\nçd\n\nlast";
        let index = LineIndex::new(text);
        assert_eq!(index.line_count(), 4);
        assert_eq!(index.line_range(text, 0), 0..2);
        assert_eq!(&text[index.line_range(text, 1)], "çd");
        assert_eq!(index.offset_of_line_column(text, 2, 2), Some(6));
        assert_eq!(index.line_column(text, 6), (2, 2));
        assert_eq!(index.offset_of_line_column(text, 9, 1), None);
        assert_eq!(LineIndex::new("a\nb\n").line_count(), 2);
        assert_eq!(LineIndex::new("").line_count(), 1);
    }

    #[test]
    fn utf16_round_trip() {
        let text = "x = \"😀é\"; y\n";
        let index = LineIndex::new(text);
        let y = text.find('y').unwrap();
        let (line, character) = index.utf16_position(text, y);
        assert_eq!((line, character), (0, 11));
        assert_eq!(index.offset_of_utf16(text, line, character), Some(y));
        assert_eq!(index.offset_of_utf16(text, 0, 999), Some(text.len() - 1));
        assert_eq!(index.offset_of_utf16(text, 1, 0), Some(text.len()));
        assert_eq!(index.offset_of_utf16(text, 5, 0), None);
    }

    #[test]
    fn styles_are_detected() {
        let two = "def f():\n  if x:\n    pass\n";
        assert_eq!(TextStyle::detect(two).indent, IndentUnit::Spaces(2));
        let tabs = "fn f() {\n\tlet x = 1;\n\tif x {\n\t\ty();\n\t}\n}";
        let style = TextStyle::detect(tabs);
        assert_eq!(style.indent, IndentUnit::Tab);
        assert!(!style.final_newline);
        let crlf = "fn f() {\r\n    x();\r\n}\r\n";
        let style = TextStyle::detect(crlf);
        assert_eq!(style.line_ending, "\r\n");
        assert_eq!(style.indent, IndentUnit::Spaces(4));
        assert_eq!(style.with_line_endings("a\nb\n"), "a\r\nb\r\n");
    }

    #[test]
    fn indentation_of_a_line() {
        assert_eq!(indentation_at("a\n  \tb", 5), "  \t");
    }
}
