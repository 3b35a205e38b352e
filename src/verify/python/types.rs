//! The type checker of the Python check: the one the project configures, pyrefly otherwise (or
//! as `[verify] type_checker` says), always run with candor's own settings written beside the
//! shadow — pyrefly's default preset (its `basic` preset, which it picks for an unconfigured
//! project, misses a missing argument, an unknown name and a missing attribute), basedpyright's
//! standard mode, mypy checking untyped functions too — and candor's interpreter, so that no
//! project setting can make it run another program or read another file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::TypeChecker as Choice;
use crate::refactor::Severity;

use super::super::process::Program;
use super::super::{Context, Diagnostic, Side, StepError};
use super::{Said, install_hint, relative, run_tool};

/// Which type checker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Pyrefly,
    Basedpyright,
    Mypy,
}

impl Kind {
    pub fn name(self) -> &'static str {
        match self {
            Kind::Pyrefly => "pyrefly",
            Kind::Basedpyright => "basedpyright",
            Kind::Mypy => "mypy",
        }
    }

    /// The settings key in `[verify]` and the programs looked for on PATH.
    fn programs(self) -> (&'static str, &'static [&'static str]) {
        match self {
            Kind::Pyrefly => ("pyrefly", &["pyrefly"]),
            Kind::Basedpyright => ("pyright", &["basedpyright", "pyright"]),
            Kind::Mypy => ("mypy", &["mypy"]),
        }
    }

    /// The file of candor's settings in the shadow.
    fn config_name(self) -> &'static str {
        match self {
            Kind::Pyrefly => ".candor-pyrefly.toml",
            // basedpyright reads its settings from the file it is given; this one replaces a
            // project's own in the shadow.
            Kind::Basedpyright => "pyrightconfig.json",
            Kind::Mypy => ".candor-mypy.ini",
        }
    }
}

/// A type checker found for this check, with candor's settings for it.
pub(crate) struct TypeChecker {
    pub kind: Kind,
    pub program: Program,
    /// The content of its settings file.
    pub settings: String,
}

impl TypeChecker {
    /// Its settings file, for both shadows.
    pub fn config_file(&self) -> (String, Vec<u8>) {
        (
            self.kind.config_name().to_string(),
            self.settings.clone().into_bytes(),
        )
    }
}

/// The type checker the project configures, with where it says so.
pub(super) fn configured(files: &BTreeMap<&'static str, String>) -> Option<(Kind, String)> {
    let pyproject = files
        .get("pyproject.toml")
        .and_then(|text| toml::from_str::<toml::Table>(text).ok());
    let tool = |name: &str| {
        pyproject
            .as_ref()
            .and_then(|t| t.get("tool"))
            .and_then(|t| t.get(name))
            .is_some()
    };
    let ini_section = |file: &str, section: &str| {
        files
            .get(file)
            .is_some_and(|text| text.lines().any(|l| l.trim() == section))
    };
    if files.contains_key("pyrefly.toml") {
        return Some((Kind::Pyrefly, "pyrefly.toml".into()));
    }
    if tool("pyrefly") {
        return Some((Kind::Pyrefly, "[tool.pyrefly] in pyproject.toml".into()));
    }
    if files.contains_key("pyrightconfig.json") {
        return Some((Kind::Basedpyright, "pyrightconfig.json".into()));
    }
    for name in ["basedpyright", "pyright"] {
        if tool(name) {
            return Some((
                Kind::Basedpyright,
                format!("[tool.{name}] in pyproject.toml"),
            ));
        }
    }
    for file in ["mypy.ini", ".mypy.ini"] {
        if files.contains_key(file) {
            return Some((Kind::Mypy, file.into()));
        }
    }
    if tool("mypy") {
        return Some((Kind::Mypy, "[tool.mypy] in pyproject.toml".into()));
    }
    if ini_section("setup.cfg", "[mypy]") {
        return Some((Kind::Mypy, "[mypy] in setup.cfg".into()));
    }
    None
}

/// The type checker of this check: `[verify] type_checker`, else the project's, else pyrefly
/// (then basedpyright). What could not be used goes to `not_run`.
pub(super) fn choose(
    cx: &Context<'_>,
    python: Option<&Path>,
    not_run: &mut Vec<String>,
) -> Option<TypeChecker> {
    let find = |kind: Kind| {
        let settings = &cx.job.settings;
        let configured = match kind {
            Kind::Pyrefly => settings.pyrefly.as_ref(),
            Kind::Basedpyright => settings.pyright.as_ref(),
            Kind::Mypy => settings.mypy.as_ref(),
        };
        let (key, defaults) = kind.programs();
        cx.program(key, configured, defaults)
            .map(|program| TypeChecker {
                kind,
                program,
                settings: settings_of(kind, python, &cx.job.root),
            })
    };
    let wanted = match cx.job.settings.type_checker {
        Some(Choice::None) => return None,
        Some(Choice::Pyrefly) => Some((Kind::Pyrefly, "[verify] type_checker".to_string())),
        Some(Choice::Basedpyright) => {
            Some((Kind::Basedpyright, "[verify] type_checker".to_string()))
        }
        Some(Choice::Mypy) => Some((Kind::Mypy, "[verify] type_checker".to_string())),
        None => configured(&super::project_files(&cx.job.root)),
    };
    if let Some((kind, why)) = &wanted {
        match find(*kind) {
            Ok(found) => return Some(found),
            Err(e) => {
                let name = kind.name();
                not_run.push(format!(
                    "{name} (named by {why}): {e}{}",
                    install_hint(&e, name)
                ));
                if cx.job.settings.type_checker.is_some() {
                    return None;
                }
            }
        }
    }
    let fallback = [Kind::Pyrefly, Kind::Basedpyright]
        .into_iter()
        .filter(|k| wanted.as_ref().is_none_or(|(w, _)| w != k))
        .find_map(|kind| find(kind).ok());
    if fallback.is_none() {
        not_run.push("pyrefly: not found on PATH (pip install pyrefly): no type check".into());
    }
    fallback
}

/// candor's settings for `kind`, as the text of its settings file.
fn settings_of(kind: Kind, python: Option<&Path>, root: &Path) -> String {
    let quoted = |p: &Path| serde_json::to_string(&p.to_string_lossy()).unwrap_or_default();
    match kind {
        Kind::Pyrefly => {
            let interpreter = match python {
                Some(python) => format!("python-interpreter-path = {}\n", quoted(python)),
                None => "skip-interpreter-query = true\n".to_string(),
            };
            format!("preset = \"default\"\n{interpreter}")
        }
        Kind::Basedpyright => {
            "{\n  \"typeCheckingMode\": \"standard\",\n  \"reportMissingModuleSource\": \"none\"\n}\n"
                .to_string()
        }
        Kind::Mypy => {
            // Module names from the project's layout: its root, and `src/` where it has one.
            let src = if root.join("src").is_dir() {
                "mypy_path = src\n"
            } else {
                ""
            };
            format!(
                "[mypy]\ncheck_untyped_defs = True\nfollow_imports = silent\nignore_missing_imports = True\nexplicit_package_bases = True\n{src}"
            )
        }
    }
}

/// Runs the type checker on `files` of `shadow`.
pub(super) fn check(
    cx: &Context<'_>,
    checker: &TypeChecker,
    python: Option<&Path>,
    shadow: &Path,
    files: &[PathBuf],
    side: Side,
) -> Result<Said, StepError> {
    let config = shadow.join(checker.kind.config_name());
    let mut command = checker.program.command();
    match checker.kind {
        Kind::Pyrefly => {
            let strip = format!("{}/", shadow.display());
            command
                .arg("check")
                .arg("-c")
                .arg(&config)
                .args(["--output-format", "json", "--summary=none"])
                .args(["--progress-bar", "no", "--color", "never"])
                .arg("--relative-to")
                .arg(strip)
                .current_dir(cx.cache.scratch());
        }
        Kind::Basedpyright => {
            command
                .arg("--outputjson")
                .arg("-p")
                .arg(&config)
                .current_dir(cx.cache.scratch());
            if let Some(python) = python {
                command.arg("--pythonpath").arg(python);
            }
        }
        Kind::Mypy => {
            let cache = cx.cache.scratch().join(format!("mypy-{}", side.short()));
            command
                .arg("--config-file")
                .arg(&config)
                .arg("--cache-dir")
                .arg(cache)
                .args(["-O", "json", "--no-error-summary", "--no-pretty"])
                .current_dir(shadow);
            if let Some(python) = python {
                command.arg("--python-executable").arg(python);
            }
        }
    }
    if checker.kind == Kind::Mypy {
        // mypy refuses a module given twice (its `.py` and its `.pyi`): the code, not its stub.
        let has_code = |stub: &PathBuf| {
            stub.with_extension("py").is_file() && files.contains(&stub.with_extension("py"))
        };
        command.args(
            files
                .iter()
                .filter(|f| !(f.extension().is_some_and(|e| e == "pyi") && has_code(f))),
        );
    } else {
        command.args(files);
    }
    let step = format!("type-checking {} ({})", side.as_str(), checker.kind.name());
    let done = match run_tool(cx, &mut command, &step)? {
        Ok(done) => done,
        Err(reason) => return Ok(Err(reason)),
    };
    let parsed = match checker.kind {
        Kind::Pyrefly => pyrefly_diagnostics(&done.stdout, shadow),
        Kind::Basedpyright => pyright_diagnostics(&done.stdout, shadow),
        Kind::Mypy => mypy_diagnostics(&done.stdout, shadow),
    };
    Ok(parsed.ok_or_else(|| {
        format!(
            "{} failed: {}",
            checker.program.path.display(),
            done.stderr_tail(3)
        )
    }))
}

fn text(item: &Value, key: &str) -> String {
    item.get(key)
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_string()
}

/// `pyrefly check --output-format json`: `{"errors": [{line, path, name, concise_description,
/// severity}]}`.
fn pyrefly_diagnostics(stdout: &[u8], shadow: &Path) -> Option<Vec<Diagnostic>> {
    let report: Value = serde_json::from_slice(stdout).ok()?;
    let items = report.get("errors")?.as_array()?;
    Some(
        items
            .iter()
            .filter_map(|item| {
                let severity = match item.get("severity").and_then(Value::as_str)? {
                    "error" => Severity::Error,
                    "warn" | "warning" => Severity::Warning,
                    _ => return None,
                };
                let mut message = text(item, "concise_description");
                if message.is_empty() {
                    message = text(item, "description");
                }
                Some(Diagnostic {
                    file: relative(shadow, item.get("path")?.as_str()?)?,
                    line: item.get("line").and_then(Value::as_u64).unwrap_or(1).max(1) as usize,
                    severity,
                    code: text(item, "name"),
                    message,
                    source: "pyrefly".to_string(),
                })
            })
            .collect(),
    )
}

/// `basedpyright --outputjson`: `generalDiagnostics` with 0-based ranges.
fn pyright_diagnostics(stdout: &[u8], shadow: &Path) -> Option<Vec<Diagnostic>> {
    let report: Value = serde_json::from_slice(stdout).ok()?;
    let items = report
        .get("generalDiagnostics")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    Some(
        items
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
                    code: text(item, "rule"),
                    message: text(item, "message"),
                    source: "basedpyright".to_string(),
                })
            })
            .collect(),
    )
}

/// `mypy -O json`: one JSON object per line (`file`, `line`, `message`, `code`, `severity`).
fn mypy_diagnostics(stdout: &[u8], shadow: &Path) -> Option<Vec<Diagnostic>> {
    let text_out = String::from_utf8_lossy(stdout);
    let mut found = Vec::new();
    for line in text_out.lines().filter(|l| !l.trim().is_empty()) {
        let item: Value = serde_json::from_str(line).ok()?;
        let severity = match item.get("severity").and_then(Value::as_str) {
            Some("error") => Severity::Error,
            Some("warning") => Severity::Warning,
            _ => continue,
        };
        let Some(file) = item.get("file").and_then(Value::as_str) else {
            continue;
        };
        let Some(file) = relative(shadow, file) else {
            continue;
        };
        found.push(Diagnostic {
            file,
            line: item.get("line").and_then(Value::as_u64).unwrap_or(1).max(1) as usize,
            severity,
            code: text(&item, "code"),
            message: text(&item, "message"),
            source: "mypy".to_string(),
        });
    }
    Some(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(entries: &[(&'static str, &str)]) -> BTreeMap<&'static str, String> {
        entries.iter().map(|(k, v)| (*k, v.to_string())).collect()
    }

    #[test]
    fn the_configured_checker_is_found_where_the_project_says() {
        let pick = |entries: &[(&'static str, &str)]| configured(&files(entries)).map(|(k, _)| k);
        assert_eq!(pick(&[]), None);
        assert_eq!(pick(&[("pyproject.toml", "[tool.black]\n")]), None);
        assert_eq!(pick(&[("pyrefly.toml", "")]), Some(Kind::Pyrefly));
        assert_eq!(
            pick(&[("pyproject.toml", "[tool.pyrefly]\n")]),
            Some(Kind::Pyrefly)
        );
        assert_eq!(
            pick(&[("pyproject.toml", "[tool.basedpyright]\n")]),
            Some(Kind::Basedpyright)
        );
        assert_eq!(
            pick(&[("pyrightconfig.json", "{}")]),
            Some(Kind::Basedpyright)
        );
        assert_eq!(
            pick(&[("pyproject.toml", "[tool.mypy]\nstrict = true\n")]),
            Some(Kind::Mypy)
        );
        assert_eq!(pick(&[("mypy.ini", "[mypy]\n")]), Some(Kind::Mypy));
        assert_eq!(
            pick(&[("setup.cfg", "[metadata]\n[mypy]\n")]),
            Some(Kind::Mypy)
        );
        // attrs configures both: the order of the issue (pyrefly, basedpyright, mypy).
        let (kind, why) = configured(&files(&[(
            "pyproject.toml",
            "[tool.mypy]\npretty = true\n[tool.pyright]\nx = 1\n",
        )]))
        .unwrap();
        assert_eq!(
            (kind, why.as_str()),
            (Kind::Basedpyright, "[tool.pyright] in pyproject.toml")
        );
    }

    #[test]
    fn pyrefly_json_becomes_diagnostics() {
        let out = br#"{"errors": [
            {"line": 4, "path": "pkg/a.py", "name": "missing-argument", "concise_description": "Missing argument `a` in function `f`", "description": "long", "severity": "error"},
            {"line": 9, "path": "/cache/edit/pkg/b.py", "name": "deprecated", "concise_description": "old", "severity": "warn"},
            {"line": 1, "path": "pkg/a.py", "name": "x", "concise_description": "note", "severity": "info"},
            {"line": 2, "path": "/usr/lib/python3/os.py", "name": "x", "concise_description": "elsewhere", "severity": "error"}
        ]}"#;
        let found = pyrefly_diagnostics(out, Path::new("/cache/edit")).unwrap();
        let summary: Vec<(&str, usize, Severity, &str)> = found
            .iter()
            .map(|d| (d.file.as_str(), d.line, d.severity, d.code.as_str()))
            .collect();
        assert_eq!(
            summary,
            vec![
                ("pkg/a.py", 4, Severity::Error, "missing-argument"),
                ("pkg/b.py", 9, Severity::Warning, "deprecated"),
            ]
        );
        assert_eq!(found[0].message, "Missing argument `a` in function `f`");
        assert_eq!(pyrefly_diagnostics(b"not json", Path::new("/x")), None);
    }

    #[test]
    fn mypy_json_lines_become_diagnostics() {
        let out = b"{\"file\": \"pkg/a.py\", \"line\": 3, \"column\": 4, \"message\": \"Missing positional argument\", \"hint\": null, \"code\": \"call-arg\", \"severity\": \"error\"}\n{\"file\": \"pkg/a.py\", \"line\": 3, \"column\": 4, \"message\": \"see here\", \"hint\": null, \"code\": null, \"severity\": \"note\"}\n";
        let found = mypy_diagnostics(out, Path::new("/cache/edit")).unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!((found[0].line, found[0].code.as_str()), (3, "call-arg"));
    }

    #[test]
    fn pyrefly_runs_its_default_preset_with_candors_interpreter() {
        let settings = settings_of(
            Kind::Pyrefly,
            Some(Path::new("/usr/bin/python3")),
            Path::new("/p"),
        );
        let parsed: toml::Table = toml::from_str(&settings).unwrap();
        assert_eq!(parsed["preset"].as_str(), Some("default"));
        assert_eq!(
            parsed["python-interpreter-path"].as_str(),
            Some("/usr/bin/python3")
        );
    }
}
