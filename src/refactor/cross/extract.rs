//! Cross-checks of an extract: the new function is defined once, the code that replaced the
//! selection calls it, its calls match its parameters, (Rust) a borrow it returns has a lifetime
//! and the generics it names are its own, and (Python) none of its locals is only ever updated
//! in place.

use crate::lang::calls::find_mentions;
use crate::lang::symbols::{self, Symbol};
use crate::lang::{Language, syntax_errors};
use crate::refactor::{ExtractRequest, Finding};

use super::{Project, after_range, arity, generics, jumps, lifetimes, line_at, unbound};
use crate::lang::callee::Function;

pub(super) fn check(project: &Project<'_>, request: &ExtractRequest) -> Vec<Finding> {
    let Some(change) = project.change(&request.file) else {
        return Vec::new();
    };
    let lang = project.lang;
    let named = |text: &str, tree: &tree_sitter::Tree| -> Vec<Symbol> {
        symbols::outline(lang, tree, text)
            .into_iter()
            .filter(|s| s.kind.is_function() && s.name == request.new_name)
            .collect()
    };
    let before_tree = project.tree(change, false);
    let after_tree = project.tree(change, true);
    // A result that does not parse has its own finding; its outline says little.
    if !syntax_errors(&after_tree, &change.after).is_empty() {
        return Vec::new();
    }
    let before = named(&change.before, &before_tree);
    let after = named(&change.after, &after_tree);
    let new_name = &request.new_name;
    let mut findings = Vec::new();
    if after.len() != before.len() + 1 {
        let line = after.first().map_or(request.start_line, |s| s.line);
        let message = if after.len() <= before.len() {
            format!(
                "the result defines no new function `{new_name}`: the extract did not create the function it was asked for"
            )
        } else {
            format!(
                "the result defines `{new_name}` {} times (lines {}): an extract creates one function",
                after.len(),
                after
                    .iter()
                    .map(|s| s.line.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        findings
            .push(Finding::error(&request.file, line, message).with_kind("cross.extract_defined"));
        return findings;
    }
    // The code that replaced the selection calls the new function.
    let selection = line_range(&change.before, request.start_line, request.end_line);
    let region = after_range(change, selection);
    let calls = find_mentions(lang, &after_tree, &change.after, new_name).calls;
    if !calls
        .iter()
        .any(|c| c.name_range.start >= region.start && c.name_range.end <= region.end)
    {
        findings.push(Finding::error(
            &request.file,
            line_at(&change.after, region.start),
            format!(
                "the selected lines {}-{} were not replaced by a call of `{new_name}`: the extracted code would no longer run there",
                request.start_line, request.end_line
            ),
        )
        .with_kind("cross.selection_not_called"));
    }
    let outline = symbols::outline(lang, &after_tree, &change.after);
    let created = after
        .iter()
        .find(|s| !before.iter().any(|b| b.name_path == s.name_path))
        .or(after.first());
    if let Some(function) = created.and_then(|symbol| {
        Function::read(
            lang,
            &request.file,
            &change.after,
            &after_tree,
            &outline,
            symbol,
        )
    }) {
        findings.extend(arity::check_function(project, &function));
    }
    if let Some(symbol) = created {
        findings.extend(jumps::check(
            lang,
            &request.file,
            &change.after,
            &after_tree,
            symbol,
        ));
        findings.extend(lifetimes::check(
            project,
            &request.file,
            &change.after,
            &after_tree,
            symbol,
        ));
        if lang == Language::Rust {
            findings.extend(generics::check(
                &request.file,
                (&change.before, &before_tree),
                request.start_line,
                (&change.after, &after_tree),
                symbol,
            ));
        }
    }
    if lang == Language::Python {
        findings.extend(unbound::python_unbound_updates(
            &request.file,
            &change.after,
            new_name,
        ));
    }
    findings
}

/// The bytes of lines `start..=end` (1-based) of `text`.
fn line_range(text: &str, start: usize, end: usize) -> std::ops::Range<usize> {
    let mut offsets = vec![0];
    offsets.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    offsets.push(text.len());
    let at = |line: usize| offsets[line.saturating_sub(1).min(offsets.len() - 1)];
    at(start)..at(end + 1).max(at(start))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile};
    use crate::refactor::MemorySources;

    fn run(before: &str, after: &str, start: usize, end: usize) -> Vec<Finding> {
        let source = SourceFile::from_text("a.py", before);
        let changes = vec![
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap(),
        ];
        let sources = MemorySources::new().with("a.py", before);
        let project = Project::new(Language::Python, &changes, &sources);
        check(
            &project,
            &ExtractRequest {
                file: "a.py".to_string(),
                start_line: start,
                end_line: end,
                new_name: "part".to_string(),
            },
        )
    }

    const BEFORE: &str = "def f(a):\n    b = a + 1\n    c = b * 2\n    return c\n";

    #[test]
    fn a_good_extract_passes() {
        let after = "def f(a):\n    c = part(a)\n    return c\n\n\ndef part(a):\n    b = a + 1\n    c = b * 2\n    return c\n";
        assert_eq!(run(BEFORE, after, 2, 3), vec![]);
    }

    #[test]
    fn the_selection_must_become_a_call() {
        let after = "def f(a):\n    b = a + 1\n    c = b * 2\n    return c\n\n\ndef part(a):\n    b = a + 1\n    return b * 2\n";
        let findings = run(BEFORE, after, 2, 3);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(
            findings[0]
                .message
                .contains("were not replaced by a call of `part`")
        );
    }

    #[test]
    fn one_new_definition_and_calls_that_fit_it() {
        let twice = "def f(a):\n    c = part(a)\n    return c\n\n\ndef part(a):\n    return a\n\n\ndef part(a):\n    return a\n";
        let findings = run(BEFORE, twice, 2, 3);
        assert!(
            findings[0].message.contains("defines `part` 2 times"),
            "{findings:?}"
        );
        let wrong_arity = "def f(a):\n    c = part(a, 3)\n    return c\n\n\ndef part(a):\n    b = a + 1\n    return b * 2\n";
        let findings = run(BEFORE, wrong_arity, 2, 3);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert!(
            findings[0]
                .message
                .contains("passes 2 positional arguments"),
            "{}",
            findings[0].message
        );
    }
}
