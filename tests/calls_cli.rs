//! `candor calls NAME`: one line per call on stdout, and on stderr a summary that counts the
//! files with calls apart from the files that only mention the name, in proper English.

use std::process::Command;

fn calls(root: &std::path::Path, name: &str) -> (String, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["calls", name, "--root"])
        .arg(root)
        .output()
        .unwrap();
    assert!(output.status.success());
    (
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

#[test]
fn the_summary_counts_files_with_calls_and_pluralises() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| std::fs::write(dir.path().join(path), text).unwrap();
    write("a.py", "def wildcard(p):\n    return p\n\nwildcard('*')\n");
    write("b.py", "# wildcard: see a.py\n");
    write("c.py", "NAME = 'wildcard'\n");
    write("d.py", "print(1)\n");
    let (out, err) = calls(dir.path(), "wildcard");
    assert_eq!(out, "a.py:4:1\n");
    assert_eq!(
        err.trim_end(),
        "1 call of `wildcard` in 1 file (3 of 4 files mention it)"
    );
    write(
        "d.py",
        "from a import wildcard\nwildcard('a')\nwildcard('b')\n",
    );
    let (out, err) = calls(dir.path(), "wildcard");
    assert_eq!(out.lines().count(), 3);
    assert_eq!(
        err.trim_end(),
        "3 calls of `wildcard` in 2 files (4 of 4 files mention it)"
    );
}
