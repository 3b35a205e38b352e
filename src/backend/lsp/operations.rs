//! Extract function and inline function through a language server, step by step: check the
//! request (as the heuristic would), show the server the files as candor read them, ask for the
//! code action, carry it out, turn its edits into ours, rename the server's default function
//! name to the requested one, and close the documents again.

use std::ops::Range;

use serde_json::{Value, json};

use crate::edit::SourceFile;
use crate::lang::Language;
use crate::lang::symbols::{self, Symbol};
use crate::refactor::{
    Details, ExtractRequest, Finding, InlineRequest, LspExtractDetails, LspInlineDetails,
    RefactorError, SourceError, Sources,
};
use crate::text::LineIndex;
use crate::workspace::Root;

use super::actions::{self, Operation};
use super::convert::EditedFiles;
use super::session::Session;
use super::{LspFailure, SemanticResult};

/// At most this many other files are opened so the server sees them as candor reads them.
const MAX_EXTRA_DOCUMENTS: usize = 200;

/// An extract request checked against the file, before any server is involved.
#[derive(Debug, Clone)]
pub struct PreparedExtract {
    lang: Language,
    file: SourceFile,
    range: Range<usize>,
    request: ExtractRequest,
}

/// An inline request resolved to one function.
#[derive(Debug, Clone)]
pub struct PreparedInline {
    lang: Language,
    file: SourceFile,
    function: Symbol,
}

/// A request that passed the checks.
#[derive(Debug, Clone)]
pub enum Prepared {
    Extract(PreparedExtract),
    Inline(PreparedInline),
    Rename(super::rename::PreparedRename),
    Variable(super::variables::PreparedVariable),
}

pub(super) fn read(sources: &dyn Sources, path: &str) -> Result<SourceFile, LspFailure> {
    sources
        .file(path)
        .map_err(|e| LspFailure::Refactor(e.into()))?
        .ok_or_else(|| {
            LspFailure::Refactor(RefactorError::Source(SourceError::Missing {
                path: path.to_string(),
            }))
        })
}

fn language(path: &str) -> Result<Language, LspFailure> {
    Language::from_path(path)
        .ok_or_else(|| LspFailure::Refactor(RefactorError::UnsupportedLanguage(path.to_string())))
}

/// Checks an extract request: a valid new name that nothing beside the enclosing function has,
/// and a selection inside the file with something in it.
pub fn prepare_extract(
    sources: &dyn Sources,
    request: &ExtractRequest,
) -> Result<Prepared, LspFailure> {
    let lang = language(&request.file)?;
    lang.validate_identifier(&request.new_name)
        .map_err(|message| {
            LspFailure::Refactor(RefactorError::InvalidArgument {
                param: "new_name",
                message: format!("{message}; choose another name for the new function"),
            })
        })?;
    let file = read(sources, &request.file)?;
    let range = actions::selection_range(&file.text, request.start_line, request.end_line)
        .map_err(LspFailure::Refactor)?;
    if let Some(line) = actions::name_collision(lang, &file.text, &request.new_name, range.start) {
        return Err(LspFailure::Refactor(RefactorError::InvalidArgument {
            param: "new_name",
            message: format!(
                "`{}` is already defined at line {line} of {}, where the new function would go; choose another name",
                request.new_name, request.file
            ),
        }));
    }
    Ok(Prepared::Extract(PreparedExtract {
        lang,
        file,
        range,
        request: request.clone(),
    }))
}

/// Resolves the function to inline.
pub fn prepare_inline(
    sources: &dyn Sources,
    request: &InlineRequest,
) -> Result<Prepared, LspFailure> {
    let lang = language(&request.file)?;
    let file = read(sources, &request.file)?;
    let outline = symbols::outline(lang, &lang.parse(&file.text), &file.text);
    let function = symbols::resolve(&outline, &request.function, "function", |s| {
        s.kind.is_function()
    })
    .map_err(|e| LspFailure::Refactor(e.into()))?
    .clone();
    Ok(Prepared::Inline(PreparedInline {
        lang,
        file,
        function,
    }))
}

/// Runs a prepared request on `session`, closing every document it opened afterwards.
pub fn run(
    session: &mut Session,
    root: &Root,
    sources: &dyn Sources,
    prepared: &Prepared,
) -> Result<SemanticResult, LspFailure> {
    let result = match prepared {
        Prepared::Extract(p) => extract(session, root, sources, p),
        Prepared::Inline(p) => inline(session, root, sources, p),
        Prepared::Rename(p) => super::rename::rename(session, root, sources, p),
        Prepared::Variable(p) => super::variables::run(session, root, sources, p),
    };
    session.close_all();
    result
}

fn lsp_position(index: &LineIndex, text: &str, offset: usize) -> Value {
    let (line, character) = index.utf16_position(text, offset);
    json!({"line": line, "character": character})
}

pub(super) fn lsp_range(text: &str, range: &Range<usize>) -> Value {
    let index = LineIndex::new(text);
    json!({"start": lsp_position(&index, text, range.start), "end": lsp_position(&index, text, range.end)})
}

pub(super) fn offered(actions: &[Value]) -> String {
    let titles: Vec<String> = actions
        .iter()
        .map(|a| format!("\"{}\"", actions::title(a)))
        .collect();
    if titles.is_empty() {
        "it offered none".to_string()
    } else {
        format!("it offered {}", titles.join(", "))
    }
}

/// Runs `action` on the server and applies the edits it answers to the files as the server was
/// shown them.
pub(super) fn perform_edits(
    session: &mut Session,
    root: &Root,
    sources: &dyn Sources,
    action: &Value,
) -> Result<EditedFiles, LspFailure> {
    let edits = session.perform(action)?;
    let mut files = EditedFiles::shown(session.shown_files());
    for edit in &edits {
        files
            .apply(root, sources, &session.open_versions(), edit)
            .map_err(|e| invalid_edit(session, e))?;
    }
    Ok(files)
}

/// The text of `path` after the action titled `title`; a failure when it left the file alone.
pub(super) fn edited_text(
    session: &Session,
    files: &EditedFiles,
    path: &str,
    title: &str,
) -> Result<String, LspFailure> {
    files.text(path).map(str::to_string).ok_or_else(|| {
        LspFailure::Failed(format!(
            "{} ran \"{title}\" but did not change {path}",
            session.label()
        ))
    })
}

pub(super) fn invalid_edit(session: &Session, error: impl std::fmt::Display) -> LspFailure {
    LspFailure::Failed(format!(
        "{} sent an edit candor cannot use: {error}",
        session.label()
    ))
}

fn extract(
    session: &mut Session,
    root: &Root,
    sources: &dyn Sources,
    p: &PreparedExtract,
) -> Result<SemanticResult, LspFailure> {
    let ExtractRequest {
        file: path,
        start_line,
        end_line,
        new_name,
    } = &p.request;
    let uri = session.sync(root, &p.file);
    session.wait_ready()?;
    let offered_actions = session.code_actions(
        &uri,
        lsp_range(&p.file.text, &p.range),
        Operation::Extract.kind(),
    )?;
    let action = actions::choose(Operation::Extract, &offered_actions).ok_or_else(|| {
        LspFailure::Failed(format!(
            "{} has no extract-function action for lines {start_line}-{end_line} of {path} ({})",
            session.label(),
            offered(&offered_actions)
        ))
    })?;
    let title = actions::title(action).to_string();
    let mut files = perform_edits(session, root, sources, action)?;
    let after = edited_text(session, &files, path, &title)?;
    let created = actions::new_functions(p.lang, &p.file.text, &after);
    let (default_name, name_range) = match created.as_slice() {
        [one] => one.clone(),
        [] => {
            return Err(LspFailure::Failed(format!(
                "{} ran \"{title}\" but no new function appeared in {path}",
                session.label()
            )));
        }
        many => {
            return Err(LspFailure::Failed(format!(
                "{} ran \"{title}\" and created {} functions ({}); candor expected one",
                session.label(),
                many.len(),
                many.iter()
                    .map(|(n, _)| format!("`{n}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    };
    if &default_name != new_name {
        rename_created(
            session,
            root,
            sources,
            &mut files,
            p,
            &after,
            &default_name,
            name_range,
        )?;
    }
    let final_text = files.text(path).unwrap_or_default();
    actions::check_named(p.lang, &p.file.text, final_text, &default_name, new_name)
        .map_err(LspFailure::Failed)?;
    let changes = files.into_changes().map_err(|e| invalid_edit(session, e))?;
    let details = Details::LspExtract(LspExtractDetails {
        new_function_name: new_name.to_string(),
        extracted_lines: format!("{start_line}-{end_line}"),
        lsp_action: title.to_string(),
    });
    Ok(SemanticResult {
        changes,
        findings: Vec::new(),
        details,
        server: session.info().clone(),
    })
}

/// Gives the function the server created the requested name: through the server's rename when
/// it has one, else by renaming the identifier in the syntax tree, which is sound only because
/// the server's name did not occur in the file before.
#[allow(clippy::too_many_arguments)]
fn rename_created(
    session: &mut Session,
    root: &Root,
    sources: &dyn Sources,
    files: &mut EditedFiles,
    p: &PreparedExtract,
    after: &str,
    default_name: &str,
    name_range: Range<usize>,
) -> Result<(), LspFailure> {
    let path = &p.request.file;
    let new_name = &p.request.new_name;
    if session.supports_rename() {
        let uri = session.sync_text(root, path, after);
        let index = LineIndex::new(after);
        let rename = session.request(
            "textDocument/rename",
            json!({
                "textDocument": {"uri": uri},
                "position": lsp_position(&index, after, name_range.start),
                "newName": new_name,
            }),
        );
        if let Ok(edit) = rename {
            if !edit.is_null() {
                let mut renamed = files.clone();
                if renamed
                    .apply(root, sources, &session.open_versions(), &edit)
                    .is_ok()
                {
                    *files = renamed;
                    return Ok(());
                }
            }
        } else if !session.is_usable() {
            return rename.map(|_| ());
        }
    }
    let fresh = files.paths().all(|touched| {
        sources
            .file(touched)
            .ok()
            .flatten()
            .is_none_or(|f| !actions::contains_word(&f.text, default_name))
    });
    if !fresh {
        return Err(LspFailure::Failed(format!(
            "{} named the new function `{default_name}`, a name already used in the project, and could not rename it to `{new_name}`",
            session.label()
        )));
    }
    let touched: Vec<String> = files.paths().map(str::to_string).collect();
    for touched in touched {
        let Some(lang) = Language::from_path(&touched) else {
            continue;
        };
        if let Some(text) = files.text(&touched) {
            let renamed = actions::rename_identifiers(lang, text, default_name, new_name);
            files.set_text(&touched, renamed);
        }
    }
    Ok(())
}

fn inline(
    session: &mut Session,
    root: &Root,
    sources: &dyn Sources,
    p: &PreparedInline,
) -> Result<SemanticResult, LspFailure> {
    let path = &p.file.path;
    let uri = session.sync(root, &p.file);
    // Callers in other files are edited too: the server must see them as candor reads them.
    if let Ok(mentioning) = sources.files_mentioning(p.lang, &p.function.name) {
        for other in mentioning
            .files
            .iter()
            .filter(|f| f.path != *path)
            .take(MAX_EXTRA_DOCUMENTS)
        {
            session.sync(root, other);
        }
    }
    session.wait_ready()?;
    let at = p.function.name_range.start;
    let offered_actions = session.code_actions(
        &uri,
        lsp_range(&p.file.text, &(at..at)),
        Operation::Inline.kind(),
    )?;
    let action = actions::choose(Operation::Inline, &offered_actions).ok_or_else(|| {
        LspFailure::Failed(format!(
            "{} has no inline-function action for `{}` at line {} of {path} ({})",
            session.label(),
            p.function.name_path,
            p.function.line,
            offered(&offered_actions)
        ))
    })?;
    let title = actions::title(action).to_string();
    let files = perform_edits(session, root, sources, action)?;
    let mut findings = Vec::new();
    if let Some(after) = files.text(path) {
        let outline = symbols::outline(p.lang, &p.lang.parse(after), after);
        if let Some(left) = outline
            .iter()
            .find(|s| s.kind.is_function() && s.name_path == p.function.name_path)
        {
            findings.push(Finding::warning(
                path,
                left.line,
                format!(
                    "{} left the definition of `{}` in place (some uses could not be inlined)",
                    session.label(),
                    p.function.name_path
                ),
            ));
        }
    }
    let changes = files.into_changes().map_err(|e| invalid_edit(session, e))?;
    if changes.is_empty() {
        return Err(LspFailure::Failed(format!(
            "{} ran \"{title}\" but changed nothing",
            session.label()
        )));
    }
    let details = Details::LspInline(LspInlineDetails {
        function_name: p.function.name_path.clone(),
        lsp_action: title.to_string(),
    });
    Ok(SemanticResult {
        changes,
        findings,
        details,
        server: session.info().clone(),
    })
}
