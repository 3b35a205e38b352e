//! The Python references judge on partial trees (the statements around the name, the headers
//! around them, and of the imports only those that spell a name read there, or a `*`) answers as
//! on full trees: over packages of the standard library of the machine's Python, for the
//! module-level functions and classes named in the most files, every reference (place, role,
//! verdict, rewrite) and finding is the same through `MemorySources` (partial trees) and
//! `FullTrees` (a full parse of every file).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use candor::lang::Language;
use candor::lang::calls::word_matches;
use candor::lang::partial::parse_around_words;
use candor::lang::symbols::SymbolQuery;
use candor::refactor::references::{ReferencesRequest, find};
use candor::refactor::{FullTrees, MemorySources};

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

fn python_files(dir: &Path, root: &Path, out: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if path.file_name().is_some_and(|n| n != "__pycache__") {
                python_files(&path, root, out);
            }
        } else if path.extension().is_some_and(|e| e == "py")
            && let Ok(text) = std::fs::read_to_string(&path)
        {
            let relative = path.strip_prefix(root).unwrap();
            out.insert(relative.to_string_lossy().into_owned(), text);
        }
    }
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
        python_files(&root.join(package), &root, &mut files);
        if files.is_empty() {
            continue;
        }
        let mut sources = MemorySources::new();
        for (path, text) in &files {
            sources = sources.with(path, text);
        }
        let defined = definitions(&files);
        let mentions = |name: &str| {
            (files.values())
                .filter(|t| !word_matches(t, name).is_empty())
                .count()
        };
        let mut chosen: Vec<(usize, &(String, String, usize))> =
            defined.iter().map(|d| (mentions(&d.1), d)).collect();
        chosen.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(b.1)));
        for (_, (path, name, line)) in chosen.into_iter().take(NAMES_PER_PACKAGE) {
            let request = ReferencesRequest {
                file: path.clone(),
                symbol: SymbolQuery {
                    name: name.clone(),
                    line: Some(*line),
                    column: None,
                },
            };
            let partial = find(&sources, &request, Language::Python, None);
            let full = find(&FullTrees(&sources), &request, Language::Python, None);
            let (partial, full) = match (partial, full) {
                (Ok(p), Ok(f)) => (p, f),
                (Err(p), Err(f)) => {
                    assert_eq!(p.to_string(), f.to_string(), "{path}:{line} {name}");
                    continue;
                }
                (p, f) => panic!("{path}:{line} {name}: partial {p:?}, full {f:?}"),
            };
            let only = |a: &[candor::refactor::references::Reference],
                        b: &[candor::refactor::references::Reference]| {
                (a.iter())
                    .filter(|r| !b.contains(r))
                    .map(|r| format!("{r:?}"))
                    .collect::<Vec<_>>()
            };
            assert!(
                partial.references == full.references,
                "{package}: {path}:{line} `{name}` judged differently on partial trees:\n partial only {:#?}\n full only {:#?}",
                only(&partial.references, &full.references),
                only(&full.references, &partial.references),
            );
            assert_eq!(partial.findings, full.findings, "{path}:{line} {name}");
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
