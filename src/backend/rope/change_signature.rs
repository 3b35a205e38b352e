//! Change signature through rope's argument changers: candor renders the new definition (the
//! heuristic's rendering, with annotations, defaults and comments), the helper reads the old and
//! new parameter lists, [`changers`] maps them to rope's changers, and rope rewrites every call.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::edit::{FileChange, SourceFile, TextEdit};
use crate::lang::Language;
use crate::lang::symbols::{self, Symbol};
use crate::refactor::{
    ChangeSignatureRequest, Details, Finding, Plan, RopeChangeSignatureDetails, Sources,
};

use super::changers::{ParamList, changers};
use super::checks::{doctest_call_findings, lost_comments, skipped_findings, stub_findings};
use super::convert::rope_offset;
use super::request::{RopeChange, ask, change_of, outline_symbol, sync};
use super::{RopeFailure, Session};

#[derive(Debug, Deserialize)]
struct SignatureAnswer {
    name: String,
    old: ParamList,
    new: ParamList,
    rope_reads_it: bool,
    #[serde(default)]
    body_uses: BTreeMap<String, Vec<usize>>,
}

#[derive(Debug, Deserialize)]
struct ChangeSignatureAnswer {
    changes: Vec<RopeChange>,
    calls: Vec<CallSite>,
}

#[derive(Debug, Deserialize)]
struct CallSite {
    path: String,
    line: usize,
    status: String,
    #[serde(default)]
    text: Option<String>,
}

/// The edit of candor's plan that rewrites the parameter list of `function` (the first edit
/// right after its name), if the list changes.
fn definition_edit<'p>(
    checked: &'p Plan,
    file: &SourceFile,
    function: &Symbol,
) -> Result<Option<&'p TextEdit>, RopeFailure> {
    let Some(change) = checked.changes.iter().find(|c| c.path == file.path) else {
        return Ok(None);
    };
    if change.sha256_before.as_deref() != Some(file.sha256.as_str()) {
        return Err(RopeFailure::Failed(format!(
            "{} changed while the refactor was computed; try again",
            file.path
        )));
    }
    let after_name = function.name_range.end;
    Ok(change.edits.iter().find(|e| {
        e.range.start >= after_name
            && file.text[after_name..e.range.start].trim().is_empty()
            && file.text[e.range.clone()].starts_with('(')
    }))
}

pub(super) fn change_signature(
    session: &mut Session,
    sources: &dyn Sources,
    request: &ChangeSignatureRequest,
    checked: &Plan,
    timeout: Duration,
) -> Result<Plan, RopeFailure> {
    let synced = sync(session, sources, &[&request.file])?;
    let file = session.mirror.read(&request.file)?;
    let lang = Language::Python;
    let outline = symbols::outline(lang, &lang.parse(&file.text), &file.text);
    let function = outline_symbol(&outline, &request.function, "function", |s| {
        s.kind.is_function()
    })?;
    let definition = definition_edit(checked, &file, function)?.cloned();
    let offset = rope_offset(&file, function.name_range.start);
    let signature: SignatureAnswer = ask(
        session,
        "signature",
        &[
            ("path", json!(request.file)),
            ("offset", json!(offset)),
            ("name", json!(function.name)),
            (
                "new_list",
                definition
                    .as_ref()
                    .map_or(Value::Null, |d| json!(d.new_text)),
            ),
        ],
        timeout,
    )?;
    if !signature.rope_reads_it {
        return Err(RopeFailure::Unsupported(format!(
            "rope misreads the parameter list of `{}` (it does with `*args` after a parameter that has a default, among others), so its changes of the calls could not be trusted",
            function.name_path
        )));
    }
    let sequence = changers(&signature.old, &signature.new, &function.name_path)
        .map_err(RopeFailure::Unsupported)?;
    let answer: ChangeSignatureAnswer = ask(
        session,
        "change_signature",
        &[
            ("path", json!(request.file)),
            ("offset", json!(offset)),
            ("name", json!(function.name)),
            ("changers", json!(sequence)),
        ],
        timeout,
    )?;
    let mut changes = Vec::new();
    let mut definition_placed = false;
    for change in &answer.changes {
        let extra = if change.path == request.file {
            definition_placed = true;
            definition.iter().cloned().collect()
        } else {
            Vec::new()
        };
        changes.extend(change_of(session, change, extra)?);
    }
    if !definition_placed && let Some(edit) = definition {
        changes.push(FileChange::modify(&file, vec![edit]).map_err(|e| {
            RopeFailure::Failed(format!("the new parameter list cannot be applied: {e}"))
        })?);
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));

    let mut plan = Plan::default();
    plan.findings.extend(skipped_findings(&synced));
    plan.findings
        .extend(call_findings(&answer.calls, &signature, checked));
    for (name, _) in &signature.old.args {
        let gone = !signature.new.args.iter().any(|(n, _)| n == name);
        if let (true, Some(lines)) = (gone, signature.body_uses.get(name)) {
            let first = lines.first().copied().unwrap_or(function.line);
            let more = if lines.len() > 1 {
                format!(", {} uses in all", lines.len())
            } else {
                String::new()
            };
            plan.findings.push(Finding::warning(
                &request.file,
                first,
                format!(
                    "`{name}` is no longer a parameter of `{}`, but its body still uses it (line {first}{more}); rename or replace those uses",
                    function.name_path
                ),
            ));
        }
    }
    plan.findings.extend(lost_comments(&changes));
    plan.findings
        .extend(stub_findings(sources, &function.name)?);
    let new_list = checked
        .details
        .new_params()
        .unwrap_or("the new parameter list");
    plan.findings
        .extend(doctest_call_findings(sources, &function.name, new_list)?);
    let rewritten = answer
        .calls
        .iter()
        .filter(|c| c.status == "rewritten")
        .count();
    plan.details = Details::RopeChangeSignature(RopeChangeSignatureDetails {
        old_params: checked.details.old_params().unwrap_or_default().to_string(),
        new_params: new_list.to_string(),
        call_sites_updated: rewritten,
        rope_changers: sequence
            .iter()
            .map(|c| c.describe(&signature.old))
            .collect(),
    });
    debug_assert!(signature.name == function.name || signature.name == "__init__");
    plan.changes = changes;
    Ok(plan)
}

/// A warning for each call rope had to leave alone.
fn call_findings(calls: &[CallSite], signature: &SignatureAnswer, checked: &Plan) -> Vec<Finding> {
    let new_list = checked
        .details
        .new_params()
        .unwrap_or("the new list")
        .to_string();
    let name = &signature.name;
    calls
        .iter()
        .filter_map(|c| {
            let text = c.text.as_deref().unwrap_or("…");
            let message = match c.status.as_str() {
                "splat" => format!(
                    "the call `{text}` passes `*` or `**` arguments: which parameters of `{name}` they fill is known only at run time, so rope left it as it is — check it against {new_list}"
                ),
                "reference" => format!(
                    "`{name}` is used here as a value (`{text}`): the calls made through it are not rewritten — check them against {new_list}"
                ),
                _ => return None,
            };
            Some(Finding::warning(&c.path, c.line, message))
        })
        .collect()
}
