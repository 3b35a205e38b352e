//! The preview screen: asking for a preview (and again when a file it read has new content),
//! its answer, moving in the diff, the findings list, and the gate in front of a write: what
//! asks twice, what is refused.

use crate::api::ApiError;
use crate::refactor::Request;
use crate::tui::diffview;
use crate::tui::effect::Effect;
use crate::tui::keymap::{Command, Context};
use crate::tui::layout;
use crate::tui::state::*;
use crate::verify::Level;

use super::{check, load};

/// Asks for the preview of `request` and shows it (computing) with `form`, the form it came
/// from, underneath.
pub(super) fn request_preview(
    state: &mut State,
    request: PreviewRequest,
    form: Option<Form>,
    fx: &mut Vec<Effect>,
) -> Screen {
    let id = state.fresh_id();
    fx.push(Effect::Preview {
        id,
        call: Box::new(request.call.clone()),
    });
    // The origin as the code view read it: what the request is based on.
    let based_on = state
        .code
        .iter()
        .filter(|c| c.doc.path == request.origin)
        .map(|c| (c.doc.path.clone(), Some(c.doc.sha256.clone())))
        .collect();
    // A new preview replaces one set aside (and its check).
    if state
        .parked
        .take()
        .is_some_and(|p| p.ready().is_some_and(|r| r.check.is_running()))
    {
        fx.push(Effect::CancelVerify);
    }
    Screen::Preview {
        preview: Box::new(Preview {
            request,
            id,
            computing: true,
            result: None,
            stale: None,
            based_on,
            file: 0,
            scroll: 0,
            hscroll: 0,
            focus: PreviewFocus::Diff,
            finding: 0,
            notes: NotesMode::Folded,
            confirm: false,
            marked_row: None,
            open: Default::default(),
            from_findings: false,
            site: 0,
        }),
        form,
    }
}

/// Asks again for the preview (on screen or set aside) because `changed` now holds other content
/// (`sha256`, when known); the old result stays visible, marked stale, until the answer
/// arrives. The request in flight, if any, is superseded (the runtime cancels it).
pub(super) fn recompute(
    state: &mut State,
    changed: &str,
    sha256: Option<Option<String>>,
    fx: &mut Vec<Effect>,
) {
    let id = state.fresh_id();
    let Some(preview) = state.preview_mut() else {
        return;
    };
    if let Some(sha256) = sha256 {
        preview.based_on.insert(changed.to_string(), sha256);
    }
    preview.id = id;
    preview.computing = true;
    preview.stale = Some(changed.to_string());
    preview.confirm = false;
    if let Some(Ok(ready)) = preview.result.as_mut()
        && ready.check.is_running()
    {
        ready.check.run = CheckRun::Cancelled;
        fx.push(Effect::CancelVerify);
    }
    fx.push(Effect::Preview {
        id,
        call: Box::new(preview.request.call.clone()),
    });
}

pub(super) fn on_preview(
    state: &mut State,
    id: u64,
    result: Result<Box<Ready>, ApiError>,
    fx: &mut Vec<Effect>,
) {
    let check_id = state.fresh_id();
    let Some(preview) = state.preview_mut() else {
        return;
    };
    if preview.id != id {
        return; // an older request: the latest wins
    }
    let first = preview.result.is_none();
    preview.computing = false;
    preview.stale = None;
    preview.confirm = false;
    match &result {
        Ok(ready) => {
            // What the result was computed from is what the disk must still hold.
            for change in &ready.outcome.plan.changes {
                preview
                    .based_on
                    .insert(change.path.clone(), change.sha256_before.clone());
            }
            preview.file = preview.file.min(ready.diffs.len().saturating_sub(1));
            preview.finding = preview.finding.min(
                ready
                    .finding_rows(preview.notes, &preview.open)
                    .len()
                    .saturating_sub(1),
            );
            if first {
                preview.scroll = 0;
            }
            let rows = ready.diffs.get(preview.file).map_or(0, |d| d.rows.len());
            preview.scroll = preview.scroll.min(rows.saturating_sub(1));
        }
        Err(_) => preview.focus = PreviewFocus::Diff,
    }
    preview.marked_row = None;
    let verify = result.as_ref().ok().map(|ready| ready.verify);
    preview.result = Some(result);
    if let Some(level) = verify {
        check::start(check_id, preview, level, fx);
    }
}

fn diff_height(state: &State) -> usize {
    (state.preview_layout().diff.height as usize).max(1)
}

/// How long a preview must have taken for Esc to ask before throwing it away.
pub const LONG_PREVIEW: std::time::Duration = std::time::Duration::from_secs(10);

/// Keys on the preview screen, in its three contexts: the diff, the findings list, the prompt.
pub(super) fn key(
    state: &mut State,
    mut preview: Box<Preview>,
    form: Option<Form>,
    context: Context,
    command: Option<Command>,
    count: Option<usize>,
    fx: &mut Vec<Effect>,
) -> Screen {
    let next = match context {
        Context::Confirm => confirm_key(state, &mut preview, command, fx),
        Context::Findings => findings_key(state, &mut preview, command, count, fx),
        Context::Sites => {
            super::sites::key(state, &mut preview, command, count, fx);
            Next::Stay
        }
        _ => diff_key(state, &mut preview, command, count, fx),
    };
    match next {
        Next::Stay => Screen::Preview { preview, form },
        Next::Back => back(state, preview, form),
        Next::Park => {
            state.parked = Some(preview);
            Screen::Code
        }
    }
}

/// Where the preview screen goes after a key.
enum Next {
    Stay,
    /// Closed: to the form of a refused preview, else to the code view.
    Back,
    /// Set aside while the code view shows a finding's file.
    Park,
}

/// Closes the preview on screen after "close this long preview?" was answered yes.
pub(super) fn discard(state: &mut State, fx: &mut Vec<Effect>) {
    if let Screen::Preview { preview, form } = std::mem::replace(&mut state.screen, Screen::Code) {
        state.screen = match close(state, &preview, fx) {
            Next::Back => back(state, preview, form),
            _ => Screen::Preview { preview, form },
        };
    }
}

/// Stops what the preview has running and says it is closed.
fn close(_state: &mut State, preview: &Preview, fx: &mut Vec<Effect>) -> Next {
    if preview.computing {
        fx.push(Effect::CancelPreview);
    }
    if preview.ready().is_some_and(|r| r.check.is_running()) {
        fx.push(Effect::CancelVerify);
    }
    Next::Back
}

/// The screen after the preview is closed: the form of a refused preview, else the code view.
fn back(state: &mut State, preview: Box<Preview>, form: Option<Form>) -> Screen {
    let failed = matches!(preview.result, Some(Err(_)));
    match form {
        Some(form) if failed => Screen::Form(form),
        _ => {
            state.info("cancelled: nothing was written");
            Screen::Code
        }
    }
}

/// Esc in the diff: back to the findings list after a jump to a finding; a preview that took
/// long to compute is closed only when the user says so; otherwise closed.
fn on_back(state: &mut State, preview: &mut Preview, fx: &mut Vec<Effect>) -> Next {
    if preview.from_findings {
        preview.from_findings = false;
        preview.focus = PreviewFocus::Findings;
        return Next::Stay;
    }
    if let Some(ready) = preview.ready()
        && ready.took >= LONG_PREVIEW
        && !preview.computing
    {
        state.question = Some(Question::Discard {
            secs: ready.took.as_secs(),
        });
        return Next::Stay;
    }
    close(state, preview, fx)
}

/// `<` `>` `=` `Z`: the split between the diff and the panel (the split is remembered).
fn split_key(state: &mut State, preview: &Preview, command: Command, fx: &mut Vec<Effect>) {
    let width = layout::frame(state.size).body.width;
    let need = preview
        .ready()
        .and_then(|r| r.diffs.get(preview.file))
        .map_or(u16::MAX, |d| d.width());
    let current = layout::panel_width(width, state.split, need);
    match command {
        Command::Zoom => {
            state.split.zoom = !state.split.zoom;
            return;
        }
        Command::SplitLeft => state.split.panel = Some(current + layout::SPLIT_STEP),
        Command::SplitRight => state.split.panel = Some(current.saturating_sub(layout::SPLIT_STEP)),
        _ => state.split.panel = None,
    }
    state.split.zoom = false;
    // Kept in bounds, so the next key moves it from where it shows.
    if let Some(panel) = state.split.panel {
        state.split.panel = Some(layout::panel_width(
            width,
            layout::Split {
                panel: Some(panel),
                zoom: false,
            },
            need,
        ));
    }
    fx.push(Effect::SaveSplit(layout::Split {
        panel: state.split.panel,
        zoom: false,
    }));
}

fn diff_key(
    state: &mut State,
    preview: &mut Preview,
    command: Option<Command>,
    count: Option<usize>,
    fx: &mut Vec<Effect>,
) -> Next {
    let page = diff_height(state);
    let Some(command) = command else {
        return Next::Stay;
    };
    let n = count.unwrap_or(1).max(1);
    let (rows, hunks) = match preview.ready() {
        Some(ready) => ready
            .diffs
            .get(preview.file)
            .map_or((0, Vec::new()), |d| (d.rows.len(), d.hunks.clone())),
        None => (0, Vec::new()),
    };
    let files = preview.ready().map_or(0, |r| r.diffs.len());
    let last = rows.saturating_sub(1);
    match command {
        Command::Up => preview.scroll = preview.scroll.saturating_sub(n),
        Command::Down => preview.scroll = (preview.scroll + n).min(last),
        Command::PageUp => preview.scroll = preview.scroll.saturating_sub(page * n),
        Command::PageDown => preview.scroll = (preview.scroll + page * n).min(last),
        Command::Top => preview.scroll = count.map_or(0, |c| c.saturating_sub(1)).min(last),
        Command::Bottom => {
            preview.scroll = match count {
                Some(c) => c.saturating_sub(1).min(last),
                None => last.saturating_sub(page.saturating_sub(1)),
            }
        }
        Command::NextHunk => match hunks.iter().find(|&&h| h > preview.scroll) {
            Some(&h) => preview.scroll = h,
            None => state.info("no more hunks in this file"),
        },
        Command::PrevHunk => match hunks.iter().rev().find(|&&h| h < preview.scroll) {
            Some(&h) => preview.scroll = h,
            None => state.info("this is the first hunk"),
        },
        Command::NextFile | Command::PrevFile if files > 1 => {
            preview.file = if command == Command::NextFile {
                (preview.file + 1) % files
            } else {
                (preview.file + files - 1) % files
            };
            preview.scroll = 0;
            preview.marked_row = None;
        }
        Command::NextFile | Command::PrevFile => state.info("this refactor changes one file"),
        Command::ScrollLeft => preview.hscroll = preview.hscroll.saturating_sub(8),
        Command::ScrollRight => preview.hscroll += 8,
        Command::ToggleContext => toggle_context(preview),
        Command::SplitLeft | Command::SplitRight | Command::SplitAuto | Command::Zoom => {
            split_key(state, preview, command, fx)
        }
        Command::FocusWarnings => {
            if state.split.zoom {
                // The list is in the panel: show it.
                state.split.zoom = false;
            }
            let has_sites = preview
                .ready()
                .is_some_and(|r| !r.outcome.plan.sites.is_empty());
            if !preview.rows().is_empty() {
                preview.focus = PreviewFocus::Findings;
            } else if has_sites {
                preview.focus = PreviewFocus::Sites;
            } else {
                state.info("this preview has no findings to select; the caveats apply as a whole");
            }
        }
        Command::Apply if state.split.zoom => {
            // Never written with the warning panel out of sight.
            state.split.zoom = false;
            let apply = state.keymap.hint(Context::Preview, Command::Apply);
            state.info(format!(
                "the warning panel is back: read it, then press {apply} to apply"
            ));
        }
        Command::Apply => try_apply(state, preview, fx),
        Command::Check => check::on_key(state, preview, Level::Check, fx),
        Command::RunTests => check::on_key(state, preview, Level::Tests, fx),
        Command::Back => return on_back(state, preview, fx),
        _ => {}
    }
    if command != Command::Back {
        preview.from_findings &= matches!(
            command,
            Command::Up
                | Command::Down
                | Command::PageUp
                | Command::PageDown
                | Command::ScrollLeft
                | Command::ScrollRight
        );
    }
    Next::Stay
}

/// Shows the whole file or only the changes, keeping the same line at the top.
fn toggle_context(preview: &mut Preview) {
    let index = preview.file;
    let scroll = preview.scroll;
    let Some(Ok(ready)) = preview.result.as_mut() else {
        return;
    };
    let (Some(diff), Some(change)) = (
        ready.diffs.get(index),
        ready.outcome.plan.changes.get(index),
    ) else {
        return;
    };
    let line_at_top = diff.rows.iter().skip(scroll).find_map(|r| match r {
        diffview::Row::Line { new, old, .. } => new.or(*old),
        _ => None,
    });
    let toggled = diffview::file_diff(change, !diff.whole_file);
    preview.scroll = line_at_top
        .and_then(|l| toggled.row_of_line(l))
        .unwrap_or(0);
    ready.diffs[index] = toggled;
    preview.marked_row = None;
}

/// Why `preview` cannot be written now, if it cannot.
fn refusal(state: &State, preview: &Preview) -> Option<(NoticeLevel, String)> {
    let back = state.keymap.hint(Context::Preview, Command::Back);
    if layout::too_small(state.size) {
        let (w, h) = layout::MIN_SIZE;
        return Some((
            NoticeLevel::Error,
            format!(
                "enlarge the terminal to at least {w}×{h}: the warning panel must be readable before applying"
            ),
        ));
    }
    if let Some(path) = &preview.stale {
        return Some((
            NoticeLevel::Warning,
            format!(
                "not applied: {path} changed on disk, so this preview is stale; it is being recomputed — read the new one, then apply"
            ),
        ));
    }
    if preview.computing {
        return Some((
            NoticeLevel::Info,
            "the preview is still being computed".to_string(),
        ));
    }
    if state.writing.is_some() {
        return Some((NoticeLevel::Info, "a write is in progress".to_string()));
    }
    let ready = match &preview.result {
        Some(Ok(ready)) => ready,
        Some(Err(error)) => {
            return Some((
                NoticeLevel::Error,
                format!("nothing to apply: {} ({back} to go back)", error.message),
            ));
        }
        None => {
            return Some((
                NoticeLevel::Info,
                "the preview is still being computed".to_string(),
            ));
        }
    };
    if ready.outcome.plan.changes.is_empty() {
        return Some((
            NoticeLevel::Info,
            format!("this refactor changes nothing ({back} to go back)"),
        ));
    }
    if let Some(finding) = ready
        .outcome
        .plan
        .findings
        .iter()
        .find(|f| f.is_syntax_error())
    {
        return Some((
            NoticeLevel::Error,
            format!(
                "cannot apply: the result does not parse ({}:{}); {back} to go back and change the selection or the input",
                finding.file, finding.line
            ),
        ));
    }
    None
}

fn try_apply(state: &mut State, preview: &mut Preview, fx: &mut Vec<Effect>) {
    if let Some((level, message)) = refusal(state, preview) {
        state.notice = Some(Notice::new(level, message));
        return;
    }
    if preview
        .ready()
        .is_some_and(Ready::needs_second_confirmation)
    {
        preview.confirm = true;
        return;
    }
    apply(state, preview, fx);
}

/// Writes the outcome on screen, exactly as previewed: the engine computes the plan again and
/// writes it only if it is the one on screen (and checks every file against its hash).
fn apply(state: &mut State, preview: &Preview, fx: &mut Vec<Effect>) {
    let Some(ready) = preview.ready() else {
        return;
    };
    let id = state.fresh_id();
    let mut call = ready.call.clone();
    call.options.dry_run = false;
    fx.push(Effect::Apply {
        id,
        outcome: Box::new(ready.outcome.clone()),
        call: Box::new(call),
    });
    state.writing = Some(Writing {
        id,
        kind: WritingKind::Apply {
            request: Box::new(preview.request.clone()),
            changes: ready.outcome.plan.changes.clone(),
        },
    });
}

fn confirm_key(
    state: &mut State,
    preview: &mut Preview,
    command: Option<Command>,
    fx: &mut Vec<Effect>,
) -> Next {
    match command {
        Some(Command::Yes) => {
            preview.confirm = false;
            match refusal(state, preview) {
                Some((level, message)) => state.notice = Some(Notice::new(level, message)),
                None => apply(state, preview, fx),
            }
        }
        Some(Command::No) => {
            preview.confirm = false;
            state.info("not applied");
        }
        _ => {}
    }
    Next::Stay
}

fn findings_key(
    state: &mut State,
    preview: &mut Preview,
    command: Option<Command>,
    count: Option<usize>,
    fx: &mut Vec<Effect>,
) -> Next {
    let rows = preview.rows().len();
    let last = rows.saturating_sub(1);
    let n = count.unwrap_or(1).max(1);
    let page = (state.preview_layout().panel.height as usize / 2).max(1);
    match command {
        Some(Command::Up) => preview.finding = preview.finding.saturating_sub(n),
        Some(Command::Down) => preview.finding = (preview.finding + n).min(last),
        Some(Command::PageUp) => preview.finding = preview.finding.saturating_sub(page * n),
        Some(Command::PageDown) => preview.finding = (preview.finding + page * n).min(last),
        Some(Command::Top) => preview.finding = count.map_or(0, |c| c.saturating_sub(1)).min(last),
        Some(Command::Bottom) => {
            preview.finding = count.map_or(last, |c| c.saturating_sub(1)).min(last)
        }
        Some(Command::ToggleNotes) => {
            preview.notes = preview.notes.next();
            let rows = preview.rows().len();
            if rows == 0 {
                preview.focus = PreviewFocus::Diff;
            }
            preview.finding = preview.finding.min(rows.saturating_sub(1));
        }
        Some(Command::Back) => preview.focus = PreviewFocus::Diff,
        Some(Command::Jump) => {
            let fold = match preview.rows().get(preview.finding) {
                Some(FindingRow::Fallback) => Some(Fold::Fallback),
                Some(FindingRow::CheckGroup(g)) => Some(Fold::CheckGroup(*g)),
                _ => None,
            };
            match fold {
                Some(fold) => {
                    if !preview.open.remove(&fold) {
                        preview.open.insert(fold);
                    }
                }
                None => return jump_to_finding(state, preview, fx),
            }
        }
        Some(Command::IncludeReference) => include_reference(state, preview, fx),
        Some(Command::FocusSites) => super::sites::focus(state, preview),
        _ => {}
    }
    Next::Stay
}

/// Rename: the possible reference the selected warning is about joins the references renamed
/// (or, when it was included already, leaves them), and the preview is computed again.
fn include_reference(state: &mut State, preview: &mut Preview, fx: &mut Vec<Effect>) {
    let Request::Rename(rename) = &preview.request.call.request else {
        state.info("only a rename has possible references to include".to_string());
        return;
    };
    let Some(Ok(ready)) = preview.result.as_ref() else {
        return;
    };
    let Some(finding) = ready
        .finding_rows(preview.notes, &preview.open)
        .get(preview.finding)
        .and_then(|row| match row {
            FindingRow::One(i) | FindingRow::Group { first: i, .. } => Some(*i),
            _ => None,
        })
        .and_then(|i| ready.outcome.plan.findings.get(i))
    else {
        return;
    };
    let prefix = format!("{}:{}:", finding.file, finding.line);
    let mut include = rename.include_possible.clone();
    if let Some(at) = include.iter().position(|l| l.starts_with(&prefix)) {
        let location = include.remove(at);
        state.info(format!("{location} left out of the rename again"));
    } else {
        let possible = match &ready.outcome.plan.details {
            crate::refactor::Details::Rename(details) => details.possible_references.clone(),
            _ => Vec::new(),
        };
        let Some(location) = possible.into_iter().find(|l| l.starts_with(&prefix)) else {
            state.info("this warning is not about a possible reference".to_string());
            return;
        };
        state.info(format!("{location} included in the rename"));
        include.push(location);
    }
    if let Request::Rename(rename) = &mut preview.request.call.request {
        rename.include_possible = include;
    }
    let id = state.fresh_id();
    preview.id = id;
    preview.computing = true;
    preview.confirm = false;
    fx.push(Effect::Preview {
        id,
        call: Box::new(preview.request.call.clone()),
    });
}

/// Shows the finding's line: in the diff when the file is part of the change (the whole file is
/// shown if the line is outside the hunks), else in the code view, the preview set aside.
fn jump_to_finding(state: &mut State, preview: &mut Preview, fx: &mut Vec<Effect>) -> Next {
    let page = diff_height(state);
    let row = preview.finding;
    let rows = preview.rows();
    let Some(Ok(ready)) = preview.result.as_mut() else {
        return Next::Stay;
    };
    let Some(finding) = rows.get(row).and_then(|r| ready.row_finding(r)).cloned() else {
        return Next::Stay;
    };
    if let Some(file) = ready.diffs.iter().position(|d| d.path == finding.file) {
        let mut row = ready.diffs[file].row_of_line(finding.line);
        if row.is_none()
            && let Some(change) = ready.outcome.plan.changes.get(file)
        {
            ready.diffs[file] = diffview::file_diff(change, true);
            row = ready.diffs[file].row_of_line(finding.line);
        }
        preview.file = file;
        preview.focus = PreviewFocus::Diff;
        preview.from_findings = true;
        preview.marked_row = row;
        preview.scroll = row.map_or(0, |r| r.saturating_sub(page / 3));
        return Next::Stay;
    }
    let back = state.keymap.hint(Context::Code, Command::ReturnToPreview);
    preview.focus = PreviewFocus::Diff;
    load(
        state,
        &finding.file,
        Some(finding.line.saturating_sub(1)),
        true,
        fx,
    );
    state.info(format!(
        "{}:{} — press {back} to return to the preview",
        finding.file, finding.line
    ));
    Next::Park
}
