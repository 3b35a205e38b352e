//! The facts on disk, `<root>/.candor/index/facts/` (issue 22, item 2): the per-file facts a
//! process computed (the references engine's verdicts, the arity check's findings), for the next
//! process, so that an unchanged file is neither parsed nor judged again. Kept only beside an
//! index (a project without one keeps nothing on disk). Kept as packs ([`pack`]): a process
//! buffers the facts it computes and writes them as one pack per request ([`FactsDir::flush`],
//! at the end of each request and when the process lets the directory go), to a temporary file
//! renamed into place, named by the time, the process and a counter (two processes never write
//! the same name). A reader lists the directory once (again after each request of a long
//! session), reads every pack's key table, and reads an entry when asked (small packs whole).
//! Every key holds the facts' format, this build of candor, type tag, path, content sha256 and
//! question: a fact computed by another build, whose engine may answer otherwise, is never read.
//! Each entry holds its key and a sha256 of its bytes: a cut, corrupt or foreign entry is ignored
//! and counted, never an error or an answer. Over [`MAX_PACKS`] packs, a writer merges them into
//! one (the packs another process writes meanwhile are not touched); over its bound, the packs
//! written longest ago go first. Any other file in the directory (an entry of the old
//! one-file-per-fact layout) is removed.

pub mod pack;

use std::collections::HashMap;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use crate::workspace::Root;
use crate::workspace::dir::{Dir, Kind};
use crate::workspace::journal;

use pack::{Digest, NotAPack, Row};

const INDEX_DIR: &str = "index";
const DIR: &str = "facts";
/// How every pack's name ends.
const PACK_SUFFIX: &str = ".pack";
const TEMP_SUFFIX: &str = ".tmp";
/// The default bound of the directory, in bytes of disk it takes.
pub const DEFAULT_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// Over this many packs, a writer merges them into one.
pub const MAX_PACKS: usize = 32;
/// A pack up to this size is read whole when the directory is listed; a bigger one has its key
/// table read then, and each entry read when asked.
const WHOLE_MAX: u64 = 1024 * 1024;
/// The largest entry read back (a bigger row is not one of ours).
const MAX_ENTRY: u32 = 64 * 1024 * 1024;
/// How long a temporary file may stay before it is taken for one a stopped process left.
const TEMP_AGE_NS: i128 = 60_000_000_000;

/// The facts directory of a project, opened once per process.
#[derive(Debug)]
pub struct FactsDir {
    dir: Dir,
    /// [`this_build`].
    build: String,
    max_bytes: u64,
    max_packs: usize,
    whole_max: u64,
    read: AtomicU64,
    written: AtomicU64,
    bad: AtomicU64,
    /// The packs this process has read the tables of.
    packs: Mutex<Packs>,
    /// The facts this process computed and has not written yet, by the digest of their key.
    pending: Mutex<HashMap<Digest, (String, Vec<u8>)>>,
}

/// The packs a process knows.
#[derive(Debug)]
struct Packs {
    /// Whether the directory is to be listed before the next read: at the first, and after each
    /// request (another process may have written meanwhile).
    stale: bool,
    /// The names of the packs already looked at.
    names: std::collections::HashSet<OsString>,
    /// Where each key's entry lies (in the newest pack that holds it).
    keys: HashMap<Digest, Place>,
}

#[derive(Debug, Clone)]
struct Place {
    pack: Arc<Pack>,
    row: Row,
}

/// A pack read: its name (the time it was written first) and its bytes or its open file.
#[derive(Debug)]
struct Pack {
    name: OsString,
    body: Body,
}

#[derive(Debug)]
enum Body {
    Whole(Vec<u8>),
    /// A big pack (and its size): each entry is read with one `pread` when asked.
    File(std::fs::File, u64),
}

impl Packs {
    /// Takes the rows of `pack`; a key another pack holds too is read from the newer.
    fn add(&mut self, pack: &Arc<Pack>, rows: &[Row]) {
        for row in rows {
            let newer = |place: &Place| place.pack.name <= pack.name;
            match self.keys.get(&row.digest) {
                Some(place) if !newer(place) => {}
                _ => {
                    self.keys.insert(
                        row.digest,
                        Place {
                            pack: Arc::clone(pack),
                            row: *row,
                        },
                    );
                }
            }
        }
    }
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
    /// The entries the packs' headers count (a key in two packs counts twice).
    pub entries: u64,
    pub packs: u64,
    /// The packs' lengths.
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

fn is_pack(name: &OsStr) -> bool {
    name.as_encoded_bytes().ends_with(PACK_SUFFIX.as_bytes())
}

fn is_temp(name: &OsStr) -> bool {
    name.as_encoded_bytes().ends_with(TEMP_SUFFIX.as_bytes())
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
            max_packs: MAX_PACKS,
            whole_max: WHOLE_MAX,
            read: AtomicU64::new(0),
            written: AtomicU64::new(0),
            bad: AtomicU64::new(0),
            packs: Mutex::new(Packs {
                stale: true,
                names: Default::default(),
                keys: HashMap::new(),
            }),
            pending: Mutex::new(HashMap::new()),
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
        let digest = pack::digest_of(key);
        let place = {
            let mut packs = self.packs.lock().unwrap_or_else(|e| e.into_inner());
            if packs.stale {
                self.list(&mut packs);
            }
            packs.keys.get(&digest).cloned()
        }?;
        let row = place.row;
        let value = match &place.pack.body {
            Body::Whole(bytes) => pack::entry_at(bytes, &row)
                .and_then(|entry| pack::payload_of(key, entry))
                .and_then(decode),
            Body::File(file, size) => {
                // A row pointing past the end is bad before anything is allocated for it.
                let fits = row.len <= MAX_ENTRY
                    && row
                        .offset
                        .checked_add(u64::from(row.len))
                        .is_some_and(|end| end <= *size);
                let mut entry = vec![0u8; if fits { row.len as usize } else { 0 }];
                fits.then(|| file.read_exact_at(&mut entry, row.offset).ok())
                    .flatten()
                    .and_then(|()| pack::payload_of(key, &entry))
                    .and_then(decode)
            }
        };
        let counter = if value.is_some() {
            &self.read
        } else {
            &self.bad
        };
        counter.fetch_add(1, Ordering::Relaxed);
        value
    }

    /// Reads the tables of the packs not read yet now, so that the first [`FactsDir::get`] finds
    /// them read (a request reads them on a thread of its own while it searches).
    pub fn read_tables(&self) {
        let mut packs = self.packs.lock().unwrap_or_else(|e| e.into_inner());
        if packs.stale {
            self.list(&mut packs);
        }
    }

    /// Reads the tables of the packs not read yet, oldest first.
    fn list(&self, packs: &mut Packs) {
        packs.stale = false;
        let Ok(names) = self.dir.entries() else {
            return;
        };
        let mut new: Vec<OsString> = names
            .into_iter()
            .filter(|(name, kind)| *kind == Kind::File && is_pack(name))
            .map(|(name, _)| name)
            .filter(|name| !packs.names.contains(name))
            .collect();
        new.sort();
        for name in new {
            match self.read_pack(&name) {
                Ok(Some((pack, rows))) => packs.add(&Arc::new(pack), &rows),
                Ok(None) | Err(NotAPack::Foreign | NotAPack::OtherFormat(_)) => {}
                // A pack whose table is cut: what it held is lost, counted once.
                Err(NotAPack::Cut) => {
                    self.bad.fetch_add(1, Ordering::Relaxed);
                }
            }
            packs.names.insert(name);
        }
    }

    /// The pack `name` and its key table: read whole when small, else its header and table
    /// only. `Ok(None)` when it cannot be opened (gone, a link, a FIFO, not a regular file).
    fn read_pack(&self, name: &OsStr) -> Result<Option<(Pack, Vec<Row>)>, NotAPack> {
        let Ok(Some(file)) = self.dir.open_file(name) else {
            return Ok(None);
        };
        let Ok(size) = file.metadata().map(|m| m.len()) else {
            return Ok(None);
        };
        let name = name.to_os_string();
        if size <= self.whole_max {
            let mut bytes = vec![0u8; size as usize];
            let read = read_at_most(&file, &mut bytes, 0);
            bytes.truncate(read);
            let rows = pack::rows(&bytes)?;
            return Ok(Some((
                Pack {
                    name,
                    body: Body::Whole(bytes),
                },
                rows,
            )));
        }
        let mut header = [0u8; pack::HEADER];
        file.read_exact_at(&mut header, 0)
            .map_err(|_| NotAPack::Cut)?;
        let end = pack::table_end(pack::count(&header)?);
        if end > size {
            return Err(NotAPack::Cut);
        }
        let mut start = vec![0u8; end as usize];
        file.read_exact_at(&mut start, 0)
            .map_err(|_| NotAPack::Cut)?;
        let rows = pack::rows(&start)?;
        Ok(Some((
            Pack {
                name,
                body: Body::File(file, size),
            },
            rows,
        )))
    }

    /// Keeps `payload` for `key` until the next [`FactsDir::flush`].
    pub fn put(&self, key: &str, payload: &[u8]) {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.insert(pack::digest_of(key), (key.to_string(), payload.to_vec()));
    }

    /// Writes the facts kept since the last flush as one pack, whole or not at all (a failure
    /// keeps nothing); then keeps the directory in shape ([`FactsDir::keep_bound`]). The next
    /// read lists the directory again.
    pub fn flush(&self) {
        let pending = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        self.packs.lock().unwrap_or_else(|e| e.into_inner()).stale = true;
        if pending.is_empty() {
            return;
        }
        let mut facts: Vec<(Digest, (String, Vec<u8>))> = pending.into_iter().collect();
        facts.sort_by_key(|a| a.0);
        let entries: Vec<(Digest, Vec<u8>)> = facts
            .iter()
            .map(|(digest, (key, payload))| (*digest, pack::entry(key, payload)))
            .collect();
        let borrowed: Vec<(Digest, &[u8])> = entries.iter().map(|(d, e)| (*d, &e[..])).collect();
        let bytes = pack::encode_entries(&borrowed);
        if self.write_pack(&bytes).is_none() {
            return;
        }
        self.written
            .fetch_add(entries.len() as u64, Ordering::Relaxed);
        self.keep_bound();
    }

    /// Writes `bytes` as a new pack (a temporary file renamed); its name, `None` when it could
    /// not be written (then nothing is left).
    fn write_pack(&self, bytes: &[u8]) -> Option<OsString> {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "{:020}-{}-{}{PACK_SUFFIX}",
            crate::workspace::store::now_ns(),
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        let temp = OsString::from(format!("{name}{TEMP_SUFFIX}"));
        let name = OsString::from(name);
        let written = self
            .dir
            .create_new(&temp)
            .and_then(|mut file| file.write_all(bytes));
        if written
            .and_then(|()| self.dir.rename(&temp, &name))
            .is_err()
        {
            let _ = self.dir.remove_file(&temp);
            return None;
        }
        Some(name)
    }

    /// Keeps the directory in shape: removes temporary files left by a process that stopped
    /// mid-write (older than a minute) and any file that is not a pack (an entry of the old
    /// layout); merges the packs into one when there are more than [`MAX_PACKS`]; and when the
    /// packs take more than the bound, removes those written longest ago until they take at
    /// most three quarters of it.
    pub fn keep_bound(&self) {
        let mut packs = self.pack_files(true);
        if packs.len() > self.max_packs {
            let names: Vec<OsString> = packs.iter().map(|(name, _)| name.clone()).collect();
            if self.merge(&names) {
                packs = self.pack_files(false);
            }
        }
        let mut total: u64 = packs.iter().map(|(_, disk)| disk).sum();
        if total <= self.max_bytes {
            return;
        }
        for (name, disk) in packs {
            if total <= self.max_bytes / 4 * 3 {
                break;
            }
            if self.dir.remove_file(&name).is_ok() {
                total = total.saturating_sub(disk);
            }
        }
    }

    /// The packs of the directory with the disk each takes, oldest first; with `tidy`, removes
    /// the old temporary files and the files that are not packs on the way.
    fn pack_files(&self, tidy: bool) -> Vec<(OsString, u64)> {
        let now = crate::workspace::store::now_ns();
        let mut packs = Vec::new();
        for (name, stat) in self.listed() {
            if is_temp(&name) {
                let mtime =
                    crate::workspace::store::nanos(stat.st_mtime, stat.st_mtime_nsec as i64);
                if tidy && now - mtime > TEMP_AGE_NS {
                    let _ = self.dir.remove_file(&name);
                }
            } else if is_pack(&name) {
                packs.push((name, stat.st_blocks as u64 * 512));
            } else if tidy {
                let _ = self.dir.remove_file(&name);
            }
        }
        packs.sort();
        packs
    }

    /// Merges the packs `names` (oldest first) into one new pack: each key's newest whole
    /// entry, the newest first while they fit in three quarters of the bound. Only `names` are
    /// removed after: a pack another process wrote meanwhile stays. Whether it merged.
    fn merge(&self, names: &[OsString]) -> bool {
        let budget = self.max_bytes / 4 * 3;
        let mut seen = std::collections::HashSet::new();
        let mut kept: Vec<(Digest, Vec<u8>)> = Vec::new();
        let mut total = 0u64;
        for name in names.iter().rev() {
            let Ok(Some(bytes)) = self.dir.read_file(name) else {
                continue;
            };
            let Ok(rows) = pack::rows(&bytes) else {
                continue;
            };
            for row in rows.iter().rev() {
                if seen.contains(&row.digest) {
                    continue;
                }
                let Some(entry) = pack::entry_at(&bytes, row) else {
                    continue;
                };
                let whole = pack::open_entry(entry)
                    .is_some_and(|(key, _)| pack::digest_of(key) == row.digest);
                if !whole || total + entry.len() as u64 > budget {
                    continue;
                }
                seen.insert(row.digest);
                total += entry.len() as u64;
                kept.push((row.digest, entry.to_vec()));
            }
        }
        kept.sort_by_key(|a| a.0);
        let borrowed: Vec<(Digest, &[u8])> = kept.iter().map(|(d, e)| (*d, &e[..])).collect();
        if self.write_pack(&pack::encode_entries(&borrowed)).is_none() {
            return false;
        }
        for name in names {
            let _ = self.dir.remove_file(name);
        }
        true
    }

    /// The regular files of the directory with their `stat`.
    fn listed(&self) -> Vec<(OsString, rustix::fs::Stat)> {
        let Ok(names) = self.dir.entries() else {
            return Vec::new();
        };
        names
            .into_iter()
            .filter(|(_, kind)| *kind == Kind::File)
            .filter_map(|(name, _)| {
                let stat = rustix::fs::statat(
                    self.dir.as_fd(),
                    name.as_os_str(),
                    rustix::fs::AtFlags::SYMLINK_NOFOLLOW,
                )
                .ok()?;
                Some((name, stat))
            })
            .collect()
    }

    /// What the directory holds: its packs and the entries their headers count.
    pub fn held(&self) -> Held {
        let mut held = Held::default();
        for (name, stat) in self.listed() {
            if !is_pack(&name) {
                continue;
            }
            held.packs += 1;
            held.bytes += stat.st_size as u64;
            held.disk_bytes += stat.st_blocks as u64 * 512;
            let mut header = [0u8; pack::HEADER];
            if let Ok(Some(file)) = self.dir.open_file(&name)
                && file.read_exact_at(&mut header, 0).is_ok()
                && let Ok(count) = pack::count(&header)
            {
                held.entries += u64::from(count);
            }
        }
        held
    }
}

impl Drop for FactsDir {
    /// A process letting the directory go writes what it has not written yet.
    fn drop(&mut self) {
        self.flush();
    }
}

/// Reads into `buf` from `offset` until it is full or the file ends; how many bytes it read.
fn read_at_most(file: &std::fs::File, buf: &mut [u8], offset: u64) -> usize {
    let mut read = 0;
    while read < buf.len() {
        match file.read_at(&mut buf[read..], offset + read as u64) {
            Ok(0) | Err(_) => break,
            Ok(n) => read += n,
        }
    }
    read
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
mod tests;
