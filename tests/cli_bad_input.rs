//! Bad input through the real `candor call` binary: each case gets its error code, an exit code,
//! a message that says what was wrong and what to do, and leaves every file as it was.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

struct Project {
    dir: tempfile::TempDir,
}

impl Project {
    fn new() -> Project {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(
            root.join("ok.py"),
            "def f(a):\n    return a\n\n\nprint(f(1))\n",
        )
        .unwrap();
        std::fs::write(root.join("ok.rs"), "fn f(a: i32) -> i32 {\n    a\n}\n").unwrap();
        std::fs::write(root.join("latin1.py"), b"name = '\xe9t\xe9'\n").unwrap();
        std::fs::write(root.join("blob.py"), b"\x7fELF\x00\x00\x01binary").unwrap();
        std::fs::write(root.join("empty.py"), "").unwrap();
        std::fs::write(root.join("app.js"), "function f() {}\n").unwrap();
        Project { dir }
    }

    fn root(&self) -> &Path {
        self.dir.path()
    }

    fn snapshot(&self) -> Vec<(String, Vec<u8>)> {
        let mut files: Vec<(String, Vec<u8>)> = std::fs::read_dir(self.root())
            .unwrap()
            .flatten()
            .filter(|e| e.path().is_file())
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    std::fs::read(e.path()).unwrap(),
                )
            })
            .collect();
        files.sort();
        files
    }

    fn call(&self, tool: &str, args: &str) -> (Value, i32) {
        let output = Command::new(env!("CARGO_BIN_EXE_candor"))
            .args(["call", tool, args, "--root"])
            .arg(self.root())
            .env("CANDOR_BACKEND", "tree-sitter")
            .env("XDG_CONFIG_HOME", self.root().join(".no-user-config"))
            .output()
            .unwrap();
        let envelope: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
            panic!(
                "stdout is not JSON ({e}): {}",
                String::from_utf8_lossy(&output.stdout)
            )
        });
        (envelope, output.status.code().unwrap())
    }
}

/// Runs one bad call and checks code, exit status, message words and that nothing changed.
fn refused(
    project: &Project,
    tool: &str,
    args: Value,
    code: &str,
    exit: i32,
    message_has: &[&str],
) {
    let before = project.snapshot();
    let (envelope, status) = project.call(tool, &args.to_string());
    assert_eq!(envelope["success"], false, "{args}: {envelope:#}");
    assert_eq!(envelope["tool"], tool);
    assert_eq!(envelope["error"]["code"], code, "{args}: {envelope:#}");
    assert_eq!(status, exit, "{args}: exit status");
    let message = envelope["error"]["message"].as_str().unwrap();
    for word in message_has {
        assert!(
            message.contains(word),
            "{args}: message {message:?} lacks {word:?}"
        );
    }
    assert_eq!(project.snapshot(), before, "{args}: files changed");
}

#[test]
fn unreadable_files_are_refused_with_a_reason() {
    let p = Project::new();
    let extract = "refactor_extract_function";
    refused(
        &p,
        extract,
        json!({"file_path": "latin1.py", "start_line": 1, "end_line": 1, "new_name": "g", "dry_run": false}),
        "invalid_argument",
        2,
        &["latin1.py", "UTF-8", "line 1"],
    );
    refused(
        &p,
        extract,
        json!({"file_path": "blob.py", "start_line": 1, "end_line": 1, "new_name": "g", "dry_run": false}),
        "invalid_argument",
        2,
        &["blob.py", "binary"],
    );
    refused(
        &p,
        extract,
        json!({"file_path": "missing.py", "start_line": 1, "end_line": 1, "new_name": "g"}),
        "not_found",
        3,
        &["missing.py", "does not exist"],
    );
    refused(
        &p,
        "refactor_inline_function",
        json!({"file_path": "app.js", "function_name": "f"}),
        "unsupported_language",
        2,
        &["app.js", "Rust", "Python"],
    );
}

#[test]
fn ranges_are_checked() {
    let p = Project::new();
    let extract = "refactor_extract_function";
    refused(
        &p,
        extract,
        json!({"file_path": "ok.py", "start_line": 40, "end_line": 42, "new_name": "g", "dry_run": false}),
        "invalid_range",
        2,
        &["40"],
    );
    refused(
        &p,
        extract,
        json!({"file_path": "ok.py", "start_line": 2, "end_line": 1, "new_name": "g", "dry_run": false}),
        "invalid_range",
        2,
        &["before"],
    );
    refused(
        &p,
        extract,
        json!({"file_path": "ok.py", "start_line": 0, "end_line": 1, "new_name": "g"}),
        "invalid_argument",
        2,
        &["start_line", "1-based"],
    );
    refused(
        &p,
        extract,
        json!({"file_path": "empty.py", "start_line": 1, "end_line": 1, "new_name": "g", "dry_run": false}),
        "invalid_range",
        2,
        &[],
    );
    refused(
        &p,
        extract,
        json!({"file_path": "ok.rs", "start_line": 2, "end_line": 2, "new_name": "fn", "dry_run": false}),
        "invalid_argument",
        2,
        &["fn", "keyword"],
    );
}

#[test]
fn paths_outside_the_root_are_refused() {
    let p = Project::new();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("x.py"), "def f():\n    return 1\n").unwrap();
    std::os::unix::fs::symlink(outside.path().join("x.py"), p.root().join("link.py")).unwrap();
    let abs = outside.path().join("x.py").to_string_lossy().into_owned();
    for path in ["../x.py", abs.as_str(), "link.py"] {
        refused(
            &p,
            "refactor_inline_function",
            json!({"file_path": path, "function_name": "f", "dry_run": false}),
            "outside_root",
            2,
            &["outside the project root"],
        );
    }
    refused(
        &p,
        "refactor_move_to_file",
        json!({"file_path": "ok.py", "symbol_name": "f", "target_file": "../elsewhere.py", "dry_run": false}),
        "outside_root",
        2,
        &[],
    );
    assert_eq!(
        std::fs::read_to_string(outside.path().join("x.py")).unwrap(),
        "def f():\n    return 1\n"
    );
    assert!(
        !outside
            .path()
            .parent()
            .unwrap()
            .join("elsewhere.py")
            .exists()
    );
}

#[test]
fn arguments_of_the_wrong_shape_are_refused() {
    let p = Project::new();
    let change = "refactor_change_signature";
    refused(
        &p,
        change,
        json!({"file_path": "ok.py", "function_name": "f", "new_parameters": "a, b"}),
        "invalid_argument",
        2,
        &["new_parameters", "array"],
    );
    refused(
        &p,
        change,
        json!({"file_path": "ok.py", "function_name": "f", "new_parameters": [{"nom": "a"}]}),
        "invalid_argument",
        2,
        &["nom"],
    );
    refused(
        &p,
        change,
        json!({"file_path": "ok.py", "function_name": "f", "new_parameters": [1, 2]}),
        "invalid_argument",
        2,
        &["new_parameters"],
    );
    refused(
        &p,
        change,
        json!({"file_path": "ok.py", "function_name": "f"}),
        "missing_param",
        2,
        &["new_parameters"],
    );
    refused(
        &p,
        "refactor_inline_function",
        json!({"file_path": "ok.py"}),
        "missing_param",
        2,
        &["function_name"],
    );
    refused(
        &p,
        "refactor_inline_function",
        json!({"file_path": "ok.py", "function_name": "f", "semantic_edit_backend": "magic"}),
        "invalid_argument",
        2,
        &["auto", "lsp", "tree-sitter"],
    );
    refused(
        &p,
        "refactor_teleport",
        json!({"file_path": "ok.py"}),
        "invalid_argument",
        2,
        &["refactor_extract_function"],
    );
}

#[test]
fn json_that_does_not_parse_is_an_error_envelope() {
    let p = Project::new();
    let (envelope, status) = p.call("refactor_inline_function", "{not json");
    assert_eq!(envelope["error"]["code"], "invalid_argument");
    assert!(
        envelope["error"]["message"]
            .as_str()
            .unwrap()
            .contains("not valid JSON")
    );
    assert_eq!(status, 2);
}

#[test]
fn a_reader_that_goes_away_is_not_a_crash() {
    // `candor calls f | head -1`: far more output than a pipe holds, and the reader closes its
    // end after one line. candor stops quietly, without a panic message.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("many.py"), "f(1)\n".repeat(50_000)).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["calls", "f", "--root"])
        .arg(dir.path())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    let mut first = [0u8; 16];
    std::io::Read::read_exact(&mut stdout, &mut first).unwrap();
    assert_eq!(&first[..10], b"many.py:1:", "{first:?}");
    drop(stdout);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(output.status.success(), "{:?} {stderr}", output.status);
}

#[test]
fn a_repeated_argument_is_named_not_silently_overridden() {
    let p = Project::new();
    let before = p.snapshot();
    let (envelope, status) = p.call(
        "refactor_inline_function",
        r#"{"file_path": "ok.py", "function_name": "f", "file_path": "ok.rs", "dry_run": false}"#,
    );
    assert_eq!(
        envelope["error"]["code"], "invalid_argument",
        "{envelope:#}"
    );
    assert_eq!(status, 2);
    assert_eq!(envelope["error"]["param"], "file_path", "{envelope:#}");
    let message = envelope["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("name `file_path` twice") && message.contains("give each argument once"),
        "{message}"
    );
    // A repeated key deeper in the arguments too.
    let (envelope, _) = p.call(
        "refactor_change_signature",
        r#"{"file_path": "ok.py", "function_name": "f", "new_parameters": [{"name": "a", "name": "b"}]}"#,
    );
    assert!(
        envelope["error"]["message"]
            .as_str()
            .unwrap()
            .contains("`name`"),
        "{envelope:#}"
    );
    assert_eq!(p.snapshot(), before);
}

#[test]
fn a_symbol_not_found_names_the_file_it_was_looked_for_in() {
    let p = Project::new();
    refused(
        &p,
        "refactor_inline_function",
        json!({"file_path": "ok.py", "function_name": "nope"}),
        "not_found",
        3,
        &["no function named `nope` in ok.py"],
    );
    refused(
        &p,
        "refactor_inline_function",
        json!({"file_path": "ok.rs", "function_name": "nope"}),
        "not_found",
        3,
        &["ok.rs"],
    );
}

#[test]
fn a_symbolic_link_loop_is_called_a_loop() {
    let p = Project::new();
    std::os::unix::fs::symlink("loop_b.py", p.root().join("loop_a.py")).unwrap();
    std::os::unix::fs::symlink("loop_a.py", p.root().join("loop_b.py")).unwrap();
    let (envelope, _) = p.call(
        "refactor_inline_function",
        &json!({"file_path": "loop_a.py", "function_name": "f"}).to_string(),
    );
    let message = envelope["error"]["message"].as_str().unwrap();
    assert!(message.contains("loop_a.py"), "{message}");
    assert!(message.contains("loop of symbolic links"), "{message}");
    assert!(!message.contains("does not exist"), "{message}");
}
