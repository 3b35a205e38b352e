//! Shared by the verification tests: fixtures copied to temp directories, `candor call` and
//! `candor trust` with a user config folder and a cache of the test's own (never the user's),
//! PATH as `scripts/test` sets it, and snapshots of a whole tree (`.git` included).
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

pub fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

pub fn in_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "0" && v != "false")
}

/// PATH as `scripts/test` sets it: the repository's `.venv/bin` first.
pub fn path_env() -> OsString {
    let mut paths = vec![manifest_dir().join(".venv/bin")];
    if let Some(current) = std::env::var_os("PATH") {
        paths.extend(std::env::split_paths(&current));
    }
    std::env::join_paths(paths).unwrap()
}

/// Whether `program --version` runs.
pub fn runs(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .env("PATH", path_env())
        .output()
        .is_ok_and(|o| o.status.success())
}

/// True when every program is installed; otherwise fails in CI and skips (loudly) elsewhere.
pub fn require(programs: &[&str]) -> bool {
    let missing: Vec<&str> = programs.iter().copied().filter(|p| !runs(p)).collect();
    if missing.is_empty() {
        return true;
    }
    let message = format!(
        "{} not installed; scripts/test installs them (rustup component rust-analyzer, .venv with tests/requirements.txt)",
        missing.join(", ")
    );
    assert!(!in_ci(), "CI must run the real-tool tests: {message}");
    eprintln!("SKIPPED (CI unset): {message}");
    false
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name();
        if name == "target" || name == "__pycache__" || name == "Cargo.lock" {
            continue;
        }
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(&name));
        } else {
            std::fs::copy(entry.path(), to.join(&name)).unwrap();
        }
    }
}

/// A fresh copy of `tests/<dir>/<name>`.
pub fn fixture(dir: &str, name: &str) -> tempfile::TempDir {
    let copy = tempfile::tempdir().unwrap();
    copy_dir(
        &manifest_dir().join("tests").join(dir).join(name),
        copy.path(),
    );
    copy
}

/// A user config folder and a cache of the test's own.
pub struct Env {
    pub config: tempfile::TempDir,
    pub cache: tempfile::TempDir,
    pub path: OsString,
}

impl Env {
    pub fn new() -> Env {
        Env {
            config: tempfile::tempdir().unwrap(),
            cache: tempfile::tempdir().unwrap(),
            path: path_env(),
        }
    }

    /// `candor` with this environment (`CANDOR_TEST_BIN` runs another build, e.g. main's, to see
    /// a test fail before a fix).
    pub fn candor(&self) -> Command {
        let bin = std::env::var_os("CANDOR_TEST_BIN")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_candor").into());
        let mut command = Command::new(bin);
        command
            .env("PATH", &self.path)
            .env("XDG_CONFIG_HOME", self.config.path())
            .env("XDG_CACHE_HOME", self.cache.path())
            .env_remove("CANDOR_BACKEND");
        command
    }

    pub fn trust(&self, root: &Path) {
        let output = self.candor().arg("trust").arg(root).output().unwrap();
        assert!(output.status.success(), "{output:?}");
    }

    /// `candor call TOOL ARGS --root ROOT`: the envelope and how long it took.
    pub fn call(&self, root: &Path, tool: &str, args: &Value) -> (Value, Duration) {
        let started = Instant::now();
        let output = self
            .candor()
            .args(["call", tool, &args.to_string(), "--root"])
            .arg(root)
            .output()
            .unwrap();
        (envelope(tool, &output), started.elapsed())
    }
}

pub fn envelope(tool: &str, output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{tool}: stdout is not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

/// 1-based line of the first line of `text` containing `needle`.
pub fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` is in the fixture"))
        + 1
}

/// The introduced diagnostics as (file, line, severity, code).
pub fn introduced(envelope: &Value) -> Vec<(String, u64, String, String)> {
    envelope["data"]["verification"]["introduced"]
        .as_array()
        .unwrap_or_else(|| panic!("no data.verification.introduced: {envelope:#}"))
        .iter()
        .map(|d| {
            (
                d["file"].as_str().unwrap().to_string(),
                d["line"].as_u64().unwrap(),
                d["severity"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// Messages of the error findings.
pub fn error_findings(envelope: &Value) -> Vec<String> {
    envelope["data"]["findings"]
        .as_array()
        .unwrap_or_else(|| panic!("no findings: {envelope:#}"))
        .iter()
        .filter(|f| f["severity"] == "error")
        .map(|f| f["message"].as_str().unwrap().to_string())
        .collect()
}

/// Every entry under `dir`, `.git` included: path → bytes (directories as `path/`, links as
/// `-> target`), with the modification time of each file.
pub fn snapshot_all(dir: &Path) -> BTreeMap<String, (Vec<u8>, Option<std::time::SystemTime>)> {
    let mut entries = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap().flatten() {
            let path = entry.path();
            let relative = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                entries.insert(
                    relative,
                    (format!("-> {}", target.display()).into_bytes(), None),
                );
            } else if meta.is_dir() {
                entries.insert(format!("{relative}/"), (Vec::new(), None));
                stack.push(path);
            } else {
                entries.insert(
                    relative,
                    (std::fs::read(&path).unwrap(), meta.modified().ok()),
                );
            }
        }
    }
    entries
}

/// Runs git in `dir` and checks it succeeded.
pub fn git(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@example.com")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@example.com")
        .output()
        .unwrap();
    assert!(output.status.success(), "git {args:?}: {output:?}");
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The processes whose working directory lies under `dir` (from /proc).
pub fn processes_under(dir: &Path) -> Vec<(u32, PathBuf)> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if let Ok(cwd) = std::fs::read_link(entry.path().join("cwd"))
            && cwd.starts_with(dir)
        {
            found.push((pid, cwd));
        }
    }
    found
}

/// A Rust crate with a build script that runs `body` (Rust statements) and a small library.
pub fn crate_with_build_script(body: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"scripted\"\nversion = \"0.1.0\"\nedition = \"2021\"\nbuild = \"build.rs\"\n",
    )
    .unwrap();
    std::fs::write(root.join("build.rs"), format!("fn main() {{\n{body}\n}}\n")).unwrap();
    std::fs::write(
        root.join("src/lib.rs"),
        "pub fn total(items: &[u32]) -> u32 {\n    println!(\"adding up\");\n    items.iter().sum()\n}\n",
    )
    .unwrap();
    dir
}
