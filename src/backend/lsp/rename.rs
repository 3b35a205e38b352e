//! Rename through a language server: the symbol is located by candor's own lookup (the same
//! answer the heuristic starts from), the server is shown the files that mention the name,
//! asked `textDocument/prepareRename` (when it offers it) and `textDocument/rename`; its
//! `WorkspaceEdit` becomes our changes (an edit outside the project is refused by the
//! conversion), and change annotations that need confirmation become warning findings. Before the
//! server is asked, the new name is checked as on every backend (`rename::check_new_name`): a
//! name already taken where the rename writes it is refused with the heuristic's error.

use serde_json::{Value, json};

use crate::edit::SourceFile;
use crate::lang::Language;
use crate::refactor::references::{self, locate};
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
    /// The references candor's engine finds that a server is known to miss: (path, range, line,
    /// certain, why) of the certain ones and of the possible ones inside macros.
    engine: Vec<EngineReference>,
}

#[derive(Debug, Clone)]
struct EngineReference {
    path: String,
    range: std::ops::Range<usize>,
    line: usize,
    certain: bool,
}

pub fn prepare_rename(
    sources: &dyn Sources,
    request: &RenameRequest,
) -> Result<PreparedRename, LspFailure> {
    let lang = Language::from_path(&request.file).ok_or_else(|| {
        LspFailure::Refactor(RefactorError::UnsupportedLanguage(request.file.clone()))
    })?;
    let new_name =
        crate::refactor::rename::valid_new_name(request, lang).map_err(LspFailure::Refactor)?;
    if !request.include_possible.is_empty() {
        return Err(LspFailure::Unsupported(
            "`include_possible` names references of candor's own engine; a language server decides its references itself".to_string(),
        ));
    }
    let located =
        locate(sources, &request.file, &request.symbol, lang).map_err(LspFailure::Refactor)?;
    let request = &crate::refactor::rename::for_target(request, &new_name, &located.target)
        .map_err(LspFailure::Refactor)?;
    if located.target.name == request.new_name {
        return Err(LspFailure::Refactor(RefactorError::InvalidArgument {
            param: "new_name",
            message: format!(
                "the symbol is already called `{}`; give a different `new_name`",
                request.new_name
            ),
        }));
    }
    let (at, old_name, label, file) = (
        located.target.name_range.start,
        located.target.name.clone(),
        located.target.label,
        located.file.clone(),
    );
    // The server is never asked for a rename candor refuses on every backend: the engine's
    // references, checked with the heuristic's own rules (a name already bound where the rename
    // writes it, a name not in the language's normal form), give the heuristic's error.
    let found = references::find_located(sources, located, None).map_err(LspFailure::Refactor)?;
    crate::refactor::rename::check_new_name(sources, request, &found)
        .map_err(LspFailure::Refactor)?;
    let engine = found
        .references
        .iter()
        .filter(|r| !r.alias && r.role != crate::lang::refs::Role::Definition)
        .filter_map(|r| {
            let in_macro = match &r.certainty {
                references::Certainty::Certain => return Some((r, true)),
                references::Certainty::Possible(why) => why.contains("!`") || why.contains("`$"),
            };
            in_macro.then_some((r, false))
        })
        .map(|(r, certain)| EngineReference {
            path: r.path.clone(),
            range: r.range.clone(),
            line: r.line,
            certain,
        })
        .collect();
    Ok(PreparedRename {
        lang,
        at,
        old_name,
        label,
        file,
        new_name: request.new_name.clone(),
        engine,
    })
}

/// A warning at each reference candor's engine finds that the server's rename left as it was:
/// certain ones, and possible ones inside macros, where servers are known to be blind (a
/// `macro_rules!` body's `$s.method()`).
fn left_by_the_server(
    session: &Session,
    p: &PreparedRename,
    changes: &[crate::edit::FileChange],
) -> Vec<Finding> {
    let by_path: std::collections::HashMap<&str, &crate::edit::FileChange> =
        changes.iter().map(|c| (c.path.as_str(), c)).collect();
    // A change's edits are sorted and do not overlap: the first that ends after the reference
    // starts is the only one that can cover it.
    let touched = |r: &EngineReference| {
        by_path.get(r.path.as_str()).is_some_and(|c| {
            let i = c.edits.partition_point(|e| e.range.end <= r.range.start);
            c.edits
                .get(i)
                .is_some_and(|e| e.range.start < r.range.end && r.range.start < e.range.end)
        })
    };
    p.engine
        .iter()
        .filter(|r| !touched(r))
        .map(|r| {
            Finding::warning(
                &r.path,
                r.line,
                format!(
                    "candor's engine finds {} reference to `{}` here that {} left unchanged: check it — if it is one, the result does not build or calls something else",
                    if r.certain { "a" } else { "a possible" },
                    p.old_name,
                    session.label()
                ),
            )
            .with_kind("rename.left_by_server")
        })
        .collect()
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
    pause_for_test();
    let mut findings = confirmations(session, root, &edit);
    let mut files = EditedFiles::shown(session.shown_files());
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
    findings.extend(left_by_the_server(session, p, &changes));
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

/// A test hook, inert unless a `test-hooks` build (the tests' own) finds
/// `CANDOR_TEST_PAUSE_AFTER_SERVER_EDIT_MS=N`: once the server's rename has arrived, the file
/// `CANDOR_TEST_SERVER_EDIT_READY` names is created and the rename waits N ms, so a test can have
/// another process write the project between the server's answer and candor's use of it.
fn pause_for_test() {
    #[cfg(feature = "test-hooks")]
    {
        let pause = std::env::var("CANDOR_TEST_PAUSE_AFTER_SERVER_EDIT_MS")
            .ok()
            .and_then(|v| v.trim().parse::<u64>().ok());
        if let Some(ms) = pause {
            if let Some(ready) = std::env::var_os("CANDOR_TEST_SERVER_EDIT_READY") {
                let _ = std::fs::write(ready, b"");
            }
            std::thread::sleep(std::time::Duration::from_millis(ms));
        }
    }
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
