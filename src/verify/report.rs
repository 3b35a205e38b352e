//! What a check answers (`data.verification`): its state, the diagnostics the refactor
//! introduced — errors in `introduced`, warnings in `introduced_warnings` —, the tests that newly
//! fail, the steps it took and how long each did. Pure data and its wording.

use serde::Serialize;

use crate::refactor::{Finding, Severity};

/// `data.verification.state`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum State {
    /// The checker ran before and after and found no new error and no newly failing test (new
    /// warnings, if any, are listed in `introduced_warnings`).
    Clean,
    /// The refactor introduced errors or broke tests.
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
    /// The checker's code: `E0106`, `F821`, `bad-argument-count`, `SyntaxError`; "" when it has
    /// none.
    pub code: String,
    pub message: String,
    /// Which checker said it: "cargo check", "ruff", "compile", "pyrefly", "basedpyright",
    /// "mypy".
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

/// One step of a check and how long it took (`data.verification.steps`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// "shadow after", "ruff before", "pyrefly before (remembered)", "tests after"…
    pub name: String,
    pub duration_ms: u64,
}

/// `data.verification`: what the project's own tools say about the result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Verification {
    /// The checker(s) that ran, e.g. "cargo check" or "ruff + compile + pyrefly"; null when
    /// none did.
    pub checker: Option<String>,
    pub state: State,
    /// Errors the refactor introduced, located in the result.
    pub introduced: Vec<Diagnostic>,
    /// Warnings the refactor introduced (they never make the state "introduced").
    pub introduced_warnings: Vec<Diagnostic>,
    /// Diagnostics that were there before and still are.
    pub preexisting: usize,
    pub duration_ms: u64,
    /// Why the state is what it is, when that needs saying (unavailable, timeout, skipped).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Checkers that could not run on this result, each with why (the others still did).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<String>,
    /// What the check left out or chose and the user should know (a file not mirrored, the
    /// type checker used instead of the configured one).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// The steps it took, in order, with their durations.
    pub steps: Vec<Step>,
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
            introduced_warnings: Vec::new(),
            preexisting: 0,
            duration_ms: 0,
            reason: Some(reason.into()),
            not_run: Vec::new(),
            notes: Vec::new(),
            steps: Vec::new(),
            tests: None,
        }
    }

    /// The introduced diagnostics of severity error.
    pub fn introduced_errors(&self) -> impl Iterator<Item = &Diagnostic> {
        self.introduced
            .iter()
            .filter(|d| d.severity == Severity::Error)
    }

    /// Every introduced diagnostic, errors first.
    pub fn all_introduced(&self) -> impl Iterator<Item = &Diagnostic> {
        self.introduced.iter().chain(&self.introduced_warnings)
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
    /// `introduced_warnings` only).
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

    /// A one-line summary for people: "cargo check: clean", "ruff + compile + pyrefly: clean
    /// (1 new warning)", "cargo check: 2 new errors".
    pub fn summary(&self) -> String {
        let checker = self.checker.as_deref().unwrap_or("check");
        let warnings = self.introduced_warnings.len();
        match self.state {
            State::Clean if warnings > 0 => {
                format!("{checker}: clean ({})", plural(warnings, "new warning"))
            }
            State::Clean => format!("{checker}: clean"),
            State::Introduced => {
                let errors = self.introduced_errors().count();
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

pub(crate) fn plural(n: usize, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn diagnostic(severity: Severity) -> Diagnostic {
        Diagnostic {
            file: "a.py".into(),
            line: 3,
            severity,
            code: "F841".into(),
            message: "local variable `x` is assigned to but never used".into(),
            source: "ruff".into(),
        }
    }

    #[test]
    fn new_warnings_alone_leave_the_result_clean_and_writable() {
        let mut v = Verification {
            checker: Some("ruff + compile + pyrefly".into()),
            state: State::Clean,
            introduced_warnings: vec![diagnostic(Severity::Warning)],
            ..Verification::skipped("")
        };
        v.reason = None;
        assert!(!v.blocks_apply());
        assert!(v.findings("a.py").is_empty());
        assert_eq!(
            v.summary(),
            "ruff + compile + pyrefly: clean (1 new warning)"
        );
        let json = serde_json::to_value(&v).unwrap();
        assert_eq!(json["state"], "clean");
        assert_eq!(json["introduced"], serde_json::json!([]));
        assert_eq!(json["introduced_warnings"][0]["code"], "F841");
    }
}
