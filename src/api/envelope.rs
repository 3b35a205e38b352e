//! The JSON envelopes of DESIGN.md §2: success (with the honesty surfaces) and error.

use serde_json::{Map, Value, json};

use crate::cancel::{Cancel, Cancelled};
use crate::honesty::{BackendKind, DEGRADED_REASON, Tool};
use crate::workspace::transaction::Recovery;
use crate::workspace::write::ApplyReport;

use super::args::ToolCall;
use super::error::ApiError;
use super::preview::Preview;

/// The success envelope of a computed (and possibly applied) refactor. Building the diffs of a
/// project-wide change takes time: a cancelled request stops between two files.
pub fn success(
    call: &ToolCall,
    preview: &Preview,
    applied: Option<&ApplyReport>,
    cancel: &Cancel,
) -> Result<Value, Cancelled> {
    let outcome = &preview.outcome;
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
        let notes: Vec<_> = outcome
            .plan
            .caveat_notes
            .iter()
            .filter(|n| n.caveat.tool() == tool)
            .collect();
        if !notes.is_empty() {
            data.insert("caveat_notes".into(), json!(notes));
        }
    }
    if let Some(reason) = &outcome.fallback_reason {
        data.insert("fallback_reason".into(), json!(reason));
    }
    if let Some(server) = &outcome.server {
        data.insert("lsp_server".into(), json!(server));
    }
    if let Some(engine) = &outcome.semantic_backend {
        data.insert("semantic_backend".into(), json!(engine));
    }
    if !call.unknown_args.is_empty() {
        data.insert("unknown_args".into(), json!(call.unknown_args));
    }
    data.insert("findings".into(), json!(outcome.plan.findings));
    data.insert(
        "finding_counts".into(),
        json!(super::finding_counts::count(&outcome.plan.findings)),
    );
    let changes: Vec<Value> = outcome
        .plan
        .changes
        .iter()
        .map(|c| {
            cancel.check()?;
            Ok(json!({
                "path": c.path,
                "created": c.created(),
                "sha256_before": c.sha256_before,
                "sha256_after": c.sha256_after,
                "diff": c.diff(),
            }))
        })
        .collect::<Result<Vec<Value>, Cancelled>>()?;
    data.insert("changes".into(), Value::Array(changes));
    data.insert("plan_id".into(), json!(preview.plan_id));
    data.insert("sites".into(), json!(outcome.plan.sites));
    if let Some(verification) = &preview.verification {
        data.insert("verification".into(), json!(verification));
    }
    for (key, value) in outcome.plan.details.to_map() {
        data.entry(key).or_insert(value);
    }
    let mut recovered: Vec<&Recovery> = preview.recovered.iter().collect();
    if let Some(report) = applied {
        if let Some(id) = &report.transaction {
            data.insert("transaction_id".into(), json!(id));
        }
        recovered.extend(report.recovered.iter());
    }
    if !recovered.is_empty() {
        // What was rolled back before this result, said in a sentence and as data.
        let sentences: Vec<String> = recovered.iter().map(|r| r.to_string()).collect();
        data.insert("recovered_transactions".into(), json!(sentences));
        let details: Vec<Value> = recovered
            .iter()
            .map(|r| {
                json!({
                    "transaction": r.transaction,
                    "what": r.what,
                    "restored": r.restored,
                    "not_restored": r.left,
                })
            })
            .collect();
        data.insert("recovered".into(), Value::Array(details));
    }
    Ok(json!({
        "success": true,
        "tool": tool.name(),
        "backend_used": outcome.backend.as_str(),
        "confidence": outcome.confidence(),
        "degraded_reason": if heuristic { json!(DEGRADED_REASON) } else { Value::Null },
        "data": Value::Object(data),
    }))
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
