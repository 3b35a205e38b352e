//! The file watcher: watches the directories of the files the UI cares about (a file replaced
//! by a rename stays watched) and reports, debounced, which of them may have new content, with
//! the sha256 of what each holds now. Opening, reading, closing after a read and metadata
//! changes are not changes: language servers and tools read files all the time, and reacting
//! to reads is how a preview ends up recomputing for ever. The UI decides by the hash alone.
//! While undo is offered it also watches the undo journal, so a `candor undo` run in a shell is
//! noticed; and it watches the trust store (`trusted.toml` in the user's config folder, as the
//! trust API names it), so a `candor trust DIR` run in another shell is picked up.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use notify_debouncer_full::notify::event::{AccessKind, AccessMode, ModifyKind};
use notify_debouncer_full::notify::{EventKind, RecommendedWatcher, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, Debouncer, RecommendedCache, new_debouncer};

use crate::workspace::Root;

use super::action::Action;
use super::jobs;

/// How long the watcher waits for a burst of file events to settle.
const DEBOUNCE: Duration = Duration::from_millis(150);

/// Whether an event can mean new content: a write, a create, a rename, a removal. Opens, reads,
/// closes without a write and metadata changes (a `touch`, a `chmod`) cannot.
pub fn may_change_content(kind: &EventKind) -> bool {
    match kind {
        EventKind::Access(AccessKind::Close(AccessMode::Write)) => true,
        EventKind::Access(_) => false,
        EventKind::Modify(ModifyKind::Metadata(_)) => false,
        EventKind::Create(_) | EventKind::Modify(_) | EventKind::Remove(_) => true,
        EventKind::Any | EventKind::Other => true,
    }
}

/// A running watcher; events go to the UI as [`Action::FilesChanged`] and
/// [`Action::JournalChanged`].
pub struct Watcher {
    debouncer: Debouncer<RecommendedWatcher, RecommendedCache>,
    root: Root,
    interest: Arc<Mutex<HashSet<String>>>,
    dirs: BTreeSet<PathBuf>,
    /// The journal folder, while it is watched.
    journal: Option<PathBuf>,
    /// The trust store's file, shared with the event handler.
    trust_store: Arc<Mutex<Option<PathBuf>>>,
    /// The folder watched for it: its own, or the nearest one that exists until that does.
    trust_dir: Option<PathBuf>,
}

/// Where the undo journal lives in a project.
fn journal_dir(root: &Root) -> PathBuf {
    root.path().join(".candor").join("journal")
}

impl Watcher {
    pub fn new(root: Root, tx: Sender<Action>) -> notify_debouncer_full::notify::Result<Watcher> {
        let interest: Arc<Mutex<HashSet<String>>> = Arc::default();
        let handler_interest = interest.clone();
        let trust_store: Arc<Mutex<Option<PathBuf>>> = Arc::default();
        let handler_store = trust_store.clone();
        let handler_root = root.clone();
        let journal = journal_dir(&root);
        let debouncer = new_debouncer(DEBOUNCE, None, move |result: DebounceEventResult| {
            let Ok(events) = result else { return };
            if events
                .iter()
                .filter(|e| may_change_content(&e.kind))
                .flat_map(|e| e.paths.iter())
                .any(|p| p.starts_with(&journal))
            {
                let _ = tx.send(Action::JournalChanged);
            }
            let store = handler_store.lock().ok().and_then(|s| s.clone());
            if let Some(store) = store
                && events
                    .iter()
                    .filter(|e| may_change_content(&e.kind))
                    .flat_map(|e| e.paths.iter())
                    // The file itself, or a folder on its way being created.
                    .any(|p| *p == store || store.starts_with(p))
            {
                let _ = tx.send(Action::TrustStoreChanged);
            }
            let Ok(interest) = handler_interest.lock() else {
                return;
            };
            let mut changed: Vec<String> = events
                .iter()
                .filter(|e| may_change_content(&e.kind))
                .flat_map(|e| e.paths.iter())
                .filter_map(|p| handler_root.relative_of(p))
                .filter(|p| interest.contains(p))
                .collect();
            drop(interest);
            changed.sort();
            changed.dedup();
            if !changed.is_empty() {
                let _ = tx.send(Action::FilesChanged(jobs::hashes(&handler_root, &changed)));
            }
        })?;
        Ok(Watcher {
            debouncer,
            root,
            interest,
            dirs: BTreeSet::new(),
            journal: None,
            trust_store,
            trust_dir: None,
        })
    }

    /// Watches the trust store at `path` (its folder, or the nearest existing folder above it
    /// until that is created: call again after a report to follow it down).
    pub fn watch_trust_store(&mut self, path: &Path) {
        if let Ok(mut store) = self.trust_store.lock() {
            *store = Some(path.to_path_buf());
        }
        let Some(dir) = path.ancestors().skip(1).find(|d| d.is_dir()) else {
            return;
        };
        if self.trust_dir.as_deref() == Some(dir) {
            return;
        }
        if let Some(old) = self.trust_dir.take() {
            let _ = self.debouncer.unwatch(&old);
        }
        if self
            .debouncer
            .watch(dir, RecursiveMode::NonRecursive)
            .is_ok()
        {
            self.trust_dir = Some(dir.to_path_buf());
        }
    }

    /// Watches the undo journal (when it exists) or stops.
    pub fn watch_journal(&mut self, on: bool) {
        if let Some(dir) = self.journal.take() {
            let _ = self.debouncer.unwatch(&dir);
        }
        let dir = journal_dir(&self.root);
        if on && dir.is_dir() && self.debouncer.watch(&dir, RecursiveMode::Recursive).is_ok() {
            self.journal = Some(dir);
        }
    }

    /// Watches exactly these project-relative paths from now on.
    pub fn set(&mut self, paths: &[String]) {
        if let Ok(mut interest) = self.interest.lock() {
            *interest = paths.iter().cloned().collect();
        }
        let wanted: BTreeSet<PathBuf> = paths
            .iter()
            .filter_map(|p| self.root.resolve(p).ok())
            .filter_map(|r| r.absolute.parent().map(Path::to_path_buf))
            .filter(|d| d.is_dir())
            .collect();
        for gone in self.dirs.difference(&wanted) {
            let _ = self.debouncer.unwatch(gone);
        }
        for new in wanted.difference(&self.dirs) {
            let _ = self.debouncer.watch(new, RecursiveMode::NonRecursive);
        }
        self.dirs = wanted;
    }
}

#[cfg(test)]
mod tests {
    use std::sync::mpsc;

    use notify_debouncer_full::notify::event::{CreateKind, DataChange, MetadataKind};

    use super::*;

    #[test]
    fn reads_and_metadata_are_not_changes() {
        assert!(!may_change_content(&EventKind::Access(AccessKind::Open(
            AccessMode::Any
        ))));
        assert!(!may_change_content(&EventKind::Access(AccessKind::Close(
            AccessMode::Read
        ))));
        assert!(!may_change_content(&EventKind::Access(AccessKind::Read)));
        assert!(!may_change_content(&EventKind::Modify(
            ModifyKind::Metadata(MetadataKind::WriteTime)
        )));
        assert!(may_change_content(&EventKind::Access(AccessKind::Close(
            AccessMode::Write
        ))));
        assert!(may_change_content(&EventKind::Modify(ModifyKind::Data(
            DataChange::Any
        ))));
        assert!(may_change_content(&EventKind::Create(CreateKind::File)));
    }

    #[test]
    fn the_watcher_reports_an_outside_change_with_its_new_hash() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.py"), "x = 1\n").unwrap();
        std::fs::write(dir.path().join("src/other.py"), "y = 1\n").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let (tx, rx) = mpsc::channel();
        let mut watcher = Watcher::new(root.clone(), tx).unwrap();
        watcher.set(&["src/a.py".to_string()]);
        std::fs::write(dir.path().join("src/other.py"), "y = 2\n").unwrap();
        std::fs::write(dir.path().join("src/a.py"), "x = 2\n").unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        let expected = crate::edit::sha256_hex(b"x = 2\n");
        loop {
            let remaining = deadline.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(remaining) {
                Ok(Action::FilesChanged(changed)) => {
                    assert!(
                        changed.iter().all(|(p, _)| p == "src/a.py"),
                        "only watched files: {changed:?}"
                    );
                    if changed
                        .iter()
                        .any(|(_, h)| h.as_deref() == Some(expected.as_str()))
                    {
                        break;
                    }
                }
                Ok(_) => {}
                Err(_) => panic!("no change reported within 10 s"),
            }
        }
    }

    #[test]
    fn a_change_in_the_undo_journal_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join(".candor/journal/000001-x");
        std::fs::create_dir_all(&journal).unwrap();
        std::fs::write(journal.join("status.json"), "{}").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let (tx, rx) = mpsc::channel();
        let mut watcher = Watcher::new(root, tx).unwrap();
        watcher.watch_journal(true);
        std::fs::write(journal.join("status.json"), "{\"undone\": true}").unwrap();
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        loop {
            let remaining = deadline.saturating_duration_since(std::time::Instant::now());
            match rx.recv_timeout(remaining) {
                Ok(Action::JournalChanged) => break,
                Ok(_) => {}
                Err(_) => panic!("no journal change reported within 10 s"),
            }
        }
        watcher.watch_journal(false);
        while rx.try_recv().is_ok() {}
        std::fs::write(journal.join("status.json"), "{}").unwrap();
        assert!(
            rx.recv_timeout(Duration::from_millis(800)).is_err(),
            "not watched any more"
        );
    }

    #[test]
    fn a_change_of_the_trust_store_is_reported_even_before_its_folder_exists() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir(&project).unwrap();
        let root = Root::new(&project).unwrap();
        let (tx, rx) = mpsc::channel();
        let mut watcher = Watcher::new(root, tx).unwrap();
        let store = dir.path().join("config/candor/trusted.toml");
        watcher.watch_trust_store(&store);
        let wait = |what: &str| {
            let deadline = std::time::Instant::now() + Duration::from_secs(10);
            loop {
                let remaining = deadline.saturating_duration_since(std::time::Instant::now());
                match rx.recv_timeout(remaining) {
                    Ok(Action::TrustStoreChanged) => break,
                    Ok(_) => {}
                    Err(_) => panic!("no report within 10 s: {what}"),
                }
            }
        };
        std::fs::create_dir_all(store.parent().unwrap()).unwrap();
        wait("the folder created");
        watcher.watch_trust_store(&store);
        std::fs::write(&store, "[[project]]\n").unwrap();
        wait("the store written");
    }

    #[test]
    fn reading_a_watched_file_reports_nothing() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "x = 1\n").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let (tx, rx) = mpsc::channel();
        let mut watcher = Watcher::new(root, tx).unwrap();
        watcher.set(&["a.py".to_string()]);
        // What a language server does on every request: open, read, close.
        for _ in 0..20 {
            let _ = std::fs::read(dir.path().join("a.py")).unwrap();
        }
        match rx.recv_timeout(Duration::from_millis(800)) {
            Err(_) => {}
            Ok(action) => panic!("a read was reported as a change: {action:?}"),
        }
    }
}
