//! Reading the test runners' output: Rust's test harness, pytest's `-rA` summary and
//! `python -m unittest -v`, each into one outcome per test. Pure.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// One test's outcome in a runner's output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Outcome {
    pub passed: bool,
    pub file: Option<String>,
    pub line: Option<usize>,
    pub message: String,
}

pub(crate) type Outcomes = BTreeMap<String, Outcome>;

/// `test name ... ok|FAILED|ignored` lines of Rust's test harness, with the location and first
/// line of each failure's panic (`panicked at src/lib.rs:10:5:` then the message).
pub(crate) fn parse_libtest(output: &str, _shadow: &Path) -> Outcomes {
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
pub(crate) fn parse_pytest(output: &str, _shadow: &Path) -> Outcomes {
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
pub(crate) fn parse_unittest(output: &str, shadow: &Path) -> Outcomes {
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
}
