//! Issue 10 in the TUI, driven by keys without a terminal: a repository's config cannot make
//! the TUI run a program (the warm-up and the preview both refuse, the preview says why), and
//! the confirm key writes exactly the plan on screen — a file that newly needs a change makes
//! the write refuse, naming it, with nothing written.
//!
//! One test in this binary: it points `XDG_CONFIG_HOME` at a temp folder first (the real user's
//! config is never read or written), which is only sound while no other test thread runs.

mod tui_common;

use std::path::Path;

use candor::backend::BackendChoice;
use candor::tui::headless::Headless;
use candor::tui::state::ScreenKind;
use tui_common::ready;

fn write(root: &Path, path: &str, text: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

#[test]
fn the_tui_runs_no_repository_program_and_writes_only_the_plan_on_screen() {
    let home = tempfile::tempdir().unwrap();
    // SAFETY: the only test of this binary, before any other thread exists.
    unsafe { std::env::set_var("XDG_CONFIG_HOME", home.path()) };

    // A repository whose config names a program.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let marker = root.join("pwned.txt");
    write(
        root,
        "app.py",
        "def helper(a):\n    return a\n\n\ndef main():\n    return helper(1)\n",
    );
    write(
        root,
        ".candor/config.toml",
        &format!(
            "[lsp]\npython = {{ command = \"/bin/sh\", args = [\"-c\", \"id > '{}'; exit 1\"] }}\n",
            marker.display()
        ),
    );
    let mut h = Headless::open(&root.join("app.py"), Some(BackendChoice::Auto), (120, 40)).unwrap();
    h.press(&["i"]);
    let shown = ready(&h);
    let reason = shown.outcome.fallback_reason.clone().unwrap_or_default();
    assert!(
        reason.contains("not trusted") && reason.contains("candor trust"),
        "{reason}"
    );
    assert!(!marker.exists(), "the TUI ran the repository's program");

    // The plan on screen, then a file that calls the function appears.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "pyproject.toml", "");
    write(root, "pkg/__init__.py", "");
    write(root, "pkg/a.py", "def helper(x, y):\n    return x + y\n");
    write(
        root,
        "pkg/b.py",
        "from pkg.a import helper\n\nprint(helper(1, 2))\n",
    );
    let mut h = Headless::open(
        &root.join("pkg/a.py"),
        Some(BackendChoice::TreeSitter),
        (120, 40),
    )
    .unwrap();
    h.press(&["i"]);
    let shown = ready(&h);
    let paths: Vec<&str> = shown
        .outcome
        .plan
        .changes
        .iter()
        .map(|c| c.path.as_str())
        .collect();
    assert_eq!(paths, vec!["pkg/a.py", "pkg/b.py"]);
    let c = "from pkg.a import helper\n\nprint(helper(41, 1))\n";
    write(root, "pkg/c.py", c);
    h.press(&["enter"]);
    h.press(&["y"]);
    let notice = h
        .state
        .notice
        .as_ref()
        .map(|n| n.text.clone())
        .unwrap_or_default();
    assert!(notice.contains("pkg/c.py"), "{notice}");
    assert!(notice.contains("nothing was written"), "{notice}");
    assert_ne!(
        h.state.screen.kind(),
        ScreenKind::Code,
        "nothing was applied"
    );
    assert_eq!(std::fs::read_to_string(root.join("pkg/c.py")).unwrap(), c);
    assert_eq!(
        std::fs::read_to_string(root.join("pkg/a.py")).unwrap(),
        "def helper(x, y):\n    return x + y\n"
    );
}
