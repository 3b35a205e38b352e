//! The JSON envelopes of DESIGN.md §2: success (with the honesty surfaces) and error.

use serde_json::{Map, Value, json};

use crate::backend::Outcome;
use crate::honesty::{BackendKind, DEGRADED_REASON, Tool};
use crate::workspace::write::ApplyReport;

use super::args::ToolCall;
use super::error::ApiError;

/// The success envelope of a computed (and possibly applied) refactor.
pub fn success(call: &ToolCall, outcome: &Outcome, applied: Option<&ApplyReport>) -> Value {
    let tool = outcome.tool;
    let heuristic = outcome.backend == BackendKind::Hybrid;
    let mut data = Map::new();
    data.insert("operation".into(), json!(tool.operation()));
    data.insert("file_path".into(), json!(call.request.file()));
    data.insert("dry_run".into(), json!(call.options.dry_run));
    data.insert("applied".into(), json!(applied.is_some()));
    if heuristic {
        data.insert("tree_sitter_caveats".into(), json!(tool.caveats()));
        data.insert("degraded_reason".into(), json!(DEGRADED_REASON));
    }
    if let Some(reason) = &outcome.fallback_reason {
        data.insert("fallback_reason".into(), json!(reason));
    }
    if let Some(server) = &outcome.server {
        data.insert("lsp_server".into(), json!(server));
    }
    if !call.unknown_args.is_empty() {
        data.insert("unknown_args".into(), json!(call.unknown_args));
    }
    data.insert("findings".into(), json!(outcome.plan.findings));
    let changes: Vec<Value> = outcome
        .plan
        .changes
        .iter()
        .map(|c| {
            json!({
                "path": c.path,
                "created": c.created(),
                "sha256_before": c.sha256_before,
                "sha256_after": c.sha256_after,
                "diff": c.diff(),
            })
        })
        .collect();
    data.insert("changes".into(), Value::Array(changes));
    for (key, value) in outcome.plan.details.to_map() {
        data.entry(key).or_insert(value);
    }
    if let Some(report) = applied {
        if let Some(id) = &report.transaction {
            data.insert("transaction_id".into(), json!(id));
        }
        if !report.recovered.is_empty() {
            let recovered: Vec<String> = report.recovered.iter().map(ToString::to_string).collect();
            data.insert("recovered_transactions".into(), json!(recovered));
        }
    }
    json!({
        "success": true,
        "tool": tool.name(),
        "backend_used": outcome.backend.as_str(),
        "confidence": outcome.confidence(),
        "degraded_reason": if heuristic { json!(DEGRADED_REASON) } else { Value::Null },
        "data": Value::Object(data),
    })
}

/// The error envelope; `tool` is the name the caller used.
pub fn error(tool: &str, error: &ApiError) -> Value {
    json!({
        "success": false,
        "tool": tool,
        "error": error,
    })
}

/// The tool of a name, or the error for an unknown one.
pub fn tool_named(name: &str) -> Result<Tool, ApiError> {
    Tool::from_name(name).ok_or_else(|| {
        ApiError::new(
            super::error::ErrorCode::InvalidArgument,
            format!(
                "unknown tool `{name}`; the tools are {}",
                Tool::ALL
                    .iter()
                    .map(|t| t.name())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        )
        .with_param("tool")
    })
}
