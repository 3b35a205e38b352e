//! The project on disk: its root and containment, reading files with limits, the
//! .gitignore-aware walk and name prefilter, and writing plans. Every file-system side effect
//! of candor lives here.

mod root;
pub mod search;
mod sources;
pub mod walk;
pub mod write;

pub use root::{Resolved, Root};
pub use sources::{DiskSources, Limits};

/// `candor undo [--list]`.
pub fn undo_command(_root: &Root, _list: bool) -> anyhow::Result<std::process::ExitCode> {
    anyhow::bail!("undo is not implemented yet")
}
