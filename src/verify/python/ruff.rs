//! `ruff check` with the pyflakes rules and syntax errors (F, E9), whatever else the project
//! selects. In a trusted project ruff reads the project's settings (target version, builtins),
//! falling back to none when this ruff cannot read them; in an untrusted one it runs
//! `--isolated`: a setting such as `extend = "/dev/zero"` could make it read anything.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::refactor::Severity;

use super::super::process::Program;
use super::super::{Context, Diagnostic, Side, StepError};
use super::{Said, relative, run_tool};

/// The rules every run selects (given as `--config` overrides).
pub(super) const SETTINGS: &str = "lint.select = [\"F\", \"E9\"]\nlint.extend-select = []\nlint.ignore = []\nlint.per-file-ignores = {}\nlint.extend-per-file-ignores = {}";

pub(super) fn check(
    cx: &Context<'_>,
    ruff: &Program,
    shadow: &Path,
    files: &[PathBuf],
    side: Side,
) -> Result<Said, StepError> {
    let step = format!("running ruff {}", side.as_str());
    let trusted = cx.job.trust.allows_project_programs();
    let attempt = |isolated: bool| {
        let mut command = ruff.command();
        command
            .args(["check", "--output-format", "json", "--no-cache", "--no-fix"])
            .arg("--no-force-exclude")
            .current_dir(shadow);
        if isolated {
            command.arg("--isolated");
        }
        for rule in SETTINGS.lines() {
            command.args(["--config", rule]);
        }
        command.arg("--").args(files);
        run_tool(cx, &mut command, &step)
    };
    // The project's ruff config says which Python it targets and which builtins it has; when
    // this ruff cannot read it, the rules alone are still worth checking.
    let mut done = attempt(!trusted)?;
    if trusted && matches!(&done, Ok(d) if d.status.code() == Some(2)) {
        done = attempt(true)?;
    }
    let done = match done {
        Ok(done) => done,
        Err(reason) => return Ok(Err(reason)),
    };
    if done.status.code() == Some(2) {
        return Ok(Err(format!("ruff failed: {}", done.stderr_tail(3))));
    }
    let Ok(Value::Array(items)) = serde_json::from_slice::<Value>(&done.stdout) else {
        return Ok(Err(format!(
            "ruff printed something else than JSON: {}",
            done.stderr_tail(2)
        )));
    };
    Ok(Ok(items
        .iter()
        .filter_map(|item| {
            let file = relative(shadow, item.get("filename")?.as_str()?)?;
            let code = item
                .get("code")
                .and_then(Value::as_str)
                .unwrap_or("invalid-syntax")
                .to_string();
            Some(Diagnostic {
                file,
                line: item
                    .pointer("/location/row")
                    .and_then(Value::as_u64)
                    .unwrap_or(1)
                    .max(1) as usize,
                severity: severity(&code),
                message: item
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                code,
                source: "ruff".to_string(),
            })
        })
        .collect()))
}

/// ruff gives every rule the same severity: errors are those that fail at import or run time.
fn severity(code: &str) -> Severity {
    const ERRORS: &[&str] = &[
        "invalid-syntax",
        "F821",
        "F822",
        "F823",
        "F701",
        "F702",
        "F704",
        "F706",
        "F707",
    ];
    if ERRORS.contains(&code) || code.starts_with("E9") {
        Severity::Error
    } else {
        Severity::Warning
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_failures_at_run_time_are_errors() {
        assert_eq!(severity("F821"), Severity::Error);
        assert_eq!(severity("E999"), Severity::Error);
        assert_eq!(severity("invalid-syntax"), Severity::Error);
        assert_eq!(severity("F401"), Severity::Warning);
        assert_eq!(severity("F841"), Severity::Warning);
    }
}
