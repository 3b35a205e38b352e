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
