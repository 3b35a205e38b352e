//! Rust: the `return`s of the selection that leave the enclosing function early, handed back
//! through the new function's value so the call site returns. Alone, they make the new function
//! return `Option<R>` (`R` the enclosing function's return type; `None`: it fell through) and the
//! call `if let Some(value) = f(..) { return value; }`, or a `bool` and `if f(..) { return; }`
//! when `R` is `()`. Beside values the call assigns, the new function returns
//! `std::ops::ControlFlow<R, V>` and the call matches on it. Anything else (a `?` or a
//! `break`/`continue` beside them, an `R` the new function cannot name, a selection inside a
//! closure) is left to the findings. Pure.

use std::ops::Range;

use tree_sitter::Node;

use crate::lang::Language;
use crate::lang::rust::statements::{inside_closure, returned_value};
use crate::lang::syntax::FlowKind;

use super::diagnose::Context;
use super::jumps::CONTROL_FLOW;

/// How the new function hands the early returns back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EarlyReturn {
    /// The enclosing function returns `()`: `true` means return.
    Bool,
    /// `Some(value)`: return it; `None`: carry on.
    Option { returned: String },
    /// `Break(value)`: return it; `Continue(values)`: the values the call assigns.
    ControlFlow { returned: String, values: String },
}

impl EarlyReturn {
    pub fn return_type(&self) -> String {
        match self {
            EarlyReturn::Bool => "bool".to_string(),
            EarlyReturn::Option { returned } => format!("Option<{returned}>"),
            EarlyReturn::ControlFlow { returned, values } => {
                format!("{CONTROL_FLOW}<{returned}, {values}>")
            }
        }
    }

    /// The body's last line, `value` being what it handed back before (`(a, b)`).
    pub fn fall_through(&self, value: Option<&str>) -> String {
        match self {
            EarlyReturn::Bool => false.to_string(),
            EarlyReturn::Option { .. } => "None".to_string(),
            EarlyReturn::ControlFlow { .. } => {
                format!("{CONTROL_FLOW}::Continue({})", value.unwrap_or("()"))
            }
        }
    }

    /// The call expression, or the statement when nothing else is handed back.
    pub fn around_call(&self, call: &str) -> String {
        match self {
            EarlyReturn::Bool => format!("if {call} {{ return; }}"),
            EarlyReturn::Option { .. } => {
                format!("if let Some(value) = {call} {{ return value; }}")
            }
            EarlyReturn::ControlFlow { .. } => format!(
                "match {call} {{ {CONTROL_FLOW}::Break(value) => return value, {CONTROL_FLOW}::Continue(value) => value }}"
            ),
        }
    }

    /// The edits that turn one `return` of the selection into the new function's: (byte range
    /// now, replacement). The returned value stays in place, so edits inside it still apply.
    fn edits(&self, node: Node<'_>) -> Option<Vec<(Range<usize>, String)>> {
        let value = returned_value(node);
        let open = match (self, value) {
            (EarlyReturn::Bool, None) => {
                return Some(vec![(node.byte_range(), "return true".to_string())]);
            }
            (EarlyReturn::ControlFlow { .. }, None) => {
                let text = format!("return {CONTROL_FLOW}::Break(())");
                return Some(vec![(node.byte_range(), text)]);
            }
            // A value returned by a `()` function (`return f()`), or none by another one.
            (EarlyReturn::Bool, Some(_)) | (EarlyReturn::Option { .. }, None) => return None,
            (EarlyReturn::Option { .. }, Some(_)) => "return Some(".to_string(),
            (EarlyReturn::ControlFlow { .. }, Some(_)) => format!("return {CONTROL_FLOW}::Break("),
        };
        let value = value?;
        Some(vec![
            (node.start_byte()..value.start_byte(), open),
            (value.end_byte()..value.end_byte(), ")".to_string()),
        ])
    }
}

/// The early returns of the selection and the edits that make them the new function's, when
/// the selection holds some and nothing the new function cannot carry beside them. `returned`
/// is the enclosing function's declared return type (`None`: `()`), `values` the type of what
/// the call assigns, if anything.
pub fn plan(
    cx: &Context<'_, '_>,
    returned: Option<&str>,
    values: Option<&str>,
) -> Option<(EarlyReturn, Vec<(Range<usize>, String)>)> {
    let function = cx.target.function?;
    if cx.lang != Language::Rust || inside_closure(cx.selection.block, function) {
        return None;
    }
    let syntax = cx.lang.syntax();
    let mut returns = Vec::new();
    for statement in &cx.selection.statements {
        for flow in syntax.control_flow(*statement, cx.text) {
            let contained = flow.boundary.is_some_and(|b| cx.inside(b));
            match flow.kind {
                _ if contained => {}
                FlowKind::Await => {}
                FlowKind::Return => returns.push(flow.node),
                FlowKind::Break | FlowKind::Continue
                    if flow.target.is_some_and(|t| cx.inside(t.start_byte())) => {}
                _ => return None,
            }
        }
    }
    if returns.is_empty() {
        return None;
    }
    let returned = returned.unwrap_or("()").trim();
    if returned.contains("impl ") || returned == "!" {
        return None;
    }
    let early = match values {
        Some(values) if !values.contains('_') => EarlyReturn::ControlFlow {
            returned: returned.to_string(),
            values: values.to_string(),
        },
        Some(_) => return None,
        None if returned == "()" => EarlyReturn::Bool,
        None => EarlyReturn::Option {
            returned: returned.to_string(),
        },
    };
    let mut edits = Vec::new();
    for node in returns {
        edits.extend(early.edits(node)?);
    }
    Some((early, edits))
}
