//! What the status line says, per context: the pieces on the left with their priorities (the
//! cursor or selection first, then what `i`/`c`/`m` would act on, then offers like undo) and
//! the key hints on the right, in the order they give way.

use ratatui::style::{Modifier, Style};
use ratatui::text::Span;

use crate::tui::aim;
use crate::tui::keymap::{Command, Context};
use crate::tui::state::{CodeView, NotesMode, State};

use super::fit::Piece;
use super::spinner;

/// The hints of the contexts whose hints never change: the sites list, the confirmation and
/// the questions.
fn fixed_hints(context: Context) -> &'static [(Command, &'static str)] {
    match context {
        Context::Sites => &[
            (Command::ToggleSite, "leave out / write"),
            (Command::ToggleFile, "whole file"),
            (Command::ToggleAll, "all"),
            (Command::Back, "back to diff"),
        ],
        Context::Confirm => &[(Command::Yes, "apply"), (Command::No, "back")],
        Context::Ask => &[(Command::Yes, "yes"), (Command::No, "no")],
        _ => &[],
    }
}

/// (left pieces, (key, label) hints).
pub fn pieces(state: &State) -> (Vec<Piece<'static>>, Vec<(String, String)>) {
    let t = &state.theme;
    let context = state.context();
    let keys = &state.keymap;
    let hint = |from: Context, command: Command, label: &str| {
        (keys.hint_in(context, from, command), label.to_string())
    };
    let mut left: Vec<Piece> = Vec::new();
    let hints: Vec<(String, String)> = match context {
        Context::Picker => {
            let p = &state.picker;
            left.push(Piece::new(
                0,
                vec![Span::raw(format!(
                    " {} of {} files",
                    p.matches.len(),
                    p.files.len()
                ))],
            ));
            if let Some((done, total)) = p.indexing {
                left.push(Piece::new(
                    1,
                    vec![Span::styled(
                        format!(" {} indexing {done}/{total} files", spinner(state)),
                        t.info,
                    )],
                ));
            } else if p.scanning {
                left.push(Piece::new(
                    1,
                    vec![Span::styled(
                        format!(" {} scanning", spinner(state)),
                        t.info,
                    )],
                ));
            }
            vec![
                hint(Context::Picker, Command::Open, "open"),
                hint(Context::Picker, Command::Back, "back"),
                hint(Context::Global, Command::Help, "help"),
            ]
        }
        Context::Code | Context::Outline | Context::Prompt => {
            code_pieces(state, &mut left);
            match context {
                Context::Outline => vec![
                    hint(Context::Outline, Command::SelectSymbol, "jump"),
                    hint(Context::Outline, Command::Back, "close"),
                    hint(Context::Global, Command::Help, "help"),
                ],
                Context::Prompt => vec![
                    hint(Context::Prompt, Command::Submit, "go"),
                    hint(Context::Prompt, Command::Cancel, "cancel"),
                ],
                _ if !state.trust.allows_project_programs() => vec![
                    hint(Context::Code, Command::SelectLines, "select"),
                    hint(Context::Code, Command::Extract, "extract"),
                    hint(Context::Code, Command::Inline, "inline"),
                    hint(Context::Code, Command::MoveToFile, "move"),
                    hint(Context::Code, Command::ChangeSignature, "signature"),
                    hint(Context::Code, Command::Rename, "rename"),
                    hint(Context::Code, Command::Search, "search"),
                    hint(Context::Code, Command::Outline, "outline"),
                    hint(Context::Code, Command::Trust, "trust"),
                    hint(Context::Global, Command::Help, "help"),
                ],
                _ => vec![
                    hint(Context::Code, Command::SelectLines, "select"),
                    hint(Context::Code, Command::Extract, "extract"),
                    hint(Context::Code, Command::Inline, "inline"),
                    hint(Context::Code, Command::MoveToFile, "move"),
                    hint(Context::Code, Command::ChangeSignature, "signature"),
                    hint(Context::Code, Command::Rename, "rename"),
                    hint(Context::Code, Command::Search, "search"),
                    hint(Context::Code, Command::Outline, "outline"),
                    hint(Context::Global, Command::Help, "help"),
                ],
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
                    left.push(Piece::new(
                        0,
                        vec![Span::styled(
                            format!(" {} computing", spinner(state)),
                            t.info,
                        )],
                    ));
                }
                if p.stale.is_some() {
                    left.push(Piece::new(0, vec![Span::styled(" STALE ", t.stale)]));
                }
            }
            if state.preview().is_some_and(|p| p.ready().is_some()) {
                vec![
                    hint(Context::Preview, Command::Apply, "apply"),
                    hint(Context::Preview, Command::FocusWarnings, "findings"),
                    hint(Context::Preview, Command::NextHunk, "next hunk"),
                    hint(Context::Preview, Command::Back, "cancel"),
                    hint(
                        Context::Preview,
                        Command::Zoom,
                        if state.split.zoom {
                            "warnings"
                        } else {
                            "diff only"
                        },
                    ),
                    hint(Context::Global, Command::Help, "help"),
                ]
            } else {
                vec![
                    hint(Context::Preview, Command::Back, "back"),
                    hint(Context::Global, Command::Help, "help"),
                ]
            }
        }
        Context::Findings => {
            let notes = match state.preview().map(|p| p.notes) {
                Some(NotesMode::Folded) | None => "every note",
                Some(NotesMode::All) => "hide notes",
                Some(NotesMode::Hidden) => "fold notes",
            };
            vec![
                hint(Context::Findings, Command::Jump, "jump or open"),
                hint(Context::Findings, Command::ToggleNotes, notes),
                hint(Context::Findings, Command::FocusSites, "sites"),
                hint(Context::Findings, Command::Back, "back to diff"),
            ]
        }
        Context::Sites | Context::Confirm | Context::Ask => fixed_hints(context)
            .iter()
            .map(|(command, label)| hint(context, *command, label))
            .collect(),
        Context::Help | Context::Global | Context::Input => vec![
            hint(Context::Help, Command::Down, "scroll"),
            hint(Context::Help, Command::Back, "close help"),
        ],
    };
    if state.writing.is_some() {
        left.push(Piece::new(
            0,
            vec![Span::styled(format!(" {} writing", spinner(state)), t.info)],
        ));
    }
    // The index's first build, seen from wherever the session started (the picker says it above).
    if let (Some((done, total)), false) = (state.picker.indexing, context == Context::Picker) {
        left.push(Piece::new(
            2,
            vec![Span::styled(
                format!(" {} indexing {done}/{total} files", spinner(state)),
                t.info,
            )],
        ));
    }
    (left, hints)
}

/// The code view's pieces: where the cursor is (or the selection), a count or sequence being
/// typed, what `i`/`c`/`m` act on, and the offers to undo or return to a preview.
fn code_pieces(state: &State, left: &mut Vec<Piece<'static>>) {
    let t = &state.theme;
    let keys = &state.keymap;
    let Some(code) = &state.code else {
        if let Some(loading) = &state.loading {
            left.push(Piece::new(
                0,
                vec![Span::raw(format!(
                    " {} opening {}",
                    spinner(state),
                    loading.path
                ))],
            ));
        }
        return;
    };
    let bold = Style::default().add_modifier(Modifier::BOLD);
    let place = code
        .selection_label()
        .unwrap_or_else(|| format!("line {}/{}", code.cursor + 1, code.doc.line_count()));
    left.push(Piece::new(0, vec![Span::styled(format!(" {place}"), bold)]));
    if code.visual {
        left.push(Piece::new(1, vec![Span::styled(" (selecting)", t.info)]));
    }
    let typed: String = state
        .count
        .map(|n| n.to_string())
        .into_iter()
        .chain(state.pending_keys.iter().map(ToString::to_string))
        .collect();
    if !typed.is_empty() {
        left.push(Piece::new(
            0,
            vec![Span::styled(format!(" {typed}"), t.info)],
        ));
    }
    if let Some(on) = aim_label(code) {
        left.push(Piece::new(1, vec![Span::styled(on, t.dim)]));
    }
    if let Some(applied) = &state.last_applied {
        left.push(Piece::new(
            3,
            vec![Span::styled(
                format!(
                    "  {} undo {}",
                    keys.hint(Context::Code, Command::Undo),
                    applied.label
                ),
                t.ok,
            )],
        ));
    }
    if state.parked.is_some() {
        left.push(Piece::new(
            3,
            vec![Span::styled(
                format!(
                    "  {} back to preview",
                    keys.hint(Context::Code, Command::ReturnToPreview)
                ),
                t.info,
            )],
        ));
    }
}

/// ` on a call of def line_total` / ` in def order_total`: what `i`, `c` and `m` act on when
/// nothing is selected.
fn aim_label(code: &CodeView) -> Option<String> {
    if code.selection.is_some() {
        return None;
    }
    let described = aim::describe(&code.doc, &code.aim)?;
    Some(if code.aim.on_name() {
        format!(" · on {described}")
    } else {
        format!(" · {described}")
    })
}
