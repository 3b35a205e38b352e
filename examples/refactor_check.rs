//! Checks that the refactors give byte-identical plans whether the files they search are parsed
//! in full or only around the searched words (partial trees, `Sources::parse_around_words`):
//! `cargo run --release --example refactor_check -- DIR [MAX_FUNCTIONS]`.
//!
//! Loads every Rust/Python file under DIR into memory, picks functions spread over the tree
//! (every n-th function of the outlines, at most MAX_FUNCTIONS, default 300), and for each runs
//! change signature (a whole new parameter list, so every call is rewritten) and inline, once
//! with the default trees and once through `FullTrees`. Prints every difference and the time
//! each way. For every plan it also compares the result check's fast paths (the trees of the
//! files known, or only the statements around the edits) with parsing every file whole, and
//! for every change of signature the arity cross-check of the definition alone changed (every
//! call left as it was) through partial trees and through full ones.

use std::time::{Duration, Instant};

use candor::edit::SourceFile;
use candor::lang::Language;
use candor::lang::symbols::{SymbolQuery, outline};
use candor::refactor::cross;
use candor::refactor::{
    ChangeSignatureRequest, FullTrees, InlineRequest, MemorySources, NewParameter, Request, plan,
};

fn main() {
    let dir = std::env::args()
        .nth(1)
        .expect("usage: refactor_check DIR [MAX_FUNCTIONS]");
    let max: usize = std::env::args()
        .nth(2)
        .and_then(|n| n.parse().ok())
        .unwrap_or(300);
    let root = std::path::Path::new(&dir);
    let mut sources = MemorySources::new();
    let mut functions: Vec<(String, String, usize)> = Vec::new();
    for path in candor::workspace::walk::source_files(root, &Language::ALL) {
        let Ok(bytes) = std::fs::read(&path) else {
            continue;
        };
        let relative = path
            .strip_prefix(root)
            .expect("walked under the root")
            .to_string_lossy()
            .replace('\\', "/");
        let Ok(file) = SourceFile::from_bytes(relative.clone(), &bytes) else {
            continue;
        };
        if file.text.len() > 1_000_000 {
            continue;
        }
        let lang = Language::from_path(&relative).expect("walk filters languages");
        let tree = lang.parse(&file.text);
        for symbol in outline(lang, &tree, &file.text) {
            if symbol.kind.is_function() && symbol.name.len() > 3 {
                functions.push((relative.clone(), symbol.name_path.clone(), symbol.line));
            }
        }
        sources.insert(file);
    }
    let stride = (functions.len() / max).max(1);
    let picked: Vec<&(String, String, usize)> =
        functions.iter().step_by(stride).take(max).collect();
    let full = FullTrees(&sources);
    let (mut checks, mut differences, mut succeeded) = (0usize, 0usize, 0usize);
    let (mut checks_syntax, mut known_differences, mut region_differences) =
        (0usize, 0usize, 0usize);
    let (mut partial_time, mut full_time) = (Duration::ZERO, Duration::ZERO);
    let (mut cross_checks, mut cross_findings, mut cross_differences) = (0usize, 0usize, 0usize);
    for (file, name_path, line) in picked {
        let query = SymbolQuery {
            name: name_path.clone(),
            line: Some(*line),
            column: None,
        };
        let requests = [
            Request::ChangeSignature(ChangeSignatureRequest {
                file: file.clone(),
                function: query.clone(),
                new_parameters: vec![NewParameter {
                    name: "candor_check".to_string(),
                    ty: file.ends_with(".rs").then(|| "u8".to_string()),
                    default: None,
                }],
            }),
            Request::Inline(InlineRequest {
                file: file.clone(),
                function: query,
            }),
        ];
        for request in &requests {
            let started = Instant::now();
            let with_partial = plan(&sources, request);
            partial_time += started.elapsed();
            let started = Instant::now();
            let with_full = plan(&full, request);
            full_time += started.elapsed();
            checks += 1;
            succeeded += usize::from(with_full.is_ok());
            // The result check: its fast paths against parsing every file whole.
            if let Ok(planned) = &with_full {
                use candor::refactor::findings::{
                    KnownParse, check_syntax, check_syntax_whole, check_syntax_with_trees,
                };
                let whole = check_syntax_whole(&planned.changes);
                let known: Vec<Option<KnownParse>> = planned
                    .changes
                    .iter()
                    .map(|c| {
                        let lang = Language::from_path(&c.path)?;
                        (!c.created()).then(|| {
                            let tree = lang.parse(&c.before);
                            let errors = candor::lang::syntax_errors(&tree, &c.before);
                            KnownParse { tree, errors }
                        })
                    })
                    .collect();
                checks_syntax += 1;
                if check_syntax_with_trees(request.language().unwrap(), &planned.changes, &known)
                    != whole
                {
                    known_differences += 1;
                    eprintln!("DIFFERENT result check with known trees: {file} `{name_path}`");
                }
                if check_syntax(&planned.changes) != whole {
                    region_differences += 1;
                    eprintln!(
                        "result check without trees differs (a file with errors elsewhere?): {file} `{name_path}`"
                    );
                }
            }
            // The arity cross-check of a change of signature whose calls were left as they were
            // (only the definition's file changed): partial trees against full ones.
            if let (Request::ChangeSignature(_), Ok(planned)) = (request, &with_full) {
                let lang = request.language().unwrap();
                let definition_only: Vec<_> = planned
                    .changes
                    .iter()
                    .filter(|c| c.path == *file)
                    .cloned()
                    .collect();
                let partial = cross::check(request, lang, &definition_only, &sources, &[]);
                let whole = cross::check(request, lang, &definition_only, &full, &[]);
                cross_checks += 1;
                cross_findings += whole.len();
                if partial != whole {
                    cross_differences += 1;
                    eprintln!("DIFFERENT cross-check findings: {file} `{name_path}`");
                }
            }
            if with_partial != with_full {
                differences += 1;
                if differences <= 10 {
                    eprintln!(
                        "DIFFERENT {:?} on {file} `{name_path}` (line {line})",
                        request.tool()
                    );
                }
            }
        }
    }
    println!(
        "{} files, {} functions, {checks} plans ({succeeded} succeeded, the rest refused alike), {differences} differences; partial trees {:.2?}, full trees {:.2?}",
        sources.files.len(),
        functions.len(),
        partial_time,
        full_time
    );
    println!(
        "result checks of {checks_syntax} plans: with the trees known {known_differences} differences from parsing every file whole; around the edits only {region_differences} differences"
    );
    println!(
        "cross-checks of {cross_checks} changes of signature left uncalled ({cross_findings} findings): {cross_differences} differences between partial and full trees"
    );
}
