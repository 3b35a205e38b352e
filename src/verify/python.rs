//! The Python check, on both shadows at once: `ruff check` (pyflakes rules and syntax errors,
//! whatever the project's ruff config selects), `compile()` of each file (what `py_compile`
//! does, without writing bytecode) and, where installed, basedpyright (or pyright) in standard
//! mode. None of them runs project code: the interpreter is candor's (config or PATH), started
//! isolated (`-I -S`) from a directory outside the project; the type checker gets that
//! interpreter explicitly and candor's own `pyrightconfig.json`, so no project setting can make
//! it run the repository's interpreter.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::lang::Language;
use crate::refactor::Severity;

use super::process::Program;
use super::shadow::Sharing;
use super::{Checked, Context, Diagnostic, Side, StepError, diff};

/// What `compile()` checks, as a script for `python -I -S -c`: one JSON list of problems.
const COMPILE_SCRIPT: &str = r#"
import json, sys, warnings
out = []
for path in sys.argv[1:]:
    try:
        with open(path, "rb") as f:
            source = f.read()
    except OSError:
        continue
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            compile(source, path, "exec", dont_inherit=True)
        except SyntaxError as e:
            out.append({"file": path, "line": e.lineno or 1, "code": type(e).__name__, "message": e.msg, "severity": "error"})
        except (ValueError, TypeError) as e:
            out.append({"file": path, "line": 1, "code": type(e).__name__, "message": str(e), "severity": "error"})
    for w in caught:
        if issubclass(w.category, SyntaxWarning):
            out.append({"file": path, "line": w.lineno or 1, "code": "SyntaxWarning", "message": str(w.message), "severity": "warning"})
print(json.dumps(out))
"#;

/// candor's type-checker settings, written over the project's in the shadows: the standard
/// mode's errors, and nothing that names an interpreter or a virtual environment.
const PYRIGHT_CONFIG: &str = r#"{
  "typeCheckingMode": "standard",
  "reportMissingModuleSource": "none"
}
"#;

/// The checkers found for this check.
struct Tools {
    /// The real interpreter (`sys.executable`) and its `major.minor`.
    python: Option<(PathBuf, String)>,
    ruff: Option<Program>,
    pyright: Option<Program>,
    not_run: Vec<String>,
}

pub(super) fn check(cx: &mut Context<'_>) -> Result<Checked, StepError> {
    let tools = find_tools(cx)?;
    let files = files_to_check(cx);
    if files.is_empty() {
        return Err(StepError::Unavailable(
            "the refactor changes no Python file".to_string(),
        ));
    }
    let mut extra = BTreeMap::new();
    if tools.pyright.is_some() {
        extra.insert(
            "pyrightconfig.json".to_string(),
            PYRIGHT_CONFIG.as_bytes().to_vec(),
        );
    }
    cx.sync(
        &cx.shadow(Side::Before),
        Side::Before,
        Sharing::Links,
        &extra,
    )?;
    cx.sync(&cx.shadow(Side::After), Side::After, Sharing::Links, &extra)?;
    let maps = diff::line_maps(&cx.job.changes);
    let cx = &*cx;
    let (before, after) = std::thread::scope(|s| {
        let before = s.spawn(|| run_all(cx, &tools, &cx.shadow(Side::Before), &files, "before"));
        let after = run_all(cx, &tools, &cx.shadow(Side::After), &files, "after");
        (before.join(), after)
    });
    let before = before.map_err(|_| {
        StepError::Unavailable("the check of the project before the refactor panicked".to_string())
    })??;
    let after = after?;
    let mut checked = Checked {
        not_run: tools.not_run,
        ..Checked::default()
    };
    for (name, old) in before {
        // A checker that ran on one side only cannot say what changed.
        let Some((_, new)) = after.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        match (old, new) {
            (Ok(old), Ok(new)) => {
                let (introduced, preexisting) = diff::introduced(&old, new, &maps);
                checked.introduced.extend(introduced);
                checked.preexisting += preexisting;
                checked.checkers.push(name.to_string());
            }
            (Err(reason), _) => checked.not_run.push(format!("{name}: {reason}")),
            (_, Err(reason)) => checked.not_run.push(format!("{name}: {reason}")),
        }
    }
    if checked.checkers.is_empty() {
        return Err(StepError::Unavailable(format!(
            "no Python checker could run: {}",
            checked.not_run.join("; ")
        )));
    }
    Ok(checked)
}

/// The checkers on PATH or in the config file; an error when there is none at all.
fn find_tools(cx: &Context<'_>) -> Result<Tools, StepError> {
    let settings = &cx.job.settings;
    let mut not_run = Vec::new();
    let python = cx
        .program("python", settings.python.as_ref(), &["python3", "python"])
        .map_err(|e| format!("compile: {e}"))
        .and_then(|program| interpreter(cx, &program));
    let python = match python {
        Ok(found) => Some(found),
        Err(reason) => {
            not_run.push(reason);
            None
        }
    };
    let ruff = match cx.program("ruff", settings.ruff.as_ref(), &["ruff"]) {
        Ok(program) => Some(program),
        Err(e) => {
            not_run.push(format!("ruff: {e}{}", install_hint(&e, "ruff")));
            None
        }
    };
    let pyright = match cx.program(
        "pyright",
        settings.pyright.as_ref(),
        &["basedpyright", "pyright"],
    ) {
        Ok(program) => Some(program),
        Err(e) => {
            not_run.push(format!(
                "basedpyright: {e}{}",
                install_hint(&e, "basedpyright")
            ));
            None
        }
    };
    if python.is_none() && ruff.is_none() && pyright.is_none() {
        return Err(StepError::Unavailable(format!(
            "no Python checker found ({}); install them or name them in [verify] of .candor/config.toml",
            not_run.join("; ")
        )));
    }
    Ok(Tools {
        python,
        ruff,
        pyright,
        not_run,
    })
}

/// " (pip install NAME)" after a "not found", nothing after a refusal.
fn install_hint(reason: &str, package: &str) -> String {
    if reason.contains("not found") {
        format!(" (pip install {package})")
    } else {
        String::new()
    }
}

/// The interpreter behind `program` (a pyenv shim or a venv link resolved) and its version,
/// asked in isolated mode from the scratch directory.
fn interpreter(cx: &Context<'_>, program: &Program) -> Result<(PathBuf, String), String> {
    let mut command = program.command();
    command
        .args([
            "-I",
            "-S",
            "-c",
            "import sys; print(sys.executable); print('%d.%d' % sys.version_info[:2])",
        ])
        .current_dir(cx.cache.scratch());
    let done = super::process::run(&mut command, &cx.budget)
        .map_err(|e| format!("compile: {} did not start: {e:?}", program.path.display()))?;
    let out = done.stdout_text();
    let mut lines = out.lines();
    match (lines.next(), lines.next()) {
        (Some(exe), Some(version)) if done.status.success() && !exe.is_empty() => {
            Ok((PathBuf::from(exe), version.trim().to_string()))
        }
        _ => Err(format!(
            "compile: {} is not a working Python interpreter: {}",
            program.path.display(),
            done.stderr_tail(2)
        )),
    }
}

/// The changed Python files and the other files worth checking, project-relative.
fn files_to_check(cx: &Context<'_>) -> Vec<String> {
    let mut files: Vec<String> = cx
        .job
        .changes
        .iter()
        .map(|c| c.path.clone())
        .chain(cx.job.also_check.iter().cloned())
        .filter(|p| Language::from_path(p) == Some(Language::Python))
        .collect();
    files.sort();
    files.dedup();
    files
}

/// Each checker that ran on one shadow, in order, with its diagnostics or why it failed.
type Results = Vec<(&'static str, Result<Vec<Diagnostic>, String>)>;

/// Every checker on one shadow. A checker that fails is reported, not fatal; running out of time
/// is.
fn run_all(
    cx: &Context<'_>,
    tools: &Tools,
    shadow: &Path,
    files: &[String],
    when: &str,
) -> Result<Results, StepError> {
    let present: Vec<&String> = files.iter().filter(|f| shadow.join(f).is_file()).collect();
    let absolute: Vec<PathBuf> = present.iter().map(|f| shadow.join(f)).collect();
    let mut results = Results::new();
    if let Some(ruff) = &tools.ruff {
        results.push(("ruff", ruff_check(cx, ruff, shadow, &absolute, when)?));
    }
    if let Some((python, _)) = &tools.python {
        results.push((
            "compile",
            compile_check(cx, python, shadow, &absolute, when)?,
        ));
    }
    if let Some(pyright) = &tools.pyright {
        let python = tools.python.as_ref().map(|(p, _)| p.as_path());
        results.push((
            "basedpyright",
            pyright_check(cx, pyright, python, shadow, &absolute, when)?,
        ));
    }
    Ok(results)
}

/// Runs one checker command; `Ok(Err(reason))` when it ran but failed.
fn run_tool(
    cx: &Context<'_>,
    command: &mut std::process::Command,
    step: &str,
) -> Result<Result<super::process::Finished, String>, StepError> {
    match cx.run(command, step) {
        Ok(done) => Ok(Ok(done)),
        Err(StepError::Unavailable(reason)) => Ok(Err(reason)),
        Err(stop) => Err(stop),
    }
}

fn ruff_check(
    cx: &Context<'_>,
    ruff: &Program,
    shadow: &Path,
    files: &[PathBuf],
    when: &str,
) -> Result<Result<Vec<Diagnostic>, String>, StepError> {
    if files.is_empty() {
        return Ok(Ok(Vec::new()));
    }
    let step = format!("running ruff {when} the refactor");
    let rules = [
        "lint.select = [\"F\", \"E9\"]",
        "lint.extend-select = []",
        "lint.ignore = []",
        "lint.per-file-ignores = {}",
        "lint.extend-per-file-ignores = {}",
    ];
    let attempt = |isolated: bool| {
        let mut command = ruff.command();
        command
            .args(["check", "--output-format", "json", "--no-cache", "--no-fix"])
            .arg("--no-force-exclude")
            .current_dir(shadow);
        if isolated {
            command.arg("--isolated");
        }
        for rule in rules {
            command.args(["--config", rule]);
        }
        command.arg("--").args(files);
        run_tool(cx, &mut command, &step)
    };
    // The project's ruff config says which Python it targets and which builtins it has; when
    // this ruff cannot read it, the rules alone are still worth checking.
    let mut done = attempt(false)?;
    if matches!(&done, Ok(d) if d.status.code() == Some(2)) {
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
                severity: ruff_severity(&code),
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
fn ruff_severity(code: &str) -> Severity {
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

fn compile_check(
    cx: &Context<'_>,
    python: &Path,
    shadow: &Path,
    files: &[PathBuf],
    when: &str,
) -> Result<Result<Vec<Diagnostic>, String>, StepError> {
    if files.is_empty() {
        return Ok(Ok(Vec::new()));
    }
    let mut command = std::process::Command::new(python);
    command
        .args(["-I", "-S", "-c", COMPILE_SCRIPT])
        .args(files)
        .current_dir(cx.cache.scratch());
    let done = match run_tool(cx, &mut command, &format!("compiling {when} the refactor"))? {
        Ok(done) => done,
        Err(reason) => return Ok(Err(reason)),
    };
    let Ok(Value::Array(items)) = serde_json::from_slice::<Value>(&done.stdout) else {
        return Ok(Err(format!("compile failed: {}", done.stderr_tail(3))));
    };
    Ok(Ok(items
        .iter()
        .filter_map(|item| {
            Some(Diagnostic {
                file: relative(shadow, item.get("file")?.as_str()?)?,
                line: item.get("line").and_then(Value::as_u64).unwrap_or(1).max(1) as usize,
                severity: if item.get("severity").and_then(Value::as_str) == Some("warning") {
                    Severity::Warning
                } else {
                    Severity::Error
                },
                code: item
                    .get("code")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                message: item
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                source: "compile".to_string(),
            })
        })
        .collect()))
}

fn pyright_check(
    cx: &Context<'_>,
    pyright: &Program,
    python: Option<&Path>,
    shadow: &Path,
    files: &[PathBuf],
    when: &str,
) -> Result<Result<Vec<Diagnostic>, String>, StepError> {
    if files.is_empty() {
        return Ok(Ok(Vec::new()));
    }
    let mut command = pyright.command();
    command
        .arg("--outputjson")
        .arg("-p")
        .arg(shadow.join("pyrightconfig.json"))
        .current_dir(cx.cache.scratch());
    if let Some(python) = python {
        command.arg("--pythonpath").arg(python);
    }
    command.args(files);
    let step = format!("type-checking {when} the refactor");
    let done = match run_tool(cx, &mut command, &step)? {
        Ok(done) => done,
        Err(reason) => return Ok(Err(reason)),
    };
    let Ok(report) = serde_json::from_slice::<Value>(&done.stdout) else {
        return Ok(Err(format!(
            "{} failed: {}",
            pyright.path.display(),
            done.stderr_tail(3)
        )));
    };
    let items = report
        .get("generalDiagnostics")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Ok(Ok(items
        .iter()
        .filter_map(|item| {
            let severity = match item.get("severity").and_then(Value::as_str)? {
                "error" => Severity::Error,
                "warning" => Severity::Warning,
                _ => return None,
            };
            Some(Diagnostic {
                file: relative(shadow, item.get("file")?.as_str()?)?,
                line: item
                    .pointer("/range/start/line")
                    .and_then(Value::as_u64)
                    .unwrap_or(0) as usize
                    + 1,
                severity,
                code: item
                    .get("rule")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                message: item
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string(),
                source: "basedpyright".to_string(),
            })
        })
        .collect()))
}

/// The project-relative path of a file in a shadow; `None` for anything outside it.
fn relative(shadow: &Path, file: &str) -> Option<String> {
    Path::new(file)
        .strip_prefix(shadow)
        .ok()
        .map(|p| p.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_failures_at_run_time_are_errors() {
        assert_eq!(ruff_severity("F821"), Severity::Error);
        assert_eq!(ruff_severity("E999"), Severity::Error);
        assert_eq!(ruff_severity("invalid-syntax"), Severity::Error);
        assert_eq!(ruff_severity("F401"), Severity::Warning);
        assert_eq!(ruff_severity("F841"), Severity::Warning);
    }

    #[test]
    fn paths_outside_the_shadow_are_dropped() {
        let shadow = Path::new("/cache/edit");
        assert_eq!(
            relative(shadow, "/cache/edit/pkg/a.py").as_deref(),
            Some("pkg/a.py")
        );
        assert_eq!(relative(shadow, "/usr/lib/python3/os.py"), None);
    }
}
