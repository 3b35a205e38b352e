//! The facts on disk (issue 22, item 2): beside an index, the references engine's verdicts and
//! what it learns from a file are kept in `.candor/index/facts/`, one pack per request, so that
//! the next process neither parses nor judges an unchanged candidate again; an edited file is
//! judged again, a corrupt entry is ignored, two processes writing at once lose nothing, and
//! every envelope is byte-identical to one made without the facts. Each call is its own `candor`
//! process.

mod common;

use std::path::Path;
use std::process::Command;

/// How many files mention the name without referring to our function.
const DECOYS: usize = 8;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let pkg = dir.path().join("pkg");
    std::fs::create_dir(&pkg).unwrap();
    let files: Vec<(String, String)> = [
        ("__init__.py", String::new()),
        (
            "a.py",
            "def helper(a):\n    return a + 1\n\n\ndef main():\n    return helper(2)\n".into(),
        ),
        (
            "b.py",
            "from pkg.a import helper\n\n\ndef use():\n    return helper(3) + helper(4)\n".into(),
        ),
        ("c.py", "import pkg.a\n\nx = pkg.a.helper(5)\n".into()),
    ]
    .into_iter()
    .map(|(p, t)| (p.to_string(), t))
    .chain((0..DECOYS).map(|i| {
        let text = if i % 2 == 0 {
            format!("from other{i} import helper\n\nhelper({i})\n")
        } else {
            format!("\"\"\"Says helper once.\"\"\"\n\ny = {i}\n")
        };
        (format!("decoy{i}.py"), text)
    }))
    .collect();
    for (path, text) in files {
        std::fs::write(pkg.join(path), text).unwrap();
    }
    age(dir.path());
    dir
}

/// Sets every project file's mtime a minute back: the index trusts the stamps it sees.
fn age(root: &Path) {
    let when = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    for entry in std::fs::read_dir(root.join("pkg")).unwrap() {
        let file = std::fs::File::options()
            .write(true)
            .open(entry.unwrap().path())
            .unwrap();
        file.set_modified(when).unwrap();
    }
}

/// The store's figures a `candor call` prints with `CANDOR_STORE_STATS`.
#[derive(Debug, Default)]
struct Stats {
    parses: u64,
    made: u64,
    read: u64,
    written: u64,
    bad: u64,
}

fn stats_of(stderr: &str) -> Stats {
    let line = stderr
        .lines()
        .find(|l| l.starts_with("candor call: store:"))
        .unwrap_or_else(|| panic!("no store line in: {stderr}"));
    let number = |what: &str| -> u64 {
        let at = line
            .find(what)
            .unwrap_or_else(|| panic!("{what} in {line}"));
        let before = line[..at].trim_end();
        before.rsplit([' ', ',']).next().unwrap().parse().unwrap()
    };
    Stats {
        parses: number(" parses"),
        made: number(" facts made"),
        read: number(" read from disk"),
        written: number(" written"),
        bad: number(" bad"),
    }
}

fn command(root: &Path, tool: &str, args: &str, disk_facts: bool) -> Command {
    let mut command = Command::new(common::candor_bin());
    command
        .args(["call", tool, args, "--root", root.to_str().unwrap()])
        .env("CANDOR_BACKEND", "tree-sitter")
        .env("CANDOR_STORE_STATS", "1")
        .env("XDG_CONFIG_HOME", root.join(".candor/no-user-config"))
        .env("CANDOR_DISK_FACTS", if disk_facts { "1" } else { "0" });
    command
}

/// One `candor call`: the envelope's bytes and the store's figures.
fn call(root: &Path, tool: &str, args: &str, disk_facts: bool) -> (Vec<u8>, Stats) {
    let out = command(root, tool, args, disk_facts).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.stdout.starts_with(b"{"),
        "{}\n{stderr}",
        String::from_utf8_lossy(&out.stdout)
    );
    (out.stdout, stats_of(&stderr))
}

const RENAME: (&str, &str) = (
    "refactor_rename_symbol",
    r#"{"file_path":"pkg/a.py","symbol_name":"helper","new_name":"aide","dry_run":true}"#,
);
const SIGNATURE: (&str, &str) = (
    "refactor_change_signature",
    r#"{"file_path":"pkg/a.py","function_name":"helper","new_parameters":[{"name":"a"},{"name":"b","default":"0"}],"dry_run":true}"#,
);

fn index(root: &Path) {
    let out = common::candor(root, &["index", "--root", root.to_str().unwrap()]);
    assert!(out.status.success(), "{out:?}");
}

fn facts_dir(root: &Path) -> std::path::PathBuf {
    root.join(".candor/index/facts")
}

/// The packs in the facts directory, oldest first (their names start with the time).
fn packs(root: &Path) -> Vec<std::path::PathBuf> {
    let mut packs: Vec<_> = std::fs::read_dir(facts_dir(root))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".pack"))
        .collect();
    packs.sort();
    packs
}

/// A pack's key table: (offset, length) of each entry, from its header (magic, entry format,
/// count) and its rows (digest of 20 bytes, offset, length).
fn rows(pack: &[u8]) -> Vec<(usize, usize)> {
    assert_eq!(&pack[..8], b"cndrpack");
    let count = u32::from_le_bytes(pack[12..16].try_into().unwrap()) as usize;
    (0..count)
        .map(|i| {
            let row = &pack[16 + 32 * i..16 + 32 * (i + 1)];
            let offset = u64::from_le_bytes(row[20..28].try_into().unwrap()) as usize;
            let len = u32::from_le_bytes(row[28..32].try_into().unwrap()) as usize;
            (offset, len)
        })
        .collect()
}

#[test]
fn a_second_process_parses_no_unchanged_candidate_and_answers_alike() {
    let dir = project();
    let root = dir.path();
    index(root);
    let (without, _) = call(root, RENAME.0, RENAME.1, false);
    let (first, made) = call(root, RENAME.0, RENAME.1, true);
    assert!(made.written > 0, "{made:?}");
    // One pack for the request, nothing else in the directory.
    assert_eq!(packs(root).len(), 1);
    assert_eq!(std::fs::read_dir(facts_dir(root)).unwrap().count(), 1);
    let (second, kept) = call(root, RENAME.0, RENAME.1, true);
    // A process that computed nothing new writes no pack.
    assert_eq!(packs(root).len(), 1);
    assert_eq!(
        first, without,
        "the envelope changed with the facts on disk"
    );
    assert_eq!(
        second, without,
        "the envelope changed with facts read from disk"
    );
    // The second process judged nothing: every fact came from the disk. It parsed the
    // definition's file and the two files the rename rewrites, none of the decoys.
    assert_eq!(kept.made, 0, "{kept:?}");
    assert!(kept.read >= made.written, "{made:?} then {kept:?}");
    assert!(kept.parses <= 3, "{kept:?}");
    assert!(
        made.parses >= kept.parses + DECOYS as u64,
        "{made:?} then {kept:?}"
    );
    assert_eq!((made.bad, kept.bad), (0, 0));
    // Another refactor of the same function reads the same verdicts.
    let (signature_without, _) = call(root, SIGNATURE.0, SIGNATURE.1, false);
    let (signature, asked) = call(root, SIGNATURE.0, SIGNATURE.1, true);
    assert_eq!(signature, signature_without);
    assert!(asked.read > 0, "{asked:?}");
    let status = common::candor(
        root,
        &["index", "--status", "--root", root.to_str().unwrap()],
    );
    let status = String::from_utf8_lossy(&status.stdout).to_string();
    assert!(
        status.contains("facts (.candor/index/facts/): "),
        "{status}"
    );
    assert!(!status.contains(" 0 entries"), "{status}");
    assert!(status.contains(" packs, "), "{status}");
    // `--rebuild` clears them.
    index_rebuild(root);
    assert!(!facts_dir(root).exists());
}

fn index_rebuild(root: &Path) {
    let out = common::candor(
        root,
        &["index", "--rebuild", "--root", root.to_str().unwrap()],
    );
    assert!(out.status.success(), "{out:?}");
}

#[test]
fn an_edited_file_is_judged_again() {
    let dir = project();
    let root = dir.path();
    index(root);
    call(root, RENAME.0, RENAME.1, true);
    // A decoy now calls our function: same path, new content.
    std::fs::write(
        root.join("pkg/decoy1.py"),
        "from pkg.a import helper\n\ny = helper(1)\n",
    )
    .unwrap();
    age(root);
    let (without, _) = call(root, RENAME.0, RENAME.1, false);
    let (with, stats) = call(root, RENAME.0, RENAME.1, true);
    assert_eq!(with, without);
    assert!(
        stats.made > 0,
        "the edited file was not judged again: {stats:?}"
    );
    let envelope: serde_json::Value = serde_json::from_slice(&with).unwrap();
    assert!(envelope.to_string().contains("decoy1.py"), "{envelope}");
}

#[test]
fn a_corrupt_or_cut_entry_is_ignored_and_the_answer_is_right() {
    let dir = project();
    let root = dir.path();
    index(root);
    let (without, _) = call(root, RENAME.0, RENAME.1, false);
    call(root, RENAME.0, RENAME.1, true);
    let path = packs(root).remove(0);
    let mut bytes = std::fs::read(&path).unwrap();
    let rows = rows(&bytes);
    assert!(rows.len() > 2);
    for (i, &(offset, len)) in rows.iter().enumerate() {
        match i % 2 {
            // A flipped bit in the payload.
            0 => bytes[offset + len - 1] ^= 0x20,
            // Another entry's bytes under this key's digest.
            _ => {
                let (other, other_len) = rows[(i + 1) % rows.len()];
                let row = 16 + 32 * i;
                bytes[row + 20..row + 28].copy_from_slice(&(other as u64).to_le_bytes());
                bytes[row + 28..row + 32].copy_from_slice(&(other_len as u32).to_le_bytes());
            }
        }
    }
    // And cut (a write that stopped half-way) inside the last entry.
    bytes.pop();
    std::fs::write(&path, bytes).unwrap();
    let (with, stats) = call(root, RENAME.0, RENAME.1, true);
    assert_eq!(with, without);
    assert!(stats.bad >= rows.len() as u64 - 1, "{stats:?}");
    // The bad entries were written again, whole, in a newer pack.
    assert_eq!(packs(root).len(), 2);
    let (again, fixed) = call(root, RENAME.0, RENAME.1, true);
    assert_eq!(again, without);
    assert_eq!((fixed.bad, fixed.made), (0, 0), "{fixed:?}");
}

#[test]
fn entries_of_the_old_one_file_per_fact_layout_are_not_read_and_are_removed() {
    let dir = project();
    let root = dir.path();
    index(root);
    let (without, _) = call(root, RENAME.0, RENAME.1, false);
    std::fs::create_dir_all(facts_dir(root)).unwrap();
    let mut old = b"cndrfact".to_vec();
    old.extend_from_slice(&1u32.to_le_bytes());
    old.extend_from_slice(&[7u8; 200]);
    let old_name = facts_dir(root).join("0123456789abcdef0123456789abcdef01234567");
    std::fs::write(&old_name, &old).unwrap();
    let (with, stats) = call(root, RENAME.0, RENAME.1, true);
    assert_eq!(with, without);
    assert_eq!(stats.bad, 0, "{stats:?}");
    assert!(stats.written > 0, "{stats:?}");
    assert!(!old_name.exists());
    assert_eq!(std::fs::read_dir(facts_dir(root)).unwrap().count(), 1);
}

#[test]
fn two_processes_writing_at_once_lose_nothing() {
    let dir = project();
    let root = dir.path();
    index(root);
    let (without, _) = call(root, SIGNATURE.0, SIGNATURE.1, false);
    for _ in 0..3 {
        let _ = std::fs::remove_dir_all(facts_dir(root));
        let children: Vec<_> = (0..2)
            .map(|_| {
                command(root, SIGNATURE.0, SIGNATURE.1, true)
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for child in children {
            let out = child.wait_with_output().unwrap();
            assert_eq!(out.stdout, without);
        }
        // Whatever order they wrote in, every entry is whole and a third process finds them.
        let (after, stats) = call(root, RENAME.0, RENAME.1, true);
        assert_eq!(stats.bad, 0, "{stats:?}");
        assert_eq!(stats.made, 0, "{stats:?}");
        let (rename_without, _) = call(root, RENAME.0, RENAME.1, false);
        assert_eq!(after, rename_without);
        let temps = std::fs::read_dir(facts_dir(root))
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .to_string_lossy()
                    .ends_with(".tmp")
            })
            .count();
        assert_eq!(temps, 0);
        // Each wrote its own pack (or found the other's first and wrote none).
        assert!((1..=2).contains(&packs(root).len()), "{:?}", packs(root));
    }
}

#[test]
fn without_an_index_nothing_is_kept_on_disk() {
    let dir = project();
    let root = dir.path();
    let (_, stats) = call(root, RENAME.0, RENAME.1, true);
    assert_eq!(stats.written, 0);
    assert!(!root.join(".candor/index").exists());
}

#[test]
fn another_build_of_candor_does_not_read_the_facts_this_one_wrote() {
    let dir = project();
    let root = dir.path();
    index(root);
    let (without, _) = call(root, RENAME.0, RENAME.1, false);
    call(root, RENAME.0, RENAME.1, true);
    // The same program, another executable (another mtime): another build as far as the facts
    // can tell, whose engine may answer otherwise.
    let other = root.join(".candor/other-candor");
    std::fs::copy(common::candor_bin(), &other).unwrap();
    let run = || {
        Command::new(&other)
            .args(["call", RENAME.0, RENAME.1, "--root", root.to_str().unwrap()])
            .env("CANDOR_BACKEND", "tree-sitter")
            .env("CANDOR_STORE_STATS", "1")
            .env("XDG_CONFIG_HOME", root.join(".candor/no-user-config"))
            .output()
    };
    // A test running beside this one may fork while the copy's write handle is open: the child
    // holds it until it execs, and running the copy meanwhile fails with "text file busy".
    let mut out = run();
    for _ in 0..100 {
        match &out {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                out = run();
            }
            _ => break,
        }
    }
    let out = out.unwrap();
    let stats = stats_of(&String::from_utf8_lossy(&out.stderr));
    assert_eq!(out.stdout, without);
    assert_eq!(stats.read, 0, "{stats:?}");
    assert!(stats.made > 0, "{stats:?}");
}
