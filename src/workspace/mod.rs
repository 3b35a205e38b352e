//! The project on disk: its root and containment, reading files with limits, the
//! .gitignore-aware walk and name prefilter, and writing plans as journaled transactions with
//! recovery and undo. Every file-system side effect of candor lives here.

pub mod dir;
mod failure;
pub mod index;
mod indexed;
pub mod journal;
pub mod journal_key;
pub mod mapped;
mod recorder;
mod replace;
mod root;
pub mod search;
mod sources;
pub mod store;
pub mod transaction;
pub mod undo;
pub mod walk;
pub mod write;

pub use recorder::SkipRecorder;
pub use root::{Resolved, Root};
pub use sources::{DiskSources, Limits};
