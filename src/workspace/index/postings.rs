//! A text file's postings, kept as the index file stores them — for each word, by increasing id:
//! the id's delta, its roles, and, when the posting holds every call of the word
//! ([`tokens::CALL`] without [`tokens::UNSURE`]), the length of its calls' bytes — and read in
//! place when a question asks, so loading the index allocates nothing per posting. Pure.

use super::shared::Shared;
use super::tokens;
use crate::text::leb128::{Reader, put};

/// One file's postings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Postings {
    /// How many postings `list` holds.
    pub(super) count: u32,
    /// The encoded postings, sorted by word id.
    pub(super) list: Shared,
    /// For each posting with calls: their count, then (line − the previous call's line, column)
    /// pairs, LEB128 — as `candor calls` prints them.
    pub(super) calls: Shared,
}

/// One posting: word id, roles, and where its calls start in `calls` (`None`: not stored).
pub(crate) type Posting = (u32, u8, Option<usize>);

/// Whether a posting with these roles carries its calls.
fn stores_calls(roles: u8) -> bool {
    roles & tokens::CALL != 0 && roles & tokens::UNSURE == 0
}

impl Postings {
    /// Builds them from (word id, roles, calls) sorted by id.
    pub(super) fn encode<'a>(
        sorted: impl Iterator<Item = (u32, u8, &'a [(u32, u32)])>,
    ) -> Postings {
        let (mut count, mut list, mut calls_bytes) = (0, Vec::new(), Vec::new());
        let mut last_id = 0;
        for (id, roles, calls) in sorted {
            put(&mut list, u64::from(id - last_id));
            list.push(roles);
            if stores_calls(roles) {
                let start = calls_bytes.len();
                put(&mut calls_bytes, calls.len() as u64);
                let mut last = 0;
                for (line, column) in calls {
                    put(&mut calls_bytes, u64::from(line - last));
                    put(&mut calls_bytes, u64::from(*column));
                    last = *line;
                }
                put(&mut list, (calls_bytes.len() - start) as u64);
            }
            count += 1;
            last_id = id;
        }
        Postings {
            count,
            list: list.into(),
            calls: calls_bytes.into(),
        }
    }

    /// Each posting, in id order (a malformed list ends early).
    pub(super) fn iter(&self) -> impl Iterator<Item = Posting> + '_ {
        let mut r = Reader::new(&self.list);
        let (mut id, mut calls_at) = (0u32, 0usize);
        (0..self.count).map_while(move |_| {
            id = id.checked_add(u32::try_from(r.num()?).ok()?)?;
            let roles = r.take(1)?[0];
            let mut at = None;
            if stores_calls(roles) {
                at = Some(calls_at);
                calls_at = calls_at.checked_add(usize::try_from(r.num()?).ok()?)?;
            }
            Some((id, roles, at))
        })
    }

    pub(super) fn find(&self, id: u32) -> Option<Posting> {
        self.iter().take_while(|p| p.0 <= id).find(|p| p.0 == id)
    }

    /// The (line, column) of the calls stored at `at`.
    pub(super) fn calls_at(&self, at: usize) -> Vec<(usize, usize)> {
        let mut r = Reader::new(self.calls.get(at..).unwrap_or_default());
        let count = r.num().unwrap_or(0) as usize;
        let mut line = 0u64;
        let mut found = Vec::with_capacity(count.min(1 << 16));
        for _ in 0..count {
            let (Some(delta), Some(column)) = (r.num(), r.num()) else {
                break;
            };
            line += delta;
            found.push((line as usize, column as usize));
        }
        found
    }
}
