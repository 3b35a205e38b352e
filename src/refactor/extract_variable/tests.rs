use super::*;
use crate::refactor::MemorySources;

/// Extracts the first occurrence of `what` in `text` (a file `f.py` or `f.rs`).
fn extract(
    path: &str,
    text: &str,
    what: &str,
    name: &str,
    all: bool,
) -> Result<Plan, RefactorError> {
    let lines = LineIndex::new(text);
    let start = text.find(what).expect("in the text");
    let (start_line, start_column) = lines.line_column(text, start);
    let (end_line, end_column) = lines.line_column(text, start + what.len());
    let request = ExtractVariableRequest {
        file: path.into(),
        start_line,
        start_column,
        end_line,
        end_column,
        new_name: name.into(),
        replace_all: all,
    };
    let sources = MemorySources::new().with(path, text);
    plan(&sources, &request, Language::from_path(path).unwrap())
}

fn after(plan: &Plan) -> &str {
    &plan.changes[0].after
}

#[test]
fn python_binds_before_the_statement_at_its_indentation() {
    let text = "def area(w, h):\n    if w:\n        return w * h + 1\n";
    let plan = extract("f.py", text, "w * h", "size", false).unwrap();
    assert_eq!(
        after(&plan),
        "def area(w, h):\n    if w:\n        size = w * h\n        return size + 1\n"
    );
}

#[test]
fn replace_all_stops_at_a_write_and_says_so() {
    let text = "def f(a, b):\n    x = a * b\n    y = a * b\n    a = 2\n    return a * b\n";
    let plan = extract("f.py", text, "a * b", "p", true).unwrap();
    assert_eq!(
        after(&plan),
        "def f(a, b):\n    p = a * b\n    x = p\n    y = p\n    a = 2\n    return a * b\n"
    );
    assert_eq!(plan.findings.len(), 1, "{:?}", plan.findings);
    assert_eq!(plan.findings[0].line, 5);
    assert!(plan.findings[0].message.contains("line 4 may change `a`"));
    assert_eq!(plan.findings[0].kind, Some(w::LEFT_AFTER_WRITE));
}

#[test]
fn short_circuit_and_comprehension_are_refused() {
    let text = "def f(a, xs):\n    return a and g(a)\n";
    let e = extract("f.py", text, "g(a)", "v", false).unwrap_err();
    assert!(e.to_string().contains("right side of `and`"), "{e}");
    let text = "def f(xs):\n    return [x * 2 for x in xs]\n";
    let e = extract("f.py", text, "x * 2", "v", false).unwrap_err();
    assert!(e.to_string().contains("comprehension"), "{e}");
}

#[test]
fn rust_let_and_a_temporary_borrow_is_an_error_finding() {
    let text = "fn f(s: &str) -> usize {\n    let n = s.to_string().as_str().len();\n    n\n}\n";
    let plan = extract("f.rs", text, "s.to_string().as_str()", "t", false).unwrap();
    assert_eq!(
        after(&plan),
        "fn f(s: &str) -> usize {\n    let t = s.to_string().as_str();\n    let n = t.len();\n    n\n}\n"
    );
    assert!(
        plan.findings
            .iter()
            .any(|f| f.severity == crate::refactor::Severity::Error && f.message.contains("E0716"))
    );
}

#[test]
fn a_name_in_use_and_a_partial_selection_are_refused() {
    let text = "fn f(a: i32, b: i32) -> i32 {\n    a * b + 1\n}\n";
    let e = extract("f.rs", text, "a * b", "b", false).unwrap_err();
    assert!(e.to_string().contains("`b` is already a name"), "{e}");
    let e = extract("f.rs", text, "* b + 1", "c", false).unwrap_err();
    assert!(e.to_string().contains("part of an expression"), "{e}");
}

#[test]
fn rust_receiver_of_an_unknown_method_may_need_mut() {
    let text = "pub fn f() -> usize {\n    String::new().push_str(\"b\");\n    0\n}\n";
    let plan = extract("f.rs", text, "String::new()", "t", false).unwrap();
    assert!(
        plan.findings
            .iter()
            .any(|f| f.message.contains("write `let mut t`")),
        "{:?}",
        plan.findings
    );
    let text = "pub fn f(a: &str) -> usize {\n    a.trim().len()\n}\n";
    let plan = extract("f.rs", text, "a.trim()", "t", false).unwrap();
    assert!(
        plan.findings.is_empty(),
        "`len` takes &self: {:?}",
        plan.findings
    );
}

#[test]
fn python_a_value_over_lines_inside_brackets_gets_brackets_of_its_own() {
    // rope's `test_extracting_variable_and_implicit_continuations`: `s2 = "1"\n  "2"` was an
    // unexpected indent.
    let text = "s = (\"1\"\n  \"2\")\n";
    let plan = extract("f.py", text, "\"1\"\n  \"2\"", "s2", false).unwrap();
    assert_eq!(after(&plan), "s2 = (\"1\"\n  \"2\")\ns = (s2)\n");
    let text = "t = (a +\n     b)\nu = f(x,\n      y)\n";
    let plan = extract("f.py", text, "f(x,\n      y)", "v", false).unwrap();
    assert_eq!(
        after(&plan),
        "t = (a +\n     b)\nv = f(x,\n      y)\nu = v\n"
    );
}
