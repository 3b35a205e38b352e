//! The JSON envelopes of DESIGN.md §2: success (with the honesty surfaces) and error.

use serde_json::{Value, json};

use crate::cancel::{Cancel, Cancelled};
use crate::honesty::{BackendKind, DEGRADED_REASON, Tool};
use crate::workspace::transaction::Recovery;
use crate::workspace::write::ApplyReport;

use super::args::ToolCall;
use super::error::ApiError;
use super::preview::Preview;

/// The success envelope of a computed (and possibly applied) refactor: its fields in the order
/// DESIGN.md §2 gives, the findings and sites borrowed from the preview. `candor call` writes it
/// as text straight from it; the other front ends take it as a [`Value`]
/// ([`Success::to_value`]). Both go through its one [`Serialize`], so they cannot differ.
#[derive(Debug)]
pub struct Success<'a> {
    tool: &'static str,
    backend_used: &'static str,
    confidence: f64,
    heuristic: bool,
    data: Vec<(String, Field<'a>)>,
}

/// One field of `data`.
#[derive(Debug)]
enum Field<'a> {
    Value(Value),
    Findings(&'a [crate::refactor::findings::Finding]),
    Sites(&'a [crate::refactor::sites::Site]),
}

impl Success<'_> {
    /// The envelope as a JSON value (what `serde_json::to_value` of it gives).
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|e| error(self.tool, &unwritable(&e)))
    }

    /// The envelope as the pretty-printed text `candor call` writes, built from it directly (not
    /// through a [`Value`]: a large change has a value per finding and per site).
    pub fn to_text(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_else(|e| {
            let error = error(self.tool, &unwritable(&e));
            serde_json::to_string_pretty(&error).unwrap_or_default()
        })
    }
}

impl<'a> Success<'a> {
    /// Sets `key` (in place when it is there already, as a map's insert does).
    fn set_field(&mut self, key: &str, field: Field<'a>) {
        match self.data.iter_mut().find(|(k, _)| k == key) {
            Some((_, slot)) => *slot = field,
            None => self.data.push((key.to_string(), field)),
        }
    }

    fn insert(&mut self, key: &str, value: Value) {
        self.set_field(key, Field::Value(value));
    }
}

impl serde::Serialize for Field<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Field::Value(value) => value.serialize(serializer),
            Field::Findings(findings) => findings.serialize(serializer),
            Field::Sites(sites) => sites.serialize(serializer),
        }
    }
}

/// `data`: its fields as a map, in order.
struct Data<'s, 'a>(&'s [(String, Field<'a>)]);

impl serde::Serialize for Data<'_, '_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (key, field) in self.0 {
            map.serialize_entry(key, field)?;
        }
        map.end()
    }
}

impl serde::Serialize for Success<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(6))?;
        map.serialize_entry("success", &true)?;
        map.serialize_entry("tool", self.tool)?;
        map.serialize_entry("backend_used", self.backend_used)?;
        map.serialize_entry("confidence", &self.confidence)?;
        match self.heuristic {
            true => map.serialize_entry("degraded_reason", DEGRADED_REASON)?,
            false => map.serialize_entry("degraded_reason", &Value::Null)?,
        }
        map.serialize_entry("data", &Data(&self.data))?;
        map.end()
    }
}

/// The success envelope of a computed (and possibly applied) refactor. Building the diffs of a
/// project-wide change takes time: a cancelled request stops between two files.
pub fn success<'a>(
    call: &ToolCall,
    preview: &'a Preview,
    applied: Option<&ApplyReport>,
    cancel: &Cancel,
) -> Result<Success<'a>, Cancelled> {
    let outcome = &preview.outcome;
    let tool = outcome.tool;
    let heuristic = outcome.backend == BackendKind::Hybrid;
    let mut envelope = Success {
        tool: tool.name(),
        backend_used: outcome.backend.as_str(),
        confidence: outcome.confidence(),
        heuristic,
        data: Vec::new(),
    };
    envelope.insert("operation", json!(tool.operation()));
    envelope.insert("file_path", json!(call.request.file()));
    envelope.insert("dry_run", json!(call.options.dry_run));
    envelope.insert("applied", json!(applied.is_some()));
    if heuristic {
        envelope.insert("tree_sitter_caveats", json!(tool.caveats()));
        envelope.insert("degraded_reason", json!(DEGRADED_REASON));
        let notes: Vec<_> = outcome
            .plan
            .caveat_notes
            .iter()
            .filter(|n| n.caveat.tool() == tool)
            .collect();
        if !notes.is_empty() {
            envelope.insert("caveat_notes", json!(notes));
        }
    }
    if let Some(reason) = &outcome.fallback_reason {
        envelope.insert("fallback_reason", json!(reason));
    }
    if let Some(server) = &outcome.server {
        envelope.insert("lsp_server", json!(server));
    }
    if let Some(engine) = &outcome.semantic_backend {
        envelope.insert("semantic_backend", json!(engine));
    }
    if !call.unknown_args.is_empty() {
        envelope.insert("unknown_args", json!(call.unknown_args));
    }
    envelope.set_field("findings", Field::Findings(&outcome.plan.findings));
    envelope.insert(
        "finding_counts",
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
    envelope.insert("changes", Value::Array(changes));
    envelope.insert("plan_id", json!(preview.plan_id));
    envelope.set_field("sites", Field::Sites(&outcome.plan.sites));
    if let Some(verification) = &preview.verification {
        envelope.insert("verification", json!(verification));
    }
    for (key, value) in outcome.plan.details.to_map() {
        if !envelope.data.iter().any(|(k, _)| *k == key) {
            envelope.insert(&key, value);
        }
    }
    let mut recovered: Vec<&Recovery> = preview.recovered.iter().collect();
    if let Some(report) = applied {
        if let Some(id) = &report.transaction {
            envelope.insert("transaction_id", json!(id));
        }
        recovered.extend(report.recovered.iter());
    }
    if !recovered.is_empty() {
        // What was rolled back before this result, said in a sentence and as data.
        let sentences: Vec<String> = recovered.iter().map(|r| r.to_string()).collect();
        envelope.insert("recovered_transactions", json!(sentences));
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
        envelope.insert("recovered", Value::Array(details));
    }
    Ok(envelope)
}

/// Why an envelope could not be written as JSON (never seen: its keys are strings).
fn unwritable(e: &serde_json::Error) -> ApiError {
    ApiError::new(
        super::error::ErrorCode::Io,
        format!("the result could not be written as JSON ({e})"),
    )
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
