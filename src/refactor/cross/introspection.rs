//! Python: what a moved or renamed function or class says of itself changes with it. After a
//! move, `__module__` (and with it its repr, the place pickle records for it and any registry
//! keyed by module and name): said once at the moved definition (an info), and a place that reads
//! the moved name's `__module__` is a warning (toolz's `assert merge.__module__ ==
//! 'toolz.curried.exceptions'` failed after `merge` moved, and nothing said why). After a rename,
//! `__name__` and `__qualname__`: a place that reads them is a warning (a comparison with the old
//! name, a registry keyed by `f.__name__`).

use tree_sitter::Node;

use crate::lang::Language;
use crate::lang::python::modules::dotted_module;
use crate::refactor::{Finding, MoveRequest, RenameRequest};

use super::wording as w;
use super::{Project, line_at};

pub(super) fn check_move(project: &Project<'_>, request: &MoveRequest) -> Vec<Finding> {
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
    let (old, new) = (
        dotted_module(&request.file),
        dotted_module(&request.target_file),
    );
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
        for (at, _) in attribute_reads(&text, moved, &["__module__"]) {
            findings.push(
                Finding::warning(&path, line_at(&text, at), w::module_read(moved, &old, &new))
                    .with_kind(w::MODULE_READ),
            );
        }
    }
    findings
}

pub(super) fn check_rename(project: &Project<'_>, request: &RenameRequest) -> Vec<Finding> {
    if project.lang != Language::Python {
        return Vec::new();
    }
    let old = request
        .symbol
        .name
        .rsplit(['/', '.'])
        .next()
        .unwrap_or_default();
    let new = request.new_name.as_str();
    if old.is_empty() || new.is_empty() || old == new {
        return Vec::new();
    }
    // A function or class of the new name that a changed file defines and did not before: what
    // was renamed is one (a variable or a parameter has no `__name__` of its own).
    let renamed_definition = project.changes.iter().any(|change| {
        defines_word(&change.after, new)
            && !defines_word(&change.before, new)
            && any_definition(project.tree(change, true).root_node(), &change.after, new)
    });
    if !renamed_definition {
        return Vec::new();
    }
    // Only the changed files: a read of `new.__name__` elsewhere is of another `new`.
    let mut findings = Vec::new();
    for change in project.changes {
        let mut read_on = std::collections::BTreeSet::new();
        for (at, attribute) in attribute_reads(&change.after, new, &["__name__", "__qualname__"]) {
            let line = line_at(&change.after, at);
            read_on.insert(line);
            findings.push(
                Finding::warning(&change.path, line, w::name_read(new, attribute, old))
                    .with_kind(w::NAME_READ),
            );
        }
        // Where it is handed on as a value, what receives it can read its name: toolz's
        // `compose(f, g)` names itself `f_of_g`, and a test compared that name (a rename of `g`
        // broke it, and nothing said so). Not on a line whose read is said above.
        let words = crate::lang::calls::word_matches(&change.after, new);
        if !maybe_handed_on(&change.after, new, &words) {
            continue;
        }
        let tree = project.tree_around(change, true, &[new]);
        for (at, receiver) in value_uses(tree.root_node(), &change.after, new, &words) {
            let line = line_at(&change.after, at);
            if read_on.contains(&line) {
                continue;
            }
            findings.push(
                Finding::warning(
                    &change.path,
                    line,
                    w::name_handed_on(new, old, receiver.as_deref()),
                )
                .with_kind(w::NAME_HANDED_ON),
            );
        }
    }
    findings
}

/// Whether some whole word `name` in `text` (at `words`) may be a value handed on, as the text
/// alone says:
/// not followed by `(` (a call), `.` (an attribute) or `=` (a name bound or a keyword), not after
/// `def` or `class`, not on a line that starts an import. The cheap test before a tree is asked
/// (the renamed name is mostly called and imported).
fn maybe_handed_on(text: &str, name: &str, words: &[usize]) -> bool {
    words.iter().any(|&at| {
        let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
        let line = text[line_start..at].trim_start();
        let before = text[..at].trim_end_matches([' ', '\t']);
        let after = text[at + name.len()..].trim_start_matches([' ', '\t']);
        let bound = after.starts_with('=') && !after.starts_with("==");
        !(after.starts_with(['(', '.'])
            || bound
            || before.ends_with("def")
            || before.ends_with("class")
            || line.starts_with("from ")
            || line.starts_with("import "))
    })
}

/// The callables that only call what they are given (or test it), never read its name: a
/// function handed to them keeps its behaviour whatever it is called.
const ONLY_CALL_IT: [&str; 22] = [
    "map",
    "filter",
    "sorted",
    "sort",
    "min",
    "max",
    "sum",
    "any",
    "all",
    "reduce",
    "starmap",
    "accumulate",
    "filterfalse",
    "takewhile",
    "dropwhile",
    "groupby",
    "iter",
    "callable",
    "isinstance",
    "issubclass",
    "hasattr",
    "getattr",
];

/// Each place under `root` where `name` (a whole identifier in code, at one of `words`) is
/// handed on as a value:
/// an argument of a call (with the callee as written), a keyword argument's value, an element
/// of a list, tuple, set or dict, an assignment's value, a returned or yielded value. Not a call
/// of it, an attribute of it, its definition, nor an argument of a callable in [`ONLY_CALL_IT`]
/// or a `key=` argument.
fn value_uses(
    root: Node<'_>,
    text: &str,
    name: &str,
    words: &[usize],
) -> Vec<(usize, Option<String>)> {
    let field_is = |parent: Node<'_>, field: &str, node: Node<'_>| {
        parent
            .child_by_field_name(field)
            .is_some_and(|n| n.id() == node.id())
    };
    // The callee of the call whose argument list is `list`, as written, unless it only calls.
    let callee = |list: Node<'_>| -> Option<Option<String>> {
        let call = list.parent().filter(|p| p.kind() == "call")?;
        let written = text.get(call.child_by_field_name("function")?.byte_range())?;
        let last = written.rsplit('.').next().unwrap_or(written).trim();
        (!ONLY_CALL_IT.contains(&last)).then(|| Some(written.to_string()))
    };
    let mut found = Vec::new();
    for &at in words {
        let Some(node) = root.descendant_for_byte_range(at, at + name.len()) else {
            continue;
        };
        if node.kind() != "identifier" || node.byte_range() != (at..at + name.len()) {
            continue;
        }
        let Some(parent) = node.parent() else {
            continue;
        };
        let receiver = match parent.kind() {
            "argument_list" => callee(parent),
            "keyword_argument" if field_is(parent, "value", node) => {
                let key = parent
                    .child_by_field_name("name")
                    .and_then(|n| text.get(n.byte_range()));
                match key {
                    Some("key") => None,
                    _ => parent.parent().and_then(callee),
                }
            }
            "list" | "tuple" | "set" | "expression_list" | "return_statement" | "yield" => {
                Some(None)
            }
            "pair" if field_is(parent, "value", node) => Some(None),
            "assignment" if field_is(parent, "right", node) => Some(None),
            _ => None,
        };
        if let Some(receiver) = receiver {
            found.push((at, receiver));
        }
    }
    found
}

/// Whether `text` holds `def name` or `class name` (the words, any spaces between): the cheap
/// test before a tree is asked.
fn defines_word(text: &str, name: &str) -> bool {
    crate::lang::calls::word_matches(text, name)
        .into_iter()
        .any(|at| {
            let before = text[..at].trim_end_matches([' ', '\t']);
            before.len() < at && (before.ends_with("def") || before.ends_with("class"))
        })
}

/// Whether a function or class named `name` is defined anywhere under `node`.
fn any_definition(node: Node<'_>, text: &str, name: &str) -> bool {
    if matches!(node.kind(), "function_definition" | "class_definition")
        && node
            .child_by_field_name("name")
            .and_then(|n| text.get(n.byte_range()))
            == Some(name)
    {
        return true;
    }
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .any(|child| any_definition(child, text, name))
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

/// Each read of one of `attributes` of `name` in code: `name.attribute` (spaces around the dot
/// allowed) and `getattr(name, 'attribute'…` (`name` or `module.name`), `name` a whole word; with
/// the offset of `name` and the attribute read.
fn attribute_reads<'a>(text: &str, name: &str, attributes: &[&'a str]) -> Vec<(usize, &'a str)> {
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
        if let Some(after) = after_dot.strip_prefix('.') {
            let after = after.trim_start_matches([' ', '\t']);
            if let Some(attribute) = attributes.iter().find(|a| starts_with_word(after, a)) {
                found.push((at, *attribute));
            }
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
            // `'attribute'` or `"attribute"`.
            let quoted = |attribute: &str| {
                let quote = after.chars().next().filter(|c| matches!(c, '\'' | '"'));
                quote.is_some_and(|q| {
                    after[1..]
                        .strip_prefix(attribute)
                        .is_some_and(|rest| rest.starts_with(q))
                })
            };
            if let Some(attribute) = attributes.iter().find(|a| quoted(a)) {
                found.push((at, *attribute));
            }
        }
    }
    found
}

/// Whether `text` starts with the whole word `word`.
fn starts_with_word(text: &str, word: &str) -> bool {
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
        check_move(&project, request)
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
        let lines: Vec<usize> = attribute_reads(text, "f", &["__module__"])
            .iter()
            .map(|(at, _)| line_at(text, *at))
            .collect();
        assert_eq!(lines, vec![1, 2, 3, 6]);
    }

    /// `before` with every whole word `old` written `new`.
    fn renamed(path: &str, before: &str, old: &str, new: &str) -> FileChange {
        let source = SourceFile::from_text(path, before);
        let edits = crate::lang::calls::word_matches(before, old)
            .into_iter()
            .map(|at| TextEdit::new(at..at + old.len(), new))
            .collect();
        FileChange::modify(&source, edits).unwrap()
    }

    fn rename_request(name: &str, new_name: &str) -> RenameRequest {
        RenameRequest {
            file: "m.py".into(),
            symbol: SymbolQuery {
                name: name.into(),
                line: None,
                column: None,
            },
            new_name: new_name.into(),
            include_possible: Vec::new(),
        }
    }

    /// The findings of renaming `old` to `new` in `files` (path, text before), each file's
    /// whole words `old` rewritten.
    fn rename_findings(files: &[(&str, &str)], old: &str, new: &str) -> Vec<Finding> {
        let changes: Vec<FileChange> = (files.iter())
            .map(|(path, text)| renamed(path, text, old, new))
            .collect();
        let sources = (files.iter()).fold(MemorySources::new(), |sources, (path, text)| {
            sources.with(path, text)
        });
        let project = Project::new(Language::Python, &changes, &sources);
        check_rename(&project, &rename_request(old, new))
    }

    #[test]
    fn a_renamed_function_whose_name_is_read_is_a_warning_where_it_is_read() {
        let module = "def helper(x):\n    return x\n\n\nREGISTRY = {helper.__name__: helper}\n";
        let test = "from m import helper\n\n\ndef test_name():\n    assert helper.__name__ == 'helper'\n    assert getattr(helper, \"__qualname__\")\n    # helper.__name__ in a comment\n    assert helper.__doc__ is None\n";
        let found = rename_findings(&[("m.py", module), ("test_m.py", test)], "helper", "assist");
        let places: Vec<_> = found
            .iter()
            .map(|f| (f.kind, f.file.as_str(), f.line))
            .collect();
        assert_eq!(
            places,
            vec![
                (Some(w::NAME_READ), "m.py", 5),
                (Some(w::NAME_READ), "test_m.py", 5),
                (Some(w::NAME_READ), "test_m.py", 6),
            ],
            "{found:#?}"
        );
        let says = [
            (1, "`assist.__name__`"),
            (1, "`helper`"),
            (2, "`assist.__qualname__`"),
        ];
        for (i, words) in says {
            assert!(found[i].message.contains(words), "{}", found[i].message);
        }
    }

    #[test]
    fn a_renamed_function_handed_on_as_a_value_is_a_warning_where_it_is_handed_on() {
        // toolz's test_compose_metadata: `compose(f, g).__name__ == 'f_of_g'`.
        let module = "from toolz import compose\n\n\ndef f(a):\n    return a\n\n\ndef g(a):\n    return a\n\n\ncomposed = compose(f, g)\nassert composed.__name__ == 'f_of_g'\nmapped = list(map(g, [1]))\nordered = sorted([2, 1], key=g)\nvalue = g(3)\nalias = g\nHANDLERS = {'g': g}\nthread = Thread(target=g)\n# compose(f, g) in a comment\ntext = 'compose(f, g)'\n";
        let found = rename_findings(&[("m.py", module)], "g", "swept");
        let places: Vec<_> = found.iter().map(|f| (f.kind, f.line)).collect();
        let handed = Some(w::NAME_HANDED_ON);
        assert_eq!(
            places,
            vec![(handed, 12), (handed, 17), (handed, 18), (handed, 19)],
            "{found:#?}"
        );
        for words in ["`compose`", "`swept`", "`g`"] {
            assert!(found[0].message.contains(words), "{}", found[0].message);
        }
        assert!(
            found[3].message.contains("`Thread`"),
            "{}",
            found[3].message
        );
    }

    #[test]
    fn only_a_name_that_may_be_handed_on_asks_for_a_tree() {
        let called =
            "from m import g\nimport g\n\n\ndef g(a):\n    return g(a) + g .x\n\ng = 3\nf(g=1)\n";
        let maybe =
            |text: &str| maybe_handed_on(text, "g", &crate::lang::calls::word_matches(text, "g"));
        assert!(!maybe(called));
        for handed in ["f(g)", "x = g", "return g", "f(a, g)", "x = [g]", "g == h"] {
            assert!(maybe(&format!("{called}{handed}\n")), "{handed}");
        }
    }

    #[test]
    fn a_renamed_variable_has_no_name_of_its_own_and_says_nothing() {
        let module = "import functools\n\nwrapped = functools.partial(print)\nLABEL = wrapped.__name__ if hasattr(wrapped, '__name__') else ''\n";
        assert!(rename_findings(&[("m.py", module)], "wrapped", "bound").is_empty());
    }
}
