//! The facts directory's packs: written at a flush, read back by another reader, bad entries
//! counted, links and FIFOs not read, the bound and the merge of many packs.

use super::*;

fn temp_facts() -> (tempfile::TempDir, FactsDir) {
    let temp = tempfile::tempdir().unwrap();
    let dir = Dir::open_path(temp.path()).unwrap();
    (temp, FactsDir::in_dir(dir, DEFAULT_MAX_BYTES))
}

/// Another process's view of the same directory.
fn reader(temp: &tempfile::TempDir) -> FactsDir {
    FactsDir::in_dir(Dir::open_path(temp.path()).unwrap(), DEFAULT_MAX_BYTES)
}

fn packs_in(temp: &tempfile::TempDir) -> Vec<std::path::PathBuf> {
    let mut packs: Vec<_> = std::fs::read_dir(temp.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".pack"))
        .collect();
    packs.sort();
    packs
}

fn got(facts: &FactsDir, key: &str) -> Option<Vec<u8>> {
    facts.get(key, |p| Some(p.to_vec()))
}

const KEY: &str = "1\0verdicts\0a.py\0abc\0judge x";

#[test]
fn facts_are_written_as_one_pack_at_a_flush_and_read_back_for_their_key_only() {
    let (temp, facts) = temp_facts();
    facts.put(KEY, b"payload");
    facts.put("1\0verdicts\0b.py\0abc\0judge x", b"other");
    assert!(packs_in(&temp).is_empty(), "written before the flush");
    facts.flush();
    assert_eq!(packs_in(&temp).len(), 1);
    assert_eq!(facts.counts().written, 2);
    // Nothing new: no pack.
    facts.flush();
    assert_eq!(packs_in(&temp).len(), 1);
    let next = reader(&temp);
    assert_eq!(got(&next, KEY).as_deref(), Some(&b"payload"[..]));
    assert_eq!(got(&next, "1\0verdicts\0a.py\0abd\0judge x"), None);
    assert_eq!(next.counts().bad, 0);
    // A decoder that refuses the payload: a bad entry.
    assert_eq!(next.get(KEY, |_| None::<()>), None);
    assert_eq!(
        next.counts(),
        DiskCounts {
            read: 1,
            written: 0,
            bad: 1
        }
    );
    assert_eq!(
        next.held(),
        Held {
            entries: 2,
            packs: 1,
            bytes: std::fs::metadata(&packs_in(&temp)[0]).unwrap().len(),
            disk_bytes: next.held().disk_bytes,
        }
    );
}

#[test]
fn letting_the_directory_go_writes_what_was_not_written() {
    let (temp, facts) = temp_facts();
    facts.put(KEY, b"payload");
    drop(facts);
    assert_eq!(packs_in(&temp).len(), 1);
    assert_eq!(got(&reader(&temp), KEY).as_deref(), Some(&b"payload"[..]));
}

#[test]
fn a_cut_changed_or_foreign_entry_on_disk_is_ignored_and_counted_read_whole_or_by_pread() {
    for whole_max in [WHOLE_MAX, 0] {
        let (temp, facts) = temp_facts();
        let keys: Vec<String> = (0..4).map(|i| format!("{KEY} {i}")).collect();
        for key in &keys {
            facts.put(key, key.as_bytes());
        }
        facts.flush();
        let path = packs_in(&temp).remove(0);
        let bytes = std::fs::read(&path).unwrap();
        let rows = pack::rows(&bytes).unwrap();
        let mut broken = bytes.clone();
        // Row 0's entry: a flipped byte; row 1 points at row 2's entry (a foreign key under its
        // digest); the pack is cut inside the last entry.
        let at = rows[0].offset as usize + rows[0].len as usize - 1;
        broken[at] ^= 0x20;
        let table_row = pack::HEADER + pack::ROW + 20;
        broken[table_row..table_row + 8].copy_from_slice(&rows[2].offset.to_le_bytes());
        broken[table_row + 8..table_row + 12].copy_from_slice(&rows[2].len.to_le_bytes());
        let last = rows.iter().max_by_key(|r| r.offset).unwrap();
        broken.truncate(last.offset as usize + last.len as usize - 1);
        std::fs::write(&path, &broken).unwrap();
        let mut next = reader(&temp);
        next.whole_max = whole_max;
        let found: Vec<bool> = keys.iter().map(|k| got(&next, k).is_some()).collect();
        let digests: Vec<_> = keys.iter().map(|k| pack::digest_of(k)).collect();
        let row_of = |i: usize| rows.iter().position(|r| r.digest == digests[i]).unwrap();
        for (i, found) in found.iter().enumerate() {
            let row = row_of(i);
            let broke = row == 0 || row == 1 || rows[row].offset == last.offset;
            assert_eq!(*found, !broke, "key {i} (row {row}), whole_max {whole_max}");
        }
        let bad = found.iter().filter(|f| !**f).count() as u64;
        assert!(bad >= 2, "{found:?}");
        assert_eq!(next.counts().bad, bad, "whole_max {whole_max}");
        // The bad facts written again are read from the newer pack.
        for key in &keys {
            next.put(key, key.as_bytes());
        }
        next.flush();
        let third = reader(&temp);
        for key in &keys {
            assert_eq!(got(&third, key).as_deref(), Some(key.as_bytes()));
        }
        assert_eq!(third.counts().bad, 0);
    }
}

#[test]
fn a_pack_with_a_cut_table_is_counted_once_and_old_entries_are_not_packs() {
    let (temp, facts) = temp_facts();
    facts.put(KEY, b"payload");
    facts.flush();
    let path = packs_in(&temp).remove(0);
    let bytes = std::fs::read(&path).unwrap();
    std::fs::write(&path, &bytes[..pack::HEADER + 3]).unwrap();
    // An entry of the old one-file-per-fact layout, under its old name and under a pack's.
    let mut old = b"cndrfact".to_vec();
    old.extend_from_slice(&1u32.to_le_bytes());
    old.extend_from_slice(&[0u8; 100]);
    std::fs::write(
        temp.path().join("0123456789abcdef0123456789abcdef01234567"),
        &old,
    )
    .unwrap();
    std::fs::write(temp.path().join("00000000000000000001-1-0.pack"), &old).unwrap();
    let next = reader(&temp);
    assert_eq!(got(&next, KEY), None);
    assert_eq!(next.counts().bad, 1);
    // The writer's tidying removes the old entry (a pack, even a bad one, goes by the bound).
    next.put(KEY, b"payload");
    next.flush();
    assert!(
        !temp
            .path()
            .join("0123456789abcdef0123456789abcdef01234567")
            .exists()
    );
    assert_eq!(got(&reader(&temp), KEY).as_deref(), Some(&b"payload"[..]));
}

#[test]
fn a_link_or_a_fifo_in_place_of_a_pack_is_not_read_and_does_not_block() {
    let (temp, facts) = temp_facts();
    facts.put("real", b"payload");
    facts.flush();
    let real = packs_in(&temp).remove(0);
    std::fs::rename(&real, temp.path().join("elsewhere")).unwrap();
    std::os::unix::fs::symlink(temp.path().join("elsewhere"), &real).unwrap();
    rustix::fs::mknodat(
        facts.dir.as_fd(),
        "99999999999999999999-1-0.pack",
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    let next = reader(&temp);
    assert_eq!(got(&next, "real"), None);
    assert_eq!(next.counts().bad, 0);
    assert_eq!(next.held().packs, 0);
}

#[test]
fn over_its_bound_the_directory_drops_the_packs_written_longest_ago() {
    let (temp, facts) = temp_facts();
    let mut facts = facts.with_max_bytes(10 * 4096);
    facts.max_packs = 100;
    for i in 0..20 {
        facts.put(&format!("key {i}"), &[7u8; 100]);
        facts.flush();
    }
    let held = facts.held();
    assert!(held.disk_bytes <= 10 * 4096, "{held:?}");
    assert!(held.packs > 0 && held.packs < 20, "{held:?}");
    // The newest are kept, the oldest dropped.
    let next = reader(&temp);
    assert!(got(&next, "key 19").is_some());
    assert!(got(&next, "key 0").is_none());
}

#[test]
fn over_its_count_of_packs_a_writer_merges_them_into_one_keeping_each_key_once() {
    let (temp, facts) = temp_facts();
    let mut facts = facts;
    facts.max_packs = 4;
    for i in 0..5 {
        facts.put(&format!("key {i}"), format!("value {i}").as_bytes());
        // The same key in every pack.
        facts.put("shared", b"same");
        facts.flush();
    }
    assert_eq!(packs_in(&temp).len(), 1, "five packs over four were merged");
    let held = facts.held();
    assert_eq!((held.packs, held.entries), (1, 6), "{held:?}");
    let next = reader(&temp);
    for i in 0..5 {
        assert_eq!(
            got(&next, &format!("key {i}")),
            Some(format!("value {i}").into_bytes())
        );
    }
    assert_eq!(got(&next, "shared").as_deref(), Some(&b"same"[..]));
    assert_eq!(next.counts().bad, 0);
}

#[test]
fn a_merge_leaves_the_pack_another_process_wrote_meanwhile() {
    let (temp, facts) = temp_facts();
    for i in 0..3 {
        facts.put(&format!("key {i}"), b"mine");
        facts.flush();
    }
    let listed: Vec<OsString> = facts
        .pack_files(false)
        .into_iter()
        .map(|(name, _)| name)
        .collect();
    assert_eq!(listed.len(), 3);
    // Another process writes after the merging one listed the packs.
    let other = reader(&temp);
    other.put("theirs", b"new");
    other.flush();
    assert!(facts.merge(&listed));
    assert_eq!(packs_in(&temp).len(), 2);
    let next = reader(&temp);
    assert_eq!(got(&next, "theirs").as_deref(), Some(&b"new"[..]));
    for i in 0..3 {
        assert_eq!(
            got(&next, &format!("key {i}")).as_deref(),
            Some(&b"mine"[..])
        );
    }
}

#[test]
fn a_long_session_reads_the_packs_written_after_it_listed_the_directory() {
    let (temp, facts) = temp_facts();
    assert_eq!(got(&facts, "later"), None);
    let other = reader(&temp);
    other.put("later", b"value");
    other.flush();
    // Within the request: the directory is not listed again.
    assert_eq!(got(&facts, "later"), None);
    // The request ends (a flush, even of nothing): the next one lists it again.
    facts.flush();
    assert_eq!(got(&facts, "later").as_deref(), Some(&b"value"[..]));
}
