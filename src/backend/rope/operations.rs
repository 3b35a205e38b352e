//! Move to file and change signature through the helper, step by step: bring the private copy
//! of the project up to date, find the symbol as candor's outline has it, ask rope, check that
//! what rope read is what candor read, and turn rope's new file contents into file changes and
//! findings. For change signature the definition's new parameter list is the one candor renders
//! (rope would drop annotations and comments); rope rewrites the calls.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};

use crate::edit::{FileChange, SourceFile, TextEdit};
use crate::lang::Language;
use crate::lang::calls::ReferenceKind;
use crate::lang::symbols::{self, Symbol};
use crate::refactor::{ChangeSignatureRequest, Finding, MoveRequest, Plan, RefactorError};
use crate::refactor::Sources;

use super::convert::{created_text, edits_onto, rope_offset};
use super::mirror::{MirrorError, Synced};
use super::process::{Answer, HelperError};
use super::signature::{ParamList, changers};
use super::{RopeFailure, Session, fields};

/// One file rope would change: what it read (newlines as `\n`) and what it would write.
#[derive(Debug, Clone, Deserialize)]
struct RopeChange {
    path: String,
    before: String,
    after: String,
    /// sha256 of the bytes rope read.
    sha256: String,
}

#[derive(Debug, Deserialize)]
struct MoveAnswer {
    changes: Vec<RopeChange>,
    #[serde(default)]
    fixups: Vec<Fixup>,
    dest_module: String,
}

/// An import rope's move left behind and the helper rewrote.
#[derive(Debug, Deserialize)]
struct Fixup {
    path: String,
    line: usize,
    import: String,
}

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

impl From<MirrorError> for RopeFailure {
    fn from(error: MirrorError) -> RopeFailure {
        match error {
            MirrorError::Source(e) => RopeFailure::Refactor(e.into()),
            other => RopeFailure::Failed(other.to_string()),
        }
    }
}

/// rope's refusal, in candor's terms.
fn refused(error: HelperError) -> RopeFailure {
    match error.kind.as_str() {
        "refactoring" => RopeFailure::Unsupported(format!("rope refuses: {}", error.message)),
        "syntax" => RopeFailure::Failed(format!(
            "rope cannot analyze the project: {}; fix that file, or use the heuristic",
            error.message
        )),
        "bad_request" => RopeFailure::Failed(format!(
            "the rope helper could not use candor's request ({}); please report it",
            error.message
        )),
        _ => RopeFailure::Failed(format!("rope failed: {}", error.message)),
    }
}

/// Sends one request and decodes its result.
fn ask<T: serde::de::DeserializeOwned>(
    session: &mut Session,
    op: &str,
    pairs: &[(&str, Value)],
    timeout: Duration,
) -> Result<T, RopeFailure> {
    let mut request = fields(pairs);
    request.insert(
        "root".into(),
        json!(session.mirror.root().display().to_string()),
    );
    match session
        .helper
        .request(op, request, timeout)
        .map_err(|e| RopeFailure::Failed(e.to_string()))?
    {
        Answer::Ok(value) => serde_json::from_value(value).map_err(|e| {
            RopeFailure::Failed(format!(
                "the rope helper answered {op} with something candor cannot read: {e}"
            ))
        }),
        Answer::Refused(error) => Err(refused(error)),
    }
}

fn sync(session: &mut Session, sources: &dyn Sources, extra: &[&str]) -> Result<Synced, RopeFailure> {
    Ok(session.mirror.sync(sources, extra)?)
}

fn outline_symbol<'s>(
    outline: &'s [Symbol],
    query: &symbols::SymbolQuery,
    wanted: &str,
    accept: impl Fn(&Symbol) -> bool,
) -> Result<&'s Symbol, RopeFailure> {
    symbols::resolve(outline, query, wanted, accept)
        .map_err(|e| RopeFailure::Refactor(RefactorError::from(e)))
}

/// The file change for one of rope's answers, on the file as rope read it.
fn change_of(
    session: &Session,
    change: &RopeChange,
    extra_edits: Vec<TextEdit>,
) -> Result<Option<FileChange>, RopeFailure> {
    let base = session.mirror.read(&change.path)?;
    if base.sha256 != change.sha256 {
        return Err(RopeFailure::Failed(format!(
            "rope read {} as other bytes than candor copied for it; try again",
            change.path
        )));
    }
    let mut edits = edits_onto(&base, &change.before, &change.after)
        .map_err(|e| RopeFailure::Failed(e.to_string()))?;
    edits.extend(extra_edits);
    if edits.is_empty() {
        return Ok(None);
    }
    FileChange::modify(&base, edits).map(Some).map_err(|e| {
        RopeFailure::Failed(format!(
            "rope's changes of {} cannot be combined with candor's: {e}",
            change.path
        ))
    })
}

/// A warning for every file the copy for rope had to leave out.
fn skipped_findings(synced: &Synced) -> Vec<Finding> {
    synced
        .skipped
        .iter()
        .map(|(path, reason)| {
            Finding::warning(
                path,
                1,
                format!("{path} was not searched: it {reason}; references in it, if any, were not updated — check it by hand"),
            )
        })
        .collect()
}

/// A warning for every comment of the changed files that is in none of the results (rope
/// writes the calls and imports it rewrites on one line, without their comments).
fn lost_comments(changes: &[FileChange]) -> Vec<Finding> {
    let comments = |text: &str| -> Vec<(String, usize)> {
        crate::lang::lex::lex(Language::Python, text)
            .spans
            .iter()
            .filter(|(_, kind)| *kind == ReferenceKind::InComment)
            .map(|(range, _)| {
                let line = text[..range.start].matches('\n').count() + 1;
                (text[range.clone()].trim().to_string(), line)
            })
            .collect()
    };
    let mut kept: BTreeMap<String, usize> = BTreeMap::new();
    for change in changes {
        for (comment, _) in comments(&change.after) {
            *kept.entry(comment).or_default() += 1;
        }
    }
    let mut findings = Vec::new();
    for change in changes.iter().filter(|c| !c.created()) {
        for (comment, line) in comments(&change.before) {
            match kept.get_mut(&comment) {
                Some(n) if *n > 0 => *n -= 1,
                _ => findings.push(Finding::warning(
                    &change.path,
                    line,
                    format!(
                        "the comment `{comment}` (line {line} of {}) is not in the result: rope rewrote the code around it without it — put it back by hand if it matters",
                        change.path
                    ),
                )),
            }
        }
    }
    findings
}

/// The 1-based line of the first line of `text` that contains `needle`.
fn line_containing(text: &str, needle: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1)
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
            ("offset", json!(rope_offset(&source, symbol.name_range.start))),
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
        plan.findings.push(Finding::info(
            &fixup.path,
            line,
            format!(
                "rope's move left this import of `{}` from {} unchanged; candor rewrote it to `{}`",
                symbol.name, request.file, fixup.import
            ),
        ));
    }
    plan.findings
        .extend(move_checks(session, request, symbol, &changes));
    plan.findings.extend(lost_comments(&changes));
    plan.details.insert("symbol_name".into(), json!(symbol.name_path));
    plan.details.insert("target_file".into(), json!(target));
    plan.details.insert("target_created".into(), json!(target_created));
    plan.details
        .insert("target_module".into(), json!(answer.dest_module));
    plan.details.insert(
        "files_updated".into(),
        json!(changes.iter().filter(|c| c.path != request.file && c.path != target).count()),
    );
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
    for change in changes.iter().filter(|c| c.path == request.file) {
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
    plan.findings.extend(call_findings(&answer.calls, &signature, checked));
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
    for key in ["old_params", "new_params"] {
        if let Some(value) = checked.details.get(key) {
            plan.details.insert(key.into(), value.clone());
        }
    }
    let rewritten = answer
        .calls
        .iter()
        .filter(|c| c.status == "rewritten")
        .count();
    plan.details
        .insert("call_sites_updated".into(), json!(rewritten));
    plan.details.insert(
        "rope_changers".into(),
        json!(
            sequence
                .iter()
                .map(|c| c.describe(&signature.old))
                .collect::<Vec<_>>()
        ),
    );
    debug_assert!(signature.name == function.name || signature.name == "__init__");
    plan.changes = changes;
    Ok(plan)
}

/// A warning for each call rope had to leave alone.
fn call_findings(calls: &[CallSite], signature: &SignatureAnswer, checked: &Plan) -> Vec<Finding> {
    let new_list = checked
        .details
        .get("new_params")
        .and_then(Value::as_str)
        .unwrap_or("the new list")
        .to_string();
    calls
        .iter()
        .filter(|c| c.status == "splat")
        .map(|c| {
            Finding::warning(
                &c.path,
                c.line,
                format!(
                    "the call `{}` passes `*` or `**` arguments: which parameters of `{}` they fill is known only at run time, so rope left it as it is — check it against {new_list}",
                    c.text.as_deref().unwrap_or("…"),
                    signature.name
                ),
            )
        })
        .collect()
}
