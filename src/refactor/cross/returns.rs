//! Rust inline: a `return` of the inlined body that now returns from the caller. rust-analyzer
//! turns `fn foo() -> i32 { if c { return 10; } 5 }` called as `let baz = foo();` into
//! `let baz = { if c { return 10; } 5 };`, which returns from the caller (E0308). A named
//! function of a changed file with more returns after the inline than before has taken some in.

use std::collections::BTreeMap;

use crate::lang::Language;
use crate::lang::jumps::{Return, returns};
use crate::refactor::{Finding, InlineRequest};

use super::wording as w;
use super::{AfterMap, Project};

pub(super) fn check(project: &Project<'_>, request: &InlineRequest) -> Vec<Finding> {
    if project.lang != Language::Rust {
        return Vec::new();
    }
    let inlined = request.function.name.as_str();
    let mut findings = Vec::new();
    for change in project.own_changes().filter(|c| !c.created()) {
        if !change.after.contains("return") {
            continue;
        }
        let lang = project.lang;
        let before = returns(lang, &project.tree(change, false), &change.before);
        let after = returns(lang, &project.tree(change, true), &change.after);
        let count = |all: &[Return]| -> BTreeMap<String, usize> {
            let mut counts = BTreeMap::new();
            for r in all {
                if let Some(f) = r.function.as_deref().filter(|f| *f != inlined) {
                    *counts.entry(f.to_string()).or_insert(0) += 1;
                }
            }
            counts
        };
        let (counts_before, counts_after) = (count(&before), count(&after));
        let map = AfterMap::new(change);
        let written = |offset: usize| {
            let i = map
                .spans()
                .partition_point(|(_, after)| after.end <= offset);
            map.spans()
                .get(i)
                .is_some_and(|(_, after)| after.start <= offset)
        };
        for (function, n) in &counts_after {
            if *n <= counts_before.get(function).copied().unwrap_or(0) {
                continue;
            }
            let of_function: Vec<&Return> = after
                .iter()
                .filter(|r| r.function.as_deref() == Some(function.as_str()))
                .collect();
            let mut new: Vec<&Return> = of_function
                .iter()
                .copied()
                .filter(|r| written(r.offset))
                .collect();
            if new.is_empty() {
                new = of_function.into_iter().take(1).collect();
            }
            findings.extend(new.into_iter().map(|r| {
                Finding::error(&change.path, r.line, w::return_in_block(function, inlined))
                    .with_kind(w::RETURN_IN_BLOCK)
            }));
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
        let source = SourceFile::from_text("src/lib.rs", before);
        let change =
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap();
        let changes = vec![change];
        let sources = MemorySources::new().with("src/lib.rs", before);
        let project = Project::new(Language::Rust, &changes, &sources);
        let request = InlineRequest {
            file: "src/lib.rs".to_string(),
            function: SymbolQuery {
                name: "foo".to_string(),
                line: None,
                column: None,
            },
        };
        check(&project, &request)
    }

    #[test]
    fn an_early_return_inlined_into_a_block_is_an_error() {
        let before = "fn foo() -> i32 {\n    if true {\n        return 10i32;\n    }\n    5\n}\n\nfn bar() -> u8 {\n    let baz = foo();\n    0\n}\n";
        let after = "fn bar() -> u8 {\n    let baz = {\n        if true {\n            return 10i32;\n        }\n        5\n    };\n    0\n}\n";
        let found = run(before, after);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 4);
        assert_eq!(found[0].kind, Some(w::RETURN_IN_BLOCK));
        assert!(
            found[0].message.contains("into `bar`"),
            "{}",
            found[0].message
        );
        // The caller's own returns, and a closure's, are no concern.
        let fine_before = "fn foo() -> i32 {\n    5\n}\n\nfn bar() -> i32 {\n    if false {\n        return 1;\n    }\n    let c = |x: i32| { return x; };\n    foo()\n}\n";
        let fine_after = "fn bar() -> i32 {\n    if false {\n        return 1;\n    }\n    let c = |x: i32| { return x; };\n    5\n}\n";
        assert!(run(fine_before, fine_after).is_empty());
    }
}
