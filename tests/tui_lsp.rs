//! The TUI with the real pylsp-rope server and the real file watcher: inlining `line_total` of
//! the demo's `receipt.py` finishes. rope reads the file on every request; the watcher sees the
//! reads, and a preview that restarted on every event asked pylsp again and again for good
//! (issue 11, point 1). Headless (the state machine and jobs, the watcher feeding its reports
//! in) and in tmux with the real binary.

mod tui_common;

use std::path::Path;
use std::time::{Duration, Instant};

use candor::backend::BackendChoice;
use candor::config::{Config, LspConfig, ServerCommand};
use candor::honesty::BackendKind;
use candor::tui::headless::Headless;
use candor::tui::state::ScreenKind;
use tui_common::*;

const RECEIPT: &str = "python/shop/receipt.py";

fn pylsp_config() -> Config {
    Config {
        lsp: LspConfig {
            python: Some(ServerCommand {
                command: venv_bin().join("pylsp").to_string_lossy().into_owned(),
                args: Vec::new(),
                source: candor::config::ConfigSource::User,
            }),
            ..LspConfig::default()
        },
        // The preview waits for pylsp-rope whatever the machine's load (tests/lsp_budget.rs
        // is about the budget).
        auto: candor::config::AutoConfig {
            budget_ms: Some(600_000),
            apply_budget_ms: Some(600_000),
        },
        ..Config::default()
    }
}

/// The demo as it is after a morning of use: a built crate. rope walks every folder of the
/// project on each request, so the answer takes long enough for the watcher to report rope's
/// reads of `receipt.py` while the preview is still being computed (the reproduction of
/// issue 11 was exactly this).
fn demo_with_a_built_crate() -> (tempfile::TempDir, std::path::PathBuf) {
    let (dir, root) = demo_copy();
    for folder in ["deps", "build", ".fingerprint", "incremental"] {
        let path = root.join("rust/target/debug").join(folder);
        std::fs::create_dir_all(&path).unwrap();
        for i in 0..500 {
            std::fs::write(path.join(format!("artifact-{i}.d")), "x\n").unwrap();
        }
    }
    (dir, root)
}

fn line_of(root: &Path, needle: &str) -> usize {
    let text = std::fs::read_to_string(root.join(RECEIPT)).unwrap();
    text.lines().position(|l| l.starts_with(needle)).unwrap() + 1
}

#[test]
fn inline_through_pylsp_finishes_with_the_watcher_on() {
    if !require_pylsp_rope() {
        return;
    }
    let (_dir, root) = demo_with_a_built_crate();
    let mut h = Headless::open_watched(&root, pylsp_config(), Some(BackendChoice::Auto), (100, 30))
        .unwrap();
    pick(&mut h, "shop/rec", RECEIPT);
    goto_line(&mut h, line_of(&root, "def line_total"));
    h.press(&["i"]);
    // rope reads the file while it answers, and the watcher sees it; none of that is new
    // content. Stop when nothing came for 5 s (a preview that keeps restarting never stops).
    let reports = h.pump(Duration::from_secs(5), Duration::from_secs(60));
    assert_eq!(
        h.state.screen.kind(),
        ScreenKind::Preview,
        "notice: {:?}",
        h.state.notice
    );
    let preview = h.state.preview().unwrap();
    assert!(!preview.computing, "the preview finished");
    assert!(preview.stale.is_none(), "and is not stale");
    let ready = ready(&h);
    assert_eq!(
        ready.outcome.backend,
        BackendKind::Lsp,
        "pylsp-rope did it (fallback: {:?})",
        ready.outcome.fallback_reason
    );
    assert_eq!(
        h.previews_computed, 1,
        "the server was asked once ({reports} watcher reports)"
    );
    // A real change to the file is still seen, and asks once more.
    let path = root.join(RECEIPT);
    let edited = format!(
        "{}# edited elsewhere\n",
        std::fs::read_to_string(&path).unwrap()
    );
    std::fs::write(&path, edited).unwrap();
    h.pump(Duration::from_secs(5), Duration::from_secs(60));
    let preview = h.state.preview().unwrap();
    assert!(!preview.computing && preview.stale.is_none());
    assert_eq!(
        h.previews_computed, 2,
        "one new preview for the new content"
    );
    assert!(
        ready_after(&h).contains("# edited elsewhere"),
        "recomputed from the new text"
    );
    drop(h);
    assert!(
        !root.join(".ropeproject").exists(),
        "the .ropeproject folder pylsp-rope made is gone"
    );
}

fn ready_after(h: &Headless) -> String {
    ready(h).outcome.plan.changes[0].after.clone()
}

#[test]
fn inline_through_pylsp_finishes_in_a_real_terminal() {
    if !require_pylsp_rope() {
        return;
    }
    let (dir, root) = demo_with_a_built_crate();
    let config = dir.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let tmux = Tmux::new("pylsp-inline");
    let command = format!(
        "env -u CANDOR_BACKEND PATH={} XDG_CONFIG_HOME={} {} {}",
        shell_quote(Path::new(&path_with_venv())),
        shell_quote(&config),
        shell_quote(Path::new(env!("CARGO_BIN_EXE_candor"))),
        shell_quote(&root)
    );
    let started = tmux.run(&[
        "new-session",
        "-d",
        "-x",
        "100",
        "-y",
        "30",
        "-s",
        "candor",
        &command,
    ]);
    assert!(started.status.success());
    tmux.wait_for("the picker", 20, |p| p.contains("of 7 files"));
    tmux.type_text("shop/rec");
    tmux.wait_for("the filtered picker", 10, |p| p.contains("1 of 7 files"));
    tmux.send(&["Enter"]);
    tmux.wait_for("the code view", 10, |p| p.contains("line 1/"));
    let line = line_of(&root, "def line_total");
    tmux.type_text(&format!("{line}G"));
    tmux.wait_for("the cursor on def line_total", 10, |p| {
        p.contains(&format!("line {line}/"))
    });
    tmux.send(&["i"]);
    let pane = tmux.wait_for("the pylsp preview to finish", 60, |p| {
        p.contains("Warnings") && p.contains("language server") && !p.contains("computing")
    });
    assert!(!pane.contains("STALE"), "{pane}");
    assert!(pane.contains("0.85"), "the semantic confidence:\n{pane}");
    // It stays finished: nothing asks the server again while the preview is read.
    std::thread::sleep(Duration::from_secs(3));
    let pane = tmux.pane();
    assert!(
        !pane.contains("computing") && !pane.contains("STALE"),
        "the preview started again:\n{pane}"
    );
    tmux.send(&["Escape"]);
    tmux.wait_for("the code view again", 10, |p| {
        p.contains("nothing was written")
    });
    // Ask again and quit while pylsp works on it: the request is cancelled, the server stopped,
    // and the .ropeproject folder it made removed.
    tmux.send(&["i"]);
    tmux.wait_for("the preview computing", 10, |p| p.contains("computing"));
    tmux.send(&["C-c"]);
    let deadline = Instant::now() + Duration::from_secs(15);
    while tmux.run(&["has-session", "-t", "candor"]).status.success() {
        assert!(
            Instant::now() < deadline,
            "candor did not quit:\n{}",
            tmux.pane()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    assert!(
        !root.join(".ropeproject").exists(),
        "quitting left no empty .ropeproject"
    );
}
