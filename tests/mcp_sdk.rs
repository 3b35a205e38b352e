//! An MCP client that no one here wrote drives `candor mcp`: the official MCP Python SDK
//! (`tests/mcp_client.py`, SDK pinned in `tests/requirements.txt`, installed by `scripts/test`)
//! starts the real binary over stdio, lists the tools, calls each of the four on a Python and a
//! Rust file, applies one refactor guarded by the previewed hashes, and makes bad calls. This
//! test checks what the SDK received: the honesty surfaces against the policy document, the
//! same payloads as `candor call`, the file on disk, and the error codes.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use common::policy::{PYTHON, RUST, candor_call, four_calls, policy, write_fixtures};

/// The interpreter with the SDK: `CANDOR_TEST_PYTHON` (set by `scripts/test`), else the
/// worktree's `.venv`, else `python3`.
fn python() -> PathBuf {
    if let Some(path) = std::env::var_os("CANDOR_TEST_PYTHON") {
        return PathBuf::from(path);
    }
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join(".venv/bin/python");
    if venv.exists() {
        return venv;
    }
    PathBuf::from("python3")
}

/// Fails (never skips, in CI or not) with what to do when the SDK is missing.
fn require_sdk(python: &Path) {
    let probe = Command::new(python)
        .args(["-c", "import mcp, jsonschema"])
        .output();
    let ok = matches!(&probe, Ok(output) if output.status.success());
    if !ok {
        let why = match probe {
            Ok(output) => String::from_utf8_lossy(&output.stderr).into_owned(),
            Err(e) => e.to_string(),
        };
        panic!(
            "the official MCP Python SDK is not importable by {} ({}).\n\
             This test needs the real client: run ./scripts/test, or\n  \
             python3 -m venv .venv && .venv/bin/pip install -r tests/requirements.txt\n\
             (or point CANDOR_TEST_PYTHON at a python that has `mcp`).",
            python.display(),
            why.trim()
        );
    }
}

/// Runs the client script on `job`; returns its JSON summary.
fn run_client(root: &Path, job: &Value) -> Value {
    let python = python();
    require_sdk(&python);
    let job_file = root.parent().unwrap().join("job.json");
    std::fs::write(&job_file, job.to_string()).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp_client.py");
    let mut child = Command::new(&python)
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_candor"))
        .arg(root)
        .arg(&job_file)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Read both streams while the client runs: its summary is larger than a pipe's buffer.
    let drain = |stream: Option<Box<dyn std::io::Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut stream) = stream {
                let _ = std::io::Read::read_to_end(&mut stream, &mut bytes);
            }
            bytes
        })
    };
    let stdout = drain(
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    );
    let stderr = drain(
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    );
    let deadline = Instant::now() + Duration::from_secs(300);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the MCP client did not finish within 300 s");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let stdout = String::from_utf8_lossy(&stdout.join().unwrap()).into_owned();
    let stderr = String::from_utf8_lossy(&stderr.join().unwrap()).into_owned();
    assert!(
        status.success(),
        "the MCP client failed:\n{stderr}\n{stdout}"
    );
    let last = stdout.lines().last().unwrap_or("");
    serde_json::from_str(last)
        .unwrap_or_else(|e| panic!("no JSON summary ({e}):\n{stdout}\n{stderr}"))
}

/// The pinned SDK version in tests/requirements.txt.
fn pinned_sdk_version() -> Option<String> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/requirements.txt"),
    )
    .ok()?;
    text.lines()
        .find_map(|l| l.trim().strip_prefix("mcp==").map(str::to_string))
}

fn label(file: &str, tool: &str) -> String {
    format!("{file}:{tool}")
}

/// A tool result the SDK returned: `structuredContent`, checked against its text twin and the
/// declared output schema.
fn structured<'a>(result: &'a Value, what: &str) -> &'a Value {
    assert!(
        result.get("rpc_error").is_none(),
        "{what}: JSON-RPC error {result:#}"
    );
    assert_eq!(
        result["schema_error"],
        Value::Null,
        "{what}: structuredContent does not match the outputSchema"
    );
    let texts = result["texts"].as_array().unwrap();
    assert_eq!(texts.len(), 1, "{what}: one text block");
    let text: Value = serde_json::from_str(texts[0].as_str().unwrap()).unwrap();
    assert_eq!(
        text, result["structured"],
        "{what}: the text content is the envelope"
    );
    &result["structured"]
}

#[test]
fn the_official_python_sdk_drives_the_four_tools_end_to_end() {
    let policy = policy();
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("project");
    std::fs::create_dir(&root).unwrap();
    write_fixtures(&root);
    // An untouched twin of the project for `candor call`, since the client applies a refactor.
    let twin = dir.path().join("twin");
    std::fs::create_dir(&twin).unwrap();
    write_fixtures(&twin);
    let no_config = root.join(".no-user-config");

    let mut calls = Vec::new();
    for file in ["app.py", "app.rs"] {
        for (tool, arguments) in four_calls(file) {
            calls.push(json!({"label": label(file, tool), "tool": tool, "arguments": arguments}));
        }
    }
    let (extract, extract_args) = four_calls("app.py").remove(0);
    calls.push(json!({"label": "apply", "tool": extract, "arguments": extract_args, "apply_after_preview": true}));
    let bad_calls = json!([
        {"label": "missing", "tool": "refactor_extract_function",
         "arguments": {"file_path": "app.py", "end_line": 9, "new_name": "show"}},
        {"label": "unknown_tool", "tool": "refactor_rename", "arguments": {"file_path": "app.py"}},
        {"label": "outside", "tool": "refactor_move_to_file",
         "arguments": {"file_path": "app.py", "symbol_name": "helper", "target_file": "../outside.py", "dry_run": false}},
    ]);
    let job = json!({
        "env": {"XDG_CONFIG_HOME": no_config, "RUST_BACKTRACE": "1"},
        "calls": calls,
        "bad_calls": bad_calls,
    });
    let summary = run_client(&root, &job);

    if let Some(pinned) = pinned_sdk_version()
        && summary["sdk_version"] != pinned.as_str()
    {
        eprintln!(
            "note: the MCP SDK in use is {}, tests/requirements.txt pins {pinned}",
            summary["sdk_version"]
        );
    }

    // The handshake: the SDK's default mode probed `server/discover`, fell back to `initialize`,
    // and settled on a revision we speak.
    let version = summary["protocol_version"].as_str().unwrap();
    assert!(
        candor::mcp::protocol::SUPPORTED_VERSIONS.contains(&version),
        "{version}"
    );
    assert_eq!(summary["server_info"]["name"], "candor");
    assert!(
        summary["capabilities"].get("tools").is_some(),
        "{:#}",
        summary["capabilities"]
    );
    assert!(
        summary["instructions"]
            .as_str()
            .unwrap()
            .contains("expected_sha256")
    );

    // The listing: every tool, each explaining the honesty surfaces, with their schemas.
    let tools = summary["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "refactor_extract_function",
            "refactor_inline_function",
            "refactor_move_to_file",
            "refactor_change_signature",
            "refactor_rename_symbol",
            "refactor_extract_variable",
            "refactor_inline_variable",
            "refactor_safe_delete",
            "refactor_introduce_parameter"
        ]
    );
    for tool in tools {
        let description = tool["description"].as_str().unwrap();
        for surface in [
            "backend_used",
            "confidence",
            "degraded_reason",
            "tree_sitter_caveats",
            "findings",
            "unknown_args",
            "dry_run",
        ] {
            assert!(
                description.contains(surface),
                "{}: description omits {surface}",
                tool["name"]
            );
        }
        assert!(
            description.contains(&policy.degraded_reason),
            "{}",
            tool["name"]
        );
        let input = &tool["inputSchema"];
        assert_eq!(input["type"], "object");
        assert_eq!(
            input["additionalProperties"], true,
            "extra keys are allowed"
        );
        let required: Vec<&str> = input["required"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        assert!(required.contains(&"file_path"));
        for key in &required {
            assert!(
                input["properties"].get(key).is_some(),
                "{}: required `{key}` has no schema",
                tool["name"]
            );
        }
        assert_eq!(tool["outputSchema"]["type"], "object");
    }

    // Every preview: the three honesty surfaces exactly as the policy says, `banana` reported,
    // and the very payload `candor call` prints for the same arguments.
    for file in ["app.py", "app.rs"] {
        for (tool, arguments) in four_calls(file) {
            let what = label(file, tool);
            let result = &summary["calls"][&what]["preview"];
            let envelope = structured(result, &what);
            assert_eq!(result["is_error"], false, "{what}: {envelope:#}");
            assert_eq!(envelope["success"], true, "{what}: {envelope:#}");
            assert_eq!(envelope["tool"], tool);
            assert_eq!(envelope["backend_used"], "hybrid", "{what}");
            assert_eq!(
                envelope["confidence"].as_f64(),
                Some(policy.confidence_of(tool)),
                "{what}"
            );
            assert_eq!(
                envelope["degraded_reason"],
                policy.degraded_reason.as_str(),
                "{what}"
            );
            let data = &envelope["data"];
            assert_eq!(
                data["degraded_reason"],
                policy.degraded_reason.as_str(),
                "{what}"
            );
            assert_eq!(
                data["tree_sitter_caveats"],
                json!(policy.caveats_of(tool)),
                "{what}"
            );
            assert_eq!(data["unknown_args"], json!(["banana"]), "{what}");
            assert!(data["findings"].is_array(), "{what}");
            assert_eq!(
                (data["dry_run"].clone(), data["applied"].clone()),
                (json!(true), json!(false)),
                "{what}"
            );
            assert!(
                !data["changes"].as_array().unwrap().is_empty(),
                "{what} changes nothing"
            );
            assert_eq!(
                envelope,
                &candor_call(&twin, tool, &arguments),
                "{what}: MCP and `candor call` disagree"
            );
        }
    }
    assert_eq!(
        std::fs::read_to_string(root.join("app.rs")).unwrap(),
        RUST,
        "previews wrote nothing"
    );

    // Preview → apply with expected_sha256: the file on disk is what the preview announced.
    let apply = &summary["calls"]["apply"];
    let preview = structured(&apply["preview"], "apply preview");
    assert_eq!(preview["success"], true, "{preview:#}");
    let change = preview["data"]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["path"] == "app.py")
        .expect("the preview changes app.py")
        .clone();
    assert_eq!(
        change["sha256_before"],
        candor::edit::sha256_hex(PYTHON.as_bytes())
    );
    let applied = structured(&apply["apply"], "apply");
    assert_eq!(apply["apply"]["is_error"], false, "{applied:#}");
    assert_eq!(
        (
            applied["data"]["dry_run"].clone(),
            applied["data"]["applied"].clone()
        ),
        (json!(false), json!(true))
    );
    assert_eq!(
        applied["data"]["tree_sitter_caveats"],
        json!(policy.caveats_of(extract)),
        "the surfaces stay on apply"
    );
    // Every write is checked first, over MCP too, without the client asking.
    let verification = &applied["data"]["verification"];
    assert_ne!(verification["state"], "skipped", "{applied:#}");
    assert!(verification["steps"].is_array(), "{applied:#}");
    let written = std::fs::read(root.join("app.py")).unwrap();
    assert_eq!(
        candor::edit::sha256_hex(&written),
        change["sha256_after"],
        "the file is exactly the preview"
    );
    let written = String::from_utf8(written).unwrap();
    assert!(written.contains("def show("), "{written}");
    // The same guarded apply again: the file no longer holds what was previewed.
    let again = structured(&apply["apply_again"], "apply again");
    assert_eq!(apply["apply_again"]["is_error"], true, "{again:#}");
    assert_eq!(again["error"]["code"], "stale_file", "{again:#}");
    assert_eq!(
        std::fs::read_to_string(root.join("app.py")).unwrap(),
        written,
        "a stale apply writes nothing"
    );

    // Bad calls: a missing argument is -32602 naming it; an unknown tool is -32602; a path
    // outside the root is a tool error and nothing appears outside.
    let missing = &summary["bad_calls"]["missing"]["rpc_error"];
    assert_eq!(missing["code"], -32602, "{missing:#}");
    assert!(
        missing["message"].as_str().unwrap().contains("start_line"),
        "{missing:#}"
    );
    assert_eq!(missing["data"]["param"], "start_line");
    let unknown = &summary["bad_calls"]["unknown_tool"]["rpc_error"];
    assert_eq!(unknown["code"], -32602, "{unknown:#}");
    assert!(
        unknown["message"]
            .as_str()
            .unwrap()
            .contains("refactor_rename")
    );
    let outside = &summary["bad_calls"]["outside"];
    let envelope = structured(outside, "outside");
    assert_eq!(outside["is_error"], true);
    assert_eq!(envelope["success"], false);
    assert_eq!(envelope["error"]["code"], "outside_root", "{envelope:#}");
    assert!(
        !dir.path().join("outside.py").exists(),
        "nothing is written outside the root"
    );
    assert_eq!(summary["alive_at_end"], true);
}
