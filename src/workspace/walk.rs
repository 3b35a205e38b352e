//! The project's source files: a parallel, .gitignore-aware walk (the `ignore` crate), and the
//! byte prefilter that keeps the project-wide search from parsing files that cannot match.

use std::path::Path;
use std::sync::Mutex;

use ignore::{WalkBuilder, WalkState};

use crate::cancel::Cancel;
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
            if let Ok(entry) = entry
                && entry.file_type().is_some_and(|t| t.is_file())
                && matches_languages(entry.path(), langs)
            {
                found.lock().expect("walk lock").push(entry.into_path());
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
            if let Ok(entry) = entry
                && entry.file_type().is_some_and(|t| t.is_file())
                && matches_languages(entry.path(), langs)
                && !visit(entry.into_path())
            {
                return WalkState::Quit;
            }
            WalkState::Continue
        })
    });
}

/// Files of `lang` under `root` whose bytes contain `needle`, read and filtered in parallel
/// during the walk (which stops early, with what it found so far, once `cancel` is set). Returns (path, bytes) sorted by path; a file that could not be searched (over
/// `max_bytes`, unreadable) comes with `Err(reason)` so the caller can report it.
pub fn files_containing(
    root: &Path,
    lang: Language,
    needle: &str,
    max_bytes: u64,
    cancel: &Cancel,
) -> Vec<(std::path::PathBuf, Result<Vec<u8>, String>)> {
    let finder = memchr::memmem::Finder::new(needle.as_bytes()).into_owned();
    let found = Mutex::new(Vec::new());
    walker(root).build_parallel().run(|| {
        let finder = finder.clone();
        let found = &found;
        Box::new(move |entry| {
            // Checked before every file: a cancelled request stops walking at once.
            if cancel.is_cancelled() {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file())
                || !matches_languages(entry.path(), &[lang])
            {
                return WalkState::Continue;
            }
            match read_limited(entry.path(), max_bytes) {
                Ok(bytes) if finder.find(&bytes).is_none() => {}
                result => found
                    .lock()
                    .expect("walk lock")
                    .push((entry.into_path(), result)),
            }
            WalkState::Continue
        })
    });
    let mut files = found.into_inner().expect("walk lock");
    files.sort_by(|a, b| a.0.cmp(&b.0));
    files
}

/// Reads a regular file of at most `max_bytes`; the error says why not, as a clause ("is …").
/// The limit holds for what is read, not only for the size seen before (the file may grow).
pub fn read_limited(path: &Path, max_bytes: u64) -> Result<Vec<u8>, String> {
    use std::io::Read;
    let too_large = |len: u64| {
        format!(
            "is {len} bytes, over the {max_bytes}-byte limit (raise `max_file_bytes` in the config file to allow it)"
        )
    };
    let meta = std::fs::metadata(path).map_err(|e| format!("cannot be read ({e})"))?;
    if !meta.is_file() {
        return Err("is not a regular file".to_string());
    }
    if meta.len() > max_bytes {
        return Err(too_large(meta.len()));
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot be read ({e})"))?;
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot be read ({e})"))?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
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
        let hits = files_containing(root, Language::Python, "helper", 1 << 20, &Cancel::never());
        assert_eq!(hits.len(), 1);
        assert!(hits[0].0.ends_with("pkg/a.py"));
    }

    #[test]
    fn files_over_the_limit_are_reported_not_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("big.py"),
            format!("helper()\n{}", "x = 1\n".repeat(100)),
        )
        .unwrap();
        std::fs::write(dir.path().join("small.py"), "helper()\n").unwrap();
        let hits = files_containing(
            dir.path(),
            Language::Python,
            "helper",
            100,
            &Cancel::never(),
        );
        assert_eq!(hits.len(), 2);
        assert!(hits[0].0.ends_with("big.py"));
        let reason = hits[0].1.as_ref().unwrap_err();
        assert!(reason.contains("over the 100-byte limit"), "{reason}");
        assert_eq!(hits[1].1.as_deref(), Ok(&b"helper()\n"[..]));
    }
}
