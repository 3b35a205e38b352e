//! The state machine with hand-built outcomes (the refactors have their own tests): the confirm
//! gate, with hand-built outcomes (the refactors have their own tests): what
//! (what asks twice, what is refused), what wins, what goes stale. Writes go through the real
//! engine on a temp directory.

use ratatui::crossterm::event::{MouseButton, MouseEvent, MouseEventKind};

use super::*;
use crate::api::{ApiError, ErrorCode};
use crate::backend::{BackendChoice, Outcome, ServerInfo};
use crate::edit::{FileChange, SourceFile, TextEdit};
use crate::honesty::BackendKind;
use crate::honesty::Tool;
use crate::refactor::{Finding, Plan, Severity};
use crate::tui::diffview;
use crate::tui::headless::Headless;

const TEXT: &str = "def helper(a):\n    return a\n\n\ndef main():\n    return helper(1)\n";

fn session() -> (tempfile::TempDir, Headless) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), TEXT).unwrap();
    let mut h = Headless::open(
        &dir.path().join("a.py"),
        Some(BackendChoice::TreeSitter),
        (100, 30),
    )
    .unwrap();
    h.press(&["i"]);
    assert_eq!(h.state.screen.kind(), ScreenKind::Preview);
    (dir, h)
}

fn outcome(backend: BackendKind, findings: Vec<Finding>, after: &str) -> Outcome {
    let source = SourceFile::from_text("a.py", TEXT);
    let change = FileChange::modify(&source, vec![TextEdit::new(0..TEXT.len(), after)]).unwrap();
    Outcome {
        tool: Tool::InlineFunction,
        lang: crate::lang::Language::Python,
        plan: Plan {
            changes: vec![change],
            findings,
            details: Default::default(),
            caveat_notes: Vec::new(),
            ..Plan::default()
        },
        backend,
        server: (backend == BackendKind::Lsp).then(|| ServerInfo {
            name: "pylsp".into(),
            version: Some("1.2".into()),
        }),
        semantic_backend: None,
        fallback_reason: None,
    }
}

fn show(h: &mut Headless, outcome: Outcome) {
    show_checked(h, outcome, crate::verify::Level::Off);
}

/// Shows `outcome` as the engine's answer, its check asked at `verify`.
fn show_checked(h: &mut Headless, outcome: Outcome, verify: crate::verify::Level) {
    let call = crate::api::ToolCall::new(crate::refactor::Request::Inline(
        crate::refactor::InlineRequest {
            file: "a.py".to_string(),
            function: crate::lang::symbols::SymbolQuery {
                name: "helper".to_string(),
                line: None,
                column: None,
            },
        },
    ));
    let diffs = outcome
        .plan
        .changes
        .iter()
        .map(|c| diffview::file_diff(c, false))
        .collect();
    let id = h.state.preview().unwrap().id;
    h.dispatch(Action::PreviewReady {
        id,
        result: Ok(Box::new(Ready::new(call, outcome, diffs, verify))),
    });
    h.settle();
}

/// What inlining `helper` gives (the engine computes it again at apply: the outcome shown
/// must be the one it would write).
const AFTER: &str = "def main():\n    a = 1\n    return a\n";

#[test]
fn a_heuristic_result_asks_twice_then_writes_and_undo_restores() {
    let (dir, mut h) = session();
    let warning = Finding::warning("a.py", 6, "the argument `1` is left as it is");
    show(&mut h, outcome(BackendKind::Hybrid, vec![warning], AFTER));
    h.press(&["enter"]);
    let preview = h.state.preview().unwrap();
    assert!(preview.confirm);
    assert_eq!(
        preview.ready().unwrap().confirm_question(),
        "apply without a check (the project turns the check off ([verify] default = false in .candor/config.toml)), despite 3 caveats and 1 warning? y/n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        TEXT,
        "nothing yet"
    );
    h.press(&["y"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        AFTER
    );
    assert_eq!(h.state.screen.kind(), ScreenKind::Code);
    assert_eq!(h.state.code.as_ref().unwrap().doc.text, AFTER);
    h.press(&["u"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        TEXT
    );
    assert_eq!(h.state.code.as_ref().unwrap().doc.text, TEXT);
}

#[test]
fn a_clean_language_server_result_applies_on_the_first_key() {
    let (dir, mut h) = session();
    show_checked(
        &mut h,
        outcome(
            BackendKind::Lsp,
            vec![Finding::info("a.py", 1, "fine")],
            AFTER,
        ),
        crate::verify::Level::Check,
    );
    check_answer(&mut h, Vec::new());
    h.press(&["enter"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        AFTER
    );
}

#[test]
fn a_result_with_a_syntax_error_cannot_be_confirmed() {
    let (dir, mut h) = session();
    let broken = "def main(:\n";
    let mut result = outcome(BackendKind::Lsp, Vec::new(), broken);
    result.plan.findings = crate::refactor::findings::check_syntax(&result.plan.changes);
    assert!(result.plan.has_syntax_errors());
    show(&mut h, result);
    h.press(&["enter"]);
    let notice = h.state.notice.as_ref().unwrap();
    assert!(
        notice
            .text
            .starts_with("cannot apply: the result does not parse (a.py:1)"),
        "{notice:?}"
    );
    assert!(!h.state.preview().unwrap().confirm);
    h.press(&["y"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        TEXT
    );
}

#[test]
fn the_latest_request_wins_and_only_real_changes_go_stale() {
    let (dir, mut h) = session();
    show(&mut h, outcome(BackendKind::Hybrid, Vec::new(), AFTER));
    let old_id = h.state.preview().unwrap().id;
    // The same bytes reported again (our own write, a touch): not stale.
    h.files_changed(&["a.py"]);
    assert!(h.state.preview().unwrap().stale.is_none());
    assert!(h.queue.is_empty());
    // Different bytes: stale, and asked again.
    std::fs::write(dir.path().join("a.py"), format!("{TEXT}# x\n")).unwrap();
    h.files_changed(&["a.py"]);
    let preview = h.state.preview().unwrap();
    assert_eq!(preview.stale.as_deref(), Some("a.py"));
    assert!(preview.id > old_id);
    assert!(
        matches!(h.queue.iter().find(|e| matches!(e, Effect::Preview { .. })), Some(Effect::Preview { id, .. }) if *id == preview.id)
    );
    // An answer to the old request is dropped.
    let stale_answer = Err(ApiError::new(ErrorCode::Io, "old"));
    h.dispatch(Action::PreviewReady {
        id: old_id,
        result: stale_answer,
    });
    assert!(h.state.preview().unwrap().stale.is_some());
    assert!(matches!(h.state.preview().unwrap().result, Some(Ok(_))));
}

#[test]
fn reads_while_computing_never_ask_again_and_esc_cancels() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), TEXT).unwrap();
    let mut h = Headless::open(
        &dir.path().join("a.py"),
        Some(BackendChoice::TreeSitter),
        (100, 30),
    )
    .unwrap();
    h.press_pending("i");
    let first = h.state.preview().unwrap().id;
    let asked = |h: &Headless| {
        h.queue
            .iter()
            .filter(|e| matches!(e, Effect::Preview { .. }))
            .count()
    };
    assert_eq!(asked(&h), 1);
    // A language server reads the file while the preview computes: the watcher reports it
    // with the content it had. Not new content: nothing is asked again.
    for _ in 0..5 {
        h.files_changed(&["a.py"]);
    }
    let preview = h.state.preview().unwrap();
    assert_eq!((preview.id, preview.stale.as_deref()), (first, None));
    assert_eq!(asked(&h), 1, "the request in flight is not sent again");
    // New content: asked once more, superseding the first.
    std::fs::write(dir.path().join("a.py"), format!("{TEXT}# x\n")).unwrap();
    h.files_changed(&["a.py"]);
    h.files_changed(&["a.py"]);
    assert_eq!(asked(&h), 2);
    assert_eq!(h.state.preview().unwrap().stale.as_deref(), Some("a.py"));
    // Esc while it computes: the request is cancelled, not left running.
    h.press_pending("esc");
    assert!(h.queue.iter().any(|e| matches!(e, Effect::CancelPreview)));
    assert!(h.state.preview().is_none());
}

#[test]
fn a_terminal_too_small_for_the_warning_panel_refuses_to_apply() {
    let (dir, mut h) = session();
    show(&mut h, outcome(BackendKind::Lsp, Vec::new(), AFTER));
    h.dispatch(Action::Resize(50, 12));
    h.press(&["enter"]);
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .starts_with("enlarge the terminal")
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        TEXT
    );
}

#[test]
fn selection_labels_and_mouse_drag() {
    let (_dir, mut h) = session();
    h.press(&["esc"]);
    let code = h.state.code.as_ref().unwrap();
    assert_eq!(code.selection_label(), None);
    let area = layout::code(h.state.size, true).code;
    let mouse = |kind, row| MouseEvent {
        kind,
        column: area.x + 5,
        row: area.y + row,
        modifiers: ratatui::crossterm::event::KeyModifiers::NONE,
    };
    h.dispatch(Action::Mouse(mouse(
        MouseEventKind::Down(MouseButton::Left),
        4,
    )));
    h.dispatch(Action::Mouse(mouse(
        MouseEventKind::Drag(MouseButton::Left),
        5,
    )));
    h.dispatch(Action::Mouse(mouse(
        MouseEventKind::Up(MouseButton::Left),
        5,
    )));
    assert_eq!(
        h.state.code.as_ref().unwrap().selection_label().as_deref(),
        Some("lines 5\u{2013}6")
    );
    h.press(&["o"]).type_text("helper").press(&["enter"]);
    assert_eq!(
        h.state.code.as_ref().unwrap().selection_label().as_deref(),
        Some("def helper")
    );
    h.press(&["esc", "shift-down", "shift-down"]);
    assert_eq!(
        h.state.code.as_ref().unwrap().selection_label().as_deref(),
        Some("lines 1\u{2013}3")
    );
}

#[test]
fn a_caveat_note_is_shown_under_its_caveat() {
    use crate::honesty::{Caveat, CaveatNote};
    use ratatui::{Terminal, backend::TestBackend};
    let (_dir, mut h) = session();
    let mut result = outcome(BackendKind::Hybrid, Vec::new(), AFTER);
    result.plan.caveat_notes = vec![CaveatNote::new(
        Caveat::InlineArguments,
        "arguments bound to parameters",
    )];
    show(&mut h, result);
    let mut terminal = Terminal::new(TestBackend::new(120, 40)).unwrap();
    terminal
        .draw(|f| crate::tui::view::render(&h.state, f))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let rows: Vec<String> = (0..40)
        .map(|y| (0..120).map(|x| buffer[(x, y)].symbol()).collect())
        .collect();
    let caveat = rows
        .iter()
        .position(|r| r.contains("no argument-substitution"))
        .expect("the caveat is on screen");
    // The caveat may wrap; its note follows it, before the next caveat's bullet.
    let note = rows
        .iter()
        .position(|r| r.contains("↳ this time: arguments bound to parameters"))
        .expect("the note is on screen");
    assert!(note > caveat, "{}", rows.join("\n"));
    assert!(
        rows[caveat + 1..note].iter().all(|r| !r.contains("• ")),
        "{}",
        rows.join("\n")
    );
    assert_eq!(
        rows.iter().filter(|r| r.contains("↳")).count(),
        1,
        "one note, under its own caveat"
    );
}

/// The check's answer for the result on screen: `introduced` new diagnostics (none: clean).
fn check_answer(h: &mut Headless, introduced: Vec<crate::verify::Diagnostic>) {
    let id = h.state.preview().unwrap().ready().unwrap().check.id;
    let verification = crate::verify::Verification {
        checker: Some("ruff + compile + basedpyright".to_string()),
        state: if introduced.is_empty() {
            crate::verify::State::Clean
        } else {
            crate::verify::State::Introduced
        },
        introduced,
        ..crate::verify::Verification::skipped("")
    };
    h.dispatch(Action::Checked {
        id,
        verification: Box::new(verification),
    });
    h.settle();
}

fn undefined_name(line: usize) -> crate::verify::Diagnostic {
    crate::verify::Diagnostic {
        file: "a.py".to_string(),
        line,
        severity: Severity::Error,
        code: "F821".to_string(),
        message: "Undefined name `helper`".to_string(),
        source: "ruff".to_string(),
    }
}

#[test]
fn a_language_server_result_with_new_errors_asks_twice_naming_them() {
    let (dir, mut h) = session();
    let pending = h.checks_pending;
    show_checked(
        &mut h,
        outcome(BackendKind::Lsp, Vec::new(), AFTER),
        crate::verify::Level::Check,
    );
    assert_eq!(h.checks_pending, pending + 1, "the check was asked for");
    let ready = h.state.preview().unwrap().ready().unwrap();
    assert!(ready.check.is_running());
    // While it runs, applying asks first, and says why.
    h.press(&["enter"]);
    assert!(h.state.preview().unwrap().confirm);
    assert_eq!(
        h.state
            .preview()
            .unwrap()
            .ready()
            .unwrap()
            .confirm_question(),
        "apply before the check has finished? y/n"
    );
    h.press(&["n"]);
    check_answer(&mut h, vec![undefined_name(2)]);
    let ready = h.state.preview().unwrap().ready().unwrap();
    assert!(ready.check.blocks_apply());
    assert_eq!(
        ready.confirm_question(),
        "apply despite 1 new error found by the check? y/n"
    );
    // The error is a row of the panel; Enter on it marks its line in the diff.
    h.press(&["tab"]);
    assert_eq!(h.state.preview().unwrap().focus, PreviewFocus::Findings);
    h.press(&["enter"]);
    let preview = h.state.preview().unwrap();
    assert_eq!(preview.focus, PreviewFocus::Diff);
    let marked = preview.marked_row.expect("the line is marked");
    let diff = &preview.ready().unwrap().diffs[0];
    assert_eq!(diff.row_of_line(2), Some(marked));
    // A language server's result with new errors needs the second key.
    h.press(&["enter"]);
    assert!(h.state.preview().unwrap().confirm);
    h.press(&["n"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        TEXT
    );
}

#[test]
fn a_clean_check_of_a_language_server_result_applies_on_the_first_key() {
    let (dir, mut h) = session();
    show_checked(
        &mut h,
        outcome(BackendKind::Lsp, Vec::new(), AFTER),
        crate::verify::Level::Check,
    );
    check_answer(&mut h, Vec::new());
    assert!(h.state.preview().unwrap().ready().unwrap().check.is_clean());
    h.press(&["enter"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        AFTER
    );
}

#[test]
fn new_warnings_alone_are_clean_but_never_called_nothing_new() {
    let (dir, mut h) = session();
    show_checked(
        &mut h,
        outcome(BackendKind::Lsp, Vec::new(), AFTER),
        crate::verify::Level::Check,
    );
    let id = h.state.preview().unwrap().ready().unwrap().check.id;
    let mut unused = undefined_name(2);
    unused.severity = Severity::Warning;
    unused.code = "F841".to_string();
    unused.message = "Local variable `x` is assigned to but never used".to_string();
    h.dispatch(Action::Checked {
        id,
        verification: Box::new(crate::verify::Verification {
            checker: Some("ruff + compile + pyrefly".to_string()),
            state: crate::verify::State::Clean,
            introduced_warnings: vec![unused],
            ..crate::verify::Verification::skipped("")
        }),
    });
    h.settle();
    let ready = h.state.preview().unwrap().ready().unwrap();
    assert!(ready.check.is_clean());
    assert_eq!(
        ready.semantic_caveat().as_deref(),
        Some(
            "pylsp (a language server) did the refactor, and ruff + compile + pyrefly found no \
             new error in it, 1 new warning (see Check)"
        )
    );
    h.press(&["enter"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        AFTER,
        "a new warning alone does not stop the write"
    );
}

#[test]
fn the_caveat_line_names_the_checker_once() {
    let (_dir, mut h) = session();
    show_checked(
        &mut h,
        outcome(BackendKind::Lsp, Vec::new(), AFTER),
        crate::verify::Level::Check,
    );
    check_answer(&mut h, vec![undefined_name(2), undefined_name(3)]);
    let caveat = h
        .state
        .preview()
        .unwrap()
        .ready()
        .unwrap()
        .semantic_caveat()
        .unwrap();
    assert!(
        caveat.ends_with("ruff + compile + basedpyright found 2 new errors in it (see Check)"),
        "{caveat}"
    );
}

#[test]
fn the_check_key_stops_it_esc_cancels_it_and_old_answers_are_dropped() {
    let (_dir, mut h) = session();
    show_checked(
        &mut h,
        outcome(BackendKind::Lsp, Vec::new(), AFTER),
        crate::verify::Level::Check,
    );
    let id = h.state.preview().unwrap().ready().unwrap().check.id;
    h.press_pending("v");
    assert!(h.queue.iter().any(|e| matches!(e, Effect::CancelVerify)));
    h.settle();
    assert_eq!(
        h.state.screen.kind(),
        ScreenKind::Preview,
        "the preview stays"
    );
    let check = &h.state.preview().unwrap().ready().unwrap().check;
    assert_eq!(check.run, CheckRun::Cancelled);
    assert!(
        h.state
            .notice
            .as_ref()
            .unwrap()
            .text
            .starts_with("check stopped")
    );
    // The stopped check's answer comes anyway: dropped.
    h.dispatch(Action::Checked {
        id,
        verification: Box::new(crate::verify::Verification::skipped("cancelled while …")),
    });
    assert_eq!(
        h.state.preview().unwrap().ready().unwrap().check.run,
        CheckRun::Cancelled
    );
    // The check key asks again, with a new id; the tests key stops it, and asks for the tests.
    h.press(&["v"]);
    let check = &h.state.preview().unwrap().ready().unwrap().check;
    assert!(check.is_running() && check.id > id);
    h.press(&["t", "t"]);
    let check = &h.state.preview().unwrap().ready().unwrap().check;
    assert_eq!(check.level, crate::verify::Level::Tests);
    assert!(check.is_running());
    // Esc leaves the preview and cancels the check.
    h.press_pending("esc");
    assert!(h.queue.iter().any(|e| matches!(e, Effect::CancelVerify)));
    h.settle();
    assert_eq!(h.state.screen.kind(), ScreenKind::Code);
}

#[test]
fn a_project_that_turned_the_check_off_asks_before_writing_an_unchecked_result() {
    let (dir, mut h) = session();
    show(&mut h, outcome(BackendKind::Lsp, Vec::new(), AFTER));
    let ready = h.state.preview().unwrap().ready().unwrap();
    assert_eq!(ready.check.run, CheckRun::NotAsked);
    assert!(ready.needs_second_confirmation());
    h.press(&["enter"]);
    let preview = h.state.preview().unwrap();
    assert!(preview.confirm, "an unchecked result asks");
    assert!(
        preview
            .ready()
            .unwrap()
            .confirm_question()
            .starts_with("apply without a check (the project turns the check off"),
    );
    h.press(&["n"]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
        TEXT
    );
}

/// A check that could not run (`state`, `reason`) for the result on screen.
fn check_unavailable(h: &mut Headless, state: crate::verify::State, reason: &str) {
    let id = h.state.preview().unwrap().ready().unwrap().check.id;
    let verification = crate::verify::Verification {
        checker: Some("cargo check".to_string()),
        state,
        ..crate::verify::Verification::skipped(reason)
    };
    h.dispatch(Action::Checked {
        id,
        verification: Box::new(verification),
    });
    h.settle();
}

#[test]
fn an_unchecked_semantic_result_asks_once_naming_why_whatever_the_backend() {
    let untrusted = crate::trust::Trust::Untrusted {
        root: "/p".into(),
        why: crate::trust::Untrusted::Never,
    }
    .refusal("`cargo check` in this project");
    let cases = [
        (
            crate::verify::State::Unavailable,
            untrusted.as_str(),
            "apply without a check (cargo check unavailable: the project is not trusted)? y/n",
        ),
        (
            crate::verify::State::Timeout,
            "cargo check after the refactor took longer than 120 s",
            "apply without a check (cargo check timed out: cargo check after the refactor took longer than 120 s)? y/n",
        ),
    ];
    for (backend, semantic) in [
        (BackendKind::Lsp, None),
        (
            BackendKind::Lsp,
            Some(ServerInfo {
                name: "rope".into(),
                version: None,
            }),
        ),
    ] {
        for (state, reason, question) in &cases {
            let (dir, mut h) = session();
            let mut result = outcome(backend, Vec::new(), AFTER);
            if semantic.is_some() {
                result.server = None;
                result.semantic_backend = semantic.clone();
            }
            show_checked(&mut h, result, crate::verify::Level::Check);
            check_unavailable(&mut h, *state, reason);
            h.press(&["enter"]);
            let preview = h.state.preview().unwrap();
            assert!(preview.confirm, "{question}: asked");
            assert_eq!(preview.ready().unwrap().confirm_question(), *question);
            assert_eq!(
                preview.ready().unwrap().confirm_hint(),
                "Read why it was not checked in the warning panel."
            );
            h.press(&["y"]);
            assert_eq!(
                std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
                AFTER,
                "written once confirmed"
            );
        }
    }
    // A check stopped by the user: asked too.
    let (_dir, mut h) = session();
    show_checked(
        &mut h,
        outcome(BackendKind::Lsp, Vec::new(), AFTER),
        crate::verify::Level::Check,
    );
    h.press(&["v"]);
    h.press(&["enter"]);
    let preview = h.state.preview().unwrap();
    assert!(preview.confirm);
    assert!(
        preview
            .ready()
            .unwrap()
            .confirm_question()
            .contains("the check was stopped")
    );
}

#[test]
fn the_tui_checks_by_default_and_the_project_can_turn_it_off() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), TEXT).unwrap();
    let open = |default| {
        let mut config = crate::config::Config::default();
        config.verify.default = default;
        let mut h = Headless::open_trusted(
            &dir.path().join("a.py"),
            config,
            Some(BackendChoice::TreeSitter),
            (100, 30),
        )
        .unwrap();
        h.press(&["i"]);
        h.state.preview().unwrap().ready().unwrap().clone()
    };
    let checked = open(None);
    assert_eq!(checked.verify, crate::verify::Level::Check);
    assert!(checked.check.is_running(), "{:?}", checked.check);
    let off = open(Some(crate::verify::Level::Off));
    assert_eq!(off.check.run, CheckRun::NotAsked);
    let tests = open(Some(crate::verify::Level::Tests));
    assert_eq!(tests.check.level, crate::verify::Level::Tests);
}

#[test]
fn a_newer_preview_cancels_the_check_of_the_old_result() {
    let (dir, mut h) = session();
    show_checked(
        &mut h,
        outcome(BackendKind::Lsp, Vec::new(), AFTER),
        crate::verify::Level::Check,
    );
    let old = h.state.preview().unwrap().ready().unwrap().check.id;
    std::fs::write(dir.path().join("a.py"), format!("{TEXT}# x\n")).unwrap();
    h.files_changed(&["a.py"]);
    assert!(h.queue.iter().any(|e| matches!(e, Effect::CancelVerify)));
    let check = &h.state.preview().unwrap().ready().unwrap().check;
    assert_eq!(check.run, CheckRun::Cancelled);
    // Its answer, if it still comes, is dropped.
    h.dispatch(Action::Checked {
        id: old,
        verification: Box::new(crate::verify::Verification::skipped("cancelled")),
    });
    let check = &h.state.preview().unwrap().ready().unwrap().check;
    assert_eq!(check.run, CheckRun::Cancelled);
}

#[test]
fn a_running_check_shows_its_step_the_seconds_and_the_files_done() {
    use ratatui::{Terminal, backend::TestBackend};
    let (_dir, mut h) = session();
    show_checked(
        &mut h,
        outcome(BackendKind::Lsp, Vec::new(), AFTER),
        crate::verify::Level::Check,
    );
    let id = h.state.preview().unwrap().ready().unwrap().check.id;
    h.dispatch(Action::CheckProgress {
        id,
        step: "pyrefly after the refactor: done".to_string(),
        files: Some((8, 12)),
    });
    // The check was asked three seconds ago.
    if let Some(Ok(ready)) = h.state.preview_mut().unwrap().result.as_mut()
        && let CheckRun::Running { started, .. } = &mut ready.check.run
    {
        *started -= std::time::Duration::from_secs(3);
    }
    let mut terminal = Terminal::new(TestBackend::new(160, 40)).unwrap();
    terminal
        .draw(|f| crate::tui::view::render(&h.state, f))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let screen: String = (0..40)
        .map(|y| {
            (0..160)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
                + "\n"
        })
        .collect();
    // The panel's lines, the line wrapped there joined again.
    let panel: String = screen
        .lines()
        .filter_map(|row| row.rsplit('│').nth(1))
        .map(str::trim)
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        panel.contains("pyrefly after the refactor: done… · 3 s · 8/12 files"),
        "{screen}"
    );
}

/// Opens `text` as `w.py` with the cursor on the first `at`, and presses `E`.
fn extract_variable_form(text: &str, at: &str) -> (tempfile::TempDir, Headless) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("w.py"), text).unwrap();
    let mut h = Headless::open(
        &dir.path().join("w.py"),
        Some(BackendChoice::TreeSitter),
        (100, 30),
    )
    .unwrap();
    h.press(&["/"]).type_text(at).press(&["enter"]);
    h.press(&["E"]);
    assert_eq!(
        h.state.screen.kind(),
        ScreenKind::Form,
        "{:?}",
        h.state.notice
    );
    (dir, h)
}

/// The chosen expression, where it is, and the range the request would send.
fn chosen(
    h: &Headless,
) -> (
    String,
    (usize, usize),
    (usize, usize),
    (usize, usize, usize, usize),
) {
    let form = h.state.form().unwrap();
    let FormKind::ExtractVariable {
        expression,
        start,
        end,
        ..
    } = &form.kind
    else {
        panic!("not the extract variable form: {:?}", form.kind);
    };
    let Ok(Some(crate::refactor::Request::ExtractVariable(r))) = form::validate(form, true, None)
    else {
        panic!("no extract variable request");
    };
    (
        expression.clone(),
        *start,
        *end,
        (r.start_line, r.start_column, r.end_line, r.end_column),
    )
}

#[test]
fn the_extract_variable_form_widens_to_the_enclosing_expression_and_narrows_back() {
    let text = "def f(a, b):\n    return a * abs(b) + 1\n";
    let (_dir, mut h) = extract_variable_form(text, "b) + 1");
    h.type_text("v");
    let abs = ("abs(b)".to_string(), (2, 16), (2, 22), (2, 16, 2, 22));
    let product = ("a * abs(b)".to_string(), (2, 12), (2, 22), (2, 12, 2, 22));
    let sum = (
        "a * abs(b) + 1".to_string(),
        (2, 12),
        (2, 26),
        (2, 12, 2, 26),
    );
    assert_eq!(chosen(&h), abs);
    // Narrowing below the innermost expression keeps it.
    h.press(&["alt-down"]);
    assert_eq!(chosen(&h), abs);
    h.press(&["alt-up"]);
    assert_eq!(chosen(&h), product);
    h.press(&["ctrl-up"]);
    assert_eq!(chosen(&h), sum);
    // The widest one covering the cursor is the statement's value: no further.
    h.press(&["alt-up"]);
    assert_eq!(chosen(&h), sum);
    h.press(&["alt-down"]);
    assert_eq!(chosen(&h), product);
    h.press(&["ctrl-down"]);
    assert_eq!(chosen(&h), abs);
    // The keys never reached the name typed.
    assert_eq!(h.state.form().unwrap().input_text(), "v");
}

/// A lone name is never a choice (the engine refuses to extract one): on `b` in `a * b + 1`
/// the form starts at `a * b`.
#[test]
fn on_a_name_the_form_starts_at_the_expression_around_it() {
    let text = "def f(a, b):\n    return a * b + 1\n";
    let (_dir, mut h) = extract_variable_form(text, "b + 1");
    h.type_text("v");
    assert_eq!(chosen(&h).0, "a * b");
    h.press(&["alt-up"]);
    assert_eq!(chosen(&h).0, "a * b + 1");
    h.press(&["alt-down"]);
    assert_eq!(chosen(&h).0, "a * b");
}
