//! The code view and its outline: cursor motions, line selection, symbol selection, and the keys
//! that start a refactor, open the picker or return to a pending preview.

use crate::tui::effect::Effect;
use crate::tui::keymap::Command;
use crate::tui::layout;
use crate::tui::state::*;

use super::{refactor, writes};

pub(super) fn outline_shown(state: &State) -> bool {
    layout::outline_always_shown(state.size)
        || state
            .code
            .as_ref()
            .is_some_and(|c| c.focus == CodeFocus::Outline)
}

/// Rows of code on screen.
pub(super) fn code_height(state: &State) -> usize {
    (layout::code(state.size, outline_shown(state)).code.height as usize).max(1)
}

/// Scrolls so the cursor has a few lines of context around it, like `scrolloff`.
pub(super) fn keep_cursor_visible(state: &mut State) {
    let height = code_height(state);
    let margin = (height / 4).min(3);
    if let Some(code) = state.code.as_mut() {
        let last = code.doc.line_count().saturating_sub(1);
        if code.cursor < code.top + margin {
            code.top = code.cursor.saturating_sub(margin);
        } else if code.cursor + margin >= code.top + height {
            code.top = (code.cursor + margin + 1).saturating_sub(height);
        }
        // No empty screen below the end of the file.
        code.top = code.top.min((last + 1).saturating_sub(height));
    }
}

pub(super) fn key(state: &mut State, command: Option<Command>, fx: &mut Vec<Effect>) -> Screen {
    let height = code_height(state);
    let Some(command) = command else {
        return Screen::Code;
    };
    let Some(code) = state.code.as_mut() else {
        // The first file is still being read.
        return match command {
            Command::OpenPicker => Screen::Picker,
            _ => Screen::Code,
        };
    };
    let last = code.doc.line_count().saturating_sub(1);
    let mut moved = None;
    match command {
        Command::Up => moved = Some(code.cursor.saturating_sub(1)),
        Command::Down => moved = Some((code.cursor + 1).min(last)),
        Command::PageUp => moved = Some(code.cursor.saturating_sub(height)),
        Command::PageDown => moved = Some((code.cursor + height).min(last)),
        Command::Top => moved = Some(0),
        Command::Bottom => moved = Some(last),
        Command::SelectLines => {
            if code.visual {
                code.visual = false;
            } else {
                code.visual = true;
                code.selection = Some(Selection::Lines {
                    anchor: code.cursor,
                    head: code.cursor,
                });
            }
        }
        Command::ExtendUp | Command::ExtendDown => {
            let anchor = match code.selection {
                Some(Selection::Lines { anchor, .. }) => anchor,
                _ => code.cursor,
            };
            code.cursor = if command == Command::ExtendUp {
                code.cursor.saturating_sub(1)
            } else {
                (code.cursor + 1).min(last)
            };
            code.selection = Some(Selection::Lines {
                anchor,
                head: code.cursor,
            });
        }
        Command::ClearSelection => {
            code.selection = None;
            code.visual = false;
        }
        Command::Outline => {
            code.focus = CodeFocus::Outline;
            if let Some(i) = code.doc.symbol_at(code.cursor, |_| true) {
                code.outline_cursor = i;
            }
        }
        Command::OpenPicker => return Screen::Picker,
        Command::ReturnToPreview => {
            return match state.parked.take() {
                Some(preview) => Screen::Preview {
                    preview,
                    form: None,
                },
                None => {
                    state.info("there is no pending preview");
                    Screen::Code
                }
            };
        }
        Command::Undo => writes::undo(state, fx),
        Command::Extract => return refactor::start_extract(state),
        Command::Inline => return refactor::start_inline(state, fx),
        Command::MoveToFile => return refactor::start_move(state),
        Command::ChangeSignature => return refactor::start_change_signature(state),
        _ => {}
    }
    if let Some(line) = moved
        && let Some(code) = state.code.as_mut()
    {
        code.cursor = line;
        if code.visual
            && let Some(Selection::Lines { head, .. }) = code.selection.as_mut()
        {
            *head = line;
        }
    }
    keep_cursor_visible(state);
    Screen::Code
}

pub(super) fn outline_key(state: &mut State, command: Option<Command>) -> Screen {
    let height = layout::code(state.size, true)
        .outline
        .map_or(1, |r| r.height.max(1) as usize);
    let Some(code) = state.code.as_mut() else {
        return Screen::Code;
    };
    let last = code.doc.symbols.len().saturating_sub(1);
    match command {
        Some(Command::Up) => code.outline_cursor = code.outline_cursor.saturating_sub(1),
        Some(Command::Down) => code.outline_cursor = (code.outline_cursor + 1).min(last),
        Some(Command::PageUp) => code.outline_cursor = code.outline_cursor.saturating_sub(height),
        Some(Command::PageDown) => code.outline_cursor = (code.outline_cursor + height).min(last),
        Some(Command::Top) => code.outline_cursor = 0,
        Some(Command::Bottom) => code.outline_cursor = last,
        Some(Command::SelectSymbol) => {
            select_symbol(code, code.outline_cursor);
            keep_cursor_visible(state);
        }
        Some(Command::Back) => {
            code.focus = CodeFocus::Code;
            keep_cursor_visible(state);
        }
        _ => {}
    }
    Screen::Code
}

pub(super) fn select_symbol(code: &mut CodeView, index: usize) {
    let Some(symbol) = code.doc.symbols.get(index) else {
        return;
    };
    code.selection = Some(Selection::Symbol(index));
    code.visual = false;
    code.cursor = symbol.line.saturating_sub(1);
    code.top = symbol.first_line.saturating_sub(1).min(code.cursor);
    code.focus = CodeFocus::Code;
}
