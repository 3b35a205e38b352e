//! The check of a preview's result with the project's own tools (cargo check; ruff, compile()
//! and a type checker; the project's tests on request or when cheap): what was asked, how far
//! it got, what it found. Pure data: the check thread runs it (`tui/verifier.rs`), the panel
//! shows it.

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
    /// The same problems by file and code (`E0425 × 2 in src/lib.rs`), in the order of
    /// `findings`; a failing test is a group of its own.
    pub groups: Vec<ProblemGroup>,
}

/// Problems the check found with the same severity, file and code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProblemGroup {
    pub severity: Severity,
    pub file: String,
    /// `E0425`, `F821`; empty for a failing test.
    pub code: String,
    /// `cargo check`, `ruff`; the test runner for a failing test.
    pub source: String,
    /// Indices into [`Check::findings`].
    pub members: Vec<usize>,
}

impl ProblemGroup {
    /// `E0425 × 2 in src/lib.rs (cargo check)`.
    pub fn label(&self) -> String {
        format!(
            "{} × {} in {} ({})",
            self.code,
            self.members.len(),
            self.file,
            self.source
        )
    }
}

impl Check {
    pub fn not_asked() -> Check {
        Check {
            id: 0,
            level: Level::Off,
            run: CheckRun::NotAsked,
            findings: Vec::new(),
            groups: Vec::new(),
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
            groups: Vec::new(),
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
    /// grouped by file and code, then the tests that newly fail.
    pub fn finish(&mut self, verification: Verification, fallback_file: &str) {
        let mut findings: Vec<Finding> = Vec::new();
        let mut groups: Vec<ProblemGroup> = Vec::new();
        for severity in [Severity::Error, Severity::Warning] {
            for d in verification
                .all_introduced()
                .filter(|d| d.severity == severity)
            {
                let code = if d.code.is_empty() {
                    String::new()
                } else {
                    format!("{} ", d.code)
                };
                let index = findings.len();
                findings.push(Finding {
                    file: d.file.clone(),
                    line: d.line,
                    severity,
                    message: format!("{code}{} ({})", d.message, d.source),
                    kind: None,
                });
                let same = |g: &&mut ProblemGroup| {
                    g.severity == severity
                        && g.file == d.file
                        && g.code == d.code
                        && g.source == d.source
                        && !d.code.is_empty()
                };
                match groups.iter_mut().find(same) {
                    Some(group) => group.members.push(index),
                    None => groups.push(ProblemGroup {
                        severity,
                        file: d.file.clone(),
                        code: d.code.clone(),
                        source: d.source.clone(),
                        members: vec![index],
                    }),
                }
            }
        }
        let runner = verification
            .tests
            .as_ref()
            .and_then(|t| t.runner.clone())
            .unwrap_or_else(|| "tests".to_string());
        for test in verification
            .findings(fallback_file)
            .into_iter()
            .filter(|f| f.message.starts_with("test `"))
        {
            groups.push(ProblemGroup {
                severity: test.severity,
                file: test.file.clone(),
                code: String::new(),
                source: runner.clone(),
                members: vec![findings.len()],
            });
            findings.push(test);
        }
        // Groups in the order of their first member: errors, then warnings, then the tests.
        groups.sort_by_key(|g| g.members[0]);
        self.findings = findings;
        self.groups = groups;
        self.run = CheckRun::Done(Box::new(verification));
    }

    /// What the check found of `severity`, for the panel's summary: `E0425 × 2, E0106 (cargo
    /// check)`, `1 newly failing test`; empty when nothing.
    pub fn summary(&self, severity: Severity) -> (usize, Vec<String>) {
        let mut by_source: Vec<(String, Vec<(String, usize)>)> = Vec::new();
        let mut tests = 0;
        let mut count = 0;
        for group in self.groups.iter().filter(|g| g.severity == severity) {
            count += group.members.len();
            if self.findings[group.members[0]]
                .message
                .starts_with("test `")
            {
                tests += group.members.len();
                continue;
            }
            let code = if group.code.is_empty() {
                "problem".to_string()
            } else {
                group.code.clone()
            };
            let at = match by_source.iter().position(|(s, _)| *s == group.source) {
                Some(at) => at,
                None => {
                    by_source.push((group.source.clone(), Vec::new()));
                    by_source.len() - 1
                }
            };
            let codes = &mut by_source[at].1;
            match codes.iter_mut().find(|(c, _)| *c == code) {
                Some((_, n)) => *n += group.members.len(),
                None => codes.push((code, group.members.len())),
            }
        }
        let mut parts: Vec<String> = by_source
            .into_iter()
            .map(|(source, codes)| {
                let shown: Vec<String> = codes
                    .iter()
                    .take(3)
                    .map(|(code, n)| {
                        if *n == 1 {
                            code.clone()
                        } else {
                            format!("{code} × {n}")
                        }
                    })
                    .collect();
                let more = codes.len().saturating_sub(3);
                let more = if more > 0 {
                    format!(" and {more} more")
                } else {
                    String::new()
                };
                format!("{}{more} ({source})", shown.join(", "))
            })
            .collect();
        if tests > 0 {
            parts.push(plural(tests, "newly failing test"));
        }
        (count, parts)
    }

    /// Why the result is not checked, when it is not (and the check is not running): what the
    /// confirmation names before a write. `None` once the check ran to its end.
    pub fn unchecked_why(&self, lang: Language) -> Option<String> {
        match &self.run {
            CheckRun::Running { .. } => None,
            CheckRun::NotAsked => Some(
                "the project turns the check off ([verify] default = false in .candor/config.toml)"
                    .to_string(),
            ),
            CheckRun::Cancelled => Some("the check was stopped before it finished".to_string()),
            CheckRun::Done(v) => {
                let checker = v.checker.as_deref().unwrap_or_else(|| checker_name(lang));
                let reason = v.reason.as_deref().map(short_reason);
                match (v.state, reason) {
                    (Outcome::Unavailable, Some(reason)) => {
                        Some(format!("{checker} unavailable: {reason}"))
                    }
                    (Outcome::Unavailable, None) => Some(format!("{checker} unavailable")),
                    (Outcome::Timeout, Some(reason)) => {
                        Some(format!("{checker} timed out: {reason}"))
                    }
                    (Outcome::Timeout, None) => Some(format!("{checker} timed out")),
                    (Outcome::Skipped, Some(reason)) => Some(format!("not checked: {reason}")),
                    (Outcome::Skipped, None) => Some("not checked".to_string()),
                    (Outcome::Clean | Outcome::Introduced, _) => None,
                }
            }
        }
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

/// A checker's reason in a few words: the trust it lacks, else its first clause (what follows a
/// `;` is advice, shown in the panel).
pub fn short_reason(reason: &str) -> String {
    if reason.contains("no longer trusted") {
        return "the project is no longer trusted (its .candor/config.toml changed)".to_string();
    }
    if reason.contains("not trusted") {
        return "the project is not trusted".to_string();
    }
    let first = reason.split("; ").next().unwrap_or(reason);
    let first = match first.split_once(" was not run: ") {
        Some((_, rest)) => rest,
        None => first,
    };
    first.trim_end_matches('.').to_string()
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
        assert_eq!(check.groups.len(), 2);
        assert_eq!(
            check.summary(Severity::Error),
            (1, vec!["E0106 (cargo check)".to_string()])
        );
    }

    #[test]
    fn problems_are_grouped_by_file_and_code_and_counted() {
        let mut check = Check::running(7, Level::Check);
        let mut other = diagnostic(Severity::Error, "E0425");
        other.file = "src/main.rs".to_string();
        let verification = Verification {
            checker: Some("cargo check".to_string()),
            state: Outcome::Introduced,
            introduced: vec![
                diagnostic(Severity::Error, "E0425"),
                diagnostic(Severity::Error, "E0106"),
                diagnostic(Severity::Error, "E0425"),
                other,
            ],
            ..Verification::skipped("")
        };
        check.finish(verification, "src/lib.rs");
        let labels: Vec<String> = check.groups.iter().map(ProblemGroup::label).collect();
        assert_eq!(
            labels,
            [
                "E0425 × 2 in src/lib.rs (cargo check)",
                "E0106 × 1 in src/lib.rs (cargo check)",
                "E0425 × 1 in src/main.rs (cargo check)"
            ]
        );
        assert_eq!(
            check.summary(Severity::Error),
            (4, vec!["E0425 × 3, E0106 (cargo check)".to_string()])
        );
    }

    #[test]
    fn a_result_that_was_not_checked_says_why_in_a_few_words() {
        let lang = Language::Rust;
        let mut check = Check::running(1, Level::Check);
        assert_eq!(check.unchecked_why(lang), None, "running: said otherwise");
        let refusal = crate::trust::Trust::Untrusted {
            root: "/p".into(),
            why: crate::trust::Untrusted::Never,
        }
        .refusal("`cargo check` in this project");
        check.finish(
            Verification {
                checker: Some("cargo check".to_string()),
                state: Outcome::Unavailable,
                ..Verification::skipped(refusal)
            },
            "src/lib.rs",
        );
        assert_eq!(
            check.unchecked_why(lang).as_deref(),
            Some("cargo check unavailable: the project is not trusted")
        );
        check.run = CheckRun::Cancelled;
        assert!(check.unchecked_why(lang).unwrap().contains("stopped"));
        check.finish(
            Verification {
                checker: Some("cargo check".to_string()),
                state: Outcome::Clean,
                ..Verification::skipped("")
            },
            "src/lib.rs",
        );
        assert_eq!(check.unchecked_why(lang), None);
        assert_eq!(
            short_reason("cargo check was not run: cargo not found on PATH; install Rust"),
            "cargo not found on PATH"
        );
    }
}
