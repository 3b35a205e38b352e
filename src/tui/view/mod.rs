//! Drawing: one module per screen, each taking the state by reference (drawing cannot change
//! it). This module draws the frame around them: title, notices, status line, help.

mod ask;
mod check;
mod code;
pub mod fit;
mod form;
mod help;
mod panel;
mod picker;
mod preview;
mod sites;
mod status;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::layout;
use super::state::{NoticeLevel, Screen, State};
use fit::Piece;

const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

/// Draws the whole UI.
pub fn render(state: &State, frame: &mut Frame) {
    let area = frame.area();
    if layout::too_small(state.size)
        || area.width < layout::MIN_SIZE.0
        || area.height < layout::MIN_SIZE.1
    {
        let (w, h) = layout::MIN_SIZE;
        let text = format!(
            "candor needs at least {w}×{h} to show the preview and its warnings; the terminal is {}×{}.",
            area.width, area.height
        );
        frame.render_widget(
            Paragraph::new(text).wrap(ratatui::widgets::Wrap { trim: true }),
            area,
        );
        return;
    }
    title_bar(state, frame);
    match &state.screen {
        Screen::Picker => picker::render(state, frame),
        Screen::Code => code::render(state, frame),
        Screen::Form(form) => {
            code::render(state, frame);
            form::render(state, form, frame);
        }
        Screen::Preview { preview, form } => preview::render(state, preview, form.is_some(), frame),
    }
    notice(state, frame);
    status_line(state, frame);
    if let Some(question) = &state.question {
        ask::render(state, question, frame);
    }
    if state.help.is_some() {
        help::render(state, frame);
    }
}

/// How many lines the help screen has (its scrolling stops at the last page).
pub fn help_line_count(state: &State) -> usize {
    help::help_lines(state).len()
}

pub(crate) fn spinner(state: &State) -> &'static str {
    SPINNER[state.spinner % SPINNER.len()]
}

fn title_bar(state: &State, frame: &mut Frame) {
    let area = layout::frame(state.size).title;
    let t = &state.theme;
    let separator = || Span::styled(" │ ", t.dim);
    // The file first, then what is going on, then where: the brand goes first when room is short.
    let mut pieces = vec![
        Piece::new(6, vec![Span::styled(" candor", t.title)]),
        Piece::shrinking(3, vec![separator(), Span::raw(state.project_name.clone())]),
    ];
    if !matches!(state.screen, Screen::Picker)
        && let Some(code) = &state.code
    {
        pieces.push(Piece::shrinking(
            0,
            vec![separator(), Span::raw(code.doc.path.clone())],
        ));
    }
    pieces.push(Piece::new(
        4,
        vec![
            separator(),
            Span::styled(format!("backend: {}", state.backend.as_str()), t.dim),
        ],
    ));
    if let Some(status) = &state.lsp_status {
        pieces.push(Piece::new(
            2,
            vec![separator(), Span::styled(status.text.clone(), t.info)],
        ));
    }
    if state.busy() {
        pieces.push(Piece::new(
            1,
            vec![Span::raw(" "), Span::styled(spinner(state), t.info)],
        ));
    }
    let mut spans: Vec<Span> = fit::fit(pieces, area.width as usize)
        .into_iter()
        .flat_map(|p| p.spans)
        .collect();
    // Without the brand, the line starts with its first piece, not a separator.
    if let Some(first) = spans.first_mut()
        && first.content == " │ "
    {
        *first = Span::raw(" ");
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

/// The notice box, just above the status line.
fn notice(state: &State, frame: &mut Frame) {
    let Some(notice) = &state.notice else { return };
    let body = layout::frame(state.size).body;
    let t = &state.theme;
    let width = body.width.saturating_sub(4) as usize;
    let lines = wrap(&notice.text, width.max(10));
    let height = (lines.len() as u16 + 2).min(6).min(body.height);
    let area = Rect::new(body.x, body.bottom() - height, body.width, height);
    let (style, title) = match notice.level {
        NoticeLevel::Info => (t.info, " note "),
        NoticeLevel::Warning => (t.warning, " warning "),
        NoticeLevel::Error => (t.error, " error "),
    };
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(style)
        .title(Span::styled(title, style));
    let text: Vec<Line> = lines.into_iter().map(Line::from).collect();
    frame.render_widget(Paragraph::new(text).block(block), area);
}

/// The status line: on the left what matters now (the cursor, the selection, what `i`/`c`/`m`
/// would act on, work in progress), on the right the keys to press. At 80 columns the least
/// important pieces give way first.
fn status_line(state: &State, frame: &mut Frame) {
    let area = layout::frame(state.size).status;
    let t = &state.theme;
    let (mut pieces, hints) = status::pieces(state);
    for (i, (key, label)) in hints.iter().enumerate() {
        // The last hint (help) stays longest; the others in their order.
        let priority = if i + 1 == hints.len() {
            2
        } else {
            4 + i.min(4) as u8
        };
        pieces.push(Piece::right(
            priority,
            vec![
                Span::styled(format!(" {key}"), t.status_key),
                Span::styled(format!(" {label} "), t.status),
            ],
        ));
    }
    let (mut spans, mut right): (Vec<Span>, Vec<Span>) = (Vec::new(), Vec::new());
    for piece in fit::fit(pieces, area.width as usize) {
        if piece.right {
            right.extend(piece.spans);
        } else {
            spans.extend(piece.spans);
        }
    }
    let used: usize = spans.iter().chain(right.iter()).map(Span::width).sum();
    spans.push(Span::raw(
        " ".repeat((area.width as usize).saturating_sub(used)),
    ));
    spans.extend(right);
    frame.render_widget(Paragraph::new(Line::from(spans)).style(t.status), area);
}

/// `text` wrapped to `width`, the first line after `first`, the others indented.
pub(crate) fn push(
    lines: &mut Vec<Line<'static>>,
    text: &str,
    first: &str,
    style: Style,
    width: usize,
) {
    let lead = Span::raw(first).width().max(2);
    for (i, piece) in wrap(text, width.saturating_sub(lead))
        .into_iter()
        .enumerate()
    {
        let prefix = if i == 0 { first } else { "  " };
        lines.push(Line::from(vec![
            Span::styled(prefix.to_string(), style),
            Span::styled(piece, style),
        ]));
    }
}

/// Word-wraps `text` to `width` columns; words longer than a line are cut.
pub(crate) fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut lines = Vec::new();
    for paragraph in text.split('\n') {
        let mut line = String::new();
        let mut line_width = 0;
        for word in paragraph.split(' ') {
            let mut word = word.to_string();
            let mut word_width = Span::raw(word.as_str()).width();
            if line_width > 0 && line_width + 1 + word_width > width {
                lines.push(std::mem::take(&mut line));
                line_width = 0;
            }
            while word_width > width {
                let cut: String = word
                    .chars()
                    .take(width.saturating_sub(line_width).max(1))
                    .collect();
                let rest = word[cut.len()..].to_string();
                line.push_str(&cut);
                lines.push(std::mem::take(&mut line));
                line_width = 0;
                word = rest;
                word_width = Span::raw(word.as_str()).width();
            }
            if line_width > 0 {
                line.push(' ');
                line_width += 1;
            }
            line.push_str(&word);
            line_width += word_width;
        }
        lines.push(line);
    }
    lines
}

/// Shortens `text` to `width` columns with an ellipsis at the start (for paths).
pub(crate) fn shorten_left(text: &str, width: usize) -> String {
    let count = text.chars().count();
    if count <= width || width < 2 {
        return text.to_string();
    }
    let tail: String = text.chars().skip(count - (width - 1)).collect();
    format!("…{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrap_keeps_words_and_cuts_long_ones() {
        assert_eq!(
            wrap("captured local variables not detected", 16),
            vec!["captured local", "variables not", "detected"]
        );
        assert_eq!(wrap("abcdefghij", 4), vec!["abcd", "efgh", "ij"]);
        assert_eq!(wrap("a\nb", 10), vec!["a", "b"]);
        assert_eq!(shorten_left("src/deep/path.rs", 8), "…path.rs");
    }
}
