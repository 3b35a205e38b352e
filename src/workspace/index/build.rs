//! Brings an index up to date with the project: the walk (the same walker, so the same files)
//! stats every file; a file whose stamp is the one indexed, and was not racily new then, is
//! kept; the others are read and tokenized again on every core. A first build is the same
//! with nothing kept, reporting progress as it goes.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use ignore::WalkState;

use super::{Entry, Held, Index};
use crate::edit::SourceFile;
use crate::lang::Language;
use crate::workspace::store::Stamp;
use crate::workspace::walk;

/// What a refresh changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Refreshed {
    /// Files read again (new, changed, or too new to trust their stamp).
    pub read: usize,
    /// Of them, those whose entry changed (then the index is saved again).
    pub updated: usize,
    /// Files gone from the project.
    pub removed: usize,
    /// Files listed.
    pub files: usize,
}

impl Refreshed {
    pub fn changed(&self) -> bool {
        self.updated > 0 || self.removed > 0
    }
}

/// A file the walk found.
struct Seen {
    relative: String,
    absolute: PathBuf,
    stamp: Option<Stamp>,
    link: bool,
}

/// Every file of a language candor knows, and every symbolic link, as the walk lists them.
fn scan(root: &Path) -> Vec<Seen> {
    let found = Mutex::new(Vec::new());
    walk::walker(root).build_parallel().run(|| {
        Box::new(|entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            let link = entry.path_is_symlink();
            let file = entry.file_type().is_some_and(|t| t.is_file())
                && entry
                    .path()
                    .to_str()
                    .and_then(Language::from_path)
                    .is_some();
            if (link || file)
                && let Ok(relative) = entry.path().strip_prefix(root)
                && let Some(relative) = relative.to_str()
            {
                let seen = Seen {
                    relative: relative.replace('\\', "/"),
                    stamp: entry.metadata().ok().map(|m| Stamp::of(&m)),
                    absolute: entry.into_path(),
                    link,
                };
                found.lock().unwrap_or_else(|e| e.into_inner()).push(seen);
            }
            WalkState::Continue
        })
    });
    found.into_inner().unwrap_or_else(|e| e.into_inner())
}

/// What reading one file gave.
enum Read {
    Text([u8; 32], Vec<(String, super::tokens::Run)>),
    Special,
}

fn read_one(path: &Path, relative: &str, max_bytes: u64, old: Option<&Entry>) -> Read {
    let Ok(bytes) = walk::read_limited(path, max_bytes) else {
        return Read::Special;
    };
    let Ok(file) = SourceFile::from_bytes(relative, &bytes) else {
        return Read::Special;
    };
    let sha256: [u8; 32] = hex::decode(&file.sha256)
        .ok()
        .and_then(|v| v.try_into().ok())
        .unwrap_or([0; 32]);
    // The same content: its postings are kept (the words are looked up again by the caller).
    if let Some(Entry {
        sha256: old_sha,
        held: Held::Text(_),
        ..
    }) = old
        && *old_sha == sha256
    {
        return Read::Text(sha256, Vec::new());
    }
    let Some(lang) = Language::from_path(relative) else {
        return Read::Special;
    };
    let runs = super::tokens::runs(lang, &file.text)
        .into_iter()
        .map(|(w, r)| (w.to_string(), r))
        .collect();
    Read::Text(sha256, runs)
}

/// Updates `index` to the project under `root` (the canonical root path); `progress` hears
/// (done, to read) as files are read.
pub fn refresh(
    index: &mut Index,
    root: &Path,
    progress: Option<&(dyn Fn(usize, usize) + Sync)>,
) -> Refreshed {
    refresh_from(index, scan_files(root), progress)
}

/// What the walk found under a root, with each file's stamp: [`refresh_from`]'s input, so the
/// scan can run while the index is read.
pub struct Scanned(Vec<Seen>);

impl std::fmt::Debug for Scanned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Scanned({} files)", self.0.len())
    }
}

/// Lists and stats the project's files (every core).
pub fn scan_files(root: &Path) -> Scanned {
    Scanned(scan(root))
}

/// [`refresh`] from a scan already made.
pub fn refresh_from(
    index: &mut Index,
    scanned: Scanned,
    progress: Option<&(dyn Fn(usize, usize) + Sync)>,
) -> Refreshed {
    use rayon::prelude::*;
    let seen = scanned.0;
    let mut refreshed = Refreshed {
        files: seen.len(),
        ..Refreshed::default()
    };
    let listed: std::collections::HashSet<&str> =
        seen.iter().map(|s| s.relative.as_str()).collect();
    refreshed.removed = index.keep_only(&listed);
    let stale: Vec<&Seen> = seen
        .iter()
        .filter(|s| match (index.files.get(&s.relative), s.stamp) {
            (Some(entry), Some(stamp)) => entry.racy || entry.stamp != stamp,
            _ => true,
        })
        .collect();
    let done = AtomicUsize::new(0);
    let max_bytes = index.max_bytes;
    let read: Vec<Read> = stale
        .par_iter()
        .map(|s| {
            let result = if s.link {
                Read::Special
            } else {
                read_one(
                    &s.absolute,
                    &s.relative,
                    max_bytes,
                    index.files.get(&s.relative),
                )
            };
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(progress) = progress {
                progress(n, stale.len());
            }
            result
        })
        .collect();
    refreshed.read = stale.len();
    for (s, result) in stale.into_iter().zip(read) {
        let old = index.files.get(&s.relative).cloned();
        let stamp = s.stamp.unwrap_or(Stamp {
            size: 0,
            mtime_ns: 0,
            inode: 0,
        });
        match result {
            _ if s.link => index.add_special(&s.relative, stamp, Held::Link),
            Read::Special => index.add_special(&s.relative, stamp, Held::Special),
            Read::Text(sha256, runs) if runs.is_empty() => {
                keep_postings(index, &s.relative, stamp, sha256);
            }
            Read::Text(sha256, runs) => {
                let runs = runs.iter().map(|(w, r)| (w.as_str(), r));
                index.add_runs(&s.relative, stamp, sha256, runs);
            }
        }
        if index.files.get(&s.relative) != old.as_ref() {
            refreshed.updated += 1;
        }
    }
    refreshed
}

/// The file's content is what was indexed (or it has no words at all): only its stamp changes.
fn keep_postings(index: &mut Index, path: &str, stamp: Stamp, sha256: [u8; 32]) {
    let now = crate::workspace::store::now_ns();
    match index.files.get_mut(path) {
        Some(entry) if entry.sha256 == sha256 => {
            entry.stamp = stamp;
            entry.racy = stamp.is_racy(now);
        }
        _ => index.add_runs(path, stamp, sha256, std::iter::empty()),
    }
}
