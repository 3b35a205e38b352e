//! Shared helpers of the TUI tests: a temp copy of the demo project, a headless session on it
//! (tree-sitter backend, so results are deterministic), and key-level steps a user would take.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use candor::backend::BackendChoice;
use candor::tui::headless::Headless;
use candor::tui::state::{Ready, ScreenKind};

pub fn demo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo")
}

/// Copies `from` to `to`, leaving out build output and caches.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if ["target", "__pycache__", "Cargo.lock", ".candor"]
            .iter()
            .any(|n| name == *n)
        {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).unwrap();
        }
    }
}

/// A temp copy of `assets/demo`, named `demo` (the name shows in the title bar).
pub fn demo_copy() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("demo");
    copy_tree(&demo_dir(), &root);
    (dir, root)
}

pub fn open(root: &Path, size: (u16, u16)) -> Headless {
    Headless::open(root, Some(BackendChoice::TreeSitter), size).unwrap()
}

pub fn read(root: &Path, path: &str) -> Vec<u8> {
    std::fs::read(root.join(path)).unwrap()
}

/// Filters the picker with `query`, checks that `path` is the file selected, and opens it.
pub fn pick(h: &mut Headless, query: &str, path: &str) {
    assert_eq!(h.state.screen.kind(), ScreenKind::Picker);
    h.type_text(query);
    assert_eq!(
        h.state.picker.selected_path(),
        Some(path),
        "picker matches: {:?}",
        h.state.picker.matches
    );
    h.press(&["enter"]);
    assert_eq!(
        h.state.screen.kind(),
        ScreenKind::Code,
        "notice: {:?}",
        h.state.notice
    );
    assert_eq!(h.state.code.as_ref().unwrap().doc.path, path);
}

/// Moves the cursor to 1-based `line` with `g` and `j`.
pub fn goto_line(h: &mut Headless, line: usize) {
    h.press(&["g"]);
    for _ in 1..line {
        h.press(&["j"]);
    }
    assert_eq!(h.state.code.as_ref().unwrap().cursor + 1, line);
}

/// Selects 1-based lines `first..=last` with `V`, `j`…, `V`, and checks the status label.
pub fn select_lines(h: &mut Headless, first: usize, last: usize) {
    goto_line(h, first);
    h.press(&["V"]);
    for _ in first..last {
        h.press(&["j"]);
    }
    h.press(&["V"]);
    let label = h.state.code.as_ref().unwrap().selection_label().unwrap();
    assert_eq!(label, format!("lines {first}\u{2013}{last}"));
}

/// Selects a symbol through the outline: `o`, its name typed into the outline's filter,
/// `enter`; checks the status label.
pub fn select_symbol(h: &mut Headless, label: &str) {
    let name = label.rsplit(' ').next().unwrap();
    h.press(&["o"]).type_text(name);
    let code = h.state.code.as_ref().unwrap();
    let found = code
        .outline_symbol()
        .map(|i| candor::tui::state::symbol_label(&code.doc, &code.doc.symbols[i]));
    assert_eq!(found.as_deref(), Some(label), "the outline's best match");
    h.press(&["enter"]);
    assert_eq!(
        h.state.code.as_ref().unwrap().selection_label().as_deref(),
        Some(label)
    );
}

/// The preview on screen, or a panic with the error it shows.
pub fn ready(h: &Headless) -> Ready {
    assert_eq!(
        h.state.screen.kind(),
        ScreenKind::Preview,
        "notice: {:?}",
        h.state.notice
    );
    let preview = h.state.preview().unwrap();
    match &preview.result {
        Some(Ok(ready)) => (**ready).clone(),
        Some(Err(e)) => panic!(
            "the preview is an error: {} ({})",
            e.message,
            e.code.as_str()
        ),
        None => panic!("the preview was not computed"),
    }
}

/// Confirms the preview on screen: Enter, then `y` at the prompt a heuristic result asks.
pub fn confirm(h: &mut Headless) {
    h.press(&["enter"]);
    let preview = h.state.preview().expect("the prompt keeps the preview");
    assert!(
        preview.confirm,
        "a heuristic result asks again; notice: {:?}",
        h.state.notice
    );
    h.press(&["y"]);
    assert_eq!(
        h.state.screen.kind(),
        ScreenKind::Code,
        "after the write: notice {:?}",
        h.state.notice
    );
}

/// Runs the demo's own tests in `root` (Rust: cargo test; Python: unittest), panicking with
/// their output when they fail.
pub fn demo_tests_pass(root: &Path, language: &str) {
    let output = match language {
        "rust" => std::process::Command::new(env!("CARGO"))
            .args(["test", "--quiet", "--offline"])
            .current_dir(root.join("rust"))
            .env(
                "CARGO_TARGET_DIR",
                Path::new(env!("CARGO_TARGET_TMPDIR")).join("demo-target"),
            )
            .output()
            .unwrap(),
        _ => std::process::Command::new("python3")
            .args(["-B", "-m", "unittest", "-q"])
            .current_dir(root.join("python"))
            .output()
            .unwrap(),
    };
    assert!(
        output.status.success(),
        "the demo's {language} tests fail after the refactor:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// A tmux server of its own (its own socket), killed when dropped.
pub struct Tmux {
    socket: String,
}

impl Tmux {
    /// A server on a socket of its own, named after the test and the process.
    pub fn new(test: &str) -> Tmux {
        Tmux {
            socket: format!("candor-{test}-{}", std::process::id()),
        }
    }

    pub fn run(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .output()
            .expect("tmux is installed (scripts/test installs it)")
    }

    pub fn send(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "candor"];
        args.extend_from_slice(keys);
        assert!(self.run(&args).status.success());
    }

    pub fn type_text(&self, text: &str) {
        assert!(
            self.run(&["send-keys", "-t", "candor", "-l", text])
                .status
                .success()
        );
    }

    pub fn pane(&self) -> String {
        String::from_utf8_lossy(&self.run(&["capture-pane", "-p", "-t", "candor"]).stdout)
            .into_owned()
    }

    /// Waits until the pane satisfies `ready`, returning it; panics with the last pane after
    /// `seconds`.
    pub fn wait_for(&self, what: &str, seconds: u64, ready: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + Duration::from_secs(seconds);
        loop {
            let pane = self.pane();
            if ready(&pane) {
                return pane;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; the pane shows:\n{pane}");
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server"]);
    }
}

pub fn shell_quote(path: &Path) -> String {
    format!("'{}'", path.display().to_string().replace('\'', "'\\''"))
}

/// This repository's `.venv/bin`, where `scripts/test` installs the Python language servers.
pub fn venv_bin() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin")
}

/// PATH with `.venv/bin` first, as `scripts/test` sets it.
pub fn path_with_venv() -> std::ffi::OsString {
    let mut paths = vec![venv_bin()];
    if let Some(current) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&current));
    }
    std::env::join_paths(paths).unwrap()
}

/// Whether pylsp with the pylsp-rope plugin is installed in `.venv`; fails in CI (where
/// `scripts/test` installs it) and skips, saying so, elsewhere.
pub fn require_pylsp_rope() -> bool {
    let python = venv_bin().join("python");
    let found = Command::new(&python)
        .args(["-c", "import pylsp, pylsp_rope"])
        .output()
        .is_ok_and(|o| o.status.success())
        && venv_bin().join("pylsp").exists();
    if !found {
        let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false");
        let message = "pylsp with pylsp-rope is not installed in .venv; scripts/test installs it";
        assert!(!ci, "CI must run the pylsp tests: {message}");
        eprintln!("SKIPPED (CI unset): {message}");
    }
    found
}
