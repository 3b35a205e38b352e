//! Columns of increasing offsets in one text, each character counted once: the 1-based
//! character column a finding or a reference reports, for a whole list of sites in order of
//! position, in time linear in the text (a site on a 4 MB line no longer scans back to the
//! line's start). Pure.

/// Answers [`Columns::column_of`] for offsets that mostly increase; an offset before the last
/// one starts again from the top of the text (still right, only slower).
#[derive(Debug, Clone)]
pub struct Columns<'t> {
    text: &'t str,
    /// The last offset asked about (on a character boundary, or clamped to one).
    offset: usize,
    /// The 0-based character column of `offset`.
    column: usize,
}

impl<'t> Columns<'t> {
    pub fn new(text: &'t str) -> Columns<'t> {
        Columns {
            text,
            offset: 0,
            column: 0,
        }
    }

    /// 1-based column in characters of byte `at` (clamped to the text; an offset inside a
    /// character counts the characters that start before it).
    pub fn column_of(&mut self, at: usize) -> usize {
        let at = at.min(self.text.len());
        if at < self.offset {
            self.offset = 0;
            self.column = 0;
        }
        let bytes = &self.text.as_bytes()[self.offset..at];
        match memchr::memrchr(b'\n', bytes) {
            Some(newline) => self.column = count_chars(&bytes[newline + 1..]),
            None => self.column += count_chars(bytes),
        }
        self.offset = at;
        self.column + 1
    }
}

/// Characters starting in `bytes` (UTF-8: every byte that is not a continuation byte).
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The column the slow way: characters between the line's start and `at`.
    fn reference(text: &str, at: usize) -> usize {
        let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        text[start..at].chars().count() + 1
    }

    #[test]
    fn columns_of_increasing_offsets_match_the_line_scan() {
        let text = "ab\né x\n\n  ünï cödé\nlast";
        let mut columns = Columns::new(text);
        let offsets: Vec<usize> = (0..=text.len())
            .filter(|&i| text.is_char_boundary(i))
            .collect();
        for &at in &offsets {
            assert_eq!(columns.column_of(at), reference(text, at), "offset {at}");
        }
        // Going back starts again from the top and stays right.
        for &at in offsets.iter().rev().step_by(3) {
            assert_eq!(columns.column_of(at), reference(text, at), "offset {at}");
        }
    }

    #[test]
    fn offsets_past_the_end_are_clamped() {
        let mut columns = Columns::new("x\nyz");
        assert_eq!(columns.column_of(99), 3);
    }
}
