//! The trust-sensitive files of an untrusted project, stamped when its server starts and checked
//! again before every request the server serves (a long `candor mcp` session reuses it): when one
//! appeared, went or changed, the server is stopped and `project_guard`'s rules are applied again
//! before anything restarts it. A check per request, not a file watcher: it costs a few `stat`s.
//! What happens between two requests the server does not see either: an untrusted project's
//! rust-analyzer watches no file itself, and is told what changed only after this check passed
//! (`watched`; the check runs again after the reload that starts). What its reloads could run
//! through a cargo configuration is overridden by the server's environment
//! (`project_guard::cargo_overrides`) and refused by its cargo guard (`cargo_guard`).
//!
//! Stamped, in each folder from the server's workspace up to the project root: `.cargo/config`,
//! `.cargo/config.toml`, `rust-toolchain`, `rust-toolchain.toml`, `rust-analyzer.toml`,
//! `.rust-analyzer.toml` and `rust-project.json` (path, size, mtime, inode); in the root, each
//! file in `.ropeproject/` (the empty folder rope makes is harmless) and the `[tool]` tables of
//! `pyproject.toml` (an edit elsewhere in that file changes nothing), and the root's
//! `pyrefly.toml`.

use std::collections::BTreeMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::lang::Language;
use crate::workspace::Root;

/// Where one file was: size, modification time, device and inode, or its `[tool]` tables.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    File {
        size: u64,
        mtime_ns: i128,
        dev: u64,
        ino: u64,
    },
    Tool(String),
}

/// The files that decide what the server may run, as they were when it started.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    lang: Language,
    root: PathBuf,
    workspace: PathBuf,
    seen: BTreeMap<PathBuf, Seen>,
}

const RUST_FILES: [&str; 7] = [
    ".cargo/config",
    ".cargo/config.toml",
    "rust-toolchain",
    "rust-toolchain.toml",
    "rust-analyzer.toml",
    ".rust-analyzer.toml",
    "rust-project.json",
];

fn file_seen(path: &Path) -> Option<Seen> {
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some(Seen::File {
        size: meta.len(),
        mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        dev: meta.dev(),
        ino: meta.ino(),
    })
}

/// The `[tool]` tables of a `pyproject.toml`, as text (the whole file when it does not parse).
fn tool_tables(path: &Path) -> Option<Seen> {
    let text = std::fs::read_to_string(path).ok()?;
    let tool = match text.parse::<toml::Table>() {
        Ok(table) => table.get("tool")?.to_string(),
        Err(_) => text,
    };
    Some(Seen::Tool(tool))
}

impl Stamp {
    /// The stamp of the files a server for `lang` in `workspace` depends on, now.
    pub fn take(lang: Language, root: &Root, workspace: &Path) -> Stamp {
        let mut seen = BTreeMap::new();
        match lang {
            Language::Rust => {
                for dir in super::project_guard::ancestors(root, workspace) {
                    for name in RUST_FILES {
                        let path = dir.join(name);
                        if let Some(stamp) = file_seen(&path) {
                            seen.insert(path, stamp);
                        }
                    }
                }
            }
            Language::Python => {
                let folder = root.path().join(".ropeproject");
                if let Ok(entries) = std::fs::read_dir(&folder) {
                    for entry in entries.flatten() {
                        if let Some(stamp) = file_seen(&entry.path()) {
                            seen.insert(entry.path(), stamp);
                        }
                    }
                }
                let pyproject = root.path().join("pyproject.toml");
                if let Some(tool) = tool_tables(&pyproject) {
                    seen.insert(pyproject, tool);
                }
                // pyrefly's own settings file (see `project_guard::pyrefly_problem`).
                let pyrefly = root.path().join("pyrefly.toml");
                if let Some(stamp) = file_seen(&pyrefly) {
                    seen.insert(pyrefly, stamp);
                }
            }
        }
        Stamp {
            lang,
            root: root.path().to_path_buf(),
            workspace: workspace.to_path_buf(),
            seen,
        }
    }

    /// What changed since the stamp was taken ("the project's .cargo/config.toml appeared"),
    /// `None` when nothing did.
    pub fn changed(&self, root: &Root) -> Option<String> {
        let now = Stamp::take(self.lang, root, &self.workspace);
        let shown = |path: &Path, seen: &Seen| {
            let relative = path
                .strip_prefix(&self.root)
                .map_or_else(|_| path.display().to_string(), |p| p.display().to_string());
            match seen {
                Seen::File { .. } => format!("the project's {relative}"),
                Seen::Tool(_) => format!("the [tool] tables of the project's {relative}"),
            }
        };
        let mut changes = Vec::new();
        for (path, seen) in &now.seen {
            match self.seen.get(path) {
                None => changes.push(format!("{} appeared", shown(path, seen))),
                Some(before) if before != seen => {
                    changes.push(format!("{} changed", shown(path, seen)));
                }
                Some(_) => {}
            }
        }
        for (path, seen) in &self.seen {
            if !now.seen.contains_key(path) {
                changes.push(format!("{} went away", shown(path, seen)));
            }
        }
        (!changes.is_empty()).then(|| changes.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trust_sensitive_file_that_appears_or_changes_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let workspace = root.path().to_path_buf();
        let stamp = Stamp::take(Language::Rust, &root, &workspace);
        assert_eq!(stamp.changed(&root), None);
        std::fs::write(root.path().join("lib.rs"), "fn a() {}\n").unwrap();
        assert_eq!(stamp.changed(&root), None, "a source file is not stamped");
        std::fs::create_dir(root.path().join(".cargo")).unwrap();
        std::fs::write(root.path().join(".cargo/config.toml"), "[build]\n").unwrap();
        assert_eq!(
            stamp.changed(&root).as_deref(),
            Some("the project's .cargo/config.toml appeared")
        );
        let stamp = Stamp::take(Language::Rust, &root, &workspace);
        std::fs::write(
            root.path().join(".cargo/config.toml"),
            "[build]\nrustc-wrapper = \"x\"\n",
        )
        .unwrap();
        assert_eq!(
            stamp.changed(&root).as_deref(),
            Some("the project's .cargo/config.toml changed")
        );

        let stamp = Stamp::take(Language::Python, &root, &workspace);
        std::fs::create_dir(root.path().join(".ropeproject")).unwrap();
        std::fs::write(
            root.path().join("pyproject.toml"),
            "[project]\nname = \"a\"\n",
        )
        .unwrap();
        assert_eq!(
            stamp.changed(&root),
            None,
            "an empty .ropeproject and a pyproject.toml without [tool] change nothing"
        );
        std::fs::write(
            root.path().join("pyproject.toml"),
            "[project]\nname = \"a\"\n[tool.rope]\nextension_modules = [\"evil\"]\n",
        )
        .unwrap();
        std::fs::write(root.path().join(".ropeproject/config.py"), "x = 1\n").unwrap();
        let said = stamp.changed(&root).unwrap();
        assert!(said.contains(".ropeproject/config.py appeared"), "{said}");
        assert!(
            said.contains("the [tool] tables of the project's pyproject.toml appeared"),
            "{said}"
        );
    }
}
