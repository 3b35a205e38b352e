//! The index file's bytes: a magic, a format version, the body's length and CRC-32 (so a corrupt
//! or half-written file is detected, never read), and the body — the limit it was built with,
//! the vocabulary, each file's stamp, hash and postings, and which files hold each word. Pure:
//! bytes in, bytes out.

use super::inverted::Inverted;
use super::postings::Postings;
use super::shared::Shared;
use super::{Entry, Held, Index};
use crate::text::leb128::{Reader, put, put_bytes};
use crate::workspace::mapped::Bytes;
use crate::workspace::store::Stamp;
use std::sync::Arc;

const MAGIC: &[u8; 8] = b"CANDORIX";
/// Bumped whenever the body's layout or meaning changes; another version is not read.
/// 2: each posting's roles include definition, call, attribute, import and "unsure", and the
/// calls' positions follow (version 1 had code, string, comment only).
/// 3: the vocabulary is one text, each word followed by a newline (it was each word's length
/// and bytes: loading it made one slice per word).
/// 4: the files holding each word follow the files ([`Inverted`]), and the body's checksum is a
/// CRC-32 (a sha256 of the body took longer to check than the question took to answer).
pub const VERSION: u32 = 4;
const HEADER: usize = 8 + 4 + 8 + 4;

/// Why an index file cannot be used (then the walk answers).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FormatError {
    #[error("it is not a candor index")]
    NotAnIndex,
    #[error("it was written by another candor (format {found}, this one reads {VERSION})")]
    Version { found: u32 },
    #[error("it is corrupt or half-written (its checksum does not match)")]
    Corrupt,
}

pub fn encode(index: &Index) -> Vec<u8> {
    let mut body = Vec::new();
    put(&mut body, index.max_bytes);
    put_bytes(&mut body, index.vocab.text());
    put(&mut body, index.files.len() as u64);
    for (path, entry) in &index.files {
        put_bytes(&mut body, path.as_bytes());
        put(&mut body, entry.stamp.size);
        body.extend_from_slice(&entry.stamp.mtime_ns.to_le_bytes());
        put(&mut body, entry.stamp.inode);
        body.push(u8::from(entry.racy));
        body.extend_from_slice(&entry.sha256);
        match &entry.held {
            Held::Special => body.push(0),
            Held::Link => body.push(1),
            Held::Text(postings) => {
                body.push(2);
                put(&mut body, u64::from(postings.count));
                put_bytes(&mut body, &postings.list);
                put_bytes(&mut body, &postings.calls);
            }
        }
    }
    let (starts, lists) = index.inverted().parts();
    put_bytes(&mut body, starts);
    put_bytes(&mut body, lists);
    framed(MAGIC, VERSION, &body)
}

/// `body` behind a header: `magic`, `version`, the body's length and CRC-32 (the index's file
/// and the walk's listing are both framed so).
pub(super) fn framed(magic: &[u8; 8], version: u32, body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(HEADER + body.len());
    out.extend_from_slice(magic);
    out.extend_from_slice(&version.to_le_bytes());
    out.extend_from_slice(&(body.len() as u64).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
    out.extend_from_slice(body);
    out
}

/// The body [`framed`] put behind its header, when `bytes` start with `magic`, are of `version`
/// and hold the whole body its checksum vouches for.
pub(super) fn unframed<'a>(
    bytes: &'a [u8],
    magic: &[u8; 8],
    version: u32,
) -> Result<&'a [u8], FormatError> {
    if bytes.len() < HEADER || &bytes[..8] != magic {
        return Err(FormatError::NotAnIndex);
    }
    let found = u32::from_le_bytes(bytes[8..12].try_into().unwrap_or_default());
    if found != version {
        return Err(FormatError::Version { found });
    }
    let len = u64::from_le_bytes(bytes[12..20].try_into().unwrap_or_default());
    let body = &bytes[HEADER..];
    if body.len() as u64 != len || crc32fast::hash(body).to_le_bytes()[..] != bytes[20..24] {
        return Err(FormatError::Corrupt);
    }
    Ok(body)
}

/// The index `bytes` hold; its postings and word lists are read in place (parts of `bytes`).
pub fn decode(bytes: impl Into<Bytes>) -> Result<Index, FormatError> {
    let bytes = bytes.into();
    unframed(&bytes, MAGIC, VERSION)?;
    let bytes = Arc::new(bytes);
    body_of(&mut Reader::new(&bytes[HEADER..]), &bytes).ok_or(FormatError::Corrupt)
}

fn body_of(r: &mut Reader<'_>, buffer: &Arc<Bytes>) -> Option<Index> {
    let shared = |r: &mut Reader<'_>| r.bytes().and_then(|part| Shared::part_of(buffer, part));
    let max_bytes = r.num()?;
    let mut index = Index::empty(max_bytes);
    index.vocab = super::vocab::Vocab::loaded(shared(r)?)?;
    for _ in 0..r.num()? {
        let path = String::from_utf8(r.bytes()?.to_vec()).ok()?;
        // In order, each once: a file's ordinal in the word lists is its place in this order.
        if index
            .files
            .last_key_value()
            .is_some_and(|(last, _)| *last >= path)
        {
            return None;
        }
        let size = r.num()?;
        let mtime_ns = i128::from_le_bytes(r.take(16)?.try_into().ok()?);
        let inode = r.num()?;
        let racy = r.take(1)?[0] == 1;
        let sha256: [u8; 32] = r.take(32)?.try_into().ok()?;
        let held = match r.take(1)?[0] {
            0 => Held::Special,
            1 => Held::Link,
            2 => {
                // Read in place when asked (`Postings::iter`); the checksum vouches for them.
                let count = u32::try_from(r.num()?).ok()?;
                let list = shared(r)?;
                let calls = shared(r)?;
                Held::Text(Postings { count, list, calls })
            }
            _ => return None,
        };
        let stamp = Stamp {
            size,
            mtime_ns,
            inode,
        };
        let entry = Entry {
            stamp,
            racy,
            sha256,
            held,
        };
        index.files.insert(path, entry);
    }
    let (starts, lists) = (shared(r)?, shared(r)?);
    let inverted = Inverted::from_parts(index.vocab.len(), starts, lists)?;
    index.inverted = inverted.into();
    r.is_at_end().then_some(index)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    fn sample() -> Index {
        let mut index = Index::empty(1000);
        let stamp = Stamp {
            size: 20,
            mtime_ns: 1_700_000_000_123_456_789,
            inode: 42,
        };
        index.add_text(
            "a.py",
            stamp,
            [7; 32],
            Language::Python,
            "def f(): g() # h\n",
        );
        index.add_special("b.py", stamp, Held::Link);
        index
    }

    #[test]
    fn an_index_reads_back_as_written() {
        let index = sample();
        let bytes = encode(&index);
        let decoded = decode(bytes).unwrap();
        assert_eq!(decoded, index);
        // The call's place, as `candor calls` prints it; `h` (a comment) is a mention only.
        let answer = decoded.calls_of(&[Language::Python], "g").unwrap();
        assert_eq!(answer.known, [("a.py".to_string(), vec![(1, 10)])]);
        assert!(answer.read.is_empty() && answer.walked == 1);
        let answer = decoded.calls_of(&[Language::Python], "h").unwrap();
        assert_eq!(answer.known, [("a.py".to_string(), vec![])]);
    }

    #[test]
    fn the_word_lists_read_back_are_those_of_the_files_and_follow_their_changes() {
        let stamp = Stamp {
            size: 9,
            mtime_ns: 1,
            inode: 1,
        };
        let mut index = sample();
        index.add_text("c.py", stamp, [1; 32], Language::Python, "g(h)\n");
        let mut read = decode(encode(&index)).unwrap();
        assert_eq!(read.inverted.get(), Some(index.inverted()));
        let paths = |index: &Index, word| {
            (index.candidates(
                &[Language::Python],
                word,
                crate::workspace::index::Match::Whole,
            ))
            .unwrap()
            .paths
        };
        // b.py is a link: every question reads it.
        assert_eq!(paths(&read, "g"), ["a.py", "b.py", "c.py"]);
        assert_eq!(paths(&read, "f"), ["a.py", "b.py"]);
        // A file added before the others (their ordinals move), one that no longer holds `g`.
        read.add_text("0.py", stamp, [2; 32], Language::Python, "f()\n");
        read.add_text("c.py", stamp, [3; 32], Language::Python, "h\n");
        assert_eq!(paths(&read, "g"), ["a.py", "b.py"]);
        assert_eq!(paths(&read, "f"), ["0.py", "a.py", "b.py"]);
        assert_eq!(paths(&read, "h"), ["a.py", "b.py", "c.py"]);
    }

    #[test]
    fn a_corrupt_truncated_or_other_version_file_is_refused() {
        let bytes = encode(&sample());
        let mut flipped = bytes.clone();
        let last = flipped.len() - 3;
        flipped[last] ^= 1;
        assert_eq!(decode(flipped), Err(FormatError::Corrupt));
        assert_eq!(
            decode(bytes[..bytes.len() - 5].to_vec()),
            Err(FormatError::Corrupt)
        );
        let mut old = bytes.clone();
        old[8] = 0;
        assert_eq!(decode(old), Err(FormatError::Version { found: 0 }));
        assert_eq!(decode(b"hello".to_vec()), Err(FormatError::NotAnIndex));
    }
}
