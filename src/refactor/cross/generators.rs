//! Python inline of a generator function: the body's `yield` pasted into a caller makes that
//! caller a generator and drops the value the call gave (pylsp-rope inlined attrs'
//! `gen_attr_names` into its tests: `zip(None, attrs)` in a function that now yields; their
//! tests failed with `TypeError` and no finding).

use crate::lang::Language;
use crate::lang::jumps::{JumpKind, jumps_leaving};
use crate::lang::symbols;
use crate::refactor::{Finding, InlineRequest};

use super::wording as w;
use super::{AfterMap, Project, line_at};

pub(super) fn check(project: &Project<'_>, request: &InlineRequest) -> Vec<Finding> {
    let lang = project.lang;
    if lang != Language::Python {
        return Vec::new();
    }
    let Some((change, function)) = project.inlined(request) else {
        return Vec::new();
    };
    let before_tree = project.tree(change, false);
    let Some(symbol) = symbols::outline(lang, &before_tree, &change.before)
        .into_iter()
        .find(|s| s.kind.is_function() && s.name_path == function.name_path)
    else {
        return Vec::new();
    };
    let Some(node) = lang
        .syntax()
        .function_named(&before_tree, &symbol.name_range)
    else {
        return Vec::new();
    };
    let generator = jumps_leaving(lang, node, &change.before)
        .iter()
        .any(|j| j.kind == JumpKind::Yield);
    if !generator {
        return Vec::new();
    }
    let mut findings = Vec::new();
    for change in project.own_changes().filter(|c| !c.created()) {
        let map = AfterMap::new(change);
        // Each edit that writes a `yield`: the pasted body.
        for (_, after) in map.spans() {
            let written = &change.after[after.clone()];
            if let Some(at) = crate::lang::calls::word_matches(written, "yield").first() {
                findings.push(
                    Finding::error(
                        &change.path,
                        line_at(&change.after, after.start + at),
                        w::inlined_generator(&function.name),
                    )
                    .with_kind(w::INLINED_GENERATOR),
                );
            }
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile};
    use crate::lang::symbols::SymbolQuery;
    use crate::refactor::MemorySources;

    fn run(before: &str, after: &str) -> Vec<Finding> {
        let source = SourceFile::from_text("a.py", before);
        let changes = vec![
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap(),
        ];
        let sources = MemorySources::new().with("a.py", before);
        let project = Project::new(Language::Python, &changes, &sources);
        let request = InlineRequest {
            file: "a.py".to_string(),
            function: SymbolQuery {
                name: "names".to_string(),
                line: None,
                column: None,
            },
        };
        check(&project, &request)
    }

    #[test]
    fn a_generator_pasted_into_its_caller_is_an_error() {
        // What pylsp-rope wrote for attrs' `gen_attr_names`.
        let before = "def names():\n    yield from 'ab'\n\n\ndef make(attrs):\n    return dict(zip(names(), attrs))\n";
        let after = "def make(attrs):\n    yield from 'ab'\n    return dict(zip(None, attrs))\n";
        let found = run(before, after);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].kind, Some(w::INLINED_GENERATOR));
        assert_eq!(found[0].line, 2);
        // A plain function (a generator expression or a nested generator is its own).
        let before = "def names():\n    inner = lambda: (x for x in 'ab')\n    def gen():\n        yield 1\n    return list(gen())\n\n\ndef make(attrs):\n    return dict(zip(names(), attrs))\n";
        let after = "def make(attrs):\n    inner = lambda: (x for x in 'ab')\n    def gen():\n        yield 1\n    return dict(zip(list(gen()), attrs))\n";
        assert_eq!(run(before, after), vec![]);
    }
}
