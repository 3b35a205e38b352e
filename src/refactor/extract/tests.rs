//! Extract function end to end on small files: the text it writes, its findings, its refusals.
//! The golden fixtures cover the file conventions; these cover the tricky decisions.

use super::*;
use crate::refactor::{MemorySources, Severity};

/// The refactor alone, in the language of the request's file (the result is not checked).
fn plan(
    sources: &dyn crate::refactor::Sources,
    request: &ExtractRequest,
) -> Result<Plan, RefactorError> {
    let lang = crate::lang::Language::from_path(&request.file)
        .ok_or_else(|| RefactorError::UnsupportedLanguage(request.file.clone()))?;
    super::plan(sources, request, lang)
}

fn run(
    path: &str,
    text: &str,
    start: usize,
    end: usize,
    name: &str,
) -> Result<Plan, RefactorError> {
    let sources = MemorySources::new().with(path, text);
    let request = ExtractRequest {
        file: path.to_string(),
        start_line: start,
        end_line: end,
        new_name: name.to_string(),
    };
    // Through the dispatcher, so the result is parsed again like in production.
    crate::refactor::plan(&sources, &crate::refactor::Request::Extract(request))
}

fn after(plan: &Plan) -> &str {
    &plan.changes[0].after
}

fn messages(plan: &Plan) -> Vec<(usize, Severity, String)> {
    plan.findings
        .iter()
        .map(|f| (f.line, f.severity, f.message.clone()))
        .collect()
}

fn has(plan: &Plan, line: usize, severity: Severity, part: &str) -> bool {
    plan.findings
        .iter()
        .any(|f| f.line == line && f.severity == severity && f.message.contains(part))
}

fn refusal(result: Result<Plan, RefactorError>) -> RefactorError {
    match result {
        Ok(plan) => panic!(
            "expected a refusal, got:\n{}\n{:?}",
            after(&plan),
            plan.findings
        ),
        Err(error) => error,
    }
}

/// The samples of `tests/honesty.rs`: lines 8-9 must extract.
#[test]
fn the_honesty_samples_extract() {
    let python = "def helper(a, b):\n    total = a + b\n    return total\n\n\ndef main():\n    x = 1\n    y = 2\n    print(x)\n    print(y)\n    return helper(x, y)\n";
    let plan = run("app.py", python, 8, 9, "show").unwrap();
    // `x` is read from outside: a parameter; `y` is read after: returned and assigned.
    assert!(
        after(&plan).contains("    y = show(x)\n    print(y)\n"),
        "{}",
        after(&plan)
    );
    assert!(after(&plan).ends_with("\n\n\ndef show(x):\n    y = 2\n    print(x)\n    return y\n"));
    assert!(plan.findings.is_empty(), "{:?}", messages(&plan));
    assert_eq!(plan.details.to_map()["extracted_lines"], "8-9");
    assert_eq!(plan.details.to_map()["new_function_name"], "show");
    assert_eq!(plan.details.to_map()["new_function_line"], 13);

    let rust = "fn helper(a: i32, b: i32) -> i32 {\n    a + b\n}\n\nfn main() {\n    let x = 1;\n    let y = 2;\n    println!(\"{}\", x);\n    println!(\"{}\", y);\n    let _ = helper(x, y);\n}\n";
    let plan = run("app.rs", rust, 8, 9, "show").unwrap();
    // `let x = 1` does not say its type; `helper(x, y)` passes both as `i32`, so they are
    // (copied, by value).
    assert!(after(&plan).ends_with("    show(x, y);\n    let _ = helper(x, y);\n}\n\nfn show(x: i32, y: i32) {\n    println!(\"{}\", x);\n    println!(\"{}\", y);\n}\n"), "{}", after(&plan));
    assert!(plan.findings.is_empty(), "{:?}", messages(&plan));
    // A local whose type nothing in the source says: the parameter is written `_` and an
    // error finding names it; a reference, as the selection only reads it.
    let rust = "fn main() {\n    let x = make();\n    println!(\"{}\", x);\n}\n";
    let plan = run("app.rs", rust, 3, 3, "show").unwrap();
    assert!(
        after(&plan)
            .ends_with("    show(&x);\n}\n\nfn show(x: &_) {\n    println!(\"{}\", *x);\n}\n"),
        "{}",
        after(&plan)
    );
    assert!(
        has(
            &plan,
            2,
            Severity::Error,
            "the type of `x` (bound at line 2) cannot be read"
        ),
        "{:?}",
        messages(&plan)
    );
    assert_eq!(plan.details.to_map()["receiver"], serde_json::Value::Null);
    assert_eq!(plan.details.to_map()["call"], "show(&x)");
}

#[test]
fn missing_file_and_bad_names_are_refused() {
    let sources = MemorySources::new();
    let request = ExtractRequest {
        file: "nope.py".into(),
        start_line: 1,
        end_line: 1,
        new_name: "f".into(),
    };
    assert!(matches!(
        plan(&sources, &request),
        Err(RefactorError::Source(SourceError::Missing { .. }))
    ));
    let text = "def f():\n    pass\n";
    for bad in ["class", "None", "a b", "", "9lives"] {
        let error = refusal(run("a.py", text, 2, 2, bad));
        assert!(
            matches!(
                error,
                RefactorError::InvalidArgument {
                    param: "new_name",
                    ..
                }
            ),
            "{bad}: {error:?}"
        );
    }
    let error = refusal(run("a.rs", "fn f() {\n    g();\n}\n", 2, 2, "self"));
    assert!(matches!(
        error,
        RefactorError::InvalidArgument {
            param: "new_name",
            ..
        }
    ));
}

#[test]
fn an_empty_file_or_a_file_with_syntax_errors_is_refused() {
    assert!(matches!(
        refusal(run("a.py", "", 1, 1, "f")),
        RefactorError::InvalidRange { line: 1, .. }
    ));
    let broken = "fn f() {\n    let x = ;\n    g();\n}\n";
    assert!(matches!(
        refusal(run("a.rs", broken, 3, 3, "h")),
        RefactorError::Unsupported(_)
    ));
}

#[test]
fn python_break_outside_its_loop_is_a_syntax_error_of_the_result() {
    let text = "def f(xs):\n    for x in xs:\n        if x:\n            break\n        print(x)\n";
    let plan = run("a.py", text, 3, 4, "stop").unwrap();
    assert!(plan.has_syntax_errors(), "{:?}", plan.findings);
    // `break` is on line 9 of the result: `def stop():` is line 7.
    let lines: Vec<&str> = after(&plan).lines().collect();
    assert_eq!(lines[8], "        break", "{}", after(&plan));
    assert!(has(
        &plan,
        9,
        Severity::Error,
        "`break` outside a loop (its loop at line 2 stays behind)"
    ));
    // A loop inside the selection keeps its `break`.
    let plan = run("a.py", text, 2, 5, "walk").unwrap();
    assert!(!plan.has_syntax_errors());
    assert!(
        plan.findings.iter().all(|f| !f.message.contains("break")),
        "{:?}",
        plan.findings
    );
}

#[test]
fn rust_loops_labels_and_closures_in_the_selection_are_fine() {
    let text = "fn f(items: &[i32]) {\n    'outer: for a in items {\n        for b in items {\n            if a == b { continue 'outer; }\n            let g = |x: i32| { return x + 1; };\n            loop { break; }\n        }\n    }\n}\n";
    let plan = run("a.rs", text, 3, 7, "inner").unwrap();
    let found = messages(&plan);
    // The `continue 'outer` comes back as the new function's `bool`, and the call site jumps.
    let result = after(&plan);
    assert!(
        result.contains("        if inner(items, a) { continue 'outer; }\n"),
        "{result}"
    );
    assert!(
        result.contains("if a == b { return true; }") && result.contains("    false\n}"),
        "{result}"
    );
    assert!(
        !found.iter().any(|(_, _, m)| m.contains("`return`")
            || m.contains("`break`")
            || m.contains("`continue`")),
        "{found:?}"
    );
    // The whole labelled loop is fine.
    let plan = run("a.rs", text, 2, 8, "outer").unwrap();
    assert!(
        !messages(&plan)
            .iter()
            .any(|(_, s, _)| *s == Severity::Error),
        "{:?}",
        messages(&plan)
    );
    // `items` is a parameter of `f`: passed on, with its declared type.
    assert!(
        after(&plan).contains("    outer(items);\n}\n"),
        "{}",
        after(&plan)
    );
    assert!(after(&plan).contains("fn outer(items: &[i32]) {\n"));
}

#[test]
fn rust_self_receivers() {
    let text = "struct S { v: Vec<i32> }\n\nimpl S {\n    fn consume(self) -> usize {\n        println!(\"{}\", self.v.len());\n        self.v.len()\n    }\n\n    fn items(&self) {\n        let f = || self.v.len();\n        fn nested() {\n            println!(\"x\");\n        }\n        nested();\n        f();\n    }\n}\n";
    let plan = run("a.rs", text, 5, 5, "show").unwrap();
    assert!(
        after(&plan).contains("        self.show();\n"),
        "{}",
        after(&plan)
    );
    assert!(
        after(&plan)
            .contains("    fn show(self) {\n        println!(\"{}\", self.v.len());\n    }\n")
    );
    assert!(
        has(
            &plan,
            5,
            Severity::Warning,
            "the call moves `self`, which is used after it at line 6"
        ),
        "{:?}",
        messages(&plan)
    );
    assert_eq!(plan.details.to_map()["receiver"], "self");
    // A nested fn has no receiver: it goes after `nested`, in `items`.
    let plan = run("a.rs", text, 12, 12, "say").unwrap();
    assert!(after(&plan).contains("        fn nested() {\n            say();\n        }\n\n        fn say() {\n            println!(\"x\");\n        }\n        nested();\n"), "{}", after(&plan));
}

#[test]
fn rust_generics_unsafe_and_const() {
    let text = "unsafe fn raw<T: Copy>(p: *const T) -> T {\n    let v: T = *p;\n    v\n}\n\nconst fn seven() -> u32 {\n    let x = 7;\n    x\n}\n";
    let plan = run("a.rs", text, 2, 2, "read").unwrap();
    // `T` is named by the types of `p` and `v`: the new function declares it, with its bound.
    assert!(
        !has(
            &plan,
            2,
            Severity::Warning,
            "the type parameter `T` of `raw`"
        ),
        "{:?}",
        messages(&plan)
    );
    assert!(has(&plan, 2, Severity::Info, "`raw` is an `unsafe fn`"));
    // `v` is read after: returned with its declared type, `p` passed with its own.
    assert!(
        after(&plan).contains("    let v = unsafe { read(p) };\n    v\n}\n\nunsafe fn read<T: Copy>(p: *const T) -> T {\n    let v: T = *p;\n    v\n}\n"),
        "{}",
        after(&plan)
    );
    let plan = run("a.rs", text, 7, 7, "make").unwrap();
    assert!(
        after(&plan).contains(
            "    let x = make();\n    x\n}\n\nconst fn make() -> u32 {\n    let x = 7;\n    x\n}\n"
        ),
        "{}",
        after(&plan)
    );
}

#[test]
fn rust_await_in_a_nested_async_block_does_not_make_it_async() {
    let text =
        "async fn f() {\n    let fut = async {\n        g().await;\n    };\n    fut.await;\n}\n";
    let plan = run("a.rs", text, 2, 4, "build").unwrap();
    // The future is returned; an `async` block's type has no name: `_` and an error finding.
    assert!(
        after(&plan).contains("    let fut = build();\n    fut.await;\n}\n\nfn build() -> _ {\n"),
        "{}",
        after(&plan)
    );
    assert!(
        has(&plan, 2, Severity::Error, "the type of `fut`"),
        "{:?}",
        messages(&plan)
    );
    assert_eq!(plan.details.to_map()["async"], false);
    let plan = run("a.rs", text, 5, 5, "wait").unwrap();
    assert!(
        after(&plan).contains("    wait(fut).await;\n"),
        "{}",
        after(&plan)
    );
    assert!(after(&plan).contains("\nasync fn wait(fut: _) {\n    fut.await;\n}\n"));
}

#[test]
fn rust_method_names_collide_across_impl_blocks_and_with_locals() {
    let text = "struct S;\n\nimpl S {\n    fn a(&self) {\n        x();\n    }\n}\n\nimpl S {\n    fn b(&self) {}\n}\n\nfn free() {\n    let tally = 1;\n    y(tally);\n}\n";
    let error = refusal(run("a.rs", text, 5, 5, "b"));
    assert!(
        matches!(&error, RefactorError::InvalidArgument { message, .. } if message.contains("line 10")),
        "{error:?}"
    );
    let error = refusal(run("a.rs", text, 15, 15, "tally"));
    assert!(
        matches!(&error, RefactorError::InvalidArgument { message, .. } if message.contains("variable of `free` (bound at line 14)")),
        "{error:?}"
    );
    // `a` exists as a method, not as a free function: fine for a free function elsewhere.
    assert!(run("a.rs", text, 15, 15, "a").is_ok());
}

#[test]
fn rust_trait_default_method_stays_in_the_trait() {
    let text = "trait Greet {\n    fn name(&self) -> String;\n    fn greet(&self) {\n        println!(\"hi\");\n    }\n}\n";
    let plan = run("a.rs", text, 4, 4, "say_hi").unwrap();
    assert_eq!(
        after(&plan),
        "trait Greet {\n    fn name(&self) -> String;\n    fn greet(&self) {\n        self.say_hi();\n    }\n\n    fn say_hi(&self) {\n        println!(\"hi\");\n    }\n}\n"
    );
    let error = refusal(run("a.rs", text, 4, 4, "name"));
    assert!(matches!(error, RefactorError::InvalidArgument { .. }));
}

#[test]
fn python_local_and_scope_collisions() {
    let text = "import os\n\n\nclass A:\n    size = 3\n\n    def f(self):\n        show = 1\n        print(show)\n\n\ndef g():\n    print(1)\n";
    // A method `size` would overwrite the class attribute.
    let error = refusal(run("a.py", text, 9, 9, "size"));
    assert!(
        matches!(&error, RefactorError::InvalidArgument { message, .. } if message.contains("line 5")),
        "{error:?}"
    );
    // `self.show()` is not shadowed by the local `show`.
    assert!(run("a.py", text, 9, 9, "show").is_ok());
    // A module-level `os()` would shadow the import.
    let error = refusal(run("a.py", text, 13, 13, "os"));
    assert!(
        matches!(&error, RefactorError::InvalidArgument { message, .. } if message.contains("line 1")),
        "{error:?}"
    );
    let shadowed = "def g():\n    out = []\n    out.append(1)\n";
    let error = refusal(run("a.py", shadowed, 3, 3, "out"));
    assert!(
        matches!(&error, RefactorError::InvalidArgument { message, .. } if message.contains("bound at line 2")),
        "{error:?}"
    );
}

#[test]
fn python_module_level_names() {
    let text = "count = 0\ncount = count + 1\nprint(count)\n";
    let plan = run("a.py", text, 2, 2, "bump").unwrap();
    // The global is read before it is assigned: passed in; assigned: returned, so the
    // module keeps it.
    assert_eq!(
        after(&plan),
        "count = 0\n\n\ndef bump(count):\n    count = count + 1\n    return count\n\n\ncount = bump(count)\nprint(count)\n"
    );
    assert!(plan.findings.is_empty(), "{:?}", messages(&plan));
    // Reading a global is fine; a selection at the top of the file gets no blank lines above.
    let plan = run("a.py", "print(1)\nprint(2)\n", 1, 1, "first").unwrap();
    assert_eq!(
        after(&plan),
        "def first():\n    print(1)\n\n\nfirst()\nprint(2)\n"
    );
    assert!(plan.findings.is_empty());
}

#[test]
fn python_globals_comprehensions_and_closures() {
    let text = "def f(items):\n    global total\n    k = 0\n    total = sum(k for k in items)\n    def cb():\n        return k\n    return cb\n";
    let plan = run("a.py", text, 4, 4, "add").unwrap();
    let found = messages(&plan);
    assert!(
        has(
            &plan,
            4,
            Severity::Warning,
            "`total` is declared global/nonlocal at line 2"
        ),
        "{found:?}"
    );
    assert!(
        after(&plan).contains("    add(items)\n"),
        "{}",
        after(&plan)
    );
    // `k` of the comprehension is its own; no finding about the outer `k`.
    assert!(
        !found.iter().any(|(_, _, m)| m.contains("`k`")),
        "{found:?}"
    );
    // A nested def in the selection still needs the outer `k`.
    let plan = run("a.py", text, 5, 6, "make_cb").unwrap();
    assert!(
        after(&plan).contains("    cb = make_cb(k)\n    return cb\n\n\ndef make_cb(k):\n    def cb():\n        return k\n    return cb\n"),
        "{}",
        after(&plan)
    );
    assert!(plan.findings.is_empty(), "{:?}", messages(&plan));
}

#[test]
fn python_self_in_a_nested_function_is_captured() {
    let text = "class A:\n    def f(self):\n        def g():\n            print(self.x)\n            print(2)\n        g()\n";
    let plan = run("a.py", text, 4, 5, "show").unwrap();
    assert!(plan.findings.is_empty(), "{:?}", plan.findings);
    assert!(after(&plan).contains("        def g():\n            show()\n\n        def show():\n            print(self.x)\n            print(2)\n        g()\n"), "{}", after(&plan));
}

#[test]
fn python_docstring_async_with_and_one_line_compound_statements() {
    let text = "async def f(path):\n    \"\"\"Reads.\"\"\"\n    async with open(path) as fh:\n        pass\n    if path: print(path)\n";
    let plan = run("a.py", text, 2, 4, "read").unwrap();
    assert!(
        has(&plan, 2, Severity::Info, "the docstring of `f`"),
        "{:?}",
        messages(&plan)
    );
    assert!(has(
        &plan,
        3,
        Severity::Info,
        "`read` is `async` and the call awaits it"
    ));
    assert!(
        after(&plan).contains("    await read(path)\n"),
        "{}",
        after(&plan)
    );
    let plan = run("a.py", text, 5, 5, "show").unwrap();
    assert!(
        after(&plan).contains("    show(path)\n\n\ndef show(path):\n    if path: print(path)"),
        "{}",
        after(&plan)
    );
}

#[test]
fn python_staticmethod_in_a_nested_class_and_class_bodies() {
    let text = "def make():\n    class Local:\n        x = 1\n        def m(self):\n            print(1)\n    return Local\n";
    let error = refusal(run("a.py", text, 3, 3, "xs"));
    assert!(matches!(error, RefactorError::InvalidRange { line: 3, .. }));
    let plan = run("a.py", text, 5, 5, "say").unwrap();
    assert!(
        after(&plan)
            .contains("            self.say()\n\n        def say(self):\n            print(1)\n"),
        "{}",
        after(&plan)
    );
}

#[test]
fn a_partly_selected_block_comment_is_refused() {
    let text = "fn f() {\n    /* one\n       two */\n    g();\n}\n";
    let error = refusal(run("a.rs", text, 3, 4, "h"));
    assert!(
        matches!(error, RefactorError::InvalidRange { line: 2, .. }),
        "{error:?}"
    );
}

#[test]
fn deeply_nested_code_does_not_overflow() {
    let depth = 5_000;
    let text = format!(
        "def f(a):\n    x = {}a{}\n    print(x)\n",
        "(".repeat(depth),
        ")".repeat(depth)
    );
    let plan = run("a.py", &text, 2, 2, "deep").unwrap();
    assert!(after(&plan).contains("    x = deep(a)\n"));
}

#[test]
fn a_static_method_of_a_nested_class_is_called_through_its_outer_class() {
    let text = "class Outer:\n    class Inner:\n        @staticmethod\n        def f():\n            print(1)\n";
    let plan = run("a.py", text, 5, 5, "g").unwrap();
    assert!(after(&plan).contains("            Outer.Inner.g()\n\n        @staticmethod\n        def g():\n            print(1)\n"), "{}", after(&plan));
}

#[test]
fn a_trait_impl_for_a_type_of_another_file_is_flagged() {
    let text =
        "impl Greet for String {\n    fn greet(&self) {\n        println!(\"hi\");\n    }\n}\n";
    let plan = run("a.rs", text, 3, 3, "say").unwrap();
    assert!(
        after(&plan).ends_with(
            "}\n\nimpl String {\n    fn say(&self) {\n        println!(\"hi\");\n    }\n}\n"
        ),
        "{}",
        after(&plan)
    );
    assert!(
        has(
            &plan,
            3,
            Severity::Warning,
            "`String` is not defined in this file"
        ),
        "{:?}",
        messages(&plan)
    );
}

#[test]
fn rust_assigning_a_name_declared_in_the_selection_after_it() {
    let text = "fn f() {\n    let mut n = make();\n    n = 2;\n}\n";
    let plan = run("a.rs", text, 2, 2, "init").unwrap();
    // Returned, and declared `let mut` at the call; `make()` does not say its type.
    assert!(
        after(&plan).contains("    let mut n = init();\n    n = 2;\n}\n\nfn init() -> _ {\n    let mut n = make();\n    n\n}\n"),
        "{}",
        after(&plan)
    );
    assert!(
        has(
            &plan,
            2,
            Severity::Error,
            "the type of `n` (bound at line 2)"
        ),
        "{:?}",
        messages(&plan)
    );
}

/// Every range of every golden `before` file: no panic, and every result that the refactor
/// accepts parses again (Python compile-time errors it predicts are reported as syntax errors).
#[test]
fn every_range_of_the_fixtures_is_refused_or_parses() {
    let root =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/extract_function");
    let mut stack = vec![root];
    let mut files = Vec::new();
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path
                .parent()
                .is_some_and(|p| p.ends_with("before") || p.ends_with("before/src"))
            {
                files.push(path);
            }
        }
    }
    let (mut accepted, mut refused) = (0, 0);
    for path in files
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "rs" || e == "py"))
    {
        let file = crate::edit::SourceFile::from_bytes(
            path.to_string_lossy(),
            &std::fs::read(path).unwrap(),
        )
        .unwrap();
        let lines = file.text.lines().count();
        for start in 1..=lines {
            for end in start..=lines {
                match run(&file.path, &file.text, start, end, "extracted") {
                    Ok(plan) => {
                        accepted += 1;
                        let predicted = plan
                            .findings
                            .iter()
                            .any(|f| f.message.contains("outside a loop"));
                        assert!(
                            !plan.has_syntax_errors() || predicted,
                            "{}:{start}-{end}: {:?}",
                            file.path,
                            plan.findings
                        );
                    }
                    Err(_) => refused += 1,
                }
            }
        }
    }
    assert!(
        accepted > 100 && refused > 100,
        "accepted {accepted}, refused {refused}"
    );
}

#[test]
fn python_nonlocal_declarations_keep_their_binding() {
    let text = "def f(items):\n    count = len(items)\n    def done():\n        nonlocal count\n        count -= 1\n    return done\n";
    // The only binding of `count` moves away from `nonlocal count`.
    let plan = run("a.py", text, 2, 2, "measure").unwrap();
    assert!(plan.has_syntax_errors(), "{:?}", messages(&plan));
    // `nonlocal count` stays on line 4 of the result.
    assert!(
        has(
            &plan,
            4,
            Severity::Error,
            "`nonlocal count` has no binding left in `f`"
        ),
        "{:?}",
        messages(&plan)
    );
    // The nested function moves away from the binding.
    let plan = run("a.py", text, 3, 5, "make_done").unwrap();
    assert!(plan.has_syntax_errors(), "{:?}", messages(&plan));
    assert!(
        has(
            &plan,
            9,
            Severity::Error,
            "`nonlocal count` moves into `make_done`"
        ),
        "{}\n{:?}",
        after(&plan),
        messages(&plan)
    );
    // Both together are fine.
    let plan = run("a.py", text, 2, 5, "setup").unwrap();
    assert!(!plan.has_syntax_errors(), "{:?}", messages(&plan));
}

#[test]
fn python_a_binding_in_another_branch_does_not_hide_the_selection_s() {
    let text = "def span(growing, a, b):\n    if growing:\n        start = a\n        stop = b\n    else:\n        start = b\n        stop = a\n    return stop - start\n";
    let plan = run("m.py", text, 4, 4, "pick").unwrap();
    assert!(
        after(&plan).contains("        stop = pick(b)\n"),
        "{}",
        after(&plan)
    );
    assert_eq!(
        plan.details.to_map()["returns"],
        serde_json::json!(["stop"])
    );
    // A later binding in the selection's own block runs after it: the read does not see it.
    let text = "def f(a):\n    tmp = a\n    tmp = 2\n    return tmp\n";
    let plan = run("m.py", text, 2, 2, "first").unwrap();
    assert!(
        !plan
            .findings
            .iter()
            .any(|f| f.message.contains("read after")),
        "{:?}",
        messages(&plan)
    );
}

#[test]
fn python_a_dedented_comment_after_the_block_stays_outside() {
    // The comment belongs to the outer function's block; the new function goes right after
    // `_full`, before it. Taking the comment along made the edits overlap.
    let text = "def outer(size):\n    def _full(A):\n        while True:\n            yield tuple(A)\n            A[0] = 1  # note\n\n    # Algorithm: modified\n    def _partial(A, r):\n        return A\n    return _full\n";
    let plan = run("m.py", text, 5, 7, "step").unwrap();
    assert_eq!(
        after(&plan),
        "def outer(size):\n    def _full(A):\n        while True:\n            yield tuple(A)\n            step(A)\n\n    def step(A):\n        A[0] = 1  # note\n\n    # Algorithm: modified\n    def _partial(A, r):\n        return A\n    return _full\n"
    );
    assert_eq!(plan.details.to_map()["extracted_lines"], "5-5");
}

#[test]
fn rust_an_unsafe_context_is_kept_by_the_new_function() {
    let text = "unsafe fn raw() -> i32 {\n    3\n}\n\nfn main() {\n    unsafe {\n        let v = raw();\n        println!(\"{}\", v);\n    }\n}\n\nunsafe fn twice() -> i32 {\n    let a = raw();\n    a * 2\n}\n";
    let plan = run("m.rs", text, 7, 8, "show").unwrap();
    assert!(
        after(&plan).contains("    unsafe {\n        show();\n    }\n}\n\nunsafe fn show() {\n    let v = raw();\n    println!(\"{}\", v);\n}\n"),
        "{}",
        after(&plan)
    );
    assert!(has(
        &plan,
        7,
        Severity::Info,
        "inside the `unsafe` block at line 6"
    ));
    let plan = run("m.rs", text, 13, 13, "first").unwrap();
    assert!(
        after(&plan).contains("unsafe fn twice() -> i32 {\n    let a = unsafe { first() };\n    a * 2\n}\n\nunsafe fn first() -> i32 {\n    let a = raw();\n    a\n}\n"),
        "{}",
        after(&plan)
    );
    assert!(has(&plan, 13, Severity::Info, "`twice` is an `unsafe fn`"));
}

#[test]
fn rust_items_declared_in_the_function_body_are_not_visible_from_the_new_function() {
    let text = "fn show<T: std::fmt::Debug + Default>(t: T) {\n    use std::collections::HashMap;\n    const K: i32 = 2;\n    static N: i32 = 4;\n    macro_rules! twice {\n        ($e:expr) => {\n            $e * 2\n        };\n    }\n    let m: HashMap<i32, i32> = HashMap::new();\n    println!(\"{:?} {} {} {}\", T::default(), K, N, twice!(3));\n    println!(\"{}\", m.len());\n}\n";
    let plan = run("m.rs", text, 11, 11, "print_all").unwrap();
    // `T` is only named in the body: declared, and given at the call.
    assert!(
        after(&plan).contains("    print_all::<T>();\n"),
        "{}",
        after(&plan)
    );
    assert!(after(&plan).contains("fn print_all<T: std::fmt::Debug + Default>() {\n"));
    for part in [
        "the selection reads `K`, bound at line 3 outside it",
        "the selection reads `N`, bound at line 4 outside it",
        "the selection uses `twice`, declared at line 5 inside `show`",
    ] {
        assert!(
            has(&plan, 11, Severity::Warning, part),
            "{part}: {:?}",
            messages(&plan)
        );
    }
    let plan = run("m.rs", text, 10, 10, "make").unwrap();
    assert!(
        has(
            &plan,
            10,
            Severity::Warning,
            "the selection uses `HashMap`, declared at line 2 inside `show`"
        ),
        "{:?}",
        messages(&plan)
    );
    // Items the selection declares itself are fine; read after it, they are reported.
    let plan = run("m.rs", text, 3, 4, "consts").unwrap();
    assert!(
        has(
            &plan,
            3,
            Severity::Warning,
            "`K` is declared in the selection and read after it at line 11"
        ),
        "{:?}",
        messages(&plan)
    );
}

#[test]
fn rust_tails_that_carry_a_value_and_selections_that_never_return() {
    // A trailing `if .. else ..` is the function's value.
    let text =
        "fn pick(a: bool) -> i32 {\n    if a {\n        1\n    } else {\n        2\n    }\n}\n";
    let plan = run("m.rs", text, 2, 6, "choose").unwrap();
    // The new function returns it, typed as `pick` declares; the call is the value.
    assert!(
        after(&plan).contains("fn pick(a: bool) -> i32 {\n    choose(a)\n}\n\nfn choose(a: bool) -> i32 {\n    if a {\n"),
        "{}",
        after(&plan)
    );
    assert!(plan.findings.is_empty(), "{:?}", messages(&plan));
    // `unreachable!` gives its arm the type `!`: the new function keeps it.
    let text = "fn f(n: u8) -> u8 {\n    match n {\n        0 => 1,\n        _ => {\n            unreachable!(\"no\");\n        }\n    }\n}\n";
    let plan = run("m.rs", text, 5, 5, "never").unwrap();
    assert!(
        after(&plan).contains("fn never() -> ! {\n    unreachable!(\"no\");\n}\n"),
        "{}",
        after(&plan)
    );
    // A nested fn is visible in its whole block: a call before the selection loses it.
    let text = "fn f() -> i32 {\n    let v = helper();\n    fn helper() -> i32 {\n        4\n    }\n    v\n}\n";
    let plan = run("m.rs", text, 3, 5, "define").unwrap();
    assert!(
        has(
            &plan,
            3,
            Severity::Warning,
            "`helper` is declared in the selection and read before it at line 2"
        ),
        "{:?}",
        messages(&plan)
    );
}

#[test]
fn caveat_notes_say_what_the_data_flow_did() {
    use crate::honesty::Caveat;
    let text = "def f(items, factor):\n    total = 0\n    count = 0\n    for item in items:\n        total += item * factor\n        count += 1\n    return total, count\n";
    let plan = run("a.py", text, 4, 6, "accumulate").unwrap();
    assert!(
        after(&plan).contains("    total, count = accumulate(items, total, factor, count)\n"),
        "{}",
        after(&plan)
    );
    let notes: Vec<(Caveat, &str)> = plan
        .caveat_notes
        .iter()
        .map(|n| (n.caveat, n.note.as_str()))
        .collect();
    assert_eq!(
        notes,
        [
            (
                Caveat::ExtractCapturedLocals,
                "captured `items`, `total`, `factor`, `count` passed as parameters — types not checked"
            ),
            (
                Caveat::ExtractReturnValue,
                "`total`, `count` returned as a tuple and assigned at the call"
            ),
        ]
    );
    // Nothing captured, nothing returned: no note.
    let plan = run(
        "a.py",
        "def g():\n    print(1)\n    print(2)\n",
        2,
        2,
        "one",
    )
    .unwrap();
    assert!(plan.caveat_notes.is_empty(), "{:?}", plan.caveat_notes);
    // Rust: typed from the declarations, and the note says which ones could not be.
    let rust = "fn f(limit: u32, names: &[String]) -> usize {\n    let mut seen = Vec::new();\n    for name in names {\n        if name.len() as u32 > limit {\n            seen.push(shorten(name));\n        }\n    }\n    seen.len()\n}\n";
    let plan = run("a.rs", rust, 3, 7, "keep_long").unwrap();
    assert!(
        after(&plan).contains("    keep_long(names, limit, &mut seen);\n"),
        "{}",
        after(&plan)
    );
    assert!(after(&plan).contains("fn keep_long(names: &[String], limit: u32, seen: &mut _) {\n"));
    assert_eq!(
        plan.caveat_notes[0].note,
        "captured `names`, `limit`, `seen` passed as parameters — typed from their declarations, except `seen` (see the findings)"
    );
}

#[test]
fn python_a_name_assigned_on_some_paths_only_is_a_warning() {
    let text = "def f(xs):\n    for x in xs:\n        last = x\n    print(last)\n";
    let plan = run("a.py", text, 2, 3, "walk").unwrap();
    assert!(
        after(&plan).contains("    last = walk(xs)\n"),
        "{}",
        after(&plan)
    );
    assert!(
        has(
            &plan,
            3,
            Severity::Warning,
            "`last` is returned but the selection assigns it only on some paths (line 3)"
        ),
        "{:?}",
        messages(&plan)
    );
    // With a value before the selection, it is passed in and nothing is lost.
    let text = "def f(xs):\n    last = None\n    for x in xs:\n        last = x\n    print(last)\n";
    let plan = run("a.py", text, 3, 4, "walk").unwrap();
    assert!(
        after(&plan).contains("    last = walk(xs, last)\n"),
        "{}",
        after(&plan)
    );
    assert!(plan.findings.is_empty(), "{:?}", messages(&plan));
}

#[test]
fn rust_a_local_a_consuming_method_is_called_on_is_moved_in() {
    let text = "fn f(name: Option<String>, words: Vec<String>) {\n    let n = name.unwrap();\n    let count = words.into_iter().count();\n    println!(\"{n} {count}\");\n}\n";
    let plan = run("a.rs", text, 2, 3, "take").unwrap();
    assert!(
        after(&plan).contains("    let (n, count) = take(name, words);\n"),
        "{}",
        after(&plan)
    );
    assert!(
        after(&plan)
            .contains("fn take(name: Option<String>, words: Vec<String>) -> (String, usize) {\n"),
        "{}",
        after(&plan)
    );
}

#[test]
fn rust_mutated_and_compared_parameters_are_dereferenced() {
    let text = "struct P { x: i32 }\n\nfn f(mut p: P, limit: String) {\n    let other = String::new();\n    p.x += 1;\n    if limit == other {\n        p.x = 0;\n    }\n    println!(\"{}\", p.x);\n}\n";
    let plan = run("a.rs", text, 5, 8, "bump").unwrap();
    // `p` is mutated through a field: `&mut`; `limit` and `other` are compared: `&`, read
    // through `*`.
    assert!(
        after(&plan).contains("    bump(&mut p, &limit, &other);\n"),
        "{}",
        after(&plan)
    );
    assert!(
        after(&plan).contains("fn bump(p: &mut P, limit: &String, other: &String) {\n    p.x += 1;\n    if *limit == *other {\n        p.x = 0;\n    }\n}\n"),
        "{}",
        after(&plan)
    );
}

#[test]
fn rust_a_returned_borrow_tied_to_an_argument_borrowed_at_the_call_is_a_warning() {
    // `len` is passed as `&len`, the only reference in: Rust ties the returned `&str` to it,
    // though the slice comes from the raw pointer through a function of the file (std's
    // `slice::from_raw_parts` called here would give an unbounded `'a`, see `lifetimes_tests`).
    let text = "struct Len(usize);\nimpl Len {\n    fn get(&self) -> usize {\n        self.0\n    }\n}\nunsafe fn raw_parts<'a>(p: *const u8, n: usize) -> &'a [u8] {\n    std::slice::from_raw_parts(p, n)\n}\nunsafe fn view(ptr: *const u8, len: Len) -> usize {\n    let len2: Len = len;\n    let slice: &str = std::str::from_utf8_unchecked(raw_parts(ptr, len2.get()));\n    slice.len()\n}\n";
    let plan = run("a.rs", text, 12, 12, "make").unwrap();
    assert!(
        has(
            &plan,
            12,
            Severity::Warning,
            "a borrow that Rust ties to `&len2`, borrowed at the call"
        ),
        "{:?}\n{}",
        messages(&plan),
        after(&plan)
    );
}

#[test]
fn rust_a_ref_binding_of_the_selection_cannot_be_returned() {
    let text = "fn f(a: u32) -> u32 {\n    let ref r = a;\n    let s = *r + 1;\n    let ref r = s;\n    *r\n}\n";
    let plan = run("a.rs", text, 3, 4, "g").unwrap();
    assert!(
        has(
            &plan,
            4,
            Severity::Error,
            "`r` (bound by `ref` at line 4) borrows a value of `g`, so `g` cannot return it"
        ),
        "{:?}",
        messages(&plan)
    );
}

#[test]
fn rust_a_mutable_borrow_through_a_field_of_a_reference_parameter_gets_no_star() {
    // rust-analyzer's `mut_nested_field_from_outer_scope`: `&mut v.p.n` with `v: &mut C` borrows
    // the field through auto-deref; `&mut *v.p.n` would dereference the `i32`.
    let text = "struct P { n: i32 }\nstruct C { p: P }\nfn foo() {\n    let mut c = C { p: P { n: 0 } };\n    let mut v = C { p: P { n: 0 } };\n    let mut w = 0i32;\n    c.p.n += 1;\n    let r = &mut v.p.n;\n    let s = &mut w;\n    *r += *s;\n    let m = c.p.n + v.p.n + w;\n}\n";
    let plan = run("a.rs", text, 7, 10, "bump").unwrap();
    let out = after(&plan);
    assert!(out.contains("    let r = &mut v.p.n;\n"), "{out}");
    assert!(out.contains("    let s = &mut *w;\n"), "{out}");
    assert!(
        out.contains("fn bump(c: &mut C, v: &mut C, w: &mut i32) {\n"),
        "{out}"
    );
}
