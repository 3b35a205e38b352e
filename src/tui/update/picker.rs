//! The file picker: moving in the matches, opening one, typing the filter.

use crate::tui::effect::Effect;
use crate::tui::input;
use crate::tui::keymap::{Command, Context, Key};
use crate::tui::layout;
use crate::tui::state::*;

use super::load;

pub(super) fn key(
    state: &mut State,
    command: Option<Command>,
    key: Key,
    fx: &mut Vec<Effect>,
) -> Screen {
    let page = layout::picker(state.size).list.height.max(1) as usize;
    let picker = &mut state.picker;
    let last = picker.matches.len().saturating_sub(1);
    match command {
        Some(Command::Up) => picker.selected = picker.selected.saturating_sub(1),
        Some(Command::Down) => picker.selected = (picker.selected + 1).min(last),
        Some(Command::PageUp) => picker.selected = picker.selected.saturating_sub(page),
        Some(Command::PageDown) => picker.selected = (picker.selected + page).min(last),
        Some(Command::Top) => picker.selected = 0,
        Some(Command::Bottom) => picker.selected = last,
        Some(Command::Open) => match picker.selected_path().map(str::to_string) {
            Some(path) => load(state, &path, Some(0), true, fx),
            None if picker.scanning => {
                state.info("no file matches yet; the project is still being scanned")
            }
            None => state.warn("no Rust or Python file matches; change the filter"),
        },
        Some(Command::Back) => {
            if state.code.is_some() {
                return Screen::Code;
            }
            let quit = state.keymap.hint(Context::Global, Command::Quit);
            state.info(format!("pick a file to open with Enter ({quit} quits)"));
        }
        _ => {
            if input::edit(&mut picker.query, command, key) {
                picker.refilter(None);
            }
        }
    }
    Screen::Picker
}
