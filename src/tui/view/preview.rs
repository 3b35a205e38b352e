//! The preview: the diff of every changed file (old and new line numbers, word emphasis, hunks)
//! beside the warning panel (backend, confidence gauge, degraded reason, caveats, findings), and
//! the second-keystroke prompt.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::api::ApiError;
use crate::honesty::DEGRADED_REASON;
use crate::refactor::Severity;
use crate::tui::diffview::{Row, RowKind};
use crate::tui::keymap::{Command, Context};
use crate::tui::layout;
use crate::tui::state::{FindingRow, NotesMode, Preview, PreviewFocus, Ready, State};
use crate::tui::theme::Theme;

use super::fit::{self, Piece};

/// Draws `preview`; `from_form` when it came from a form (a refusal goes back to it).
pub fn render(state: &State, preview: &Preview, from_form: bool, frame: &mut Frame) {
    let t = &state.theme;
    let areas = layout::preview(state.size);
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
    panel(state, preview, frame, areas.panel_box, areas.panel);
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

/// The warning panel. Always drawn beside the diff while a preview is open.
fn panel(state: &State, preview: &Preview, frame: &mut Frame, outer: Rect, area: Rect) {
    let t = &state.theme;
    let focused = preview.focus == PreviewFocus::Findings;
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(if focused { t.border_focused } else { t.border })
        .title(Span::styled(" Warnings ", t.title));
    frame.render_widget(block, outer);
    let width = area.width.saturating_sub(1) as usize;
    let mut lines: Vec<Line> = Vec::new();
    let mut selected_at = 0;
    let heading = |text: String| {
        Line::from(Span::styled(
            text,
            Style::default().add_modifier(Modifier::BOLD),
        ))
    };
    let indented = |lines: &mut Vec<Line<'static>>, text: &str, first: &str, style: Style| {
        for (i, piece) in super::wrap(text, width.saturating_sub(2))
            .into_iter()
            .enumerate()
        {
            let prefix = if i == 0 { first } else { "  " };
            lines.push(Line::from(vec![
                Span::styled(prefix.to_string(), style),
                Span::styled(piece, style),
            ]));
        }
    };
    let Some(ready) = preview.ready() else {
        let text = match &preview.result {
            Some(Err(_)) => {
                "No result: the refactor was refused (see the message). Nothing will be written."
            }
            _ => "Waiting for the result…",
        };
        indented(&mut lines, text, "  ", t.dim);
        frame.render_widget(Paragraph::new(lines), area);
        return;
    };
    let outcome = &ready.outcome;
    lines.push(heading("Backend".to_string()));
    let engine = match (&outcome.server, &outcome.semantic_backend) {
        (Some(server), _) => Some((server, "language server")),
        (None, Some(library)) => Some((library, "refactoring library")),
        (None, None) => None,
    };
    match engine {
        Some((engine, what)) => {
            let version = engine
                .version
                .as_deref()
                .map(|v| format!(" {v}"))
                .unwrap_or_default();
            indented(
                &mut lines,
                &format!("{}{version} ({what})", engine.name),
                "  ",
                t.ok,
            );
        }
        None => indented(&mut lines, "tree-sitter heuristic", "  ", t.warning),
    }
    if let Some(reason) = &outcome.fallback_reason {
        indented(
            &mut lines,
            &format!("why not a language server: {reason}"),
            "  ",
            t.dim,
        );
    }
    let confidence = outcome.confidence();
    lines.push(heading("Confidence".to_string()));
    let gauge_width = width.saturating_sub(8).max(4);
    let filled = ((confidence * gauge_width as f64).round() as usize).min(gauge_width);
    let style = t.confidence(confidence);
    lines.push(Line::from(vec![
        Span::raw("  "),
        Span::styled("█".repeat(filled), style),
        Span::styled("░".repeat(gauge_width - filled), t.dim),
        Span::styled(
            format!(" {confidence:.2}"),
            style.add_modifier(Modifier::BOLD),
        ),
    ]));
    // The counts first, so they show even when the list is below the fold.
    let counts: Vec<(usize, &str, Style)> = [
        (ready.count(Severity::Error), "error", t.error),
        (ready.count(Severity::Warning), "warning", t.warning),
        (ready.count(Severity::Info), "note", t.info),
    ]
    .into_iter()
    .filter(|(n, _, _)| *n > 0)
    .collect();
    if !counts.is_empty() {
        let mut spans = vec![Span::raw("  ")];
        for (i, (n, name, style)) in counts.iter().enumerate() {
            if i > 0 {
                spans.push(Span::raw(", "));
            }
            let plural = if *n == 1 { "" } else { "s" };
            spans.push(Span::styled(format!("{n} {name}{plural}"), *style));
        }
        spans.push(Span::styled(" below", t.dim));
        lines.push(Line::from(spans));
    }
    if let Some(at) = super::check::section(state, preview, ready, width, &mut lines) {
        selected_at = at;
    }
    if outcome.is_heuristic() {
        lines.push(heading("Degraded".to_string()));
        indented(&mut lines, DEGRADED_REASON, "  ", t.warning);
    }
    // Errors and warnings first: they are about this very edit.
    let rows = ready.finding_rows(preview.notes);
    let findings = &outcome.plan.findings;
    let is_note = |row: &FindingRow| match row {
        FindingRow::One(i) => findings
            .get(*i)
            .is_some_and(|f| f.severity == Severity::Info),
        FindingRow::Group { .. } => true,
        FindingRow::Check(_) => false,
    };
    // The check's rows are drawn in its section.
    let is_serious = |row: &FindingRow| matches!(row, FindingRow::One(_)) && !is_note(row);
    let serious = rows.iter().filter(|r| is_serious(r)).count();
    let mut row_line = |lines: &mut Vec<Line<'static>>, index: usize, row: &FindingRow| {
        let start = lines.len();
        let (text, mark, style) = match row {
            FindingRow::One(i) => {
                let finding = &findings[*i];
                let (mark, style) = match finding.severity {
                    Severity::Error => ("✗ ", t.error),
                    Severity::Warning => ("▲ ", t.warning),
                    Severity::Info => ("· ", t.info),
                };
                // Messages often name their place already; do not say it twice.
                let place = format!("{}:{}", finding.file, finding.line);
                let text = if finding.message.contains(&place) {
                    finding.message.clone()
                } else {
                    format!("{place} {}", finding.message)
                };
                (text, mark, style)
            }
            FindingRow::Group { kind, count, .. } => (format!("{count} × {kind}"), "· ", t.info),
            FindingRow::Check(_) => return,
        };
        indented(lines, &text, mark, style);
        if focused && index == preview.finding {
            selected_at = start;
            for line in &mut lines[start..] {
                *line = line.clone().style(t.list_selected);
            }
        }
    };
    if findings.is_empty() {
        lines.push(heading("Findings: none".to_string()));
        // Never "nothing noticed" for a result the project's checker has not examined.
        let who = if ready.check.is_clean() {
            "nothing specific to this edit was noticed"
        } else {
            "candor's own checks noticed nothing; see Check"
        };
        let note = if outcome.is_heuristic() {
            format!("{who}; the caveats still apply")
        } else {
            who.to_string()
        };
        indented(&mut lines, &note, "  ", t.dim);
    } else if serious > 0 {
        lines.push(heading(format!(
            "Findings: {}",
            summary(ready.count(Severity::Error), ready.count(Severity::Warning))
        )));
        for (index, row) in rows.iter().enumerate().filter(|(_, r)| is_serious(r)) {
            row_line(&mut lines, index, row);
        }
    }
    let caveats = ready.caveats();
    if caveats.is_empty() {
        lines.push(heading("Caveats: none".to_string()));
        let what = if ready.check.is_clean() {
            "a language server did the refactor, and the check found nothing new"
        } else {
            "a language server did the refactor; it does not compile, type-check or test its result"
        };
        indented(&mut lines, what, "  ", t.dim);
    } else {
        lines.push(heading(format!("Caveats ({})", caveats.len())));
        for caveat in caveats {
            indented(&mut lines, caveat, "• ", t.warning);
            for note in ready.caveat_notes(caveat) {
                indented(&mut lines, &format!("↳ {note}"), "  ", t.dim);
            }
        }
    }
    let notes = ready.count(Severity::Info);
    if notes > 0 {
        let how = match preview.notes {
            NotesMode::Folded => "folded by kind",
            NotesMode::All => "all",
            NotesMode::Hidden => "hidden",
        };
        lines.push(heading(format!("Notes ({notes}, {how})")));
        for (index, row) in rows.iter().enumerate().filter(|(_, r)| is_note(r)) {
            row_line(&mut lines, index, row);
        }
    }
    let height = area.height as usize;
    let mut scroll = if focused && selected_at + 2 > height {
        selected_at + 2 - height
    } else {
        0
    };
    // On the last row, the rest of the panel (the caveats after the warnings) comes into view.
    if focused && preview.finding + 1 >= rows.len() {
        scroll = scroll
            .max(lines.len().saturating_sub(height))
            .min(selected_at);
    }
    let scroll = scroll.min(lines.len().saturating_sub(height));
    let total = lines.len();
    let mut visible: Vec<Line> = lines.into_iter().skip(scroll).take(height).collect();
    if total > scroll + height && height > 0 {
        // Say so rather than let the panel end silently at the border.
        let tab = state.keymap.hint(Context::Preview, Command::FocusWarnings);
        let hint = if focused {
            "▼ more below (↓)".to_string()
        } else {
            format!("▼ more below ({tab}, then ↓)")
        };
        visible[height - 1] = Line::from(Span::styled(hint, t.dim));
    }
    frame.render_widget(Paragraph::new(visible), area);
}

/// `1 error, 2 warnings`.
fn summary(errors: usize, warnings: usize) -> String {
    let plural = |n: usize, one: &str| {
        if n == 1 {
            format!("1 {one}")
        } else {
            format!("{n} {one}s")
        }
    };
    match (errors, warnings) {
        (0, w) => plural(w, "warning"),
        (e, 0) => plural(e, "error"),
        (e, w) => format!("{}, {}", plural(e, "error"), plural(w, "warning")),
    }
}

fn confirm_prompt(state: &State, ready: &Ready, frame: &mut Frame, diff_box: Rect) {
    let t = &state.theme;
    // The question wraps (it can name a check still running and what was found).
    let question_rows = super::wrap(
        &ready.confirm_question(),
        diff_box.width.saturating_sub(4) as usize,
    )
    .len() as u16;
    let height = (4 + question_rows).min(diff_box.height);
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
    let keys = &state.keymap;
    let why = if ready.outcome.is_heuristic() {
        "Heuristic: read the warnings on the right."
    } else {
        "Read the findings on the right."
    };
    let text = vec![
        Line::from(Span::styled(
            ready.confirm_question(),
            t.warning.add_modifier(Modifier::BOLD),
        )),
        Line::from(Span::styled(why, t.dim)),
        Line::from(Span::styled(
            format!(
                "{} apply · {} back",
                keys.hint(Context::Confirm, Command::Yes),
                keys.hint(Context::Confirm, Command::No)
            ),
            t.dim,
        )),
    ];
    frame.render_widget(
        Paragraph::new(text)
            .block(block)
            .wrap(ratatui::widgets::Wrap { trim: true }),
        area,
    );
}
