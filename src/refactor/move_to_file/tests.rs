//! Move to file end to end on small projects: what moves, what is imported back, and the
//! findings that say where the caveats bite.

use super::*;
use crate::refactor::{MemorySources, Severity};

/// The refactor alone, in the language of the request's file (the result is not checked).
fn plan(sources: &dyn Sources, request: &MoveRequest) -> Result<Plan, RefactorError> {
    let lang = Language::from_path(&request.file)
        .ok_or_else(|| RefactorError::UnsupportedLanguage(request.file.clone()))?;
    super::plan(sources, request, lang)
}

fn request(file: &str, name: &str, target: &str) -> MoveRequest {
    MoveRequest {
        file: file.to_string(),
        symbol: SymbolQuery {
            name: name.to_string(),
            line: None,
            column: None,
        },
        target_file: target.to_string(),
    }
}

fn after(plan: &Plan, path: &str) -> String {
    plan.changes
        .iter()
        .find(|c| c.path == path)
        .map(|c| c.after.clone())
        .unwrap_or_else(|| {
            panic!(
                "no change for {path}: {:?}",
                plan.changes.iter().map(|c| &c.path).collect::<Vec<_>>()
            )
        })
}

#[test]
fn targets_are_checked() {
    assert_eq!(normalize_path("./a//b.py"), "a/b.py");
    assert!(matches!(
        check_target(Language::Python, "a.py", "./a.py"),
        Err(RefactorError::InvalidArgument { .. })
    ));
    let err = check_target(Language::Python, "a.py", "b.rs").unwrap_err();
    assert!(
        err.to_string()
            .contains("is a Rust file but `a.py` is Python"),
        "{err}"
    );
    assert!(check_target(Language::Python, "a.py", "b.txt").is_err());
    assert!(check_target(Language::Python, "a.py", "b.pyi").is_err());
    assert_eq!(
        check_target(Language::Rust, "src/a.rs", "src/b.rs").unwrap(),
        "src/b.rs"
    );
}

#[test]
fn a_python_function_moves_next_to_its_source_and_is_imported_back() {
    let sources = MemorySources::new().with(
        "app.py",
        "import os\n\n\ndef helper(a):\n    return os.sep + a\n\n\ndef main():\n    return helper('x')\n",
    );
    let plan = plan(&sources, &request("app.py", "helper", "helpers.py")).unwrap();
    // `os` is carried to the target and leaves the source, which no longer uses it.
    assert_eq!(
        after(&plan, "app.py"),
        "from helpers import helper\n\n\ndef main():\n    return helper('x')\n"
    );
    assert_eq!(
        after(&plan, "helpers.py"),
        "import os\n\n\ndef helper(a):\n    return os.sep + a\n"
    );
    assert_eq!(
        plan.details.to_map()["import_added"],
        "from helpers import helper"
    );
    assert!(
        !plan
            .findings
            .iter()
            .any(|f| f.message.contains("uses `os`")),
        "{:#?}",
        plan.findings
    );
    let notes: Vec<(&str, &str)> = plan
        .caveat_notes
        .iter()
        .map(|n| (n.caveat.text(), n.note.as_str()))
        .collect();
    assert!(
        notes.iter().any(|(caveat, note)| *caveat
            == "import dependencies not auto-resolved at target file"
            && note.contains("imported at the target: `os`")
            && note.contains("no longer imported by app.py: `os`")),
        "{notes:#?}"
    );
}

#[test]
fn a_rust_impl_moving_with_its_type_reports_the_module_it_reads() {
    let sources = MemorySources::new()
        .with("Cargo.toml", "[package]\nname = \"t\"\n")
        .with("src/lib.rs", "pub mod shapes;\n")
        .with(
            "src/shapes.rs",
            "use std::fmt;\n\npub enum Color {\n    Red,\n}\n\nimpl fmt::Display for Color {\n    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {\n        write!(f, \"red\")\n    }\n}\n\npub fn red() -> Color {\n    Color::Red\n}\n",
        );
    let plan = plan(&sources, &request("src/shapes.rs", "Color", "src/color.rs")).unwrap();
    // `fmt` goes with the impl that uses it; the source no longer needs it.
    assert_eq!(
        after(&plan, "src/shapes.rs"),
        "use crate::color::Color;\n\npub fn red() -> Color {\n    Color::Red\n}\n"
    );
    assert!(
        after(&plan, "src/color.rs").starts_with("use std::fmt;\n\npub enum Color {"),
        "{}",
        after(&plan, "src/color.rs")
    );
    assert_eq!(
        after(&plan, "src/lib.rs"),
        "pub mod shapes;\npub mod color;\n"
    );
    assert!(
        !plan
            .findings
            .iter()
            .any(|f| f.message.contains("uses `fmt`")),
        "{:#?}",
        plan.findings
    );
}

#[test]
fn a_rust_move_reports_private_members_and_module_namesakes() {
    let parse = "pub struct Op(u8);\n\nimpl Op {\n    const DEFAULT: Op = Op(1);\n\n    fn new(v: u8) -> Op {\n        Op(v)\n    }\n\n    pub fn get(&self) -> u8 {\n        self.0\n    }\n}\n\nfn ident(s: &str) -> &str {\n    s.trim()\n}\n\npub fn read(s: &str) -> u8 {\n    let ident = ident(s);\n    let op = if ident.is_empty() { Op::DEFAULT } else { Op::new(1) };\n    op.get()\n}\n";
    let sources = MemorySources::new()
        .with("Cargo.toml", "[package]\nname = \"t\"\n")
        .with(
            "src/lib.rs",
            "mod ident;\nmod parse;\n\npub fn total() -> u8 {\n    parse::read(\"x\")\n}\n",
        )
        .with("src/ident.rs", "pub fn check() -> bool {\n    true\n}\n")
        .with("src/parse.rs", parse);
    let plan = plan(&sources, &request("src/parse.rs", "read", "src/lib.rs")).unwrap();
    let warnings: Vec<String> = plan
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .map(|f| format!("{}:{}: {}", f.file, f.line, f.message))
        .collect();
    let has = |part: &str| warnings.iter().any(|w| w.contains(part));
    // `ident(s)` is called before `let ident` binds the name, and `mod ident;` in lib.rs is
    // a module, not the function.
    // It is imported from the source (made `pub(crate)`), not reported.
    assert!(!has("uses `ident`"), "{warnings:#?}");
    let lib = after(&plan, "src/lib.rs");
    assert!(lib.contains("use crate::parse::{ident, Op};\n"), "{lib}");
    assert!(
        after(&plan, "src/parse.rs").contains("pub(crate) fn ident(s: &str)"),
        "{}",
        after(&plan, "src/parse.rs")
    );
    // The private members it reaches by path become `pub(crate)`.
    assert!(!has("Op::DEFAULT") && !has("Op::new"), "{warnings:#?}");
    let parse_after = after(&plan, "src/parse.rs");
    assert!(
        parse_after.contains("    pub(crate) const DEFAULT: Op = Op(1);\n")
            && parse_after.contains("    pub(crate) fn new(v: u8) -> Op {\n"),
        "{parse_after}"
    );
    // `get` is `pub`: no warning for it.
    assert!(!has("Op::get"), "{warnings:#?}");
}

#[test]
fn a_rust_function_named_in_an_attribute_string_is_imported_back() {
    let sources = MemorySources::new()
        .with("Cargo.toml", "[package]\nname = \"t\"\n")
        .with("src/lib.rs", "mod config;\n")
        .with(
            "src/config.rs",
            "#[derive(Deserialize)]\npub struct Config {\n    #[serde(default = \"default_port\")]\n    pub port: u16,\n}\n\nfn default_port() -> u16 {\n    8080\n}\n",
        );
    let plan = plan(
        &sources,
        &request("src/config.rs", "default_port", "src/defaults.rs"),
    )
    .unwrap();
    assert!(
        after(&plan, "src/config.rs").starts_with("use crate::defaults::default_port;\n"),
        "{}",
        after(&plan, "src/config.rs")
    );
    assert!(after(&plan, "src/defaults.rs").starts_with("pub(crate) fn default_port()"));
}

#[test]
fn python_module_state_that_does_not_travel_is_reported() {
    let util = "count = 0\nitems = []\n\n\ndef bump():\n    global count\n    count += 1\n    return __name__\n\n\ndef reset():\n    global items\n    items = []\n";
    let sources = MemorySources::new().with("util.py", util);
    let moved = plan(&sources, &request("util.py", "bump", "counter.py")).unwrap();
    let warnings: Vec<String> = moved
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .map(|f| format!("{}:{}: {}", f.file, f.line, f.message))
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("counter.py:2: `bump` rebinds the module variable `count`")),
        "{warnings:#?}"
    );
    assert!(
        warnings
            .iter()
            .any(|w| w.starts_with("counter.py:4: `bump` reads `__name__`")),
        "{warnings:#?}"
    );
    // No advice to import `count`: an import would be a copy.
    assert!(
        !warnings.iter().any(|w| w.contains("uses `count`")),
        "{warnings:#?}"
    );
    let moved = plan(&sources, &request("util.py", "items", "store.py")).unwrap();
    let warnings: Vec<String> = moved
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Warning)
        .map(|f| format!("{}:{}: {}", f.file, f.line, f.message))
        .collect();
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("util.py rebinds `items` here (`global items`)")),
        "{warnings:#?}"
    );
}

#[test]
fn a_rust_move_reports_private_fields_in_macros_tuple_fields_and_location_macros() {
    let main = "#[derive(Debug, Default)]\nstruct Pt {\n    tags: Vec<u8>,\n}\n\nstruct Wrap<T>(T);\n\nfn here() -> &'static str {\n    module_path!()\n}\n\nfn main() {\n    println!(\"{}\", Pt::default().tags.len());\n    let w = Wrap(1);\n    println!(\"{}\", here());\n}\n";
    let sources = MemorySources::new()
        .with("Cargo.toml", "[package]\nname = \"t\"\n")
        .with("src/main.rs", main);
    let warnings = |target: &str, symbol: &str| -> Vec<String> {
        plan(&sources, &request("src/main.rs", symbol, target))
            .unwrap()
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Warning)
            .map(|f| format!("{}:{}: {}", f.file, f.line, f.message))
            .collect()
    };
    // The fields the source still touches become `pub(crate)` (no warning left).
    let pt = warnings("src/pt.rs", "Pt");
    assert!(pt.is_empty(), "{pt:#?}");
    let moved_pt = plan(&sources, &request("src/main.rs", "Pt", "src/pt.rs")).unwrap();
    assert!(
        after(&moved_pt, "src/pt.rs").contains("    pub(crate) tags: Vec<u8>,\n"),
        "{}",
        after(&moved_pt, "src/pt.rs")
    );
    let wrap = warnings("src/wrap.rs", "Wrap");
    assert!(wrap.is_empty(), "{wrap:#?}");
    let moved_wrap = plan(&sources, &request("src/main.rs", "Wrap", "src/wrap.rs")).unwrap();
    assert!(
        after(&moved_wrap, "src/wrap.rs").contains("struct Wrap<T>(pub(crate) T);\n"),
        "{}",
        after(&moved_wrap, "src/wrap.rs")
    );
    let here = warnings("src/util.rs", "here");
    assert!(
        here.iter()
            .any(|w| w.contains("`here` uses `module_path!()`")),
        "{here:#?}"
    );
    // A method of a trait the source imports: the target gets the trait, the source loses it
    // and `fmt` (only `pad` used them).
    let display = "use core::fmt::{self, Write};\n\nfn pad(f: &mut fmt::Formatter) -> fmt::Result {\n    f.write_char(' ')\n}\n\nfn main() {}\n";
    let sources = MemorySources::new()
        .with("Cargo.toml", "[package]\nname = \"t\"\n")
        .with("src/main.rs", display);
    let moved = plan(&sources, &request("src/main.rs", "pad", "src/util.rs")).unwrap();
    assert_eq!(
        after(&moved, "src/util.rs"),
        "use core::fmt;\nuse core::fmt::Write;\n\nfn pad(f: &mut fmt::Formatter) -> fmt::Result {\n    f.write_char(' ')\n}\n"
    );
    assert_eq!(after(&moved, "src/main.rs"), "mod util;\n\nfn main() {}\n");
    assert!(
        !moved
            .findings
            .iter()
            .any(|f| f.severity == Severity::Warning),
        "{:#?}",
        moved.findings
    );
}

#[test]
fn a_binary_root_gets_the_mod_and_the_use_in_one_place() {
    let sources = MemorySources::new()
        .with("Cargo.toml", "[package]\nname = \"b\"\n")
        .with(
            "src/main.rs",
            "fn double(x: i32) -> i32 {\n    x * 2\n}\n\nfn main() {\n    double(2);\n}\n",
        );
    let plan = plan(&sources, &request("src/main.rs", "double", "src/math.rs")).unwrap();
    assert_eq!(
        after(&plan, "src/main.rs"),
        "mod math;\n\nuse crate::math::double;\n\nfn main() {\n    double(2);\n}\n"
    );
    assert_eq!(
        after(&plan, "src/math.rs"),
        "pub(crate) fn double(x: i32) -> i32 {\n    x * 2\n}\n"
    );
    assert_eq!(plan.details.to_map()["module_declared"], "mod math;");
}

#[test]
fn a_glob_re_export_of_the_target_needs_no_import_and_keeps_the_public_path() {
    // The demo's shape: `pub use money::*;` in the crate root brings `money`'s items in, and
    // re-exports them at the root.
    let lib = "pub mod money;\n\npub use money::*;\n\npub fn parse(t: &str) -> u64 {\n    t.len() as u64\n}\n\npub fn total(t: &str) -> u64 {\n    parse(t) + 1\n}\n";
    let sources = MemorySources::new()
        .with("Cargo.toml", "[package]\nname = \"shop\"\n")
        .with("src/lib.rs", lib)
        .with("src/money.rs", "pub fn cents() -> u64 {\n    1\n}\n");
    let moved = plan(&sources, &request("src/lib.rs", "parse", "src/money.rs")).unwrap();
    let after_lib = after(&moved, "src/lib.rs");
    assert!(
        !after_lib.contains("use crate::money::parse"),
        "{after_lib}"
    );
    assert!(
        !moved
            .findings
            .iter()
            .any(|f| f.message.contains("public API")),
        "{:?}",
        moved.findings
    );
    assert!(
        moved
            .findings
            .iter()
            .any(|f| f.severity == Severity::Info && f.message.contains("already imports")),
        "{:?}",
        moved.findings
    );
    // A private glob brings it in, but other crates lose the old path.
    let sources = sources.with(
        "src/lib.rs",
        &lib.replace("pub use money::*;", "use money::*;"),
    );
    let moved = plan(&sources, &request("src/lib.rs", "parse", "src/money.rs")).unwrap();
    assert!(!after(&moved, "src/lib.rs").contains("use crate::money::parse"));
    assert!(
        moved
            .findings
            .iter()
            .any(|f| f.severity == Severity::Warning && f.message.contains("public API")),
        "{:?}",
        moved.findings
    );
}

#[test]
fn a_nested_item_is_refused_with_what_to_move() {
    let sources = MemorySources::new().with(
        "a.py",
        "class Box:\n    def size(self):\n        return 1\n",
    );
    let err = plan(&sources, &request("a.py", "size", "b.py")).unwrap_err();
    assert!(matches!(err, RefactorError::Unsupported(_)));
    assert!(
        err.to_string().contains("move the class `Box` instead"),
        "{err}"
    );
    let err = plan(&sources, &request("a.py", "nothing", "b.py")).unwrap_err();
    assert!(matches!(err, RefactorError::NotFound(_)));
}

/// The `before/` files of a golden fixture of move to file.
fn fixture(case: &str) -> MemorySources {
    fn walk(
        dir: &std::path::Path,
        root: &std::path::Path,
        sources: MemorySources,
    ) -> MemorySources {
        let mut sources = sources;
        let mut entries: Vec<_> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for path in entries {
            if path.is_dir() {
                sources = walk(&path, root, sources);
            } else {
                let relative = path
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                sources = sources.with(&relative, &std::fs::read_to_string(&path).unwrap());
            }
        }
        sources
    }
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/move_to_file")
        .join(case)
        .join("before");
    walk(&root, &root, MemorySources::new())
}

fn caveat_notes(plan: &Plan) -> Vec<(&'static str, String)> {
    plan.caveat_notes
        .iter()
        .map(|n| (n.caveat.text(), n.note.clone()))
        .collect()
}

#[test]
fn caveat_notes_say_what_was_carried_and_rewritten() {
    let sources = fixture("python/carry_imports_package");
    let moved = plan(&sources, &request("pkg/money.py", "with_tax", "pkg/tax.py")).unwrap();
    assert_eq!(
        caveat_notes(&moved),
        vec![(
            "import dependencies not auto-resolved at target file",
            "imported at the target: `clamp`, `math`; `_cents`, `RATE` still needed from pkg/money.py — imported from it; no longer imported by pkg/money.py: `clamp`, `math`".to_string()
        )]
    );
    let sources = fixture("rust/third_file_paths");
    let moved = plan(&sources, &request("src/text.rs", "shout", "src/loud.rs")).unwrap();
    assert_eq!(
        caveat_notes(&moved),
        vec![(
            "no cross-file reference rewrite for callers in third files",
            "7 imports and paths in 4 files rewritten to the new location".to_string()
        )]
    );
    // A string naming the old path stays, with its warning: the note says so.
    let sources = fixture("python/src_layout_third_file_callers");
    let moved = plan(
        &sources,
        &request("src/shop/cart.py", "total", "src/shop/pricing.py"),
    )
    .unwrap();
    let notes = caveat_notes(&moved);
    assert!(
        notes.contains(&(
            "no cross-file reference rewrite for callers in third files",
            "1 import or path in 1 file rewritten to the new location; 1 more left as it was, with a warning".to_string()
        )),
        "{notes:#?}"
    );
    // An existing target: its names were checked against the moved ones.
    let sources = fixture("python/package_relative_append");
    let moved = plan(
        &sources,
        &request("pkg/cart.py", "Discount", "pkg/pricing.py"),
    )
    .unwrap();
    let notes = caveat_notes(&moved);
    assert!(
        notes
            .iter()
            .any(|(caveat, _)| *caveat == "name-collision at target file not detected"),
        "{notes:#?}"
    );
}

#[test]
fn a_rust_move_into_a_module_only_some_builds_compile_is_an_error() {
    let sources = MemorySources::new()
        .with("Cargo.toml", "[package]\nname = \"t\"\n")
        .with(
            "src/lib.rs",
            "mod parse;\n\n#[cfg(feature = \"serde\")]\nmod serde;\n\n#[cfg(test)]\nmod checks;\n",
        )
        .with(
            "src/parse.rs",
            "pub fn digit(c: char) -> bool {\n    c.is_ascii_digit()\n}\n\npub fn all(s: &str) -> bool {\n    s.chars().all(digit)\n}\n",
        )
        .with("src/serde.rs", "pub fn ser() {}\n")
        .with("src/checks.rs", "#[test]\nfn t() {}\n");
    let gated = |plan: &Plan| {
        plan.findings
            .iter()
            .filter(|f| f.severity == Severity::Error && f.message.contains("compiled only in"))
            .count()
    };
    let into = plan(&sources, &request("src/parse.rs", "digit", "src/serde.rs")).unwrap();
    assert_eq!(gated(&into), 1, "{:?}", into.findings);
    assert!(
        into.findings
            .iter()
            .any(|f| f.message.contains("#[cfg(feature = \"serde\")]")),
        "{:?}",
        into.findings
    );
    // Out of a gated module into an ungated one: nothing is lost, but the moved code now builds
    // where the gated module did not, without what only those builds have: a warning.
    let out = plan(&sources, &request("src/serde.rs", "ser", "src/parse.rs")).unwrap();
    assert_eq!(gated(&out), 0, "{:?}", out.findings);
    let ungated: Vec<_> = (out.findings.iter())
        .filter(|f| f.severity == Severity::Warning && f.message.contains("in builds without it"))
        .collect();
    assert_eq!(ungated.len(), 1, "{:?}", out.findings);
    assert!(
        ungated[0].message.contains("#[cfg(feature = \"serde\")]"),
        "{}",
        ungated[0].message
    );
    // From a gated module to another under the same `cfg`, or to an ungated one from an
    // ungated one: nothing to say.
    let alike = plan(&sources, &request("src/parse.rs", "all", "src/checks.rs")).unwrap();
    assert!(
        !(alike.findings.iter()).any(|f| f.message.contains("in builds without it")),
        "{:?}",
        alike.findings
    );
}
