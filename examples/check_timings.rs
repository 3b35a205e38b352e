//! Times the check of issue 23's four refactors of more-itertools 10.5.0 through the real
//! `candor call` (the newcomer's: pylsp's extract in `recipes.py`, inline `take`, rope's move of
//! `powerset`, rope's change of signature of `take`), each checked twice — cold, then again on
//! the same base — with a cache and config of its own, and prints the figures with the machine's
//! load. Needs the language servers and checkers on PATH (`.venv/bin`).
//!
//! ```text
//! cargo build --release
//! cargo run --release --example check_timings -- target/release/candor /work/real/more-itertools-10.5.0 [TYPE_CHECKER]
//! ```
//!
//! `ONLY=signature` (a part of a label) times only that refactor, on a cache of its own: its cold
//! figure then owes nothing to the refactors before it.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

use serde_json::{Value, json};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for entry in std::fs::read_dir(from).expect("read the project").flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).expect("copy a file");
        }
    }
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (candor, project) = match args.as_slice() {
        [candor, project, ..] => (candor.clone(), project.clone()),
        _ => {
            eprintln!("usage: check_timings CANDOR_BINARY MORE_ITERTOOLS_DIR [TYPE_CHECKER]");
            std::process::exit(2);
        }
    };
    let work = tempfile::tempdir().expect("temp dir");
    let root = work.path().join("mi");
    copy_dir(Path::new(&project), &root);
    let config = work.path().join("config");
    if let Some(checker) = args.get(2) {
        std::fs::create_dir_all(config.join("candor")).expect("config folder");
        std::fs::write(
            config.join("candor/config.toml"),
            format!("[verify]\ntype_checker = \"{checker}\"\n"),
        )
        .expect("config file");
    }
    let calls = [
        (
            "extract in recipes.py (pylsp)",
            "refactor_extract_function",
            json!({"file_path": "more_itertools/recipes.py", "start_line": 144, "end_line": 147, "new_name": "tail_helper"}),
        ),
        (
            "inline take",
            "refactor_inline_function",
            json!({"file_path": "more_itertools/recipes.py", "function_name": "take"}),
        ),
        (
            "move powerset (rope)",
            "refactor_move_to_file",
            json!({"file_path": "more_itertools/recipes.py", "symbol_name": "powerset", "target_file": "more_itertools/sets.py"}),
        ),
        (
            "change signature of take (rope)",
            "refactor_change_signature",
            json!({"file_path": "more_itertools/recipes.py", "function_name": "take", "new_parameters": [{"name": "iterable"}, {"name": "n"}]}),
        ),
    ];
    let only = std::env::var("ONLY").unwrap_or_default();
    for (label, tool, mut arguments) in calls {
        if !label.contains(only.as_str()) {
            continue;
        }
        arguments["verify"] = json!(true);
        for run in ["cold", "again"] {
            let started = Instant::now();
            let output = Command::new(&candor)
                .args(["call", tool, &arguments.to_string(), "--root"])
                .arg(&root)
                .env("XDG_CACHE_HOME", work.path().join("cache"))
                .env("XDG_CONFIG_HOME", &config)
                .output()
                .expect("run candor");
            let total = started.elapsed().as_secs_f64();
            let envelope: Value = serde_json::from_slice(&output.stdout).unwrap_or(Value::Null);
            let v = &envelope["data"]["verification"];
            let steps: Vec<String> = v["steps"]
                .as_array()
                .map(|steps| {
                    steps
                        .iter()
                        .map(|s| {
                            format!(
                                "{} {} ms",
                                s["name"].as_str().unwrap_or("?"),
                                s["duration_ms"]
                            )
                        })
                        .collect()
                })
                .unwrap_or_default();
            println!(
                "{label} [{run}]: call {total:.1} s, check {:.1} s, {} ({}), backend {}; load {}",
                v["duration_ms"].as_u64().unwrap_or(0) as f64 / 1000.0,
                v["state"].as_str().unwrap_or("?"),
                v["checker"].as_str().unwrap_or("-"),
                envelope["backend_used"].as_str().unwrap_or("?"),
                load()
            );
            println!("    {}", steps.join(", "));
        }
    }
}
