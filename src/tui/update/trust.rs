//! Trust from inside the UI, and the questions over the screen: `T` shows what trusting the
//! project allows and asks (or offers to stop trusting it); a change of trust — made here or by
//! `candor trust` in another shell, seen by the watcher — opens the engine again with the new
//! rules and checks the result on screen again. Also the answer to "close this long preview?".

use crate::tui::effect::Effect;
use crate::tui::keymap::Command;
use crate::tui::state::*;

use super::{check, preview};

/// `T`: asks whether to trust the project (or to stop trusting it).
pub(super) fn ask(state: &mut State) {
    state.question = Some(Question::Trust {
        trust: !state.trust.allows_project_programs(),
    });
}

/// `y` / `n` to the question on screen.
pub(super) fn answer(state: &mut State, command: Option<Command>, fx: &mut Vec<Effect>) {
    let yes = match command {
        Some(Command::Yes) => true,
        Some(Command::No) => false,
        _ => return,
    };
    let Some(question) = state.question.take() else {
        return;
    };
    match (question, yes) {
        (Question::Trust { trust }, true) => fx.push(Effect::SetTrust(trust)),
        (Question::Trust { trust: true }, false) => {
            state.info("not trusted: nothing the project controls runs")
        }
        (Question::Trust { trust: false }, false) => state.info("still trusted"),
        (Question::Discard { .. }, true) => preview::discard(state, fx),
        (Question::Discard { .. }, false) => state.info("the preview stays"),
    }
}

/// The project's trust as read from the store (`by_user`: after `T` here). A change opens the
/// engine again, asks again for a preview being computed and checks the result on screen again
/// unless its check already ran to its end.
pub(super) fn on_read(
    state: &mut State,
    result: Result<crate::trust::Trust, String>,
    by_user: bool,
    fx: &mut Vec<Effect>,
) {
    let trust = match result {
        Ok(trust) => trust,
        Err(message) => {
            if by_user {
                state.error(format!("the trust could not be changed: {message}"));
            }
            return;
        }
    };
    if trust == state.trust {
        if by_user {
            state.info(if trust.allows_project_programs() {
                "this project is trusted"
            } else {
                "this project is not trusted"
            });
        }
        return;
    }
    let trusted = trust.allows_project_programs();
    state.trust = trust;
    fx.push(Effect::ReopenEngine);
    if state.backend != crate::backend::BackendChoice::TreeSitter
        && let Some(path) = state.code.as_ref().map(|c| c.doc.path.clone())
    {
        fx.push(Effect::WarmUp { path });
    }
    let check_id = state.fresh_id();
    let mut checking = false;
    if let Some(preview) = state.preview_mut() {
        if preview.computing {
            // The engine thread that computed it is gone: ask the new one.
            fx.push(Effect::Preview {
                id: preview.id,
                call: Box::new(preview.request.call.clone()),
            });
        } else if let Some(ready) = preview.ready() {
            let ran = ready.check.verification().is_some_and(|v| {
                matches!(
                    v.state,
                    crate::verify::State::Clean | crate::verify::State::Introduced
                )
            });
            let level = match ready.check.level {
                crate::verify::Level::Off => ready.verify,
                level => level,
            };
            if !ran && level != crate::verify::Level::Off {
                check::start(check_id, preview, level, fx);
                checking = true;
            }
        }
    }
    let whose = if by_user {
        ""
    } else {
        " (changed outside candor)"
    };
    let again = if checking {
        "; checking the result again"
    } else {
        ""
    };
    if trusted {
        state.info(format!(
            "this project is trusted now{whose}: cargo check, its toolchain, its configured servers and interpreter may run{again}"
        ));
    } else {
        state.warn(format!(
            "this project is not trusted any more{whose}: nothing it controls runs{again}"
        ));
    }
}
