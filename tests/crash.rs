//! Crashes: the writing process is killed with SIGKILL at random moments of a multi-file write,
//! many times. Afterwards every file holds exactly its old or its new content (never a mix within
//! a file, never a truncation), and the real `candor undo` brings back a consistent state: the old
//! one after an interrupted or completed apply.
//!
//! The writer is slowed with the test hook `CANDOR_TEST_PAUSE_BETWEEN_FILES_MS` (a sleep before
//! each step: each journal image, publishing the journal, each file, the commit) so kills land
//! mid-transaction; a third of the trials run without it, so kills also land inside real writes.
//!
//! - `killing_an_apply_never_leaves_a_torn_file`: the library writer in a child process (this test
//!   binary run again), on 5 edited files and 1 created in a new folder.
//! - `killing_candor_undo_never_leaves_a_torn_file`: the real binary, undoing such an apply.
//! - `killing_candor_call_never_leaves_a_torn_file`: the real binary applying a change of
//!   signature across three files.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use candor::edit::FileChange;
use candor::honesty::Tool;
use candor::workspace::Root;
use candor::workspace::write;
use common::{Rng, candor, snapshot};
use serde_json::json;

const FILES: usize = 5;
const CREATED: &str = "pkg/new/made.py";

/// A project of five ~24 KiB Python files.
fn setup(dir: &Path) {
    for n in 0..FILES {
        let mut text = format!("# module {n}\n");
        for line in 0..750 {
            text.push_str(&format!("value_{line} = compute({line}, {n})  # value\n"));
        }
        std::fs::write(dir.join(format!("f{n}.py")), text).unwrap();
    }
}

/// The plan: every `compute(` becomes `evaluate(` (the files change size), plus a created file.
fn plan(dir: &Path) -> Vec<FileChange> {
    let mut changes: Vec<FileChange> = (0..FILES)
        .map(|n| {
            let path = format!("f{n}.py");
            let source = common::source(dir, &path);
            let edits = source
                .text
                .match_indices("compute(")
                .map(|(at, m)| candor::edit::TextEdit::new(at..at + m.len(), "evaluate("))
                .collect();
            FileChange::modify(&source, edits).unwrap()
        })
        .collect();
    changes.push(FileChange::create(
        CREATED,
        "def made():\n    return 1\n".repeat(400),
    ));
    changes
}

/// Entry point of the writing process (this binary run again with `--ignored --exact`); does
/// nothing unless the parent test set `CRASH_CHILD_ROOT`.
#[test]
#[ignore = "helper process of killing_an_apply_never_leaves_a_torn_file"]
fn apply_child() {
    let Ok(dir) = std::env::var("CRASH_CHILD_ROOT") else {
        return;
    };
    let root = Root::new(&dir).unwrap();
    write::apply(
        &root,
        &plan(Path::new(&dir)),
        &BTreeMap::new(),
        Tool::MoveToFile,
    )
    .unwrap();
}

/// Checks that every file of `paths` holds exactly its `old` or its `new` bytes (absent counts as
/// content for created files); returns how many hold the new.
fn each_file_old_or_new(
    dir: &Path,
    old: &BTreeMap<String, Vec<u8>>,
    new: &BTreeMap<String, Vec<u8>>,
    context: &str,
) -> usize {
    let now = snapshot(dir);
    let mut newer = 0;
    let keys: std::collections::BTreeSet<&String> =
        old.keys().chain(new.keys()).chain(now.keys()).collect();
    for key in keys {
        let (o, n, c) = (old.get(key), new.get(key), now.get(key));
        let name = key.rsplit('/').next().unwrap_or(key);
        if key.ends_with('/') || (name.starts_with(".candor-") && name.ends_with(".tmp")) {
            continue; // folders and the writer's temp files: checked after recovery
        }
        if o == n {
            assert_eq!(
                c, o,
                "{context}: {key} is not part of the write and changed"
            );
        } else if c == n {
            newer += 1;
        } else {
            assert_eq!(
                c,
                o,
                "{context}: {key} holds neither its old nor its new content ({} bytes)",
                c.map_or(0, Vec::len)
            );
        }
    }
    newer
}

fn kill_after(mut child: Child, delay: Duration) -> bool {
    std::thread::sleep(delay);
    let finished = matches!(child.try_wait(), Ok(Some(status)) if status.success());
    let _ = child.kill();
    let status = child.wait().unwrap();
    finished || status.success()
}

/// `candor undo` repeatedly until there is nothing left to undo; returns how many succeeded.
fn undo_all(dir: &Path, context: &str) -> usize {
    let mut done = 0;
    loop {
        let out = candor(dir, &["undo", "--root", dir.to_str().unwrap()]);
        match out.status.code() {
            Some(0) => done += 1,
            Some(3) => return done,
            other => panic!(
                "{context}: candor undo exited {other:?}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        }
        assert!(done < 5, "{context}: undo does not converge");
    }
}

#[derive(Debug, Default)]
struct Tally {
    before_any_file: usize,
    mid_transaction: usize,
    all_files_written: usize,
    finished: usize,
}

impl Tally {
    fn record(&mut self, finished: bool, newer: usize, total: usize) {
        match (finished, newer) {
            (true, _) => self.finished += 1,
            (false, 0) => self.before_any_file += 1,
            (false, n) if n == total => self.all_files_written += 1,
            _ => self.mid_transaction += 1,
        }
    }
}

/// Pauses the writer is run with (a third of the runs have none, so kills land inside real
/// writes too).
const PAUSES_MS: [u64; 3] = [0, 5, 10];

/// How long a full, unkilled run takes with each pause: kill delays are spread over that time.
struct Timing {
    full_run: [Duration; 3],
    /// How many paused steps a write has (each journal image, publishing, each file, commit).
    steps: u64,
}

impl Timing {
    fn calibrate(steps: u64, mut run: impl FnMut(u64) -> Duration) -> Timing {
        // The median of three runs: the machine may be busy with other work.
        let full_run = PAUSES_MS.map(|pause| {
            let mut runs = [run(pause), run(pause), run(pause)];
            runs.sort();
            runs[1]
        });
        eprintln!("calibration: a full run takes {full_run:?} with pauses {PAUSES_MS:?} ms");
        Timing { full_run, steps }
    }

    /// (pause, kill delay) for one trial: with a pause, most delays fall in the write window
    /// (the last `steps × pause` of a full run); the rest, and all runs without a pause, are
    /// uniform over 110% of a full run.
    fn pick(&self, rng: &mut Rng) -> (u64, Duration) {
        let i = rng.below(PAUSES_MS.len());
        let full = self.full_run[i].as_micros() as usize;
        let window = (self.steps * PAUSES_MS[i] * 1000) as usize;
        let delay = if window > 0 && rng.chance(70) {
            full.saturating_sub(window) + rng.below(window.min(full).max(1))
        } else {
            rng.below((full * 11 / 10).max(1))
        };
        (PAUSES_MS[i], Duration::from_micros(delay as u64))
    }
}

fn timed(mut child: Child) -> Duration {
    let start = Instant::now();
    assert!(child.wait().unwrap().success());
    start.elapsed()
}

#[test]
fn killing_an_apply_never_leaves_a_torn_file() {
    let trials = common::count("CANDOR_CRASH_TRIALS", 100);
    let seed = common::seed(0xC4A5_0001);
    let mut rng = Rng(seed);
    let exe = std::env::current_exe().unwrap();
    let started = Instant::now();
    let spawn = |dir: &Path, pause: u64| {
        Command::new(&exe)
            .args(["apply_child", "--exact", "--ignored", "--test-threads", "1"])
            .env("CRASH_CHILD_ROOT", dir)
            .env("CANDOR_TEST_PAUSE_BETWEEN_FILES_MS", pause.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let timing = Timing::calibrate(2 * FILES as u64 + 3, |pause| {
        let dir = tempfile::tempdir().unwrap();
        setup(dir.path());
        timed(spawn(dir.path(), pause))
    });
    let mut tally = Tally::default();
    for trial in 0..trials {
        let dir = tempfile::tempdir().unwrap();
        setup(dir.path());
        let old = snapshot(dir.path());
        let mut new = old.clone();
        for change in plan(dir.path()) {
            new.insert(change.path.clone(), change.after_bytes());
        }
        let (pause, delay) = timing.pick(&mut rng);
        let child = spawn(dir.path(), pause);
        let finished = kill_after(child, delay);
        let context = format!("trial {trial} (seed {seed}, pause {pause} ms, kill at {delay:?})");
        let newer = each_file_old_or_new(dir.path(), &old, &new, &context);
        tally.record(finished, newer, FILES + 1);
        if finished {
            assert_eq!(
                newer,
                FILES + 1,
                "{context}: a finished apply wrote everything"
            );
        }
        let undone = undo_all(dir.path(), &context);
        assert_eq!(
            snapshot(dir.path()),
            old,
            "{context}: after `candor undo` ({undone} run) the old state is back"
        );
        let list = candor(
            dir.path(),
            &["undo", "--list", "--root", dir.path().to_str().unwrap()],
        );
        assert!(list.status.success(), "{context}");
        assert_no_leftovers(dir.path(), &context);
    }
    eprintln!(
        "crash/apply: {trials} trials in {:.1?} (seed {seed}): {tally:?}, 0 torn files",
        started.elapsed()
    );
    assert!(
        tally.mid_transaction > 0,
        "no kill landed mid-transaction: {tally:?}"
    );
}

fn assert_no_leftovers(dir: &Path, context: &str) {
    let journal = dir.join(".candor/journal");
    if let Ok(read) = std::fs::read_dir(&journal) {
        for entry in read.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            assert!(!name.starts_with('.'), "{context}: journal leftover {name}");
            assert!(
                entry.path().join("status.json").exists(),
                "{context}: {name} is still pending after recovery"
            );
        }
    }
}

#[test]
fn killing_candor_undo_never_leaves_a_torn_file() {
    let trials = common::count("CANDOR_CRASH_UNDO_TRIALS", 50);
    let seed = common::seed(0xC4A5_0002);
    let mut rng = Rng(seed);
    let started = Instant::now();
    let applied_project = || {
        let dir = tempfile::tempdir().unwrap();
        setup(dir.path());
        let original = snapshot(dir.path());
        let root = Root::new(dir.path()).unwrap();
        write::apply(&root, &plan(dir.path()), &BTreeMap::new(), Tool::MoveToFile).unwrap();
        (dir, original)
    };
    let spawn = |dir: &Path, pause: u64| {
        Command::new(common::candor_bin())
            .args(["undo", "--root", dir.to_str().unwrap()])
            .env("CANDOR_TEST_PAUSE_BETWEEN_FILES_MS", pause.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let timing = Timing::calibrate(2 * FILES as u64 + 3, |pause| {
        let (dir, _) = applied_project();
        timed(spawn(dir.path(), pause))
    });
    let mut tally = Tally::default();
    for trial in 0..trials {
        let (dir, original) = applied_project();
        let applied = snapshot(dir.path());
        let (pause, delay) = timing.pick(&mut rng);
        let child = spawn(dir.path(), pause);
        let finished = kill_after(child, delay);
        let context = format!("trial {trial} (seed {seed}, pause {pause} ms, kill at {delay:?})");
        // For the undo, "old" is the applied state and "new" the original.
        let newer = each_file_old_or_new(dir.path(), &applied, &original, &context);
        tally.record(finished, newer, FILES + 1);
        // The next `candor undo` either rolls the interrupted undo back (the applied state,
        // whole) or finds the undo committed; undoing on to the end gives the original.
        let first = candor(
            dir.path(),
            &["undo", "--root", dir.path().to_str().unwrap()],
        );
        let state = snapshot(dir.path());
        assert!(
            state == applied || state == original,
            "{context}: after recovery the project is neither wholly applied nor wholly undone (exit {:?}: {}{})",
            first.status.code(),
            String::from_utf8_lossy(&first.stdout),
            String::from_utf8_lossy(&first.stderr)
        );
        undo_all(dir.path(), &context);
        assert_eq!(snapshot(dir.path()), original, "{context}");
        assert_no_leftovers(dir.path(), &context);
    }
    eprintln!(
        "crash/undo: {trials} trials in {:.1?} (seed {seed}): {tally:?}, 0 torn files",
        started.elapsed()
    );
    assert!(
        tally.mid_transaction > 0,
        "no kill landed mid-transaction: {tally:?}"
    );
}

const LIB: &str = "def area(w, h):\n    return w * h\n";
const CALLER_A: &str = "from lib import area\n\nprint(area(2, 3))\nprint(area(4, 5))\n";
const CALLER_B: &str = "import lib\n\ntotal = lib.area(1, 1) + lib.area(7, 8)\n";

#[test]
fn killing_candor_call_never_leaves_a_torn_file() {
    let trials = common::count("CANDOR_CRASH_CALL_TRIALS", 60);
    let seed = common::seed(0xC4A5_0003);
    let mut rng = Rng(seed);
    let args = json!({
        "file_path": "lib.py",
        "function_name": "area",
        "new_parameters": [{"name": "w"}, {"name": "h"}, {"name": "d"}],
        "dry_run": false,
        "verify": false,
    });
    let files: [(&str, &[u8]); 3] = [
        ("lib.py", LIB.as_bytes()),
        ("a.py", CALLER_A.as_bytes()),
        ("b.py", CALLER_B.as_bytes()),
    ];
    // What a complete run writes.
    let reference = common::project(&files);
    let (envelope, code) = common::call(reference.path(), "refactor_change_signature", &args);
    assert_eq!(code, 0, "{envelope:#}");
    assert_eq!(
        envelope["data"]["changes"].as_array().unwrap().len(),
        3,
        "a write of the definition and both callers: {envelope:#}"
    );
    let new = snapshot(reference.path());
    let written = envelope["data"]["changes"].as_array().unwrap().len();
    let spawn = |dir: &Path, pause: u64| {
        Command::new(common::candor_bin())
            .args([
                "call",
                "refactor_change_signature",
                &args.to_string(),
                "--root",
                dir.to_str().unwrap(),
            ])
            .env("CANDOR_BACKEND", "tree-sitter")
            .env("XDG_CONFIG_HOME", dir.join(".no-user-config"))
            .env("CANDOR_TEST_PAUSE_BETWEEN_FILES_MS", pause.to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap()
    };
    let timing = Timing::calibrate(2 * written as u64 + 3, |pause| {
        let dir = common::project(&files);
        timed(spawn(dir.path(), pause))
    });
    let started = Instant::now();
    let mut tally = Tally::default();
    for trial in 0..trials {
        let dir = common::project(&files);
        let old = snapshot(dir.path());
        let (pause, delay) = timing.pick(&mut rng);
        let child = spawn(dir.path(), pause);
        let finished = kill_after(child, delay);
        let context = format!("trial {trial} (seed {seed}, pause {pause} ms, kill at {delay:?})");
        let newer = each_file_old_or_new(dir.path(), &old, &new, &context);
        tally.record(finished, newer, written);
        undo_all(dir.path(), &context);
        assert_eq!(snapshot(dir.path()), old, "{context}");
        assert_no_leftovers(dir.path(), &context);
    }
    eprintln!(
        "crash/call: {trials} trials in {:.1?} (seed {seed}): {tally:?}, 0 torn files",
        started.elapsed()
    );
    assert!(
        tally.mid_transaction > 0,
        "no kill landed mid-transaction: {tally:?}"
    );
}
