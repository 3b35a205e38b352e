//! Runs one checker process to its end, a deadline or a cancellation: in its own process group
//! (killed whole on the way out, grandchildren included), under an address-space and CPU-time
//! limit (`setrlimit` in the child), killed with candor if candor dies — the direct child by
//! `PR_SET_PDEATHSIG`, its whole group by a small watchdog process that outlives a `kill -9` of
//! candor — its output collected by threads so a chatty checker never blocks on a full pipe.
//! Programs are found on PATH by one function, [`find_program`] (only absolute entries outside
//! the project and candor's cache, see `programs`), and run with that same PATH.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cancel::Cancel;

/// At most this much of each stream is kept (a huge build's JSON is still far below).
const MAX_OUTPUT: u64 = 256 << 20;

/// Where a checker program named without a `/` is looked up for the project at `project`: the
/// one place every checker, interpreter and test runner of `verify` is found, so that the PATH
/// rule of `programs` applies to all.
pub(crate) fn find_program(name: &str, project: &Path) -> crate::programs::Lookup {
    crate::programs::find(name, project)
}

/// A checker program: the config file's command, else the default found on PATH.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Program {
    pub path: PathBuf,
    pub args: Vec<String>,
    /// The PATH it runs with (the user's without the entries `programs` skips); `None`: the
    /// user's as it is.
    pub path_env: Option<OsString>,
    /// The PATH entries skipped while looking for it, each said.
    pub skipped: Vec<String>,
}

impl Program {
    /// `configured` (from `[verify]` of the config file) or `default` on PATH; the error says
    /// how to make it available.
    pub fn find(
        configured: Option<&crate::config::ServerCommand>,
        default: &str,
        project: &Path,
    ) -> Result<Program, String> {
        let (name, args) = match configured {
            Some(c) => (c.command.as_str(), c.args.clone()),
            None => (default, Vec::new()),
        };
        let lookup = find_program(name, project);
        let skipped = lookup.skipped_suffix();
        let path = lookup.found.ok_or_else(|| {
            format!(
                "{name} not found{}{skipped}",
                if name.contains('/') { "" } else { " on PATH" }
            )
        })?;
        Ok(Program {
            path,
            args,
            path_env: crate::programs::child_path(project),
            skipped: lookup.skipped,
        })
    }

    /// A command that runs the program with its configured arguments (and its PATH).
    pub fn command(&self) -> Command {
        let mut command = Command::new(&self.path);
        command.args(&self.args);
        if let Some(path) = &self.path_env {
            command.env("PATH", path);
        }
        command
    }

    /// What identifies this build of the program without running it: its path, size and
    /// modification time (an upgrade changes them), for keys of remembered results.
    pub fn identity(&self) -> String {
        use std::os::unix::fs::MetadataExt;
        let real = std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone());
        let stamp = std::fs::metadata(&real)
            .map(|m| format!("{}:{}.{}", m.size(), m.mtime(), m.mtime_nsec()))
            .unwrap_or_default();
        format!("{}|{stamp}|{}", real.display(), self.args.join(" "))
    }
}

/// The limits a checker runs under (`None`: no limit of that kind).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Limits {
    /// `RLIMIT_AS`, bytes.
    pub memory_bytes: Option<u64>,
    /// `RLIMIT_CPU`, seconds of CPU time (all threads of the process together).
    pub cpu_secs: Option<u64>,
}

impl Limits {
    pub const NONE: Limits = Limits {
        memory_bytes: None,
        cpu_secs: None,
    };
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

    /// The same cancellation with an earlier deadline (never a later one).
    pub fn shortened(&self, within: Duration) -> Budget<'a> {
        let deadline = self.deadline.min(Instant::now() + within);
        Budget::new(deadline, self.cancel)
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
    /// It ran into its memory or CPU-time limit; the sentence says which.
    Limit(String),
}

/// Runs `command` with no standard input, under `limits`, until it exits, the budget runs out
/// or the caller cancels; in the last two cases its whole process group is killed. A process
/// that died at one of its limits is [`RunError::Limit`].
pub(crate) fn run(
    command: &mut Command,
    budget: &Budget<'_>,
    limits: Limits,
) -> Result<Finished, RunError> {
    budget.check().map_err(RunError::Stopped)?;
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    contain(command, limits);
    let program = command.get_program().to_string_lossy().into_owned();
    let mut child = command
        .spawn()
        .map_err(|e| RunError::Spawn(format!("{program} could not be started: {e}")))?;
    let watchdog = Watchdog::start(child.id());
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
    if let Some(watchdog) = watchdog {
        watchdog.release();
    }
    let stdout = stdout.join().unwrap_or_default();
    let stderr = stderr.join().unwrap_or_default();
    let finished = Finished {
        status: status?,
        stdout,
        stderr,
    };
    match limit_hit(&finished, limits) {
        Some(reason) => Err(RunError::Limit(format!("{program} {reason}"))),
        None => Ok(finished),
    }
}

/// Which limit a process died at, as the end of a sentence ("stopped at …"), if it did.
fn limit_hit(done: &Finished, limits: Limits) -> Option<String> {
    use std::os::unix::process::ExitStatusExt;
    if done.status.success() {
        return None;
    }
    let signal = done.status.signal();
    if let (Some(secs), Some(sig)) = (limits.cpu_secs, signal)
        && sig == libc_signal::XCPU
    {
        return Some(format!(
            "stopped at its CPU-time limit of {secs} s (candor's limit for checkers: [verify] timeout_secs)"
        ));
    }
    let memory = limits.memory_bytes?;
    let stderr = String::from_utf8_lossy(&done.stderr).to_ascii_lowercase();
    const OUT_OF_MEMORY: &[&str] = &[
        "memory allocation of",
        "out of memory",
        "memoryerror",
        "cannot allocate memory",
        "failed to allocate",
        "std::bad_alloc",
    ];
    let aborted = matches!(
        signal,
        Some(libc_signal::ABRT | libc_signal::SEGV | libc_signal::KILL)
    );
    (OUT_OF_MEMORY.iter().any(|s| stderr.contains(s)) || (aborted && stderr.contains("alloc")))
        .then(|| {
            format!(
                "stopped at its memory limit of {} MiB (candor's limit for checkers: [verify] memory_limit_mib)",
                memory >> 20
            )
        })
}

/// Signal numbers on Linux (rustix names them, but only as an enum without `XCPU` on every
/// target).
mod libc_signal {
    pub const ABRT: i32 = 6;
    pub const KILL: i32 = 9;
    pub const SEGV: i32 = 11;
    pub const XCPU: i32 = 24;
}

/// Its own process group (so the whole tree can be killed, and a Ctrl-C meant for candor does
/// not reach it), its limits, and SIGKILL when the thread that started it dies with candor.
fn contain(command: &mut Command, limits: Limits) {
    use std::os::unix::process::CommandExt;
    command.process_group(0);
    #[cfg(target_os = "linux")]
    {
        let parent = std::process::id();
        // SAFETY: the closure runs in the forked child before exec and only makes
        // async-signal-safe system calls (setrlimit, prctl, getppid, kill); it allocates nothing
        // and takes no lock.
        unsafe {
            command.pre_exec(move || {
                use rustix::process::{Resource, Rlimit, setrlimit};
                if let Some(bytes) = limits.memory_bytes {
                    let limit = Rlimit {
                        current: Some(bytes),
                        maximum: Some(bytes),
                    };
                    setrlimit(Resource::As, limit).map_err(std::io::Error::from)?;
                }
                if let Some(secs) = limits.cpu_secs {
                    // SIGXCPU at the soft limit, SIGKILL a little later at the hard one.
                    let limit = Rlimit {
                        current: Some(secs),
                        maximum: Some(secs + 5),
                    };
                    setrlimit(Resource::Cpu, limit).map_err(std::io::Error::from)?;
                }
                rustix::process::set_parent_process_death_signal(Some(
                    rustix::process::Signal::KILL,
                ))
                .map_err(std::io::Error::from)?;
                // candor died between the fork and the prctl: the signal will never come.
                if rustix::process::getppid().map(|p| p.as_raw_nonzero().get() as u32)
                    != Some(parent)
                {
                    return Err(std::io::Error::other("candor exited"));
                }
                Ok(())
            });
        }
    }
}

/// A process that kills a checker's whole group when candor dies without doing it: a shell
/// reading one line from a pipe only candor holds. candor writes `done` once it has reaped the
/// group itself; if candor dies first (even by `kill -9`), the pipe closes, the read ends
/// without that line, and the shell kills the group. It ignores the terminal's signals and sits
/// in a group of its own, so a Ctrl-C that kills candor does not kill it too.
struct Watchdog {
    child: Child,
    stdin: ChildStdin,
}

impl Watchdog {
    const SCRIPT: &'static str = "trap '' INT HUP TERM QUIT PIPE; read -r line; [ \"$line\" = done ] || kill -9 -\"$1\" 2>/dev/null; exit 0";

    fn start(group: u32) -> Option<Watchdog> {
        use std::os::unix::process::CommandExt;
        let mut child = Command::new("/bin/sh")
            .args(["-c", Self::SCRIPT, "candor-watchdog", &group.to_string()])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .ok()?;
        let stdin = child.stdin.take()?;
        Some(Watchdog { child, stdin })
    }

    /// The group is gone: the watchdog may end without killing anything.
    fn release(mut self) {
        let _ = self.stdin.write_all(b"done\n");
        drop(self.stdin);
        let _ = self.child.wait();
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

    fn budget(secs: u64) -> Budget<'static> {
        Budget::new(Instant::now() + Duration::from_secs(secs), never())
    }

    #[test]
    fn output_and_status_come_back() {
        let done = run(
            Command::new("sh").args(["-c", "echo out; echo err >&2; exit 3"]),
            &budget(30),
            Limits::NONE,
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
        let result = run(
            Command::new("sh").args(["-c", &script]),
            &budget,
            Limits::NONE,
        );
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
            let result = run(Command::new("sleep").arg("30"), &budget, Limits::NONE);
            assert!(matches!(result, Err(RunError::Stopped(Stop::Cancelled))));
        });
    }

    #[test]
    fn a_missing_program_is_named() {
        let Err(RunError::Spawn(message)) = run(
            &mut Command::new("/nonexistent/ruff"),
            &budget(5),
            Limits::NONE,
        ) else {
            panic!("spawned");
        };
        assert!(message.contains("/nonexistent/ruff"), "{message}");
    }

    #[test]
    fn a_checker_that_eats_memory_stops_at_its_limit() {
        // Reads an endless file into memory, as ruff did with `extend = "/dev/zero"`.
        let limits = Limits {
            memory_bytes: Some(256 << 20),
            cpu_secs: Some(60),
        };
        let result = run(
            Command::new("python3").args(["-I", "-S", "-c", "open('/dev/zero', 'rb').read()"]),
            &budget(60),
            limits,
        );
        let Err(RunError::Limit(reason)) = result else {
            panic!("not stopped at the limit: {result:?}");
        };
        assert!(reason.contains("memory limit of 256 MiB"), "{reason}");
    }

    #[test]
    fn a_checker_that_spins_stops_at_its_cpu_limit() {
        let limits = Limits {
            memory_bytes: None,
            cpu_secs: Some(1),
        };
        let result = run(
            Command::new("sh").args(["-c", "while :; do :; done"]),
            &budget(30),
            limits,
        );
        let Err(RunError::Limit(reason)) = result else {
            panic!("not stopped at the limit: {result:?}");
        };
        assert!(reason.contains("CPU-time limit of 1 s"), "{reason}");
    }

    #[test]
    fn the_watchdog_kills_the_group_when_candor_is_gone() {
        use std::os::unix::process::CommandExt;
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("late");
        // A checker with a grandchild, in a group of its own, as `run` starts it.
        let script = format!("(sleep 2; touch {}) & sleep 30", marker.display());
        let mut checker = Command::new("sh")
            .args(["-c", &script])
            .process_group(0)
            .spawn()
            .unwrap();
        let watchdog = Watchdog::start(checker.id()).unwrap();
        // candor dies: its end of the pipe closes without `done`.
        let Watchdog { mut child, stdin } = watchdog;
        drop(stdin);
        child.wait().unwrap();
        let status = checker.wait().unwrap();
        assert!(!status.success(), "the checker was killed");
        std::thread::sleep(Duration::from_millis(2500));
        assert!(!marker.exists(), "the grandchild was killed too");

        // Released after a normal end, it kills nothing.
        let mut other = Command::new("sleep")
            .arg("30")
            .process_group(0)
            .spawn()
            .unwrap();
        Watchdog::start(other.id()).unwrap().release();
        assert!(other.try_wait().unwrap().is_none(), "still running");
        kill_group(&mut other);
    }
}
