//! A server's `WorkspaceEdit` (`changes` or `documentChanges`: text edits and file creation)
//! turned into our edit model: positions (UTF-16 on the wire) to byte offsets of the text we
//! read through `Sources`, files outside the project root refused, several edits of one
//! document applied in order, and every result reduced to a minimal line diff against the file
//! as read, so the preview shows only what changed. Does no IO of its own but through `Sources`.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::edit::{self, FileChange, SourceFile, TextEdit};
use crate::refactor::{SourceError, Sources};
use crate::text::{LineIndex, TextStyle};
use crate::workspace::Root;

use super::actions::strip_snippet;

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ConvertError {
    #[error("the edit touches {0}, outside the project root; candor refuses it")]
    OutsideRoot(String),
    #[error("the edit names `{0}`, which is not a file URI")]
    BadUri(String),
    #[error("the edit of {path} is malformed: {message}")]
    Malformed { path: String, message: String },
    #[error("the edit of {path} does not fit the file: {message}")]
    BadRange { path: String, message: String },
    #[error(
        "the edit was computed for version {got} of {path}, but the server holds version {expected}"
    )]
    Version {
        path: String,
        expected: i64,
        got: i64,
    },
    #[error("the edit would {0}; candor only previews text edits and new files")]
    ResourceOperation(String),
    #[error("the edit creates {0}, which already exists")]
    Exists(String),
    #[error("the edit changes {0}, which does not exist")]
    Missing(String),
    #[error(transparent)]
    Source(#[from] SourceError),
}

/// The state of the files a sequence of workspace edits has touched.
#[derive(Debug, Default, Clone)]
pub struct EditedFiles {
    files: BTreeMap<String, EditedFile>,
    /// The files as the server was shown them (`Session::shown_files`): an edit of one of them
    /// applies to that read, and the change carries its sha256, so a file another process
    /// rewrote since is refused as stale by the write instead of getting edits computed on
    /// its old content (a whole-document edit would silently undo the other write).
    shown: BTreeMap<String, SourceFile>,
}

#[derive(Debug, Clone)]
struct EditedFile {
    /// The file as read (`None` when the edits create it).
    base: Option<SourceFile>,
    text: String,
}

/// What the server believes about the documents we opened: project path → version.
pub type OpenVersions = HashMap<String, i64>;

impl EditedFiles {
    /// Edits of documents the server was shown as `shown` (project path → the file as candor
    /// read it and sent it); a document not among them is read through `Sources` when first
    /// edited (the server read it from the disk itself).
    pub fn shown(shown: &BTreeMap<String, SourceFile>) -> EditedFiles {
        EditedFiles {
            files: BTreeMap::new(),
            shown: shown.clone(),
        }
    }

    /// The current text of a touched file.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.files.get(path).map(|f| f.text.as_str())
    }

    /// Paths touched so far.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.files.keys().map(String::as_str)
    }

    /// Replaces the current text of a touched file (a rename candor does itself).
    pub fn set_text(&mut self, path: &str, text: String) {
        if let Some(file) = self.files.get_mut(path) {
            file.text = text;
        }
    }

    /// Applies one `WorkspaceEdit` on top of the current state. `open` holds the versions the
    /// server has of the documents we opened: an edit made for another version is refused.
    pub fn apply(
        &mut self,
        root: &Root,
        sources: &dyn Sources,
        open: &OpenVersions,
        workspace_edit: &Value,
    ) -> Result<(), ConvertError> {
        if let Some(document_changes) = workspace_edit
            .get("documentChanges")
            .filter(|v| !v.is_null())
        {
            let items = document_changes
                .as_array()
                .ok_or_else(|| ConvertError::Malformed {
                    path: "documentChanges".to_string(),
                    message: "not a list".to_string(),
                })?;
            for item in items {
                match item.get("kind").and_then(Value::as_str) {
                    None => {
                        let document = item.get("textDocument").unwrap_or(&Value::Null);
                        let uri = document.get("uri").and_then(Value::as_str).unwrap_or("");
                        let path = project_path(root, uri)?;
                        if let Some(got) = document.get("version").and_then(Value::as_i64)
                            && let Some(&expected) = open.get(&path)
                            && got != expected
                        {
                            return Err(ConvertError::Version {
                                path,
                                expected,
                                got,
                            });
                        }
                        let edits = item.get("edits").unwrap_or(&Value::Null);
                        self.apply_text_edits(sources, &path, edits)?;
                    }
                    Some("create") => self.create(root, sources, item)?,
                    Some("rename") => {
                        return Err(ConvertError::ResourceOperation("rename a file".to_string()));
                    }
                    Some("delete") => {
                        return Err(ConvertError::ResourceOperation("delete a file".to_string()));
                    }
                    Some(other) => {
                        return Err(ConvertError::ResourceOperation(format!(
                            "perform `{other}`"
                        )));
                    }
                }
            }
            return Ok(());
        }
        if let Some(changes) = workspace_edit.get("changes").filter(|v| !v.is_null()) {
            let map = changes.as_object().ok_or_else(|| ConvertError::Malformed {
                path: "changes".to_string(),
                message: "not an object".to_string(),
            })?;
            for (uri, edits) in map {
                let path = project_path(root, uri)?;
                self.apply_text_edits(sources, &path, edits)?;
            }
        }
        Ok(())
    }

    fn load(&mut self, sources: &dyn Sources, path: &str) -> Result<&mut EditedFile, ConvertError> {
        if !self.files.contains_key(path) {
            let file = match self.shown.get(path) {
                Some(shown) => shown.clone(),
                None => sources
                    .file(path)?
                    .ok_or_else(|| ConvertError::Missing(path.to_string()))?,
            };
            self.files.insert(
                path.to_string(),
                EditedFile {
                    text: file.text.to_string(),
                    base: Some(file),
                },
            );
        }
        self.files
            .get_mut(path)
            .ok_or_else(|| ConvertError::Missing(path.to_string()))
    }

    fn create(
        &mut self,
        root: &Root,
        sources: &dyn Sources,
        op: &Value,
    ) -> Result<(), ConvertError> {
        let uri = op.get("uri").and_then(Value::as_str).unwrap_or("");
        let path = project_path(root, uri)?;
        let options = op.get("options");
        let flag = |name: &str| {
            options
                .and_then(|o| o.get(name))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        let exists = match self.files.get(&path) {
            Some(file) => file.base.is_some() || !file.text.is_empty(),
            None => sources.file(&path)?.is_some(),
        };
        if exists {
            if flag("ignoreIfExists") {
                return Ok(());
            }
            if !flag("overwrite") {
                return Err(ConvertError::Exists(path));
            }
            let file = self.load(sources, &path)?;
            file.text.clear();
            return Ok(());
        }
        self.files.insert(
            path,
            EditedFile {
                base: None,
                text: String::new(),
            },
        );
        Ok(())
    }

    fn apply_text_edits(
        &mut self,
        sources: &dyn Sources,
        path: &str,
        edits: &Value,
    ) -> Result<(), ConvertError> {
        let malformed = |message: &str| ConvertError::Malformed {
            path: path.to_string(),
            message: message.to_string(),
        };
        let list = edits
            .as_array()
            .ok_or_else(|| malformed("`edits` is not a list"))?;
        let file = self.load(sources, path)?;
        let text = &file.text;
        let crlf = TextStyle::detect(text).line_ending == "\r\n";
        let index = LineIndex::new(text);
        let mut ours = Vec::with_capacity(list.len());
        for item in list {
            let range = item
                .get("range")
                .ok_or_else(|| malformed("an edit has no range"))?;
            let start =
                offset(&index, text, range.get("start")).ok_or_else(|| ConvertError::BadRange {
                    path: path.to_string(),
                    message: format!(
                        "start {} is not in the file",
                        position_text(range.get("start"))
                    ),
                })?;
            let end =
                offset(&index, text, range.get("end")).ok_or_else(|| ConvertError::BadRange {
                    path: path.to_string(),
                    message: format!("end {} is not in the file", position_text(range.get("end"))),
                })?;
            let raw = item
                .get("newText")
                .and_then(Value::as_str)
                .ok_or_else(|| malformed("an edit has no newText"))?;
            // rust-analyzer's SnippetTextEdit marks snippet text with insertTextFormat 2.
            let snippet = item.get("insertTextFormat").and_then(Value::as_i64) == Some(2);
            let mut new_text = if snippet {
                strip_snippet(raw)
            } else {
                raw.to_string()
            };
            if crlf {
                new_text = to_crlf(&new_text);
            }
            ours.push(TextEdit::new(start..end, new_text));
        }
        let validated = edit::validate(text, ours).map_err(|e| ConvertError::BadRange {
            path: path.to_string(),
            message: e.to_string(),
        })?;
        file.text = edit::apply(text, &validated);
        Ok(())
    }

    /// The changes, each expressed as a minimal line diff against the file as read. Files that
    /// end up unchanged are left out.
    pub fn into_changes(self) -> Result<Vec<FileChange>, ConvertError> {
        let mut changes = Vec::new();
        for (path, file) in self.files {
            match file.base {
                Some(base) => {
                    if *base.text == *file.text {
                        continue;
                    }
                    let edits = minimal_edits(&base.text, &file.text);
                    let change =
                        FileChange::modify(&base, edits).map_err(|e| ConvertError::BadRange {
                            path: path.clone(),
                            message: e.to_string(),
                        })?;
                    changes.push(change);
                }
                None => changes.push(FileChange::create(path, file.text)),
            }
        }
        Ok(changes)
    }
}

fn position_text(position: Option<&Value>) -> String {
    match position {
        Some(p) => format!(
            "{}:{}",
            p.get("line").map_or("?".to_string(), Value::to_string),
            p.get("character").map_or("?".to_string(), Value::to_string)
        ),
        None => "(missing)".to_string(),
    }
}

fn offset(index: &LineIndex, text: &str, position: Option<&Value>) -> Option<usize> {
    let position = position?;
    let line = u32::try_from(position.get("line")?.as_u64()?).ok()?;
    let character = u32::try_from(position.get("character")?.as_u64()?).ok()?;
    index.offset_of_utf16(text, line, character)
}

/// `\n` not preceded by `\r` becomes `\r\n`.
fn to_crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    let mut previous = '\0';
    for c in text.chars() {
        if c == '\n' && previous != '\r' {
            out.push('\r');
        }
        out.push(c);
        previous = c;
    }
    out
}

/// The edits of a line diff from `before` to `after`: whole lines replaced, inserted or deleted,
/// nothing else touched.
pub fn minimal_edits(before: &str, after: &str) -> Vec<TextEdit> {
    let diff = similar::TextDiff::configure()
        .algorithm(similar::Algorithm::Myers)
        .timeout(std::time::Duration::from_secs(2))
        .diff_lines(before, after);
    let old_starts = line_starts(before);
    let new_starts = line_starts(after);
    let mut edits: Vec<TextEdit> = Vec::new();
    for op in diff.ops() {
        let (tag, old, new) = op.as_tag_tuple();
        if tag == similar::DiffTag::Equal {
            continue;
        }
        let old_range = old_starts[old.start]..old_starts[old.end];
        let new_text = &after[new_starts[new.start]..new_starts[new.end]];
        match edits.last_mut() {
            // Adjacent delete + insert: one replacement.
            Some(last) if last.range.end == old_range.start => {
                last.range.end = old_range.end;
                last.new_text.push_str(new_text);
            }
            _ => edits.push(TextEdit::new(old_range, new_text)),
        }
    }
    edits
}

/// Byte offsets where each line starts, plus the text length (so `starts[n]` ends line n-1).
fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    if *starts.last().unwrap_or(&0) != text.len() {
        starts.push(text.len());
    }
    starts
}

/// The `file://` URI of an absolute path (percent-encoded, UTF-8).
pub fn path_to_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            uri.push(b as char);
        } else {
            uri.push_str(&format!("%{b:02X}"));
        }
    }
    uri
}

/// The absolute path of a `file://` URI.
pub fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file://localhost/x` and `file:///x` both name /x.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let rest = rest.split(['?', '#']).next().unwrap_or(rest);
    let bytes = rest.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            decoded.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            decoded.push(bytes[i]);
            i += 1;
        }
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStringExt;
        Some(PathBuf::from(std::ffi::OsString::from_vec(decoded)))
    }
    #[cfg(not(unix))]
    {
        String::from_utf8(decoded).ok().map(PathBuf::from)
    }
}

/// The project-relative path of a URI the server sent, refused when it lies outside the root.
pub fn project_path(root: &Root, uri: &str) -> Result<String, ConvertError> {
    let absolute = uri_to_path(uri).ok_or_else(|| ConvertError::BadUri(uri.to_string()))?;
    let shown = absolute.display().to_string();
    let absolute_str = absolute
        .to_str()
        .ok_or_else(|| ConvertError::BadUri(uri.to_string()))?;
    match root.resolve(absolute_str) {
        Ok(resolved) => Ok(resolved.relative),
        Err(SourceError::OutsideRoot { .. }) => Err(ConvertError::OutsideRoot(shown)),
        Err(e) => Err(e.into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::refactor::MemorySources;
    use serde_json::json;

    fn root() -> (tempfile::TempDir, Root) {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        (dir, root)
    }

    fn uri(root: &Root, path: &str) -> String {
        path_to_uri(&root.path().join(path))
    }

    fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Value {
        json!({"start": {"line": l1, "character": c1}, "end": {"line": l2, "character": c2}})
    }

    #[test]
    fn uris_round_trip_with_special_characters() {
        let path = Path::new("/tmp/a dir/ünïcode#1/x%y.rs");
        let uri = path_to_uri(path);
        assert_eq!(uri, "file:///tmp/a%20dir/%C3%BCn%C3%AFcode%231/x%25y.rs");
        assert_eq!(uri_to_path(&uri).unwrap(), path);
        assert_eq!(
            uri_to_path("file://localhost/x/y.py").unwrap(),
            Path::new("/x/y.py")
        );
        assert!(uri_to_path("untitled:1").is_none());
        assert!(uri_to_path("file:///bad%zz").is_none());
    }

    #[test]
    fn changes_and_document_changes_in_utf16() {
        let (_dir, root) = root();
        let text = "fn main() {\n    let s = \"😀\"; let x = 1;\n}\n";
        let sources = MemorySources::new().with("src/main.rs", text);
        let x = text.find("x =").unwrap();
        let (line, character) = LineIndex::new(text).utf16_position(text, x);
        let chars_before = text[text.find("    let s").unwrap()..x].chars().count();
        assert_eq!(
            (chars_before, character),
            (21, 22),
            "the emoji is two UTF-16 units"
        );
        let edit = json!({"changes": {uri(&root, "src/main.rs"): [
            {"range": range(line, character, line, character + 1), "newText": "y"},
        ]}});
        let mut files = EditedFiles::default();
        files
            .apply(&root, &sources, &OpenVersions::new(), &edit)
            .unwrap();
        assert_eq!(
            files.text("src/main.rs").unwrap(),
            text.replace("x =", "y =")
        );

        // documentChanges: two documents edits of one file apply in order; a file is created.
        let edit = json!({"documentChanges": [
            {"textDocument": {"uri": uri(&root, "src/main.rs"), "version": 3}, "edits": [
                {"range": range(0, 3, 0, 7), "newText": "start"},
            ]},
            {"textDocument": {"uri": uri(&root, "src/main.rs"), "version": null}, "edits": [
                {"range": range(0, 0, 0, 0), "newText": "// ok\n"},
            ]},
            {"kind": "create", "uri": uri(&root, "src/new.rs")},
            {"textDocument": {"uri": uri(&root, "src/new.rs"), "version": null}, "edits": [
                {"range": range(0, 0, 0, 0), "newText": "pub fn n() {}\n"},
            ]},
        ]});
        let mut files = EditedFiles::default();
        let open: OpenVersions = [("src/main.rs".to_string(), 3)].into_iter().collect();
        files.apply(&root, &sources, &open, &edit).unwrap();
        let changes = files.into_changes().unwrap();
        assert_eq!(changes.len(), 2);
        assert!(changes[0].after.starts_with("// ok\nfn start() {\n"));
        assert!(changes[1].created());
        assert_eq!(changes[1].after, "pub fn n() {}\n");
    }

    #[test]
    fn an_edit_applies_to_the_file_as_the_server_was_shown_it() {
        // The server was shown `a.py` before another process rewrote it: its whole-document
        // edit (pylsp's way) is computed on the old text. Applied to a fresh read, the change
        // would carry the new file's sha256 and undo the other write unnoticed; applied to
        // the read the server saw, it carries the old sha256 and the write refuses it.
        let (_dir, root) = root();
        let old = "def target():\n    pass\n";
        let theirs = "def target_b():\n    pass\n";
        let sources = MemorySources::new().with("a.py", theirs);
        let shown_file = SourceFile::from_text("a.py", old);
        let shown: BTreeMap<String, SourceFile> = [("a.py".to_string(), shown_file.clone())]
            .into_iter()
            .collect();
        let edit = json!({"documentChanges": [{"textDocument": {"uri": uri(&root, "a.py"), "version": null},
            "edits": [{"range": range(0, 0, 2, 0), "newText": "def other():\n    pass\n"}]}]});
        let mut files = EditedFiles::shown(&shown);
        files
            .apply(&root, &sources, &OpenVersions::new(), &edit)
            .unwrap();
        let changes = files.into_changes().unwrap();
        assert_eq!(
            changes[0].sha256_before.as_deref(),
            Some(shown_file.sha256.as_str())
        );
        assert_ne!(
            changes[0].sha256_before,
            Some(crate::edit::sha256_hex(theirs.as_bytes()))
        );
        // A document the server read from the disk itself is read when first edited.
        let mut files = EditedFiles::shown(&BTreeMap::new());
        files
            .apply(&root, &sources, &OpenVersions::new(), &edit)
            .unwrap();
        let changes = files.into_changes().unwrap();
        assert_eq!(
            changes[0].sha256_before,
            Some(crate::edit::sha256_hex(theirs.as_bytes()))
        );
    }

    #[test]
    fn whole_file_replacements_become_minimal_diffs() {
        let (_dir, root) = root();
        let text: String = (1..=40).map(|i| format!("x{i} = {i}\n")).collect();
        let sources = MemorySources::new().with("m.py", &text);
        let new_text = text.replace("x20 = 20", "x20 = 21");
        let edit = json!({"documentChanges": [{"textDocument": {"uri": uri(&root, "m.py"), "version": null},
            "edits": [{"range": range(0, 0, 40, 0), "newText": new_text}]}]});
        let mut files = EditedFiles::default();
        files
            .apply(&root, &sources, &OpenVersions::new(), &edit)
            .unwrap();
        let changes = files.into_changes().unwrap();
        assert_eq!(
            changes[0].edits,
            vec![TextEdit::new(
                text.find("x20").unwrap()..text.find("x21").unwrap(),
                "x20 = 21\n"
            )]
        );
        let diff = changes[0].diff();
        assert_eq!(
            diff.lines()
                .filter(|l| l.starts_with('-') || l.starts_with('+'))
                .count(),
            4,
            "{diff}"
        );
    }

    #[test]
    fn refusals() {
        let (_dir, root) = root();
        let outside = tempfile::tempdir().unwrap();
        let sources = MemorySources::new()
            .with("a.py", "x = 1\n")
            .with("b.py", "y = 2\n");
        let apply = |edit: Value, open: &OpenVersions| {
            EditedFiles::default().apply(&root, &sources, open, &edit)
        };
        let err = apply(
            json!({"changes": {path_to_uri(&outside.path().join("x.py")): []}}),
            &OpenVersions::new(),
        )
        .unwrap_err();
        assert!(matches!(err, ConvertError::OutsideRoot(_)), "{err}");
        let err = apply(
            json!({"changes": {uri(&root, "a.py"): [{"range": range(5, 0, 5, 1), "newText": ""}]}}),
            &OpenVersions::new(),
        )
        .unwrap_err();
        assert!(matches!(err, ConvertError::BadRange { .. }), "{err}");
        let err = apply(
            json!({"changes": {uri(&root, "a.py"): [
                {"range": range(0, 0, 0, 3), "newText": "a"},
                {"range": range(0, 2, 0, 4), "newText": "b"},
            ]}}),
            &OpenVersions::new(),
        )
        .unwrap_err();
        assert!(err.to_string().contains("overlap"), "{err}");
        let open: OpenVersions = [("a.py".to_string(), 2)].into_iter().collect();
        let err = apply(json!({"documentChanges": [{"textDocument": {"uri": uri(&root, "a.py"), "version": 1}, "edits": []}]}), &open).unwrap_err();
        assert!(matches!(err, ConvertError::Version { .. }), "{err}");
        let err = apply(json!({"documentChanges": [{"kind": "rename", "oldUri": uri(&root, "a.py"), "newUri": uri(&root, "c.py")}]}), &open).unwrap_err();
        assert!(matches!(err, ConvertError::ResourceOperation(_)), "{err}");
        let err = apply(
            json!({"documentChanges": [{"kind": "create", "uri": uri(&root, "b.py")}]}),
            &open,
        )
        .unwrap_err();
        assert!(matches!(err, ConvertError::Exists(_)), "{err}");
        let err = apply(json!({"changes": {uri(&root, "gone.py"): []}}), &open).unwrap_err();
        assert!(matches!(err, ConvertError::Missing(_)), "{err}");
    }

    #[test]
    fn crlf_files_keep_their_line_endings_and_snippets_are_plain() {
        let (_dir, root) = root();
        let sources = MemorySources::new().with("a.rs", "fn a() {}\r\n");
        let edit = json!({"changes": {uri(&root, "a.rs"): [
            {"range": range(1, 0, 1, 0), "newText": "\nfn ${0:b}() {}\n", "insertTextFormat": 2},
        ]}});
        let mut files = EditedFiles::default();
        files
            .apply(&root, &sources, &OpenVersions::new(), &edit)
            .unwrap();
        assert_eq!(
            files.text("a.rs").unwrap(),
            "fn a() {}\r\n\r\nfn b() {}\r\n"
        );
    }
}
