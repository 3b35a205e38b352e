use super::*;
use crate::refactor::MemorySources;

/// Inlines the local at the first occurrence of `at` in `text`.
fn inline(path: &str, text: &str, at: &str) -> Result<Plan, RefactorError> {
    let lines = LineIndex::new(text);
    let (line, column) = lines.line_column(text, text.find(at).expect("in the text"));
    let sources = MemorySources::new().with(path, text);
    let request = InlineVariableRequest {
        file: path.into(),
        line,
        column,
    };
    plan(&sources, &request, Language::from_path(path).unwrap())
}

#[test]
fn python_reads_get_the_value_with_parentheses_where_needed() {
    let text = "def f(a, b):\n    s = a + b\n    return s * s, s\n";
    let plan = inline("f.py", text, "s =").unwrap();
    assert_eq!(
        plan.changes[0].after,
        "def f(a, b):\n    return (a + b) * (a + b), a + b\n"
    );
}

#[test]
fn rust_shorthand_field_and_tail() {
    let text = "struct P { x: i32 }\nfn f(a: i32) -> P {\n    let x = a - 1;\n    P { x }\n}\n";
    let plan = inline("f.rs", text, "x = a").unwrap();
    assert_eq!(
        plan.changes[0].after,
        "struct P { x: i32 }\nfn f(a: i32) -> P {\n    P { x: a - 1 }\n}\n"
    );
}

#[test]
fn refusals_name_why() {
    let cases = [
        (
            "def f(a):\n    x = a\n    x += 1\n    return x\n",
            "x = a",
            "reassigned at line 3",
        ),
        (
            "def f(a):\n    x = a\n    return 1\n",
            "x = a",
            "unused: delete it",
        ),
        ("def f(a):\n    return a\n", "a\n", "is a parameter"),
        (
            "def f(p):\n    x, y = p\n    return x\n",
            "x, y",
            "bound by a pattern",
        ),
        (
            "def f():\n    x = g()\n    return x + x\n",
            "x = g",
            "read 2 times",
        ),
        (
            "def f(a):\n    x = a + 1\n    a = 5\n    return x\n",
            "x = a",
            "`a`, which the initializer of `x` reads",
        ),
        ("y = 1\nprint(y)\n", "y = 1", "not a local"),
    ];
    for (text, at, expected) in cases {
        let e = inline("f.py", text, at).unwrap_err();
        assert!(e.to_string().contains(expected), "{text}: {e}");
    }
    let text = "fn f() -> Vec<i32> {\n    let mut v = Vec::new();\n    v.push(1);\n    v\n}\n";
    let e = inline("f.rs", text, "v = Vec").unwrap_err();
    assert!(e.to_string().contains("mutated at line 3"), "{e}");
}

#[test]
fn effects_move_to_one_read_right_after() {
    let text = "def f():\n    x = g()\n    h(x)\n";
    let plan = inline("f.py", text, "x = g").unwrap();
    assert_eq!(plan.changes[0].after, "def f():\n    h(g())\n");
    let text = "def f():\n    x = g()\n    k()\n    h(x)\n";
    let e = inline("f.py", text, "x = g").unwrap_err();
    assert!(e.to_string().contains("line 3, between"), "{e}");
}

#[test]
fn a_read_in_a_macro_of_the_project_is_a_warning_unless_the_value_is_a_name() {
    // rust-analyzer's `local_usage_in_macro`: `m!(0)` does not match `($i:ident)` (a build error
    // with no code, and no finding before).
    let text = "macro_rules! m {\n    ($i:ident) => { $i }\n}\nfn f() -> i32 {\n    let xyz = 0;\n    println!(\"{}\", xyz);\n    m!(xyz)\n}\n";
    let plan = inline("f.rs", text, "xyz = 0").unwrap();
    let warnings: Vec<(usize, &str)> = plan
        .findings
        .iter()
        .map(|f| (f.line, f.message.as_str()))
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0].0, 7);
    assert!(warnings[0].1.contains("argument of `m!`"), "{warnings:?}");
    let text = "macro_rules! m {\n    ($i:ident) => { $i }\n}\nfn f(other: i32) -> i32 {\n    let xyz = other;\n    m!(xyz)\n}\n";
    let plan = inline("f.rs", text, "xyz = other").unwrap();
    assert!(plan.findings.is_empty(), "{:?}", plan.findings);
}

#[test]
fn python_a_binding_before_a_semicolon_goes_with_its_semicolon() {
    // jedi's `semicolon` case: `; b = 3` was left, a syntax error.
    let text = "def f():\n    a = 1, 2\t; b = 3\n    return (3, 3 == a, b)\n";
    let plan = inline("f.py", text, "a = 1").unwrap();
    assert_eq!(
        plan.changes[0].after,
        "def f():\n    b = 3\n    return (3, 3 == (1, 2), b)\n"
    );
}
