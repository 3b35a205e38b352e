//! The state machine: `update(state, action)` changes the state and returns the effects the
//! runtime must perform. No terminal, no disk, no clock: every flow can be driven by actions.

use ratatui::crossterm::event::{KeyEvent, MouseButton, MouseEvent, MouseEventKind};
use ratatui_textarea::{Input, Key as TextKey, TextArea};
use serde_json::{Value, json};

use crate::api::{ApiError, ErrorCode};
use crate::honesty::Tool;
use crate::lang::Language;
use crate::lang::symbols::Symbol;
use crate::workspace::write::ApplyReport;

use super::action::Action;
use super::diffview;
use super::document::Document;
use super::effect::Effect;
use super::keymap::{Command, Context, Key};
use super::layout;
use super::params;
use super::state::*;

/// The effects to start with: walk the project, and open `file` when one was given.
pub fn start(state: &mut State, file: Option<String>) -> Vec<Effect> {
    let mut fx = vec![Effect::StartWalk];
    if let Some(path) = file {
        state.screen = Screen::Code;
        load(state, &path, Some(0), true, &mut fx);
    }
    sync_watch(state, &mut fx);
    fx
}

/// Applies one action.
pub fn update(state: &mut State, action: Action) -> Vec<Effect> {
    let mut fx = Vec::new();
    match action {
        Action::Key(event) => {
            if let Some(key) = Key::from_event(&event) {
                on_key(state, key, event, &mut fx);
            }
        }
        Action::Mouse(event) => on_mouse(state, event),
        Action::Paste(text) => on_paste(state, &text),
        Action::Resize(width, height) => {
            state.size = (width, height);
            keep_cursor_visible(state);
        }
        Action::Tick => {
            if state.busy() {
                state.spinner = state.spinner.wrapping_add(1);
            }
        }
        Action::FilesFound(files) => {
            state.picker.add_files(files);
            if let Some(form) = state.form.as_mut() {
                refresh_completions(form, &state.picker.files);
            }
        }
        Action::WalkFinished { error } => {
            state.picker.scanning = false;
            state.picker.error = error;
        }
        Action::FileLoaded { id, result } => on_loaded(state, id, result, &mut fx),
        Action::PreviewReady { id, result } => on_preview(state, id, result),
        Action::Applied { id, result } => on_applied(state, id, result, &mut fx),
        Action::Undone { id, result } => on_undone(state, id, result, &mut fx),
        Action::FilesChanged(changed) => on_files_changed(state, &changed, &mut fx),
        Action::LspStatus(status) => state.lsp_status = status,
    }
    sync_watch(state, &mut fx);
    fx
}

fn on_key(state: &mut State, key: Key, event: KeyEvent, fx: &mut Vec<Effect>) {
    let context = state.context();
    let command = state.keymap.command(context, key);
    if command == Some(Command::Quit) {
        state.quit = true;
        return;
    }
    // A notice lasts until the next key.
    state.notice = None;
    if command == Some(Command::Help) {
        state.help = Some(0);
        return;
    }
    match context {
        Context::Help => help_key(state, command),
        Context::Picker => picker_key(state, command, event, fx),
        Context::Code => code_key(state, command, fx),
        Context::Outline => outline_key(state, command),
        Context::Form => form_key(state, command, event, fx),
        Context::Preview => preview_key(state, command, fx),
        Context::Findings => findings_key(state, command, fx),
        Context::Confirm => confirm_key(state, command, fx),
        Context::Global => {}
    }
}

fn help_key(state: &mut State, command: Option<Command>) {
    let Some(scroll) = state.help.as_mut() else {
        return;
    };
    let page = layout::help(state.size).height.saturating_sub(2) as usize;
    match command {
        Some(Command::Up) => *scroll = scroll.saturating_sub(1),
        Some(Command::Down) => *scroll += 1,
        Some(Command::PageUp) => *scroll = scroll.saturating_sub(page),
        Some(Command::PageDown) => *scroll += page,
        Some(Command::Back) => state.help = None,
        _ => {}
    }
}

/// Feeds a key to a one-line input; Enter, Tab and Esc never reach it.
fn type_into(input: &mut TextArea<'static>, event: KeyEvent) -> bool {
    let input_event = Input::from(event);
    match input_event.key {
        TextKey::Enter
        | TextKey::Tab
        | TextKey::Esc
        | TextKey::Null
        | TextKey::Char('\n' | '\r') => false,
        TextKey::Char('m') if input_event.ctrl => false,
        _ => input.input(input_event),
    }
}

fn set_input(input: &mut TextArea<'static>, text: &str) {
    input.select_all();
    input.cut();
    input.insert_str(text);
}

// ---------------------------------------------------------------------------------------------
// Picker

fn picker_key(state: &mut State, command: Option<Command>, event: KeyEvent, fx: &mut Vec<Effect>) {
    let page = layout::picker(state.size).list.height.max(1) as usize;
    let picker = &mut state.picker;
    let last = picker.matches.len().saturating_sub(1);
    match command {
        Some(Command::Up) => picker.selected = picker.selected.saturating_sub(1),
        Some(Command::Down) => picker.selected = (picker.selected + 1).min(last),
        Some(Command::PageUp) => picker.selected = picker.selected.saturating_sub(page),
        Some(Command::PageDown) => picker.selected = (picker.selected + page).min(last),
        Some(Command::Open) => match picker.selected_path().map(str::to_string) {
            Some(path) => load(state, &path, Some(0), true, fx),
            None if picker.scanning => {
                state.info("no file matches yet; the project is still being scanned")
            }
            None => state.warn("no Rust or Python file matches; change the filter"),
        },
        Some(Command::Back) => {
            if state.code.is_some() {
                state.screen = Screen::Code;
            } else {
                let quit = state.keymap.hint(Context::Global, Command::Quit);
                state.info(format!("pick a file to open with Enter ({quit} quits)"));
            }
        }
        _ => {
            if type_into(&mut picker.query, event) {
                picker.refilter(None);
            }
        }
    }
}

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
    let show = loading.show;
    let height = code_height(state);
    let mut warm_up = None;
    match result {
        Ok(doc) => {
            match state.code.as_mut() {
                Some(code) if code.doc.path == doc.path && loading.goto.is_none() => {
                    reload_keeping_place(code, *doc)
                }
                _ => {
                    if state.backend != crate::backend::BackendChoice::TreeSitter {
                        warm_up = Some(doc.path.clone());
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
            if show {
                state.screen = Screen::Code;
            }
            keep_cursor_visible(state);
            if let Some(path) = warm_up {
                fx.push(Effect::WarmUp { path });
            }
        }
        Err(message) => {
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
    code.outline_cursor = code.outline_cursor.min(doc.symbols.len().saturating_sub(1));
    code.doc = doc;
}

// ---------------------------------------------------------------------------------------------
// Code view and outline

fn outline_shown(state: &State) -> bool {
    layout::outline_always_shown(state.size)
        || state
            .code
            .as_ref()
            .is_some_and(|c| c.focus == CodeFocus::Outline)
}

fn code_height(state: &State) -> usize {
    (layout::code(state.size, outline_shown(state)).code.height as usize).max(1)
}

fn keep_cursor_visible(state: &mut State) {
    let height = code_height(state);
    // Keep a few lines of context around the cursor, like `scrolloff`.
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

fn code_key(state: &mut State, command: Option<Command>, fx: &mut Vec<Effect>) {
    let height = code_height(state);
    let Some(command) = command else { return };
    let Some(code) = state.code.as_mut() else {
        if command == Command::OpenPicker {
            state.screen = Screen::Picker;
        }
        return;
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
        Command::OpenPicker => state.screen = Screen::Picker,
        Command::ReturnToPreview => {
            if state.preview.is_some() {
                state.screen = Screen::Preview;
            } else {
                state.info("there is no pending preview");
            }
        }
        Command::Undo => undo(state, fx),
        Command::Extract => start_extract(state),
        Command::Inline => start_inline(state, fx),
        Command::MoveToFile => start_move(state),
        Command::ChangeSignature => start_change_signature(state),
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
}

fn outline_key(state: &mut State, command: Option<Command>) {
    let height = layout::code(state.size, true)
        .outline
        .map_or(1, |r| r.height.max(1) as usize);
    let Some(code) = state.code.as_mut() else {
        return;
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
}

fn select_symbol(code: &mut CodeView, index: usize) {
    let Some(symbol) = code.doc.symbols.get(index) else {
        return;
    };
    code.selection = Some(Selection::Symbol(index));
    code.visual = false;
    code.cursor = symbol.line.saturating_sub(1);
    code.top = symbol.first_line.saturating_sub(1).min(code.cursor);
    code.focus = CodeFocus::Code;
}

// ---------------------------------------------------------------------------------------------
// Starting a refactor

fn start_extract(state: &mut State) {
    let Some(code) = state.code.as_ref() else {
        return;
    };
    let (start, end) = match code.selection {
        Some(Selection::Lines { anchor, head }) => (anchor.min(head), anchor.max(head)),
        Some(Selection::Symbol(i)) => {
            let label = code
                .doc
                .symbols
                .get(i)
                .map(|s| symbol_label(&code.doc, s))
                .unwrap_or_default();
            let select = state.keymap.hint(Context::Code, Command::SelectLines);
            state.warn(format!(
                "extract works on lines: select the statements to extract with {select} (a whole {label} cannot be extracted)"
            ));
            return;
        }
        None => (code.cursor, code.cursor),
    };
    let form = Form {
        kind: FormKind::Extract {
            file: code.doc.path.clone(),
            start: start + 1,
            end: end + 1,
            language: code.doc.language,
        },
        input: new_input("the new function's name, e.g. print_header", ""),
        error: None,
        completions: Vec::new(),
        completion: None,
    };
    open_form(state, form);
}

/// The symbol a refactor targets: the selected one when it fits, else the innermost fitting
/// one around the cursor.
fn target_symbol(code: &CodeView, accept: impl Fn(&Symbol) -> bool) -> Option<usize> {
    if let Some(Selection::Symbol(i)) = code.selection
        && code.doc.symbols.get(i).is_some_and(&accept)
    {
        return Some(i);
    }
    code.doc.symbol_at(code.cursor, accept)
}

fn target_of(doc: &Document, index: usize) -> Option<Target> {
    let symbol = doc.symbols.get(index)?;
    Some(Target {
        name_path: symbol.name_path.clone(),
        line: symbol.line,
        label: symbol_label(doc, symbol),
    })
}

fn no_target(state: &mut State, what: &str, refactor: &str) {
    let outline = state.keymap.hint(Context::Code, Command::Outline);
    state.warn(format!(
        "put the cursor in {what}, or pick one in the outline ({outline}), to {refactor} it"
    ));
}

fn start_inline(state: &mut State, fx: &mut Vec<Effect>) {
    let Some(code) = state.code.as_ref() else {
        return;
    };
    let Some(target) =
        target_symbol(code, |s| s.kind.is_function()).and_then(|i| target_of(&code.doc, i))
    else {
        return no_target(state, "a function", "inline");
    };
    let file = code.doc.path.clone();
    let request = PreviewRequest {
        tool: Tool::InlineFunction,
        args: json!({"file_path": file, "function_name": target.name_path, "line": target.line}),
        title: format!("inline {} in {file}", target.label),
        origin: file,
        origin_line: code.cursor,
    };
    state.form = None;
    request_preview(state, request, fx);
}

fn start_move(state: &mut State) {
    let Some(code) = state.code.as_ref() else {
        return;
    };
    let Some(target) = target_symbol(code, |s| s.top_level).and_then(|i| target_of(&code.doc, i))
    else {
        return no_target(state, "a top-level item", "move");
    };
    let mut form = Form {
        kind: FormKind::Move {
            file: code.doc.path.clone(),
            target,
        },
        input: new_input("the target file, e.g. src/helpers.rs (Tab completes)", ""),
        error: None,
        completions: Vec::new(),
        completion: None,
    };
    refresh_completions(&mut form, &state.picker.files);
    open_form(state, form);
}

fn start_change_signature(state: &mut State) {
    let Some(code) = state.code.as_ref() else {
        return;
    };
    let Some(index) = target_symbol(code, |s| s.kind.is_function()) else {
        return no_target(state, "a function", "change the signature of");
    };
    let Some(target) = target_of(&code.doc, index) else {
        return;
    };
    let current = code
        .doc
        .parameters
        .get(index)
        .cloned()
        .flatten()
        .unwrap_or_else(|| "()".to_string());
    let is_method = code
        .doc
        .symbols
        .get(index)
        .is_some_and(|s| s.kind == crate::lang::symbols::SymbolKind::Method);
    let form = Form {
        kind: FormKind::ChangeSignature {
            file: code.doc.path.clone(),
            target,
            language: code.doc.language,
            is_method,
        },
        input: new_input(
            "the whole new parameter list, e.g. (a: i32, b: &str)",
            &current,
        ),
        error: None,
        completions: Vec::new(),
        completion: None,
    };
    open_form(state, form);
}

fn new_input(placeholder: &str, text: &str) -> TextArea<'static> {
    let mut input = TextArea::default();
    input.set_placeholder_text(placeholder);
    input.set_cursor_line_style(ratatui::style::Style::default());
    input.insert_str(text);
    input
}

fn open_form(state: &mut State, form: Form) {
    state.form = Some(form);
    state.screen = Screen::Form;
}

// ---------------------------------------------------------------------------------------------
// Forms

fn form_key(state: &mut State, command: Option<Command>, event: KeyEvent, fx: &mut Vec<Effect>) {
    let Some(form) = state.form.as_mut() else {
        state.screen = Screen::Code;
        return;
    };
    match command {
        Some(Command::Cancel) => {
            state.form = None;
            state.screen = Screen::Code;
        }
        Some(Command::Complete) => {
            if !form.completions.is_empty() {
                let next = form
                    .completion
                    .map_or(0, |i| (i + 1) % form.completions.len());
                form.completion = Some(next);
                let text = form.completions[next].clone();
                set_input(&mut form.input, &text);
                form.error = validate(form, false).err();
            }
        }
        Some(Command::Submit) => match validate(form, true) {
            Ok(args) => {
                let request =
                    preview_request(form, args, state.code.as_ref().map_or(0, |c| c.cursor));
                request_preview(state, request, fx);
            }
            Err(message) => form.error = Some(message),
        },
        _ => {
            if type_into(&mut form.input, event) {
                form.completion = None;
                form.error = validate(form, false).err();
                refresh_completions(form, &state.picker.files);
            }
        }
    }
}

fn on_paste(state: &mut State, text: &str) {
    let line = text.replace(['\n', '\r'], " ");
    match state.screen {
        Screen::Picker if state.help.is_none() => {
            state.picker.query.insert_str(&line);
            state.picker.refilter(None);
        }
        Screen::Form if state.help.is_none() => {
            if let Some(form) = state.form.as_mut() {
                form.input.insert_str(&line);
                form.error = validate(form, false).err();
                refresh_completions(form, &state.picker.files);
            }
        }
        _ => {}
    }
}

/// Checks the input; on success, the tool arguments. `submitting` also refuses an empty input
/// (while typing, an empty input is not yet an error).
fn validate(form: &Form, submitting: bool) -> Result<Value, String> {
    let text = form.input_text();
    let text = text.trim();
    match &form.kind {
        FormKind::Extract {
            file,
            start,
            end,
            language,
        } => {
            if text.is_empty() {
                return if submitting {
                    Err("type a name for the new function".to_string())
                } else {
                    Ok(Value::Null)
                };
            }
            language.validate_identifier(text)?;
            Ok(json!({"file_path": file, "start_line": start, "end_line": end, "new_name": text}))
        }
        FormKind::Move { file, target } => {
            if text.is_empty() {
                return if submitting {
                    Err("type the file to move it to, relative to the project root".to_string())
                } else {
                    Ok(Value::Null)
                };
            }
            let source_language = Language::from_path(file);
            let target_language = Language::from_path(text);
            let still_typing =
                !submitting && !text.rsplit('/').next().unwrap_or(text).contains('.');
            if still_typing {
                return Ok(Value::Null);
            }
            if target_language.is_none() || target_language != source_language {
                let (name, extensions) = source_language
                    .map(|l| {
                        (
                            l.name(),
                            l.extensions()
                                .iter()
                                .map(|e| format!(".{e}"))
                                .collect::<Vec<_>>()
                                .join(" or "),
                        )
                    })
                    .unwrap_or(("source", String::new()));
                return Err(format!(
                    "the target must be a {name} file ({extensions}), like the one the item is in"
                ));
            }
            if text.trim_start_matches("./") == file {
                return Err(format!(
                    "{} is already in {file}; choose another file",
                    target.label
                ));
            }
            Ok(
                json!({"file_path": file, "symbol_name": target.name_path, "line": target.line, "target_file": text}),
            )
        }
        FormKind::ChangeSignature {
            file,
            target,
            language,
            is_method,
        } => {
            let parsed = params::parse_parameters(*language, text, *is_method)?;
            Ok(json!({
                "file_path": file,
                "function_name": target.name_path,
                "line": target.line,
                "new_parameters": parsed.parameters,
            }))
        }
    }
}

fn preview_request(form: &Form, args: Value, cursor: usize) -> PreviewRequest {
    let text = form.input_text().trim().to_string();
    let (file, title) = match &form.kind {
        FormKind::Extract {
            file, start, end, ..
        } => {
            let lines = if start == end {
                format!("line {start}")
            } else {
                format!("lines {start}\u{2013}{end}")
            };
            (file, format!("extract {lines} of {file} into {text}"))
        }
        FormKind::Move { file, target } => {
            (file, format!("move {} from {file} to {text}", target.label))
        }
        FormKind::ChangeSignature { file, target, .. } => (
            file,
            format!("change signature of {} to {text}", target.label),
        ),
    };
    PreviewRequest {
        tool: form.kind.tool(),
        args,
        title,
        origin: file.clone(),
        origin_line: cursor,
    }
}

/// Move: the project's files of the same language that complete the input (prefix first, then
/// substring), without the source file.
fn refresh_completions(form: &mut Form, files: &[String]) {
    let FormKind::Move { file, .. } = &form.kind else {
        return;
    };
    if form.completion.is_some() {
        return;
    }
    let language = Language::from_path(file);
    let typed = form.input_text().trim().to_lowercase();
    let candidates = files
        .iter()
        .filter(|p| *p != file && Language::from_path(p) == language);
    let mut prefix: Vec<String> = Vec::new();
    let mut inside: Vec<String> = Vec::new();
    for path in candidates {
        let lower = path.to_lowercase();
        if lower.starts_with(&typed) {
            prefix.push(path.clone());
        } else if !typed.is_empty() && lower.contains(&typed) {
            inside.push(path.clone());
        }
    }
    prefix.append(&mut inside);
    prefix.truncate(50);
    form.completions = prefix;
}

// ---------------------------------------------------------------------------------------------
// Preview

fn request_preview(state: &mut State, request: PreviewRequest, fx: &mut Vec<Effect>) {
    let id = state.fresh_id();
    fx.push(Effect::Preview {
        id,
        tool: request.tool,
        args: request.args.clone(),
    });
    // The origin as the code view read it: what the request is based on.
    let based_on = state
        .code
        .iter()
        .filter(|c| c.doc.path == request.origin)
        .map(|c| (c.doc.path.clone(), Some(c.doc.sha256.clone())))
        .collect();
    state.preview = Some(Preview {
        request,
        id,
        computing: true,
        result: None,
        stale: None,
        based_on,
        file: 0,
        scroll: 0,
        hscroll: 0,
        focus: PreviewFocus::Diff,
        finding: 0,
        confirm: false,
        marked_row: None,
    });
    state.screen = Screen::Preview;
}

/// Asks again for the preview on screen because `changed` now holds other content (`sha256`,
/// when known); the old result stays visible, marked stale, until the answer arrives. The
/// request in flight, if any, is superseded (the runtime cancels it).
fn recompute(
    state: &mut State,
    changed: &str,
    sha256: Option<Option<String>>,
    fx: &mut Vec<Effect>,
) {
    let id = state.fresh_id();
    let Some(preview) = state.preview.as_mut() else {
        return;
    };
    if let Some(sha256) = sha256 {
        preview.based_on.insert(changed.to_string(), sha256);
    }
    preview.id = id;
    preview.computing = true;
    preview.stale = Some(changed.to_string());
    preview.confirm = false;
    fx.push(Effect::Preview {
        id,
        tool: preview.request.tool,
        args: preview.request.args.clone(),
    });
}

fn on_preview(state: &mut State, id: u64, result: Result<Box<Ready>, ApiError>) {
    let Some(preview) = state.preview.as_mut() else {
        return;
    };
    if preview.id != id {
        return; // an older request: the latest wins
    }
    let first = preview.result.is_none();
    preview.computing = false;
    preview.stale = None;
    preview.confirm = false;
    match &result {
        Ok(ready) => {
            // What the result was computed from is what the disk must still hold.
            for change in &ready.outcome.plan.changes {
                preview
                    .based_on
                    .insert(change.path.clone(), change.sha256_before.clone());
            }
            preview.file = preview.file.min(ready.diffs.len().saturating_sub(1));
            preview.finding = preview
                .finding
                .min(ready.outcome.plan.findings.len().saturating_sub(1));
            if first {
                preview.scroll = 0;
            }
            let rows = ready.diffs.get(preview.file).map_or(0, |d| d.rows.len());
            preview.scroll = preview.scroll.min(rows.saturating_sub(1));
        }
        Err(_) => preview.focus = PreviewFocus::Diff,
    }
    preview.marked_row = None;
    preview.result = Some(result);
}

fn diff_height(state: &State) -> usize {
    (layout::preview(state.size).diff.height as usize).max(1)
}

fn preview_key(state: &mut State, command: Option<Command>, fx: &mut Vec<Effect>) {
    let page = diff_height(state);
    let Some(command) = command else { return };
    let Some(preview) = state.preview.as_mut() else {
        return;
    };
    let (rows, hunks) = match preview.result.as_ref() {
        Some(Ok(ready)) => ready
            .diffs
            .get(preview.file)
            .map_or((0, Vec::new()), |d| (d.rows.len(), d.hunks.clone())),
        _ => (0, Vec::new()),
    };
    let files = preview.ready().map_or(0, |r| r.diffs.len());
    let last = rows.saturating_sub(1);
    match command {
        Command::Up => preview.scroll = preview.scroll.saturating_sub(1),
        Command::Down => preview.scroll = (preview.scroll + 1).min(last),
        Command::PageUp => preview.scroll = preview.scroll.saturating_sub(page),
        Command::PageDown => preview.scroll = (preview.scroll + page).min(last),
        Command::Top => preview.scroll = 0,
        Command::Bottom => preview.scroll = last.saturating_sub(page.saturating_sub(1)),
        Command::NextHunk => match hunks.iter().find(|&&h| h > preview.scroll) {
            Some(&h) => preview.scroll = h,
            None => state.info("no more hunks in this file"),
        },
        Command::PrevHunk => match hunks.iter().rev().find(|&&h| h < preview.scroll) {
            Some(&h) => preview.scroll = h,
            None => state.info("this is the first hunk"),
        },
        Command::NextFile | Command::PrevFile if files > 1 => {
            preview.file = if command == Command::NextFile {
                (preview.file + 1) % files
            } else {
                (preview.file + files - 1) % files
            };
            preview.scroll = 0;
            preview.marked_row = None;
        }
        Command::NextFile | Command::PrevFile => state.info("this refactor changes one file"),
        Command::ScrollLeft => preview.hscroll = preview.hscroll.saturating_sub(8),
        Command::ScrollRight => preview.hscroll += 8,
        Command::ToggleContext => toggle_context(preview),
        Command::FocusWarnings => {
            if preview
                .ready()
                .is_some_and(|r| !r.outcome.plan.findings.is_empty())
            {
                preview.focus = PreviewFocus::Findings;
            } else {
                state.info("this preview has no findings to select; the caveats apply as a whole");
            }
        }
        Command::Apply => try_apply(state, fx),
        Command::Back => {
            if preview.computing {
                fx.push(Effect::CancelPreview);
            }
            let failed = matches!(preview.result, Some(Err(_)));
            if failed && state.form.is_some() {
                state.screen = Screen::Form;
            } else {
                state.form = None;
                state.screen = Screen::Code;
                state.info("cancelled: nothing was written");
            }
            state.preview = None;
        }
        _ => {}
    }
}

/// Shows the whole file or only the changes, keeping the same line at the top.
fn toggle_context(preview: &mut Preview) {
    let index = preview.file;
    let scroll = preview.scroll;
    let Some(Ok(ready)) = preview.result.as_mut() else {
        return;
    };
    let (Some(diff), Some(change)) = (
        ready.diffs.get(index),
        ready.outcome.plan.changes.get(index),
    ) else {
        return;
    };
    let line_at_top = diff.rows.iter().skip(scroll).find_map(|r| match r {
        diffview::Row::Line { new, old, .. } => new.or(*old),
        _ => None,
    });
    let toggled = diffview::file_diff(change, !diff.whole_file);
    preview.scroll = line_at_top
        .and_then(|l| toggled.row_of_line(l))
        .unwrap_or(0);
    ready.diffs[index] = toggled;
    preview.marked_row = None;
}

/// Why the preview on screen cannot be written now, if it cannot.
fn refusal(state: &State) -> Option<(NoticeLevel, String)> {
    let preview = state.preview.as_ref()?;
    let back = state.keymap.hint(Context::Preview, Command::Back);
    if layout::too_small(state.size) {
        let (w, h) = layout::MIN_SIZE;
        return Some((
            NoticeLevel::Error,
            format!(
                "enlarge the terminal to at least {w}×{h}: the warning panel must be readable before applying"
            ),
        ));
    }
    if let Some(path) = &preview.stale {
        return Some((
            NoticeLevel::Warning,
            format!(
                "not applied: {path} changed on disk, so this preview is stale; it is being recomputed — read the new one, then apply"
            ),
        ));
    }
    if preview.computing {
        return Some((
            NoticeLevel::Info,
            "the preview is still being computed".to_string(),
        ));
    }
    if state.writing.is_some() {
        return Some((NoticeLevel::Info, "a write is in progress".to_string()));
    }
    let ready = match &preview.result {
        Some(Ok(ready)) => ready,
        Some(Err(error)) => {
            return Some((
                NoticeLevel::Error,
                format!("nothing to apply: {} ({back} to go back)", error.message),
            ));
        }
        None => {
            return Some((
                NoticeLevel::Info,
                "the preview is still being computed".to_string(),
            ));
        }
    };
    if ready.outcome.plan.changes.is_empty() {
        return Some((
            NoticeLevel::Info,
            format!("this refactor changes nothing ({back} to go back)"),
        ));
    }
    if let Some(finding) = ready
        .outcome
        .plan
        .findings
        .iter()
        .find(|f| f.is_syntax_error())
    {
        return Some((
            NoticeLevel::Error,
            format!(
                "cannot apply: the result does not parse ({}:{}); {back} to go back and change the selection or the input",
                finding.file, finding.line
            ),
        ));
    }
    None
}

fn try_apply(state: &mut State, fx: &mut Vec<Effect>) {
    if let Some((level, message)) = refusal(state) {
        state.notice = Some(Notice::new(level, message));
        return;
    }
    let Some(preview) = state.preview.as_mut() else {
        return;
    };
    if preview
        .ready()
        .is_some_and(Ready::needs_second_confirmation)
    {
        preview.confirm = true;
        return;
    }
    apply(state, fx);
}

fn apply(state: &mut State, fx: &mut Vec<Effect>) {
    let id = state.fresh_id();
    let Some(ready) = state.preview.as_ref().and_then(Preview::ready) else {
        return;
    };
    let mut options = ready.call.options.clone();
    options.dry_run = false;
    fx.push(Effect::Apply {
        id,
        outcome: Box::new(ready.outcome.clone()),
        options: Box::new(options),
    });
    state.writing = Some(Writing {
        id,
        kind: WritingKind::Apply,
    });
}

fn confirm_key(state: &mut State, command: Option<Command>, fx: &mut Vec<Effect>) {
    match command {
        Some(Command::Yes) => {
            if let Some(preview) = state.preview.as_mut() {
                preview.confirm = false;
            }
            match refusal(state) {
                Some((level, message)) => state.notice = Some(Notice::new(level, message)),
                None => apply(state, fx),
            }
        }
        Some(Command::No) => {
            if let Some(preview) = state.preview.as_mut() {
                preview.confirm = false;
            }
            state.info("not applied");
        }
        _ => {}
    }
}

fn findings_key(state: &mut State, command: Option<Command>, fx: &mut Vec<Effect>) {
    let Some(preview) = state.preview.as_mut() else {
        return;
    };
    let count = preview.ready().map_or(0, |r| r.outcome.plan.findings.len());
    match command {
        Some(Command::Up) => preview.finding = preview.finding.saturating_sub(1),
        Some(Command::Down) => preview.finding = (preview.finding + 1).min(count.saturating_sub(1)),
        Some(Command::Back) => preview.focus = PreviewFocus::Diff,
        Some(Command::Jump) => jump_to_finding(state, fx),
        _ => {}
    }
}

/// Shows the finding's line: in the diff when the file is part of the change (the whole file is
/// shown if the line is outside the hunks), else in the code view.
fn jump_to_finding(state: &mut State, fx: &mut Vec<Effect>) {
    let page = diff_height(state);
    let Some(preview) = state.preview.as_mut() else {
        return;
    };
    let index = preview.finding;
    let Some(Ok(ready)) = preview.result.as_mut() else {
        return;
    };
    let Some(finding) = ready.outcome.plan.findings.get(index).cloned() else {
        return;
    };
    if let Some(file) = ready.diffs.iter().position(|d| d.path == finding.file) {
        let mut row = ready.diffs[file].row_of_line(finding.line);
        if row.is_none()
            && let Some(change) = ready.outcome.plan.changes.get(file)
        {
            ready.diffs[file] = diffview::file_diff(change, true);
            row = ready.diffs[file].row_of_line(finding.line);
        }
        preview.file = file;
        preview.focus = PreviewFocus::Diff;
        preview.marked_row = row;
        preview.scroll = row.map_or(0, |r| r.saturating_sub(page / 3));
        return;
    }
    let back = state.keymap.hint(Context::Code, Command::ReturnToPreview);
    let line = finding.line.saturating_sub(1);
    let path = finding.file.clone();
    preview.focus = PreviewFocus::Diff;
    load(state, &path, Some(line), true, fx);
    state.info(format!(
        "{}:{} — press {back} to return to the preview",
        finding.file, finding.line
    ));
}

// ---------------------------------------------------------------------------------------------
// Results of writes

fn on_applied(
    state: &mut State,
    id: u64,
    result: Result<ApplyReport, ApiError>,
    fx: &mut Vec<Effect>,
) {
    if state.writing.is_none_or(|w| w.id != id) {
        return;
    }
    state.writing = None;
    match result {
        Ok(report) => {
            let Some(preview) = state.preview.take() else {
                return;
            };
            let changes = preview
                .ready()
                .map(|r| r.outcome.plan.changes.clone())
                .unwrap_or_default();
            let undo = state.keymap.hint(Context::Code, Command::Undo);
            let mut written = report.written.clone();
            for created in &report.created {
                if let Some(entry) = written.iter_mut().find(|w| *w == created) {
                    entry.push_str(" (new)");
                }
            }
            state.info(format!(
                "written: {} — press {undo} to undo",
                written.join(", ")
            ));
            state.last_applied = Some(Applied {
                tool: preview.request.tool,
                label: preview.request.tool.label().to_string(),
                files: report.written,
                changes,
                transaction: report.transaction,
            });
            state.form = None;
            state.screen = Screen::Code;
            // The selected lines now hold other code: start afresh.
            if let Some(code) = state.code.as_mut() {
                code.selection = None;
                code.visual = false;
            }
            let origin = preview.request.origin.clone();
            let same = state.code.as_ref().is_some_and(|c| c.doc.path == origin);
            let goto = if same {
                None
            } else {
                Some(preview.request.origin_line)
            };
            load(state, &origin, goto, true, fx);
        }
        Err(error) => {
            let stale = error.code == ErrorCode::StaleFile;
            state.error(format!("not applied: {}", error.message));
            if stale {
                let path = state
                    .preview
                    .as_ref()
                    .map(|p| p.request.origin.clone())
                    .unwrap_or_default();
                recompute(state, &path, None, fx);
            }
        }
    }
}

fn undo(state: &mut State, fx: &mut Vec<Effect>) {
    if state.writing.is_some() {
        return state.info("a write is in progress; undo when it is done");
    }
    let Some((changes, transaction)) = state
        .last_applied
        .as_ref()
        .map(|a| (a.changes.clone(), a.transaction.clone()))
    else {
        return state.info("nothing to undo: candor has written nothing in this session");
    };
    let id = state.fresh_id();
    fx.push(Effect::Undo {
        id,
        changes,
        transaction,
    });
    state.writing = Some(Writing {
        id,
        kind: WritingKind::Undo,
    });
}

fn on_undone(
    state: &mut State,
    id: u64,
    result: Result<Vec<String>, String>,
    fx: &mut Vec<Effect>,
) {
    if state.writing.is_none_or(|w| w.id != id) {
        return;
    }
    state.writing = None;
    match result {
        Ok(restored) => {
            let label = state
                .last_applied
                .take()
                .map(|a| a.label)
                .unwrap_or_default();
            state.info(format!("undone {label}: restored {}", restored.join(", ")));
            if let Some(path) = state.code.as_ref().map(|c| c.doc.path.clone()) {
                load(state, &path, None, false, fx);
            }
        }
        Err(message) => state.error(format!("undo refused: {message}")),
    }
}

// ---------------------------------------------------------------------------------------------
// The watcher

fn on_files_changed(state: &mut State, changed: &[(String, Option<String>)], fx: &mut Vec<Effect>) {
    for (path, sha) in changed {
        let open = state.code.as_ref().is_some_and(|c| c.doc.path == *path);
        let differs = state
            .code
            .as_ref()
            .is_some_and(|c| Some(&c.doc.sha256) != sha.as_ref());
        if open && differs && state.writing.is_none() {
            match sha {
                Some(_) => {
                    if state.loading.as_ref().is_none_or(|l| l.path != *path) {
                        load(state, path, None, false, fx);
                    }
                }
                None => state.warn(format!("{path} was deleted on disk")),
            }
        }
        let affected = state
            .preview
            .as_ref()
            .is_some_and(|p| p.changed_under(path, sha.as_deref()));
        if affected && state.writing.is_none() {
            recompute(state, path, Some(sha.clone()), fx);
        }
    }
}

/// Keeps the watcher on the open file and the preview's files.
fn sync_watch(state: &mut State, fx: &mut Vec<Effect>) {
    let mut paths: Vec<String> = state.code.iter().map(|c| c.doc.path.clone()).collect();
    if let Some(preview) = &state.preview {
        paths.extend(preview.paths());
    }
    paths.sort();
    paths.dedup();
    if paths != state.watched {
        state.watched = paths.clone();
        fx.push(Effect::Watch(paths));
    }
}

// ---------------------------------------------------------------------------------------------
// Mouse

/// The first row shown of a list of `len` rows where `selected` must be visible.
pub fn list_offset(selected: usize, height: usize) -> usize {
    if height == 0 {
        0
    } else {
        selected.saturating_sub(height - 1)
    }
}

fn on_mouse(state: &mut State, event: MouseEvent) {
    if let Some(scroll) = state.help.as_mut() {
        match event.kind {
            MouseEventKind::ScrollDown => *scroll += 3,
            MouseEventKind::ScrollUp => *scroll = scroll.saturating_sub(3),
            _ => {}
        }
        return;
    }
    match state.screen {
        Screen::Code => code_mouse(state, event),
        Screen::Picker => picker_mouse(state, event),
        Screen::Preview => {
            if let Some(preview) = state.preview.as_mut() {
                let rows = preview
                    .ready()
                    .and_then(|r| r.diffs.get(preview.file))
                    .map_or(0, |d| d.rows.len());
                match event.kind {
                    MouseEventKind::ScrollDown => {
                        preview.scroll = (preview.scroll + 3).min(rows.saturating_sub(1))
                    }
                    MouseEventKind::ScrollUp => preview.scroll = preview.scroll.saturating_sub(3),
                    _ => {}
                }
            }
        }
        Screen::Form => {}
    }
}

fn picker_mouse(state: &mut State, event: MouseEvent) {
    let list = layout::picker(state.size).list;
    let picker = &mut state.picker;
    let last = picker.matches.len().saturating_sub(1);
    match event.kind {
        MouseEventKind::ScrollDown => picker.selected = (picker.selected + 3).min(last),
        MouseEventKind::ScrollUp => picker.selected = picker.selected.saturating_sub(3),
        MouseEventKind::Down(MouseButton::Left)
            if layout::contains(list, event.column, event.row) =>
        {
            let offset = list_offset(picker.selected, list.height as usize);
            let row = offset + (event.row - list.y) as usize;
            if row <= last && !picker.matches.is_empty() {
                picker.selected = row;
            }
        }
        _ => {}
    }
}

fn code_mouse(state: &mut State, event: MouseEvent) {
    let areas = layout::code(state.size, outline_shown(state));
    let Some(code) = state.code.as_mut() else {
        return;
    };
    let last = code.doc.line_count().saturating_sub(1);
    let line_at = |row: u16, top: usize| -> usize {
        let offset = row.saturating_sub(areas.code.y) as usize;
        (top + offset).min(last)
    };
    match event.kind {
        MouseEventKind::ScrollDown => code.top = (code.top + 3).min(last),
        MouseEventKind::ScrollUp => code.top = code.top.saturating_sub(3),
        MouseEventKind::Down(MouseButton::Left) => {
            if layout::contains(areas.code, event.column, event.row) {
                let line = line_at(event.row, code.top);
                code.cursor = line;
                code.selection = None;
                code.visual = false;
                code.focus = CodeFocus::Code;
                code.drag_from = Some(line);
            } else if let Some(outline) = areas
                .outline
                .filter(|r| layout::contains(*r, event.column, event.row))
            {
                let offset = list_offset(code.outline_cursor, outline.height as usize);
                let index = offset + (event.row - outline.y) as usize;
                if index < code.doc.symbols.len() {
                    code.outline_cursor = index;
                    select_symbol(code, index);
                }
            }
        }
        MouseEventKind::Drag(MouseButton::Left) => {
            if let Some(from) = code.drag_from {
                if event.row < areas.code.y {
                    code.top = code.top.saturating_sub(1);
                } else if event.row >= areas.code.y + areas.code.height {
                    code.top = (code.top + 1).min(last);
                }
                let line = line_at(
                    event.row.clamp(
                        areas.code.y,
                        (areas.code.y + areas.code.height).saturating_sub(1),
                    ),
                    code.top,
                );
                code.cursor = line;
                code.selection = Some(Selection::Lines {
                    anchor: from,
                    head: line,
                });
            }
        }
        MouseEventKind::Up(MouseButton::Left) => code.drag_from = None,
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    //! The confirm gate, with hand-built outcomes (the refactors have their own tests): what
    //! asks twice, what is refused, what wins, what goes stale. Writes go through the real
    //! engine on a temp directory.

    use super::*;
    use crate::backend::{BackendChoice, Outcome, ServerInfo};
    use crate::edit::{FileChange, SourceFile, TextEdit};
    use crate::honesty::BackendKind;
    use crate::refactor::{Finding, Plan};
    use crate::tui::headless::Headless;

    const TEXT: &str = "def helper(a):\n    return a\n\n\ndef main():\n    return helper(1)\n";

    fn session() -> (tempfile::TempDir, Headless) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), TEXT).unwrap();
        let mut h = Headless::open(
            &dir.path().join("a.py"),
            Some(BackendChoice::TreeSitter),
            (100, 30),
        )
        .unwrap();
        h.press(&["i"]);
        assert_eq!(h.state.screen, Screen::Preview);
        (dir, h)
    }

    fn outcome(backend: BackendKind, findings: Vec<Finding>, after: &str) -> Outcome {
        let source = SourceFile::from_text("a.py", TEXT);
        let change =
            FileChange::modify(&source, vec![TextEdit::new(0..TEXT.len(), after)]).unwrap();
        Outcome {
            tool: Tool::InlineFunction,
            plan: Plan {
                changes: vec![change],
                findings,
                details: Default::default(),
            },
            backend,
            server: (backend == BackendKind::Lsp).then(|| ServerInfo {
                name: "pylsp".into(),
                version: Some("1.2".into()),
            }),
            fallback_reason: None,
        }
    }

    fn show(h: &mut Headless, outcome: Outcome) {
        let call = crate::api::args::parse(
            Tool::InlineFunction,
            &json!({"file_path": "a.py", "function_name": "helper"}),
        )
        .unwrap();
        let diffs = outcome
            .plan
            .changes
            .iter()
            .map(|c| diffview::file_diff(c, false))
            .collect();
        let id = h.state.preview.as_ref().unwrap().id;
        h.dispatch(Action::PreviewReady {
            id,
            result: Ok(Box::new(Ready {
                call,
                outcome,
                diffs,
            })),
        });
        h.settle();
    }

    const AFTER: &str = "def main():\n    return 1\n";

    #[test]
    fn a_heuristic_result_asks_twice_then_writes_and_undo_restores() {
        let (dir, mut h) = session();
        let warning = Finding::warning("a.py", 6, "the argument `1` is left as it is");
        show(&mut h, outcome(BackendKind::Hybrid, vec![warning], AFTER));
        h.press(&["enter"]);
        let preview = h.state.preview.as_ref().unwrap();
        assert!(preview.confirm);
        assert_eq!(
            preview.ready().unwrap().confirm_question(),
            "apply despite 3 caveats and 1 warning? y/n"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
            TEXT,
            "nothing yet"
        );
        h.press(&["y"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
            AFTER
        );
        assert_eq!(h.state.screen, Screen::Code);
        assert_eq!(h.state.code.as_ref().unwrap().doc.text, AFTER);
        h.press(&["u"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
            TEXT
        );
        assert_eq!(h.state.code.as_ref().unwrap().doc.text, TEXT);
    }

    #[test]
    fn a_clean_language_server_result_applies_on_the_first_key() {
        let (dir, mut h) = session();
        show(
            &mut h,
            outcome(
                BackendKind::Lsp,
                vec![Finding::info("a.py", 1, "fine")],
                AFTER,
            ),
        );
        h.press(&["enter"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
            AFTER
        );
    }

    #[test]
    fn a_result_with_a_syntax_error_cannot_be_confirmed() {
        let (dir, mut h) = session();
        let broken = "def main(:\n";
        let mut result = outcome(BackendKind::Lsp, Vec::new(), broken);
        result.plan.findings = crate::refactor::findings::check_syntax(&result.plan.changes);
        assert!(result.plan.has_syntax_errors());
        show(&mut h, result);
        h.press(&["enter"]);
        let notice = h.state.notice.as_ref().unwrap();
        assert!(
            notice
                .text
                .starts_with("cannot apply: the result does not parse (a.py:1)"),
            "{notice:?}"
        );
        assert!(!h.state.preview.as_ref().unwrap().confirm);
        h.press(&["y"]);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
            TEXT
        );
    }

    #[test]
    fn the_latest_request_wins_and_only_real_changes_go_stale() {
        let (dir, mut h) = session();
        show(&mut h, outcome(BackendKind::Hybrid, Vec::new(), AFTER));
        let old_id = h.state.preview.as_ref().unwrap().id;
        // The same bytes reported again (our own write, a touch): not stale.
        h.files_changed(&["a.py"]);
        assert!(h.state.preview.as_ref().unwrap().stale.is_none());
        assert!(h.queue.is_empty());
        // Different bytes: stale, and asked again.
        std::fs::write(dir.path().join("a.py"), format!("{TEXT}# x\n")).unwrap();
        h.files_changed(&["a.py"]);
        let preview = h.state.preview.as_ref().unwrap();
        assert_eq!(preview.stale.as_deref(), Some("a.py"));
        assert!(preview.id > old_id);
        assert!(
            matches!(h.queue.iter().find(|e| matches!(e, Effect::Preview { .. })), Some(Effect::Preview { id, .. }) if *id == preview.id)
        );
        // An answer to the old request is dropped.
        let stale_answer = Err(ApiError::new(ErrorCode::Io, "old"));
        h.dispatch(Action::PreviewReady {
            id: old_id,
            result: stale_answer,
        });
        assert!(h.state.preview.as_ref().unwrap().stale.is_some());
        assert!(matches!(
            h.state.preview.as_ref().unwrap().result,
            Some(Ok(_))
        ));
    }

    #[test]
    fn reads_while_computing_never_ask_again_and_esc_cancels() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), TEXT).unwrap();
        let mut h = Headless::open(
            &dir.path().join("a.py"),
            Some(BackendChoice::TreeSitter),
            (100, 30),
        )
        .unwrap();
        h.press_pending("i");
        let first = h.state.preview.as_ref().unwrap().id;
        let asked = |h: &Headless| {
            h.queue
                .iter()
                .filter(|e| matches!(e, Effect::Preview { .. }))
                .count()
        };
        assert_eq!(asked(&h), 1);
        // A language server reads the file while the preview computes: the watcher reports it
        // with the content it had. Not new content: nothing is asked again.
        for _ in 0..5 {
            h.files_changed(&["a.py"]);
        }
        let preview = h.state.preview.as_ref().unwrap();
        assert_eq!((preview.id, preview.stale.as_deref()), (first, None));
        assert_eq!(asked(&h), 1, "the request in flight is not sent again");
        // New content: asked once more, superseding the first.
        std::fs::write(dir.path().join("a.py"), format!("{TEXT}# x\n")).unwrap();
        h.files_changed(&["a.py"]);
        h.files_changed(&["a.py"]);
        assert_eq!(asked(&h), 2);
        assert_eq!(
            h.state.preview.as_ref().unwrap().stale.as_deref(),
            Some("a.py")
        );
        // Esc while it computes: the request is cancelled, not left running.
        h.press_pending("esc");
        assert!(h.queue.iter().any(|e| matches!(e, Effect::CancelPreview)));
        assert!(h.state.preview.is_none());
    }

    #[test]
    fn a_terminal_too_small_for_the_warning_panel_refuses_to_apply() {
        let (dir, mut h) = session();
        show(&mut h, outcome(BackendKind::Lsp, Vec::new(), AFTER));
        h.dispatch(Action::Resize(50, 12));
        h.press(&["enter"]);
        assert!(
            h.state
                .notice
                .as_ref()
                .unwrap()
                .text
                .starts_with("enlarge the terminal")
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
            TEXT
        );
    }

    #[test]
    fn selection_labels_and_mouse_drag() {
        let (_dir, mut h) = session();
        h.press(&["esc"]);
        let code = h.state.code.as_ref().unwrap();
        assert_eq!(code.selection_label(), None);
        let area = layout::code(h.state.size, true).code;
        let mouse = |kind, row| MouseEvent {
            kind,
            column: area.x + 5,
            row: area.y + row,
            modifiers: ratatui::crossterm::event::KeyModifiers::NONE,
        };
        h.dispatch(Action::Mouse(mouse(
            MouseEventKind::Down(MouseButton::Left),
            4,
        )));
        h.dispatch(Action::Mouse(mouse(
            MouseEventKind::Drag(MouseButton::Left),
            5,
        )));
        h.dispatch(Action::Mouse(mouse(
            MouseEventKind::Up(MouseButton::Left),
            5,
        )));
        assert_eq!(
            h.state.code.as_ref().unwrap().selection_label().as_deref(),
            Some("lines 5\u{2013}6")
        );
        h.press(&["o", "g", "enter"]);
        assert_eq!(
            h.state.code.as_ref().unwrap().selection_label().as_deref(),
            Some("def helper")
        );
        h.press(&["esc", "shift-down", "shift-down"]);
        assert_eq!(
            h.state.code.as_ref().unwrap().selection_label().as_deref(),
            Some("lines 1\u{2013}3")
        );
    }
}
