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
    /// Its last span (a path, a title) may be shortened to make room for other pieces.
    pub shrinks: bool,
}

/// Pieces of this priority or less important go before anything is shortened.
const LEAST: u8 = 5;

impl<'a> Piece<'a> {
    pub fn new(priority: u8, spans: Vec<Span<'a>>) -> Piece<'a> {
        Piece {
            priority,
            spans,
            right: false,
            shrinks: false,
        }
    }

    /// A piece whose last span may be shortened (at a folder or a word) before others go.
    pub fn shrinking(priority: u8, spans: Vec<Span<'a>>) -> Piece<'a> {
        Piece {
            shrinks: true,
            ..Piece::new(priority, spans)
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

/// The pieces that fit in `width`, in their order: the least important (priority [`LEAST`] and
/// more) go first; then a shrinking piece is shortened, down to its last folder or first word;
/// then the other pieces go by priority; when the most important piece alone is too wide, its
/// text is shortened at a word or path boundary.
pub fn fit(mut pieces: Vec<Piece<'_>>, width: usize) -> Vec<Piece<'_>> {
    drop_least(&mut pieces, width, LEAST);
    while total(&pieces) > width && pieces.len() > 1 {
        if shrink_to_fit(&mut pieces, width) {
            break;
        }
        // One piece goes: the least important.
        let one_less = total(&pieces).saturating_sub(1);
        drop_least(&mut pieces, one_less, 0);
    }
    if let Some(only) = pieces.first_mut()
        && only.width() > width
    {
        shorten_piece(only, width);
    }
    pieces
}

fn total(pieces: &[Piece<'_>]) -> usize {
    pieces.iter().map(Piece::width).sum()
}

/// Shortens one shrinking piece (the least important first) so that the line fits, if that is
/// possible without going below its shortest form; whether it now fits.
fn shrink_to_fit(pieces: &mut [Piece<'_>], width: usize) -> bool {
    let mut order: Vec<usize> = (0..pieces.len()).filter(|&i| pieces[i].shrinks).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(pieces[i].priority));
    for i in order {
        let others = total(pieces) - pieces[i].width();
        let Some(last) = pieces[i].spans.last() else {
            continue;
        };
        let fixed = pieces[i].width() - last.width();
        let room = width.saturating_sub(others + fixed);
        if room < Span::raw(shortest(&last.content)).width() {
            continue;
        }
        let shortened = shorten(&last.content, room);
        if let Some(last) = pieces[i].spans.last_mut() {
            last.content = shortened.into();
        }
        return total(pieces) <= width;
    }
    false
}

/// Drops the least important pieces of priority `at_least` or more until the line fits (one
/// piece always stays).
fn drop_least(pieces: &mut Vec<Piece<'_>>, width: usize, at_least: u8) {
    while pieces.iter().map(Piece::width).sum::<usize>() > width && pieces.len() > 1 {
        let Some(least) = pieces
            .iter()
            .enumerate()
            .filter(|(_, p)| p.priority >= at_least)
            .max_by_key(|(i, p)| (p.priority, *i))
            .map(|(i, _)| i)
        else {
            break;
        };
        pieces.remove(least);
    }
}

/// The shortest form a shrinking piece may take: a path's last segment (`…/lib.rs`, after its
/// leading words: `of …/lib.rs`), a sentence's first two words.
fn shortest(text: &str) -> String {
    let trimmed = text.trim();
    match trimmed.rsplit_once(' ') {
        Some((words, path)) if path.contains('/') => keep_edges(
            text,
            &format!("{words} …/{}", path.rsplit('/').next().unwrap_or(path)),
        ),
        None if trimmed.contains('/') => keep_edges(
            text,
            &format!("…/{}", trimmed.rsplit('/').next().unwrap_or(trimmed)),
        ),
        _ => {
            let words: Vec<&str> = trimmed.split(' ').take(2).collect();
            keep_edges(text, &format!("{}…", words.join(" ")))
        }
    }
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
    // `of python/shop/receipt.py`: the words stay, the path loses its leading folders.
    if let Some((words, path)) = trimmed.rsplit_once(' ')
        && path.contains('/')
    {
        let segments: Vec<&str> = path.split('/').collect();
        for start in 1..segments.len() {
            let candidate = format!("{words} …/{}", segments[start..].join("/"));
            if columns(&candidate) <= width {
                return keep_edges(text, &candidate);
            }
        }
    }
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
        // A shrinking path gives room to the rest before they go.
        let pieces = vec![
            Piece::shrinking(
                0,
                vec![
                    Span::raw("│ "),
                    Span::raw("a/very/deep/tree/of/folders/lib.rs "),
                ],
            ),
            Piece::new(2, vec![Span::raw("│ "), Span::raw("backend: auto ")]),
        ];
        assert_eq!(
            text(&fit(pieces.clone(), 40)),
            "│ …/of/folders/lib.rs │ backend: auto "
        );
        assert_eq!(text(&fit(pieces, 20)), "│ …/folders/lib.rs ");
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
        assert_eq!(
            shorten("of python/shop/receipt.py", 20),
            "of …/shop/receipt.py"
        );
        assert_eq!(shorten("of python/shop/receipt.py", 16), "of …/receipt.py");
        assert_eq!(shortest(" of python/shop/receipt.py"), " of …/receipt.py");
        assert_eq!(shortest("to (a: i32, b: u8)"), "to (a:…");
    }
}
