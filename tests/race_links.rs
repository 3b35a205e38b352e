//! The race: another process exchanges a project directory `dst` with a symbolic link to
//! a directory outside the project every ~50 µs (`renameat2(RENAME_EXCHANGE)` in a loop) while
//! `candor call` writes through `dst`: a `refactor_move_to_file` to `dst/new.py` (a created
//! file) and an extract function in `dst/x.py` (an overwrite, with a byte-identical copy of
//! `x.py` outside, so that a hash check alone would not notice the redirection). Not one write
//! may land outside the project, and no temp file may be left there; each write either happens
//! inside or is refused.
//!
//! 1,000 trials by default, 200 under `CI=true`; `CANDOR_RACE_LINK_TRIALS` overrides. Only a
//! few percent of the writes find `dst` real at every step, so the trials go on (up to 25 times
//! as many) until a few writes have gone through: a run where every write was refused would
//! prove nothing, and on a fast machine 200 trials could all be refused.
//! `CANDOR_TEST_BIN=<other build>` runs the binary of another build (the main branch's escapes).

mod common;

use std::io::Read;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rustix::fs::{CWD, Mode, OFlags, RenameFlags};
use serde_json::json;

const A_PY: &str = "import os\n\n\ndef moved_fn(x):\n    return os.path.join(x, \"y\")\n\n\ndef stays():\n    return 1\n";
const X_PY: &str = "def work(values):\n    total = 0\n    print(total)\n    return total\n";

/// The exchanging process: swaps `$CANDOR_EXCHANGE_ROOT/dst` and `…/lnk` until the file
/// `$CANDOR_EXCHANGE_STOP` exists, then prints how many exchanges it made.
#[test]
#[ignore = "run by a_directory_swapped_for_a_link_never_redirects_a_write"]
fn exchanger_child() {
    let Ok(root) = std::env::var("CANDOR_EXCHANGE_ROOT") else {
        return;
    };
    let stop = PathBuf::from(std::env::var("CANDOR_EXCHANGE_STOP").unwrap());
    let (a, b) = (Path::new(&root).join("dst"), Path::new(&root).join("lnk"));
    println!("ready");
    let mut exchanges = 0u64;
    let mut since_check = 0;
    loop {
        rustix::fs::renameat_with(CWD, &a, CWD, &b, RenameFlags::EXCHANGE).unwrap();
        exchanges += 1;
        std::thread::sleep(Duration::from_micros(50));
        since_check += 1;
        if since_check == 200 {
            since_check = 0;
            if stop.exists() {
                break;
            }
        }
    }
    println!("exchanges {exchanges}");
}

/// The real directory behind `dst` / `lnk`, whichever name it has right now (opened without
/// following a link: the one that opens is the real one).
fn real_dir(root: &Path) -> OwnedFd {
    loop {
        for name in ["dst", "lnk"] {
            if let Ok(fd) = rustix::fs::openat(
                CWD,
                root.join(name),
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW,
                Mode::empty(),
            ) {
                return fd;
            }
        }
    }
}

fn reset(root: &Path) {
    let dir = real_dir(root);
    let _ = rustix::fs::unlinkat(&dir, "new.py", rustix::fs::AtFlags::empty());
    let fd = rustix::fs::openat(
        &dir,
        "x.py",
        OFlags::WRONLY | OFlags::TRUNC | OFlags::CREATE | OFlags::NOFOLLOW,
        Mode::from_raw_mode(0o644),
    )
    .unwrap();
    rustix::io::write(&fd, X_PY.as_bytes()).unwrap();
    std::fs::write(root.join("src/a.py"), A_PY).unwrap();
}

/// What is in the outside directory besides the identical `x.py`, and whether `x.py` changed.
fn escapes(outside: &Path) -> (Vec<String>, bool) {
    let extra: Vec<String> = std::fs::read_dir(outside)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n != "x.py")
        .collect();
    let changed = std::fs::read_to_string(outside.join("x.py")).unwrap() != X_PY;
    (extra, changed)
}

fn candor_call(root: &Path, tool: &str, args: serde_json::Value) -> i32 {
    Command::new(common::candor_bin())
        .args(["call", tool, &args.to_string(), "--root"])
        .arg(root)
        .env("CANDOR_BACKEND", "tree-sitter")
        .env("XDG_CONFIG_HOME", root.join(".no-user-config"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .unwrap()
        .code()
        .unwrap_or(-1)
}

/// How many writes must have gone through (inside) before the trials may stop early.
const WRITES_WANTED: usize = 3;

#[test]
fn a_directory_swapped_for_a_link_never_redirects_a_write() {
    let default = if common::servers::in_ci() { 200 } else { 1000 };
    let trials = common::count("CANDOR_RACE_LINK_TRIALS", default);
    let base = tempfile::tempdir().unwrap();
    let root = base.path().join("project");
    let outside = base.path().join("outside");
    std::fs::create_dir_all(root.join("src")).unwrap();
    std::fs::create_dir_all(root.join("dst")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(root.join("dst/x.py"), X_PY).unwrap();
    std::fs::write(outside.join("x.py"), X_PY).unwrap();
    std::os::unix::fs::symlink(&outside, root.join("lnk")).unwrap();
    let root = root.canonicalize().unwrap();
    reset(&root);
    let requests = [
        (
            "refactor_move_to_file",
            json!({"file_path": "src/a.py", "symbol_name": "moved_fn", "target_file": "dst/new.py", "dry_run": false, "verify": false}),
        ),
        (
            "refactor_extract_function",
            json!({"file_path": "dst/x.py", "start_line": 2, "end_line": 3, "new_name": "extracted", "dry_run": false, "verify": false}),
        ),
    ];
    // Without the race, both write inside: the trials below measure the race, not a setup error.
    for (tool, args) in &requests {
        assert_eq!(
            candor_call(&root, tool, args.clone()),
            0,
            "{tool} without the race"
        );
    }
    assert!(root.join("dst/new.py").exists());
    assert_ne!(
        std::fs::read_to_string(root.join("dst/x.py")).unwrap(),
        X_PY
    );
    reset(&root);

    let stop = base.path().join("stop");
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            "exchanger_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("CANDOR_EXCHANGE_ROOT", &root)
        .env("CANDOR_EXCHANGE_STOP", &stop)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = child.stdout.take().unwrap();
    let mut first = [0u8; 1];
    out.read_exact(&mut first).unwrap();

    let started = Instant::now();
    let (mut written, mut refused, mut escaped, mut leaked) = (0, 0, 0, 0);
    let mut leftovers = Vec::new();
    let cap = trials * 25;
    let mut trial = 0;
    while trial < trials || (written < WRITES_WANTED && trial < cap) {
        trial += 1;
        let (tool, args) = &requests[trial % 2];
        match candor_call(&root, tool, args.clone()) {
            0 => written += 1,
            _ => refused += 1,
        }
        let (extra, changed) = escapes(&outside);
        if changed || extra.iter().any(|n| n == "new.py") {
            escaped += 1;
        }
        let temps: Vec<String> = extra.into_iter().filter(|n| n != "new.py").collect();
        if !temps.is_empty() {
            leaked += 1;
            leftovers.extend(temps);
        }
        // Put the outside back as it was, so each trial is judged on its own.
        let _ = std::fs::remove_file(outside.join("new.py"));
        std::fs::write(outside.join("x.py"), X_PY).unwrap();
        for name in &leftovers {
            let _ = std::fs::remove_file(outside.join(name));
        }
        reset(&root);
    }
    let trials = trial;
    std::fs::write(&stop, b"").unwrap();
    let mut tail = String::new();
    out.read_to_string(&mut tail).unwrap();
    child.wait().unwrap();
    let exchanges = tail
        .lines()
        .find_map(|l| l.strip_prefix("exchanges "))
        .unwrap_or("?")
        .to_string();
    eprintln!(
        "{trials} trials in {:.1?} against {exchanges} exchanges of dst and a link to the outside: {written} written inside, {refused} refused, {escaped} written outside, {leaked} left temp files outside {leftovers:?}",
        started.elapsed()
    );
    assert_eq!(escaped, 0, "writes landed outside the project");
    assert_eq!(leaked, 0, "temp files were left outside: {leftovers:?}");
    assert!(
        written > 0,
        "no write went through at all: the test proves nothing"
    );
}
