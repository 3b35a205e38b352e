//! Brings an index up to date with the project: the walk (the same walker, so the same files)
//! stats every file; a file whose stamp is the one indexed, and was not racily new then, is
//! kept; the others are read and tokenized again on every core. A first build is the same
//! with nothing kept, reporting progress as it goes.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use ignore::WalkState;

use super::disk;
use super::listing::{DirStamp, Listed, Listing};
use super::{Entry, Held, Index};
use crate::edit::SourceFile;
use crate::lang::Language;
use crate::workspace::Root;
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
    stamp: Option<Stamp>,
    link: bool,
}

/// What a walk of the project found: the files, and the directories it entered with their
/// stamps (for the listing kept beside the index).
struct Walked {
    seen: Vec<Seen>,
    dirs: Vec<(String, DirStamp)>,
}

impl Walked {
    /// What it listed, for the listing.
    fn listed(&self) -> Vec<Listed> {
        (self.seen.iter())
            .map(|s| Listed {
                relative: s.relative.clone(),
                link: s.link,
            })
            .collect()
    }
}

/// Every file of a language candor knows, and every symbolic link, as the walk lists them; and
/// every directory it entered.
fn scan(root: &Path) -> Walked {
    let found = Mutex::new(Walked {
        seen: Vec::new(),
        dirs: Vec::new(),
    });
    walk::walker(root).build_parallel().run(|| {
        Box::new(|entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            let link = entry.path_is_symlink();
            let is_dir = !link && entry.file_type().is_some_and(|t| t.is_dir());
            let file = entry.file_type().is_some_and(|t| t.is_file())
                && entry
                    .path()
                    .to_str()
                    .and_then(Language::from_path)
                    .is_some();
            let Some(relative) = (entry.path().strip_prefix(root).ok())
                .and_then(|relative| relative.to_str())
                .map(|relative| relative.replace('\\', "/"))
            else {
                return WalkState::Continue;
            };
            if is_dir {
                // A directory the walk cannot stat is never trusted (the listing is not kept).
                let stamp =
                    (entry.metadata().ok()).map_or(DirStamp::UNTRUSTED, |meta| DirStamp::of(&meta));
                (found.lock().unwrap_or_else(|e| e.into_inner()).dirs).push((relative, stamp));
            } else if link || file {
                let seen = Seen {
                    relative,
                    stamp: entry.metadata().ok().map(|m| Stamp::of(&m)),
                    link,
                };
                found
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .seen
                    .push(seen);
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
    let sha256 = file.sha256_bytes().unwrap_or([0; 32]);
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
    root: &Root,
    progress: Option<&(dyn Fn(usize, usize) + Sync)>,
) -> Refreshed {
    refresh_from(index, scan_files(root), progress)
}

/// What the walk found under a root, with each file's stamp: [`refresh_from`]'s input, so the
/// scan can run while the index is read.
pub struct Scanned {
    /// The root the files are under.
    root: PathBuf,
    seen: Vec<Seen>,
}

impl std::fmt::Debug for Scanned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Scanned({} files)", self.seen.len())
    }
}

/// Lists and stats the project's files (every core): from the listing kept beside the index
/// when nothing it rests on changed (each listed file and directory is stated, nothing is
/// walked), else by walking the project, and then the listing is kept for the next scan.
pub fn scan_files(root: &Root) -> Scanned {
    let path = root.path();
    let kept = disk::load_listing(root);
    if let Some(stated) = kept.as_ref().and_then(|listing| listing.check(path)) {
        let seen = stated
            .into_iter()
            .map(|s| Seen {
                relative: s.relative,
                stamp: Some(s.stamp),
                link: s.link,
            })
            .collect();
        return Scanned {
            root: path.to_path_buf(),
            seen,
        };
    }
    let started = crate::workspace::store::now_ns();
    let walked = scan(path);
    let entries = walked.listed();
    // Changed within the racy window before the walk began: not trusted.
    let since = started - crate::workspace::store::RACY_NS;
    if let Some(listing) = Listing::record(path, entries, walked.dirs, since)
        && kept.as_deref() != Some(&listing)
    {
        // Only a help for the next scan: one not kept walks.
        let _ = disk::save_listing(root, &listing);
    }
    // In the index's order, as a listing's are: an unchanged project is then seen at a glance.
    let mut seen = walked.seen;
    seen.sort_unstable_by(|a, b| a.relative.cmp(&b.relative));
    Scanned {
        root: path.to_path_buf(),
        seen,
    }
}

/// [`refresh`] from a scan already made.
pub fn refresh_from(
    index: &mut Index,
    scanned: Scanned,
    progress: Option<&(dyn Fn(usize, usize) + Sync)>,
) -> Refreshed {
    let Scanned { root, seen } = scanned;
    let mut refreshed = Refreshed {
        files: seen.len(),
        ..Refreshed::default()
    };
    if stands_as_indexed(index, &seen) {
        return refreshed;
    }
    let listed: std::collections::HashSet<&str> =
        seen.iter().map(|s| s.relative.as_str()).collect();
    refreshed.removed = index.keep_only(&listed);
    let stale: Vec<&Seen> = seen
        .iter()
        .filter(|s| {
            !index
                .files
                .get(&s.relative)
                .is_some_and(|entry| stands(entry, s))
        })
        .collect();
    let done = AtomicUsize::new(0);
    let max_bytes = index.max_bytes;
    // Not on rayon's pool: the index's lock is held (see `threads`).
    let read: Vec<Read> = super::threads::map_on_cores(&stale, |s| {
        let result = if s.link {
            Read::Special
        } else {
            read_one(
                &root.join(&s.relative),
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
    });
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

/// Whether the scan found the files the index holds, in its order, each as its entry has it
/// ([`stands`]): then the refresh has nothing to read or change. What a long-lived session
/// finds at most of its requests, answered without a lookup.
fn stands_as_indexed(index: &Index, seen: &[Seen]) -> bool {
    index.files.len() == seen.len()
        && (index.files.iter().zip(seen))
            .all(|((path, entry), s)| *path == s.relative && stands(entry, s))
}

/// Whether the file the scan saw is as its entry has it: the stamp the index trusts, or a link
/// still a link with its stamp (recorded again, it would be the same entry).
fn stands(entry: &Entry, seen: &Seen) -> bool {
    let trusted = match entry.held {
        Held::Link => seen.link,
        _ => !seen.link && !entry.racy,
    };
    trusted && seen.stamp == Some(entry.stamp)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// What the walk lists now: (path, link), sorted.
    fn walked(root: &Path) -> Vec<(String, bool)> {
        let mut listed: Vec<_> = (scan(root).seen.into_iter())
            .map(|s| (s.relative, s.link))
            .collect();
        listed.sort();
        listed
    }

    /// The listing of a walk now, every stamp trusted (the files were backdated).
    fn record(root: &Path) -> Listing {
        let walk = scan(root);
        Listing::record(root, walk.listed(), walk.dirs, i128::MAX).expect("a listing")
    }

    /// What a scan from the listing lists, when it trusts it.
    fn from_listing(listing: &Listing, root: &Path) -> Option<Vec<(String, bool)>> {
        let stated = listing.check(root)?;
        Some(stated.into_iter().map(|s| (s.relative, s.link)).collect())
    }

    /// Sets the mtime of everything under `dir` (itself included, `.git` too) a minute back.
    fn backdate_all(dir: &Path) {
        let when = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        for entry in walkdir(dir) {
            if let Ok(file) = std::fs::File::open(&entry) {
                let _ = file.set_modified(when);
            }
        }
    }

    fn walkdir(dir: &Path) -> Vec<PathBuf> {
        let mut all = vec![dir.to_path_buf()];
        if let Ok(entries) = std::fs::read_dir(dir) {
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() && !path.is_symlink() {
                    all.extend(walkdir(&path));
                } else if !path.is_symlink() {
                    all.push(path);
                }
            }
        }
        all
    }

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A project inside `outer/` (whose ignore files apply to it too).
    fn project() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("outer/proj");
        write(&root.join("a.py"), "a = 1\n");
        write(&root.join("pkg/b.py"), "b = 1\n");
        write(&root.join("pkg/sub/c.rs"), "fn c() {}\n");
        write(&root.join("ignored/x.py"), "x = 1\n");
        write(&root.join(".gitignore"), "ignored/\n");
        write(&root.join("notes.txt"), "not a source\n");
        std::os::unix::fs::symlink("a.py", root.join("link.py")).unwrap();
        (dir, root)
    }

    #[test]
    fn the_listing_stands_for_the_walk_until_what_it_rests_on_changes() {
        type Change = fn(&Path);
        let changes: [(&str, Change); 13] = [
            ("a file added", |root| write(&root.join("pkg/new.py"), "")),
            ("a file removed", |root| {
                std::fs::remove_file(root.join("a.py")).unwrap()
            }),
            ("a folder added", |root| write(&root.join("pkg/d/e.py"), "")),
            ("a file renamed", |root| {
                std::fs::rename(root.join("pkg/b.py"), root.join("pkg/b2.py")).unwrap()
            }),
            ("the ignore file edited in place", |root| {
                std::fs::write(root.join(".gitignore"), "ignored/\npkg/\n").unwrap()
            }),
            ("an ignore file added below", |root| {
                write(&root.join("pkg/.ignore"), "b.py\n")
            }),
            ("an ignore file added above the root", |root| {
                write(&root.parent().unwrap().join(".gitignore"), "*.rs\n")
            }),
            ("a git exclude added", |root| {
                write(&root.join(".git/info/exclude"), "a.py\n")
            }),
            ("a file made a link", |root| {
                std::fs::remove_file(root.join("pkg/b.py")).unwrap();
                std::os::unix::fs::symlink("../a.py", root.join("pkg/b.py")).unwrap();
            }),
            ("a folder replaced by a link to a copy", |root| {
                let copy = root.parent().unwrap().join("copy");
                write(&copy.join("c.rs"), "fn c() {}\n");
                std::fs::remove_dir_all(root.join("pkg/sub")).unwrap();
                std::os::unix::fs::symlink(&copy, root.join("pkg/sub")).unwrap();
            }),
            ("the ignored folder unignored", |root| {
                std::fs::write(root.join(".gitignore"), "\n").unwrap()
            }),
            ("a folder's permissions changed", |root| {
                use std::os::unix::fs::PermissionsExt;
                let sub = root.join("pkg/sub");
                std::fs::set_permissions(&sub, std::fs::Permissions::from_mode(0o700)).unwrap();
            }),
            ("a file edited", |root| {
                std::fs::write(root.join("a.py"), "a = 2\n").unwrap()
            }),
        ];
        for (what, change) in changes {
            let (_dir, root) = project();
            if what == "a git exclude added" {
                // `.git` is there already (with no exclude): only the exclude is new.
                std::fs::create_dir_all(root.join(".git/info")).unwrap();
            }
            backdate_all(root.parent().unwrap());
            let listing = record(&root);
            let before = walked(&root);
            assert_eq!(
                from_listing(&listing, &root),
                Some(before.clone()),
                "{what}"
            );
            assert_eq!(
                Listing::decode(&listing.encode()).as_ref(),
                Some(&listing),
                "{what}"
            );
            // Past the file system's clock tick: the change gets a stamp of its own.
            std::thread::sleep(std::time::Duration::from_millis(20));
            change(&root);
            let now = walked(&root);
            let scanned = from_listing(&listing, &root);
            if what == "a file edited" {
                // Only the file's stamp moved: the listing stands, the stat sees the change.
                assert_eq!(scanned, Some(now.clone()), "{what}");
                let stated = listing.check(&root).unwrap();
                let a = stated.iter().find(|s| s.relative == "a.py").unwrap();
                assert_eq!(a.stamp.size, 6);
            } else {
                assert_eq!(scanned, None, "{what}: the listing must not stand");
            }
            if !matches!(what, "a file edited" | "a folder's permissions changed") {
                assert_ne!(now, before, "{what}: the change must change the walk");
            }
        }
    }

    #[test]
    fn a_refresh_that_finds_every_stamp_as_indexed_reads_nothing() {
        let (_dir, root_path) = project();
        // Not text the index sees into: its stamp is trusted all the same.
        std::fs::write(root_path.join("pkg/latin1.py"), b"s = '\xe9'\n").unwrap();
        let long_ago = |relative: &str, secs: u64| {
            let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(secs);
            let file = std::fs::File::options()
                .write(true)
                .open(root_path.join(relative));
            file.unwrap().set_modified(when).unwrap();
        };
        for file in ["a.py", "pkg/b.py", "pkg/sub/c.rs", "pkg/latin1.py"] {
            long_ago(file, 1_600_000_000);
        }
        let root = Root::new(&root_path).unwrap();
        let mut index = Index::empty(1000);
        let first = refresh(&mut index, &root, None);
        assert_eq!((first.files, first.read), (5, 5));
        // A link is never trusted with what it leads to; as it stands, nothing is to be read.
        let again = refresh(&mut index, &root, None);
        assert_eq!(
            (again.files, again.read, again.updated, again.removed),
            (5, 0, 0, 0)
        );
        // One stamp moved: that file alone is read, and what it says now is what is asked.
        write(&root_path.join("pkg/b.py"), "b = helper()\n");
        long_ago("pkg/b.py", 1_600_000_100);
        let changed = refresh(&mut index, &root, None);
        assert_eq!((changed.read, changed.updated, changed.removed), (1, 1, 0));
        let holding = index.candidates(&[Language::Python], "helper", super::super::Match::Whole);
        assert!(holding.unwrap().paths.contains(&"pkg/b.py".to_string()));
        // Gone: removed, nothing read.
        std::fs::remove_file(root_path.join("pkg/latin1.py")).unwrap();
        let gone = refresh(&mut index, &root, None);
        assert_eq!((gone.files, gone.read, gone.removed), (4, 0, 1));
    }

    #[test]
    fn a_listing_is_kept_only_beside_an_index_and_only_once_nothing_in_it_is_racy() {
        let (_dir, root_path) = project();
        let root = Root::new(&root_path).unwrap();
        // No index: nothing is written.
        scan_files(&root);
        assert!(!root_path.join(".candor").exists());
        std::fs::create_dir_all(root_path.join(".candor/index")).unwrap();
        // Just written: racy, not kept.
        let listed = |scanned: Scanned| {
            let mut listed: Vec<_> = scanned
                .seen
                .into_iter()
                .map(|s| (s.relative, s.link))
                .collect();
            listed.sort();
            listed
        };
        assert_eq!(listed(scan_files(&root)), walked(&root_path));
        assert!(disk::load_listing(&root).is_none());
        // Older than the racy window (ctimes cannot be set back: wait it out).
        std::thread::sleep(std::time::Duration::from_nanos(
            crate::workspace::store::RACY_NS as u64 + 100_000_000,
        ));
        assert_eq!(listed(scan_files(&root)), walked(&root_path));
        let kept = disk::load_listing(&root).expect("kept");
        assert!(kept.check(&root_path).is_some());
        // A file added: the listing no longer stands, the scan walks and finds it.
        write(&root_path.join("pkg/new.py"), "");
        assert!(kept.check(&root_path).is_none());
        let after = listed(scan_files(&root));
        assert!(after.contains(&("pkg/new.py".to_string(), false)));
        assert_eq!(after, walked(&root_path));
        // `candor index --rebuild` forgets it.
        disk::forget_listing(&root).unwrap();
        assert!(disk::load_listing(&root).is_none());
    }
}
