//! The blocking work behind each effect, as plain functions: walk the project, load a file,
//! compute a preview with the engine, apply it through the engine's writer, undo it, hash
//! watched files. The runtime runs them on worker threads; tests call them in line.

use std::path::Path;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::api::{ApiError, Engine, ToolCall};
use crate::backend::BackendChoice;
use crate::backend::Outcome;
use crate::edit::{FileChange, sha256_hex};
use crate::lang::Language;
use crate::trust::{Trust, TrustStore};
use crate::workspace::write::ApplyReport;
use crate::workspace::{DiskSources, Root};

use super::action::{Action, UndoDone, UndoRefused};
use super::diffview;
use super::document::Document;
use super::state::{LspStatus, Ready};

/// Files per `FilesFound` batch, and the longest a found file waits before it is sent.
const BATCH: usize = 512;
const BATCH_DELAY: Duration = Duration::from_millis(40);

/// The longest between two `IndexProgress` reports.
const PROGRESS_EVERY: Duration = Duration::from_millis(50);

/// Lists the project's Rust and Python files, sending them in batches, then `WalkFinished`:
/// from the persistent index when there is a usable one (built first when the project has none,
/// with `IndexProgress` reports; brought up to date from `stat` otherwise), else by the walk
/// (.gitignore-aware, in parallel), sent as they are found. Both list the same files.
pub fn walk(sources: &DiskSources, send: &(dyn Fn(Action) + Sync)) {
    let last = Mutex::new(None::<Instant>);
    let progress = |done: usize, total: usize| {
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        if done == total || last.is_none_or(|at| at.elapsed() >= PROGRESS_EVERY) {
            *last = Some(Instant::now());
            send(Action::IndexProgress { done, total });
        }
    };
    if let Some(files) = sources.indexed_source_files(true, Some(&progress)) {
        for batch in files.chunks(BATCH) {
            send(Action::FilesFound(batch.to_vec()));
        }
        send(Action::WalkFinished { error: None });
        return;
    }
    walk_files(&sources.root, send);
}

/// Walks `root` for Rust and Python files (.gitignore-aware, in parallel), sending them in
/// batches as they are found, then `WalkFinished`.
fn walk_files(root: &Root, send: &(dyn Fn(Action) + Sync)) {
    let pending: Mutex<(Vec<String>, Instant)> = Mutex::new((Vec::new(), Instant::now()));
    let flush = |batch: &mut (Vec<String>, Instant)| {
        if !batch.0.is_empty() {
            send(Action::FilesFound(std::mem::take(&mut batch.0)));
        }
        batch.1 = Instant::now();
    };
    crate::workspace::walk::stream_source_files(root.path(), &Language::ALL, &|path| {
        if let Some(relative) = root.relative_of(&path)
            && let Ok(mut batch) = pending.lock()
        {
            batch.0.push(relative);
            if batch.0.len() >= BATCH || batch.1.elapsed() >= BATCH_DELAY {
                flush(&mut batch);
            }
        }
        true
    });
    if let Ok(mut batch) = pending.lock() {
        flush(&mut batch);
    }
    send(Action::WalkFinished { error: None });
}

/// Reads and prepares a file for the code view. The tree comes from the sources' cache: a file
/// that changed since it was last parsed is re-parsed incrementally from its previous tree, and
/// the new tree stays there, so a preview of the same content does not parse it again.
pub fn load_file(sources: &DiskSources, path: &str) -> Result<Box<Document>, String> {
    let source = sources
        .read(path)
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{path} does not exist"))?;
    let tree = source
        .language()
        .map(|lang| sources.parse_reusing(lang, &source));
    let doc = match tree {
        Some(tree) => Document::with_tree(source, tree)?,
        None => Document::new(source)?,
    };
    Ok(Box::new(doc))
}

/// Resolves the typed call as `candor call` does after parsing and computes the refactor,
/// without writing; the diff model is built here, off the UI thread.
pub fn preview(engine: &Engine, call: ToolCall) -> Result<Box<Ready>, ApiError> {
    let started = Instant::now();
    let call = engine.resolve(call)?;
    let outcome = engine.preview(&call)?;
    let diffs = outcome
        .plan
        .changes
        .iter()
        .map(|c| diffview::file_diff(c, false))
        .collect();
    // The TUI checks every result unless the call or the project says otherwise.
    let verify = engine.verify_level(&call.options, crate::verify::Level::Check);
    let mut ready = Ready::new(call, outcome, diffs, verify);
    ready.took = started.elapsed();
    Ok(Box::new(ready))
}

/// Writes the outcome that was on screen, through the engine: it computes the plan again and
/// writes it only if it is exactly the one on screen (else `stale_file`, naming what differs),
/// with hash checks, atomic writes and rollback.
pub fn apply(engine: &Engine, outcome: &Outcome, call: &ToolCall) -> Result<ApplyReport, ApiError> {
    engine.apply_previewed(call, outcome)?.ok_or_else(|| {
        ApiError::new(
            crate::api::ErrorCode::InvalidArgument,
            "the refactor changes nothing; nothing was written",
        )
    })
}

/// Starts the language server of `path`'s language and waits until it is ready (a worker
/// thread does this when a file is opened). Failures show in the status, not here.
pub fn warm_up(engine: &Engine, path: &str) -> Result<(), String> {
    engine
        .lsp()
        .start(
            engine.root(),
            path,
            &crate::backend::lsp::ServerOverride::default(),
        )
        .map(|_| ())
        .map_err(|e| e.reason())
}

/// What the language server of `path`'s language is doing, for the title bar; `None` before
/// it is started. Never waits for a running request.
pub fn lsp_status(engine: &Engine, path: &str) -> Option<LspStatus> {
    use crate::backend::lsp::ServerStatus;
    let lang = Language::from_path(path)?;
    let name = match lang {
        Language::Rust => "rust-analyzer",
        Language::Python => "Python language server",
    };
    let (text, busy) = match engine.lsp().status(lang) {
        ServerStatus::NotStarted => return None,
        ServerStatus::Starting => (format!("{name}: starting"), true),
        ServerStatus::Indexing { percent, message } => {
            let mut text = format!("{name}: indexing");
            if let Some(p) = percent {
                text.push_str(&format!(" {p}%"));
            }
            if let Some(m) = message.filter(|m| !m.is_empty()) {
                text.push_str(&format!(" ({m})"));
            }
            (text, true)
        }
        ServerStatus::Ready => (format!("{name}: ready"), false),
        ServerStatus::Failed(reason) => (
            format!("{name}: unavailable ({reason}); the heuristic is used"),
            false,
        ),
    };
    Some(LspStatus { text, busy })
}

/// Restores the files of the last refactor written in this session, when each still holds
/// exactly what candor wrote; otherwise nothing is restored. Goes through the undo journal
/// (`workspace::undo`), so the history stays right and a crash mid-undo is recovered.
pub fn undo(
    engine: &Engine,
    _changes: &[FileChange],
    transaction: Option<&str>,
) -> Result<UndoDone, UndoRefused> {
    let id = transaction.ok_or_else(|| UndoRefused {
        message: "nothing to undo: that write was not recorded in the journal".to_string(),
        nothing_left: true,
    })?;
    // `not_found` is the engine's word for "nothing left to undo there" (already undone,
    // unknown, never applied); anything else (changed since, io) may pass once fixed.
    let report = engine.undo(Some(id)).map_err(|e| UndoRefused {
        nothing_left: e.code == crate::api::ErrorCode::NotFound,
        message: e.message,
    })?;
    match report.undone {
        Some(undone) => Ok(UndoDone {
            merged: undone
                .merged
                .iter()
                .map(|(path, kept)| crate::workspace::undo::describe_merge(path, kept))
                .collect(),
            files: undone.files,
        }),
        None => Err(UndoRefused {
            message: crate::workspace::undo::describe_report(&report),
            nothing_left: false,
        }),
    }
}

/// What the journal says of `transaction` now (`applied`, `undone by …`, …), `None` when it is
/// not there (or the journal cannot be read). Reads only: takes no lock, recovers nothing.
pub fn undo_state(root: &Root, transaction: &str) -> Option<String> {
    crate::workspace::undo::history(root)
        .ok()?
        .into_iter()
        .find(|entry| entry.id == transaction)
        .map(|entry| entry.state)
}

/// The project's trust as the store records it now.
pub fn read_trust(store: &TrustStore, root: &Root) -> Result<Trust, String> {
    store.of_project(root.path()).map_err(|e| e.to_string())
}

/// Trusts the project at `root` (`trust`) or stops trusting it, then reads its trust back.
pub fn set_trust(store: &TrustStore, root: &Root, trust: bool) -> Result<Trust, String> {
    if trust {
        store.trust(root.path()).map_err(|e| e.to_string())?;
    } else {
        store.revoke(root.path()).map_err(|e| e.to_string())?;
    }
    read_trust(store, root)
}

/// The engine opened again on `root` with the trust the store records now (the config read
/// again too): what `candor` does at start-up.
pub fn reopen_engine(
    root: &Root,
    backend: Option<BackendChoice>,
    store: Option<&TrustStore>,
    config: Option<&crate::config::Config>,
) -> Result<Engine, String> {
    match (store, config) {
        (Some(store), Some(config)) => {
            let trust = read_trust(store, root)?;
            Ok(Engine::with_settings(
                root.clone(),
                config.clone(),
                backend,
                trust,
            ))
        }
        _ => Engine::open(root.path(), backend).map_err(|e| e.message),
    }
}

/// Whether the project folder `dir` (project-relative) exists.
pub fn folder_exists(root: &Root, dir: &str) -> bool {
    root.resolve(dir).is_ok_and(|r| r.absolute.is_dir())
}

/// The split remembered in the user's config folder (the default when nothing is).
pub fn load_split() -> Result<crate::tui::layout::Split, String> {
    let Some(path) = super::settings::path() else {
        return Ok(Default::default());
    };
    match std::fs::read_to_string(&path) {
        Ok(text) => super::settings::parse(&text).map_err(|e| {
            format!(
                "{}: {e}; the preview splits the width automatically until it is fixed",
                path.display()
            )
        }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Default::default()),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Remembers `split` in the user's config folder.
pub fn save_split(split: crate::tui::layout::Split) -> Result<(), String> {
    let Some(path) = super::settings::path() else {
        return Ok(());
    };
    let failed =
        |e: std::io::Error| format!("cannot remember the split in {}: {e}", path.display());
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    crate::workspace::write::write_atomically(&path, super::settings::format(split).as_bytes())
        .map_err(failed)
}

/// The sha256 of what each path holds now (`None` when it is gone or unreadable).
pub fn hashes(root: &Root, paths: &[String]) -> Vec<(String, Option<String>)> {
    paths
        .iter()
        .map(|path| {
            let hash = root
                .resolve(path)
                .ok()
                .and_then(|r| std::fs::read(&r.real).ok())
                .map(|bytes| sha256_hex(&bytes));
            (path.clone(), hash)
        })
        .collect()
}

/// What marks the root of a project: a build manifest or a repository.
pub const PROJECT_MARKERS: [&str; 5] = [
    "Cargo.toml",
    "pyproject.toml",
    "setup.py",
    "setup.cfg",
    ".git",
];

/// Finds the project of a path given on the command line: a directory is the root; a file
/// opens in the nearest enclosing directory holding a [`PROJECT_MARKERS`] entry (a crate inside
/// a repository is its own project: its calls are what a refactor of it touches), else its own
/// directory. Also the file's path in that project.
pub fn project_of(path: &Path) -> std::io::Result<(std::path::PathBuf, Option<String>)> {
    let canonical = path.canonicalize()?;
    if canonical.is_dir() {
        return Ok((canonical, None));
    }
    let dir = canonical.parent().unwrap_or(Path::new("/")).to_path_buf();
    let root = dir
        .ancestors()
        .find(|d| PROJECT_MARKERS.iter().any(|m| d.join(m).exists()))
        .unwrap_or(&dir)
        .to_path_buf();
    let relative = canonical
        .strip_prefix(&root)
        .map(|p| {
            p.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/")
        })
        .ok();
    Ok((root, relative))
}

/// How the title bar names the project root: relative to the working directory when inside
/// it (`assets/demo/rust`; `.`'s own name when it is the root), else with `~` for the home
/// directory, else absolute.
pub fn display_root(root: &Path, cwd: Option<&Path>, home: Option<&Path>) -> String {
    let name = || {
        root.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "/".to_string())
    };
    if let Some(inside) = cwd.and_then(|cwd| root.strip_prefix(cwd).ok()) {
        return match inside.to_string_lossy() {
            text if text.is_empty() => name(),
            text => text.into_owned(),
        };
    }
    if let Some(inside) = home.and_then(|home| root.strip_prefix(home).ok()) {
        return format!("~/{}", inside.to_string_lossy());
    }
    root.display().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_file_is_parsed_again_from_its_previous_tree() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (0..300)
            .map(|i| format!("def f{i}(a, b):\n    return g(a + b * {i})\n\n\n"))
            .collect();
        std::fs::write(dir.path().join("big.py"), &text).unwrap();
        let sources = DiskSources::new(Root::new(dir.path()).unwrap(), Default::default());
        let first = load_file(&sources, "big.py").unwrap();
        let source = sources.read("big.py").unwrap().unwrap();
        let old_tree = sources.parse_reusing(Language::Python, &source);

        let edited = text.replace("b * 250)", "b * 250 + 1)");
        std::fs::write(dir.path().join("big.py"), &edited).unwrap();
        let second = load_file(&sources, "big.py").unwrap();
        assert_ne!(first.sha256, second.sha256);
        // The tree the code view was built from is the one the cache now holds for the new text.
        let source = sources.read("big.py").unwrap().unwrap();
        let tree = sources.parse_reusing(Language::Python, &source);
        // tree-sitter keeps the id of each node it reuses: most of the old tree was reused.
        let (reused, total) = crate::lang::incremental::tests::reused_nodes(&old_tree, &tree);
        assert!(reused * 10 >= total * 7, "{reused} of {total} nodes reused");
        assert_eq!(
            tree.root_node().to_sexp(),
            Language::Python.parse(&edited).root_node().to_sexp()
        );
        assert_eq!(
            second.symbols,
            Document::new(source).unwrap().symbols,
            "the same outline as a full parse"
        );
    }

    #[test]
    fn a_file_opens_in_the_project_of_its_nearest_marker() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("assets/demo/rust/src")).unwrap();
        std::fs::create_dir_all(root.join("assets/demo/python/shop")).unwrap();
        std::fs::write(root.join("assets/demo/rust/Cargo.toml"), "[package]\n").unwrap();
        std::fs::write(root.join("assets/demo/rust/src/lib.rs"), "fn a() {}\n").unwrap();
        std::fs::write(root.join("assets/demo/python/shop/a.py"), "x = 1\n").unwrap();
        // The crate's manifest is nearer than the repository around it.
        let (found, file) = project_of(&root.join("assets/demo/rust/src/lib.rs")).unwrap();
        assert_eq!(
            (found, file.as_deref()),
            (root.join("assets/demo/rust"), Some("src/lib.rs"))
        );
        // No manifest on the way: the repository.
        let (found, file) = project_of(&root.join("assets/demo/python/shop/a.py")).unwrap();
        assert_eq!(
            (found, file.as_deref()),
            (root.clone(), Some("assets/demo/python/shop/a.py"))
        );
        std::fs::write(root.join("assets/demo/python/pyproject.toml"), "").unwrap();
        let (found, _) = project_of(&root.join("assets/demo/python/shop/a.py")).unwrap();
        assert_eq!(found, root.join("assets/demo/python"));
        assert_eq!(project_of(&root).unwrap(), (root.clone(), None));
        assert!(project_of(&root.join("missing.rs")).is_err());
    }

    #[test]
    fn the_root_is_named_as_the_user_sees_it() {
        let root = Path::new("/home/ann/src/repo/assets/demo/rust");
        let cwd = Path::new("/home/ann/src/repo");
        let home = Path::new("/home/ann");
        assert_eq!(
            display_root(root, Some(cwd), Some(home)),
            "assets/demo/rust"
        );
        assert_eq!(display_root(cwd, Some(cwd), Some(home)), "repo");
        assert_eq!(
            display_root(root, Some(Path::new("/tmp")), Some(home)),
            "~/src/repo/assets/demo/rust"
        );
        assert_eq!(
            display_root(Path::new("/opt/x"), Some(cwd), Some(home)),
            "/opt/x"
        );
    }

    #[test]
    fn undo_restores_only_what_candor_wrote() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let engine = Engine::open_bare(dir.path()).unwrap();
        std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
        let source = crate::edit::SourceFile::from_text("a.py", "x = 1\n");
        let change =
            FileChange::modify(&source, vec![crate::edit::TextEdit::new(4..5, "2")]).unwrap();
        let created = FileChange::create("b.py", "y = 1\n");
        let apply = |changes: &[FileChange]| {
            crate::workspace::write::apply(
                &root,
                changes,
                &Default::default(),
                crate::honesty::Tool::InlineFunction,
            )
            .unwrap()
            .transaction
        };
        let id = apply(&[change.clone(), created.clone()]);
        assert_eq!(
            undo(&engine, &[], id.as_deref()).unwrap().files,
            vec!["a.py", "b.py"]
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
            "x = 1\n"
        );
        assert!(!dir.path().join("b.py").exists());
        let id = apply(&[change]);
        std::fs::write(dir.path().join("a.py"), "x = 3\n").unwrap();
        let err = undo(&engine, &[], id.as_deref()).unwrap_err();
        assert!(err.message.contains("a.py changed"), "{err:?}");
        assert!(!err.nothing_left);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.py")).unwrap(),
            "x = 3\n"
        );
        assert!(undo(&engine, &[], None).is_err());
    }
}
