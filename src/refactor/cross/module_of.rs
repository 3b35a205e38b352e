//! Python move: a function or class moved to another module answers `__module__` with the new
//! module, and so do its repr, the place pickle records for it and any registry keyed by module
//! and name. Said once at the moved definition (an info); a place that reads the moved name's
//! `__module__` is a warning (toolz's `assert merge.__module__ == 'toolz.curried.exceptions'`
//! failed after `merge` moved, and nothing said why).

use tree_sitter::Node;

use crate::lang::Language;
use crate::lang::python::modules::module_parts;
use crate::refactor::{Finding, MoveRequest};

use super::wording as w;
use super::{Project, line_at};

pub(super) fn check(project: &Project<'_>, request: &MoveRequest) -> Vec<Finding> {
    if project.lang != Language::Python || request.file == request.target_file {
        return Vec::new();
    }
    let Some(target) = project.change(&request.target_file) else {
        return Vec::new();
    };
    let moved = request.symbol.name.as_str();
    if moved.is_empty() || moved.contains(['/', '.']) {
        return Vec::new();
    }
    let tree = project.tree(target, true);
    let Some((kind, at)) = top_level_definition(tree.root_node(), &target.after, moved) else {
        // A variable has no `__module__`; a result without the definition is another check's.
        return Vec::new();
    };
    let (old, new) = (dotted(&request.file), dotted(&request.target_file));
    if old == new || old.is_empty() || new.is_empty() {
        return Vec::new();
    }
    let mut findings = vec![
        Finding::info(
            &target.path,
            line_at(&target.after, at),
            w::module_changed(kind, moved, &old, &new),
        )
        .with_kind(w::MODULE_CHANGED),
    ];
    // The files that read `moved.__module__` and name one of the two modules (an import of it).
    let modules: Vec<String> = [&old, &new]
        .iter()
        .filter_map(|m| m.rsplit('.').next().map(str::to_string))
        .collect();
    for (path, text) in project.files_mentioning_after(moved) {
        let names_a_module = path == request.file
            || path == request.target_file
            || modules
                .iter()
                .any(|m| !crate::lang::calls::word_matches(&text, m).is_empty());
        if !names_a_module {
            continue;
        }
        for at in module_reads(&text, moved) {
            findings.push(
                Finding::warning(&path, line_at(&text, at), w::module_read(moved, &old, &new))
                    .with_kind(w::MODULE_READ),
            );
        }
    }
    findings
}

/// `pkg.recipes` for `pkg/recipes.py` (and `src/pkg/recipes.py`), `pkg` for `pkg/__init__.py`.
fn dotted(path: &str) -> String {
    module_parts(path.strip_prefix("src/").unwrap_or(path)).join(".")
}

/// "function" or "class", and the offset of the top-level definition of `name` in `root`.
fn top_level_definition(root: Node<'_>, text: &str, name: &str) -> Option<(&'static str, usize)> {
    let mut cursor = root.walk();
    for child in root.named_children(&mut cursor) {
        let definition = if child.kind() == "decorated_definition" {
            child.child_by_field_name("definition")?
        } else {
            child
        };
        let kind = match definition.kind() {
            "function_definition" => "function",
            "class_definition" => "class",
            _ => continue,
        };
        let named = definition
            .child_by_field_name("name")
            .and_then(|n| text.get(n.byte_range()));
        if named == Some(name) {
            return Some((kind, definition.start_byte()));
        }
    }
    None
}

/// The offsets of each `name.__module__` in code (spaces around the dot allowed) and
/// `getattr(name, '__module__'…` (`name` or `module.name`) in `text`, `name` a whole word.
fn module_reads(text: &str, name: &str) -> Vec<usize> {
    let mut found = Vec::new();
    let mut lexed = None;
    for at in crate::lang::calls::word_matches(text, name) {
        // Code only: a string or a comment that says `name.__module__` reads nothing.
        let lexed = lexed.get_or_insert_with(|| crate::lang::lex::lex(Language::Python, text));
        if lexed.span_at(at).is_some() {
            continue;
        }
        let rest = &text[at + name.len()..];
        let after_dot = rest.trim_start_matches([' ', '\t']);
        if let Some(after) = after_dot.strip_prefix('.')
            && ends_with_word(after.trim_start_matches([' ', '\t']), "__module__")
        {
            found.push(at);
            continue;
        }
        // `getattr(name, …` or `getattr(module.name, …`.
        let before = text[..at]
            .trim_end_matches(|c: char| c.is_alphanumeric() || c == '_' || c == '.')
            .trim_end_matches([' ', '\t']);
        if let Some(call) = before.strip_suffix('(')
            && call.trim_end_matches([' ', '\t']).ends_with("getattr")
            && let Some(after) = after_dot.strip_prefix(',')
        {
            let after = after.trim_start_matches([' ', '\t']);
            if after.starts_with("'__module__'") || after.starts_with("\"__module__\"") {
                found.push(at);
            }
        }
    }
    found
}

/// Whether `text` starts with the whole word `word`.
fn ends_with_word(text: &str, word: &str) -> bool {
    text.strip_prefix(word).is_some_and(|rest| {
        !rest
            .chars()
            .next()
            .is_some_and(|c| c.is_alphanumeric() || c == '_')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile, TextEdit};
    use crate::lang::symbols::SymbolQuery;
    use crate::refactor::MemorySources;

    const SOURCE: &str = "import toolz\n\n\n@toolz.curry\ndef merge(d, *dicts):\n    return toolz.merge(d, *dicts)\n\n\nLIMIT = 3\n";
    const MOVED: &str = "import toolz\n\n\n@toolz.curry\ndef merge(d, *dicts):\n    return toolz.merge(d, *dicts)\n";

    fn request(name: &str) -> MoveRequest {
        MoveRequest {
            file: "toolz/curried/exceptions.py".into(),
            symbol: SymbolQuery {
                name: name.into(),
                line: None,
                column: None,
            },
            target_file: "toolz/curried/merging.py".into(),
        }
    }

    const MERGE: &str = "@toolz.curry\ndef merge(d, *dicts):\n    return toolz.merge(d, *dicts)\n";

    /// The findings of moving `removed` (a part of `SOURCE`) to a new module holding `moved`.
    fn run(request: &MoveRequest, removed: &str, moved: &str, test_text: &str) -> Vec<Finding> {
        let sources = MemorySources::new()
            .with("toolz/curried/exceptions.py", SOURCE)
            .with("toolz/tests/test_functoolz.py", test_text);
        let source = SourceFile::from_text("toolz/curried/exceptions.py", SOURCE);
        let start = SOURCE.find(removed).expect("a part of the source");
        let changes = vec![
            FileChange::modify(
                &source,
                vec![TextEdit::new(start..start + removed.len(), "")],
            )
            .unwrap(),
            FileChange::create("toolz/curried/merging.py", moved),
        ];
        let project = Project::new(Language::Python, &changes, &sources);
        check(&project, request)
    }

    #[test]
    fn a_moved_function_says_its_module_changed_and_a_read_of_its_module_is_a_warning() {
        let test = "def test_curry_module():\n    from toolz.curried.merging import merge\n    assert merge.__module__ == 'toolz.curried.exceptions'\n\n\ndef test_other():\n    from toolz.curried import merging\n    assert getattr( merging.merge , '__module__') == 'toolz'\n    # merge.__module__name is another word\n    assert merge.__module__name\n";
        let found = run(&request("merge"), MERGE, MOVED, test);
        let kinds: Vec<_> = found
            .iter()
            .map(|f| (f.kind, f.file.as_str(), f.line))
            .collect();
        assert_eq!(
            kinds,
            vec![
                (Some(w::MODULE_CHANGED), "toolz/curried/merging.py", 5),
                (Some(w::MODULE_READ), "toolz/tests/test_functoolz.py", 3),
                (Some(w::MODULE_READ), "toolz/tests/test_functoolz.py", 8),
            ],
            "{found:#?}"
        );
        let says = [
            (0, "toolz.curried.merging"),
            (0, "pickle"),
            (1, "`merge.__module__`"),
            (1, "toolz.curried.exceptions"),
        ];
        for (i, words) in says {
            assert!(found[i].message.contains(words), "{}", found[i].message);
        }
    }

    #[test]
    fn a_file_that_names_neither_module_and_a_moved_variable_say_nothing_of_it() {
        let elsewhere = "from toolz import merge\n\nassert merge.__module__ == 'toolz'\n";
        let found = run(&request("merge"), MERGE, MOVED, elsewhere);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].kind, Some(w::MODULE_CHANGED));
        let variable = "LIMIT = 3\n";
        assert!(run(&request("LIMIT"), variable, variable, elsewhere).is_empty());
    }

    #[test]
    fn reads_of_the_module_are_found_around_spaces_and_only_as_the_whole_word() {
        let text = "a = f.__module__\nb = f . __module__\nc = getattr(f, \"__module__\")\nd = ff.__module__\ne = f.__module__x\ng = getattr(m.f, '__module__')\nh = getattr(f, '__name__')\n# f.__module__\ni = 'f.__module__'\n";
        let lines: Vec<usize> = module_reads(text, "f")
            .iter()
            .map(|at| line_at(text, *at))
            .collect();
        assert_eq!(lines, vec![1, 2, 3, 6]);
    }
}
