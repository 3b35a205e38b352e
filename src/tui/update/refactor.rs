//! Starting a refactor from the code view: what it is about (the selected lines, the selected
//! symbol, the symbol at the cursor) and the form or preview that comes next.

use ratatui_textarea::TextArea;

use crate::api::ToolCall;
use crate::lang::symbols::{Symbol, SymbolKind};
use crate::refactor::{InlineRequest, InlineVariableRequest, Request, SafeDeleteRequest};
use crate::tui::aim::{self, Aim};
use crate::tui::document::Document;
use crate::tui::effect::Effect;
use crate::tui::keymap::{Command, Context};
use crate::tui::motion;
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
        folder: None,
    })
}

/// The symbol a refactor acts on: the selected one when it fits; else the function or item
/// *named* under the cursor (its definition or a call of it); else the innermost fitting one
/// around the cursor. `Err` is the notice when the cursor names something it cannot act on.
fn target_symbol(
    code: &CodeView,
    accept: impl Fn(&Symbol) -> bool,
    needs: &str,
    refactor: &str,
) -> Result<Option<usize>, String> {
    if let Some(Selection::Symbol(i)) = code.selection
        && code.doc.symbols.get(i).is_some_and(&accept)
    {
        return Ok(Some(i));
    }
    let col = code.col.min(motion::last_col(&code.doc, code.cursor));
    match aim::aim(&code.doc, code.cursor, col, &accept) {
        Aim::Definition(i) | Aim::Call(i) => match code.doc.symbols.get(i) {
            Some(symbol) if accept(symbol) => Ok(Some(i)),
            Some(symbol) => Err(format!(
                "the cursor is on {}, and {refactor} works on {needs}; move the cursor off the name to {refactor} the one around it",
                symbol_label(&code.doc, symbol)
            )),
            None => Ok(None),
        },
        Aim::Elsewhere { name } => Err(format!(
            "`{name}` is not defined in this file: open the file that defines it and put the cursor on its definition to {refactor} it"
        )),
        Aim::Around(around) => Ok(around),
    }
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
    let target = match target_symbol(code, |s| s.kind.is_function(), "functions", "inline") {
        Ok(Some(i)) => target_of(&code.doc, i),
        Ok(None) => None,
        Err(message) => {
            state.warn(message);
            return Screen::Code;
        }
    };
    let Some(target) = target else {
        return no_target(state, "a function", "inline");
    };
    let file = code.doc.path.clone();
    let request = PreviewRequest {
        call: ToolCall::new(Request::Inline(InlineRequest {
            file: file.clone(),
            function: target.query(),
        })),
        title: Title::new(
            format!("inline {}", target.label),
            &format!("in {file}"),
            "",
        ),
        origin: file,
        origin_line: code.cursor,
    };
    preview::request_preview(state, request, None, fx)
}

pub(super) fn start_move(state: &mut State) -> Screen {
    let Some(code) = state.code.as_ref() else {
        return Screen::Code;
    };
    let target = match target_symbol(code, |s| s.top_level, "top-level items", "move") {
        Ok(Some(i)) => target_of(&code.doc, i),
        Ok(None) => None,
        Err(message) => {
            state.warn(message);
            return Screen::Code;
        }
    };
    let Some(target) = target else {
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
        folder: None,
    };
    form::refresh_completions(&mut form, &state.picker.files);
    Screen::Form(form)
}

pub(super) fn start_change_signature(state: &mut State) -> Screen {
    let Some(code) = state.code.as_ref() else {
        return Screen::Code;
    };
    let index = match target_symbol(
        code,
        |s| s.kind.is_function(),
        "functions",
        "change the signature of",
    ) {
        Ok(Some(i)) => i,
        Ok(None) => return no_target(state, "a function", "change the signature of"),
        Err(message) => {
            state.warn(message);
            return Screen::Code;
        }
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
        folder: None,
    })
}

/// `r`: the name under the cursor, whatever it names (the engine finds the symbol from its
/// position: a definition, a use through an import, a local, a member through `self`).
pub(super) fn start_rename(state: &mut State) -> Screen {
    let Some(code) = state.code.as_ref() else {
        return Screen::Code;
    };
    let col = code.col.min(motion::last_col(&code.doc, code.cursor));
    let Some(mut word) = aim::word_at(&code.doc, code.cursor, col) else {
        state.warn("put the cursor on a name (a definition or a use) to rename it".to_string());
        return Screen::Code;
    };
    let keyword = code.doc.text[word.clone()].to_string();
    if code.doc.language.is_keyword(&keyword) {
        // On the keyword of a definition (`def`, `fn`, `class`, `struct`): what it defines.
        let defined = code.doc.symbols.iter().find(|s| {
            s.line == code.cursor + 1
                && s.kind != SymbolKind::Impl
                && s.name_range.start > word.start
        });
        match defined {
            Some(symbol) => word = symbol.name_range.clone(),
            None => {
                state.warn(format!(
                    "`{keyword}` is a keyword, not a name: put the cursor on a name (a definition or a use) to rename it"
                ));
                return Screen::Code;
            }
        }
    }
    let name = code.doc.text[word.clone()].to_string();
    let line_start = code.doc.lines.get(code.cursor).map_or(0, |r| r.start);
    let column = code.doc.text[line_start..word.start].chars().count() + 1;
    Screen::Form(Form {
        kind: FormKind::Rename {
            file: code.doc.path.clone(),
            name: name.clone(),
            line: code.cursor + 1,
            column,
            language: code.doc.language,
        },
        input: new_input("the new name", &name),
        error: None,
        completions: Vec::new(),
        completion: None,
        folder: None,
    })
}

/// `E`: the expression that spans the selected lines, else the innermost one under the cursor.
pub(super) fn start_extract_variable(state: &mut State) -> Screen {
    let Some(code) = state.code.as_ref() else {
        return Screen::Code;
    };
    let doc = &code.doc;
    let line_range = |line: usize| doc.lines.get(line).cloned().unwrap_or(0..0);
    let wanted = match code.selection {
        Some(Selection::Lines { anchor, head }) => {
            let first = line_range(anchor.min(head));
            let last = line_range(anchor.max(head));
            let span = &doc.text[first.start..last.end];
            let lead = span.len() - span.trim_start().len();
            let kept = span.trim_end().trim_end_matches([';', ',', ':']).trim_end();
            first.start + lead..(first.start + kept.len()).max(first.start + lead)
        }
        _ => {
            let col = code.col.min(motion::last_col(doc, code.cursor));
            let start = line_range(code.cursor).start;
            let offset = doc.text[start..]
                .char_indices()
                .nth(col)
                .map_or(doc.text.len(), |(i, _)| start + i);
            offset..offset
        }
    };
    let tree = doc.language.parse(&doc.text);
    let found = crate::lang::vars::expressions_around(doc.language, tree.root_node(), wanted);
    if found.is_empty() {
        state.warn(
            "put the cursor on an expression (or select the lines it spans) to extract it into a variable"
                .to_string(),
        );
        return Screen::Code;
    }
    let index = crate::text::LineIndex::new(&doc.text);
    let choices: Vec<ExpressionChoice> = found
        .into_iter()
        .map(|range| ExpressionChoice {
            start: index.line_column(&doc.text, range.start),
            end: index.line_column(&doc.text, range.end),
            expression: crate::text::collapse_whitespace(&doc.text[range]),
        })
        .collect();
    let first = choices[0].clone();
    Screen::Form(Form {
        kind: FormKind::ExtractVariable {
            file: doc.path.clone(),
            start: first.start,
            end: first.end,
            expression: first.expression,
            language: doc.language,
            choices,
            chosen: 0,
        },
        input: new_input("the new variable's name, e.g. total", ""),
        error: None,
        completions: Vec::new(),
        completion: None,
        folder: None,
    })
}

/// `I`: the local named under the cursor, at once (no form: the preview shows the reads).
pub(super) fn start_inline_variable(state: &mut State, fx: &mut Vec<Effect>) -> Screen {
    let Some(code) = state.code.as_ref() else {
        return Screen::Code;
    };
    let col = code.col.min(motion::last_col(&code.doc, code.cursor));
    let Some(word) = aim::word_at(&code.doc, code.cursor, col) else {
        state.warn("put the cursor on a local variable's name to inline it".to_string());
        return Screen::Code;
    };
    let name = code.doc.text[word.clone()].to_string();
    let line_start = code.doc.lines.get(code.cursor).map_or(0, |r| r.start);
    let column = code.doc.text[line_start..word.start].chars().count() + 1;
    let file = code.doc.path.clone();
    let request = PreviewRequest {
        call: ToolCall::new(Request::InlineVariable(InlineVariableRequest {
            file: file.clone(),
            line: code.cursor + 1,
            column,
        })),
        title: Title::new(
            format!("inline variable `{name}`"),
            &format!("in {file}"),
            "",
        ),
        origin: file,
        origin_line: code.cursor,
    };
    preview::request_preview(state, request, None, fx)
}

/// `D`: the item named under the cursor (or selected), else the one around it; previewed at
/// once (nothing to type), as inline is.
pub(super) fn start_safe_delete(state: &mut State, fx: &mut Vec<Effect>) -> Screen {
    let Some(code) = state.code.as_ref() else {
        return Screen::Code;
    };
    let deletable = |s: &Symbol| {
        !matches!(
            s.kind,
            SymbolKind::Impl | SymbolKind::Module | SymbolKind::Macro
        )
    };
    let target = match target_symbol(
        code,
        deletable,
        "functions, methods, types and module-level variables or constants",
        "safe delete",
    ) {
        Ok(Some(i)) => target_of(&code.doc, i),
        Ok(None) => None,
        Err(message) => {
            state.warn(message);
            return Screen::Code;
        }
    };
    let Some(target) = target else {
        return no_target(state, "a function, type or constant", "safe delete");
    };
    let file = code.doc.path.clone();
    let request = PreviewRequest {
        call: ToolCall::new(Request::SafeDelete(SafeDeleteRequest {
            file: file.clone(),
            symbol: crate::lang::symbols::SymbolQuery {
                name: target.name_path.clone(),
                line: Some(target.line),
                column: None,
            },
        })),
        title: Title::new(
            format!("safe delete {}", target.label),
            &format!("in {file}"),
            "",
        ),
        origin: file,
        origin_line: code.cursor,
    };
    preview::request_preview(state, request, None, fx)
}

/// `P`: the innermost expression at the cursor (a literal, a name, `self.size`) becomes a new
/// parameter of the function around it; the form asks for its name.
pub(super) fn start_introduce_parameter(state: &mut State) -> Screen {
    let Some(code) = state.code.as_ref() else {
        return Screen::Code;
    };
    let doc = &code.doc;
    let col = code.col.min(motion::last_col(doc, code.cursor));
    let line_start = doc.lines.get(code.cursor).map_or(0, |r| r.start);
    let at = doc
        .line(code.cursor)
        .char_indices()
        .nth(col)
        .map_or(doc.lines.get(code.cursor).map_or(0, |r| r.end), |(i, _)| {
            line_start + i
        });
    let Some(range) = crate::lang::expressions::expression_at_cursor(doc.language, &doc.tree, at)
    else {
        state.warn(
            "put the cursor on an expression inside a function (a literal, a name, `self.size`) to make it a parameter"
                .to_string(),
        );
        return Screen::Code;
    };
    let Some(function) = doc
        .symbols
        .iter()
        .filter(|s| {
            s.kind.is_function() && s.range.start <= range.start && range.end <= s.range.end
        })
        .min_by_key(|s| s.range.len())
    else {
        state.warn(
            "the expression at the cursor is not inside a function: introduce parameter needs one to take the parameter"
                .to_string(),
        );
        return Screen::Code;
    };
    let position = |offset: usize| {
        let line = doc.text[..offset].matches('\n').count();
        let start = doc.lines.get(line).map_or(0, |r| r.start);
        (line + 1, doc.text[start..offset].chars().count() + 1)
    };
    Screen::Form(Form {
        kind: FormKind::IntroduceParameter {
            file: doc.path.clone(),
            expression: doc.text[range.clone()].to_string(),
            start: position(range.start),
            end: position(range.end),
            function: symbol_label(doc, function),
            language: doc.language,
        },
        input: new_input("the new parameter's name, e.g. limit", ""),
        error: None,
        completions: Vec::new(),
        completion: None,
        folder: None,
    })
}

fn new_input(placeholder: &str, text: &str) -> TextArea<'static> {
    crate::tui::input::field(placeholder, text)
}
