//! Chooses who does a refactor: a semantic backend — a language server, or rope for Python
//! move to file, change signature and rename — or our tree-sitter heuristic, and says why when `auto`
//! falls back. Produces an [`Outcome`]: the plan plus the facts the honesty surfaces are built
//! from.

pub mod deadline;
pub mod lsp;
pub mod rope;

use serde::Serialize;

use crate::honesty::{BackendKind, Tool};
use crate::lang::Language;
use crate::refactor::{self, Plan, RefactorError, Request, Sources};
use crate::workspace::Root;

pub use crate::config::BackendChoice;

/// The language server (or library) that produced a result.
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
    /// The language of the request, decided once by the engine from the request's file.
    pub lang: Language,
    pub plan: Plan,
    pub backend: BackendKind,
    /// Set when a language server did the work.
    pub server: Option<ServerInfo>,
    /// The semantic engine that did the work (the language server, or rope), for
    /// `data.semantic_backend`.
    pub semantic_backend: Option<ServerInfo>,
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
    /// `lsp` was asked for and the language server (or rope) failed.
    #[error("{0}")]
    Lsp(String),
}

/// The semantic backends of a session.
#[derive(Debug, Clone, Copy)]
pub struct Semantic<'a> {
    pub lsp: &'a lsp::LspPool,
    pub rope: &'a rope::RopeBackend,
    /// Under `auto`, how long rope or a language server may work on the request before the
    /// heuristic answers instead (`None`: only the backend's own request timeout).
    pub budget: Option<Budget>,
}

/// How long `auto` lets a semantic backend work on one request (`[auto] budget_ms` for a dry
/// run, `[auto] apply_budget_ms` for an apply).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Budget {
    pub limit: std::time::Duration,
    /// The config key that sets it, for the fallback reason.
    pub key: &'static str,
}

impl Budget {
    /// The budget of a request under `auto`: a dry run's or an apply's.
    pub fn of(config: &crate::config::AutoConfig, dry_run: bool) -> Budget {
        Budget {
            limit: config.budget(dry_run),
            key: if dry_run {
                "[auto] budget_ms"
            } else {
                "[auto] apply_budget_ms"
            },
        }
    }
}

/// Computes `request` in `lang` (the caller decided it from the request's file) with the chosen
/// backend: Python move to file, change signature and rename go to rope, everything else to
/// the language servers.
pub fn plan(
    choice: BackendChoice,
    semantic: Semantic<'_>,
    root: &Root,
    sources: &dyn Sources,
    request: &Request,
    lang: Language,
    server_override: &lsp::ServerOverride,
) -> Result<Outcome, BackendError> {
    // A server already running for the language checks the references engine's list.
    let oracle = lsp::ServerOracle {
        pool: semantic.lsp,
        root,
        sources,
        server_override,
    };
    let checked = lsp::WithOracle {
        inner: sources,
        oracle: &oracle,
    };
    let heuristic = |fallback_reason: Option<String>| -> Result<Outcome, BackendError> {
        Ok(Outcome {
            tool: request.tool(),
            lang,
            plan: refactor::plan_in(&checked, request, lang)?,
            backend: BackendKind::Hybrid,
            server: None,
            semantic_backend: None,
            fallback_reason,
        })
    };
    // A server named for this call (`command`) is asked itself; otherwise rope takes the Python
    // refactors it does.
    if choice != BackendChoice::TreeSitter
        && server_override.command.is_none()
        && rope::RopeBackend::handles(request, lang)
    {
        // Python inline variable: pyrefly first (it keeps the parentheses rope drops).
        let budget = semantic.budget.filter(|_| choice == BackendChoice::Auto);
        let before_rope = match first_server(semantic.lsp, root, sources, request, lang, budget) {
            Some(Ok(semantic)) => return Ok(semantic.into_outcome(request.tool(), lang)),
            Some(Err(lsp::LspFailure::Refactor(e))) => return Err(e.into()),
            Some(Err(lsp::LspFailure::Cancelled(reason))) => return Err(BackendError::Lsp(reason)),
            Some(Err(failure)) => Some(failure.reason()),
            None => None,
        };
        let after = |reason: String| match &before_rope {
            Some(first) => format!("{first}; {reason}"),
            None => reason,
        };
        return match semantic.rope.plan(root, sources, request, lang, budget) {
            Ok(result) => {
                let mut outcome = rope_outcome(request, lang, result);
                outcome.fallback_reason = before_rope.map(|first| format!("{first}; rope did it"));
                Ok(outcome)
            }
            Err(rope::RopeFailure::Refactor(e)) => Err(e.into()),
            Err(failure) if choice == BackendChoice::Auto => {
                heuristic(Some(after(failure.reason())))
            }
            Err(rope::RopeFailure::Unsupported(reason)) => {
                Err(BackendError::UnsupportedOperation(format!(
                    "{}; use semantic_edit_backend \"auto\" or \"tree-sitter\" for the heuristic",
                    after(reason)
                )))
            }
            Err(failure) => Err(BackendError::Lsp(format!(
                "{}; or use semantic_edit_backend \"tree-sitter\"",
                after(failure.reason())
            ))),
        };
    }
    let lsp = semantic.lsp;
    match choice {
        BackendChoice::TreeSitter => heuristic(None),
        BackendChoice::Lsp => match lsp.plan(root, sources, request, lang, server_override) {
            Ok(semantic) => Ok(semantic.into_outcome(request.tool(), lang)),
            Err(lsp::LspFailure::Unsupported(reason)) => {
                Err(BackendError::UnsupportedOperation(format!(
                    "{reason}; use semantic_edit_backend \"auto\" or \"tree-sitter\" for the heuristic"
                )))
            }
            Err(lsp::LspFailure::Refactor(e)) => Err(e.into()),
            Err(lsp::LspFailure::Untrusted(reason)) => Err(BackendError::Lsp(reason)),
            Err(failure) => Err(BackendError::Lsp(format!(
                "{}; install or configure the language server, or use semantic_edit_backend \"tree-sitter\"",
                failure.reason()
            ))),
        },
        BackendChoice::Auto => match lsp.plan_within(
            root,
            sources,
            request,
            lang,
            server_override,
            semantic.budget,
        ) {
            Ok(semantic) => Ok(semantic.into_outcome(request.tool(), lang)),
            Err(lsp::LspFailure::Refactor(e)) => Err(e.into()),
            Err(lsp::LspFailure::Cancelled(reason)) => Err(BackendError::Lsp(reason)),
            Err(failure) => heuristic(Some(failure.reason())),
        },
    }
}

/// The language server asked before rope, when there is one for the request: pyrefly for
/// Python inline variable (measured better than rope there: rope drops needed parentheses).
/// `None` when rope is first.
fn first_server(
    pool: &lsp::LspPool,
    root: &Root,
    sources: &dyn Sources,
    request: &Request,
    lang: Language,
    budget: Option<Budget>,
) -> Option<Result<lsp::SemanticResult, lsp::LspFailure>> {
    if !(matches!(request, Request::InlineVariable(_)) && lang == Language::Python) {
        return None;
    }
    Some(
        lsp::pyrefly(root.path())
            .and_then(|pyrefly| pool.plan_within(root, sources, request, lang, &pyrefly, budget)),
    )
}

/// rope's result with the honesty facts of the semantic path; the result is parsed again, as
/// every plan is.
fn rope_outcome(request: &Request, lang: Language, result: rope::RopeResult) -> Outcome {
    let mut plan = result.plan;
    plan.findings
        .extend(refactor::findings::check_syntax(&plan.changes));
    refactor::findings::normalize(&mut plan.findings);
    Outcome {
        tool: request.tool(),
        lang,
        plan,
        backend: BackendKind::Lsp,
        server: None,
        semantic_backend: Some(result.info),
        fallback_reason: None,
    }
}
