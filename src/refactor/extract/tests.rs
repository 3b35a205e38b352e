//! End-to-end tests of extract function on small files: the text it writes and its findings.

use super::*;
use crate::refactor::{MemorySources, Severity};

fn run(
    path: &str,
    text: &str,
    start: usize,
    end: usize,
    name: &str,
) -> Result<Plan, RefactorError> {
    let sources = MemorySources::new().with(path, text);
    plan(
        &sources,
        &ExtractRequest {
            file: path.to_string(),
            start_line: start,
            end_line: end,
            new_name: name.to_string(),
        },
    )
}

fn after(plan: &Plan) -> &str {
    &plan.changes[0].after
}

#[test]
fn smoke() {
    let text = "def main():\n    x = 1\n    y = 2\n    print(x)\n    print(y)\n    return y\n";
    let plan = run("a.py", text, 3, 4, "show").unwrap();
    println!("{}", after(&plan));
    println!("{:#?}", plan.findings);
    let _ = Severity::Info;
}
