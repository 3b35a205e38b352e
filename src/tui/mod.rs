//! The terminal UI: file picker, code view, refactor forms, preview beside the warning panel,
//! confirm and undo.

use std::path::Path;

use crate::backend::BackendChoice;

/// Runs the TUI on `path` (a project directory or a file in one).
pub fn run(_path: &Path, _backend: Option<BackendChoice>) -> anyhow::Result<()> {
    anyhow::bail!("the terminal UI is not implemented yet; use `candor call`")
}
