//! Issue 22, item 2, the TUI's parts: a session lists the project's files through the
//! persistent index (building it when the project has none, its progress on the status line),
//! and the list is the walk's: the same with and without the index, a new file seen at once
//! (the index is brought up to date from `stat`).

mod tui_common;

use std::path::Path;
use std::sync::Mutex;

use candor::tui::action::Action;
use candor::workspace::{DiskSources, Limits, Root};
use tui_common::*;

/// 40 Python and Rust files in packages, a text file, a gitignored folder, and a link to a
/// Python file (the walk does not follow it: neither list shows it).
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    for n in 0..20 {
        let pkg = root.join(format!("pkg{}", n % 4));
        std::fs::create_dir_all(&pkg).unwrap();
        std::fs::write(
            pkg.join(format!("m{n}.py")),
            format!("def f{n}():\n    return {n}\n"),
        )
        .unwrap();
        std::fs::write(
            pkg.join(format!("r{n}.rs")),
            format!("pub fn f{n}() {{}}\n"),
        )
        .unwrap();
    }
    std::fs::write(root.join("notes.txt"), "not source\n").unwrap();
    std::fs::write(root.join(".gitignore"), "build/\n").unwrap();
    std::fs::create_dir(root.join("build")).unwrap();
    std::fs::write(root.join("build/gen.py"), "x = 1\n").unwrap();
    std::fs::create_dir(root.join(".git")).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(root.join("pkg0/m0.py"), root.join("alias.py")).unwrap();
    dir
}

fn index_file(root: &Path) -> std::path::PathBuf {
    root.join(".candor/index/index.bin")
}

/// The picker's files, sorted.
fn picker_files(root: &Path) -> Vec<String> {
    let h = open(root, (100, 30));
    assert!(!h.state.picker.scanning);
    assert_eq!(
        h.state.picker.indexing, None,
        "no progress left on the line"
    );
    let mut files = h.state.picker.files.clone();
    files.sort();
    files
}

/// The picker's files with the walk alone (no index used).
fn walked(root: &Path) -> Vec<String> {
    let mut files: Vec<String> =
        candor::workspace::walk::source_files(root, &candor::lang::Language::ALL)
            .iter()
            .map(|p| p.strip_prefix(root).unwrap().to_string_lossy().into_owned())
            .collect();
    files.sort();
    files
}

#[test]
fn the_picker_lists_the_walks_files_through_the_index_and_sees_a_new_file() {
    let dir = project();
    let root = dir.path().canonicalize().unwrap();
    let expected = walked(&root);
    assert_eq!(expected.len(), 40, "{expected:?}");
    assert!(!index_file(&root).exists());

    // The first session builds the index and lists the walk's files.
    assert_eq!(picker_files(&root), expected);
    assert!(index_file(&root).exists(), "the session built the index");

    // A later session lists them from the index; a file written since is there (from `stat`),
    // a removed one is not.
    std::fs::write(root.join("pkg1/fresh.py"), "def fresh():\n    pass\n").unwrap();
    std::fs::remove_file(root.join("pkg2/r2.rs")).unwrap();
    let stamped = std::fs::metadata(index_file(&root))
        .unwrap()
        .modified()
        .unwrap();
    let listed = picker_files(&root);
    assert!(listed.contains(&"pkg1/fresh.py".to_string()), "{listed:?}");
    assert!(!listed.contains(&"pkg2/r2.rs".to_string()), "{listed:?}");
    assert_eq!(listed, walked(&root));
    assert_ne!(
        std::fs::metadata(index_file(&root))
            .unwrap()
            .modified()
            .unwrap(),
        stamped,
        "brought up to date and saved"
    );

    // Without an index that can be read (a broken one), the walk lists the same files.
    std::fs::write(index_file(&root), b"not an index").unwrap();
    assert_eq!(picker_files(&root), listed);
}

#[test]
fn the_first_build_reports_files_done_of_total_before_the_list() {
    let dir = project();
    let root = Root::new(dir.path()).unwrap();
    let sources = DiskSources::new(root.clone(), Limits::default());
    let actions = Mutex::new(Vec::new());
    candor::tui::jobs::walk(&sources, &|action| actions.lock().unwrap().push(action));
    let actions = actions.into_inner().unwrap();
    let progress: Vec<(usize, usize)> = actions
        .iter()
        .filter_map(|a| match a {
            Action::IndexProgress { done, total } => Some((*done, *total)),
            _ => None,
        })
        .collect();
    // Every file the walk lists, the link (kept as a link) included.
    assert_eq!(progress.last(), Some(&(41, 41)), "{progress:?}");
    assert!(
        progress.iter().all(|(d, t)| d <= t && *t == 41),
        "{progress:?}"
    );
    let first_list = actions
        .iter()
        .position(|a| matches!(a, Action::FilesFound(_)))
        .unwrap();
    let last_progress = actions
        .iter()
        .rposition(|a| matches!(a, Action::IndexProgress { .. }))
        .unwrap();
    assert!(last_progress < first_list, "progress, then the list");
    assert!(matches!(
        actions.last(),
        Some(Action::WalkFinished { error: None })
    ));
}

/// The screen as text, drawn at the session's size.
fn screen_text(h: &candor::tui::headless::Headless) -> String {
    use ratatui::{Terminal, backend::TestBackend};
    let (w, hgt) = h.state.size;
    let mut terminal = Terminal::new(TestBackend::new(w, hgt)).unwrap();
    terminal
        .draw(|f| candor::tui::view::render(&h.state, f))
        .unwrap();
    let buffer = terminal.backend().buffer();
    (0..hgt)
        .map(|y| (0..w).map(|x| buffer[(x, y)].symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_status_line_shows_the_builds_progress_until_the_list_is_in() {
    let dir = project();
    let mut h = open(dir.path(), (100, 30));
    // As the build job reports, while the session is still listing.
    h.state.picker.scanning = true;
    h.dispatch(Action::IndexProgress { done: 7, total: 41 });
    let screen = screen_text(&h);
    let status = screen.lines().last().unwrap();
    assert!(status.contains("indexing 7/41 files"), "{screen}");
    h.dispatch(Action::IndexProgress {
        done: 41,
        total: 41,
    });
    assert_eq!(
        h.state.picker.indexing, None,
        "a finished build is not shown"
    );
    h.dispatch(Action::IndexProgress {
        done: 40,
        total: 41,
    });
    h.dispatch(Action::WalkFinished { error: None });
    assert!(!screen_text(&h).contains("indexing"), "{}", screen_text(&h));

    // Opened on a file, the code view's status line says it too.
    let file = dir.path().join("pkg0/m0.py");
    let mut h = candor::tui::headless::Headless::open(
        &file,
        Some(candor::backend::BackendChoice::TreeSitter),
        (100, 30),
    )
    .unwrap();
    h.dispatch(Action::IndexProgress { done: 3, total: 41 });
    let screen = screen_text(&h);
    assert!(
        screen
            .lines()
            .last()
            .unwrap()
            .contains("indexing 3/41 files"),
        "{screen}"
    );
}
