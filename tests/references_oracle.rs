//! The references engine checked against a language server that is already running: in one
//! `candor mcp` session, a call on the LSP path starts the server, then a heuristic
//! (`semantic_edit_backend: "tree-sitter"`) rename asks that server's `textDocument/references`;
//! the reference the engine could only call possible (a method called on a receiver whose type
//! needs inference) is confirmed by the server and said so in a finding, and
//! `data.references_from` names the server. Without a running server nothing is started and the
//! engine's list stands alone.
//!
//! The servers come from PATH, with this repository's `.venv/bin` first; a missing one fails
//! in CI and is skipped, saying so, elsewhere.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

use candor::mcp::protocol::LATEST_VERSION;
use common::servers::{path_env, require};

/// rust-analyzer loads the project on the first call; pylsp imports jedi.
const TIMEOUT: Duration = Duration::from_secs(180);

/// A `candor mcp` session over raw JSON lines.
struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    next_id: u64,
}

impl Session {
    fn start(root: &Path) -> Session {
        let mut child = Command::new(common::candor_bin())
            .args(["mcp", "--root"])
            .arg(root)
            .env("PATH", path_env())
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
        let mut session = Session {
            child,
            stdin,
            lines,
            next_id: 0,
        };
        let reply = session.request(
            "initialize",
            json!({"protocolVersion": LATEST_VERSION,
            "capabilities": {}, "clientInfo": {"name": "oracle-test", "version": "0"}}),
        );
        assert!(reply.get("result").is_some(), "{reply:#}");
        session.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: &Value) {
        let stdin = self.stdin.as_mut().unwrap();
        stdin.write_all(format!("{message}\n").as_bytes()).unwrap();
        stdin.flush().unwrap();
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        let line = self
            .lines
            .recv_timeout(TIMEOUT)
            .expect("candor mcp answered");
        let reply: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(reply["id"], id, "{reply:#}");
        reply
    }

    /// The envelope of a tool call.
    fn call(&mut self, tool: &str, arguments: Value) -> Value {
        let reply = self.request("tools/call", json!({"name": tool, "arguments": arguments}));
        reply["result"]["structuredContent"].clone()
    }

    fn finish(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "candor mcp exited with {status}");
    }
}

fn messages(envelope: &Value) -> Vec<String> {
    envelope["data"]["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|f| format!("{}:{} {}", f["file"], f["line"], f["message"]))
        .collect()
}

/// In one session: the heuristic `rename` before any server runs, the LSP-path call that starts
/// the server, then `rename` again and every call of `after` (each heuristic, dry run). Returns
/// the envelopes: the rename alone, the rename checked, then those of `after`.
fn check_with_running_server(
    root: &Path,
    lsp_call: (&str, Value),
    rename: Value,
    after: &[(&str, Value)],
) -> Vec<Value> {
    let heuristic = |mut args: Value| {
        args["semantic_edit_backend"] = json!("tree-sitter");
        args["dry_run"] = json!(true);
        args
    };
    let mut session = Session::start(root);
    let mut envelopes = vec![session.call("refactor_rename_symbol", heuristic(rename.clone()))];
    let (tool, mut args) = lsp_call;
    args["semantic_edit_backend"] = json!("lsp");
    args["dry_run"] = json!(true);
    let semantic = session.call(tool, args);
    assert_eq!(semantic["backend_used"], "lsp", "{semantic:#}");
    envelopes.push(session.call("refactor_rename_symbol", heuristic(rename)));
    for (tool, args) in after {
        envelopes.push(session.call(tool, heuristic(args.clone())));
    }
    session.finish();
    envelopes
}

fn write(root: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

const COUNTER_RS: &str = "\
pub struct Counter {
    pub n: u32,
}

impl Counter {
    pub fn new() -> Counter {
        Counter { n: 0 }
    }

    pub fn bump(&mut self) -> u32 {
        self.n += 1;
        self.n
    }
}

pub fn make() -> Counter {
    Counter::new()
}

pub fn twice() -> u32 {
    let mut c = make();
    c.bump();
    c.bump()
}
";

#[test]
fn rust_analyzer_confirms_a_method_call_the_engine_could_only_call_possible() {
    if !require(&["rust-analyzer", "cargo"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        &[
            (
                "Cargo.toml",
                "[package]\nname = \"counter\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
            ),
            ("src/lib.rs", COUNTER_RS),
        ],
    );
    let envelopes = check_with_running_server(
        dir.path(),
        (
            "refactor_rename_symbol",
            json!({"file_path": "src/lib.rs", "symbol_name": "make", "new_name": "build"}),
        ),
        json!({"file_path": "src/lib.rs", "name_path": "Counter/bump", "new_name": "advance"}),
        &[(
            "refactor_change_signature",
            json!({"file_path": "src/lib.rs", "function_name": "Counter/bump",
                "new_parameters": [{"name": "by", "type": "u32"}]}),
        )],
    );
    let [alone, checked, signature] = &envelopes[..] else {
        panic!("three envelopes: {envelopes:#?}")
    };
    // Before any server ran: the engine alone, the calls on `c` (type from `make()`) possible.
    assert_eq!(
        alone["data"]["references_from"], "candor's references engine (tree-sitter)",
        "{alone:#}"
    );
    assert_eq!(
        alone["data"]["possible_references"]
            .as_array()
            .map(Vec::len),
        Some(2),
        "{alone:#}"
    );
    assert_eq!(alone["data"]["references_renamed"], 1, "{alone:#}");
    // With rust-analyzer running: checked against it, the two calls confirmed and renamed.
    assert_eq!(checked["backend_used"], "hybrid", "{checked:#}");
    let from = checked["data"]["references_from"].as_str().unwrap_or("");
    assert!(
        from.starts_with("candor's references engine (tree-sitter), checked against rust-analyzer"),
        "{checked:#}"
    );
    let confirmed: Vec<String> = messages(checked)
        .into_iter()
        .filter(|m| m.contains("rust-analyzer") && m.contains("so it is taken as certain"))
        .collect();
    assert_eq!(confirmed.len(), 2, "{:#?}", messages(checked));
    assert!(
        confirmed.iter().all(|m| m.contains("src/lib.rs")),
        "{confirmed:#?}"
    );
    assert_eq!(checked["data"]["references_renamed"], 3, "{checked:#}");
    assert_eq!(
        checked["data"]["possible_references"],
        json!([]),
        "{checked:#}"
    );
    let diff = checked["data"]["changes"][0]["diff"].as_str().unwrap_or("");
    assert!(diff.contains("+    c.advance();"), "{checked:#}");
    // Change signature on the same engine and server: both calls are certain now, so both
    // are updated, and the result says where its call sites came from.
    assert_eq!(signature["success"], true, "{signature:#}");
    assert_eq!(signature["data"]["call_sites_updated"], 2, "{signature:#}");
    assert!(
        messages(signature).iter().any(|m| m.contains(
            "the calls were found by candor's references engine (tree-sitter), checked against rust-analyzer"
        )),
        "{:#?}",
        messages(signature)
    );
}

const COUNTER_PY: &str = "\
class Counter:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1
        return self.n


def make():
    return Counter()


def twice():
    c = make()
    c.bump()
    return c.bump()
";

#[test]
fn pylsp_confirms_a_method_call_the_engine_could_only_call_possible() {
    if !require(&["pylsp"]) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), &[("counter.py", COUNTER_PY)]);
    let envelopes = check_with_running_server(
        dir.path(),
        // Python's rename goes to rope; inline goes to pylsp-rope, which starts pylsp.
        (
            "refactor_inline_function",
            json!({"file_path": "counter.py", "function_name": "make"}),
        ),
        json!({"file_path": "counter.py", "name_path": "Counter/bump", "new_name": "advance"}),
        &[],
    );
    let [alone, checked] = &envelopes[..] else {
        panic!("two envelopes: {envelopes:#?}")
    };
    assert_eq!(
        alone["data"]["possible_references"]
            .as_array()
            .map(Vec::len),
        Some(2),
        "{alone:#}"
    );
    let from = checked["data"]["references_from"].as_str().unwrap_or("");
    assert!(
        from.starts_with("candor's references engine (tree-sitter), checked against pylsp"),
        "{checked:#}"
    );
    let confirmed = messages(checked)
        .into_iter()
        .filter(|m| m.contains("pylsp") && m.contains("so it is taken as certain"))
        .count();
    assert_eq!(confirmed, 2, "{:#?}", messages(checked));
    assert_eq!(checked["data"]["references_renamed"], 3, "{checked:#}");
    assert_eq!(
        checked["data"]["possible_references"],
        json!([]),
        "{checked:#}"
    );
}
