//! Extract variable and inline variable through rust-analyzer's code actions ("Extract into
//! variable", "Inline variable"). The request is first planned by candor's own heuristic: a
//! request it refuses is refused here too (the same refusals, whichever backend), and its
//! details describe the result. Then the server's action is carried out, the variable it named
//! is given the requested name, and its edits become ours.

use std::ops::Range;

use crate::edit::SourceFile;
use crate::lang::Language;
use crate::lang::vars;
use crate::refactor::{self, Details, Request, Sources};
use crate::text::LineIndex;
use crate::workspace::Root;

use super::actions::{self, Operation};
use super::operations::{edited_text, invalid_edit, lsp_range, offered, perform_edits, read};
use super::session::Session;
use super::{LspFailure, SemanticResult};

/// A variable request checked by the heuristic, with the range the server is asked about.
#[derive(Debug, Clone)]
pub struct PreparedVariable {
    lang: Language,
    file: SourceFile,
    range: Range<usize>,
    request: Request,
    details: Details,
}

pub fn prepare(
    sources: &dyn Sources,
    request: &Request,
    lang: Language,
) -> Result<super::operations::Prepared, LspFailure> {
    let planned = refactor::plan_in(sources, request, lang).map_err(LspFailure::Refactor)?;
    let file = read(sources, request.file())?;
    let index = LineIndex::new(&file.text);
    let at = |line: usize, column: usize| {
        index
            .offset_of_line_column(&file.text, line, column)
            .unwrap_or(0)
    };
    let range = match request {
        Request::ExtractVariable(r) => {
            if r.replace_all {
                return Err(LspFailure::Unsupported(
                    "rust-analyzer's extract variable replaces the selection only; replace_all is done by candor's heuristic".to_string(),
                ));
            }
            at(r.start_line, r.start_column)..at(r.end_line, r.end_column)
        }
        Request::InlineVariable(r) => {
            let offset = at(r.line, r.column);
            offset..offset
        }
        _ => {
            return Err(LspFailure::Unsupported(format!(
                "{} is not a variable refactor",
                request.tool().label()
            )));
        }
    };
    Ok(super::operations::Prepared::Variable(PreparedVariable {
        lang,
        file,
        range,
        request: request.clone(),
        details: planned.details,
    }))
}

pub fn run(
    session: &mut Session,
    root: &Root,
    sources: &dyn Sources,
    p: &PreparedVariable,
) -> Result<SemanticResult, LspFailure> {
    let path = &p.file.path;
    let operation = match p.request {
        Request::ExtractVariable(_) => Operation::ExtractVariable,
        _ => Operation::InlineVariable,
    };
    let uri = session.sync(root, &p.file);
    session.wait_ready()?;
    let offered_actions =
        session.code_actions(&uri, lsp_range(&p.file.text, &p.range), operation.kind())?;
    let action = actions::choose(operation, &offered_actions).ok_or_else(|| {
        LspFailure::Failed(format!(
            "{} has no {} action there ({})",
            session.label(),
            p.request.tool().label(),
            offered(&offered_actions)
        ))
    })?;
    let title = actions::title(action).to_string();
    let mut files = perform_edits(session, root, sources, action)?;
    let after = edited_text(session, &files, path, &title)?;
    if let Request::ExtractVariable(r) = &p.request {
        let names =
            |text: &str| vars::identifier_names(p.lang, p.lang.parse(text).root_node(), text);
        let new: Vec<String> = names(&after)
            .difference(&names(&p.file.text))
            .cloned()
            .collect();
        match new.as_slice() {
            [chosen] if *chosen != r.new_name => {
                // Only the names (not a method or field of the same spelling, which the server
                // may have named the variable after); they are all the server's, the name being
                // new to the file.
                let tree = p.lang.parse(&after);
                let mut renamed = after.clone();
                let mut found = vars::occurrences(p.lang, tree.root_node(), &after, chosen);
                found.sort_by_key(|(n, _)| std::cmp::Reverse(n.start_byte()));
                for (name, _) in found {
                    renamed.replace_range(name.byte_range(), &r.new_name);
                }
                files.set_text(path, renamed);
            }
            [_] => {}
            _ => {
                return Err(LspFailure::Failed(format!(
                    "{} ran \"{title}\" but candor could not tell which new name is the variable ({} new names)",
                    session.label(),
                    new.len()
                )));
            }
        }
    }
    let changes = files.into_changes().map_err(|e| invalid_edit(session, e))?;
    Ok(SemanticResult {
        changes,
        findings: Vec::new(),
        details: p.details.clone(),
        server: session.info().clone(),
    })
}
