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

fn rename(
    sources: &MemorySources,
    file: &str,
    name: &str,
    new_name: &str,
) -> Result<Plan, RefactorError> {
    let request = RenameRequest {
        file: file.into(),
        symbol: SymbolQuery {
            name: name.into(),
            line: None,
            column: None,
        },
        new_name: new_name.into(),
        include_possible: Vec::new(),
    };
    plan(sources, &request, Language::from_path(file).unwrap())
}

fn after(plan: &Plan, path: &str) -> String {
    plan.changes
        .iter()
        .find(|c| c.path == path)
        .map(|c| c.after.clone())
        .unwrap_or_else(|| panic!("{path} unchanged"))
}

#[test]
fn renames_certain_references_and_lists_possible_ones() {
    let sources = project(&[
        ("a.py", "def dedent(text):\n    return text.strip()\n"),
        (
            "b.py",
            "import a\nfrom a import dedent\n\n\ndef use(f, g):\n    f.dedent()\n    a.dedent(\"x\")\n    return dedent(\"y\")\n",
        ),
        ("c.py", "from lib import *\nfrom a import *\ndedent(1)\n"),
    ]);
    let plan = rename(&sources, "a.py", "dedent", "strip_indent").unwrap();
    assert_eq!(
        after(&plan, "a.py"),
        "def strip_indent(text):\n    return text.strip()\n"
    );
    assert_eq!(
        after(&plan, "b.py"),
        "import a\nfrom a import strip_indent\n\n\ndef use(f, g):\n    f.dedent()\n    a.strip_indent(\"x\")\n    return strip_indent(\"y\")\n"
    );
    // `from a import *` makes it certain, though another star import is there too.
    assert_eq!(
        after(&plan, "c.py"),
        "from lib import *\nfrom a import *\nstrip_indent(1)\n"
    );
    let Details::Rename(details) = &plan.details else {
        panic!("{:?}", plan.details)
    };
    assert_eq!(details.references_renamed, 5);
    assert_eq!(details.symbol_kind, "function");
}

#[test]
fn a_collision_is_refused_saying_where() {
    let sources = project(&[
        (
            "a.py",
            "def dedent(text):\n    return text\n\n\ndef indent(text):\n    return text\n",
        ),
        (
            "b.py",
            "from a import dedent\n\n\ndef use(fill):\n    return dedent(fill)\n",
        ),
    ]);
    let error = rename(&sources, "a.py", "dedent", "indent").unwrap_err();
    assert!(error.to_string().contains("a.py:5"), "{error}");
    let error = rename(&sources, "a.py", "dedent", "fill").unwrap_err();
    assert!(error.to_string().contains("b.py:4"), "{error}");
    let error = rename(&sources, "a.py", "dedent", "class").unwrap_err();
    assert!(
        matches!(
            error,
            RefactorError::InvalidArgument {
                param: "new_name",
                ..
            }
        ),
        "{error}"
    );
    let error = rename(&sources, "a.py", "dedent", "dedent").unwrap_err();
    assert!(error.to_string().contains("already called"), "{error}");
}

#[test]
fn python_compares_the_new_name_after_nfkc() {
    let sources = project(&[
        (
            "a.py",
            "def helper():\n    return 1\n\n\ndef other():\n    return 2\n",
        ),
        ("b.py", "from a import helper\n\nprint(helper())\n"),
    ]);
    // Fullwidth `ｏｔｈｅｒ` is `other` to Python: the same collision as `other` itself.
    let error = rename(&sources, "a.py", "helper", "ｏｔｈｅｒ").unwrap_err();
    let message = error.to_string();
    assert!(matches!(error, RefactorError::Unsupported(_)), "{error}");
    assert!(message.contains("a.py:5"), "{message}");
    assert!(
        message.contains("Python reads `ｏｔｈｅｒ` as `other` (NFKC)"),
        "{message}"
    );
    // Free, but not the name Python would read: refused, naming the form it reads.
    let error = rename(&sources, "a.py", "helper", "ｈｅｌｐｅｒ２").unwrap_err();
    assert!(
        matches!(
            error,
            RefactorError::InvalidArgument {
                param: "new_name",
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("`helper2`"), "{error}");
    assert!(rename(&sources, "a.py", "helper", "helper2").is_ok());
    assert!(rename(&sources, "a.py", "helper", "caf\u{e9}").is_ok());
}

#[test]
fn rust_refuses_a_new_name_that_is_not_nfc() {
    let sources = project(&[("src/lib.rs", "pub fn cafe() -> i32 {\n    1\n}\n")]);
    let error = rename(&sources, "src/lib.rs", "cafe", "cafe\u{301}x").unwrap_err();
    assert!(
        matches!(
            error,
            RefactorError::InvalidArgument {
                param: "new_name",
                ..
            }
        ),
        "{error}"
    );
    assert!(error.to_string().contains("`caf\u{e9}x`"), "{error}");
    assert!(error.to_string().contains("NFC"), "{error}");
    // NFC keeps compatibility characters: rustc reads a fullwidth name as it is.
    assert!(rename(&sources, "src/lib.rs", "cafe", "caf\u{e9}x").is_ok());
}

#[test]
fn rust_collisions_in_modules_types_and_scopes() {
    let text = "pub struct P {\n    pub x: i32,\n    pub y: i32,\n}\n\npub fn area(p: &P) -> i32 {\n    let w = p.x;\n    let h = p.y;\n    w * h\n}\n\npub fn volume() -> i32 {\n    0\n}\n";
    let sources = project(&[("src/lib.rs", text)]);
    let error = rename(&sources, "src/lib.rs", "P/x", "y").unwrap_err();
    assert!(error.to_string().contains("src/lib.rs:3"), "{error}");
    let error = rename(&sources, "src/lib.rs", "area", "volume").unwrap_err();
    assert!(error.to_string().contains("src/lib.rs:12"), "{error}");
    let error = rename(&sources, "src/lib.rs", "area/w", "h").unwrap_err();
    assert!(error.to_string().contains("src/lib.rs:8"), "{error}");
    let plan = rename(&sources, "src/lib.rs", "P/x", "width").unwrap();
    assert_eq!(
        after(&plan, "src/lib.rs"),
        text.replace("pub x: i32", "pub width: i32")
            .replace("p.x;", "p.width;")
    );
}

#[test]
fn rust_shorthand_fields_keep_their_meaning() {
    let text = "pub struct P {\n    pub x: i32,\n}\n\npub fn make(x: i32) -> P {\n    P { x }\n}\n\npub fn get(p: P) -> i32 {\n    let P { x } = p;\n    x\n}\n";
    let sources = project(&[("src/lib.rs", text)]);
    let plan = rename(&sources, "src/lib.rs", "P/x", "width").unwrap();
    assert_eq!(
        after(&plan, "src/lib.rs"),
        "pub struct P {\n    pub width: i32,\n}\n\npub fn make(x: i32) -> P {\n    P { width: x }\n}\n\npub fn get(p: P) -> i32 {\n    let P { width: x } = p;\n    x\n}\n"
    );
    let plan = rename(&sources, "src/lib.rs", "make/x", "value").unwrap();
    assert_eq!(
        after(&plan, "src/lib.rs"),
        "pub struct P {\n    pub x: i32,\n}\n\npub fn make(value: i32) -> P {\n    P { x: value }\n}\n\npub fn get(p: P) -> i32 {\n    let P { x } = p;\n    x\n}\n"
    );
}

#[test]
fn names_the_language_or_a_trait_calls_itself_are_warned_about() {
    use crate::lang::Language;
    use crate::lang::refs::{Member, MemberKind, Target, TargetKind};
    let target = |lang, name: &str, kind| Target {
        lang,
        name: name.to_string(),
        kind,
        label: "method",
        path: "a".to_string(),
        module: Vec::new(),
        name_range: 0..0,
        range: 0..0,
    };
    let method = |owner: &str, trait_name: Option<&str>| {
        TargetKind::Member(Member {
            owner: owner.to_string(),
            trait_name: trait_name.map(str::to_string),
            kind: MemberKind::Method,
        })
    };
    let warned = |t: &Target| super::role_warning(t).is_some();
    assert!(warned(&target(Language::Rust, "main", TargetKind::Item)));
    assert!(!warned(&target(Language::Rust, "helper", TargetKind::Item)));
    assert!(warned(&target(
        Language::Rust,
        "fmt",
        method("Error", Some("Display"))
    )));
    // The trait's own declaration: its impls are renamed with it.
    assert!(!warned(&target(
        Language::Rust,
        "go",
        method("Walk", Some("Walk"))
    )));
    assert!(!warned(&target(
        Language::Rust,
        "new",
        method("Error", None)
    )));
    assert!(warned(&target(
        Language::Python,
        "__next__",
        method("It", None)
    )));
    assert!(!warned(&target(
        Language::Python,
        "next_item",
        method("It", None)
    )));
    assert!(!warned(&target(
        Language::Python,
        "__x",
        method("It", None)
    )));
}

#[test]
fn a_method_of_an_impl_of_the_projects_trait_is_renamed_where_the_trait_declares_it() {
    let sources = project(&[
        (
            "src/lib.rs",
            "mod speak;\npub use speak::Speak;\n\npub struct Dog;\npub struct Cat;\n\nimpl Speak for Dog {\n    fn speak(&self) -> String {\n        \"woof\".into()\n    }\n}\n\nimpl Speak for Cat {\n    fn speak(&self) -> String {\n        \"meow\".into()\n    }\n}\n",
        ),
        (
            "src/speak.rs",
            "pub trait Speak {\n    fn speak(&self) -> String;\n}\n",
        ),
    ]);
    let plan = rename(&sources, "src/lib.rs", "Dog/speak", "say").unwrap();
    assert_eq!(
        after(&plan, "src/speak.rs"),
        "pub trait Speak {\n    fn say(&self) -> String;\n}\n"
    );
    let lib = after(&plan, "src/lib.rs");
    assert_eq!(lib.matches("fn say(&self)").count(), 2, "{lib}");
    assert!(!lib.contains("fn speak"), "{lib}");
}

#[test]
fn a_method_of_an_impl_of_a_trait_the_project_does_not_define_is_refused() {
    let sources = project(&[(
        "src/lib.rs",
        "use std::fmt;\n\npub struct Name;\n\nimpl fmt::Display for Name {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        write!(f, \"name\")\n    }\n}\n",
    )]);
    let err = rename(&sources, "src/lib.rs", "Name/fmt", "show").unwrap_err();
    assert!(matches!(err, RefactorError::Unsupported(_)), "{err:?}");
    assert!(
        err.to_string().contains("does not define `Display`"),
        "{err}"
    );
}

#[test]
fn an_integration_tests_shared_module_is_reached_through_the_test_crates_root() {
    // Cargo makes each `tests/*.rs` a crate; `tests/util/mod.rs` is their module `util`, which
    // they name `crate::util` (semver's layout).
    let sources = project(&[
        ("src/lib.rs", "pub fn helper() -> u32 {\n    0\n}\n"),
        ("tests/util/mod.rs", "pub fn helper() -> u32 {\n    1\n}\n"),
        (
            "tests/a.rs",
            "mod util;\n\nuse crate::util::helper;\n\n#[test]\nfn t() {\n    assert_eq!(helper() + util::helper() + crate::util::helper(), 3);\n}\n",
        ),
        (
            "tests/b.rs",
            "#[test]\nfn lib() {\n    assert_eq!(semver_like::helper(), 0);\n}\n",
        ),
    ]);
    let plan = rename(&sources, "tests/util/mod.rs", "helper", "aid").unwrap();
    eprintln!(
        "DBG {:?}",
        plan.changes.iter().map(|c| c.diff()).collect::<Vec<_>>()
    );
    assert_eq!(
        after(&plan, "tests/a.rs"),
        "mod util;\n\nuse crate::util::aid;\n\n#[test]\nfn t() {\n    assert_eq!(aid() + util::aid() + crate::util::aid(), 3);\n}\n"
    );
    assert!(
        !plan
            .changes
            .iter()
            .any(|c| c.path == "src/lib.rs" || c.path == "tests/b.rs"),
        "{:?}",
        plan.changes.iter().map(|c| &c.path).collect::<Vec<_>>()
    );
    // The library's `helper` is not the test module's.
    let plan = rename(&sources, "src/lib.rs", "helper", "aid").unwrap();
    let touched: Vec<&str> = plan.changes.iter().map(|c| c.path.as_str()).collect();
    assert!(
        !touched.contains(&"tests/a.rs") && !touched.contains(&"tests/util/mod.rs"),
        "{touched:?}"
    );
}

#[test]
fn a_possible_reference_written_by_the_choice_is_no_longer_said_to_be_left() {
    let sources = project(&[
        (
            "a.py",
            "class A:\n    def dedent(self):\n        return 1\n\n\ndef make():\n    return A().dedent()\n",
        ),
        ("b.py", "def use(obj):\n    return obj.dedent()\n"),
    ]);
    let plan = rename(&sources, "a.py", "A/dedent", "strip_indent").unwrap();
    let left = plan
        .findings
        .iter()
        .find(|f| f.kind == Some(crate::refactor::sites::POSSIBLE_LEFT))
        .unwrap_or_else(|| panic!("{:?}", plan.findings));
    let possible = plan.sites.iter().find(|s| !s.certain).unwrap();
    let included = [possible.id.clone()].into_iter().collect();
    let chosen = crate::refactor::sites::choose(
        crate::honesty::Tool::RenameSymbol,
        &plan,
        &Default::default(),
        &included,
    )
    .unwrap();
    assert!(
        chosen.supersedes(left),
        "{left:?} {:?}",
        chosen.written_possible
    );
    assert!(
        chosen
            .changes
            .iter()
            .any(|c| c.path == "b.py" && c.after.contains("obj.strip_indent()"))
    );
}
