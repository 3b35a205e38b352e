//! The MCP session: the lifecycle (`initialize` first, version negotiation) and the dispatch of
//! each request to its answer. Takes a line, gives the reply line (if any), or hands a tool call
//! back to be run on the worker thread ([`Dispatch::Call`]) and a cancellation to be passed on
//! ([`Dispatch::Cancel`]); no IO of its own.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;

use serde_json::{Map, Value, json};

use crate::api::Engine;
use crate::cancel::Cancel;

use super::protocol::{
    self, INTERNAL_ERROR, INVALID_REQUEST, METHOD_NOT_FOUND, Message, RpcError, SUPPORTED_VERSIONS,
    error_line, kind_of, result_line, written_result_line,
};
use super::tools;

/// Where the session is in the MCP lifecycle.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// Only `initialize` and `ping` are served.
    AwaitingInitialize,
    /// `initialize` was answered; everything is served. (We do not wait for
    /// `notifications/initialized`: a client that sends a request right after the handshake
    /// response is served, not refused.)
    Ready { version: &'static str },
}

/// One MCP session over one engine.
#[derive(Debug)]
pub struct Session {
    engine: Arc<Engine>,
    phase: Phase,
}

/// What to do with one incoming line.
#[derive(Debug, Clone, PartialEq)]
pub enum Dispatch {
    /// Send this line back now.
    Reply(String),
    /// Nothing to send (a notification, a response, a blank line).
    Nothing,
    /// A `tools/call` to run (on the worker thread): its reply line comes from [`run_call`].
    Call(ToolCallJob),
    /// The client cancelled the request with this id (`notifications/cancelled`).
    Cancel { request_id: Value },
}

/// A `tools/call` request ready to run.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolCallJob {
    pub id: Value,
    pub params: Option<Map<String, Value>>,
    pub version: &'static str,
}

/// Runs a tool call and builds its reply line; `None` when it was cancelled (a cancelled
/// request gets no reply). A panic in a refactor costs this request, not the session.
pub fn run_call(engine: &Engine, job: &ToolCallJob, cancel: &Cancel) -> Option<String> {
    if cancel.is_cancelled() {
        return None;
    }
    let answer = catch_unwind(AssertUnwindSafe(|| {
        tools::call_cancellable(engine, job.params.as_ref(), job.version, cancel)
    }))
    .unwrap_or_else(|_| Err(internal("tools/call")));
    if cancel.is_cancelled() {
        return None;
    }
    Some(match answer {
        Ok(tools::Answer::Value(result)) => result_line(&job.id, result),
        Ok(tools::Answer::Written(result)) => written_result_line(&job.id, &result),
        Err(error) => error_line(&job.id, &error),
    })
}

fn internal(method: &str) -> RpcError {
    RpcError::new(
        INTERNAL_ERROR,
        format!(
            "internal error: candor failed while handling `{method}` (a bug; the details are on the server's stderr); the session goes on"
        ),
    )
}

/// The methods this server answers (anything else is -32601, before or after `initialize`).
const METHODS: [&str; 4] = ["initialize", "ping", "tools/list", "tools/call"];

impl Session {
    pub fn new(engine: Engine) -> Session {
        Session::shared(Arc::new(engine))
    }

    /// A session over an engine the worker thread shares.
    pub fn shared(engine: Arc<Engine>) -> Session {
        Session {
            engine,
            phase: Phase::AwaitingInitialize,
        }
    }

    pub fn engine(&self) -> &Arc<Engine> {
        &self.engine
    }

    /// The negotiated protocol revision, once `initialize` was answered.
    pub fn version(&self) -> Option<&'static str> {
        match self.phase {
            Phase::AwaitingInitialize => None,
            Phase::Ready { version } => Some(version),
        }
    }

    /// Handles one incoming line in place, tool calls included; returns the line to send back,
    /// if any.
    pub fn handle_line(&mut self, line: &[u8]) -> Option<String> {
        match self.dispatch_line(line) {
            Dispatch::Reply(reply) => Some(reply),
            Dispatch::Nothing | Dispatch::Cancel { .. } => None,
            Dispatch::Call(job) => run_call(&self.engine, &job, &Cancel::never()),
        }
    }

    /// Handles one incoming line, except a tool call, which it hands back to be run elsewhere.
    pub fn dispatch_line(&mut self, line: &[u8]) -> Dispatch {
        match protocol::parse_line(line) {
            Ok(None) => Dispatch::Nothing,
            Ok(Some(message)) => self.dispatch(message),
            Err(rejection) => Dispatch::Reply(error_line(&rejection.id, &rejection.error)),
        }
    }

    fn dispatch(&mut self, message: Message) -> Dispatch {
        match message {
            Message::Request { id, method, params } => {
                if let ("tools/call", Phase::Ready { version }) = (method.as_str(), &self.phase) {
                    return Dispatch::Call(ToolCallJob {
                        id,
                        params,
                        version,
                    });
                }
                // A bug must cost one request, not the session.
                let answer =
                    catch_unwind(AssertUnwindSafe(|| self.request(&method, params.as_ref())))
                        .unwrap_or_else(|_| Err(internal(&method)));
                Dispatch::Reply(match answer {
                    Ok(result) => result_line(&id, result),
                    Err(error) => error_line(&id, &error),
                })
            }
            Message::Notification { method, params } if method == "notifications/cancelled" => {
                match params.and_then(|mut p| p.remove("requestId")) {
                    Some(request_id) => Dispatch::Cancel { request_id },
                    None => Dispatch::Nothing,
                }
            }
            // Notifications never get a reply. `notifications/initialized` changes nothing
            // (the session is ready once `initialize` is answered).
            Message::Notification { .. } | Message::Response => Dispatch::Nothing,
        }
    }

    fn request(
        &mut self,
        method: &str,
        params: Option<&Map<String, Value>>,
    ) -> Result<Value, RpcError> {
        if !METHODS.contains(&method) {
            return Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!(
                    "method not found: `{method}`; this server answers {}",
                    METHODS.join(", ")
                ),
            )
            .with_data(json!({"method": method})));
        }
        match (method, &self.phase) {
            ("ping", _) => Ok(json!({})),
            ("initialize", Phase::AwaitingInitialize) => self.initialize(params),
            ("initialize", Phase::Ready { .. }) => Err(RpcError::new(
                INVALID_REQUEST,
                "invalid request: the session is already initialized; `initialize` is sent once per connection",
            )),
            (_, Phase::AwaitingInitialize) => Err(RpcError::new(
                INVALID_REQUEST,
                format!(
                    "invalid request: the session is not initialized; send `initialize` before `{method}`"
                ),
            )),
            ("tools/list", Phase::Ready { version }) => Ok(tools::list(version)),
            ("tools/call", Phase::Ready { version }) => tools::call(&self.engine, params, version),
            _ => Err(RpcError::new(
                METHOD_NOT_FOUND,
                format!("method not found: `{method}`"),
            )),
        }
    }

    fn initialize(&mut self, params: Option<&Map<String, Value>>) -> Result<Value, RpcError> {
        let requested = match params.and_then(|p| p.get("protocolVersion")) {
            Some(Value::String(version)) => version.as_str(),
            Some(other) => {
                return Err(RpcError::invalid_params(format!(
                    "`protocolVersion` must be a string such as \"{}\", not {}",
                    protocol::LATEST_VERSION,
                    kind_of(other)
                ))
                .with_data(json!({"param": "protocolVersion", "supported": SUPPORTED_VERSIONS})));
            }
            None => {
                return Err(RpcError::invalid_params(
                    "missing `protocolVersion`: the latest MCP revision the client speaks",
                )
                .with_data(json!({"param": "protocolVersion", "supported": SUPPORTED_VERSIONS})));
            }
        };
        let version = protocol::negotiate(requested);
        self.phase = Phase::Ready { version };
        let mut server_info = Map::new();
        server_info.insert("name".into(), json!("candor"));
        if protocol::at_least(version, "2025-06-18") {
            server_info.insert(
                "title".into(),
                json!("candor: honest refactoring for Rust and Python"),
            );
        }
        server_info.insert("version".into(), json!(env!("CARGO_PKG_VERSION")));
        Ok(json!({
            "protocolVersion": version,
            "capabilities": {"tools": {"listChanged": false}},
            "serverInfo": Value::Object(server_info),
            "instructions": instructions(&self.engine),
        }))
    }
}

/// What an agent should know before its first call.
fn instructions(engine: &Engine) -> String {
    format!(
        "candor refactors Rust and Python files under the project root {root} (paths are relative to it; a path outside is refused). \
Every tool previews by default (dry_run true): read backend_used and confidence; when degraded_reason is set the tree-sitter heuristic did the work and tree_sitter_caveats lists what it cannot check; data.findings locate where this edit may break something. \
To write, call again with dry_run false and plan_id = data.plan_id of the preview (and expected_sha256 = {{path: sha256_before}} if you like): exactly the previewed plan is written, or nothing, with stale_file saying what changed. \
`candor undo --root {root}` restores the files of the last applied refactor.",
        root = engine.root().path().display()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::protocol::{INVALID_PARAMS, LATEST_VERSION, PARSE_ERROR};

    fn session() -> (tempfile::TempDir, Session) {
        let dir = tempfile::tempdir().unwrap();
        let engine = Engine::open(dir.path(), None).unwrap();
        (dir, Session::new(engine))
    }

    fn send(session: &mut Session, message: Value) -> Option<Value> {
        session
            .handle_line(message.to_string().as_bytes())
            .map(|line| serde_json::from_str(&line).unwrap())
    }

    fn initialize(version: &str) -> Value {
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}})
    }

    #[test]
    fn initialize_negotiates_and_unlocks_the_tools() {
        let (_dir, mut s) = session();
        let early = send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
        )
        .unwrap();
        assert_eq!(early["error"]["code"], INVALID_REQUEST);
        assert!(
            early["error"]["message"]
                .as_str()
                .unwrap()
                .contains("initialize")
        );
        assert_eq!(
            send(&mut s, json!({"jsonrpc": "2.0", "id": 2, "method": "ping"})).unwrap()["result"],
            json!({})
        );
        let reply = send(&mut s, initialize("2025-03-26")).unwrap();
        assert_eq!(reply["result"]["protocolVersion"], "2025-03-26");
        assert_eq!(reply["result"]["serverInfo"]["name"], "candor");
        assert_eq!(
            reply["result"]["capabilities"]["tools"]["listChanged"],
            false
        );
        assert_eq!(s.version(), Some("2025-03-26"));
        assert!(
            send(
                &mut s,
                json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
            )
            .is_none()
        );
        let list = send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        )
        .unwrap();
        assert_eq!(
            list["result"]["tools"].as_array().unwrap().len(),
            crate::honesty::Tool::ALL.len()
        );
        let again = send(&mut s, initialize("2025-03-26")).unwrap();
        assert_eq!(again["error"]["code"], INVALID_REQUEST);
    }

    #[test]
    fn an_unknown_version_gets_our_latest() {
        let (_dir, mut s) = session();
        let reply = send(&mut s, initialize("2030-01-01")).unwrap();
        assert_eq!(reply["result"]["protocolVersion"], LATEST_VERSION);
        let (_dir, mut s) = session();
        let reply = send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}}),
        )
        .unwrap();
        assert_eq!(reply["error"]["code"], INVALID_PARAMS);
        assert_eq!(s.version(), None);
    }

    #[test]
    fn unknown_methods_and_bad_lines_get_errors_and_notifications_nothing() {
        let (_dir, mut s) = session();
        // server/discover (the 2026-07-28 probe) is "method not found" even before initialize,
        // so a client falls back to the handshake.
        let reply = send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": "d", "method": "server/discover"}),
        )
        .unwrap();
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone()),
            (json!("d"), json!(METHOD_NOT_FOUND))
        );
        send(&mut s, initialize(LATEST_VERSION)).unwrap();
        let reply = send(
            &mut s,
            json!({"jsonrpc": "2.0", "id": 9, "method": "resources/list"}),
        )
        .unwrap();
        assert_eq!(reply["error"]["code"], METHOD_NOT_FOUND);
        assert!(send(&mut s, json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 9}})).is_none());
        assert!(send(&mut s, json!({"jsonrpc": "2.0", "method": "whatever/else"})).is_none());
        assert!(send(&mut s, json!({"jsonrpc": "2.0", "id": 5, "result": {}})).is_none());
        let reply: Value = serde_json::from_str(&s.handle_line(b"{oops").unwrap()).unwrap();
        assert_eq!(
            (reply["id"].clone(), reply["error"]["code"].clone()),
            (Value::Null, json!(PARSE_ERROR))
        );
        assert!(s.handle_line(b"").is_none());
        // Still serving.
        assert_eq!(
            send(
                &mut s,
                json!({"jsonrpc": "2.0", "id": 10, "method": "ping"})
            )
            .unwrap()["id"],
            10
        );
    }
}
