//! The references engine's [`Oracle`] backed by a language server of the pool that is already
//! running: it shows the server the files that mention the name as candor reads them, asks
//! `textDocument/references` (declaration included) at the definition with a short timeout, and
//! turns the answer's UTF-16 positions into byte ranges of project files. It never starts a
//! server: with none running there is no oracle, and a slow or failed answer is said, not
//! waited for.

use std::ops::Range;
use std::time::Duration;

use serde_json::{Value, json};

use crate::cancel::Cancel;
use crate::edit::SourceFile;
use crate::lang::Language;
use crate::refactor::references::{Oracle, ServerReferences};
use crate::refactor::{Mentioning, ParsedFiles, SourceError, Sources, WordSites};
use crate::text::LineIndex;
use crate::workspace::Root;

use super::convert::project_path;
use super::session::Session;
use super::{LspPool, ServerOverride};

/// The longest wait for the server's answer: the check is a bonus, never a hang.
const ORACLE_TIMEOUT: Duration = Duration::from_secs(5);

/// At most this many other files are shown to the server before it is asked.
const MAX_SYNCED: usize = 200;

/// The pool's running server for the request's language and workspace, as an [`Oracle`].
pub struct ServerOracle<'a> {
    pub pool: &'a LspPool,
    pub root: &'a Root,
    pub sources: &'a dyn Sources,
    pub server_override: &'a ServerOverride,
}

impl Oracle for ServerOracle<'_> {
    fn references(
        &self,
        lang: Language,
        file: &SourceFile,
        at: usize,
    ) -> Option<Result<ServerReferences, String>> {
        let timeout = ORACLE_TIMEOUT.min(self.pool.settings().request_timeout);
        let answer = self.pool.with_running_session(
            self.root,
            lang,
            &file.path,
            self.server_override,
            |session| self.ask(session, lang, file, at, timeout),
        )?;
        Some(answer.and_then(|asked| asked))
    }
}

impl ServerOracle<'_> {
    fn ask(
        &self,
        session: &mut Session,
        lang: Language,
        file: &SourceFile,
        at: usize,
        timeout: Duration,
    ) -> Result<ServerReferences, String> {
        let uri = session.sync(self.root, file);
        let name = identifier_at(&file.text, at);
        if let Ok(mentioning) = self.sources.files_mentioning(lang, name) {
            for other in mentioning
                .files
                .iter()
                .filter(|f| f.path != file.path)
                .take(MAX_SYNCED)
            {
                session.sync(self.root, other);
            }
        }
        let (line, character) = LineIndex::new(&file.text).utf16_position(&file.text, at);
        let params = json!({
            "textDocument": {"uri": uri},
            "position": {"line": line, "character": character},
            "context": {"includeDeclaration": true},
        });
        let answer = session.request_briefly("textDocument/references", params, timeout);
        // The server goes back to the files on disk, as after every request of candor's.
        session.close_all();
        let answer = answer.map_err(|e| e.reason())?;
        let locations = locations_in_project(self.root, &answer, |path| {
            if path == file.path {
                return Some(file.text.to_string());
            }
            self.sources
                .file(path)
                .ok()
                .flatten()
                .map(|f| f.text.to_string())
        });
        usable_answer(
            server_name(session),
            locations,
            &file.path,
            at..at + name.len(),
        )
    }
}

/// The server's answer, if it lists the definition: asked with the declaration included, a
/// server that does not list the definition itself did not understand the question (a plugin
/// off, a module it does not load), so its silence about the other references means nothing.
fn usable_answer(
    server: String,
    locations: Vec<(String, Range<usize>)>,
    path: &str,
    definition: Range<usize>,
) -> Result<ServerReferences, String> {
    if !locations
        .iter()
        .any(|(p, range)| p == path && *range == definition)
    {
        return Err(format!(
            "{server} did not list the definition itself among the references ({} in all), so its answer was not used",
            locations.len()
        ));
    }
    Ok(ServerReferences { server, locations })
}

/// "rust-analyzer 1.83.0", for `data.references_from`.
fn server_name(session: &Session) -> String {
    let info = session.info();
    match &info.version {
        Some(version) => format!("{} {version}", info.name),
        None => info.name.clone(),
    }
}

/// The identifier starting at byte `at`.
fn identifier_at(text: &str, at: usize) -> &str {
    let rest = text.get(at..).unwrap_or("");
    let end = rest
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(rest.len(), |(i, _)| i);
    &rest[..end]
}

/// The locations of a `textDocument/references` answer (`Location[]` or null) as
/// (project-relative path, byte range); a location outside the project, in a file that cannot
/// be read, or whose position is not in the file is left out. `read` gives a file's text.
pub(crate) fn locations_in_project(
    root: &Root,
    answer: &Value,
    mut read: impl FnMut(&str) -> Option<String>,
) -> Vec<(String, Range<usize>)> {
    let mut texts: std::collections::HashMap<String, Option<(String, LineIndex)>> =
        std::collections::HashMap::new();
    let mut found = Vec::new();
    for location in answer.as_array().into_iter().flatten() {
        let Some(uri) = location.get("uri").and_then(Value::as_str) else {
            continue;
        };
        let Ok(path) = project_path(root, uri) else {
            continue;
        };
        let text = texts.entry(path.clone()).or_insert_with(|| {
            read(&path).map(|text| {
                let index = LineIndex::new(&text);
                (text, index)
            })
        });
        let Some((text, index)) = text else { continue };
        let offset = |end: &str| {
            let position = location.get("range")?.get(end)?;
            let line = u32::try_from(position.get("line")?.as_u64()?).ok()?;
            let character = u32::try_from(position.get("character")?.as_u64()?).ok()?;
            index.offset_of_utf16(text, line, character)
        };
        if let (Some(start), Some(end)) = (offset("start"), offset("end"))
            && start <= end
        {
            found.push((path, start..end));
        }
    }
    found.sort_by(|(a, x), (b, y)| (a, x.start, x.end).cmp(&(b, y.start, y.end)));
    found.dedup();
    found
}

/// The sources of one refactor with a running server as their [`Sources::oracle`].
pub struct WithOracle<'a> {
    pub inner: &'a dyn Sources,
    pub oracle: &'a dyn Oracle,
}

impl Sources for WithOracle<'_> {
    fn file(&self, path: &str) -> Result<Option<SourceFile>, SourceError> {
        self.inner.file(path)
    }

    fn files_mentioning(&self, lang: Language, word: &str) -> Result<Mentioning, SourceError> {
        self.inner.files_mentioning(lang, word)
    }

    fn dir_exists(&self, path: &str) -> bool {
        self.inner.dir_exists(path)
    }

    fn search_ahead(&self, lang: Language, words: &[&str]) {
        self.inner.search_ahead(lang, words)
    }

    fn word_sites(&self, lang: Language, word: &str) -> Result<WordSites, SourceError> {
        self.inner.word_sites(lang, word)
    }

    fn parsed(&self) -> &dyn ParsedFiles {
        self.inner.parsed()
    }

    fn cancel(&self) -> Cancel {
        self.inner.cancel()
    }

    fn oracle(&self) -> Option<&dyn Oracle> {
        Some(self.oracle)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sources that only remember the words searched ahead.
    #[derive(Default)]
    struct AskedAhead(std::sync::Mutex<Vec<String>>);

    impl Sources for AskedAhead {
        fn file(&self, _path: &str) -> Result<Option<SourceFile>, SourceError> {
            Ok(None)
        }

        fn files_mentioning(
            &self,
            _lang: Language,
            _word: &str,
        ) -> Result<Mentioning, SourceError> {
            Ok(Mentioning::default())
        }

        fn dir_exists(&self, _path: &str) -> bool {
            false
        }

        fn search_ahead(&self, _lang: Language, words: &[&str]) {
            let mut asked = self.0.lock().unwrap();
            asked.extend(words.iter().map(|word| word.to_string()));
        }
    }

    struct NoServer;

    impl Oracle for NoServer {
        fn references(
            &self,
            _lang: Language,
            _file: &SourceFile,
            _at: usize,
        ) -> Option<Result<ServerReferences, String>> {
            None
        }
    }

    #[test]
    fn the_wrappers_a_heuristic_plan_runs_through_pass_the_search_ahead_on() {
        // Every heuristic plan runs through `WithOracle`: a search ahead it dropped ran late,
        // after the parse it was meant to run beside.
        let inner = AskedAhead::default();
        let checked = WithOracle {
            inner: &inner,
            oracle: &NoServer,
        };
        checked.search_ahead(Language::Python, &["dedent", "textwrap"]);
        crate::refactor::FullTrees(&checked).search_ahead(Language::Rust, &["len"]);
        assert_eq!(*inner.0.lock().unwrap(), ["dedent", "textwrap", "len"]);
    }

    #[test]
    fn utf16_positions_become_byte_ranges_of_project_files() {
        let dir = tempfile::tempdir().unwrap();
        let root = Root::new(dir.path()).unwrap();
        // `é` is 2 bytes and 1 UTF-16 unit, `𝔸` 4 bytes and 2 units.
        let a = "def f():\n    pass\n";
        let b = "s = 'é𝔸'; f()\nx = f\n";
        std::fs::write(dir.path().join("a.py"), a).unwrap();
        std::fs::write(dir.path().join("b.py"), b).unwrap();
        let uri = |name: &str| super::super::path_to_uri(&root.path().join(name));
        let at = |line: u32, character: u32| json!({"line": line, "character": character});
        let answer = json!([
            {"uri": uri("b.py"), "range": {"start": at(0, 11), "end": at(0, 12)}},
            {"uri": uri("a.py"), "range": {"start": at(0, 4), "end": at(0, 5)}},
            {"uri": uri("b.py"), "range": {"start": at(1, 4), "end": at(1, 5)}},
            // Outside the project, in no file, past the end, malformed: left out.
            {"uri": "file:///usr/lib/python3/os.py", "range": {"start": at(0, 0), "end": at(0, 1)}},
            {"uri": uri("gone.py"), "range": {"start": at(0, 0), "end": at(0, 1)}},
            {"uri": uri("a.py"), "range": {"start": at(9, 0), "end": at(9, 1)}},
            {"uri": uri("a.py")},
        ]);
        let read = |path: &str| std::fs::read_to_string(dir.path().join(path)).ok();
        let found = locations_in_project(&root, &answer, read);
        let f_in_b = b.find("f()").unwrap();
        assert_eq!(f_in_b, 14, "the UTF-16 column 11 is byte 14");
        let x_f = b.rfind('f').unwrap();
        assert_eq!(
            found,
            vec![
                ("a.py".to_string(), 4..5),
                ("b.py".to_string(), f_in_b..f_in_b + 1),
                ("b.py".to_string(), x_f..x_f + 1),
            ]
        );
        assert_eq!(
            locations_in_project(&root, &Value::Null, |_| None),
            Vec::new()
        );
    }

    #[test]
    fn an_answer_without_the_definition_is_not_used() {
        let at = |path: &str, range: Range<usize>| (path.to_string(), range);
        let answer = usable_answer(
            "pylsp".to_string(),
            vec![at("a.py", 4..5), at("b.py", 9..10)],
            "a.py",
            4..5,
        );
        assert_eq!(answer.map(|a| a.locations.len()), Ok(2));
        assert_eq!(
            usable_answer("pylsp".to_string(), Vec::new(), "a.py", 4..5),
            Err("pylsp did not list the definition itself among the references (0 in all), so its answer was not used".to_string())
        );
        assert!(usable_answer("ra".to_string(), vec![at("b.py", 4..5)], "a.py", 4..5).is_err());
    }

    #[test]
    fn the_name_is_read_at_the_offset() {
        assert_eq!(identifier_at("def dedent(text):", 4), "dedent");
        assert_eq!(identifier_at("fn é_x()", 3), "é_x");
        assert_eq!(identifier_at("x", 5), "");
    }

    #[test]
    fn no_running_server_is_no_oracle_and_nothing_is_started() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.py"), "def f():\n    pass\n").unwrap();
        let root = Root::new(dir.path()).unwrap();
        let sources = crate::refactor::MemorySources::new().with("a.py", "def f():\n    pass\n");
        let pool = LspPool::new();
        let over = ServerOverride {
            command: Some("/nonexistent/pylsp".to_string()),
            args: Vec::new(),
        };
        let oracle = ServerOracle {
            pool: &pool,
            root: &root,
            sources: &sources,
            server_override: &over,
        };
        let file = sources.file("a.py").unwrap().unwrap();
        assert_eq!(oracle.references(Language::Python, &file, 4), None);
        assert_eq!(
            pool.status(Language::Python),
            super::super::ServerStatus::NotStarted
        );
    }
}
