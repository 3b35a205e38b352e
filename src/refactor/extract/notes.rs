//! The caveat notes of extract function: for each canonical caveat that the data flow addressed
//! in this result, one line saying what it did (the caveat itself stays, verbatim). A note is
//! written only when the analysis acted: no parameters, no note about captured locals. Pure.

use crate::honesty::{Caveat, CaveatNote};
use crate::lang::Language;
use crate::refactor::Finding;

use super::flow::DataFlow;
use super::signature::{Exit, Shape};
use super::wording as w;

pub fn caveat_notes(
    lang: Language,
    flow: &DataFlow,
    shape: &Shape,
    _findings: &[Finding],
) -> Vec<CaveatNote> {
    let mut notes = Vec::new();
    let parameters: Vec<&str> = flow.parameters.iter().map(|p| p.name.as_str()).collect();
    if !parameters.is_empty() {
        let note = match lang {
            Language::Python => w::captured_passed_python(&parameters),
            Language::Rust => {
                let untyped: Vec<&str> = flow
                    .parameters
                    .iter()
                    .filter(|p| p.ty.is_none())
                    .map(|p| p.name.as_str())
                    .collect();
                w::captured_passed_rust(&parameters, &untyped)
            }
        };
        notes.push(CaveatNote::new(Caveat::ExtractCapturedLocals, note));
    }
    let returned = match &shape.exit {
        Exit::Names => {
            let names: Vec<&str> = flow.returns.iter().map(|r| r.name.as_str()).collect();
            Some(w::values_returned(&names))
        }
        Exit::Return => Some(w::RETURN_PASSED_ON.to_string()),
        Exit::Tail => Some(w::TAIL_RETURNED.to_string()),
        Exit::Nothing => None,
        Exit::Jumps(jumps) => Some(w::jumps_returned(&jumps.return_type(), &jumps.call_sites())),
    };
    if let Some(note) = returned {
        notes.push(CaveatNote::new(Caveat::ExtractReturnValue, note));
    }
    if let Some(early) = &shape.early_return {
        notes.push(CaveatNote::new(
            Caveat::ExtractReturnValue,
            w::early_returns_handed_back(&early.return_type(), &early.around_call("..")),
        ));
    }
    if shape.yield_from {
        notes.push(CaveatNote::new(
            Caveat::ExtractReturnValue,
            w::YIELDS_KEPT.to_string(),
        ));
    }
    if shape.fallible
        && let Some(ty) = &shape.return_type
    {
        notes.push(CaveatNote::new(
            Caveat::ExtractReturnValue,
            w::question_marks_kept(ty),
        ));
    }
    notes
}
