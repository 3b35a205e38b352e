//! The state machine: `update(state, action)` changes the state and returns the effects the
//! runtime must perform. No terminal, no disk, no clock: every flow can be driven by actions.
//! One module per screen, like `view/`; a screen's handler takes the screen's data by value and
//! returns the screen that comes next, so a transition is a value, never a flag beside an
//! `Option`.

mod check;
mod code;
mod form;
mod mouse;
mod picker;
mod preview;
mod refactor;
pub mod sites;
mod trust;
mod watch;
mod writes;

#[cfg(test)]
mod tests;

use ratatui::crossterm::event::KeyCode;

use super::action::Action;
use super::document::Document;
use super::effect::Effect;
use super::keymap::{Command, Context, Key, Resolved};
use super::layout;
use super::state::*;

/// The effects to start with: walk the project, and open `file` when one was given.
pub fn start(state: &mut State, file: Option<String>) -> Vec<Effect> {
    let mut fx = vec![Effect::StartWalk];
    if let Some(path) = file {
        state.screen = Screen::Code;
        load(state, &path, Some(0), true, &mut fx);
    }
    watch::sync_watch(state, &mut fx);
    fx
}

/// Applies one action.
pub fn update(state: &mut State, action: Action) -> Vec<Effect> {
    let mut fx = Vec::new();
    match action {
        Action::Key(event) => {
            if let Some(key) = Key::from_event(&event) {
                on_key(state, key, &mut fx);
            }
        }
        Action::Mouse(event) => mouse::on_mouse(state, event),
        Action::Paste(text) => on_paste(state, &text, &mut fx),
        Action::Resize(width, height) => {
            state.size = (width, height);
            code::keep_cursor_visible(state);
        }
        Action::Tick => {
            if state.busy() {
                state.spinner = state.spinner.wrapping_add(1);
            }
        }
        Action::FilesFound(files) => {
            state.picker.add_files(files);
            if let Screen::Form(form) = &mut state.screen {
                form::refresh_completions(form, &state.picker.files);
            }
        }
        Action::IndexProgress { done, total } => {
            state.picker.indexing = (done < total).then_some((done, total));
        }
        Action::WalkFinished { error } => {
            state.picker.scanning = false;
            state.picker.indexing = None;
            state.picker.error = error;
        }
        Action::FileLoaded { id, result } => on_loaded(state, id, result, &mut fx),
        Action::PreviewReady { id, result } => preview::on_preview(state, id, result, &mut fx),
        Action::CheckProgress { id, step, files } => check::on_progress(state, id, step, files),
        Action::Checked { id, verification } => check::on_checked(state, id, *verification),
        Action::Applied { id, result } => writes::on_applied(state, id, result, &mut fx),
        Action::Undone { id, result } => writes::on_undone(state, id, result, &mut fx),
        Action::JournalChanged => writes::check_undo(state, &mut fx),
        Action::FocusGained => {
            // The user may have run `candor undo` or `candor trust` meanwhile.
            writes::check_undo(state, &mut fx);
            fx.push(Effect::ReadTrust);
        }
        Action::UndoChecked {
            transaction,
            state: journal_state,
        } => writes::on_undo_checked(state, &transaction, journal_state),
        Action::FilesChanged(changed) => watch::on_files_changed(state, &changed, &mut fx),
        Action::LspStatus(status) => state.lsp_status = status,
        Action::TrustStoreChanged => fx.push(Effect::ReadTrust),
        Action::TrustRead(result) => trust::on_read(state, result, false, &mut fx),
        Action::TrustSet(result) => trust::on_read(state, result, true, &mut fx),
        Action::EngineReopened { trust } => state.trust = trust,
        Action::FolderChecked { dir, exists } => form::on_folder(state, dir, exists),
        Action::Failed(message) => state.error(message),
    }
    watch::sync_watch(state, &mut fx);
    fx
}

fn on_key(state: &mut State, key: Key, fx: &mut Vec<Effect>) {
    // Keys typed while a file picked in the picker is being opened are meant for its code view.
    if matches!(state.screen, Screen::Picker)
        && state.help.is_none()
        && state.loading.as_ref().is_some_and(|l| l.show)
    {
        if state.keymap.command(Context::Picker, key) == Some(Command::Quit) {
            state.quit = true;
        } else {
            state.typeahead.push(key);
        }
        return;
    }
    let context = state.context();
    // A count before a motion: `5j`, `52G` (`0` alone is a motion of the code view).
    if takes_count(context)
        && state.pending_keys.is_empty()
        && let Some(digit) = count_digit(key, state.count.is_some())
    {
        state.count = Some(
            state
                .count
                .unwrap_or(0)
                .saturating_mul(10)
                .saturating_add(digit),
        );
        return;
    }
    let command = match state.keymap.resolve(context, &state.pending_keys, key) {
        Resolved::Pending => {
            state.pending_keys.push(key);
            return;
        }
        Resolved::Command(command) => Some(command),
        Resolved::Unbound => None,
    };
    state.pending_keys.clear();
    let count = state.count.take();
    if command == Some(Command::Quit) {
        state.quit = true;
        return;
    }
    // A notice lasts until the next key.
    state.notice = None;
    if command == Some(Command::Help) {
        // At the keys of the screen it was asked from.
        state.help = Some(state.keymap.help_line_of(context));
        return;
    }
    if context == Context::Help {
        return help_key(state, command, count);
    }
    if context == Context::Ask {
        return trust::answer(state, command, fx);
    }
    if command == Some(Command::Trust) {
        return trust::ask(state);
    }
    // The screen's data goes to its handler, which says what comes next.
    state.screen = match std::mem::replace(&mut state.screen, Screen::Code) {
        Screen::Picker => picker::key(state, command, key, fx),
        Screen::Code => match context {
            Context::Prompt => code::prompt_key(state, command, key),
            Context::Outline => code::outline_key(state, command, key),
            _ => code::key(state, command, count, fx),
        },
        Screen::Form(form) => form::key(state, form, command, key, fx),
        Screen::Preview { preview, form } => {
            preview::key(state, preview, form, context, command, count, fx)
        }
    };
}

/// Whether a number typed before a key is a count there (not text typed into a field).
fn takes_count(context: Context) -> bool {
    matches!(
        context,
        Context::Code | Context::Preview | Context::Findings | Context::Sites | Context::Help
    )
}

/// The digit of a key that continues (or, for 1–9, starts) a count.
fn count_digit(key: Key, counting: bool) -> Option<usize> {
    match key.code {
        KeyCode::Char(c) if key.is_plain_char() && c.is_ascii_digit() => {
            let digit = c as usize - '0' as usize;
            (digit > 0 || counting).then_some(digit)
        }
        _ => None,
    }
}

fn help_key(state: &mut State, command: Option<Command>, count: Option<usize>) {
    let lines = crate::tui::view::help_line_count(state);
    let page = layout::help(state.size).height.saturating_sub(2) as usize;
    let Some(scroll) = state.help.as_mut() else {
        return;
    };
    let n = count.unwrap_or(1).max(1);
    let last = lines.saturating_sub(page);
    // Where the view stops scrolling: keys further down would do nothing visible.
    *scroll = (*scroll).min(last);
    match command {
        Some(Command::Up) => *scroll = scroll.saturating_sub(n),
        Some(Command::Down) => *scroll = (*scroll + n).min(last),
        Some(Command::PageUp) => *scroll = scroll.saturating_sub(page * n),
        Some(Command::PageDown) => *scroll = (*scroll + page * n).min(last),
        Some(Command::Top) => *scroll = count.map_or(0, |c| c.saturating_sub(1)).min(last),
        Some(Command::Bottom) => *scroll = count.map_or(last, |c| c.saturating_sub(1)).min(last),
        Some(Command::Back) => state.help = None,
        _ => {}
    }
}

fn on_paste(state: &mut State, text: &str, fx: &mut Vec<Effect>) {
    if state.help.is_some() {
        return;
    }
    let line = text.replace(['\n', '\r'], " ");
    match &mut state.screen {
        Screen::Picker => {
            state.picker.query.insert_str(&line);
            state.picker.refilter(None);
        }
        Screen::Form(form) => {
            form.input.insert_str(&line);
            form::changed(
                form,
                &state.picker.files,
                state.code.as_ref().map(|c| &c.doc),
                fx,
            );
        }
        Screen::Code => {
            if let Some(code) = state.code.as_mut() {
                if let Some(prompt) = code.prompt.as_mut() {
                    prompt.input.insert_str(&line);
                } else if code.focus == CodeFocus::Outline {
                    code.outline.input.insert_str(&line);
                    code.outline.refilter(&code.doc);
                    code.outline_cursor = 0;
                }
            }
        }
        _ => {}
    }
}

/// Reads `path` for the code view; `goto` is the 0-based line to put the cursor on (`None`
/// keeps the place in the same file), `show` switches to the code view once it is read.
fn load(state: &mut State, path: &str, goto: Option<usize>, show: bool, fx: &mut Vec<Effect>) {
    let id = state.fresh_id();
    // A newer load replaces a pending one, but not its promise to show the file.
    let show = show || state.loading.as_ref().is_some_and(|l| l.show);
    state.loading = Some(Loading {
        id,
        path: path.to_string(),
        goto,
        show,
    });
    fx.push(Effect::LoadFile {
        id,
        path: path.to_string(),
    });
}

fn on_loaded(
    state: &mut State,
    id: u64,
    result: Result<Box<Document>, String>,
    fx: &mut Vec<Effect>,
) {
    let Some(loading) = state.loading.take_if(|l| l.id == id) else {
        return;
    };
    let height = code::code_height(state);
    match result {
        Ok(doc) => {
            match state.code.as_mut() {
                Some(code) if code.doc.path == doc.path && loading.goto.is_none() => {
                    reload_keeping_place(code, *doc)
                }
                _ => {
                    if state.backend != crate::backend::BackendChoice::TreeSitter {
                        fx.push(Effect::WarmUp {
                            path: doc.path.clone(),
                        });
                    }
                    let mut code = CodeView::new(*doc);
                    code.cursor = loading
                        .goto
                        .unwrap_or(0)
                        .min(code.doc.line_count().saturating_sub(1));
                    code.top = code.cursor.saturating_sub(height / 3);
                    state.code = Some(code);
                }
            }
            if loading.show && matches!(state.screen, Screen::Picker | Screen::Code) {
                state.screen = Screen::Code;
            }
            code::keep_cursor_visible(state);
            // The keys typed while it opened, as if typed now.
            for key in std::mem::take(&mut state.typeahead) {
                on_key(state, key, fx);
            }
        }
        Err(message) => {
            state.typeahead.clear();
            state.error(format!("cannot open {}: {message}", loading.path));
            if state.code.is_none() {
                state.screen = Screen::Picker;
            }
        }
    }
}

/// The same file with new text: the cursor stays near its line, the selection where it can.
fn reload_keeping_place(code: &mut CodeView, doc: Document) {
    let last = doc.line_count().saturating_sub(1);
    code.selection = match code.selection {
        Some(Selection::Lines { anchor, head }) if anchor.max(head) <= last => {
            Some(Selection::Lines { anchor, head })
        }
        Some(Selection::Symbol(i)) => code
            .doc
            .symbols
            .get(i)
            .and_then(|s| doc.find_symbol(&s.name_path, s.kind, s.line))
            .map(Selection::Symbol),
        _ => None,
    };
    if code.selection.is_none() {
        code.visual = false;
    }
    code.cursor = code.cursor.min(last);
    code.top = code.top.min(last);
    code.doc = doc;
    code.outline.refilter(&code.doc);
    code.outline_cursor = code
        .outline_cursor
        .min(code.outline.matches.len().saturating_sub(1));
}
