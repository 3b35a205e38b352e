//! The project-wide call-site search in process (`cargo bench --bench search`), on the trees
//! `scripts/bench.sh` prepares under `target/bench/` (CPython's `Lib`, the cargo registry's
//! sources); a tree that is not there is skipped with a note. The figures to compare with
//! ripgrep and ast-grep come from `scripts/bench.sh`, which times whole processes.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use candor::lang::Language;
use candor::workspace::search::call_sites;
use criterion::{Criterion, criterion_group, criterion_main};

fn search(c: &mut Criterion) {
    let bench = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/bench");
    let mut group = c.benchmark_group("search");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    for (tree, lang, names) in [
        ("Lib", Language::Python, &["dedent", "isinstance"][..]),
        ("registry", Language::Rust, &["unwrap", "push"][..]),
    ] {
        let root = bench.join(tree);
        if !root.is_dir() {
            eprintln!(
                "skipping {tree}: {} is missing (scripts/bench.sh prepares it)",
                root.display()
            );
            continue;
        }
        for name in names {
            let report = call_sites(&root, &[lang], name, 5 << 20);
            eprintln!(
                "{tree} `{name}`: {} calls in {} of {} files",
                report.calls.len(),
                report.files_parsed,
                report.files_walked
            );
            group.bench_function(format!("{tree}/{name}"), |b| {
                b.iter(|| black_box(call_sites(&root, &[lang], name, 5 << 20)))
            });
        }
    }
    group.finish();
}

criterion_group!(benches, search);
criterion_main!(benches);
