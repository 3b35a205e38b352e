//! The bytes of a facts pack (pure): a header (magic, entry format, count), a key table (the
//! digest of each key → the offset and length of its entry) and the entries, each holding a
//! sha256 of its bytes, its full key and its payload. A reader trusts nothing it reads: a row
//! that points outside the pack, a cut, changed or foreign entry gives no payload.

use sha2::{Digest as _, Sha256};

/// The first bytes of every pack.
pub const MAGIC: &[u8; 8] = b"cndrpack";
/// The layout of a pack and its entries (not of the facts in them:
/// that is `refactor::lasting::FORMAT`). 1 was one file per fact.
pub const ENTRY_FORMAT: u32 = 2;
/// Magic, entry format, count.
pub const HEADER: usize = MAGIC.len() + 4 + 4;
/// A row of the key table: digest, offset (u64), length (u32).
pub const ROW: usize = DIGEST + 8 + 4;
const DIGEST: usize = 20;
/// The sha256 that starts an entry.
const SUM: usize = 32;

/// The digest of a key: what the key table holds.
pub type Digest = [u8; DIGEST];

pub fn digest_of(key: &str) -> Digest {
    let sum = Sha256::digest(key.as_bytes());
    let mut digest = [0u8; DIGEST];
    digest.copy_from_slice(&sum[..DIGEST]);
    digest
}

/// Where an entry lies in its pack.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    pub digest: Digest,
    pub offset: u64,
    pub len: u32,
}

/// Why bytes are not a pack's header and table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotAPack {
    /// Another magic: not a pack (an entry of the old one-file-per-fact layout, a stray file).
    Foreign,
    /// A pack of another entry format.
    OtherFormat(u32),
    /// The header or the key table is cut.
    Cut,
}

/// The bytes of one entry: sha256 of the rest, key length (u32), key, payload.
pub fn entry(key: &str, payload: &[u8]) -> Vec<u8> {
    let mut body = Vec::with_capacity(4 + key.len() + payload.len());
    body.extend_from_slice(&(key.len() as u32).to_le_bytes());
    body.extend_from_slice(key.as_bytes());
    body.extend_from_slice(payload);
    let mut out = Vec::with_capacity(SUM + body.len());
    out.extend_from_slice(&Sha256::digest(&body));
    out.extend_from_slice(&body);
    out
}

/// The bytes of a pack of already-encoded `entries` (digest, bytes of [`entry`]), in order.
pub fn encode_entries(entries: &[(Digest, &[u8])]) -> Vec<u8> {
    let table_end = HEADER + entries.len() * ROW;
    let total = table_end + entries.iter().map(|(_, e)| e.len()).sum::<usize>();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&ENTRY_FORMAT.to_le_bytes());
    out.extend_from_slice(&(entries.len() as u32).to_le_bytes());
    let mut offset = table_end as u64;
    for (digest, bytes) in entries {
        out.extend_from_slice(digest);
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&(bytes.len() as u32).to_le_bytes());
        offset += bytes.len() as u64;
    }
    for (_, bytes) in entries {
        out.extend_from_slice(bytes);
    }
    out
}

/// The bytes of a pack holding `facts` (key, payload), in order.
pub fn encode(facts: &[(&str, &[u8])]) -> Vec<u8> {
    let entries: Vec<(Digest, Vec<u8>)> = facts
        .iter()
        .map(|(key, payload)| (digest_of(key), entry(key, payload)))
        .collect();
    let borrowed: Vec<(Digest, &[u8])> = entries.iter().map(|(d, e)| (*d, &e[..])).collect();
    encode_entries(&borrowed)
}

/// How many entries the header says (the first [`HEADER`] bytes).
pub fn count(header: &[u8]) -> Result<u32, NotAPack> {
    let header = header.get(..HEADER).ok_or(NotAPack::Cut)?;
    if &header[..8] != MAGIC {
        return Err(NotAPack::Foreign);
    }
    let format = u32::from_le_bytes(header[8..12].try_into().unwrap_or_default());
    if format != ENTRY_FORMAT {
        return Err(NotAPack::OtherFormat(format));
    }
    Ok(u32::from_le_bytes(
        header[12..16].try_into().unwrap_or_default(),
    ))
}

/// The length of the header and key table of a pack of `count` entries.
pub fn table_end(count: u32) -> u64 {
    HEADER as u64 + u64::from(count) * ROW as u64
}

/// The key table, from the pack's first bytes (at least its header and table).
pub fn rows(start: &[u8]) -> Result<Vec<Row>, NotAPack> {
    let count = count(start)?;
    let end = usize::try_from(table_end(count)).map_err(|_| NotAPack::Cut)?;
    let table = start.get(HEADER..end).ok_or(NotAPack::Cut)?;
    Ok(table
        .chunks_exact(ROW)
        .map(|row| {
            let mut digest = [0u8; DIGEST];
            digest.copy_from_slice(&row[..DIGEST]);
            let offset = u64::from_le_bytes(row[DIGEST..DIGEST + 8].try_into().unwrap_or_default());
            let len = u32::from_le_bytes(row[DIGEST + 8..].try_into().unwrap_or_default());
            Row {
                digest,
                offset,
                len,
            }
        })
        .collect())
}

/// The key an entry holds, and its payload, if the entry is whole.
pub fn open_entry(entry: &[u8]) -> Option<(&str, &[u8])> {
    let (sum, body) = (entry.get(..SUM)?, entry.get(SUM..)?);
    if sum != &Sha256::digest(body)[..] {
        return None;
    }
    let len = u32::from_le_bytes(body.get(..4)?.try_into().ok()?) as usize;
    let key = std::str::from_utf8(body.get(4..4 + len)?).ok()?;
    Some((key, &body[4 + len..]))
}

/// The payload of an entry if it is whole and holds `key`.
pub fn payload_of<'a>(key: &str, entry: &'a [u8]) -> Option<&'a [u8]> {
    let (kept, payload) = open_entry(entry)?;
    (kept == key).then_some(payload)
}

/// The entry of `row` in the whole bytes of a pack, if the row points inside them.
pub fn entry_at<'a>(pack: &'a [u8], row: &Row) -> Option<&'a [u8]> {
    let start = usize::try_from(row.offset).ok()?;
    pack.get(start..start.checked_add(row.len as usize)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The payload kept for `key` in the whole bytes of a pack: `Ok(None)` when the table has no
    /// row for it, `Err` when its row or entry is bad (cut, changed, another key's).
    fn lookup<'a>(pack: &'a [u8], key: &str) -> Result<Option<&'a [u8]>, NotAPack> {
        let digest = digest_of(key);
        let rows = rows(pack)?;
        let Some(row) = rows.iter().rev().find(|r| r.digest == digest) else {
            return Ok(None);
        };
        match entry_at(pack, row).and_then(|e| payload_of(key, e)) {
            Some(payload) => Ok(Some(payload)),
            None => Err(NotAPack::Cut),
        }
    }

    fn facts() -> Vec<(String, Vec<u8>)> {
        (0..5)
            .map(|i| {
                (
                    format!("2\0build\0verdicts\0pkg/m{i}.py\0{i:064}\0judge f"),
                    vec![i as u8; 3 + 7 * i],
                )
            })
            .collect()
    }

    fn pack_of(facts: &[(String, Vec<u8>)]) -> Vec<u8> {
        let borrowed: Vec<(&str, &[u8])> =
            facts.iter().map(|(k, p)| (k.as_str(), &p[..])).collect();
        encode(&borrowed)
    }

    #[test]
    fn every_fact_is_read_back_for_its_key_and_no_other_key_is_found() {
        let facts = facts();
        let pack = pack_of(&facts);
        assert_eq!(count(&pack), Ok(5));
        for (key, payload) in &facts {
            assert_eq!(lookup(&pack, key), Ok(Some(&payload[..])));
        }
        assert_eq!(lookup(&pack, "another key"), Ok(None));
        let empty = encode(&[]);
        assert_eq!(empty.len(), HEADER);
        assert_eq!(lookup(&empty, "k"), Ok(None));
    }

    #[test]
    fn a_pack_cut_at_any_byte_answers_nothing_wrong() {
        let facts = facts();
        let pack = pack_of(&facts);
        let table = table_end(5) as usize;
        for cut in 0..pack.len() {
            let cut_pack = &pack[..cut];
            for (i, (key, payload)) in facts.iter().enumerate() {
                let got = lookup(cut_pack, key);
                match got {
                    Ok(Some(p)) => assert_eq!(p, &payload[..], "cut at {cut}"),
                    Ok(None) => panic!("cut at {cut}: {i} not in the table"),
                    Err(NotAPack::Cut) => {}
                    Err(other) => panic!("cut at {cut}: {other:?}"),
                }
                // Before the table ends nothing is read; after, the entries wholly before the
                // cut are.
                if cut < table {
                    assert_eq!(got, Err(NotAPack::Cut), "cut at {cut}");
                }
            }
        }
        // The last entry is read only from the whole pack.
        let (key, payload) = facts.last().unwrap();
        assert_eq!(lookup(&pack[..pack.len() - 1], key), Err(NotAPack::Cut));
        assert_eq!(lookup(&pack, key), Ok(Some(&payload[..])));
    }

    #[test]
    fn a_flipped_bit_anywhere_never_gives_a_wrong_payload() {
        let facts = facts();
        let pack = pack_of(&facts);
        for at in 0..pack.len() {
            for bit in [0x01u8, 0x80] {
                let mut flipped = pack.clone();
                flipped[at] ^= bit;
                let mut bad = 0;
                for (key, payload) in &facts {
                    match lookup(&flipped, key) {
                        Ok(Some(p)) => assert_eq!(p, &payload[..], "flip at {at}"),
                        Ok(None) | Err(_) => bad += 1,
                    }
                }
                // Every byte of a pack matters to some key, but the count's high bits and the
                // magic only to all of them at once.
                assert!(bad >= 1, "flip at {at} ({bit:#x}) changed nothing");
            }
        }
    }

    #[test]
    fn a_foreign_entry_under_a_keys_digest_is_not_its_payload() {
        let facts = facts();
        let pack = pack_of(&facts);
        let mut rows = rows(&pack).unwrap();
        // Row 0 now points to entry 1: whole, but another key's.
        rows[0].offset = rows[1].offset;
        rows[0].len = rows[1].len;
        let mut redirected = pack.clone();
        redirected[HEADER + 20..HEADER + ROW].copy_from_slice(
            &[
                &rows[0].offset.to_le_bytes()[..],
                &rows[0].len.to_le_bytes()[..],
            ]
            .concat(),
        );
        assert_eq!(lookup(&redirected, &facts[0].0), Err(NotAPack::Cut));
        assert_eq!(lookup(&redirected, &facts[1].0), Ok(Some(&facts[1].1[..])));
        // A row pointing past the end, or with an absurd offset.
        let mut far = pack.clone();
        far[HEADER + 20..HEADER + 28].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(lookup(&far, &facts[0].0), Err(NotAPack::Cut));
    }

    #[test]
    fn an_old_entry_or_another_format_is_not_a_pack() {
        let mut old = b"cndrfact".to_vec();
        old.extend_from_slice(&1u32.to_le_bytes());
        old.extend_from_slice(&[0u8; 64]);
        assert_eq!(count(&old), Err(NotAPack::Foreign));
        let mut other = pack_of(&facts());
        other[8] = 9;
        assert_eq!(count(&other), Err(NotAPack::OtherFormat(9)));
        assert_eq!(count(b"cndr"), Err(NotAPack::Cut));
        // A count that promises more rows than there are bytes.
        let mut huge = encode(&[]);
        huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(rows(&huge), Err(NotAPack::Cut));
    }
}
