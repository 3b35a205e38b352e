//! Rust extract function over a call of an `impl FnOnce` parameter: moved into the new function
//! when nothing after the selection needs it, and its call typed by the closure's return type.

use super::test_run::{after, run};

#[test]
fn a_once_closure_called_by_the_selection_only_is_moved_and_its_value_typed() {
    let text = "fn finish(label: &str, then: impl FnOnce(usize) -> String) -> String {\n    let n = label.len();\n    let out = then(n);\n    out.to_uppercase()\n}\n";
    let plan = run(text, 3, 3);
    assert!(
        after(&plan).contains("let out = part(then, n);")
            && after(&plan)
                .contains("fn part(then: impl FnOnce(usize) -> String, n: usize) -> String {"),
        "{}",
        after(&plan)
    );
}

#[test]
fn a_once_closure_used_after_the_selection_is_not_moved() {
    let text = "fn finish(n: usize, then: impl FnOnce(usize) -> String) -> String {\n    let m = n + 1;\n    if m > 3 {\n        return then(m);\n    }\n    then(n)\n}\n";
    let plan = run(text, 2, 2);
    assert!(!after(&plan).contains("part(then"), "{}", after(&plan));
}

#[test]
fn a_once_closure_that_stays_borrowed_is_an_error_finding() {
    // The selection calls `then` on its `return` path and the code after it calls `then` too:
    // `&impl FnOnce` cannot be called (E0507), so the result says so.
    let text = "fn finish(n: usize, then: impl FnOnce(usize) -> String) -> String {\n    let m = n + 1;\n    if m > 3 {\n        return then(m);\n    }\n    then(n)\n}\n";
    let plan = run(text, 3, 5);
    assert!(after(&plan).contains("&then"), "{}", after(&plan));
    let error = plan
        .findings
        .iter()
        .find(|f| f.severity == crate::refactor::Severity::Error && f.message.contains("`then`"));
    assert!(
        error.is_some_and(|f| f.message.contains("E0507") && f.line == 1),
        "{:#?}",
        plan.findings
    );
}
