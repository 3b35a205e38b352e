//! Cursor motions over a document's lines, in characters: words (as vim's `w` and `b` see them),
//! display columns (tabs are 4 wide, wide characters 2), and search matches (smart case: a
//! query with a capital letter matches case, one without does not). Pure.

use ratatui::text::Span;

use super::document::Document;

/// How many columns a character takes on screen.
pub fn char_width(c: char) -> usize {
    if c == '\t' {
        return 4;
    }
    let mut buffer = [0u8; 4];
    Span::raw(&*c.encode_utf8(&mut buffer)).width()
}

/// The characters of 0-based `line`.
pub fn line_len(doc: &Document, line: usize) -> usize {
    doc.line(line).chars().count()
}

/// The last column the cursor can be on in `line` (its last character; 0 when empty).
pub fn last_col(doc: &Document, line: usize) -> usize {
    line_len(doc, line).saturating_sub(1)
}

/// The display column where character `col` of `line` starts.
pub fn display_col(doc: &Document, line: usize, col: usize) -> usize {
    doc.line(line).chars().take(col).map(char_width).sum()
}

/// The character of `line` shown at display column `x` (the last one when `x` is past the end).
pub fn col_at_display(doc: &Document, line: usize, x: usize) -> usize {
    let mut at = 0;
    for (i, c) in doc.line(line).chars().enumerate() {
        at += char_width(c);
        if at > x {
            return i;
        }
    }
    last_col(doc, line)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Blank,
    Word,
    Punctuation,
}

fn class(c: char) -> Class {
    if c.is_whitespace() {
        Class::Blank
    } else if c == '_' || c.is_alphanumeric() {
        Class::Word
    } else {
        Class::Punctuation
    }
}

/// The start of the next word after (`line`, `col`), across lines (vim's `w`); an empty line
/// counts as a word.
pub fn next_word(doc: &Document, line: usize, col: usize) -> (usize, usize) {
    let last_line = doc.line_count().saturating_sub(1);
    let chars: Vec<char> = doc.line(line).chars().collect();
    let mut i = col.min(chars.len());
    if let Some(&c) = chars.get(i) {
        let start = class(c);
        while i < chars.len() && class(chars[i]) == start && start != Class::Blank {
            i += 1;
        }
    }
    while i < chars.len() && class(chars[i]) == Class::Blank {
        i += 1;
    }
    if i < chars.len() {
        return (line, i);
    }
    let mut next = line + 1;
    while next <= last_line {
        let chars: Vec<char> = doc.line(next).chars().collect();
        if chars.is_empty() {
            return (next, 0);
        }
        if let Some(i) = chars.iter().position(|c| class(*c) != Class::Blank) {
            return (next, i);
        }
        next += 1;
    }
    (last_line, last_col(doc, last_line))
}

/// The start of the word before (`line`, `col`), across lines (vim's `b`).
pub fn previous_word(doc: &Document, line: usize, col: usize) -> (usize, usize) {
    let mut line = line;
    let mut chars: Vec<char> = doc.line(line).chars().collect();
    let mut i = col.min(chars.len());
    loop {
        // Back over blanks, to the previous line when the start is reached.
        while i > 0 && class(chars[i - 1]) == Class::Blank {
            i -= 1;
        }
        if i > 0 {
            break;
        }
        if line == 0 {
            return (0, 0);
        }
        line -= 1;
        chars = doc.line(line).chars().collect();
        i = chars.len();
        if chars.is_empty() {
            return (line, 0);
        }
    }
    let kind = class(chars[i - 1]);
    while i > 0 && class(chars[i - 1]) == kind {
        i -= 1;
    }
    (line, i)
}

/// The first match of `query` after (`line`, `col`) going `forward` (or before it going back),
/// wrapping around the file; also whether it wrapped. `None` when there is no match at all.
pub fn find(
    doc: &Document,
    query: &str,
    line: usize,
    col: usize,
    forward: bool,
) -> Option<((usize, usize), bool)> {
    if query.is_empty() {
        return None;
    }
    let smart_case = query.chars().any(char::is_uppercase);
    let needle = if smart_case {
        query.to_string()
    } else {
        query.to_lowercase()
    };
    let matches_in = |index: usize| -> Vec<usize> {
        let text = doc.line(index);
        let hay = if smart_case {
            text.to_string()
        } else {
            text.to_lowercase()
        };
        // Lower-casing can change byte lengths: map back through character counts of `hay`.
        hay.match_indices(&needle)
            .map(|(at, _)| hay[..at].chars().count())
            .collect()
    };
    let count = doc.line_count();
    for step in 0..=count {
        let index = if forward {
            (line + step) % count
        } else {
            (line + count - step % count) % count
        };
        let found = matches_in(index);
        let pick = match (step, forward) {
            (0, true) => found.into_iter().find(|&c| c > col),
            (0, false) => found.into_iter().rev().find(|&c| c < col),
            (s, true) if s == count => found.into_iter().find(|&c| c <= col),
            (s, false) if s == count => found.into_iter().rev().find(|&c| c >= col),
            (_, true) => found.into_iter().next(),
            (_, false) => found.into_iter().last(),
        };
        if let Some(c) = pick {
            let wrapped = if forward {
                index < line || (index == line && step > 0)
            } else {
                index > line || (index == line && step > 0)
            };
            return Some(((index, c), wrapped));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::SourceFile;

    fn doc(text: &str) -> Document {
        Document::new(SourceFile::from_text("a.py", text)).unwrap()
    }

    #[test]
    fn words_like_vim() {
        let d = doc("total = line_total(item)\n\n    return x\n");
        assert_eq!(next_word(&d, 0, 0), (0, 6));
        assert_eq!(next_word(&d, 0, 6), (0, 8));
        assert_eq!(next_word(&d, 0, 8), (0, 18), "`(` is a word of its own");
        assert_eq!(next_word(&d, 0, 23), (1, 0), "an empty line stops `w`");
        assert_eq!(next_word(&d, 1, 0), (2, 4));
        assert_eq!(previous_word(&d, 2, 4), (1, 0));
        assert_eq!(previous_word(&d, 0, 10), (0, 8));
        assert_eq!(previous_word(&d, 0, 8), (0, 6));
        assert_eq!(previous_word(&d, 0, 0), (0, 0));
    }

    #[test]
    fn columns_count_tabs_and_wide_characters() {
        let d = doc("\tx = '日本'\n");
        assert_eq!(display_col(&d, 0, 1), 4);
        assert_eq!(display_col(&d, 0, 8), 4 + 5 + 4);
        assert_eq!(col_at_display(&d, 0, 2), 0, "inside the tab");
        assert_eq!(col_at_display(&d, 0, 4), 1);
        assert_eq!(col_at_display(&d, 0, 100), 8);
    }

    #[test]
    fn search_wraps_and_uses_smart_case() {
        let d = doc("a = Total\nb = total\nc = 1\n");
        assert_eq!(find(&d, "total", 0, 0, true), Some(((0, 4), false)));
        assert_eq!(find(&d, "total", 0, 4, true), Some(((1, 4), false)));
        assert_eq!(find(&d, "total", 1, 4, true), Some(((0, 4), true)));
        assert_eq!(
            find(&d, "Total", 0, 4, true),
            Some(((0, 4), true)),
            "case kept"
        );
        assert_eq!(find(&d, "total", 0, 4, false), Some(((1, 4), true)));
        assert_eq!(find(&d, "nothing", 0, 0, true), None);
    }
}
