//! The terminal UI: file picker, code view with outline, refactor forms, the preview beside the
//! warning panel, confirm and undo.
//!
//! A pure state machine (`state`, `action`, `update` → `effect`) drawn by reference (`view`),
//! with pure helpers (`keymap`, `input`: text fields, `motion`: cursor motions, `aim`: what the
//! cursor names); and an imperative shell (`runtime`: terminal and event loop; `worker`: the
//! engine thread; `verifier`: the check thread; `watcher`: file and journal changes; `jobs`:
//! the blocking work).
//! Every refactor goes through `api::Engine`, exactly as `candor call` does; nothing here
//! writes to the disk except through the engine's writer.

pub mod action;
pub mod aim;
pub mod diffview;
pub mod document;
pub mod effect;
pub mod headless;
pub mod highlight;
pub mod input;
pub mod jobs;
pub mod keymap;
pub mod layout;
pub mod motion;
mod runtime;
pub mod settings;
pub mod state;
pub mod theme;
pub mod update;
pub mod verifier;
pub mod view;
pub mod watcher;
pub mod worker;

pub use runtime::run;
