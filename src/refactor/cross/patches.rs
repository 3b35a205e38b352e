//! Python move: a dotted path in a string (what `mock.patch`, `monkeypatch.setattr` and plugin
//! settings take) that names the moved code, or a module-level name it reads, under the module it
//! left. The code now looks those names up in its new module, so a patch of the old path no
//! longer reaches it (more-itertools' `@patch('more_itertools.recipes.groupby')` after moving
//! `all_equal`): the tests pass or fail for another reason than before.

use std::collections::BTreeSet;

use crate::lang::Language;
use crate::lang::python::modules::{import_names_module, module_parts};
use crate::refactor::{Finding, MoveRequest};

use super::wording as w;
use super::{AfterMap, Project, line_at};

pub(super) fn check(project: &Project<'_>, request: &MoveRequest) -> Vec<Finding> {
    if project.lang != Language::Python {
        return Vec::new();
    }
    let (Some(source), Some(target)) = (
        project.change(&request.file),
        project.change(&request.target_file),
    ) else {
        return Vec::new();
    };
    let source_module = module_parts(&request.file);
    let Some(last_part) = source_module.last().cloned() else {
        return Vec::new();
    };
    let moved = request
        .symbol
        .name
        .split('/')
        .next()
        .unwrap_or_default()
        .to_string();
    // The module-level names of the source that the moved code reads: they are looked up in the
    // target now.
    let source_tree = project.tree(source, false);
    let bound: BTreeSet<String> = project
        .lang
        .syntax()
        .top_level_bindings(&source_tree, &source.before)
        .into_iter()
        .map(|b| b.name)
        .collect();
    let span = written_span(target);
    let mut names: BTreeSet<String> = identifiers(&target.after[span])
        .filter(|name| bound.contains(*name))
        .map(str::to_string)
        .collect();
    names.insert(moved.clone());
    let target_module = module_parts(&request.target_file).join(".");
    let mut findings = Vec::new();
    for (path, text) in project.files_mentioning_after(&last_part) {
        for (at, dotted) in dotted_strings(&text) {
            let Some((module, name)) = dotted.rsplit_once('.') else {
                continue;
            };
            if !names.contains(name) || !import_names_module(module, &path, &source_module) {
                continue;
            }
            let message = if name == moved {
                w::patched_moved(dotted, name, &target_module)
            } else {
                w::patched_read(dotted, &moved, name, &target_module)
            };
            findings.push(
                Finding::warning(&path, line_at(&text, at), message).with_kind(w::PATCH_LEFT),
            );
        }
    }
    findings
}

/// What the move wrote into the target: all of a new file, else from its first edit to its last.
fn written_span(target: &crate::edit::FileChange) -> std::ops::Range<usize> {
    if target.created() {
        return 0..target.after.len();
    }
    let map = AfterMap::new(target);
    let written = map.spans().iter().map(|(_, after)| after.clone());
    let start = written.clone().map(|r| r.start).min().unwrap_or(0);
    let end = written.map(|r| r.end).max().unwrap_or(0);
    start..end
}

/// Every run of identifier characters.
fn identifiers(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|s| !s.is_empty())
}

/// Every string literal whose whole content is a dotted name of two parts or more
/// (`'pkg.mod.name'`), with the offset of its content.
fn dotted_strings(text: &str) -> Vec<(usize, &str)> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let quote = bytes[i];
        if quote != b'\'' && quote != b'"' {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut end = start;
        while end < bytes.len()
            && (bytes[end].is_ascii_alphanumeric()
                || bytes[end] == b'_'
                || bytes[end] == b'.'
                || bytes[end] >= 0x80)
        {
            end += 1;
        }
        if end < bytes.len() && bytes[end] == quote && end > start {
            let content = &text[start..end];
            let parts: Vec<&str> = content.split('.').collect();
            let well_formed = parts.len() >= 2
                && parts.iter().all(|p| {
                    p.chars()
                        .next()
                        .is_some_and(|c| c.is_alphabetic() || c == '_')
                });
            if well_formed {
                found.push((start, content));
            }
            i = end + 1;
        } else {
            i = end.max(start);
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile, TextEdit};
    use crate::lang::symbols::SymbolQuery;
    use crate::refactor::MemorySources;

    fn request() -> MoveRequest {
        MoveRequest {
            file: "pkg/recipes.py".into(),
            symbol: SymbolQuery {
                name: "all_equal".into(),
                line: None,
                column: None,
            },
            target_file: "pkg/moved.py".into(),
        }
    }

    const SOURCE: &str = "from itertools import groupby\n\n\ndef all_equal(xs):\n    g = groupby(xs)\n    return next(g, True) and not next(g, False)\n\n\ndef other():\n    return 1\n";

    fn changes() -> Vec<FileChange> {
        let source = SourceFile::from_text("pkg/recipes.py", SOURCE);
        let start = SOURCE.find("def all_equal").unwrap();
        let end = SOURCE.find("def other").unwrap();
        vec![
            FileChange::modify(
                &source,
                vec![TextEdit::new(
                    start..end,
                    "from pkg.moved import all_equal\n\n\n",
                )],
            )
            .unwrap(),
            FileChange::create(
                "pkg/moved.py",
                "from itertools import groupby\n\n\ndef all_equal(xs):\n    g = groupby(xs)\n    return next(g, True) and not next(g, False)\n",
            ),
        ]
    }

    fn run(test_text: &str) -> Vec<Finding> {
        let sources = MemorySources::new()
            .with("pkg/recipes.py", SOURCE)
            .with("tests/test_recipes.py", test_text);
        let changes = changes();
        let project = Project::new(Language::Python, &changes, &sources);
        check(&project, &request())
    }

    #[test]
    fn a_patch_of_a_name_the_moved_code_read_from_its_old_module_is_a_warning() {
        let found = run(
            "from unittest.mock import patch\nimport pkg\n\n\n@patch('pkg.recipes.groupby')\ndef test_it(m):\n    assert pkg.recipes.all_equal('aa')\n",
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].file, "tests/test_recipes.py");
        assert_eq!(found[0].line, 5);
        assert_eq!(found[0].kind, Some(w::PATCH_LEFT));
        assert!(
            found[0].message.contains("pkg.moved.groupby"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn a_patch_of_the_moved_function_itself_is_a_warning_and_other_paths_are_not() {
        let found = run(
            "from unittest.mock import patch\n\n\n@patch(\"pkg.recipes.all_equal\")\n@patch('pkg.recipes.other')\n@patch('pkg.elsewhere.groupby')\ndef test_it(a, b, c):\n    pass\n",
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 4);
        assert!(
            found[0].message.contains("pkg.moved"),
            "{}",
            found[0].message
        );
    }

    #[test]
    fn dotted_strings_are_whole_string_contents_only() {
        let text = "a = 'x.y'\nb = \"not a.path here\"\nc = 'z'\nd = '1.5'\n";
        let found: Vec<&str> = dotted_strings(text).into_iter().map(|(_, s)| s).collect();
        assert_eq!(found, vec!["x.y"]);
    }
}
