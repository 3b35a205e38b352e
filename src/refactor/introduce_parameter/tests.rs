use super::*;
use crate::refactor::MemorySources;

fn project(files: &[(&str, &str)]) -> MemorySources {
    let mut sources = MemorySources::new();
    for (path, text) in files {
        sources = sources.with(path, text);
    }
    sources
}

/// Introduces `new_name` for the first occurrence of `needle` on `line` of `file`.
fn introduce(
    sources: &MemorySources,
    file: &str,
    line: usize,
    needle: &str,
    new_name: &str,
) -> Result<Plan, RefactorError> {
    let text = sources.file(file).unwrap().unwrap().text;
    let line_text = text.lines().nth(line - 1).unwrap();
    let column = line_text[..line_text.find(needle).unwrap()].chars().count() + 1;
    let lang = Language::from_path(file).unwrap();
    plan(
        sources,
        &IntroduceParameterRequest {
            file: file.to_string(),
            start_line: line,
            start_column: column,
            end_line: line,
            end_column: column + needle.chars().count(),
            new_name: new_name.to_string(),
        },
        lang,
    )
}

fn after(plan: &Plan, path: &str) -> String {
    plan.changes
        .iter()
        .find(|c| c.path == path)
        .unwrap_or_else(|| panic!("no change of {path}"))
        .after
        .clone()
}

#[test]
fn python_expression_becomes_a_parameter_and_callers_pass_it_with_their_arguments() {
    let sources = project(&[
        (
            "shop.py",
            "RATE = 3\n\n\ndef price(amount, *extra, sep=\",\"):\n    return amount * RATE + amount * RATE\n",
        ),
        (
            "use.py",
            "from shop import price\n\nprint(price(2 + 1))\nprint(price(amount=4))\n",
        ),
    ]);
    let plan = introduce(&sources, "shop.py", 5, "amount * RATE", "taxed").unwrap();
    assert_eq!(
        after(&plan, "shop.py"),
        "RATE = 3\n\n\ndef price(amount, taxed, *extra, sep=\",\"):\n    return taxed + taxed\n"
    );
    assert_eq!(
        after(&plan, "use.py"),
        "from shop import price\n\nprint(price(2 + 1, (2 + 1) * RATE))\nprint(price(amount=4, taxed=4 * RATE))\n"
    );
    // `RATE` is not in scope in use.py: said so at each call.
    assert!(
        plan.findings
            .iter()
            .any(|f| f.file == "use.py" && f.line == 3 && f.message.contains("`RATE`")),
        "{:?}",
        plan.findings
    );
}

#[test]
fn after_defaults_the_parameter_gets_the_expression_as_default_and_calls_pass_it_by_name() {
    let sources = project(&[(
        "ship.py",
        "def cost(grams, express=False):\n    return 450 + grams\n\n\nassert cost(1) == 451\nassert cost(1, True) == 451\n",
    )]);
    let plan = introduce(&sources, "ship.py", 2, "450", "base").unwrap();
    assert_eq!(
        after(&plan, "ship.py"),
        "def cost(grams, express=False, base=450):\n    return base + grams\n\n\nassert cost(1, base=450) == 451\nassert cost(1, True, 450) == 451\n"
    );
}

#[test]
fn reading_a_local_is_refused_naming_it() {
    let sources = project(&[("a.py", "def f(x):\n    scale = 2\n    return x * scale\n")]);
    let err = introduce(&sources, "a.py", 3, "x * scale", "factor").unwrap_err();
    assert!(err.to_string().contains("the local `scale`"), "{err}");
}

#[test]
fn a_method_reading_self_passes_the_receiver_at_the_call() {
    let sources = project(&[(
        "m.py",
        "class Box:\n    def __init__(self):\n        self.size = 2\n\n    def area(self):\n        return self.size * self.size\n\n\ndef run(b):\n    box = Box()\n    return box.area()\n",
    )]);
    let plan = introduce(&sources, "m.py", 6, "self.size", "side").unwrap();
    assert_eq!(
        after(&plan, "m.py"),
        "class Box:\n    def __init__(self):\n        self.size = 2\n\n    def area(self, side):\n        return side * side\n\n\ndef run(b):\n    box = Box()\n    return box.area(box.size)\n"
    );
}

#[test]
fn rust_literal_gives_the_type_and_an_unknown_type_is_refused() {
    let sources = project(&[(
        "src/lib.rs",
        "pub fn wait(n: i32) -> i32 {\n    n * 60\n}\n\npub fn run() -> i32 {\n    wait(2) + wait(3)\n}\n\npub fn name(s: &str) -> usize {\n    s.len() + s.len()\n}\n",
    )]);
    let plan = introduce(&sources, "src/lib.rs", 2, "60", "unit").unwrap();
    assert_eq!(
        after(&plan, "src/lib.rs"),
        "pub fn wait(n: i32, unit: i32) -> i32 {\n    n * unit\n}\n\npub fn run() -> i32 {\n    wait(2, 60) + wait(3, 60)\n}\n\npub fn name(s: &str) -> usize {\n    s.len() + s.len()\n}\n"
    );
    let err = introduce(&sources, "src/lib.rs", 10, "s.len()", "size").unwrap_err();
    assert!(
        err.to_string().contains("type of `s.len()` is unknown"),
        "{err}"
    );
}

#[test]
fn a_selection_that_is_not_an_expression_is_refused() {
    let sources = project(&[("a.py", "def f(x):\n    return x + 1\n")]);
    let err = introduce(&sources, "a.py", 2, "return x", "y").unwrap_err();
    assert!(
        matches!(err, RefactorError::InvalidRange { line: 2, .. }),
        "{err:?}"
    );
}

#[test]
fn a_test_function_is_refused_and_an_uncalled_function_is_warned_about() {
    let sources = project(&[(
        "test_a.py",
        "import unittest\n\n\nclass T(unittest.TestCase):\n    def test_one(self):\n        self.assertEqual(1 + 1, 2)\n\n\ndef hook(x):\n    return x * 3\n",
    )]);
    let err = introduce(&sources, "test_a.py", 6, "1 + 1", "two").unwrap_err();
    assert!(err.to_string().contains("is a test"), "{err}");
    let plan = introduce(&sources, "test_a.py", 10, "3", "factor").unwrap();
    assert!(
        plan.findings
            .iter()
            .any(|f| f.line == 9 && f.message.starts_with("no call of `hook`")),
        "{:?}",
        plan.findings
    );
}

#[test]
fn an_unsuffixed_number_typed_only_by_default_is_warned_about() {
    // `0` is used as a `usize` (an index): `i32` is only the default of an unsuffixed number.
    let sources = project(&[(
        "src/lib.rs",
        "pub fn first(v: &[u8]) -> u8 {\n    let i = 0;\n    v[i]\n}\n\npub fn run() -> u8 {\n    first(&[1])\n}\n",
    )]);
    let plan = introduce(&sources, "src/lib.rs", 2, "0", "start").unwrap();
    let warned = |plan: &Plan| {
        plan.findings.iter().any(|f| {
            f.severity == crate::refactor::Severity::Warning
                && f.message.contains("only its default")
        })
    };
    assert!(warned(&plan), "{:?}", plan.findings);
    // A number combined with a typed parameter takes that type: nothing to warn about.
    let sources = project(&[(
        "src/lib.rs",
        "pub fn wait(n: u64) -> u64 {\n    n * 60\n}\n\npub fn run() -> u64 {\n    wait(2)\n}\n",
    )]);
    let plan = introduce(&sources, "src/lib.rs", 2, "60", "unit").unwrap();
    assert!(!warned(&plan), "{:?}", plan.findings);
}
