//! `compile()` of each file in candor's interpreter (`-I -S`, from the scratch directory): what
//! `py_compile` does, without writing bytecode; syntax errors and syntax warnings.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::refactor::Severity;

use super::super::{Context, Diagnostic, Side, StepError};
use super::{Said, relative, run_tool};

/// What `compile()` checks, as a script for `python -I -S -c`: one JSON list of problems.
pub(super) const SCRIPT: &str = r#"
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

pub(super) fn check(
    cx: &Context<'_>,
    python: &Path,
    shadow: &Path,
    files: &[PathBuf],
    side: Side,
) -> Result<Said, StepError> {
    let mut command = std::process::Command::new(python);
    command
        .args(["-I", "-S", "-c", SCRIPT])
        .args(files)
        .current_dir(cx.cache.scratch());
    let done = match run_tool(cx, &mut command, &format!("compiling {}", side.as_str()))? {
        Ok(done) => done,
        Err(reason) => return Ok(Err(reason)),
    };
    let Ok(Value::Array(items)) = serde_json::from_slice::<Value>(&done.stdout) else {
        return Ok(Err(format!("compile failed: {}", done.stderr_tail(3))));
    };
    let text = |item: &Value, key: &str| {
        item.get(key)
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
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
                code: text(item, "code"),
                message: text(item, "message"),
                source: "compile".to_string(),
            })
        })
        .collect()))
}
