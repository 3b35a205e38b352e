//! The engine's list checked against a running language server's `textDocument/references`:
//! a possible reference the server lists becomes certain, one the server lists and the engine
//! did not find is added as possible, and every disagreement is a finding. The [`Oracle`] is
//! the port the shell implements (it asks a server already running; it never starts one).

use std::ops::Range;

use super::{Certainty, Gathered, Reference, Source, column_of, wording as w};
use crate::edit::SourceFile;
use crate::lang::Language;
use crate::lang::refs::{Doubt, Rewrite, Role, Verdict};
use crate::refactor::{Finding, RefactorError, Sources};

/// What a language server answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerReferences {
    /// Its name and version, for `data.references_from`.
    pub server: String,
    /// (project-relative path, byte range of the name in the file as read), declaration
    /// included; locations outside the project are left out by the shell.
    pub locations: Vec<(String, Range<usize>)>,
}

/// A running language server, asked for references.
pub trait Oracle: Sync {
    /// The references the server lists for the symbol whose name starts at byte `at` of `file`
    /// (the file as candor read it); `None` when no server is running for the language.
    fn references(
        &self,
        lang: Language,
        file: &SourceFile,
        at: usize,
    ) -> Option<Result<ServerReferences, String>>;
}

/// Roles a server lists among a symbol's references (not strings, keyword arguments...).
fn server_lists(role: Role) -> bool {
    matches!(
        role,
        Role::Definition | Role::Call | Role::Use | Role::Import | Role::ReExport
    )
}

pub(super) fn check(
    oracle: &dyn Oracle,
    sources: &dyn Sources,
    gathered: &mut Gathered,
) -> Result<(), RefactorError> {
    let target = gathered.target.clone();
    let Some(def_file) = gathered.files.get(&target.path).cloned() else {
        return Ok(());
    };
    let answer = match oracle.references(target.lang, &def_file, target.name_range.start) {
        None => return Ok(()),
        Some(Err(why)) => {
            gathered.findings.push(Finding::info(
                &target.path,
                line_of(&def_file.text, target.name_range.start),
                w::server_not_asked(&why),
            ));
            return Ok(());
        }
        Some(Ok(answer)) => answer,
    };
    gathered.source = Source::EngineChecked(answer.server.clone());
    let server = answer.server.clone();
    let mut listed: Vec<(String, usize)> = Vec::new();
    for (path, range) in answer.locations {
        listed.push((path.clone(), range.start));
        if let Some((_, _, found)) = gathered
            .found
            .iter_mut()
            .find(|(p, _, f)| *p == path && f.range.start == range.start)
        {
            gathered.confirmed.insert((path.clone(), range.start));
            if let Verdict::Possible(doubt) = &found.verdict {
                gathered.findings.push(Finding::info(
                    &path,
                    found.line,
                    w::server_confirms(&server, &w::doubt(doubt, &target.name)),
                ));
                found.verdict = Verdict::Certain;
            }
            continue;
        }
        let file = match gathered.files.get(&path) {
            Some(file) => Some(file.clone()),
            None => sources.file(&path)?,
        };
        let Some(file) = file else { continue };
        let Some(written) = file.text.get(range.clone()) else {
            continue;
        };
        if written != target.name {
            continue;
        }
        let line = line_of(&file.text, range.start);
        gathered.findings.push(Finding::warning(
            &path,
            line,
            w::server_only(&server, &target.name),
        ));
        gathered.server_only.push(Reference {
            path: path.clone(),
            line,
            column: column_of(&file.text, range.start),
            range,
            role: Role::Use,
            certainty: Certainty::Possible(w::doubt(&Doubt::ServerOnly, &target.name)),
            alias: false,
            rewrite: Rewrite::Name,
            confirmed: true,
        });
        gathered.files.entry(path).or_insert(file);
    }
    for (path, _, found) in &gathered.found {
        let is_listed = listed
            .iter()
            .any(|(p, start)| p == path && *start == found.range.start);
        if !is_listed && found.verdict == Verdict::Certain && server_lists(found.role) {
            gathered.findings.push(Finding::warning(
                path,
                found.line,
                w::server_misses(&server, &target.name),
            ));
        }
    }
    Ok(())
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}
