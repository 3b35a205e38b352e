//! Inline: the public-API guard. An inline that removes a function's definition leaves every
//! import of it broken (`from pkg.make import has_own`, `use crate::make::has_own;`): an error
//! at each import in the project. A removed function that was public API (listed in the
//! module's `__all__`, or `pub` at the root of a Rust library) may be imported by code outside
//! the project (its tests, its users): a warning. A removed method the language itself calls (a
//! Python `__dunder__`, a Rust method of `impl Trait for T`): an error.

use crate::lang::Language;
use crate::lang::callee::Function;
use crate::lang::calls::{ReferenceKind, find_mentions, word_matches};
use crate::lang::rust::items::implemented_trait;
use crate::lang::symbols;
use crate::refactor::{Finding, InlineRequest};

use super::wording as w;
use super::{Project, line_at};

pub(super) fn check(project: &Project<'_>, request: &InlineRequest) -> Vec<Finding> {
    let lang = project.lang;
    let Some((change, function)) = project.inlined(request).filter(|(c, _)| !c.created()) else {
        return Vec::new();
    };
    let before_tree = project.tree(change, false);
    let after_tree = project.tree(change, true);
    let removed = !symbols::outline(lang, &after_tree, &change.after)
        .iter()
        .any(|s| s.kind.is_function() && s.name_path == function.name_path);
    if !removed {
        return Vec::new();
    }
    if function.owner.is_some() {
        let outline = symbols::outline(lang, &before_tree, &change.before);
        let symbol = outline.iter().find(|s| s.name_path == function.name_path);
        let line = symbol.map_or(1, |s| s.line);
        // Rust: a method of `impl Trait for T` is the impl's; rust-analyzer's inline of
        // either's `Extend::extend` deleted it (E0046).
        let implemented = symbol
            .filter(|_| lang == Language::Rust)
            .and_then(|s| lang.syntax().function_named(&before_tree, &s.name_range))
            .and_then(|node| implemented_trait(node, &change.before));
        if let Some(implemented) = implemented {
            return vec![
                Finding::error(
                    &request.file,
                    line,
                    w::removed_trait_method(&function.name, implemented),
                )
                .with_kind(w::REMOVED_TRAIT_METHOD),
            ];
        }
        return special_method_removed(lang, request, line, &function);
    }
    let mut findings = Vec::new();
    let module = function.module();
    for (path, text) in project.files_mentioning_after(&function.name) {
        if path == request.file {
            continue;
        }
        let tree = match project.change(&path) {
            Some(c) => project.tree(c, true),
            None => lang.parse(&text),
        };
        for import in find_mentions(lang, &tree, &text, &function.name)
            .references
            .into_iter()
            .filter(|r| r.kind == ReferenceKind::Import)
        {
            // The import names the function's module (`from pkg.make import f`,
            // `use crate::make::f;`, `use super::f;` from a child module).
            let line = text[..import.range.start].rfind('\n').map_or(0, |i| i + 1);
            let statement = &text[line..import.range.end];
            let names_module = module.is_none_or(|m| !word_matches(statement, m).is_empty())
                || statement.contains("super::")
                || statement.trim_start().starts_with("from .");
            if names_module {
                findings.push(
                    Finding::error(
                        &path,
                        import.line,
                        w::removed_but_imported(&function.name, &request.file),
                    )
                    .with_kind(w::REMOVED_BUT_IMPORTED),
                );
            }
        }
    }
    if findings.is_empty()
        && let Some(how) = public_how(lang, &request.file, &change.before, &function)
    {
        let at = word_matches(&change.before, &function.name)
            .into_iter()
            .next()
            .map_or(1, |o| line_at(&change.before, o));
        // Where the name first shows (the `__all__` entry, or where the definition was).
        let line = at.min(change.after.lines().count().max(1));
        findings.push(
            Finding::warning(&request.file, line, w::removed_public(&function.name, how))
                .with_kind(w::REMOVED_PUBLIC),
        );
    }
    findings
}

/// A Python `__dunder__` method the inline removed: Python calls it itself (`obj(…)` for
/// `__call__`, `==` for `__eq__`, …), in places no call list shows, and they now fail or reach
/// the base class's (attrs' `_OptionalValidator.__call__`, inlined by rope, broke its tests
/// with no finding).
fn special_method_removed(
    lang: Language,
    request: &InlineRequest,
    line: usize,
    function: &Function,
) -> Vec<Finding> {
    let name = function.name.as_str();
    let dunder = name.len() > 4 && name.starts_with("__") && name.ends_with("__");
    if lang != Language::Python || !dunder {
        return Vec::new();
    }
    vec![
        Finding::error(
            &request.file,
            line,
            w::removed_special(&function.name_path, name),
        )
        .with_kind(w::REMOVED_SPECIAL),
    ]
}

/// How the function is public API, when it is.
fn public_how(lang: Language, file: &str, text: &str, function: &Function) -> Option<&'static str> {
    let name = &function.name;
    match lang {
        Language::Python => {
            let all = text.find("__all__")?;
            let listed = [format!("\"{name}\""), format!("'{name}'")];
            let tail = &text[all..];
            let end = tail
                .find(']')
                .or_else(|| tail.find(')'))
                .unwrap_or(tail.len());
            listed
                .iter()
                .any(|l| tail[..end].contains(l.as_str()))
                .then_some("listed in the module's `__all__`")
        }
        Language::Rust => {
            let root = file.ends_with("src/lib.rs") || file == "lib.rs";
            let public = text.contains(&format!("pub fn {name}("))
                || text.contains(&format!("pub fn {name}<"));
            (root && public).then_some("`pub` at the root of the library")
        }
    }
}

#[cfg(test)]
mod special_tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile};
    use crate::lang::symbols::SymbolQuery;
    use crate::refactor::MemorySources;

    #[test]
    fn removing_a_method_python_calls_itself_is_an_error() {
        let before = "class V:\n    def __call__(self, x):\n        return x + 1\n\n    def use(self):\n        return self.__call__(2)\n";
        let after = "class V:\n    def use(self):\n        return 2 + 1\n";
        let changes = vec![
            FileChange::modify(
                &SourceFile::from_text("v.py", before),
                crate::backend::lsp::minimal_edits(before, after),
            )
            .unwrap(),
        ];
        let sources = MemorySources::new().with("v.py", before);
        let project = Project::new(Language::Python, &changes, &sources);
        let request = |name: &str| InlineRequest {
            file: "v.py".to_string(),
            function: SymbolQuery {
                name: name.to_string(),
                line: None,
                column: None,
            },
        };
        let found = check(&project, &request("V/__call__"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 2);
        assert_eq!(found[0].kind, Some(w::REMOVED_SPECIAL));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile};
    use crate::lang::symbols::SymbolQuery;
    use crate::refactor::MemorySources;

    fn request(file: &str, name: &str) -> InlineRequest {
        InlineRequest {
            file: file.to_string(),
            function: SymbolQuery {
                name: name.to_string(),
                line: None,
                column: None,
            },
        }
    }

    #[test]
    fn removing_a_method_of_a_trait_impl_is_an_error() {
        // rust-analyzer's inline of either's `Extend::extend` for `(A, B)`.
        let before = "impl<A: Extend<u8>> Extend<u8> for (A,) {\n    fn extend<T: IntoIterator<Item = u8>>(&mut self, iter: T) {\n        self.0.extend(iter)\n    }\n}\n\nfn fill(pair: &mut (Vec<u8>,)) {\n    pair.extend([1]);\n}\n";
        let after = "impl<A: Extend<u8>> Extend<u8> for (A,) {\n}\n\nfn fill(pair: &mut (Vec<u8>,)) {\n    pair.0.extend([1]);\n}\n";
        let changes = vec![
            FileChange::modify(
                &SourceFile::from_text("src/lib.rs", before),
                crate::backend::lsp::minimal_edits(before, after),
            )
            .unwrap(),
        ];
        let sources = MemorySources::new().with("src/lib.rs", before);
        let project = Project::new(Language::Rust, &changes, &sources);
        let found = check(&project, &request("src/lib.rs", "extend"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 2);
        assert_eq!(found[0].kind, Some(w::REMOVED_TRAIT_METHOD));
        assert!(found[0].message.contains("`impl Extend<u8>`"), "{found:?}");
    }

    #[test]
    fn an_import_of_the_removed_function_is_an_error() {
        let before = "def helper(x):\n    return x + 1\n\n\ndef user(y):\n    return helper(y)\n";
        let after = "def user(y):\n    return y + 1\n";
        let other = "from pkg.make import helper\n\nprint(1)\n";
        let source = SourceFile::from_text("pkg/make.py", before);
        let changes = vec![
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap(),
        ];
        let sources = MemorySources::new()
            .with("pkg/make.py", before)
            .with("pkg/other.py", other);
        let found = check(
            &Project::new(Language::Python, &changes, &sources),
            &request("pkg/make.py", "helper"),
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].file.as_str(), found[0].line), ("pkg/other.py", 1));
        assert_eq!(found[0].kind, Some(w::REMOVED_BUT_IMPORTED));
    }

    #[test]
    fn a_removed_function_of_all_is_a_warning() {
        let before = "__all__ = [\"helper\", \"user\"]\n\n\ndef helper(x):\n    return x + 1\n\n\ndef user(y):\n    return helper(y)\n";
        let after = "__all__ = [\"helper\", \"user\"]\n\n\ndef user(y):\n    return y + 1\n";
        let source = SourceFile::from_text("m.py", before);
        let changes = vec![
            FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap(),
        ];
        let sources = MemorySources::new().with("m.py", before);
        let found = check(
            &Project::new(Language::Python, &changes, &sources),
            &request("m.py", "helper"),
        );
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].severity, crate::refactor::Severity::Warning);
        assert_eq!(found[0].kind, Some(w::REMOVED_PUBLIC));
        // Not public: nothing.
        let private_before =
            "def helper(x):\n    return x + 1\n\n\ndef user(y):\n    return helper(y)\n";
        let private_after = "def user(y):\n    return y + 1\n";
        let source = SourceFile::from_text("m.py", private_before);
        let changes = vec![
            FileChange::modify(
                &source,
                crate::backend::lsp::minimal_edits(private_before, private_after),
            )
            .unwrap(),
        ];
        let sources = MemorySources::new().with("m.py", private_before);
        assert!(
            check(
                &Project::new(Language::Python, &changes, &sources),
                &request("m.py", "helper")
            )
            .is_empty()
        );
    }
}
