//! Extract variable and inline variable through rope (`ExtractVariable`, `InlineVariable`): the
//! request was first planned by candor's heuristic (a request it refuses is refused here too,
//! and its details describe the result); rope computes the edit on its mirror copy.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use crate::lang::Language;
use crate::lang::vars;
use crate::refactor::{ExtractVariableRequest, InlineVariableRequest, Plan, Sources};
use crate::text::LineIndex;

use super::convert::rope_offset;
use super::request::{RopeChange, ask, change_of, sync};
use super::{RopeFailure, Session};

#[derive(Debug, Deserialize)]
struct ChangesAnswer {
    changes: Vec<RopeChange>,
}

/// The plan of rope's answer: its changes, the heuristic's details.
fn plan_of(session: &Session, answer: &ChangesAnswer, checked: &Plan) -> Result<Plan, RopeFailure> {
    let mut changes = Vec::new();
    for change in &answer.changes {
        if let Some(change) = change_of(session, change, Vec::new())? {
            changes.push(change);
        }
    }
    if changes.is_empty() {
        return Err(RopeFailure::Failed("rope changed nothing".to_string()));
    }
    Ok(Plan {
        changes,
        findings: Vec::new(),
        details: checked.details.clone(),
        caveat_notes: Vec::new(),
        ..Plan::default()
    })
}

pub(super) fn extract_variable(
    session: &mut Session,
    sources: &dyn Sources,
    request: &ExtractVariableRequest,
    checked: &Plan,
    timeout: Duration,
) -> Result<Plan, RopeFailure> {
    if request.replace_all {
        return Err(RopeFailure::Unsupported(
            "candor asks rope for the selected occurrence only; replace_all is done by candor's heuristic".to_string(),
        ));
    }
    sync(session, sources, &[&request.file])?;
    let file = session.mirror.read(&request.file)?;
    let index = LineIndex::new(&file.text);
    let at = |line: usize, column: usize| {
        index
            .offset_of_line_column(&file.text, line, column)
            .unwrap_or(0)
    };
    let start = at(request.start_line, request.start_column);
    let end = at(request.end_line, request.end_column);
    let answer: ChangesAnswer = ask(
        session,
        "extract_variable",
        &[
            ("path", json!(request.file)),
            ("start", json!(rope_offset(&file, start))),
            ("end", json!(rope_offset(&file, end))),
            ("new_name", json!(request.new_name)),
        ],
        timeout,
    )?;
    plan_of(session, &answer, checked)
}

pub(super) fn inline_variable(
    session: &mut Session,
    sources: &dyn Sources,
    request: &InlineVariableRequest,
    checked: &Plan,
    timeout: Duration,
) -> Result<Plan, RopeFailure> {
    sync(session, sources, &[&request.file])?;
    let file = session.mirror.read(&request.file)?;
    let index = LineIndex::new(&file.text);
    let offset = index
        .offset_of_line_column(&file.text, request.line, request.column)
        .unwrap_or(0);
    let lang = Language::Python;
    let tree = lang.parse(&file.text);
    let name = vars::name_at(lang, tree.root_node(), offset).ok_or_else(|| {
        RopeFailure::Failed(format!(
            "no name at {}:{} of the copy rope reads",
            request.line, request.column
        ))
    })?;
    let answer: ChangesAnswer = ask(
        session,
        "inline_variable",
        &[
            ("path", json!(request.file)),
            ("offset", json!(rope_offset(&file, name.start_byte()))),
            ("name", json!(&file.text[name.byte_range()])),
        ],
        timeout,
    )?;
    let mut plan = plan_of(session, &answer, checked)?;
    // Rope pastes the initializer without the parentheses precedence may need
    // (`subtotal * 2` with `subtotal = price * count + 1` became `price * count + 1 * 2`):
    // where its result differs from candor's own inline of the same local, say where.
    if let Some(finding) = differs_from_own(&plan, checked, &request.file) {
        plan.findings.push(finding);
    }
    Ok(plan)
}

/// A warning at the first line where `rope`'s text of `path` differs from candor's own plan of
/// the same request, quoting both.
fn differs_from_own(rope: &Plan, own: &Plan, path: &str) -> Option<crate::refactor::Finding> {
    let after = |plan: &Plan| {
        plan.changes
            .iter()
            .find(|c| c.path == path)
            .map(|c| c.after.clone())
    };
    let (theirs, ours) = (after(rope)?, after(own)?);
    if theirs == ours {
        return None;
    }
    let (index, (their_line, our_line)) = theirs
        .lines()
        .zip(ours.lines())
        .enumerate()
        .find(|(_, (a, b))| a != b)
        .unwrap_or((theirs.lines().count().min(ours.lines().count()), ("", "")));
    Some(crate::refactor::Finding::warning(
        path,
        index + 1,
        format!(
            "rope's inline differs from candor's own here: rope wrote `{}`, candor's heuristic writes `{}` — rope pastes the value without the parentheses precedence may need, which changes what the code computes; compare before applying (the heuristic's result: semantic_edit_backend \"tree-sitter\")",
            their_line.trim(),
            our_line.trim()
        ),
    ))
}
