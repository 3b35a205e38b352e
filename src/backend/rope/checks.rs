//! Findings about what rope does not look at: files the private copy left out, comments
//! dropped from rewritten code, doctest examples, stub files. Pure, except for the search of
//! the files that mention a name.

use std::collections::BTreeMap;

use crate::edit::FileChange;
use crate::lang::Language;
use crate::lang::calls::ReferenceKind;
use crate::lang::symbols;
use crate::refactor::{Finding, Sources};

use super::RopeFailure;
use super::mirror::Synced;

/// A warning for every file the copy for rope had to leave out.
pub(super) fn skipped_findings(synced: &Synced) -> Vec<Finding> {
    synced
        .skipped
        .iter()
        .map(|(path, reason)| {
            Finding::warning(
                path,
                1,
                format!("{path} was not searched: it {reason}; references in it, if any, were not updated — check it by hand"),
            )
        })
        .collect()
}

/// A warning for every comment of the changed files that is in none of the results (rope
/// writes the calls and imports it rewrites on one line, without their comments).
pub(super) fn lost_comments(changes: &[FileChange]) -> Vec<Finding> {
    let comments = |text: &str| -> Vec<(String, usize)> {
        crate::lang::lex::lex(Language::Python, text)
            .spans
            .iter()
            .filter(|(_, kind)| *kind == ReferenceKind::InComment)
            .map(|(range, _)| {
                let line = text[..range.start].matches('\n').count() + 1;
                (text[range.clone()].trim().to_string(), line)
            })
            .collect()
    };
    let mut kept: BTreeMap<String, usize> = BTreeMap::new();
    for change in changes {
        for (comment, _) in comments(&change.after) {
            *kept.entry(comment).or_default() += 1;
        }
    }
    let mut findings = Vec::new();
    for change in changes.iter().filter(|c| !c.created()) {
        for (comment, line) in comments(&change.before) {
            match kept.get_mut(&comment) {
                Some(n) if *n > 0 => *n -= 1,
                _ => findings.push(Finding::warning(
                    &change.path,
                    line,
                    format!(
                        "the comment `{comment}` (line {line} of {}) is not in the result: rope rewrote the code around it without it — put it back by hand if it matters",
                        change.path
                    ),
                )),
            }
        }
    }
    findings
}

/// The lines of doctest examples (`>>> `, `... ` inside a string) of `text` that use `name`
/// (as a word; with `calls`, only as `name(`).
pub(super) fn doctest_lines(text: &str, name: &str, calls: bool) -> Vec<usize> {
    let lexed = crate::lang::lex::lex(Language::Python, text);
    let mut lines: Vec<usize> = Vec::new();
    for (range, kind) in &lexed.spans {
        if *kind != ReferenceKind::InString || !text[range.clone()].contains(name) {
            continue;
        }
        let first_line = text[..range.start].matches('\n').count() + 1;
        for (i, line) in text[range.clone()].lines().enumerate() {
            let code = line.trim_start();
            let example = code
                .strip_prefix(">>> ")
                .or_else(|| code.strip_prefix("... "));
            let uses = example.is_some_and(|e| {
                if calls {
                    word_positions(e, name)
                        .any(|at| e[at + name.len()..].trim_start().starts_with('('))
                } else {
                    word_positions(e, name).next().is_some()
                }
            });
            if uses {
                lines.push(first_line + i);
            }
        }
    }
    lines
}

/// A warning for each changed file whose doctest examples use `name` where the file no longer
/// binds it: rope rewrites code, not the examples in docstrings, which then fail with a
/// NameError.
pub(super) fn doctest_findings(changes: &[FileChange], name: &str, moved_to: &str) -> Vec<Finding> {
    changes
        .iter()
        .filter(|c| c.path != moved_to && !binds_at_top(&c.after, name))
        .filter_map(|change| {
            let lines = doctest_lines(&change.after, name, false);
            let first = *lines.first()?;
            Some(Finding::warning(
                &change.path,
                first,
                format!(
                    "{} doctest line(s) of {} use `{name}` (line {first} first), which the module no longer defines or imports: they fail with a NameError — import `{name}` in them, or move them too",
                    lines.len(),
                    change.path
                ),
            ))
        })
        .collect()
}

/// A warning for each file whose doctest examples call `name`: rope does not rewrite them.
pub(super) fn doctest_call_findings(
    sources: &dyn Sources,
    name: &str,
    new_list: &str,
) -> Result<Vec<Finding>, RopeFailure> {
    let mentioning = sources
        .files_mentioning(Language::Python, name)
        .map_err(|e| RopeFailure::Refactor(e.into()))?;
    Ok(mentioning
        .files
        .iter()
        .filter(|f| f.path.ends_with(".py"))
        .filter_map(|file| {
            let lines = doctest_lines(&file.text, name, true);
            let first = *lines.first()?;
            Some(Finding::warning(
                &file.path,
                first,
                format!(
                    "{} doctest line(s) of {} call `{name}` (line {first} first); rope does not rewrite examples in docstrings — update them to {new_list}",
                    lines.len(),
                    file.path
                ),
            ))
        })
        .collect())
}

/// Whether `text` binds `name` at its top level: a definition, an assignment or an import.
pub(super) fn binds_at_top(text: &str, name: &str) -> bool {
    text.lines().any(|line| {
        let starts = |prefix: &str| {
            line.strip_prefix(prefix).is_some_and(|rest| {
                rest.starts_with(name)
                    && !rest[name.len()..].starts_with(|c: char| c.is_alphanumeric() || c == '_')
            })
        };
        starts("def ")
            || starts("class ")
            || starts("async def ")
            || (line.starts_with(name) && line[name.len()..].trim_start().starts_with('='))
            || ((line.starts_with("from ") || line.starts_with("import "))
                && contains_word(line, name))
    })
}

/// Byte offsets of `word` in `text` as a whole word.
pub(super) fn word_positions<'t>(text: &'t str, word: &'t str) -> impl Iterator<Item = usize> + 't {
    text.match_indices(word)
        .map(|(at, _)| at)
        .filter(move |&at| {
            let before = text[..at].chars().next_back();
            let after = text[at + word.len()..].chars().next();
            let is_ident = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
            !is_ident(before) && !is_ident(after)
        })
}

pub(super) fn contains_word(text: &str, word: &str) -> bool {
    word_positions(text, word).next().is_some()
}

/// The 1-based line of the first line of `text` that contains `needle`.
pub(super) fn line_containing(text: &str, needle: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1)
}

/// A warning for each stub file (`.pyi`) that declares `name`: rope reads and changes only
/// `.py` modules.
pub(super) fn stub_findings(
    sources: &dyn Sources,
    name: &str,
) -> Result<Vec<Finding>, RopeFailure> {
    let mentioning = sources
        .files_mentioning(Language::Python, name)
        .map_err(|e| RopeFailure::Refactor(e.into()))?;
    let lang = Language::Python;
    Ok(mentioning
        .files
        .iter()
        .filter(|f| f.path.ends_with(".pyi"))
        .filter_map(|stub| {
            let outline = symbols::outline(lang, &lang.parse(&stub.text), &stub.text);
            let declared = outline.iter().find(|s| s.name == name)?;
            Some(Finding::warning(
                &stub.path,
                declared.line,
                format!(
                    "the stub {} declares `{name}` (line {}); rope does not change stub files — update it to match",
                    stub.path, declared.line
                ),
            ))
        })
        .collect())
}
