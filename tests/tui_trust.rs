//! Trust from inside the TUI (issue 25, item 2), headless with a trust store of the test's own
//! (never the user's): a Rust check that cannot run in an untrusted project says so and offers
//! `T`; `T` shows what trusting allows before asking; `y` records it through the trust API, the
//! engine is opened again and the result is checked again; a change recorded elsewhere (what
//! `candor trust DIR` does) is picked up when the store changes; `T` again offers to stop.
//! The real binary in tmux, with the real watcher and the real `candor trust`, is in
//! `tui_tmux.rs`.

mod tui_common;

use candor::backend::BackendChoice;
use candor::config::Config;
use candor::trust::TrustStore;
use candor::tui::action::Action;
use candor::tui::effect::Effect;
use candor::tui::headless::Headless;
use candor::tui::state::{CheckRun, Question};
use candor::tui::view;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use tui_common::*;

const RUST: &str = "rust/src/lib.rs";

fn screen(h: &Headless) -> String {
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
    text
}

/// The demo, untrusted, with a trust store in the temp folder; an extract of lines 52–54 of
/// the Rust file previewed and checked (the check refuses to run cargo).
fn previewed() -> (tempfile::TempDir, std::path::PathBuf, TrustStore, Headless) {
    let (dir, root) = demo_copy();
    let store = TrustStore::at(dir.path().join("config/candor/trusted.toml"));
    let mut h = Headless::open_with_trust_store(
        &root,
        Config::default(),
        Some(BackendChoice::TreeSitter),
        (120, 40),
        store.clone(),
    )
    .unwrap();
    assert!(!h.state.trust.allows_project_programs());
    h.run_checks = true;
    pick(&mut h, "rust/src/lib", RUST);
    select_lines(&mut h, 52, 54);
    h.press(&["e"]).type_text("print_header").press(&["enter"]);
    h.run_checks = false;
    (dir, root, store, h)
}

fn check(h: &Headless) -> CheckRun {
    h.state
        .preview()
        .unwrap()
        .ready()
        .unwrap()
        .check
        .run
        .clone()
}

#[test]
fn t_shows_what_trusting_allows_asks_and_checks_the_result_again() {
    let (_dir, root, store, mut h) = previewed();
    match check(&h) {
        CheckRun::Done(v) => assert_eq!(v.state, candor::verify::State::Unavailable),
        other => panic!("{other:?}"),
    }
    let shown = screen(&h);
    assert!(shown.contains("T: trust it from here"), "{shown}");
    // What trusting allows, before anything is recorded.
    h.press(&["T"]);
    assert_eq!(h.state.question, Some(Question::Trust { trust: true }));
    let shown = screen(&h);
    for allowed in ["build scripts", "proc macros", "toolchain", "interpreter"] {
        assert!(shown.contains(allowed), "`{allowed}`:\n{shown}");
    }
    insta::assert_snapshot!(
        "trust_question_120x40",
        shown.replace(&root.display().to_string(), "[DEMO]")
    );
    // No: nothing recorded.
    h.press(&["n"]);
    assert!(!store.path().exists());
    assert!(!h.state.trust.allows_project_programs());
    // Yes: recorded through the trust API, the engine opened again, the result checked again.
    h.press(&["T"]);
    let pending = h.checks_pending;
    h.press_pending("y");
    assert!(h.queue.iter().any(|e| matches!(e, Effect::SetTrust(true))));
    h.settle();
    assert!(h.state.trust.allows_project_programs());
    assert!(store.of_project(&root).unwrap().allows_project_programs());
    assert!(
        h.engine.trust().allows_project_programs(),
        "the engine was opened again"
    );
    assert_eq!(h.checks_pending, pending + 1, "checked again");
    assert!(matches!(check(&h), CheckRun::Running { .. }));
    let notice = h.state.notice.clone().unwrap();
    assert!(
        notice.text.starts_with("this project is trusted now")
            && notice.text.contains("checking the result again"),
        "{notice:?}"
    );
    // T again: stop trusting it.
    h.press(&["T"]);
    assert_eq!(h.state.question, Some(Question::Trust { trust: false }));
    assert!(screen(&h).contains("Stop trusting this project?"));
    h.press(&["y"]);
    assert!(!h.state.trust.allows_project_programs());
    assert!(!store.of_project(&root).unwrap().allows_project_programs());
    assert!(!h.engine.trust().allows_project_programs());
}

#[test]
fn trust_recorded_elsewhere_is_picked_up_when_the_store_changes() {
    let (_dir, root, store, mut h) = previewed();
    // What `candor trust DIR` in another shell does, through the same API.
    store.trust(&root).unwrap();
    let pending = h.checks_pending;
    // The watcher reports the store's change.
    h.dispatch(Action::TrustStoreChanged);
    h.settle();
    assert!(h.state.trust.allows_project_programs());
    assert!(h.engine.trust().allows_project_programs());
    assert_eq!(h.checks_pending, pending + 1, "checked again");
    let notice = h.state.notice.clone().unwrap();
    assert!(notice.text.contains("changed outside candor"), "{notice:?}");
    // A report without a change does nothing.
    let pending = h.checks_pending;
    h.dispatch(Action::TrustStoreChanged);
    h.settle();
    assert_eq!(h.checks_pending, pending);
}
