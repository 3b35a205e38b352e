//! Checks the fast paths of `lang` against a full parse on a real tree of sources:
//! `cargo run --release --example regions_check -- DIR [NAMES_PER_FILE]`. For each Rust/Python
//! file that parses cleanly it takes the first identifiers that are called in it and compares:
//! - `outline` (which walks only the nodes that can hold an item) with the outline of every node;
//! - `find_mentions` (which looks only at the name's occurrences) with `find_mentions_walk`
//!   (which visits every node), both on the full tree;
//! - `find_mentions_fast` (a partial tree around the occurrences) with the full tree's answer;
//! - `find_call_names_fast` (the text around each occurrence, a partial tree where the text
//!   cannot tell) with the full tree's calls.
//!
//! Prints the mismatches, the fallback rate and the time each way.

use std::time::{Duration, Instant};

use candor::lang::Language;
use candor::lang::calls::{find_mentions, find_mentions_walk};
use candor::lang::regions::{find_call_names_fast, find_mentions_by_regions};
use candor::lang::symbols::{outline, outline_of_every_node};

#[derive(Default)]
struct Tally {
    checks: usize,
    mismatches: usize,
    fallbacks: usize,
    time: Duration,
}

impl Tally {
    fn record(
        &mut self,
        same: bool,
        fell_back: bool,
        what: &str,
        path: &std::path::Path,
        name: &str,
    ) {
        self.checks += 1;
        self.fallbacks += usize::from(fell_back);
        if fell_back && std::env::var_os("SHOW_FALLBACKS").is_some() && self.fallbacks <= 20 {
            eprintln!("FALLBACK {what} {} `{name}`", path.display());
        }
        if !same {
            self.mismatches += 1;
            if self.mismatches <= 10 {
                eprintln!("MISMATCH {what} {} `{name}`", path.display());
            }
        }
    }
}

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: regions_check DIR [NAMES_PER_FILE]");
    let per_file: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let files = candor::workspace::walk::source_files(std::path::Path::new(&dir), &Language::ALL);
    let (mut broken, mut bytes) = (0usize, 0usize);
    let (mut outlines, mut outline_mismatches) = (0usize, 0usize);
    let mut full_time = Duration::ZERO;
    let mut walk = Tally::default();
    let mut fast = Tally::default();
    let mut calls = Tally::default();
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        if text.len() > 2_000_000 {
            continue;
        }
        let lang =
            Language::from_path(path.to_str().unwrap_or("")).expect("walk filters languages");
        let started = Instant::now();
        let tree = lang.parse(&text);
        full_time += started.elapsed();
        // Where the file itself does not parse, a full parse is no reference to compare with.
        if tree.root_node().has_error() {
            broken += 1;
            continue;
        }
        bytes += text.len();
        outlines += 1;
        if outline(lang, &tree, &text) != outline_of_every_node(lang, &tree, &text) {
            outline_mismatches += 1;
            eprintln!("MISMATCH outline {}", path.display());
        }
        let mut names: Vec<String> = Vec::new();
        for (i, _) in text.match_indices('(') {
            let before = &text[..i];
            let name: String = before
                .chars()
                .rev()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            if name.len() > 2 && !names.contains(&name) && !lang.is_keyword(&name) {
                names.push(name);
            }
            if names.len() >= per_file {
                break;
            }
        }
        for name in names {
            let reference = find_mentions_walk(lang, &tree, &text, &name);

            let started = Instant::now();
            let by_occurrence = find_mentions(lang, &tree, &text, &name);
            walk.time += started.elapsed();
            walk.record(
                by_occurrence == reference,
                false,
                "find_mentions",
                path,
                &name,
            );

            let started = Instant::now();
            let (partial, fell_back) = find_mentions_by_regions(lang, &text, &name);
            fast.time += started.elapsed();
            fast.record(
                partial == reference,
                fell_back,
                "find_mentions_fast",
                path,
                &name,
            );

            let started = Instant::now();
            let (call_names, fell_back) = find_call_names_fast(lang, &text, &name);
            calls.time += started.elapsed();
            let mut expected: Vec<_> = reference
                .calls
                .iter()
                .map(|c| c.name_range.clone())
                .collect();
            expected.sort_by_key(|r| r.start);
            calls.record(
                call_names == expected,
                fell_back,
                "find_call_names_fast",
                path,
                &name,
            );
        }
    }
    println!(
        "{} files ({broken} with syntax errors skipped, {:.1} MB checked); full parses {:.2?}",
        files.len(),
        bytes as f64 / 1e6,
        full_time
    );
    println!(
        "outline (pruned walk) vs every node: {outlines} files, {outline_mismatches} mismatches"
    );
    for (what, tally) in [
        ("find_mentions by occurrence vs walk", &walk),
        ("find_mentions_fast (partial tree) vs full", &fast),
        (
            "find_call_names_fast (text, then partial tree) vs full",
            &calls,
        ),
    ] {
        println!(
            "{what}: {} checks, {} mismatches, {} fell back to a full parse, {:.2?}",
            tally.checks, tally.mismatches, tally.fallbacks, tally.time
        );
    }
}
