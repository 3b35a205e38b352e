use super::*;
use crate::lang::symbols::SymbolQuery;
use crate::refactor::MemorySources;

fn project(files: &[(&str, &str)]) -> MemorySources {
    let mut sources = MemorySources::new();
    for (path, text) in files {
        sources = sources.with(path, text);
    }
    sources
}

fn delete(sources: &MemorySources, file: &str, name: &str) -> Result<Plan, RefactorError> {
    let lang = Language::from_path(file).unwrap();
    plan(
        sources,
        &SafeDeleteRequest {
            file: file.to_string(),
            symbol: SymbolQuery {
                name: name.to_string(),
                line: None,
                column: None,
            },
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
fn python_function_goes_with_its_decorator_its_import_and_its_all_entry() {
    let sources = project(&[
        (
            "pkg/core.py",
            "import functools\n\n\n@functools.cache\ndef unused(x):\n    return unused(x - 1) if x else 0\n\n\ndef kept():\n    return 1\n",
        ),
        (
            "pkg/__init__.py",
            "from .core import kept, unused\n\n__all__ = [\"kept\", \"unused\"]\n",
        ),
    ]);
    let plan = delete(&sources, "pkg/core.py", "unused").unwrap();
    assert_eq!(
        after(&plan, "pkg/core.py"),
        "import functools\n\n\ndef kept():\n    return 1\n"
    );
    assert_eq!(
        after(&plan, "pkg/__init__.py"),
        "from .core import kept\n\n__all__ = [\"kept\"]\n"
    );
    let Details::SafeDelete(details) = &plan.details else {
        panic!("{:?}", plan.details)
    };
    assert_eq!(details.definition_lines, "pkg/core.py:4-6");
    assert_eq!(
        details.imports_removed,
        ["pkg/__init__.py:1", "pkg/__init__.py:3"]
    );
}

#[test]
fn a_referenced_function_is_refused_listing_every_reference() {
    let sources = project(&[
        ("a.py", "def helper():\n    return 1\n"),
        (
            "b.py",
            "from a import helper\n\n\ndef run(x):\n    print(helper())\n    return x\n",
        ),
        ("c.py", "from a import *\n\nhelper()\n"),
    ]);
    let err = delete(&sources, "a.py", "helper").unwrap_err();
    let RefactorError::Referenced {
        message,
        references,
    } = &err
    else {
        panic!("{err:?}")
    };
    assert!(message.contains("b.py:5 (call)"), "{message}");
    assert!(message.contains("c.py:3 (call)"), "{message}");
    assert_eq!(references, &["b.py:5", "c.py:3"]);
}

#[test]
fn a_getattr_string_is_a_warning_and_the_class_body_keeps_pass() {
    let sources = project(&[(
        "m.py",
        "class Box:\n    def size(self):\n        return 1\n\n\ndef probe(box):\n    return getattr(box, \"size\")\n",
    )]);
    let plan = delete(&sources, "m.py", "Box/size").unwrap();
    assert_eq!(
        after(&plan, "m.py"),
        "class Box:\n    pass\n\n\ndef probe(box):\n    return getattr(box, \"size\")\n"
    );
    assert!(
        plan.findings
            .iter()
            .any(|f| f.line == 7 && f.message.contains("dynamically")),
        "{:?}",
        plan.findings
    );
}

#[test]
fn rust_struct_goes_with_its_impls_docs_and_pub_use() {
    let sources = project(&[
        (
            "src/lib.rs",
            "mod shapes;\npub use shapes::{Circle, Square};\n\npub fn area() -> u32 {\n    Square(2).area()\n}\n",
        ),
        (
            "src/shapes.rs",
            "/// A circle.\n#[derive(Debug)]\npub struct Circle(pub u32);\n\nimpl Circle {\n    pub fn new() -> Circle {\n        Circle(1)\n    }\n}\n\npub struct Square(pub u32);\n\nimpl Square {\n    pub fn area(&self) -> u32 {\n        self.0 * self.0\n    }\n}\n",
        ),
    ]);
    let plan = delete(&sources, "src/shapes.rs", "Circle").unwrap();
    assert_eq!(
        after(&plan, "src/shapes.rs"),
        "pub struct Square(pub u32);\n\nimpl Square {\n    pub fn area(&self) -> u32 {\n        self.0 * self.0\n    }\n}\n"
    );
    assert_eq!(
        after(&plan, "src/lib.rs"),
        "mod shapes;\npub use shapes::{Square};\n\npub fn area() -> u32 {\n    Square(2).area()\n}\n"
    );
}

#[test]
fn rust_trait_impl_method_is_refused() {
    let sources = project(&[(
        "src/lib.rs",
        "pub struct A;\n\nimpl std::fmt::Display for A {\n    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {\n        write!(f, \"a\")\n    }\n}\n",
    )]);
    let err = delete(&sources, "src/lib.rs", "A/fmt").unwrap_err();
    assert!(err.to_string().contains("cannot be deleted alone"), "{err}");
}

#[test]
fn a_local_is_not_something_safe_delete_removes() {
    let sources = project(&[("a.py", "def f():\n    total = 1\n    return 2\n")]);
    let err = delete(&sources, "a.py", "f/total").unwrap_err();
    assert!(
        err.to_string().contains("safe delete removes a function"),
        "{err}"
    );
}
