//! Python inline variable through the real `pyrefly lsp` (issue 27), through the real
//! `candor call`: pyrefly first (it keeps the parentheses rope drops), then rope, then the
//! heuristic, each step saying why; in an untrusted project pyrefly neither runs the project's
//! `.venv/bin/python` (candor tells it which interpreter to query) nor starts with the project's
//! own pyrefly settings.

mod common;

use std::path::Path;
use std::process::Command;

use common::servers::{path_env, require};
use serde_json::{Value, json};

fn call(root: &Path, args: Value) -> Value {
    common::servers::patient_auto(&root.join(".candor/no-user-config"));
    let out = Command::new(common::candor_bin())
        .args([
            "call",
            "refactor_inline_variable",
            &args.to_string(),
            "--root",
        ])
        .arg(root)
        .current_dir(root)
        .env("PATH", path_env())
        .env("XDG_CONFIG_HOME", root.join(".candor/no-user-config"))
        .env_remove("CANDOR_BACKEND")
        .env_remove("VIRTUAL_ENV")
        .output()
        .unwrap();
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    })
}

fn write(root: &Path, path: &str, text: &str) {
    let full = root.join(path);
    std::fs::create_dir_all(full.parent().unwrap()).unwrap();
    std::fs::write(full, text).unwrap();
}

fn diff(envelope: &Value) -> String {
    envelope["data"]["changes"][0]["diff"]
        .as_str()
        .unwrap_or_else(|| panic!("{envelope:#}"))
        .to_string()
}

fn engine(envelope: &Value) -> String {
    envelope["data"]["semantic_backend"]["name"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

/// The golden case `inline_variable/python/parenthesised`: rope inlines `subtotal` as
/// `price * count + 1 * 2`; pyrefly keeps the parentheses the precedence needs.
const PARENTHESISED: &str = "def total(price, count):\n    subtotal = price * count + 1\n    doubled = subtotal * 2\n    return doubled, -subtotal, subtotal\n\n\nassert total(2, 3) == (14, -7, 7)\n";

#[test]
fn pyrefly_inlines_a_variable_keeping_the_parentheses_rope_drops() {
    if !require(&["pyrefly"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(root, "app.py", PARENTHESISED);
    for backend in ["auto", "lsp"] {
        let envelope = call(
            root,
            json!({"file_path": "app.py", "line": 3, "column": 15, "verify": false,
                "semantic_edit_backend": backend}),
        );
        assert_eq!(envelope["success"], true, "{envelope:#}");
        assert_eq!(envelope["backend_used"], "lsp", "{envelope:#}");
        assert!(engine(&envelope).starts_with("pyrefly"), "{envelope:#}");
        assert_eq!(envelope["data"]["fallback_reason"], Value::Null);
        let diff = diff(&envelope);
        assert!(
            diff.contains("+    doubled = (price * count + 1) * 2\n")
                && diff.contains("-(price * count + 1)"),
            "{diff}"
        );
        assert!(!diff.contains("price * count + 1 * 2"), "{diff}");
    }
    // Applied, the file keeps its assert.
    let applied = call(
        root,
        json!({"file_path": "app.py", "line": 3, "column": 15, "dry_run": false, "verify": false}),
    );
    assert_eq!(applied["success"], true, "{applied:#}");
    let ran = Command::new(common::servers::python())
        .arg(root.join("app.py"))
        .status()
        .unwrap();
    assert!(
        ran.success(),
        "{}",
        std::fs::read_to_string(root.join("app.py")).unwrap()
    );
}

/// pyrefly offers no inline for an annotated binding: rope does it, and says why pyrefly did not.
#[test]
fn where_pyrefly_has_no_inline_action_rope_does_it_and_says_why() {
    if !require(&["pyrefly"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "app.py",
        "def f(a):\n    x: int = a + 1\n    return [x]\n",
    );
    let envelope = call(
        root,
        json!({"file_path": "app.py", "line": 3, "column": 13, "verify": false}),
    );
    assert_eq!(envelope["success"], true, "{envelope:#}");
    assert_eq!(engine(&envelope), "rope", "{envelope:#}");
    let reason = envelope["data"]["fallback_reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("pyrefly has no inline variable action there") && reason.contains("rope"),
        "{envelope:#}"
    );
    assert!(
        diff(&envelope).contains("+    return [a + 1]\n"),
        "{envelope:#}"
    );
}

/// pyrefly looks for the project's `.venv` and runs its `bin/python` to learn the site packages:
/// in an untrusted project candor tells it to query the user's `python3` instead.
#[test]
fn pyrefly_never_runs_an_untrusted_projects_venv_python() {
    if !require(&["pyrefly"]) {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let marker = root.join("MARKER");
    write(&root, "app.py", PARENTHESISED);
    write(
        &root,
        ".venv/pyvenv.cfg",
        "home = /usr/bin\nversion = 3.11.7\n",
    );
    write(
        &root,
        ".venv/bin/python",
        &format!(
            "#!/bin/sh\necho ran >> '{}'\nexec '{}' \"$@\"\n",
            marker.display(),
            common::servers::python().display()
        ),
    );
    let python = root.join(".venv/bin/python");
    std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::os::unix::fs::symlink("python", root.join(".venv/bin/python3")).unwrap();
    let envelope = call(
        &root,
        json!({"file_path": "app.py", "line": 3, "column": 15, "verify": false}),
    );
    assert!(engine(&envelope).starts_with("pyrefly"), "{envelope:#}");
    assert!(
        !marker.exists(),
        "the project's .venv/bin/python ran: {}",
        std::fs::read_to_string(&marker).unwrap_or_default()
    );
}

/// A project's own pyrefly settings can name an interpreter to run: in an untrusted project
/// pyrefly is not started; rope does the inline and the reason says why.
#[test]
fn an_untrusted_projects_pyrefly_settings_keep_pyrefly_out() {
    if !require(&["pyrefly"]) {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let marker = root.join("MARKER");
    write(&root, "app.py", PARENTHESISED);
    write(
        &root,
        "tools/python",
        &format!(
            "#!/bin/sh\necho ran >> '{}'\nexec '{}' \"$@\"\n",
            marker.display(),
            common::servers::python().display()
        ),
    );
    std::fs::set_permissions(
        root.join("tools/python"),
        std::fs::Permissions::from_mode(0o755),
    )
    .unwrap();
    write(
        &root,
        "pyrefly.toml",
        &format!(
            "python-interpreter-path = \"{}\"\n",
            root.join("tools/python").display()
        ),
    );
    let envelope = call(
        &root,
        json!({"file_path": "app.py", "line": 3, "column": 15, "verify": false}),
    );
    assert!(!marker.exists(), "the project's interpreter ran");
    assert_eq!(envelope["success"], true, "{envelope:#}");
    assert_eq!(engine(&envelope), "rope", "{envelope:#}");
    let reason = envelope["data"]["fallback_reason"].as_str().unwrap_or("");
    assert!(
        reason.contains("pyrefly is not started") && reason.contains("pyrefly.toml"),
        "{envelope:#}"
    );
}
