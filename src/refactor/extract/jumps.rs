//! Rust: the `break`s and `continue`s of the selection whose loop stays outside it, handed back
//! through the new function's value so the call site jumps: one kind of jump is a `bool`
//! (`if f(..) { break; }`), a `break` and a `continue` together an
//! `Option<std::ops::ControlFlow<()>>` the call site matches on. Anything else (a `break` with a
//! value, more kinds, a `return` or `?` beside them, a value the call must also hand back) is
//! left to the findings. Pure.

use std::ops::Range;

use crate::lang::Language;
use crate::lang::rust::statements::jump_carries_value;
use crate::lang::syntax::FlowKind;

use super::diagnose::Context;

/// One distinct jump the call site performs (`break`, `continue 'outer`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jump {
    pub is_break: bool,
    pub label: Option<String>,
}

impl Jump {
    /// The statement the call site writes: `break;`, `continue 'outer;`.
    pub fn statement(&self) -> String {
        let keyword = if self.is_break { "break" } else { "continue" };
        match &self.label {
            Some(label) => format!("{keyword} {label}"),
            None => keyword.to_string(),
        }
    }
}

/// How the new function hands the jumps back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Jumps {
    /// `true`: jump.
    One(Jump),
    /// `Some(Break(()))` for the `break`, `Some(Continue(()))` for the `continue`, `None`:
    /// carry on.
    BreakAndContinue { on_break: Jump, on_continue: Jump },
}

pub const CONTROL_FLOW: &str = "std::ops::ControlFlow";

impl Jumps {
    pub fn return_type(&self) -> String {
        match self {
            Jumps::One(_) => "bool".to_string(),
            Jumps::BreakAndContinue { .. } => format!("Option<{CONTROL_FLOW}<()>>"),
        }
    }

    /// The body's last line: no jump taken.
    pub fn fall_through(&self) -> String {
        match self {
            Jumps::One(_) => "false".to_string(),
            Jumps::BreakAndContinue { .. } => "None".to_string(),
        }
    }

    /// What replaces a jump in the new function.
    fn returned(&self, is_break: bool) -> String {
        match self {
            Jumps::One(_) => "return true".to_string(),
            Jumps::BreakAndContinue { .. } if is_break => {
                format!("return Some({CONTROL_FLOW}::Break(()))")
            }
            Jumps::BreakAndContinue { .. } => format!("return Some({CONTROL_FLOW}::Continue(()))"),
        }
    }

    /// The jumps the call site makes, for a note (`break`, `break`/`continue 'outer`).
    pub fn call_sites(&self) -> String {
        match self {
            Jumps::One(jump) => jump.statement(),
            Jumps::BreakAndContinue {
                on_break,
                on_continue,
            } => format!("{}`/`{}", on_break.statement(), on_continue.statement()),
        }
    }

    /// The statement at the call site, around the call.
    pub fn call_statement(&self, call: &str) -> String {
        match self {
            Jumps::One(jump) => format!("if {call} {{ {}; }}", jump.statement()),
            Jumps::BreakAndContinue {
                on_break,
                on_continue,
            } => format!(
                "match {call} {{ Some({CONTROL_FLOW}::Break(())) => {}, Some({CONTROL_FLOW}::Continue(())) => {}, None => {{}} }}",
                on_break.statement(),
                on_continue.statement()
            ),
        }
    }
}

/// The jumps of the selection and the text that replaces each one in the new function, when
/// they are all the selection hands back (the caller checks that no value is).
pub fn plan(cx: &Context<'_, '_>) -> Option<(Jumps, Vec<(Range<usize>, String)>)> {
    if cx.lang != Language::Rust {
        return None;
    }
    let syntax = cx.lang.syntax();
    let mut found: Vec<(Range<usize>, Jump)> = Vec::new();
    for statement in &cx.selection.statements {
        for flow in syntax.control_flow(*statement, cx.text) {
            let contained = flow.boundary.is_some_and(|b| cx.inside(b));
            match flow.kind {
                FlowKind::Await => {}
                _ if contained => {}
                FlowKind::Break | FlowKind::Continue => {
                    let target = flow.target?;
                    if cx.inside(target.start_byte()) {
                        continue;
                    }
                    if jump_carries_value(flow.node) {
                        return None;
                    }
                    let jump = Jump {
                        is_break: flow.kind == FlowKind::Break,
                        label: flow.label.clone(),
                    };
                    found.push((flow.node.byte_range(), jump));
                }
                _ => return None,
            }
        }
    }
    let mut distinct: Vec<&Jump> = Vec::new();
    for (_, jump) in &found {
        if !distinct.contains(&jump) {
            distinct.push(jump);
        }
    }
    let jumps = match distinct.as_slice() {
        [] => return None,
        [one] => Jumps::One((*one).clone()),
        [a, b] if a.is_break != b.is_break => {
            let (on_break, on_continue) = if a.is_break { (a, b) } else { (b, a) };
            Jumps::BreakAndContinue {
                on_break: (*on_break).clone(),
                on_continue: (*on_continue).clone(),
            }
        }
        _ => return None,
    };
    let edits = found
        .into_iter()
        .map(|(range, jump)| (range, jumps.returned(jump.is_break)))
        .collect();
    Some((jumps, edits))
}
