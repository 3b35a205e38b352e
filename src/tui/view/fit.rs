//! Fitting a line of pieces into a width by priority: the title bar, the status line and the
//! titles of boxes drop their least important pieces first, and never cut a word in the middle
//! (a path loses its leading folders, `…/shop/receipt.py`; a sentence its last words, `…`).

use ratatui::text::Span;

/// A piece of a line; priority 0 is the most important.
#[derive(Debug, Clone)]
pub struct Piece<'a> {
    pub priority: u8,
    pub spans: Vec<Span<'a>>,
    /// Drawn at the right end of the line (the status line's key hints).
    pub right: bool,
}

impl<'a> Piece<'a> {
    pub fn new(priority: u8, spans: Vec<Span<'a>>) -> Piece<'a> {
        Piece {
            priority,
            spans,
            right: false,
        }
    }

    /// A piece for the right end of the line.
    pub fn right(priority: u8, spans: Vec<Span<'a>>) -> Piece<'a> {
        Piece {
            right: true,
            ..Piece::new(priority, spans)
        }
    }

    pub fn width(&self) -> usize {
        self.spans.iter().map(Span::width).sum()
    }
}

/// The pieces that fit in `width`, in their order: the least important go first; when the
/// most important piece alone is too wide, its text is shortened at a word or path boundary.
pub fn fit(mut pieces: Vec<Piece<'_>>, width: usize) -> Vec<Piece<'_>> {
    while pieces.iter().map(Piece::width).sum::<usize>() > width && pieces.len() > 1 {
        let Some(least) = pieces
            .iter()
            .enumerate()
            .max_by_key(|(i, p)| (p.priority, *i))
            .map(|(i, _)| i)
        else {
            break;
        };
        pieces.remove(least);
    }
    if let Some(only) = pieces.first_mut()
        && only.width() > width
    {
        shorten_piece(only, width);
    }
    pieces
}

/// Shortens the spans of `piece` to `width`, from its last span backwards.
fn shorten_piece(piece: &mut Piece<'_>, width: usize) {
    let mut excess = piece.width().saturating_sub(width);
    for span in piece.spans.iter_mut().rev() {
        if excess == 0 {
            break;
        }
        let current = span.width();
        let keep = current.saturating_sub(excess);
        let shortened = shorten(&span.content, keep);
        excess = excess.saturating_sub(current - Span::raw(shortened.as_str()).width());
        span.content = shortened.into();
    }
}

/// `text` in at most `width` columns: a path keeps its last segments (`…/shop/receipt.py`),
/// other text its first words (`apply despite…`); a single word too long is cut with `…`.
pub fn shorten(text: &str, width: usize) -> String {
    let columns = |s: &str| Span::raw(s).width();
    if columns(text) <= width {
        return text.to_string();
    }
    if width == 0 {
        return String::new();
    }
    let trimmed = text.trim();
    let is_path = trimmed.contains('/') && !trimmed.contains(' ');
    if is_path {
        let segments: Vec<&str> = trimmed.split('/').collect();
        for start in 1..segments.len() {
            let candidate = format!("…/{}", segments[start..].join("/"));
            if columns(&candidate) <= width {
                return keep_edges(text, &candidate);
            }
        }
    } else {
        let words: Vec<&str> = text.split(' ').collect();
        for end in (1..words.len()).rev() {
            let candidate = format!("{}…", words[..end].join(" ").trim_end());
            if columns(&candidate) <= width && !words[..end].join("").trim().is_empty() {
                return candidate;
            }
        }
    }
    // One word longer than the room: cut it, saying so.
    let mut cut = String::new();
    for c in text.chars() {
        if columns(&cut) + Span::raw(c.to_string()).width() + 1 > width {
            break;
        }
        cut.push(c);
    }
    format!("{cut}…")
}

/// `candidate` with the spaces around `original` (pieces carry their own padding).
fn keep_edges(original: &str, candidate: &str) -> String {
    let lead = &original[..original.len() - original.trim_start().len()];
    let trail = &original[original.trim_end().len()..];
    format!("{lead}{candidate}{trail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(pieces: &[Piece<'_>]) -> String {
        pieces
            .iter()
            .flat_map(|p| p.spans.iter().map(|s| s.content.to_string()))
            .collect()
    }

    #[test]
    fn the_least_important_pieces_go_first() {
        let pieces = vec![
            Piece::new(3, vec![Span::raw(" candor ")]),
            Piece::new(0, vec![Span::raw("│ "), Span::raw("rust/src/lib.rs ")]),
            Piece::new(2, vec![Span::raw("│ "), Span::raw("backend: auto ")]),
            Piece::new(1, vec![Span::raw("│ "), Span::raw("demo ")]),
        ];
        assert_eq!(
            text(&fit(pieces.clone(), 80)),
            " candor │ rust/src/lib.rs │ backend: auto │ demo "
        );
        assert_eq!(text(&fit(pieces.clone(), 30)), "│ rust/src/lib.rs │ demo ");
        assert_eq!(text(&fit(pieces, 12)), "│ …/lib.rs ");
    }

    #[test]
    fn never_a_word_cut_in_the_middle() {
        assert_eq!(shorten("python/shop/receipt.py", 15), "…/receipt.py");
        assert_eq!(shorten("python/shop/receipt.py", 18), "…/shop/receipt.py");
        assert_eq!(
            shorten(
                "extract lines 49–50 of python/shop/receipt.py into print_lines",
                30
            ),
            "extract lines 49–50 of…"
        );
        assert_eq!(shorten("supercalifragilistic", 6), "super…");
        assert_eq!(shorten("short", 10), "short");
    }
}
