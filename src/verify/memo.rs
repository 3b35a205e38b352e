//! Results remembered by content, so that a second check of the same base is half the work: the
//! "before" diagnostics of each checker on a project state, and the tests' baseline, kept as
//! JSON files named by their key in the project's `memo/` folder of candor's cache (reached
//! through its handle, never a link). At most [`MAX_ENTRIES`]; the least recently used go first.
//! A key covers everything the result depends on: the checker (path, size and time of its
//! program, its arguments), the files it was asked about, and the content of every project file.

use std::ffi::OsStr;

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::refactor::Severity;
use crate::workspace::dir::{Dir, Kind};

use super::Diagnostic;

/// Entries kept per project.
const MAX_ENTRIES: usize = 64;

/// The remembered results of one project.
pub(crate) struct Memo {
    dir: Dir,
}

/// The key of a result: a hash over its parts, in order, and over this build of candor (another
/// build may run the checkers differently: what it remembered is not reused).
pub(crate) fn key(parts: &[&str]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(own_build().as_bytes());
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    hex::encode(hasher.finalize())
}

/// This build of candor: its version and its executable's size and time.
fn own_build() -> &'static str {
    static BUILD: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILD.get_or_init(|| {
        use std::os::unix::fs::MetadataExt;
        let exe = std::env::current_exe()
            .ok()
            .and_then(|p| std::fs::metadata(p).ok())
            .map(|m| format!("{}:{}.{}", m.size(), m.mtime(), m.mtime_nsec()))
            .unwrap_or_default();
        format!("{}|{exe}", env!("CARGO_PKG_VERSION"))
    })
}

impl Memo {
    pub fn new(dir: Dir) -> Memo {
        Memo { dir }
    }

    /// The value stored under `key`, if any (and marks it used).
    pub fn get<T: DeserializeOwned>(&self, key: &str) -> Option<T> {
        let name = format!("{key}.json");
        let file = self.dir.open_file(OsStr::new(&name)).ok()??;
        let value = serde_json::from_reader(std::io::BufReader::new(&file)).ok()?;
        let _ = file.set_modified(std::time::SystemTime::now());
        Some(value)
    }

    /// Stores `value` under `key`, then trims the store to its size. Failing to remember is not
    /// an error: the next check just does the work again.
    pub fn put<T: Serialize>(&self, key: &str, value: &T) {
        let Ok(bytes) = serde_json::to_vec(value) else {
            return;
        };
        let _ = super::cache::write_small(&self.dir, &format!("{key}.json"), &bytes);
        self.trim();
    }

    fn trim(&self) {
        let Ok(entries) = self.dir.entries() else {
            return;
        };
        let mut files: Vec<(std::time::SystemTime, std::ffi::OsString)> = entries
            .into_iter()
            .filter(|(name, kind)| *kind == Kind::File && name.to_string_lossy().ends_with(".json"))
            .filter_map(|(name, _)| {
                let file = self.dir.open_file(&name).ok()??;
                Some((file.metadata().ok()?.modified().ok()?, name))
            })
            .collect();
        if files.len() <= MAX_ENTRIES {
            return;
        }
        files.sort();
        for (_, name) in &files[..files.len() - MAX_ENTRIES] {
            let _ = self.dir.remove_file(name);
        }
    }
}

/// A diagnostic as remembered.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct Stored {
    file: String,
    line: usize,
    error: bool,
    code: String,
    message: String,
    source: String,
}

impl Stored {
    pub fn of(d: &Diagnostic) -> Stored {
        Stored {
            file: d.file.clone(),
            line: d.line,
            error: d.severity == Severity::Error,
            code: d.code.clone(),
            message: d.message.clone(),
            source: d.source.clone(),
        }
    }

    pub fn diagnostic(self) -> Diagnostic {
        Diagnostic {
            file: self.file,
            line: self.line,
            severity: if self.error {
                Severity::Error
            } else {
                Severity::Warning
            },
            code: self.code,
            message: self.message,
            source: self.source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back_by_key_and_the_oldest_go() {
        let dir = tempfile::tempdir().unwrap();
        let memo = Memo::new(Dir::open_path(dir.path()).unwrap());
        let k = key(&["ruff", "a.py", "content"]);
        assert_ne!(k, key(&["ruffa", ".py", "content"]), "parts are delimited");
        assert_eq!(memo.get::<Vec<u32>>(&k), None);
        memo.put(&k, &vec![1u32, 2]);
        assert_eq!(memo.get::<Vec<u32>>(&k), Some(vec![1, 2]));
        for i in 0..MAX_ENTRIES + 5 {
            memo.put(&key(&[&i.to_string()]), &i);
        }
        let kept = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(kept, MAX_ENTRIES);
    }
}
