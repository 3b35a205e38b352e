//! Chooses who does a refactor: a language server (semantic) or our tree-sitter heuristic, and
//! says why when `auto` falls back. Produces an [`Outcome`]: the plan plus the facts the honesty
//! surfaces are built from.

pub mod lsp;

use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::honesty::{BackendKind, Tool};
use crate::refactor::{self, Plan, RefactorError, Request, Sources};
use crate::workspace::Root;

/// `semantic_edit_backend`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum BackendChoice {
    /// A language server where it can, the heuristic otherwise (saying why).
    #[default]
    #[serde(rename = "auto")]
    Auto,
    /// A language server or a clear error.
    #[serde(rename = "lsp")]
    Lsp,
    /// Always the tree-sitter heuristic.
    #[serde(rename = "tree-sitter", alias = "tree_sitter", alias = "treesitter")]
    TreeSitter,
}

impl BackendChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            BackendChoice::Auto => "auto",
            BackendChoice::Lsp => "lsp",
            BackendChoice::TreeSitter => "tree-sitter",
        }
    }
}

impl FromStr for BackendChoice {
    type Err = String;

    fn from_str(s: &str) -> Result<BackendChoice, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(BackendChoice::Auto),
            "lsp" => Ok(BackendChoice::Lsp),
            "tree-sitter" | "tree_sitter" | "treesitter" => Ok(BackendChoice::TreeSitter),
            other => Err(format!(
                "`{other}` is not a backend; use `auto`, `lsp` or `tree-sitter`"
            )),
        }
    }
}

/// The language server that produced a result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ServerInfo {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
}

/// A computed refactor and the facts its honesty surfaces come from.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    pub tool: Tool,
    pub plan: Plan,
    pub backend: BackendKind,
    /// Set when a language server did the work.
    pub server: Option<ServerInfo>,
    /// Why `auto` did not use a language server.
    pub fallback_reason: Option<String>,
}

impl Outcome {
    pub fn confidence(&self) -> f64 {
        match self.backend {
            BackendKind::Lsp => self.tool.semantic_confidence(),
            BackendKind::Hybrid => self.tool.heuristic_confidence(),
        }
    }

    pub fn is_heuristic(&self) -> bool {
        self.backend == BackendKind::Hybrid
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum BackendError {
    #[error(transparent)]
    Refactor(#[from] RefactorError),
    /// `lsp` was asked for and the operation has no language-server implementation.
    #[error("{0}")]
    UnsupportedOperation(String),
    /// `lsp` was asked for and the language server failed.
    #[error("{0}")]
    Lsp(String),
}

/// Computes `request` with the chosen backend.
pub fn plan(
    choice: BackendChoice,
    lsp: &lsp::LspPool,
    root: &Root,
    sources: &dyn Sources,
    request: &Request,
    server_override: &lsp::ServerOverride,
) -> Result<Outcome, BackendError> {
    let heuristic = |fallback_reason: Option<String>| -> Result<Outcome, BackendError> {
        Ok(Outcome {
            tool: request.tool(),
            plan: refactor::plan(sources, request)?,
            backend: BackendKind::Hybrid,
            server: None,
            fallback_reason,
        })
    };
    if request.language().is_none() {
        return Err(RefactorError::UnsupportedLanguage(request.file().to_string()).into());
    }
    match choice {
        BackendChoice::TreeSitter => heuristic(None),
        BackendChoice::Lsp => match lsp.plan(root, sources, request, server_override) {
            Ok(semantic) => Ok(semantic.into_outcome(request.tool())),
            Err(lsp::LspFailure::Unsupported(reason)) => {
                Err(BackendError::UnsupportedOperation(format!(
                    "{reason}; use semantic_edit_backend \"auto\" or \"tree-sitter\" for the heuristic"
                )))
            }
            Err(lsp::LspFailure::Refactor(e)) => Err(e.into()),
            Err(failure) => Err(BackendError::Lsp(format!(
                "{}; install or configure the language server, or use semantic_edit_backend \"tree-sitter\"",
                failure.reason()
            ))),
        },
        BackendChoice::Auto => match lsp.plan(root, sources, request, server_override) {
            Ok(semantic) => Ok(semantic.into_outcome(request.tool())),
            Err(lsp::LspFailure::Refactor(e)) => Err(e.into()),
            Err(lsp::LspFailure::Cancelled(reason)) => Err(BackendError::Lsp(reason)),
            Err(failure) => heuristic(Some(failure.reason())),
        },
    }
}
