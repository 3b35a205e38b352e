//! The deeper check on request (`verify: "tests"`): the project's tests on both shadows
//! (`cargo test` of the affected packages; `python -m pytest` where pytest is importable, else
//! `python -m unittest`), and the tests that passed before and fail after. Runs the project's
//! code, so only for a project whose programs may run, on shadows of copies, never links.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use super::process::Program;
use super::shadow::Sharing;
use super::{Context, FailingTest, Side, State, StepError, TestReport, Verification, millis};
use crate::lang::Language;

/// One test's outcome in a runner's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Outcome {
    pub passed: bool,
    pub file: Option<String>,
    pub line: Option<usize>,
    pub message: String,
}

type Outcomes = BTreeMap<String, Outcome>;

pub(super) fn run(cx: &mut Context<'_>, check: &Verification) -> TestReport {
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
    let runner = cx
        .sync(
            &cx.shadow(Side::Before),
            Side::Before,
            Sharing::Copies,
            &BTreeMap::new(),
        )
        .and_then(|()| match cx.job.lang {
            Language::Rust => rust_runner(cx),
            Language::Python => python_runner(cx),
        });
    let (runner_name, before, after) = match runner.and_then(|r| run_both(cx, &r)) {
        Ok(found) => found,
        Err(StepError::Unavailable(reason)) => {
            return report(
                State::Unavailable,
                None,
                format!("the tests were not run: {reason}"),
            );
        }
        Err(StepError::Stopped(stop, step)) => {
            let (state, reason) = match stop {
                super::process::Stop::Timeout(limit) => (
                    State::Timeout,
                    format!(
                        "gave up after {} s while {step}; raise [verify] tests_timeout_secs in .candor/config.toml",
                        limit.as_millis().div_ceil(1000)
                    ),
                ),
                super::process::Stop::Cancelled => {
                    (State::Skipped, format!("cancelled while {step}"))
                }
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

/// How to run one language's tests on a shadow.
struct Runner {
    label: String,
    program: std::path::PathBuf,
    args: Vec<String>,
    env: Vec<(&'static str, std::ffi::OsString)>,
    parse: fn(&str, &Path) -> Outcomes,
    /// The working directory below the shadow's root.
    dir: String,
}

fn run_both(
    cx: &mut Context<'_>,
    runner: &Runner,
) -> Result<(String, Outcomes, Outcomes), StepError> {
    let mut results = Vec::new();
    for side in [Side::Before, Side::After] {
        let shadow = cx.shadow(side);
        cx.sync(&shadow, side, Sharing::Copies, &BTreeMap::new())?;
        let when = side.as_str();
        let mut command = std::process::Command::new(&runner.program);
        command
            .args(&runner.args)
            .current_dir(shadow.join(&runner.dir));
        for (key, value) in &runner.env {
            command.env(key, value);
        }
        let done = cx.run(&mut command, &format!("running the tests {when}"))?;
        let output = format!(
            "{}\n{}",
            done.stdout_text(),
            String::from_utf8_lossy(&done.stderr)
        );
        let mut outcomes = (runner.parse)(&output, &shadow);
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
        if outcomes.is_empty() && side == Side::Before {
            return Err(StepError::Unavailable(format!(
                "{} found no test that runs {when}: {}",
                runner.label,
                done.stderr_tail(3)
            )));
        }
        results.push(outcomes);
    }
    let after = results.pop().unwrap_or_default();
    let before = results.pop().unwrap_or_default();
    Ok((runner.label.clone(), before, after))
}

fn rust_runner(cx: &Context<'_>) -> Result<Runner, StepError> {
    let cargo = cx
        .program("cargo", cx.job.settings.cargo.as_ref(), &["cargo"])
        .map_err(StepError::Unavailable)?;
    let (workspace, packages) = super::cargo::test_scope(cx, &cargo)?;
    let mut args = cargo.args.clone();
    args.extend(["test", "--no-fail-fast"].map(String::from));
    for package in &packages {
        args.extend(["-p".to_string(), package.clone()]);
    }
    Ok(Runner {
        label: format!("cargo test -p {}", packages.join(" -p ")),
        program: cargo.path,
        args,
        env: vec![
            ("CARGO_TARGET_DIR", cx.cache.target().into_os_string()),
            ("CARGO_TERM_COLOR", "never".into()),
            ("RUST_BACKTRACE", "0".into()),
        ],
        parse: parse_libtest,
        dir: workspace,
    })
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
            args: Vec::new(),
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
    let mut args = python.args.clone();
    let (label, parse): (&str, fn(&str, &Path) -> Outcomes) = if has_pytest {
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
        ("python -m pytest", parse_pytest)
    } else {
        args.extend(["-m", "unittest", "-v"].map(String::from));
        ("python -m unittest", parse_unittest)
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
        program: python.path,
        args,
        env: vec![("PYTHONDONTWRITEBYTECODE", "1".into())],
        parse,
        dir,
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

/// `test name ... ok|FAILED|ignored` lines of Rust's test harness, with the location and first
/// line of each failure's panic (`panicked at src/lib.rs:10:5:` then the message).
pub(super) fn parse_libtest(output: &str, _shadow: &Path) -> Outcomes {
    let mut outcomes = Outcomes::new();
    for line in output.lines() {
        let Some(rest) = line.strip_prefix("test ") else {
            continue;
        };
        let Some((name, status)) = rest.rsplit_once(" ... ") else {
            continue;
        };
        let passed = match status.trim() {
            "ok" => true,
            "FAILED" => false,
            _ => continue,
        };
        outcomes.insert(
            name.trim().to_string(),
            Outcome {
                passed,
                file: None,
                line: None,
                message: if passed {
                    String::new()
                } else {
                    "failed".to_string()
                },
            },
        );
    }
    // Failure details: `---- name stdout ----` blocks.
    let mut current: Option<String> = None;
    let mut lines = output.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(name) = line
            .strip_prefix("---- ")
            .and_then(|l| l.strip_suffix(" stdout ----"))
        {
            current = Some(name.to_string());
            continue;
        }
        let Some(name) = &current else { continue };
        if let Some(at) = line.split("panicked at ").nth(1) {
            let location = at.trim_end_matches(':');
            let mut parts = location.rsplitn(3, ':');
            let (_column, line_no, file) = (parts.next(), parts.next(), parts.next());
            let message = lines
                .peek()
                .map(|m| m.trim().to_string())
                .unwrap_or_default();
            if let Some(outcome) = outcomes.get_mut(name) {
                outcome.file = file.map(str::to_string);
                outcome.line = line_no.and_then(|l| l.parse().ok());
                if !message.is_empty() {
                    outcome.message = message;
                }
            }
            current = None;
        }
    }
    outcomes
}

/// pytest's `-rA` summary: `PASSED path::test`, `FAILED path::test - message`, `ERROR …`.
pub(super) fn parse_pytest(output: &str, _shadow: &Path) -> Outcomes {
    let mut outcomes = Outcomes::new();
    for line in output.lines() {
        let (passed, rest) = if let Some(rest) = line.strip_prefix("PASSED ") {
            (true, rest)
        } else if let Some(rest) = line
            .strip_prefix("FAILED ")
            .or_else(|| line.strip_prefix("ERROR "))
        {
            (false, rest)
        } else {
            continue;
        };
        let (name, message) = match rest.split_once(" - ") {
            Some((name, message)) => (name.trim(), message.trim()),
            None => (rest.trim(), if passed { "" } else { "failed" }),
        };
        let file = name.split("::").next().filter(|f| f.ends_with(".py"));
        outcomes.insert(
            name.to_string(),
            Outcome {
                passed,
                file: file.map(str::to_string),
                line: None,
                message: message.to_string(),
            },
        );
    }
    outcomes
}

/// `python -m unittest -v`: `test_b (pkg.tests.T.test_b) ... ok|FAIL|ERROR`, then a block per
/// failure whose last frame in the project and last line say where and what.
pub(super) fn parse_unittest(output: &str, shadow: &Path) -> Outcomes {
    let mut outcomes = Outcomes::new();
    let mut previous = "";
    for line in output.lines() {
        if let Some((name, status)) = line.rsplit_once(" ... ") {
            let passed = match status.trim() {
                "ok" => true,
                "FAIL" | "ERROR" | "unexpected success" => false,
                _ => {
                    previous = line;
                    continue;
                }
            };
            // A test with a docstring prints its name on the line before.
            let name = if name.ends_with(')') { name } else { previous };
            outcomes.insert(
                name.trim().to_string(),
                Outcome {
                    passed,
                    file: None,
                    line: None,
                    message: if passed {
                        String::new()
                    } else {
                        "failed".to_string()
                    },
                },
            );
        }
        previous = line;
    }
    // The failure blocks: `FAIL: name` up to the next `=====` rule or the closing `Ran N tests`.
    let mut blocks: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in output.lines() {
        if let Some(name) = line
            .strip_prefix("FAIL: ")
            .or_else(|| line.strip_prefix("ERROR: "))
        {
            blocks.push((name.trim(), Vec::new()));
        } else if line.starts_with("=====") || line.starts_with("Ran ") {
            blocks.push(("", Vec::new()));
        } else if let Some((_, body)) = blocks.last_mut() {
            body.push(line);
        }
    }
    for (name, body) in blocks {
        let Some(outcome) = outcomes.get_mut(name) else {
            continue;
        };
        for line in &body {
            if let Some(rest) = line.trim().strip_prefix("File \"")
                && let Some((file, rest)) = rest.split_once("\", line ")
                && Path::new(file).starts_with(shadow)
            {
                outcome.file = Some(file.to_string());
                outcome.line = rest.split(',').next().and_then(|n| n.trim().parse().ok());
            }
        }
        if let Some(last) = body
            .iter()
            .rev()
            .find(|l| !l.trim().is_empty() && !l.starts_with(' ') && !l.starts_with("---"))
        {
            outcome.message = last.trim().to_string();
        }
    }
    outcomes
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
    fn libtest_output_with_a_panic() {
        let output = "running 3 tests\ntest tests::a ... ok\ntest tests::b ... FAILED\ntest tests::c ... ignored\n\nfailures:\n\n---- tests::b stdout ----\n\nthread 'tests::b' panicked at src/lib.rs:42:9:\nassertion `left == right` failed\n  left: 1\n right: 2\n\nfailures:\n    tests::b\n\ntest result: FAILED. 1 passed; 1 failed\n";
        let found = parse_libtest(output, Path::new("/shadow"));
        assert_eq!(found.len(), 2);
        assert!(found["tests::a"].passed);
        let b = &found["tests::b"];
        assert!(!b.passed);
        assert_eq!(b.file.as_deref(), Some("src/lib.rs"));
        assert_eq!(b.line, Some(42));
        assert_eq!(b.message, "assertion `left == right` failed");
    }

    #[test]
    fn pytest_summary_lines() {
        let output = "..F\n=== short test summary info ===\nPASSED tests/test_a.py::test_one\nPASSED tests/test_a.py::T::test_two\nFAILED tests/test_a.py::test_three - assert 4 == 5\n1 failed, 2 passed in 0.03s\n";
        let found = parse_pytest(output, Path::new("/shadow"));
        assert_eq!(found.len(), 3);
        let three = &found["tests/test_a.py::test_three"];
        assert_eq!(
            (three.passed, three.file.as_deref(), three.message.as_str()),
            (false, Some("tests/test_a.py"), "assert 4 == 5")
        );
    }

    #[test]
    fn unittest_verbose_output_and_its_failure_blocks() {
        let output = "test_a (tests.test_m.T.test_a) ... ok\ntest_b (tests.test_m.T.test_b)\nA test with a docstring. ... FAIL\n\n======================================================================\nFAIL: test_b (tests.test_m.T.test_b)\nA test with a docstring.\n----------------------------------------------------------------------\nTraceback (most recent call last):\n  File \"/shadow/tests/test_m.py\", line 9, in test_b\n    self.assertEqual(grow(1, 3), 7)\nAssertionError: 5 != 7\n\n----------------------------------------------------------------------\nRan 2 tests in 0.001s\n\nFAILED (failures=1)\n";
        let found = parse_unittest(output, Path::new("/shadow"));
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found["test_a (tests.test_m.T.test_a)"].passed);
        let b = &found["test_b (tests.test_m.T.test_b)"];
        assert!(!b.passed);
        assert_eq!(b.file.as_deref(), Some("/shadow/tests/test_m.py"));
        assert_eq!(b.line, Some(9));
        assert_eq!(b.message, "AssertionError: 5 != 7");
    }

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
