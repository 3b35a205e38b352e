//! Every certain call of a function passes what its definition takes: as many positional
//! arguments as it has room for, every parameter without a default, and (Python) only keywords
//! it knows. For the function an extract created and the one a change of signature rewrote.

use crate::lang::Language;
use crate::lang::calls::CallSite;
use crate::lang::symbols::SymbolQuery;
use crate::refactor::Finding;

use super::{Project, ResultText};
use crate::edit::SourceFile;
use crate::lang::callee::{Function, ParamKind};

/// The calls of the function `query` designates in `file`, as the result has it.
pub(super) fn check_changed(
    project: &Project<'_>,
    file: &str,
    query: &SymbolQuery,
) -> Vec<Finding> {
    let Some(change) = project.change(file) else {
        return Vec::new();
    };
    // After a change of signature the name is the same; the line may have moved, so look the
    // function up by its name path only.
    let query = SymbolQuery {
        name: query.name.clone(),
        line: None,
        column: None,
    };
    // Parsed once (the result's tree the other checks share, re-parsed around the edits from
    // the tree before): the function is found in it and its calls there are checked in it.
    let tree = match Language::from_path(file) == Some(project.lang) {
        true => project.tree(change, true),
        false => project.lang.parse(&change.after),
    };
    match Function::find_in(project.lang, file, &change.after, &tree, &query) {
        Some(function) => check_function_in(project, &function, Some((file, &change.after, &tree))),
        None => Vec::new(),
    }
}

/// One error finding per certain call of `function` in the result that does not fit it.
pub(super) fn check_function(project: &Project<'_>, function: &Function) -> Vec<Finding> {
    check_function_in(project, function, None)
}

/// [`check_function`], with one file of the result already parsed (path, text, tree): a big
/// file is not parsed again. A file without a whole-word occurrence of the name has no call of
/// it and is not parsed; in Python every other file is read through a partial tree around the
/// name (every fact a certain call rests on — the call, an import, a local or a definition of
/// the name, the blocks around them — holds the name): for a file the refactor left as it was,
/// the one the refactor's own search kept. The files on the store's workers, the findings in
/// path order.
fn check_function_in(
    project: &Project<'_>,
    function: &Function,
    parsed: Option<(&str, &str, &tree_sitter::Tree)>,
) -> Vec<Finding> {
    if function.wrapped {
        return Vec::new();
    }
    let files: Vec<(String, ResultText<'_>)> = project
        .files_mentioning_after(&function.name)
        .into_iter()
        .filter(|(_, text)| match text {
            // Asked of the store: the search found the same words in the same files.
            ResultText::Unchanged(file) => !(project.sources.parsed())
                .word_offsets(file, &function.name)
                .is_empty(),
            ResultText::Changed(_) => {
                !crate::lang::calls::word_matches(text, &function.name).is_empty()
            }
        })
        .collect();
    // What the project holds is asked here: `Project` is for one thread.
    let (sources, lang) = (project.sources, project.lang);
    let jobs: Vec<(&str, &str, TreeOf)> = files
        .iter()
        .map(|(path, text)| {
            let how = match text {
                ResultText::Unchanged(file) => TreeOf::Unchanged(file),
                ResultText::Changed(change) => match parsed {
                    Some((at, after, tree)) if at == path && after == &**text => {
                        TreeOf::Held(tree.clone())
                    }
                    _ if lang == Language::Python => TreeOf::AroundName,
                    _ => TreeOf::Held(project.tree(change, true)),
                },
            };
            (path.as_str(), &**text, how)
        })
        .collect();
    let digest = crate::edit::sha256_hex(format!("{function:?}").as_bytes());
    let per_file =
        crate::refactor::sources::map_in_parallel(sources.parsed(), &jobs, &|(path, text, how)| {
            match how {
                TreeOf::Held(tree) => mismatches(function, path, text, tree),
                TreeOf::Unchanged(file) => unchanged(sources, function, &digest, file),
                TreeOf::AroundName => around_name(sources, function, &digest, path, text),
            }
        });
    per_file.into_iter().flatten().collect()
}

/// [`mismatches`] in a Python file the refactor changed, read through a partial tree around
/// the function's name: asked of the store by the text's content and the function (all the
/// findings depend on besides the text, the tree being a function of both), so that the same
/// result text is neither parsed nor searched again.
fn around_name(
    sources: &dyn crate::refactor::Sources,
    function: &Function,
    digest: &str,
    path: &str,
    text: &str,
) -> Vec<Finding> {
    let find = || {
        let name = function.name.as_str();
        let tree = crate::lang::partial::parse_around_words(function.lang, text, &[name]).0;
        mismatches(function, path, text, &tree)
    };
    let sha256 = crate::edit::sha256_hex(text.as_bytes());
    let question = format!("arity around-name {digest}");
    kept(sources, path, &sha256, &question, &find)
}

/// [`mismatches`] in a file the refactor left as it was, as the project's search read it: in
/// Python through the store's tree around the name, asked of the store by the file's content
/// and the function (parsed only when not kept); in Rust through the store's full tree, not kept.
fn unchanged(
    sources: &dyn crate::refactor::Sources,
    function: &Function,
    digest: &str,
    file: &SourceFile,
) -> Vec<Finding> {
    let (lang, name) = (function.lang, function.name.as_str());
    if lang != Language::Python {
        let tree = sources.parsed().tree_in_passing(lang, file);
        return mismatches(function, &file.path, &file.text, &tree);
    }
    // Asked before any tree is at hand, so a kept answer parses nothing. Any tree holding the
    // statements around the name finds the same certain calls (what the check has always read
    // the store's trees on): the one the refactor's search parsed is used.
    let question = format!("arity unchanged {digest} around-name");
    kept(sources, &file.path, &file.sha256, &question, &|| {
        let tree = sources.parsed().tree_around_words(lang, file, &[name]);
        mismatches(function, &file.path, &file.text, &tree)
    })
}

/// `find`'s findings, or the ones the store kept for the same content of `path` and question.
fn kept(
    sources: &dyn crate::refactor::Sources,
    path: &str,
    sha256: &str,
    question: &str,
    find: &dyn Fn() -> Vec<Finding>,
) -> Vec<Finding> {
    let found =
        crate::refactor::lasting::lasting_fact(sources.parsed(), path, sha256, question, find);
    Vec::clone(&found)
}

/// Where the tree of one file of the result comes from.
enum TreeOf<'a> {
    /// The tree at hand (the definition's file, a changed Rust file).
    Held(tree_sitter::Tree),
    /// A file the refactor did not change: the store's.
    Unchanged(&'a SourceFile),
    /// A Python file the refactor changed: a partial parse of its new text around the name.
    AroundName,
}

/// One error finding per certain call of `function` in one file of the result.
fn mismatches(
    function: &Function,
    path: &str,
    text: &str,
    tree: &tree_sitter::Tree,
) -> Vec<Finding> {
    // Only the calls that do not fit are asked whether they are certain: the calls a change of
    // signature rewrote fit, and then the locals of the name are not collected.
    let misfits = |call: &CallSite, explicit_receiver: bool| {
        mismatch(function, call, explicit_receiver).is_some()
    };
    let mut findings = Vec::new();
    for (call, explicit_receiver) in function.certain_calls_where(path, text, tree, &misfits) {
        if let Some(problem) = mismatch(function, &call, explicit_receiver) {
            findings.push(
                Finding::error(
                    path,
                    call.line,
                    format!("call at {path}:{} {problem}", call.line),
                )
                .with_kind("cross.arity"),
            );
        }
    }
    findings
}

/// What is wrong with `call` for `function`, if anything.
fn mismatch(function: &Function, call: &CallSite, explicit_receiver: bool) -> Option<String> {
    if call.args.iter().any(|a| a.splat) {
        return None;
    }
    let name = &function.name;
    let skip = usize::from(explicit_receiver && function.receiver.is_some());
    let positional_args = call.args.iter().filter(|a| a.keyword.is_none()).count();
    let passed = positional_args.checked_sub(skip)?;
    let keywords: Vec<&str> = call
        .args
        .iter()
        .filter_map(|a| a.keyword.as_deref())
        .collect();
    let params = &function.params;
    let slots: Vec<_> = params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Positional { .. }))
        .collect();
    let var_positional = params.iter().any(|p| p.kind == ParamKind::VarPositional);
    let var_keyword = params.iter().any(|p| p.kind == ParamKind::VarKeyword);
    if passed > slots.len() && !var_positional {
        return Some(format!(
            "passes {passed} positional argument{}, `{name}` takes {}",
            if passed == 1 { "" } else { "s" },
            at_most(slots.len(), params)
        ));
    }
    for keyword in &keywords {
        match params.iter().position(|p| &p.name == keyword) {
            Some(i) if i < passed && matches!(params[i].kind, ParamKind::Positional { .. }) => {
                return Some(format!(
                    "passes `{keyword}` both by position and by keyword"
                ));
            }
            Some(i)
                if matches!(
                    params[i].kind,
                    ParamKind::Positional {
                        positional_only: true,
                        ..
                    }
                ) =>
            {
                return Some(format!(
                    "passes `{keyword}` by keyword, but `{name}` takes it by position only"
                ));
            }
            Some(_) => {}
            None if var_keyword => {}
            None => return Some(format!("passes `{keyword}=`, which `{name}` does not take")),
        }
    }
    let missing: Vec<&str> = params
        .iter()
        .filter(|p| match p.kind {
            ParamKind::Positional { default, .. } => {
                !default
                    && slots
                        .iter()
                        .position(|s| s.name == p.name)
                        .is_some_and(|s| s >= passed)
                    && !keywords.contains(&p.name.as_str())
            }
            ParamKind::KeywordOnly { default } => !default && !keywords.contains(&p.name.as_str()),
            _ => false,
        })
        .map(|p| p.name.as_str())
        .collect();
    if !missing.is_empty() {
        return Some(format!(
            "passes {passed} argument{}, `{name}` needs {}: {} missing",
            if passed == 1 { "" } else { "s" },
            params
                .iter()
                .filter(|p| matches!(
                    p.kind,
                    ParamKind::Positional { default: false, .. }
                        | ParamKind::KeywordOnly { default: false }
                ))
                .count(),
            missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    None
}

/// "2", or "1 to 3" when some have defaults.
fn at_most(slots: usize, params: &[crate::lang::callee::Param]) -> String {
    let required = params
        .iter()
        .filter(|p| matches!(p.kind, ParamKind::Positional { default: false, .. }))
        .count();
    if required == slots {
        slots.to_string()
    } else {
        format!("{required} to {slots}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    fn problems(lang: Language, def: &str, name: &str, calls: &str) -> Vec<String> {
        let text = format!("{def}{calls}");
        let query = SymbolQuery {
            name: name.to_string(),
            line: None,
            column: None,
        };
        let file = if lang == Language::Python {
            "a.py"
        } else {
            "a.rs"
        };
        let function = Function::find(lang, file, &text, &query).unwrap();
        let tree = lang.parse(&text);
        function
            .certain_calls(file, &text, &tree)
            .iter()
            .map(|(call, explicit)| mismatch(&function, call, *explicit).unwrap_or_default())
            .collect()
    }

    #[test]
    fn the_findings_in_a_file_are_found_once_per_content_and_function() {
        let def = "def f(a):\n    pass\n";
        let before = "from a import f\n\nf(1)\n";
        let source = crate::edit::SourceFile::from_text("b.py", before);
        let at = before.find("f(1)").unwrap();
        let edit = crate::edit::TextEdit::new(at..at + 4, "f(1, 2)");
        let changes = [crate::edit::FileChange::modify(&source, vec![edit]).unwrap()];
        let sources = crate::refactor::kept_facts::KeptFacts::new(
            crate::refactor::MemorySources::new()
                .with("a.py", def)
                .with("b.py", before)
                .with("c.py", "from a import f\n\nf()\n"),
        );
        let query = SymbolQuery {
            name: "f".to_string(),
            line: None,
            column: None,
        };
        let function = Function::find(Language::Python, "a.py", def, &query).unwrap();
        let project = Project::new(Language::Python, &changes, &sources);
        let first = check_function(&project, &function);
        let files: Vec<&str> = first.iter().map(|f| f.file.as_str()).collect();
        assert_eq!(files, ["b.py", "c.py"], "{first:?}");
        assert_eq!(check_function(&project, &function), first);
        let mut made = sources.made.lock().unwrap().clone();
        made.sort();
        let made: Vec<&str> = made.iter().map(|(path, _)| path.as_str()).collect();
        assert_eq!(
            made,
            ["a.py", "b.py", "c.py"],
            "each made once, asked twice"
        );
        // Another function (another digest) is another question.
        let def = "def f(a=0, b=0):\n    pass\n";
        let other = Function::find(Language::Python, "a.py", def, &query).unwrap();
        assert!(check_function(&project, &other).is_empty());
        assert_eq!(sources.made.lock().unwrap().len(), 6);
    }

    #[test]
    fn python_calls_against_their_definition() {
        let def = "def f(a, b=1, *, c, d=2):\n    pass\n";
        let found = problems(
            Language::Python,
            def,
            "f",
            "f(1, c=3)\nf(1, 2, 3, c=1)\nf(1)\nf(1, c=2, e=5)\nf(1, a=2, c=3)\nf(*xs)\n",
        );
        assert_eq!(found[0], "");
        assert_eq!(found[1], "passes 3 positional arguments, `f` takes 1 to 2");
        assert_eq!(found[2], "passes 1 argument, `f` needs 2: `c` missing");
        assert_eq!(found[3], "passes `e=`, which `f` does not take");
        assert_eq!(found[4], "passes `a` both by position and by keyword");
        assert_eq!(found[5], "", "unpacked arguments are not judged");
    }

    #[test]
    fn only_the_certain_calls_that_do_not_fit_are_findings() {
        let text = "def f(a):\n    pass\n\n\ndef g(f):\n    return f(1, 2)\n\n\ndef h():\n    return f(1) + f(1, 2)\n";
        let query = SymbolQuery {
            name: "f".to_string(),
            line: None,
            column: None,
        };
        let function = Function::find(Language::Python, "a.py", text, &query).unwrap();
        let tree = Language::Python.parse(text);
        let found = mismatches(&function, "a.py", text, &tree);
        // The same misfit in `g` calls its parameter, not the function.
        let lines: Vec<usize> = found.iter().map(|f| f.line).collect();
        assert_eq!(lines, [10], "{found:?}");
        assert!(
            found[0].message.contains("passes 2 positional arguments"),
            "{found:?}"
        );
    }

    #[test]
    fn methods_count_the_receiver_as_the_call_passes_it() {
        let def = "class T:\n    def m(self, a):\n        pass\n\n    def n(self):\n        self.m(1)\n        self.m()\n        T.m(self, 1)\n        T.m(1)\n";
        let found = problems(Language::Python, def, "T/m", "");
        assert_eq!(found[0], "");
        assert!(found[1].contains("`a` missing"), "{found:?}");
        assert_eq!(found[2], "");
        assert!(found[3].contains("`a` missing"), "{found:?}");
    }

    #[test]
    fn rust_counts_exactly() {
        let def = "fn f(a: u8, b: u8) -> u8 { a + b }\n";
        let found = problems(
            Language::Rust,
            def,
            "f",
            "fn g() { f(1, 2); f(1); f(1, 2, 3); }\n",
        );
        assert_eq!(found[0], "");
        assert_eq!(found[1], "passes 1 argument, `f` needs 2: `b` missing");
        assert_eq!(found[2], "passes 3 positional arguments, `f` takes 2");
    }
}
