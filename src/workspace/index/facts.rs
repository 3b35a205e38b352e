//! The facts on disk, `<root>/.candor/index/facts/` (issue 22, item 2): the per-file facts a
//! process computed (the references engine's verdicts, the arity check's findings), for the next
//! process, so that an unchanged file is neither parsed nor judged again. Kept only beside an
//! index (a project without one keeps nothing on disk). One file per fact, named by the digest of
//! its key (facts' format, this build of candor, type tag, path, content sha256, question): a
//! fact computed by another build of candor, whose engine may answer otherwise, is never read.
//! Each holds its key and a
//! sha256 of its bytes: a half-written, truncated or foreign entry is ignored and counted, never
//! an error or an answer. Written to a temporary file and renamed (two processes writing the same
//! fact write the same bytes; different facts never meet). Bounded: when the directory holds more
//! than its bound, the entries written longest ago go first.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use crate::workspace::Root;
use crate::workspace::dir::{Dir, Kind};
use crate::workspace::journal;

const INDEX_DIR: &str = "index";
const DIR: &str = "facts";
/// The first bytes of every entry, with the entry format after them.
const MAGIC: &[u8; 8] = b"cndrfact";
/// The layout of an entry (not of the facts in it: that is `refactor::lasting::FORMAT`).
const ENTRY_FORMAT: u32 = 1;
const HEADER: usize = MAGIC.len() + 4 + 32;
/// The default bound of the directory, in bytes of disk it takes.
pub const DEFAULT_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// The largest entry read back (a bigger file there is not one of ours).
const MAX_ENTRY: usize = 64 * 1024 * 1024;
/// How many entries a process writes between two checks of the bound (the first write checks).
const CHECK_EVERY: u64 = 2048;

/// The facts directory of a project, opened once per process.
#[derive(Debug)]
pub struct FactsDir {
    dir: Dir,
    /// [`this_build`].
    build: String,
    max_bytes: u64,
    read: AtomicU64,
    written: AtomicU64,
    bad: AtomicU64,
    checked: AtomicBool,
}

/// What a process did with the facts on disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct DiskCounts {
    /// Facts found on disk and used.
    pub read: u64,
    /// Facts written.
    pub written: u64,
    /// Entries found bad (cut, corrupt, another key) and ignored.
    pub bad: u64,
}

/// What the facts directory holds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Held {
    pub entries: u64,
    /// Their lengths.
    pub bytes: u64,
    /// The disk they take (blocks).
    pub disk_bytes: u64,
}

/// This candor's build: its version and its executable's size and mtime, so that a fact one
/// build computed is never read by another (whose judge may answer otherwise); `None` when the
/// executable cannot be told (then nothing is kept on disk).
fn this_build() -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(std::env::current_exe().ok()?).ok()?;
    Some(format!(
        "{} {} {}.{}",
        env!("CARGO_PKG_VERSION"),
        meta.len(),
        meta.mtime(),
        meta.mtime_nsec()
    ))
}

/// The name of the entry of `key`.
fn name_of(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    hex::encode(&digest[..20])
}

/// The bytes of an entry holding `payload` for `key`.
fn entry(key: &str, payload: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(4 + key.len() + payload.len());
    body.extend_from_slice(&(key.len() as u32).to_le_bytes());
    body.extend_from_slice(key.as_bytes());
    body.extend_from_slice(payload);
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&ENTRY_FORMAT.to_le_bytes());
    out.extend_from_slice(&Sha256::digest(&body));
    out.extend_from_slice(&body);
    out
}

/// The payload of an entry if it is whole and holds `key`.
fn payload_of<'a>(key: &str, bytes: &'a [u8]) -> Option<&'a [u8]> {
    let (header, body) = (bytes.get(..HEADER)?, bytes.get(HEADER..)?);
    if &header[..8] != MAGIC || header[8..12] != ENTRY_FORMAT.to_le_bytes() {
        return None;
    }
    if header[12..] != Sha256::digest(body)[..] {
        return None;
    }
    let len = u32::from_le_bytes(body.get(..4)?.try_into().ok()?) as usize;
    let kept = body.get(4..4 + len)?;
    (kept == key.as_bytes()).then(|| &body[4 + len..])
}

impl FactsDir {
    /// The project's facts directory, created beside its index; `None` when the project has no
    /// index (or `.candor/index` cannot be opened: then nothing is kept).
    pub fn open(root: &Root) -> Option<FactsDir> {
        let build = this_build()?;
        let candor = journal::candor_dir(root, false).ok()??;
        let index = candor.open_dir(OsStr::new(INDEX_DIR)).ok()??;
        let (dir, _) = index.create_dir(OsStr::new(DIR), 0o777).ok()?;
        let mut facts = FactsDir::in_dir(dir, DEFAULT_MAX_BYTES);
        facts.build = build;
        Some(facts)
    }

    /// Names the candor that reads and writes these facts (part of every key).
    pub fn build(&self) -> &str {
        &self.build
    }

    fn in_dir(dir: Dir, max_bytes: u64) -> FactsDir {
        FactsDir {
            dir,
            build: String::new(),
            max_bytes,
            read: AtomicU64::new(0),
            written: AtomicU64::new(0),
            bad: AtomicU64::new(0),
            checked: AtomicBool::new(false),
        }
    }

    /// The same directory with another bound.
    pub fn with_max_bytes(mut self, max_bytes: u64) -> FactsDir {
        self.max_bytes = max_bytes;
        self
    }

    pub fn counts(&self) -> DiskCounts {
        DiskCounts {
            read: self.read.load(Ordering::Relaxed),
            written: self.written.load(Ordering::Relaxed),
            bad: self.bad.load(Ordering::Relaxed),
        }
    }

    /// The payload kept for `key`, if a whole entry holds it. `decode` says whether the payload
    /// is good; a bad entry is counted and ignored.
    pub fn get<T>(&self, key: &str, decode: impl FnOnce(&[u8]) -> Option<T>) -> Option<T> {
        let bytes = self.read(&name_of(key))?;
        match payload_of(key, &bytes).and_then(decode) {
            Some(value) => {
                self.read.fetch_add(1, Ordering::Relaxed);
                Some(value)
            }
            None => {
                self.bad.fetch_add(1, Ordering::Relaxed);
                None
            }
        }
    }

    /// The bytes of the entry `name`, `None` when there is none or it cannot be read: opened
    /// without following a link or blocking on a FIFO, read without a `stat` (an entry is a few
    /// hundred bytes: this is most of the cost of a fact read from disk).
    fn read(&self, name: &str) -> Option<Vec<u8>> {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(self.dir.as_fd(), name, flags, Mode::empty()).ok()?;
        let mut bytes = vec![0u8; 4096];
        let mut len = 0;
        loop {
            if len == bytes.len() {
                if len >= MAX_ENTRY {
                    return None;
                }
                bytes.resize(len * 2, 0);
            }
            // A FIFO answers EAGAIN, a directory EISDIR: not an entry.
            match rustix::io::read(&fd, &mut bytes[len..]).ok()? {
                0 => break,
                n => len += n,
            }
        }
        bytes.truncate(len);
        Some(bytes)
    }

    /// Keeps `payload` for `key`, as a whole entry or not at all (a failure keeps nothing).
    pub fn put(&self, key: &str, payload: &[u8]) {
        static TEMP: AtomicU64 = AtomicU64::new(0);
        let name = name_of(key);
        let temp = format!(
            "{name}.{}.{}.tmp",
            std::process::id(),
            TEMP.fetch_add(1, Ordering::Relaxed)
        );
        let (temp, name) = (OsString::from(temp), OsString::from(name));
        let written = self
            .dir
            .create_new(&temp)
            .and_then(|mut file| file.write_all(&entry(key, payload)));
        if written
            .and_then(|()| self.dir.rename(&temp, &name))
            .is_err()
        {
            let _ = self.dir.remove_file(&temp);
            return;
        }
        let count = self.written.fetch_add(1, Ordering::Relaxed);
        if !self.checked.swap(true, Ordering::Relaxed) || count % CHECK_EVERY == CHECK_EVERY - 1 {
            self.keep_bound();
        }
    }

    /// Removes the entries written longest ago until the directory takes at most three
    /// quarters of its bound, when it takes more than the bound; and temporary files left by a
    /// process that stopped mid-write (older than a minute).
    pub fn keep_bound(&self) {
        let now = crate::workspace::store::now_ns();
        let mut entries: Vec<(i128, u64, OsString)> = Vec::new();
        let mut total = 0u64;
        for (name, _, stat) in self.listed() {
            let mtime = i128::from(stat.st_mtime) * 1_000_000_000 + i128::from(stat.st_mtime_nsec);
            if name.as_encoded_bytes().ends_with(b".tmp") {
                if now - mtime > 60_000_000_000 {
                    let _ = self.dir.remove_file(&name);
                }
                continue;
            }
            let disk = stat.st_blocks as u64 * 512;
            total += disk;
            entries.push((mtime, disk, name));
        }
        if total <= self.max_bytes {
            return;
        }
        entries.sort();
        for (_, disk, name) in entries {
            if total <= self.max_bytes / 4 * 3 {
                break;
            }
            if self.dir.remove_file(&name).is_ok() {
                total = total.saturating_sub(disk);
            }
        }
    }

    /// The regular files of the directory with their `stat`.
    fn listed(&self) -> Vec<(OsString, Kind, rustix::fs::Stat)> {
        let Ok(names) = self.dir.entries() else {
            return Vec::new();
        };
        names
            .into_iter()
            .filter(|(_, kind)| *kind == Kind::File)
            .filter_map(|(name, kind)| {
                let stat = rustix::fs::statat(
                    self.dir.as_fd(),
                    name.as_os_str(),
                    rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                )
                .ok()?;
                Some((name, kind, stat))
            })
            .collect()
    }

    /// What the directory holds (temporary files not counted).
    pub fn held(&self) -> Held {
        let mut held = Held::default();
        for (name, _, stat) in self.listed() {
            if name.as_encoded_bytes().ends_with(b".tmp") {
                continue;
            }
            held.entries += 1;
            held.bytes += stat.st_size as u64;
            held.disk_bytes += stat.st_blocks as u64 * 512;
        }
        held
    }
}

/// What the project's facts directory holds; `None` when it has none.
pub fn held(root: &Root) -> Option<Held> {
    let candor = journal::candor_dir(root, false).ok()??;
    let index = candor.open_dir(OsStr::new(INDEX_DIR)).ok()??;
    let dir = index.open_dir(OsStr::new(DIR)).ok()??;
    Some(FactsDir::in_dir(dir, DEFAULT_MAX_BYTES).held())
}

/// Removes the project's facts directory (`candor index --rebuild`); the error says why not.
pub fn clear(root: &Root) -> Result<(), String> {
    let Some(candor) = journal::candor_dir(root, false).map_err(|e| e.to_string())? else {
        return Ok(());
    };
    let Some(index) = candor
        .open_dir(OsStr::new(INDEX_DIR))
        .map_err(|e| e.to_string())?
    else {
        return Ok(());
    };
    match index.meta(OsStr::new(DIR)) {
        Ok(None) => Ok(()),
        _ => index
            .remove_tree(OsStr::new(DIR))
            .map_err(|e| format!(".candor/index/{DIR}: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_facts() -> (tempfile::TempDir, FactsDir) {
        let temp = tempfile::tempdir().unwrap();
        let dir = Dir::open_path(temp.path()).unwrap();
        (temp, FactsDir::in_dir(dir, DEFAULT_MAX_BYTES))
    }

    #[test]
    fn an_entry_is_read_back_for_its_key_only_and_a_cut_or_changed_one_is_ignored_and_counted() {
        let (temp, facts) = temp_facts();
        facts.put("1\0verdicts\0a.py\0abc\0judge x", b"payload");
        let got = facts.get("1\0verdicts\0a.py\0abc\0judge x", |p| Some(p.to_vec()));
        assert_eq!(got.as_deref(), Some(&b"payload"[..]));
        assert_eq!(
            facts.get("1\0verdicts\0a.py\0abd\0judge x", |_| Some(())),
            None
        );
        assert_eq!(facts.counts().bad, 0);
        // A decoder that refuses the payload: a bad entry.
        assert_eq!(
            facts.get("1\0verdicts\0a.py\0abc\0judge x", |_| None::<()>),
            None
        );
        assert_eq!(facts.counts().bad, 1);
        let path = temp.path().join(name_of("1\0verdicts\0a.py\0abc\0judge x"));
        let whole = std::fs::read(&path).unwrap();
        for cut in [0, 5, HEADER, whole.len() - 1] {
            std::fs::write(&path, &whole[..cut]).unwrap();
            assert_eq!(
                facts.get("1\0verdicts\0a.py\0abc\0judge x", |p| Some(p.to_vec())),
                None,
                "cut at {cut}"
            );
        }
        let mut flipped = whole.clone();
        *flipped.last_mut().unwrap() ^= 1;
        std::fs::write(&path, &flipped).unwrap();
        assert_eq!(
            facts.get("1\0verdicts\0a.py\0abc\0judge x", |p| Some(p.to_vec())),
            None
        );
        // Another key's entry under this name (a collision, a copied file): not this key's.
        std::fs::write(&path, entry("other", b"payload")).unwrap();
        assert_eq!(
            facts.get("1\0verdicts\0a.py\0abc\0judge x", |p| Some(p.to_vec())),
            None
        );
        assert_eq!(facts.counts().bad, 7);
        assert_eq!(facts.counts().read, 1);
    }

    #[test]
    fn a_link_or_a_fifo_in_place_of_an_entry_is_not_read_and_does_not_block() {
        let (temp, facts) = temp_facts();
        facts.put("real", b"payload");
        let real = temp.path().join(name_of("real"));
        std::fs::write(temp.path().join("elsewhere"), std::fs::read(&real).unwrap()).unwrap();
        std::fs::remove_file(&real).unwrap();
        std::os::unix::fs::symlink(temp.path().join("elsewhere"), &real).unwrap();
        assert_eq!(facts.get("real", |p| Some(p.to_vec())), None);
        let fifo = name_of("fifo");
        rustix::fs::mknodat(
            facts.dir.as_fd(),
            fifo.as_str(),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        assert_eq!(facts.get("fifo", |p| Some(p.to_vec())), None);
    }

    #[test]
    fn over_its_bound_the_directory_drops_the_entries_written_longest_ago() {
        let (temp, facts) = temp_facts();
        let facts = facts.with_max_bytes(10 * 4096);
        for i in 0..20 {
            facts.put(&format!("key {i}"), &[7u8; 100]);
            // Distinct mtimes, oldest first.
            let path = temp.path().join(name_of(&format!("key {i}")));
            let when =
                std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_000 + i);
            std::fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(when)
                .unwrap();
        }
        facts.keep_bound();
        let held = facts.held();
        assert!(held.disk_bytes <= 10 * 4096 / 4 * 3, "{held:?}");
        assert!(held.entries > 0);
        // The newest are kept, the oldest dropped.
        assert!(facts.get("key 19", |p| Some(p.len())).is_some());
        assert!(facts.get("key 0", |p| Some(p.len())).is_none());
    }
}
