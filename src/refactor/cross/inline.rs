//! Cross-checks of an inline: no call of the function is left where its definition was
//! removed, and every call that was replaced still uses the arguments it passed to parameters
//! the body uses (pylsp-rope turns `scale(factor, 2)` of `def scale(x, factor): return x*factor`
//! into `2 * 2`).

use crate::lang::Language;
use crate::lang::calls::{CallForm, CallSite, word_matches};
use crate::lang::symbols;
use crate::refactor::{Finding, InlineRequest};

use super::{AfterMap, Project};
use crate::lang::callee::{Function, ParamKind, statement_around};
use crate::text::LineIndex;

pub(super) fn check(project: &Project<'_>, request: &InlineRequest) -> Vec<Finding> {
    let Some((change, function)) = project.inlined(request) else {
        return Vec::new();
    };
    let after_tree = project.tree(change, true);
    let after_outline = symbols::outline(project.lang, &after_tree, &change.after);
    let removed = !after_outline
        .iter()
        .any(|s| s.kind.is_function() && s.name_path == function.name_path);
    let mut findings = Vec::new();
    if removed {
        findings.extend(leftover_calls(project, &function));
    }
    if !function.wrapped {
        findings.extend(arguments_kept(project, &function));
    }
    findings
}

/// Each call of the removed function that the result still has.
fn leftover_calls(project: &Project<'_>, function: &Function) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (path, text) in project.files_mentioning_after(&function.name) {
        let tree = match project.change(&path) {
            Some(change) => project.tree(change, true),
            None => project.lang.parse(&text),
        };
        for (call, _) in function.certain_calls(&path, &text, &tree) {
            let consequence = match (project.lang, function.owner.is_some()) {
                (Language::Python, false) => "raises NameError when it runs",
                (Language::Python, true) => "raises AttributeError when it runs",
                (Language::Rust, false) => "does not compile (E0425)",
                (Language::Rust, true) => "does not compile (E0599)",
            };
            findings.push(Finding::error(
                &path,
                call.line,
                format!(
                    "`{}` is still called here (`{}`), but the inline removed its definition: this call {consequence}; inline it by hand or do not apply",
                    function.name,
                    first_line(&text[call.range.clone()])
                ),
            )
            .with_kind("cross.call_left"));
        }
    }
    findings
}

/// Each replaced call whose replacement no longer mentions an argument the body used.
fn arguments_kept(project: &Project<'_>, function: &Function) -> Vec<Finding> {
    let mut findings = Vec::new();
    for change in project.changes.iter().filter(|c| !c.created()) {
        if Language::from_path(&change.path) != Some(project.lang)
            || word_matches(&change.before, &function.name).is_empty()
        {
            continue;
        }
        let tree = project.tree(change, false);
        let map = AfterMap::new(change);
        let mut lines: Option<LineIndex> = None;
        let before_lines = LineIndex::new(&change.before);
        // Where the statement of the previous call ended: a statement's region never reaches
        // back over another one's, so calls sharing one long line cost one pass, not one each.
        let mut previous_end = 0;
        for (call, explicit_receiver) in function.certain_calls(&change.path, &change.before, &tree)
        {
            if !map.touches(&call.range) {
                continue;
            }
            // The whole statement, from the start of its line (or the end of the statement
            // before it there): an inline may bind the arguments to the parameters in
            // statements of their own just before it.
            let statement = statement_around(&tree, call.range.clone());
            let line_start = before_lines.line_start(before_lines.line_of(statement.start));
            let region_start = line_start.max(previous_end.min(statement.start));
            previous_end = previous_end.max(statement.end);
            let region = map.range(region_start..statement.end);
            let replacement = &change.after[region.clone()];
            for (param, argument) in
                bound_arguments(function, &call, explicit_receiver, &change.before)
            {
                if !function.uses(&param) || mentioned(project.lang, replacement, &argument) {
                    continue;
                }
                findings.push(Finding::error(
                    &change.path,
                    lines
                        .get_or_insert_with(|| LineIndex::new(&change.after))
                        .line_of(region.start)
                        + 1,
                    format!(
                        "the call `{}` passed `{argument}` as `{param}`, which `{}` uses, but the code that replaced it (`{}`) no longer mentions `{argument}`: the inline substituted the arguments wrongly, so it computes something else",
                        first_line(&change.before[call.range.clone()]),
                        function.name,
                        first_line(replacement.trim())
                    ),
                )
                .with_kind("cross.argument_lost"));
            }
        }
    }
    findings
}

/// (parameter, argument text) for each argument of `call` bound to a named parameter, the
/// receiver included when the call has one.
fn bound_arguments(
    function: &Function,
    call: &CallSite,
    explicit_receiver: bool,
    text: &str,
) -> Vec<(String, String)> {
    let mut bound = Vec::new();
    if call.args.iter().any(|a| a.splat) {
        return bound;
    }
    let mut positional = function
        .params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Positional { .. }));
    let mut args = call.args.iter().peekable();
    if let Some(receiver) = &function.receiver {
        if explicit_receiver {
            if let Some(first) = args.next() {
                bound.push((
                    receiver.clone(),
                    text[first.value_range.clone()].to_string(),
                ));
            }
        } else if let CallForm::Method { receiver: range } = &call.form {
            bound.push((receiver.clone(), text[range.clone()].to_string()));
        }
    }
    for arg in args {
        let value = text[arg.value_range.clone()].trim().to_string();
        match &arg.keyword {
            Some(keyword) => {
                if function.params.iter().any(|p| &p.name == keyword) {
                    bound.push((keyword.clone(), value));
                }
            }
            None => {
                if let Some(param) = positional.next() {
                    bound.push((param.name.clone(), value));
                }
            }
        }
    }
    bound
}

/// Whether `argument` still shows in `replacement`: each of its names as a whole word, or for a
/// literal, its text.
fn mentioned(lang: Language, replacement: &str, argument: &str) -> bool {
    let names = identifiers(lang, argument);
    if names.is_empty() {
        let squeeze = |s: &str| s.split_whitespace().collect::<String>();
        return squeeze(replacement).contains(&squeeze(argument));
    }
    names
        .iter()
        .all(|name| !word_matches(replacement, name).is_empty())
}

/// The identifiers of an expression's text (keywords and what is inside string literals left
/// out).
fn identifiers(lang: Language, expression: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut current = String::new();
    let mut quote: Option<char> = None;
    let mut previous = ' ';
    for c in expression.chars().chain(std::iter::once(' ')) {
        if let Some(q) = quote {
            if c == q && previous != '\\' {
                quote = None;
            }
            previous = c;
            continue;
        }
        if c == '"' || (c == '\'' && lang == Language::Python) {
            quote = Some(c);
        } else if c == '_' || c.is_alphanumeric() {
            current.push(c);
            previous = c;
            continue;
        }
        if current
            .chars()
            .next()
            .is_some_and(|f| f == '_' || f.is_alphabetic())
            && !lang.is_keyword(&current)
            && !matches!(
                current.as_str(),
                "True" | "False" | "None" | "true" | "false"
            )
        {
            names.push(std::mem::take(&mut current));
        }
        current.clear();
        previous = c;
    }
    names
}

fn first_line(text: &str) -> &str {
    let line = text.lines().next().unwrap_or("");
    if line.len() > 80 {
        let mut end = 77;
        while !line.is_char_boundary(end) {
            end -= 1;
        }
        &line[..end]
    } else {
        line
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

    fn change(path: &str, before: &str, after: &str) -> FileChange {
        let source = SourceFile::from_text(path, before);
        FileChange::modify(&source, crate::backend::lsp::minimal_edits(before, after)).unwrap()
    }

    fn run(files: &[(&str, &str)], changes: Vec<FileChange>, req: InlineRequest) -> Vec<Finding> {
        let mut sources = MemorySources::new();
        for (path, text) in files {
            sources = sources.with(path, text);
        }
        let project = Project::new(Language::from_path(&req.file).unwrap(), &changes, &sources);
        check(&project, &req)
    }

    #[test]
    fn a_substitution_that_loses_an_argument_is_an_error() {
        // What pylsp-rope made of it.
        let before = "def scale(x, factor):\n    return x * factor\n\n\ndef grow(x, factor):\n    y = scale(factor, 2)\n    return x + y\n";
        let after = "def grow(x, factor):\n    y = 2 * 2\n    return x + y\n";
        let findings = run(
            &[("m.py", before)],
            vec![change("m.py", before, after)],
            request("m.py", "scale"),
        );
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].line, 2);
        assert!(
            findings[0].message.contains("passed `factor` as `x`"),
            "{}",
            findings[0].message
        );
        assert!(
            findings[0].message.contains("`y = 2 * 2`"),
            "{}",
            findings[0].message
        );
        // The right result passes.
        let right = "def grow(x, factor):\n    y = factor * 2\n    return x + y\n";
        assert!(
            run(
                &[("m.py", before)],
                vec![change("m.py", before, right)],
                request("m.py", "scale")
            )
            .is_empty()
        );
    }

    #[test]
    fn a_call_left_behind_is_an_error_in_every_file() {
        let before = "def has_own(cls, name):\n    return name in cls.__dict__\n\n\ndef a(cls, names):\n    for n in names:\n        if has_own(cls, n):\n            return False\n    return has_own(cls, \"x\")\n";
        let after = "def a(cls, names):\n    for n in names:\n        if has_own(cls, n):\n            return False\n    return \"x\" in cls.__dict__\n";
        let other = "from pkg.make import has_own\n\nprint(has_own(1, 2))\n";
        let findings = run(
            &[("pkg/make.py", before), ("pkg/other.py", other)],
            vec![change("pkg/make.py", before, after)],
            request("pkg/make.py", "has_own"),
        );
        let places: Vec<(&str, usize)> =
            findings.iter().map(|f| (f.file.as_str(), f.line)).collect();
        assert_eq!(
            places,
            vec![("pkg/make.py", 3), ("pkg/other.py", 3)],
            "{findings:?}"
        );
        assert!(findings[0].message.contains("`has_own(cls, n)`"));
        assert!(findings[0].message.contains("NameError"));
    }

    #[test]
    fn rust_inline_with_a_kept_definition_is_not_a_leftover() {
        let before = "fn double(x: u32) -> u32 {\n    x * 2\n}\n\nfn f(a: u32) -> u32 {\n    double(a) + double(3)\n}\n";
        let after = "fn double(x: u32) -> u32 {\n    x * 2\n}\n\nfn f(a: u32) -> u32 {\n    a * 2 + double(3)\n}\n";
        let findings = run(
            &[("src/lib.rs", before)],
            vec![change("src/lib.rs", before, after)],
            request("src/lib.rs", "double"),
        );
        assert!(findings.is_empty(), "{findings:?}");
    }

    #[test]
    fn each_call_on_a_shared_line_is_judged_by_its_own_statement() {
        // Two calls on one line, their arguments swapped by a wrong inline: the first
        // statement's replacement mentions `b`, but the second call's own statement does not.
        let before = "def double(x):\n    return x * 2\n\n\ndef f(a, b):\n    y = double(a); z = double(b)\n    return y + z\n";
        let after = "def double(x):\n    return x * 2\n\n\ndef f(a, b):\n    y = b * 2; z = a * 2\n    return y + z\n";
        // The heuristic's edits: one per call, not one per line.
        let first = before.find("double(a)").unwrap();
        let second = before.find("double(b)").unwrap();
        let edits = vec![
            crate::edit::TextEdit::new(first..first + "double(a)".len(), "b * 2"),
            crate::edit::TextEdit::new(second..second + "double(b)".len(), "a * 2"),
        ];
        let source = SourceFile::from_text("m.py", before);
        let change = FileChange::modify(&source, edits).unwrap();
        assert_eq!(change.after, after);
        let findings = run(&[("m.py", before)], vec![change], request("m.py", "double"));
        let lost: Vec<_> = findings
            .iter()
            .filter(|f| f.kind == Some("cross.argument_lost"))
            .collect();
        assert_eq!(lost.len(), 2, "{findings:?}");
    }

    #[test]
    fn identifiers_skip_keywords_and_strings() {
        assert_eq!(
            identifiers(Language::Python, "self.items[\"key x\"] or None"),
            vec!["self", "items"]
        );
        assert!(identifiers(Language::Rust, "2").is_empty());
        assert!(mentioned(Language::Python, "y = (a + b) * 2", "a+b"));
        assert!(!mentioned(Language::Python, "y = 2 * 2", "factor"));
    }

    #[test]
    fn a_call_left_in_a_test_crate_that_glob_imports_the_helper_is_an_error() {
        // Every test crate of semver declares `mod util; use crate::util::*;`: rust-analyzer
        // inlined `assert_to_string` in one and removed it, the others still call it (E0425).
        let util = "pub fn assert_six(value: i32) {\n    assert_eq!(value, 6);\n}\n";
        let test = |name: &str| {
            format!(
                "mod util;\n\nuse crate::util::*;\n\n#[test]\nfn {name}() {{\n    assert_six(6);\n}}\n"
            )
        };
        let (a, b) = (test("a"), test("b"));
        let a_after =
            "mod util;\n\nuse crate::util::*;\n\n#[test]\nfn a() {\n    assert_eq!(6, 6);\n}\n";
        let files = [
            ("tests/util/mod.rs", util),
            ("tests/a.rs", a.as_str()),
            ("tests/b.rs", b.as_str()),
            // A glob of another module brings nothing of `tests/util`.
            (
                "tests/c.rs",
                "mod other;\n\nuse crate::other::*;\n\nfn c() {\n    assert_six(6);\n}\n",
            ),
        ];
        let changes = vec![
            change("tests/util/mod.rs", util, "\n"),
            change("tests/a.rs", &a, a_after),
        ];
        let found = run(&files, changes, request("tests/util/mod.rs", "assert_six"));
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].file.as_str(), found[0].line), ("tests/b.rs", 7));
        assert!(found[0].message.contains("E0425"), "{}", found[0].message);
    }
}
