//! How long the check of a result takes, cold and then again: copies a crate (or Python package)
//! to a temp directory, plans a tree-sitter extract of the given lines, and runs the check twice
//! with a fresh cache of its own, then the check of another result (an extract of the first line
//! only) on the same project.
//!
//! ```text
//! cargo run --release --example verify_timing -- PROJECT_DIR FILE START_LINE END_LINE
//! cargo run --release --example verify_timing -- assets/demo/rust src/lib.rs 52 54
//! ```

use std::path::Path;
use std::time::Instant;

use candor::api::Engine;
use candor::backend::BackendChoice;
use candor::cancel::Cancel;
use candor::config::Config;
use candor::trust::Trust;
use candor::verify::{self, Level};
use candor::workspace::Root;
use serde_json::json;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for entry in std::fs::read_dir(from).expect("read the project").flatten() {
        let name = entry.file_name();
        if name == "target" || name == ".git" || name == "__pycache__" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).expect("copy a file");
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [project, file, start, end] = args.as_slice() else {
        eprintln!("usage: verify_timing PROJECT_DIR FILE START_LINE END_LINE");
        std::process::exit(2);
    };
    let copy = tempfile::tempdir().expect("temp dir");
    let cache = tempfile::tempdir().expect("temp dir");
    copy_dir(Path::new(project), copy.path());
    let root = Root::new(copy.path()).expect("open the copy");
    let engine = Engine::with_settings(
        root,
        Config::default(),
        Some(BackendChoice::TreeSitter),
        Trust::Trusted,
    );
    let request = |name: &str| json!({"file_path": file, "start_line": start.parse::<usize>().unwrap_or(1), "end_line": end.parse::<usize>().unwrap_or(1), "new_name": name});
    let call = engine
        .parse("refactor_extract_function", &request("extracted_part"))
        .expect("a valid request");
    let outcome = engine.preview(&call).expect("a plan");
    let mut job = engine.verification_job(&call, &outcome, Level::Check);
    job.settings.cache_dir = Some(cache.path().to_path_buf());
    let timed = |label: &str, job: &verify::Job| {
        let started = Instant::now();
        let verification = verify::run(job, &Cancel::never(), &|_| {});
        println!(
            "{label:<44} {:>8.2} s  {} (preexisting {})",
            started.elapsed().as_secs_f64(),
            verification.summary(),
            verification.preexisting
        );
    };
    println!("{project} {file} lines {start}-{end}");
    timed("first check (cold cache: dependencies too)", &job);
    timed("second check of the same result", &job);
    // Another result on the same project: a one-line extract.
    let call = engine
        .parse("refactor_extract_function", &json!({"file_path": file, "start_line": start.parse::<usize>().unwrap_or(1), "end_line": start.parse::<usize>().unwrap_or(1), "new_name": "other_part"}))
        .expect("a valid request");
    match engine.preview(&call) {
        Ok(next) => {
            let mut job = engine.verification_job(&call, &next, Level::Check);
            job.settings.cache_dir = Some(cache.path().to_path_buf());
            timed("another result (extract of the first line)", &job);
        }
        Err(e) => println!("(the one-line extract was refused: {e})"),
    }
}
