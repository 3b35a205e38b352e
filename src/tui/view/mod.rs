//! Drawing: one module per screen, each taking the state by reference (drawing cannot change
//! it). This module draws the frame around them: title, notices, status line, help.

mod code;
mod form;
mod help;
mod picker;
mod preview;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::keymap::{Command, Context};
use super::layout;
use super::state::{NoticeLevel, Screen, State};

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
    if state.help.is_some() {
        help::render(state, frame);
    }
}

pub(crate) fn spinner(state: &State) -> &'static str {
    SPINNER[state.spinner % SPINNER.len()]
}

fn title_bar(state: &State, frame: &mut Frame) {
    let area = layout::frame(state.size).title;
    let t = &state.theme;
    let mut spans = vec![
        Span::styled(" candor ", t.title),
        Span::styled("│ ", t.dim),
        Span::raw(state.project_name.clone()),
    ];
    let file = match state.screen {
        Screen::Picker => None,
        _ => state.code.as_ref().map(|c| c.doc.path.clone()),
    };
    if let Some(file) = file {
        spans.push(Span::styled(" │ ", t.dim));
        spans.push(Span::raw(file));
    }
    spans.push(Span::styled(" │ ", t.dim));
    spans.push(Span::styled(
        format!("backend: {}", state.backend.as_str()),
        t.dim,
    ));
    if let Some(status) = &state.lsp_status {
        spans.push(Span::styled(" │ ", t.dim));
        spans.push(Span::styled(status.text.clone(), t.info));
    }
    if state.busy() {
        spans.push(Span::raw(" "));
        spans.push(Span::styled(spinner(state), t.info));
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

fn status_line(state: &State, frame: &mut Frame) {
    let area = layout::frame(state.size).status;
    let t = &state.theme;
    let context = state.context();
    let keys = &state.keymap;
    let hint = |from: Context, command: Command, label: &str| {
        (keys.hint_in(context, from, command), label.to_string())
    };
    let mut left: Vec<Span> = Vec::new();
    let hints: Vec<(String, String)> = match context {
        Context::Picker => {
            let p = &state.picker;
            left.push(Span::raw(format!(
                " {} of {} files",
                p.matches.len(),
                p.files.len()
            )));
            if p.scanning {
                left.push(Span::styled(
                    format!(" {} scanning", spinner(state)),
                    t.info,
                ));
            }
            vec![
                hint(Context::Picker, Command::Open, "open"),
                hint(Context::Picker, Command::Back, "back"),
                hint(Context::Global, Command::Help, "help"),
            ]
        }
        Context::Code | Context::Outline => {
            if let Some(code) = &state.code {
                let selection = code
                    .selection_label()
                    .map(|s| format!(" {s}"))
                    .unwrap_or_else(|| {
                        format!(
                            " line {}/{}, no selection",
                            code.cursor + 1,
                            code.doc.line_count()
                        )
                    });
                left.push(Span::styled(
                    selection,
                    Style::default().add_modifier(Modifier::BOLD),
                ));
                if code.visual {
                    left.push(Span::styled(" (selecting)", t.info));
                }
            } else if let Some(loading) = &state.loading {
                left.push(Span::raw(format!(
                    " {} opening {}",
                    spinner(state),
                    loading.path
                )));
            }
            if let Some(applied) = &state.last_applied {
                left.push(Span::styled(
                    format!(
                        "  {} undo {}",
                        keys.hint(Context::Code, Command::Undo),
                        applied.label
                    ),
                    t.ok,
                ));
            }
            if state.parked.is_some() {
                left.push(Span::styled(
                    format!(
                        "  {} back to preview",
                        keys.hint(Context::Code, Command::ReturnToPreview)
                    ),
                    t.info,
                ));
            }
            if context == Context::Outline {
                vec![
                    hint(Context::Outline, Command::SelectSymbol, "select"),
                    hint(Context::Outline, Command::Back, "close"),
                ]
            } else {
                vec![
                    hint(Context::Code, Command::SelectLines, "select"),
                    hint(Context::Code, Command::Extract, "extract"),
                    hint(Context::Code, Command::Inline, "inline"),
                    hint(Context::Code, Command::MoveToFile, "move"),
                    hint(Context::Code, Command::ChangeSignature, "signature"),
                    hint(Context::Code, Command::Outline, "outline"),
                    hint(Context::Global, Command::Help, "help"),
                ]
            }
        }
        Context::Form => {
            let mut list = vec![
                hint(Context::Form, Command::Submit, "preview"),
                hint(Context::Form, Command::Cancel, "cancel"),
            ];
            if state.form().is_some_and(|f| !f.completions.is_empty()) {
                list.push(hint(Context::Form, Command::Complete, "complete"));
            }
            list.push(hint(Context::Global, Command::Help, "help"));
            list
        }
        Context::Preview => {
            if let Some(p) = state.preview() {
                if p.computing {
                    left.push(Span::styled(
                        format!(" {} computing", spinner(state)),
                        t.info,
                    ));
                }
                if p.stale.is_some() {
                    left.push(Span::styled(" STALE ", t.stale));
                }
            }
            if state.preview().is_some_and(|p| p.ready().is_some()) {
                vec![
                    hint(Context::Preview, Command::Apply, "apply"),
                    hint(Context::Preview, Command::FocusWarnings, "findings"),
                    hint(Context::Preview, Command::NextHunk, "next hunk"),
                    hint(Context::Preview, Command::Back, "cancel"),
                    hint(Context::Global, Command::Help, "help"),
                ]
            } else {
                vec![
                    hint(Context::Preview, Command::Back, "back"),
                    hint(Context::Global, Command::Help, "help"),
                ]
            }
        }
        Context::Findings => vec![
            hint(Context::Findings, Command::Jump, "jump to line"),
            hint(Context::Findings, Command::Back, "back to diff"),
        ],
        Context::Confirm => vec![
            hint(Context::Confirm, Command::Yes, "apply"),
            hint(Context::Confirm, Command::No, "back"),
        ],
        Context::Help | Context::Global => vec![
            hint(Context::Help, Command::Down, "scroll"),
            hint(Context::Help, Command::Back, "close help"),
        ],
    };
    if state.writing.is_some() {
        left.push(Span::styled(format!(" {} writing", spinner(state)), t.info));
    }
    let left_width: usize = left.iter().map(Span::width).sum();
    // The last hint (help) always shows; the others while they fit.
    let piece_width =
        |(key, label): &(String, String)| key.chars().count() + label.chars().count() + 3;
    let reserved = hints.last().map_or(0, piece_width);
    let mut shown: Vec<&(String, String)> = Vec::new();
    let mut right_width = reserved;
    for hint in hints.iter().take(hints.len().saturating_sub(1)) {
        if left_width + right_width + piece_width(hint) + 1 > area.width as usize {
            break;
        }
        right_width += piece_width(hint);
        shown.push(hint);
    }
    shown.extend(hints.last());
    let mut right: Vec<Span> = Vec::new();
    for (key, label) in shown {
        right.push(Span::styled(format!(" {key}"), t.status_key));
        right.push(Span::styled(format!(" {label} "), t.status));
    }
    let pad = (area.width as usize).saturating_sub(left_width + right_width);
    let mut spans = left;
    spans.push(Span::raw(" ".repeat(pad)));
    spans.extend(right);
    frame.render_widget(Paragraph::new(Line::from(spans)).style(t.status), area);
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
