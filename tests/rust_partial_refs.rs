//! The Rust references judge on partial trees (`lang::partial::WHOLE_FUNCTIONS`: the statements
//! around the name, every `use`, the headers around them, the whole functions that hold an
//! occurrence) answers as on full trees: over real crates from the cargo registry, for many
//! names, every reference (place, role, verdict, rewrite) and finding is the same through
//! `MemorySources` (partial trees) and `FullTrees` (a full parse of every file).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod partial_refs_common;

use candor::lang::Language;
use candor::lang::calls::word_matches;
use candor::lang::partial::{WHOLE_FUNCTIONS, parse_around_words};
use candor::lang::symbols::SymbolQuery;
use candor::refactor::FullTrees;
use partial_refs_common::*;

/// Crates of the registry (candor's own dependencies, and the sweep crates where present).
const CRATES: &[&str] = &[
    "heck-0.5.0",
    "semver-1.0.23",
    "similar-2.7.0",
    "anyhow-1.0.105",
    "serde_json-1.0.154",
    "rayon-1.12.0",
];

/// How many definitions per crate are searched (the ones named in the most files first).
const NAMES_PER_CRATE: usize = 45;

/// The registry crates of `CRATES` that are present (at least one, or the test cannot mean
/// anything: it fails).
fn registry_crates() -> Vec<PathBuf> {
    let found = present_registry_crates();
    assert!(
        !found.is_empty(),
        "none of {CRATES:?} under $CARGO_HOME/registry/src: fetch them with `cargo fetch`"
    );
    found
}

fn present_registry_crates() -> Vec<PathBuf> {
    let home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cargo")))
        .expect("CARGO_HOME or HOME is set");
    let mut found = Vec::new();
    let Ok(indexes) = std::fs::read_dir(home.join("registry/src")) else {
        return found;
    };
    let indexes: Vec<PathBuf> = indexes.flatten().map(|e| e.path()).collect();
    for name in CRATES {
        if let Some(dir) = indexes.iter().map(|i| i.join(name)).find(|d| d.is_dir()) {
            found.push(dir);
        }
    }
    found
}

/// `(file, name, 1-based line)` of the definitions (`fn`, `struct`, `enum`, `trait`, `const`,
/// `type`) of the crate's `src/`, by a plain scan of the text.
fn definitions(files: &BTreeMap<String, String>) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    for (path, text) in files {
        for (i, line) in text.lines().enumerate() {
            let words: Vec<&str> = line
                .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                .filter(|w| !w.is_empty())
                .collect();
            for pair in words.windows(2) {
                if matches!(
                    pair[0],
                    "fn" | "struct" | "enum" | "trait" | "const" | "type"
                ) && pair[1].starts_with(|c: char| c.is_alphabetic() || c == '_')
                    && !line.trim_start().starts_with("//")
                {
                    out.push((path.clone(), pair[1].to_string(), i + 1));
                    break;
                }
            }
        }
    }
    out
}

#[test]
fn the_rust_judge_answers_on_partial_trees_as_on_full_trees_over_real_crates() {
    let crates = registry_crates();
    let (mut compared, mut partial_trees, mut with_references) = (0usize, 0usize, 0usize);
    for dir in &crates {
        let mut files = BTreeMap::new();
        source_files(&dir.join("src"), dir, "rs", &mut files);
        let sources = memory_sources(&files);
        let defined = definitions(&files);
        let chosen = most_mentioned(&files, &defined, NAMES_PER_CRATE);
        for (path, name, line) in chosen {
            let request = request(path, name, *line);
            let project = dir.display().to_string();
            let Some(partial) =
                same_on_partial_and_full_trees(&sources, &request, Language::Rust, &project)
            else {
                continue;
            };
            compared += 1;
            if partial.references.iter().any(|r| r.path != *path) {
                with_references += 1;
            }
            // How many of the files searched were judged on a partial tree.
            for (other, text) in &files {
                if other != path && !word_matches(text, name).is_empty() {
                    let words = [name.as_str(), "use", WHOLE_FUNCTIONS];
                    partial_trees +=
                        usize::from(parse_around_words(Language::Rust, text, &words).1);
                }
            }
        }
    }
    eprintln!(
        "{compared} names compared, {with_references} with references in other files, {partial_trees} partial trees"
    );
    assert!(compared >= 40, "only {compared} names compared");
    assert!(
        with_references >= 20,
        "only {with_references} names reach other files"
    );
    assert!(
        partial_trees >= 100,
        "only {partial_trees} files judged on partial trees"
    );
}

#[test]
fn member_sites_on_trees_around_the_names_are_those_of_full_trees_over_real_crates() {
    // The rename's cross-check of fields against methods (`cross::members`) reads the sites of
    // the old and the new name on trees of the statements around them.
    use candor::lang::rust::members::member_sites;
    let crates = registry_crates();
    let (mut partial_trees, mut sites) = (0usize, 0usize);
    for dir in &crates {
        let mut files = BTreeMap::new();
        source_files(&dir.join("src"), dir, "rs", &mut files);
        let defined = definitions(&files);
        let names: BTreeSet<&str> = defined.iter().map(|(_, n, _)| n.as_str()).collect();
        let names: Vec<&str> = names.into_iter().collect();
        for text in files.values() {
            let full = Language::Rust.parse(text);
            let here: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| !word_matches(text, n).is_empty())
                .take(12)
                .collect();
            for pair in here.windows(2) {
                let (tree, partial) = parse_around_words(Language::Rust, text, pair);
                partial_trees += usize::from(partial);
                for name in pair {
                    let expected = member_sites(&full, text, name);
                    sites += expected.len();
                    assert_eq!(
                        member_sites(&tree, text, name),
                        expected,
                        "{name} in {}",
                        dir.display()
                    );
                }
            }
        }
    }
    eprintln!("{partial_trees} partial trees, {sites} member sites");
    assert!(
        partial_trees >= 100 && sites >= 100,
        "{partial_trees} partial trees, {sites} sites"
    );
}

/// The ranges a change's edits replaced (before) or wrote (after).
fn edited(change: &candor::edit::FileChange, after: bool) -> Vec<std::ops::Range<usize>> {
    let mut shift: isize = 0;
    change
        .edits
        .iter()
        .map(|e| {
            let start = (e.range.start as isize + shift) as usize;
            shift += e.new_text.len() as isize - e.range.len() as isize;
            match after {
                true => start..start + e.new_text.len(),
                false => e.range.clone(),
            }
        })
        .collect()
}

/// Every ancestor of the node at `range` (its kind and bytes) below the root.
fn ancestors_at(tree: &tree_sitter::Tree, range: &std::ops::Range<usize>) -> Vec<String> {
    let mut out = Vec::new();
    let mut node = tree
        .root_node()
        .descendant_for_byte_range(range.start, range.end);
    while let Some(n) = node {
        if n.parent().is_some() {
            out.push(format!("{} {:?}", n.kind(), n.byte_range()));
        }
        node = n.parent();
    }
    out
}

#[test]
fn the_checks_of_patterns_and_imports_read_around_the_edits_as_the_whole_files_over_real_renames() {
    // `cross::patterns` and `cross::imports` read a change's texts through trees around its edits
    // (`Project::tree_around_edits`: the whole functions around them, every `use` whole). Over
    // real renames: the cross-checks' findings through partial trees (`MemorySources`) and full
    // trees (`FullTrees`) are the same; the `use` leaves of both texts are the whole files' (on
    // trees around the edits, and around the `use`s alone); and
    // at every edit, the nodes around it are the full tree's nodes.
    use candor::lang::rust::imports::use_paths;
    use candor::refactor::{RenameRequest, Request};
    let crates = registry_crates();
    let (mut renames, mut changes_compared, mut leaves, mut edits, mut refusals) =
        (0usize, 0, 0, 0, 0);
    for dir in &crates {
        let mut files = BTreeMap::new();
        source_files(&dir.join("src"), dir, "rs", &mut files);
        let sources = memory_sources(&files);
        let defined = definitions(&files);
        let chosen = most_mentioned(&files, &defined, NAMES_PER_CRATE);
        // Each name renamed to a fresh name, and the first ones to the next chosen name too (a
        // new name bound where the rename writes it: refused, by what binds it, on either tree).
        let renames_of = chosen
            .iter()
            .enumerate()
            .flat_map(|(i, (path, name, line))| {
                let next = chosen.get(i + 1).filter(|_| i < 12).map(|n| n.1.clone());
                std::iter::once(format!("{name}_renamed"))
                    .chain(next)
                    .map(move |new_name| (path, name, line, new_name))
            });
        for (path, name, line, new_name) in renames_of {
            let request = Request::Rename(RenameRequest {
                file: path.clone(),
                symbol: SymbolQuery {
                    name: name.clone(),
                    line: Some(*line),
                    column: None,
                },
                new_name,
                include_possible: Vec::new(),
            });
            // The plan itself (the references judge, the check of the new name) alike.
            let planned = candor::refactor::plan(&sources, &request);
            let planned_full = candor::refactor::plan(&FullTrees(&sources), &request);
            match (&planned, &planned_full) {
                (Err(p), Err(f)) => {
                    assert_eq!(p.to_string(), f.to_string(), "{path}:{line} {name}");
                    refusals += 1;
                }
                (p, f) => assert!(p == f, "{path}:{line} {name}: {p:?}\n{f:?}"),
            }
            let Ok(plan) = planned else {
                continue;
            };
            let check = |sources: &dyn candor::refactor::Sources| {
                candor::refactor::cross::check(
                    &request,
                    Language::Rust,
                    &plan.changes,
                    sources,
                    &plan.findings,
                )
            };
            assert_eq!(
                check(&sources),
                check(&FullTrees(&sources)),
                "{}: {path}:{line} `{name}`",
                dir.display()
            );
            renames += 1;
            for change in &plan.changes {
                for after in [false, true] {
                    let text = if after { &change.after } else { &change.before };
                    let ranges = edited(change, after);
                    let mut words: Vec<&str> = ranges.iter().map(|r| &text[r.clone()]).collect();
                    if words.iter().any(|w| {
                        w.is_empty() || !w.chars().all(|c| c.is_alphanumeric() || c == '_')
                    }) {
                        continue;
                    }
                    words.sort_unstable();
                    words.dedup();
                    words.extend(["use", WHOLE_FUNCTIONS]);
                    let (partial, is_partial) = parse_around_words(Language::Rust, text, &words);
                    if !is_partial {
                        continue;
                    }
                    let full = Language::Rust.parse(text);
                    let leaves_of = |tree: &tree_sitter::Tree| {
                        use_paths(tree, text)
                            .into_iter()
                            .map(|(p, a, d)| (p, a, d.byte_range()))
                            .collect::<Vec<_>>()
                    };
                    let expected = leaves_of(&full);
                    assert_eq!(leaves_of(&partial), expected, "{}", change.path);
                    // The tree around the `use`s alone (`Project::tree_around_uses`) too.
                    let (uses, _) =
                        parse_around_words(Language::Rust, text, &["use", WHOLE_FUNCTIONS]);
                    assert_eq!(leaves_of(&uses), expected, "{} (uses)", change.path);
                    for range in &ranges {
                        assert_eq!(
                            ancestors_at(&partial, range),
                            ancestors_at(&full, range),
                            "{} at {range:?}",
                            change.path
                        );
                    }
                    changes_compared += 1;
                    leaves += expected.len();
                    edits += ranges.len();
                }
            }
        }
    }
    eprintln!(
        "{renames} renames, {refusals} refused, {changes_compared} texts read around their edits, {leaves} use leaves, {edits} edits"
    );
    assert!(
        renames >= 100 && changes_compared >= 200 && leaves >= 500 && refusals >= 10,
        "{renames} renames, {changes_compared} texts, {leaves} leaves"
    );
}
