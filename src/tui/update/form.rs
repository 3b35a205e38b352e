//! The refactor forms: typing, completing a path, checking the input as it is typed, and
//! submitting it as a preview request.

use crate::api::{ToolCall, arg};
use crate::lang::Language;
use crate::lang::symbols::SymbolQuery;
use crate::refactor::change_signature::{check_new_parameters, read_typed_list};
use crate::refactor::{
    ChangeSignatureRequest, ExtractRequest, ExtractVariableRequest, IntroduceParameterRequest,
    MemorySources, MoveRequest, RenameRequest, Request,
};
use crate::tui::document::Document;
use crate::tui::effect::Effect;
use crate::tui::input;
use crate::tui::keymap::{Command, Key};
use crate::tui::state::*;

use super::preview;

pub(super) fn key(
    state: &mut State,
    mut form: Form,
    command: Option<Command>,
    key: Key,
    fx: &mut Vec<Effect>,
) -> Screen {
    match command {
        Some(Command::Cancel) => return Screen::Code,
        Some(Command::Complete) => {
            if !form.completions.is_empty() {
                let next = form
                    .completion
                    .map_or(0, |i| (i + 1) % form.completions.len());
                form.completion = Some(next);
                let text = form.completions[next].clone();
                input::set_text(&mut form.input, &text);
                form.error = validate(&form, false, open_doc(state)).err();
                ask_folder(&mut form, fx);
            }
        }
        Some(command @ (Command::Widen | Command::Narrow)) => {
            if form.kind.step_expression(command == Command::Widen) {
                form.error = validate(&form, false, open_doc(state)).err();
            }
        }
        Some(Command::Submit) => match validate(&form, true, open_doc(state)) {
            Ok(Some(request)) => {
                let origin_line = state.code.as_ref().map_or(0, |c| c.cursor);
                let request = preview_request(&form, request, origin_line);
                return preview::request_preview(state, request, Some(form), fx);
            }
            Ok(None) => {}
            Err(message) => form.error = Some(message),
        },
        _ => {
            if input::edit(&mut form.input, command, key) {
                form.completion = None;
                changed(&mut form, &state.picker.files, open_doc(state), fx);
            }
        }
    }
    Screen::Form(form)
}

/// Move: the folder of the target typed so far, when it is not one the walk found files in
/// (those exist) and not the one checked already.
fn ask_folder(form: &mut Form, fx: &mut Vec<Effect>) {
    if !matches!(form.kind, FormKind::Move { .. }) {
        return;
    }
    let text = form.input_text();
    let dir = folder_of(text.trim());
    if form.folder.as_ref().is_some_and(|(known, _)| *known == dir) {
        return;
    }
    if dir.is_empty() {
        // The project root exists.
        form.folder = Some((dir, Some(true)));
    } else {
        form.folder = Some((dir.clone(), None));
        fx.push(Effect::CheckFolder(dir));
    }
}

/// `src/a` of `src/a/b.rs`; empty for a file at the root.
pub(super) fn folder_of(path: &str) -> String {
    let path = path.trim_start_matches("./");
    path.rsplit_once('/')
        .map(|(dir, _)| dir.trim_end_matches('/').to_string())
        .unwrap_or_default()
}

/// The answer to [`Effect::CheckFolder`]: the form says at once when the folder is missing.
pub(super) fn on_folder(state: &mut State, dir: String, exists: bool) {
    let doc = state.code.as_ref().map(|c| &c.doc);
    if let Screen::Form(form) = &mut state.screen
        && form.folder.as_ref().is_some_and(|(known, _)| *known == dir)
    {
        form.folder = Some((dir, Some(exists)));
        form.error = validate(form, false, doc).err();
    }
}

/// The document of the open file (a change-signature form checks its list against it).
fn open_doc(state: &State) -> Option<&Document> {
    state.code.as_ref().map(|c| &c.doc)
}

/// After the input changed: check it again, and complete it again.
pub(super) fn changed(
    form: &mut Form,
    files: &[String],
    doc: Option<&Document>,
    fx: &mut Vec<Effect>,
) {
    ask_folder(form, fx);
    form.error = validate(form, false, doc).err();
    refresh_completions(form, files);
}

/// Checks the input; on success, the typed request (`None` while the input is not complete
/// yet). `submitting` also refuses an empty input (while typing, an empty input is not yet an
/// error). `doc` is the open file.
pub(super) fn validate(
    form: &Form,
    submitting: bool,
    doc: Option<&Document>,
) -> Result<Option<Request>, String> {
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
                    Ok(None)
                };
            }
            language.validate_identifier(text)?;
            Ok(Some(Request::Extract(ExtractRequest {
                file: file.clone(),
                start_line: *start,
                end_line: *end,
                new_name: text.to_string(),
            })))
        }
        FormKind::ExtractVariable {
            file,
            start,
            end,
            language,
            ..
        } => {
            if text.is_empty() {
                return if submitting {
                    Err("type a name for the new variable".to_string())
                } else {
                    Ok(None)
                };
            }
            language.validate_identifier(text)?;
            Ok(Some(Request::ExtractVariable(ExtractVariableRequest {
                file: file.clone(),
                start_line: start.0,
                start_column: start.1,
                end_line: end.0,
                end_column: end.1,
                new_name: text.to_string(),
                replace_all: false,
            })))
        }
        FormKind::IntroduceParameter {
            file,
            start,
            end,
            language,
            ..
        } => {
            if text.is_empty() {
                return if submitting {
                    Err("type a name for the new parameter".to_string())
                } else {
                    Ok(None)
                };
            }
            language.validate_identifier(text)?;
            Ok(Some(Request::IntroduceParameter(
                IntroduceParameterRequest {
                    file: file.clone(),
                    start_line: start.0,
                    start_column: start.1,
                    end_line: end.0,
                    end_column: end.1,
                    new_name: text.to_string(),
                },
            )))
        }
        FormKind::Move { file, target } => {
            validate_move(file, target, text, submitting, form.folder.as_ref())
        }
        FormKind::ChangeSignature {
            file,
            target,
            language,
            is_method,
        } => {
            // The engine's own reader and rules: what the form accepts, the engine accepts.
            let typed = read_typed_list(*language, text, *is_method)
                .map_err(|e| in_form_words(&e.to_string()))?;
            let request = ChangeSignatureRequest {
                file: file.clone(),
                function: target.query(),
                new_parameters: typed.parameters,
            };
            if let Some(doc) = doc.filter(|d| d.path == *file) {
                let sources = MemorySources::new().with(file, &doc.text);
                check_new_parameters(&sources, &request)
                    .map_err(|e| in_form_words(&e.to_string()))?;
            }
            Ok(Some(Request::ChangeSignature(request)))
        }
        FormKind::Rename {
            file,
            name,
            line,
            column,
            language,
        } => {
            if text.is_empty() {
                return if submitting {
                    Err("type the new name".to_string())
                } else {
                    Ok(None)
                };
            }
            language.validate_identifier(text)?;
            if text == name {
                return if submitting {
                    Err(format!("`{name}` is its name already: type a new one"))
                } else {
                    Ok(None)
                };
            }
            Ok(Some(Request::Rename(RenameRequest {
                file: file.clone(),
                symbol: SymbolQuery {
                    name: name.clone(),
                    line: Some(*line),
                    column: Some(*column),
                },
                new_name: text.to_string(),
                include_possible: Vec::new(),
            })))
        }
    }
}

/// An engine message about `new_parameters` (the JSON argument) said about the list in the
/// form: `parameter 2 of new_parameters` is `parameter 2`, a `"default"` is `= value`, a
/// `"type"` is `: Type`.
fn in_form_words(message: &str) -> String {
    let list = arg::NEW_PARAMETERS;
    let mut text = message
        .replace(
            &format!("leave the receiver out of {list}, it is kept"),
            "the receiver stays first, as it is",
        )
        .replace(&format!(" of {list}"), "")
        .replace(&format!("from {list}"), "from the list")
        .replace(&format!("in {list}"), "in the list")
        .replace(list, "the list")
        .replace("remove \"default\"", "remove the default")
        .replace("\"default\" is the value", "`= value` is the value");
    // `remove "default": "x" from `p`` → `remove `= x` from `p``.
    while let Some(at) = text.find("the default: \"") {
        let value_start = at + "the default: \"".len();
        let Some(len) = text[value_start..].find('"') else {
            break;
        };
        let value = text[value_start..value_start + len].to_string();
        text.replace_range(at..value_start + len + 1, &format!("`= {value}`"));
    }
    // `give it as "type" (e.g. {"name": "x", "type": "i32"})` → `write it as `x: Type``.
    if let Some(at) = text.find("give it as \"type\"") {
        let end = text[at..].find(')').map_or(text.len(), |e| at + e + 1);
        text.replace_range(at..end, "write it as `name: Type`");
    }
    text
}

fn validate_move(
    file: &str,
    target: &Target,
    text: &str,
    submitting: bool,
    folder: Option<&(String, Option<bool>)>,
) -> Result<Option<Request>, String> {
    if text.is_empty() {
        return if submitting {
            Err("type the file to move it to, relative to the project root".to_string())
        } else {
            Ok(None)
        };
    }
    let source_language = Language::from_path(file);
    let target_language = Language::from_path(text);
    let still_typing = !submitting && !text.rsplit('/').next().unwrap_or(text).contains('.');
    if still_typing {
        return Ok(None);
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
    if let Some((dir, Some(false))) = folder
        && *dir == folder_of(text)
    {
        return Err(format!(
            "the folder {dir}/ does not exist: move to file creates the file, not its folder; create {dir}/ first or choose another file"
        ));
    }
    Ok(Some(Request::Move(MoveRequest {
        file: file.to_string(),
        symbol: target.query(),
        target_file: text.to_string(),
    })))
}

fn preview_request(form: &Form, request: Request, cursor: usize) -> PreviewRequest {
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
            let title = Title::new(
                format!("extract {lines}"),
                &format!("of {file}"),
                &format!("into {text}"),
            );
            (file, title)
        }
        FormKind::Move { file, target } => (
            file,
            Title::new(
                format!("move {}", target.label),
                &format!("from {file}"),
                &format!("to {text}"),
            ),
        ),
        FormKind::ChangeSignature { file, target, .. } => (
            file,
            Title::new(
                format!("change signature of {}", target.label),
                &format!("in {file}"),
                &format!("to {text}"),
            ),
        ),
        FormKind::Rename { file, name, .. } => (
            file,
            Title::new(
                format!("rename `{name}`"),
                &format!("in {file}"),
                &format!("to {text}"),
            ),
        ),
        FormKind::ExtractVariable {
            file, expression, ..
        } => (
            file,
            Title::new(
                format!("extract variable `{expression}`"),
                &format!("in {file}"),
                &format!("as {text}"),
            ),
        ),
        FormKind::IntroduceParameter {
            file,
            expression,
            function,
            ..
        } => (
            file,
            Title::new(
                format!("introduce parameter `{text}`"),
                &format!("for `{expression}`"),
                &format!("in {function}"),
            ),
        ),
    };
    PreviewRequest {
        call: ToolCall::new(request),
        title,
        origin: file.clone(),
        origin_line: cursor,
    }
}

/// Move: the project's files of the same language that complete the input (prefix first, then
/// substring), without the source file.
pub(super) fn refresh_completions(form: &mut Form, files: &[String]) {
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
