//! The index's word → files section: for each word id, the ordinals (positions in path order) of
//! the text files whose postings hold it, so a question reads the few lists of the words it
//! wants instead of every file's postings. Derived from the postings (built from them after any
//! change, written beside them, read back in place). Pure.

use super::shared::Shared;
use crate::text::leb128::{Reader, put};

/// The files holding each word, as the index file stores them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Inverted {
    /// For each word id and one more, where its list starts in `lists` (u32, little-endian):
    /// word `id`'s list is `lists[start(id)..start(id + 1)]`.
    starts: Shared,
    /// Each word's file ordinals, increasing, each as its difference from the previous one
    /// (the first from −1), LEB128.
    lists: Shared,
}

impl Inverted {
    /// Built from each file's (ordinal, word ids in increasing order), files in increasing
    /// ordinal order, for a vocabulary of `words` words (an id beyond it is dropped).
    pub(crate) fn build(words: usize, files: &[(u32, Vec<u32>)]) -> Inverted {
        // Each word's count, then each file ordinal in place: two passes, no list per word.
        let mut counts = vec![0u32; words + 1];
        for id in files.iter().flat_map(|(_, ids)| ids) {
            if let Some(count) = counts.get_mut(*id as usize + 1) {
                *count += 1;
            }
        }
        for id in 1..counts.len() {
            counts[id] += counts[id - 1];
        }
        let mut next = counts.clone();
        let mut flat = vec![0u32; counts[words] as usize];
        for (ordinal, ids) in files {
            for id in ids.iter().filter(|id| (**id as usize) < words) {
                flat[next[*id as usize] as usize] = *ordinal;
                next[*id as usize] += 1;
            }
        }
        let mut starts = Vec::with_capacity((words + 1) * 4);
        let mut lists = Vec::with_capacity(flat.len() + flat.len() / 4);
        let start = |lists: &Vec<u8>| u32::try_from(lists.len()).unwrap_or(u32::MAX).to_le_bytes();
        for id in 0..words {
            starts.extend_from_slice(&start(&lists));
            let mut last = -1i64;
            for ordinal in &flat[counts[id] as usize..counts[id + 1] as usize] {
                put(&mut lists, (i64::from(*ordinal) - last - 1) as u64);
                last = i64::from(*ordinal);
            }
        }
        starts.extend_from_slice(&start(&lists));
        Inverted {
            starts: starts.into(),
            lists: lists.into(),
        }
    }

    /// What the index file stores: the starts, then the lists.
    pub(crate) fn parts(&self) -> (&[u8], &[u8]) {
        (&self.starts, &self.lists)
    }

    /// Read back from [`Inverted::parts`] for a vocabulary of `words` words; `None` when they
    /// do not fit it (a start table of another length, or whose last start is not the end).
    /// Each list is checked when read: one whose starts go back or past the end is empty.
    pub(crate) fn from_parts(words: usize, starts: Shared, lists: Shared) -> Option<Inverted> {
        if starts.len() != (words + 1).checked_mul(4)? {
            return None;
        }
        let inverted = Inverted { starts, lists };
        (inverted.start(words) == inverted.lists.len()).then_some(inverted)
    }

    fn start(&self, id: usize) -> usize {
        let at = id * 4;
        let bytes: [u8; 4] = (self.starts.get(at..at + 4))
            .and_then(|b| b.try_into().ok())
            .unwrap_or_default();
        u32::from_le_bytes(bytes) as usize
    }

    /// How many word ids it has lists for.
    fn words(&self) -> usize {
        (self.starts.len() / 4).saturating_sub(1)
    }

    /// The ordinals of the files holding word `id`, increasing (none for an id it has no list
    /// for).
    pub(crate) fn files_of(&self, id: u32) -> impl Iterator<Item = u32> + '_ {
        let id = id as usize;
        let list = match id < self.words() {
            true => (self.lists.get(self.start(id)..self.start(id + 1))).unwrap_or_default(),
            false => &[][..],
        };
        let mut reader = Reader::new(list);
        let mut last = -1i64;
        std::iter::from_fn(move || {
            let ordinal = last.checked_add(i64::try_from(reader.num()?).ok()? + 1)?;
            last = ordinal;
            u32::try_from(ordinal).ok()
        })
    }

    /// For each of `files` file ordinals, whether it holds one of the words `ids`.
    pub(crate) fn holding(&self, files: usize, ids: &[u32]) -> Vec<bool> {
        let mut holds = vec![false; files];
        for ordinal in ids.iter().flat_map(|id| self.files_of(*id)) {
            if let Some(hold) = holds.get_mut(ordinal as usize) {
                *hold = true;
            }
        }
        holds
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Inverted {
        // File 0 holds words 0 and 2, file 1 none, file 2 holds 2, file 200 holds 0 and 3.
        let files = [
            (0, vec![0, 2]),
            (1, vec![]),
            (2, vec![2]),
            (200, vec![0, 3]),
        ];
        Inverted::build(5, &files)
    }

    #[test]
    fn each_word_lists_the_files_holding_it() {
        let inverted = sample();
        let of = |id| inverted.files_of(id).collect::<Vec<_>>();
        assert_eq!(of(0), [0, 200]);
        assert_eq!(of(1), Vec::<u32>::new());
        assert_eq!(of(2), [0, 2]);
        assert_eq!(of(3), [200]);
        assert_eq!(of(4), Vec::<u32>::new());
        assert_eq!(of(9), Vec::<u32>::new());
        let holds = inverted.holding(4, &[2, 3]);
        assert_eq!(holds, [true, false, true, false]);
    }

    #[test]
    fn parts_read_back_only_for_the_same_vocabulary_and_whole() {
        let inverted = sample();
        let (starts, lists) = inverted.parts();
        let part = |bytes: &[u8]| Shared::from(bytes.to_vec());
        let back = Inverted::from_parts(5, part(starts), part(lists));
        assert_eq!(back.as_ref(), Some(&inverted));
        assert_eq!(Inverted::from_parts(6, part(starts), part(lists)), None);
        let cut = &lists[..lists.len() - 1];
        assert_eq!(Inverted::from_parts(5, part(starts), part(cut)), None);
        // A list whose start goes back, or past the end, is read as empty.
        let mut backwards = starts.to_vec();
        backwards[8] = 9;
        let odd = Inverted::from_parts(5, part(&backwards), part(lists)).unwrap();
        assert_eq!(odd.files_of(1).count(), 0);
        assert_eq!(odd.files_of(0).collect::<Vec<_>>(), [0, 200]);
        let empty = Inverted::from_parts(0, part(&0u32.to_le_bytes()), part(&[]));
        assert_eq!(empty, Some(Inverted::build(0, &[])));
    }
}
