//! Python: a local of the extracted function that is only ever updated in place raises
//! `UnboundLocalError`. jedi-language-server's extract does this to accumulators it forgets to
//! pass in. Pure.

use crate::lang::Language;
use crate::lang::symbols;
use crate::refactor::Finding;

/// Python: in the function `name` of `text`, a local only ever updated in place (`x += …`) and
/// never bound (parameter, assignment, loop or `with` target, import, `global`, …) raises
/// `UnboundLocalError` when that line runs.
pub fn python_unbound_updates(path: &str, text: &str, name: &str) -> Vec<Finding> {
    let lang = Language::Python;
    let tree = lang.parse(text);
    let outline = symbols::outline(lang, &tree, text);
    let mut findings = Vec::new();
    for function in outline
        .iter()
        .filter(|s| s.kind.is_function() && s.name == name)
    {
        let Some(node) = lang.syntax().function_named(&tree, &function.name_range) else {
            continue;
        };
        for (variable, line) in crate::lang::python::names::unbound_updates(node, text) {
            findings.push(Finding::error(
                path,
                line,
                format!(
                    "`{variable}` is updated with an augmented assignment in `{name}` but never bound there: Python raises UnboundLocalError when line {line} runs (the extract did not pass `{variable}` in)"
                ),
            )
            .with_kind("cross.unbound_update"));
        }
    }
    findings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_accumulator_that_was_not_passed_in_is_an_error() {
        // What jedi-language-server makes of a loop over locals.
        let broken = "def report(lines):\n    for price in lines:\n        total += price\n        count += 1\n    return total, count\n";
        let findings = python_unbound_updates("a.py", broken, "report");
        assert_eq!(findings.len(), 2);
        assert_eq!(findings[0].line, 3);
        assert!(
            findings[0].message.starts_with("`total` is updated"),
            "{}",
            findings[0].message
        );
        assert!(findings[1].message.starts_with("`count` is updated"));
    }

    #[test]
    fn bound_names_are_fine() {
        let fine = "def report(lines, total, *rest, count=0, **kw):\n    global seen\n    import os\n    for price, (a, b) in lines:\n        total += price\n        count += 1\n        seen += 1\n        a += b\n    with open(p) as f:\n        f += 1\n    if (n := 3):\n        n += 1\n    m = 0\n    m += 1\n    def inner():\n        later += 1\n    inner += 1\n    return total\n";
        assert!(python_unbound_updates("a.py", fine, "report").is_empty());
        assert!(python_unbound_updates("a.py", fine, "other").is_empty());
    }
}
