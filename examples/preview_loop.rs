//! Runs one cached preview of the benchmarks in a loop, for profiling:
//! `cargo run --release --example preview_loop -- rust|python TOOL [SECONDS]`
//! (TOOL: extract_function, inline_function, move_to_file, change_signature).

#[path = "../benches/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use candor::api::{Engine, envelope};
use candor::backend::BackendChoice;

fn main() {
    let lang = std::env::args().nth(1).expect("rust or python");
    let tool = std::env::args().nth(2).expect("a tool");
    let seconds: u64 = std::env::args()
        .nth(3)
        .and_then(|s| s.parse().ok())
        .unwrap_or(5);
    let project = if lang == "rust" {
        common::rust_project()
    } else {
        common::python_project()
    };
    let dir = tempfile::tempdir().unwrap();
    project.write(dir.path());
    let engine = Engine::open(dir.path(), Some(BackendChoice::TreeSitter)).unwrap();
    let (name, args) = project
        .requests()
        .into_iter()
        .find(|(n, _)| n.ends_with(&tool))
        .expect("a known tool");
    let tool = envelope::tool_named(name).unwrap();
    let call = candor::api::args::parse(tool, &args).unwrap();
    candor::tui::jobs::preview(&engine, call.clone()).unwrap();
    let started = Instant::now();
    let mut runs = 0u32;
    while started.elapsed() < Duration::from_secs(seconds) {
        candor::tui::jobs::preview(&engine, call.clone()).unwrap();
        runs += 1;
    }
    println!("{runs} previews, {:.2?} each", started.elapsed() / runs);
}
