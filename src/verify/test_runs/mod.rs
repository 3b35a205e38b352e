//! The project's tests on both shadows (`cargo test` of the affected packages; `python -m
//! pytest` where pytest is importable, else `python -m unittest`), and the tests that passed
//! before and fail after. On request (`verify: "tests"`, the `t` key), or — in the terminal UI —
//! with every check when the tests are cheap: their baseline took less than the budget
//! (`[verify] tests_budget_secs`, 20 s). The baseline (the run before the refactor) is
//! remembered by the project's content; after the refactor, the tests that can see the change
//! run first (test files importing a changed module, the crates holding a changed file), the
//! rest after. Runs the project's code, so only for a project whose programs may run, on
//! shadows of copies.

mod affected;
mod parse;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::memo;
use super::process::{Limits, Program, Stop};
use super::{
    Context, FailingTest, Level, Side, State, StepError, TestReport, Verification, millis,
};
use crate::lang::Language;

use parse::{Outcome, Outcomes, parse_libtest, parse_pytest, parse_unittest};

/// Why the tests run in this check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Wanted {
    /// The caller asked (`verify: "tests"`, the `t` key).
    Asked,
    /// The terminal UI's default: only when the baseline takes less than this.
    IfCheap(Duration),
}

/// Whether this check runs the tests: asked, or cheap enough for a check that found no error in
/// a trusted project.
pub(super) fn wanted(cx: &Context<'_>, check: &Verification) -> Option<Wanted> {
    match cx.job.level {
        Level::Tests => Some(Wanted::Asked),
        Level::Check
            if cx.job.tests_when_cheap
                && cx.job.trust.allows_project_programs()
                && check.state == State::Clean =>
        {
            cx.job.settings.tests_budget.map(Wanted::IfCheap)
        }
        _ => None,
    }
}

/// The tests' run before the refactor, remembered by content.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Baseline {
    outcomes: Outcomes,
    duration_ms: u64,
}

pub(super) fn run(cx: &mut Context<'_>, check: &Verification, wanted: Wanted) -> TestReport {
    let started = Instant::now();
    let report = |state: State, runner: Option<String>, reason: String| TestReport {
        runner,
        state,
        failing: Vec::new(),
        passed_before: 0,
        duration_ms: millis(started.elapsed()),
        reason: Some(reason),
    };
    if !cx.job.trust.allows_project_programs() {
        return report(
            State::Unavailable,
            None,
            cx.job.trust.refusal("the project's tests"),
        );
    }
    let errors = check.introduced_errors().count();
    if errors > 0 {
        return report(
            State::Skipped,
            None,
            format!(
                "the result has {errors} new error(s); the tests were not run on code that does not check"
            ),
        );
    }
    if matches!(check.state, State::Timeout | State::Skipped) {
        return report(
            State::Skipped,
            None,
            "the check did not finish; the tests were not run".to_string(),
        );
    }
    let ran = cx.sync(Side::Before, &BTreeMap::new()).and_then(|synced| {
        let key = cx.before_key(&synced, Side::Before);
        let runner = match cx.job.lang {
            Language::Rust => rust_runner(cx, &key),
            Language::Python => python_runner(cx),
        }?;
        run_both(cx, &runner, &key, wanted)
    });
    let (runner_name, before, after) = match ran {
        Ok(Ran::Both(name, before, after)) => (name, before, after),
        Ok(Ran::OverBudget(name, reason)) => return report(State::Skipped, Some(name), reason),
        Err(StepError::Unavailable(reason)) => {
            return report(
                State::Unavailable,
                None,
                format!("the tests were not run: {reason}"),
            );
        }
        Err(StepError::Stopped(stop, step)) => {
            let (state, reason) = match stop {
                Stop::Timeout(limit) => (
                    State::Timeout,
                    format!(
                        "gave up after {} s while {step}; raise [verify] tests_timeout_secs in .candor/config.toml",
                        limit.as_millis().div_ceil(1000)
                    ),
                ),
                Stop::Cancelled => (State::Skipped, format!("cancelled while {step}")),
            };
            return report(state, None, reason);
        }
    };
    let failing = newly_failing(&before, &after);
    TestReport {
        runner: Some(runner_name),
        state: if failing.is_empty() {
            State::Clean
        } else {
            State::Introduced
        },
        passed_before: before.values().filter(|o| o.passed).count(),
        failing,
        duration_ms: millis(started.elapsed()),
        reason: None,
    }
}

/// How to run one language's tests on a shadow.
struct Runner {
    label: String,
    program: Program,
    /// The arguments of a run of every test.
    args: Vec<String>,
    env: Vec<(&'static str, std::ffi::OsString)>,
    kind: RunnerKind,
    /// The working directory below the shadow's root.
    dir: String,
    /// Rust: the `-p` specs, those holding a changed file first (how many).
    packages: Vec<String>,
    direct: usize,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum RunnerKind {
    Cargo,
    Pytest,
    Unittest,
}

impl RunnerKind {
    fn parse(self) -> fn(&str, &Path) -> Outcomes {
        match self {
            RunnerKind::Cargo => parse_libtest,
            RunnerKind::Pytest => parse_pytest,
            RunnerKind::Unittest => parse_unittest,
        }
    }
}

/// What the two runs gave.
enum Ran {
    Both(String, Outcomes, Outcomes),
    /// The tests are not cheap enough to run with every check: why.
    OverBudget(String, String),
}

/// The words of a skipped cheap run.
fn over_budget(seconds: u64, budget: Duration, measured: bool) -> String {
    let budget = budget.as_secs();
    let took = if measured {
        format!("took {seconds} s")
    } else {
        format!("take more than {budget} s")
    };
    format!(
        "not run with this check: the tests {took} before the refactor, more than the {budget} s budget ([verify] tests_budget_secs); press t to run them"
    )
}

fn run_both(
    cx: &mut Context<'_>,
    runner: &Runner,
    before_key: &str,
    wanted: Wanted,
) -> Result<Ran, StepError> {
    let identity = format!("{}|{}", runner.program.identity(), runner.args.join(" "));
    let key = memo::key(&["tests before", &identity, &runner.dir, before_key]);
    let last_key = memo::key(&["tests last duration", &identity, &runner.dir]);
    let remembered: Option<Baseline> = cx.memo.get(&key);
    let budget = match wanted {
        Wanted::IfCheap(budget) => {
            let last = remembered
                .as_ref()
                .map(|b| b.duration_ms)
                .or_else(|| cx.memo.get::<u64>(&last_key));
            if let Some(ms) = last
                && Duration::from_millis(ms) > budget
            {
                return Ok(Ran::OverBudget(
                    runner.label.clone(),
                    over_budget(ms.div_ceil(1000), budget, true),
                ));
            }
            Some(budget)
        }
        Wanted::Asked => None,
    };
    let before = match remembered {
        Some(baseline) => {
            cx.progress
                .record("tests before (remembered)", Instant::now());
            baseline.outcomes
        }
        None => {
            let started = Instant::now();
            let outer = cx.budget;
            if let Some(budget) = budget {
                cx.budget = outer.shortened(budget);
            }
            let ran = run_once(
                cx,
                runner,
                Side::Before,
                &runner.args,
                "running the tests before the refactor",
            );
            cx.budget = outer;
            let duration_ms = millis(started.elapsed());
            cx.progress.record("tests before", started);
            let outcomes = match (ran, budget) {
                (Err(StepError::Stopped(Stop::Timeout(_), _)), Some(budget))
                    if outer.check().is_ok() =>
                {
                    cx.memo.put(&last_key, &duration_ms);
                    return Ok(Ran::OverBudget(
                        runner.label.clone(),
                        over_budget(0, budget, false),
                    ));
                }
                (ran, _) => ran?,
            };
            if outcomes.is_empty() {
                return Err(StepError::Unavailable(format!(
                    "{} found no test that runs before the refactor",
                    runner.label
                )));
            }
            cx.memo.put(
                &key,
                &Baseline {
                    outcomes: outcomes.clone(),
                    duration_ms,
                },
            );
            cx.memo.put(&last_key, &duration_ms);
            outcomes
        }
    };
    cx.sync(Side::After, &BTreeMap::new())?;
    let phases = affected::phases(cx, runner, &before);
    let mut after = Outcomes::new();
    let started = Instant::now();
    let count = phases.len();
    for (i, phase) in phases.iter().enumerate() {
        let step = match (count, i) {
            (1, _) => "running the tests after the refactor".to_string(),
            (_, 0) => format!(
                "running the tests after the refactor: first those that can see the change ({})",
                phase.what
            ),
            _ => format!(
                "running the other tests after the refactor ({})",
                phase.what
            ),
        };
        after.extend(run_once(cx, runner, Side::After, &phase.args, &step)?);
        if i == 0 && count > 1 {
            let failing = newly_failing(&before, &after).len();
            let (done, _) = (after.len(), before.len());
            cx.progress.say(
                &format!(
                    "{failing} newly failing among the {done} tests that can see the change; running the others"
                ),
                Some((done, before.len())),
            );
        }
    }
    cx.progress.record("tests after", started);
    Ok(Ran::Both(runner.label.clone(), before, after))
}

/// One run of the runner with `args` on a side's shadow; its outcomes with project paths.
fn run_once(
    cx: &Context<'_>,
    runner: &Runner,
    side: Side,
    args: &[String],
    step: &str,
) -> Result<Outcomes, StepError> {
    let (_, shadow) = cx.shadow(side);
    let mut command = runner.program.command();
    command.args(args).current_dir(shadow.join(&runner.dir));
    for (key, value) in &runner.env {
        command.env(key, value);
    }
    // The project's own tests: no checker limits (they may need memory), but the deadline,
    // cancellation and death with candor still hold.
    let done = cx.run_with(&mut command, step, Limits::NONE)?;
    let output = format!(
        "{}\n{}",
        done.stdout_text(),
        String::from_utf8_lossy(&done.stderr)
    );
    let mut outcomes = (runner.kind.parse())(&output, &shadow);
    // Paths as the runner gave them: absolute in the shadow, or relative to where it ran.
    for outcome in outcomes.values_mut() {
        if let Some(file) = &mut outcome.file {
            *file = if Path::new(file.as_str()).is_absolute() {
                project_path(file, &shadow)
            } else {
                Path::new(&runner.dir)
                    .join(&*file)
                    .to_string_lossy()
                    .into_owned()
            };
        }
    }
    Ok(outcomes)
}

/// Tests that passed before and fail (or no longer run) after.
fn newly_failing(before: &Outcomes, after: &Outcomes) -> Vec<FailingTest> {
    before
        .iter()
        .filter(|(_, o)| o.passed)
        .filter_map(|(name, _)| {
            let outcome = match after.get(name) {
                Some(o) if o.passed => return None,
                Some(o) => o.clone(),
                None => Outcome {
                    passed: false,
                    file: None,
                    line: None,
                    message: "it did not run after the refactor (its test program failed to build or crashed)"
                        .to_string(),
                },
            };
            Some(FailingTest {
                name: name.clone(),
                file: outcome.file,
                line: outcome.line,
                message: outcome.message,
            })
        })
        .collect()
}

fn rust_runner(cx: &Context<'_>, before_key: &str) -> Result<Runner, StepError> {
    let cargo = cx
        .program("cargo", cx.job.settings.cargo.as_ref(), &["cargo"])
        .map_err(StepError::Unavailable)?;
    let (workspace, packages, direct) = super::cargo::test_scope(cx, &cargo, before_key)?;
    let args = cargo_test_args(&packages);
    Ok(Runner {
        label: format!("cargo test -p {}", packages.join(" -p ")),
        program: cargo,
        args,
        env: vec![
            ("CARGO_TARGET_DIR", cx.cache.target().into_os_string()),
            ("CARGO_TERM_COLOR", "never".into()),
            ("RUST_BACKTRACE", "0".into()),
        ],
        kind: RunnerKind::Cargo,
        dir: workspace,
        packages,
        direct,
    })
}

/// `cargo test --no-fail-fast -p …`.
fn cargo_test_args(packages: &[String]) -> Vec<String> {
    let mut args: Vec<String> = ["test", "--no-fail-fast"].map(String::from).to_vec();
    for package in packages {
        args.extend(["-p".to_string(), package.clone()]);
    }
    args
}

fn python_runner(cx: &Context<'_>) -> Result<Runner, StepError> {
    // The project's own virtual environment has its dependencies; the project is trusted here.
    let venv = [".venv/bin/python", "venv/bin/python"]
        .iter()
        .map(|p| cx.job.root.join(p))
        .find(|p| p.is_file());
    let python = match (&cx.job.settings.python, venv) {
        (Some(configured), _) => cx.program("python", Some(configured), &["python3", "python"]),
        (None, Some(venv)) => Ok(Program {
            path: venv,
            path_env: crate::programs::child_path(&cx.job.root),
            ..Program::default()
        }),
        (None, None) => cx.program("python", None, &["python3", "python"]),
    }
    .map_err(StepError::Unavailable)?;
    let mut probe = python.command();
    probe
        .args(["-I", "-c", "import pytest"])
        .current_dir(cx.cache.scratch());
    let has_pytest = cx
        .run(&mut probe, "looking for pytest")
        .is_ok_and(|done| done.status.success());
    let mut args = Vec::new();
    let (label, kind) = if has_pytest {
        args.extend(
            [
                "-m",
                "pytest",
                "-rA",
                "-q",
                "-p",
                "no:cacheprovider",
                "--color=no",
            ]
            .map(String::from),
        );
        ("python -m pytest", RunnerKind::Pytest)
    } else {
        args.extend(["-m", "unittest", "-v"].map(String::from));
        ("python -m unittest", RunnerKind::Unittest)
    };
    let dir = cx
        .job
        .changes
        .iter()
        .find(|c| Language::from_path(&c.path) == Some(Language::Python))
        .map(|c| python_test_dir(&cx.job.root, &c.path))
        .unwrap_or_default();
    Ok(Runner {
        label: label.to_string(),
        program: python,
        args,
        env: vec![("PYTHONDONTWRITEBYTECODE", "1".into())],
        kind,
        dir,
        packages: Vec::new(),
        direct: 0,
    })
}

/// Where a Python project's tests run from (project-relative): the nearest directory above
/// `file` with a project file (pyproject.toml, setup.cfg, setup.py, pytest.ini, tox.ini), else
/// the directory its outermost package sits in (so `import pkg` works).
fn python_test_dir(root: &Path, file: &str) -> String {
    const PROJECT_FILES: &[&str] = &[
        "pyproject.toml",
        "setup.cfg",
        "setup.py",
        "pytest.ini",
        "tox.ini",
    ];
    let mut dirs: Vec<&Path> = Path::new(file).ancestors().skip(1).collect();
    if dirs.last() != Some(&Path::new("")) {
        dirs.push(Path::new(""));
    }
    if let Some(dir) = dirs
        .iter()
        .find(|d| PROJECT_FILES.iter().any(|f| root.join(d).join(f).is_file()))
    {
        return dir.to_string_lossy().into_owned();
    }
    let outside_packages = dirs
        .iter()
        .find(|d| d.as_os_str().is_empty() || !root.join(d).join("__init__.py").is_file());
    outside_packages
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// A path from a runner's output, project-relative when it lies in the shadow.
fn project_path(file: &str, shadow: &Path) -> String {
    Path::new(file)
        .strip_prefix(shadow)
        .map(|p| p.to_string_lossy().into_owned())
        .unwrap_or_else(|_| file.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_tests_run_from_the_project_or_above_the_packages() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for d in ["py/calc", "app/src/pkg/sub"] {
            std::fs::create_dir_all(root.join(d)).unwrap();
        }
        for f in [
            "py/calc/__init__.py",
            "app/src/pkg/__init__.py",
            "app/src/pkg/sub/__init__.py",
            "app/pyproject.toml",
        ] {
            std::fs::write(root.join(f), "").unwrap();
        }
        assert_eq!(python_test_dir(root, "py/calc/scaling.py"), "py");
        assert_eq!(python_test_dir(root, "app/src/pkg/sub/m.py"), "app");
        assert_eq!(python_test_dir(root, "script.py"), "");
    }

    #[test]
    fn only_tests_that_passed_before_count() {
        let outcome = |passed| Outcome {
            passed,
            file: None,
            line: None,
            message: String::new(),
        };
        let before = Outcomes::from([
            ("a".to_string(), outcome(true)),
            ("b".to_string(), outcome(false)),
            ("c".to_string(), outcome(true)),
            ("d".to_string(), outcome(true)),
        ]);
        let after = Outcomes::from([
            ("a".to_string(), outcome(true)),
            ("b".to_string(), outcome(false)),
            ("c".to_string(), outcome(false)),
        ]);
        let failing = newly_failing(&before, &after);
        let names: Vec<&str> = failing.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, vec!["c", "d"]);
        assert!(failing[1].message.contains("did not run"));
    }
}
