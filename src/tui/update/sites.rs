//! The sites list of the preview: moving in it, leaving sites out (one, a file's, all) and
//! writing them again. The diff, the panel's counts and the findings follow at once through
//! `sites::choose` on the plan in memory (no engine call); the check is run again on the chosen
//! plan, and the apply sends the choice to the engine, which computes it again and compares.

use crate::refactor::sites;
use crate::tui::diffview;
use crate::tui::effect::Effect;
use crate::tui::keymap::Command;
use crate::tui::state::*;

use super::check;

/// Tab from the findings list (or from the diff when there are no findings): the sites list
/// when the plan has sites, else the diff.
pub(super) fn focus(state: &mut State, preview: &mut Preview) {
    let has_sites = preview
        .ready()
        .is_some_and(|r| !r.outcome.plan.sites.is_empty());
    if has_sites {
        preview.focus = PreviewFocus::Sites;
        if state.split.zoom {
            state.split.zoom = false;
        }
    } else {
        preview.focus = PreviewFocus::Diff;
    }
}

pub(super) fn key(
    state: &mut State,
    preview: &mut Preview,
    command: Option<Command>,
    count: Option<usize>,
    fx: &mut Vec<Effect>,
) {
    let rows = preview
        .ready()
        .map_or(0, |r| rows(&r.outcome.plan.sites).len());
    let last = rows.saturating_sub(1);
    let n = count.unwrap_or(1).max(1);
    let page = (state.preview_layout().panel.height as usize / 2).max(1);
    match command {
        Some(Command::Up) => preview.site = preview.site.saturating_sub(n),
        Some(Command::Down) => preview.site = (preview.site + n).min(last),
        Some(Command::PageUp) => preview.site = preview.site.saturating_sub(page * n),
        Some(Command::PageDown) => preview.site = (preview.site + page * n).min(last),
        Some(Command::Top) => preview.site = count.map_or(0, |c| c.saturating_sub(1)).min(last),
        Some(Command::Bottom) => {
            preview.site = count.map_or(last, |c| c.saturating_sub(1)).min(last)
        }
        Some(Command::ToggleSite) => toggle(state, preview, Scope::Row, fx),
        Some(Command::ToggleFile) => toggle(state, preview, Scope::File, fx),
        Some(Command::ToggleAll) => toggle(state, preview, Scope::All, fx),
        Some(Command::Jump) => jump(state, preview),
        Some(Command::Back) => preview.focus = PreviewFocus::Diff,
        _ => {}
    }
}

#[derive(Clone, Copy)]
enum Scope {
    Row,
    File,
    All,
}

/// Flips the sites of `scope` around the cursor; a group is written again when any of it is
/// left out, else left out whole.
fn toggle(state: &mut State, preview: &mut Preview, scope: Scope, fx: &mut Vec<Effect>) {
    if preview.computing {
        state.info("the preview is being computed again; choose its sites once it is shown");
        return;
    }
    let Some(Ok(ready)) = preview.result.as_mut() else {
        return;
    };
    let plan_sites = &ready.outcome.plan.sites;
    let rows = rows(plan_sites);
    let Some(row) = rows.get(preview.site) else {
        return;
    };
    let file_of_row = match row {
        SiteRow::File { path, .. } => path.clone(),
        SiteRow::Site(i) => plan_sites[*i].file.clone(),
    };
    let group: Vec<&sites::Site> = match (scope, row) {
        (Scope::Row, SiteRow::Site(i)) => vec![&plan_sites[*i]],
        (Scope::All, _) => plan_sites.iter().collect(),
        _ => plan_sites
            .iter()
            .filter(|s| s.file == file_of_row)
            .collect(),
    };
    let write = group.iter().any(|s| !s.chosen);
    let mut choice = ready.choice.clone();
    choice.set_all(group.into_iter(), write);
    match apply_choice(ready, choice) {
        Ok(()) => {
            let (written, total) = sites::counts(&ready.outcome.plan.sites);
            state.info(format!("{written} of {total} sites written"));
            restart_check(state, preview, fx);
        }
        Err(e) => state.error(format!("cannot make that choice: {e}")),
    }
}

/// Computes the chosen plan from the plan as computed: changes, sites, findings, diffs of the
/// files that changed, and the call the apply sends (with the choice).
pub fn apply_choice(ready: &mut Ready, choice: SiteChoice) -> Result<(), sites::ChoiceError> {
    let computed = &choice.computed;
    let chosen = sites::choose(
        ready.outcome.tool,
        computed,
        &choice.excluded,
        &choice.included,
    )?;
    let mut findings: Vec<_> = computed
        .findings
        .iter()
        .filter(|f| !chosen.supersedes(f))
        .cloned()
        .collect();
    findings.extend(chosen.findings.iter().cloned());
    crate::refactor::findings::normalize(&mut findings);
    // Only the diffs of the files whose text changed are made again.
    let diffs =
        chosen
            .changes
            .iter()
            .map(|change| {
                let same =
                    ready.outcome.plan.changes.iter().position(|c| {
                        c.path == change.path && c.sha256_after == change.sha256_after
                    });
                match same.and_then(|i| {
                    ready
                        .diffs
                        .iter()
                        .find(|d| d.path == ready.outcome.plan.changes[i].path)
                }) {
                    Some(diff) => diff.clone(),
                    None => diffview::file_diff(change, false),
                }
            })
            .collect();
    ready.outcome.plan.changes = chosen.changes;
    ready.outcome.plan.sites = chosen.sites;
    ready.outcome.plan.findings = findings;
    ready.diffs = diffs;
    ready.call.options.exclude_sites = choice.excluded.clone();
    ready.call.options.include_sites = choice.included.clone();
    ready.choice = choice;
    Ok(())
}

/// The check was of the plan before the choice: it is stopped and run again on the new one.
fn restart_check(state: &mut State, preview: &mut Preview, fx: &mut Vec<Effect>) {
    let id = state.fresh_id();
    let Some(Ok(ready)) = preview.result.as_mut() else {
        return;
    };
    if ready.check.is_running() {
        fx.push(Effect::CancelVerify);
    }
    let level = match &ready.check.run {
        CheckRun::NotAsked => ready.verify,
        _ => ready.check.level,
    };
    preview.file = preview.file.min(ready.diffs.len().saturating_sub(1));
    preview.scroll = 0;
    preview.marked_row = None;
    check::start(id, preview, level, fx);
}

/// Shows the site under the cursor in the diff (the sites list keeps the focus).
fn jump(state: &mut State, preview: &mut Preview) {
    let page = (state.preview_layout().diff.height as usize).max(1);
    let Some(Ok(ready)) = preview.result.as_mut() else {
        return;
    };
    let rows = rows(&ready.outcome.plan.sites);
    let (file, line) = match rows.get(preview.site) {
        Some(SiteRow::Site(i)) => {
            let site = &ready.outcome.plan.sites[*i];
            (site.file.clone(), site.line)
        }
        Some(SiteRow::File { path, .. }) => (path.clone(), 1),
        None => return,
    };
    let Some(index) = ready.diffs.iter().position(|d| d.path == file) else {
        state.info(format!(
            "{file} is not written with this choice: nothing of it is in the diff"
        ));
        return;
    };
    let mut row = ready.diffs[index].row_of_line(line);
    if row.is_none()
        && let Some(change) = ready.outcome.plan.changes.iter().find(|c| c.path == file)
    {
        ready.diffs[index] = diffview::file_diff(change, true);
        row = ready.diffs[index].row_of_line(line);
    }
    preview.file = index;
    preview.marked_row = row;
    preview.scroll = row.map_or(0, |r| r.saturating_sub(page / 3));
}
