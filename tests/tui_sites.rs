//! Issue 26 end to end in a real terminal: the built `candor` binary runs in tmux on a temp
//! project; a rename is previewed, one reference is unticked in the sites list, the confirmation
//! names what is left out, and the file on disk holds exactly the chosen edits.

mod tui_common;

use std::path::Path;

use tui_common::*;

const APP: &str = "def helper(x):\n    return x + 1\n\n\ndef main():\n    a = helper(1)\n    b = helper(2)\n    return a + b\n";
const USE: &str = "from app import helper\n\nprint(helper(3))\n";

#[test]
fn untick_a_reference_of_a_rename_and_apply() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(root.join("app.py"), APP).unwrap();
    std::fs::write(root.join("use.py"), USE).unwrap();
    let config = dir.path().join("config");
    let cache = dir.path().join("cache");
    std::fs::create_dir_all(&config).unwrap();
    std::fs::create_dir_all(&cache).unwrap();
    let tmux = Tmux::new("sites");
    // No checker on PATH: the check says it could not run, which keeps the test about the sites.
    let command = format!(
        "env XDG_CONFIG_HOME={} XDG_CACHE_HOME={} PATH=/usr/bin:/bin {} --backend tree-sitter {}",
        shell_quote(&config),
        shell_quote(&cache),
        shell_quote(Path::new(env!("CARGO_BIN_EXE_candor"))),
        shell_quote(&root)
    );
    let started = tmux.run(&[
        "new-session",
        "-d",
        "-x",
        "140",
        "-y",
        "40",
        "-s",
        "candor",
        &command,
    ]);
    assert!(
        started.status.success(),
        "tmux: {}",
        String::from_utf8_lossy(&started.stderr)
    );
    tmux.wait_for("the picker", 20, |p| p.contains("of 2 files"));
    tmux.type_text("app");
    tmux.wait_for("the filtered picker", 10, |p| p.contains("1 of 2 files"));
    tmux.send(&["Enter"]);
    tmux.wait_for("the code view", 10, |p| p.contains("line 1/"));
    // The cursor on `helper` of `def helper`.
    tmux.send(&["w"]);
    tmux.send(&["r"]);
    tmux.wait_for("the rename form", 10, |p| p.contains("Rename"));
    // The form starts with the old name: clear it first.
    tmux.send(&["C-u"]);
    tmux.type_text("aid");
    tmux.send(&["Enter"]);
    tmux.wait_for("the preview with its sites counted", 30, |p| {
        p.contains("Sites: 4 of 4 written")
    });
    // Tab to the findings (the rename warns about the public name), Tab again to the sites.
    tmux.send(&["Tab"]);
    tmux.send(&["Tab"]);
    tmux.wait_for("the sites list", 10, |p| {
        p.contains(" Sites ") && p.contains("4 of 4 sites written") && p.contains("app.py  2/2")
    });
    // Rows: app.py, 6:9, 7:9, use.py, 1:17, 3:7 — down twice is `b = helper(2)`.
    tmux.send(&["j", "j"]);
    tmux.send(&["Space"]);
    let pane = tmux.wait_for("the site left out", 10, |p| {
        p.contains("3 of 4 sites written") && p.contains("app.py  1/2")
    });
    assert!(pane.contains("[ ] 7:9"), "{pane}");
    tmux.send(&["Escape"]);
    tmux.wait_for("the diff again, with the counts", 10, |p| {
        p.contains("Sites: 3 of 4 written")
    });
    tmux.send(&["Enter"]);
    tmux.wait_for("the confirmation naming what is left out", 20, |p| {
        p.contains("apply 3 of 4 sites")
    });
    tmux.send(&["y"]);
    let pane = tmux.wait_for("the write, or its refusal", 30, |p| {
        p.contains("written: ") || p.contains("not written") || p.contains("nothing was written")
    });
    assert!(pane.contains("written: app.py, use.py"), "{pane}");
    assert_eq!(
        std::fs::read_to_string(root.join("app.py")).unwrap(),
        "def aid(x):\n    return x + 1\n\n\ndef main():\n    a = aid(1)\n    b = helper(2)\n    return a + b\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join("use.py")).unwrap(),
        "from app import aid\n\nprint(aid(3))\n"
    );
}

/// Headless, key by key: `x` leaves out the file under the cursor, `X` every file and then
/// writes them all again; the diff, the counts and the findings follow without asking the
/// engine, and each choice starts the check again on the chosen plan.
#[test]
fn a_file_and_all_files_are_left_out_and_written_again() {
    use candor::tui::state::PreviewFocus;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("app.py"), APP).unwrap();
    std::fs::write(root.join("use.py"), USE).unwrap();
    let mut h = open(&root.join("app.py"), (120, 40));
    h.press(&["w", "r", "ctrl-e", "ctrl-u"])
        .type_text("aid")
        .press(&["enter"]);
    let first = ready(&h);
    assert_eq!(first.outcome.plan.sites.len(), 4);
    let previews = h.previews_computed;
    h.press(&["tab", "tab"]);
    assert_eq!(h.state.preview().unwrap().focus, PreviewFocus::Sites);
    // Rows: app.py, 6:9, 7:9, use.py, 1:17, 3:7. `x` on use.py's row leaves both out.
    let checks = h.checks_pending;
    h.press(&["j", "j", "j", "x"]);
    let chosen = ready(&h);
    let paths: Vec<&str> = chosen
        .outcome
        .plan
        .changes
        .iter()
        .map(|c| c.path.as_str())
        .collect();
    assert_eq!(paths, ["app.py"], "use.py is no longer written");
    assert_eq!(chosen.diffs.len(), 1);
    assert_eq!(chosen.left_out(), 2);
    assert_eq!(
        chosen.call.options.exclude_sites.len(),
        2,
        "the apply sends the choice"
    );
    let left: Vec<usize> = chosen
        .outcome
        .plan
        .findings
        .iter()
        .filter(|f| f.kind == Some("sites.left_out_reference"))
        .map(|f| f.line)
        .collect();
    assert_eq!(left, [1, 3]);
    assert!(h.checks_pending > checks, "the check starts again");
    assert_eq!(h.previews_computed, previews, "no engine call");
    // `X`: some are left out, so every site is written again; again: every site is left out.
    h.press(&["X"]);
    let all = ready(&h);
    assert_eq!(all.left_out(), 0);
    assert_eq!(all.outcome.plan.changes, first.outcome.plan.changes);
    assert!(all.call.options.exclude_sites.is_empty());
    h.press(&["X"]);
    let none = ready(&h);
    assert_eq!(none.left_out(), 4);
    assert_eq!(none.outcome.plan.changes.len(), 1);
    assert_eq!(
        none.outcome.plan.changes[0].after,
        APP.replacen("def helper", "def aid", 1)
    );
}
