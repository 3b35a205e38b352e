//! The check of the result on screen: started when a result arrives (unless the project turned
//! it off), again on request (the check key, the tests key); stopped by the same key while it
//! runs, and cancelled by leaving the preview (Esc) or by a newer preview; its steps and its
//! answer.

use crate::tui::effect::Effect;
use crate::tui::keymap::{Command, Context};
use crate::tui::state::*;
use crate::verify::{Level, Verification};

/// Starts the check `id` of `preview`'s result at `level` (the check it replaces is cancelled
/// by the check thread). A result that changes nothing has nothing to check.
pub(super) fn start(id: u64, preview: &mut Preview, level: Level, fx: &mut Vec<Effect>) {
    let Some(Ok(ready)) = preview.result.as_mut() else {
        return;
    };
    if level == Level::Off || ready.outcome.plan.changes.is_empty() {
        ready.check = Check::not_asked();
        return;
    }
    ready.check = Check::running(id, level);
    fx.push(Effect::Verify {
        id,
        call: Box::new(ready.call.clone()),
        outcome: Box::new(ready.outcome.clone()),
        level,
    });
}

/// The check key (`Level::Check`) or the tests key (`Level::Tests`) in the preview: stops the
/// check running, else starts one.
pub(super) fn on_key(state: &mut State, preview: &mut Preview, level: Level, fx: &mut Vec<Effect>) {
    if stop(state, preview, fx) {
        return;
    }
    let refused = match preview.ready() {
        _ if preview.computing => {
            Some("the preview is still being computed; check it once it is shown")
        }
        None => Some("there is no result to check"),
        Some(ready) if ready.outcome.plan.changes.is_empty() => {
            Some("this refactor changes nothing, so there is nothing to check")
        }
        Some(_) => None,
    };
    match refused {
        Some(message) => state.info(message),
        None => {
            let id = state.fresh_id();
            start(id, preview, level, fx);
        }
    }
}

/// Stops the check running, if one is (the preview stays). Returns whether it did.
fn stop(state: &mut State, preview: &mut Preview, fx: &mut Vec<Effect>) -> bool {
    let Some(Ok(ready)) = preview.result.as_mut() else {
        return false;
    };
    if !ready.check.is_running() {
        return false;
    }
    ready.check.run = CheckRun::Cancelled;
    fx.push(Effect::CancelVerify);
    let again = state.keymap.hint(Context::Preview, Command::Check);
    state.info(format!(
        "check stopped: the result is not compiled or type-checked; {again} checks it again"
    ));
    true
}

pub(super) fn on_progress(state: &mut State, id: u64, step: String, files: Option<(usize, usize)>) {
    if let Some(check) = check_of(state, id)
        && let CheckRun::Running {
            step: current,
            files: done,
            ..
        } = &mut check.run
    {
        *current = Some(step);
        *done = files;
    }
}

pub(super) fn on_checked(state: &mut State, id: u64, verification: Verification) {
    let Some(preview) = state.preview_mut() else {
        return;
    };
    let Some(Ok(ready)) = preview.result.as_mut() else {
        return;
    };
    if ready.check.id != id || !ready.check.is_running() {
        return; // an older check, or one the user cancelled
    }
    let fallback = ready.call.request.file().to_string();
    ready.check.finish(verification, &fallback);
    // The groups are new: none of them is open.
    preview.open.retain(|fold| *fold == Fold::Fallback);
    let rows = preview.rows().len();
    preview.finding = preview.finding.min(rows.saturating_sub(1));
}

fn check_of(state: &mut State, id: u64) -> Option<&mut Check> {
    match state.preview_mut()?.result.as_mut()? {
        Ok(ready) if ready.check.id == id => Some(&mut ready.check),
        _ => None,
    }
}
