//! Helpers of the real-rope tests (`rope_real.rs`, `rope_rename.rs`): rope on the tests' PATH
//! (or a loud skip outside CI), fixture copies, the real `candor` binary, the package's own tests,
//! the honesty surfaces of a rope result, and apply → tests → undo byte for byte.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use super::common::snapshot;

pub fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// PATH as `scripts/test` sets it: the repository's `.venv/bin` first.
pub fn path_env() -> OsString {
    let mut paths = vec![manifest_dir().join(".venv/bin")];
    if let Some(current) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&current));
    }
    std::env::join_paths(paths).unwrap()
}

/// The interpreter the fixture's tests run with.
pub fn python() -> PathBuf {
    if let Some(python) = std::env::var_os("CANDOR_TEST_PYTHON") {
        return PathBuf::from(python);
    }
    let venv = manifest_dir().join(".venv/bin/python");
    if venv.exists() {
        venv
    } else {
        PathBuf::from("python3")
    }
}

/// True when `python3` on the tests' PATH imports rope; otherwise fails in CI and skips
/// (loudly) elsewhere.
pub fn require_rope() -> bool {
    let ok = Command::new("python3")
        .args(["-I", "-c", "import rope"])
        .env("PATH", path_env())
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return true;
    }
    let message = "rope is not importable by python3 on PATH; scripts/test installs it into .venv (tests/requirements.txt)";
    assert!(!in_ci(), "CI must run the real-rope tests: {message}");
    eprintln!("SKIPPED (CI unset): {message}");
    false
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "__pycache__" || name == ".ropeproject" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(&name));
        } else {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// A fresh copy of the package `tests/rope_fixtures/<name>`.
pub fn fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    copy_dir(
        &manifest_dir().join("tests/rope_fixtures").join(name),
        dir.path(),
    );
    dir
}

/// A fresh copy of the ledger package.
pub fn ledger() -> tempfile::TempDir {
    fixture("ledger")
}

pub fn candor(root: &Path, args: &[&str], path: &OsString) -> Output {
    Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(args)
        .arg("--root")
        .arg(root)
        .current_dir(root)
        .env("PATH", path)
        .env("XDG_CONFIG_HOME", root.join(".candor/no-user-config"))
        .env_remove("CANDOR_BACKEND")
        .output()
        .unwrap()
}

/// `candor call` in `root`: the envelope, and what candor wrote to stderr.
pub fn call_with_path(root: &Path, tool: &str, args: &Value, path: &OsString) -> (Value, String) {
    let output = candor(root, &["call", tool, &args.to_string()], path);
    let envelope: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{tool}: stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (
        envelope,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

pub fn call(root: &Path, tool: &str, args: Value) -> Value {
    call_with_path(root, tool, &args, &path_env()).0
}

/// The package's own tests, without writing bytecode into the project.
pub fn run_package_tests(root: &Path) {
    let output = Command::new(python())
        .args(["-B", "-m", "unittest", "-q"])
        .current_dir(root)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the package's tests fail:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

pub fn read(root: &Path, path: &str) -> String {
    std::fs::read_to_string(root.join(path)).unwrap()
}

/// The honesty surfaces of a rope result.
pub fn assert_rope(envelope: &Value) {
    assert_eq!(envelope["success"], true, "{envelope:#}");
    assert_eq!(envelope["backend_used"], "lsp", "{envelope:#}");
    assert_eq!(envelope["confidence"], 0.85, "{envelope:#}");
    assert_eq!(envelope["degraded_reason"], Value::Null, "{envelope:#}");
    let data = &envelope["data"];
    assert_eq!(data["semantic_backend"]["name"], "rope", "{envelope:#}");
    assert!(
        data["semantic_backend"]["version"]
            .as_str()
            .is_some_and(|v| v.starts_with(char::is_numeric)),
        "{envelope:#}"
    );
    assert!(data.get("tree_sitter_caveats").is_none(), "{envelope:#}");
    assert!(data.get("degraded_reason").is_none(), "{envelope:#}");
    assert!(data.get("fallback_reason").is_none(), "{envelope:#}");
    assert!(data.get("lsp_server").is_none(), "{envelope:#}");
}

/// Applies, runs the package's tests, undoes, and checks every byte is back; returns the
/// applied envelope.
pub fn apply_test_and_undo(root: &Path, tool: &str, args: Value) -> Value {
    apply_test_and_undo_with(root, tool, args, assert_rope)
}

/// [`apply_test_and_undo`], with `engine` checking who did the work (preview and apply).
pub fn apply_test_and_undo_with(
    root: &Path,
    tool: &str,
    mut args: Value,
    engine: fn(&Value),
) -> Value {
    let before = snapshot(root);
    let preview = call(root, tool, args.clone());
    engine(&preview);
    assert_eq!(snapshot(root), before, "a preview writes nothing");
    args["dry_run"] = json!(false);
    let applied = call(root, tool, args);
    engine(&applied);
    assert_eq!(applied["data"]["applied"], true, "{applied:#}");
    assert_eq!(
        applied["data"]["changes"], preview["data"]["changes"],
        "what is written is what was previewed"
    );
    assert!(
        !root.join(".ropeproject").exists(),
        "rope created nothing in the project"
    );
    run_package_tests(root);
    let undo = candor(root, &["undo"], &path_env());
    assert!(
        undo.status.success(),
        "{}",
        String::from_utf8_lossy(&undo.stderr)
    );
    assert_eq!(snapshot(root), before, "undo gives back every byte");
    applied
}

pub fn findings_of(envelope: &Value) -> Vec<String> {
    envelope["data"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            format!(
                "{} {}:{} {}",
                f["severity"].as_str().unwrap(),
                f["file"].as_str().unwrap(),
                f["line"],
                f["message"].as_str().unwrap()
            )
        })
        .collect()
}

pub fn has(findings: &[String], needle: &str) -> bool {
    findings.iter().any(|f| f.contains(needle))
}

/// A directory of a Python without rope (a fresh venv without pip), for PATH.
pub fn python_without_rope(dir: &Path) -> PathBuf {
    let venv = dir.join("bare-venv");
    let made = Command::new(python())
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    venv.join("bin")
}
