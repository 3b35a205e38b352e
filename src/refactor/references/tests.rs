use super::*;
use crate::refactor::MemorySources;

fn project(files: &[(&str, &str)]) -> MemorySources {
    let mut sources = MemorySources::new();
    for (path, text) in files {
        sources = sources.with(path, text);
    }
    sources
}

fn query(name: &str) -> SymbolQuery {
    SymbolQuery {
        name: name.to_string(),
        line: None,
        column: None,
    }
}

fn find_in(sources: &MemorySources, file: &str, symbol: SymbolQuery) -> References {
    let lang = Language::from_path(file).unwrap();
    let request = ReferencesRequest {
        file: file.to_string(),
        symbol,
    };
    find(sources, &request, lang, None).unwrap_or_else(|e| panic!("{e:?}"))
}

/// `path:line:column certain|possible role`, in order.
fn listed(references: &References) -> Vec<String> {
    references
        .references
        .iter()
        .map(|r| {
            format!(
                "{} {} {:?}",
                r.location(),
                if r.is_certain() {
                    "certain"
                } else {
                    "possible"
                },
                r.role
            )
        })
        .collect()
}

const DEDENT_A: &str = "def dedent(text):\n    return text.strip()\n";
const DEDENT_B: &str = "import a\nfrom a import dedent\n\n\nclass Formatter:\n    def dedent(self):\n        return 1\n\n\ndef use():\n    f = Formatter()\n    f.dedent()\n    a.dedent(\"x\")\n    dedent(\"y\")\n";

#[test]
fn the_minimal_dedent_case_tells_the_method_from_the_function() {
    let sources = project(&[("a.py", DEDENT_A), ("b.py", DEDENT_B)]);
    let found = find_in(&sources, "a.py", query("dedent"));
    assert_eq!(
        listed(&found),
        [
            "a.py:1:5 certain Definition",
            "b.py:2:15 certain Import",
            "b.py:13:7 certain Call",
            "b.py:14:5 certain Call",
        ]
    );
    // From the other side: the method has its own references.
    let method = find_in(&sources, "b.py", query("Formatter/dedent"));
    assert_eq!(
        listed(&method),
        ["b.py:6:9 certain Definition", "b.py:12:7 certain Call"]
    );
}

#[test]
fn python_imports_aliases_relative_and_reexports() {
    let sources = project(&[
        (
            "pkg/__init__.py",
            "from .core import helper\n__all__ = [\"helper\"]\n",
        ),
        (
            "pkg/core.py",
            "def helper(x):\n    return x\n\n\ndef other():\n    return helper(1)\n",
        ),
        (
            "pkg/sub/user.py",
            "from ..core import helper as h\nfrom .. import core\n\nh(1)\ncore.helper(2)\n",
        ),
        (
            "app.py",
            "import pkg\nfrom pkg import helper\n\nhelper(3)\npkg.helper(4)\n\n\ndef f(helper):\n    return helper(5)\n",
        ),
        ("other.py", "def helper():\n    pass\n\nhelper()\n"),
    ]);
    let found = find_in(&sources, "pkg/core.py", query("helper"));
    assert_eq!(
        listed(&found),
        [
            "app.py:2:17 certain Import",
            "app.py:4:1 certain Call",
            "app.py:5:5 certain Call",
            "pkg/__init__.py:1:19 certain ReExport",
            "pkg/__init__.py:2:13 certain DunderAll",
            "pkg/core.py:1:5 certain Definition",
            "pkg/core.py:6:12 certain Call",
            "pkg/sub/user.py:1:20 certain Import",
            "pkg/sub/user.py:4:1 certain Call",
            "pkg/sub/user.py:5:6 certain Call",
        ]
    );
    let alias = found
        .references
        .iter()
        .find(|r| r.path == "pkg/sub/user.py" && r.line == 4)
        .unwrap();
    assert!(alias.alias, "`h(1)` calls it through an alias");
}

#[test]
fn python_members_through_self_subclasses_and_evident_types() {
    let base = "class Shape:\n    def area(self):\n        return 0\n\n    def twice(self):\n        return 2 * self.area()\n";
    let user = "from shapes import Shape\n\n\nclass Square(Shape):\n    def area(self):\n        return super().area() + 1\n\n\nclass Other:\n    def area(self):\n        return 3\n\n\ndef run(s: Shape, o, q: Other):\n    Shape().area()\n    s.area()\n    o.area()\n    q.area()\n    x = Square()\n    x.area()\n";
    let sources = project(&[("shapes.py", base), ("user.py", user)]);
    let found = find_in(&sources, "shapes.py", query("Shape/area"));
    assert_eq!(
        listed(&found),
        [
            "shapes.py:2:9 certain Definition",
            "shapes.py:6:25 certain Call",
            "user.py:5:9 certain Override",
            "user.py:6:24 certain Call",
            "user.py:15:13 certain Call",
            "user.py:16:7 certain Call",
            "user.py:17:7 possible Call",
            "user.py:20:7 certain Call",
        ]
    );
}

#[test]
fn python_locals_and_parameters_with_keyword_arguments() {
    let text = "def scale(value, factor=2):\n    total = value * factor\n\n    def inner():\n        return total + value\n\n    return inner()\n\n\nscale(1, factor=3)\nscale(value=2)\n";
    let sources = project(&[
        ("m.py", text),
        ("n.py", "from m import scale\nscale(value=5)\n"),
    ]);
    let value = find_in(&sources, "m.py", query("scale/value"));
    assert_eq!(
        listed(&value),
        [
            "m.py:1:11 certain Definition",
            "m.py:2:13 certain Use",
            "m.py:5:24 certain Use",
            "m.py:11:7 certain KeywordArgument",
            "n.py:2:7 certain KeywordArgument",
        ]
    );
    let total = find_in(
        &sources,
        "m.py",
        SymbolQuery {
            name: "total".into(),
            line: Some(5),
            column: Some(16),
        },
    );
    assert_eq!(
        listed(&total),
        ["m.py:2:5 certain Definition", "m.py:5:16 certain Use"]
    );
}

#[test]
fn python_star_imports_and_name_strings() {
    let sources = project(&[
        ("lib.py", "def tool():\n    pass\n"),
        ("a.py", "from lib import *\ntool()\n"),
        ("b.py", "from elsewhere import *\ntool()\n"),
        (
            "c.py",
            "import mock\nmock.patch(\"lib.tool\")\ngetattr(x, \"tool\")\n",
        ),
    ]);
    let found = find_in(&sources, "lib.py", query("tool"));
    assert_eq!(
        listed(&found),
        [
            "a.py:2:1 certain Call",
            "b.py:2:1 possible Call",
            "c.py:2:17 possible Text",
            "lib.py:1:5 certain Definition",
        ]
    );
}

struct FixedOracle(Vec<(String, Range<usize>)>);

impl Oracle for FixedOracle {
    fn references(
        &self,
        _lang: Language,
        _file: &SourceFile,
        _at: usize,
    ) -> Option<Result<ServerReferences, String>> {
        Some(Ok(ServerReferences {
            server: "test-server 1.0".to_string(),
            locations: self.0.clone(),
        }))
    }
}

#[test]
fn a_server_confirms_and_corrects_the_list() {
    let sources = project(&[
        ("lib.py", "def tool():\n    pass\n"),
        (
            "b.py",
            "from elsewhere import *\ntool()\nx = 1  # tool\ntool\n",
        ),
    ]);
    let b = "from elsewhere import *\ntool()\nx = 1  # tool\ntool\n";
    let last = b.rfind("tool").unwrap();
    let first = b.find("tool()").unwrap();
    let comment = b.find("# tool").unwrap() + 2;
    let oracle = FixedOracle(vec![
        ("lib.py".into(), 4..8),
        ("b.py".into(), first..first + 4),
        ("b.py".into(), comment..comment + 4),
        ("b.py".into(), last..last + 4),
    ]);
    let request = ReferencesRequest {
        file: "lib.py".into(),
        symbol: query("tool"),
    };
    let found = find(&sources, &request, Language::Python, Some(&oracle)).unwrap();
    assert_eq!(
        found.source,
        Source::EngineChecked("test-server 1.0".into())
    );
    // The star-imported uses are confirmed; the comment is the server's alone.
    assert_eq!(
        listed(&found),
        [
            "b.py:2:1 certain Call",
            "b.py:3:10 possible Use",
            "b.py:4:1 certain Use",
            "lib.py:1:5 certain Definition",
        ]
    );
    assert!(found.references.iter().all(|r| r.confirmed));
}

// -- Rust --------------------------------------------------------------------------------------

const UTIL_RS: &str = "pub fn helper(x: i32) -> i32 {\n    x + 1\n}\n\npub fn twice(x: i32) -> i32 {\n    helper(helper(x))\n}\n";
const APP_RS: &str = "use crate::util::{self, helper};\nuse crate::assist as aid;\n\npub fn run() -> i32 {\n    let total = helper(1) + util::helper(2) + aid(3);\n    let helper = |x: i32| x * 2;\n    total + helper(4) + crate::util::helper(5)\n}\n\nmod inner {\n    use super::*;\n\n    fn go() -> i32 {\n        helper(6)\n    }\n}\n";

#[test]
fn rust_items_through_use_paths_aliases_globs_and_reexports() {
    let sources = project(&[
        (
            "src/lib.rs",
            "pub mod app;\npub mod other;\npub mod util;\npub use util::helper as assist;\n",
        ),
        ("src/util.rs", UTIL_RS),
        ("src/app.rs", APP_RS),
        (
            "src/other.rs",
            "fn helper() {}\n\nfn f() {\n    helper();\n}\n",
        ),
    ]);
    let found = find_in(&sources, "src/util.rs", query("helper"));
    assert_eq!(
        listed(&found),
        [
            "src/app.rs:1:25 certain Import",
            "src/app.rs:2:12 certain Import",
            "src/app.rs:5:17 certain Call",
            "src/app.rs:5:35 certain Call",
            "src/app.rs:5:47 certain Call",
            "src/app.rs:7:38 certain Call",
            "src/app.rs:14:9 certain Call",
            "src/lib.rs:4:15 certain ReExport",
            "src/util.rs:1:8 certain Definition",
            "src/util.rs:6:5 certain Call",
            "src/util.rs:6:12 certain Call",
        ]
    );
    let aliases: Vec<String> = found
        .references
        .iter()
        .filter(|r| r.alias)
        .map(Reference::location)
        .collect();
    assert_eq!(aliases, ["src/app.rs:2:12", "src/app.rs:5:47"]);
    // From a use: the same symbol.
    let from_use = find_in(
        &sources,
        "src/app.rs",
        SymbolQuery {
            name: "helper".into(),
            line: Some(14),
            column: Some(9),
        },
    );
    assert_eq!(listed(&from_use), listed(&found));
}

const SHAPE_RS: &str = "pub struct Circle {\n    pub radius: f64,\n}\n\nimpl Circle {\n    pub fn new(radius: f64) -> Circle {\n        Circle { radius }\n    }\n\n    pub fn area(&self) -> f64 {\n        3.14 * self.radius * self.radius\n    }\n\n    pub fn double(&self) -> f64 {\n        self.area() * 2.0\n    }\n}\n\npub struct Square;\n\nimpl Square {\n    pub fn area(&self) -> f64 {\n        1.0\n    }\n}\n\npub fn total(c: &Circle, s: Square, other: &Thing) -> f64 {\n    let built = Circle::new(1.0);\n    let typed: Circle = make();\n    c.area() + s.area() + built.area() + typed.area() + Circle::area(c) + other.area() + make().area()\n}\n";

#[test]
fn rust_members_through_self_evident_receivers_and_the_type() {
    let sources = project(&[("src/lib.rs", SHAPE_RS)]);
    let area = find_in(&sources, "src/lib.rs", query("Circle/area"));
    assert_eq!(
        listed(&area),
        [
            "src/lib.rs:10:12 certain Definition",
            "src/lib.rs:15:14 certain Call",
            "src/lib.rs:30:7 certain Call",
            "src/lib.rs:30:33 certain Call",
            "src/lib.rs:30:48 certain Call",
            "src/lib.rs:30:65 certain Call",
            "src/lib.rs:30:97 possible Call",
        ]
    );
    let radius = find_in(&sources, "src/lib.rs", query("Circle/radius"));
    assert_eq!(
        listed(&radius),
        [
            "src/lib.rs:2:9 certain Definition",
            "src/lib.rs:7:18 certain FieldInit",
            "src/lib.rs:11:21 certain Use",
            "src/lib.rs:11:35 certain Use",
        ]
    );
    let shorthand = radius.references.iter().find(|r| r.line == 7).unwrap();
    assert_eq!(shorthand.rewrite, Rewrite::FieldBeforeShorthand);
}

const SPEAK_RS: &str = "pub trait Speak {\n    fn speak(&self) -> String;\n    fn twice(&self) -> String {\n        self.speak() + &self.speak()\n    }\n}\n\npub struct Dog;\n\nimpl Speak for Dog {\n    fn speak(&self) -> String {\n        \"woof\".to_string()\n    }\n}\n\npub struct Robot;\n\nimpl Robot {\n    pub fn speak(&self) -> String {\n        \"beep\".to_string()\n    }\n}\n\nfn talk(d: Dog, r: Robot, any: &dyn Speak) -> String {\n    d.speak() + &r.speak() + &any.speak() + &Dog::speak(&d)\n}\n";

#[test]
fn rust_trait_methods_through_their_trait_and_impls() {
    let sources = project(&[("src/lib.rs", SPEAK_RS)]);
    let expected = [
        "src/lib.rs:2:8 certain Definition",
        "src/lib.rs:4:14 certain Call",
        "src/lib.rs:4:30 certain Call",
        "src/lib.rs:11:8 certain Override",
        "src/lib.rs:25:7 certain Call",
        "src/lib.rs:25:35 certain Call",
        "src/lib.rs:25:51 certain Call",
    ];
    let from_trait = find_in(&sources, "src/lib.rs", query("Speak/speak"));
    assert_eq!(listed(&from_trait), expected);
    // From the impl's method: the same list, the impl's name the definition.
    let from_impl = find_in(
        &sources,
        "src/lib.rs",
        SymbolQuery {
            name: "speak".into(),
            line: Some(11),
            column: Some(8),
        },
    );
    assert_eq!(from_impl.references.len(), expected.len());
    let robot = find_in(&sources, "src/lib.rs", query("Robot/speak"));
    assert_eq!(
        listed(&robot),
        [
            "src/lib.rs:19:12 certain Definition",
            "src/lib.rs:25:20 certain Call"
        ]
    );
}

#[test]
fn rust_locals_respect_shadowing_and_shorthand_fields() {
    let text = "fn area(width: u32, height: u32) -> u32 {\n    let size = width * height;\n    let p = Point { size };\n    let size = size + 1;\n    size + p.size\n}\n";
    let sources = project(&[("src/lib.rs", text)]);
    let size = find_in(
        &sources,
        "src/lib.rs",
        SymbolQuery {
            name: "size".into(),
            line: Some(2),
            column: Some(9),
        },
    );
    assert_eq!(
        listed(&size),
        [
            "src/lib.rs:2:9 certain Definition",
            "src/lib.rs:3:21 certain Use",
            "src/lib.rs:4:16 certain Use",
        ]
    );
    assert_eq!(size.references[1].rewrite, Rewrite::ValueAfterShorthand);
    let width = find_in(&sources, "src/lib.rs", query("area/width"));
    assert_eq!(width.target.label, "parameter");
    assert_eq!(
        listed(&width),
        [
            "src/lib.rs:1:9 certain Definition",
            "src/lib.rs:2:16 certain Use"
        ]
    );
}

#[test]
fn rust_struct_literals_in_expression_macros() {
    let text = "#[derive(Debug, PartialEq)]\npub struct S {\n    pub total: u32,\n}\n\n#[test]\nfn t() {\n    assert_eq!(S { total: 1 }, S { total: 1 });\n    let other = Other { total: 2 };\n}\n";
    let sources = project(&[("src/lib.rs", text)]);
    let found = find_in(&sources, "src/lib.rs", query("S/total"));
    assert_eq!(
        listed(&found),
        [
            "src/lib.rs:3:9 certain Definition",
            "src/lib.rs:8:20 certain FieldInit",
            "src/lib.rs:8:36 certain FieldInit",
        ]
    );
}

#[test]
fn python_star_reexports_through_a_package_init() {
    let sources = project(&[
        ("pkg/__init__.py", "from pkg.core import *  # noqa\n"),
        ("pkg/core.py", "def helper():\n    return 1\n"),
        ("app.py", "from pkg import helper\n\nhelper()\n"),
    ]);
    let found = find_in(&sources, "pkg/core.py", query("helper"));
    assert_eq!(
        listed(&found),
        [
            "app.py:1:17 certain Import",
            "app.py:3:1 certain Call",
            "pkg/core.py:1:5 certain Definition",
        ]
    );
}

#[test]
fn rust_a_call_in_a_function_body_finds_its_item() {
    let text = "pub fn fee(x: u64) -> u64 {\n    x\n}\n\npub fn total() -> u64 {\n    fee(1)\n}\n";
    let sources = project(&[("src/lib.rs", text)]);
    let from_call = find_in(
        &sources,
        "src/lib.rs",
        SymbolQuery {
            name: String::new(),
            line: Some(6),
            column: Some(5),
        },
    );
    assert_eq!(
        listed(&from_call),
        [
            "src/lib.rs:1:8 certain Definition",
            "src/lib.rs:6:5 certain Call"
        ]
    );
}

#[test]
fn rust_a_library_traits_impls_are_separate_symbols() {
    let text = "use std::fmt;\n\npub struct A;\npub struct B;\n\nimpl fmt::Display for A {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        write!(f, \"a\")\n    }\n}\n\nimpl fmt::Display for B {\n    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {\n        write!(f, \"b\")\n    }\n}\n";
    let sources = project(&[("src/lib.rs", text)]);
    let found = find_in(
        &sources,
        "src/lib.rs",
        SymbolQuery {
            name: "fmt".into(),
            line: Some(7),
            column: None,
        },
    );
    assert_eq!(listed(&found), ["src/lib.rs:7:8 certain Definition"]);
}

#[test]
fn code_nested_deeper_than_the_engine_follows_is_possible_not_judged() {
    let depth = crate::lang::refs::MAX_NESTING;
    let deep = format!(
        "from lib import f\n\nx = {}1{}\n",
        "f(".repeat(depth),
        ")".repeat(depth)
    );
    let sources = project(&[("lib.py", "def f(x):\n    return x\n"), ("deep.py", &deep)]);
    let found = find_in(&sources, "lib.py", query("f"));
    let in_deep: Vec<&Reference> = found
        .references
        .iter()
        .filter(|r| r.path == "deep.py")
        .collect();
    assert_eq!(in_deep.len(), depth + 1, "the import and every call");
    assert!(in_deep.iter().all(|r| !r.is_certain()));
    assert!(
        found
            .references
            .iter()
            .any(|r| r.path == "lib.py" && r.is_certain())
    );
}

/// A project another process rewrites between the two reads of a search: `file` (the
/// definition's read) answers the first version, the word search the second.
struct ChangedBetweenReads {
    first: MemorySources,
    later: MemorySources,
}

impl Sources for ChangedBetweenReads {
    fn file(&self, path: &str) -> Result<Option<SourceFile>, crate::refactor::SourceError> {
        self.first.file(path)
    }

    fn files_mentioning(
        &self,
        lang: Language,
        word: &str,
    ) -> Result<crate::refactor::Mentioning, crate::refactor::SourceError> {
        self.later.files_mentioning(lang, word)
    }

    fn dir_exists(&self, path: &str) -> bool {
        self.first.dir_exists(path)
    }
}

/// The race test's partial (`helper → helper_b reached m1…m7 but not defs`): another rename
/// wrote `defs.py` (`target` → `target_a`, two bytes longer before `helper`) between the
/// definition's read and the search. The definition is judged in the text it was read from —
/// it was judged at the search's offsets, two bytes off, and lost.
#[test]
fn the_definition_is_judged_in_its_own_read_when_the_search_reads_another_version() {
    let defs = "def target():\n    return 1\n\n\ndef helper():\n    return 2\n";
    let user = "from defs import helper, target\n\n\ndef use():\n    return target() + helper()\n";
    let renamed = |text: &str| text.replace("target", "target_a");
    let sources = ChangedBetweenReads {
        first: project(&[("defs.py", defs), ("m1.py", user)]),
        later: project(&[("defs.py", &renamed(defs)), ("m1.py", &renamed(user))]),
    };
    let request = ReferencesRequest {
        file: "defs.py".to_string(),
        symbol: query("helper"),
    };
    let found = find(&sources, &request, Language::Python, None).unwrap();
    assert_eq!(
        listed(&found),
        [
            "defs.py:5:5 certain Definition",
            "m1.py:1:18 certain Import",
            "m1.py:5:25 certain Call",
        ]
    );
    assert_eq!(
        &*found.files["defs.py"].text, defs,
        "the definition's own read"
    );
}
