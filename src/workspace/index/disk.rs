//! The index on disk: `<root>/.candor/index/index.bin`, opened from the root's handle one name
//! at a time (a symbolic link at `.candor` or `index` is refused, never followed), written to a
//! temporary file and renamed over the old one, so a reader sees the old index or the new one,
//! whole. Two processes writing at once: the last rename wins and both indexes are valid. The
//! listing of the last walk (`listing.bin`) is kept beside it the same way.

use std::ffi::OsStr;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use super::Index;
use super::format::{self, FormatError};
use super::listing::Listing;
use crate::workspace::Root;
use crate::workspace::dir::Dir;
use crate::workspace::journal;
use crate::workspace::store::Stamp;

const DIR: &str = "index";
const FILE: &str = "index.bin";
/// The listing of the last walk ([`Listing`]).
const LISTING: &str = "listing.bin";

/// Why the index on disk cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(
        "the index .candor/index/{FILE} cannot be used: {0}; candor searched without it (run `candor index --rebuild` to make it again)"
    )]
    Format(#[from] FormatError),
    #[error("the index .candor/index cannot be read: {0}; candor searched without it")]
    Io(String),
}

/// The project's index, `None` when it has none.
pub fn load(root: &Root) -> Result<Option<Index>, LoadError> {
    let Some(dir) = index_dir(root).map_err(LoadError::Io)? else {
        return Ok(None);
    };
    let io = |e: &dyn std::fmt::Display| LoadError::Io(e.to_string());
    // Mapped, not read: a new index is renamed over this one, never written into it.
    let Some(bytes) = dir.map_file(OsStr::new(FILE)).map_err(|e| io(&e))? else {
        return Ok(None);
    };
    Ok(Some(format::decode(bytes)?))
}

/// Writes `index` as the project's index (creating `.candor/index/`); the error says why not.
pub fn save(root: &Root, index: &Index) -> Result<(), String> {
    write_whole(root, FILE, &format::encode(index), true)
}

/// The listing of the project's last walk kept beside the index, `None` when there is none or
/// it cannot be used (the scan then walks). The last one read is kept by the root and the stamp
/// of its file, and not read again while that stands: a long-lived session scans before each
/// request, and reading and checking the listing again took longer than its files' stats.
pub fn load_listing(root: &Root) -> Option<Arc<Listing>> {
    use std::io::Read;
    static LAST: Mutex<Option<(PathBuf, Stamp, Arc<Listing>)>> = Mutex::new(None);
    let mut file = index_dir(root)
        .ok()??
        .open_file(OsStr::new(LISTING))
        .ok()??;
    let stamp = Stamp::of(&file.metadata().ok()?);
    // A racy stamp may be the same for two listings written within one tick: read it again.
    let trusted = !stamp.is_racy(crate::workspace::store::now_ns());
    let mut last = LAST.lock().unwrap_or_else(|e| e.into_inner());
    if trusted
        && let Some((at, kept, listing)) = last.as_ref()
        && at == root.path()
        && *kept == stamp
    {
        return Some(Arc::clone(listing));
    }
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes).ok()?;
    let listing = Arc::new(Listing::decode(&bytes)?);
    *last = trusted.then(|| (root.path().to_path_buf(), stamp, Arc::clone(&listing)));
    Some(listing)
}

/// Keeps `listing` beside the index, when the project has one (`.candor/index/`).
pub fn save_listing(root: &Root, listing: &Listing) -> Result<(), String> {
    if index_dir(root)?.is_none() {
        return Ok(());
    }
    // Not synced: a listing lost or torn in a crash is refused by its checksum, and walked.
    write_whole(root, LISTING, &listing.encode(), false)
}

/// Removes the listing kept beside the index: the next scan walks the project.
pub fn forget_listing(root: &Root) -> Result<(), String> {
    let Some(dir) = index_dir(root)? else {
        return Ok(());
    };
    match dir.remove_file(OsStr::new(LISTING)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e.to_string()),
        _ => Ok(()),
    }
}

/// `.candor/index/`, opened from the root's handle one name at a time; `None` when it does not
/// exist.
fn index_dir(root: &Root) -> Result<Option<Dir>, String> {
    let Some(candor) = journal::candor_dir(root, false).map_err(|e| e.to_string())? else {
        return Ok(None);
    };
    candor.open_dir(OsStr::new(DIR)).map_err(|e| e.to_string())
}

/// Writes `bytes` as `.candor/index/<name>` (creating the folder): to a temporary file, then
/// renamed over the old one, so a reader sees one whole file or the other.
fn write_whole(root: &Root, name: &str, bytes: &[u8], durable: bool) -> Result<(), String> {
    let candor = journal::candor_dir(root, true)
        .map_err(|e| e.to_string())?
        .ok_or("`.candor` is missing")?;
    let path = root.path().join(journal::CANDOR_DIR).join(DIR);
    let (dir, _) = candor
        .create_dir(OsStr::new(DIR), 0o777)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let temp = format!(
        "{name}.{}.{}.tmp",
        std::process::id(),
        crate::workspace::store::now_ns()
    );
    let written = dir.create_new(OsStr::new(&temp)).and_then(|mut file| {
        file.write_all(bytes)?;
        if durable {
            file.sync_all()?;
        }
        Ok(())
    });
    let renamed = written.and_then(|()| dir.rename(OsStr::new(&temp), OsStr::new(name)));
    if let Err(e) = renamed {
        let _ = dir.remove_file(OsStr::new(&temp));
        return Err(format!("{}: {e}", path.join(name).display()));
    }
    Ok(())
}
