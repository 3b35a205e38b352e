//! Starting a refactor from the code view: what it is about (the selected lines, the selected
//! symbol, the symbol at the cursor) and the form or preview that comes next.

use ratatui_textarea::TextArea;
use serde_json::json;

use crate::honesty::Tool;
use crate::lang::symbols::{Symbol, SymbolKind};
use crate::tui::document::Document;
use crate::tui::effect::Effect;
use crate::tui::keymap::{Command, Context};
use crate::tui::state::*;

use super::{form, preview};

pub(super) fn start_extract(state: &mut State) -> Screen {
    let Some(code) = state.code.as_ref() else {
        return Screen::Code;
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
            return Screen::Code;
        }
        None => (code.cursor, code.cursor),
    };
    Screen::Form(Form {
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
    })
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

fn no_target(state: &mut State, what: &str, refactor: &str) -> Screen {
    let outline = state.keymap.hint(Context::Code, Command::Outline);
    state.warn(format!(
        "put the cursor in {what}, or pick one in the outline ({outline}), to {refactor} it"
    ));
    Screen::Code
}

pub(super) fn start_inline(state: &mut State, fx: &mut Vec<Effect>) -> Screen {
    let Some(code) = state.code.as_ref() else {
        return Screen::Code;
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
    preview::request_preview(state, request, None, fx)
}

pub(super) fn start_move(state: &mut State) -> Screen {
    let Some(code) = state.code.as_ref() else {
        return Screen::Code;
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
    form::refresh_completions(&mut form, &state.picker.files);
    Screen::Form(form)
}

pub(super) fn start_change_signature(state: &mut State) -> Screen {
    let Some(code) = state.code.as_ref() else {
        return Screen::Code;
    };
    let Some(index) = target_symbol(code, |s| s.kind.is_function()) else {
        return no_target(state, "a function", "change the signature of");
    };
    let Some(target) = target_of(&code.doc, index) else {
        return Screen::Code;
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
        .is_some_and(|s| s.kind == SymbolKind::Method);
    Screen::Form(Form {
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
    })
}

fn new_input(placeholder: &str, text: &str) -> TextArea<'static> {
    let mut input = TextArea::default();
    input.set_placeholder_text(placeholder);
    input.set_cursor_line_style(ratatui::style::Style::default());
    input.insert_str(text);
    input
}
