//! The index's vocabulary: every distinct word, by id, kept in one buffer (each word followed by
//! a newline, which no word holds) rather than one allocation per word, so loading the index
//! does not allocate 100,000 strings and a substring question is one scan of the buffer. Pure.

/// The words, by id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Vocab {
    /// `word\n` for each word, in id order.
    text: String,
    /// Where each word ends in `text` (its newline's offset).
    ends: Vec<u32>,
}

impl Vocab {
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(crate) fn get(&self, id: usize) -> &str {
        let start = match id {
            0 => 0,
            _ => self.ends[id - 1] as usize + 1,
        };
        &self.text[start..self.ends[id] as usize]
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|id| self.get(id))
    }

    /// Adds a word (one without a newline), returning its id.
    pub(crate) fn push(&mut self, word: &str) -> u32 {
        debug_assert!(!word.contains('\n'));
        self.text.push_str(word);
        self.ends.push(self.text.len() as u32);
        self.text.push('\n');
        self.ends.len() as u32 - 1
    }

    /// What it keeps: `word\n` for each word, in id order (how the index file stores it).
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Builds it from [`Vocab::text`] as read from disk; `None` when that does not end with a
    /// newline (a word cut short).
    pub(crate) fn from_text(text: String) -> Option<Vocab> {
        if !text.is_empty() && !text.ends_with('\n') {
            return None;
        }
        let ends = memchr::memchr_iter(b'\n', text.as_bytes())
            .map(|end| u32::try_from(end).ok())
            .collect::<Option<Vec<u32>>>()?;
        Some(Vocab { text, ends })
    }

    /// The id of `word`, if it is one.
    pub(crate) fn position(&self, word: &str) -> Option<u32> {
        self.contained(word)
            .into_iter()
            .find(|id| self.get(*id as usize) == word)
    }

    /// The ids of the words that hold `part` (not empty, without a newline), in order.
    pub(crate) fn contained(&self, part: &str) -> Vec<u32> {
        let mut ids: Vec<u32> = Vec::new();
        if part.is_empty() {
            return ids;
        }
        for at in memchr::memmem::find_iter(self.text.as_bytes(), part.as_bytes()) {
            // A match cannot cross a newline, so it lies inside the word whose end follows it.
            let id = self.ends.partition_point(|end| (*end as usize) <= at) as u32;
            if ids.last() != Some(&id) {
                ids.push(id);
            }
        }
        ids
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_read_back_and_substrings_find_every_word_holding_them() {
        let mut vocab = Vocab::default();
        for word in ["ab", "aba", "bab", "dédent", "x"] {
            vocab.push(word);
        }
        assert_eq!(
            vocab.iter().collect::<Vec<_>>(),
            ["ab", "aba", "bab", "dédent", "x"]
        );
        // Overlapping occurrences in neighbouring words are all found.
        assert_eq!(vocab.contained("ab"), [0, 1, 2]);
        assert_eq!(vocab.contained("aba"), [1]);
        assert_eq!(vocab.contained("bab"), [2]);
        assert_eq!(vocab.contained("é"), [3]);
        assert_eq!(vocab.position("aba"), Some(1));
        assert_eq!(vocab.position("a"), None);
        assert_eq!(Vocab::from_text(vocab.text().to_string()), Some(vocab));
        assert_eq!(Vocab::from_text(String::new()), Some(Vocab::default()));
        assert_eq!(Vocab::from_text("a\nb".to_string()), None);
    }
}
