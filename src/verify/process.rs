//! Runs one checker process to its end, a deadline or a cancellation: in its own process group
//! (killed whole on the way out, grandchildren included), killed with candor if candor dies, its
//! output collected by threads so a chatty checker never blocks on a full pipe.

use std::io::Read;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cancel::Cancel;

/// At most this much of each stream is kept (a huge build's JSON is still far below).
const MAX_OUTPUT: u64 = 256 << 20;

/// A checker program: the config file's command, else the default found on PATH.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Program {
    pub path: std::path::PathBuf,
    pub args: Vec<String>,
}

impl Program {
    /// `configured` (from `[verify]` of the config file) or `default` on PATH; the error says
    /// how to make it available.
    pub fn find(
        configured: Option<&crate::config::ServerCommand>,
        default: &str,
    ) -> Result<Program, String> {
        let (name, args) = match configured {
            Some(c) => (c.command.as_str(), c.args.clone()),
            None => (default, Vec::new()),
        };
        let path = crate::backend::lsp::which(name).ok_or_else(|| {
            format!(
                "{name} not found{}",
                if name.contains('/') { "" } else { " on PATH" }
            )
        })?;
        Ok(Program { path, args })
    }

    /// A command that runs the program with its configured arguments.
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.path);
        command.args(&self.args);
        command
    }
}

/// When to stop waiting: a deadline and the caller's cancellation flag.
#[derive(Clone, Copy)]
pub(crate) struct Budget<'a> {
    deadline: Instant,
    limit: Duration,
    cancel: &'a Cancel,
}

/// Why a run stopped before its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The deadline passed; the whole budget it had.
    Timeout(Duration),
    Cancelled,
}

impl<'a> Budget<'a> {
    pub fn new(deadline: Instant, cancel: &'a Cancel) -> Budget<'a> {
        Budget {
            deadline,
            limit: deadline.saturating_duration_since(Instant::now()),
            cancel,
        }
    }

    /// `Err` once the deadline has passed or the caller cancelled.
    pub fn check(&self) -> Result<(), Stop> {
        if self.cancel.is_cancelled() {
            Err(Stop::Cancelled)
        } else if Instant::now() >= self.deadline {
            Err(Stop::Timeout(self.limit))
        } else {
            Ok(())
        }
    }
}

/// A process that ran to its end.
#[derive(Debug)]
pub(crate) struct Finished {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Finished {
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// The last lines of standard error, for a message.
    pub fn stderr_tail(&self, lines: usize) -> String {
        let text = String::from_utf8_lossy(&self.stderr);
        let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }
}

#[derive(Debug)]
pub(crate) enum RunError {
    /// The program could not be started (the message names it).
    Spawn(String),
    Stopped(Stop),
}

/// Runs `command` with no standard input until it exits, the budget runs out or the caller
/// cancels; in the last two cases its whole process group is killed.
pub(crate) fn run(command: &mut Command, budget: &Budget<'_>) -> Result<Finished, RunError> {
    budget.check().map_err(RunError::Stopped)?;
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    contain(command);
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .spawn()
        .map_err(|e| RunError::Spawn(format!("{program} could not be started: {e}")))?;
    let stdout = collect(child.stdout.take());
    let stderr = collect(child.stderr.take());
    let mut pause = Duration::from_millis(2);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break Ok(status),
            Ok(None) => {}
            Err(e) => break Err(RunError::Spawn(format!("waiting for {program}: {e}"))),
        }
        if let Err(stop) = budget.check() {
            break Err(RunError::Stopped(stop));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    };
    // Whatever the outcome, nothing of the group outlives the run (a grandchild holding the
    // pipes open would keep the readers waiting).
    kill_group(&mut child);
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    Ok(Finished {
        status: status?,
        stdout,
        stderr,
    })
}

/// Its own process group (so the whole tree can be killed, and a Ctrl-C meant for candor does
/// not reach it), and SIGKILL when the thread that started it dies with candor.
fn contain(command: &mut Command) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    #[cfg(target_os = "linux")]
    {
        // SAFETY: the closure runs in the forked child before exec and only makes one
        // async-signal-safe system call (prctl); it allocates nothing and takes no lock.
        unsafe {
            command.pre_exec(|| {
                rustix::process::set_parent_process_death_signal(Some(
                    rustix::process::Signal::KILL,
                ))
                .map_err(std::io::Error::from)
            });
        }
    }
}

fn kill_group(child: &mut Child) {
    if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.wait();
}

fn collect<R: Read + Send + 'static>(stream: Option<R>) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(stream) = stream {
            let mut limited = stream.take(MAX_OUTPUT);
            let _ = limited.read_to_end(&mut bytes);
            // Drain the rest so the writer does not block on a full pipe.
            let _ = std::io::copy(&mut limited.into_inner(), &mut std::io::sink());
        }
        bytes
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn never() -> &'static Cancel {
        static NEVER: std::sync::OnceLock<Cancel> = std::sync::OnceLock::new();
        NEVER.get_or_init(Cancel::never)
    }

    #[test]
    fn output_and_status_come_back() {
        let budget = Budget::new(Instant::now() + Duration::from_secs(30), never());
        let done = run(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            &budget,
        )
        .unwrap();
        assert_eq!(done.status.code(), Some(3));
        assert_eq!(done.stdout_text(), "out\n");
        assert_eq!(done.stderr_tail(5), "err");
    }

    #[test]
    fn a_deadline_kills_the_whole_group() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("late");
        let budget = Budget::new(Instant::now() + Duration::from_millis(300), never());
        let started = Instant::now();
        // The grandchild would write the marker after 2 s if it survived.
        let script = format!("(sleep 2; touch {}) & sleep 30", marker.display());
        let result = run(Command::new("sh").args(["-c", &script]), &budget);
        assert!(
            matches!(result, Err(RunError::Stopped(Stop::Timeout(_)))),
            "{result:?}"
        );
        assert!(started.elapsed() < Duration::from_secs(5));
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "the grandchild was killed too");
    }

    #[test]
    fn cancellation_stops_a_run() {
        let cancel = Cancel::new();
        let budget = Budget::new(Instant::now() + Duration::from_secs(60), &cancel);
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(Duration::from_millis(100));
                cancel.cancel();
            });
            let result = run(Command::new("sleep").arg("30"), &budget);
            assert!(matches!(result, Err(RunError::Stopped(Stop::Cancelled))));
        });
    }

    #[test]
    fn a_missing_program_is_named() {
        let budget = Budget::new(Instant::now() + Duration::from_secs(5), never());
        let Err(RunError::Spawn(message)) = run(&mut Command::new("/nonexistent/ruff"), &budget)
        else {
            panic!("spawned");
        };
        assert!(message.contains("/nonexistent/ruff"), "{message}");
    }
}
