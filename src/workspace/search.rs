//! Project-wide call-site search: a parallel .gitignore-aware walk that reads each file once,
//! keeps only those whose bytes contain the name, and parses just the regions around its
//! mentions (`lang::regions`), on every core. Used by
//! `candor calls` and measured against ripgrep and ast-grep by `scripts/bench.sh`.

use std::path::Path;
use std::sync::Mutex;

use ignore::WalkState;

use crate::edit::DecodeError;
use crate::lang::Language;
use crate::lang::calls::{LineCounter, line_column};
use crate::lang::regions::find_call_names_fast;

/// One call of the searched name.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct CallHit {
    /// Project-relative path.
    pub path: String,
    /// 1-based line and character column of the name.
    pub line: usize,
    pub column: usize,
}

/// What a search found and how much work it took.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize)]
pub struct SearchReport {
    pub calls: Vec<CallHit>,
    /// Files of the languages the walk visited.
    pub files_walked: usize,
    /// Files whose bytes contain the name (they were parsed).
    pub files_parsed: usize,
    /// Files with at least one call.
    pub files_with_calls: usize,
    /// Files that could not be read as text (path, why).
    pub skipped: Vec<(String, String)>,
}

/// Every call of `name` in files of `langs` under `root`, sorted by path and position.
pub fn call_sites(
    root: &Path,
    langs: &[Language],
    name: &str,
    max_file_bytes: u64,
) -> SearchReport {
    let finder = memchr::memmem::Finder::new(name.as_bytes()).into_owned();
    let report = Mutex::new(SearchReport::default());
    super::walk::walker(root).build_parallel().run(|| {
        let finder = finder.clone();
        let report = &report;
        Box::new(move |entry| {
            let Ok(entry) = entry else {
                return WalkState::Continue;
            };
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                return WalkState::Continue;
            }
            let Some(lang) = entry
                .path()
                .to_str()
                .and_then(Language::from_path)
                .filter(|l| langs.contains(l))
            else {
                return WalkState::Continue;
            };
            let relative = entry
                .path()
                .strip_prefix(root)
                .map(|p| p.to_string_lossy().replace('\\', "/"))
                .unwrap_or_else(|_| entry.path().display().to_string());
            let outcome = scan_file(entry.path(), &relative, lang, name, &finder, max_file_bytes);
            tally(
                &mut report.lock().unwrap_or_else(|e| e.into_inner()),
                relative,
                outcome,
            );
            WalkState::Continue
        })
    });
    let mut report = report.into_inner().unwrap_or_else(|e| e.into_inner());
    report
        .calls
        .sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    report.skipped.sort();
    report
}

/// [`call_sites`] from the persistent index's answer (`DiskSources::indexed_calls`): the calls it
/// holds for the files whose stamps are unchanged, and the other files (changed too recently to
/// trust, or what it cannot see into) read and searched as the walk does. The same report.
pub fn call_sites_indexed(
    root: &Path,
    answer: &super::index::CallsAnswer,
    langs: &[Language],
    name: &str,
    max_file_bytes: u64,
) -> SearchReport {
    use rayon::prelude::*;
    let finder = memchr::memmem::Finder::new(name.as_bytes());
    let mut report = SearchReport {
        files_walked: answer.walked - answer.known.len() - answer.read.len(),
        ..SearchReport::default()
    };
    for (relative, calls) in &answer.known {
        let hits = calls.iter().map(|(line, column)| CallHit {
            path: relative.clone(),
            line: *line,
            column: *column,
        });
        tally(&mut report, relative.clone(), Scan::Parsed(hits.collect()));
    }
    let read: Vec<(String, Scan)> = answer
        .read
        .par_iter()
        .filter_map(|relative| {
            let lang = Language::from_path(relative).filter(|l| langs.contains(l))?;
            let path = root.join(relative);
            let outcome = scan_file(&path, relative, lang, name, &finder, max_file_bytes);
            Some((relative.clone(), outcome))
        })
        .collect();
    for (relative, outcome) in read {
        tally(&mut report, relative, outcome);
    }
    report
        .calls
        .sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
    report.skipped.sort();
    report
}

/// Adds what scanning one file found.
fn tally(report: &mut SearchReport, relative: String, outcome: Scan) {
    report.files_walked += 1;
    match outcome {
        Scan::NoMatch => {}
        Scan::Parsed(calls) => {
            report.files_parsed += 1;
            report.files_with_calls += usize::from(!calls.is_empty());
            report.calls.extend(calls);
        }
        Scan::Skipped(why) => report.skipped.push((relative, why)),
    }
}

enum Scan {
    NoMatch,
    Parsed(Vec<CallHit>),
    Skipped(String),
}

fn scan_file(
    path: &Path,
    relative: &str,
    lang: Language,
    name: &str,
    finder: &memchr::memmem::Finder<'_>,
    max_file_bytes: u64,
) -> Scan {
    let bytes = match super::walk::read_limited(path, max_file_bytes) {
        Ok(bytes) => bytes,
        Err(why) => return Scan::Skipped(why),
    };
    if finder.find(&bytes).is_none() {
        return Scan::NoMatch;
    }
    // Decoded as `SourceFile` decodes (BOM dropped, binary and non-UTF-8 refused), without
    // hashing or copying: the search writes nothing.
    let body = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    if memchr::memchr(0, &body[..body.len().min(64 * 1024)]).is_some() {
        return Scan::Skipped(DecodeError::Binary.to_string());
    }
    let text = match std::str::from_utf8(body) {
        Ok(text) => text,
        Err(e) => {
            let line = memchr::memchr_iter(b'\n', &body[..e.valid_up_to()]).count() + 1;
            return Scan::Skipped(DecodeError::NotUtf8 { line }.to_string());
        }
    };
    let (names, _) = find_call_names_fast(lang, text, name);
    let mut lines = LineCounter::new(text);
    Scan::Parsed(
        names
            .iter()
            .map(|range| {
                let (line, column) = line_column(text, &mut lines, range.start);
                CallHit {
                    path: relative.to_string(),
                    line,
                    column,
                }
            })
            .collect(),
    )
}

impl SearchReport {
    /// `4 calls of `wildcard` in 2 files (6 of 15 files mention it)`, for `candor calls`.
    pub fn summary(&self, name: &str) -> String {
        let mut text = format!(
            "{} of `{name}` in {} ({} of {} {} it)",
            plural(self.calls.len(), "call"),
            plural(self.files_with_calls, "file"),
            self.files_parsed,
            plural(self.files_walked, "file"),
            if self.files_parsed == 1 {
                "mentions"
            } else {
                "mention"
            },
        );
        if !self.skipped.is_empty() {
            text.push_str(&format!("; {} skipped", plural(self.skipped.len(), "file")));
        }
        text
    }
}

/// `1 call`, `4 calls`.
fn plural(n: usize, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_calls_in_matching_files_only() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("pkg")).unwrap();
        std::fs::write(
            dir.path().join("pkg/a.py"),
            "from textwrap import dedent\n\nx = dedent('  a')\ny = dedent\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("pkg/b.py"), "print(1)\n").unwrap();
        std::fs::write(
            dir.path().join("c.rs"),
            "fn main() { dedent(); s.dedent(1); }\n",
        )
        .unwrap();
        let report = call_sites(
            dir.path(),
            &[Language::Python, Language::Rust],
            "dedent",
            1 << 20,
        );
        let found: Vec<(String, usize, usize)> = report
            .calls
            .iter()
            .map(|c| (c.path.clone(), c.line, c.column))
            .collect();
        assert_eq!(
            found,
            vec![
                ("c.rs".to_string(), 1, 13),
                ("c.rs".to_string(), 1, 25),
                ("pkg/a.py".to_string(), 3, 5)
            ]
        );
        assert_eq!(report.files_walked, 3);
        assert_eq!(report.files_parsed, 2);
        assert_eq!(report.files_with_calls, 2);
        assert_eq!(
            report.summary("dedent"),
            "3 calls of `dedent` in 2 files (2 of 3 files mention it)"
        );
    }

    #[test]
    fn files_that_only_mention_the_name_are_not_counted_as_files_with_calls() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("a.py"),
            "def wildcard():\n    pass\n\nwildcard()\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("b.py"),
            "# wildcard is documented elsewhere\n",
        )
        .unwrap();
        std::fs::write(dir.path().join("c.py"), "x = 'wildcard'\n").unwrap();
        std::fs::write(dir.path().join("d.py"), "print(1)\n").unwrap();
        let report = call_sites(dir.path(), &[Language::Python], "wildcard", 1 << 20);
        assert_eq!(
            report.summary("wildcard"),
            "1 call of `wildcard` in 1 file (3 of 4 files mention it)"
        );
    }
}
