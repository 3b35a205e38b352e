//! The walk's listing, kept beside the index (`.candor/index/listing.bin`): the files and links
//! the walk listed, every directory it entered with its stamp, and what decides what it skips
//! (each `.gitignore`, `.ignore` and `.git/info/exclude` it could read, in those directories and
//! above the root, and whether `.git` is a directory there). While none of those changed, a walk
//! lists the same files: the next scan stats them instead of walking the project (issue 22). A
//! directory or ignore file changed shortly before the walk began is not trusted (a change in the
//! same clock tick leaves its stamp as it is): the listing is then not kept.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::format::{framed, unframed};
use super::threads::map_on_cores;
use crate::text::leb128::{Reader, put, put_bytes};
use crate::workspace::store::{Stamp, nanos};

const MAGIC: &[u8; 8] = b"CANDORLS";
/// Bumped whenever the body's layout or meaning changes; another version is not read.
const VERSION: u32 = 1;

/// The ignore files the walker reads in a directory it enters (and in each one above the root).
const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

/// A directory's stamp: a file added, removed or renamed in it moves its mtime; a change of its
/// permissions (what the walk can read of it), its ctime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DirStamp {
    mtime_ns: i128,
    ctime_ns: i128,
    inode: u64,
}

impl DirStamp {
    /// Of a directory the walk could not stat: never trusted.
    pub const UNTRUSTED: DirStamp = DirStamp {
        mtime_ns: i128::MAX,
        ctime_ns: i128::MAX,
        inode: 0,
    };

    pub fn of(meta: &std::fs::Metadata) -> DirStamp {
        use std::os::unix::fs::MetadataExt;
        DirStamp {
            mtime_ns: nanos(meta.mtime(), meta.mtime_nsec()),
            ctime_ns: nanos(meta.ctime(), meta.ctime_nsec()),
            inode: meta.ino(),
        }
    }

    /// [`DirStamp::of`] from what `fstatat` gave (the same fields as the metadata's).
    fn of_stat(stat: &rustix::fs::Stat) -> DirStamp {
        DirStamp {
            mtime_ns: nanos(stat.st_mtime, stat.st_mtime_nsec as i64),
            ctime_ns: nanos(stat.st_ctime, stat.st_ctime_nsec as i64),
            inode: stat.st_ino,
        }
    }

    /// Whether it changed at or after `since_ns` (the ctime moves with the mtime).
    fn changed_since(&self, since_ns: i128) -> bool {
        self.ctime_ns.max(self.mtime_ns) >= since_ns
    }
}

/// What stood at a path that decides what the walk skips.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Probe {
    Absent,
    /// A file (an ignore file, or `.git` as a worktree's pointer), with its stamp.
    File(Stamp),
    /// A directory: for `.git`, only that it is one matters (its mtime moves with every git
    /// command, what the walk reads of it does not).
    Dir,
    /// Anything else the walk cannot read as rules.
    Other,
}

impl Probe {
    /// What is at `path` now, following a link as the walker reads it; `None` when that cannot
    /// be told (then nothing is trusted).
    fn observe(path: &Path) -> Option<Probe> {
        match std::fs::metadata(path) {
            Ok(meta) if meta.is_file() => Some(Probe::File(Stamp::of(&meta))),
            Ok(meta) if meta.is_dir() => Some(Probe::Dir),
            Ok(_) => Some(Probe::Other),
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::NotFound | std::io::ErrorKind::NotADirectory
                ) =>
            {
                Some(Probe::Absent)
            }
            Err(_) => None,
        }
    }

    fn changed_since(&self, since_ns: i128) -> bool {
        matches!(self, Probe::File(stamp) if stamp.mtime_ns >= since_ns)
    }
}

/// One file or link the walk listed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    /// Project-relative, `/`-separated.
    pub relative: String,
    pub link: bool,
}

/// The walk's listing and what it rests on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// The project's root as walked.
    root: PathBuf,
    /// Sorted by path.
    entries: Vec<Listed>,
    /// Each directory the walk entered (project-relative, `""` for the root), sorted.
    dirs: Vec<(String, DirStamp)>,
    /// Each path that decides what the walk skips, with what stood there.
    probes: Vec<(PathBuf, Probe)>,
    /// `entries` cut into the runs [`Listing::check`] states together ([`runs_by_directory`]):
    /// worked out once per listing, which a long-lived session checks at every request.
    runs: Vec<std::ops::Range<usize>>,
}

/// What a scan stats for a listed file: what the walk's own `symlink_metadata` sees.
pub struct Stated {
    pub relative: String,
    pub stamp: Stamp,
    pub link: bool,
}

impl Listing {
    fn new(
        root: PathBuf,
        entries: Vec<Listed>,
        dirs: Vec<(String, DirStamp)>,
        probes: Vec<(PathBuf, Probe)>,
    ) -> Listing {
        let runs = runs_by_directory(&entries);
        Listing {
            root,
            entries,
            dirs,
            probes,
            runs,
        }
    }

    /// The listing of a walk of `root` that listed `entries` and entered `dirs` (with the stamp
    /// each had when the walk entered it), with the rules read now. `None` when it cannot be
    /// trusted: a directory or ignore file changed at or after `since_ns` (the walk's start
    /// less the racy window), a `.git` file (a worktree: its rules are elsewhere), a path with
    /// a character the walk rewrites, or a probe that failed.
    pub fn record(
        root: &Path,
        mut entries: Vec<Listed>,
        mut dirs: Vec<(String, DirStamp)>,
        since_ns: i128,
    ) -> Option<Listing> {
        if dirs.iter().any(|(_, stamp)| stamp.changed_since(since_ns)) {
            return None;
        }
        entries.sort_by(|a, b| a.relative.cmp(&b.relative));
        dirs.sort_by(|a, b| a.0.cmp(&b.0));
        let mut probes = Vec::new();
        // In a directory the walk entered, a file created moves the directory's stamp: only what
        // is there is probed. Above the root, what is absent is probed too.
        let walked = dirs.iter().map(|(dir, _)| (root.join(dir), true));
        let above = root
            .ancestors()
            .skip(1)
            .map(|dir| (dir.to_path_buf(), false));
        for (dir, entered) in walked.chain(above) {
            let mut probe = |path: PathBuf, found: Probe| {
                if !(entered && found == Probe::Absent) {
                    probes.push((path, found));
                }
            };
            for name in IGNORE_FILES {
                let path = dir.join(name);
                let found = Probe::observe(&path)?;
                probe(path, found);
            }
            let git = dir.join(".git");
            match Probe::observe(&git)? {
                Probe::File(_) => return None,
                Probe::Dir => {
                    // Created inside `.git/info`, which the walk never enters: probed absent too.
                    let exclude = git.join("info/exclude");
                    let found = Probe::observe(&exclude)?;
                    probe(git, Probe::Dir);
                    probes.push((exclude, found));
                }
                found => probe(git, found),
            }
        }
        if probes
            .iter()
            .any(|(_, probe)| probe.changed_since(since_ns))
        {
            return None;
        }
        let listing = Listing::new(root.to_path_buf(), entries, dirs, probes);
        listing.well_formed().then_some(listing)
    }

    /// The listed files, each stated now, when the walk of `root` would list exactly these: every
    /// directory and rule as recorded. `None` when anything moved (the caller walks).
    pub fn check(&self, root: &Path) -> Option<Vec<Stated>> {
        if self.root != root {
            return None;
        }
        // The directories and rules on a thread while the files are stated: nothing is kept
        // unless all of them stand.
        let (unchanged, stated) = std::thread::scope(|s| {
            let unchanged = s.spawn(|| {
                self.dirs_stand(root)
                    && (self.probes.iter())
                        .all(|(path, probe)| Probe::observe(path) == Some(*probe))
            });
            let stated = map_on_cores(&self.runs, |run| stat_run(root, &self.entries[run.clone()]));
            (unchanged.join().unwrap_or(false), stated)
        });
        if !unchanged {
            return None;
        }
        stated.into_iter().flatten().collect()
    }

    /// Whether every directory is still one, with its stamp: each stated through the root (a
    /// path looked up from there, not from `/`).
    fn dirs_stand(&self, root: &Path) -> bool {
        use rustix::fs::{AtFlags, FileType, Mode, OFlags};
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let Ok(top) = rustix::fs::open(root, flags, Mode::empty()) else {
            return false;
        };
        let stands = |(dir, stamp): &(String, DirStamp)| {
            let stat = match dir.as_str() {
                "" => rustix::fs::fstat(&top),
                dir => rustix::fs::statat(&top, dir, AtFlags::SYMLINK_NOFOLLOW),
            };
            stat.is_ok_and(|stat| {
                FileType::from_raw_mode(stat.st_mode) == FileType::Directory
                    && DirStamp::of_stat(&stat) == *stamp
            })
        };
        self.dirs.iter().all(stands)
    }

    /// Whether every path stays inside the root through directories the listing holds: each
    /// entry's and each directory's parent is listed, and no part is empty, `.`, `..`, hidden
    /// (the walk skips those) or a folder the walk never enters. A listing read from disk is
    /// checked so before it is used (a repository could ship one).
    fn well_formed(&self) -> bool {
        let dirs: BTreeSet<&str> = self.dirs.iter().map(|(dir, _)| dir.as_str()).collect();
        let fine_part =
            |part: &str| !part.is_empty() && !part.starts_with('.') && !part.contains('\\');
        let fine_dir = |dir: &str| {
            dir.split('/').all(|part| {
                fine_part(part) && !crate::workspace::walk::SKIPPED_DIRS.contains(&part)
            })
        };
        self.root.is_absolute()
            && dirs.contains("")
            && strictly_sorted(self.dirs.iter().map(|(dir, _)| dir.as_str()))
            && strictly_sorted(self.entries.iter().map(|e| e.relative.as_str()))
            && (self.dirs.iter().skip(1))
                .all(|(dir, _)| fine_dir(dir) && dirs.contains(parent(dir)))
            && (self.entries.iter()).all(|e| {
                let path = e.relative.as_str();
                fine_part(name(path)) && dirs.contains(parent(path))
            })
    }

    pub fn encode(&self) -> Vec<u8> {
        let mut body = Vec::new();
        put_bytes(&mut body, self.root.as_os_str().as_bytes());
        put(&mut body, self.entries.len() as u64);
        for listed in &self.entries {
            put_bytes(&mut body, listed.relative.as_bytes());
            body.push(u8::from(listed.link));
        }
        put(&mut body, self.dirs.len() as u64);
        for (dir, stamp) in &self.dirs {
            put_bytes(&mut body, dir.as_bytes());
            body.extend_from_slice(&stamp.mtime_ns.to_le_bytes());
            body.extend_from_slice(&stamp.ctime_ns.to_le_bytes());
            put(&mut body, stamp.inode);
        }
        put(&mut body, self.probes.len() as u64);
        for (path, probe) in &self.probes {
            put_bytes(&mut body, path.as_os_str().as_bytes());
            match probe {
                Probe::Absent => body.push(0),
                Probe::Dir => body.push(1),
                Probe::Other => body.push(2),
                Probe::File(stamp) => {
                    body.push(3);
                    put(&mut body, stamp.size);
                    body.extend_from_slice(&stamp.mtime_ns.to_le_bytes());
                    put(&mut body, stamp.inode);
                }
            }
        }
        framed(MAGIC, VERSION, &body)
    }

    /// The listing `bytes` hold; `None` when they are not a whole, well-formed listing of this
    /// version (then the scan walks, and writes a new one).
    pub fn decode(bytes: &[u8]) -> Option<Listing> {
        let body = unframed(bytes, MAGIC, VERSION).ok()?;
        let r = &mut Reader::new(body);
        let path = |r: &mut Reader<'_>| Some(PathBuf::from(OsStr::from_bytes(r.bytes()?)));
        let i128_at = |r: &mut Reader<'_>| Some(i128::from_le_bytes(r.take(16)?.try_into().ok()?));
        let root = path(r)?;
        let entries = (0..r.count()?)
            .map(|_| {
                let relative = r.str()?.to_string();
                let link = match r.take(1)?[0] {
                    0 => false,
                    1 => true,
                    _ => return None,
                };
                Some(Listed { relative, link })
            })
            .collect::<Option<Vec<_>>>()?;
        let dirs = (0..r.count()?)
            .map(|_| {
                let dir = r.str()?.to_string();
                let stamp = DirStamp {
                    mtime_ns: i128_at(r)?,
                    ctime_ns: i128_at(r)?,
                    inode: r.num()?,
                };
                Some((dir, stamp))
            })
            .collect::<Option<Vec<_>>>()?;
        let probes = (0..r.count()?)
            .map(|_| {
                let at = path(r)?;
                let probe = match r.take(1)?[0] {
                    0 => Probe::Absent,
                    1 => Probe::Dir,
                    2 => Probe::Other,
                    3 => Probe::File(Stamp {
                        size: r.num()?,
                        mtime_ns: i128_at(r)?,
                        inode: r.num()?,
                    }),
                    _ => return None,
                };
                Some((at, probe))
            })
            .collect::<Option<Vec<_>>>()?;
        let listing = Listing::new(root, entries, dirs, probes);
        (r.is_at_end() && listing.well_formed()).then_some(listing)
    }
}

/// The folder `path` is in (`""` for the root).
fn parent(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(parent, _)| parent)
}

/// How many listed files [`stat_run`] states at most through one handle of their directory (the
/// runs are spread over the cores).
const RUN: usize = 32;

/// `entries` (sorted by path) cut into runs of files in the same directory, at most [`RUN`] each.
fn runs_by_directory(entries: &[Listed]) -> Vec<std::ops::Range<usize>> {
    let mut runs: Vec<std::ops::Range<usize>> = Vec::new();
    for (at, listed) in entries.iter().enumerate() {
        match runs.last_mut() {
            Some(run)
                if run.len() < RUN
                    && parent(&entries[run.start].relative) == parent(&listed.relative) =>
            {
                run.end = at + 1
            }
            _ => runs.push(at..at + 1),
        }
    }
    runs
}

/// The files of one run (one directory), each as the walk's `symlink_metadata` sees it, stated
/// by name through one handle of their directory (a lookup of one name each, not of the whole
/// path); `None` for one that is gone or is no longer the kind it was.
fn stat_run(root: &Path, run: &[Listed]) -> Vec<Option<Stated>> {
    use rustix::fs::{AtFlags, FileType, Mode, OFlags};
    let Some(first) = run.first() else {
        return Vec::new();
    };
    let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
    let Ok(dir) = rustix::fs::open(root.join(parent(&first.relative)), flags, Mode::empty()) else {
        return run.iter().map(|_| None).collect();
    };
    let state = |listed: &Listed| {
        let stat =
            rustix::fs::statat(&dir, name(&listed.relative), AtFlags::SYMLINK_NOFOLLOW).ok()?;
        let kind = FileType::from_raw_mode(stat.st_mode);
        let same_kind = if listed.link {
            kind == FileType::Symlink
        } else {
            kind == FileType::RegularFile
        };
        same_kind.then(|| Stated {
            relative: listed.relative.clone(),
            stamp: Stamp::of_stat(&stat),
            link: listed.link,
        })
    };
    run.iter().map(state).collect()
}

/// The last part of `path`.
fn name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

/// Whether each path comes after the one before it (sorted, none twice).
fn strictly_sorted<'a>(paths: impl Iterator<Item = &'a str>) -> bool {
    let mut last: Option<&str> = None;
    paths.into_iter().all(|path| {
        let after = last.is_none_or(|last| last < path);
        last = Some(path);
        after
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(relative: &str) -> Listed {
        Listed {
            relative: relative.to_string(),
            link: false,
        }
    }

    fn stamp(n: i128) -> DirStamp {
        DirStamp {
            mtime_ns: n,
            ctime_ns: n,
            inode: 7,
        }
    }

    fn sample() -> Listing {
        Listing::new(
            PathBuf::from("/p"),
            vec![listed("a.py"), listed("pkg/b.py")],
            vec![(String::new(), stamp(1)), ("pkg".to_string(), stamp(2))],
            vec![
                (PathBuf::from("/p/.gitignore"), Probe::Absent),
                (
                    PathBuf::from("/p/.ignore"),
                    Probe::File(Stamp {
                        size: 3,
                        mtime_ns: 9,
                        inode: 4,
                    }),
                ),
                (PathBuf::from("/p/.git"), Probe::Dir),
            ],
        )
    }

    #[test]
    fn a_listing_reads_back_as_written_and_a_damaged_one_is_refused() {
        let listing = sample();
        let bytes = listing.encode();
        assert_eq!(Listing::decode(&bytes), Some(listing));
        let mut flipped = bytes.clone();
        let last = flipped.len() - 2;
        flipped[last] ^= 1;
        assert_eq!(Listing::decode(&flipped), None);
        assert_eq!(Listing::decode(&bytes[..bytes.len() - 1]), None);
        let mut other = bytes.clone();
        other[8] = 9;
        assert_eq!(Listing::decode(&other), None);
    }

    #[test]
    fn a_listing_that_leaves_the_project_or_enters_what_the_walk_skips_is_refused() {
        let reads_back = |change: &dyn Fn(&mut Listing)| {
            let mut listing = sample();
            change(&mut listing);
            Listing::decode(&listing.encode()).is_some()
        };
        assert!(reads_back(&|_| {}));
        let entry = |path: &'static str| move |l: &mut Listing| l.entries.push(listed(path));
        for path in [
            "../x.py",
            "pkg/../../x.py",
            ".git/hooks.py",
            "pkg/.hidden/x.py",
            "target/x.rs",
            "z/x.py",
            "pkg//x.py",
            "./x.py",
        ] {
            assert!(!reads_back(&entry(path)), "{path}");
        }
        // A directory whose parent is not listed, or the root missing; unsorted entries.
        assert!(!reads_back(&|l| l.dirs.push(("q/r".to_string(), stamp(3)))));
        assert!(!reads_back(&|l| l
            .dirs
            .push(("target".to_string(), stamp(3)))));
        assert!(reads_back(&|l| l.dirs.push(("src".to_string(), stamp(3)))));
        assert!(!reads_back(&|l| {
            l.dirs.remove(0);
        }));
        assert!(!reads_back(&|l| l.entries.reverse()));
        assert!(!reads_back(&|l| l.root = PathBuf::from("p")));
    }

    #[test]
    fn files_stated_through_their_directory_are_what_the_walks_lstat_sees() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg/deep")).unwrap();
        let mut entries = vec![listed("a.py")];
        std::fs::write(root.join("a.py"), "a = 1\n").unwrap();
        for i in 0..(RUN + 3) {
            let relative = format!("pkg/m{i:03}.py");
            std::fs::write(root.join(&relative), "x = 1\n".repeat(i + 1)).unwrap();
            entries.push(listed(&relative));
        }
        std::fs::write(root.join("pkg/deep/z.py"), "z = 1\n").unwrap();
        entries.push(listed("pkg/deep/z.py"));
        std::os::unix::fs::symlink("../a.py", root.join("pkg/link.py")).unwrap();
        entries.push(Listed {
            relative: "pkg/link.py".to_string(),
            link: true,
        });
        entries.sort_by(|a, b| a.relative.cmp(&b.relative));

        let runs = runs_by_directory(&entries);
        assert_eq!(runs.iter().map(|r| r.len()).sum::<usize>(), entries.len());
        for run in &runs {
            assert!(run.len() <= RUN);
            let first = parent(&entries[run.start].relative);
            assert!(
                entries[run.clone()]
                    .iter()
                    .all(|e| parent(&e.relative) == first)
            );
        }
        let stated: Vec<Option<Stated>> = (runs.iter())
            .flat_map(|run| stat_run(root, &entries[run.clone()]))
            .collect();
        for (listed, stated) in entries.iter().zip(&stated) {
            let meta = std::fs::symlink_metadata(root.join(&listed.relative)).unwrap();
            let stated = stated.as_ref().expect(&listed.relative);
            assert_eq!(stated.stamp, Stamp::of(&meta), "{}", listed.relative);
            assert_eq!(
                (&stated.relative, stated.link),
                (&listed.relative, listed.link)
            );
        }

        // Gone, or no longer the kind listed (a file where a link was, a directory where a file
        // was), or in a directory that is gone: not stated.
        std::fs::remove_file(root.join("a.py")).unwrap();
        std::fs::remove_file(root.join("pkg/link.py")).unwrap();
        std::fs::write(root.join("pkg/link.py"), "now a file\n").unwrap();
        std::fs::remove_file(root.join("pkg/m000.py")).unwrap();
        std::fs::create_dir(root.join("pkg/m000.py")).unwrap();
        std::fs::remove_dir_all(root.join("pkg/deep")).unwrap();
        let gone = ["a.py", "pkg/link.py", "pkg/m000.py", "pkg/deep/z.py"];
        for run in &runs {
            for (listed, stated) in entries[run.clone()]
                .iter()
                .zip(stat_run(root, &entries[run.clone()]))
            {
                assert_eq!(
                    stated.is_none(),
                    gone.contains(&listed.relative.as_str()),
                    "{}",
                    listed.relative
                );
            }
        }
    }
}
