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

/// With `--file`, the calls come from the references engine, each marked certain or possible:
/// the minimal `dedent` case lists `a.dedent("x")` and `dedent("y")`, never `f.dedent()`.
#[test]
fn with_a_file_calls_are_marked_certain_or_possible() {
    let dir = tempfile::tempdir().unwrap();
    let write = |path: &str, text: &str| std::fs::write(dir.path().join(path), text).unwrap();
    write("a.py", "def dedent(text):\n    return text.strip()\n");
    write(
        "b.py",
        "import a\nfrom a import dedent\n\n\nclass Formatter:\n    def dedent(self):\n        return 1\n\n\ndef use(g):\n    f = Formatter()\n    f.dedent()\n    a.dedent(\"x\")\n    dedent(\"y\")\n",
    );
    write("c.py", "from elsewhere import *\n\ndedent(\"z\")\n");
    let output = Command::new(env!("CARGO_BIN_EXE_candor"))
        .args(["calls", "dedent", "--file", "a.py", "--root"])
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let out = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        out,
        "b.py:13:7 certain\nb.py:14:5 certain\nc.py:3:1 possible: `dedent` may come from `from elsewhere import *`, which candor cannot follow\n"
    );
    let err = String::from_utf8(output.stderr).unwrap();
    assert!(
        err.contains("3 calls of function `dedent`: 2 certain, 1 possible"),
        "{err}"
    );
}
