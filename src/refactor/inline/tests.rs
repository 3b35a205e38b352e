//! Unit tests of inline function on small in-memory projects.

use super::*;
use crate::lang::symbols::SymbolQuery;
use crate::refactor::{MemorySources, Plan, Request, Severity};

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

#[test]
fn scratch_python() {
    let show = |files: &[(&str, &str)], file: &str, name: &str| {
        match inline(files, file, name) {
            Ok(plan) => {
                for c in &plan.changes {
                    eprintln!("==== {} ====\n{}", c.path, c.after);
                }
                for f in &plan.findings {
                    eprintln!("  {:?} {}:{} {}", f.severity, f.file, f.line, f.message);
                }
                eprintln!("  details {:?}", plan.details);
            }
            Err(e) => eprintln!("ERR {e:?}"),
        }
        eprintln!("----------------------------------------");
    };
    show(
        &[(
            "a.py",
            "def f(a, b=2, *, c=None):\n    \"\"\"Doc.\"\"\"\n    if a:\n        x = a * b\n    else:\n        x = 0\n    return x\n\n\ndef g(q):\n    y = f(q, c=3)\n    z = f(b=1, a=q) + 1\n    f(1)\n    return y\n",
        )],
        "a.py",
        "f",
    );
    show(
        &[(
            "a.py",
            "def sq(v):\n    return v * v\n\n\ndef g(q):\n    z = sq(q) + sq(2)\n    if q and sq(q):\n        pass\n    while sq(q) > 3:\n        q -= 1\n    return [sq(i) for i in range(3)]\n",
        )],
        "a.py",
        "sq",
    );
    show(
        &[(
            "a.py",
            "def f(a):\n    if a:\n        return 1\n    return 2\n\nf(3)\n",
        )],
        "a.py",
        "f",
    );
    show(
        &[(
            "a.py",
            "class A:\n    def m(self, k):\n        s = '''x\n  y'''\n        return self.v + k\n\n\nclass B:\n    def run(self):\n        return A().m(1)\n\n\nclass C(A):\n    def go(self):\n        r = self.m(2)\n        return r\n",
        )],
        "a.py",
        "A/m",
    );
    show(
        &[(
            "a.py",
            "class A:\n    def m(self, k):\n        return self.v + k\n\n    def go(self):\n        r = self.m(2)\n        return r\n",
        )],
        "a.py",
        "A/m",
    );
    show(
        &[(
            "a.py",
            "class A:\n    def m(self, k):\n        return self.v + k\n\n\nclass B:\n    def go(self):\n        r = A.m(self, 2)\n        return r\n\n\nx = A.m(obj, 3)\n",
        )],
        "a.py",
        "A/m",
    );
    show(
        &[
            (
                "pkg/util.py",
                "import os\n\n\ndef helper(p):\n    return os.path.join(p, 'x')\n\n\ndef other():\n    pass\n",
            ),
            (
                "main.py",
                "from pkg.util import helper, other\n\nprint(helper('a'))\n",
            ),
            (
                "m2.py",
                "from pkg.util import helper\nimport pkg.util\n\nv = helper('b')\nw = pkg.util.helper('c')\n",
            ),
        ],
        "pkg/util.py",
        "helper",
    );
    show(
        &[(
            "a.py",
            "def f(a, b):\n    print(a, b)\n\ndef g(a, b):\n    f(b, a)\n    f(a, b)\n    f(f(1, 2), 3)\n",
        )],
        "a.py",
        "f",
    );
    show(
        &[(
            "a.py",
            "def f(a):\n    print(a)\n\n\ndef g(x):\n    y = f(x)\n    return f(x)\n\n\ndef h(x):\n    return f(x)\n    print('never')\n",
        )],
        "a.py",
        "f",
    );
}

#[test]
fn scratch_rust() {
    let show = |files: &[(&str, &str)], file: &str, name: &str| {
        match inline(files, file, name) {
            Ok(plan) => {
                for c in &plan.changes {
                    eprintln!("==== {} ====\n{}", c.path, c.after);
                }
                for f in &plan.findings {
                    eprintln!("  {:?} {}:{} {}", f.severity, f.file, f.line, f.message);
                }
                eprintln!("  details {:?}", plan.details);
            }
            Err(e) => eprintln!("ERR {e:?}"),
        }
        eprintln!("----------------------------------------");
    };
    show(
        &[(
            "app.rs",
            "fn helper(a: i32, b: i32) -> i32 {\n    a + b\n}\n\nfn main() {\n    let x = 1;\n    let y = 2;\n    println!(\"{}\", x);\n    println!(\"{}\", y);\n    let _ = helper(x, y);\n}\n",
        )],
        "app.rs",
        "helper",
    );
    show(
        &[(
            "a.rs",
            "/// Logs.\n#[inline]\nfn log(mut n: u32, s: &str) {\n    n += 1;\n    println!(\"{n} {s}\");\n    return;\n}\n\nfn main() {\n    let s = \"x\";\n    log(1, s);\n    if true {\n        log(2, \"y\");\n    }\n}\n",
        )],
        "a.rs",
        "log",
    );
    show(
        &[(
            "a.rs",
            "fn sq(v: i64) -> i64 {\n    let r = v * v;\n    return r;\n}\n\nfn main() {\n    let a = sq(3).abs();\n    sq(4).abs();\n    let b = match a { 1 => sq(2) + 1, _ => 0 };\n    let c = [sq(1), 2];\n}\n",
        )],
        "a.rs",
        "sq",
    );
    show(
        &[(
            "a.rs",
            "fn f(x: i32) -> Option<i32> {\n    if x > 0 { return None; }\n    Some(x)\n}\nfn main() { f(1); }\n",
        )],
        "a.rs",
        "f",
    );
    show(
        &[(
            "a.rs",
            "fn f(x: i32) -> Result<i32, E> {\n    let y = g(x)?;\n    Ok(y)\n}\nfn main() { f(1); }\n",
        )],
        "a.rs",
        "f",
    );
    show(
        &[(
            "src/lib.rs",
            "pub struct P { x: i32 }\n\nimpl P {\n    pub fn new(x: i32) -> Self {\n        Self { x }\n    }\n\n    fn norm(&self) -> i32 {\n        self.x.abs()\n    }\n\n    fn twice(&self) -> i32 {\n        self.norm() * 2\n    }\n}\n\nfn use_it(p: &P) -> i32 {\n    let q = P::new(3);\n    P::norm(p) + q.norm()\n}\n",
        )],
        "src/lib.rs",
        "P/norm",
    );
    show(
        &[(
            "src/lib.rs",
            "pub struct P { x: i32 }\n\nimpl P {\n    pub fn new(x: i32) -> Self {\n        Self { x }\n    }\n}\n\nfn use_it() -> P {\n    P::new(3)\n}\n",
        )],
        "src/lib.rs",
        "P/new",
    );
    show(
        &[
            (
                "src/util.rs",
                "use std::collections::HashMap;\n\npub fn helper(k: &str) -> usize {\n    let m: HashMap<&str, usize> = HashMap::new();\n    m.len() + k.len()\n}\n",
            ),
            (
                "src/main.rs",
                "mod util;\nuse util::helper;\n\nfn main() {\n\tlet n = helper(\"a\");\n\tprintln!(\"{n}\");\n}\n",
            ),
            (
                "src/other.rs",
                "use crate::util::{self, helper};\nfn g() -> usize { helper(\"b\") + util::helper(\"c\") }\n",
            ),
        ],
        "src/util.rs",
        "helper",
    );
    show(
        &[(
            "a.rs",
            "fn f(a: i32, b: i32) -> i32 { a - b }\nfn g(a: i32, b: i32) -> i32 { f(b, a) }\n",
        )],
        "a.rs",
        "f",
    );
}
