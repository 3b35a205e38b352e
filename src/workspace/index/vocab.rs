//! The index's vocabulary: every distinct word, by id, kept in one buffer (each word followed by
//! a newline, which no word holds) rather than one allocation per word. A loaded index's
//! vocabulary is the part of the file's buffer it was read from, not a copy, and where each word
//! ends is worked out only when a word is asked for by id: a question finds its words by one
//! scan of the buffer and counts the newlines before them. Pure.

use std::sync::OnceLock;

use super::shared::Shared;

/// The words, by id.
#[derive(Debug, Clone, Default)]
pub(crate) struct Vocab {
    /// `word\n` for each word, in id order (valid UTF-8, split only at newlines).
    text: Text,
    /// How many words (newlines) `text` holds.
    len: usize,
    /// Where each word ends in `text` (its newline's offset), once asked for.
    ends: OnceLock<Vec<u32>>,
}

/// The vocabulary's bytes: grown word by word, or a part of the index file's buffer.
#[derive(Debug, Clone)]
enum Text {
    Owned(String),
    Loaded(Shared),
}

impl Default for Text {
    fn default() -> Text {
        Text::Owned(String::new())
    }
}

/// Two vocabularies are equal when they hold the same words in the same order.
impl PartialEq for Vocab {
    fn eq(&self, other: &Vocab) -> bool {
        self.bytes() == other.bytes()
    }
}

impl Eq for Vocab {}

impl Vocab {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    fn bytes(&self) -> &[u8] {
        match &self.text {
            Text::Owned(text) => text.as_bytes(),
            Text::Loaded(shared) => shared,
        }
    }

    fn ends(&self) -> &[u32] {
        self.ends.get_or_init(|| {
            let mut ends = Vec::with_capacity(self.len);
            ends.extend(memchr::memchr_iter(b'\n', self.bytes()).map(|end| end as u32));
            ends
        })
    }

    pub(crate) fn get(&self, id: usize) -> &str {
        let ends = self.ends();
        let start = match id {
            0 => 0,
            _ => ends[id - 1] as usize + 1,
        };
        // The text is UTF-8 and a word lies between newlines: always valid.
        std::str::from_utf8(&self.bytes()[start..ends[id] as usize]).unwrap_or_default()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map(|id| self.get(id))
    }

    /// Adds a word (one without a newline), returning its id.
    pub(crate) fn push(&mut self, word: &str) -> u32 {
        debug_assert!(!word.contains('\n'));
        self.ends();
        if let Text::Loaded(shared) = &self.text {
            let owned = String::from_utf8_lossy(shared).into_owned();
            self.text = Text::Owned(owned);
        }
        let Text::Owned(text) = &mut self.text else {
            unreachable!("made owned above")
        };
        text.push_str(word);
        let end = text.len() as u32;
        text.push('\n');
        self.ends.get_mut().expect("worked out above").push(end);
        self.len += 1;
        self.len as u32 - 1
    }

    /// What it keeps: `word\n` for each word, in id order (how the index file stores it).
    pub(crate) fn text(&self) -> &[u8] {
        self.bytes()
    }

    /// Reads it from the part of the index file's buffer that holds [`Vocab::text`]; `None`
    /// when that is not UTF-8 or does not end with a newline (a word cut short).
    pub(crate) fn loaded(part: Shared) -> Option<Vocab> {
        std::str::from_utf8(&part).ok()?;
        if !part.is_empty() && part.last() != Some(&b'\n') {
            return None;
        }
        let len = newlines(&part);
        u32::try_from(part.len()).ok()?;
        Some(Vocab {
            text: Text::Loaded(part),
            len,
            ends: OnceLock::new(),
        })
    }

    /// The id of `word`, if it is one: where `word\n` starts the text or follows a newline.
    pub(crate) fn position(&self, word: &str) -> Option<u32> {
        if word.is_empty() || word.contains('\n') {
            return None;
        }
        let bytes = self.bytes();
        let line = format!("{word}\n");
        if bytes.starts_with(line.as_bytes()) {
            return Some(0);
        }
        let at = memchr::memmem::find(bytes, format!("\n{line}").as_bytes())? + 1;
        Some(newlines(&bytes[..at]) as u32)
    }

    /// The ids of the words that hold `part` (not empty, without a newline), in order.
    pub(crate) fn contained(&self, part: &str) -> Vec<u32> {
        let mut ids: Vec<u32> = Vec::new();
        if part.is_empty() {
            return ids;
        }
        let bytes = self.bytes();
        // A match cannot cross a newline, so it lies inside the word whose id is the number of
        // newlines before it: counted from one match to the next.
        let (mut counted_to, mut id) = (0usize, 0usize);
        for at in memchr::memmem::find_iter(bytes, part.as_bytes()) {
            id += newlines(&bytes[counted_to..at]);
            counted_to = at;
            if ids.last() != Some(&(id as u32)) {
                ids.push(id as u32);
            }
        }
        ids
    }
}

/// How many newlines `bytes` holds (memchr's vector search: a byte-by-byte count is ten times
/// slower on a vocabulary of a megabyte).
fn newlines(bytes: &[u8]) -> usize {
    memchr::memchr_iter(b'\n', bytes).count()
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
        let loaded = |bytes: &[u8]| Vocab::loaded(Shared::from(bytes.to_vec()));
        assert_eq!(loaded(vocab.text()), Some(vocab));
        assert_eq!(loaded(b""), Some(Vocab::default()));
        assert_eq!(loaded(b"a\nb"), None);
        assert_eq!(loaded(b"a\n\xff\n"), None);
    }

    #[test]
    fn a_loaded_vocabulary_answers_as_the_one_written_and_grows_like_it() {
        let mut written = Vocab::default();
        for word in ["dedent", "indent", "x", "dedented", "den"] {
            written.push(word);
        }
        let mut read = Vocab::loaded(Shared::from(written.text().to_vec())).unwrap();
        assert_eq!(read.len(), 5);
        for part in ["dent", "de", "x", "d", "nope", "t\nx"] {
            assert_eq!(read.contained(part), written.contained(part), "{part}");
        }
        assert_eq!(read.contained("dent"), [0, 1, 3]);
        for word in [
            "dedent", "indent", "x", "dedented", "den", "dente", "ent", "",
        ] {
            assert_eq!(read.position(word), written.position(word), "{word}");
        }
        assert_eq!(read.position("dedented"), Some(3));
        assert_eq!(read.position("x"), Some(2));
        assert_eq!(read.get(4), "den");
        // The first word added after the load follows the words read.
        assert_eq!(read.push("y"), 5);
        assert_eq!(written.push("y"), 5);
        assert_eq!(read, written);
        assert_eq!(
            read.iter().collect::<Vec<_>>(),
            written.iter().collect::<Vec<_>>()
        );
    }
}
