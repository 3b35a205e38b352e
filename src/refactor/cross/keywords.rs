//! Python rename of a parameter: a call that still passes the old name as a keyword
//! (`A(a_param=1)` after renaming `__init__`'s `a_param`) raises TypeError.

use crate::lang::Language;
use crate::lang::callee::Function;
use crate::lang::calls::find_mentions;
use crate::lang::symbols;
use crate::refactor::{Finding, RenameRequest};

use super::Project;
use super::wording as w;

pub(super) fn check(project: &Project<'_>, request: &RenameRequest) -> Vec<Finding> {
    let (old, new) = (request.symbol.name.as_str(), request.new_name.as_str());
    if project.lang != Language::Python || old == new {
        return Vec::new();
    }
    let Some(change) = project.change(&request.file).filter(|c| !c.created()) else {
        return Vec::new();
    };
    let lang = project.lang;
    let (before_tree, after_tree) = (project.tree(change, false), project.tree(change, true));
    let before_outline = symbols::outline(lang, &before_tree, &change.before);
    let after_outline = symbols::outline(lang, &after_tree, &change.after);
    let has = |f: &Function, name: &str| f.params.iter().any(|p| p.name == name);
    let mut findings = Vec::new();
    for symbol in before_outline.iter().filter(|s| s.kind.is_function()) {
        let Some(before) = Function::read(
            lang,
            &change.path,
            &change.before,
            &before_tree,
            &before_outline,
            symbol,
        ) else {
            continue;
        };
        if !has(&before, old) {
            continue;
        }
        let renamed = after_outline
            .iter()
            .filter(|s| s.kind.is_function() && s.name_path == symbol.name_path)
            .filter_map(|s| {
                Function::read(
                    lang,
                    &change.path,
                    &change.after,
                    &after_tree,
                    &after_outline,
                    s,
                )
            })
            .any(|after| has(&after, new) && !has(&after, old));
        if !renamed {
            continue;
        }
        // A constructor is called through its class.
        let callee = match (&before.owner, before.name.as_str()) {
            (Some(class), "__init__") => class.clone(),
            _ => before.name.clone(),
        };
        for (path, text) in project.files_mentioning_after(&callee) {
            let tree = match project.change(&path) {
                Some(c) => project.tree(c, true),
                None => lang.parse(&text),
            };
            for call in find_mentions(lang, &tree, &text, &callee).calls {
                if call.args.iter().any(|a| a.keyword.as_deref() == Some(old)) {
                    findings.push(
                        Finding::error(&path, call.line, w::keyword_left(old, new, &callee))
                            .with_kind(w::KEYWORD_LEFT),
                    );
                }
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

    #[test]
    fn a_keyword_left_at_a_call_is_an_error() {
        let before = "class A:\n    def __init__(self, a_param):\n        self.a = a_param\n\n\nA(a_param=1)\n";
        let after = "class A:\n    def __init__(self, b_param):\n        self.a = b_param\n\n\nA(a_param=1)\n";
        let other = "from m import A\n\nA(a_param=2)\nA(3)\n";
        let source = SourceFile::from_text("m.py", before);
        let changes = vec![
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap(),
        ];
        let sources = MemorySources::new()
            .with("m.py", before)
            .with("other.py", other);
        let request = RenameRequest {
            file: "m.py".to_string(),
            symbol: SymbolQuery {
                name: "a_param".to_string(),
                line: Some(2),
                column: None,
            },
            new_name: "b_param".to_string(),
            include_possible: Vec::new(),
        };
        let found = check(
            &Project::new(Language::Python, &changes, &sources),
            &request,
        );
        let places: Vec<(&str, usize)> = found.iter().map(|f| (f.file.as_str(), f.line)).collect();
        assert_eq!(places, vec![("m.py", 6), ("other.py", 3)], "{found:?}");
        assert_eq!(found[0].kind, Some(w::KEYWORD_LEFT));
        // The calls renamed too: nothing to say.
        let right = "class A:\n    def __init__(self, b_param):\n        self.a = b_param\n\n\nA(b_param=1)\n";
        let changes = vec![
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, right)).unwrap(),
        ];
        let sources = MemorySources::new().with("m.py", before);
        assert!(
            check(
                &Project::new(Language::Python, &changes, &sources),
                &request
            )
            .is_empty()
        );
    }
}
