//! Shared by the honesty and MCP tests: the honesty policy read from
//! the shipped document (never retyped), the small Python and Rust fixtures, and `candor call`
//! for comparisons.

use std::path::Path;

use serde_json::{Value, json};

/// The policy as shipped in `docs/`: per tool its caveats and heuristic confidence, and the
/// degraded reason, parsed from the document's text.
pub struct Policy {
    pub caveats: Vec<(String, Vec<String>)>,
    pub degraded_reason: String,
    pub confidence: Vec<(String, f64)>,
}

impl Policy {
    pub fn caveats_of(&self, tool: &str) -> &[String] {
        &self.caveats.iter().find(|(t, _)| t == tool).expect(tool).1
    }

    pub fn confidence_of(&self, tool: &str) -> f64 {
        self.confidence
            .iter()
            .find(|(t, _)| t == tool)
            .expect(tool)
            .1
    }
}

pub fn policy() -> Policy {
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
    let start = lines
        .iter()
        .position(|l| *l == "Per-tool caveat catalogue")
        .unwrap();
    let mut caveats: Vec<(String, Vec<String>)> = Vec::new();
    for line in &lines[start + 1..] {
        if line.starts_with("Adding a new refactor tool") {
            break;
        }
        if line.starts_with("refactor_") {
            caveats.push((line.to_string(), Vec::new()));
        } else if let Some(item) = line.strip_prefix("• ") {
            caveats.last_mut().unwrap().1.push(item.to_string());
        }
    }
    let tools = candor::honesty::Tool::ALL.len();
    assert_eq!(caveats.len(), tools, "every tool in the catalogue");
    assert_eq!(
        confidence.len(),
        tools,
        "a row per tool in the confidence table"
    );
    Policy {
        caveats,
        degraded_reason,
        confidence,
    }
}

pub const PYTHON: &str = "\
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

pub const RUST: &str = "\
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

/// The four tools on `file` (lines 8-9 are two whole statements in both fixtures), with the
/// heuristic forced and a stray `banana`.
pub fn four_calls(file: &str) -> Vec<(&'static str, Value)> {
    let ext = if file.ends_with(".rs") { "rs" } else { "py" };
    let new_parameters = if ext == "rs" {
        json!([{"name": "a"}, {"name": "b"}, {"name": "c", "type": "i32"}])
    } else {
        json!([{"name": "a"}, {"name": "b"}, {"name": "c", "default": "0"}])
    };
    let common = |mut v: Value| {
        v["semantic_edit_backend"] = json!("tree-sitter");
        v["banana"] = json!(1);
        v
    };
    vec![
        (
            "refactor_extract_function",
            common(json!({"file_path": file, "start_line": 8, "end_line": 9, "new_name": "show"})),
        ),
        (
            "refactor_inline_function",
            common(json!({"file_path": file, "function_name": "helper"})),
        ),
        (
            "refactor_move_to_file",
            common(
                json!({"file_path": file, "symbol_name": "helper", "target_file": format!("helpers.{ext}")}),
            ),
        ),
        (
            "refactor_change_signature",
            common(
                json!({"file_path": file, "function_name": "helper", "new_parameters": new_parameters}),
            ),
        ),
    ]
}

/// Writes the two fixtures into `root`.
pub fn write_fixtures(root: &Path) {
    std::fs::write(root.join("app.py"), PYTHON).unwrap();
    std::fs::write(root.join("app.rs"), RUST).unwrap();
}

/// `candor call TOOL ARGS --root ROOT`: the envelope it prints.
pub fn candor_call(root: &Path, tool: &str, args: &Value) -> Value {
    super::call(root, tool, args).0
}
