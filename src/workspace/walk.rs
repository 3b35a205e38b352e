//! The project's source files: a parallel, .gitignore-aware walk (the `ignore` crate), and the
//! byte prefilter that keeps the project-wide search from parsing files that cannot match.

use std::path::Path;
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};

use crate::lang::Language;

/// Builds the walker every project scan uses: hidden files skipped, .gitignore / .ignore /
/// git excludes honoured even outside a git repository, `.candor/` and `target/` never entered.
pub(crate) fn walker(root: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(root);
    builder
        .hidden(true)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .require_git(false)
        .follow_links(false)
        .filter_entry(|entry| {
            let name = entry.file_name();
            !(entry.depth() > 0
                && entry.file_type().is_some_and(|t| t.is_dir())
                && (name == ".candor"
                    || name == "target"
                    || name == "node_modules"
                    || name == "__pycache__"))
        });
    builder
}

fn matches_languages(path: &Path, langs: &[Language]) -> bool {
    path.to_str()
        .and_then(Language::from_path)
        .is_some_and(|l| langs.contains(&l))
}

/// Every file of `langs` under `root`, sorted (absolute paths).
pub fn source_files(root: &Path, langs: &[Language]) -> Vec<std::path::PathBuf> {
    let found = Mutex::new(Vec::new());
    walker(root).build_parallel().run(|| {
        Box::new(|entry| {
            if let Ok(entry) = entry {
                if entry.file_type().is_some_and(|t| t.is_file())
                    && matches_languages(entry.path(), langs)
                {
                    found.lock().expect("walk lock").push(entry.into_path());
                }
            }
            WalkState::Continue
        })
    });
    let mut files = found.into_inner().expect("walk lock");
    files.sort();
    files
}

/// Calls `visit` for each file of `langs` as the walk finds it (unsorted, from worker threads);
/// the TUI's picker streams with this. Stops early when `visit` returns false.
pub fn stream_source_files(
    root: &Path,
    langs: &[Language],
    visit: &(dyn Fn(std::path::PathBuf) -> bool + Sync),
) {
    walker(root).build_parallel().run(|| {
        Box::new(|entry| {
            if let Ok(entry) = entry {
                if entry.file_type().is_some_and(|t| t.is_file())
                    && matches_languages(entry.path(), langs)
                    && !visit(entry.into_path())
                {
                    return WalkState::Quit;
                }
            }
            WalkState::Continue
        })
    });
}

/// Files of `lang` under `root` whose bytes contain `needle`, read and filtered in parallel
/// during the walk. Returns (path, bytes) sorted by path; files larger than `max_bytes` are
/// returned with `None` so the caller can report them.
pub fn files_containing(
    root: &Path,
    lang: Language,
    needle: &str,
    max_bytes: u64,
) -> Vec<(std::path::PathBuf, Option<Vec<u8>>)> {
    let finder = memchr::memmem::Finder::new(needle.as_bytes()).into_owned();
    let found = Mutex::new(Vec::new());
    walker(root).build_parallel().run(|| {
        let finder = finder.clone();
        let found = &found;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file())
                || !matches_languages(entry.path(), &[lang])
            {
                return WalkState::Continue;
            }
            let too_big = entry
                .metadata()
                .map(|m| m.len() > max_bytes)
                .unwrap_or(false);
            if too_big {
                found
                    .lock()
                    .expect("walk lock")
                    .push((entry.into_path(), None));
                return WalkState::Continue;
            }
            if let Ok(bytes) = std::fs::read(entry.path()) {
                if finder.find(&bytes).is_some() {
                    found
                        .lock()
                        .expect("walk lock")
                        .push((entry.into_path(), Some(bytes)));
                }
            }
            WalkState::Continue
        })
    });
    let mut files = found.into_inner().expect("walk lock");
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_honours_gitignore_and_prefilters() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::create_dir_all(root.join("build")).unwrap();
        std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
        std::fs::write(root.join("pkg/a.py"), "def helper(): pass\n").unwrap();
        std::fs::write(root.join("pkg/b.py"), "x = 1\n").unwrap();
        std::fs::write(root.join("build/c.py"), "helper()\n").unwrap();
        std::fs::write(root.join("lib.rs"), "fn helper() {}\n").unwrap();
        let all = source_files(root, &[Language::Python]);
        let names: Vec<String> = all
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().display().to_string())
            .collect();
        assert_eq!(names, vec!["pkg/a.py", "pkg/b.py"]);
        let hits = files_containing(root, Language::Python, "helper", 1 << 20);
        assert_eq!(hits.len(), 1);
        assert!(hits[0].0.ends_with("pkg/a.py"));
    }
}
