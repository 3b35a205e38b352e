//! Behaviour guards: candor's own checks that a result, from any backend, keeps what the code
//! did and what it offered, before any checker runs. Cheap and pure: the project is read through
//! [`Sources`](crate::refactor::Sources), the result through the plan's
//! [`FileChange`](crate::edit::FileChange)s.
//! - [`dropped_result`]: an extract's call still hands back what the extracted lines produced
//!   (names later code reads, values they yielded or returned);
//! - [`public_api`]: a move or rename does not take a name off a package's public surface
//!   without saying how to keep it.

pub mod dropped_result;
pub mod public_api;
pub(crate) mod wording;

use std::ops::Range;

/// The bytes of lines `start..=end` (1-based) of `text`, without the trailing white space (so a
/// selection of a whole body ends where its function does).
fn line_bytes(text: &str, start: usize, end: usize) -> Range<usize> {
    let mut offsets = vec![0];
    offsets.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    offsets.push(text.len());
    let at = |line: usize| offsets[line.saturating_sub(1).min(offsets.len() - 1)];
    let (start, end) = (at(start), at(end + 1).max(at(start)));
    start..start + text[start..end].trim_end().len()
}
