//! The semantic backend: language servers (rust-analyzer, pylsp with pylsp-rope,
//! jedi-language-server) driven over stdio, one per language and workspace, started lazily and
//! kept for the session. [`LspPool::plan`] answers a refactor request or says, in a sentence a
//! user understands, why it cannot ([`LspFailure`]); [`LspPool::status`] tells the TUI how a
//! server is doing without ever waiting for one.

mod actions;
pub mod cargo_guard;
mod client;
mod convert;
mod interrupt;
mod operations;
mod oracle;
mod project_guard;
mod rename;
mod servers;
mod session;
mod status;
mod transport;
mod trust_stamp;
mod variables;
mod watched;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::config::{LspConfig, ServerCommand};
use crate::edit::FileChange;
use crate::honesty::{BackendKind, Tool};
use crate::lang::Language;
use crate::refactor::{self, Finding, Plan, RefactorError, Request, Sources};
use crate::trust::{Trust, Untrusted};
use crate::workspace::Root;

use super::deadline::Deadline;
use super::{Outcome, ServerInfo};

pub use convert::{minimal_edits, path_to_uri, uri_to_path};
pub use interrupt::JobId;
pub use oracle::{ServerOracle, WithOracle};
pub use servers::{pyrefly, workspace_root};
pub use transport::{TransportError, read_message, write_message};

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
    /// Starting it would run a program the project controls, and the project is not trusted;
    /// the sentence says how to trust it.
    #[error("{0}")]
    Untrusted(String),
    /// The request itself is wrong (unknown symbol, bad range): the heuristic would fail too.
    #[error(transparent)]
    Refactor(RefactorError),
    /// The job was cancelled ([`LspPool::cancel_job`]); nobody wants its result.
    #[error("{0}")]
    Cancelled(String),
    /// `auto`'s budget ran out before the server answered: candor stopped waiting (the server
    /// is kept, except one still starting).
    #[error(
        "{server} did not answer within the {} ms that `auto` gives it ({}; {waited}), so the heuristic answered",
        budget.limit.as_millis(),
        budget.key
    )]
    OverBudget {
        server: String,
        budget: super::Budget,
        waited: Waited,
    },
}

/// What candor was waiting for when `auto`'s budget ran out, and what became of the server.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Waited {
    /// Its answer to `initialize`: a server not started by then is stopped.
    #[error("it was stopped during initialize")]
    Start,
    /// Its load of the project, which goes on (a session that keeps the server uses it later).
    #[error("candor stopped waiting while it loaded the project")]
    Loading,
    /// The end of another request that holds it.
    #[error("candor stopped waiting while it served another request")]
    Busy,
    /// Its answer to this request (`$/cancelRequest` is sent when it was asked); the server is
    /// kept.
    #[error("candor stopped waiting for its answer to {0}")]
    Request(String),
    /// The end of an earlier request a budget gave up on.
    #[error("candor stopped waiting while it finished an earlier {0}")]
    Earlier(String),
}

impl LspFailure {
    /// The sentence for `data.fallback_reason`.
    pub fn reason(&self) -> String {
        self.to_string()
    }

    /// The same failure, its sentence preceded by `first` ("rust-analyzer was stopped: …; ").
    pub fn prefixed(self, first: &str) -> LspFailure {
        let join = |text: String| format!("{first}; {text}");
        match self {
            LspFailure::Unavailable(t) => LspFailure::Unavailable(join(t)),
            LspFailure::Unsupported(t) => LspFailure::Unsupported(join(t)),
            LspFailure::Failed(t) => LspFailure::Failed(join(t)),
            LspFailure::Untrusted(t) => LspFailure::Untrusted(join(t)),
            LspFailure::Cancelled(t) => LspFailure::Cancelled(join(t)),
            LspFailure::Refactor(e) => LspFailure::Refactor(e),
            over @ LspFailure::OverBudget { .. } => LspFailure::Failed(join(over.to_string())),
        }
    }
}

/// A result from a language server.
#[derive(Debug, Clone, PartialEq)]
pub struct SemanticResult {
    pub changes: Vec<FileChange>,
    pub findings: Vec<Finding>,
    pub details: refactor::Details,
    pub server: ServerInfo,
}

impl SemanticResult {
    pub fn into_outcome(self, tool: Tool, lang: Language) -> Outcome {
        let mut findings = self.findings;
        findings.extend(refactor::findings::check_syntax(&self.changes));
        refactor::findings::normalize(&mut findings);
        Outcome {
            tool,
            lang,
            plan: Plan {
                changes: self.changes,
                findings,
                details: self.details,
                caveat_notes: Vec::new(),
                ..Plan::default()
            },
            backend: BackendKind::Lsp,
            semantic_backend: Some(self.server.clone()),
            server: Some(self.server),
            fallback_reason: None,
        }
    }
}

/// How a language server is doing, for the TUI's status line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ServerStatus {
    /// No server for the language has been asked for yet.
    NotStarted,
    /// The process is starting and answering `initialize`.
    Starting,
    /// The server is loading the project (rust-analyzer); `percent` when it says.
    Indexing {
        percent: Option<u32>,
        message: Option<String>,
    },
    Ready,
    /// The server could not start or died; the next request starts a new one.
    Failed(String),
}

/// Settings of the language servers (the config file's `[lsp]`) and the project's trust, which
/// decides whether programs the project controls may run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LspSettings {
    pub rust: Option<ServerCommand>,
    pub python: Option<ServerCommand>,
    /// Each request, and the wait for a server to load the project, gives up after this.
    pub request_timeout: Duration,
    pub trust: Trust,
}

/// Seconds a request may take unless the config file says otherwise.
pub const DEFAULT_REQUEST_TIMEOUT_SECS: u64 = 60;

impl Default for LspSettings {
    fn default() -> LspSettings {
        LspSettings {
            rust: None,
            python: None,
            request_timeout: Duration::from_secs(DEFAULT_REQUEST_TIMEOUT_SECS),
            // Nothing is trusted unless the engine says so.
            trust: Trust::Untrusted {
                root: PathBuf::new(),
                why: Untrusted::Never,
            },
        }
    }
}

impl LspSettings {
    pub fn from_config(config: &LspConfig, trust: Trust) -> LspSettings {
        LspSettings {
            trust,
            rust: config.rust.clone(),
            python: config.python.clone(),
            request_timeout: Duration::from_secs(
                config
                    .request_timeout_secs
                    .unwrap_or(DEFAULT_REQUEST_TIMEOUT_SECS)
                    .max(1),
            ),
        }
    }
}

/// Which server process serves a request.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct ServerKey {
    lang: Language,
    workspace: PathBuf,
    command: servers::CommandLine,
}

/// One server of the pool: its session (locked for the length of a request) and its status
/// (locked only for an instant, so the UI can always read it).
#[derive(Debug)]
struct Slot {
    status: Arc<status::StatusCell>,
    /// The running server, and in an untrusted project the stamp of the files that decided
    /// what it may run, taken before it started (see `trust_stamp`).
    session: Mutex<Option<(session::Session, Option<trust_stamp::Stamp>)>>,
}

/// The language servers of a session. Shared by reference across threads: a request holds only
/// its own server's lock, and [`LspPool::status`] never waits for a request.
pub struct LspPool {
    settings: LspSettings,
    slots: Mutex<HashMap<ServerKey, Arc<Slot>>>,
    /// The server each language used last, for [`LspPool::status`].
    latest: Mutex<HashMap<Language, Arc<Slot>>>,
    /// Cancelled jobs and shutdown, seen by every session's requests.
    interrupts: Arc<interrupt::Interrupts>,
}

impl std::fmt::Debug for LspPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let servers = self.slots.lock().map(|s| s.len()).unwrap_or(0);
        f.debug_struct("LspPool")
            .field("settings", &self.settings)
            .field("servers", &servers)
            .finish()
    }
}

impl Default for LspPool {
    fn default() -> LspPool {
        LspPool::with_settings(LspSettings::default())
    }
}

impl LspPool {
    pub fn new() -> LspPool {
        LspPool::default()
    }

    pub fn with_settings(settings: LspSettings) -> LspPool {
        LspPool {
            settings,
            slots: Mutex::new(HashMap::new()),
            latest: Mutex::new(HashMap::new()),
            interrupts: Arc::default(),
        }
    }

    /// Marks the start of a job (one preview): the requests made from now on belong to it, until
    /// the next job begins. One job at a time.
    pub fn begin_job(&self) -> JobId {
        self.interrupts.begin()
    }

    /// Cancels `job`: a request of it in flight gets `$/cancelRequest` and returns
    /// [`LspFailure::Cancelled`] at once, and it makes no more (a server that does not
    /// acknowledge the cancel is stopped and started afresh next time). Other jobs go on.
    pub fn cancel_job(&self, job: JobId) {
        self.interrupts.cancel(job);
    }

    pub fn settings(&self) -> &LspSettings {
        &self.settings
    }

    /// How the server of `lang` used last is doing. Never blocks on a running request.
    pub fn status(&self, lang: Language) -> ServerStatus {
        let slot = self
            .latest
            .lock()
            .ok()
            .and_then(|latest| latest.get(&lang).cloned());
        match slot {
            Some(slot) => slot.status.snapshot(),
            None => ServerStatus::NotStarted,
        }
    }

    /// Starts (or reuses) the server for `file` and waits until it is ready: the TUI calls this
    /// on a worker thread when a file is opened, so the first refactor does not wait for
    /// indexing.
    pub fn start(
        &self,
        root: &Root,
        file: &str,
        server_override: &ServerOverride,
    ) -> Result<ServerInfo, LspFailure> {
        let lang = Language::from_path(file).ok_or_else(|| {
            LspFailure::Refactor(RefactorError::UnsupportedLanguage(file.to_string()))
        })?;
        let slot = self.slot(root, lang, file, server_override)?;
        let mut guard = slot.session.lock().map_err(|_| poisoned())?;
        let session = self.session(&mut guard, &slot, root, lang, file, server_override, None)?;
        session.wait_ready()?;
        Ok(session.info().clone())
    }

    /// Asks the language server of `lang`, the request's language, to do it, with no budget.
    pub fn plan(
        &self,
        root: &Root,
        sources: &dyn Sources,
        request: &Request,
        lang: Language,
        server_override: &ServerOverride,
    ) -> Result<SemanticResult, LspFailure> {
        self.plan_within(root, sources, request, lang, server_override, None)
    }

    /// [`LspPool::plan`] within `budget` (under `auto`), counted from the moment candor's own
    /// checks of the request are done: the wait for a busy server, its start, its load of the
    /// project and its answers all count. When it runs out, [`LspFailure::OverBudget`] at once,
    /// and the server is kept for the next request (one still starting is stopped).
    pub fn plan_within(
        &self,
        root: &Root,
        sources: &dyn Sources,
        request: &Request,
        lang: Language,
        server_override: &ServerOverride,
        budget: Option<super::Budget>,
    ) -> Result<SemanticResult, LspFailure> {
        let file = request.file();
        let tool = request.tool();
        let variable = matches!(
            request,
            Request::ExtractVariable(_) | Request::InlineVariable(_)
        );
        // Python's variable tools only through a server that has them (pyrefly's inline).
        let python_variable_unoffered = variable
            && lang == Language::Python
            && !servers::resolve_command(lang, root.path(), &self.settings, server_override)
                .is_ok_and(|c| c.flavor_guess().offers(tool));
        if matches!(
            request,
            Request::Move(_)
                | Request::ChangeSignature(_)
                | Request::SafeDelete(_)
                | Request::IntroduceParameter(_)
        ) || python_variable_unoffered
        {
            let label =
                servers::resolve_command(lang, root.path(), &self.settings, server_override)
                    .map(|c| c.label())
                    .unwrap_or_else(|_| servers::default_label(lang).to_string());
            return Err(LspFailure::Unsupported(format!(
                "{label} offers no {} refactor",
                hyphenated(tool)
            )));
        }
        // Which server, before the request is checked: without one, the heuristic's own
        // checks apply.
        let slot = self.slot(root, lang, file, server_override)?;
        let prepared = match request {
            Request::Extract(r) => operations::prepare_extract(sources, r)?,
            Request::Inline(r) => operations::prepare_inline(sources, r)?,
            Request::Rename(r) => operations::Prepared::Rename(rename::prepare_rename(sources, r)?),
            Request::ExtractVariable(_) | Request::InlineVariable(_) => {
                variables::prepare(sources, request, lang)?
            }
            Request::Move(_)
            | Request::ChangeSignature(_)
            | Request::SafeDelete(_)
            | Request::IntroduceParameter(_) => {
                return Err(LspFailure::Unsupported(format!(
                    "no language server offers a {} refactor",
                    hyphenated(tool)
                )));
            }
        };
        let deadline = budget.map(|b| Deadline::starting(std::time::Instant::now(), b));
        let mut guard = match deadline {
            None => slot.session.lock().map_err(|_| poisoned())?,
            Some(deadline) => lock_within(&slot.session, deadline).map_err(|waited| {
                let Some(waited) = waited else {
                    return poisoned();
                };
                LspFailure::OverBudget {
                    server: servers::resolve_command(
                        lang,
                        root.path(),
                        &self.settings,
                        server_override,
                    )
                    .map(|c| c.label())
                    .unwrap_or_else(|_| servers::default_label(lang).to_string()),
                    budget: deadline.budget,
                    waited,
                }
            })?,
        };
        let session = self.session(
            &mut guard,
            &slot,
            root,
            lang,
            file,
            server_override,
            deadline,
        )?;
        if !session.flavor().offers(tool) {
            return Err(LspFailure::Unsupported(format!(
                "{} offers no {} refactor",
                session.label(),
                hyphenated(tool)
            )));
        }
        session.set_deadline(deadline);
        let result = operations::run(session, root, sources, &prepared);
        session.set_deadline(None);
        if !session.is_usable() {
            // Timed out or died: the next request starts a fresh server.
            *guard = None;
        }
        result
    }

    /// Runs `f` with the server that serves `file` only if one is already running, ready and
    /// free: `None` when none was started (nothing is started here, so the project's trust
    /// rules are those of the call that started it), `Some(Err(why))` when one exists but
    /// cannot answer now (loading the project, busy with another request, failed).
    pub(crate) fn with_running_session<R>(
        &self,
        root: &Root,
        lang: Language,
        file: &str,
        server_override: &ServerOverride,
        f: impl FnOnce(&mut session::Session) -> R,
    ) -> Option<Result<R, String>> {
        // No server of the language started: nothing to find (and no `PATH` to search for one).
        let any_started = self.slots.lock().ok()?.keys().any(|key| key.lang == lang);
        if !any_started {
            return None;
        }
        let command =
            servers::resolve_command(lang, root.path(), &self.settings, server_override).ok()?;
        let workspace = servers::workspace_root(lang, root, file).ok()?;
        let key = ServerKey {
            lang,
            workspace,
            command,
        };
        let slot = self.slots.lock().ok()?.get(&key).cloned()?;
        let Ok(mut guard) = slot.session.try_lock() else {
            return Some(Err(
                "the language server is busy with another request".to_string()
            ));
        };
        let (session, stamp) = guard.as_mut().filter(|(s, _)| s.is_usable())?;
        // Told without waiting: a reload it starts is "still loading" below, said, not waited for.
        if let Some(change) = checked_and_told(session, stamp.as_ref(), root, false) {
            let why = wording_stopped(&session.label(), &change);
            *guard = None;
            slot.status.set_failed(&why);
            return Some(Err(why));
        }
        match slot.status.snapshot() {
            ServerStatus::Ready => {}
            ServerStatus::Indexing { .. } | ServerStatus::Starting => {
                return Some(Err(format!(
                    "{} is still loading the project",
                    session.label()
                )));
            }
            ServerStatus::Failed(why) => return Some(Err(why)),
            ServerStatus::NotStarted => return None,
        }
        let result = f(session);
        if !session.is_usable() {
            *guard = None;
        }
        Some(Ok(result))
    }

    /// The slot of the server that serves `file`, created on first use.
    fn slot(
        &self,
        root: &Root,
        lang: Language,
        file: &str,
        server_override: &ServerOverride,
    ) -> Result<Arc<Slot>, LspFailure> {
        let command = servers::resolve_command(lang, root.path(), &self.settings, server_override)?;
        let workspace = servers::workspace_root(lang, root, file)?;
        let key = ServerKey {
            lang,
            workspace,
            command,
        };
        let slot = {
            let mut slots = self.slots.lock().map_err(|_| poisoned())?;
            Arc::clone(slots.entry(key).or_insert_with(|| {
                Arc::new(Slot {
                    status: Arc::new(status::StatusCell::default()),
                    session: Mutex::new(None),
                })
            }))
        };
        if let Ok(mut latest) = self.latest.lock() {
            latest.insert(lang, Arc::clone(&slot));
        }
        Ok(slot)
    }

    /// The running session of a slot, started (or restarted after a crash) on demand.
    fn session<'g>(
        &self,
        guard: &'g mut Option<(session::Session, Option<trust_stamp::Stamp>)>,
        slot: &Slot,
        root: &Root,
        lang: Language,
        file: &str,
        server_override: &ServerOverride,
        deadline: Option<Deadline>,
    ) -> Result<&'g mut session::Session, LspFailure> {
        if guard.as_ref().is_some_and(|(s, _)| !s.is_usable()) {
            *guard = None;
        }
        // In an untrusted project, a server is reused only while the files that decided what it
        // may run are as they were when it started; else it is stopped, and the rules applied
        // again below decide whether it starts again.
        let mut stopped = None;
        if let Some((session, stamp)) = guard.as_mut()
            && let Some(change) = checked_and_told(session, stamp.as_ref(), root, true)
        {
            stopped = Some(wording_stopped(&session.label(), &change));
            *guard = None;
        }
        if guard.is_none() {
            let command =
                servers::resolve_command(lang, root.path(), &self.settings, server_override)?;
            let workspace = servers::workspace_root(lang, root, file)?;
            // Taken before the checks, so a change during them is seen by the next request. A
            // trusted project's rust-analyzer is stamped too: it does not reload by itself.
            let stamp = (!self.settings.trust.allows_project_programs() || lang == Language::Rust)
                .then(|| trust_stamp::Stamp::take(lang, root, &workspace));
            let launch =
                project_guard::launch(lang, &command, root, &workspace, &self.settings.trust)
                    .map_err(|refused| match &stopped {
                        Some(stopped) => refused.prefixed(stopped),
                        None => refused,
                    })
                    .inspect_err(|refused| slot.status.set_failed(&refused.reason()))?;
            let session = session::Session::start(
                &command,
                &workspace,
                &launch,
                self.settings.request_timeout,
                Arc::clone(&slot.status),
                Arc::clone(&self.interrupts),
                deadline,
            )?;
            *guard = Some((session, stamp));
        }
        guard.as_mut().map(|(s, _)| s).ok_or_else(|| {
            LspFailure::Failed("the language server could not be started".to_string())
        })
    }

    /// Stops every server now (they also stop when the pool is dropped): requests in flight are
    /// cancelled and waits end, then each server is shut down and the `.ropeproject` folder a
    /// server created is removed when it is empty. The pool serves no request after this.
    pub fn shutdown(&self) {
        self.interrupts.close();
        let slots: Vec<Arc<Slot>> = self
            .slots
            .lock()
            .map(|mut s| s.drain().map(|(_, slot)| slot).collect())
            .unwrap_or_default();
        if let Ok(mut latest) = self.latest.lock() {
            latest.clear();
        }
        for slot in slots {
            if let Ok(mut session) = slot.session.lock() {
                session.take();
            }
        }
    }
}

impl Drop for LspPool {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// The lock of a server's session, waited for until `deadline` (it is held by a request, or by
/// the TUI's start of the server while it loads the project); `Err(Some(Waited::Busy))` when it
/// ends first, `Err(None)` when an earlier request panicked holding it.
fn lock_within<T>(
    mutex: &Mutex<T>,
    deadline: Deadline,
) -> Result<std::sync::MutexGuard<'_, T>, Option<Waited>> {
    loop {
        match mutex.try_lock() {
            Ok(guard) => return Ok(guard),
            Err(std::sync::TryLockError::Poisoned(_)) => return Err(None),
            Err(std::sync::TryLockError::WouldBlock) => {
                if deadline.passed(std::time::Instant::now()) {
                    return Err(Some(Waited::Busy));
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }
}

/// What changed in the files that decided what the server may run (`trust_stamp`), checked
/// before a request; when nothing did, a server that watches no file itself is told what else
/// changed (`Session::catch_up`), and when that made it reload, the stamp is checked again: a
/// file that appeared during the reload may have been read, and the server is stopped all the
/// same (`wait`: the reload is waited for). `None`: the server may serve the request.
fn checked_and_told(
    session: &mut session::Session,
    stamp: Option<&trust_stamp::Stamp>,
    root: &Root,
    wait: bool,
) -> Option<String> {
    let changed = || stamp.and_then(|stamp| stamp.changed(root));
    if let Some(change) = changed() {
        return Some(change);
    }
    if session.catch_up(wait) {
        return changed();
    }
    None
}

/// Why a running server was stopped: "rust-analyzer was stopped: the project's
/// .cargo/config.toml appeared since it started".
fn wording_stopped(label: &str, change: &str) -> String {
    format!(
        "{label} was stopped: {change} since it started, and the rules for an untrusted project were applied again"
    )
}

/// "move-to-file", as in "rust-analyzer offers no move-to-file refactor".
fn hyphenated(tool: Tool) -> String {
    tool.label().replace(' ', "-")
}

fn poisoned() -> LspFailure {
    LspFailure::Failed("an earlier language-server request panicked; restart candor".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_can_be_shared_across_threads() {
        fn shareable<T: Send + Sync>() {}
        shareable::<LspPool>();
        shareable::<crate::api::Engine>();
        let pool = LspPool::new();
        assert_eq!(pool.status(Language::Rust), ServerStatus::NotStarted);
    }

    #[test]
    fn settings_come_from_the_config() {
        let config = LspConfig {
            python: Some(ServerCommand {
                command: "jedi-language-server".to_string(),
                args: Vec::new(),
                source: crate::config::ConfigSource::User,
            }),
            request_timeout_secs: Some(0),
            ..LspConfig::default()
        };
        let settings = LspSettings::from_config(&config, Trust::Trusted);
        assert_eq!(
            settings.request_timeout,
            Duration::from_secs(1),
            "never zero"
        );
        assert_eq!(settings.python.unwrap().command, "jedi-language-server");
        assert_eq!(
            LspSettings::from_config(&LspConfig::default(), Trust::Trusted).request_timeout,
            Duration::from_secs(DEFAULT_REQUEST_TIMEOUT_SECS)
        );
    }

    #[test]
    fn move_and_change_signature_never_start_a_server() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def f():\n    pass\n").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let sources = refactor::MemorySources::new().with("a.py", "def f():\n    pass\n");
        let pool = LspPool::new();
        let request = Request::ChangeSignature(refactor::ChangeSignatureRequest {
            file: "a.py".to_string(),
            function: crate::lang::symbols::SymbolQuery {
                name: "f".to_string(),
                line: None,
                column: None,
            },
            new_parameters: Vec::new(),
        });
        // A command that cannot run proves nothing was started.
        let over = ServerOverride {
            command: Some("/nonexistent/pylsp".to_string()),
            args: Vec::new(),
        };
        let failure = pool
            .plan(&root, &sources, &request, Language::Python, &over)
            .unwrap_err();
        assert_eq!(
            failure,
            LspFailure::Unsupported("pylsp-rope offers no change-signature refactor".to_string())
        );
        assert_eq!(pool.status(Language::Python), ServerStatus::NotStarted);
    }
}
