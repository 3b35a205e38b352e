//! What the watcher reports: the open file is read again when its content changed, and the
//! preview is asked again only when a file it was computed from now holds other bytes (never
//! on a read, a touch, or our own write).

use crate::tui::effect::Effect;
use crate::tui::state::*;

use super::{load, preview};

pub(super) fn on_files_changed(
    state: &mut State,
    changed: &[(String, Option<String>)],
    fx: &mut Vec<Effect>,
) {
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
            .preview()
            .is_some_and(|p| p.changed_under(path, sha.as_deref()));
        if affected && state.writing.is_none() {
            preview::recompute(state, path, Some(sha.clone()), fx);
        }
    }
}

/// Keeps the watcher on the open file and the preview's files, and on the undo journal while
/// undo is offered.
pub(super) fn sync_watch(state: &mut State, fx: &mut Vec<Effect>) {
    let journal = state.last_applied.is_some();
    if journal != state.watching_journal {
        state.watching_journal = journal;
        fx.push(Effect::WatchJournal(journal));
    }
    let mut paths: Vec<String> = state.code.iter().map(|c| c.doc.path.clone()).collect();
    if let Some(preview) = state.preview() {
        paths.extend(preview.paths());
    }
    paths.sort();
    paths.dedup();
    if paths != state.watched {
        state.watched = paths.clone();
        fx.push(Effect::Watch(paths));
    }
}
