//! `candor mcp` at the wire: the real binary spoken to in raw JSON lines. Framing, the
//! lifecycle and version negotiation, the JSON-RPC error codes for malformed input, tool errors,
//! containment, and that the server survives all of it with nothing but protocol on stdout.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use candor::mcp::protocol::{LATEST_VERSION, SUPPORTED_VERSIONS};

const TIMEOUT: Duration = Duration::from_secs(60);

/// A running `candor mcp` with its stdout read line by line on a thread.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Server {
    fn start(root: &Path) -> Server {
        let mut child = Command::new(common::candor_bin())
            .args(["mcp", "--root"])
            .arg(root)
            .env_remove("CANDOR_BACKEND")
            .env("XDG_CONFIG_HOME", root.join(".no-user-config"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Server {
            child,
            stdin,
            lines,
        }
    }

    fn initialized(root: &Path) -> Server {
        let mut server = Server::start(root);
        let reply = server.request(json!({"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": {
            "protocolVersion": LATEST_VERSION, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}));
        assert_eq!(
            reply["result"]["protocolVersion"], LATEST_VERSION,
            "{reply:#}"
        );
        server.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
        server
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(bytes).unwrap();
        stdin.flush().unwrap();
    }

    /// The next line on stdout; it must be one JSON-RPC 2.0 message.
    fn recv(&self) -> Value {
        let line = self
            .lines
            .recv_timeout(TIMEOUT)
            .expect("the server answered");
        let value: Value = serde_json::from_str(&line)
            .unwrap_or_else(|e| panic!("stdout carried a non-JSON line ({e}): {line}"));
        assert_eq!(value["jsonrpc"], "2.0", "{line}");
        value
    }

    fn request(&mut self, message: Value) -> Value {
        self.send_raw(format!("{message}\n").as_bytes());
        let reply = self.recv();
        assert_eq!(
            reply["id"], message["id"],
            "replies come in order: {reply:#}"
        );
        reply
    }

    /// Sends `raw` and returns the one reply it gets.
    fn reply_to(&mut self, raw: &[u8]) -> Value {
        self.send_raw(raw);
        self.recv()
    }

    /// Proves that nothing was answered to what was sent before: the next line is this ping's.
    fn assert_no_reply_pending(&mut self, tag: &str) {
        let reply =
            self.request(json!({"jsonrpc": "2.0", "id": format!("ping-{tag}"), "method": "ping"}));
        assert_eq!(reply["result"], json!({}), "{tag}: {reply:#}");
    }

    fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        self.request(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool, "arguments": arguments}}))
    }

    /// Closes stdin and waits for a clean exit.
    fn finish(mut self) {
        assert!(
            self.child.try_wait().unwrap().is_none(),
            "the server is still running before EOF"
        );
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(
            status.success(),
            "the server exits cleanly at end of input: {status}"
        );
        assert!(
            self.lines.recv_timeout(Duration::from_secs(5)).is_err(),
            "nothing after EOF"
        );
    }
}

fn error_code(reply: &Value) -> i64 {
    reply["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {reply:#}"))
}

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("project")).unwrap();
    common::policy::write_fixtures(&dir.path().join("project"));
    dir
}

#[test]
fn lifecycle_initialize_first_and_version_negotiation() {
    let dir = project();
    let root = dir.path().join("project");
    let mut server = Server::start(&root);
    // Before initialize: ping is served, tools are not, unknown methods are "not found".
    let early = server.request(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    assert_eq!(error_code(&early), -32600, "{early:#}");
    assert!(
        early["error"]["message"]
            .as_str()
            .unwrap()
            .contains("initialize")
    );
    let early = server.request(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "refactor_inline_function"}}));
    assert_eq!(error_code(&early), -32600);
    assert_eq!(
        server.request(json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))["result"],
        json!({})
    );
    let probe = server
        .request(json!({"jsonrpc": "2.0", "id": 4, "method": "server/discover", "params": {}}));
    assert_eq!(
        error_code(&probe),
        -32601,
        "the 2026 probe falls back to initialize: {probe:#}"
    );
    // A malformed initialize changes nothing.
    let bad = server.request(json!({"jsonrpc": "2.0", "id": 5, "method": "initialize", "params": {"protocolVersion": 2025}}));
    assert_eq!(error_code(&bad), -32602);
    // The client's version when we speak it.
    let init = server.request(json!({"jsonrpc": "2.0", "id": 6, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}));
    let result = &init["result"];
    assert_eq!(result["protocolVersion"], "2025-06-18");
    assert_eq!(result["serverInfo"]["name"], "candor");
    assert_eq!(result["serverInfo"]["version"], env!("CARGO_PKG_VERSION"));
    assert!(result["capabilities"]["tools"].is_object());
    assert!(result["instructions"].as_str().unwrap().contains("dry_run"));
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}\n");
    server.assert_no_reply_pending("initialized");
    let again = server.request(json!({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"protocolVersion": "2025-06-18"}}));
    assert_eq!(error_code(&again), -32600);
    server.finish();

    // Our latest for a version we do not know (older or newer).
    for requested in ["2099-01-01", "2026-07-28", "draft"] {
        let mut server = Server::start(&root);
        let init = server.request(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": requested, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}));
        assert_eq!(
            init["result"]["protocolVersion"], LATEST_VERSION,
            "{requested}"
        );
        server.finish();
    }
    // Every supported revision is echoed; the oldest gets no structured fields.
    for version in SUPPORTED_VERSIONS {
        let mut server = Server::start(&root);
        let init = server.request(json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}}));
        assert_eq!(init["result"]["protocolVersion"], version);
        let list = server.request(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
        let structured = version >= "2025-06-18";
        assert_eq!(
            list["result"]["tools"][0].get("outputSchema").is_some(),
            structured,
            "{version}"
        );
        let call = server.call(
            3,
            "refactor_inline_function",
            json!({"file_path": "nope.py", "function_name": "f"}),
        );
        assert_eq!(
            call["result"].get("structuredContent").is_some(),
            structured,
            "{version}"
        );
        assert_eq!(call["result"]["isError"], true);
        server.finish();
    }
}

#[test]
fn tools_list_has_the_four_tools_and_their_schemas() {
    let dir = project();
    let mut server = Server::initialized(&dir.path().join("project"));
    let list =
        server.request(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}));
    let tools = list["result"]["tools"].as_array().unwrap();
    assert!(list["result"].get("nextCursor").is_none(), "one page");
    let expected_required = [
        (
            "refactor_extract_function",
            vec!["file_path", "start_line", "end_line", "new_name"],
        ),
        (
            "refactor_inline_function",
            vec!["file_path", "function_name"],
        ),
        (
            "refactor_move_to_file",
            vec!["file_path", "symbol_name", "target_file"],
        ),
        (
            "refactor_change_signature",
            vec!["file_path", "function_name", "new_parameters"],
        ),
        ("refactor_rename_symbol", vec!["file_path", "new_name"]),
        (
            "refactor_extract_variable",
            vec![
                "file_path",
                "start_line",
                "start_column",
                "end_line",
                "end_column",
                "new_name",
            ],
        ),
        (
            "refactor_inline_variable",
            vec!["file_path", "line", "column"],
        ),
        ("refactor_safe_delete", vec!["file_path"]),
        (
            "refactor_introduce_parameter",
            vec![
                "file_path",
                "start_line",
                "start_column",
                "end_line",
                "end_column",
                "new_name",
            ],
        ),
    ];
    assert_eq!(tools.len(), expected_required.len());
    for (tool, (name, required)) in tools.iter().zip(expected_required) {
        assert_eq!(tool["name"], name);
        let description = tool["description"].as_str().unwrap();
        assert!(
            description.contains("tree_sitter_caveats") && description.contains("findings"),
            "{name}"
        );
        let input = &tool["inputSchema"];
        assert_eq!(input["type"], "object");
        assert_eq!(input["required"], json!(required), "{name}");
        assert_eq!(input["additionalProperties"], true);
        for key in [
            "dry_run",
            "expected_sha256",
            "semantic_edit_backend",
            "line",
            "column",
        ] {
            assert!(input["properties"].get(key).is_some(), "{name} lacks {key}");
        }
        assert_eq!(input["properties"]["dry_run"]["default"], true);
        let output = &tool["outputSchema"];
        assert_eq!(output["type"], "object");
        assert_eq!(output["required"], json!(["success", "tool"]));
        assert_eq!(tool["annotations"]["readOnlyHint"], false);
    }
    server.finish();
}

#[test]
fn malformed_input_gets_json_rpc_errors_and_the_server_survives() {
    let dir = project();
    let mut server = Server::initialized(&dir.path().join("project"));
    // Not JSON: -32700 with id null.
    for raw in [
        &b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\"\n"[..],
        b"hello\n",
        b"\xff\xfe\xfd\n",
        b"{\"a\":1}}\n",
    ] {
        let reply = server.reply_to(raw);
        assert_eq!(
            (error_code(&reply), reply["id"].clone()),
            (-32700, Value::Null),
            "{}",
            String::from_utf8_lossy(raw)
        );
    }
    // JSON that is not a request: -32600 with id null.
    for raw in [
        "42",
        "\"ping\"",
        "null",
        "true",
        "{}",
        "[]",
        r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
        r#"{"jsonrpc":"2.0","id":{"x":1},"method":"ping"}"#,
    ] {
        let reply = server.reply_to(format!("{raw}\n").as_bytes());
        assert_eq!(
            (error_code(&reply), reply["id"].clone()),
            (-32600, Value::Null),
            "{raw}"
        );
    }
    // A request with a readable id but a bad shape: the id is echoed.
    let reply = server.request(json!({"id": 11, "method": "ping"}));
    assert_eq!(error_code(&reply), -32600);
    let reply = server.request(json!({"jsonrpc": "1.0", "id": 12, "method": "ping"}));
    assert_eq!(error_code(&reply), -32600);
    let reply = server.request(json!({"jsonrpc": "2.0", "id": 13, "method": ["ping"]}));
    assert_eq!(error_code(&reply), -32600);
    let reply = server
        .request(json!({"jsonrpc": "2.0", "id": 14, "method": "tools/list", "params": "all"}));
    assert_eq!(error_code(&reply), -32602);
    // Unknown methods: -32601.
    for (id, method) in [
        (15, "resources/list"),
        (16, "prompts/list"),
        (17, "tools/delete"),
        (18, ""),
    ] {
        let reply = server.request(json!({"jsonrpc": "2.0", "id": id, "method": method}));
        assert_eq!(error_code(&reply), -32601, "{method}");
    }
    // Notifications (known or not) and responses get no reply; blank lines are skipped.
    server.send_raw(b"\n   \n\r\n");
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":15,\"reason\":\"x\"}}\n");
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n");
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"method\":\"no/such/notification\"}\n");
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":99,\"result\":{}}\n");
    server.assert_no_reply_pending("notifications");
    // CRLF framing and string ids.
    let reply = server.reply_to(b"{\"jsonrpc\":\"2.0\",\"id\":\"crlf\",\"method\":\"ping\"}\r\n");
    assert_eq!(reply["id"], "crlf");
    // Two messages written at once are two lines, answered in order.
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":21,\"method\":\"ping\"}\n{\"jsonrpc\":\"2.0\",\"id\":22,\"method\":\"ping\"}\n");
    assert_eq!(
        (server.recv()["id"].clone(), server.recv()["id"].clone()),
        (json!(21), json!(22))
    );
    server.finish();
}

#[test]
fn tool_calls_errors_and_containment() {
    let dir = project();
    let root = dir.path().join("project");
    #[cfg(unix)]
    {
        std::fs::create_dir(dir.path().join("elsewhere")).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), root.join("escape")).unwrap();
    }
    let mut server = Server::initialized(&root);

    // A missing required argument: -32602 naming it.
    let reply = server.call(
        1,
        "refactor_move_to_file",
        json!({"file_path": "app.py", "symbol_name": "helper"}),
    );
    assert_eq!(error_code(&reply), -32602, "{reply:#}");
    assert!(
        reply["error"]["message"]
            .as_str()
            .unwrap()
            .contains("target_file")
    );
    assert_eq!(reply["error"]["data"]["param"], "target_file");
    let reply = server.call(
        2,
        "refactor_change_signature",
        json!({"file_path": "app.py", "function_name": "helper"}),
    );
    assert_eq!(reply["error"]["data"]["param"], "new_parameters");
    let reply = server.request(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "refactor_extract_function"}}));
    assert_eq!(
        (error_code(&reply), reply["error"]["data"]["param"].clone()),
        (-32602, json!("file_path"))
    );
    // An unknown tool, or no tool name: -32602.
    let reply = server.call(4, "refactor_rename", json!({}));
    assert_eq!(error_code(&reply), -32602);
    let reply = server.request(
        json!({"jsonrpc": "2.0", "id": 5, "method": "tools/call", "params": {"arguments": {}}}),
    );
    assert_eq!(error_code(&reply), -32602);
    let reply = server.request(json!({"jsonrpc": "2.0", "id": 6, "method": "tools/call", "params": {"name": "refactor_inline_function", "arguments": "app.py"}}));
    assert_eq!(error_code(&reply), -32602);

    // Any other failure: a tool result with isError and the error envelope, as text too.
    let tool_error = |reply: &Value, code: &str| {
        let result = &reply["result"];
        assert_eq!(result["isError"], true, "{reply:#}");
        let envelope = &result["structuredContent"];
        assert_eq!(envelope["success"], false);
        assert_eq!(envelope["error"]["code"], code, "{envelope:#}");
        assert!(!envelope["error"]["message"].as_str().unwrap().is_empty());
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(&text, envelope);
        assert_eq!(result["content"][0]["type"], "text");
    };
    let reply = server.call(
        7,
        "refactor_inline_function",
        json!({"file_path": "missing.py", "function_name": "f"}),
    );
    tool_error(&reply, "not_found");
    let reply = server.call(
        8,
        "refactor_inline_function",
        json!({"file_path": "notes.txt", "function_name": "f"}),
    );
    tool_error(&reply, "unsupported_language");
    let reply = server.call(
        9,
        "refactor_extract_function",
        json!({"file_path": "app.py", "start_line": 9, "end_line": 8, "new_name": "f"}),
    );
    tool_error(&reply, "invalid_range");
    let reply = server.call(
        10,
        "refactor_inline_function",
        json!({"file_path": "app.py", "function_name": "helper", "semantic_edit_backend": "magic"}),
    );
    tool_error(&reply, "invalid_argument");
    let reply = server.call(11, "refactor_inline_function", json!({"file_path": "app.py", "function_name": "helper", "expected_sha256": {"app.py": "nothex"}}));
    tool_error(&reply, "invalid_argument");
    // A client may not choose a program to run unless the operator allowed it.
    let reply = server.call(12, "refactor_inline_function", json!({"file_path": "app.py", "function_name": "helper", "command": "/bin/sh", "args": ["-c", "touch pwned"]}));
    tool_error(&reply, "invalid_argument");
    assert_eq!(
        reply["result"]["structuredContent"]["error"]["param"],
        "command"
    );
    assert!(!root.join("pwned").exists());

    // Paths outside the root are refused and nothing is written outside: `..`, absolute, symlink.
    let outside_file = dir.path().join("outside.py");
    let mut outside_targets = vec![
        "../outside.py".to_string(),
        outside_file.display().to_string(),
    ];
    if cfg!(unix) {
        outside_targets.push("escape/evil.py".to_string());
    }
    for (i, target) in outside_targets.iter().enumerate() {
        let reply = server.call(20 + i as u64, "refactor_move_to_file", json!({
            "file_path": "app.py", "symbol_name": "helper", "target_file": target, "dry_run": false}));
        tool_error(&reply, "outside_root");
        assert_eq!(
            reply["result"]["structuredContent"]["error"]["param"],
            "target_file"
        );
    }
    let reply = server.call(
        30,
        "refactor_inline_function",
        json!({"file_path": "../project/../outside.py", "function_name": "f", "dry_run": false}),
    );
    tool_error(&reply, "outside_root");
    let reply = server.call(31, "refactor_change_signature", json!({
        "file_path": "/etc/hostname.py", "function_name": "f", "new_parameters": [], "dry_run": false}));
    tool_error(&reply, "outside_root");
    assert!(!outside_file.exists());
    if cfg!(unix) {
        assert_eq!(
            std::fs::read_dir(dir.path().join("elsewhere"))
                .unwrap()
                .count(),
            0,
            "nothing written through the symlink"
        );
    }
    assert_eq!(
        std::fs::read_to_string(root.join("app.py")).unwrap(),
        common::policy::PYTHON
    );
    assert_eq!(
        std::fs::read_to_string(root.join("app.rs")).unwrap(),
        common::policy::RUST
    );
    server.assert_no_reply_pending("after tool errors");
    server.finish();
}

#[test]
fn end_of_input_mid_line_and_a_huge_line() {
    let dir = project();
    let mut server = Server::initialized(&dir.path().join("project"));
    // A 20 MiB line (over the 16 MiB limit) is refused and skipped; the next one is served.
    let mut huge = vec![b' '; 20 * 1024 * 1024];
    huge.extend_from_slice(b"\"tail\"\n");
    let reply = server.reply_to(&huge);
    assert_eq!(
        (error_code(&reply), reply["id"].clone()),
        (-32700, Value::Null)
    );
    server.assert_no_reply_pending("after the huge line");
    // The last message without a line feed is still served before the end of input.
    server.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"last\",\"method\":\"ping\"}");
    drop(server.stdin.take());
    assert_eq!(server.recv()["id"], "last");
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status}");
}

/// A project where a change-signature dry run takes seconds: 3,000 files of 20 calls each.
fn big_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    std::fs::create_dir_all(&pkg).unwrap();
    std::fs::write(pkg.join("a.py"), "def helper(x, y):\n    return x\n").unwrap();
    std::fs::write(
        dir.path().join("small.py"),
        "def lonely(v):\n    return v + 1\n\n\nprint(lonely(2))\n",
    )
    .unwrap();
    let body: String = (0..20)
        .map(|j| format!("v{j} = helper({j}, 2)\n"))
        .collect();
    for i in 0..3000 {
        std::fs::write(
            pkg.join(format!("m{i}.py")),
            format!("from pkg.a import helper\n\n{body}"),
        )
        .unwrap();
    }
    dir
}

/// Issue 10, item 6: one slow call used to block the whole session (no `ping` answer for the
/// length of the call, `notifications/cancelled` ignored).
#[test]
fn ping_is_answered_during_a_long_call_and_cancel_stops_it() {
    let dir = big_project();
    let mut server = Server::initialized(dir.path());
    let slow = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "refactor_change_signature", "arguments": {
            "file_path": "pkg/a.py", "function_name": "helper", "new_parameters": [{"name": "x"}], "semantic_edit_backend": "tree-sitter"}}})
    };
    // How long the call takes when nothing interrupts it.
    let started = Instant::now();
    let full = server.request(slow(1));
    let full_time = started.elapsed();
    assert_eq!(
        full["result"]["isError"], false,
        "{}",
        full["result"]["content"]
    );

    server.send_raw(format!("{}\n", slow(2)).as_bytes());
    std::thread::sleep(Duration::from_millis(200));
    let asked = Instant::now();
    let pong = server.reply_to(b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n");
    let ping_time = asked.elapsed();
    assert_eq!(
        pong["id"], 3,
        "the ping is answered before the call: {pong}"
    );
    assert!(
        ping_time < Duration::from_secs(1),
        "ping took {ping_time:?} while a call of {full_time:?} ran"
    );

    let cancelled = Instant::now();
    server.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":2,\"reason\":\"test\"}}\n",
    );
    let next = server.call(
        4,
        "refactor_inline_function",
        json!({"file_path": "small.py", "function_name": "lonely", "semantic_edit_backend": "tree-sitter"}),
    );
    let freed = cancelled.elapsed();
    assert_eq!(next["result"]["isError"], false, "{next}");
    assert!(
        freed < full_time / 2,
        "the cancelled call went on: the next call waited {freed:?} (a whole call takes {full_time:?})"
    );
    // The cancelled request never gets an answer.
    server.assert_no_reply_pending("after cancel");
    eprintln!(
        "a whole call {full_time:?}; ping answered in {ping_time:?} during one; the next call answered {freed:?} after the cancel"
    );
    server.finish();
}

/// Issue 10, item 4 over MCP: the session remembers its previews, so an apply whose plan grew
/// names the file that now needs a change, and writes nothing.
#[test]
fn an_apply_with_plan_id_writes_that_plan_or_names_what_differs() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("pkg")).unwrap();
    std::fs::write(root.join("pkg/__init__.py"), "").unwrap();
    std::fs::write(
        root.join("pkg/a.py"),
        "def helper(x, y):\n    return x + y\n",
    )
    .unwrap();
    std::fs::write(
        root.join("pkg/b.py"),
        "from pkg.a import helper\n\nprint(helper(1, 2))\n",
    )
    .unwrap();
    let mut server = Server::initialized(root);
    let arguments = |extra: Value| {
        let mut args = json!({"file_path": "pkg/a.py", "function_name": "helper",
            "new_parameters": [{"name": "x"}], "semantic_edit_backend": "tree-sitter"});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        args
    };
    let preview = server.call(1, "refactor_change_signature", arguments(json!({})));
    let plan_id = preview["result"]["structuredContent"]["data"]["plan_id"]
        .as_str()
        .unwrap()
        .to_string();
    let c = "from pkg.a import helper\n\nprint(helper(41, 1))\n";
    std::fs::write(root.join("pkg/c.py"), c).unwrap();
    let refused = server.call(
        2,
        "refactor_change_signature",
        arguments(json!({"dry_run": false, "verify": false, "plan_id": plan_id})),
    );
    assert_eq!(refused["result"]["isError"], true, "{refused}");
    let error = &refused["result"]["structuredContent"]["error"];
    assert_eq!(error["code"], "stale_file");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("pkg/c.py now needs a change too"),
        "{message}"
    );
    assert_eq!(std::fs::read_to_string(root.join("pkg/c.py")).unwrap(), c);
    let again = server.call(3, "refactor_change_signature", arguments(json!({})));
    let plan_id = again["result"]["structuredContent"]["data"]["plan_id"]
        .as_str()
        .unwrap()
        .to_string();
    let applied = server.call(
        4,
        "refactor_change_signature",
        arguments(json!({"dry_run": false, "verify": false, "plan_id": plan_id})),
    );
    assert_eq!(applied["result"]["isError"], false, "{applied}");
    assert!(
        std::fs::read_to_string(root.join("pkg/c.py"))
            .unwrap()
            .contains("helper(41)")
    );
    server.finish();
}

/// A project of one big file: `helper` and `calls` calls of it in one function.
fn one_big_file(calls: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut text = String::from("def helper(x, y):\n    return x\n\n\ndef main():\n    v = 0\n");
    for i in 0..calls {
        text.push_str(&format!("    v += helper({i}, v)\n"));
    }
    text.push_str("    return v\n");
    std::fs::write(dir.path().join("big.py"), text).unwrap();
    std::fs::write(
        dir.path().join("small.py"),
        "def lonely(v):\n    return v + 1\n\n\nprint(lonely(2))\n",
    )
    .unwrap();
    dir
}

/// Issue 21 (minor): a cancel must not wait for the end of one big file. The token is checked
/// inside a file's loop over its call sites and after the plan's checks, so the session is free
/// again (the cancelled request gets no reply, as MCP asks) long before the call would end.
#[test]
fn cancel_stops_a_change_signature_inside_one_big_file() {
    let dir = one_big_file(6_000);
    let mut server = Server::initialized(dir.path());
    let slow = |id: u64| {
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "refactor_change_signature", "arguments": {
            "file_path": "big.py", "function_name": "helper", "new_parameters": [{"name": "y"}, {"name": "x"}],
            "semantic_edit_backend": "tree-sitter"}}})
    };
    let small = json!({"file_path": "small.py", "function_name": "lonely", "semantic_edit_backend": "tree-sitter"});
    // How long the call takes when nothing interrupts it, and a small call alone.
    let started = Instant::now();
    let full = server.request(slow(1));
    let full_time = started.elapsed();
    assert_eq!(
        full["result"]["isError"], false,
        "{}",
        full["result"]["content"]
    );
    let started = Instant::now();
    let alone = server.call(2, "refactor_inline_function", small.clone());
    let small_time = started.elapsed();
    assert_eq!(alone["result"]["isError"], false, "{alone}");
    // A new session for the call to cancel: cold like the one measured (this session's store
    // now holds the verdicts, so a second call is mostly the cross-checks).
    server.finish();
    // Twice at most: a burst of load from elsewhere on the machine can stretch one attempt; a
    // cancel that does not stop the call fails both.
    let mut attempts = Vec::new();
    for attempt in 1..=2 {
        let freed = session_free_after_cancel(dir.path(), &slow(3), &small, full_time);
        // What the cancelled call went on doing after the cancel, beyond the small call itself.
        let lingered = freed.saturating_sub(small_time);
        attempts.push(lingered);
        if lingered < full_time / 5 {
            eprintln!(
                "one file of 6,000 calls: a whole call {full_time:?}; after the cancel the session was free in {freed:?} (the small call alone {small_time:?}; attempt {attempt})"
            );
            return;
        }
    }
    panic!(
        "the cancelled call went on for {attempts:?} after the cancel, in each attempt (a whole call takes {full_time:?})"
    );
}

/// Starts a session, sends `slow`, cancels it a third of `full_time` in, then calls the small
/// inline: how long after the cancel the session answered it (the cancelled call never is).
fn session_free_after_cancel(
    root: &std::path::Path,
    slow: &serde_json::Value,
    small: &serde_json::Value,
    full_time: Duration,
) -> Duration {
    let mut server = Server::initialized(root);
    // Cancelled a third into the call, in its per-site loops (the cross-checks that follow them
    // do not look at the token yet: a cancel there waits for them, up to a third of the call on
    // a fast machine, and is seen right after them).
    server.send_raw(format!("{slow}\n").as_bytes());
    std::thread::sleep(full_time / 3);
    let cancelled = Instant::now();
    server.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":3,\"reason\":\"test\"}}\n",
    );
    let next = server.call(4, "refactor_inline_function", small.clone());
    let freed = cancelled.elapsed();
    assert_eq!(next["result"]["isError"], false, "{next}");
    server.assert_no_reply_pending("after cancel");
    server.finish();
    freed
}

/// Issue 22: a session on a project with no index builds one beside the calls (which answer
/// the same before and after it is ready), so the session's later searches read only the files
/// that can hold the word.
#[test]
fn a_session_on_a_project_with_no_index_builds_one_and_answers_the_same() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("lib.py"), "def helper(x, y):\n    return x\n").unwrap();
    std::fs::write(root.join("a.py"), "from lib import helper\nhelper(1, 2)\n").unwrap();
    let mut server = Server::initialized(root);
    let args = json!({"file_path": "lib.py", "function_name": "helper", "new_parameters": [{"name": "x"}],
        "semantic_edit_backend": "tree-sitter"});
    let first = server.call(1, "refactor_change_signature", args.clone());
    let index = root.join(".candor/index/index.bin");
    let waited = Instant::now();
    while !index.exists() && waited.elapsed() < TIMEOUT {
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(index.exists(), "no index after {:?}", waited.elapsed());
    let status = common::candor(root, &["index", "--status"]);
    assert!(status.status.success(), "{status:?}");
    // A file added since: the search, from the index now, must find it.
    std::fs::write(
        root.join("late.py"),
        "from lib import helper\nhelper(3, 4)\n",
    )
    .unwrap();
    let second = server.call(2, "refactor_change_signature", args);
    let text = |reply: &Value| {
        reply["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(first["result"]["isError"], false, "{}", text(&first));
    assert!(
        text(&first).contains("a.py") && !text(&first).contains("late.py"),
        "{}",
        text(&first)
    );
    assert!(
        text(&second).contains("a.py") && text(&second).contains("late.py"),
        "{}",
        text(&second)
    );
    server.finish();
}
