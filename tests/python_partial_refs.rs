//! The Python references judge on partial trees (the statements around the name, the headers
//! around them, and of the imports only those that spell a name read there, or a `*`) answers as
//! on full trees: over packages of the standard library of the machine's Python, for the
//! module-level functions and classes named in the most files, every reference (place, role,
//! verdict, rewrite) and finding is the same through `MemorySources` (partial trees) and
//! `FullTrees` (a full parse of every file).

use std::collections::BTreeMap;
use std::path::PathBuf;

mod partial_refs_common;

use candor::lang::Language;
use candor::lang::calls::word_matches;
use candor::lang::partial::parse_around_words;
use partial_refs_common::*;

/// Packages of the standard library, each searched as a project of its own.
const PACKAGES: &[&str] = &[
    "email",
    "json",
    "logging",
    "unittest",
    "importlib",
    "http",
    "urllib",
    "concurrent",
    "xml",
    "asyncio",
];

/// How many definitions per package are searched (the ones named in the most files first).
const NAMES_PER_PACKAGE: usize = 25;

/// The standard library's folder, as the tests' Python (`CANDOR_TEST_PYTHON`, else `python3`)
/// reports it.
fn stdlib() -> PathBuf {
    let python = std::env::var("CANDOR_TEST_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let out = std::process::Command::new(&python)
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .unwrap_or_else(|e| panic!("{python} does not run ({e}): set CANDOR_TEST_PYTHON"));
    let path = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    assert!(
        path.join("json").is_dir(),
        "no standard library at {path:?}"
    );
    path
}

/// `(file, name, 1-based line)` of the module-level `def`s and `class`es, by a plain scan.
fn definitions(files: &BTreeMap<String, String>) -> Vec<(String, String, usize)> {
    let mut out = Vec::new();
    for (path, text) in files {
        for (i, line) in text.lines().enumerate() {
            let rest = line.strip_prefix("async ").unwrap_or(line);
            let Some(rest) = rest
                .strip_prefix("def ")
                .or_else(|| rest.strip_prefix("class "))
            else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                out.push((path.clone(), name, i + 1));
            }
        }
    }
    out
}

#[test]
fn the_python_judge_answers_on_partial_trees_as_on_full_trees_over_the_standard_library() {
    let root = stdlib();
    let (mut compared, mut with_references, mut imports_left_out) = (0usize, 0usize, 0usize);
    for package in PACKAGES {
        let mut files = BTreeMap::new();
        source_files(&root.join(package), &root, "py", &mut files);
        if files.is_empty() {
            continue;
        }
        let sources = memory_sources(&files);
        let defined = definitions(&files);
        for (path, name, line) in most_mentioned(&files, &defined, NAMES_PER_PACKAGE) {
            let request = request(path, name, *line);
            let Some(partial) =
                same_on_partial_and_full_trees(&sources, &request, Language::Python, package)
            else {
                continue;
            };
            compared += 1;
            if partial.references.iter().any(|r| r.path != *path) {
                with_references += 1;
            }
            // How many of the files searched left imports out of their partial trees.
            for (other, text) in &files {
                if other == path || word_matches(text, name).is_empty() {
                    continue;
                }
                let (tree, is_partial) =
                    parse_around_words(Language::Python, text, &[name, "import"]);
                // A whole tree (its range is the whole address space) leaves nothing out.
                if !is_partial {
                    continue;
                }
                let imports = word_matches(text, "import").len();
                let kept: usize = (tree.included_ranges().iter())
                    .map(|r| word_matches(&text[r.start_byte..r.end_byte], "import").len())
                    .sum();
                imports_left_out += usize::from(kept < imports);
            }
        }
    }
    eprintln!(
        "{compared} names compared, {with_references} with references in other files, {imports_left_out} partial trees without some imports"
    );
    assert!(compared >= 150, "only {compared} names compared");
    assert!(
        with_references >= 60,
        "only {with_references} names reach other files"
    );
    assert!(
        imports_left_out >= 200,
        "only {imports_left_out} partial trees left imports out"
    );
}
