//! candor — a terminal refactoring assistant for Rust and Python that is honest about what it knows.
//!
//! The crate is a pure core (`lang`, `text`, `edit`, `refactor`, `honesty`) that never touches the
//! disk or the terminal, and an imperative shell (`workspace`, `backend`, `verify`, `api`, `mcp`, `tui`)
//! where every side effect lives. The TUI, `candor call` and `candor mcp` all go through `api`.

pub mod api;
pub mod backend;
pub mod cancel;
pub mod config;
pub mod edit;
pub mod honesty;
pub mod lang;
pub mod mcp;
pub mod process_memory;
pub mod programs;
pub mod refactor;
pub mod text;
pub mod trust;
pub mod tui;
pub mod verify;
pub mod workspace;
