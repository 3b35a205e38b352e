//! The project's source files: a parallel, .gitignore-aware walk (the `ignore` crate), and the
//! byte prefilter that keeps the project-wide search from parsing files that cannot match.

use std::path::Path;
use std::sync::{Arc, Mutex};

use ignore::{WalkBuilder, WalkState};

use crate::cancel::Cancel;
use crate::lang::Language;
use crate::workspace::store::Stamp;

/// The folders the walk never enters (below the root): candor's own, and build and cache output.
pub(crate) const SKIPPED_DIRS: [&str; 4] = [".candor", "target", "node_modules", "__pycache__"];

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
                && SKIPPED_DIRS.iter().any(|skipped| name == *skipped))
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
                found
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(entry.into_path());
            }
            WalkState::Continue
        })
    });
    let mut files = found.into_inner().unwrap_or_else(|e| e.into_inner());
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

/// A file the walk found, with its bytes or why it could not be searched.
/// (Shared: a file that holds several needles is one buffer in each of their lists.)
pub type FoundFile = (std::path::PathBuf, Result<Arc<[u8]>, String>);

/// Files of `lang` under `root` whose bytes contain `needle`, read and filtered in parallel
/// during the walk (which stops early, with what it found so far, once `cancel` is set).
/// Returns (path, bytes) sorted by path; a file that could not be searched (over `max_bytes`,
/// unreadable) comes with `Err(reason)` so the caller can report it.
pub fn files_containing(
    root: &Path,
    lang: Language,
    needle: &str,
    max_bytes: u64,
    cancel: &Cancel,
) -> Vec<FoundFile> {
    files_containing_each(root, lang, &[needle], max_bytes, cancel)
        .pop()
        .unwrap_or_default()
}

/// [`files_containing`] of each of `needles`, in one walk: each file is read once, and each
/// needle's list is the one a walk for it alone returns (a file that could not be searched is
/// in every list).
pub fn files_containing_each(
    root: &Path,
    lang: Language,
    needles: &[&str],
    max_bytes: u64,
    cancel: &Cancel,
) -> Vec<Vec<FoundFile>> {
    let finders: Vec<memchr::memmem::Finder<'static>> = needles
        .iter()
        .map(|needle| memchr::memmem::Finder::new(needle.as_bytes()).into_owned())
        .collect();
    let found: Mutex<Vec<Vec<FoundFile>>> = Mutex::new(vec![Vec::new(); needles.len()]);
    walker(root).build_parallel().run(|| {
        let (finders, found) = (&finders, &found);
        // One buffer per thread, read into again for each file: most files hold no needle and
        // are dropped, so only the ones kept are copied out (once, shared by their needles).
        let mut buffer = Vec::new();
        Box::new(move |entry| {
            // Checked before every file: a cancelled request stops walking at once.
            if cancel.is_cancelled() {
                return WalkState::Quit;
            }
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if entry.path_is_symlink() {
                let outside: Vec<Vec<FoundFile>> = (finders.iter())
                    .map(|finder| linked_outside(root, entry.path(), lang, finder, max_bytes))
                    .collect();
                for (list, more) in lock(found).iter_mut().zip(outside) {
                    list.extend(more);
                }
                return WalkState::Continue;
            }
            if !entry.file_type().is_some_and(|t| t.is_file())
                || !matches_languages(entry.path(), &[lang])
            {
                return WalkState::Continue;
            }
            let read = read_limited_into(entry.path(), max_bytes, &mut buffer);
            let holding: Vec<usize> = (0..finders.len())
                .filter(|i| match &read {
                    Ok(()) => finders[*i].find(&buffer).is_some(),
                    Err(_) => true,
                })
                .collect();
            if let Some((&last, rest)) = holding.split_last() {
                let read = read.map(|()| Arc::<[u8]>::from(buffer.as_slice()));
                let mut found = lock(found);
                for i in rest {
                    found[*i].push((entry.path().to_path_buf(), read.clone()));
                }
                found[last].push((entry.into_path(), read));
            }
            WalkState::Continue
        })
    });
    let mut lists = found.into_inner().unwrap_or_else(|e| e.into_inner());
    for files in &mut lists {
        files.sort_by(|a, b| a.0.cmp(&b.0));
    }
    lists
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// How many entries of a folder outside the project, reached through a link, are looked through
/// for files that mention the name (they are reported, never searched or changed).
const OUTSIDE_ENTRIES: usize = 5_000;

/// The files reached through the link `link` that lead out of `root` and mention the needle,
/// each with why it was not searched: candor reads and writes only inside the project, so
/// their references are reported, not silently left (a link inside the root is walked there).
pub(crate) fn linked_outside(
    root: &Path,
    link: &Path,
    lang: Language,
    finder: &memchr::memmem::Finder<'_>,
    max_bytes: u64,
) -> Vec<FoundFile> {
    let Ok(target) = link.canonicalize() else {
        return Vec::new();
    };
    let real_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    if target.starts_with(&real_root) {
        return Vec::new();
    }
    let reason = |what: &str| {
        format!(
            "is reached through a symbolic link to {what} {}, outside the project (candor reads and changes files only inside it)",
            target.display()
        )
    };
    let mentions = |path: &Path| {
        read_limited(path, max_bytes).map_or(true, |bytes| finder.find(&bytes).is_some())
    };
    if target.is_file() {
        return if matches_languages(link, &[lang]) && mentions(&target) {
            vec![(link.to_path_buf(), Err(reason("the file")))]
        } else {
            Vec::new()
        };
    }
    if !target.is_dir() {
        return Vec::new();
    }
    let mut found = Vec::new();
    for (seen, entry) in walker(&target).build().enumerate() {
        if seen >= OUTSIDE_ENTRIES {
            return vec![(
                link.to_path_buf(),
                Err(format!(
                    "{}, with more than {OUTSIDE_ENTRIES} entries to look through",
                    reason("the folder")
                )),
            )];
        }
        let Ok(entry) = entry else { continue };
        if entry.file_type().is_some_and(|t| t.is_file())
            && matches_languages(entry.path(), &[lang])
            && mentions(entry.path())
            && let Ok(rest) = entry.path().strip_prefix(&target)
        {
            found.push((link.join(rest), Err(reason("the folder"))));
        }
    }
    found
}

/// Reads a regular file of at most `max_bytes`; the error says why not, as a clause ("is …").
/// The limit holds for what is read, not only for the size seen before (the file may grow).
pub fn read_limited(path: &Path, max_bytes: u64) -> Result<Vec<u8>, String> {
    let (file, len) = open_limited(path, max_bytes)?;
    read_capped(&file, len, max_bytes)
}

/// [`read_limited`] into `buffer` (cleared first, its memory kept from one file to the next).
pub fn read_limited_into(path: &Path, max_bytes: u64, buffer: &mut Vec<u8>) -> Result<(), String> {
    buffer.clear();
    let (file, len) = open_limited(path, max_bytes)?;
    read_capped_into(&file, len, max_bytes, buffer)
}

/// [`read_limited`], with the file's stamp as it is once read (`fstat` of the handle read, after
/// the read): the same as a stamp seen before the read means no change came in between.
pub fn read_limited_stamped(
    path: &Path,
    max_bytes: u64,
) -> Result<(Vec<u8>, Option<Stamp>), String> {
    let (file, len) = open_limited(path, max_bytes)?;
    let bytes = read_capped(&file, len, max_bytes)?;
    Ok((bytes, stamp_of(&file)))
}

/// The rest of `file`, whose size was seen as `len`, refused past `max_bytes`: the limit holds
/// for what is read, not only for the size seen before (the file may grow).
pub(crate) fn read_capped(
    file: &std::fs::File,
    len: u64,
    max_bytes: u64,
) -> Result<Vec<u8>, String> {
    let mut bytes = Vec::new();
    read_capped_into(file, len, max_bytes, &mut bytes)?;
    Ok(bytes)
}

/// [`read_capped`] into `buffer` (empty, or cleared by the caller).
fn read_capped_into(
    mut file: &std::fs::File,
    len: u64,
    max_bytes: u64,
    buffer: &mut Vec<u8>,
) -> Result<(), String> {
    use std::io::Read;
    buffer.reserve(len as usize);
    (&mut file)
        .take(max_bytes.saturating_add(1))
        .read_to_end(buffer)
        .map_err(unreadable)?;
    if buffer.len() as u64 > max_bytes {
        return Err(too_large(buffer.len() as u64, max_bytes));
    }
    Ok(())
}

/// [`read_limited_stamped`] into a shared buffer of the size the file had when opened, which a
/// [`crate::edit::SourceFile`] takes as its text without a copy
/// ([`crate::edit::SourceFile::from_shared_bytes`]). A file that changed size meanwhile is read
/// again as [`read_limited_stamped`] reads it.
pub fn read_shared_stamped(
    path: &Path,
    max_bytes: u64,
) -> Result<(Arc<[u8]>, Option<Stamp>), String> {
    use std::io::Read;
    let (file, len) = open_limited(path, max_bytes)?;
    // Not cleared first: the reads write every byte before any is read (checked below).
    let mut shared = Arc::<[u8]>::new_uninit_slice(len as usize);
    let buffer = Arc::get_mut(&mut shared).expect("a buffer just made has one owner");
    let mut filled = 0;
    while filled < buffer.len() {
        match rustix::io::read(&file, &mut buffer[filled..]) {
            Ok((read, _)) if read.is_empty() => break,
            Ok((read, _)) => filled += read.len(),
            Err(rustix::io::Errno::INTR) => {}
            Err(e) => return Err(unreadable(e.into())),
        }
    }
    let grew = loop {
        match (&file).read(&mut [0u8; 1]) {
            Ok(n) => break n > 0,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(unreadable(e)),
        }
    };
    if grew || filled < buffer.len() {
        let (bytes, stamp) = read_limited_stamped(path, max_bytes)?;
        return Ok((Arc::from(bytes), stamp));
    }
    // SAFETY: the reads filled all `len` bytes (`filled == len`, checked just above).
    let shared = unsafe { shared.assume_init() };
    Ok((shared, stamp_of(&file)))
}

/// The regular file at `path`, opened, and its length when it is at most `max_bytes`.
/// Opened first and then asked its kind and size through the handle (one walk of the path, and
/// the answer is about the file read): without blocking, so a FIFO is refused, not waited on.
fn open_limited(path: &Path, max_bytes: u64) -> Result<(std::fs::File, u64), String> {
    use std::os::unix::fs::OpenOptionsExt;
    let not_regular = || "is not a regular file".to_string();
    let opened = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path);
    let file = match opened {
        Ok(file) => file,
        // A socket cannot be opened at all: it is still "not a regular file", as it always said.
        Err(e) => match std::fs::metadata(path) {
            Ok(meta) if !meta.is_file() => return Err(not_regular()),
            _ => return Err(unreadable(e)),
        },
    };
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    if meta.len() > max_bytes {
        return Err(too_large(meta.len(), max_bytes));
    }
    Ok((file, meta.len()))
}

/// The stamp of an open file as it is now (`fstat` of its handle).
fn stamp_of(file: &std::fs::File) -> Option<Stamp> {
    file.metadata().ok().map(|meta| Stamp::of(&meta))
}

/// Why a file could not be read, as a clause ("cannot be read (…)").
pub(crate) fn unreadable(e: std::io::Error) -> String {
    format!("cannot be read ({e})")
}

/// Why a file of `len` bytes is not read, as a clause ("is … bytes, over …").
pub(crate) fn too_large(len: u64, max_bytes: u64) -> String {
    format!(
        "is {len} bytes, over the {max_bytes}-byte limit (raise `max_file_bytes` in the config file to allow it)"
    )
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
    fn what_is_not_a_regular_file_is_refused_without_waiting_for_it() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("pipe.py");
        rustix::fs::mkfifoat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
        )
        .unwrap();
        // Opened for reading with no writer, a FIFO would block this test forever.
        assert_eq!(
            read_limited(&fifo, 100),
            Err("is not a regular file".to_string())
        );
        assert_eq!(
            read_limited(dir.path(), 100),
            Err("is not a regular file".to_string())
        );
        let gone = read_limited(&dir.path().join("gone.py"), 100).unwrap_err();
        assert!(gone.starts_with("cannot be read ("), "{gone}");
        std::fs::write(dir.path().join("big.py"), "x = 1\n".repeat(50)).unwrap();
        assert_eq!(
            read_limited(&dir.path().join("big.py"), 100),
            Err(too_large(300, 100))
        );
        let mut buffer = b"left over from another file".to_vec();
        std::fs::write(dir.path().join("small.py"), "y = 2\n").unwrap();
        read_limited_into(&dir.path().join("small.py"), 100, &mut buffer).unwrap();
        assert_eq!(buffer, b"y = 2\n");
    }

    #[test]
    fn one_walk_for_several_needles_finds_for_each_what_its_own_walk_finds() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("pkg")).unwrap();
        std::fs::write(
            root.join("pkg/a.py"),
            "import textwrap\ntextwrap.dedent(x)\n",
        )
        .unwrap();
        std::fs::write(root.join("pkg/b.py"), "from textwrap import *\n").unwrap();
        std::fs::write(root.join("pkg/c.py"), "dedent = 1\n").unwrap();
        std::fs::write(root.join("pkg/d.py"), "x = 1\n").unwrap();
        // Over the limit: it cannot be searched, so every needle's list names it.
        std::fs::write(root.join("pkg/e.py"), "y = 2\n".repeat(100)).unwrap();
        let needles = ["dedent", "textwrap", "absent"];
        let each = files_containing_each(root, Language::Python, &needles, 100, &Cancel::never());
        assert_eq!(each.len(), 3);
        let names = |files: &[FoundFile]| -> Vec<(String, bool)> {
            (files.iter())
                .map(|(path, read)| {
                    let name = path.strip_prefix(root).unwrap().display().to_string();
                    (name, read.is_ok())
                })
                .collect()
        };
        let named = |list: &[(&str, bool)]| -> Vec<(String, bool)> {
            list.iter().map(|(n, ok)| (n.to_string(), *ok)).collect()
        };
        assert_eq!(
            names(&each[0]),
            named(&[("pkg/a.py", true), ("pkg/c.py", true), ("pkg/e.py", false)])
        );
        assert_eq!(
            names(&each[1]),
            named(&[("pkg/a.py", true), ("pkg/b.py", true), ("pkg/e.py", false)])
        );
        assert_eq!(names(&each[2]), named(&[("pkg/e.py", false)]));
        // Each file's own bytes (one buffer is read into for every file), and a file found for
        // two needles is one buffer in both lists.
        for (path, read) in each.iter().flatten() {
            if let Ok(bytes) = read {
                assert_eq!(&bytes[..], &std::fs::read(path).unwrap()[..], "{path:?}");
            }
        }
        let a = |list: &[FoundFile]| list[0].1.clone().unwrap();
        assert!(Arc::ptr_eq(&a(&each[0]), &a(&each[1])));
        for (needle, found) in needles.iter().zip(&each) {
            let alone = files_containing(root, Language::Python, needle, 100, &Cancel::never());
            assert_eq!(&alone, found, "{needle}");
        }
    }

    #[test]
    fn files_reached_through_a_link_out_of_the_root_are_reported_not_skipped() {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("far.py"), "helper()\n").unwrap();
        std::fs::write(outside.path().join("quiet.py"), "x = 1\n").unwrap();
        std::fs::create_dir(outside.path().join("pkg")).unwrap();
        std::fs::write(outside.path().join("pkg/deep.py"), "helper(2)\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::write(root.join("a.py"), "helper()\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("far.py"), root.join("far.py")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("quiet.py"), root.join("quiet.py")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("pkg"), root.join("vendored")).unwrap();
        // A link inside the root is not reported: its target is walked as itself.
        std::os::unix::fs::symlink(root.join("a.py"), root.join("alias.py")).unwrap();
        let hits = files_containing(&root, Language::Python, "helper", 1 << 20, &Cancel::never());
        let names: Vec<(String, bool)> = hits
            .iter()
            .map(|(p, r)| {
                (
                    p.strip_prefix(&root).unwrap().display().to_string(),
                    r.is_ok(),
                )
            })
            .collect();
        assert_eq!(
            names,
            vec![
                ("a.py".to_string(), true),
                ("far.py".to_string(), false),
                ("vendored/deep.py".to_string(), false)
            ]
        );
        let reason = hits[1].1.as_ref().unwrap_err();
        assert!(
            reason.contains("symbolic link to the file") && reason.contains("outside the project"),
            "{reason}"
        );
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
