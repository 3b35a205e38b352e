//! Unit tests of inline function on small in-memory projects.

use super::*;
use crate::lang::symbols::SymbolQuery;
use crate::refactor::{MemorySources, Plan, Request, Severity};

/// The refactor alone, in the language of the request's file (the result is not checked).
fn plan(
    sources: &dyn crate::refactor::Sources,
    request: &InlineRequest,
) -> Result<Plan, RefactorError> {
    let lang = crate::lang::Language::from_path(&request.file)
        .ok_or_else(|| RefactorError::UnsupportedLanguage(request.file.clone()))?;
    super::plan(sources, request, lang)
}

fn inline(files: &[(&str, &str)], file: &str, name: &str) -> Result<Plan, RefactorError> {
    let mut sources = MemorySources::new();
    for (path, text) in files {
        sources = sources.with(path, text);
    }
    let request = Request::Inline(InlineRequest {
        file: file.to_string(),
        function: SymbolQuery {
            name: name.to_string(),
            line: None,
            column: None,
        },
    });
    crate::refactor::plan(&sources, &request)
}

fn after(plan: &Plan, path: &str) -> String {
    plan.changes
        .iter()
        .find(|c| c.path == path)
        .map(|c| c.after.clone())
        .unwrap_or_else(|| panic!("{path} unchanged; findings {:#?}", plan.findings))
}

fn messages(plan: &Plan, severity: Severity) -> Vec<String> {
    plan.findings
        .iter()
        .filter(|f| f.severity == severity)
        .map(|f| format!("{}:{}: {}", f.file, f.line, f.message))
        .collect()
}

fn unsupported(result: Result<Plan, RefactorError>) -> String {
    match result {
        Err(RefactorError::Unsupported(m)) => m,
        other => panic!("expected Unsupported, got {other:#?}"),
    }
}

#[test]
fn python_statement_calls() {
    let text = "def helper(a, b):\n    total = a + b\n    return total\n\n\ndef main():\n    x = 1\n    y = 2\n    print(x)\n    print(y)\n    return helper(x, y)\n";
    let plan = inline(&[("app.py", text)], "app.py", "helper").unwrap();
    assert_eq!(
        after(&plan, "app.py"),
        "def main():\n    x = 1\n    y = 2\n    print(x)\n    print(y)\n    a = x\n    b = y\n    total = a + b\n    return total\n"
    );
    assert!(
        messages(&plan, Severity::Warning).is_empty(),
        "{:#?}",
        plan.findings
    );
}

fn warnings(plan: &Plan) -> Vec<String> {
    messages(plan, Severity::Warning)
}

// ---------------------------------------------------------------- Python

#[test]
fn python_keywords_defaults_and_the_docstring() {
    let text = "def f(a, b=2, *, c=None):\n    \"\"\"Doc.\"\"\"\n    x = a * b\n    return x\n\n\ndef g(q):\n    y = f(q, c=3)\n    f(b=1, a=q)\n    return y\n";
    let plan = inline(&[("a.py", text)], "a.py", "f").unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "def g(q):\n    a = q\n    c = 3\n    b = 2\n    x = a * b\n    y = x\n    b = 1\n    a = q\n    c = None\n    x = a * b\n    return y\n"
    );
    assert_eq!(plan.details.to_map()["call_sites_updated"], 2);
    assert_eq!(plan.details.to_map()["definition_removed"], true);
}

#[test]
fn python_values_of_the_final_return() {
    // `return v` becomes `y = v`, `return v`, or disappears when `v` has no effect; a body
    // without `return` gives `None`.
    let text = "def f(a):\n    print(a)\n\n\ndef g(x):\n    y = f(x)\n    y += f(x)\n    return f(x)\n\n\ndef h(x):\n    return f(x)\n    print('never')\n";
    let plan = inline(&[("a.py", text)], "a.py", "f").unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "def g(x):\n    a = x\n    print(a)\n    y = None\n    a = x\n    print(a)\n    y += None\n    a = x\n    print(a)\n\n\ndef h(x):\n    a = x\n    print(a)\n    return None\n    print('never')\n"
    );
    let text = "def f(a):\n    if a:\n        v = 1\n    else:\n        v = 2\n    with open(a) as fh:\n        return fh.read() + str(v)\n\n\nf('p')\nz = f('q')\n";
    let plan = inline(&[("a.py", text)], "a.py", "f").unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "a = 'p'\nif a:\n    v = 1\nelse:\n    v = 2\nwith open(a) as fh:\n    fh.read() + str(v)\na = 'q'\nif a:\n    v = 1\nelse:\n    v = 2\nwith open(a) as fh:\n    z = fh.read() + str(v)\n"
    );
}

#[test]
fn python_calls_inside_expressions() {
    let text = "def sq(v):\n    return v * v\n\n\ndef g(q, xs):\n    z = sq(q + 1) + 2\n    if q and sq(q):\n        pass\n    while sq(q) > 3:\n        q -= 1\n    print(q and sq(q + 1))\n    return [sq(i) for i in xs]\n";
    let plan = inline(&[("a.py", text)], "a.py", "sq").unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "def sq(v):\n    return v * v\n\n\ndef g(q, xs):\n    v = q + 1\n    z = (v * v) + 2\n    v = q\n    if q and (v * v):\n        pass\n    while sq(q) > 3:\n        q -= 1\n    print(q and sq(q + 1))\n    return [sq(i) for i in xs]\n"
    );
    let w = warnings(&plan);
    assert!(
        w.iter()
            .any(|m| m.contains("a.py:9:") && m.contains("`while` condition")),
        "{w:#?}"
    );
    assert!(
        w.iter()
            .any(|m| m.contains("a.py:11:") && m.contains("evaluated only sometimes")),
        "{w:#?}"
    );
    assert!(
        w.iter()
            .any(|m| m.contains("a.py:12:") && m.contains("comprehension")),
        "{w:#?}"
    );
    assert!(
        w.iter()
            .any(|m| m.contains("a.py:1:") && m.contains("is kept")),
        "{w:#?}"
    );
    let infos = messages(&plan, Severity::Info);
    assert!(
        infos
            .iter()
            .any(|m| m.contains("a.py:6:") && m.contains("evaluated in assignments before"))
    );
    // A body of several statements cannot become an expression.
    let text = "def f(a):\n    b = a + 1\n    return b\n\n\nprint(f(1))\n";
    let message = unsupported(inline(&[("a.py", text)], "a.py", "f"));
    assert!(
        message.contains("a.py:6") && message.contains("not a single `return`"),
        "{message}"
    );
}

#[test]
fn python_refusals_name_the_line() {
    let cases = [
        (
            "def f(a):\n    if a:\n        return 1\n    return 2\n\n\nf(3)\n",
            "line 3",
        ),
        ("def f(a):\n    yield a\n\n\nf(3)\n", "generator"),
        ("def f(*a):\n    pass\n\n\nf(3)\n", "*args"),
        (
            "import functools\n\n\n@functools.cache\ndef f(a):\n    return a\n\n\nf(3)\n",
            "@functools.cache",
        ),
        ("def f(a):\n    global g\n    g = a\n\n\nf(3)\n", "global"),
        (
            "def f(a):\n    return f(a - 1)\n\n\nf(3)\n",
            "calls itself at line 2",
        ),
        ("async def f(a):\n    return a\n\n\nf(3)\n", "async"),
        ("def f(a):\n    return a\n", "found no call"),
    ];
    for (text, expected) in cases {
        let message = unsupported(inline(&[("a.py", text)], "a.py", "f"));
        assert!(message.contains(expected), "{text:?}: {message}");
    }
}

#[test]
fn python_uses_other_than_calls_keep_the_definition() {
    let text = "def f(a):\n    return a + 1\n\n\nprint(f(1))\nys = map(f, [1, 2])\n# f is nice\n";
    let plan = inline(&[("a.py", text)], "a.py", "f").unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "def f(a):\n    return a + 1\n\n\na = 1\nprint(a + 1)\nys = map(f, [1, 2])\n# f is nice\n"
    );
    assert_eq!(plan.details.to_map()["definition_removed"], false);
    let w = warnings(&plan);
    assert!(
        w.iter()
            .any(|m| m.contains("a.py:6:") && m.contains("used as a value")),
        "{w:#?}"
    );
    assert!(
        messages(&plan, Severity::Info)
            .iter()
            .any(|m| m.contains("a.py:7:") && m.contains("comment"))
    );
}

#[test]
fn python_methods_bind_self_only_where_sound() {
    let text = "class A:\n    def m(self, k):\n        return self.v + k\n\n    def go(self):\n        r = self.m(2)\n        return r\n\n\nclass B:\n    def run(self, a):\n        x = A.m(a, 1)\n        return x\n\n\nv = A.m(obj, 3)\n";
    let plan = inline(&[("a.py", text)], "a.py", "A/m").unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "class A:\n    def m(self, k):\n        return self.v + k\n\n    def go(self):\n        k = 2\n        r = self.v + k\n        return r\n\n\nclass B:\n    def run(self, a):\n        x = A.m(a, 1)\n        return x\n\n\nself = obj\nk = 3\nv = self.v + k\n"
    );
    let w = warnings(&plan);
    assert!(
        w.iter()
            .any(|m| m.contains("a.py:12:") && m.contains("overwrite the caller's own `self`")),
        "{w:#?}"
    );
    assert_eq!(plan.details.to_map()["definition_removed"], false);
    // Another receiver: no type analysis, so it is left and the definition stays.
    let text = "class A:\n    def m(self):\n        return 1\n\n\ndef g(a):\n    return a.m()\n";
    let message = unsupported(inline(&[("a.py", text)], "a.py", "A/m"));
    assert!(message.contains("cannot tell the type of `a`"), "{message}");
    // The only method of a class leaves `pass`.
    let text =
        "class A:\n    @staticmethod\n    def m(k):\n        return k * 2\n\n\nprint(A.m(4))\n";
    let plan = inline(&[("a.py", text)], "a.py", "m").unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "class A:\n    pass\n\n\nk = 4\nprint(k * 2)\n"
    );
}

#[test]
fn python_across_files_with_imports() {
    let util = "import os\n\n\ndef helper(p):\n    return os.path.join(p, 'x')\n\n\ndef other():\n    pass\n";
    let main = "from pkg.util import helper, other\n\nprint(helper('a'))\n";
    let second = "from pkg.util import helper\nimport pkg.util\n\nv = helper('b')\nw = pkg.util.helper('c')\n";
    let foreign = "from elsewhere import helper\n\nhelper(1)\n";
    let plan = inline(
        &[
            ("pkg/util.py", util),
            ("main.py", main),
            ("m2.py", second),
            ("foreign.py", foreign),
        ],
        "pkg/util.py",
        "helper",
    )
    .unwrap();
    assert_eq!(
        after(&plan, "pkg/util.py"),
        "import os\n\n\ndef other():\n    pass\n"
    );
    assert_eq!(
        after(&plan, "main.py"),
        "from pkg.util import other\n\np = 'a'\nprint(os.path.join(p, 'x'))\n"
    );
    assert_eq!(
        after(&plan, "m2.py"),
        "import pkg.util\n\np = 'b'\nv = os.path.join(p, 'x')\np = 'c'\nw = os.path.join(p, 'x')\n"
    );
    assert!(plan.changes.iter().all(|c| c.path != "foreign.py"));
    let w = warnings(&plan);
    assert!(
        w.iter()
            .any(|m| m.starts_with("main.py:3:") && m.contains("`os`")),
        "{w:#?}"
    );
}

#[test]
fn python_temporaries_never_overwrite_the_callers_names() {
    // The module's own `a` and `b` are not overwritten either.
    let text = "def f(a, b):\n    print(a, b)\n\n\na = 1\nb = 2\nf(b, a)\nprint(a)\n";
    let plan = inline(&[("a.py", text)], "a.py", "f").unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "a = 1\nb = 2\na_1 = b\nb_1 = a\nprint(a_1, b_1)\nprint(a)\n"
    );
    // In a function that has `a` and `b` itself, they would be overwritten: fresh names.
    let text = "def f(a, b):\n    print(a, b)\n\n\ndef g(a, b):\n    f(b, a)\n    return a\n";
    let plan = inline(&[("a.py", text)], "a.py", "f").unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "def g(a, b):\n    a_1 = b\n    b_1 = a\n    print(a_1, b_1)\n    return a\n"
    );
    let w = warnings(&plan);
    assert!(!w.iter().any(|m| m.contains("overwritten")), "{w:#?}");
    let notes: Vec<&str> = plan.caveat_notes.iter().map(|n| n.note.as_str()).collect();
    assert_eq!(
        notes,
        vec![
            "arguments assigned to the parameter names",
            "temporaries renamed: `a` → `a_1`, `b` → `b_1`"
        ]
    );
}

#[test]
fn python_reindents_into_tabs_and_crlf_and_keeps_strings() {
    let util = "def show(n):\n    text = \"\"\"Total:\n    {}\"\"\".format(n)\n    if n:\n        print(text)\n";
    let main = "from util import show\r\n\r\nclass App:\r\n\tdef run(self):\r\n\t\tshow(3)\r\n";
    let plan = inline(&[("util.py", util), ("main.py", main)], "util.py", "show").unwrap();
    assert_eq!(
        after(&plan, "main.py"),
        "class App:\r\n\tdef run(self):\r\n\t\tn = 3\r\n\t\ttext = \"\"\"Total:\r\n    {}\"\"\".format(n)\r\n\t\tif n:\r\n\t\t\tprint(text)\r\n"
    );
    assert_eq!(after(&plan, "util.py"), "");
}

// ---------------------------------------------------------------- Rust

#[test]
fn rust_value_and_statement_calls() {
    let text = "fn helper(a: i32, b: i32) -> i32 {\n    a + b\n}\n\nfn main() {\n    let x = 1;\n    let _ = helper(x, 2);\n}\n";
    let plan = inline(&[("app.rs", text)], "app.rs", "helper").unwrap();
    assert_eq!(
        after(&plan, "app.rs"),
        "fn main() {\n    let x = 1;\n    let _ = {\n        let a: i32 = x;\n        let b: i32 = 2;\n        a + b\n    };\n}\n"
    );
    let text = "/// Logs.\n#[inline]\nfn log(mut n: u32, s: &str) {\n    n += 1;\n    println!(\"{n} {s}\");\n    return;\n}\n\nfn main() {\n    let s = \"x\";\n    log(1, s);\n}\n";
    let plan = inline(&[("a.rs", text)], "a.rs", "log").unwrap();
    assert_eq!(
        after(&plan, "a.rs"),
        "fn main() {\n    let s = \"x\";\n    {\n        let mut n: u32 = 1;\n        n += 1;\n        println!(\"{n} {s}\");\n    }\n}\n"
    );
}

#[test]
fn rust_blocks_get_parentheses_where_a_statement_would_start() {
    let text = "fn sq(v: i64) -> i64 {\n    let r = v * v;\n    return r;\n}\n\nfn main() {\n    let a = sq(3).abs();\n    sq(4).abs();\n    let b = match a { 1 => sq(2) + 1, _ => 0 };\n    let Some(c) = Some(sq(1)) else { return };\n    let d = [sq(5), c];\n}\n";
    let plan = inline(&[("a.rs", text)], "a.rs", "sq").unwrap();
    let out = after(&plan, "a.rs");
    assert!(out.contains("    let a = {\n        let v: i64 = 3;\n        let r = v * v;\n        r\n    }.abs();\n"), "{out}");
    assert!(out.contains("    ({\n        let v: i64 = 4;"), "{out}");
    assert!(out.contains("1 => ({\n"), "{out}");
    assert!(out.contains("let Some(c) = Some({\n"), "{out}");
    assert!(out.contains("let d = [{\n"), "{out}");
    assert!(
        crate::lang::syntax_errors(&Language::Rust.parse(&out), &out).is_empty(),
        "{out}"
    );
    let text = "fn g() -> Option<i32> { Some(1) }\nstruct W { v: i32 }\nfn w() -> W { W { v: 1 } }\n\nfn main() {\n    let Some(x) = g() else { return };\n    let W { v } = w() else { return };\n    if w().v > x {}\n}\n";
    let plan = inline(&[("a.rs", text)], "a.rs", "g").unwrap();
    assert!(after(&plan, "a.rs").contains("let Some(x) = Some(1) else { return };"));
    let plan = inline(&[("a.rs", text)], "a.rs", "w").unwrap();
    let out = after(&plan, "a.rs");
    assert!(
        out.contains("let W { v } = (W { v: 1 }) else { return };"),
        "{out}"
    );
    assert!(out.contains("if (W { v: 1 }).v > x {}"), "{out}");
}

#[test]
fn rust_refusals_name_the_line() {
    let cases = [
        (
            "fn f(x: i32) -> Option<i32> {\n    if x > 0 { return None; }\n    Some(x)\n}\nfn main() { f(1); }\n",
            "line 2",
        ),
        (
            "fn f(x: i32) -> Result<i32, E> {\n    let y = g(x)?;\n    Ok(y)\n}\nfn main() { f(1); }\n",
            "`?` (line 2)",
        ),
        (
            "fn f(x: u32) -> u32 {\n    if x == 0 { 0 } else { f(x - 1) }\n}\nfn main() { f(1); }\n",
            "calls itself at line 2",
        ),
        (
            "fn f<T: Default>(x: T) -> T {\n    T::default()\n}\nfn main() { f(1); }\n",
            "generic parameter `T`",
        ),
        ("async fn f() {}\nfn main() { f(); }\n", "async"),
        ("#[cfg(test)]\nfn f() {}\nfn main() { f(); }\n", "#[cfg]"),
        (
            "fn f() -> anyhow::Result<()> {\n    bail!(\"no\");\n}\nfn main() { f(); }\n",
            "bail!",
        ),
        (
            "struct S;\nimpl Drop for S {\n    fn drop(&mut self) {}\n}\n",
            "trait `Drop`",
        ),
        ("fn f() {}\n", "found no call"),
    ];
    for (text, expected) in cases {
        let name = if text.contains("drop") { "drop" } else { "f" };
        let message = unsupported(inline(&[("a.rs", text)], "a.rs", name));
        assert!(message.contains(expected), "{text:?}: {message}");
    }
}

#[test]
fn rust_methods() {
    let text = "pub struct P {\n    x: i32,\n}\n\nimpl P {\n    fn norm(&self) -> i32 {\n        self.x.abs()\n    }\n\n    fn twice(&self) -> i32 {\n        self.norm() * 2\n    }\n}\n\nfn use_it(p: &P) -> i32 {\n    P::norm(p)\n}\n";
    let plan = inline(&[("src/lib.rs", text)], "src/lib.rs", "P/norm").unwrap();
    assert_eq!(
        after(&plan, "src/lib.rs"),
        "pub struct P {\n    x: i32,\n}\n\nimpl P {\n    fn twice(&self) -> i32 {\n        self.x.abs() * 2\n    }\n}\n\nfn use_it(p: &P) -> i32 {\n    {\n        let this: &P = p;\n        this.x.abs()\n    }\n}\n"
    );
    // `q.norm()`: the type of `q` is unknown, so the call is left and the method kept.
    let text = "struct P {\n    x: i32,\n}\n\nimpl P {\n    fn norm(&self) -> i32 {\n        self.x\n    }\n\n    fn new() -> Self {\n        Self { x: 1 }\n    }\n}\n\nfn f(q: P) -> i32 {\n    q.norm() + P::new().x\n}\n";
    let plan = inline(&[("a.rs", text)], "a.rs", "P/new").unwrap();
    assert!(after(&plan, "a.rs").contains("q.norm() + P { x: 1 }.x"));
    let message = unsupported(inline(&[("a.rs", text)], "a.rs", "P/norm"));
    assert!(
        message.contains("cannot tell the type of `q`") && message.contains("a.rs:16"),
        "{message}"
    );
}

#[test]
fn rust_across_files_removes_the_imports() {
    let util = "use std::collections::HashMap;\n\npub fn helper(k: &str) -> usize {\n    let m: HashMap<&str, usize> = HashMap::new();\n    m.len() + k.len()\n}\n";
    let main = "mod util;\nuse util::helper;\n\nfn main() {\n\tlet n = helper(\"a\");\n\tprintln!(\"{n}\");\n}\n";
    let other = "use crate::util::{helper, self};\nfn g() -> usize { util::helper(\"c\") }\n";
    let plan = inline(
        &[
            ("src/util.rs", util),
            ("src/main.rs", main),
            ("src/other.rs", other),
        ],
        "src/util.rs",
        "helper",
    )
    .unwrap();
    assert_eq!(
        after(&plan, "src/util.rs"),
        "use std::collections::HashMap;\n"
    );
    assert_eq!(
        after(&plan, "src/main.rs"),
        "mod util;\n\nfn main() {\n\tlet n = {\n\t\tlet k: &str = \"a\";\n\t\tlet m: HashMap<&str, usize> = HashMap::new();\n\t\tm.len() + k.len()\n\t};\n\tprintln!(\"{n}\");\n}\n"
    );
    assert!(after(&plan, "src/other.rs").starts_with("use crate::util::{self};\n"));
    let w = warnings(&plan);
    assert!(
        w.iter()
            .any(|m| m.starts_with("src/main.rs:5:") && m.contains("`HashMap`")),
        "{w:#?}"
    );
    assert!(
        w.iter()
            .any(|m| m.starts_with("src/util.rs:3:") && m.contains("`pub`")),
        "{w:#?}"
    );
    // A call in a macro cannot be rewritten: the definition stays.
    let main = "mod util;\nuse util::helper;\n\nfn main() {\n    let n = helper(\"a\");\n    my_log!(helper(\"b\"));\n}\n";
    let plan = inline(
        &[("src/util.rs", util), ("src/main.rs", main)],
        "src/util.rs",
        "helper",
    )
    .unwrap();
    assert_eq!(plan.details.to_map()["definition_removed"], false);
    assert!(after(&plan, "src/main.rs").starts_with("mod util;\nuse util::helper;\n"));
    assert!(
        warnings(&plan)
            .iter()
            .any(|m| m.contains("src/main.rs:6:") && m.contains("macro"))
    );
}

#[test]
fn rust_swapped_arguments_bind_as_a_tuple() {
    let text = "fn f(a: i32, b: i32) -> i32 {\n    a - b\n}\n\nfn g(a: i32, b: i32) -> i32 {\n    f(b, a)\n}\n";
    let plan = inline(&[("a.rs", text)], "a.rs", "f").unwrap();
    assert_eq!(
        after(&plan, "a.rs"),
        "fn g(a: i32, b: i32) -> i32 {\n    {\n        let (a, b): (i32, i32) = (b, a);\n        a - b\n    }\n}\n"
    );
}

#[test]
fn unknown_and_ambiguous_functions_are_typed_errors() {
    let text = "struct A;\nstruct B;\nimpl A {\n    fn new() {}\n}\nimpl B {\n    fn new() {}\n}\n";
    assert!(matches!(
        inline(&[("a.rs", text)], "a.rs", "new"),
        Err(RefactorError::Ambiguous(_))
    ));
    assert!(matches!(
        inline(&[("a.rs", text)], "a.rs", "nope"),
        Err(RefactorError::NotFound(_))
    ));
    assert!(matches!(
        inline(&[("a.rs", text)], "missing.rs", "new"),
        Err(RefactorError::Source(_))
    ));
}

#[test]
fn python_relative_and_package_imports() {
    let init = "def helper(x):\n    return x + 1\n";
    let main = "from . import helper\n\nv = helper(1)\n";
    let other = "from other import helper\n\nw = helper(2)\n";
    let plan = inline(
        &[
            ("pkg/__init__.py", init),
            ("pkg/main.py", main),
            ("lib/mod.py", other),
        ],
        "pkg/__init__.py",
        "helper",
    )
    .unwrap();
    assert_eq!(after(&plan, "pkg/main.py"), "x = 1\nv = x + 1\n");
    assert!(plan.changes.iter().all(|c| c.path != "lib/mod.py"));
}

#[test]
fn rust_explicit_generic_arguments_are_refused() {
    let text = "fn show<T: std::fmt::Debug>(x: T) {\n    println!(\"{x:?}\");\n}\n\nfn main() {\n    show(1);\n    show::<u8>(2);\n}\n";
    let plan = inline(&[("a.rs", text)], "a.rs", "show").unwrap();
    assert_eq!(
        after(&plan, "a.rs"),
        "fn show<T: std::fmt::Debug>(x: T) {\n    println!(\"{x:?}\");\n}\n\nfn main() {\n    {\n        let x = 1;\n        println!(\"{x:?}\");\n    }\n    show::<u8>(2);\n}\n"
    );
    assert!(
        warnings(&plan)
            .iter()
            .any(|m| m.contains("a.rs:7:") && m.contains("explicit generic arguments"))
    );
}

#[test]
fn python_class_calls_in_other_files_need_the_import() {
    let cart = "class Cart:\n    @staticmethod\n    def tax(v):\n        return v * 0.2\n";
    let good = "from cart import Cart\nimport cart\n\nt = Cart.tax(10)\nu = cart.Cart.tax(20)\n";
    let unknown = "t = Cart.tax(30)\n";
    let own =
        "class Cart:\n    @staticmethod\n    def tax(v):\n        return 0\n\n\nt = Cart.tax(40)\n";
    let plan = inline(
        &[
            ("cart.py", cart),
            ("good.py", good),
            ("unknown.py", unknown),
            ("own.py", own),
        ],
        "cart.py",
        "Cart/tax",
    )
    .unwrap();
    assert_eq!(
        after(&plan, "good.py"),
        "from cart import Cart\nimport cart\n\nv = 10\nt = v * 0.2\nv = 20\nu = v * 0.2\n"
    );
    assert_eq!(plan.details.to_map()["definition_removed"], false);
    let w = warnings(&plan);
    assert!(
        w.iter()
            .any(|m| m.starts_with("unknown.py:1:") && m.contains("does not import `Cart`")),
        "{w:#?}"
    );
    assert!(w.iter().any(|m| m.starts_with("own.py:7:")), "{w:#?}");
}

#[test]
fn rust_calls_in_std_macro_arguments() {
    let text = "fn twice(x: u8) -> u8 {\n    x * 2\n}\n\nfn main() {\n    let i = 3;\n    assert_eq!(twice(i), 6, \"{}\", twice(1));\n    println!(\"{}\", twice(i).pow(2));\n}\n";
    let plan = inline(&[("a.rs", text)], "a.rs", "twice").unwrap();
    let out = after(&plan, "a.rs");
    assert_eq!(
        out,
        "fn main() {\n    let i = 3;\n    assert_eq!({\n        let x: u8 = i;\n        x * 2\n    }, 6, \"{}\", {\n        let x: u8 = 1;\n        x * 2\n    });\n    println!(\"{}\", {\n        let x: u8 = i;\n        x * 2\n    }.pow(2));\n}\n"
    );
    assert_eq!(plan.details.to_map()["call_sites_updated"], 3);
    // A single-expression body without bindings goes in bare, in parentheses unless atomic.
    let text =
        "fn one() -> i32 {\n    2 - 1\n}\n\nfn main() {\n    println!(\"{}\", one() * 3);\n}\n";
    let plan = inline(&[("a.rs", text)], "a.rs", "one").unwrap();
    assert_eq!(
        after(&plan, "a.rs"),
        "fn main() {\n    println!(\"{}\", (2 - 1) * 3);\n}\n"
    );
    // Literals alone would become `i32` there: a `u8` result keeps its type.
    let text =
        "fn one() -> u8 {\n    2 - 1\n}\n\nfn main() {\n    println!(\"{}\", one() * 3);\n}\n";
    let plan = inline(&[("a.rs", text)], "a.rs", "one").unwrap();
    assert_eq!(
        after(&plan, "a.rs"),
        "fn main() {\n    println!(\"{}\", {\n        let value: u8 = 2 - 1;\n        value\n    } * 3);\n}\n"
    );
}

/// A project where one file could not be read.
struct WithSkipped(MemorySources);

impl crate::refactor::Sources for WithSkipped {
    fn file(&self, path: &str) -> Result<Option<crate::edit::SourceFile>, SourceError> {
        self.0.file(path)
    }

    fn files_mentioning(
        &self,
        lang: Language,
        word: &str,
    ) -> Result<crate::refactor::Mentioning, SourceError> {
        let mut mentioning = self.0.files_mentioning(lang, word)?;
        mentioning.skipped.push((
            "big.py".to_string(),
            "is over the file size limit".to_string(),
        ));
        Ok(mentioning)
    }

    fn dir_exists(&self, path: &str) -> bool {
        self.0.dir_exists(path)
    }
}

#[test]
fn a_skipped_file_keeps_the_definition() {
    let sources =
        WithSkipped(MemorySources::new().with("a.py", "def f(a):\n    return a\n\n\nx = f(1)\n"));
    let request = InlineRequest {
        file: "a.py".to_string(),
        function: SymbolQuery {
            name: "f".to_string(),
            line: None,
            column: None,
        },
    };
    let plan = plan(&sources, &request).unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "def f(a):\n    return a\n\n\na = 1\nx = a\n"
    );
    assert_eq!(plan.details.to_map()["definition_removed"], false);
    let w = warnings(&plan);
    assert!(
        w.iter()
            .any(|m| m.starts_with("big.py:1:") && m.contains("over the file size limit")),
        "{w:#?}"
    );
}

#[test]
fn rust_a_value_typed_by_the_return_type_keeps_it() {
    // `parse` infers its type from the return type, and `*mut` coerces to `*const` there:
    // inlined, the value is bound with the declared type.
    let text = "fn parse(s: &str) -> Option<i32> {\n    s.parse().ok()\n}\n\nfn to_const(p: *mut u8) -> *const u8 {\n    p.wrapping_add(0)\n}\n\nfn main() {\n    if let Some(n) = parse(\"12\") {\n        println!(\"{}\", n);\n    }\n    parse(\"3\");\n}\n";
    let plan = inline(&[("m.rs", text)], "m.rs", "parse").unwrap();
    assert!(
        after(&plan, "m.rs").contains("    if let Some(n) = {\n        let s: &str = \"12\";\n        let value: Option<i32> = s.parse().ok();\n        value\n    } {\n"),
        "{}",
        after(&plan, "m.rs")
    );
    assert!(
        after(&plan, "m.rs").contains("    {\n        let s: &str = \"3\";\n        let value: Option<i32> = s.parse().ok();\n        value\n    };\n"),
        "{}",
        after(&plan, "m.rs")
    );
    let text = "fn to_const(p: *mut u8) -> *const u8 {\n    p.wrapping_add(0)\n}\n\nfn main() {\n    let mut x = 1u8;\n    let q = &mut x as *mut u8;\n    let p = to_const(q);\n}\n";
    let plan = inline(&[("m.rs", text)], "m.rs", "to_const").unwrap();
    assert!(
        after(&plan, "m.rs").contains("    let p = {\n        let p: *mut u8 = q;\n        let value: *const u8 = p.wrapping_add(0);\n        value\n    };\n"),
        "{}",
        after(&plan, "m.rs")
    );
    // A value whose type is its own stays bare.
    let text = "fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\nfn main() {\n    let (a, b) = (1, 2);\n    let c = add(a, b);\n}\n";
    let plan = inline(&[("m.rs", text)], "m.rs", "add").unwrap();
    assert!(
        after(&plan, "m.rs").contains("    let c = a + b;\n"),
        "{}",
        after(&plan, "m.rs")
    );
    // A literal alone takes the return type; next to a typed operand it does not need to.
    let text = "fn big() -> u64 {\n    1 << 40\n}\n\nfn twice(x: u8) -> u8 {\n    x * 2\n}\n\nfn main() {\n    let b = big();\n    let t = twice(b as u8);\n}\n";
    let plan = inline(&[("m.rs", text)], "m.rs", "big").unwrap();
    assert!(
        after(&plan, "m.rs")
            .contains("    let b = {\n        let value: u64 = 1 << 40;\n        value\n    };\n"),
        "{}",
        after(&plan, "m.rs")
    );
    let plan = inline(&[("m.rs", text)], "m.rs", "twice").unwrap();
    assert!(
        after(&plan, "m.rs")
            .contains("    let t = {\n        let x: u8 = b as u8;\n        x * 2\n    };\n"),
        "{}",
        after(&plan, "m.rs")
    );
    // A return type naming the function's lifetimes cannot be written at the call site: a warning.
    let text = "fn pick<'a>(s: &'a String) -> &'a str {\n    s\n}\n\nfn main() {\n    let o = String::new();\n    let p = pick(&o);\n}\n";
    let plan = inline(&[("m.rs", text)], "m.rs", "pick").unwrap();
    assert!(
        messages(&plan, Severity::Warning)
            .iter()
            .any(|m| m.contains("took its type from the return type `&'a str`")),
        "{:#?}",
        plan.findings
    );
}

#[test]
fn rust_the_advice_for_a_method_call_passes_the_receiver_as_self_takes_it() {
    let text = "struct Foo(usize);\n\nimpl Foo {\n    fn add1(&mut self) {\n        self.0 += 1;\n    }\n\n    fn take(self) -> usize {\n        self.0\n    }\n}\n\nfn main() {\n    let mut f = Foo(0);\n    f.add1();\n    let n = f.take();\n}\n";
    let message = unsupported(inline(&[("m.rs", text)], "m.rs", "Foo/add1"));
    assert!(
        message.contains("Write it as `Foo::add1(&mut f, ...)`"),
        "{message}"
    );
    let message = unsupported(inline(&[("m.rs", text)], "m.rs", "Foo/take"));
    assert!(
        message.contains("Write it as `Foo::take(f, ...)`"),
        "{message}"
    );
}

#[test]
fn python_conditional_definitions_and_conditional_imports() {
    // Another branch gives `batched` another body: inlining one of them is refused.
    let text = "import sys\n\nif sys.version_info >= (3, 13):\n    from itertools import batched as fast\n\n    def batched(xs, n):\n        return fast(xs, n)\nelse:\n    def batched(xs, n):\n        return [xs[i:i + n] for i in range(0, len(xs), n)]\n\n\ndef run(xs):\n    return batched(xs, 2)\n";
    let query = |line: usize| {
        let sources = MemorySources::new().with("m.py", text);
        crate::refactor::plan(
            &sources,
            &Request::Inline(InlineRequest {
                file: "m.py".to_string(),
                function: SymbolQuery {
                    name: "batched".to_string(),
                    line: Some(line),
                    column: None,
                },
            }),
        )
    };
    let message = unsupported(query(6));
    assert!(
        message.contains(
            "`batched` (line 6) is defined conditionally, inside the statement at line 3"
        ),
        "{message}"
    );
    // A name the definition's module imports under `try:` is still one of its names.
    let util = "try:\n    from fastlib import scale as _scale\nexcept ImportError:\n    def _scale(v):\n        return v * 2\n\n\ndef double(v):\n    return _scale(v)\n";
    let app = "from util import double\n\n\ndef run():\n    return double(3)\n";
    let plan = inline(&[("util.py", util), ("app.py", app)], "util.py", "double").unwrap();
    assert!(
        warnings(&plan).iter().any(|w| w.contains(
            "the inlined body uses `_scale`, which util.py defines or imports but app.py does not"
        )),
        "{:#?}",
        plan.findings
    );
}

#[test]
fn a_function_whose_own_docs_show_a_call_is_not_recursive() {
    let py = "def take(n, xs):\n    \"\"\"First n items.\n\n    >>> take(2, [1, 2, 3])\n    [1, 2]\n    \"\"\"\n    return list(xs)[:n]\n\n\ndef first_two(xs):\n    return take(2, xs)\n";
    let plan = inline(&[("m.py", py)], "m.py", "take").unwrap();
    assert!(
        !after(&plan, "m.py").contains("def take"),
        "{}",
        after(&plan, "m.py")
    );
    let rs = "/// First n items.\n///\n/// ```\n/// assert_eq!(t::take(1, &[1, 2]), vec![1]);\n/// ```\npub fn take(n: usize, xs: &[i32]) -> Vec<i32> {\n    xs[..n].to_vec()\n}\n\npub fn first(xs: &[i32]) -> Vec<i32> {\n    take(1, xs)\n}\n";
    let plan = inline(&[("src/lib.rs", rs)], "src/lib.rs", "take").unwrap();
    assert!(
        !after(&plan, "src/lib.rs").contains("fn take"),
        "{}",
        after(&plan, "src/lib.rs")
    );
}

#[test]
fn rust_trait_methods_need_the_trait_in_scope_at_the_call_site() {
    let lib = "mod other;\nuse core::str::FromStr;\n\npub struct V(u8);\n\nimpl FromStr for V {\n    type Err = ();\n    fn from_str(_: &str) -> Result<V, ()> {\n        Ok(V(1))\n    }\n}\n\nimpl V {\n    pub fn parse(text: &str) -> Result<V, ()> {\n        V::from_str(text)\n    }\n}\n";
    let other = "use crate::V;\n\npub fn make() -> Result<V, ()> {\n    V::parse(\"1\")\n}\n";
    let plan = inline(
        &[
            ("Cargo.toml", "[package]\nname = \"t\"\n"),
            ("src/lib.rs", lib),
            ("src/other.rs", other),
        ],
        "src/lib.rs",
        "V/parse",
    )
    .unwrap();
    assert!(
        warnings(&plan).iter().any(|w| w.contains("src/other.rs:4: the inlined body calls `from_str`, a method of the trait `FromStr`, which src/lib.rs has in scope and src/other.rs does not")),
        "{:#?}",
        plan.findings
    );
}

#[test]
fn python_arguments_that_span_lines_keep_their_grouping() {
    let text = "def f(a, b):\n    return a * b\n\n\ndef g():\n    y = f(1 +\n          2, [3,\n              4])\n    return y\n";
    let plan = inline(&[("a.py", text)], "a.py", "f").unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "def g():\n    a = (1 +\n          2)\n    b = [3,\n              4]\n    y = a * b\n    return y\n"
    );
}

#[test]
fn rust_block_after_a_range_in_a_for_header_is_parenthesized() {
    let text = "fn f(a: i32) -> i32 {\n    let b = a + 1;\n    b * 2\n}\n\nfn main() {\n    for i in 0..f(3) {\n        println!(\"{i}\");\n    }\n}\n";
    let plan = inline(&[("a.rs", text)], "a.rs", "f").unwrap();
    let out = after(&plan, "a.rs");
    assert!(out.contains("for i in 0..({"), "{out}");
    assert!(out.contains("}) {"), "{out}");
}
