//! Facts about a computed refactor before it is written, from the project's own tools (candor's
//! own cross-checks of every result are a layer of the core, `refactor::cross`):
//! - [`run`]: the project's own checker (`cargo check`; `ruff`, `compile()` and a type checker —
//!   pyrefly unless the project configures basedpyright or mypy) and its tests (on request, or in
//!   the terminal UI when they are cheap), run on a shadow of the project in candor's cache
//!   before and after the refactor, reporting only what the refactor introduced. What a checker
//!   said about a project state is remembered by content, so checking the same base again runs
//!   the "after" side only.
//!
//! [`run`] is a plain blocking function that honours a cancellation flag and a deadline, for
//! `candor call` and MCP in line and for the TUI on a worker thread. It never writes into the
//! user's tree, and never runs a project's programs (build scripts, proc macros, tests, checkers
//! its config file names) unless the user trusts the project ([`Trust`]). Every checker runs
//! under memory and CPU-time limits and dies with candor.

mod bound;
pub(crate) mod cache;
mod cargo;
mod diff;
mod memo;
mod process;
mod progress;
mod python;
mod report;
mod shadow;
mod test_runs;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::cancel::Cancel;
use crate::config::VerifyConfig;
use crate::edit::FileChange;
use crate::lang::Language;
use crate::trust::Trust;

pub use bound::{CacheError, Cleared, DEFAULT_LIMIT_MIB, ProjectUsage, Usage, clear, usage};
pub use cache::{cache_root, links_in_cache};
pub use progress::Progress;
pub use report::{Diagnostic, FailingTest, State, Step, TestReport, Verification};

/// How far the check of a result goes (the `verify` argument; declared with the settings, as
/// `[verify] default` holds one).
pub use crate::config::VerifyLevel as Level;

fn millis(duration: Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

/// Timeouts, limits and the checker programs (the config file's `[verify]`, PATH otherwise).
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
    pub pyrefly: Option<crate::config::ServerCommand>,
    pub mypy: Option<crate::config::ServerCommand>,
    pub type_checker: Option<crate::config::TypeChecker>,
    /// Address-space limit of each checker process.
    pub memory_limit_bytes: u64,
    /// The size candor's cache is kept under.
    pub cache_limit_bytes: u64,
    /// The terminal UI's "tests when cheap": their baseline must have taken less than this.
    pub tests_budget: Option<Duration>,
    /// Where candor keeps shadows and build output; `None`: [`cache_root`].
    pub cache_dir: Option<PathBuf>,
}

/// Seconds a check may take unless the config file says otherwise.
pub const DEFAULT_TIMEOUT_SECS: u64 = 120;
/// Seconds the tests may take unless the config file says otherwise.
pub const DEFAULT_TESTS_TIMEOUT_SECS: u64 = 600;
/// MiB of address space a checker may use unless the config file says otherwise.
pub const DEFAULT_MEMORY_LIMIT_MIB: u64 = 4096;
/// Seconds the tests' baseline may take for the terminal UI to run them with every check.
pub const DEFAULT_TESTS_BUDGET_SECS: u64 = 20;

impl Default for Settings {
    fn default() -> Settings {
        Settings::from_config(&VerifyConfig::default())
    }
}

impl Settings {
    pub fn from_config(config: &VerifyConfig) -> Settings {
        let secs =
            |value: Option<u64>, default: u64| Duration::from_secs(value.unwrap_or(default).max(1));
        let mib =
            |value: Option<u64>, default: u64| value.unwrap_or(default).saturating_mul(1 << 20);
        let budget = config
            .tests_budget_secs
            .unwrap_or(DEFAULT_TESTS_BUDGET_SECS);
        Settings {
            timeout: secs(config.timeout_secs, DEFAULT_TIMEOUT_SECS),
            tests_timeout: secs(config.tests_timeout_secs, DEFAULT_TESTS_TIMEOUT_SECS),
            cargo: config.cargo.clone(),
            python: config.python.clone(),
            ruff: config.ruff.clone(),
            pyright: config.pyright.clone(),
            pyrefly: config.pyrefly.clone(),
            mypy: config.mypy.clone(),
            type_checker: config.type_checker,
            memory_limit_bytes: mib(config.memory_limit_mib, DEFAULT_MEMORY_LIMIT_MIB)
                .max(64 << 20),
            cache_limit_bytes: mib(config.cache_limit_mib, DEFAULT_LIMIT_MIB),
            tests_budget: (budget > 0).then(|| Duration::from_secs(budget)),
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
    /// At level `Check`: also run the tests when their baseline took less than
    /// `settings.tests_budget` (the terminal UI's default).
    pub tests_when_cheap: bool,
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
    pub memo: memo::Memo,
    pub budget: process::Budget<'a>,
    pub progress: progress::Reporter<'a>,
    /// The project's files, walked once per check.
    files: Mutex<Option<std::sync::Arc<Vec<shadow::UserFile>>>>,
    /// What the check noted on the way (files not mirrored, a checker chosen instead of
    /// another).
    pub notes: Mutex<Vec<String>>,
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

    /// The project's files (walked on first use).
    fn project_files(&self) -> Result<std::sync::Arc<Vec<shadow::UserFile>>, StepError> {
        let mut files = self.files.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(found) = files.as_ref() {
            return Ok(found.clone());
        }
        let mut left_out = Vec::new();
        let found = std::sync::Arc::new(
            shadow::project_files_noting(&self.job.root, &self.budget, &mut left_out)
                .map_err(|e| sync_error(e, "reading the project's files"))?,
        );
        *files = Some(found.clone());
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        for what in left_out {
            let note = format!("left out of the check's copy of the project: {what}");
            if !notes.contains(&note) {
                notes.push(note);
            }
        }
        Ok(found)
    }

    /// Brings the shadow of `state` up to the project in that state, with `extra` (path →
    /// bytes) too. Files it could not mirror become notes.
    pub fn sync(
        &self,
        state: Side,
        extra: &BTreeMap<String, Vec<u8>>,
    ) -> Result<shadow::Synced, StepError> {
        let files = self.project_files()?;
        let mut overrides = extra.clone();
        overrides.extend(self.overrides(state));
        let (name, _) = self.shadow(state);
        let step = format!("preparing the shadow of the project {}", state.as_str());
        let dir = self.cache.sub(name).map_err(StepError::Unavailable)?;
        let path = self.cache.path_of(name);
        let manifest = format!("{name}.manifest.json");
        let target = shadow::Target {
            dir: &dir,
            path: &path,
            manifest_dir: self.cache.dir(),
            manifest_name: &manifest,
        };
        let synced = self
            .progress
            .timed(&format!("shadow {}", state.short()), || {
                shadow::sync(&files, &target, &overrides, &self.budget, &|done, total| {
                    self.progress.say(&step, Some((done, total)));
                })
            });
        let synced = synced.map_err(|e| sync_error(e, &step))?;
        if !synced.skipped.is_empty() {
            let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
            for skipped in &synced.skipped {
                let note = format!("left out of the check's copy of the project: {skipped}");
                if !notes.contains(&note) {
                    notes.push(note);
                }
            }
        }
        Ok(synced)
    }

    /// The shadow a side is checked in (its folder name and path): Python has one per side
    /// (checked at once); cargo one for both, switched from before to after, because its
    /// fingerprints do not tell two copies of a workspace apart in one target directory.
    pub fn shadow(&self, state: Side) -> (&'static str, PathBuf) {
        let name = match (self.job.lang, state) {
            (Language::Rust, _) => "cargo",
            (Language::Python, Side::Before) => "base",
            (Language::Python, Side::After) => "edit",
        };
        (name, self.cache.path_of(name))
    }

    /// The content key of the project before the refactor, from a shadow synced to either side.
    pub fn before_key(&self, synced: &shadow::Synced, side: Side) -> String {
        let mut content = synced.content.clone();
        if side == Side::After {
            for change in &self.job.changes {
                if change.created() {
                    content.remove(&change.path);
                } else {
                    content.insert(
                        change.path.clone(),
                        crate::edit::sha256_hex(&change.before_bytes()),
                    );
                }
            }
        }
        shadow::content_key(content.iter().map(|(p, s)| (p.as_str(), s.as_str())))
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
                return process::Program::find(Some(command), &command.command, &self.job.root)
                    .inspect(|p| self.note_skipped(p));
            }
            if !bare_default {
                return Err(self.job.trust.refusal(&format!(
                    "the program `{}` that [verify] {key} in .candor/config.toml names",
                    command.command
                )));
            }
        }
        let mut skipped = Vec::new();
        for name in defaults {
            match process::Program::find(None, name, &self.job.root) {
                Ok(program) => {
                    self.note_skipped(&program);
                    return Ok(program);
                }
                Err(_) => skipped.extend(crate::programs::find(name, &self.job.root).skipped),
            }
        }
        let skipped = crate::programs::Lookup {
            found: None,
            skipped,
        }
        .skipped_suffix();
        Err(match defaults {
            [one] => format!("{one} not found on PATH{skipped}"),
            _ => format!("neither {} found on PATH{skipped}", defaults.join(" nor ")),
        })
    }

    /// Notes the PATH entries skipped to find `program` (once each per check).
    fn note_skipped(&self, program: &process::Program) {
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        for skipped in &program.skipped {
            if !notes.contains(skipped) {
                notes.push(skipped.clone());
            }
        }
    }

    /// The limits every checker runs under: the configured address space, and CPU time for the
    /// whole check on every core.
    pub fn limits(&self) -> process::Limits {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        process::Limits {
            memory_bytes: Some(self.job.settings.memory_limit_bytes),
            cpu_secs: Some(self.job.settings.timeout.as_secs().max(1) * cores),
        }
    }

    /// Runs one checker command under the limits, saying `step` to the progress; a stop becomes
    /// the step's error, a limit hit an unavailable checker.
    pub fn run(&self, command: &mut Command, step: &str) -> Result<process::Finished, StepError> {
        self.run_with(command, step, self.limits())
    }

    /// [`Context::run`] with other limits (the project's tests run without the checkers').
    pub fn run_with(
        &self,
        command: &mut Command,
        step: &str,
        limits: process::Limits,
    ) -> Result<process::Finished, StepError> {
        self.progress.say(step, None);
        process::run(command, &self.budget, limits).map_err(|e| match e {
            process::RunError::Stopped(stop) => StepError::Stopped(stop, step.to_string()),
            process::RunError::Spawn(message) | process::RunError::Limit(message) => {
                StepError::Unavailable(message)
            }
        })
    }

    fn take_notes(&self) -> Vec<String> {
        std::mem::take(&mut *self.notes.lock().unwrap_or_else(|e| e.into_inner()))
    }
}

fn sync_error(e: shadow::SyncError, step: &str) -> StepError {
    match e {
        shadow::SyncError::Stopped(stop) => StepError::Stopped(stop, step.to_string()),
        shadow::SyncError::Failed(reason) => StepError::Unavailable(reason),
    }
}

/// Checks `job`'s result with the project's own tools. Blocks until done, the deadline of
/// `job.settings`, or `cancel` (then the state is "timeout" or "skipped", never a hang); the
/// checkers' processes are killed on the way out. `progress` hears each step as it starts, with
/// the files done of those it covers.
pub fn run(job: &Job, cancel: &Cancel, progress: &(dyn Fn(&Progress) + Sync)) -> Verification {
    let started = Instant::now();
    if job.level == Level::Off {
        return Verification::skipped(not_checked_reason(job.lang));
    }
    if job.changes.is_empty() {
        return Verification::skipped("the refactor changes nothing, so there is nothing to check");
    }
    let opened = cache::ProjectCache::open(&job.root, job.settings.cache_dir.as_deref())
        .and_then(|cache| Ok((cache.sub("memo")?, cache)));
    let (memo_dir, cache) = match opened {
        Ok(found) => found,
        Err(reason) => return unavailable(reason, started, Vec::new()),
    };
    let deadline = started + job.settings.timeout;
    let mut cx = Context {
        job,
        cache,
        memo: memo::Memo::new(memo_dir),
        budget: process::Budget::new(deadline, cancel),
        progress: progress::Reporter::new(progress),
        files: Mutex::new(None),
        notes: Mutex::new(Vec::new()),
    };
    let lock = match cx.cache.lock(&cx.budget) {
        Ok(lock) => lock,
        Err(stop) => return stopped(stop, "waiting for another check of this project", started),
    };
    let checked = match job.lang {
        Language::Rust => cargo::check(&mut cx),
        Language::Python => python::check(&mut cx),
    };
    let mut verification = match checked {
        Ok(checked) => checked.into_verification(started),
        Err(StepError::Unavailable(reason)) => unavailable(reason, started, Vec::new()),
        Err(StepError::Stopped(stop, step)) => stopped(stop, &step, started),
    };
    if let Some(tests) = test_runs::wanted(&cx, &verification) {
        cx.budget = process::Budget::new(Instant::now() + job.settings.tests_timeout, cancel);
        let tests = test_runs::run(&mut cx, &verification, tests);
        if !tests.failing.is_empty() && verification.state == State::Clean {
            verification.state = State::Introduced;
        }
        verification.tests = Some(tests);
    }
    verification.notes.extend(cx.take_notes());
    if !cancel.is_cancelled() {
        cx.progress.timed("cache bound", || {
            bound::enforce(
                &cx.cache.verify,
                cx.cache.dir(),
                &cx.cache.name,
                job.settings.cache_limit_bytes,
            )
        });
    }
    drop(lock);
    verification.steps = cx.progress.steps();
    verification.duration_ms = millis(started.elapsed());
    verification
}

/// The `reason` of an unchecked result: what nobody examined yet.
pub fn not_checked_reason(lang: Language) -> String {
    let how = match lang {
        Language::Rust => "cargo check",
        Language::Python => {
            "ruff, compile() and a type checker (pyrefly unless the project configures another)"
        }
    };
    format!(
        "not compiled or type-checked yet: pass verify: true to check this result with {how} before writing it"
    )
}

/// The `reason` of a result written without a check (`verify: false` on an apply).
pub fn unchecked_write_reason(lang: Language) -> String {
    format!(
        "written without a check: verify: false skipped it; {}",
        not_checked_reason(lang).replace("pass verify: true", "leave verify out (or true)")
    )
}

fn unavailable(reason: impl Into<String>, started: Instant, steps: Vec<Step>) -> Verification {
    Verification {
        state: State::Unavailable,
        duration_ms: millis(started.elapsed()),
        steps,
        ..Verification::skipped(reason)
    }
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

    /// "before" / "after", for step names.
    pub fn short(self) -> &'static str {
        match self {
            Side::Before => "before",
            Side::After => "after",
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
            (&a.file, a.line, &a.code, &a.message).cmp(&(&b.file, b.line, &b.code, &b.message))
        });
        let (errors, warnings): (Vec<Diagnostic>, Vec<Diagnostic>) = introduced
            .into_iter()
            .partition(|d| d.severity == crate::refactor::Severity::Error);
        Verification {
            checker: Some(checkers.join(" + ")),
            state: if errors.is_empty() {
                State::Clean
            } else {
                State::Introduced
            },
            introduced: errors,
            introduced_warnings: warnings,
            preexisting,
            duration_ms: millis(started.elapsed()),
            reason: None,
            not_run,
            notes: Vec::new(),
            steps: Vec::new(),
            tests: None,
        }
    }
}
