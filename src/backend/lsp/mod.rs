//! The semantic backend: language servers (rust-analyzer, pylsp with pylsp-rope,
//! jedi-language-server) driven over stdio, one per language, started lazily and kept for the
//! session.

use crate::edit::FileChange;
use crate::honesty::{BackendKind, Tool};
use crate::refactor::{self, Finding, Plan, RefactorError, Request, Sources};
use crate::workspace::Root;

use super::{Outcome, ServerInfo};

/// A per-call replacement of the server command line (the seed's `command` / `args`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerOverride {
    pub command: Option<String>,
    pub args: Vec<String>,
}

/// Why the semantic path produced nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum LspFailure {
    /// No server for the language is installed or configured.
    #[error("{0}")]
    Unavailable(String),
    /// The server exists but has no such refactor.
    #[error("{0}")]
    Unsupported(String),
    /// The server failed, timed out, or offered no matching action.
    #[error("{0}")]
    Failed(String),
    /// The request itself is wrong (unknown symbol, bad range): the heuristic would fail too.
    #[error(transparent)]
    Refactor(RefactorError),
}

impl LspFailure {
    /// The sentence for `data.fallback_reason`.
    pub fn reason(&self) -> String {
        self.to_string()
    }
}

/// A result from a language server.
#[derive(Debug, Clone, PartialEq)]
pub struct SemanticResult {
    pub changes: Vec<FileChange>,
    pub findings: Vec<Finding>,
    pub details: serde_json::Map<String, serde_json::Value>,
    pub server: ServerInfo,
}

impl SemanticResult {
    pub fn into_outcome(self, tool: Tool) -> Outcome {
        let mut findings = self.findings;
        findings.extend(refactor::findings::check_syntax(&self.changes));
        refactor::findings::normalize(&mut findings);
        Outcome {
            tool,
            plan: Plan {
                changes: self.changes,
                findings,
                details: self.details,
            },
            backend: BackendKind::Lsp,
            server: Some(self.server),
            fallback_reason: None,
        }
    }
}

/// The language servers of a session.
#[derive(Debug, Default)]
pub struct LspPool {}

impl LspPool {
    pub fn new() -> LspPool {
        LspPool::default()
    }

    /// Asks the language server of the request's language to do it.
    pub fn plan(
        &self,
        _root: &Root,
        _sources: &dyn Sources,
        request: &Request,
        _server_override: &ServerOverride,
    ) -> Result<SemanticResult, LspFailure> {
        match request.tool() {
            Tool::MoveToFile | Tool::ChangeSignature => Err(LspFailure::Unsupported(format!(
                "no supported language server offers a {} refactor",
                request.tool().label()
            ))),
            _ => Err(LspFailure::Unavailable(
                "the language-server backend is not available in this build".to_string(),
            )),
        }
    }
}
