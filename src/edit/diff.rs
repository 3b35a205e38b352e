//! Unified diffs of planned changes, as shown in previews and returned in `changes[].diff`.

use similar::TextDiff;

/// A unified diff of one file with three lines of context. Empty when nothing changed.
pub fn unified(path: &str, before: &str, after: &str, created: bool) -> String {
    if before == after && !created {
        return String::new();
    }
    let diff = TextDiff::from_lines(before, after);
    let old_header = if created {
        "/dev/null".to_string()
    } else {
        format!("a/{path}")
    };
    diff.unified_diff()
        .context_radius(3)
        .header(&old_header, &format!("b/{path}"))
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn diff_has_headers_and_hunks() {
        let d = unified("src/a.rs", "a\nb\nc\n", "a\nB\nc\n", false);
        assert!(d.starts_with("--- a/src/a.rs\n+++ b/src/a.rs\n@@ -1,3 +1,3 @@\n"));
        assert!(d.contains("-b\n+B\n"));
        let created = unified("new.py", "", "x = 1\n", true);
        assert!(created.starts_with("--- /dev/null\n+++ b/new.py\n"));
        assert!(unified("x", "same", "same", false).is_empty());
        let no_newline = unified("x", "a", "b", false);
        assert!(no_newline.contains("\\ No newline at end of file"));
    }
}
