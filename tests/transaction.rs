//! The transaction writer and undo through the library: a plan is written exactly or not at all,
//! stale files are refused, a failure midway is rolled back and reported, interrupted transactions
//! are recovered, undo restores bytes exactly or refuses naming the changed file, and the journal
//! stays bounded. Property tests: applying then inverting edits gives back the original bytes, and
//! bytes outside the edited ranges never change — in memory and on disk.

mod common;

use std::collections::BTreeMap;
use std::os::unix::fs::PermissionsExt;
use std::time::Duration;

use candor::edit::{self, FileChange, SourceFile, TextEdit, sha256_hex};
use candor::honesty::Tool;
use candor::refactor::SourceError;
use candor::workspace::Root;
use candor::workspace::transaction::Hooks;
use candor::workspace::undo::{self, UndoError};
use candor::workspace::write::{self, WriteError};
use common::{modify, project, snapshot};
use proptest::prelude::*;

const A: &[u8] = b"\xEF\xBB\xBFdef a():\r\n\treturn 1   \r\n";
const B: &[u8] = b"def b():\n    return 2\n\n\n# no final newline";
const C: &[u8] = b"fn c() -> i32 {\n\t3\n}\n";

fn no_expectations() -> BTreeMap<String, String> {
    BTreeMap::new()
}

fn apply(root: &Root, changes: &[FileChange]) -> Result<write::ApplyReport, WriteError> {
    write::apply_with_hooks(
        root,
        changes,
        &no_expectations(),
        Tool::ChangeSignature,
        &Hooks::default(),
    )
}

/// Three edits, one created file in a new folder, one file edited through a symlink.
fn sample_project() -> (tempfile::TempDir, Vec<FileChange>) {
    let dir = project(&[
        ("a.py", A),
        ("b.py", B),
        ("src/c.rs", C),
        ("real.py", b"x = 1\n"),
    ]);
    std::os::unix::fs::symlink("real.py", dir.path().join("link.py")).unwrap();
    std::fs::set_permissions(
        dir.path().join("a.py"),
        std::fs::Permissions::from_mode(0o751),
    )
    .unwrap();
    let changes = vec![
        modify(dir.path(), "a.py", &[("return 1", "return one")]),
        modify(dir.path(), "b.py", &[("2", "two"), ("final", "FINAL")]),
        modify(dir.path(), "src/c.rs", &[("\t3", "\t4")]),
        FileChange::create("pkg/sub/new.py", "def new():\r\n    pass\r\n"),
        modify(dir.path(), "link.py", &[("1", "2")]),
    ];
    (dir, changes)
}

#[test]
fn apply_writes_exactly_the_plan_and_undo_restores_every_byte() {
    let (dir, changes) = sample_project();
    let root = Root::new(dir.path()).unwrap();
    let before = snapshot(dir.path());

    let report = apply(&root, &changes).unwrap();
    assert!(report.transaction.is_some());
    assert_eq!(report.created, vec!["pkg/sub/new.py"]);
    assert_eq!(
        std::fs::read(dir.path().join("a.py")).unwrap(),
        b"\xEF\xBB\xBFdef a():\r\n\treturn one   \r\n"
    );
    assert_eq!(
        std::fs::read(dir.path().join("b.py")).unwrap(),
        b"def b():\n    return two\n\n\n# no FINAL newline"
    );
    assert_eq!(
        std::fs::read(dir.path().join("src/c.rs")).unwrap(),
        b"fn c() -> i32 {\n\t4\n}\n"
    );
    assert_eq!(
        std::fs::read(dir.path().join("pkg/sub/new.py")).unwrap(),
        b"def new():\r\n    pass\r\n"
    );
    // Written through the link to its target; the link stays a link.
    assert!(
        std::fs::symlink_metadata(dir.path().join("link.py"))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert_eq!(
        std::fs::read(dir.path().join("real.py")).unwrap(),
        b"x = 2\n"
    );
    assert_eq!(
        std::fs::metadata(dir.path().join("a.py"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o751
    );
    let after = snapshot(dir.path());
    let changed: Vec<&String> = after
        .keys()
        .filter(|k| before.get(*k) != after.get(*k))
        .collect();
    assert_eq!(
        changed,
        [
            "a.py",
            "b.py",
            "pkg/",
            "pkg/sub/",
            "pkg/sub/new.py",
            "real.py",
            "src/c.rs"
        ]
    );

    let report = undo::undo_last(&root).unwrap();
    let undone = report.undone.unwrap();
    assert_eq!(undone.removed, vec!["pkg/sub/new.py"]);
    assert_eq!(
        snapshot(dir.path()),
        before,
        "undo gives back every byte, removes the created file and folders"
    );
    assert_eq!(
        std::fs::metadata(dir.path().join("a.py"))
            .unwrap()
            .permissions()
            .mode()
            & 0o777,
        0o751
    );
    assert!(matches!(
        undo::undo_last(&root),
        Err(UndoError::NothingToUndo)
    ));
}

#[test]
fn a_stale_base_or_expected_hash_writes_nothing() {
    let (dir, changes) = sample_project();
    let root = Root::new(dir.path()).unwrap();
    std::fs::write(dir.path().join("src/c.rs"), b"fn c() -> i32 {\n\t30\n}\n").unwrap();
    let before = snapshot(dir.path());
    match apply(&root, &changes) {
        Err(WriteError::Stale { path, done, .. }) => {
            assert_eq!(path, "src/c.rs");
            assert_eq!(done, Default::default());
        }
        other => panic!("expected stale_file, got {other:?}"),
    }
    assert_eq!(snapshot(dir.path()), before);

    // The caller's expected hashes: of a planned file, and of a file the plan only read.
    let (dir, changes) = sample_project();
    let root = Root::new(dir.path()).unwrap();
    let before = snapshot(dir.path());
    for path in ["a.py", "unrelated.py"] {
        let expected = BTreeMap::from([(path.to_string(), sha256_hex(b"what the caller saw"))]);
        let err = write::apply_with_hooks(
            &root,
            &changes,
            &expected,
            Tool::InlineFunction,
            &Hooks::default(),
        )
        .unwrap_err();
        assert!(
            matches!(&err, WriteError::Stale { path: p, .. } if p == path),
            "{err:?}"
        );
        assert!(err.to_string().contains("nothing was written"), "{err}");
        assert_eq!(snapshot(dir.path()), before);
    }
    let expected = BTreeMap::from([("a.py".to_string(), sha256_hex(A).to_uppercase())]);
    write::apply_with_hooks(
        &root,
        &changes,
        &expected,
        Tool::InlineFunction,
        &Hooks::default(),
    )
    .unwrap();
    assert_ne!(snapshot(dir.path()), before);

    // A file the plan creates that appeared meanwhile is not overwritten.
    let dir = project(&[("a.py", A)]);
    let root = Root::new(dir.path()).unwrap();
    let plan = vec![FileChange::create("new.py", "x = 1\n")];
    std::fs::write(dir.path().join("new.py"), b"mine\n").unwrap();
    assert!(matches!(
        apply(&root, &plan),
        Err(WriteError::AlreadyExists { .. })
    ));
    assert_eq!(std::fs::read(dir.path().join("new.py")).unwrap(), b"mine\n");
}

#[test]
fn a_failure_midway_restores_what_was_written_and_says_so() {
    let (dir, changes) = sample_project();
    let root = Root::new(dir.path()).unwrap();
    let before = snapshot(dir.path());
    let hooks = Hooks {
        fail_before_file: Some(4),
        ..Hooks::default()
    };
    let err = write::apply_with_hooks(
        &root,
        &changes,
        &no_expectations(),
        Tool::MoveToFile,
        &hooks,
    )
    .unwrap_err();
    match &err {
        WriteError::Io { path, done, .. } => {
            assert_eq!(path, "link.py");
            assert_eq!(
                done.restored,
                vec!["a.py", "b.py", "src/c.rs", "pkg/sub/new.py"]
            );
            assert!(done.not_restored.is_empty());
        }
        other => panic!("expected an io error, got {other:?}"),
    }
    assert!(
        err.to_string().contains(
            "the files already written were restored: a.py, b.py, src/c.rs, pkg/sub/new.py"
        ),
        "{err}"
    );
    assert_eq!(
        snapshot(dir.path()),
        before,
        "the created file and its folders are gone again"
    );
    let history = undo::history(&root).unwrap();
    assert_eq!(history.len(), 1);
    assert_eq!(history[0].state, "rolled back");
    assert!(matches!(
        undo::undo_last(&root),
        Err(UndoError::NothingToUndo)
    ));
}

#[test]
fn a_file_changed_midway_is_not_clobbered_and_the_rest_is_rolled_back() {
    let (dir, changes) = sample_project();
    let root = Root::new(dir.path()).unwrap();
    let a_after = changes[0].after_bytes();
    let hooks = Hooks {
        pause: Some(Duration::from_millis(300)),
        ..Hooks::default()
    };
    let project_dir = dir.path().to_path_buf();
    let editor = std::thread::spawn(move || {
        // As soon as the writer has written a.py (it then pauses 300 ms), edit src/c.rs.
        while std::fs::read(project_dir.join("a.py")).unwrap() != a_after {
            std::thread::sleep(Duration::from_millis(2));
        }
        std::fs::write(project_dir.join("src/c.rs"), b"// edited meanwhile\n").unwrap();
    });
    let err = write::apply_with_hooks(
        &root,
        &changes,
        &no_expectations(),
        Tool::ExtractFunction,
        &hooks,
    )
    .unwrap_err();
    editor.join().unwrap();
    match &err {
        WriteError::Stale { path, done, .. } => {
            assert_eq!(path, "src/c.rs");
            assert_eq!(done.restored, vec!["a.py", "b.py"]);
        }
        other => panic!("expected stale_file, got {other:?}"),
    }
    assert_eq!(
        std::fs::read(dir.path().join("src/c.rs")).unwrap(),
        b"// edited meanwhile\n"
    );
    assert_eq!(std::fs::read(dir.path().join("a.py")).unwrap(), A);
    assert_eq!(std::fs::read(dir.path().join("b.py")).unwrap(), B);
    assert!(!dir.path().join("pkg").exists());
}

#[test]
fn undo_refuses_when_a_file_changed_since_and_works_once_it_is_back() {
    let (dir, changes) = sample_project();
    let root = Root::new(dir.path()).unwrap();
    let before = snapshot(dir.path());
    apply(&root, &changes).unwrap();
    let written_b = std::fs::read(dir.path().join("b.py")).unwrap();
    std::fs::write(dir.path().join("b.py"), b"edited by hand\n").unwrap();
    let after_edit = snapshot(dir.path());
    match undo::undo_last(&root) {
        Err(e @ UndoError::Changed { .. }) => {
            assert!(
                e.to_string().contains("b.py changed since candor wrote it"),
                "{e}"
            );
            assert_eq!(candor::api::ApiError::from(e).code.exit_code(), 4);
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(
        snapshot(dir.path()),
        after_edit,
        "a refused undo writes nothing"
    );
    std::fs::write(dir.path().join("b.py"), &written_b).unwrap();
    undo::undo_last(&root).unwrap();
    assert_eq!(snapshot(dir.path()), before);
}

/// The on-disk state a crash leaves: the journal entry published, some files written, no commit.
#[test]
fn an_interrupted_transaction_is_rolled_back_at_the_next_write_and_by_undo() {
    for next_step in ["apply", "undo"] {
        let (dir, changes) = sample_project();
        let root = Root::new(dir.path()).unwrap();
        let before = snapshot(dir.path());
        apply(&root, &changes[..1]).unwrap(); // an earlier, committed transaction on a.py
        let earlier = snapshot(dir.path());
        let id = apply(&root, &changes[1..]).unwrap().transaction.unwrap();
        // Simulate the crash: the commit never happened, src/c.rs was not written yet, and a
        // temp file and a staging folder were left behind.
        let entry = dir.path().join(".candor/journal").join(&id);
        std::fs::remove_file(entry.join("status.json")).unwrap();
        std::fs::write(dir.path().join("src/c.rs"), C).unwrap();
        std::fs::write(
            dir.path().join(format!("src/.candor-{id}-1-0.tmp")),
            b"partial",
        )
        .unwrap();
        std::fs::create_dir(dir.path().join(".candor/journal/.staging-999999-x")).unwrap();
        assert!(
            undo::history(&root).unwrap()[0]
                .state
                .starts_with("interrupted")
        );

        match next_step {
            "apply" => {
                let report = apply(&root, &[FileChange::create("later.py", "y = 1\n")]).unwrap();
                assert_eq!(report.recovered.len(), 1);
                let recovery = &report.recovered[0];
                assert_eq!(recovery.transaction, id);
                assert_eq!(recovery.restored, vec!["b.py", "pkg/sub/new.py", "link.py"]);
                assert!(recovery.left.is_empty());
                let mut expected = earlier.clone();
                expected.insert("later.py".into(), b"y = 1\n".to_vec());
                assert_eq!(snapshot(dir.path()), expected);
            }
            _ => {
                let report = undo::undo_last(&root).unwrap();
                assert_eq!(report.recovered.len(), 1, "the rollback is the undo");
                assert!(report.undone.is_none());
                assert_eq!(
                    snapshot(dir.path()),
                    earlier,
                    "the earlier transaction is still applied"
                );
                undo::undo_last(&root).unwrap();
                assert_eq!(snapshot(dir.path()), before);
            }
        }
        assert!(
            !dir.path()
                .join(".candor/journal/.staging-999999-x")
                .exists()
        );
        assert!(
            !dir.path()
                .join(format!("src/.candor-{id}-1-0.tmp"))
                .exists()
        );
        let history = undo::history(&root).unwrap();
        assert!(
            history
                .iter()
                .any(|h| h.id == id && h.state == "rolled back"),
            "{history:?}"
        );
    }
}

#[test]
fn an_interrupted_undo_is_rolled_back_whole_even_after_removing_a_created_folder() {
    let (dir, changes) = sample_project();
    let root = Root::new(dir.path()).unwrap();
    let before = snapshot(dir.path());
    apply(&root, &changes).unwrap();
    let applied = snapshot(dir.path());
    let undo_id = undo::undo_last(&root)
        .unwrap()
        .undone
        .unwrap()
        .undo_transaction;
    assert_eq!(snapshot(dir.path()), before);
    // The undo "crashed" just before its commit: files restored, pkg/sub/ removed.
    std::fs::remove_file(
        dir.path()
            .join(".candor/journal")
            .join(&undo_id)
            .join("status.json"),
    )
    .unwrap();
    let report = undo::undo_last(&root).unwrap();
    assert_eq!(report.recovered.len(), 1);
    assert!(report.recovered[0].what.starts_with("undo of "));
    assert_eq!(
        snapshot(dir.path()),
        applied,
        "rolling the undo back recreates the file and its folders"
    );
    undo::undo_last(&root).unwrap();
    assert_eq!(snapshot(dir.path()), before);
}

#[test]
fn recovery_leaves_a_file_changed_after_the_crash_alone() {
    let (dir, changes) = sample_project();
    let root = Root::new(dir.path()).unwrap();
    let id = apply(&root, &changes).unwrap().transaction.unwrap();
    std::fs::remove_file(
        dir.path()
            .join(".candor/journal")
            .join(&id)
            .join("status.json"),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("b.py"),
        b"the user's edit after the crash\n",
    )
    .unwrap();
    let report = undo::undo_last(&root).unwrap();
    let recovery = &report.recovered[0];
    assert!(recovery.restored.contains(&"a.py".to_string()));
    assert_eq!(recovery.left.len(), 1);
    assert!(
        recovery.left[0].starts_with("b.py was changed by something else since"),
        "{}",
        recovery.left[0]
    );
    assert!(
        recovery.left[0].contains(&format!(".candor/journal/{id}/before/1")),
        "{}",
        recovery.left[0]
    );
    assert_eq!(
        std::fs::read(dir.path().join("b.py")).unwrap(),
        b"the user's edit after the crash\n"
    );
    assert_eq!(std::fs::read(dir.path().join("a.py")).unwrap(), A);
}

#[test]
fn undo_round_trips_through_several_transactions_and_keeps_the_history() {
    let dir = project(&[("m.py", b"v = 0\n")]);
    let root = Root::new(dir.path()).unwrap();
    let mut versions = vec![std::fs::read(dir.path().join("m.py")).unwrap()];
    for n in 1..=3 {
        let change = modify(
            dir.path(),
            "m.py",
            &[(&format!("{}", n - 1), &format!("{n}"))],
        );
        write::apply_with_hooks(
            &root,
            &[change],
            &no_expectations(),
            Tool::ALL[n % 4],
            &Hooks::default(),
        )
        .unwrap();
        versions.push(std::fs::read(dir.path().join("m.py")).unwrap());
    }
    for n in (0..3).rev() {
        undo::undo_last(&root).unwrap();
        assert_eq!(std::fs::read(dir.path().join("m.py")).unwrap(), versions[n]);
    }
    let history = undo::history(&root).unwrap();
    assert_eq!(history.len(), 6);
    assert!(history[0].what.starts_with("undo of 000001-"));
    assert_eq!(history[0].state, "done");
    assert!(
        history[5].state.starts_with("undone by 000006-"),
        "{:?}",
        history[5]
    );
    let table = undo::format_history(&history);
    assert!(table.starts_with("ID"), "{table}");
    assert!(table.contains("refactor_inline_function"), "{table}");
    let line = table.lines().nth(1).unwrap();
    let time = line.split_whitespace().nth(1).unwrap();
    assert_eq!(time.len(), 10, "a date: {line}");
    assert!(table.lines().all(|l| !l.contains("1970")), "{table}");
}

#[test]
fn a_given_transaction_can_be_undone_even_after_a_later_one() {
    // The TUI undoes the refactor it wrote, even if an agent wrote another file since.
    let dir = project(&[("a.py", b"a = 1\n"), ("b.py", b"b = 1\n")]);
    let root = Root::new(dir.path()).unwrap();
    let first = apply(&root, &[modify(dir.path(), "a.py", &[("1", "2")])])
        .unwrap()
        .transaction
        .unwrap();
    let second = apply(&root, &[modify(dir.path(), "b.py", &[("1", "2")])])
        .unwrap()
        .transaction
        .unwrap();
    let report = undo::undo_transaction(&root, &first).unwrap();
    assert_eq!(report.undone.unwrap().files, vec!["a.py"]);
    assert_eq!(std::fs::read(dir.path().join("a.py")).unwrap(), b"a = 1\n");
    assert_eq!(
        std::fs::read(dir.path().join("b.py")).unwrap(),
        b"b = 2\n",
        "the later one stays"
    );
    assert!(matches!(
        undo::undo_transaction(&root, &first),
        Err(UndoError::AlreadyUndone { .. })
    ));
    assert!(matches!(
        undo::undo_transaction(&root, "000099-x"),
        Err(UndoError::UnknownTransaction { .. })
    ));
    // `candor undo` now takes the later one, then has nothing left.
    assert_eq!(
        undo::undo_last(&root).unwrap().undone.unwrap().transaction,
        second
    );
    assert!(matches!(
        undo::undo_last(&root),
        Err(UndoError::NothingToUndo)
    ));
}

#[test]
fn the_journal_keeps_the_last_fifty_transactions() {
    let dir = project(&[("n.py", b"n = 0\n")]);
    let root = Root::new(dir.path()).unwrap();
    for n in 1..=55 {
        let change = modify(
            dir.path(),
            "n.py",
            &[(&format!("= {}", n - 1), &format!("= {n}"))],
        );
        apply(&root, &[change]).unwrap();
    }
    let history = undo::history(&root).unwrap();
    assert_eq!(history.len(), 50);
    assert!(history[0].id.starts_with("000055-"));
    assert!(history[49].id.starts_with("000006-"));
    undo::undo_last(&root).unwrap();
    assert_eq!(std::fs::read(dir.path().join("n.py")).unwrap(), b"n = 54\n");
}

#[test]
fn the_writer_refuses_paths_outside_the_root_and_in_candor_dir() {
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.py"), b"s = 1\n").unwrap();
    let dir = project(&[("a.py", A)]);
    std::os::unix::fs::symlink(outside.path().join("secret.py"), dir.path().join("out.py"))
        .unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.path().join("outdir")).unwrap();
    let root = Root::new(dir.path()).unwrap();
    let outside_before = snapshot(outside.path());
    let absolute = outside.path().join("abs.py").to_string_lossy().into_owned();
    for path in [
        "../x.py",
        absolute.as_str(),
        "out.py",
        "outdir/new.py",
        "outdir/deeper/new.py",
    ] {
        let plan = vec![FileChange::create(path, "x = 1\n")];
        match apply(&root, &plan) {
            Err(WriteError::Source(SourceError::OutsideRoot { .. })) => {}
            other => panic!("{path}: expected outside_root, got {other:?}"),
        }
    }
    assert_eq!(
        snapshot(outside.path()),
        outside_before,
        "nothing written outside"
    );

    for path in [".candor/journal/x.py", ".candor/config.toml"] {
        let err = apply(&root, &[FileChange::create(path, "x\n")]).unwrap_err();
        assert!(matches!(err, WriteError::Refused { .. }), "{path}: {err:?}");
    }
    // Two paths of one plan leading to the same file through a link.
    std::os::unix::fs::symlink("a.py", dir.path().join("alias.py")).unwrap();
    let plan = vec![
        modify(dir.path(), "a.py", &[("1", "2")]),
        modify(dir.path(), "alias.py", &[("1", "3")]),
    ];
    assert!(matches!(
        apply(&root, &plan),
        Err(WriteError::Refused { .. })
    ));
    assert_eq!(std::fs::read(dir.path().join("a.py")).unwrap(), A);
}

#[test]
fn without_a_journal_nothing_is_written() {
    let dir = project(&[("a.py", A)]);
    std::fs::write(
        dir.path().join(".candor"),
        b"a file where the folder should be",
    )
    .unwrap();
    let root = Root::new(dir.path()).unwrap();
    let plan = vec![modify(dir.path(), "a.py", &[("1", "2")])];
    let err = apply(&root, &plan).unwrap_err();
    assert!(matches!(err, WriteError::Journal(_)), "{err:?}");
    assert_eq!(candor::api::ApiError::from(err).code.as_str(), "io");
    assert_eq!(std::fs::read(dir.path().join("a.py")).unwrap(), A);
}

// ---- properties ----

/// Texts with the bytes that matter for fidelity: CRLF, tabs, trailing spaces, multi-byte chars.
fn text() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just("a".to_string()),
            Just("def ".to_string()),
            Just(" ".to_string()),
            Just("\t".to_string()),
            Just("\n".to_string()),
            Just("\r\n".to_string()),
            Just("é".to_string()),
            Just("日本".to_string()),
            Just("🦀".to_string()),
            "[a-z(){}:=,]{1,4}",
        ],
        0..40,
    )
    .prop_map(|parts| parts.concat())
}

/// A valid edit set for `text`: sorted, non-overlapping ranges on char boundaries, never two
/// insertions at one point.
fn edits_for(text: String) -> impl Strategy<Value = (String, Vec<TextEdit>)> {
    let boundaries: Vec<usize> = (0..=text.len())
        .filter(|i| text.is_char_boundary(*i))
        .collect();
    let n = boundaries.len();
    (
        proptest::collection::vec((0..n, 0..3usize, text_piece()), 0..6),
        Just(text),
        Just(boundaries),
    )
        .prop_map(|(raw, text, boundaries)| {
            let mut picks: Vec<(usize, usize, String)> = raw;
            picks.sort_by_key(|p| p.0);
            let mut edits = Vec::new();
            let mut cursor = 0usize; // index into boundaries: edits may start at or after it
            let mut last_insert_at = None;
            for (start_idx, len, new_text) in picks {
                let start_idx = start_idx.max(cursor);
                if start_idx >= boundaries.len() {
                    break;
                }
                let end_idx = (start_idx + len).min(boundaries.len() - 1);
                let (start, end) = (boundaries[start_idx], boundaries[end_idx]);
                if start == end && (new_text.is_empty() || last_insert_at == Some(start)) {
                    continue;
                }
                if start == end {
                    last_insert_at = Some(start);
                }
                edits.push(TextEdit::new(start..end, new_text));
                cursor = end_idx.max(start_idx + usize::from(start != end));
                if start != end {
                    last_insert_at = None;
                }
            }
            (text, edits)
        })
}

fn text_piece() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), text()]
}

/// Bytes of `text` outside the edits, in order, must appear unchanged between the new texts.
fn assert_outside_unchanged(before: &str, edits: &[TextEdit], after: &str) {
    let mut expected = String::new();
    let mut cursor = 0;
    for edit in edits {
        expected.push_str(&before[cursor..edit.range.start]);
        expected.push_str(&edit.new_text);
        cursor = edit.range.end;
    }
    expected.push_str(&before[cursor..]);
    assert_eq!(after, expected);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn apply_then_invert_gives_back_the_original((text, edits) in text().prop_flat_map(edits_for)) {
        let valid = edit::validate(&text, edits.clone()).expect("generated edits are valid");
        let after = edit::apply(&text, &valid);
        assert_outside_unchanged(&text, &valid, &after);
        let inverse = edit::validate(&after, edit::invert(&text, &valid)).expect("the inverse is valid");
        prop_assert_eq!(edit::apply(&after, &inverse), text);
    }

    #[test]
    fn validate_accepts_exactly_the_disjoint_sets(text in text(), raw in proptest::collection::vec((0..60usize, 0..60usize, text_piece()), 0..5)) {
        let edits: Vec<TextEdit> = raw.into_iter().map(|(a, b, t)| TextEdit::new(a..b, t)).collect();
        match edit::validate(&text, edits.clone()) {
            Ok(valid) => {
                for pair in valid.windows(2) {
                    prop_assert!(pair[0].range.end <= pair[1].range.start);
                    prop_assert!(!(pair[0].range.is_empty() && pair[1].range.is_empty() && pair[0].range.start == pair[1].range.start));
                }
                for e in &valid {
                    prop_assert!(e.range.end <= text.len() && text.is_char_boundary(e.range.start) && text.is_char_boundary(e.range.end));
                }
                let after = edit::apply(&text, &valid);
                assert_outside_unchanged(&text, &valid, &after);
            }
            Err(_) => {
                // Refused: then some edit is out of bounds, reversed, off a boundary, or two overlap.
                let bad_single = edits.iter().any(|e| e.range.start > e.range.end || e.range.end > text.len()
                    || !text.is_char_boundary(e.range.start) || !text.is_char_boundary(e.range.end));
                let mut kept: Vec<&TextEdit> = edits.iter().filter(|e| !(e.range.is_empty() && e.new_text.is_empty())).collect();
                kept.sort_by_key(|e| (e.range.start, e.range.end));
                let overlap = kept.windows(2).any(|p| p[0].range.end > p[1].range.start
                    || (p[0].range.is_empty() && p[1].range.is_empty() && p[0].range.start == p[1].range.start));
                prop_assert!(bad_single || overlap);
            }
        }
    }

    #[test]
    fn a_file_change_keeps_bom_and_every_byte_outside_its_edits(
        bom in any::<bool>(),
        (text, edits) in text().prop_flat_map(edits_for),
    ) {
        let mut bytes = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        bytes.extend_from_slice(text.as_bytes());
        let source = SourceFile::from_bytes("f.py", &bytes).unwrap();
        let change = FileChange::modify(&source, edits).unwrap();
        let after = change.after_bytes();
        prop_assert_eq!(after.starts_with(b"\xEF\xBB\xBF"), bom);
        prop_assert_eq!(change.sha256_before.clone(), Some(sha256_hex(&bytes)));
        prop_assert_eq!(&change.sha256_after, &sha256_hex(&after));
        let inverse = edit::validate(&change.after, edit::invert(&change.before, &change.edits)).unwrap();
        let mut back = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
        back.extend_from_slice(edit::apply(&change.after, &inverse).as_bytes());
        prop_assert_eq!(back, bytes);
    }
}

proptest! {
    // Each case writes, fsyncs, journals and undoes on disk: fewer cases.
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn on_disk_apply_writes_the_after_bytes_and_undo_gives_back_the_before_bytes(
        files in proptest::collection::vec((any::<bool>(), text().prop_flat_map(edits_for)), 1..4),
        new_file in proptest::option::of(text()),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        let mut changes = Vec::new();
        for (n, (bom, (text, edits))) in files.into_iter().enumerate() {
            let path = format!("f{n}.py");
            let mut bytes = if bom { b"\xEF\xBB\xBF".to_vec() } else { Vec::new() };
            bytes.extend_from_slice(text.as_bytes());
            std::fs::write(dir.path().join(&path), &bytes).unwrap();
            let change = FileChange::modify(&SourceFile::from_bytes(path, &bytes).unwrap(), edits).unwrap();
            if change.before != change.after {
                changes.push(change);
            }
        }
        if let Some(text) = new_file {
            changes.push(FileChange::create("made/new.py", text));
        }
        let before = snapshot(dir.path());
        if changes.is_empty() {
            return Ok(());
        }
        apply(&root, &changes).unwrap();
        for change in &changes {
            prop_assert_eq!(std::fs::read(dir.path().join(&change.path)).unwrap(), change.after_bytes());
        }
        undo::undo_last(&root).unwrap();
        prop_assert_eq!(snapshot(dir.path()), before);
    }
}
