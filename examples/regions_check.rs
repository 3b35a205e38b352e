//! Checks `lang::regions::find_mentions_fast` against a full parse on a real tree of sources:
//! `cargo run --release --example regions_check -- DIR [NAMES_PER_FILE]`. For each Rust/Python
//! file it takes the first identifiers that are called in it and compares both answers; prints
//! mismatches, the fallback rate and the time each way.

use std::time::{Duration, Instant};

use candor::lang::Language;
use candor::lang::calls::find_mentions;
use candor::lang::regions::find_mentions_by_regions;

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: regions_check DIR [NAMES_PER_FILE]");
    let per_file: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(3);
    let files = candor::workspace::walk::source_files(std::path::Path::new(&dir), &Language::ALL);
    let (mut checks, mut mismatches, mut fallbacks, mut broken) = (0usize, 0usize, 0usize, 0usize);
    let (mut fast_time, mut full_time) = (Duration::ZERO, Duration::ZERO);
    for path in &files {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        if text.len() > 2_000_000 {
            continue;
        }
        let lang =
            Language::from_path(path.to_str().unwrap_or("")).expect("walk filters languages");
        // Where the file itself does not parse, a full parse is no reference to compare with.
        if lang.parse(&text).root_node().has_error() {
            broken += 1;
            continue;
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
            let started = Instant::now();
            let full = find_mentions(lang, &lang.parse(&text), &text, &name);
            full_time += started.elapsed();
            let started = Instant::now();
            let (fast, fell_back) = find_mentions_by_regions(lang, &text, &name);
            fast_time += started.elapsed();
            checks += 1;
            fallbacks += usize::from(fell_back);
            if fell_back && fallbacks <= 8 && std::env::var_os("SHOW_FALLBACKS").is_some() {
                eprintln!("FALLBACK {} `{name}`", path.display());
            }
            if fast != full {
                mismatches += 1;
                if mismatches <= 10 {
                    let first = full
                        .calls
                        .iter()
                        .map(|c| c.line)
                        .zip(fast.calls.iter().map(|c| c.line))
                        .find(|(a, b)| a != b);
                    eprintln!(
                        "MISMATCH {} `{name}`: full {} calls/{} refs, fast {} calls/{} refs, first differing call lines {first:?}",
                        path.display(),
                        full.calls.len(),
                        full.references.len(),
                        fast.calls.len(),
                        fast.references.len()
                    );
                }
            }
        }
    }
    println!(
        "{} files ({broken} with syntax errors skipped), {checks} checks, {mismatches} mismatches, {fallbacks} fell back to a full parse; full parse {:.2?}, regions {:.2?}",
        files.len(),
        full_time,
        fast_time
    );
}
