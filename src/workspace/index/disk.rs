//! The index on disk: `<root>/.candor/index/index.bin`, opened from the root's handle one name
//! at a time (a symbolic link at `.candor` or `index` is refused, never followed), written to a
//! temporary file and renamed over the old one, so a reader sees the old index or the new one,
//! whole. Two processes writing at once: the last rename wins and both indexes are valid.

use std::ffi::OsStr;
use std::io::Write;

use super::Index;
use super::format::{self, FormatError};
use crate::workspace::Root;
use crate::workspace::journal;

const DIR: &str = "index";
const FILE: &str = "index.bin";

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
    let io = |e: &dyn std::fmt::Display| LoadError::Io(e.to_string());
    let Some(candor) = journal::candor_dir(root, false).map_err(|e| io(&e))? else {
        return Ok(None);
    };
    let Some(dir) = candor.open_dir(OsStr::new(DIR)).map_err(|e| io(&e))? else {
        return Ok(None);
    };
    let Some(bytes) = dir.read_file(OsStr::new(FILE)).map_err(|e| io(&e))? else {
        return Ok(None);
    };
    Ok(Some(format::decode(bytes)?))
}

/// Writes `index` as the project's index (creating `.candor/index/`); the error says why not.
pub fn save(root: &Root, index: &Index) -> Result<(), String> {
    let candor = journal::candor_dir(root, true)
        .map_err(|e| e.to_string())?
        .ok_or("`.candor` is missing")?;
    let path = root.path().join(journal::CANDOR_DIR).join(DIR);
    let (dir, _) = candor
        .create_dir(OsStr::new(DIR), 0o777)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let temp = format!(
        "{FILE}.{}.{}.tmp",
        std::process::id(),
        crate::workspace::store::now_ns()
    );
    let written = dir.create_new(OsStr::new(&temp)).and_then(|mut file| {
        file.write_all(&format::encode(index))?;
        file.sync_all()
    });
    let renamed = written.and_then(|()| dir.rename(OsStr::new(&temp), OsStr::new(FILE)));
    if let Err(e) = renamed {
        let _ = dir.remove_file(OsStr::new(&temp));
        return Err(format!("{}: {e}", path.join(FILE).display()));
    }
    Ok(())
}
