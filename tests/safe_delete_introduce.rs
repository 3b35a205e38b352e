//! `refactor_safe_delete` and `refactor_introduce_parameter` through the real `candor call`
//! binary, on small Python and Rust projects: the three honesty surfaces exactly as the policy
//! document says (caveats, degraded reason, confidence), `unknown_args`, `caveat_notes`,
//! `plan_id`; a refused delete names every reference in its message and in `error.data`; a
//! real write is undone byte for byte.

mod common;

use serde_json::{Value, json};

use common::call;
use common::policy::policy;

const LIB_PY: &str = "\
RATE = 3


def unused(x):
    return x


def price(amount):
    return amount * RATE
";

const CALLER_PY: &str = "\
from lib import price

print(price(2))
";

const LIB_RS: &str = "\
pub fn unused() -> u32 {
    1
}

pub fn wait(n: i32) -> i32 {
    n * 60
}

pub fn run() -> i32 {
    wait(2)
}
";

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("lib.py"), LIB_PY).unwrap();
    std::fs::write(dir.path().join("caller.py"), CALLER_PY).unwrap();
    std::fs::write(dir.path().join("lib.rs"), LIB_RS).unwrap();
    dir
}

fn honest(envelope: &Value, tool: &str, what: &str) {
    let policy = policy();
    assert_eq!(envelope["success"], true, "{what}: {envelope:#}");
    let data = &envelope["data"];
    assert_eq!(
        data["tree_sitter_caveats"],
        json!(policy.caveats_of(tool)),
        "{what}"
    );
    assert_eq!(data["degraded_reason"], policy.degraded_reason.as_str());
    assert_eq!(envelope["degraded_reason"], policy.degraded_reason.as_str());
    assert_eq!(envelope["backend_used"], "hybrid");
    assert_eq!(
        envelope["confidence"].as_f64(),
        Some(policy.confidence_of(tool))
    );
    assert_eq!(data["unknown_args"], json!(["banana"]), "{what}");
    assert!(data["plan_id"].as_str().is_some_and(|p| p.len() == 64));
    let notes = data["caveat_notes"].as_array().expect("caveat notes");
    for note in notes {
        assert!(
            policy
                .caveats_of(tool)
                .contains(&note["caveat"].as_str().unwrap().to_string()),
            "{note}"
        );
    }
    assert!(!notes.is_empty(), "{what}");
}

#[test]
fn safe_delete_carries_the_honesty_surfaces_in_both_languages() {
    let dir = project();
    let tool = "refactor_safe_delete";
    for file in ["lib.py", "lib.rs"] {
        let args = json!({"file_path": file, "symbol_name": "unused", "semantic_edit_backend": "tree-sitter", "banana": 1});
        let (envelope, code) = call(dir.path(), tool, &args);
        assert_eq!(code, 0, "{envelope:#}");
        honest(&envelope, tool, file);
        let data = &envelope["data"];
        assert_eq!(data["operation"], "safe_delete");
        assert_eq!(data["symbol_name"], "unused");
        assert_eq!(data["symbol_kind"], "function");
    }
}

#[test]
fn a_refused_safe_delete_lists_every_reference_in_the_error_data() {
    let dir = project();
    let args = json!({"file_path": "lib.py", "symbol_name": "price", "semantic_edit_backend": "tree-sitter"});
    let (envelope, code) = call(dir.path(), "refactor_safe_delete", &args);
    assert_ne!(code, 0);
    assert_eq!(envelope["success"], false);
    let error = &envelope["error"];
    assert_eq!(error["code"], "unsupported_operation");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("caller.py:3 (call)"),
        "{error:#}"
    );
    assert_eq!(error["data"]["references"], json!(["caller.py:3"]));
}

#[test]
fn introduce_parameter_carries_the_honesty_surfaces_and_undo_restores_every_byte() {
    let dir = project();
    let tool = "refactor_introduce_parameter";
    // `RATE` in `amount * RATE` (line 9, columns 21-25) and `60` in `n * 60` (line 6).
    let cases = [
        (
            "lib.py",
            json!({"start_line": 9, "start_column": 21, "end_line": 9, "end_column": 25}),
        ),
        (
            "lib.rs",
            json!({"start_line": 6, "start_column": 9, "end_line": 6, "end_column": 11}),
        ),
    ];
    for (file, range) in &cases {
        let mut args = range.clone();
        args["file_path"] = json!(file);
        args["new_name"] = json!("factor");
        args["semantic_edit_backend"] = json!("tree-sitter");
        args["banana"] = json!(1);
        let (envelope, code) = call(dir.path(), tool, &args);
        assert_eq!(code, 0, "{envelope:#}");
        honest(&envelope, tool, file);
        let data = &envelope["data"];
        assert_eq!(data["operation"], "introduce_parameter");
        assert_eq!(data["call_sites_updated"], 1, "{file}: {data:#}");
    }
    // Written for real, then undone.
    let mut args = cases[0].1.clone();
    args["file_path"] = json!("lib.py");
    args["new_name"] = json!("factor");
    args["semantic_edit_backend"] = json!("tree-sitter");
    args["dry_run"] = json!(false);
    args["verify"] = json!(false);
    let (envelope, code) = call(dir.path(), tool, &args);
    assert_eq!(code, 0, "{envelope:#}");
    assert_eq!(
        std::fs::read_to_string(dir.path().join("caller.py")).unwrap(),
        "from lib import price\n\nprint(price(2, RATE))\n"
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
        std::fs::read(dir.path().join("lib.py")).unwrap(),
        LIB_PY.as_bytes()
    );
    assert_eq!(
        std::fs::read(dir.path().join("caller.py")).unwrap(),
        CALLER_PY.as_bytes()
    );
}
