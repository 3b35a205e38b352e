//! End to end in a real terminal: the built `candor` binary runs in tmux on a temp copy of the
//! demo; keys pick a file, go to line 52 (`52G`), select three lines and extract them into a
//! function; the captured
//! pane shows the caveats and the 0.65 confidence before confirming; after confirming, the file
//! on disk has the new function. Polls the pane with a timeout rather than sleeping blindly.

mod tui_common;

use std::path::Path;
use std::time::{Duration, Instant};

use candor::honesty::Tool;
use tui_common::*;

#[test]
fn extract_a_function_in_a_real_terminal() {
    let (dir, root) = demo_copy();
    let config = dir.path().join("config");
    std::fs::create_dir_all(&config).unwrap();
    let tmux = Tmux::new("extract");
    let command = format!(
        "env XDG_CONFIG_HOME={} {} --backend tree-sitter {}",
        shell_quote(&config),
        shell_quote(Path::new(env!("CARGO_BIN_EXE_candor"))),
        shell_quote(&root)
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
    assert!(
        started.status.success(),
        "tmux: {}",
        String::from_utf8_lossy(&started.stderr)
    );

    tmux.wait_for("the picker with the demo's files", 20, |p| {
        p.contains("7 of 7 files")
    });
    tmux.type_text("rust/src/lib");
    tmux.wait_for("the filtered picker", 10, |p| p.contains("1 of 7 files"));
    tmux.send(&["Enter"]);
    tmux.wait_for("the code view", 10, |p| {
        p.contains("┌ rust/src/lib.rs ") && p.contains("line 1/")
    });

    tmux.type_text("52G");
    tmux.wait_for("the cursor on line 52", 10, |p| p.contains("line 52/"));
    tmux.send(&["V", "j", "j", "V"]);
    tmux.wait_for("the selection in the status line", 10, |p| {
        p.contains("lines 52–54")
    });
    tmux.send(&["e"]);
    tmux.wait_for("the extract form", 10, |p| p.contains("Extract function"));
    tmux.type_text("print_header");
    tmux.send(&["Enter"]);

    let pane = tmux.wait_for("the preview and its warning panel", 30, |p| {
        p.contains("Warnings") && (p.contains("0.65") || p.contains("refused"))
    });
    assert!(
        pane.contains("0.65"),
        "the confidence is on screen:\n{pane}"
    );
    assert!(pane.contains("tree-sitter heuristic"), "{pane}");
    for caveat in Tool::ExtractFunction.caveats() {
        let start: String = caveat
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
        assert!(
            pane.contains(&start),
            "caveat `{caveat}` is on screen:\n{pane}"
        );
    }
    assert!(
        pane.contains("print_header"),
        "the diff shows the new function:\n{pane}"
    );
    assert!(
        !std::fs::read_to_string(root.join("rust/src/lib.rs"))
            .unwrap()
            .contains("fn print_header"),
        "nothing is written before confirming"
    );

    // Another program edits a line of the selection: the real watcher (notify) sees it, the
    // code view reloads and the preview is computed again from the new text.
    let lib = root.join("rust/src/lib.rs");
    let edited = std::fs::read_to_string(&lib)
        .unwrap()
        .replace("CANDOR DEMO SHOP", "EDITED ELSEWHERE");
    std::fs::write(&lib, &edited).unwrap();
    tmux.wait_for("the preview recomputed from the outside edit", 20, |p| {
        p.contains("EDITED ELSEWHERE") && p.contains("Warnings") && !p.contains("STALE")
    });

    tmux.send(&["Enter"]);
    tmux.wait_for("the second confirmation", 10, |p| {
        p.contains("apply despite 4 caveats")
    });
    tmux.send(&["y"]);
    tmux.wait_for("the write", 20, |p| p.contains("written: rust/src/lib.rs"));
    let after = std::fs::read_to_string(root.join("rust/src/lib.rs")).unwrap();
    assert!(after.contains("fn print_header()"), "{after}");
    assert!(after.contains("print_header();"), "{after}");
    assert!(
        after.contains("EDITED ELSEWHERE") && !after.contains("CANDOR DEMO SHOP"),
        "the outside edit is kept, not clobbered:\n{after}"
    );

    tmux.send(&["q"]);
    let deadline = Instant::now() + Duration::from_secs(10);
    while tmux.run(&["has-session", "-t", "candor"]).status.success() {
        assert!(
            Instant::now() < deadline,
            "candor did not quit on `q`:\n{}",
            tmux.pane()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
