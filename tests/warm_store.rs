//! The warm store (issue 22, item 1): one `Engine` keeps what it parsed across requests, so a
//! second preview of the same refactor parses nothing, and a changed file is parsed again.

use candor::api::Engine;
use candor::config::Config;
use candor::workspace::Root;
use serde_json::json;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("pkg")).unwrap();
    std::fs::write(
        dir.path().join("pkg/a.py"),
        "def helper(a):\n    return a + 1\n\n\ndef main():\n    return helper(2)\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("pkg/b.py"),
        "from pkg.a import helper\n\n\ndef use():\n    return helper(3) + helper(4)\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("pkg/c.py"),
        "# helper is documented in a.py\nimport pkg.a\n\nx = pkg.a.helper(5)\n",
    )
    .unwrap();
    dir
}

fn engine(dir: &std::path::Path) -> Engine {
    Engine::with_config(
        Root::new(dir).unwrap(),
        Config::default(),
        Some(candor::backend::BackendChoice::TreeSitter),
    )
}

fn preview(engine: &Engine) -> serde_json::Value {
    let args = json!({
        "file_path": "pkg/a.py",
        "function_name": "helper",
        "new_parameters": [{"name": "b", "default": "0"}],
        "dry_run": true,
    });
    engine
        .call("refactor_change_signature", &args)
        .unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn a_second_preview_through_one_engine_parses_no_file() {
    let dir = project();
    let engine = engine(dir.path());
    let first = preview(&engine);
    let after_first = engine.sources().store_stats();
    assert!(after_first.parses > 0, "{after_first:?}");
    let second = preview(&engine);
    let after_second = engine.sources().store_stats();
    assert_eq!(
        after_second.parses, after_first.parses,
        "the second preview parsed again: {after_first:?} then {after_second:?}"
    );
    assert!(after_second.hits > after_first.hits, "{after_second:?}");
    assert_eq!(first["data"]["changes"], second["data"]["changes"]);
}

#[test]
fn a_changed_file_is_parsed_again_and_the_preview_follows_it() {
    let dir = project();
    let engine = engine(dir.path());
    preview(&engine);
    let before = engine.sources().store_stats();
    std::fs::write(
        dir.path().join("pkg/b.py"),
        "from pkg.a import helper\n\n\ndef use():\n    return helper(3)\n",
    )
    .unwrap();
    let again = preview(&engine);
    let after = engine.sources().store_stats();
    assert!(after.parses > before.parses, "{before:?} then {after:?}");
    let b = again["data"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == "pkg/b.py")
        .unwrap()
        .to_string();
    // The diff is of the new text: the call that was removed is not in it.
    assert!(b.contains("-    return helper(3)\\n"), "{b}");
    assert!(!b.contains("helper(4"), "{b}");
}

#[test]
fn a_first_preview_parses_each_file_that_names_the_function_once() {
    // a.py (full tree), b.py and c.py (partial trees around `helper`): three parses. The
    // cross-check of the result reads b.py and c.py through the same partial trees, and d.py,
    // which holds `helper` only inside `helpers`, has no call of it and is not parsed at all.
    let dir = project();
    std::fs::write(dir.path().join("pkg/d.py"), "helpers = []\n").unwrap();
    let engine = engine(dir.path());
    let first = preview(&engine);
    assert_eq!(first["success"], true, "{first}");
    let stats = engine.sources().store_stats();
    assert_eq!(stats.parses, 3, "{stats:?}");
}

fn change(engine: &Engine, new_parameters: serde_json::Value) -> serde_json::Value {
    let args = json!({
        "file_path": "pkg/a.py",
        "function_name": "helper",
        "new_parameters": new_parameters,
        "dry_run": true,
    });
    engine
        .call("refactor_change_signature", &args)
        .unwrap_or_else(|e| panic!("{e:?}"))
}

#[test]
fn another_refactor_of_the_same_function_judges_no_file_again() {
    // The second change of signature asks the references engine the same question about the
    // same files: every verdict (and what it learned from each file) is the one kept, and the
    // plan is the one a fresh engine makes.
    let dir = project();
    let engine = engine(dir.path());
    change(
        &engine,
        json!([{"name": "a"}, {"name": "b", "default": "0"}]),
    );
    let after_first = engine.sources().store_stats();
    assert!(after_first.facts > 0, "{after_first:?}");
    let other = json!([{"name": "a"}, {"name": "c", "default": "None"}]);
    let second = change(&engine, other.clone());
    let after_second = engine.sources().store_stats();
    // The only new facts are the arity check's findings for the new signature (another
    // function, another question), at most one per file that names it (a.py, b.py, c.py), and
    // the rewrite of b.py and c.py for it (another callee); a file judged again would add its
    // verdicts and its top imports besides.
    assert!(
        after_second.facts - after_first.facts <= 5,
        "the second refactor judged files again: {after_first:?} then {after_second:?}"
    );
    assert!(
        after_second.fact_hits > after_first.fact_hits,
        "{after_second:?}"
    );
    let fresh = change(&self::engine(dir.path()), other);
    assert_eq!(second["data"], fresh["data"]);
}

#[test]
fn a_verdict_that_read_a_reexport_is_not_reused_once_the_reexport_changed() {
    // pkg/d.py calls `helper` through the package, which re-exports it from pkg/a.py: its call
    // is certain, and changed. Once pkg/__init__.py stops re-exporting it, d.py (unchanged) no
    // longer calls our function: the verdict kept for d.py must not be reused.
    let dir = project();
    std::fs::write(
        dir.path().join("pkg/__init__.py"),
        "from .a import helper\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("pkg/d.py"),
        "from pkg import helper\n\nx = helper(6)\n",
    )
    .unwrap();
    let engine = engine(dir.path());
    let params = json!([{"name": "b"}, {"name": "a"}]);
    let first = change(&engine, params.clone());
    let d_changed = |envelope: &serde_json::Value| {
        envelope["data"]["changes"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["path"] == "pkg/d.py")
    };
    assert!(d_changed(&first), "{first}");
    std::fs::write(
        dir.path().join("pkg/__init__.py"),
        "def helper(a):\n    return a\n",
    )
    .unwrap();
    let second = change(&engine, params.clone());
    assert!(!d_changed(&second), "{second}");
    let fresh = change(&self::engine(dir.path()), params);
    assert_eq!(second["data"], fresh["data"]);
}
