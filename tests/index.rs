//! The persistent index (issue 22, item 2): the same answers as the walk, byte for byte, on
//! randomly edited trees, on the demo and through the real binary; a broken index falls back to
//! the walk; two processes building it at once leave a valid index.

mod common;

use std::path::Path;

use candor::config::Config;
use candor::lang::Language;
use candor::refactor::Sources;
use candor::workspace::{DiskSources, Limits, Root, index, walk};
use common::Rng;
use proptest::prelude::*;

const WORDS: &[&str] = &[
    "helper", "help", "helpers", "_helper", "dédent", "dedent", "x1", "Item", "len",
];

fn sources(root: &Path) -> DiskSources {
    DiskSources::new(
        Root::new(root).unwrap(),
        Limits {
            max_file_bytes: 400,
        },
    )
}

/// A line of Python or Rust made of random words in code, strings and comments.
fn line(rng: &mut Rng, lang: Language) -> String {
    let word = |rng: &mut Rng| *rng.pick(WORDS);
    let comment = if lang == Language::Python { "#" } else { "//" };
    match rng.below(8) {
        0 => format!("{} = {}({})\n", word(rng), word(rng), word(rng)),
        5 => format!("{}.{}({})\n", word(rng), word(rng), word(rng)),
        6 => format!("print({}(1)); {}  (2)\n", word(rng), word(rng)),
        7 => format!("def {}(x): return [{}\n(x)]\n", word(rng), word(rng)),
        1 => format!("{comment} {} and {}x\n", word(rng), word(rng)),
        2 => format!("s = \"{} {}\"\n", word(rng), word(rng)),
        3 => format!("{}.{}{}\n", word(rng), word(rng), word(rng)),
        _ => format!("{}_{} é{}\n", word(rng), word(rng), word(rng)),
    }
}

fn write_random_file(rng: &mut Rng, root: &Path, path: &str) {
    let lang = Language::from_path(path).unwrap_or(Language::Python);
    let mut text: String = (0..rng.below(8)).map(|_| line(rng, lang)).collect();
    if rng.chance(5) {
        // Over the 400-byte limit.
        text.push_str(&"# helper\n".repeat(60));
    }
    let bytes = if rng.chance(5) {
        let mut b = text.into_bytes();
        b.extend_from_slice(b"\0\xff helper");
        b
    } else {
        text.into_bytes()
    };
    std::fs::create_dir_all(root.join(path).parent().unwrap()).unwrap();
    std::fs::write(root.join(path), bytes).unwrap();
    // Mostly written "long ago" (a stamp the index trusts, a new one at each write); sometimes
    // just now (a racy stamp: the file is read again).
    if !rng.chance(20) {
        backdate(&root.join(path));
    }
}

/// Sets the file's mtime to a distinct moment long past, so that its stamp is trusted and
/// differs from any earlier stamp of it.
fn backdate(path: &Path) {
    use std::sync::atomic::{AtomicU64, Ordering};
    static STEP: AtomicU64 = AtomicU64::new(0);
    let step = STEP.fetch_add(1, Ordering::Relaxed);
    let when = std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_600_000_000 + step);
    let file = std::fs::File::options().write(true).open(path).unwrap();
    file.set_modified(when).unwrap();
}

/// `candor calls word` over both languages as the binary prints it (`--json`, then the text
/// lines and the summary), from the index when there is a usable one, else from the walk.
fn calls_answer(root: &Path, word: &str, with_index: bool) -> String {
    use candor::workspace::search;
    let langs = [Language::Rust, Language::Python];
    let canonical = root.canonicalize().unwrap();
    let report = match sources(root).indexed_calls(&langs, word) {
        Some(answer) if with_index => {
            search::call_sites_indexed(&canonical, &answer, &langs, word, 400)
        }
        _ => search::call_sites(&canonical, &langs, word, 400),
    };
    let mut out = serde_json::to_string_pretty(&report).unwrap();
    for hit in &report.calls {
        out += &format!("\n{}:{}:{}", hit.path, hit.line, hit.column);
    }
    out + "\n" + &report.summary(word)
}

const PATHS: &[&str] = &[
    "a.py",
    "b.py",
    "pkg/c.py",
    "pkg/d.rs",
    "pkg/sub/e.py",
    "ignored/f.py",
    "g.rs",
    "h.txt",
];

/// What the walk answers, with the index moved out of the way.
fn walk_answers(root: &Path, word: &str) -> (String, String) {
    let candor = root.join(".candor");
    let had = candor.join("index").exists();
    if had {
        std::fs::rename(candor.join("index"), candor.join("index.off")).unwrap();
    }
    let answers = answers(root, word);
    if had {
        std::fs::rename(candor.join("index.off"), candor.join("index")).unwrap();
    }
    answers
}

fn answers(root: &Path, word: &str) -> (String, String) {
    let s = sources(root);
    let mut out = (String::new(), String::new());
    for lang in [Language::Python, Language::Rust] {
        out.0 += &format!("{:?}\n", s.word_sites(lang, word).unwrap());
        out.1 += &format!("{:?}\n", s.files_mentioning(lang, word).unwrap());
    }
    out
}

fn compare_on_random_edits(seed: u64) {
    let mut rng = Rng(seed);
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join(".gitignore"), "ignored/\n").unwrap();
    for path in PATHS {
        if rng.chance(70) {
            write_random_file(&mut rng, root, path);
        }
    }
    let mut built = index::Index::empty(400);
    index::refresh(&mut built, &Root::new(root).unwrap(), None);
    index::save(&Root::new(root).unwrap(), &built).unwrap();
    for round in 0..4 {
        for word in WORDS.iter().chain(&["elp", "a.b"]) {
            let with = answers(root, word);
            let without = walk_answers(root, word);
            assert_eq!(with, without, "seed {seed}, round {round}, word {word}");
            assert_eq!(
                calls_answer(root, word, true),
                calls_answer(root, word, false),
                "candor calls: seed {seed}, round {round}, word {word}"
            );
        }
        // Edit, remove, add; sometimes an edit that keeps the size.
        for _ in 0..rng.below(4) + 1 {
            let path = *rng.pick(PATHS);
            match rng.below(4) {
                0 => {
                    let _ = std::fs::remove_file(root.join(path));
                }
                1 if root.join(path).exists() => {
                    let text = std::fs::read(root.join(path)).unwrap();
                    let swapped: Vec<u8> = text
                        .iter()
                        .map(|b| if *b == b'h' { b'H' } else { *b })
                        .collect();
                    std::fs::write(root.join(path), swapped).unwrap();
                    backdate(&root.join(path));
                }
                2 if root.join(path).exists() => {
                    // The same bytes in another order (same size): the calls move.
                    let text = std::fs::read_to_string(root.join(path)).unwrap_or_default();
                    let mut lines: Vec<&str> = text.split_inclusive('\n').collect();
                    lines.reverse();
                    std::fs::write(root.join(path), lines.concat()).unwrap();
                    backdate(&root.join(path));
                }
                _ => write_random_file(&mut rng, root, path),
            }
        }
    }
    // The index lists exactly the files the walk would.
    let mut fresh = index::load(&Root::new(root).unwrap()).unwrap().unwrap();
    index::refresh(&mut fresh, &Root::new(root).unwrap(), None);
    let walked: Vec<String> = walk::source_files(
        &root.canonicalize().unwrap(),
        &[Language::Python, Language::Rust],
    )
    .iter()
    .map(|p| {
        p.strip_prefix(root.canonicalize().unwrap())
            .unwrap()
            .to_string_lossy()
            .into_owned()
    })
    .collect();
    assert_eq!(fresh.paths(), walked, "seed {seed}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    #[test]
    fn the_index_answers_as_the_walk_on_randomly_edited_trees(seed in any::<u64>()) {
        compare_on_random_edits(seed);
    }
}

#[test]
fn a_broken_index_leaves_the_answer_to_the_walk() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.py"), "helper(1)\n").unwrap();
    std::fs::write(root.join("b.py"), "x = 1\n").unwrap();
    let out = common::candor(root, &["index"]);
    assert!(out.status.success(), "{out:?}");
    let file = root.join(".candor/index/index.bin");
    let good = std::fs::read(&file).unwrap();
    let expected = walk_answers(root, "helper");
    for (what, bytes) in [
        ("truncated", good[..good.len() - 4].to_vec()),
        ("garbage", b"not an index".to_vec()),
    ] {
        std::fs::write(&file, &bytes).unwrap();
        assert_eq!(answers(root, "helper"), expected, "{what}");
        let status = common::candor(root, &["index", "--status"]);
        let stderr = String::from_utf8_lossy(&status.stderr);
        assert!(!status.status.success(), "{what}: {status:?}");
        assert!(stderr.contains("--rebuild"), "{what}: {stderr}");
    }
    // `candor index` makes it again.
    let out = common::candor(root, &["index"]);
    assert!(out.status.success(), "{out:?}");
    assert!(index::load(&Root::new(root).unwrap()).unwrap().is_some());
}

#[test]
fn an_index_another_candor_wrote_is_built_again_by_the_first_search() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.py"), "helper(1)\n").unwrap();
    std::fs::write(root.join("b.py"), "x = 1\n").unwrap();
    assert!(common::candor(root, &["index"]).status.success());
    let file = root.join(".candor/index/index.bin");
    let mut older = std::fs::read(&file).unwrap();
    older[8..12].copy_from_slice(&1u32.to_le_bytes());
    std::fs::write(&file, &older).unwrap();
    let status = common::candor(root, &["index", "--status"]);
    assert!(!status.status.success(), "{status:?}");
    assert!(String::from_utf8_lossy(&status.stderr).contains("format 1"));
    // A file added since: the rebuilt index must hold it.
    std::fs::write(root.join("c.py"), "helper(3)\n").unwrap();
    let calls = common::candor(root, &["calls", "helper", "--json"]);
    assert!(calls.status.success(), "{calls:?}");
    let note = String::from_utf8_lossy(&calls.stderr);
    assert!(
        note.contains("written by another candor (format 1") && note.contains("builds it again"),
        "{note}"
    );
    let calls = String::from_utf8_lossy(&calls.stdout);
    assert!(calls.contains("a.py") && calls.contains("c.py"), "{calls}");
    assert_ne!(
        std::fs::read(&file).unwrap(),
        older,
        "the index was not written again"
    );
    assert!(index::load(&Root::new(root).unwrap()).unwrap().is_some());
    assert!(
        common::candor(root, &["index", "--status"])
            .status
            .success()
    );
    assert_eq!(answers(root, "helper"), walk_answers(root, "helper"));
}

#[test]
fn the_index_is_never_written_through_a_link() {
    let outside = tempfile::tempdir().unwrap();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), "helper(1)\n").unwrap();
    std::fs::create_dir(dir.path().join(".candor")).unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join(".candor/index")).unwrap();
    let out = common::candor(dir.path(), &["index"]);
    assert!(!out.status.success(), "{out:?}");
    assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 0);
    // Searches still answer, from the walk.
    assert_eq!(
        answers(dir.path(), "helper").0,
        walk_answers(dir.path(), "helper").0
    );
}

#[test]
fn candor_calls_answers_the_same_with_the_index() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::write(root.join("a.py"), "def helper():\n    pass\n\nhelper()\n").unwrap();
    std::fs::write(root.join("b.py"), "# helper\nx = 'helper'\nhelpers()\n").unwrap();
    std::fs::write(root.join("c.rs"), "fn main() { helper(); s.helper(1); }\n").unwrap();
    std::fs::write(root.join("d.py"), "print(1)\n").unwrap();
    let before = common::candor(root, &["calls", "helper", "--json"]);
    assert!(common::candor(root, &["index"]).status.success());
    std::fs::write(root.join("e.py"), "helper(2)\n").unwrap();
    let without_e = common::candor(root, &["calls", "helper", "--json"]);
    std::fs::remove_file(root.join("e.py")).unwrap();
    let after = common::candor(root, &["calls", "helper", "--json"]);
    assert_eq!(
        String::from_utf8_lossy(&before.stdout),
        String::from_utf8_lossy(&after.stdout)
    );
    assert!(String::from_utf8_lossy(&without_e.stdout).contains("e.py"));
}

/// `candor calls` through the binary: stdout and stderr, text and `--json`.
fn calls_cli(root: &Path, word: &str) -> String {
    let mut out = String::new();
    for args in [vec!["calls", word], vec!["calls", word, "--json"]] {
        let run = common::candor(root, &args);
        assert!(run.status.success(), "{run:?}");
        out += &String::from_utf8_lossy(&run.stdout);
        out += &String::from_utf8_lossy(&run.stderr);
    }
    out
}

#[test]
fn a_warm_candor_calls_reads_only_what_changed_and_never_serves_a_stale_position() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let files: &[(&str, &str)] = &[
        (
            "a.py",
            "def helper():\n    pass\n\nhelper()\nx = obj.helper(1)\n",
        ),
        ("b.py", "# helper\nx = 'helper'\nhelpers()\n"),
        ("c.rs", "fn main() { let x = helper(); s.helper(1); }\n"),
        ("d.py", "print(helper(1))\n"),
    ];
    for (path, text) in files {
        std::fs::write(root.join(path), text).unwrap();
        backdate(&root.join(path));
    }
    let walked = calls_cli(root, "helper");
    assert!(
        walked.contains("a.py:4:1") && walked.contains("a.py:5:9"),
        "{walked}"
    );
    assert!(common::candor(root, &["index"]).status.success());
    // Answered from the index: the files whose calls it holds are not read; d.py (`print(`
    // leaves its call to the parser) is.
    let answer = sources(root)
        .indexed_calls(&[Language::Rust, Language::Python], "helper")
        .unwrap();
    let known: Vec<&str> = answer.known.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(known, ["a.py", "b.py", "c.rs"]);
    assert_eq!(answer.read, ["d.py"]);
    assert_eq!(calls_cli(root, "helper"), walked);
    // The same size, a new stamp, the calls elsewhere: the new positions, never the stored ones.
    std::fs::write(
        root.join("a.py"),
        "helper()\ndef helper():\n    pass\n\nx = obj.helper(1)\n",
    )
    .unwrap();
    backdate(&root.join("a.py"));
    let moved = calls_cli(root, "helper");
    assert!(
        moved.contains("a.py:1:1") && !moved.contains("a.py:4:1"),
        "{moved}"
    );
    std::fs::rename(root.join(".candor/index"), root.join("index.off")).unwrap();
    assert_eq!(moved, calls_cli(root, "helper"));
    std::fs::rename(root.join("index.off"), root.join(".candor/index")).unwrap();
    // Changed just now (a racy stamp): read, not served from the index.
    std::fs::write(root.join("c.rs"), "fn main() { s.helper(1); helper(); }\n").unwrap();
    let racy = sources(root)
        .indexed_calls(&[Language::Rust, Language::Python], "helper")
        .unwrap();
    assert!(racy.read.contains(&"c.rs".to_string()), "{racy:?}");
    assert!(calls_cli(root, "helper").contains("c.rs:1:26"));
}

#[test]
fn the_demo_gives_the_same_envelopes_with_and_without_the_index() {
    let demo = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/demo");
    let dir = tempfile::tempdir().unwrap();
    copy(&demo, dir.path());
    let calls = [
        (
            "refactor_change_signature",
            serde_json::json!({"file_path": "rust/src/lib.rs", "function_name": "shipping_cents", "new_parameters": [{"name": "weight_grams"}, {"name": "express"}]}),
        ),
        (
            "refactor_change_signature",
            serde_json::json!({"file_path": "python/shop/receipt.py", "function_name": "shipping_cents", "new_parameters": [{"name": "weight_grams"}, {"name": "express", "default": "False"}]}),
        ),
        (
            "refactor_rename_symbol",
            serde_json::json!({"file_path": "python/shop/money.py", "symbol_name": "format_cents", "new_name": "cents_text"}),
        ),
        (
            "refactor_rename_symbol",
            serde_json::json!({"file_path": "rust/src/lib.rs", "symbol_name": "order_total", "new_name": "total_of"}),
        ),
    ];
    let run = |root: &Path| -> Vec<String> {
        calls
            .iter()
            .map(|(tool, args)| {
                let mut args = args.clone();
                args["dry_run"] = serde_json::json!(true);
                let (envelope, code) = common::call(root, tool, &args);
                format!("{code} {envelope}")
            })
            .collect()
    };
    let without = run(dir.path());
    assert!(common::candor(dir.path(), &["index"]).status.success());
    assert!(dir.path().join(".candor/index/index.bin").exists());
    let with = run(dir.path());
    for (a, b) in without.iter().zip(&with) {
        assert_eq!(a, b);
    }
    let codes: Vec<&str> = without.iter().map(|e| &e[..e.len().min(300)]).collect();
    assert!(without.iter().all(|e| e.starts_with("0 ")), "{codes:#?}");
}

fn copy(from: &Path, to: &Path) {
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
            copy(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

#[test]
fn two_processes_building_and_reading_at_once_leave_a_valid_index() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for i in 0..300 {
        std::fs::write(
            root.join(format!("m{i}.py")),
            format!("def f{i}():\n    return helper({i})\n"),
        )
        .unwrap();
    }
    let spawn = |args: &[&str]| {
        std::process::Command::new(common::candor_bin())
            .args(args)
            .current_dir(root)
            .env("XDG_CONFIG_HOME", root.join(".candor/no-user-config"))
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let a = spawn(&["index", "--rebuild"]);
    let b = spawn(&["index", "--rebuild"]);
    let c = spawn(&["calls", "helper"]);
    for child in [a, b] {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{out:?}");
    }
    let calls = c.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&calls.stdout).lines().count(), 300);
    let loaded = index::load(&Root::new(root).unwrap()).unwrap().unwrap();
    assert_eq!(loaded.status().text_files, 300);
    let leftovers: Vec<_> = std::fs::read_dir(root.join(".candor/index"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(leftovers, vec![std::ffi::OsString::from("index.bin")]);
    let _ = Config::default();
}
