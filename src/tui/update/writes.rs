//! The answers of writes: a refactor applied (the code view shows the new text, undo is
//! offered) or refused (a stale file asks for the preview again), and undo.

use crate::api::{ApiError, ErrorCode};
use crate::tui::action::{UndoDone, UndoRefused};
use crate::tui::effect::Effect;
use crate::tui::keymap::{Command, Context};
use crate::tui::state::*;
use crate::workspace::write::ApplyReport;

use super::{load, preview};

pub(super) fn on_applied(
    state: &mut State,
    id: u64,
    result: Result<ApplyReport, ApiError>,
    fx: &mut Vec<Effect>,
) {
    let Some(writing) = state.writing.take_if(|w| w.id == id) else {
        return;
    };
    let WritingKind::Apply { request, changes } = writing.kind else {
        return;
    };
    match result {
        Ok(report) => {
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
                tool: request.tool(),
                label: request.tool().label().to_string(),
                files: report.written,
                changes,
                transaction: report.transaction,
            });
            // The preview is written: it is gone, wherever it was.
            state.parked = None;
            state.screen = Screen::Code;
            // The selected lines now hold other code: start afresh.
            if let Some(code) = state.code.as_mut() {
                code.selection = None;
                code.visual = false;
            }
            let same = state
                .code
                .as_ref()
                .is_some_and(|c| c.doc.path == request.origin);
            let goto = if same {
                None
            } else {
                Some(request.origin_line)
            };
            load(state, &request.origin, goto, true, fx);
        }
        Err(error) => {
            state.error(format!("not applied: {}", error.message));
            if error.code == ErrorCode::StaleFile {
                preview::recompute(state, &request.origin, None, fx);
            }
        }
    }
}

pub(super) fn undo(state: &mut State, fx: &mut Vec<Effect>) {
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

pub(super) fn on_undone(
    state: &mut State,
    id: u64,
    result: Result<UndoDone, UndoRefused>,
    fx: &mut Vec<Effect>,
) {
    if state.writing.take_if(|w| w.id == id).is_none() {
        return;
    }
    match result {
        Ok(done) => {
            let label = state
                .last_applied
                .take()
                .map(|a| a.label)
                .unwrap_or_default();
            let mut text = format!("undone {label}: restored {}", done.files.join(", "));
            for merged in &done.merged {
                text.push_str(&format!("; {merged}"));
            }
            state.info(text);
            if let Some(path) = state.code.as_ref().map(|c| c.doc.path.clone()) {
                load(state, &path, None, false, fx);
            }
        }
        Err(refused) if refused.nothing_left => {
            // Undone elsewhere in the meantime: there is nothing left to offer.
            state.last_applied = None;
            state.warn(format!("nothing undone: {}", refused.message));
        }
        Err(refused) => state.error(format!("undo refused: {}", refused.message)),
    }
}

/// Asks the journal again whether the refactor undo offers can still be undone (after the
/// journal changed, or when the terminal gets the focus back from a shell).
pub(super) fn check_undo(state: &State, fx: &mut Vec<Effect>) {
    if let Some(transaction) = state
        .last_applied
        .as_ref()
        .and_then(|a| a.transaction.clone())
    {
        fx.push(Effect::CheckUndo { transaction });
    }
}

/// The journal's answer: a refactor undone elsewhere (`candor undo` in a shell) is no longer
/// offered.
pub(super) fn on_undo_checked(state: &mut State, transaction: &str, journal_state: Option<String>) {
    let Some(applied) = state
        .last_applied
        .as_ref()
        .filter(|a| a.transaction.as_deref() == Some(transaction))
    else {
        return;
    };
    if journal_state.as_deref() == Some("applied") {
        return;
    }
    let label = applied.label.clone();
    state.last_applied = None;
    let why = match journal_state {
        Some(journal_state) => format!("the journal says it was {journal_state}"),
        None => "it is no longer in the journal".to_string(),
    };
    state.info(format!(
        "{label} was undone outside candor ({why}); there is nothing left to undo here"
    ));
}
