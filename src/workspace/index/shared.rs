//! A part of a buffer many owners share: what the index holds of each file (its postings) and
//! the word lists are slices of the one buffer the index file was read (or mapped) into, not
//! copies of it.

use std::ops::{Deref, Range};
use std::sync::Arc;

use crate::workspace::mapped::Bytes;

/// Bytes, owned alone or a part of a shared buffer; compared by content.
#[derive(Clone, Default)]
pub(crate) struct Shared {
    buffer: Arc<Bytes>,
    range: Range<usize>,
}

impl Shared {
    /// The part of `buffer` that `part` (a slice of it) is; `None` when it is not one.
    pub(crate) fn part_of(buffer: &Arc<Bytes>, part: &[u8]) -> Option<Shared> {
        let start = (part.as_ptr() as usize).checked_sub(buffer.as_ptr() as usize)?;
        let range = start..start.checked_add(part.len())?;
        (range.end <= buffer.len()).then(|| Shared {
            buffer: Arc::clone(buffer),
            range,
        })
    }
}

impl From<Vec<u8>> for Shared {
    fn from(bytes: Vec<u8>) -> Shared {
        let range = 0..bytes.len();
        Shared {
            buffer: Arc::new(Bytes::from(bytes)),
            range,
        }
    }
}

impl Deref for Shared {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.buffer[self.range.clone()]
    }
}

impl PartialEq for Shared {
    fn eq(&self, other: &Shared) -> bool {
        **self == **other
    }
}

impl Eq for Shared {}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Shared({} bytes)", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_is_the_slice_it_was_made_from_and_only_a_slice_of_the_buffer_is_one() {
        let buffer = Arc::new(Bytes::from(b"hello world".to_vec()));
        let part = Shared::part_of(&buffer, &buffer[6..]).unwrap();
        assert_eq!(&*part, b"world");
        assert_eq!(part, Shared::from(b"world".to_vec()));
        let elsewhere = b"world".to_vec();
        assert!(Shared::part_of(&buffer, &elsewhere).is_none());
        assert_eq!(&*Shared::part_of(&buffer, &buffer[11..]).unwrap(), b"");
    }
}
