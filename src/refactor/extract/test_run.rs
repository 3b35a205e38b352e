//! The extract tests' way to run one request on files in memory and read its result.

use crate::refactor::{ExtractRequest, MemorySources, Plan, Request};

/// Extracts lines `start..=end` of `path` into `part`.
pub(super) fn run_in(sources: &MemorySources, path: &str, start: usize, end: usize) -> Plan {
    let request = ExtractRequest {
        file: path.to_string(),
        start_line: start,
        end_line: end,
        new_name: "part".to_string(),
    };
    crate::refactor::plan(sources, &Request::Extract(request)).expect("a plan")
}

/// Extracts lines `start..=end` of a lone `a.rs` holding `text` into `part`.
pub(super) fn run(text: &str, start: usize, end: usize) -> Plan {
    run_in(&MemorySources::new().with("a.rs", text), "a.rs", start, end)
}

/// The first changed file's text after the plan.
pub(super) fn after(plan: &Plan) -> &str {
    &plan.changes[0].after
}
