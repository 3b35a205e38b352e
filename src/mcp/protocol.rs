//! JSON-RPC 2.0 as MCP's stdio transport uses it: one line in, one classified message out;
//! error objects and response lines. Pure: no IO, no engine, no session state.

use serde_json::{Map, Value, json};

pub const PARSE_ERROR: i64 = -32700;
pub const INVALID_REQUEST: i64 = -32600;
pub const METHOD_NOT_FOUND: i64 = -32601;
pub const INVALID_PARAMS: i64 = -32602;
pub const INTERNAL_ERROR: i64 = -32603;

/// The MCP revisions this server speaks through the `initialize` handshake, oldest first.
/// (2026-07-28 drops the handshake for a per-request envelope; we do not serve it, and answer
/// its `server/discover` probe with "method not found" so clients fall back to `initialize`.)
pub const SUPPORTED_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"];

/// What we offer when the client asks for a revision we do not know.
pub const LATEST_VERSION: &str = "2025-11-25";

/// The revision to use: the client's when we support it, otherwise our latest (the client then
/// decides whether it can go on, as the lifecycle section of the specification says).
pub fn negotiate(requested: &str) -> &'static str {
    SUPPORTED_VERSIONS
        .iter()
        .find(|v| **v == requested)
        .copied()
        .unwrap_or(LATEST_VERSION)
}

/// True when `version` is `since` or newer (both from [`SUPPORTED_VERSIONS`]).
pub fn at_least(version: &str, since: &str) -> bool {
    let index = |v: &str| SUPPORTED_VERSIONS.iter().position(|s| *s == v);
    matches!((index(version), index(since)), (Some(v), Some(s)) if v >= s)
}

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    pub data: Option<Value>,
}

impl RpcError {
    pub fn new(code: i64, message: impl Into<String>) -> RpcError {
        RpcError {
            code,
            message: message.into(),
            data: None,
        }
    }

    pub fn with_data(mut self, data: Value) -> RpcError {
        self.data = Some(data);
        self
    }

    pub fn invalid_params(message: impl Into<String>) -> RpcError {
        RpcError::new(INVALID_PARAMS, message)
    }

    fn to_json(&self) -> Value {
        let mut error = Map::new();
        error.insert("code".into(), json!(self.code));
        error.insert("message".into(), json!(self.message));
        if let Some(data) = &self.data {
            error.insert("data".into(), data.clone());
        }
        Value::Object(error)
    }
}

/// One incoming line, classified.
#[derive(Debug, Clone, PartialEq)]
pub enum Message {
    /// Expects exactly one reply. `id` is a string or an integer; `params` an object or absent.
    Request {
        id: Value,
        method: String,
        params: Option<Map<String, Value>>,
    },
    /// Never gets a reply, whatever it says. `params` when they are an object.
    Notification {
        method: String,
        params: Option<Map<String, Value>>,
    },
    /// The client answering a request; we send none, so there is nothing to do with it.
    Response,
}

/// A line that cannot be served, and the error to answer it with (`id` is null when the
/// request's id could not be read).
#[derive(Debug, Clone, PartialEq)]
pub struct Rejection {
    pub id: Value,
    pub error: RpcError,
}

impl Rejection {
    fn new(id: Value, code: i64, message: impl Into<String>) -> Box<Rejection> {
        Box::new(Rejection {
            id,
            error: RpcError::new(code, message),
        })
    }
}

/// Reads one line (without its line ending). `Ok(None)` for a blank line, which is skipped.
pub fn parse_line(line: &[u8]) -> Result<Option<Message>, Box<Rejection>> {
    let text = std::str::from_utf8(line).map_err(|e| {
        Rejection::new(
            Value::Null,
            PARSE_ERROR,
            format!(
                "parse error: the message is not UTF-8 ({e}); send one JSON-RPC message per line"
            ),
        )
    })?;
    let text = text.trim();
    if text.is_empty() {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        Rejection::new(
            Value::Null,
            PARSE_ERROR,
            format!(
                "parse error: the line is not valid JSON ({e}); send one JSON-RPC message per line"
            ),
        )
    })?;
    classify(value).map(Some)
}

/// Sorts a parsed JSON value into request, notification or response, or says what is wrong.
pub fn classify(value: Value) -> Result<Message, Box<Rejection>> {
    let object = match value {
        Value::Object(object) => object,
        Value::Array(_) => {
            return Err(Rejection::new(
                Value::Null,
                INVALID_REQUEST,
                "invalid request: JSON-RPC batches are not supported (MCP removed them in 2025-06-18); send each message on its own line",
            ));
        }
        other => {
            return Err(Rejection::new(
                Value::Null,
                INVALID_REQUEST,
                format!(
                    "invalid request: a JSON-RPC message is an object, not {}",
                    kind_of(&other)
                ),
            ));
        }
    };
    let id = match object.get("id") {
        None => None,
        Some(id) if is_valid_id(id) => Some(id.clone()),
        Some(other) => {
            return Err(Rejection::new(
                Value::Null,
                INVALID_REQUEST,
                format!(
                    "invalid request: `id` must be a string or an integer, not {}",
                    kind_of(other)
                ),
            ));
        }
    };
    let reply_id = id.clone().unwrap_or(Value::Null);
    if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return Err(Rejection::new(
            reply_id,
            INVALID_REQUEST,
            "invalid request: `jsonrpc` must be \"2.0\"",
        ));
    }
    let method = match object.get("method") {
        Some(Value::String(method)) => method.clone(),
        Some(other) => {
            return Err(Rejection::new(
                reply_id,
                INVALID_REQUEST,
                format!(
                    "invalid request: `method` must be a string, not {}",
                    kind_of(other)
                ),
            ));
        }
        None if id.is_some() && (object.contains_key("result") || object.contains_key("error")) => {
            return Ok(Message::Response);
        }
        None => {
            return Err(Rejection::new(
                reply_id,
                INVALID_REQUEST,
                "invalid request: no `method`",
            ));
        }
    };
    let Some(id) = id else {
        let params = object.get("params").and_then(Value::as_object).cloned();
        return Ok(Message::Notification { method, params });
    };
    let params = match object.get("params") {
        None | Some(Value::Null) => None,
        Some(Value::Object(params)) => Some(params.clone()),
        Some(other) => {
            return Err(Rejection::new(
                id,
                INVALID_PARAMS,
                format!(
                    "invalid params: MCP `params` is an object, not {}",
                    kind_of(other)
                ),
            ));
        }
    };
    Ok(Message::Request { id, method, params })
}

/// MCP request ids are strings or integers (never null).
fn is_valid_id(id: &Value) -> bool {
    match id {
        Value::String(_) => true,
        Value::Number(n) => n.is_i64() || n.is_u64(),
        _ => false,
    }
}

pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The line of a successful response (no line ending).
pub fn result_line(id: &Value, result: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": result}).to_string()
}

/// [`result_line`] of a result already written as compact JSON: the same bytes.
pub fn written_result_line(id: &Value, result: &str) -> String {
    format!(r#"{{"jsonrpc":"2.0","id":{id},"result":{result}}}"#)
}

/// The line of an error response (no line ending).
pub fn error_line(id: &Value, error: &RpcError) -> String {
    json!({"jsonrpc": "2.0", "id": id, "error": error.to_json()}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rejected(line: &str) -> Box<Rejection> {
        parse_line(line.as_bytes()).expect_err(line)
    }

    #[test]
    fn requests_notifications_and_responses_are_told_apart() {
        assert_eq!(
            parse_line(br#"{"jsonrpc":"2.0","id":7,"method":"ping"}"#).unwrap(),
            Some(Message::Request {
                id: json!(7),
                method: "ping".into(),
                params: None
            })
        );
        let Some(Message::Request { id, params, .. }) = parse_line(
            br#"{"jsonrpc":"2.0","id":"a","method":"tools/list","params":{"cursor":"x"}}"#,
        )
        .unwrap() else {
            panic!("not a request")
        };
        assert_eq!(
            (id, params.unwrap()["cursor"].clone()),
            (json!("a"), json!("x"))
        );
        assert_eq!(
            parse_line(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap(),
            Some(Message::Notification {
                method: "notifications/initialized".into(),
                params: None,
            })
        );
        assert_eq!(
            parse_line(br#"{"jsonrpc":"2.0","id":1,"result":{}}"#).unwrap(),
            Some(Message::Response)
        );
        assert_eq!(parse_line(b"   \r").unwrap(), None);
        assert_eq!(parse_line(b"").unwrap(), None);
    }

    #[test]
    fn malformed_lines_get_the_json_rpc_codes() {
        for line in ["{not json", "{\"jsonrpc\":\"2.0\",", "\u{feff}{}x"] {
            let r = rejected(line);
            assert_eq!((r.id, r.error.code), (Value::Null, PARSE_ERROR), "{line}");
        }
        assert_eq!(
            parse_line(b"\xff\xfe{}").unwrap_err().error.code,
            PARSE_ERROR
        );
        for line in [
            "42",
            "\"ping\"",
            "null",
            "[]",
            r#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
            "{}",
        ] {
            let r = rejected(line);
            assert_eq!(
                (r.id, r.error.code),
                (Value::Null, INVALID_REQUEST),
                "{line}"
            );
        }
        assert!(rejected("[1]").error.message.contains("batches"));
        // The id is echoed when it could be read.
        let r = rejected(r#"{"id":3,"method":"ping"}"#);
        assert_eq!((r.id, r.error.code), (json!(3), INVALID_REQUEST));
        let r = rejected(r#"{"jsonrpc":"2.0","id":4,"method":12}"#);
        assert_eq!((r.id, r.error.code), (json!(4), INVALID_REQUEST));
        let r = rejected(r#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#);
        assert_eq!((r.id, r.error.code), (Value::Null, INVALID_REQUEST));
        let r = rejected(r#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#);
        assert_eq!(r.error.code, INVALID_REQUEST);
        let r = rejected(r#"{"jsonrpc":"2.0","id":5,"method":"tools/list","params":[1]}"#);
        assert_eq!((r.id, r.error.code), (json!(5), INVALID_PARAMS));
    }

    #[test]
    fn version_negotiation_prefers_the_clients_known_version() {
        for version in SUPPORTED_VERSIONS {
            assert_eq!(negotiate(version), version);
        }
        assert_eq!(negotiate("2026-07-28"), LATEST_VERSION);
        assert_eq!(negotiate("1999-01-01"), LATEST_VERSION);
        assert_eq!(negotiate(""), LATEST_VERSION);
        assert_eq!(SUPPORTED_VERSIONS.last(), Some(&LATEST_VERSION));
        assert!(at_least("2025-11-25", "2025-06-18"));
        assert!(at_least("2025-06-18", "2025-06-18"));
        assert!(!at_least("2025-03-26", "2025-06-18"));
        assert!(!at_least("2099-01-01", "2025-06-18"));
    }

    #[test]
    fn lines_are_single_line_json() {
        let line = error_line(
            &json!(1),
            &RpcError::invalid_params("missing\nparam").with_data(json!({"param": "x"})),
        );
        assert!(!line.contains('\n'));
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["error"]["code"], INVALID_PARAMS);
        assert_eq!(value["error"]["data"]["param"], "x");
        assert_eq!(value["id"], 1);
        let line = result_line(&json!("r"), json!({"text": "a\nb"}));
        assert!(!line.contains('\n'));
        assert_eq!(
            serde_json::from_str::<Value>(&line).unwrap()["result"]["text"],
            "a\nb"
        );
    }
}
