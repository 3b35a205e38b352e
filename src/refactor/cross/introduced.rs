//! Cross-checks of a safe delete and of an introduce parameter, on the result: no certain call
//! of a deleted function is left, no Python `__dunder__` method Python calls itself is deleted,
//! and every certain call of the function that took a new
//! parameter passes what its new definition takes (the arity check change signature has).

use crate::lang::symbols::{self, SymbolQuery};
use crate::refactor::{Finding, IntroduceParameterRequest, SafeDeleteRequest};

use super::wording as w;
use super::{Project, after_range, line_at};
use crate::lang::Language;
use crate::lang::callee::Function;

/// An error for each certain call of the deleted function that the result still has.
pub(super) fn deleted(project: &Project<'_>, request: &SafeDeleteRequest) -> Vec<Finding> {
    let Some(change) = project.change(&request.file) else {
        return Vec::new();
    };
    let Some(function) =
        Function::find(project.lang, &request.file, &change.before, &request.symbol)
    else {
        return Vec::new();
    };
    let mut findings = Vec::new();
    // A Python `__dunder__` method is called by Python itself (more-itertools'
    // `UnequalIterablesError.__init__`, deleted, made `UnequalIterablesError(details=…)` reach
    // `ValueError.__init__`: its tests broke with no finding).
    let name = function.name.as_str();
    if project.lang == Language::Python
        && function.owner.is_some()
        && name.len() > 4
        && name.starts_with("__")
        && name.ends_with("__")
    {
        let before_tree = project.tree(change, false);
        let at = symbols::outline(project.lang, &before_tree, &change.before)
            .into_iter()
            .find(|s| s.name_path == function.name_path)
            .map_or(0, |s| after_range(change, s.range).start);
        findings.push(
            Finding::error(
                &request.file,
                line_at(&change.after, at),
                w::deleted_special(&function.name_path, name),
            )
            .with_kind(w::REMOVED_SPECIAL),
        );
    }
    for (path, text) in project.files_mentioning_after(&function.name) {
        let tree = project.lang.parse(&text);
        for (call, _) in function.certain_calls(&path, &text, &tree) {
            findings.push(Finding::error(
                &path,
                call.line,
                format!(
                    "`{}` is still called here, but the safe delete removed its definition: this call no longer compiles or runs; do not apply",
                    function.name
                ),
            ));
        }
    }
    findings
}

/// The arity check of the function around the expression, in the result.
pub(super) fn introduced(
    project: &Project<'_>,
    request: &IntroduceParameterRequest,
) -> Vec<Finding> {
    let Some(change) = project.change(&request.file) else {
        return Vec::new();
    };
    let tree = project.lang.parse(&change.before);
    let outline = symbols::outline(project.lang, &tree, &change.before);
    let Some(function) = outline
        .iter()
        .filter(|s| s.kind.is_function() && s.line <= request.start_line)
        .filter(|s| request.end_line <= s.end_line)
        .min_by_key(|s| s.range.len())
    else {
        return Vec::new();
    };
    let query = SymbolQuery {
        name: function.name_path.clone(),
        line: None,
        column: None,
    };
    super::arity::check_changed(project, &request.file, &query)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{FileChange, SourceFile, TextEdit};
    use crate::lang::Language;
    use crate::refactor::MemorySources;

    fn changed(text: &str, from: &str, to: &str) -> (MemorySources, FileChange) {
        let source = SourceFile::from_text("a.py", text);
        let at = text.find(from).unwrap();
        let change =
            FileChange::modify(&source, vec![TextEdit::new(at..at + from.len(), to)]).unwrap();
        (MemorySources::new().with("a.py", text), change)
    }

    #[test]
    fn a_call_left_after_a_delete_is_an_error() {
        let text = "def f():\n    return 1\n\n\nf()\n";
        let (sources, change) = changed(text, "def f():\n    return 1\n\n\n", "");
        let changes = [change];
        let project = Project::new(Language::Python, &changes, &sources);
        let request = SafeDeleteRequest {
            file: "a.py".into(),
            symbol: SymbolQuery {
                name: "f".into(),
                line: None,
                column: None,
            },
        };
        let findings = deleted(&project, &request);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].line, 1);
    }

    #[test]
    fn deleting_a_method_python_calls_itself_is_an_error() {
        // more-itertools' `UnequalIterablesError.__init__`: no call names it, every
        // construction runs it.
        let text = "class Unequal(ValueError):\n    def __init__(self, details=None):\n        super().__init__(f'unequal: {details}')\n\n\ndef check():\n    raise Unequal(details=1)\n";
        let method = "    def __init__(self, details=None):\n        super().__init__(f'unequal: {details}')\n";
        let (sources, change) = changed(text, method, "    pass\n");
        let changes = [change];
        let project = Project::new(Language::Python, &changes, &sources);
        let request = |name: &str| SafeDeleteRequest {
            file: "a.py".into(),
            symbol: SymbolQuery {
                name: name.into(),
                line: None,
                column: None,
            },
        };
        let findings = deleted(&project, &request("Unequal/__init__"));
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].kind, Some(w::REMOVED_SPECIAL));
        assert_eq!(findings[0].line, 2);
        assert!(
            findings[0].message.contains("`Unequal/__init__`"),
            "{}",
            findings[0].message
        );
        // A plain method nothing calls is no concern.
        let text = "class Unequal(ValueError):\n    def details(self):\n        return 1\n\n\nraise Unequal()\n";
        let (sources, change) = changed(
            text,
            "    def details(self):\n        return 1\n",
            "    pass\n",
        );
        let changes = [change];
        let project = Project::new(Language::Python, &changes, &sources);
        assert_eq!(deleted(&project, &request("Unequal/details")), vec![]);
    }

    #[test]
    fn a_call_that_does_not_pass_the_new_parameter_is_an_error() {
        let text = "def f(a):\n    return a + 1\n\n\nf(2)\n";
        let (sources, change) = changed(text, "(a):", "(a, one):");
        let changes = [change];
        let project = Project::new(Language::Python, &changes, &sources);
        let request = IntroduceParameterRequest {
            file: "a.py".into(),
            start_line: 2,
            start_column: 16,
            end_line: 2,
            end_column: 17,
            new_name: "one".into(),
        };
        let findings = introduced(&project, &request);
        assert_eq!(findings.len(), 1, "{findings:?}");
        assert_eq!(findings[0].line, 5);
    }
}
