//! Rename through a language server: the symbol is located by candor's own lookup (the same
//! answer the heuristic starts from), the server is shown the files that mention the name,
//! asked `textDocument/prepareRename` (when it offers it) and `textDocument/rename`; its
//! `WorkspaceEdit` becomes our changes (an edit outside the project is refused by the
//! conversion), and change annotations that need confirmation become warning findings.

use serde_json::{Value, json};

use crate::edit::SourceFile;
use crate::lang::Language;
use crate::refactor::references::locate;
use crate::refactor::{Details, Finding, RefactorError, RenameDetails, RenameRequest, Sources};
use crate::text::LineIndex;
use crate::workspace::Root;

use super::convert::{EditedFiles, project_path};
use super::session::Session;
use super::{LspFailure, SemanticResult};

/// At most this many other files are opened so the server sees them as candor reads them.
const MAX_EXTRA_DOCUMENTS: usize = 200;

/// A rename request resolved to the definition it renames.
#[derive(Debug, Clone)]
pub struct PreparedRename {
    lang: Language,
    /// The file holding the definition, and the offset of its name.
    file: SourceFile,
    at: usize,
    old_name: String,
    label: &'static str,
    new_name: String,
}

pub fn prepare_rename(
    sources: &dyn Sources,
    request: &RenameRequest,
) -> Result<PreparedRename, LspFailure> {
    let lang = Language::from_path(&request.file).ok_or_else(|| {
        LspFailure::Refactor(RefactorError::UnsupportedLanguage(request.file.clone()))
    })?;
    lang.validate_identifier(&request.new_name)
        .map_err(|message| {
            LspFailure::Refactor(RefactorError::InvalidArgument {
                param: "new_name",
                message,
            })
        })?;
    if !request.include_possible.is_empty() {
        return Err(LspFailure::Unsupported(
            "`include_possible` names references of candor's own engine; a language server decides its references itself".to_string(),
        ));
    }
    let located =
        locate(sources, &request.file, &request.symbol, lang).map_err(LspFailure::Refactor)?;
    if located.target.name == request.new_name {
        return Err(LspFailure::Refactor(RefactorError::InvalidArgument {
            param: "new_name",
            message: format!(
                "the symbol is already called `{}`; give a different `new_name`",
                request.new_name
            ),
        }));
    }
    Ok(PreparedRename {
        lang,
        at: located.target.name_range.start,
        old_name: located.target.name.clone(),
        label: located.target.label,
        file: located.file,
        new_name: request.new_name.clone(),
    })
}

fn position(text: &str, offset: usize) -> Value {
    let index = LineIndex::new(text);
    let (line, character) = index.utf16_position(text, offset);
    json!({"line": line, "character": character})
}

fn invalid_edit(session: &Session, error: impl std::fmt::Display) -> LspFailure {
    LspFailure::Failed(format!(
        "{} sent a rename candor cannot use: {error}",
        session.label()
    ))
}

pub fn rename(
    session: &mut Session,
    root: &Root,
    sources: &dyn Sources,
    p: &PreparedRename,
) -> Result<SemanticResult, LspFailure> {
    if !session.supports_rename() {
        return Err(LspFailure::Unsupported(format!(
            "{} offers no rename",
            session.label()
        )));
    }
    let path = p.file.path.clone();
    let uri = session.sync(root, &p.file);
    if let Ok(mentioning) = sources.files_mentioning(p.lang, &p.old_name) {
        for other in mentioning
            .files
            .iter()
            .filter(|f| f.path != path)
            .take(MAX_EXTRA_DOCUMENTS)
        {
            session.sync(root, other);
        }
    }
    session.wait_ready()?;
    let document = json!({"textDocument": {"uri": uri}, "position": position(&p.file.text, p.at)});
    if session.supports_prepare_rename() {
        let prepared = session.request("textDocument/prepareRename", document.clone())?;
        if prepared.is_null() {
            return Err(LspFailure::Failed(format!(
                "{} cannot rename `{}` at line {} of {path} (prepareRename answered nothing)",
                session.label(),
                p.old_name,
                line_of(&p.file.text, p.at)
            )));
        }
    }
    let mut params = document;
    params["newName"] = json!(p.new_name);
    let edit = session.request("textDocument/rename", params)?;
    if edit.is_null() {
        return Err(LspFailure::Failed(format!(
            "{} has no rename for `{}` at line {} of {path}",
            session.label(),
            p.old_name,
            line_of(&p.file.text, p.at)
        )));
    }
    let findings = confirmations(session, root, &edit);
    let mut files = EditedFiles::new();
    files
        .apply(root, sources, &session.open_versions(), &edit)
        .map_err(|e| invalid_edit(session, e))?;
    let changes = files.into_changes().map_err(|e| invalid_edit(session, e))?;
    if changes.is_empty() {
        return Err(LspFailure::Failed(format!(
            "{} renamed `{}` but changed nothing",
            session.label(),
            p.old_name
        )));
    }
    let references_renamed = count_edits(&edit);
    let details = Details::Rename(RenameDetails {
        old_name: p.old_name.clone(),
        new_name: p.new_name.clone(),
        symbol_kind: p.label.to_string(),
        definition: format!("{path}:{}", line_of(&p.file.text, p.at)),
        references_renamed,
        possible_references: Vec::new(),
        files_changed: changes.iter().map(|c| c.path.clone()).collect(),
        references_from: format!("{} (textDocument/rename)", session.label()),
    });
    Ok(SemanticResult {
        changes,
        findings,
        details,
        server: session.info().clone(),
    })
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// The text edits of a `WorkspaceEdit`, with their document's URI: `changes` or the text
/// document edits of `documentChanges`.
fn text_edits(edit: &Value) -> Vec<(&str, &Value)> {
    let mut out = Vec::new();
    if let Some(items) = edit.get("documentChanges").and_then(Value::as_array) {
        for item in items {
            let uri = item
                .pointer("/textDocument/uri")
                .and_then(Value::as_str)
                .unwrap_or("");
            for e in item
                .get("edits")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                out.push((uri, e));
            }
        }
    } else if let Some(changes) = edit.get("changes").and_then(Value::as_object) {
        for (uri, edits) in changes {
            for e in edits.as_array().into_iter().flatten() {
                out.push((uri.as_str(), e));
            }
        }
    }
    out
}

fn count_edits(edit: &Value) -> usize {
    text_edits(edit).len()
}

/// Edits whose change annotation needs the user's confirmation: a warning each, at the edit.
fn confirmations(session: &Session, root: &Root, edit: &Value) -> Vec<Finding> {
    let Some(annotations) = edit.get("changeAnnotations").and_then(Value::as_object) else {
        return Vec::new();
    };
    let mut findings = Vec::new();
    for (uri, text_edit) in text_edits(edit) {
        let Some(id) = text_edit.get("annotationId").and_then(Value::as_str) else {
            continue;
        };
        let Some(annotation) = annotations.get(id) else {
            continue;
        };
        if annotation.get("needsConfirmation").and_then(Value::as_bool) != Some(true) {
            continue;
        }
        let path = project_path(root, uri).unwrap_or_else(|_| uri.to_string());
        let line = text_edit
            .pointer("/range/start/line")
            .and_then(Value::as_u64)
            .map_or(1, |l| l as usize + 1);
        let label = annotation
            .get("label")
            .and_then(Value::as_str)
            .unwrap_or(id);
        let description = annotation
            .get("description")
            .and_then(Value::as_str)
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        findings.push(Finding::warning(
            &path,
            line,
            format!(
                "{} marks this edit as needing confirmation ({label}{description}); check it before writing",
                session.label()
            ),
        ));
    }
    findings
}
