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
fn without_lines(message: &str) -> String {
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
