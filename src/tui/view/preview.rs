//! The preview: the diff of every changed file (old and new line numbers, word emphasis, hunks)
//! beside the warning panel (`panel`), the split between them following the width, and the
//! second-keystroke prompt.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::api::ApiError;
use crate::tui::diffview::{Row, RowKind};
use crate::tui::keymap::{Command, Context};
use crate::tui::state::{Preview, PreviewFocus, Ready, State};
use crate::tui::theme::Theme;

use super::fit::{self, Piece};

/// Draws `preview`; `from_form` when it came from a form (a refusal goes back to it).
pub fn render(state: &State, preview: &Preview, from_form: bool, frame: &mut Frame) {
    let t = &state.theme;
    let areas = state.preview_layout();
    let title = title_line(
        state,
        preview,
        areas.diff_box.width.saturating_sub(2) as usize,
    );
    let diff_block = Block::default()
        .borders(Borders::ALL)
        .border_style(if preview.focus == PreviewFocus::Diff {
            t.border_focused
        } else {
            t.border
        })
        .title(title);
    frame.render_widget(diff_block, areas.diff_box);

    match &preview.result {
        None => {
            let text = vec![
                Line::from(Span::styled(
                    format!("{} computing the preview…", super::spinner(state)),
                    t.info,
                )),
                Line::from(""),
                Line::from(Span::styled(
                    "Inline and change signature search the whole project for call sites; a language server may take a moment to start. Keys keep working.",
                    t.dim,
                )),
            ];
            frame.render_widget(
                Paragraph::new(text).wrap(ratatui::widgets::Wrap { trim: true }),
                areas.diff,
            );
        }
        Some(Err(error)) => render_error(
            state,
            error,
            from_form,
            frame,
            areas.files_bar.union(areas.diff),
        ),
        Some(Ok(ready)) => {
            files_bar(state, preview, ready, frame, areas.files_bar);
            diff_rows(preview, ready, t, frame, areas.diff);
        }
    }
    if preview.focus == PreviewFocus::Sites {
        super::sites::render(state, preview, frame, areas.panel_box, areas.panel);
    } else {
        super::panel::render(state, preview, frame, areas.panel_box, areas.panel);
    }
    if preview.confirm
        && let Some(ready) = preview.ready()
    {
        confirm_prompt(state, ready, frame, areas.diff_box);
    }
}

fn render_error(state: &State, error: &ApiError, from_form: bool, frame: &mut Frame, area: Rect) {
    let t = &state.theme;
    let back = state.keymap.hint(Context::Preview, Command::Back);
    let what_next = if from_form {
        format!("{back}: back to the form to change the input")
    } else {
        format!("{back}: back to the code view")
    };
    let width = area.width.saturating_sub(1) as usize;
    let styled = |text: &str, style: Style| -> Vec<Line<'static>> {
        super::wrap(text, width)
            .into_iter()
            .map(|l| Line::from(Span::styled(l, style)))
            .collect()
    };
    let mut lines = styled(
        &format!("The refactor was refused ({}).", error.code.as_str()),
        t.error,
    );
    lines.push(Line::from(""));
    lines.extend(styled(&error.message, Style::default()));
    lines.push(Line::from(""));
    lines.extend(styled("Nothing was written.", t.ok));
    lines.extend(styled(&what_next, t.dim));
    frame.render_widget(Paragraph::new(lines), area);
}

/// The diff box's title: the operation and the state always, the detail and the file while
/// they fit.
fn title_line(state: &State, preview: &Preview, width: usize) -> Line<'static> {
    let t = &state.theme;
    let title = &preview.request.title;
    let mut pieces = vec![Piece::new(
        0,
        vec![Span::styled(format!(" {}", title.operation), t.title)],
    )];
    if !title.place.is_empty() {
        pieces.push(Piece::shrinking(
            2,
            vec![Span::styled(format!(" {}", title.place), t.title)],
        ));
    }
    if !title.detail.is_empty() {
        pieces.push(Piece::shrinking(
            1,
            vec![Span::styled(format!(" {}", title.detail), t.title)],
        ));
    }
    pieces.push(Piece::new(0, vec![Span::raw(" ")]));
    if preview.stale.is_some() {
        pieces.push(Piece::new(0, vec![Span::styled(" STALE ", t.stale)]));
    }
    if state.split.zoom {
        let zoom = state.keymap.hint(Context::Preview, Command::Zoom);
        pieces.push(Piece::new(
            0,
            vec![Span::styled(
                format!(" warnings hidden ({zoom}) "),
                t.warning,
            )],
        ));
    }
    if preview.computing {
        pieces.push(Piece::new(
            0,
            vec![Span::styled(format!(" {} ", super::spinner(state)), t.info)],
        ));
    }
    Line::from(
        fit::fit(pieces, width)
            .into_iter()
            .flat_map(|p| p.spans)
            .collect::<Vec<_>>(),
    )
}

/// The changed files above the diff: the one shown, with its counts, always; the others while
/// they fit, else how many more there are.
fn files_bar(state: &State, preview: &Preview, ready: &Ready, frame: &mut Frame, area: Rect) {
    let t = &state.theme;
    if ready.diffs.is_empty() {
        frame.render_widget(
            Paragraph::new(Span::styled("no file changes", t.warning)),
            area,
        );
        return;
    }
    let many = ready.diffs.len() > 1;
    let entry = |i: usize, width: Option<usize>| -> Vec<Span<'static>> {
        let diff = &ready.diffs[i];
        let current = i == preview.file;
        let name_style = if current && many {
            t.list_selected
        } else if current {
            Style::default().add_modifier(Modifier::BOLD)
        } else {
            t.dim
        };
        let mut tail = vec![];
        if diff.created {
            tail.push(Span::styled(" (new)", t.info));
        }
        tail.push(Span::styled(format!(" +{}", diff.added), t.added));
        tail.push(Span::styled(format!(" -{}", diff.removed), t.removed));
        if diff.whole_file {
            tail.push(Span::styled(" whole file", t.dim));
        }
        let tail_width: usize = tail.iter().map(Span::width).sum();
        let path = match width {
            Some(w) => fit::shorten(&diff.path, w.saturating_sub(tail_width).max(8)),
            None => diff.path.clone(),
        };
        let mut spans = vec![Span::styled(path, name_style)];
        spans.extend(tail);
        spans.push(Span::raw("  "));
        spans
    };
    let width = area.width as usize;
    let counter = if many {
        format!("{}/{} ", preview.file + 1, ready.diffs.len())
    } else {
        String::new()
    };
    let mut pieces = vec![
        Piece::new(0, vec![Span::styled(counter.clone(), t.dim)]),
        Piece::new(
            0,
            entry(preview.file, Some(width.saturating_sub(counter.len()))),
        ),
    ];
    for i in (0..ready.diffs.len()).filter(|&i| i != preview.file) {
        pieces.push(Piece::new(2, entry(i, None)));
    }
    let mut spans: Vec<Span> = fit::fit(pieces, width)
        .into_iter()
        .flat_map(|p| p.spans)
        .collect();
    let shown_others = ready
        .diffs
        .iter()
        .enumerate()
        .filter(|(i, d)| *i != preview.file && spans.iter().any(|s| s.content.as_ref() == d.path))
        .count();
    let more = ready.diffs.len() - 1 - shown_others;
    if more > 0 {
        let next = state.keymap.hint(Context::Preview, Command::NextFile);
        let note = format!("+{more} more ({next})");
        let used: usize = spans.iter().map(Span::width).sum();
        if used + note.chars().count() <= width {
            spans.push(Span::styled(note, t.dim));
        }
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn diff_rows(preview: &Preview, ready: &Ready, t: &Theme, frame: &mut Frame, area: Rect) {
    let Some(diff) = ready.diffs.get(preview.file) else {
        return;
    };
    let number_width = diff
        .rows
        .iter()
        .filter_map(|r| match r {
            Row::Line { old, new, .. } => Some(old.unwrap_or(0).max(new.unwrap_or(0))),
            _ => None,
        })
        .max()
        .unwrap_or(0)
        .to_string()
        .len()
        .max(3);
    let lines: Vec<Line> = diff
        .rows
        .iter()
        .enumerate()
        .skip(preview.scroll)
        .take(area.height as usize)
        .map(|(index, row)| {
            let marked = preview.marked_row == Some(index);
            match row {
                Row::Hunk(header) => Line::from(Span::styled(header.clone(), t.hunk)),
                Row::NoNewline => Line::from(Span::styled("\\ No newline at end of file", t.dim)),
                Row::Line {
                    kind,
                    old,
                    new,
                    segments,
                } => {
                    let number = |n: Option<usize>| {
                        n.map_or(" ".repeat(number_width), |n| format!("{n:>number_width$}"))
                    };
                    let (sign, plain, emphasis) = match kind {
                        RowKind::Context => (" ", Style::default(), Style::default()),
                        RowKind::Removed => ("-", t.removed, t.removed_emphasis),
                        RowKind::Added => ("+", t.added, t.added_emphasis),
                    };
                    let mut spans = vec![
                        Span::styled(format!("{} {}", number(*old), number(*new)), t.line_number),
                        Span::styled(
                            if marked { "▶" } else { "│" },
                            if marked { t.warning } else { t.border },
                        ),
                        Span::styled(sign, plain),
                    ];
                    let mut skip = preview.hscroll;
                    for (emphasized, text) in segments {
                        let text = text.replace('\t', "    ");
                        let count = text.chars().count();
                        if skip >= count {
                            skip -= count;
                            continue;
                        }
                        let shown: String = text.chars().skip(skip).collect();
                        skip = 0;
                        spans.push(Span::styled(
                            shown,
                            if *emphasized { emphasis } else { plain },
                        ));
                    }
                    Line::from(spans)
                }
            }
        })
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

fn confirm_prompt(state: &State, ready: &Ready, frame: &mut Frame, diff_box: Rect) {
    let t = &state.theme;
    let keys = &state.keymap;
    let width = diff_box.width.saturating_sub(4) as usize;
    // The question wraps (it can name why the result is unchecked, and what was found).
    let question = ready.confirm_question();
    let why = ready.confirm_hint();
    let answer = format!(
        "{} apply · {} back",
        keys.hint(Context::Confirm, Command::Yes),
        keys.hint(Context::Confirm, Command::No)
    );
    let mut text: Vec<Line> = Vec::new();
    for (content, style) in [
        (&question, t.warning.add_modifier(Modifier::BOLD)),
        (&why, t.dim),
        (&answer, t.dim),
    ] {
        text.extend(
            super::wrap(content, width)
                .into_iter()
                .map(|l| Line::from(Span::styled(l, style))),
        );
    }
    let height = (text.len() as u16 + 2).min(diff_box.height);
    let area = Rect::new(
        diff_box.x + 1,
        diff_box.bottom().saturating_sub(height + 1),
        diff_box.width.saturating_sub(2),
        height,
    );
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.warning)
        .title(Span::styled(" confirm ", t.warning));
    frame.render_widget(Paragraph::new(text).block(block), area);
}
