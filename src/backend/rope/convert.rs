//! rope's answers in candor's terms. rope reads a file with its line endings turned into `\n`
//! (and a byte order mark as U+FEFF); its new contents are in those terms too. The edits of a
//! line diff between rope's before and after are mapped back onto the file as candor read it,
//! and inserted lines get the file's own line ending, so every byte outside the changed lines
//! stays as it was. Offsets the other way (candor's byte offset → rope's character offset) are
//! here too. Pure.

use std::ops::Range;

use crate::backend::lsp::minimal_edits;
use crate::edit::{SourceFile, TextEdit};

/// The text as rope sees it: `\r\n` and a lone `\r` become `\n`.
pub fn rope_text(text: &str) -> String {
    text.replace("\r\n", "\n").replace('\r', "\n")
}

/// rope's character offset of candor's byte `offset` in `file`.
pub fn rope_offset(file: &SourceFile, offset: usize) -> usize {
    let before = &file.text[..offset.min(file.text.len())];
    usize::from(file.bom) + before.chars().count() - before.matches("\r\n").count()
}

/// Strips the U+FEFF rope keeps at the start of a file with a byte order mark.
pub fn without_bom(file: &SourceFile, text: &str) -> String {
    match text.strip_prefix('\u{feff}') {
        Some(rest) if file.bom => rest.to_string(),
        _ => text.to_string(),
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConvertError {
    #[error(
        "rope read {path} differently from candor (an encoding declaration other than UTF-8?); candor cannot map its changes onto the file"
    )]
    Mismatch { path: String },
}

/// The edits, in `file`'s own offsets, that turn it into rope's `after`, given that rope read
/// it as `before`.
pub fn edits_onto(
    file: &SourceFile,
    before: &str,
    after: &str,
) -> Result<Vec<TextEdit>, ConvertError> {
    let before = without_bom(file, before);
    let after = without_bom(file, after);
    if rope_text(&file.text) != before {
        return Err(ConvertError::Mismatch {
            path: file.path.clone(),
        });
    }
    let line_ending = crate::text::line_ending(&file.text);
    let map = OffsetMap::new(&file.text);
    Ok(minimal_edits(&before, &after)
        .into_iter()
        .map(|edit| {
            let Range { start, end } = edit.range;
            let text = if line_ending == "\n" {
                edit.new_text
            } else {
                edit.new_text.replace('\n', line_ending)
            };
            TextEdit::new(map.original(start)..map.original(end), text)
        })
        .collect())
}

/// The text of a file rope creates, with the line ending of `like` (the file it came from).
pub fn created_text(after: &str, like: &str) -> String {
    let line_ending = crate::text::line_ending(like);
    let after = after.strip_prefix('\u{feff}').unwrap_or(after);
    if line_ending == "\n" {
        after.to_string()
    } else {
        after.replace('\n', line_ending)
    }
}

/// candor's byte offset in `file` of rope's character offset `at` (the inverse of
/// [`rope_offset`]); `None` past the end or inside a `\r\n`.
pub fn byte_offset(file: &SourceFile, at: usize) -> Option<usize> {
    let mut count = usize::from(file.bom);
    let mut chars = file.text.char_indices().peekable();
    while let Some((byte, c)) = chars.next() {
        if count == at {
            return Some(byte);
        }
        let crlf = c == '\r' && chars.peek().is_some_and(|(_, next)| *next == '\n');
        if !crlf {
            count += 1;
        }
    }
    (count == at).then_some(file.text.len())
}

/// Maps byte offsets of [`rope_text`]`(text)` to byte offsets of `text`.
pub struct OffsetMap {
    /// Byte offsets in rope's text of each `\n` that was a `\r\n`, in order.
    crlf_at: Vec<usize>,
}

impl OffsetMap {
    pub fn new(text: &str) -> OffsetMap {
        let crlf_at = memchr::memmem::find_iter(text.as_bytes(), b"\r\n")
            .enumerate()
            .map(|(removed, at)| at - removed)
            .collect();
        OffsetMap { crlf_at }
    }

    /// Every `\r` dropped before `offset` moves it one byte right; an offset right at a `\n`
    /// that was `\r\n` lands on the `\r`.
    pub fn original(&self, offset: usize) -> usize {
        offset + self.crlf_at.partition_point(|&at| at < offset)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit;

    fn file(bytes: &[u8]) -> SourceFile {
        SourceFile::from_bytes("a.py", bytes).unwrap()
    }

    fn apply(file: &SourceFile, before: &str, after: &str) -> String {
        let edits = edits_onto(file, before, after).unwrap();
        let edits = edit::validate(&file.text, edits).unwrap();
        edit::apply(&file.text, &edits)
    }

    #[test]
    fn crlf_files_keep_their_untouched_lines_byte_for_byte() {
        let f = file(b"import a\r\n\r\ndef f(x, y):\r\n    return a.g(x, y)  # note\r\n");
        let rope_before = "import a\n\ndef f(x, y):\n    return a.g(x, y)  # note\n";
        let rope_after = "import b\n\ndef f(x, y):\n    return b.g(x)  # note\n    # added\n";
        assert_eq!(rope_text(&f.text), rope_before);
        assert_eq!(
            apply(&f, rope_before, rope_after),
            "import b\r\n\r\ndef f(x, y):\r\n    return b.g(x)  # note\r\n    # added\r\n"
        );
    }

    #[test]
    fn mixed_line_endings_change_only_the_edited_lines() {
        let f = file(b"a = 1\r\nb = 2\nc = 3\r\n");
        let after = apply(&f, "a = 1\nb = 2\nc = 3\n", "a = 1\nb = 20\nc = 3\n");
        // Only line 2 was replaced (with the file's dominant ending); lines 1 and 3 are intact.
        assert_eq!(after, "a = 1\r\nb = 20\r\nc = 3\r\n");
        let f = file(b"a = 1\nb = 2\r\nc = 3\n");
        assert_eq!(
            apply(&f, "a = 1\nb = 2\nc = 3\n", "a = 10\nb = 2\nc = 3\n"),
            "a = 10\nb = 2\r\nc = 3\n"
        );
    }

    #[test]
    fn a_byte_order_mark_is_kept_out_of_the_edits() {
        let f = file(b"\xef\xbb\xbfx = 1\n");
        assert_eq!(apply(&f, "\u{feff}x = 1\n", "\u{feff}x = 2\n"), "x = 2\n");
        assert!(f.bom);
        assert_eq!(rope_offset(&f, 0), 1);
    }

    #[test]
    fn rope_offsets_count_characters_without_carriage_returns() {
        let f = file("é = 1\r\ndef g():\r\n    pass\r\n".as_bytes());
        let at = f.text.find("g()").unwrap();
        let rope = rope_text(&f.text);
        let chars: Vec<char> = rope.chars().collect();
        let offset = rope_offset(&f, at);
        assert_eq!(chars[offset], 'g');
        assert_eq!(chars[offset + 1], '(');
    }

    #[test]
    fn rope_character_offsets_map_back_to_bytes() {
        let f = file("\u{feff}é = 1\r\ndef g():\r\n    pass\r\n".as_bytes());
        for (at, _) in f.text.char_indices().filter(|(_, c)| c.is_alphanumeric()) {
            assert_eq!(byte_offset(&f, rope_offset(&f, at)), Some(at), "{at}");
        }
        assert_eq!(byte_offset(&f, 10_000), None);
    }

    #[test]
    fn a_different_reading_is_refused() {
        let f = file(b"x = 'caf\xc3\xa9'\n");
        let err = edits_onto(&f, "x = 'cafÃ©'\n", "y = 1\n").unwrap_err();
        assert!(matches!(err, ConvertError::Mismatch { .. }));
    }

    #[test]
    fn created_files_take_the_line_ending_of_their_origin() {
        assert_eq!(
            created_text("def f():\n    pass\n", "a\r\nb\r\n"),
            "def f():\r\n    pass\r\n"
        );
        assert_eq!(created_text("x\n", "a\n"), "x\n");
    }
}
