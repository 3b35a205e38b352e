//! Facts about a computed refactor before it is written, from two sources:
//! - [`cross`]: candor's own checks of every result (heuristic or language server), pure and
//!   fast: no call left behind by an inline, arguments kept, the extracted function defined once
//!   and called where the selection was, calls that match their definition's arity;
//! - [`run`]: the project's own checker (`cargo check`; `ruff`, `compile()`, basedpyright) and,
//!   on request, its tests, run on a shadow of the project in candor's cache before and after the
//!   refactor, reporting only what the refactor introduced.
//!
//! [`run`] is a plain blocking function that honours a cancellation flag and a deadline, for
//! `candor call` and MCP in line and for the TUI on a worker thread. It never writes into the
//! user's tree, and never runs a project's programs (build scripts, proc macros, tests, checkers
//! its config file names) unless the user trusts the project ([`Trust`]).

pub mod cross;

mod cache;
mod cargo;
mod diff;
mod process;
mod python;
mod shadow;
mod test_runs;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::cancel::Cancel;
use crate::config::VerifyConfig;
use crate::edit::FileChange;
use crate::lang::Language;
use crate::refactor::{Finding, Severity};
use crate::trust::Trust;

pub use cache::cache_root;

/// How far the check of a result goes (the `verify` argument; declared with the settings, as
/// `[verify] default` holds one).
pub use crate::config::VerifyLevel as Level;

/// `data.verification.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// The checker ran before and after and found nothing new.
    Clean,
    /// The refactor introduced diagnostics (or broke tests).
    Introduced,
    /// No checker could run on this project; `reason` says why.
    Unavailable,
    /// The check ran out of time; `reason` says which step.
    Timeout,
    /// No check was asked for (or it was cancelled); `reason` says so.
    Skipped,
}

impl State {
    pub fn as_str(self) -> &'static str {
        match self {
            State::Clean => "clean",
            State::Introduced => "introduced",
            State::Unavailable => "unavailable",
            State::Timeout => "timeout",
            State::Skipped => "skipped",
        }
    }
}

/// One diagnostic of a checker, located in the project (after the refactor, for introduced ones).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
pub struct Diagnostic {
    /// Project-relative path.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// "error" or "warning".
    pub severity: Severity,
    /// The checker's code: `E0106`, `F821`, `reportCallIssue`, `SyntaxError`; "" when it has none.
    pub code: String,
    pub message: String,
    /// Which checker said it: "cargo check", "ruff", "compile", "basedpyright".
    pub source: String,
}

/// A test that passed before the refactor and fails after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FailingTest {
    /// As the runner names it (`tests::parses`, `tests/test_a.py::test_b`, `test_b (m.T.test_b)`).
    pub name: String,
    /// Where it failed, when the runner's output says (project-relative, 1-based).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// The first lines of the failure.
    pub message: String,
}

/// `data.verification.tests`: the project's tests before and after the refactor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct TestReport {
    /// The command, e.g. "cargo test -p versions" or "python -m pytest".
    pub runner: Option<String>,
    pub state: State,
    /// Tests that passed before and fail after.
    pub failing: Vec<FailingTest>,
    /// Tests that passed before the refactor.
    pub passed_before: usize,
    pub duration_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `data.verification`: what the project's own tools say about the result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verification {
    /// The checker(s) that ran, e.g. "cargo check" or "ruff + compile + basedpyright"; null when
    /// none did.
    pub checker: Option<String>,
    pub state: State,
    /// Diagnostics the refactor introduced, located in the result.
    pub introduced: Vec<Diagnostic>,
    /// Diagnostics that were there before and still are.
    pub preexisting: usize,
    pub duration_ms: u64,
    /// Why the state is what it is, when that needs saying (unavailable, timeout, skipped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Checkers that could not run on this result, each with why (the others still did).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<TestReport>,
}

impl Verification {
    /// The verification of a result nobody checked: says what was and was not examined.
    pub fn skipped(reason: impl Into<String>) -> Verification {
        Verification {
            checker: None,
            state: State::Skipped,
            introduced: Vec::new(),
            preexisting: 0,
            duration_ms: 0,
            reason: Some(reason.into()),
            not_run: Vec::new(),
            tests: None,
        }
    }

    fn unavailable(reason: impl Into<String>, started: Instant) -> Verification {
        Verification {
            state: State::Unavailable,
            duration_ms: millis(started.elapsed()),
            ..Verification::skipped(reason)
        }
    }

    /// The introduced diagnostics of severity error.
    pub fn introduced_errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.introduced
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }

    /// Tests that passed before and fail after.
    pub fn failing_tests(&self) -> &[FailingTest] {
        self.tests.as_ref().map_or(&[], |t| t.failing.as_slice())
    }

    /// Whether writing this result would knowingly break the build or the tests.
    pub fn blocks_apply(&self) -> bool {
        self.introduced_errors().next().is_some() || !self.failing_tests().is_empty()
    }

    /// Introduced errors and newly failing tests as `error` findings (warnings stay in
    /// `introduced` only).
    pub fn findings(&self, fallback_file: &str) -> Vec<Finding> {
        let mut findings: Vec<Finding> = self
            .introduced_errors()
            .map(|d| {
                let code = if d.code.is_empty() {
                    String::new()
                } else {
                    format!(" {}", d.code)
                };
                Finding::error(
                    &d.file,
                    d.line,
                    format!(
                        "{} reports a new error{code}: {} (introduced by this refactor)",
                        d.source, d.message
                    ),
                )
            })
            .collect();
        for test in self.failing_tests() {
            findings.push(Finding::error(
                test.file.as_deref().unwrap_or(fallback_file),
                test.line.unwrap_or(1),
                format!(
                    "test `{}` passed before this refactor and fails after it: {}",
                    test.name, test.message
                ),
            ));
        }
        findings
    }

    /// A one-line summary for people: "cargo check: clean", "ruff + compile: 2 new errors".
    pub fn summary(&self) -> String {
        let checker = self.checker.as_deref().unwrap_or("check");
        match self.state {
            State::Clean => format!("{checker}: clean"),
            State::Introduced => {
                let errors = self.introduced_errors().count();
                let warnings = self.introduced.len() - errors;
                let mut parts = Vec::new();
                if errors > 0 {
                    parts.push(plural(errors, "new error"));
                }
                if warnings > 0 {
                    parts.push(plural(warnings, "new warning"));
                }
                let tests = self.failing_tests().len();
                if tests > 0 {
                    parts.push(plural(tests, "newly failing test"));
                }
                format!("{checker}: {}", parts.join(", "))
            }
            State::Unavailable | State::Timeout | State::Skipped => format!(
                "{checker}: {}{}",
                self.state.as_str(),
                self.reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default()
            ),
        }
    }
}

fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Timeouts and the checker programs (the config file's `[verify]`, PATH otherwise).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// For the whole check (both runs of every checker).
    pub timeout: Duration,
    /// For the tests (both runs).
    pub tests_timeout: Duration,
    pub cargo: Option<crate::config::ServerCommand>,
    pub python: Option<crate::config::ServerCommand>,
    pub ruff: Option<crate::config::ServerCommand>,
    pub pyright: Option<crate::config::ServerCommand>,
    /// Where candor keeps shadows and build output; `None`: [`cache_root`].
    pub cache_dir: Option<PathBuf>,
}

/// Seconds a check may take unless the config file says otherwise.
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// Seconds the tests may take unless the config file says otherwise.
pub const DEFAULT_TESTS_TIMEOUT_SECS: u64 = 600;

impl Default for Settings {
    fn default() -> Settings {
        Settings::from_config(&VerifyConfig::default())
    }
}

impl Settings {
    pub fn from_config(config: &VerifyConfig) -> Settings {
        let secs =
            |value: Option<u64>, default: u64| Duration::from_secs(value.unwrap_or(default).max(1));
        Settings {
            timeout: secs(config.timeout_secs, DEFAULT_TIMEOUT_SECS),
            tests_timeout: secs(config.tests_timeout_secs, DEFAULT_TESTS_TIMEOUT_SECS),
            cargo: config.cargo.clone(),
            python: config.python.clone(),
            ruff: config.ruff.clone(),
            pyright: config.pyright.clone(),
            cache_dir: None,
        }
    }
}

/// Everything a check needs, owned, so that it can move to a worker thread.
#[derive(Debug, Clone)]
pub struct Job {
    /// The canonical project root.
    pub root: PathBuf,
    pub lang: Language,
    /// The result to check: every changed or created file, with its text before and after.
    pub changes: Vec<FileChange>,
    /// Unchanged project files worth type-checking too (they mention a name the refactor removed
    /// or changed); project-relative.
    pub also_check: Vec<String>,
    pub level: Level,
    pub settings: Settings,
    /// Whether the project's own programs may run: build scripts and proc macros (`cargo
    /// check`), its tests, its toolchain file and `.cargo/config.toml`, checkers its
    /// `.candor/config.toml` names.
    pub trust: Trust,
}

/// What the steps of a check share: where to work, and when to stop.
pub(crate) struct Context<'a> {
    pub job: &'a Job,
    pub cache: cache::ProjectCache,
    pub budget: process::Budget<'a>,
    pub progress: &'a (dyn Fn(&str) + Sync),
}

impl Context<'_> {
    /// What differs from the disk in each state of the project: before the refactor (the
    /// plan's "before" of a file the disk no longer holds) and after it.
    fn overrides(&self, state: Side) -> BTreeMap<String, Vec<u8>> {
        let mut overrides = BTreeMap::new();
        for change in &self.job.changes {
            match state {
                Side::Before if !change.created() => {
                    let before = change.before_bytes();
                    let on_disk = std::fs::read(self.job.root.join(&change.path)).ok();
                    if on_disk.as_deref() != Some(before.as_slice()) {
                        overrides.insert(change.path.clone(), before);
                    }
                }
                Side::Before => {}
                Side::After => {
                    overrides.insert(change.path.clone(), change.after_bytes());
                }
            }
        }
        overrides
    }

    /// Brings `shadow` up to the project in `state`, with `extra` (path → bytes) too.
    pub fn sync(
        &self,
        shadow: &std::path::Path,
        state: Side,
        sharing: shadow::Sharing,
        extra: &BTreeMap<String, Vec<u8>>,
    ) -> Result<(), StepError> {
        let mut overrides = extra.clone();
        overrides.extend(self.overrides(state));
        let step = format!("preparing the shadow of the project {}", state.as_str());
        (self.progress)(&step);
        shadow::sync(
            &self.job.root,
            shadow,
            &self.cache.manifest(shadow),
            &overrides,
            sharing,
            &self.budget,
        )
        .map(|_| ())
        .map_err(|e| match e {
            shadow::SyncError::Stopped(stop) => StepError::Stopped(stop, step),
            shadow::SyncError::Failed(reason) => StepError::Unavailable(reason),
        })
    }

    /// The shadow a side is checked in: Python has one per side (checked at once); cargo one for
    /// both, switched from before to after, because its fingerprints do not tell two copies of a
    /// workspace apart in one target directory.
    pub fn shadow(&self, state: Side) -> std::path::PathBuf {
        match (self.job.lang, state) {
            (Language::Rust, _) => self.cache.cargo(),
            (Language::Python, Side::Before) => self.cache.base(),
            (Language::Python, Side::After) => self.cache.edit(),
        }
    }

    /// The checker `key` of `[verify]`: the config file's command (one the project's own file
    /// names only when the project is trusted), else the first of `defaults` on PATH.
    pub fn program(
        &self,
        key: &str,
        configured: Option<&crate::config::ServerCommand>,
        defaults: &[&str],
    ) -> Result<process::Program, String> {
        if let Some(command) = configured {
            let from_project = command.source == crate::config::ConfigSource::Project;
            let bare_default =
                command.args.is_empty() && defaults.contains(&command.command.as_str());
            if !from_project || self.job.trust.allows_project_programs() {
                return process::Program::find(Some(command), &command.command);
            }
            if !bare_default {
                return Err(self.job.trust.refusal(&format!(
                    "the program `{}` that [verify] {key} in .candor/config.toml names",
                    command.command
                )));
            }
        }
        defaults
            .iter()
            .find_map(|name| process::Program::find(None, name).ok())
            .ok_or_else(|| match defaults {
                [one] => format!("{one} not found on PATH"),
                _ => format!("neither {} found on PATH", defaults.join(" nor ")),
            })
    }

    /// Runs one command of the check, saying so to `progress`; a stop becomes the step's error.
    pub fn run(&self, command: &mut Command, step: &str) -> Result<process::Finished, StepError> {
        (self.progress)(step);
        process::run(command, &self.budget).map_err(|e| match e {
            process::RunError::Stopped(stop) => StepError::Stopped(stop, step.to_string()),
            process::RunError::Spawn(message) => StepError::Unavailable(message),
        })
    }
}

/// Checks `job`'s result with the project's own tools. Blocks until done, the deadline of
/// `job.settings`, or `cancel` (then the state is "timeout" or "skipped", never a hang); the
/// checkers' processes are killed on the way out. `progress` hears each step as it starts.
pub fn run(job: &Job, cancel: &Cancel, progress: &(dyn Fn(&str) + Sync)) -> Verification {
    let started = Instant::now();
    if job.level == Level::Off {
        return Verification::skipped(not_checked_reason(job.lang));
    }
    if job.changes.is_empty() {
        return Verification::skipped("the refactor changes nothing, so there is nothing to check");
    }
    let cache = match cache::ProjectCache::open(&job.root, job.settings.cache_dir.as_deref()) {
        Ok(cache) => cache,
        Err(reason) => return Verification::unavailable(reason, started),
    };
    let deadline = started + job.settings.timeout;
    let mut cx = Context {
        job,
        cache,
        budget: process::Budget::new(deadline, cancel),
        progress,
    };
    let _lock = match cx.cache.lock(&cx.budget) {
        Ok(lock) => lock,
        Err(stop) => return stopped(stop, "waiting for another check of this project", started),
    };
    let checked = match job.lang {
        Language::Rust => cargo::check(&mut cx),
        Language::Python => python::check(&mut cx),
    };
    let mut verification = match checked {
        Ok(checked) => checked.into_verification(started),
        Err(StepError::Unavailable(reason)) => Verification::unavailable(reason, started),
        Err(StepError::Stopped(stop, step)) => stopped(stop, &step, started),
    };
    if job.level == Level::Tests {
        cx.budget = process::Budget::new(Instant::now() + job.settings.tests_timeout, cancel);
        let tests = test_runs::run(&mut cx, &verification);
        if !tests.failing.is_empty() && verification.state == State::Clean {
            verification.state = State::Introduced;
        }
        verification.tests = Some(tests);
    }
    verification.duration_ms = millis(started.elapsed());
    verification
}

/// The `reason` of an unchecked result: what nobody examined yet.
pub fn not_checked_reason(lang: Language) -> String {
    let how = match lang {
        Language::Rust => "cargo check",
        Language::Python => "ruff, compile() and basedpyright",
    };
    format!(
        "not compiled or type-checked yet: pass verify: true to check this result with {how} before writing it"
    )
}

fn stopped(stop: process::Stop, step: &str, started: Instant) -> Verification {
    let (state, reason) = match stop {
        process::Stop::Timeout(limit) => (
            State::Timeout,
            format!(
                "gave up after {} s while {step}; raise [verify] timeout_secs in .candor/config.toml for a larger project",
                limit.as_millis().div_ceil(1000)
            ),
        ),
        process::Stop::Cancelled => (State::Skipped, format!("cancelled while {step}")),
    };
    Verification {
        state,
        duration_ms: millis(started.elapsed()),
        ..Verification::skipped(reason)
    }
}

/// The project before the refactor, or after it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Side {
    Before,
    After,
}

impl Side {
    pub fn as_str(self) -> &'static str {
        match self {
            Side::Before => "before the refactor",
            Side::After => "after the refactor",
        }
    }
}

/// Why a step of a check could not give an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum StepError {
    /// No checker could run; the sentence says why and what to do.
    Unavailable(String),
    /// The deadline passed or the caller cancelled, during the named step.
    Stopped(process::Stop, String),
}

/// What the checkers of one language found, before and after.
#[derive(Debug, Default)]
pub(crate) struct Checked {
    pub checkers: Vec<String>,
    pub introduced: Vec<Diagnostic>,
    pub preexisting: usize,
    pub not_run: Vec<String>,
}

impl Checked {
    fn into_verification(self, started: Instant) -> Verification {
        let Checked {
            checkers,
            mut introduced,
            preexisting,
            not_run,
        } = self;
        introduced.sort_by(|a, b| {
            (
                &a.file,
                a.line,
                std::cmp::Reverse(a.severity),
                &a.code,
                &a.message,
            )
                .cmp(&(
                    &b.file,
                    b.line,
                    std::cmp::Reverse(b.severity),
                    &b.code,
                    &b.message,
                ))
        });
        Verification {
            checker: Some(checkers.join(" + ")),
            state: if introduced.is_empty() {
                State::Clean
            } else {
                State::Introduced
            },
            introduced,
            preexisting,
            duration_ms: millis(started.elapsed()),
            reason: None,
            not_run,
            tests: None,
        }
    }
}
