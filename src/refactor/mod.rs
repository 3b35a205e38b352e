//! The refactors on the tree-sitter path, pure: source text in (through [`Sources`]), a
//! [`Plan`] of validated file changes and findings out. Nothing here touches the disk or the
//! terminal; the shell passes a `Sources` that reads files, tests pass [`MemorySources`].

pub mod change_signature;
pub mod cross;
mod details;
pub mod extract;
pub mod extract_variable;
pub mod findings;
pub mod guards;
pub mod inline;
pub mod inline_variable;
pub mod introduce_parameter;
#[cfg(test)]
pub(crate) mod kept_facts;
pub mod lasting;
pub mod move_to_file;
pub mod references;
pub mod rename;
pub mod safe_delete;
pub mod sites;
pub mod sites_wording;
mod sources;

use serde::Serialize;

use crate::edit::{EditError, FileChange, SourceFile};
use crate::honesty::{CaveatNote, Tool};
use crate::lang::Language;
use crate::lang::symbols::{LookupError, SymbolQuery};

pub use details::{
    ChangeSignatureDetails, Details, ExtractDetails, ExtractVariableDetails, InlineDetails,
    InlineVariableDetails, IntroduceParameterDetails, LspExtractDetails, LspInlineDetails,
    MoveDetails, MovedPiece, RenameDetails, RopeChangeSignatureDetails, RopeMoveDetails,
    SafeDeleteDetails,
};
pub use findings::{Finding, Severity};
pub use sources::{
    Fact, FullTrees, Job, KnownParse, MemorySources, Mentioning, ParseOnDemand, ParsedFiles,
    SourceError, Sources, WordSites, map_in_parallel, sites_in, sites_of, tree_of,
};

/// `refactor_extract_function`: move lines `start_line..=end_line` into `new_name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractRequest {
    pub file: String,
    /// 1-based, inclusive.
    pub start_line: usize,
    /// 1-based, inclusive.
    pub end_line: usize,
    pub new_name: String,
}

/// `refactor_inline_function`: replace the calls of a function by its body and remove it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineRequest {
    pub file: String,
    pub function: SymbolQuery,
}

/// `refactor_move_to_file`: move a top-level item to `target_file`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveRequest {
    pub file: String,
    pub symbol: SymbolQuery,
    /// Project-relative path of the destination.
    pub target_file: String,
}

/// One parameter of the new list of `refactor_change_signature`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct NewParameter {
    pub name: String,
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub ty: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

/// `refactor_change_signature`: give a function a whole new parameter list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChangeSignatureRequest {
    pub file: String,
    pub function: SymbolQuery,
    pub new_parameters: Vec<NewParameter>,
}

/// `refactor_rename_symbol`: give a symbol and its references a new name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenameRequest {
    pub file: String,
    pub symbol: SymbolQuery,
    pub new_name: String,
    /// Possible references (`path:line:column`, as the warnings list them) to rename too.
    pub include_possible: Vec<String>,
}

/// `refactor_extract_variable`: bind the selected expression to a new local before its
/// statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExtractVariableRequest {
    pub file: String,
    /// 1-based.
    pub start_line: usize,
    /// 1-based character column of the first character.
    pub start_column: usize,
    pub end_line: usize,
    /// 1-based character column just after the last character.
    pub end_column: usize,
    pub new_name: String,
    /// Also replace the identical occurrences whose value cannot have changed.
    pub replace_all: bool,
}

/// `refactor_inline_variable`: replace a local's reads by its initializer and remove it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InlineVariableRequest {
    pub file: String,
    /// 1-based line and character column of any occurrence of the local.
    pub line: usize,
    pub column: usize,
}

/// `refactor_safe_delete`: remove a definition nothing else references.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SafeDeleteRequest {
    pub file: String,
    pub symbol: SymbolQuery,
}

/// `refactor_introduce_parameter`: an expression of a function becomes its new last
/// parameter, and every call passes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IntroduceParameterRequest {
    pub file: String,
    /// 1-based, inclusive.
    pub start_line: usize,
    /// 1-based, in characters.
    pub start_column: usize,
    /// 1-based, inclusive.
    pub end_line: usize,
    /// 1-based, the column just after the last character.
    pub end_column: usize,
    pub new_name: String,
}

/// One refactor request of any of the tools.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Request {
    Extract(ExtractRequest),
    Inline(InlineRequest),
    Move(MoveRequest),
    ChangeSignature(ChangeSignatureRequest),
    Rename(RenameRequest),
    ExtractVariable(ExtractVariableRequest),
    InlineVariable(InlineVariableRequest),
    SafeDelete(SafeDeleteRequest),
    IntroduceParameter(IntroduceParameterRequest),
}

impl Request {
    pub fn tool(&self) -> Tool {
        match self {
            Request::Extract(_) => Tool::ExtractFunction,
            Request::Inline(_) => Tool::InlineFunction,
            Request::Move(_) => Tool::MoveToFile,
            Request::ChangeSignature(_) => Tool::ChangeSignature,
            Request::Rename(_) => Tool::RenameSymbol,
            Request::ExtractVariable(_) => Tool::ExtractVariable,
            Request::InlineVariable(_) => Tool::InlineVariable,
            Request::SafeDelete(_) => Tool::SafeDelete,
            Request::IntroduceParameter(_) => Tool::IntroduceParameter,
        }
    }

    /// The project-relative file the request is about.
    pub fn file(&self) -> &str {
        match self {
            Request::Extract(r) => &r.file,
            Request::Inline(r) => &r.file,
            Request::Move(r) => &r.file,
            Request::ChangeSignature(r) => &r.file,
            Request::Rename(r) => &r.file,
            Request::ExtractVariable(r) => &r.file,
            Request::InlineVariable(r) => &r.file,
            Request::SafeDelete(r) => &r.file,
            Request::IntroduceParameter(r) => &r.file,
        }
    }

    pub fn language(&self) -> Option<Language> {
        Language::from_path(self.file())
    }
}

/// Runs the heuristic refactor for `request`, then parses every changed file again and adds a
/// finding for each syntax error the result introduced. Findings come out sorted.
pub fn plan(sources: &dyn Sources, request: &Request) -> Result<Plan, RefactorError> {
    // The language is decided here, once, from the request's file.
    let lang = request
        .language()
        .ok_or_else(|| RefactorError::UnsupportedLanguage(request.file().to_string()))?;
    plan_in(sources, request, lang)
}

/// [`plan`] in `lang`, the language the caller decided for the request (the engine decides it
/// once per request, from the request's file, and passes it everywhere).
pub fn plan_in(
    sources: &dyn Sources,
    request: &Request,
    lang: Language,
) -> Result<Plan, RefactorError> {
    let mut plan = match request {
        Request::Extract(r) => extract::plan(sources, r, lang),
        Request::Inline(r) => inline::plan(sources, r, lang),
        Request::Move(r) => move_to_file::plan(sources, r, lang),
        Request::ChangeSignature(r) => change_signature::plan(sources, r, lang),
        Request::Rename(r) => rename::plan(sources, r, lang),
        Request::ExtractVariable(r) => extract_variable::plan(sources, r, lang),
        Request::InlineVariable(r) => inline_variable::plan(sources, r, lang),
        Request::SafeDelete(r) => safe_delete::plan(sources, r, lang),
        Request::IntroduceParameter(r) => introduce_parameter::plan(sources, r, lang),
    }?;
    // The trees the shell already has (the file of the request, usually) make the check of
    // the result whole and cheap: only the edits are parsed again.
    let store = sources.parsed();
    let known: Vec<Option<KnownParse>> = plan
        .changes
        .iter()
        .map(|c| {
            let sha = c.sha256_before.as_deref()?;
            store.known(&c.path, sha)
        })
        .collect();
    let syntax = findings::check_syntax_with(lang, &plan.changes, &known, store);
    plan.findings.extend(syntax);
    findings::normalize(&mut plan.findings);
    Ok(plan)
}

/// What a refactor would do: validated changes, findings, and tool-specific fields for `data`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Plan {
    pub changes: Vec<FileChange>,
    pub findings: Vec<Finding>,
    /// Tool-specific fields added to the envelope's `data` (e.g. `new_function_name`).
    pub details: Details,
    /// What the heuristic did about its canonical caveats in this result (`data.caveat_notes`).
    pub caveat_notes: Vec<CaveatNote>,
    /// The places a user may leave out (`data.sites`), each with its edits.
    pub sites: Vec<sites::Site>,
    /// The files where only sites left out by default write, as read.
    pub site_bases: Vec<SourceFile>,
}

impl Plan {
    /// Whether any finding says the result no longer parses.
    pub fn has_syntax_errors(&self) -> bool {
        self.findings.iter().any(Finding::is_syntax_error)
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RefactorError {
    /// The selected lines cannot be refactored as they are; `line` is the 1-based offending line.
    #[error("{message}")]
    InvalidRange { line: usize, message: String },
    #[error("{0}")]
    NotFound(String),
    #[error("{0}")]
    Ambiguous(String),
    #[error("{message}")]
    InvalidArgument {
        param: &'static str,
        message: String,
    },
    /// The operation cannot be done on this code (the message says why and what to do).
    #[error("{0}")]
    Unsupported(String),
    /// A safe delete refused: the symbol is still referenced (`path:line` of each reference,
    /// certain ones first; the message lists them too).
    #[error("{message}")]
    Referenced {
        message: String,
        references: Vec<String>,
    },
    #[error("{0} is not a Rust (.rs) or Python (.py, .pyi) file; candor refactors only those")]
    UnsupportedLanguage(String),
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error("internal error: the refactor produced inconsistent edits ({0}); please report it")]
    Edit(#[from] EditError),
    /// The request was cancelled (`Sources::cancel`); nothing was planned.
    #[error(transparent)]
    Cancelled(#[from] crate::cancel::Cancelled),
}

impl From<LookupError> for RefactorError {
    fn from(error: LookupError) -> RefactorError {
        match error {
            LookupError::NotFound { .. } => RefactorError::NotFound(error.to_string()),
            LookupError::Ambiguous { .. } => RefactorError::Ambiguous(error.to_string()),
        }
    }
}
