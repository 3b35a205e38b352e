//! The file picker's data: every Rust and Python file found so far, the query, and the matches
//! ranked by nucleo (path-aware, smart case), kept sorted as batches of files arrive.

use nucleo_matcher::pattern::{CaseMatching, Normalization, Pattern};
use nucleo_matcher::{Config, Matcher, Utf32Str};
use ratatui_textarea::TextArea;

/// How many picker matches get their matched characters computed (the visible ones at most).
pub const PICKER_HIGHLIGHTED: usize = 200;

/// The file picker.
#[derive(Debug)]
pub struct Picker {
    pub query: TextArea<'static>,
    /// Every Rust and Python file found so far, in the order found (indices are stable).
    pub files: Vec<String>,
    pub scanning: bool,
    /// While the persistent index is built (or brought up to date) for the list: files read, of
    /// how many.
    pub indexing: Option<(usize, usize)>,
    /// Indices into `files`, best match first (by path when the query is empty).
    pub matches: Vec<usize>,
    /// Matched character positions of the first [`PICKER_HIGHLIGHTED`] matches.
    pub matched_chars: Vec<Vec<u32>>,
    pub selected: usize,
    pub error: Option<String>,
    /// Indices into `files` sorted by path.
    by_path: Vec<usize>,
    /// (score, index) of the files matching the query, best first.
    scored: Vec<(u32, usize)>,
    /// The query `scored` is for.
    scored_query: String,
    matcher: Matcher,
}

impl Picker {
    pub fn new() -> Picker {
        let query = crate::tui::input::field(
            "type part of a path to filter the files (fuzzy); Enter opens",
            "",
        );
        Picker {
            query,
            files: Vec::new(),
            scanning: true,
            indexing: None,
            matches: Vec::new(),
            matched_chars: Vec::new(),
            selected: 0,
            error: None,
            by_path: Vec::new(),
            scored: Vec::new(),
            scored_query: String::new(),
            matcher: Matcher::new(Config::DEFAULT.match_paths()),
        }
    }

    pub fn query_text(&self) -> String {
        crate::tui::input::text(&self.query)
    }

    pub fn selected_path(&self) -> Option<&str> {
        self.matches
            .get(self.selected)
            .and_then(|i| self.files.get(*i))
            .map(String::as_str)
    }

    /// Adds a batch of found files. Only the batch is sorted and scored, then merged in, so a
    /// walk of a large project in many batches stays linear and the UI stays responsive.
    pub fn add_files(&mut self, found: Vec<String>) {
        let keep = self.selected_path().map(str::to_string);
        let first = self.files.len();
        self.files.extend(found);
        let files = &self.files;
        let mut batch: Vec<usize> = (first..files.len()).collect();
        batch.sort_by(|a, b| files[*a].cmp(&files[*b]));
        self.by_path = merge_sorted(&self.by_path, &batch, |a, b| files[*a] <= files[*b]);
        let query = self.query_text();
        if !query.trim().is_empty() {
            let scored = self.score(&query, first..self.files.len());
            self.scored_query = query.clone();
            let files = &self.files;
            self.scored = merge_sorted(&self.scored, &scored, |a, b| better(files, a, b));
        }
        self.publish(keep.as_deref());
    }

    /// Scores every file against the query again (nucleo, path-aware, smart case).
    pub fn refilter(&mut self, keep: Option<&str>) {
        let query = self.query_text();
        self.scored = if query.trim().is_empty() {
            Vec::new()
        } else if !self.scored_query.trim().is_empty()
            && query.starts_with(&self.scored_query)
            && !query.contains(['!', '^', '$', '\'', '\\'])
        {
            // Typing more only narrows a plain fuzzy query (not a negation or an anchor):
            // rescore the current matches only.
            let candidates: Vec<usize> = self.scored.iter().map(|(_, i)| *i).collect();
            self.score(&query, candidates)
        } else {
            self.score(&query, 0..self.files.len())
        };
        self.scored_query = query;
        self.publish(keep);
    }

    /// The matching files of `range`, sorted best first.
    fn score(&mut self, query: &str, range: impl IntoIterator<Item = usize>) -> Vec<(u32, usize)> {
        let pattern = Pattern::parse(query, CaseMatching::Smart, Normalization::Smart);
        let mut buf = Vec::new();
        let mut scored: Vec<(u32, usize)> = range
            .into_iter()
            .filter_map(|i| {
                let path = self.files.get(i)?;
                pattern
                    .score(Utf32Str::new(path, &mut buf), &mut self.matcher)
                    .map(|s| (s, i))
            })
            .collect();
        let files = &self.files;
        scored.sort_by(|a, b| {
            if better(files, a, b) {
                std::cmp::Ordering::Less
            } else {
                std::cmp::Ordering::Greater
            }
        });
        scored
    }

    /// Rebuilds `matches` and the highlighted characters, keeping `keep` selected.
    fn publish(&mut self, keep: Option<&str>) {
        let query = self.query_text();
        self.matched_chars.clear();
        if query.trim().is_empty() {
            self.matches = self.by_path.clone();
        } else {
            self.matches = self.scored.iter().map(|(_, i)| *i).collect();
            let pattern = Pattern::parse(&query, CaseMatching::Smart, Normalization::Smart);
            let mut buf = Vec::new();
            for &i in self.matches.iter().take(PICKER_HIGHLIGHTED) {
                let mut indices = Vec::new();
                let _ = pattern.indices(
                    Utf32Str::new(&self.files[i], &mut buf),
                    &mut self.matcher,
                    &mut indices,
                );
                indices.sort_unstable();
                indices.dedup();
                self.matched_chars.push(indices);
            }
        }
        self.selected = keep
            .and_then(|path| self.matches.iter().position(|&i| self.files[i] == path))
            .unwrap_or(0);
    }
}

/// Whether `a` ranks before `b`: higher score, then shorter path, then path order.
fn better(files: &[String], a: &(u32, usize), b: &(u32, usize)) -> bool {
    (std::cmp::Reverse(a.0), files[a.1].len(), &files[a.1])
        <= (std::cmp::Reverse(b.0), files[b.1].len(), &files[b.1])
}

/// Merges two lists sorted by `before_or_equal`.
fn merge_sorted<T: Copy>(
    left: &[T],
    right: &[T],
    before_or_equal: impl Fn(&T, &T) -> bool,
) -> Vec<T> {
    let mut out = Vec::with_capacity(left.len() + right.len());
    let (mut i, mut j) = (0, 0);
    while i < left.len() && j < right.len() {
        if before_or_equal(&left[i], &right[j]) {
            out.push(left[i]);
            i += 1;
        } else {
            out.push(right[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&left[i..]);
    out.extend_from_slice(&right[j..]);
    out
}

impl Default for Picker {
    fn default() -> Picker {
        Picker::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths(picker: &Picker) -> Vec<&str> {
        picker
            .matches
            .iter()
            .map(|&i| picker.files[i].as_str())
            .collect()
    }

    #[test]
    fn batches_merge_into_the_same_order_as_one_list() {
        let mut picker = Picker::new();
        picker.add_files(vec!["src/b.rs".into(), "src/lib.rs".into()]);
        picker.add_files(vec![
            "a.py".into(),
            "src/a/lib.rs".into(),
            "tests/t.py".into(),
        ]);
        assert_eq!(
            paths(&picker),
            [
                "a.py",
                "src/a/lib.rs",
                "src/b.rs",
                "src/lib.rs",
                "tests/t.py"
            ]
        );
        picker.query.insert_str("lib");
        picker.refilter(None);
        assert_eq!(paths(&picker), ["src/lib.rs", "src/a/lib.rs"]);
        // Files found while a query is typed are scored and merged in place.
        picker.selected = 1;
        picker.add_files(vec!["lib.rs".into(), "docs/x.py".into()]);
        assert_eq!(paths(&picker), ["lib.rs", "src/lib.rs", "src/a/lib.rs"]);
        assert_eq!(
            picker.selected_path(),
            Some("src/a/lib.rs"),
            "the selection follows its file"
        );
        assert_eq!(picker.matched_chars[0], vec![0, 1, 2]);
        // Narrowing as one types gives what a fresh search gives; a negation widens again.
        picker.query.insert_str(".r");
        picker.refilter(None);
        assert_eq!(paths(&picker), ["lib.rs", "src/lib.rs", "src/a/lib.rs"]);
        picker.query.insert_str(" !src");
        picker.refilter(None);
        assert_eq!(paths(&picker), ["lib.rs"]);
        for _ in 0..5 {
            picker.query.delete_char();
        }
        picker.refilter(None);
        assert_eq!(paths(&picker), ["lib.rs", "src/lib.rs", "src/a/lib.rs"]);
    }
}
