//! Helpers shared by the write, undo, race, crash and fuzz tests: temp projects, snapshots of a
//! project's bytes, plans built by hand, and running the real `candor` binary.
#![allow(dead_code)]

pub mod policy;
pub mod servers;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use candor::edit::{FileChange, SourceFile, TextEdit};

/// A temp project holding `files` (path → bytes; parent folders created).
pub fn project(files: &[(&str, &[u8])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, bytes) in files {
        let full = dir.path().join(path);
        std::fs::create_dir_all(full.parent().unwrap()).unwrap();
        std::fs::write(full, bytes).unwrap();
    }
    dir
}

/// Every file under `dir` except candor's own `.candor/` folder: relative path → bytes. Symlinks
/// are recorded as `-> target` so a link turned into a file shows up.
pub fn snapshot(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).unwrap().flatten() {
            let path = entry.path();
            let relative = path
                .strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            if relative == ".candor" {
                continue;
            }
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).unwrap();
                files.insert(relative, format!("-> {}", target.display()).into_bytes());
            } else if meta.is_dir() {
                files.insert(format!("{relative}/"), Vec::new());
                stack.push(path);
            } else {
                files.insert(relative, std::fs::read(&path).unwrap());
            }
        }
    }
    files
}

/// The file at `path` of the project as the refactors would read it.
pub fn source(root: &Path, path: &str) -> SourceFile {
    SourceFile::from_bytes(path, &std::fs::read(root.join(path)).unwrap()).unwrap()
}

/// A change of `path` replacing each `(from, to)` substring (first occurrence).
pub fn modify(root: &Path, path: &str, replacements: &[(&str, &str)]) -> FileChange {
    let file = source(root, path);
    let edits = replacements
        .iter()
        .map(|(from, to)| {
            let start = file
                .text
                .find(from)
                .unwrap_or_else(|| panic!("{from:?} not in {path}"));
            TextEdit::new(start..start + from.len(), *to)
        })
        .collect();
    FileChange::modify(&file, edits).unwrap()
}

/// The binary under test; `CANDOR_TEST_BIN` runs the same tests against another build (e.g. the
/// main branch's, to see a test fail before a fix).
pub fn candor_bin() -> PathBuf {
    std::env::var_os("CANDOR_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_candor")))
}

/// Runs `candor ARGS` with the user config isolated and the heuristic backend.
pub fn candor(root: &Path, args: &[&str]) -> Output {
    Command::new(candor_bin())
        .args(args)
        .current_dir(root)
        .env("CANDOR_BACKEND", "tree-sitter")
        .env(
            "XDG_CONFIG_HOME",
            root.join(".candor").join("no-user-config"),
        )
        .env_remove("CANDOR_TEST_PAUSE_BETWEEN_FILES_MS")
        .output()
        .unwrap()
}

/// `candor call TOOL ARGS --root ROOT`: (envelope, exit code).
pub fn call(root: &Path, tool: &str, args: &serde_json::Value) -> (serde_json::Value, i32) {
    let out = candor(
        root,
        &[
            "call",
            tool,
            &args.to_string(),
            "--root",
            root.to_str().unwrap(),
        ],
    );
    let envelope = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{tool}: stdout is not JSON ({e}): {}\nstderr: {}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (envelope, out.status.code().unwrap_or(-1))
}

/// A small deterministic random generator (splitmix64) so randomized tests are reproducible
/// from their seed without extra dependencies.
#[derive(Debug, Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (0 when n is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The seed of a randomized test: `CANDOR_TEST_SEED` or a fixed default (printed either way).
pub fn seed(default: u64) -> u64 {
    std::env::var("CANDOR_TEST_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// A count from the environment (to run more trials locally), or the default.
pub fn count(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}
