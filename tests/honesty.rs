//! The port of the seed's `p1_a_refactor_tools_emit_tree_sitter_caveats_and_unknown_args`: each
//! of the four tools (and the fifth, rename, in its own test), on a small Python file and a small Rust file, through the real `candor call`
//! binary, carries the three honesty surfaces exactly as the policy says, and reports a stray
//! `banana` argument. The expected strings are read from the policy document itself.

mod common;

use serde_json::json;

use common::call;
use common::policy::{PYTHON, RUST, four_calls, policy, write_fixtures};

#[test]
fn p1_a_refactor_tools_emit_tree_sitter_caveats_and_unknown_args() {
    let policy = policy();
    let dir = tempfile::tempdir().unwrap();
    write_fixtures(dir.path());
    for file in ["app.py", "app.rs"] {
        let ext = if file.ends_with(".py") { "py" } else { "rs" };
        for (tool, args) in four_calls(file) {
            let (envelope, code) = call(dir.path(), tool, &args);
            assert_eq!(code, 0, "{tool} on {file}: {envelope:#}");
            assert_eq!(envelope["success"], true, "{tool} on {file}: {envelope:#}");
            let data = &envelope["data"];
            assert_eq!(
                data["tree_sitter_caveats"],
                json!(policy.caveats_of(tool)),
                "{tool} on {file}"
            );
            assert_eq!(data["unknown_args"], json!(["banana"]), "{tool} on {file}");
            assert_eq!(
                data["degraded_reason"],
                policy.degraded_reason.as_str(),
                "{tool} on {file}"
            );
            assert_eq!(
                envelope["degraded_reason"],
                policy.degraded_reason.as_str(),
                "{tool} on {file}"
            );
            assert_eq!(envelope["backend_used"], "hybrid", "{tool} on {file}");
            assert_eq!(
                envelope["confidence"].as_f64(),
                Some(policy.confidence_of(tool)),
                "{tool} on {file}"
            );
            assert_eq!(data["dry_run"], true);
            assert_eq!(data["applied"], false);
            assert!(
                !data["changes"].as_array().unwrap().is_empty(),
                "{tool} on {file} changes nothing"
            );
        }
        // Dry runs wrote nothing.
        assert_eq!(
            std::fs::read_to_string(dir.path().join(file)).unwrap(),
            if ext == "py" { PYTHON } else { RUST }
        );
    }
}

#[test]
fn the_policy_document_matches_the_code() {
    let policy = policy();
    for (tool_name, caveats) in &policy.caveats {
        let tool = candor::honesty::Tool::from_name(tool_name).unwrap();
        assert_eq!(tool.caveats(), caveats.as_slice(), "{tool_name}");
    }
    for (tool_name, confidence) in &policy.confidence {
        let tool = candor::honesty::Tool::from_name(tool_name).unwrap();
        assert_eq!(tool.heuristic_confidence(), *confidence);
    }
    assert_eq!(candor::honesty::DEGRADED_REASON, policy.degraded_reason);
}

#[test]
fn no_unknown_args_key_when_there_are_none_and_underscore_keys_are_silent() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app.py"), PYTHON).unwrap();
    let (envelope, _) = call(
        dir.path(),
        "refactor_extract_function",
        &json!({"path": "app.py", "start_line": 8, "end_line": 9, "new_name": "show", "_trace": "x", "semantic_edit_backend": "tree-sitter"}),
    );
    assert_eq!(envelope["success"], true, "{envelope:#}");
    assert!(
        envelope["data"].get("unknown_args").is_none(),
        "{envelope:#}"
    );
}

/// The fifth tool, `refactor_rename_symbol`, beside the four: the three honesty surfaces on the
/// heuristic path, the stray `banana`, its own details; then a real write and `candor undo`,
/// which puts back every renamed file byte for byte.
#[test]
fn p1_a_rename_symbol_emits_tree_sitter_caveats_and_unknown_args() {
    let policy = policy();
    let dir = tempfile::tempdir().unwrap();
    write_fixtures(dir.path());
    let caller = "from app import helper\n\nprint(helper(1, 2))\n";
    std::fs::write(dir.path().join("caller.py"), caller).unwrap();
    let tool = "refactor_rename_symbol";
    for file in ["app.py", "app.rs"] {
        let args = json!({"path": file, "symbol_name": "helper", "new_name": "add_up", "semantic_edit_backend": "tree-sitter", "banana": 1});
        let (envelope, code) = call(dir.path(), tool, &args);
        assert_eq!(code, 0, "{file}: {envelope:#}");
        assert_eq!(envelope["success"], true, "{file}: {envelope:#}");
        let data = &envelope["data"];
        assert_eq!(
            data["tree_sitter_caveats"],
            json!(policy.caveats_of(tool)),
            "{file}"
        );
        assert_eq!(data["unknown_args"], json!(["banana"]), "{file}");
        assert_eq!(data["degraded_reason"], policy.degraded_reason.as_str());
        assert_eq!(envelope["degraded_reason"], policy.degraded_reason.as_str());
        assert_eq!(envelope["backend_used"], "hybrid");
        assert_eq!(
            envelope["confidence"].as_f64(),
            Some(policy.confidence_of(tool))
        );
        assert_eq!(data["operation"], "rename_symbol");
        assert_eq!(data["old_name"], "helper");
        assert_eq!(data["new_name"], "add_up");
        assert_eq!(data["symbol_kind"], "function");
        // app.py: the definition and the call; caller.py: the import and the call.
        let renamed = if file == "app.py" { 4 } else { 2 };
        assert_eq!(data["references_renamed"], renamed, "{file}: {data:#}");
        assert_eq!(data["dry_run"], true);
        assert_eq!(data["applied"], false);
    }
    // Written for real, then undone: every file back byte for byte.
    let args = json!({"path": "app.py", "symbol_name": "helper", "new_name": "add_up", "semantic_edit_backend": "tree-sitter", "dry_run": false, "verify": false});
    let (envelope, code) = call(dir.path(), tool, &args);
    assert_eq!(code, 0, "{envelope:#}");
    assert_eq!(envelope["data"]["applied"], true, "{envelope:#}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("caller.py")).unwrap(),
        "from app import add_up\n\nprint(add_up(1, 2))\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("app.py")).unwrap(),
        PYTHON.replace("helper", "add_up")
    );
    let out = common::candor(
        dir.path(),
        &["undo", "--root", dir.path().to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read(dir.path().join("app.py")).unwrap(),
        PYTHON.as_bytes()
    );
    assert_eq!(
        std::fs::read(dir.path().join("caller.py")).unwrap(),
        caller.as_bytes()
    );
    assert_eq!(
        std::fs::read(dir.path().join("app.rs")).unwrap(),
        RUST.as_bytes()
    );
}

/// Extract variable and inline variable, beside the others: the three honesty surfaces on the
/// heuristic path, the stray `banana`, their details, a caveat note and a plan id; then a real
/// write of each and `candor undo`, which puts the file back byte for byte.
#[test]
fn p1_a_variable_tools_emit_tree_sitter_caveats_and_unknown_args() {
    let policy = policy();
    let dir = tempfile::tempdir().unwrap();
    write_fixtures(dir.path());
    // `a + b` in `helper` (line 2 of both files), and a local of `main`.
    let calls = [
        (
            "app.py",
            "refactor_extract_variable",
            json!({"start_line": 2, "start_column": 13, "end_line": 2, "end_column": 18, "new_name": "sum_ab"}),
        ),
        (
            "app.rs",
            "refactor_extract_variable",
            json!({"start_line": 2, "start_column": 5, "end_line": 2, "end_column": 10, "new_name": "sum_ab"}),
        ),
        (
            "app.py",
            "refactor_inline_variable",
            json!({"line": 3, "column": 12}),
        ),
        (
            "app.rs",
            "refactor_inline_variable",
            json!({"line": 6, "column": 9}),
        ),
    ];
    for (file, tool, mut args) in calls.clone() {
        args["path"] = json!(file);
        args["semantic_edit_backend"] = json!("tree-sitter");
        args["banana"] = json!(1);
        let (envelope, code) = call(dir.path(), tool, &args);
        assert_eq!(code, 0, "{tool} {file}: {envelope:#}");
        assert_eq!(envelope["success"], true, "{tool} {file}: {envelope:#}");
        let data = &envelope["data"];
        assert_eq!(data["tree_sitter_caveats"], json!(policy.caveats_of(tool)));
        assert_eq!(data["unknown_args"], json!(["banana"]));
        assert_eq!(data["degraded_reason"], policy.degraded_reason.as_str());
        assert_eq!(envelope["degraded_reason"], policy.degraded_reason.as_str());
        assert_eq!(envelope["backend_used"], "hybrid");
        assert_eq!(
            envelope["confidence"].as_f64(),
            Some(policy.confidence_of(tool))
        );
        assert!(
            data["plan_id"].as_str().is_some_and(|id| id.len() == 64),
            "{data:#}"
        );
        assert!(
            !data["caveat_notes"].as_array().unwrap().is_empty(),
            "{data:#}"
        );
        if tool == "refactor_extract_variable" {
            assert_eq!(data["operation"], "extract_variable");
            assert_eq!(data["variable_name"], "sum_ab");
            assert_eq!(data["expression"], "a + b");
        } else {
            assert_eq!(data["operation"], "inline_variable");
            assert_eq!(
                data["reads_replaced"],
                if file == "app.py" { 1 } else { 2 },
                "{data:#}"
            );
        }
    }
    // Each written for real, then undone: the file back byte for byte.
    for (file, tool, mut args) in calls {
        args["path"] = json!(file);
        args["semantic_edit_backend"] = json!("tree-sitter");
        args["dry_run"] = json!(false);
        args["verify"] = json!(false);
        let before = std::fs::read(dir.path().join(file)).unwrap();
        let (envelope, code) = call(dir.path(), tool, &args);
        assert_eq!(code, 0, "{envelope:#}");
        assert_eq!(envelope["data"]["applied"], true, "{envelope:#}");
        assert_ne!(std::fs::read(dir.path().join(file)).unwrap(), before);
        let out = common::candor(
            dir.path(),
            &["undo", "--root", dir.path().to_str().unwrap()],
        );
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(
            std::fs::read(dir.path().join(file)).unwrap(),
            before,
            "{tool} {file}"
        );
    }
}
