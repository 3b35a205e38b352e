//! The refactor forms over the code view: the new name (extract), the target file with
//! completions (move), the editable parameter list (change signature), with the input's error
//! shown inline.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use crate::lang::Language;
use crate::refactor::change_signature::read_typed_list;
use crate::tui::keymap::{Command, Context};
use crate::tui::layout;
use crate::tui::layout::list_offset;
use crate::tui::state::{Form, FormKind, State};

pub fn render(state: &State, form: &Form, frame: &mut Frame) {
    let t = &state.theme;
    let is_move = matches!(form.kind, FormKind::Move { .. });
    // What is said under the input wraps: the form grows by the rows it needs beyond one.
    let text_width = layout::form_width(state.size).saturating_sub(4) as usize;
    let status = status_lines(state, form, text_width);
    let extra = status.len().saturating_sub(1) as u16;
    let area = layout::form(state.size, is_move, extra, focus_rows(state));
    let (title, about, label) = heading(&form.kind);
    frame.render_widget(Clear, area);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(t.border_focused)
        .title(Span::styled(title, t.title));
    frame.render_widget(block, area);
    let inner = layout::inner(area);
    let width = inner.width as usize;
    let mut y = inner.y;
    let line = |frame: &mut Frame, content: Line, y: &mut u16| {
        if *y < inner.bottom() {
            frame.render_widget(
                Paragraph::new(content),
                Rect::new(inner.x + 1, *y, inner.width.saturating_sub(2), 1),
            );
            *y += 1;
        }
    };
    for text in super::wrap(&about, width.saturating_sub(2))
        .into_iter()
        .take(2)
    {
        line(frame, Line::from(text), &mut y);
    }
    y += 1;
    line(
        frame,
        Line::from(Span::styled(format!("{label}:"), t.dim)),
        &mut y,
    );
    if y < inner.bottom() {
        frame.render_widget(Span::styled("› ", t.info), Rect::new(inner.x + 1, y, 2, 1));
        frame.render_widget(
            &form.input,
            Rect::new(inner.x + 3, y, inner.width.saturating_sub(4), 1),
        );
        y += 1;
    }
    for status_line in status {
        line(frame, status_line, &mut y);
    }

    if is_move && !form.completions.is_empty() {
        y += 1;
        let rows_left = inner.bottom().saturating_sub(y + 1) as usize;
        let selected = form.completion.unwrap_or(0);
        let offset = if form.completion.is_some() {
            list_offset(selected, rows_left)
        } else {
            0
        };
        for (i, path) in form
            .completions
            .iter()
            .enumerate()
            .skip(offset)
            .take(rows_left)
        {
            let style = if form.completion == Some(i) {
                t.list_selected
            } else {
                Style::default()
            };
            line(
                frame,
                Line::from(Span::styled(format!("  {path}"), style)),
                &mut y,
            );
        }
    }
    let keys = &state.keymap;
    let mut help = format!(
        "{} preview · {} cancel",
        keys.hint(Context::Form, Command::Submit),
        keys.hint(Context::Form, Command::Cancel)
    );
    if is_move {
        help.push_str(&format!(
            " · {} complete",
            keys.hint(Context::Form, Command::Complete)
        ));
    }
    if let FormKind::ExtractVariable {
        choices, chosen, ..
    } = &form.kind
    {
        if *chosen + 1 < choices.len() {
            help.push_str(&format!(
                " · {} widen",
                keys.hint(Context::Form, Command::Widen)
            ));
        }
        if *chosen > 0 {
            help.push_str(&format!(
                " · {} narrow",
                keys.hint(Context::Form, Command::Narrow)
            ));
        }
    }
    let bottom = Rect::new(
        inner.x + 1,
        inner.bottom().saturating_sub(1),
        inner.width.saturating_sub(2),
        1,
    );
    frame.render_widget(Paragraph::new(Span::styled(help, t.dim)), bottom);
}

/// What is said under the input, wrapped to `width`: the input's error, else what the input
/// will do.
fn status_lines(state: &State, form: &Form, width: usize) -> Vec<Line<'static>> {
    let t = &state.theme;
    let (text, style) = match (&form.error, &form.kind) {
        (Some(error), _) => (format!("✗ {error}"), t.error),
        (
            None,
            FormKind::ChangeSignature {
                language,
                is_method,
                ..
            },
        ) => (
            signature_hint(*language, *is_method, &form.input_text()),
            t.dim,
        ),
        (None, FormKind::Move { .. }) => {
            let typed = form.input_text();
            let typed = typed.trim();
            let name = typed.rsplit('/').next().unwrap_or(typed);
            let text = if typed.is_empty() || !name.contains('.') {
                "Tab completes an existing file; a new path creates the file"
            } else if state.picker.files.iter().any(|f| f == typed) {
                "existing file: the item is added to it"
            } else {
                match &form.folder {
                    Some((_, Some(true))) => "new file: it will be created",
                    Some((_, Some(false))) => "",
                    _ => "new file: checking its folder…",
                }
            };
            (text.to_string(), t.dim)
        }
        (
            None,
            FormKind::Extract { .. }
            | FormKind::Rename { .. }
            | FormKind::ExtractVariable { .. }
            | FormKind::IntroduceParameter { .. },
        ) => (
            "a new name: letters, digits and _, not a keyword".to_string(),
            t.dim,
        ),
    };
    super::wrap(&text, width.max(10))
        .into_iter()
        .map(|l| Line::from(Span::styled(l, style)))
        .collect()
}

/// The form's title, the sentence about what it acts on, and the input's label.
fn heading(kind: &FormKind) -> (&'static str, String, &'static str) {
    match kind {
        FormKind::Extract {
            file, start, end, ..
        } => {
            let lines = if start == end {
                format!("line {start}")
            } else {
                format!("lines {start}\u{2013}{end}")
            };
            (
                " Extract function ",
                format!("Extract {lines} of {file} into a new function."),
                "New function name",
            )
        }
        FormKind::Move { file, target } => (
            " Move to file ",
            format!(
                "Move {} (line {}) out of {file}.",
                target.label, target.line
            ),
            "Target file",
        ),
        FormKind::ChangeSignature { file, target, .. } => (
            " Change signature ",
            format!(
                "Change the parameters of {} (line {} of {file}); call sites follow.",
                target.label, target.line
            ),
            "Parameters",
        ),
        FormKind::Rename {
            file, name, line, ..
        } => (
            " Rename ",
            format!(
                "Rename `{name}` (line {line} of {file}) and its references; possible ones are listed, not renamed."
            ),
            "New name",
        ),
        FormKind::ExtractVariable {
            file,
            start,
            expression,
            ..
        } => (
            " Extract variable ",
            format!(
                "Bind `{}` (line {} of {file}) to a new local before its statement.",
                super::fit::shorten(expression, 60),
                start.0
            ),
            "New variable name",
        ),
        FormKind::IntroduceParameter {
            file,
            expression,
            start,
            function,
            ..
        } => (
            " Introduce parameter ",
            format!(
                "Make `{expression}` (line {} of {file}) a new last parameter of {function}; its callers pass it.",
                start.0
            ),
            "Parameter name",
        ),
    }
}

/// What the parameter list will become, or what the receiver is (read as the engine reads it);
/// for a Rust parameter typed with `= expr`, that its callers pass `expr`.
fn signature_hint(language: Language, is_method: bool, text: &str) -> String {
    match read_typed_list(language, text, is_method) {
        Ok(typed) => {
            let count = typed.parameters.len() - usize::from(typed.receiver.is_some());
            let mut hint = format!("{count} parameter{}", if count == 1 { "" } else { "s" });
            if let Some(receiver) = typed.receiver {
                hint.push_str(&format!("; the receiver `{receiver}` stays as it is"));
            }
            if language == Language::Rust {
                for p in typed.parameters.iter().filter(|p| p.default.is_some()) {
                    hint.push_str(&format!(
                        "; callers pass `{}` for the new `{}`",
                        p.default.as_deref().unwrap_or_default(),
                        p.name
                    ));
                }
            }
            hint
        }
        Err(_) => String::new(),
    }
}

/// The screen rows of the lines the form is about (the selection, else the cursor line), so the
/// form does not hide them.
fn focus_rows(state: &State) -> Option<(u16, u16)> {
    let code = state.code.as_ref()?;
    let (first, last) = code.selected_lines().unwrap_or((code.cursor, code.cursor));
    let area = layout::code(state.size, layout::outline_always_shown(state.size)).code;
    let to_row = |line: usize| -> u16 {
        let offset = line.saturating_sub(code.top).min(area.height as usize) as u16;
        area.y + offset
    };
    Some((to_row(first), to_row(last)))
}
