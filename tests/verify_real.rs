//! Verified previews with the real tools, through the real `candor call`: the three breakages of
//! issue 13 rebuilt as fixtures (`tests/verify_fixtures/`) show up before anything is written —
//! rust-analyzer's extract that fails `cargo check` with E0106, pylsp-rope's inline that leaves a
//! call behind (ruff F821 and candor's own cross-check), pylsp-rope's inline that turns
//! `scale(factor, 2)` into `2 * 2` (cross-check, and a test that newly fails); a clean refactor
//! is "clean"; errors that were already there are counted, not reported; a project without a
//! checker is "unavailable" with the reason.
//!
//! Tools come from PATH with `.venv/bin` first (as `scripts/test` sets it); a missing one fails
//! in CI and skips (loudly) elsewhere. Each test has its own user config and cache.

mod verify_common;

use serde_json::{Value, json};
use verify_common::*;

/// The extract of semver's `parse.rs` 59-68 in small: the build-metadata `if let`.
fn lifetime_extract(text: &str) -> Value {
    let start = line_of(text, "let (build, text) = if let");
    let end = start
        + text
            .lines()
            .skip(start)
            .position(|l| l == "    };")
            .unwrap()
        + 1;
    json!({
        "file_path": "src/lib.rs",
        "start_line": start,
        "end_line": end,
        "new_name": "build_metadata",
        "semantic_edit_backend": "lsp",
        "verify": true,
    })
}

#[test]
fn rust_analyzer_extract_that_fails_cargo_check_is_reported_before_the_write() {
    if !require(&["rust-analyzer", "cargo"]) {
        return;
    }
    let env = Env::new();
    let project = fixture("verify_fixtures", "rust_lifetime");
    let root = project.path();
    // An error that was there before the refactor, and a warning: counted, never reported.
    let lib = root.join("src/lib.rs");
    let mut text = std::fs::read_to_string(&lib).unwrap();
    text.push_str("\npub fn broken() -> u32 {\n    let unused = 1;\n    \"not a number\"\n}\n");
    std::fs::write(&lib, &text).unwrap();
    env.trust(root);

    let args = lifetime_extract(&text);
    let (first, first_time) = env.call(root, "refactor_extract_function", &args);
    assert_eq!(first["backend_used"], "lsp", "{first:#}");
    let verification = &first["data"]["verification"];
    assert_eq!(verification["checker"], "cargo check", "{first:#}");
    assert_eq!(verification["state"], "introduced", "{first:#}");
    let introduced = introduced(&first);
    assert_eq!(introduced.len(), 1, "only the new error: {first:#}");
    let (file, line, severity, code) = &introduced[0];
    assert_eq!(
        (file.as_str(), severity.as_str(), code.as_str()),
        ("src/lib.rs", "error", "E0106")
    );
    let after = first["data"]["changes"][0]["diff"].as_str().unwrap();
    assert!(after.contains("fn build_metadata("), "{after}");
    assert!(
        verification["preexisting"].as_u64().unwrap() >= 1,
        "the old E0308: {first:#}"
    );
    assert!(
        error_findings(&first)
            .iter()
            .any(|m| m.contains("E0106") && m.contains("missing lifetime specifier")),
        "the new error is an error finding: {first:#}"
    );
    assert!(*line > 1);

    // The same call again: the check is incremental.
    let (second, second_time) = env.call(root, "refactor_extract_function", &args);
    assert_eq!(second["data"]["verification"]["state"], "introduced");
    eprintln!(
        "cargo check of the fixture: first call {first_time:?} (check {} ms), second {second_time:?} (check {} ms)",
        first["data"]["verification"]["duration_ms"], second["data"]["verification"]["duration_ms"]
    );

    // Writing it is refused unless the caller insists; nothing is written.
    let mut apply = args.clone();
    apply["dry_run"] = json!(false);
    let (refused, _) = env.call(root, "refactor_extract_function", &apply);
    assert_eq!(refused["success"], false, "{refused:#}");
    assert_eq!(
        refused["error"]["param"], "allow_introduced_errors",
        "{refused:#}"
    );
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(
        message.contains("E0106") && message.starts_with("nothing was written"),
        "{message}"
    );
    assert_eq!(std::fs::read_to_string(&lib).unwrap(), text);
}

#[test]
fn pylsp_rope_inline_that_leaves_a_call_behind_is_an_error() {
    if !require(&["pylsp", "ruff"]) {
        return;
    }
    let env = Env::new();
    let project = fixture("verify_fixtures", "py_leftover");
    let root = project.path();
    // A name that was already undefined: counted, not reported.
    let module = root.join("pkg/make.py");
    let mut text = std::fs::read_to_string(&module).unwrap();
    text.push_str("\n\ndef legacy():\n    return undefined_helper()\n");
    std::fs::write(&module, &text).unwrap();
    let leftover = line_of(&text, "if _has_own_attribute(cls, dunder):");

    let (envelope, _) = env.call(
        root,
        "refactor_inline_function",
        &json!({"file_path": "pkg/make.py", "function_name": "_has_own_attribute", "semantic_edit_backend": "lsp", "verify": true}),
    );
    assert_eq!(envelope["backend_used"], "lsp", "{envelope:#}");
    let diff = envelope["data"]["changes"][0]["diff"].as_str().unwrap();
    assert!(
        diff.contains("-def _has_own_attribute"),
        "the server removed the definition: {diff}"
    );
    // The call kept its place: the definition (7 lines) went from above it.
    let line_after = (leftover - 7) as u64;
    let verification = &envelope["data"]["verification"];
    assert_eq!(verification["state"], "introduced", "{envelope:#}");
    let introduced = introduced(&envelope);
    assert!(
        introduced.contains(&(
            "pkg/make.py".to_string(),
            line_after,
            "error".to_string(),
            "F821".to_string()
        )),
        "{envelope:#}"
    );
    assert!(
        introduced.iter().all(|(_, line, _, _)| *line == line_after),
        "only the call left behind is new: {envelope:#}"
    );
    assert!(
        verification["preexisting"].as_u64().unwrap() >= 1,
        "{envelope:#}"
    );
    let errors = error_findings(&envelope);
    assert!(
        errors
            .iter()
            .any(|m| m.starts_with("`_has_own_attribute` is still called here")),
        "candor's own cross-check: {errors:?}"
    );
    // The type checker of an unconfigured project: pyrefly, which sees the name too.
    if runs("pyrefly") {
        assert!(
            introduced
                .iter()
                .any(|(_, _, _, code)| code == "unknown-name"),
            "{envelope:#}"
        );
        assert!(
            verification["checker"]
                .as_str()
                .unwrap()
                .contains("pyrefly")
        );
    }
}

#[test]
fn pylsp_rope_inline_that_computes_something_else_is_an_error_and_breaks_a_test() {
    if !require(&["pylsp"]) {
        return;
    }
    let env = Env::new();
    let project = fixture("verify_fixtures", "py_scale");
    let root = project.path();
    env.trust(root);
    let (envelope, _) = env.call(
        root,
        "refactor_inline_function",
        &json!({"file_path": "calc/scaling.py", "function_name": "scale", "semantic_edit_backend": "lsp", "verify": "tests"}),
    );
    assert_eq!(envelope["backend_used"], "lsp", "{envelope:#}");
    let diff = envelope["data"]["changes"][0]["diff"].as_str().unwrap();
    assert!(
        diff.contains("+    y = 2 * 2"),
        "pylsp-rope's result: {diff}"
    );
    let errors = error_findings(&envelope);
    assert!(
        errors
            .iter()
            .any(|m| m.contains("passed `factor` as `x`") && m.contains("`y = 2 * 2`")),
        "{errors:?}"
    );
    // The checkers see valid code; the project's test sees the wrong number.
    let tests = &envelope["data"]["verification"]["tests"];
    assert_eq!(tests["runner"], "python -m unittest", "{envelope:#}");
    assert_eq!(tests["state"], "introduced", "{envelope:#}");
    assert_eq!(tests["passed_before"], 1, "{envelope:#}");
    let failing = &tests["failing"][0];
    assert!(
        failing["name"]
            .as_str()
            .unwrap()
            .starts_with("test_grow_adds_twice_the_factor"),
        "{envelope:#}"
    );
    assert_eq!(failing["file"], "tests/test_scaling.py", "{envelope:#}");
    assert!(
        failing["message"].as_str().unwrap().contains("5 != 7"),
        "{envelope:#}"
    );
    assert_eq!(envelope["data"]["verification"]["state"], "introduced");
    assert!(
        errors
            .iter()
            .any(|m| m.contains("passed before this refactor and fails after it"))
    );
}

#[test]
fn clean_refactors_are_clean() {
    if !require(&["rust-analyzer", "cargo", "pylsp", "ruff"]) {
        return;
    }
    let env = Env::new();
    let project = fixture("lsp_fixtures", "rust_crate");
    let root = project.path();
    env.trust(root);
    let text = std::fs::read_to_string(root.join("src/lib.rs")).unwrap();
    let (envelope, _) = env.call(
        root,
        "refactor_extract_function",
        &json!({
            "file_path": "src/lib.rs",
            "start_line": line_of(&text, "for line in lines"),
            "end_line": line_of(&text, "let average"),
            "new_name": "accumulate",
            "semantic_edit_backend": "lsp",
            "verify": true,
        }),
    );
    let verification = &envelope["data"]["verification"];
    assert_eq!(verification["state"], "clean", "{envelope:#}");
    assert_eq!(verification["introduced"], json!([]));
    assert_eq!(envelope["data"]["findings"], json!([]), "{envelope:#}");

    let project = fixture("lsp_fixtures", "py_pkg");
    let root = project.path();
    let text = std::fs::read_to_string(root.join("orders/totals.py")).unwrap();
    let (envelope, _) = env.call(
        root,
        "refactor_extract_function",
        &json!({
            "file_path": "orders/totals.py",
            "start_line": line_of(&text, "largest = 0"),
            "end_line": line_of(&text, "largest = max(largest, cost)"),
            "new_name": "accumulate",
            "semantic_edit_backend": "lsp",
            "verify": true,
        }),
    );
    let verification = &envelope["data"]["verification"];
    assert_eq!(verification["state"], "clean", "{envelope:#}");
    assert!(
        verification["checker"]
            .as_str()
            .unwrap()
            .starts_with("ruff + compile"),
        "{envelope:#}"
    );
    // Without `verify` nothing was checked, and the envelope says so.
    let average = line_of(&text, "average =");
    let (unchecked, _) = env.call(
        root,
        "refactor_extract_function",
        &json!({"file_path": "orders/totals.py", "start_line": average, "end_line": average, "new_name": "mean", "semantic_edit_backend": "tree-sitter"}),
    );
    let verification = &unchecked["data"]["verification"];
    assert_eq!(verification["state"], "skipped", "{unchecked:#}");
    assert!(
        verification["reason"]
            .as_str()
            .unwrap()
            .starts_with("not compiled or type-checked yet"),
        "{unchecked:#}"
    );
}

#[test]
fn a_project_without_a_checker_is_unavailable_with_the_reason() {
    let env = Env::new();
    // Rust without a Cargo.toml.
    let loose = tempfile::tempdir().unwrap();
    std::fs::write(
        loose.path().join("lib.rs"),
        "fn a() {\n    let x = 1;\n    let y = x + 1;\n}\n",
    )
    .unwrap();
    env.trust(loose.path());
    let extract = json!({"file_path": "lib.rs", "start_line": 2, "end_line": 3, "new_name": "b", "semantic_edit_backend": "tree-sitter", "verify": true});
    let (envelope, _) = env.call(loose.path(), "refactor_extract_function", &extract);
    let verification = &envelope["data"]["verification"];
    assert_eq!(verification["state"], "unavailable", "{envelope:#}");
    assert_eq!(verification["checker"], Value::Null);
    assert!(
        verification["reason"]
            .as_str()
            .unwrap()
            .contains("no Cargo.toml"),
        "{envelope:#}"
    );

    // A crate that is not trusted: cargo would run its build scripts.
    let project = fixture("verify_fixtures", "rust_lifetime");
    let text = std::fs::read_to_string(project.path().join("src/lib.rs")).unwrap();
    let start = line_of(&text, "let mut pos");
    let extract = json!({"file_path": "src/lib.rs", "start_line": start, "end_line": start, "new_name": "first", "semantic_edit_backend": "tree-sitter", "verify": true});
    let (envelope, _) = env.call(project.path(), "refactor_extract_function", &extract);
    let reason = envelope["data"]["verification"]["reason"]
        .as_str()
        .unwrap_or_default();
    assert_eq!(
        envelope["data"]["verification"]["state"], "unavailable",
        "{envelope:#}"
    );
    assert!(reason.contains("candor trust"), "{reason}");

    // Python with no checker on PATH.
    let empty = tempfile::tempdir().unwrap();
    let bare = Env {
        path: empty.path().as_os_str().to_owned(),
        ..Env::new()
    };
    let project = fixture("verify_fixtures", "py_scale");
    let (envelope, _) = bare.call(
        project.path(),
        "refactor_inline_function",
        &json!({"file_path": "calc/scaling.py", "function_name": "scale", "semantic_edit_backend": "tree-sitter", "verify": true}),
    );
    let verification = &envelope["data"]["verification"];
    assert_eq!(verification["state"], "unavailable", "{envelope:#}");
    let reason = verification["reason"].as_str().unwrap();
    assert!(reason.starts_with("no Python checker found"), "{reason}");
    assert!(reason.contains("ruff"), "{reason}");
}
