//! A JSON-RPC client for one language-server process over stdio: requests with a timeout each,
//! notifications, server-initiated requests answered from the reader thread (so a server that
//! waits for our answer before answering us cannot deadlock), crash detection, and a shutdown
//! that ends in a kill. Knows nothing of refactors. The server's stderr is kept (its tail
//! explains crashes) and never reaches our own stdout or stderr.

use std::collections::{HashMap, VecDeque};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::transport;

/// How long a server that answered `shutdown` gets to exit before it is killed.
const EXIT_GRACE_AFTER_SHUTDOWN: Duration = Duration::from_millis(200);

/// How many lines of the server's stderr are kept for error messages.
const STDERR_TAIL_LINES: usize = 40;

/// How often a waiting request looks whether it was cancelled.
const CANCEL_POLL: Duration = Duration::from_millis(25);

/// How long a cancelled request waits for the server to acknowledge `$/cancelRequest` (with
/// its result or an error) before the server is treated as stuck.
const CANCEL_GRACE: Duration = Duration::from_millis(1500);

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub struct ResponseError {
    pub code: i64,
    pub message: String,
}

impl ResponseError {
    pub fn method_not_found(method: &str) -> ResponseError {
        ResponseError {
            code: -32601,
            message: format!("candor does not handle {method}"),
        }
    }
}

/// What the client does with messages the server starts: requests (answered on the reader
/// thread, so keep them quick and never block on the caller of [`Client::request`]) and
/// notifications.
pub trait Callbacks: Send + Sync + 'static {
    fn on_request(&self, method: &str, params: &Value) -> Result<Value, ResponseError>;
    fn on_notification(&self, method: &str, params: &Value);
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    #[error("could not be started: {0}")]
    Spawn(String),
    #[error("timed out after {} on {method}", seconds(.after))]
    Timeout { method: String, after: Duration },
    #[error("exited during {method}{}{}", .status.as_ref().map(|s| format!(" ({s})")).unwrap_or_default(), .detail.as_ref().map(|d| format!(": {d}")).unwrap_or_default())]
    Exited {
        method: String,
        status: Option<String>,
        detail: Option<String>,
    },
    /// The caller no longer wanted the answer; `$/cancelRequest` was sent. `acknowledged`: the
    /// server answered within a grace period, so it is not stuck on the request.
    #[error("stopped {method}: the request was cancelled")]
    Cancelled { method: String, acknowledged: bool },
    /// The caller stopped waiting (`give_up`); `$/cancelRequest` was sent and the answer, when
    /// it comes, is awaited by [`Client::settle`] before the next request.
    #[error("gave up waiting for {method}")]
    GaveUp { method: String },
    #[error("answered {method} with error {code}: {message}")]
    Rpc {
        method: String,
        code: i64,
        message: String,
    },
}

fn seconds(d: &Duration) -> String {
    if d.as_millis().is_multiple_of(1000) {
        format!("{} s", d.as_secs())
    } else {
        format!("{:.1} s", d.as_secs_f64())
    }
}

type Reply = Result<Value, ResponseError>;

/// State shared by the client and its reader thread.
struct Shared {
    pending: Mutex<HashMap<u64, SyncSender<Reply>>>,
    alive: AtomicBool,
    /// Why the reader stopped, when it was not a clean end of stream.
    broken: Mutex<Option<String>>,
    stderr_tail: Mutex<VecDeque<String>>,
    /// Whether the server's stderr reached its end (every line it wrote is in `stderr_tail`).
    stderr_ended: AtomicBool,
}

impl Shared {
    fn stderr_last_line(&self) -> Option<String> {
        let tail = self.stderr_tail.lock().ok()?;
        tail.iter()
            .rev()
            .map(|l| l.trim())
            .find(|l| !l.is_empty())
            .map(|l| l.chars().take(300).collect())
    }
}

/// A running language server.
pub struct Client {
    child: Mutex<Child>,
    outgoing: Mutex<Option<Sender<Vec<u8>>>>,
    shared: Arc<Shared>,
    next_id: AtomicU64,
    closed: AtomicBool,
    /// Requests given up on ([`ClientError::GaveUp`]) whose answer has not come yet: method and
    /// the channel the answer arrives on.
    abandoned: Mutex<Vec<(String, Receiver<Reply>)>>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("alive", &self.is_alive())
            .finish_non_exhaustive()
    }
}

impl Client {
    /// Starts `program args…` in `cwd`, with `env` added to our environment, piped stdio and a
    /// reader, a writer and a stderr thread. The server gets its own process group, so a Ctrl-C
    /// meant for us does not reach it.
    pub fn spawn(
        program: &str,
        args: &[String],
        cwd: &Path,
        env: &[(String, String)],
        callbacks: Arc<dyn Callbacks>,
    ) -> Result<Client, ClientError> {
        let mut command = Command::new(program);
        command
            .args(args)
            .envs(env.iter().map(|(k, v)| (k, v)))
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        #[cfg(unix)]
        {
            use std::os::unix::process::CommandExt;
            command.process_group(0);
        }
        let mut child = command
            .spawn()
            .map_err(|e| ClientError::Spawn(e.to_string()))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ClientError::Spawn(
                "its standard streams could not be piped".to_string(),
            ));
        };
        let shared = Arc::new(Shared {
            pending: Mutex::new(HashMap::new()),
            alive: AtomicBool::new(true),
            broken: Mutex::new(None),
            stderr_tail: Mutex::new(VecDeque::new()),
            stderr_ended: AtomicBool::new(false),
        });
        let (tx, rx) = mpsc::channel::<Vec<u8>>();
        spawn_thread("candor-lsp-writer", move || write_loop(stdin, rx));
        {
            let shared = Arc::clone(&shared);
            spawn_thread("candor-lsp-stderr", move || stderr_loop(stderr, &shared));
        }
        {
            let shared = Arc::clone(&shared);
            let tx = tx.clone();
            spawn_thread("candor-lsp-reader", move || {
                read_loop(stdout, &shared, &tx, callbacks.as_ref())
            });
        }
        Ok(Client {
            child: Mutex::new(child),
            outgoing: Mutex::new(Some(tx)),
            shared,
            next_id: AtomicU64::new(1),
            closed: AtomicBool::new(false),
            abandoned: Mutex::new(Vec::new()),
        })
    }

    /// Whether the server's output is still open (it has not exited or broken the protocol).
    pub fn is_alive(&self) -> bool {
        self.shared.alive.load(Ordering::SeqCst)
    }

    fn send(&self, message: &Value) {
        let mut frame = Vec::new();
        if transport::write_message(&mut frame, message).is_err() {
            return;
        }
        if let Ok(guard) = self.outgoing.lock()
            && let Some(tx) = guard.as_ref()
        {
            // A failed send means the writer is gone because the pipe broke; the reader
            // reports the server's death to whoever waits.
            let _ = tx.send(frame);
        }
    }

    /// Sends a notification.
    pub fn notify(&self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    /// Sends a request and waits for its answer at most `timeout`. On a timeout the request is
    /// cancelled (`$/cancelRequest`) and forgotten.
    pub fn request(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
    ) -> Result<Value, ClientError> {
        self.request_until(method, params, timeout, &|| false)
    }

    /// [`Client::request`] that also gives up as soon as `stop` says so: then the request is
    /// never sent, or the server gets `$/cancelRequest` and a moment to acknowledge it. A request
    /// is sent once; it is never sent again while the first is in flight.
    pub fn request_until(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        stop: &dyn Fn() -> bool,
    ) -> Result<Value, ClientError> {
        self.request_or_give_up(method, params, timeout, stop, &|| false)
    }

    /// [`Client::request_until`], and when `give_up` says so the caller stops waiting at once:
    /// `$/cancelRequest` is sent and the request is kept as abandoned ([`Client::settle`]), so
    /// the server is neither waited for nor stopped.
    pub fn request_or_give_up(
        &self,
        method: &str,
        params: Value,
        timeout: Duration,
        stop: &dyn Fn() -> bool,
        give_up: &dyn Fn() -> bool,
    ) -> Result<Value, ClientError> {
        if give_up() {
            return Err(ClientError::GaveUp {
                method: method.to_string(),
            });
        }
        if stop() {
            return Err(ClientError::Cancelled {
                method: method.to_string(),
                acknowledged: true,
            });
        }
        let id = self.next_id.fetch_add(1, Ordering::SeqCst);
        let (tx, rx): (SyncSender<Reply>, Receiver<Reply>) = mpsc::sync_channel(1);
        if let Ok(mut pending) = self.shared.pending.lock() {
            pending.insert(id, tx);
        }
        // The reader marks the server dead before it drops the pending senders, so checking
        // after registering cannot miss a death.
        if !self.is_alive() {
            self.forget(id);
            return Err(self.exited(method));
        }
        let mut message = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            message["params"] = params;
        }
        self.send(&message);
        let deadline = Instant::now() + timeout;
        loop {
            let slice = deadline
                .saturating_duration_since(Instant::now())
                .min(CANCEL_POLL);
            match rx.recv_timeout(slice) {
                Ok(Ok(result)) => return Ok(result),
                Ok(Err(error)) => {
                    return Err(ClientError::Rpc {
                        method: method.to_string(),
                        code: error.code,
                        message: error.message,
                    });
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.exited(method)),
                Err(RecvTimeoutError::Timeout) if stop() => {
                    self.notify("$/cancelRequest", json!({"id": id}));
                    // Any answer, even a late result, says the server is free again.
                    let acknowledged = !matches!(
                        rx.recv_timeout(CANCEL_GRACE),
                        Err(RecvTimeoutError::Timeout)
                    );
                    self.forget(id);
                    return Err(ClientError::Cancelled {
                        method: method.to_string(),
                        acknowledged,
                    });
                }
                Err(RecvTimeoutError::Timeout) if give_up() => {
                    self.notify("$/cancelRequest", json!({"id": id}));
                    if let Ok(mut abandoned) = self.abandoned.lock() {
                        abandoned.push((method.to_string(), rx));
                    }
                    return Err(ClientError::GaveUp {
                        method: method.to_string(),
                    });
                }
                Err(RecvTimeoutError::Timeout) if Instant::now() >= deadline => {
                    self.forget(id);
                    self.notify("$/cancelRequest", json!({"id": id}));
                    return Err(ClientError::Timeout {
                        method: method.to_string(),
                        after: timeout,
                    });
                }
                Err(RecvTimeoutError::Timeout) => {}
            }
        }
    }

    /// Waits up to `limit` for the answers of the requests given up on. `Err(method)`: one
    /// still has none (the server is still working on it, or never answers).
    pub fn settle(&self, limit: Duration) -> Result<(), String> {
        let Ok(mut abandoned) = self.abandoned.lock() else {
            return Ok(());
        };
        let deadline = Instant::now() + limit;
        while let Some((method, rx)) = abandoned.first() {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                // Any answer (or a server gone) ends it.
                Ok(_) | Err(RecvTimeoutError::Disconnected) => {
                    abandoned.remove(0);
                }
                Err(RecvTimeoutError::Timeout) => return Err(method.clone()),
            }
        }
        Ok(())
    }

    /// Stops the server now, with no `shutdown` handshake (one that has not answered
    /// `initialize` would not answer it either).
    pub fn kill(&self) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        if let Ok(mut outgoing) = self.outgoing.lock() {
            outgoing.take();
        }
        if let Ok(mut child) = self.child.lock() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn forget(&self, id: u64) {
        if let Ok(mut pending) = self.shared.pending.lock() {
            pending.remove(&id);
        }
    }

    /// The error for a server that went away during `method`, with its exit status and the last
    /// line it wrote to stderr.
    fn exited(&self, method: &str) -> ClientError {
        let status = self
            .wait_for_exit(Duration::from_millis(500))
            .map(|s| match s.code() {
                Some(code) => format!("exit status {code}"),
                None => "killed by a signal".to_string(),
            });
        // The last line it wrote may still be on its way through the stderr thread: once the
        // server is gone, its stderr ends soon (a child of its own may hold it open: not long).
        if status.is_some() {
            let deadline = Instant::now() + Duration::from_millis(500);
            while !self.shared.stderr_ended.load(Ordering::Acquire) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let broken = self.shared.broken.lock().ok().and_then(|b| b.clone());
        ClientError::Exited {
            method: method.to_string(),
            status,
            detail: broken.or_else(|| self.shared.stderr_last_line()),
        }
    }

    fn wait_for_exit(&self, limit: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(mut child) = self.child.lock()
                && let Ok(Some(status)) = child.try_wait()
            {
                return Some(status);
            }
            if Instant::now() >= deadline {
                return None;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The last lines the server wrote to stderr.
    pub fn stderr_tail(&self) -> Vec<String> {
        self.shared
            .stderr_tail
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// `shutdown`, then `exit`, then a kill when the server is still running after `grace`.
    /// Idempotent.
    pub fn shutdown(&self, grace: Duration) {
        if self.closed.swap(true, Ordering::SeqCst) {
            return;
        }
        let mut wait = grace;
        if self.is_alive() && self.request("shutdown", Value::Null, grace).is_ok() {
            self.notify("exit", Value::Null);
            // A server that acknowledged `shutdown` has nothing left to save; rust-analyzer
            // and pylsp still take most of a second to tear down, which every `candor call`
            // would pay.
            wait = wait.min(EXIT_GRACE_AFTER_SHUTDOWN);
        }
        // Closing stdin tells a server that ignored `exit` that we are gone.
        if let Ok(mut outgoing) = self.outgoing.lock() {
            outgoing.take();
        }
        if self.wait_for_exit(wait).is_none()
            && let Ok(mut child) = self.child.lock()
        {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        self.shutdown(Duration::from_secs(2));
    }
}

fn spawn_thread(name: &str, body: impl FnOnce() + Send + 'static) {
    // A thread that cannot be spawned leaves the server unusable; the requests then time out
    // or report the server gone, which is the honest outcome.
    let _ = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(body);
}

fn write_loop(mut stdin: ChildStdin, rx: Receiver<Vec<u8>>) {
    for frame in rx {
        if stdin.write_all(&frame).and_then(|_| stdin.flush()).is_err() {
            return;
        }
    }
}

fn stderr_loop(stderr: std::process::ChildStderr, shared: &Shared) {
    let mut reader = BufReader::new(stderr);
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => {
                shared.stderr_ended.store(true, Ordering::Release);
                return;
            }
            Ok(_) => {
                if let Ok(mut tail) = shared.stderr_tail.lock() {
                    if tail.len() == STDERR_TAIL_LINES {
                        tail.pop_front();
                    }
                    tail.push_back(String::from_utf8_lossy(&line).trim_end().to_string());
                }
            }
        }
    }
}

fn read_loop(
    stdout: std::process::ChildStdout,
    shared: &Shared,
    outgoing: &Sender<Vec<u8>>,
    callbacks: &dyn Callbacks,
) {
    let mut reader = BufReader::new(stdout);
    let broken = loop {
        match transport::read_message(&mut reader) {
            Ok(Some(message)) => dispatch(message, shared, outgoing, callbacks),
            Ok(None) => break None,
            Err(e) => break Some(e.to_string()),
        }
    };
    if let Ok(mut slot) = shared.broken.lock() {
        *slot = broken;
    }
    shared.alive.store(false, Ordering::SeqCst);
    if let Ok(mut pending) = shared.pending.lock() {
        // Dropping the senders wakes every waiter with `Disconnected`.
        pending.clear();
    }
}

fn dispatch(
    message: Value,
    shared: &Shared,
    outgoing: &Sender<Vec<u8>>,
    callbacks: &dyn Callbacks,
) {
    let method = message.get("method").and_then(Value::as_str);
    let id = message.get("id").filter(|id| !id.is_null());
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    match (method, id) {
        (Some(method), Some(id)) => {
            let reply = match callbacks.on_request(method, &params) {
                Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
                Err(e) => {
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": e.code, "message": e.message}})
                }
            };
            let mut frame = Vec::new();
            if transport::write_message(&mut frame, &reply).is_ok() {
                let _ = outgoing.send(frame);
            }
        }
        (Some(method), None) => callbacks.on_notification(method, &params),
        (None, Some(id)) => {
            let Some(id) = id.as_u64() else { return };
            let sender = shared.pending.lock().ok().and_then(|mut p| p.remove(&id));
            if let Some(sender) = sender {
                let reply = match message.get("error") {
                    Some(error) if !error.is_null() => Err(ResponseError {
                        code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
                        message: error
                            .get("message")
                            .and_then(Value::as_str)
                            .unwrap_or("no message")
                            .to_string(),
                    }),
                    _ => Ok(message.get("result").cloned().unwrap_or(Value::Null)),
                };
                let _ = sender.try_send(reply);
            }
        }
        (None, None) => {}
    }
}
