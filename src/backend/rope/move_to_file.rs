//! Move to file through rope's `MoveGlobal`: the target is created in the private copy when it
//! is new (and in the plan as a created file), rope moves the item and rewrites the imports and
//! uses, the helper repairs what rope leaves behind, and candor adds the findings.

use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use crate::edit::FileChange;
use crate::lang::Language;
use crate::lang::symbols::{self, Symbol};
use crate::refactor::{Details, Finding, MoveRequest, Plan, RopeMoveDetails, Sources};

use super::checks::{
    doctest_findings, line_containing, lost_comments, skipped_findings, stub_findings,
};
use super::convert::{created_text, rope_offset};
use super::request::{RopeChange, ask, change_of, outline_symbol, sync};
use super::{RopeFailure, Session};

#[derive(Debug, Deserialize)]
struct MoveAnswer {
    changes: Vec<RopeChange>,
    #[serde(default)]
    fixups: Vec<Fixup>,
    #[serde(default)]
    dunder_all: Vec<DunderAll>,
    dest_module: String,
    #[serde(default)]
    source_module: String,
    /// The source and the target now import each other at module level.
    #[serde(default)]
    import_cycle: bool,
}

/// An import of the moved name from its old module that rope's move left behind: the helper
/// rewrote it (`rewritten`), removed it from the target, which defines the name now
/// (`removed`), or could not (`left`).
#[derive(Debug, Deserialize)]
struct Fixup {
    path: String,
    line: usize,
    import: String,
    kind: String,
}

/// A literal `__all__` the helper updated (`remove_from_all` or `add_to_all`).
#[derive(Debug, Deserialize)]
struct DunderAll {
    path: String,
    kind: String,
}

pub(super) fn move_to_file(
    session: &mut Session,
    sources: &dyn Sources,
    request: &MoveRequest,
    timeout: Duration,
) -> Result<Plan, RopeFailure> {
    let target = request.target_file.as_str();
    let synced = sync(session, sources, &[&request.file, target])?;
    let target_created = session.mirror.sha256(target).is_none();
    if target_created {
        session.mirror.create_empty(target)?;
    }
    let source = session.mirror.read(&request.file)?;
    let lang = Language::Python;
    let outline = symbols::outline(lang, &lang.parse(&source.text), &source.text);
    let symbol = outline_symbol(&outline, &request.symbol, "top-level item", |s| s.top_level)?;
    let answer: MoveAnswer = ask(
        session,
        "move",
        &[
            ("path", json!(request.file)),
            (
                "offset",
                json!(rope_offset(&source, symbol.name_range.start)),
            ),
            ("name", json!(symbol.name)),
            ("dest", json!(target)),
        ],
        timeout,
    )?;
    let mut changes = Vec::new();
    for change in &answer.changes {
        if change.path == target && target_created {
            changes.push(FileChange::create(
                target,
                created_text(&change.after, &source.text),
            ));
        } else if let Some(file_change) = change_of(session, change, Vec::new())? {
            changes.push(file_change);
        }
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    if !changes.iter().any(|c| c.path == target) {
        return Err(RopeFailure::Failed(format!(
            "rope did not put `{}` into {target}",
            symbol.name
        )));
    }
    let mut plan = Plan::default();
    plan.findings.extend(skipped_findings(&synced));
    for fixup in &answer.fixups {
        let line = changes
            .iter()
            .find(|c| c.path == fixup.path)
            .and_then(|c| line_containing(&c.after, &fixup.import))
            .unwrap_or(fixup.line);
        let (name, source) = (&symbol.name, &request.file);
        plan.findings.push(match fixup.kind.as_str() {
            "removed" => Finding::info(
                &fixup.path,
                fixup.line,
                format!("{target} imported `{name}` from {source}, which no longer defines it; candor removed that import (`{name}` is defined here now)"),
            ),
            "left" => Finding::warning(
                &fixup.path,
                fixup.line,
                format!("`{}` imports `{name}` under another name from {source}, which no longer defines it; replace it by hand", fixup.import),
            ),
            _ => Finding::info(
                &fixup.path,
                line,
                format!("rope's move left this import of `{name}` from {source} unchanged; candor rewrote it to `{}`", fixup.import),
            ),
        });
    }
    for updated in &answer.dunder_all {
        let done = if updated.kind == "add_to_all" {
            "added `{name}` to"
        } else {
            "removed `{name}` from"
        }
        .replace("{name}", &symbol.name);
        let line = changes
            .iter()
            .find(|c| c.path == updated.path)
            .and_then(|c| line_containing(&c.after, "__all__"))
            .unwrap_or(1);
        plan.findings.push(Finding::info(
            &updated.path,
            line,
            format!(
                "candor {done} the `__all__` of {} (rope does not update `__all__`)",
                updated.path
            ),
        ));
    }
    let source_all_fixed = answer
        .dunder_all
        .iter()
        .any(|d| d.path == request.file && d.kind == "remove_from_all");
    plan.findings.extend(move_checks(
        session,
        request,
        symbol,
        &changes,
        source_all_fixed,
    ));
    plan.findings.extend(stub_findings(sources, &symbol.name)?);
    plan.findings.extend(lost_comments(&changes));
    plan.findings
        .extend(doctest_findings(&changes, &symbol.name, target));
    if answer.import_cycle {
        plan.findings.push(Finding::warning(
            target,
            1,
            format!(
                "{target} and {} now import each other at module level ({} and {}): importing either first may fail with an ImportError (a circular import) — check it, or import inside the functions that need it",
                request.file, answer.dest_module, answer.source_module
            ),
        ));
    }
    plan.details = Details::RopeMove(RopeMoveDetails {
        symbol_name: symbol.name_path.clone(),
        target_file: target.to_string(),
        target_created,
        target_module: answer.dest_module.clone(),
        files_updated: changes
            .iter()
            .filter(|c| c.path != request.file && c.path != target)
            .count(),
    });
    plan.changes = changes;
    Ok(plan)
}

/// What rope's move does not look at: a name the target already defines, `__all__` lists
/// that still name the item.
fn move_checks(
    session: &Session,
    request: &MoveRequest,
    symbol: &Symbol,
    changes: &[FileChange],
    source_all_fixed: bool,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    let target = request.target_file.as_str();
    if let Ok(before) = session.mirror.read(target) {
        let lang = Language::Python;
        let outline = symbols::outline(lang, &lang.parse(&before.text), &before.text);
        if let Some(existing) = outline
            .iter()
            .find(|s| s.top_level && s.name == symbol.name)
        {
            findings.push(Finding::warning(
                target,
                existing.line,
                format!(
                    "{target} already defines `{}` at line {}: after the move it has two definitions of that name, and the later one wins",
                    symbol.name, existing.line
                ),
            ));
        }
    }
    let quoted = [format!("\"{}\"", symbol.name), format!("'{}'", symbol.name)];
    for change in changes
        .iter()
        .filter(|c| c.path == request.file && !source_all_fixed)
    {
        if let Some(line) = line_containing(&change.after, "__all__")
            && quoted.iter().any(|q| change.after.contains(q.as_str()))
        {
            findings.push(Finding::warning(
                &change.path,
                line,
                format!(
                    "`__all__` of {} may still list `{}`, which now lives in {target} (rope does not update `__all__`); `from ... import *` of this module fails while it does",
                    change.path, symbol.name
                ),
            ));
        }
    }
    findings
}
