//! Issue 26: every changed site of a preview can be left out. For each tool with sites, through
//! the real `candor call`: preview → leave one site out → apply → the files hold exactly the
//! chosen edits; ids are stable across previews; a site of a file that changed since is
//! `stale_file` naming the file; undo restores a partial apply byte for byte.

mod common;

use serde_json::{Value, json};

use candor::api::{Engine, ErrorCode};
use candor::backend::BackendChoice;
use common::{call, candor, project, snapshot};

/// The id of the site at `file:line` in a preview's `data.sites`.
fn site_at(preview: &Value, file: &str, line: u64) -> String {
    let sites = preview["data"]["sites"].as_array().expect("data.sites");
    sites
        .iter()
        .find(|s| s["file"] == file && s["line"] == line)
        .unwrap_or_else(|| panic!("no site at {file}:{line} in {sites:?}"))["id"]
        .as_str()
        .unwrap()
        .to_string()
}

fn with(args: &Value, extra: Value) -> Value {
    let mut args = args.clone();
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    args
}

/// Previews `args`, leaves out the site at `file:line`, previews that choice, applies it with
/// its plan id, and returns the project's files afterwards.
fn leave_out_and_apply(
    dir: &std::path::Path,
    tool: &str,
    args: &Value,
    site: (&str, u64),
) -> (std::collections::BTreeMap<String, Vec<u8>>, Value) {
    let (preview, code) = call(dir, tool, args);
    assert_eq!(code, 0, "{preview:#}");
    let id = site_at(&preview, site.0, site.1);
    let chosen = with(args, json!({"exclude_sites": [id]}));
    let (narrowed, code) = call(dir, tool, &chosen);
    assert_eq!(code, 0, "{narrowed:#}");
    // The plan id covers the choice.
    assert_ne!(narrowed["data"]["plan_id"], preview["data"]["plan_id"]);
    let left: Vec<&Value> = narrowed["data"]["sites"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["chosen"] == false)
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    assert_eq!(left[0]["id"], id.as_str());
    let apply = with(
        &chosen,
        json!({"dry_run": false, "verify": false, "plan_id": narrowed["data"]["plan_id"]}),
    );
    let (applied, code) = call(dir, tool, &apply);
    assert_eq!(code, 0, "{applied:#}");
    assert_eq!(applied["data"]["applied"], true);
    (snapshot(dir), narrowed)
}

fn text(files: &std::collections::BTreeMap<String, Vec<u8>>, path: &str) -> String {
    String::from_utf8(files[path].clone()).unwrap()
}

fn finding_kinds(preview: &Value) -> Vec<String> {
    preview["data"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["kind"].as_str())
        .filter(|k| k.starts_with("sites."))
        .map(|f| f.to_string())
        .collect()
}

const RENAME_APP: &str = "def helper(x):\n    return x + 1\n\n\ndef main():\n    a = helper(1)\n    b = helper(2)\n    return a + b\n";
const RENAME_USE: &str = "from app import helper\n\nprint(helper(3))\n";

fn rename_args() -> Value {
    json!({"file_path": "app.py", "symbol_name": "helper", "new_name": "aid"})
}

#[test]
fn rename_leaves_one_reference_with_the_old_name() {
    let dir = project(&[
        ("app.py", RENAME_APP.as_bytes()),
        ("use.py", RENAME_USE.as_bytes()),
    ]);
    let (files, narrowed) = leave_out_and_apply(
        dir.path(),
        "refactor_rename_symbol",
        &rename_args(),
        ("app.py", 7),
    );
    assert_eq!(
        text(&files, "app.py"),
        "def aid(x):\n    return x + 1\n\n\ndef main():\n    a = aid(1)\n    b = helper(2)\n    return a + b\n"
    );
    assert_eq!(
        text(&files, "use.py"),
        "from app import aid\n\nprint(aid(3))\n"
    );
    let finding = narrowed["data"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "sites.left_out_reference")
        .unwrap();
    assert_eq!(
        (finding["file"].as_str(), finding["line"].as_u64()),
        (Some("app.py"), Some(7))
    );
    assert_eq!(finding["severity"], "error");
}

#[test]
fn change_signature_leaves_one_call_with_the_old_arguments() {
    let dir = project(&[(
        "m.py",
        b"def f(a, b):\n    return a\n\n\nx = f(1, 2)\ny = f(3, 4)\n",
    )]);
    let args =
        json!({"file_path": "m.py", "function_name": "f", "new_parameters": [{"name": "a"}]});
    let (files, narrowed) =
        leave_out_and_apply(dir.path(), "refactor_change_signature", &args, ("m.py", 6));
    assert_eq!(
        text(&files, "m.py"),
        "def f(a):\n    return a\n\n\nx = f(1)\ny = f(3, 4)\n"
    );
    assert_eq!(finding_kinds(&narrowed), vec!["sites.left_out_call"]);
}

#[test]
fn inline_leaves_one_call_and_says_it_now_calls_nothing() {
    let dir = project(&[(
        "m.py",
        b"def double(x):\n    return x * 2\n\n\ny = double(3)\nz = double(4)\n",
    )]);
    let args = json!({"file_path": "m.py", "function_name": "double"});
    let (files, narrowed) =
        leave_out_and_apply(dir.path(), "refactor_inline_function", &args, ("m.py", 6));
    assert_eq!(text(&files, "m.py"), "x = 3\ny = x * 2\nz = double(4)\n");
    let finding = narrowed["data"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "sites.left_out_call")
        .unwrap();
    assert_eq!(finding["severity"], "error");
    assert!(
        finding["message"]
            .as_str()
            .unwrap()
            .contains("no longer exists"),
        "{finding}"
    );
}

#[test]
fn move_leaves_a_third_file_import_alone() {
    let dir = project(&[
        (
            "models.py",
            b"def helper():\n    return 1\n\n\ndef other():\n    return 2\n",
        ),
        ("main.py", b"from models import helper\n\nprint(helper())\n"),
    ]);
    let args =
        json!({"file_path": "models.py", "symbol_name": "helper", "target_file": "utils.py"});
    let (files, narrowed) =
        leave_out_and_apply(dir.path(), "refactor_move_to_file", &args, ("main.py", 1));
    assert_eq!(
        text(&files, "main.py"),
        "from models import helper\n\nprint(helper())\n"
    );
    assert_eq!(text(&files, "models.py"), "def other():\n    return 2\n");
    assert_eq!(text(&files, "utils.py"), "def helper():\n    return 1\n");
    assert_eq!(finding_kinds(&narrowed), vec!["sites.left_out_import"]);
}

#[test]
fn introduce_parameter_leaves_one_call_without_the_argument() {
    let dir = project(&[(
        "m.py",
        b"def greet():\n    return \"hi \" + \"bob\"\n\n\na = greet()\nb = greet()\n",
    )]);
    let args = json!({"file_path": "m.py", "start_line": 2, "start_column": 20, "end_line": 2, "end_column": 25, "new_name": "who"});
    let (files, narrowed) = leave_out_and_apply(
        dir.path(),
        "refactor_introduce_parameter",
        &args,
        ("m.py", 6),
    );
    assert_eq!(
        text(&files, "m.py"),
        "def greet(who):\n    return \"hi \" + who\n\n\na = greet(\"bob\")\nb = greet()\n"
    );
    assert_eq!(finding_kinds(&narrowed), vec!["sites.left_out_call"]);
}

#[test]
fn extract_variable_leaves_one_occurrence_as_it_was() {
    let dir = project(&[(
        "m.py",
        b"def g(a, b):\n    x = a + b\n    y = a + b\n    return x * y\n",
    )]);
    let args = json!({"file_path": "m.py", "start_line": 2, "start_column": 9, "end_line": 2, "end_column": 14, "new_name": "s", "replace_all": true});
    let (files, narrowed) =
        leave_out_and_apply(dir.path(), "refactor_extract_variable", &args, ("m.py", 3));
    assert_eq!(
        text(&files, "m.py"),
        "def g(a, b):\n    s = a + b\n    x = s\n    y = a + b\n    return x * y\n"
    );
    let finding = narrowed["data"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "sites.left_out_occurrence")
        .unwrap();
    assert_eq!(finding["severity"], "info");
}

#[test]
fn ids_are_stable_across_previews_and_unknown_ids_are_refused() {
    let dir = project(&[
        ("app.py", RENAME_APP.as_bytes()),
        ("use.py", RENAME_USE.as_bytes()),
    ]);
    let (first, _) = call(dir.path(), "refactor_rename_symbol", &rename_args());
    let (second, _) = call(dir.path(), "refactor_rename_symbol", &rename_args());
    assert_eq!(first["data"]["sites"], second["data"]["sites"]);
    assert_eq!(first["data"]["sites"].as_array().unwrap().len(), 4);
    let (refused, code) = call(
        dir.path(),
        "refactor_rename_symbol",
        &with(&rename_args(), json!({"exclude_sites": ["0123456789ab"]})),
    );
    assert_ne!(code, 0);
    assert_eq!(refused["error"]["code"], "invalid_argument");
    assert_eq!(refused["error"]["param"], "exclude_sites");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("0123456789ab"),
        "{refused:#}"
    );
}

/// In one session (MCP, the TUI), a site of a preview whose file changed since is `stale_file`
/// naming that file.
#[test]
fn a_site_of_a_changed_file_is_stale_and_named() {
    let dir = project(&[
        ("app.py", RENAME_APP.as_bytes()),
        ("use.py", RENAME_USE.as_bytes()),
    ]);
    let engine = Engine::open(dir.path(), Some(BackendChoice::TreeSitter)).unwrap();
    let preview = engine
        .call("refactor_rename_symbol", &rename_args())
        .unwrap();
    let id = preview["data"]["sites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["file"] == "use.py")
        .unwrap()["id"]
        .clone();
    std::fs::write(
        dir.path().join("use.py"),
        format!("import os\n{RENAME_USE}"),
    )
    .unwrap();
    let error = engine
        .call(
            "refactor_rename_symbol",
            &with(&rename_args(), json!({"exclude_sites": [id]})),
        )
        .unwrap_err();
    assert_eq!(error.code, ErrorCode::StaleFile, "{}", error.message);
    assert!(error.message.contains("use.py"), "{}", error.message);
}

#[test]
fn undo_restores_a_partial_apply_byte_for_byte() {
    let dir = project(&[
        ("app.py", RENAME_APP.as_bytes()),
        ("use.py", RENAME_USE.as_bytes()),
    ]);
    let before = snapshot(dir.path());
    let (files, _) = leave_out_and_apply(
        dir.path(),
        "refactor_rename_symbol",
        &rename_args(),
        ("use.py", 3),
    );
    assert_eq!(
        text(&files, "use.py"),
        "from app import aid\n\nprint(helper(3))\n"
    );
    let out = candor(
        dir.path(),
        &["undo", "--root", dir.path().to_str().unwrap()],
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(snapshot(dir.path()), before);
}

/// `candor call` writes its envelope straight from the result, not through a JSON value: the
/// bytes it prints are the engine's value pretty-printed, for a preview with findings, sites and
/// details, one with a site left out, another tool's, and an error.
#[test]
fn the_printed_envelope_is_the_engines_value_pretty_printed() {
    let dir = project(&[
        ("app.py", RENAME_APP.as_bytes()),
        ("use.py", RENAME_USE.as_bytes()),
        ("duck.py", b"def g(o):\n    return o.helper(1)\n"),
    ]);
    let engine = Engine::open(dir.path(), Some(BackendChoice::TreeSitter)).unwrap();
    let preview = engine
        .call("refactor_rename_symbol", &rename_args())
        .unwrap();
    assert!(
        !preview["data"]["findings"].as_array().unwrap().is_empty()
            && !preview["data"]["sites"].as_array().unwrap().is_empty(),
        "{preview:#}"
    );
    let left_out = with(
        &rename_args(),
        json!({"exclude_sites": [site_at(&preview, "app.py", 7)]}),
    );
    let requests = [
        ("refactor_rename_symbol", rename_args()),
        ("refactor_rename_symbol", left_out),
        (
            "refactor_change_signature",
            json!({"file_path": "app.py", "function_name": "helper", "new_parameters": [{"name": "x"}, {"name": "y", "default": "0"}]}),
        ),
        (
            "refactor_rename_symbol",
            json!({"file_path": "gone.py", "symbol_name": "helper", "new_name": "aid"}),
        ),
    ];
    for (tool, args) in requests {
        let root = dir.path().to_str().unwrap();
        let out = candor(
            dir.path(),
            &["call", tool, &args.to_string(), "--root", root],
        );
        let response = engine.call_json(tool, &args);
        let expected = serde_json::to_string_pretty(&response.envelope).unwrap() + "\n";
        assert_eq!(
            String::from_utf8(out.stdout).unwrap(),
            expected,
            "{tool} {args}"
        );
        assert_eq!(out.status.code(), Some(response.exit_code), "{tool} {args}");
    }
}
