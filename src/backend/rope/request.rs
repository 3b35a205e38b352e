//! One request to the helper and its answer in candor's terms: bring the private copy up to
//! date, ask, decode, map rope's refusals to [`RopeFailure`], and turn each file rope would
//! change into a [`FileChange`] on exactly the bytes rope read.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::edit::{FileChange, TextEdit};
use crate::lang::symbols::{self, Symbol};
use crate::refactor::{RefactorError, Sources};

use super::convert::edits_onto;
use super::mirror::{MirrorError, Synced};
use super::process::{Answer, HelperError};
use super::{RopeFailure, Session};

/// One file rope would change: what it read (newlines as `\n`) and what it would write.
#[derive(Debug, Clone, Deserialize)]
pub(super) struct RopeChange {
    pub path: String,
    pub before: String,
    pub after: String,
    /// sha256 of the bytes rope read.
    pub sha256: String,
}

#[cfg(test)]
impl RopeChange {
    pub fn for_tests(path: &str, before: &str, after: &str) -> RopeChange {
        RopeChange {
            path: path.to_string(),
            before: before.to_string(),
            after: after.to_string(),
            sha256: String::new(),
        }
    }
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
        _ => RopeFailure::Failed(match &error.file {
            Some(file) => format!("rope failed on {file}: {}", error.message),
            None => format!("rope failed: {}", error.message),
        }),
    }
}

/// Sends one request and decodes its result.
pub(super) fn ask<T: serde::de::DeserializeOwned>(
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
    let (timeout, capped) = session.limit(timeout);
    let over_budget = |budget| RopeFailure::OverBudget {
        budget,
        op: op.to_string(),
    };
    if let Some(budget) = capped
        && timeout.is_zero()
    {
        return Err(over_budget(budget));
    }
    let answer = match (session.helper.request(op, request, timeout), capped) {
        (Err(super::process::ProcessError::Timeout { .. }), Some(budget)) => {
            return Err(over_budget(budget));
        }
        (other, _) => other.map_err(|e| RopeFailure::Failed(e.to_string()))?,
    };
    match answer {
        Answer::Ok(value) => serde_json::from_value(value).map_err(|e| {
            RopeFailure::Failed(format!(
                "the rope helper answered {op} with something candor cannot read: {e}"
            ))
        }),
        Answer::Refused(error) => Err(refused(error)),
    }
}

pub(super) fn sync(
    session: &mut Session,
    sources: &dyn Sources,
    extra: &[&str],
) -> Result<Synced, RopeFailure> {
    Ok(session
        .mirror
        .sync(sources, &session.project_files, extra)?)
}

pub(super) fn outline_symbol<'s>(
    outline: &'s [Symbol],
    query: &symbols::SymbolQuery,
    wanted: &str,
    accept: impl Fn(&Symbol) -> bool,
) -> Result<&'s Symbol, RopeFailure> {
    symbols::resolve(outline, query, wanted, accept)
        .map_err(|e| RopeFailure::Refactor(RefactorError::from(e)))
}

/// The file change for one of rope's answers, on the file as rope read it.
pub(super) fn change_of(
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

/// The fields of a helper request.
fn fields(pairs: &[(&str, Value)]) -> Map<String, Value> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect()
}
