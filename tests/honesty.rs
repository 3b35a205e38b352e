//! The port of the seed's `p1_a_refactor_tools_emit_tree_sitter_caveats_and_unknown_args`: each
//! of the four tools, on a small Python file and a small Rust file, through the real `candor call`
//! binary, carries the three honesty surfaces exactly as the policy says, and reports a stray
//! `banana` argument. The expected strings are read from the policy document itself.

use std::path::Path;
use std::process::Command;

use serde_json::{Value, json};

/// The policy as shipped in `docs/`: (tool name → caveats), the degraded reason, and the
/// post-honesty confidences, parsed from its text.
struct Policy {
    caveats: Vec<(String, Vec<String>)>,
    degraded_reason: String,
    confidence: Vec<(String, f64)>,
}

fn policy() -> Policy {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/refactor-backend-honesty.txt"),
    )
    .unwrap();
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let degraded_reason = lines
        .iter()
        .find(|l| l.starts_with("\"tree-sitter heuristic"))
        .map(|l| l.trim_matches('"').to_string())
        .expect("the policy states the degraded reason");
    let mut confidence = Vec::new();
    for line in &lines {
        let parts: Vec<&str> = line.split_whitespace().collect();
        if parts.len() == 3 && parts[0].starts_with("refactor_") {
            confidence.push((parts[0].to_string(), parts[2].parse().unwrap()));
        }
    }
    let catalogue_start = lines
        .iter()
        .position(|l| *l == "Per-tool caveat catalogue")
        .unwrap();
    let mut caveats: Vec<(String, Vec<String>)> = Vec::new();
    for line in &lines[catalogue_start + 1..] {
        if line.starts_with("Adding a new refactor tool") {
            break;
        }
        if line.starts_with("refactor_") {
            caveats.push((line.to_string(), Vec::new()));
        } else if let Some(item) = line.strip_prefix("• ") {
            caveats.last_mut().unwrap().1.push(item.to_string());
        }
    }
    assert_eq!(caveats.len(), 4, "four tools in the catalogue");
    assert_eq!(confidence.len(), 4, "four rows in the confidence table");
    Policy {
        caveats,
        degraded_reason,
        confidence,
    }
}

const PYTHON: &str = "\
def helper(a, b):
    total = a + b
    return total


def main():
    x = 1
    y = 2
    print(x)
    print(y)
    return helper(x, y)
";

const RUST: &str = "\
fn helper(a: i32, b: i32) -> i32 {
    a + b
}

fn main() {
    let x = 1;
    let y = 2;
    println!(\"{}\", x);
    println!(\"{}\", y);
    let _ = helper(x, y);
}
";

fn call(root: &Path, tool: &str, args: Value) -> (Value, i32) {
    let output = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["call", tool, &args.to_string(), "--root"])
        .arg(root)
        .env("CANDOR_BACKEND", "tree-sitter")
        .env("XDG_CONFIG_HOME", root.join(".no-user-config"))
        .output()
        .unwrap();
    let envelope: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{tool}: stdout is not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stdout)
        )
    });
    (envelope, output.status.code().unwrap())
}

/// `helper(a, b)` gains a third parameter `c` (Rust parameters need a type).
fn new_parameters(ext: &str) -> Value {
    if ext == "rs" {
        json!([{"name": "a"}, {"name": "b"}, {"name": "c", "type": "i32"}])
    } else {
        json!([{"name": "a"}, {"name": "b"}, {"name": "c", "default": "0"}])
    }
}

#[test]
fn p1_a_refactor_tools_emit_tree_sitter_caveats_and_unknown_args() {
    let policy = policy();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("app.py"), PYTHON).unwrap();
    std::fs::write(dir.path().join("app.rs"), RUST).unwrap();
    for file in ["app.py", "app.rs"] {
        let ext = if file.ends_with(".py") { "py" } else { "rs" };
        let calls = [
            (
                "refactor_extract_function",
                json!({"file_path": file, "start_line": 8, "end_line": 9, "new_name": "show", "banana": 1}),
            ),
            (
                "refactor_inline_function",
                json!({"file_path": file, "function_name": "helper", "banana": 1}),
            ),
            (
                "refactor_move_to_file",
                json!({"file_path": file, "symbol_name": "helper", "target_file": format!("helpers.{ext}"), "banana": 1}),
            ),
            (
                "refactor_change_signature",
                json!({"file_path": file, "function_name": "helper", "new_parameters": new_parameters(ext), "banana": 1}),
            ),
        ];
        for (tool, args) in calls {
            let (envelope, code) = call(dir.path(), tool, args);
            assert_eq!(code, 0, "{tool} on {file}: {envelope:#}");
            assert_eq!(envelope["success"], true, "{tool} on {file}: {envelope:#}");
            let data = &envelope["data"];
            let expected_caveats = &policy.caveats.iter().find(|(t, _)| t == tool).unwrap().1;
            assert_eq!(
                data["tree_sitter_caveats"],
                json!(expected_caveats),
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
            let confidence = policy.confidence.iter().find(|(t, _)| t == tool).unwrap().1;
            assert_eq!(
                envelope["confidence"].as_f64(),
                Some(confidence),
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
        json!({"path": "app.py", "start_line": 8, "end_line": 9, "new_name": "show", "_trace": "x"}),
    );
    assert_eq!(envelope["success"], true, "{envelope:#}");
    assert!(
        envelope["data"].get("unknown_args").is_none(),
        "{envelope:#}"
    );
}
