//! The Rust check: `cargo check --message-format=json --all-targets` of the packages the
//! refactor touched and the workspace members that depend on them, on both shadows, with
//! candor's persistent `CARGO_TARGET_DIR`. Only for a project whose programs may run: cargo runs
//! its build scripts and proc macros and honours its `.cargo/config.toml` and toolchain file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::lang::Language;
use crate::refactor::Severity;
use crate::workspace::Root;

use super::memo::{self, Stored};
use super::process::Program;
use super::{Checked, Context, Diagnostic, Side, StepError, diff};

pub(super) const CHECKER: &str = "cargo check";

/// Checks the Rust files of the result, workspace by workspace. What cargo said before the
/// refactor is remembered by the project's content: checking the same base again runs cargo on
/// the result only.
pub(super) fn check(cx: &mut Context<'_>) -> Result<Checked, StepError> {
    if !cx.job.trust.allows_project_programs() {
        return Err(StepError::Unavailable(cx.job.trust.refusal(
            "`cargo check` in this project (it runs the project's build scripts and proc macros, with its .cargo/config.toml and toolchain file)",
        )));
    }
    let cargo = cx.program("cargo", cx.job.settings.cargo.as_ref(), &["cargo"]).map_err(|e| {
        StepError::Unavailable(format!(
            "cargo check was not run: {e}; install Rust (rustup) or name cargo in [verify] of .candor/config.toml"
        ))
    })?;
    let workspaces = workspaces(cx)?;
    let (_, shadow) = cx.shadow(Side::Before);
    let synced = cx.sync(Side::Before, &BTreeMap::new())?;
    let before_key = cx.before_key(&synced, Side::Before);
    let mut scopes = Vec::new();
    for workspace in workspaces {
        let (packages, _) = affected_packages(cx, &cargo, &workspace, &before_key)?;
        scopes.push((workspace, packages));
    }
    let scope_text: Vec<String> = scopes
        .iter()
        .map(|(w, p)| format!("{w}:{}", p.join(",")))
        .collect();
    let key = memo::key(&[
        "cargo check before",
        &cargo.identity(),
        &scope_text.join(";"),
        &before_key,
    ]);
    let before = match cx.memo.get::<Vec<Stored>>(&key) {
        Some(stored) => {
            cx.progress
                .record("cargo check before (remembered)", std::time::Instant::now());
            stored.into_iter().map(Stored::diagnostic).collect()
        }
        None => {
            let mut before = Vec::new();
            for (workspace, packages) in &scopes {
                before.extend(run_check(
                    cx,
                    &cargo,
                    &shadow,
                    workspace,
                    packages,
                    Side::Before,
                )?);
            }
            let stored: Vec<Stored> = before.iter().map(Stored::of).collect();
            cx.memo.put(&key, &stored);
            before
        }
    };
    cx.sync(Side::After, &BTreeMap::new())?;
    let mut after = Vec::new();
    for (workspace, packages) in &scopes {
        after.extend(run_check(
            cx,
            &cargo,
            &shadow,
            workspace,
            packages,
            Side::After,
        )?);
    }
    let (introduced, preexisting) =
        diff::introduced(&before, &after, &diff::line_maps(&cx.job.changes));
    Ok(Checked {
        checkers: vec![CHECKER.to_string()],
        introduced,
        preexisting,
        not_run: Vec::new(),
    })
}

/// The workspace (project-relative) and the `-p` specs whose tests concern the result: those of
/// the first workspace the refactor touches, those holding a changed file first (how many).
pub(super) fn test_scope(
    cx: &Context<'_>,
    cargo: &Program,
    before_key: &str,
) -> Result<(String, Vec<String>, usize), StepError> {
    let workspace = workspaces(cx)?.into_iter().next().unwrap_or_default();
    let (packages, direct) = affected_packages(cx, cargo, &workspace, before_key)?;
    Ok((workspace, packages, direct))
}

/// The Cargo workspaces (project-relative directories) of the changed Rust files, as
/// rust-analyzer opens them.
fn workspaces(cx: &Context<'_>) -> Result<BTreeSet<String>, StepError> {
    let root = Root::new(&cx.job.root).map_err(|e| {
        StepError::Unavailable(format!(
            "cannot open the project root {}: {e}",
            cx.job.root.display()
        ))
    })?;
    let mut found = BTreeSet::new();
    for change in &cx.job.changes {
        if Language::from_path(&change.path) != Some(Language::Rust) {
            continue;
        }
        let dir = crate::backend::lsp::workspace_root(Language::Rust, &root, &change.path)
            .map_err(|e| {
                StepError::Unavailable(format!(
                    "cargo check needs a Cargo project: {}",
                    e.reason()
                        .trim_start_matches("rust-analyzer needs a Cargo project, and ")
                ))
            })?;
        found.insert(root.relative_of(&dir).unwrap_or_default());
    }
    if found.is_empty() {
        return Err(StepError::Unavailable(
            "the refactor changes no Rust file".to_string(),
        ));
    }
    Ok(found)
}

/// `-p` specs of the workspace members that hold a changed file, then of those that depend on
/// them (their code may use what changed). `cargo metadata` is asked once per content of the
/// project (its answer remembered).
fn affected_packages(
    cx: &Context<'_>,
    cargo: &Program,
    workspace: &str,
    before_key: &str,
) -> Result<(Vec<String>, usize), StepError> {
    let (_, shadow) = cx.shadow(Side::Before);
    let dir = shadow.join(workspace);
    let key = memo::key(&["cargo metadata", &cargo.identity(), workspace, before_key]);
    let metadata = match cx.memo.get::<Value>(&key) {
        Some(metadata) => metadata,
        None => {
            let metadata = cargo_metadata(cx, cargo, workspace, &dir)?;
            cx.memo.put(&key, &metadata);
            metadata
        }
    };
    Ok(affected_of(cx, &metadata, &shadow))
}

fn cargo_metadata(
    cx: &Context<'_>,
    cargo: &Program,
    workspace: &str,
    dir: &Path,
) -> Result<Value, StepError> {
    let mut command = cargo.command();
    command
        .args([
            "metadata",
            "--no-deps",
            "--format-version",
            "1",
            "--offline",
        ])
        .current_dir(dir);
    let done = cx.run(&mut command, "reading the Cargo workspace (cargo metadata)")?;
    if !done.status.success() {
        return Err(StepError::Unavailable(format!(
            "cargo metadata failed in {}: {}",
            if workspace.is_empty() {
                "the project root"
            } else {
                workspace
            },
            done.stderr_tail(3)
        )));
    }
    serde_json::from_slice(&done.stdout).map_err(|e| {
        StepError::Unavailable(format!(
            "cargo metadata printed something else than JSON: {e}"
        ))
    })
}

/// The affected packages: those holding a changed file first, then their dependents.
fn affected_of(cx: &Context<'_>, metadata: &Value, shadow: &Path) -> (Vec<String>, usize) {
    let packages = packages(metadata);
    let changed: Vec<PathBuf> = cx
        .job
        .changes
        .iter()
        .map(|c| shadow.join(&c.path))
        .collect();
    let direct: BTreeSet<usize> = changed
        .iter()
        .filter_map(|file| {
            packages
                .iter()
                .enumerate()
                .filter(|(_, p)| file.starts_with(&p.dir))
                .max_by_key(|(_, p)| p.dir.as_os_str().len())
                .map(|(i, _)| i)
        })
        .collect();
    let mut affected = direct.clone();
    loop {
        let dirs: Vec<&PathBuf> = affected.iter().map(|&i| &packages[i].dir).collect();
        let more: Vec<usize> = (0..packages.len())
            .filter(|i| !affected.contains(i))
            .filter(|&i| packages[i].path_deps.iter().any(|d| dirs.contains(&d)))
            .collect();
        if more.is_empty() {
            break;
        }
        affected.extend(more);
    }
    let names: Vec<&str> = packages.iter().map(|p| p.name.as_str()).collect();
    // Those holding a changed file first (their tests run first), then the dependents.
    let (first, then): (Vec<usize>, Vec<usize>) =
        affected.into_iter().partition(|i| direct.contains(i));
    let direct_count = first.len();
    let specs = first
        .into_iter()
        .chain(then)
        .map(|i| {
            let p = &packages[i];
            if names.iter().filter(|n| **n == p.name).count() > 1 {
                format!("{}@{}", p.name, p.version)
            } else {
                p.name.clone()
            }
        })
        .collect();
    (specs, direct_count)
}

struct Package {
    name: String,
    version: String,
    /// The directory of its Cargo.toml.
    dir: PathBuf,
    /// Directories of its path dependencies.
    path_deps: Vec<PathBuf>,
}

fn packages(metadata: &Value) -> Vec<Package> {
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    metadata
        .get("packages")
        .and_then(Value::as_array)
        .map(|list| {
            list.iter()
                .map(|p| Package {
                    name: text(p, "name"),
                    version: text(p, "version"),
                    dir: PathBuf::from(text(p, "manifest_path"))
                        .parent()
                        .map(Path::to_path_buf)
                        .unwrap_or_default(),
                    path_deps: p
                        .get("dependencies")
                        .and_then(Value::as_array)
                        .map(|deps| {
                            deps.iter()
                                .filter_map(|d| d.get("path").and_then(Value::as_str))
                                .map(PathBuf::from)
                                .collect()
                        })
                        .unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default()
}

/// `cargo check` of `packages` in one shadow; its diagnostics located in the project.
fn run_check(
    cx: &Context<'_>,
    cargo: &Program,
    shadow: &Path,
    workspace: &str,
    packages: &[String],
    side: Side,
) -> Result<Vec<Diagnostic>, StepError> {
    let when = side.as_str();
    let dir = shadow.join(workspace);
    let mut command = cargo.command();
    command
        .args([
            "check",
            "--message-format=json",
            "--all-targets",
            "--keep-going",
        ])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", cx.cache.target())
        .env("CARGO_TERM_COLOR", "never");
    for package in packages {
        command.args(["-p", package]);
    }
    let step = format!("running cargo check {when}");
    let started = std::time::Instant::now();
    let done = cx.run(&mut command, &step);
    cx.progress
        .record(&format!("cargo check {}", side.short()), started);
    let done = done?;
    let diagnostics = compiler_messages(&done.stdout_text(), shadow, &dir);
    if !done.status.success() && !diagnostics.iter().any(|d| d.severity == Severity::Error) {
        return Err(StepError::Unavailable(format!(
            "cargo check failed {when} without a compiler error to compare: {}",
            done.stderr_tail(4)
        )));
    }
    Ok(diagnostics)
}

/// The errors and warnings of cargo's JSON messages whose primary span (or the macro call that
/// produced it) lies in the project; paths made project-relative.
fn compiler_messages(stdout: &str, shadow: &Path, workspace_dir: &Path) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for line in stdout.lines() {
        let Ok(value) = serde_json::from_str::<Value>(line) else {
            continue;
        };
        if value.get("reason").and_then(Value::as_str) != Some("compiler-message") {
            continue;
        }
        let Some(message) = value.get("message") else {
            continue;
        };
        let severity = match message.get("level").and_then(Value::as_str) {
            Some(level) if level.starts_with("error") => Severity::Error,
            Some("warning") => Severity::Warning,
            _ => continue,
        };
        let Some((file, line)) = primary_location(message, shadow, workspace_dir) else {
            continue;
        };
        out.push(Diagnostic {
            file,
            line,
            severity,
            code: message
                .pointer("/code/code")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            message: message
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
            source: CHECKER.to_string(),
        });
    }
    out
}

fn primary_location(
    message: &Value,
    shadow: &Path,
    workspace_dir: &Path,
) -> Option<(String, usize)> {
    let spans = message.get("spans")?.as_array()?;
    let primary = spans
        .iter()
        .find(|s| s.get("is_primary").and_then(Value::as_bool) == Some(true))?;
    // A span inside a macro of another crate: follow the expansion back to the project.
    let mut span = Some(primary);
    while let Some(s) = span {
        let file = s.get("file_name").and_then(Value::as_str).unwrap_or("");
        let absolute = workspace_dir.join(file);
        if let Ok(relative) = absolute.strip_prefix(shadow) {
            let line = s
                .get("line_start")
                .and_then(Value::as_u64)
                .unwrap_or(1)
                .max(1);
            return Some((relative.to_string_lossy().into_owned(), line as usize));
        }
        span = s.pointer("/expansion/span");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compiler_messages_are_located_in_the_project() {
        let shadow = Path::new("/cache/edit");
        let lines = [
            r#"{"reason":"compiler-artifact","target":{}}"#,
            r#"{"reason":"compiler-message","message":{"level":"error","message":"missing lifetime specifier","code":{"code":"E0106"},"spans":[{"file_name":"src/lib.rs","line_start":47,"is_primary":true}]}}"#,
            r#"{"reason":"compiler-message","message":{"level":"warning","message":"unused variable: `x`","code":{"code":"unused_variables"},"spans":[{"file_name":"crates/a/src/lib.rs","line_start":3,"is_primary":false},{"file_name":"crates/a/src/lib.rs","line_start":4,"is_primary":true}]}}"#,
            r#"{"reason":"compiler-message","message":{"level":"error","message":"aborting due to 1 previous error","code":null,"spans":[]}}"#,
            r#"{"reason":"compiler-message","message":{"level":"error","message":"in a macro","code":null,"spans":[{"file_name":"/home/u/.cargo/registry/src/x/m.rs","line_start":9,"is_primary":true,"expansion":{"span":{"file_name":"src/main.rs","line_start":12}}}]}}"#,
            r#"{"reason":"compiler-message","message":{"level":"note","message":"a note","spans":[{"file_name":"src/lib.rs","line_start":1,"is_primary":true}]}}"#,
            "not json",
        ];
        let found = compiler_messages(&lines.join("\n"), shadow, shadow);
        let summary: Vec<(String, usize, Severity, String)> = found
            .iter()
            .map(|d| (d.file.clone(), d.line, d.severity, d.code.clone()))
            .collect();
        assert_eq!(
            summary,
            vec![
                (
                    "src/lib.rs".to_string(),
                    47,
                    Severity::Error,
                    "E0106".to_string()
                ),
                (
                    "crates/a/src/lib.rs".to_string(),
                    4,
                    Severity::Warning,
                    "unused_variables".to_string()
                ),
                (
                    "src/main.rs".to_string(),
                    12,
                    Severity::Error,
                    String::new()
                ),
            ]
        );
        assert_eq!(found[0].message, "missing lifetime specifier");
        // A workspace below the shadow's root: paths stay relative to the project.
        let found = compiler_messages(lines[1], shadow, &shadow.join("rust"));
        assert_eq!(found[0].file, "rust/src/lib.rs");
    }

    #[test]
    fn packages_and_their_path_dependencies() {
        let metadata = serde_json::json!({"packages": [
            {"name": "core", "version": "0.1.0", "manifest_path": "/s/core/Cargo.toml", "dependencies": []},
            {"name": "app", "version": "0.1.0", "manifest_path": "/s/app/Cargo.toml", "dependencies": [{"name": "core", "path": "/s/core"}, {"name": "serde"}]}
        ]});
        let found = packages(&metadata);
        assert_eq!(found[1].path_deps, vec![PathBuf::from("/s/core")]);
        assert_eq!(found[0].dir, PathBuf::from("/s/core"));
    }
}
