//! The helper process: `python -I rope_helper.py` with piped stdio, one JSON object per line
//! each way, one request at a time, each with a timeout that ends in a kill. Knows nothing of
//! refactors. The helper's stderr is kept (its tail explains crashes) and never reaches our own
//! stdout or stderr.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value, json};

/// Larger lines are refused rather than allocated (a broken helper).
const MAX_LINE_BYTES: u64 = 512 * 1024 * 1024;

/// How many lines of the helper's stderr are kept for error messages.
const STDERR_LINES: usize = 40;

/// What the helper says when it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Greeting {
    Ready {
        rope: String,
        python: String,
        executable: String,
    },
    /// The interpreter cannot import rope.
    Unavailable { message: String },
}

/// Why a request got no answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProcessError {
    #[error("could not start {program}: {message}")]
    Spawn { program: String, message: String },
    #[error("the rope helper timed out after {} s on {op}", after.as_secs())]
    Timeout { op: String, after: Duration },
    #[error("the rope helper exited during {op}{}", detail.as_ref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Exited { op: String, detail: Option<String> },
    #[error("the rope helper sent something candor cannot read during {op}: {message}")]
    Protocol { op: String, message: String },
}

/// An error the helper answered with: `kind` is `refactoring`, `syntax`, `bad_request` or
/// `internal`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Deserialize)]
pub struct HelperError {
    pub kind: String,
    pub message: String,
    #[serde(default)]
    pub file: Option<String>,
    #[serde(default)]
    pub line: Option<usize>,
}

/// The answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Ok(Value),
    Refused(HelperError),
}

type Line = Result<String, String>;

/// A running helper.
pub struct Helper {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Line>,
    stderr_tail: Arc<Mutex<VecDeque<String>>>,
    /// Set when the helper's stderr reached its end (all of it is in the tail).
    stderr_closed: Arc<AtomicBool>,
    next_id: u64,
    usable: bool,
}

impl std::fmt::Debug for Helper {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Helper")
            .field("pid", &self.child.id())
            .field("usable", &self.usable)
            .finish()
    }
}

impl Helper {
    /// Starts `python -I script` in `cwd` and waits at most `timeout` for its greeting.
    /// Isolated mode (`-I`): no PYTHON* variables, no user site-packages, neither the working
    /// directory nor the script's directory on `sys.path`.
    pub fn spawn(
        python: &Path,
        script: &Path,
        cwd: &Path,
        timeout: Duration,
    ) -> Result<(Helper, Greeting), ProcessError> {
        let program = python.display().to_string();
        let mut child = Command::new(python)
            .arg("-I")
            .arg(script)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| ProcessError::Spawn {
                program: program.clone(),
                message: e.to_string(),
            })?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ProcessError::Spawn {
                program,
                message: "its standard streams could not be opened".to_string(),
            });
        };
        let (tx, lines) = channel();
        spawn_thread("candor-rope-stdout", move || {
            let mut reader = BufReader::new(stdout);
            loop {
                match read_line(&mut reader) {
                    Ok(Some(line)) => {
                        if tx.send(Ok(line)).is_err() {
                            return;
                        }
                    }
                    Ok(None) => return,
                    Err(message) => {
                        let _ = tx.send(Err(message));
                        return;
                    }
                }
            }
        });
        let stderr_tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_closed = Arc::new(AtomicBool::new(false));
        let (tail, closed) = (Arc::clone(&stderr_tail), Arc::clone(&stderr_closed));
        spawn_thread("candor-rope-stderr", move || {
            keep_tail(stderr, &tail);
            closed.store(true, Ordering::SeqCst);
        });
        let mut helper = Helper {
            child,
            stdin,
            lines,
            stderr_tail,
            stderr_closed,
            next_id: 1,
            usable: true,
        };
        let greeting = helper.receive("start-up", timeout)?;
        let greeting = parse_greeting(&greeting).map_err(|message| ProcessError::Protocol {
            op: "start-up".to_string(),
            message,
        })?;
        if matches!(greeting, Greeting::Unavailable { .. }) {
            helper.usable = false;
        }
        Ok((helper, greeting))
    }

    /// Whether the helper can take another request (not killed, not exited).
    pub fn is_usable(&mut self) -> bool {
        self.usable && matches!(self.child.try_wait(), Ok(None))
    }

    /// Sends `{"id", "op", ...fields}` and waits at most `timeout` for its answer. On a timeout
    /// the helper is killed: the next request needs a new one.
    pub fn request(
        &mut self,
        op: &str,
        fields: Map<String, Value>,
        timeout: Duration,
    ) -> Result<Answer, ProcessError> {
        let id = self.next_id;
        self.next_id += 1;
        let mut message = fields;
        message.insert("id".into(), json!(id));
        message.insert("op".into(), json!(op));
        let mut line = Value::Object(message).to_string();
        line.push('\n');
        if self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|()| self.stdin.flush())
            .is_err()
        {
            return Err(self.exited(op));
        }
        let answer = self.receive(op, timeout)?;
        if answer.get("id") != Some(&json!(id)) {
            self.kill();
            return Err(ProcessError::Protocol {
                op: op.to_string(),
                message: format!(
                    "an answer to another request: {}",
                    clip(&answer.to_string())
                ),
            });
        }
        match answer.get("ok") {
            Some(Value::Bool(true)) => Ok(Answer::Ok(
                answer.get("result").cloned().unwrap_or(Value::Null),
            )),
            Some(Value::Bool(false)) => {
                let error = answer
                    .get("error")
                    .cloned()
                    .and_then(|e| serde_json::from_value::<HelperError>(e).ok())
                    .ok_or_else(|| ProcessError::Protocol {
                        op: op.to_string(),
                        message: format!(
                            "an error without a message: {}",
                            clip(&answer.to_string())
                        ),
                    })?;
                Ok(Answer::Refused(error))
            }
            _ => Err(ProcessError::Protocol {
                op: op.to_string(),
                message: format!("an answer without `ok`: {}", clip(&answer.to_string())),
            }),
        }
    }

    /// The next line from the helper as JSON, waiting at most `timeout`.
    fn receive(&mut self, op: &str, timeout: Duration) -> Result<Value, ProcessError> {
        match self.lines.recv_timeout(timeout) {
            Ok(Ok(line)) => serde_json::from_str(&line).map_err(|e| {
                self.kill();
                ProcessError::Protocol {
                    op: op.to_string(),
                    message: format!("{e}: {}", clip(&line)),
                }
            }),
            Ok(Err(message)) => {
                self.kill();
                Err(ProcessError::Protocol {
                    op: op.to_string(),
                    message,
                })
            }
            Err(RecvTimeoutError::Timeout) => {
                self.kill();
                Err(ProcessError::Timeout {
                    op: op.to_string(),
                    after: timeout,
                })
            }
            Err(RecvTimeoutError::Disconnected) => Err(self.exited(op)),
        }
    }

    /// The helper is gone: how it ended and the last thing it wrote to stderr.
    fn exited(&mut self, op: &str) -> ProcessError {
        self.usable = false;
        let mut status = None;
        for _ in 0..50 {
            if status.is_none()
                && let Ok(Some(s)) = self.child.try_wait()
            {
                status = Some(s);
            }
            if status.is_some() && self.stderr_closed.load(Ordering::SeqCst) {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let how = status.map(|s| match s.code() {
            Some(code) => format!("exit status {code}"),
            None => "killed by a signal".to_string(),
        });
        let last = self
            .stderr_tail
            .lock()
            .ok()
            .and_then(|t| t.iter().rev().find(|l| !l.trim().is_empty()).cloned());
        let detail = match (how, last) {
            (Some(how), Some(last)) => Some(format!("{how}: {last}")),
            (Some(how), None) => Some(how),
            (None, last) => last,
        };
        ProcessError::Exited {
            op: op.to_string(),
            detail,
        }
    }

    fn kill(&mut self) {
        self.usable = false;
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Helper {
    fn drop(&mut self) {
        // Closing stdin ends the helper's loop; a kill makes sure of it.
        self.kill();
    }
}

fn parse_greeting(value: &Value) -> Result<Greeting, String> {
    let text = |key: &str| {
        value
            .get(key)
            .and_then(Value::as_str)
            .unwrap_or("unknown")
            .to_string()
    };
    match value.get("event").and_then(Value::as_str) {
        Some("ready") => Ok(Greeting::Ready {
            rope: text("rope"),
            python: text("python"),
            executable: text("executable"),
        }),
        Some("unavailable") => Ok(Greeting::Unavailable {
            message: text("message"),
        }),
        _ => Err(format!(
            "an unexpected greeting: {}",
            clip(&value.to_string())
        )),
    }
}

/// One line without its terminator; `Ok(None)` at the end of the stream.
fn read_line(reader: &mut impl BufRead) -> Result<Option<String>, String> {
    let mut buf = Vec::new();
    let n = reader
        .take(MAX_LINE_BYTES + 1)
        .read_until(b'\n', &mut buf)
        .map_err(|e| e.to_string())?;
    if n == 0 {
        return Ok(None);
    }
    if buf.len() as u64 > MAX_LINE_BYTES {
        return Err(format!("a line over {MAX_LINE_BYTES} bytes"));
    }
    if buf.last() == Some(&b'\n') {
        buf.pop();
    } else {
        return Err("a line cut off by the end of its output".to_string());
    }
    String::from_utf8(buf)
        .map(Some)
        .map_err(|_| "a line that is not UTF-8".to_string())
}

fn keep_tail(stderr: impl Read, tail: &Mutex<VecDeque<String>>) {
    let mut reader = BufReader::new(stderr);
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.by_ref().take(64 * 1024).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                if let Ok(mut tail) = tail.lock() {
                    tail.push_back(String::from_utf8_lossy(&buf).trim_end().to_string());
                    while tail.len() > STDERR_LINES {
                        tail.pop_front();
                    }
                }
            }
        }
    }
}

fn spawn_thread(name: &str, body: impl FnOnce() + Send + 'static) {
    // A thread that cannot be started leaves the channel closed: requests then fail cleanly.
    let _ = std::thread::Builder::new()
        .name(name.to_string())
        .spawn(body);
}

fn clip(text: &str) -> String {
    const MAX: usize = 300;
    if text.len() <= MAX {
        return text.to_string();
    }
    let mut end = MAX;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn lines_are_read_whole_and_a_cut_line_is_an_error() {
        let mut reader = Cursor::new(b"{\"a\": 1}\n{\"b\": \"\xc3\xa9\"}\npartial".to_vec());
        assert_eq!(
            read_line(&mut reader).unwrap().as_deref(),
            Some("{\"a\": 1}")
        );
        assert_eq!(
            read_line(&mut reader).unwrap().as_deref(),
            Some("{\"b\": \"é\"}")
        );
        assert!(read_line(&mut reader).unwrap_err().contains("cut off"));
        assert_eq!(read_line(&mut Cursor::new(Vec::new())).unwrap(), None);
        let mut not_utf8 = Cursor::new(b"\xff\n".to_vec());
        assert!(read_line(&mut not_utf8).unwrap_err().contains("UTF-8"));
    }

    #[test]
    fn greetings() {
        assert_eq!(
            parse_greeting(
                &json!({"event": "ready", "rope": "1.15.2", "python": "3.11.7", "executable": "/p"})
            )
            .unwrap(),
            Greeting::Ready {
                rope: "1.15.2".into(),
                python: "3.11.7".into(),
                executable: "/p".into()
            }
        );
        assert_eq!(
            parse_greeting(&json!({"event": "unavailable", "message": "No module named 'rope'"}))
                .unwrap(),
            Greeting::Unavailable {
                message: "No module named 'rope'".into()
            }
        );
        assert!(parse_greeting(&json!({"hello": 1})).is_err());
    }
}
