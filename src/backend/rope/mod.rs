//! The rope backend: Python move to file, change signature and rename done by rope, the
//! refactoring library under pylsp-rope, used directly (its move and change signature are not
//! offered over LSP; its rename is, but only through pylsp's settings, without the references
//! engine's cross-checks). A bundled helper script (`assets/rope_helper.py`, inside the binary) runs under a
//! Python that can import rope, started on first use and kept for the session (the TUI and
//! `candor mcp` reuse it), one JSON line per request, each with a timeout that ends in a kill;
//! the next request starts a new helper. rope works on a private copy of the project's Python
//! files ([`mirror`]) and never writes anything: its answer becomes a [`Plan`] of ordinary file
//! changes whose base hashes are those of the bytes rope read.
//!
//! A refactor is one `op_*` function in the helper and one module here ([`move_to_file`],
//! [`change_signature`], [`rename`]).

mod change_signature;
mod changers;
mod checks;
mod convert;
mod interpreter;
mod mirror;
mod move_to_file;
mod process;
mod rename;
mod request;

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::refactor::{Finding, Plan, RefactorError, Request, Sources};
use crate::trust::Trust;
use crate::workspace::Root;

use super::ServerInfo;

pub use interpreter::ConfiguredPython;

/// The helper script, shipped inside the binary.
pub const HELPER_SCRIPT: &str = include_str!("../../../assets/rope_helper.py");

/// After no interpreter could import rope, the search is not repeated for this long.
const UNAVAILABLE_RETRY: Duration = Duration::from_secs(30);

/// Why the rope path produced nothing.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RopeFailure {
    /// No Python that can import rope (or none candor may run).
    #[error("{0}")]
    Unavailable(String),
    /// rope cannot express this change, or refuses it (its `RefactoringError`).
    #[error("{0}")]
    Unsupported(String),
    /// rope failed: a project file it cannot parse, a crash, a timeout, an answer candor
    /// cannot use.
    #[error("{0}")]
    Failed(String),
    /// `auto`'s budget ran out before rope answered (rope was stopped).
    #[error(
        "rope did not answer within the {} ms that `auto` gives it ({}; it was stopped during {op}), so the heuristic answered",
        budget.limit.as_millis(),
        budget.key
    )]
    OverBudget { budget: super::Budget, op: String },
    /// The request itself is wrong: the heuristic would refuse it too.
    #[error(transparent)]
    Refactor(RefactorError),
}

impl RopeFailure {
    /// The sentence for `data.fallback_reason`.
    pub fn reason(&self) -> String {
        self.to_string()
    }
}

/// A plan computed by rope.
#[derive(Debug, Clone, PartialEq)]
pub struct RopeResult {
    pub plan: Plan,
    /// `{name: "rope", version}`.
    pub info: ServerInfo,
}

/// Settings of the rope backend.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RopeSettings {
    /// `rope.python` of the config file.
    pub python: Option<ConfiguredPython>,
    /// Whether the project may choose programs (its `.venv`, its config's `rope.python`).
    pub trust: Trust,
    /// Each request to the helper gives up after this (the LSP `request_timeout_secs`).
    pub request_timeout: Duration,
}

impl Default for RopeSettings {
    fn default() -> RopeSettings {
        RopeSettings {
            python: None,
            trust: Trust::Untrusted {
                root: std::path::PathBuf::new(),
                why: crate::trust::Untrusted::Never,
            },
            request_timeout: Duration::from_secs(super::lsp::DEFAULT_REQUEST_TIMEOUT_SECS),
        }
    }
}

/// What the heuristic's checks of a request leave for rope: its plan (change signature reuses
/// its rendering of the definition), or the references engine's list (rename).
enum Checked {
    Plan(Plan),
    References(crate::refactor::references::References),
}

/// A running helper with its private copy of the project.
#[derive(Debug)]
struct Session {
    helper: process::Helper,
    mirror: mirror::Mirror,
    info: ServerInfo,
    python: String,
    /// Interpreters passed over (an untrusted project's `.venv`), as sentences.
    passed_over: Vec<String>,
    /// The project's Python files (project-relative), listed again for every request.
    project_files: Vec<String>,
    /// The private directory: the helper script, its working directory, the mirror.
    _dir: tempfile::TempDir,
    /// When the current request's budget ends (under `auto`), and that budget.
    deadline: Option<(Instant, super::Budget)>,
}

impl Session {
    /// The time a helper request may take: `timeout`, or less when the budget ends first
    /// (`Some(budget)` then).
    fn limit(&self, timeout: Duration) -> (Duration, Option<super::Budget>) {
        limit(timeout, self.deadline)
    }
}

/// `timeout`, or what is left of the budget when that is less (with the budget).
fn limit(
    timeout: Duration,
    deadline: Option<(Instant, super::Budget)>,
) -> (Duration, Option<super::Budget>) {
    match deadline {
        Some((end, budget)) => {
            let left = end.saturating_duration_since(Instant::now());
            if left < timeout {
                (left, Some(budget))
            } else {
                (timeout, None)
            }
        }
        None => (timeout, None),
    }
}

#[derive(Debug, Default)]
struct State {
    session: Option<Session>,
    /// The last "no rope" answer and when it was found.
    unavailable: Option<(Instant, String)>,
}

/// The rope backend of a session. Shared by reference across threads; requests take turns.
#[derive(Debug, Default)]
pub struct RopeBackend {
    settings: RopeSettings,
    state: Mutex<State>,
}

impl RopeBackend {
    pub fn new(settings: RopeSettings) -> RopeBackend {
        RopeBackend {
            settings,
            state: Mutex::new(State::default()),
        }
    }

    pub fn settings(&self) -> &RopeSettings {
        &self.settings
    }

    /// Whether rope would serve `request` at all: move to file, change signature and rename in
    /// a Python module.
    pub fn handles(request: &Request, lang: crate::lang::Language) -> bool {
        matches!(
            request,
            Request::Move(_) | Request::ChangeSignature(_) | Request::Rename(_)
        ) && lang == crate::lang::Language::Python
    }

    /// Computes `request` with rope; under `auto`, rope gets `budget` from the moment candor's
    /// own checks of the request are done ([`RopeFailure::OverBudget`] when it runs out).
    pub fn plan(
        &self,
        root: &Root,
        sources: &dyn Sources,
        request: &Request,
        lang: crate::lang::Language,
        budget: Option<super::Budget>,
    ) -> Result<RopeResult, RopeFailure> {
        if !Self::handles(request, lang) {
            return Err(RopeFailure::Unsupported(format!(
                "rope offers no {} refactor for {}",
                request.tool().label(),
                request.file()
            )));
        }
        if request.file().ends_with(".pyi") {
            return Err(RopeFailure::Unsupported(format!(
                "rope does not refactor stub files ({} is a .pyi file)",
                request.file()
            )));
        }
        // The request is checked (and, for change signature, the new definition rendered) the
        // way every backend does it: a request that is wrong in itself is an error, not a
        // reason to try rope.
        let checked = match request {
            Request::Rename(r) => Checked::References(
                rename::checked(sources, r, lang).map_err(RopeFailure::Refactor)?,
            ),
            _ => Checked::Plan(
                crate::refactor::plan_in(sources, request, lang).map_err(RopeFailure::Refactor)?,
            ),
        };
        let mut state = self.state.lock().map_err(|_| {
            RopeFailure::Failed("an earlier rope request panicked; restart candor".to_string())
        })?;
        let deadline = budget.map(|b| (Instant::now() + b.limit, b));
        let session = self.session(&mut state, root, deadline)?;
        session.deadline = deadline;
        session.project_files = python_files(root);
        let result = match (request, &checked) {
            (Request::Move(r), _) => {
                move_to_file::move_to_file(session, sources, r, self.timeout())
            }
            (Request::ChangeSignature(r), Checked::Plan(plan)) => {
                change_signature::change_signature(session, sources, r, plan, self.timeout())
            }
            (Request::Rename(r), Checked::References(found)) => {
                rename::rename(session, sources, r, found, self.timeout())
            }
            _ => unreachable_request(request),
        };
        let usable = session.helper.is_usable();
        let result = result.map(|mut plan| {
            for note in &session.passed_over {
                plan.findings
                    .push(Finding::info(request.file(), 1, note.clone()));
            }
            RopeResult {
                plan,
                info: session.info.clone(),
            }
        });
        if !usable {
            // Timed out or died: the next request starts a fresh helper.
            state.session = None;
        }
        result
    }

    fn timeout(&self) -> Duration {
        self.settings.request_timeout
    }

    /// The running session, started (or restarted after a crash or a hang) on demand.
    fn session<'s>(
        &self,
        state: &'s mut State,
        root: &Root,
        deadline: Option<(Instant, super::Budget)>,
    ) -> Result<&'s mut Session, RopeFailure> {
        if let Some(session) = state.session.as_mut()
            && !session.helper.is_usable()
        {
            state.session = None;
        }
        if state.session.is_none() {
            if let Some((when, reason)) = &state.unavailable
                && when.elapsed() < UNAVAILABLE_RETRY
            {
                return Err(RopeFailure::Unavailable(reason.clone()));
            }
            match self.start(root.path(), deadline) {
                Ok(session) => {
                    state.unavailable = None;
                    state.session = Some(session);
                }
                Err(RopeFailure::Unavailable(reason)) => {
                    state.unavailable = Some((Instant::now(), reason.clone()));
                    return Err(RopeFailure::Unavailable(reason));
                }
                Err(other) => return Err(other),
            }
        }
        state
            .session
            .as_mut()
            .ok_or_else(|| RopeFailure::Failed("the rope helper could not be started".to_string()))
    }

    /// Finds an interpreter that can import rope and starts the helper under it.
    fn start(
        &self,
        root: &Path,
        deadline: Option<(Instant, super::Budget)>,
    ) -> Result<Session, RopeFailure> {
        let search = interpreter::search(root, self.settings.python.as_ref(), &self.settings.trust)
            .map_err(RopeFailure::Unavailable)?;
        let dir = tempfile::Builder::new()
            .prefix("candor-rope-")
            .tempdir()
            .map_err(|e| RopeFailure::Failed(format!("no private directory for rope: {e}")))?;
        let script = dir.path().join("rope_helper.py");
        std::fs::write(&script, HELPER_SCRIPT)
            .map_err(|e| RopeFailure::Failed(format!("cannot write the rope helper: {e}")))?;
        let mut refusals = Vec::new();
        for candidate in &search.candidates {
            let (timeout, capped) = limit(self.timeout(), deadline);
            let spawned = process::Helper::spawn(&candidate.program, &script, dir.path(), timeout);
            // The budget ran out while the helper started: that says nothing about whether rope
            // is installed (nothing is remembered), only that `auto` answers without it.
            if let (Some(budget), Err(process::ProcessError::Timeout { op, .. })) =
                (capped, &spawned)
            {
                return Err(RopeFailure::OverBudget {
                    budget,
                    op: op.clone(),
                });
            }
            match spawned {
                Ok((helper, process::Greeting::Ready { rope, python, .. })) => {
                    let mirror = mirror::Mirror::new(dir.path().join("project"))
                        .map_err(|e| RopeFailure::Failed(e.to_string()))?;
                    return Ok(Session {
                        helper,
                        mirror,
                        info: ServerInfo {
                            name: "rope".to_string(),
                            version: Some(rope),
                        },
                        python: format!("{} (Python {python})", candidate.program.display()),
                        passed_over: search.passed_over,
                        project_files: Vec::new(),
                        _dir: dir,
                        deadline: None,
                    });
                }
                Ok((_, process::Greeting::Unavailable { message })) => refusals.push(format!(
                    "{} cannot import rope ({message})",
                    candidate.describe()
                )),
                Err(e) => refusals.push(format!("{}: {e}", candidate.describe())),
            }
        }
        Err(RopeFailure::Unavailable(unavailable_reason(
            &search, &refusals,
        )))
    }

    /// The interpreter of the running helper, if one runs ("/usr/bin/python3 (Python 3.11.7)").
    pub fn python(&self) -> Option<String> {
        let state = self.state.lock().ok()?;
        state.session.as_ref().map(|s| s.python.clone())
    }

    /// Stops the helper now (it also stops when the backend is dropped).
    pub fn shutdown(&self) {
        if let Ok(mut state) = self.state.lock() {
            state.session = None;
        }
    }
}

fn unreachable_request(request: &Request) -> Result<Plan, RopeFailure> {
    Err(RopeFailure::Unsupported(format!(
        "rope offers no {} refactor",
        request.tool().label()
    )))
}

/// "rope is not installed for any Python candor may use: …; install rope …".
fn unavailable_reason(search: &interpreter::Search, refusals: &[String]) -> String {
    let mut parts: Vec<String> = Vec::new();
    if search.candidates.is_empty() {
        parts.push("no Python interpreter found (python3 or python on PATH)".to_string());
    }
    parts.extend(refusals.iter().cloned());
    parts.extend(search.passed_over.iter().cloned());
    let hint = if search.configured {
        "fix rope.python in the config file, or install rope for that interpreter"
    } else {
        "install rope (pip install rope) for python3, or name an interpreter that has it in rope.python of your config file"
    };
    format!("rope is not available: {}; {hint}", parts.join("; "))
}

/// Every Python file of the project the .gitignore-aware walk lists, project-relative.
fn python_files(root: &Root) -> Vec<String> {
    crate::workspace::walk::source_files(root.path(), &[crate::lang::Language::Python])
        .iter()
        .filter_map(|p| root.relative_of(p))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backend_can_be_shared_across_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<RopeBackend>();
    }

    #[test]
    fn the_reason_names_every_interpreter_tried_and_what_to_do() {
        let search = interpreter::Search {
            candidates: vec![interpreter::Candidate {
                program: "/usr/bin/python3".into(),
                origin: interpreter::Origin::Path,
            }],
            passed_over: vec!["the project's .venv (/p/.venv/bin/python) was not used: …".into()],
            configured: false,
        };
        let reason = unavailable_reason(
            &search,
            &["python3 on PATH (/usr/bin/python3) cannot import rope (ModuleNotFoundError: No module named 'rope')".into()],
        );
        assert!(
            reason.starts_with("rope is not available: python3 on PATH"),
            "{reason}"
        );
        assert!(reason.contains(".venv"), "{reason}");
        assert!(reason.contains("pip install rope"), "{reason}");
    }
}
