//! One running language server: its [`Session`] (initialized, with the documents candor opened,
//! each request mapped to an [`LspFailure`] that names the server, code actions carried out
//! through resolve or executeCommand), the answers to what the server asks of us
//! (`workspace/applyEdit`, `workspace/configuration`, progress), and its [`StatusCell`], which
//! the TUI reads without ever waiting for a request.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::backend::ServerInfo;
use crate::backend::deadline::{self, Deadline};
use crate::edit::SourceFile;
use crate::lang::Language;
use crate::workspace::Root;

use super::client::{Callbacks, Client, ClientError, ResponseError};
use super::convert::{OpenVersions, path_to_uri};
use super::interrupt::Interrupts;
use super::project_guard::Launch;
use super::servers::{CommandLine, Flavor, Origin};
use super::status::StatusCell;
use super::watched::Watched;
use super::{LspFailure, Waited};

/// What the server tells us on its own, and what it asks of us.
struct SessionState {
    flavor: Mutex<Flavor>,
    /// Sent to rust-analyzer as `cargo.extraEnv` (see `Flavor::settings`).
    /// The server's environment and what its settings carry (`Flavor::settings`).
    launch: Launch,
    folders: Value,
    status: Arc<StatusCell>,
    /// `workspace/applyEdit` requests received since the last [`SessionState::begin_capture`].
    applied: Mutex<Vec<Value>>,
    applied_changed: Condvar,
    /// `window/showMessage` errors and warnings since the last capture.
    messages: Mutex<Vec<String>>,
}

impl SessionState {
    fn begin_capture(&self) {
        if let Ok(mut applied) = self.applied.lock() {
            applied.clear();
        }
        if let Ok(mut messages) = self.messages.lock() {
            messages.clear();
        }
    }

    /// The edits received, waiting up to `grace` for the first one.
    fn take_applied(&self, grace: Duration) -> Vec<Value> {
        let deadline = Instant::now() + grace;
        let Ok(mut applied) = self.applied.lock() else {
            return Vec::new();
        };
        while applied.is_empty() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            applied = match self.applied_changed.wait_timeout(applied, deadline - now) {
                Ok((guard, _)) => guard,
                Err(_) => return Vec::new(),
            };
        }
        std::mem::take(&mut *applied)
    }

    fn last_message(&self) -> Option<String> {
        self.messages.lock().ok().and_then(|m| m.last().cloned())
    }

    fn flavor(&self) -> Flavor {
        self.flavor.lock().map(|f| *f).unwrap_or(Flavor::Other)
    }
}

impl Callbacks for SessionState {
    fn on_request(&self, method: &str, params: &Value) -> Result<Value, ResponseError> {
        match method {
            "workspace/applyEdit" => {
                let edit = params.get("edit").cloned().unwrap_or(Value::Null);
                if let Ok(mut applied) = self.applied.lock() {
                    applied.push(edit);
                }
                self.applied_changed.notify_all();
                // Taken into the preview; candor writes it itself once the user confirms.
                Ok(json!({"applied": true}))
            }
            "workspace/configuration" => {
                let flavor = self.flavor();
                let items = params
                    .get("items")
                    .and_then(Value::as_array)
                    .cloned()
                    .unwrap_or_default();
                Ok(Value::Array(
                    items
                        .iter()
                        .map(|item| {
                            let section = item.get("section").and_then(Value::as_str).unwrap_or("");
                            match flavor.section() {
                                Some(ours) if section == ours => flavor.settings(&self.launch),
                                Some(ours) => section
                                    .strip_prefix(ours)
                                    .and_then(|rest| rest.strip_prefix('.'))
                                    .and_then(|rest| {
                                        rest.split('.')
                                            .try_fold(flavor.settings(&self.launch), |v, key| {
                                                v.get(key).cloned()
                                            })
                                    })
                                    .unwrap_or(Value::Null),
                                None => Value::Null,
                            }
                        })
                        .collect(),
                ))
            }
            "workspace/workspaceFolders" => Ok(self.folders.clone()),
            "window/workDoneProgress/create"
            | "client/registerCapability"
            | "client/unregisterCapability"
            | "window/showMessageRequest"
            | "workspace/semanticTokens/refresh"
            | "workspace/inlayHint/refresh"
            | "workspace/inlineValue/refresh"
            | "workspace/codeLens/refresh"
            | "workspace/diagnostic/refresh" => Ok(Value::Null),
            "window/showDocument" => Ok(json!({"success": false})),
            _ => Err(ResponseError::method_not_found(method)),
        }
    }

    fn on_notification(&self, method: &str, params: &Value) {
        match method {
            "experimental/serverStatus" => {
                let quiescent = params
                    .get("quiescent")
                    .and_then(Value::as_bool)
                    .unwrap_or(true);
                let health = params
                    .get("health")
                    .and_then(Value::as_str)
                    .unwrap_or("ok")
                    .to_string();
                let message = params
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                self.status.update(|s| {
                    s.statuses += 1;
                    s.quiescent = Some(quiescent);
                    s.health = (health != "ok").then_some((health, message));
                });
            }
            "$/progress" => {
                let token = match params.get("token") {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => return,
                };
                let value = params.get("value").unwrap_or(&Value::Null);
                let kind = value.get("kind").and_then(Value::as_str).unwrap_or("");
                let message = value
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let percent = value
                    .get("percentage")
                    .and_then(Value::as_u64)
                    .map(|p| p.min(100) as u32);
                self.status.update(|s| match kind {
                    "begin" => {
                        let title = value
                            .get("title")
                            .and_then(Value::as_str)
                            .unwrap_or("working")
                            .to_string();
                        s.progress.retain(|p| p.0 != token);
                        s.progress.push((token, title, message, percent));
                    }
                    "report" => {
                        if let Some(p) = s.progress.iter_mut().find(|p| p.0 == token) {
                            if message.is_some() {
                                p.2 = message;
                            }
                            if percent.is_some() {
                                p.3 = percent;
                            }
                        }
                    }
                    "end" => s.progress.retain(|p| p.0 != token),
                    _ => {}
                });
            }
            "window/showMessage" => {
                // 1 = error, 2 = warning: what a server says when a command failed.
                let level = params.get("type").and_then(Value::as_i64).unwrap_or(4);
                if level <= 2
                    && let Some(text) = params.get("message").and_then(Value::as_str)
                    && let Ok(mut messages) = self.messages.lock()
                {
                    messages.push(text.chars().take(500).collect());
                }
            }
            _ => {}
        }
    }
}

/// Retries of a request the server cancelled because its state moved under it.
const CONTENT_MODIFIED_RETRIES: usize = 3;

/// One initialized server and the documents it has open.
pub struct Session {
    client: Client,
    state: Arc<SessionState>,
    info: ServerInfo,
    command: CommandLine,
    capabilities: Value,
    timeout: Duration,
    /// Open documents: project path → (uri, version).
    open: BTreeMap<String, (String, i64)>,
    /// The open documents whose text is a file as candor read it (its bytes and sha256): the
    /// base the server's edits of that document were computed on. A document shown with text of
    /// candor's own making (see [`Session::sync_text`]) is not here.
    shown: BTreeMap<String, SourceFile>,
    next_version: i64,
    /// Set when a request timed out or the server died: the pool replaces the session.
    poisoned: bool,
    /// A `.ropeproject` folder pylsp-rope created in the user's project; removed when empty.
    rope_folder: Option<PathBuf>,
    /// The pool's cancel flags: a cancelled job's requests stop.
    interrupts: Arc<Interrupts>,
    /// For a server that watches no file itself (`Launch::client_watching`): the files it is
    /// told about, as last told (see `watched`).
    watched: Option<Watched>,
    /// Under `auto`, when the current request's budget ends (set by the pool for one request).
    deadline: Option<Deadline>,
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("server", &self.info)
            .field("alive", &self.client.is_alive())
            .finish_non_exhaustive()
    }
}

impl Session {
    /// Starts and initializes the server for `workspace`. Failing to start or to answer
    /// `initialize` means the server is unavailable.
    pub fn start(
        command: &CommandLine,
        workspace: &Path,
        launch: &Launch,
        timeout: Duration,
        status: Arc<StatusCell>,
        interrupts: Arc<Interrupts>,
        deadline: Option<Deadline>,
    ) -> Result<Session, LspFailure> {
        status.set_starting();
        let result = Session::initialize(
            command, workspace, launch, timeout, &status, interrupts, deadline,
        );
        if let Err(failure) = &result {
            status.set_failed(&failure.reason());
        }
        result
    }

    fn initialize(
        command: &CommandLine,
        workspace: &Path,
        launch: &Launch,
        timeout: Duration,
        status: &Arc<StatusCell>,
        interrupts: Arc<Interrupts>,
        deadline: Option<Deadline>,
    ) -> Result<Session, LspFailure> {
        let guess = command.flavor_guess();
        let root_uri = path_to_uri(workspace);
        let name = workspace
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "project".to_string());
        let folders = json!([{"uri": root_uri, "name": name}]);
        let rope_folder = workspace.join(".ropeproject");
        let rope_folder_existed = rope_folder.exists();
        // Before the server reads anything: what changes after this, it is told.
        let watched = launch.client_watching.then(|| Watched::take(workspace));
        let state = Arc::new(SessionState {
            flavor: Mutex::new(guess),
            launch: launch.clone(),
            folders: folders.clone(),
            status: Arc::clone(status),
            applied: Mutex::new(Vec::new()),
            applied_changed: Condvar::new(),
            messages: Mutex::new(Vec::new()),
        });
        let client = Client::spawn(
            &command.program,
            &command.args,
            workspace,
            &launch.env,
            Arc::clone(&state) as Arc<dyn Callbacks>,
        )
        .map_err(|e| LspFailure::Unavailable(format!("{} {e}", command.describe())))?;
        let params = json!({
            "processId": std::process::id(),
            "clientInfo": {"name": "candor", "version": env!("CARGO_PKG_VERSION")},
            "rootUri": root_uri,
            "rootPath": workspace.to_string_lossy(),
            "workspaceFolders": folders,
            "initializationOptions": guess.settings(launch),
            "capabilities": client_capabilities(launch.client_watching),
            "trace": "off",
        });
        // Under `auto`, the start counts against the request's budget.
        let (init_timeout, budget) = deadline::wait(deadline, timeout, Instant::now()).split();
        let init = client
            .request("initialize", params, init_timeout)
            .map_err(|e| match (e, budget) {
                (ClientError::Timeout { .. }, Some(budget)) => {
                    // Not ready for any request: stopped now (no `shutdown` it would not answer);
                    // the next request starts another.
                    client.kill();
                    LspFailure::OverBudget {
                        server: command.label(),
                        budget,
                        waited: Waited::Start,
                    }
                }
                (e @ ClientError::Timeout { .. }, None) => {
                    LspFailure::Failed(format!("{} {e}", command.describe()))
                }
                (e, _) => LspFailure::Unavailable(format!("{} {e}", command.describe())),
            })?;
        let capabilities = init.get("capabilities").cloned().unwrap_or(Value::Null);
        let info = ServerInfo {
            name: init
                .pointer("/serverInfo/name")
                .and_then(Value::as_str)
                .map(str::to_string)
                .unwrap_or_else(|| command.file_name().to_string()),
            version: init
                .pointer("/serverInfo/version")
                .and_then(Value::as_str)
                .map(str::to_string),
        };
        let flavor = Flavor::from_name(&info.name).unwrap_or(guess);
        if let Ok(mut f) = state.flavor.lock() {
            *f = flavor;
        }
        client.notify("initialized", json!({}));
        if let Some(section) = flavor.section() {
            client.notify(
                "workspace/didChangeConfiguration",
                json!({"settings": {section: flavor.settings(launch)}}),
            );
        }
        if flavor == Flavor::Pylsp {
            let has_rope = capabilities
                .pointer("/executeCommandProvider/commands")
                .and_then(Value::as_array)
                .is_some_and(|c| {
                    c.iter()
                        .any(|c| c.as_str().is_some_and(|c| c.starts_with("pylsp_rope.")))
                });
            if !has_rope {
                return Err(LspFailure::Unavailable(
                    "pylsp is installed without the pylsp-rope plugin (pip install pylsp-rope)"
                        .to_string(),
                ));
            }
        }
        status.set_running(flavor == Flavor::RustAnalyzer);
        Ok(Session {
            client,
            state,
            info,
            command: command.clone(),
            capabilities,
            timeout,
            open: BTreeMap::new(),
            shown: BTreeMap::new(),
            next_version: 1,
            poisoned: false,
            rope_folder: (flavor == Flavor::Pylsp && !rope_folder_existed).then_some(rope_folder),
            interrupts,
            watched,
            deadline: None,
        })
    }

    /// Sets (or, with `None`, ends) the budget of the request about to be made.
    pub fn set_deadline(&mut self, deadline: Option<Deadline>) {
        self.deadline = deadline;
    }

    /// `auto`'s budget ran out while candor waited for `waited`.
    fn over_budget(&self, budget: crate::backend::Budget, waited: Waited) -> LspFailure {
        LspFailure::OverBudget {
            server: self.label(),
            budget,
            waited,
        }
    }

    /// Waits for the answers to requests an earlier budget gave up on, so this request is not
    /// queued behind them (and a late `workspace/applyEdit` of theirs is not taken for its
    /// own). Within the budget: when it runs out first, [`LspFailure::OverBudget`] and the
    /// server is kept; without one, a server that has not answered within the request timeout
    /// is stuck and is replaced.
    fn settle_earlier(&mut self) -> Result<(), LspFailure> {
        let (limit, budget) = deadline::wait(self.deadline, self.timeout, Instant::now()).split();
        match (self.client.settle(limit), budget) {
            (Ok(()), _) => Ok(()),
            (Err(method), Some(budget)) => Err(self.over_budget(budget, Waited::Earlier(method))),
            (Err(method), None) => {
                self.poisoned = true;
                let why = format!(
                    "{} did not finish an earlier {method} (given up under `auto`'s budget) within {} s",
                    self.who(),
                    limit.as_secs()
                );
                self.state.status.set_failed(&why);
                Err(LspFailure::Failed(why))
            }
        }
    }

    pub fn is_usable(&self) -> bool {
        self.client.is_alive() && !self.poisoned
    }

    pub fn info(&self) -> &ServerInfo {
        &self.info
    }

    pub fn flavor(&self) -> Flavor {
        self.state.flavor()
    }

    /// The name in messages: the engine's label for known servers, else the server's own name.
    pub fn label(&self) -> String {
        self.flavor()
            .label()
            .map(str::to_string)
            .unwrap_or_else(|| self.info.name.clone())
    }

    /// The server's name in messages about its process and protocol.
    fn who(&self) -> String {
        match self.command.origin {
            Origin::Path => self.info.name.clone(),
            _ => self.command.describe(),
        }
    }

    /// Sends a request; a timeout, a dead server, or a server that does not acknowledge a
    /// cancelled request poisons the session (the pool then starts a fresh one, so a stuck
    /// server is stopped rather than left spinning).
    pub fn request(&mut self, method: &str, params: Value) -> Result<Value, LspFailure> {
        self.settle_earlier()?;
        let mut attempts = 0;
        let interrupts = Arc::clone(&self.interrupts);
        let stop = move || interrupts.stop_requested();
        // Under `auto`, candor stops waiting when the budget is spent; the server is kept.
        let deadline = self.deadline;
        let give_up = move || deadline.is_some_and(|d| d.passed(Instant::now()));
        loop {
            match self.client.request_or_give_up(
                method,
                params.clone(),
                self.timeout,
                &stop,
                &give_up,
            ) {
                Ok(value) => return Ok(value),
                Err(ClientError::GaveUp { .. }) => {
                    let budget = self.deadline.map(|d| d.budget);
                    return Err(match budget {
                        Some(budget) => self.over_budget(budget, Waited::Request(method.into())),
                        None => LspFailure::Failed(format!("{} gave up on {method}", self.who())),
                    });
                }
                Err(ClientError::Cancelled { acknowledged, .. }) => {
                    self.poisoned |= !acknowledged;
                    return Err(LspFailure::Cancelled(format!(
                        "the {method} request to {} was cancelled",
                        self.who()
                    )));
                }
                Err(ClientError::Rpc {
                    code: -32801 | -32802,
                    ..
                }) if attempts < CONTENT_MODIFIED_RETRIES => {
                    attempts += 1;
                    std::thread::sleep(Duration::from_millis(100));
                }
                Err(e) => {
                    if matches!(e, ClientError::Timeout { .. } | ClientError::Exited { .. }) {
                        self.poisoned = true;
                        self.state.status.set_failed(&format!("{} {e}", self.who()));
                    }
                    return Err(LspFailure::Failed(format!("{} {e}", self.who())));
                }
            }
        }
    }

    /// Sends a request that may give up after `timeout` (shorter than the session's): a timeout
    /// cancels the request (`$/cancelRequest`) but leaves the server running, since nothing
    /// depended on the answer. A dead server still poisons the session.
    pub fn request_briefly(
        &mut self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, LspFailure> {
        if let Err(earlier) = self.client.settle(timeout) {
            return Err(LspFailure::Failed(format!(
                "{} is still working on an earlier {earlier}",
                self.who()
            )));
        }
        let interrupts = Arc::clone(&self.interrupts);
        let stop = move || interrupts.stop_requested();
        match self.client.request_until(method, params, timeout, &stop) {
            Ok(value) => Ok(value),
            Err(ClientError::Cancelled { acknowledged, .. }) => {
                self.poisoned |= !acknowledged;
                Err(LspFailure::Cancelled(format!(
                    "the {method} request to {} was cancelled",
                    self.who()
                )))
            }
            Err(e) => {
                self.poisoned |= matches!(e, ClientError::Exited { .. });
                Err(LspFailure::Failed(format!("{} {e}", self.who())))
            }
        }
    }

    /// Tells a server that watches no file itself what changed since it was last told
    /// (`workspace/didChangeWatchedFiles`); called once the trust stamp was checked. When the
    /// changes make it reload the workspace, waits for the reload to begin and, with `wait`, to
    /// end. Returns whether it reloaded and was waited for (the caller checks the stamp again:
    /// what appeared meanwhile may have been read).
    pub fn catch_up(&mut self, wait: bool) -> bool {
        let Some(watched) = self.watched.as_mut() else {
            return false;
        };
        let changes = watched.changes();
        if changes.is_empty() {
            return false;
        }
        let seen = self.state.status.statuses();
        let events: Vec<Value> = changes
            .iter()
            .map(|(path, change)| json!({"uri": path_to_uri(path), "type": *change as u8}))
            .collect();
        self.client.notify(
            "workspace/didChangeWatchedFiles",
            json!({"changes": events}),
        );
        if !super::watched::reloads(&changes) || self.flavor() != Flavor::RustAnalyzer {
            return false;
        }
        // It says it is busy within milliseconds of reading the change; a change that turns out
        // to be none (the same bytes) starts nothing.
        if !wait {
            // Long enough for the status to say it is loading: the caller does not wait.
            self.state
                .status
                .wait_busy(seen, Duration::from_millis(500));
            return false;
        }
        // Outside the budget: the stamp must be checked again after this reload, so the
        // request does not go on before it ends.
        self.state.status.wait_busy(seen, Duration::from_secs(2))
            && self.wait_ready_within(None).is_ok()
    }

    /// Waits until the server has loaded the project (rust-analyzer's quiescent status); under
    /// `auto`, within the request's budget (the server goes on loading when it runs out).
    pub fn wait_ready(&mut self) -> Result<(), LspFailure> {
        self.wait_ready_within(self.deadline)
    }

    fn wait_ready_within(&mut self, deadline: Option<Deadline>) -> Result<(), LspFailure> {
        if self.flavor() != Flavor::RustAnalyzer {
            return Ok(());
        }
        let (limit, budget) = deadline::wait(deadline, self.timeout, Instant::now()).split();
        let client = &self.client;
        let interrupts = &self.interrupts;
        match self
            .state
            .status
            .wait_quiescent(limit, || client.is_alive() && !interrupts.closing())
        {
            Ok(None) => Ok(()),
            Ok(Some(message)) => Err(LspFailure::Failed(format!(
                "rust-analyzer could not load the project: {}",
                message.lines().next().unwrap_or("").trim()
            ))),
            Err(()) if !self.client.is_alive() => {
                self.poisoned = true;
                let detail = self
                    .client
                    .stderr_tail()
                    .into_iter()
                    .rev()
                    .find(|l| !l.trim().is_empty());
                Err(LspFailure::Failed(format!(
                    "{} exited while loading the project{}",
                    self.who(),
                    detail.map(|d| format!(": {d}")).unwrap_or_default()
                )))
            }
            Err(()) => match budget {
                Some(budget) => Err(self.over_budget(budget, Waited::Loading)),
                None => Err(LspFailure::Failed(format!(
                    "{} was still loading the project after {} s; raise lsp.request_timeout_secs in the config file",
                    self.who(),
                    self.timeout.as_secs()
                ))),
            },
        }
    }

    /// Makes the server see `file` as read by candor (opens it, or sends the new text). Its
    /// edits of that document are then applied to exactly this read, never to a later one.
    pub fn sync(&mut self, root: &Root, file: &SourceFile) -> String {
        let uri = self.send_text(root, &file.path, &file.text);
        self.shown.insert(file.path.clone(), file.clone());
        uri
    }

    /// Makes the server see `text` as the content of `path`; returns the document's URI.
    pub fn sync_text(&mut self, root: &Root, path: &str, text: &str) -> String {
        self.shown.remove(path);
        self.send_text(root, path, text)
    }

    /// The files the server was shown as candor read them, by project path: the bases its
    /// edits must be applied to (see [`EditedFiles::shown`](super::convert::EditedFiles::shown)).
    pub fn shown_files(&self) -> &BTreeMap<String, SourceFile> {
        &self.shown
    }

    fn send_text(&mut self, root: &Root, path: &str, text: &str) -> String {
        let version = self.next_version;
        self.next_version += 1;
        match self.open.get_mut(path) {
            Some((uri, v)) => {
                *v = version;
                let uri = uri.clone();
                self.client.notify(
                    "textDocument/didChange",
                    json!({"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]}),
                );
                uri
            }
            None => {
                let uri = path_to_uri(&root.path().join(path));
                let language = match Language::from_path(path) {
                    Some(Language::Rust) => "rust",
                    Some(Language::Python) => "python",
                    None => "plaintext",
                };
                self.client.notify(
                    "textDocument/didOpen",
                    json!({"textDocument": {"uri": uri, "languageId": language, "version": version, "text": text}}),
                );
                self.open.insert(path.to_string(), (uri.clone(), version));
                uri
            }
        }
    }

    /// Closes every open document: the server goes back to the files on disk.
    pub fn close_all(&mut self) {
        self.shown.clear();
        for (_, (uri, _)) in std::mem::take(&mut self.open) {
            self.client.notify(
                "textDocument/didClose",
                json!({"textDocument": {"uri": uri}}),
            );
        }
    }

    /// The versions of the open documents, for checking the server's edits.
    pub fn open_versions(&self) -> OpenVersions {
        self.open
            .iter()
            .map(|(path, (_, version))| (path.clone(), *version))
            .collect::<HashMap<_, _>>()
    }

    pub fn supports_rename(&self) -> bool {
        match self.capabilities.get("renameProvider") {
            Some(Value::Bool(b)) => *b,
            Some(Value::Object(_)) => true,
            _ => false,
        }
    }

    /// Whether the server answers `textDocument/prepareRename`.
    pub fn supports_prepare_rename(&self) -> bool {
        self.capabilities
            .pointer("/renameProvider/prepareProvider")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    fn resolves_code_actions(&self) -> bool {
        self.capabilities
            .pointer("/codeActionProvider/resolveProvider")
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    fn has_command(&self, command: &str) -> bool {
        self.capabilities
            .pointer("/executeCommandProvider/commands")
            .and_then(Value::as_array)
            .is_some_and(|c| c.iter().any(|c| c.as_str() == Some(command)))
    }

    /// The code actions of kind `kind` for `range` (an LSP range).
    pub fn code_actions(
        &mut self,
        uri: &str,
        range: Value,
        kind: &str,
    ) -> Result<Vec<Value>, LspFailure> {
        let result = self.request(
            "textDocument/codeAction",
            json!({
                "textDocument": {"uri": uri},
                "range": range,
                "context": {"diagnostics": [], "only": [kind], "triggerKind": 1},
            }),
        )?;
        Ok(match result {
            Value::Array(items) => items,
            _ => Vec::new(),
        })
    }

    /// Carries out a code action and returns the workspace edits it produced: its own edit
    /// (after `codeAction/resolve` when the server defers it) or those the server sent with
    /// `workspace/applyEdit` while running its command.
    pub fn perform(&mut self, action: &Value) -> Result<Vec<Value>, LspFailure> {
        let title = super::actions::title(action).to_string();
        // A bare Command: {title, command: "name", arguments}.
        if action.get("command").is_some_and(Value::is_string) {
            return self.execute(action, &title);
        }
        let mut action = action.clone();
        if action.get("edit").is_none() && action.get("command").is_none() {
            if !self.resolves_code_actions() {
                return Err(LspFailure::Failed(format!(
                    "{} offered \"{title}\" without an edit and cannot resolve it",
                    self.label()
                )));
            }
            action = self.request("codeAction/resolve", action)?;
        }
        let server_command = action
            .get("command")
            .filter(|c| {
                c.get("command")
                    .and_then(Value::as_str)
                    .is_some_and(|name| self.has_command(name))
            })
            .cloned();
        match (action.get("edit").filter(|e| !e.is_null()), server_command) {
            (Some(_), Some(_)) => Err(LspFailure::Failed(format!(
                "{} pairs \"{title}\" with a follow-up command whose result candor cannot preview",
                self.label()
            ))),
            (Some(edit), None) => Ok(vec![edit.clone()]),
            (None, Some(command)) => self.execute(&command, &title),
            (None, None) => Err(LspFailure::Failed(format!(
                "{} returned no edit for \"{title}\"",
                self.label()
            ))),
        }
    }

    fn execute(&mut self, command: &Value, title: &str) -> Result<Vec<Value>, LspFailure> {
        self.state.begin_capture();
        let mut params = json!({"command": command.get("command").cloned().unwrap_or(Value::Null)});
        if let Some(arguments) = command.get("arguments") {
            params["arguments"] = arguments.clone();
        }
        let result = self.request("workspace/executeCommand", params)?;
        // Servers send applyEdit before they answer; the grace covers one that does not.
        let mut edits = self.state.take_applied(Duration::from_millis(500));
        if edits.is_empty()
            && (result.get("changes").is_some() || result.get("documentChanges").is_some())
        {
            edits.push(result);
        }
        if edits.is_empty() {
            return Err(LspFailure::Failed(match self.state.last_message() {
                Some(message) => format!("{} could not run \"{title}\": {message}", self.label()),
                None => format!("{} ran \"{title}\" but sent no edit", self.label()),
            }));
        }
        Ok(edits)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.close_all();
        self.client.shutdown(Duration::from_secs(2));
        if let Some(folder) = &self.rope_folder {
            // Only an empty folder is removed: anything in it is not ours to delete.
            let _ = std::fs::remove_dir(folder);
        }
    }
}

/// What candor can do as a client; `watching`: it tells the server which files changed
/// (`workspace/didChangeWatchedFiles`, whose watchers the server registers).
fn client_capabilities(watching: bool) -> Value {
    let mut capabilities = json!({
        "general": {"positionEncodings": ["utf-16"]},
        "workspace": {
            "applyEdit": true,
            "workspaceEdit": {
                "documentChanges": true,
                "resourceOperations": ["create"],
                "failureHandling": "abort",
                "normalizesLineEndings": false,
            },
            "configuration": true,
            "workspaceFolders": true,
            "executeCommand": {"dynamicRegistration": false},
            "didChangeConfiguration": {"dynamicRegistration": false},
        },
        "textDocument": {
            "synchronization": {"dynamicRegistration": false, "didSave": false},
            "codeAction": {
                "dynamicRegistration": false,
                "dataSupport": true,
                "isPreferredSupport": true,
                "resolveSupport": {"properties": ["edit", "command"]},
                "codeActionLiteralSupport": {
                    "codeActionKind": {
                        "valueSet": ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite", "source"]
                    }
                },
            },
            "rename": {"dynamicRegistration": false, "prepareSupport": false},
        },
        "window": {"workDoneProgress": true, "showMessage": {}},
        "experimental": {"serverStatusNotification": true},
    });
    if watching {
        // rust-analyzer honours `files.watcher = "client"` only with dynamic registration.
        capabilities["workspace"]["didChangeWatchedFiles"] =
            json!({"dynamicRegistration": true, "relativePatternSupport": false});
    }
    capabilities
}

#[cfg(test)]
mod tests {
    use super::super::ServerStatus;
    use super::*;

    #[test]
    fn status_reports_indexing_progress() {
        let cell = Arc::new(StatusCell::default());
        assert_eq!(cell.snapshot(), ServerStatus::NotStarted);
        cell.set_starting();
        assert_eq!(cell.snapshot(), ServerStatus::Starting);
        cell.set_running(true);
        let state = SessionState {
            flavor: Mutex::new(Flavor::RustAnalyzer),
            launch: Launch::default(),
            folders: Value::Null,
            status: Arc::clone(&cell),
            applied: Mutex::new(Vec::new()),
            applied_changed: Condvar::new(),
            messages: Mutex::new(Vec::new()),
        };
        state.on_notification("$/progress", &json!({"token": "t", "value": {"kind": "begin", "title": "Indexing", "percentage": 0}}));
        state.on_notification(
            "$/progress",
            &json!({"token": "t", "value": {"kind": "report", "message": "3/7", "percentage": 42}}),
        );
        assert_eq!(
            cell.snapshot(),
            ServerStatus::Indexing {
                percent: Some(42),
                message: Some("Indexing: 3/7".to_string())
            }
        );
        assert!(
            cell.wait_quiescent(Duration::from_millis(50), || true)
                .is_err()
        );
        state.on_notification(
            "experimental/serverStatus",
            &json!({"health": "ok", "quiescent": true}),
        );
        assert_eq!(cell.snapshot(), ServerStatus::Ready);
        assert_eq!(
            cell.wait_quiescent(Duration::from_millis(50), || true),
            Ok(None)
        );
        let config = state.on_request("workspace/configuration", &json!({"items": [{"section": "rust-analyzer"}, {"section": "rust-analyzer.checkOnSave"}, {"section": "x"}]})).unwrap();
        assert_eq!(config[0]["checkOnSave"], false);
        assert_eq!(config[1], false);
        assert_eq!(config[2], Value::Null);
    }
}
