//! The check of a preview's result with the project's own tools (cargo check; ruff, compile()
//! and a type checker; the project's tests on request or when cheap): what was asked, how far it got, what it
//! found. Pure data: the check thread runs it (`tui/verifier.rs`), the panel shows it.

use crate::lang::Language;
use crate::refactor::{Finding, Severity};
use crate::verify::{Level, State as Outcome, Verification};

/// Where the check of the result on screen is.
#[derive(Debug, Clone, PartialEq)]
pub enum CheckRun {
    /// Not asked: the project's `[verify] default` is off, or the result changes nothing.
    NotAsked,
    /// Asked and running (`step`: what it is doing now, as the checker reports it; `files`:
    /// files done and in all, when the step covers files; `started`: when it was asked).
    Running {
        step: Option<String>,
        files: Option<(usize, usize)>,
        started: std::time::Instant,
    },
    /// The user stopped it before it finished.
    Cancelled,
    /// Its answer (which may itself be "unavailable" or "timeout", with the reason).
    Done(Box<Verification>),
}

/// The check of one result.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    /// The id of the request whose answer is awaited (older answers are dropped).
    pub id: u64,
    /// How far it goes (the check only, or the tests too).
    pub level: Level,
    pub run: CheckRun,
    /// The introduced diagnostics and newly failing tests, as rows the panel lists and Enter
    /// jumps to (errors first).
    pub findings: Vec<Finding>,
}

impl Check {
    pub fn not_asked() -> Check {
        Check {
            id: 0,
            level: Level::Off,
            run: CheckRun::NotAsked,
            findings: Vec::new(),
        }
    }

    pub fn running(id: u64, level: Level) -> Check {
        Check {
            id,
            level,
            run: CheckRun::Running {
                step: None,
                files: None,
                started: std::time::Instant::now(),
            },
            findings: Vec::new(),
        }
    }

    pub fn is_running(&self) -> bool {
        matches!(self.run, CheckRun::Running { .. })
    }

    pub fn verification(&self) -> Option<&Verification> {
        match &self.run {
            CheckRun::Done(verification) => Some(verification),
            _ => None,
        }
    }

    /// Whether the check ran to its end and found nothing new.
    pub fn is_clean(&self) -> bool {
        self.verification()
            .is_some_and(|v| v.state == Outcome::Clean)
    }

    /// Whether writing the result would knowingly break the build or the tests.
    pub fn blocks_apply(&self) -> bool {
        self.verification().is_some_and(Verification::blocks_apply)
    }

    /// Takes the check's answer: the introduced diagnostics become rows (errors, then warnings),
    /// then the tests that newly fail.
    pub fn finish(&mut self, verification: Verification, fallback_file: &str) {
        let mut findings: Vec<Finding> = Vec::new();
        for severity in [Severity::Error, Severity::Warning] {
            findings.extend(
                verification
                    .all_introduced()
                    .filter(|d| d.severity == severity)
                    .map(|d| {
                        let code = if d.code.is_empty() {
                            String::new()
                        } else {
                            format!("{} ", d.code)
                        };
                        Finding {
                            file: d.file.clone(),
                            line: d.line,
                            severity,
                            message: format!("{code}{} ({})", d.message, d.source),
                        }
                    }),
            );
        }
        findings.extend(
            verification
                .findings(fallback_file)
                .into_iter()
                .filter(|f| f.message.starts_with("test `")),
        );
        self.findings = findings;
        self.run = CheckRun::Done(Box::new(verification));
    }

    /// `2 new compile errors`, `1 newly failing test`: what the confirmation names.
    pub fn found(&self, lang: Language) -> Vec<String> {
        let Some(verification) = self.verification() else {
            return Vec::new();
        };
        let mut parts = Vec::new();
        let errors = verification.introduced_errors().count();
        if errors > 0 {
            parts.push(match lang {
                Language::Rust => plural(errors, "new compile error"),
                Language::Python => format!("{} found by the check", plural(errors, "new error")),
            });
        }
        let tests = verification.failing_tests().len();
        if tests > 0 {
            parts.push(plural(tests, "newly failing test"));
        }
        parts
    }
}

/// The checker of `lang` as the panel names it before it ran.
pub fn checker_name(lang: Language) -> &'static str {
    match lang {
        Language::Rust => "cargo check",
        Language::Python => "ruff + compile + type check",
    }
}

pub fn plural(n: usize, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {one}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::Diagnostic;

    fn diagnostic(severity: Severity, code: &str) -> Diagnostic {
        Diagnostic {
            file: "src/lib.rs".to_string(),
            line: 12,
            severity,
            code: code.to_string(),
            message: "missing lifetime specifier".to_string(),
            source: "cargo check".to_string(),
        }
    }

    #[test]
    fn an_answer_with_new_errors_blocks_and_names_them() {
        let mut check = Check::running(7, Level::Check);
        assert!(check.is_running() && !check.blocks_apply());
        let verification = Verification {
            checker: Some("cargo check".to_string()),
            state: Outcome::Introduced,
            introduced: vec![
                diagnostic(Severity::Warning, "unused_variables"),
                diagnostic(Severity::Error, "E0106"),
            ],
            ..Verification::skipped("")
        };
        check.finish(verification, "src/lib.rs");
        assert!(check.blocks_apply());
        assert!(!check.is_clean());
        assert_eq!(check.found(Language::Rust), ["1 new compile error"]);
        let messages: Vec<&str> = check.findings.iter().map(|f| f.message.as_str()).collect();
        assert_eq!(
            messages,
            [
                "E0106 missing lifetime specifier (cargo check)",
                "unused_variables missing lifetime specifier (cargo check)"
            ]
        );
        assert_eq!(check.findings[0].severity, Severity::Error);
    }
}
