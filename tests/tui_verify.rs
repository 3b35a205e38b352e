//! The TUI's Check section with the real tools (issue 13): the three breakages rebuilt in
//! `tests/verify_fixtures/` show up in the warning panel before anything is written —
//! rust-analyzer's extract that fails `cargo check` with E0106, pylsp-rope's inline that leaves
//! `_has_own_attribute` called (ruff F821 and candor's own cross-check), pylsp-rope's inline
//! that turns `scale(factor, 2)` into `2 * 2` (cross-check; the tests key shows the test that
//! now fails) — the confirmation names what the check found, a clean result says clean, and
//! nothing is ever written by the check. Drawn into ratatui's TestBackend from a headless
//! session (the same state machine and jobs as the terminal; the check runs in line).
//!
//! Tools come from PATH with `.venv/bin` first (as `scripts/test` sets it); a missing one fails
//! in CI and skips (loudly) elsewhere. The checks' cache is a temp directory of this process.

mod tui_common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use candor::backend::BackendChoice;
use candor::config::{Config, ConfigSource, LspConfig, ServerCommand};
use candor::honesty::BackendKind;
use candor::tui::headless::Headless;
use candor::tui::state::{CheckRun, Ready};
use candor::tui::view;
use candor::verify::State;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tui_common::*;

const SIZE: (u16, u16) = (120, 40);

/// PATH with `.venv/bin` first, and a cache of the process's own (never the user's).
fn environment() {
    static CACHE: OnceLock<tempfile::TempDir> = OnceLock::new();
    CACHE.get_or_init(|| {
        let cache = tempfile::tempdir().unwrap();
        // SAFETY: set once, before this test binary's sessions start threads that read them;
        // every test calls this first and the values never change afterwards.
        unsafe {
            std::env::set_var("XDG_CACHE_HOME", cache.path());
            std::env::set_var("PATH", path_with_venv());
        }
        cache
    });
}

fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// True when every program runs; otherwise fails in CI and skips (loudly) elsewhere.
fn require(programs: &[&str]) -> bool {
    environment();
    let missing: Vec<&str> = programs
        .iter()
        .copied()
        .filter(|p| {
            !std::process::Command::new(p)
                .arg("--version")
                .env("PATH", path_with_venv())
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .collect();
    if missing.is_empty() {
        return true;
    }
    let message = format!(
        "{} not installed; scripts/test installs them",
        missing.join(", ")
    );
    assert!(!in_ci(), "CI must run the real-tool tests: {message}");
    eprintln!("SKIPPED (CI unset): {message}");
    false
}

fn pylsp_config() -> Config {
    Config {
        lsp: LspConfig {
            python: Some(ServerCommand {
                command: venv_bin().join("pylsp").to_string_lossy().into_owned(),
                args: Vec::new(),
                source: ConfigSource::User,
            }),
            ..LspConfig::default()
        },
        ..Config::default()
    }
}

/// A fresh copy of `tests/verify_fixtures/<name>` in a folder of that name (the title bar
/// shows it): the temp directory, and the project's root.
fn fixture(name: &str) -> (tempfile::TempDir, PathBuf) {
    let copy = tempfile::tempdir().unwrap();
    let root = copy.path().join(name);
    copy_tree(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/verify_fixtures")
            .join(name),
        &root,
    );
    (copy, root)
}

/// A trusted session on the project `root`, `file` picked, the checks performed.
fn session(root: &Path, file: &str, config: Config, backend: BackendChoice) -> Headless {
    let mut h = Headless::open_trusted(root, config, Some(backend), SIZE).unwrap();
    h.run_checks = true;
    pick(&mut h, file, file);
    h
}

/// The server's version differs between machines: the panel is drawn with a placeholder.
fn without_version(h: &mut Headless) {
    if let Some(Some(Ok(ready))) = h.state.preview_mut().map(|p| p.result.as_mut())
        && let Some(server) = ready.outcome.server.as_mut()
    {
        server.version = Some("[VERSION]".to_string());
    }
}

/// The screen as text, the temp root replaced by a placeholder.
fn screen(h: &Headless, root: &Path) -> String {
    let (w, height) = h.state.size;
    let mut terminal = Terminal::new(TestBackend::new(w, height)).unwrap();
    terminal.draw(|f| view::render(&h.state, f)).unwrap();
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    for y in 0..height {
        for x in 0..w {
            text.push_str(buffer[(x, y)].symbol());
        }
        text.push('\n');
    }
    text.replace(&root.display().to_string(), "[ROOT]")
}

fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("{needle:?} not found"))
        + 1
}

fn finished(ready: &Ready) -> &candor::verify::Verification {
    match &ready.check.run {
        CheckRun::Done(verification) => verification,
        other => panic!("the check did not finish: {other:?}"),
    }
}

/// The question the confirmation asks after Enter; `n` closes it. Nothing is written.
fn confirmation(h: &mut Headless) -> String {
    h.press(&["enter"]);
    let preview = h.state.preview().unwrap();
    assert!(preview.confirm, "Enter asks a second time");
    let question = preview.ready().unwrap().confirm_question();
    h.press(&["n"]);
    question
}

#[test]
fn rust_analyzer_extract_that_fails_cargo_check_shows_e0106_before_the_write() {
    if !require(&["rust-analyzer", "cargo"]) {
        return;
    }
    let (_dir, root) = fixture("rust_lifetime");
    let root = root.as_path();
    let before = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let start = line_of(&before, "let (build, text) = if let");
    let end = start
        + before
            .lines()
            .skip(start)
            .position(|l| l == "    };")
            .unwrap()
        + 1;
    let mut h = session(root, "src/lib.rs", Config::default(), BackendChoice::Lsp);
    select_lines(&mut h, start, end);
    h.press(&["e"])
        .type_text("build_metadata")
        .press(&["enter"]);
    let ready = ready(&h);
    assert_eq!(
        ready.outcome.backend,
        BackendKind::Lsp,
        "rust-analyzer did it"
    );
    let verification = finished(&ready);
    assert_eq!(verification.state, State::Introduced, "{verification:?}");
    assert!(
        ready
            .check
            .findings
            .iter()
            .any(|f| f.message.starts_with("E0106 missing lifetime specifier")),
        "{:?}",
        ready.check.findings
    );
    without_version(&mut h);
    insta::assert_snapshot!("rust_analyzer_extract_e0106", screen(&h, root));
    // candor's own `cross.missing_lifetime` says it too, before the check.
    assert_eq!(
        confirmation(&mut h),
        "apply despite 1 new compile error and 1 error? y/n"
    );
    // Enter on the error marks its line in the diff.
    h.press(&["tab", "enter"]);
    assert!(h.state.preview().unwrap().marked_row.is_some());
    assert_eq!(
        std::fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        before,
        "nothing written"
    );
}

#[test]
fn pylsp_rope_inline_that_leaves_a_call_behind_shows_it_before_the_write() {
    if !require(&["pylsp", "ruff"]) || !require_pylsp_rope() {
        return;
    }
    let (_dir, root) = fixture("py_leftover");
    let root = root.as_path();
    let before = std::fs::read_to_string(root.join("pkg/make.py")).unwrap();
    let mut h = session(root, "pkg/make.py", pylsp_config(), BackendChoice::Lsp);
    goto_line(&mut h, line_of(&before, "def _has_own_attribute("));
    h.press(&["i"]);
    let ready = ready(&h);
    assert_eq!(ready.outcome.backend, BackendKind::Lsp, "pylsp-rope did it");
    let verification = finished(&ready);
    assert_eq!(verification.state, State::Introduced, "{verification:?}");
    assert!(
        ready
            .check
            .findings
            .iter()
            .any(|f| f.message.starts_with("F821")),
        "{:?}",
        ready.check.findings
    );
    without_version(&mut h);
    insta::assert_snapshot!("pylsp_rope_inline_leftover", screen(&h, root));
    let question = confirmation(&mut h);
    assert!(
        question.starts_with("apply despite ") && question.contains(" new error"),
        "{question}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("pkg/make.py")).unwrap(),
        before,
        "nothing written"
    );
}

#[test]
fn pylsp_rope_inline_into_2_times_2_is_an_error_and_the_tests_key_shows_the_broken_test() {
    if !require(&["pylsp", "ruff"]) || !require_pylsp_rope() {
        return;
    }
    let (_dir, root) = fixture("py_scale");
    let root = root.as_path();
    let before = std::fs::read_to_string(root.join("calc/scaling.py")).unwrap();
    let mut h = session(root, "calc/scaling.py", pylsp_config(), BackendChoice::Lsp);
    goto_line(&mut h, line_of(&before, "def scale("));
    h.press(&["i"]);
    let shown = ready(&h);
    assert_eq!(shown.outcome.backend, BackendKind::Lsp, "pylsp-rope did it");
    assert!(
        shown.diffs[0]
            .rows
            .iter()
            .any(|r| matches!(r, candor::tui::diffview::Row::Line { segments, .. } if segments.iter().map(|(_, s)| s.as_str()).collect::<String>().contains("2 * 2"))),
        "the server's result"
    );
    finished(&shown);
    // The tests key: the check again, then the project's tests before and after.
    h.press(&["t"]);
    let shown = ready(&h);
    let verification = finished(&shown);
    let tests = verification.tests.as_ref().expect("the tests ran");
    assert_eq!(tests.state, State::Introduced, "{tests:?}");
    assert!(
        tests
            .failing
            .iter()
            .any(|t| t.name.contains("test_grow_adds_twice_the_factor")),
        "{tests:?}"
    );
    without_version(&mut h);
    insta::assert_snapshot!("pylsp_rope_inline_scale_tests", screen(&h, root));
    let question = confirmation(&mut h);
    assert!(
        question.starts_with("apply despite 1 newly failing test"),
        "{question}"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("calc/scaling.py")).unwrap(),
        before,
        "nothing written"
    );
}

#[test]
fn a_clean_result_says_clean_and_an_untrusted_crate_says_why_not() {
    if !require(&["cargo"]) {
        return;
    }
    let (_dir, root) = demo_copy();
    let mut h = session(
        &root,
        "rust/src/lib.rs",
        Config::default(),
        BackendChoice::TreeSitter,
    );
    select_lines(&mut h, 52, 54);
    h.press(&["e"]).type_text("print_header").press(&["enter"]);
    let shown = ready(&h);
    assert_eq!(
        finished(&shown).state,
        State::Clean,
        "{:?}",
        finished(&shown)
    );
    insta::assert_snapshot!("demo_extract_clean", screen(&h, &root));
    // Not trusted: the check says why it cannot run and how to allow it.
    let mut h = Headless::open(&root, Some(BackendChoice::TreeSitter), SIZE).unwrap();
    h.run_checks = true;
    pick(&mut h, "rust/src/lib", "rust/src/lib.rs");
    select_lines(&mut h, 52, 54);
    h.press(&["e"]).type_text("print_header").press(&["enter"]);
    let shown = ready(&h);
    let verification = finished(&shown);
    assert_eq!(verification.state, State::Unavailable);
    assert!(
        verification
            .reason
            .as_deref()
            .is_some_and(|r| r.contains("candor trust")),
        "{verification:?}"
    );
    // (No snapshot: the `candor trust DIR` it names is the temp directory, whose length
    // differs between machines and moves the wrapping.)
    let text = screen(&h, &root);
    assert!(
        panel(&text).contains("▲ cargo check: unavailable"),
        "{text}"
    );
    assert!(
        panel(&text).contains("this project is not trusted"),
        "{text}"
    );
    assert!(!text.contains("also run the project's tests"), "{text}");
}

/// The warning panel's text (the rightmost column of the screen), its wrapped lines joined again
/// with single spaces: what it says, whatever the width it was wrapped at.
fn panel(screen: &str) -> String {
    let joined: Vec<&str> = screen
        .lines()
        .filter_map(|row| row.rsplit('│').nth(1))
        .map(str::trim)
        .filter(|piece| !piece.is_empty())
        .collect();
    joined.join(" ")
}

/// The built `candor` in tmux on `root`, trusted, with a config folder and a cache of its own
/// and `.venv/bin` first on PATH; `file` picked.
fn terminal(dir: &Path, root: &Path, name: &str, file: &str) -> Tmux {
    let config = dir.join("config");
    let cache = dir.join("cache");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::create_dir_all(&cache).unwrap();
    let candor = Path::new(env!("CARGO_BIN_EXE_candor"));
    let trusted = std::process::Command::new(candor)
        .arg("trust")
        .arg(root)
        .env("XDG_CONFIG_HOME", &config)
        .output()
        .unwrap();
    assert!(trusted.status.success(), "{trusted:?}");
    let tmux = Tmux::new(name);
    let command = format!(
        "env -u CANDOR_BACKEND PATH={} XDG_CONFIG_HOME={} XDG_CACHE_HOME={} {} --backend lsp {}",
        shell_quote(Path::new(&path_with_venv())),
        shell_quote(&config),
        shell_quote(&cache),
        shell_quote(candor),
        shell_quote(root)
    );
    let started = tmux.run(&[
        "new-session",
        "-d",
        "-x",
        "120",
        "-y",
        "40",
        "-s",
        "candor",
        &command,
    ]);
    assert!(started.status.success(), "{started:?}");
    tmux.wait_for("the picker", 20, |p| p.contains(" files"));
    tmux.type_text(file);
    // The list comes once the first session's index is built ("indexing N/M files" until then):
    // Enter before it finds no match.
    tmux.wait_for("the file among the matches", 20, |p| {
        p.contains(&format!("▶ {file}")) && !p.contains("indexing")
    });
    tmux.send(&["Enter"]);
    tmux.wait_for("the code view", 10, |p| p.contains("line 1/"));
    tmux
}

/// Enter on the preview: the confirmation asks `question`; `n` answers it.
fn asks(tmux: &Tmux, question: &str) {
    tmux.send(&["Enter"]);
    tmux.wait_for(question, 10, |p| p.contains(question));
    tmux.send(&["n"]);
    tmux.wait_for("the answer", 10, |p| p.contains("not applied"));
}

#[test]
fn the_three_breakages_show_before_the_write_in_a_real_terminal() {
    if !require(&["rust-analyzer", "cargo", "pylsp", "ruff"]) || !require_pylsp_rope() {
        return;
    }
    // rust-analyzer's extract: cargo check's E0106, and the confirmation names it.
    let (dir, root) = fixture("rust_lifetime");
    let before = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let start = line_of(&before, "let (build, text) = if let");
    let end = start
        + before
            .lines()
            .skip(start)
            .position(|l| l == "    };")
            .unwrap()
        + 1;
    let tmux = terminal(dir.path(), &root, "verify-rust", "src/lib.rs");
    tmux.type_text(&format!("{start}G"));
    tmux.wait_for("the cursor", 10, |p| p.contains(&format!("line {start}/")));
    tmux.send(&["V"]);
    for _ in start..end {
        tmux.send(&["j"]);
    }
    tmux.send(&["V", "e"]);
    tmux.wait_for("the extract form", 10, |p| p.contains("Extract function"));
    tmux.type_text("build_metadata");
    tmux.send(&["Enter"]);
    let pane = tmux.wait_for("cargo check's answer", 180, |p| {
        p.contains("cargo check: 1 new error")
    });
    assert!(panel(&pane).contains("E0106 missing lifetime"), "{pane}");
    // candor's own cross-check said it before the check did (`cross.missing_lifetime`).
    assert!(panel(&pane).contains("a borrow with no named"), "{pane}");
    asks(&tmux, "apply despite 1 new compile error and 1 error? y/n");
    drop(tmux);
    assert_eq!(
        std::fs::read_to_string(root.join("src/lib.rs")).unwrap(),
        before
    );

    // pylsp-rope's inline that leaves `_has_own_attribute` called: ruff's F821.
    let (dir, root) = fixture("py_leftover");
    let before = std::fs::read_to_string(root.join("pkg/make.py")).unwrap();
    let tmux = terminal(dir.path(), &root, "verify-leftover", "pkg/make.py");
    let line = line_of(&before, "def _has_own_attribute(");
    tmux.type_text(&format!("{line}G"));
    tmux.wait_for("the cursor", 10, |p| p.contains(&format!("line {line}/")));
    tmux.send(&["i"]);
    let pane = tmux.wait_for("the check's answer", 120, |p| p.contains(" new errors"));
    assert!(panel(&pane).contains("F821 Undefined name"), "{pane}");
    assert!(panel(&pane).contains("still called here"), "{pane}");
    asks(&tmux, "apply despite 2 new errors found by the check");
    drop(tmux);
    assert_eq!(
        std::fs::read_to_string(root.join("pkg/make.py")).unwrap(),
        before
    );

    // pylsp-rope's `2 * 2`: the cross-check, and the tests key shows the test it breaks.
    let (dir, root) = fixture("py_scale");
    let before = std::fs::read_to_string(root.join("calc/scaling.py")).unwrap();
    let tmux = terminal(dir.path(), &root, "verify-scale", "calc/scaling.py");
    let line = line_of(&before, "def scale(");
    tmux.type_text(&format!("{line}G"));
    tmux.wait_for("the cursor", 10, |p| p.contains(&format!("line {line}/")));
    tmux.send(&["i"]);
    let pane = tmux.wait_for("the check's answer", 120, |p| {
        p.contains("pyrefly: clean") || p.contains("compile: clean")
    });
    assert!(pane.contains("2 * 2"), "{pane}");
    assert!(panel(&pane).contains("computes something else"), "{pane}");
    // The project is trusted and its tests are cheap: they already ran with the check; `t` runs
    // them again on request.
    tmux.send(&["t"]);
    let pane = tmux.wait_for("the tests", 120, |p| p.contains("1 newly failing test"));
    assert!(
        panel(&pane).contains("test_grow_adds_twice_the_factor"),
        "{pane}"
    );
    asks(&tmux, "apply despite 1 newly failing test");
    drop(tmux);
    assert_eq!(
        std::fs::read_to_string(root.join("calc/scaling.py")).unwrap(),
        before
    );
}

/// The check thread of the terminal (`tui/verifier.rs`): it reports its steps as it goes and
/// its answer at the end; a newer check cancels the one running, whose answer says so.
#[test]
fn the_check_thread_reports_its_steps_and_a_newer_check_cancels_the_old_one() {
    if !require(&["ruff"]) {
        return;
    }
    use candor::api::{Engine, ToolCall};
    use candor::lang::symbols::SymbolQuery;
    use candor::refactor::{InlineRequest, Request};
    use candor::tui::action::Action;
    use candor::tui::verifier::Verifier;
    use candor::verify::Level;
    use std::sync::Arc;
    use std::time::Duration;

    let (_dir, root) = fixture("py_scale");
    let engine = Arc::new(Engine::with_settings(
        candor::workspace::Root::new(&root).unwrap(),
        Config::default(),
        Some(BackendChoice::TreeSitter),
        candor::trust::Trust::Trusted,
    ));
    let call = ToolCall::new(Request::Inline(InlineRequest {
        file: "calc/scaling.py".to_string(),
        function: SymbolQuery {
            name: "scale".to_string(),
            line: None,
            column: None,
        },
    }));
    let ready = candor::tui::jobs::preview(&engine, call).unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    let verifier = Verifier::new(engine.clone(), tx);
    let answer = |id: u64| {
        let mut steps = Vec::new();
        loop {
            match rx.recv_timeout(Duration::from_secs(120)).unwrap() {
                Action::CheckProgress { id: from, step, .. } if from == id => steps.push(step),
                Action::Checked {
                    id: from,
                    verification,
                } if from == id => return (steps, verification),
                _ => {}
            }
        }
    };
    // A check with the tests is running (its first step was reported, so it has not
    // finished); a newer check cancels it wherever it is: in the checkers (the whole
    // answer is skipped) or in the tests (the checkers' answer stands, the tests say so).
    verifier.start(
        1,
        Box::new(ready.call.clone()),
        Box::new(ready.outcome.clone()),
        Level::Tests,
    );
    let mut early_steps = Vec::new();
    let mut early_answer = None;
    loop {
        match rx.recv_timeout(Duration::from_secs(120)).unwrap() {
            Action::CheckProgress { id: 1, step, .. } => {
                early_steps.push(step);
                break;
            }
            Action::Checked {
                id: 1,
                verification,
            } => {
                early_answer = Some(verification);
                break;
            }
            _ => {}
        }
    }
    assert!(
        early_answer.is_none(),
        "the check answered before reporting a step: {early_answer:?}"
    );
    verifier.start(
        2,
        Box::new(ready.call.clone()),
        Box::new(ready.outcome.clone()),
        Level::Check,
    );
    let (_, cancelled) = answer(1);
    let says_cancelled = |reason: Option<&str>| reason.is_some_and(|r| r.starts_with("cancelled"));
    let whole_check_cancelled =
        cancelled.state == State::Skipped && says_cancelled(cancelled.reason.as_deref());
    let tests_cancelled = cancelled
        .tests
        .as_ref()
        .is_some_and(|t| t.state == State::Skipped && says_cancelled(t.reason.as_deref()));
    assert!(
        whole_check_cancelled || tests_cancelled,
        "the older check's answer says it was cancelled: {cancelled:?}"
    );
    let (steps, verification) = answer(2);
    assert!(
        matches!(verification.state, State::Clean | State::Introduced),
        "{verification:?}"
    );
    assert!(
        steps.iter().any(|s| s.contains("ruff")),
        "the steps were reported: {steps:?}"
    );
}

#[test]
fn the_tests_run_with_every_check_when_they_are_cheap() {
    if !require(&["ruff"]) {
        return;
    }
    use candor::api::{Engine, ToolCall};
    use candor::lang::symbols::SymbolQuery;
    use candor::refactor::{InlineRequest, Request};
    use candor::verify::Level;

    let check = |root: &Path, budget: u64| {
        let mut config = Config::default();
        config.verify.tests_budget_secs = Some(budget);
        let engine = Engine::with_settings(
            candor::workspace::Root::new(root).unwrap(),
            config,
            Some(BackendChoice::TreeSitter),
            candor::trust::Trust::Trusted,
        );
        let call = ToolCall::new(Request::Inline(InlineRequest {
            file: "calc/scaling.py".to_string(),
            function: SymbolQuery {
                name: "scale".to_string(),
                line: None,
                column: None,
            },
        }));
        let ready = candor::tui::jobs::preview(&engine, call).unwrap();
        candor::tui::verifier::check_now(&engine, &ready.call, &ready.outcome, Level::Check)
    };
    // The check key alone, the tests cheap: they ran too, and the heuristic's inline keeps
    // them passing.
    let (_dir, root) = fixture("py_scale");
    let verification = check(&root, 20);
    let tests = verification
        .tests
        .as_ref()
        .expect("the tests ran with the check");
    assert_eq!(tests.state, State::Clean, "{verification:?}");
    assert_eq!(tests.passed_before, 1, "{verification:?}");
    // Their baseline is remembered: the second check runs them after the refactor only.
    let again = check(&root, 20);
    let names: Vec<&str> = again.steps.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"tests before (remembered)"), "{names:?}");
    assert!(!names.contains(&"tests before"), "{names:?}");

    // Tests slower than the budget: not run with the check, and the panel says why.
    let (_slow, root) = fixture("py_scale");
    std::fs::write(
        root.join("tests/test_slow.py"),
        "import time\nimport unittest\n\n\nclass Slow(unittest.TestCase):\n    def test_slow(self):\n        time.sleep(3)\n",
    )
    .unwrap();
    let verification = check(&root, 1);
    let tests = verification.tests.as_ref().expect("the tests are reported");
    assert_eq!(tests.state, State::Skipped, "{verification:?}");
    let reason = tests.reason.as_deref().unwrap();
    assert!(reason.contains("more than the 1 s budget"), "{reason}");
    // Measured once; the next check does not try again.
    let again = check(&root, 1);
    assert!(
        again.steps.iter().all(|s| !s.name.starts_with("tests")),
        "{again:?}"
    );
}
