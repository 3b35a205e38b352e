//! Findings counted: per severity, and per kind, where a finding's kind is the stable key it
//! carries (`inline.call_inlined`, whatever line its message names), else its message without
//! the places and lines it names (`` `has` appears in a string at a.py:12; not updated`` is of
//! the kind `` `has` appears in a string; not updated``). The JSON's `data.finding_counts`, and the
//! warning panel's folded notes. Pure, linear in the findings; every finding stays in
//! `data.findings`.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use serde::Serialize;

use crate::refactor::{Finding, Severity};

/// `data.finding_counts`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FindingCounts {
    pub error: usize,
    pub warning: usize,
    pub info: usize,
    /// Every kind with its count: errors first, then warnings, then notes; the most frequent
    /// first within a severity.
    pub by_kind: Vec<KindCount>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct KindCount {
    pub severity: Severity,
    pub kind: String,
    /// The first finding's message without the places it names: what the warning panel shows
    /// for the kind.
    pub message: String,
    pub count: usize,
    /// Index in the findings of the first finding of this kind.
    #[serde(skip)]
    pub first: usize,
}

/// Counts `findings` per severity and kind.
pub fn count(findings: &[Finding]) -> FindingCounts {
    let mut counts = FindingCounts::default();
    // (severity, kind) → index in `by_kind`.
    let mut seen: HashMap<(Severity, String), usize> = HashMap::new();
    // A message → its kind: hundreds of findings often say the same ("call unchanged").
    let mut kind_of_message: HashMap<&str, String> = HashMap::new();
    for (index, finding) in findings.iter().enumerate() {
        match finding.severity {
            Severity::Error => counts.error += 1,
            Severity::Warning => counts.warning += 1,
            Severity::Info => counts.info += 1,
        }
        let kind = match finding.kind {
            Some(kind) => kind.to_string(),
            None => (kind_of_message.entry(&finding.message))
                .or_insert_with(|| without_lines(&finding_kind(&finding.message)))
                .clone(),
        };
        match seen.entry((finding.severity, kind)) {
            Entry::Occupied(known) => counts.by_kind[*known.get()].count += 1,
            Entry::Vacant(new) => {
                let kind = new.key().1.clone();
                new.insert(counts.by_kind.len());
                counts.by_kind.push(KindCount {
                    severity: finding.severity,
                    message: match finding.kind {
                        Some(_) => without_lines(&finding_kind(&finding.message)),
                        None => kind.clone(),
                    },
                    kind,
                    count: 1,
                    first: index,
                });
            }
        }
    }
    counts.by_kind.sort_by(|a, b| {
        (
            std::cmp::Reverse(a.severity),
            std::cmp::Reverse(a.count),
            a.first,
        )
            .cmp(&(
                std::cmp::Reverse(b.severity),
                std::cmp::Reverse(b.count),
                b.first,
            ))
    });
    counts
}

/// The message without the places it names: `at path:line` and `path:line` go, with the
/// punctuation that followed them kept.
pub fn finding_kind(message: &str) -> String {
    // A place has a `:`: a message without one keeps every word.
    let mut kind = match message.contains(':') {
        true => without_places(message),
        false => message.to_string(),
    };
    for (spaced, tight) in [(" ;", ";"), (" ,", ",")] {
        if kind.contains(spaced) {
            kind = kind.replace(spaced, tight);
        }
    }
    match kind.trim() {
        trimmed if trimmed.len() == kind.len() => kind,
        trimmed => trimmed.to_string(),
    }
}

/// The message's words, those that name a place left out (with an `at` or `in` before them),
/// the punctuation after them kept.
fn without_places(message: &str) -> String {
    let mut words = Words::with_capacity(message.len());
    for word in message.split(' ') {
        let bare = word.trim_end_matches([';', ',', ':', ')', '.']);
        if is_place(bare) {
            let tail = &word[bare.len()..];
            if matches!(words.last(), Some("at" | "in")) {
                words.pop();
            }
            words.extend_last(tail);
        } else {
            words.push(word);
        }
    }
    words.joined
}

/// A message without the lines it names (`at line 6`, `line 6`, `(lines 1-3)`), with the
/// punctuation that followed them kept: the words are the kind's, the numbers the finding's.
fn without_lines(message: &str) -> String {
    // Every word that names lines holds `line`.
    if !message.contains("line") {
        return message.to_string();
    }
    let mut words = Words::with_capacity(message.len());
    let mut rest = message.split(' ').peekable();
    while let Some(word) = rest.next() {
        let number = rest.peek().map(|n| {
            let bare = n.trim_end_matches([';', ',', ':', ')', '.']);
            (bare, &n[bare.len()..])
        });
        match number {
            Some((bare, tail))
                if matches!(word, "line" | "lines" | "(line" | "(lines")
                    && !bare.is_empty()
                    && bare.bytes().all(|b| b.is_ascii_digit() || b == b'-') =>
            {
                // `(line 6)` goes whole, parentheses and all.
                let tail = match word.starts_with('(') {
                    true => tail.strip_prefix(')').unwrap_or(tail),
                    false => tail,
                };
                if words.last() == Some("at") {
                    words.pop();
                }
                if words.last().is_some() || !tail.is_empty() {
                    words.extend_last(tail);
                }
                rest.next();
            }
            _ => words.push(word),
        }
    }
    words.joined
}

/// Words joined by single spaces as they are kept, in one string: the last can be dropped or
/// added to. What `Vec<String>` and `join(" ")` would give, without a string per word.
struct Words {
    joined: String,
    /// Where each word starts in `joined`.
    starts: Vec<usize>,
}

impl Words {
    fn with_capacity(bytes: usize) -> Words {
        Words {
            joined: String::with_capacity(bytes),
            starts: Vec::new(),
        }
    }

    fn push(&mut self, word: &str) {
        if !self.starts.is_empty() {
            self.joined.push(' ');
        }
        self.starts.push(self.joined.len());
        self.joined.push_str(word);
    }

    fn last(&self) -> Option<&str> {
        self.starts.last().map(|&start| &self.joined[start..])
    }

    fn pop(&mut self) {
        if let Some(start) = self.starts.pop() {
            // The space before it goes with it.
            self.joined.truncate(start.saturating_sub(1));
        }
    }

    /// Adds `tail` to the last word, or makes it the first.
    fn extend_last(&mut self, tail: &str) {
        match self.starts.is_empty() {
            true => self.push(tail),
            false => self.joined.push_str(tail),
        }
    }
}

/// `src/a.py:12`, `a.rs:3`.
fn is_place(word: &str) -> bool {
    let Some((path, line)) = word.rsplit_once(':') else {
        return false;
    };
    !line.is_empty()
        && line.bytes().all(|b| b.is_ascii_digit())
        && !path.is_empty()
        && path.contains('.')
        && !path.contains('`')
}

#[cfg(test)]
mod tests {
    use super::*;

    // The kinds as first written, a string per word: what the one-string version must give.
    /// The message without the places it names: `at path:line` and `path:line` go, with the
    /// punctuation that followed them kept.
    fn plain_finding_kind(message: &str) -> String {
        let mut words: Vec<String> = Vec::new();
        for word in message.split(' ') {
            let bare = word.trim_end_matches([';', ',', ':', ')', '.']);
            if is_place(bare) {
                let tail = &word[bare.len()..];
                if words.last().is_some_and(|w| w == "at" || w == "in") {
                    words.pop();
                }
                match words.last_mut() {
                    Some(last) => last.push_str(tail),
                    None => words.push(tail.to_string()),
                }
            } else {
                words.push(word.to_string());
            }
        }
        words
            .join(" ")
            .replace(" ;", ";")
            .replace(" ,", ",")
            .trim()
            .to_string()
    }

    /// A message without the lines it names (`at line 6`, `line 6`, `(lines 1-3)`), with the
    /// punctuation that followed them kept: the words are the kind's, the numbers the finding's.
    fn plain_without_lines(message: &str) -> String {
        let words: Vec<&str> = message.split(' ').collect();
        let mut kept: Vec<String> = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let number = words.get(i + 1).map(|n| {
                let bare = n.trim_end_matches([';', ',', ':', ')', '.']);
                (bare, &n[bare.len()..])
            });
            match number {
                Some((bare, tail))
                    if matches!(words[i], "line" | "lines" | "(line" | "(lines")
                        && !bare.is_empty()
                        && bare.bytes().all(|b| b.is_ascii_digit() || b == b'-') =>
                {
                    // `(line 6)` goes whole, parentheses and all.
                    let tail = match words[i].starts_with('(') {
                        true => tail.strip_prefix(')').unwrap_or(tail),
                        false => tail,
                    };
                    if kept.last().is_some_and(|w| w == "at") {
                        kept.pop();
                    }
                    match kept.last_mut() {
                        Some(last) => last.push_str(tail),
                        None if !tail.is_empty() => kept.push(tail.to_string()),
                        None => {}
                    }
                    i += 2;
                }
                _ => {
                    kept.push(words[i].to_string());
                    i += 1;
                }
            }
        }
        kept.join(" ")
    }

    #[test]
    fn kinds_are_what_a_string_per_word_gives() {
        // `|`-separated, the empty word among them.
        let words: Vec<&str> = concat!(
            "at|in|line|lines|(line|(lines|6|1-3|6)|6);|a.py:12|src/a.py:12;|a.py:12,|x:1|",
            "`a.py:3`||;|,|word|calls|(see|a.rs:3.|a.rs:3):|-|1-|line:|at,|12|é.py:4|in;"
        )
        .split('|')
        .collect();
        let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
        let mut next = |below: usize| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize % below
        };
        for _ in 0..20_000 {
            let len = next(9);
            let message: Vec<&str> = (0..len).map(|_| words[next(words.len())]).collect();
            let message = message.join(" ");
            assert_eq!(
                finding_kind(&message),
                plain_finding_kind(&message),
                "{message:?}"
            );
            assert_eq!(
                without_lines(&message),
                plain_without_lines(&message),
                "{message:?}"
            );
            let kind = finding_kind(&message);
            assert_eq!(without_lines(&kind), plain_without_lines(&kind), "{kind:?}");
        }
    }

    #[test]
    fn kinds_leave_out_the_places() {
        assert_eq!(
            finding_kind("`has` appears in a string at src/attr/_make.py:1204; not updated"),
            "`has` appears in a string; not updated"
        );
        assert_eq!(
            finding_kind("call at rust/src/lib.rs:59 updated: 2 → 3 arguments"),
            "call updated: 2 → 3 arguments"
        );
        assert_eq!(
            finding_kind("a doc example at a.rs:3 calls `f` with the old parameters"),
            "a doc example calls `f` with the old parameters"
        );
        assert_eq!(
            finding_kind("nothing to place here"),
            "nothing to place here"
        );
    }

    #[test]
    fn counts_by_severity_then_frequency() {
        let mut findings = vec![Finding::warning(
            "a.py",
            1,
            "`f` is used at a.py:1 without being called",
        )];
        for line in 2..9 {
            findings.push(Finding::info(
                "a.py",
                line,
                format!("`f` appears in a string at a.py:{line}; not updated"),
            ));
        }
        findings.push(Finding::info(
            "a.py",
            9,
            "`f` appears in a comment at a.py:9; not updated",
        ));
        findings.push(Finding::error(
            "a.py",
            10,
            "the result has a syntax error at line 10",
        ));
        let counts = count(&findings);
        assert_eq!((counts.error, counts.warning, counts.info), (1, 1, 8));
        let kinds: Vec<(Severity, &str, usize)> = counts
            .by_kind
            .iter()
            .map(|k| (k.severity, k.kind.as_str(), k.count))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (Severity::Error, "the result has a syntax error", 1),
                (Severity::Warning, "`f` is used without being called", 1),
                (Severity::Info, "`f` appears in a string; not updated", 7),
                (Severity::Info, "`f` appears in a comment; not updated", 1),
            ]
        );
        assert_eq!(counts.by_kind[2].first, 1);
    }

    #[test]
    fn findings_without_a_kind_fold_by_their_message_without_the_lines_it_names() {
        // Extract variable's notes on the occurrences it left: 4,999 kinds for 4,999 notes.
        let findings: Vec<Finding> = (10..=12)
            .map(|line| {
                Finding::info(
                    "a.py",
                    line,
                    format!(
                        "identical expression at line {line} left as it is: it is in or after the loop or branch at line 9, where candor does not follow it (lines 3-4); see line 2."
                    ),
                )
            })
            .collect();
        let folded = "identical expression left as it is: it is in or after the loop or branch, where candor does not follow it; see.";
        assert_eq!(kinds_and_messages(&findings), owned(&[(folded, folded, 3)]));
    }

    #[test]
    fn findings_with_a_kind_fold_by_it_whatever_their_lines() {
        let findings: Vec<Finding> = (1..=3)
            .map(|line| {
                Finding::info(
                    "a.rs",
                    line,
                    format!("inlined the call of `f` at line {line}"),
                )
                .with_kind("inline.call_inlined")
            })
            .collect();
        assert_eq!(
            kinds_and_messages(&findings),
            owned(&[("inline.call_inlined", "inlined the call of `f`", 3)])
        );
    }

    /// Each kind of `findings`' counts, with its message and count.
    fn kinds_and_messages(findings: &[Finding]) -> Vec<(String, String, usize)> {
        count(findings)
            .by_kind
            .into_iter()
            .map(|k| (k.kind, k.message, k.count))
            .collect()
    }

    fn owned(kinds: &[(&str, &str, usize)]) -> Vec<(String, String, usize)> {
        kinds
            .iter()
            .map(|(kind, message, count)| (kind.to_string(), message.to_string(), *count))
            .collect()
    }
}
