//! Whole-plan tests on in-memory projects: the definition, the calls, and the findings.

use super::*;
use crate::lang::symbols::SymbolQuery;
use crate::refactor::{MemorySources, NewParameter, Severity};

/// The refactor alone, in the language of the request's file (the result is not checked).
fn plan(
    sources: &dyn crate::refactor::Sources,
    request: &ChangeSignatureRequest,
) -> Result<Plan, RefactorError> {
    let lang = crate::lang::Language::from_path(&request.file)
        .ok_or_else(|| RefactorError::UnsupportedLanguage(request.file.clone()))?;
    super::plan(sources, request, lang)
}

pub(super) fn params(items: &[(&str, Option<&str>, Option<&str>)]) -> Vec<NewParameter> {
    items
        .iter()
        .map(|(name, ty, default)| NewParameter {
            name: name.to_string(),
            ty: ty.map(str::to_string),
            default: default.map(str::to_string),
        })
        .collect()
}

fn run(
    sources: &MemorySources,
    file: &str,
    function: &str,
    new: &[(&str, Option<&str>, Option<&str>)],
) -> Result<Plan, RefactorError> {
    plan(
        sources,
        &ChangeSignatureRequest {
            file: file.to_string(),
            function: SymbolQuery {
                name: function.to_string(),
                line: None,
                column: None,
            },
            new_parameters: params(new),
        },
    )
}

fn after<'p>(plan: &'p Plan, path: &str) -> &'p str {
    &plan
        .changes
        .iter()
        .find(|c| c.path == path)
        .unwrap_or_else(|| panic!("{path} unchanged"))
        .after
}

fn has(plan: &Plan, severity: Severity, needle: &str) -> bool {
    plan.findings
        .iter()
        .any(|f| f.severity == severity && f.message.contains(needle))
}

#[test]
fn python_adds_a_parameter_and_fills_calls() {
    let sources = MemorySources::new()
        .with("lib.py", "def f(a, b=2):\n    return a + b\n")
        .with("use.py", "from lib import f\n\nf(1)\nf(1, 3)\nf(1, b=3)\n");
    let plan = run(
        &sources,
        "lib.py",
        "f",
        &[("a", None, None), ("b", None, None), ("c", None, None)],
    );
    // `c` without a default after `b=2` (kept from the old list): refused.
    assert!(matches!(plan, Err(RefactorError::InvalidArgument { .. })));
    let plan = run(
        &sources,
        "lib.py",
        "f",
        &[
            ("a", None, None),
            ("b", None, None),
            ("c", Some("int"), None),
            ("*", None, None),
            ("d", None, None),
        ],
    );
    assert!(plan.is_err(), "c has no default after b=2");
    let plan = run(
        &sources,
        "lib.py",
        "f",
        &[
            ("a", None, None),
            ("b", None, None),
            ("*", None, None),
            ("d", None, None),
        ],
    )
    .unwrap();
    assert_eq!(
        after(&plan, "lib.py"),
        "def f(a, b=2, *, d):\n    return a + b\n"
    );
    assert_eq!(
        after(&plan, "use.py"),
        "from lib import f\n\nf(1, d=TODO_argument_d)\nf(1, 3, d=TODO_argument_d)\nf(1, b=3, d=TODO_argument_d)\n"
    );
    assert_eq!(plan.details.to_map()["call_sites_updated"], 3);
    assert_eq!(plan.details.to_map()["old_params"], "(a, b=2)");
    assert_eq!(plan.details.to_map()["new_params"], "(a, b=2, *, d)");
    assert!(has(&plan, Severity::Info, "imported at use.py:1"));
    assert!(has(
        &plan,
        Severity::Warning,
        "placeholder `TODO_argument_d`"
    ));
}

#[test]
fn python_removal_drops_arguments_and_warns_about_the_body() {
    let sources = MemorySources::new().with(
        "m.py",
        "def g(a, b, c):\n    return a + b\n\n\ng(1, g(2, 3, 4), 5)\ng(1, c=3, b=2)\n",
    );
    let plan = run(
        &sources,
        "m.py",
        "g",
        &[("a", None, None), ("c", None, None)],
    )
    .unwrap();
    assert_eq!(
        after(&plan, "m.py"),
        "def g(a, c):\n    return a + b\n\n\ng(1, 5)\ng(1, c=3)\n"
    );
    assert!(has(
        &plan,
        Severity::Warning,
        "`b` is no longer a parameter of `g`, but its body still uses it (line 2)"
    ));
    // By name: `b`'s argument goes with `b`; `c`'s stays `c`'s. A dropped call is a warning
    // (its effects are gone), a dropped literal a note.
    assert!(has(
        &plan,
        Severity::Warning,
        "dropped the argument `g(2, 3, 4)` of the removed parameter `b`; it is no longer evaluated"
    ));
    assert!(has(
        &plan,
        Severity::Info,
        "dropped the argument `2` of the removed parameter `b`"
    ));
    assert_eq!(
        plan.caveat_notes
            .iter()
            .map(|n| n.note.as_str())
            .collect::<Vec<_>>(),
        vec!["`b` dropped at 2 calls"]
    );
}

#[test]
fn rust_method_keeps_receiver_and_rewrites_both_call_forms() {
    let text = "struct S;\nimpl S {\n    fn m(&self, a: i32) -> i32 {\n        a\n    }\n}\n\nfn main() {\n    let s = S;\n    s.m(1);\n    S::m(&s, 2);\n    Other::m(3);\n}\n";
    let sources = MemorySources::new().with("src/main.rs", text);
    let plan = run(
        &sources,
        "src/main.rs",
        "S/m",
        &[
            ("self", None, None),
            ("a", None, None),
            ("b", Some("&str"), None),
        ],
    )
    .unwrap();
    assert_eq!(
        after(&plan, "src/main.rs"),
        "struct S;\nimpl S {\n    fn m(&self, a: i32, b: &str) -> i32 {\n        a\n    }\n}\n\nfn main() {\n    let s = S;\n    s.m(1, todo!(\"argument `b`\"));\n    S::m(&s, 2, todo!(\"argument `b`\"));\n    Other::m(3);\n}\n"
    );
    assert_eq!(plan.details.to_map()["call_sites_updated"], 2);
    assert!(has(&plan, Severity::Info, "names another type than `S`"));
    assert!(has(&plan, Severity::Info, "updated: 2 → 3 arguments"));
}

#[test]
fn rust_multiline_list_keeps_its_shape_and_comments() {
    let text = "fn f(\r\n\ta: i32, // first\r\n\t// about b\r\n\tb: u8,\r\n) {}\r\n\r\nfn main() {\r\n\tf(\r\n\t\t1,\r\n\t\t2,\r\n\t);\r\n}\r\n";
    let sources = MemorySources::new().with("a.rs", text);
    let plan = run(
        &sources,
        "a.rs",
        "f",
        &[
            ("b", None, None),
            ("a", None, None),
            ("c", Some("bool"), None),
        ],
    )
    .unwrap();
    assert_eq!(
        after(&plan, "a.rs"),
        "fn f(\r\n\t// about b\r\n\tb: u8,\r\n\ta: i32, // first\r\n\tc: bool,\r\n) {}\r\n\r\nfn main() {\r\n\tf(\r\n\t\t2,\r\n\t\t1,\r\n\t\ttodo!(\"argument `c`\"),\r\n\t);\r\n}\r\n"
    );
    // The arguments followed their parameters; literals, so no warning about their order.
    assert!(
        !plan
            .findings
            .iter()
            .any(|f| f.message.contains("evaluated in another order"))
    );
    assert_eq!(
        plan.caveat_notes
            .iter()
            .map(|n| n.note.as_str())
            .collect::<Vec<_>>(),
        vec!["arguments re-ordered by name at 1 call"]
    );
}

#[test]
fn same_list_is_an_info_and_no_change() {
    let sources = MemorySources::new().with("a.py", "def f(a, b: int = 1):\n    pass\n\nf(1)\n");
    let plan = run(
        &sources,
        "a.py",
        "f",
        &[("a", None, None), ("b", None, None)],
    )
    .unwrap();
    assert!(plan.changes.is_empty());
    assert!(has(&plan, Severity::Info, "same as the old one"));
    assert_eq!(plan.details.to_map()["call_sites_updated"], 0);
}

#[test]
fn splats_and_generators_are_left_alone() {
    let sources = MemorySources::new().with(
        "a.py",
        "def f(a):\n    pass\n\nf(*xs)\nf(x for x in y)\nf(1)\n",
    );
    let plan = run(
        &sources,
        "a.py",
        "f",
        &[("a", None, None), ("b", None, None)],
    )
    .unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "def f(a, b):\n    pass\n\nf(*xs)\nf(x for x in y)\nf(1, TODO_argument_b)\n"
    );
    assert!(has(
        &plan,
        Severity::Warning,
        "passes `*xs`; it is left unchanged"
    ));
    assert!(has(
        &plan,
        Severity::Warning,
        "call at a.py:5 passes 1 argument, the new signature takes 2"
    ));
}

#[test]
fn python_constructor_calls_are_rewritten() {
    let text = "class Point:\n    def __init__(self, x):\n        self.x = x\n\n\nclass Point3(Point):\n    def __init__(self, x, z):\n        super().__init__(x)\n\n\np = Point(1)\nq: Point = Point.__init__(p, 2)\n";
    let sources = MemorySources::new().with("p.py", text);
    let plan = run(
        &sources,
        "p.py",
        "Point/__init__",
        &[("x", None, None), ("y", None, Some("0"))],
    )
    .unwrap();
    assert_eq!(
        after(&plan, "p.py"),
        "class Point:\n    def __init__(self, x, y=0):\n        self.x = x\n\n\nclass Point3(Point):\n    def __init__(self, x, z):\n        super().__init__(x)\n\n\np = Point(1)\nq: Point = Point.__init__(p, 2)\n"
    );
    // Nothing needed a change at the calls (y has a default), but each was seen.
    assert!(has(
        &plan,
        Severity::Info,
        "call at p.py:8 unchanged (1 argument)"
    ));
    assert!(has(
        &plan,
        Severity::Info,
        "call at p.py:11 unchanged (1 argument)"
    ));
    assert!(has(
        &plan,
        Severity::Info,
        "call at p.py:12 unchanged (2 arguments)"
    ));
    let dropped = run(&sources, "p.py", "Point/__init__", &[]).unwrap();
    assert!(after(&dropped, "p.py").contains("super().__init__()\n"));
    assert!(after(&dropped, "p.py").contains("p = Point()\nq: Point = Point.__init__(p)\n"));
}

#[test]
fn rust_refusals_name_the_fix() {
    let sources = MemorySources::new().with("a.rs", "fn helper(a: i32, b: i32) -> i32 { a + b }\n");
    match run(
        &sources,
        "a.rs",
        "helper",
        &[("a", None, None), ("b", None, None), ("c", None, None)],
    ) {
        Err(RefactorError::InvalidArgument { param, message }) => {
            assert_eq!(param, "new_parameters");
            assert!(message.contains("needs a Rust type"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        run(&sources, "a.rs", "nope", &[]),
        Err(RefactorError::NotFound(_))
    ));
}

fn messages(plan: &Plan) -> Vec<String> {
    plan.findings
        .iter()
        .map(|f| {
            format!(
                "{}:{} {} {}",
                f.file,
                f.line,
                f.severity.as_str(),
                f.message
            )
        })
        .collect()
}

/// Through `refactor::plan`, which sorts and deduplicates findings as the user sees them.
fn run_full(
    sources: &dyn Sources,
    file: &str,
    function: &str,
    line: Option<usize>,
    new: &[(&str, Option<&str>, Option<&str>)],
) -> Plan {
    let request = ChangeSignatureRequest {
        file: file.to_string(),
        function: SymbolQuery {
            name: function.to_string(),
            line,
            column: None,
        },
        new_parameters: params(new),
    };
    crate::refactor::plan(sources, &crate::refactor::Request::ChangeSignature(request)).unwrap()
}

#[test]
fn rust_module_paths_and_method_imports_are_not_mentions() {
    let text = "use std::fmt;\nstruct X;\nimpl Show for X {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        write!(f, \"x\")\n    }\n}\nfn g() { let v = vec![X.fmt(1)]; }\n";
    let sources = MemorySources::new().with("a.rs", text).with(
        "show.rs",
        "use std::fmt;\npub trait Show {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result;\n}\n",
    );
    let plan = run_full(
        &sources,
        "a.rs",
        "fmt",
        None,
        &[("f", None, None), ("alt", Some("bool"), None)],
    );
    assert!(
        after(&plan, "a.rs")
            .contains("fn fmt(&self, f: &mut fmt::Formatter, alt: bool) -> fmt::Result {")
    );
    assert_eq!(
        messages(&plan),
        vec![
            "a.rs:4 info the same change was made where the trait has `X/fmt` too, so its declaration and every impl keep one signature: Show/fmt (show.rs:3)",
            "a.rs:8 warning `fmt` appears inside a macro at a.rs:8; a call there is not updated, check it by hand",
        ]
    );
}

#[test]
fn python_decorator_value_and_method_form_are_reported_not_rewritten() {
    let text = "def f(a):\n    pass\n\n@f\ndef g():\n    self.f(1)\n    return [f]\n";
    let sources = MemorySources::new().with("a.py", text);
    let plan = run_full(
        &sources,
        "a.py",
        "f",
        None,
        &[("a", None, None), ("b", None, None)],
    );
    assert_eq!(
        after(&plan, "a.py"),
        text.replace("def f(a):", "def f(a, b):")
    );
    assert_eq!(
        messages(&plan),
        vec![
            "a.py:4 warning `f` is used as a decorator at a.py:4; that use is not updated",
            "a.py:6 info `self.f(…)` at a.py:6 calls a method named `f`, not the function `f`; left unchanged",
            "a.py:7 warning `f` is used at a.py:7 without being called (passed as a value?); calls through it are not updated",
        ]
    );
}

#[test]
fn comments_of_removed_parameters_are_reported() {
    let text = "def f(\n    a,\n    # b is old\n    b,  # really old\n    c,  # stays\n):\n    pass\n\nf(1, b=2, c=3)\n";
    let sources = MemorySources::new().with("a.py", text);
    let plan = run_full(
        &sources,
        "a.py",
        "f",
        None,
        &[("a", None, None), ("/", None, None), ("c", None, None)],
    );
    assert_eq!(
        after(&plan, "a.py"),
        "def f(\n    a,\n    /,\n    c,  # stays\n):\n    pass\n\nf(1, c=3)\n"
    );
    assert_eq!(
        messages(&plan),
        vec![
            "a.py:1 info `# b is old` in the parameter list of `f` was dropped with the parameter it belonged to",
            "a.py:1 info `# really old` in the parameter list of `f` was dropped with the parameter it belonged to",
            "a.py:9 info call at a.py:9 updated: 3 → 2 arguments",
            "a.py:9 info call at a.py:9: dropped the argument `2` of the removed parameter `b`",
        ]
    );
}

#[test]
fn calls_on_one_line_are_told_apart_by_column() {
    let sources = MemorySources::new().with("a.py", "def f(a):\n    pass\n\nf(f(1))\n");
    let plan = run_full(
        &sources,
        "a.py",
        "f",
        None,
        &[("a", None, None), ("b", None, None)],
    );
    assert_eq!(
        after(&plan, "a.py"),
        "def f(a, b):\n    pass\n\nf(f(1, TODO_argument_b), TODO_argument_b)\n"
    );
    let located: Vec<String> = messages(&plan)
        .into_iter()
        .filter(|m| m.contains("updated"))
        .collect();
    assert_eq!(
        located,
        vec![
            "a.py:4 info call at a.py:4:1 updated: 1 → 2 arguments",
            "a.py:4 info call at a.py:4:3 updated: 1 → 2 arguments",
        ]
    );
}

/// A project where one file could not be read.
struct WithSkipped(MemorySources);

impl Sources for WithSkipped {
    fn file(&self, path: &str) -> Result<Option<SourceFile>, SourceError> {
        self.0.file(path)
    }

    fn files_mentioning(
        &self,
        lang: Language,
        word: &str,
    ) -> Result<crate::refactor::Mentioning, SourceError> {
        let mut mentioning = self.0.files_mentioning(lang, word)?;
        mentioning
            .skipped
            .push(("big.py".to_string(), "is larger than 2 MB".to_string()));
        Ok(mentioning)
    }

    fn dir_exists(&self, path: &str) -> bool {
        self.0.dir_exists(path)
    }
}

#[test]
fn skipped_files_are_findings() {
    let sources = WithSkipped(MemorySources::new().with("a.py", "def f(a):\n    pass\n"));
    let plan = run_full(&sources, "a.py", "f", None, &[("b", None, None)]);
    assert_eq!(
        messages(&plan),
        vec!["big.py:1 warning big.py was not searched for calls of `f`: is larger than 2 MB"]
    );
}

#[test]
fn an_import_under_another_name_warns_that_its_calls_are_not_updated() {
    let sources = MemorySources::new()
        .with("lib.py", "def f(a):\n    return a\n")
        .with(
            "use.py",
            "from lib import f as g\nfrom lib import f\n\ng(1)\nf(2)\n",
        );
    let plan = run(
        &sources,
        "lib.py",
        "f",
        &[("a", None, None), ("b", None, None)],
    )
    .unwrap();
    assert!(has(
        &plan,
        Severity::Warning,
        "`f` is imported as `g` at use.py:1; calls through `g` are not updated"
    ));
    assert!(has(
        &plan,
        Severity::Info,
        "`f` is imported at use.py:2; the import needs no change"
    ));
    let sources = MemorySources::new()
        .with("Cargo.toml", "[package]\nname = \"t\"\n")
        .with(
            "src/lib.rs",
            "mod util;\nuse crate::util::scale as grow;\n\npub fn run() -> i32 {\n    grow(2)\n}\n",
        )
        .with(
            "src/util.rs",
            "pub fn scale(v: i32) -> i32 {\n    v * 2\n}\n",
        );
    let plan = run(
        &sources,
        "src/util.rs",
        "scale",
        &[("v", Some("i32"), None), ("by", Some("i32"), None)],
    )
    .unwrap();
    assert!(
        has(
            &plan,
            Severity::Warning,
            "`scale` is imported as `grow` at src/lib.rs:2; calls through `grow` are not updated"
        ),
        "{:#?}",
        plan.findings
    );
}

#[test]
fn a_new_parameter_type_the_file_does_not_know_is_reported() {
    let rust = MemorySources::new().with("a.rs", "fn f(a: i32) {}\n\nfn main() {\n    f(1);\n}\n");
    let plan = run(
        &rust,
        "a.rs",
        "f",
        &[("a", None, None), ("p", Some("&Path"), None)],
    )
    .unwrap();
    assert!(has(
        &plan,
        Severity::Warning,
        "names `Path`, which a.rs neither declares nor imports"
    ));
    for known in ["&std::path::Path", "Option<Vec<u8>>", "impl Fn(u8) -> bool"] {
        let plan = run(
            &rust,
            "a.rs",
            "f",
            &[("a", None, None), ("p", Some(known), None)],
        )
        .unwrap();
        assert!(
            !plan
                .findings
                .iter()
                .any(|f| f.message.contains("neither declares")),
            "{known}: {:#?}",
            plan.findings
        );
    }
    let python = MemorySources::new().with("a.py", "def f(a):\n    pass\n\n\nf(1)\n");
    let plan = run(
        &python,
        "a.py",
        "f",
        &[("a", None, None), ("p", Some("Path"), Some("None"))],
    )
    .unwrap();
    assert!(has(
        &plan,
        Severity::Warning,
        "names `Path`, which a.py neither declares nor imports"
    ));
    let imported = MemorySources::new().with(
        "a.py",
        "from pathlib import Path\n\n\ndef f(a):\n    pass\n\n\nf(1)\n",
    );
    let plan = run(
        &imported,
        "a.py",
        "f",
        &[("a", None, None), ("p", Some("Path | None"), Some("None"))],
    )
    .unwrap();
    assert!(
        !plan
            .findings
            .iter()
            .any(|f| f.message.contains("neither declares"))
    );
}

#[test]
fn a_parameter_added_to_a_test_function_is_an_error() {
    let sources = MemorySources::new().with(
        "tests/t.rs",
        "#[test]\nfn test_align() {\n    assert_eq!(1, 1);\n}\n\nfn helper() {}\n",
    );
    let plan = run(
        &sources,
        "tests/t.rs",
        "test_align",
        &[("x", Some("i32"), None)],
    )
    .unwrap();
    assert!(
        has(&plan, Severity::Error, "is a test function"),
        "{:?}",
        plan.findings
    );
    let plan = run(
        &sources,
        "tests/t.rs",
        "helper",
        &[("x", Some("i32"), None)],
    )
    .unwrap();
    assert!(!has(&plan, Severity::Error, "is a test function"));
}

#[test]
fn the_locals_of_the_function_in_its_file_are_built_once_for_the_judge_and_the_rewrite() {
    use crate::refactor::kept_facts::KeptFacts;
    // One file of many calls: the references engine's judge and the rewrite of the calls both
    // ask for the locals of `helper` in a.py (one walk of a big file each, before).
    let mut text = String::from("def helper(a, b):\n    return a + b\n\n\ndef main():\n");
    for i in 0..50 {
        text.push_str(&format!("    helper({i}, 1)\n"));
    }
    let sources = KeptFacts::new(MemorySources::new().with("a.py", &text));
    let request = ChangeSignatureRequest {
        file: "a.py".to_string(),
        function: SymbolQuery {
            name: "helper".to_string(),
            line: None,
            column: None,
        },
        new_parameters: params(&[("b", None, None), ("a", None, None)]),
    };
    let plan = plan(&sources, &request).unwrap();
    assert!(
        after(&plan, "a.py").contains("    helper(1, 0)\n"),
        "{plan:?}"
    );
    let facts = sources.facts.lock().unwrap();
    let locals: Vec<(usize, usize)> = facts
        .iter()
        .filter(|((question, path), _)| {
            path == "a.py" && question.contains(" locals Python helper ")
        })
        .map(|(_, (_, made, asked))| (*made, *asked))
        .collect();
    assert_eq!(locals, vec![(1, 2)], "made, asked");
}
