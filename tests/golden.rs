//! Golden fixtures: every case under `tests/fixtures/<tool>/<lang>/<case>/` (see the README
//! there) runs through the pure engine and must produce exactly its `after/` files (or its
//! `error.json` refusal) and its `findings.json`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use candor::api::ApiError;
use candor::api::args;
use candor::edit::SourceFile;
use candor::honesty::Tool;
use candor::lang::{Language, syntax_errors};
use candor::refactor::{self, MemorySources};
use serde_json::Value;

fn fixtures_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn tool_of(dir_name: &str) -> Tool {
    Tool::ALL
        .into_iter()
        .find(|t| t.operation() == dir_name)
        .unwrap_or_else(|| panic!("unknown tool directory {dir_name}"))
}

/// Every file under `dir`, relative `/` path → bytes.
fn read_tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    if !dir.exists() {
        return files;
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                let relative = path
                    .strip_prefix(dir)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/");
                files.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

fn cases() -> Vec<(Tool, PathBuf)> {
    let mut cases = Vec::new();
    for tool_dir in std::fs::read_dir(fixtures_root()).unwrap().flatten() {
        if !tool_dir.path().is_dir() {
            continue;
        }
        let tool = tool_of(&tool_dir.file_name().to_string_lossy());
        for lang_dir in std::fs::read_dir(tool_dir.path()).unwrap().flatten() {
            for case in std::fs::read_dir(lang_dir.path()).unwrap().flatten() {
                if case.path().join("request.json").exists() {
                    cases.push((tool, case.path()));
                }
            }
        }
    }
    cases.sort_by(|a, b| a.1.cmp(&b.1));
    cases
}

/// Runs one case; returns a description of every mismatch.
fn run_case(tool: Tool, dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    let request: Value = serde_json::from_slice(&std::fs::read(dir.join("request.json")).unwrap())
        .unwrap_or_else(|e| panic!("{}: request.json: {e}", dir.display()));
    let before = read_tree(&dir.join("before"));
    let mut sources = MemorySources::new();
    for (path, bytes) in &before {
        if let Ok(file) = SourceFile::from_bytes(path.clone(), bytes) {
            sources.insert(file);
        }
    }
    let result = args::parse(tool, &request)
        .and_then(|call| refactor::plan(&sources, &call.request).map_err(ApiError::from));

    if dir.join("error.json").exists() {
        let expected: Value =
            serde_json::from_slice(&std::fs::read(dir.join("error.json")).unwrap()).unwrap();
        match result {
            Ok(plan) => problems.push(format!(
                "expected a `{}` error, got a plan changing {:?} with findings {:?}",
                expected["code"],
                plan.changes.iter().map(|c| &c.path).collect::<Vec<_>>(),
                plan.findings
            )),
            Err(error) => {
                if expected["code"] != error.code.as_str() {
                    problems.push(format!(
                        "error code {} expected, got {} ({})",
                        expected["code"],
                        error.code.as_str(),
                        error.message
                    ));
                }
                if let Some(contains) = expected["contains"].as_str()
                    && !error.message.contains(contains)
                {
                    problems.push(format!(
                        "error message {:?} does not contain {contains:?}",
                        error.message
                    ));
                }
            }
        }
        return problems;
    }

    let plan = match result {
        Ok(plan) => plan,
        Err(error) => {
            problems.push(format!(
                "unexpected error {}: {}",
                error.code.as_str(),
                error.message
            ));
            return problems;
        }
    };
    let mut actual = before.clone();
    for change in &plan.changes {
        actual.insert(change.path.clone(), change.after_bytes());
    }
    let expected = read_tree(&dir.join("after"));
    if expected.is_empty() {
        problems.push("no after/ directory and no error.json".to_string());
    }
    for (path, want) in &expected {
        match actual.get(path) {
            None => problems.push(format!(
                "{path}: expected in after/, but the plan does not produce it"
            )),
            Some(got) if got != want => problems.push(format!(
                "{path} differs:\n--- expected\n{}\n--- actual\n{}",
                String::from_utf8_lossy(want),
                String::from_utf8_lossy(got)
            )),
            Some(_) => {}
        }
    }
    for path in actual.keys() {
        if !expected.contains_key(path) {
            problems.push(format!(
                "{path}: the plan produces it but after/ does not have it"
            ));
        }
    }

    if dir.join("findings.json").exists() {
        let want: Vec<Value> =
            serde_json::from_slice(&std::fs::read(dir.join("findings.json")).unwrap()).unwrap();
        let got = &plan.findings;
        let matches = want.len() == got.len()
            && want.iter().zip(got).all(|(w, g)| {
                w["file"] == g.file.as_str()
                    && w["line"] == g.line
                    && w["severity"] == g.severity.as_str()
                    && w["contains"]
                        .as_str()
                        .is_some_and(|c| g.message.contains(c))
            });
        if !matches {
            problems.push(format!(
                "findings differ:\n--- expected\n{}\n--- actual\n{}",
                serde_json::to_string_pretty(&want).unwrap(),
                serde_json::to_string_pretty(got).unwrap()
            ));
        }
    }

    // Every "after" source file parses.
    for (path, bytes) in &expected {
        if let Some(lang) = Language::from_path(path) {
            let text = String::from_utf8_lossy(bytes);
            let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
            let errors = syntax_errors(&lang.parse(text), text);
            if !errors.is_empty() {
                problems.push(format!("after/{path} does not parse: {errors:?}"));
            }
        }
    }
    problems
}

#[test]
fn golden_fixtures() {
    let cases = cases();
    let mut failures = Vec::new();
    let mut per_tool_lang: BTreeMap<String, usize> = BTreeMap::new();
    for (tool, dir) in &cases {
        let lang = dir
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        *per_tool_lang
            .entry(format!("{}/{}", tool.operation(), lang))
            .or_default() += 1;
        let problems = run_case(*tool, dir);
        if !problems.is_empty() {
            failures.push(format!(
                "{}:\n  {}",
                dir.strip_prefix(fixtures_root()).unwrap().display(),
                problems.join("\n  ")
            ));
        }
    }
    eprintln!("golden cases per tool/language: {per_tool_lang:?}");
    assert!(
        failures.is_empty(),
        "{} of {} golden cases failed:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}

/// Python "after" files compile with the real interpreter.
#[test]
fn golden_python_results_compile() {
    let mut checked = 0;
    for (_, dir) in cases() {
        let after = dir.join("after");
        for (path, _) in read_tree(&after) {
            if path.ends_with(".py") {
                let status = Command::new("python3")
                    .args(["-m", "py_compile"])
                    .arg(after.join(&path))
                    .env("PYTHONDONTWRITEBYTECODE", "1")
                    .env(
                        "PYTHONPYCACHEPREFIX",
                        std::env::temp_dir().join("candor-pycache"),
                    )
                    .status()
                    .expect("python3 runs");
                assert!(
                    status.success(),
                    "{}/after/{path} does not compile",
                    dir.display()
                );
                checked += 1;
            }
        }
    }
    eprintln!("python files compiled: {checked}");
}

/// Python fixtures whose files check their own behaviour (top-level `assert`s) run, before and
/// after the refactor, and both must pass: the refactor kept what the code does.
#[test]
fn golden_python_behaviour_kept() {
    let mut ran = 0;
    for (_, dir) in cases() {
        for side in ["before", "after"] {
            let root = dir.join(side);
            for (path, bytes) in read_tree(&root) {
                if !path.ends_with(".py") || !String::from_utf8_lossy(&bytes).contains("\nassert ")
                {
                    continue;
                }
                let output = Command::new("python3")
                    .arg(&path)
                    .current_dir(&root)
                    .env("PYTHONDONTWRITEBYTECODE", "1")
                    .output()
                    .expect("python3 runs");
                assert!(
                    output.status.success(),
                    "{}/{side}/{path} fails: {}",
                    dir.display(),
                    String::from_utf8_lossy(&output.stderr)
                );
                ran += 1;
            }
        }
    }
    assert!(ran > 0, "no Python fixture checks its behaviour");
    eprintln!("python behaviour checks run: {ran}");
}

/// Rust fixtures that are whole crates (`after/Cargo.toml`) pass `cargo check`.
#[test]
fn golden_rust_crates_check() {
    let target = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/golden-check");
    let mut checked = 0;
    for (_, dir) in cases() {
        let after = dir.join("after");
        if !after.join("Cargo.toml").exists() {
            continue;
        }
        let work = tempfile::tempdir().unwrap();
        for (path, bytes) in read_tree(&after) {
            let dest = work.path().join(&path);
            std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
            std::fs::write(dest, bytes).unwrap();
        }
        let output = Command::new(env!("CARGO"))
            .args(["check", "--quiet", "--offline"])
            .current_dir(work.path())
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .expect("cargo runs");
        assert!(
            output.status.success(),
            "{}/after does not pass cargo check:\n{}",
            dir.display(),
            String::from_utf8_lossy(&output.stderr)
        );
        checked += 1;
    }
    eprintln!("rust crates checked: {checked}");
}
