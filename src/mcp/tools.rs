//! The MCP face of the four tools: their `tools/list` entries and `tools/call` over the same
//! `api::Engine` as `candor call`. The envelope goes out twice, as `structuredContent` and as
//! text; a missing required argument is a JSON-RPC -32602, every other failure a tool result
//! with `isError: true` carrying the error envelope.

use serde_json::{Map, Value, json};

use crate::api::{Engine, ErrorCode, envelope, schema};
use crate::cancel::Cancel;
use crate::honesty::Tool;

use super::protocol::{RpcError, at_least, kind_of};

/// Since this revision a tool has `title` and `outputSchema`, and a result `structuredContent`.
const STRUCTURED_SINCE: &str = "2025-06-18";
/// Since this revision a tool has `annotations`.
const ANNOTATIONS_SINCE: &str = "2025-03-26";

/// The `tools/list` result for a session speaking `version`.
pub fn list(version: &str) -> Value {
    let tools: Vec<Value> = Tool::ALL.iter().map(|tool| entry(*tool, version)).collect();
    json!({ "tools": tools })
}

fn entry(tool: Tool, version: &str) -> Value {
    let mut entry = Map::new();
    entry.insert("name".into(), json!(tool.name()));
    if at_least(version, STRUCTURED_SINCE) {
        entry.insert("title".into(), json!(title(tool)));
    }
    entry.insert("description".into(), json!(schema::description(tool)));
    entry.insert("inputSchema".into(), schema::input_schema(tool));
    if at_least(version, STRUCTURED_SINCE) {
        entry.insert("outputSchema".into(), schema::output_schema());
    }
    if at_least(version, ANNOTATIONS_SINCE) {
        // With dry_run false a tool rewrites existing files: not read-only, and destructive
        // in the specification's sense (not only additive), even though `candor undo` exists.
        entry.insert(
            "annotations".into(),
            json!({
                "title": title(tool),
                "readOnlyHint": false,
                "destructiveHint": true,
                "idempotentHint": false,
                "openWorldHint": false,
            }),
        );
    }
    Value::Object(entry)
}

/// "Extract function" from the label "extract function".
fn title(tool: Tool) -> String {
    let label = tool.label();
    let mut chars = label.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// A `CallToolResult`: built as a value, or already written as compact JSON (a success,
/// written straight from its envelope: a large refactor has a value per finding and per site,
/// and building them as values, twice, took most of a warm call).
#[derive(Debug)]
pub enum Answer {
    Value(Value),
    Written(String),
}

impl Answer {
    /// The result as a value (for the tests and the in-line path; a reply is written from the
    /// answer as it is).
    pub fn into_value(self) -> Value {
        match self {
            Answer::Value(value) => value,
            Answer::Written(text) => serde_json::from_str(&text)
                .expect("a result written by serde_json reads back as JSON"),
        }
    }
}

/// `tools/call`: validates the request's own shape, runs the tool, and builds the result.
pub fn call(
    engine: &Engine,
    params: Option<&Map<String, Value>>,
    version: &str,
) -> Result<Value, RpcError> {
    call_cancellable(engine, params, version, &Cancel::never()).map(Answer::into_value)
}

/// [`call`], stopping early once `cancel` is set (`notifications/cancelled`).
pub fn call_cancellable(
    engine: &Engine,
    params: Option<&Map<String, Value>>,
    version: &str,
    cancel: &Cancel,
) -> Result<Answer, RpcError> {
    let empty = Map::new();
    let params = params.unwrap_or(&empty);
    let name = match params.get("name") {
        Some(Value::String(name)) => name.as_str(),
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "`name` must be the tool name as a string, not {}",
                kind_of(other)
            ))
            .with_data(json!({"param": "name"})));
        }
        None => {
            return Err(RpcError::invalid_params("missing `name`: the tool to call")
                .with_data(json!({"param": "name"})));
        }
    };
    // An unknown tool is a protocol error (-32602), as the specification's tools page shows:
    // the client asked for something this server does not offer.
    let tool = envelope::tool_named(name).map_err(|e| {
        RpcError::invalid_params(e.message)
            .with_data(json!({"param": "name", "tools": tool_names()}))
    })?;
    let arguments = match params.get("arguments") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(Value::Object(arguments)) => Value::Object(arguments.clone()),
        Some(other) => {
            return Err(RpcError::invalid_params(format!(
                "`arguments` must be an object of the tool's arguments, not {}",
                kind_of(other)
            ))
            .with_data(json!({"param": "arguments"})));
        }
    };
    // The envelope is written as text straight from the result, and so is the whole result
    // (with the envelope again as `structuredContent` where the revision has it); nobody reads
    // the answer of a cancelled request, so it is not written at all then.
    let structured = at_least(version, STRUCTURED_SINCE);
    let answer = engine.call_then(tool.name(), &arguments, cancel, |success| {
        (!cancel.is_cancelled()).then(|| {
            let text = success.to_text();
            let written = Written {
                content: [TextContent {
                    kind: "text",
                    text: &text,
                }],
                structured_content: structured.then_some(success),
                is_error: false,
            };
            serde_json::to_string(&written)
                .map(Answer::Written)
                .unwrap_or_else(|_| Answer::Value(result_of(text.clone(), None, false)))
        })
    });
    let cancelled = || RpcError::new(super::protocol::INTERNAL_ERROR, "the request was cancelled");
    if cancel.is_cancelled() {
        return Err(cancelled());
    }
    match answer {
        Ok(None) => Err(cancelled()),
        Ok(Some(answer)) => Ok(answer),
        Err(error) if error.code == ErrorCode::MissingParam => {
            let param = error.param.clone().unwrap_or_default();
            Err(
                RpcError::invalid_params(error.message.clone()).with_data(json!({
                    "param": param,
                    "code": error.code.as_str(),
                })),
            )
        }
        Err(error) => Ok(Answer::Value(result(
            envelope::error(tool.name(), &error),
            true,
            version,
        ))),
    }
}

fn tool_names() -> Vec<&'static str> {
    Tool::ALL.iter().map(|t| t.name()).collect()
}

/// A `CallToolResult`: the envelope as text (exactly what `candor call` prints) and, where the
/// revision has it, as `structuredContent`.
pub fn result(envelope: Value, is_error: bool, version: &str) -> Value {
    let text = serde_json::to_string_pretty(&envelope).unwrap_or_else(|_| envelope.to_string());
    let structured = at_least(version, STRUCTURED_SINCE).then_some(envelope);
    result_of(text, structured, is_error)
}

/// A successful `CallToolResult` as [`result_of`] builds it, written from the envelope itself.
#[derive(serde::Serialize)]
struct Written<'a> {
    content: [TextContent<'a>; 1],
    #[serde(rename = "structuredContent", skip_serializing_if = "Option::is_none")]
    structured_content: Option<&'a envelope::Success<'a>>,
    #[serde(rename = "isError")]
    is_error: bool,
}

#[derive(serde::Serialize)]
struct TextContent<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    text: &'a str,
}

/// [`result`] of an envelope already written as text (and as a value where the revision has
/// `structuredContent`).
fn result_of(text: String, structured: Option<Value>, is_error: bool) -> Value {
    let mut result = Map::new();
    result.insert("content".into(), json!([{"type": "text", "text": text}]));
    if let Some(envelope) = structured {
        result.insert("structuredContent".into(), envelope);
    }
    result.insert("isError".into(), json!(is_error));
    Value::Object(result)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mcp::protocol::{INVALID_PARAMS, LATEST_VERSION};

    fn engine(dir: &std::path::Path) -> Engine {
        Engine::open(dir, None).unwrap()
    }

    fn params(value: Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn the_list_has_the_four_tools_with_schemas() {
        let latest = list(LATEST_VERSION);
        let tools = latest["tools"].as_array().unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
        assert_eq!(names, tool_names());
        for tool in tools {
            assert_eq!(tool["inputSchema"]["type"], "object");
            assert_eq!(tool["inputSchema"]["additionalProperties"], true);
            assert!(
                tool["inputSchema"]["required"]
                    .as_array()
                    .unwrap()
                    .contains(&json!("file_path"))
            );
            assert_eq!(tool["outputSchema"]["type"], "object");
            assert!(
                tool["description"]
                    .as_str()
                    .unwrap()
                    .contains("tree_sitter_caveats")
            );
            assert_eq!(tool["annotations"]["readOnlyHint"], false);
        }
        assert_eq!(tools[0]["title"], "Extract function");
    }

    #[test]
    fn a_success_written_straight_from_the_envelope_is_the_result_built_as_a_value() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.py"),
            "def f(x):\n    return x\n\n\nprint(f(1), f(2))  # f(3)\ns = 'f(4) \\u00e9 \"q\"'\n",
        )
        .unwrap();
        let engine = engine(dir.path());
        let arguments = json!({"file_path": "a.py", "function_name": "f", "new_parameters": [{"name": "x"}, {"name": "y", "default": "None"}], "dry_run": true});
        let envelope = engine
            .call("refactor_change_signature", &arguments)
            .unwrap();
        let envelope_text = serde_json::to_string_pretty(&envelope).unwrap();
        let request = params(json!({"name": "refactor_change_signature", "arguments": arguments}));
        for version in ["2025-06-18", "2025-03-26", "2024-11-05"] {
            let answer = call_cancellable(&engine, Some(&request), version, &Cancel::never());
            let Ok(Answer::Written(written)) = answer else {
                panic!("a success is written: {answer:?}");
            };
            let structured = at_least(version, STRUCTURED_SINCE).then(|| envelope.clone());
            let built = result_of(envelope_text.clone(), structured, false);
            assert_eq!(written, built.to_string(), "{version}");
            let id = json!(7);
            assert_eq!(
                crate::mcp::protocol::written_result_line(&id, &written),
                crate::mcp::protocol::result_line(&id, built),
            );
        }
        assert!(
            envelope_text.contains("call_sites_updated"),
            "{envelope_text}"
        );
    }

    #[test]
    fn older_revisions_get_no_structured_fields() {
        let old = list("2024-11-05");
        let tool = &old["tools"][0];
        assert!(tool.get("outputSchema").is_none() && tool.get("title").is_none());
        assert!(tool.get("annotations").is_none());
        assert!(list("2025-03-26")["tools"][0].get("annotations").is_some());
        let r = result(json!({"success": true}), false, "2025-03-26");
        assert!(r.get("structuredContent").is_none());
        assert_eq!(r["content"][0]["type"], "text");
    }

    #[test]
    fn a_missing_argument_is_invalid_params_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def f():\n    return 1\n").unwrap();
        let engine = engine(dir.path());
        let error = call(
            &engine,
            Some(&params(json!({"name": "refactor_extract_function", "arguments": {"file_path": "a.py", "end_line": 2, "new_name": "g"}}))),
            LATEST_VERSION,
        )
        .unwrap_err();
        assert_eq!(error.code, INVALID_PARAMS);
        assert!(error.message.contains("start_line"), "{}", error.message);
        assert_eq!(error.data.unwrap()["param"], "start_line");
        // No arguments at all: the file is the first thing missing.
        let error = call(
            &engine,
            Some(&params(json!({"name": "refactor_inline_function"}))),
            LATEST_VERSION,
        )
        .unwrap_err();
        assert_eq!(error.data.unwrap()["param"], "file_path");
    }

    #[test]
    fn unknown_tools_and_bad_shapes_are_invalid_params() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine(dir.path());
        for bad in [
            json!({"name": "refactor_rename"}),
            json!({}),
            json!({"name": 3}),
            json!({"name": "refactor_inline_function", "arguments": [1]}),
        ] {
            let error = call(&engine, Some(&params(bad.clone())), LATEST_VERSION).unwrap_err();
            assert_eq!(error.code, INVALID_PARAMS, "{bad}");
        }
        let error = call(&engine, None, LATEST_VERSION).unwrap_err();
        assert_eq!(error.code, INVALID_PARAMS);
    }

    #[test]
    fn other_failures_are_tool_errors_with_the_envelope() {
        let dir = tempfile::tempdir().unwrap();
        let engine = engine(dir.path());
        let result = call(
            &engine,
            Some(&params(json!({"name": "refactor_inline_function", "arguments": {"file_path": "missing.py", "function_name": "f"}}))),
            LATEST_VERSION,
        )
        .unwrap();
        assert_eq!(result["isError"], true);
        let envelope = &result["structuredContent"];
        assert_eq!(envelope["success"], false);
        assert_eq!(envelope["error"]["code"], "not_found");
        let text: Value =
            serde_json::from_str(result["content"][0]["text"].as_str().unwrap()).unwrap();
        assert_eq!(&text, envelope);
        let result = call(
            &engine,
            Some(&params(json!({"name": "refactor_inline_function", "arguments": {"file_path": "../x.py", "function_name": "f"}}))),
            LATEST_VERSION,
        )
        .unwrap();
        assert_eq!(result["structuredContent"]["error"]["code"], "outside_root");
    }
}
