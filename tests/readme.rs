//! The README's examples run as written: every command line starting with `candor` in a
//! ```sh block runs from the repository root (here: a temp copy of what they need, so the demo
//! is never touched) and succeeds, with `candor` on PATH as `cargo install --path .` puts it;
//! the envelope shown for the first has the keys the command prints; and the README says how
//! to put `candor` on PATH.

mod tui_common;

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use tui_common::*;

fn readme() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap()
}

/// The bodies of the fenced blocks of `language`.
fn blocks(text: &str, language: &str) -> Vec<String> {
    let fence = format!("```{language}\n");
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find(&fence) {
        let body = &rest[start + fence.len()..];
        let end = body.find("```").unwrap();
        found.push(body[..end].to_string());
        rest = &body[end + 3..];
    }
    found
}

/// The `candor …` lines of the ```sh blocks.
fn examples() -> Vec<String> {
    blocks(&readme(), "sh")
        .iter()
        .flat_map(|b| b.lines().map(str::to_string).collect::<Vec<_>>())
        .filter(|l| l.starts_with("candor "))
        .collect()
}

/// A repository root with what the examples need, and a bin folder with `candor`.
fn workspace() -> (tempfile::TempDir, std::path::PathBuf, std::ffi::OsString) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("candor");
    copy_tree(&demo_dir(), &root.join("assets/demo"));
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_candor"), bin.join("candor")).unwrap();
    let mut paths = vec![bin];
    paths.extend(std::env::split_paths(&path_with_venv()));
    (dir, root, std::env::join_paths(paths).unwrap())
}

fn run(
    root: &Path,
    path: &std::ffi::OsString,
    line: &str,
    extra_env: &[(&str, &str)],
) -> std::process::Output {
    let mut command = Command::new("sh");
    command
        .args(["-c", line])
        .current_dir(root)
        .env("PATH", path)
        .env("XDG_CONFIG_HOME", root.join(".no-user-config"))
        .env_remove("CANDOR_BACKEND");
    for (key, value) in extra_env {
        command.env(key, value);
    }
    command.output().unwrap()
}

#[test]
fn every_candor_example_runs_as_written_from_the_repository_root() {
    let examples = examples();
    assert!(
        examples
            .iter()
            .filter(|l| l.starts_with("candor call "))
            .count()
            >= 4,
        "one example per tool: {examples:#?}"
    );
    let (_dir, root, path) = workspace();
    for line in &examples {
        let output = run(&root, &path, line, &[]);
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success(),
            "`{line}` failed ({:?}):\n{stdout}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        if line.starts_with("candor call ") {
            let envelope: Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(envelope["success"], true, "`{line}`:\n{envelope:#}");
            assert_eq!(envelope["data"]["dry_run"], true, "examples write nothing");
        } else {
            assert!(!stdout.trim().is_empty(), "`{line}` printed nothing");
        }
    }
    // Nothing was written.
    for path in [
        "rust/src/lib.rs",
        "python/shop/receipt.py",
        "python/shop/money.py",
    ] {
        assert_eq!(
            read(&root.join("assets/demo"), path),
            read(&demo_dir(), path),
            "{path}"
        );
    }
}

#[test]
fn no_sh_example_holds_a_placeholder() {
    for line in examples() {
        for placeholder in ["TOOL", "ARGS_JSON", " DIR", "NAME", "PATH"] {
            assert!(
                !line.contains(placeholder),
                "`{line}` cannot run as written: `{placeholder}` is a placeholder (put it in a ```text block)"
            );
        }
    }
}

#[test]
fn the_envelope_shown_has_the_keys_the_first_example_prints() {
    let text = readme();
    let shown = text
        .split("prints (diff shortened):")
        .nth(1)
        .and_then(|after| blocks(after, "json").into_iter().next())
        .expect("the README shows an envelope");
    let shown: Value = serde_json::from_str(&shown).unwrap();
    let first = examples()
        .into_iter()
        .find(|l| l.starts_with("candor call "))
        .unwrap();
    let (_dir, root, path) = workspace();
    let output = run(&root, &path, &first, &[("CANDOR_BACKEND", "tree-sitter")]);
    let printed: Value = serde_json::from_slice(&output.stdout).unwrap();
    let keys = |v: &Value| -> Vec<String> {
        let mut keys: Vec<String> = v.as_object().unwrap().keys().cloned().collect();
        keys.sort();
        keys
    };
    assert_eq!(keys(&shown), keys(&printed));
    assert_eq!(keys(&shown["data"]), keys(&printed["data"]));
    assert_eq!(
        shown["data"]["tree_sitter_caveats"],
        printed["data"]["tree_sitter_caveats"]
    );
    assert_eq!(shown["confidence"], printed["confidence"]);
}

#[test]
fn the_readme_says_how_to_put_candor_on_path() {
    let text = readme();
    let setup: Vec<String> = blocks(&text, "sh");
    assert!(
        setup
            .iter()
            .any(|b| b.lines().any(|l| l.starts_with("cargo install --path ."))),
        "a ```sh block with `cargo install --path .`"
    );
    for script in ["./scripts/run", "./scripts/test"] {
        assert!(
            setup
                .iter()
                .any(|b| b.lines().any(|l| l.starts_with(script))),
            "{script} is in the set-up"
        );
    }
}
