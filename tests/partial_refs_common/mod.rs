//! Helpers of the tests that hold the references judge on partial trees to its answers on full
//! trees (`rust_partial_refs.rs`, `python_partial_refs.rs`): a project's source files read into
//! memory, the definitions named in the most files, and one search made both ways.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::Path;

use candor::lang::Language;
use candor::lang::calls::word_matches;
use candor::lang::symbols::SymbolQuery;
use candor::refactor::references::{Reference, References, ReferencesRequest, find};
use candor::refactor::{FullTrees, MemorySources};

/// The files under `dir` whose extension is `ext` (no `__pycache__`), by their path relative to
/// `root`, with their text.
pub fn source_files(dir: &Path, root: &Path, ext: &str, out: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "__pycache__") {
                source_files(&path, root, ext, out);
            }
        } else if path.extension().is_some_and(|e| e == ext)
            && let Ok(text) = std::fs::read_to_string(&path)
        {
            let relative = path.strip_prefix(root).unwrap();
            out.insert(relative.to_string_lossy().into_owned(), text);
        }
    }
}

/// The files as the engine's in-memory sources.
pub fn memory_sources(files: &BTreeMap<String, String>) -> MemorySources {
    let mut sources = MemorySources::new();
    for (path, text) in files {
        sources = sources.with(path, text);
    }
    sources
}

/// The first `count` of the definitions `(file, name, 1-based line)` whose name the most files
/// mention (then by file and line): the searches that read the most.
pub fn most_mentioned<'a>(
    files: &BTreeMap<String, String>,
    defined: &'a [(String, String, usize)],
    count: usize,
) -> Vec<&'a (String, String, usize)> {
    let mut mentions: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, name, _) in defined {
        let files_mentioning = files
            .values()
            .filter(|t| !word_matches(t, name).is_empty())
            .count();
        mentions.insert(name, files_mentioning);
    }
    let mut chosen: Vec<&(String, String, usize)> = defined.iter().collect();
    chosen.sort_by_key(|(path, name, line)| {
        (usize::MAX - mentions[name.as_str()], path.clone(), *line)
    });
    chosen.truncate(count);
    chosen
}

/// The references request for the definition of `name` on `line` of `path`.
pub fn request(path: &str, name: &str, line: usize) -> ReferencesRequest {
    ReferencesRequest {
        file: path.to_string(),
        symbol: SymbolQuery {
            name: name.to_string(),
            line: Some(line),
            column: None,
        },
    }
}

/// The search of `request` through `sources` (partial trees) and through `FullTrees` (every file
/// parsed whole), which must find the same references and findings, or fail with the same
/// error. The partial trees' answer; `None` after the error. `project` names the case in a
/// failure.
pub fn same_on_partial_and_full_trees(
    sources: &MemorySources,
    request: &ReferencesRequest,
    lang: Language,
    project: &str,
) -> Option<References> {
    let (path, name, line) = (
        &request.file,
        &request.symbol.name,
        request.symbol.line.unwrap_or(0),
    );
    let partial = find(sources, request, lang, None);
    let full = find(&FullTrees(sources), request, lang, None);
    let (partial, full) = match (partial, full) {
        (Ok(p), Ok(f)) => (p, f),
        (Err(p), Err(f)) => {
            assert_eq!(p.to_string(), f.to_string(), "{path}:{line} {name}");
            return None;
        }
        (p, f) => panic!("{path}:{line} {name}: partial {p:?}, full {f:?}"),
    };
    let only = |a: &[Reference], b: &[Reference]| {
        (a.iter())
            .filter(|r| !b.contains(r))
            .map(|r| format!("{r:?}"))
            .collect::<Vec<_>>()
    };
    assert!(
        partial.references == full.references,
        "{project}: {path}:{line} `{name}` judged differently on partial trees:\n partial only {:#?}\n full only {:#?}",
        only(&partial.references, &full.references),
        only(&full.references, &partial.references),
    );
    assert_eq!(partial.findings, full.findings, "{path}:{line} {name}");
    Some(partial)
}
