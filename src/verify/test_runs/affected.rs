//! Which tests can see the change, to run them first after the refactor: the crates that hold a
//! changed file (then those that depend on them); the Python test files that import a changed
//! module — directly, or through a package whose `__init__.py` imports it — (then the other test
//! files of the baseline). Only the order changes: every test of the baseline runs.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::lang::Language;

use super::super::{Context, Side};
use super::parse::Outcomes;
use super::{Runner, RunnerKind, cargo_test_args};

/// One run of the tests after the refactor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Phase {
    pub args: Vec<String>,
    /// For the progress: "2 crates", "3 test files".
    pub what: String,
}

/// The runs after the refactor: those that can see the change first, when they can be told
/// apart from the others; else one run of everything.
pub(super) fn phases(cx: &Context<'_>, runner: &Runner, before: &Outcomes) -> Vec<Phase> {
    let all = Phase {
        args: runner.args.clone(),
        what: "all".to_string(),
    };
    let split = match runner.kind {
        RunnerKind::Cargo => cargo_phases(runner),
        RunnerKind::Pytest | RunnerKind::Unittest => {
            let (_, shadow) = cx.shadow(Side::After);
            let dir = shadow.join(&runner.dir);
            let changed: Vec<String> = cx
                .job
                .changes
                .iter()
                .filter(|c| Language::from_path(&c.path) == Some(Language::Python))
                .filter_map(|c| Path::new(&c.path).strip_prefix(&runner.dir).ok())
                .map(|p| p.to_string_lossy().into_owned())
                .collect();
            let read = |relative: &str| std::fs::read_to_string(dir.join(relative)).ok();
            python_phases(runner, before, &changed, &read)
        }
    };
    split.unwrap_or_else(|| vec![all])
}

fn cargo_phases(runner: &Runner) -> Option<Vec<Phase>> {
    let direct = runner.direct;
    if direct == 0 || direct >= runner.packages.len() {
        return None;
    }
    let (first, then) = runner.packages.split_at(direct);
    Some(vec![
        Phase {
            args: cargo_test_args(first),
            what: crate_count(first.len()),
        },
        Phase {
            args: cargo_test_args(then),
            what: crate_count(then.len()),
        },
    ])
}

fn crate_count(n: usize) -> String {
    if n == 1 {
        "1 crate".to_string()
    } else {
        format!("{n} crates")
    }
}

/// The Python runs: the baseline's test files that import a changed module, then the others.
/// `changed`: changed files relative to the run directory; `read`: a file of the run directory
/// after the refactor.
fn python_phases(
    runner: &Runner,
    before: &Outcomes,
    changed: &[String],
    read: &dyn Fn(&str) -> Option<String>,
) -> Option<Vec<Phase>> {
    // Each unit of the baseline (a pytest file, a unittest module) with its file.
    let mut units: BTreeMap<String, String> = BTreeMap::new();
    for name in before.keys() {
        let unit = match runner.kind {
            RunnerKind::Pytest => name.split("::").next().filter(|f| f.ends_with(".py"))?,
            _ => unittest_module(name)?,
        };
        let file = match runner.kind {
            RunnerKind::Pytest => unit.to_string(),
            _ => format!("{}.py", unit.replace('.', "/")),
        };
        units.insert(unit.to_string(), file);
    }
    let modules = changed_modules(changed, read);
    if modules.is_empty() {
        return None;
    }
    type Units<'a> = Vec<(&'a String, &'a String)>;
    let (first, then): (Units<'_>, Units<'_>) = units.iter().partition(|(_, file)| {
        read(file).is_none_or(|text| {
            let module = module_of(file);
            imported(&text, module.as_deref(), file.ends_with("__init__.py"))
                .iter()
                .any(|name| sees(name, &modules))
        })
    });
    if first.is_empty() || then.is_empty() {
        return None;
    }
    let what = |n: usize| match (runner.kind, n) {
        (RunnerKind::Pytest, 1) => "1 test file".to_string(),
        (RunnerKind::Pytest, n) => format!("{n} test files"),
        (_, 1) => "1 test module".to_string(),
        (_, n) => format!("{n} test modules"),
    };
    let phase = |units: &[(&String, &String)]| Phase {
        args: runner
            .args
            .iter()
            .cloned()
            .chain(units.iter().map(|(unit, _)| (*unit).clone()))
            .collect(),
        what: what(units.len()),
    };
    Some(vec![phase(&first), phase(&then)])
}

/// Whether an imported name sees one of the changed modules.
fn sees(name: &str, modules: &BTreeSet<String>) -> bool {
    modules.iter().any(|m| {
        name == m
            || name
                .strip_prefix(m.as_str())
                .is_some_and(|r| r.starts_with('.'))
    })
}

/// `test_b (pkg.tests.T.test_b)` → `pkg.tests` (also the older `test_b (pkg.tests.T)`).
fn unittest_module(name: &str) -> Option<&str> {
    let (method, rest) = name.split_once(" (")?;
    let dotted = rest.strip_suffix(')')?;
    let mut parts: Vec<&str> = dotted.split('.').collect();
    if parts.last() == Some(&method.trim()) {
        parts.pop();
    }
    parts.pop()?;
    if parts.is_empty() {
        return None;
    }
    let len = parts.iter().map(|p| p.len()).sum::<usize>() + parts.len() - 1;
    Some(&dotted[..len])
}

/// The dotted module name of a file relative to the run directory (`None` outside packages'
/// naming: a name that is not an identifier).
fn module_of(file: &str) -> Option<String> {
    let stem = file
        .strip_suffix(".py")
        .or_else(|| file.strip_suffix(".pyi"))?;
    let mut parts: Vec<&str> = stem.split('/').collect();
    if parts.last() == Some(&"__init__") {
        parts.pop();
    }
    let valid = |p: &&str| {
        !p.is_empty()
            && p.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !p.starts_with(|c: char| c.is_ascii_digit())
    };
    (!parts.is_empty() && parts.iter().all(valid)).then(|| parts.join("."))
}

/// The changed modules, with the packages whose `__init__.py` imports one of them (they change
/// what `import package` gives), up to the top. Both with and without a leading `src.`.
fn changed_modules(changed: &[String], read: &dyn Fn(&str) -> Option<String>) -> BTreeSet<String> {
    let mut modules: BTreeSet<String> = BTreeSet::new();
    for file in changed {
        if let Some(module) = module_of(file) {
            modules.insert(module);
        }
    }
    loop {
        let mut more = Vec::new();
        for module in &modules {
            let Some((package, _)) = module.rsplit_once('.') else {
                continue;
            };
            if modules.contains(package) {
                continue;
            }
            let init = format!("{}/__init__.py", package.replace('.', "/"));
            let Some(text) = read(&init) else { continue };
            if imported(&text, Some(package), true)
                .iter()
                .any(|name| name == module || name.starts_with(&format!("{module}.")))
            {
                more.push(package.to_string());
            }
        }
        if more.is_empty() {
            break;
        }
        modules.extend(more);
    }
    let unprefixed: Vec<String> = modules
        .iter()
        .filter_map(|m| m.strip_prefix("src.").map(str::to_string))
        .collect();
    modules.extend(unprefixed);
    modules
}

/// The modules (and names in them) a file imports, relative imports resolved against its own
/// module; one line at a time (the names of a parenthesized list on later lines are missed:
/// such a file runs later, never not at all).
fn imported(text: &str, module: Option<&str>, is_package: bool) -> Vec<String> {
    let package: Option<Vec<&str>> = module.map(|m| {
        let mut parts: Vec<&str> = m.split('.').collect();
        if !is_package {
            parts.pop();
        }
        parts
    });
    let absolute = |name: &str| -> Option<String> {
        let level = name.chars().take_while(|c| *c == '.').count();
        if level == 0 {
            return Some(name.to_string());
        }
        let mut base = package.clone()?;
        for _ in 1..level {
            base.pop()?;
        }
        let rest = &name[level..];
        if !rest.is_empty() {
            base.push(rest);
        }
        Some(base.join("."))
    };
    let mut names = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("import ") {
            for item in rest.split(',') {
                if let Some(name) = item.split_whitespace().next() {
                    names.push(name.to_string());
                }
            }
        } else if let Some(rest) = line.strip_prefix("from ")
            && let Some((from, what)) = rest.split_once(" import ")
            && let Some(from) = absolute(from.trim())
        {
            for item in what.trim_start_matches('(').split(',') {
                let Some(name) = item.split_whitespace().next() else {
                    continue;
                };
                let name = name.trim_end_matches(')');
                if !name.is_empty() && name != "*" {
                    names.push(if from.is_empty() {
                        name.to_string()
                    } else {
                        format!("{from}.{name}")
                    });
                }
            }
            if !from.is_empty() {
                names.push(from);
            }
        }
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::process::Program;
    use crate::verify::test_runs::parse::Outcome;

    fn runner(kind: RunnerKind) -> Runner {
        Runner {
            label: String::new(),
            program: Program {
                path: "python3".into(),
                ..Program::default()
            },
            args: vec!["-m".into(), "x".into()],
            env: Vec::new(),
            kind,
            dir: String::new(),
            packages: Vec::new(),
            direct: 0,
        }
    }

    fn outcomes(names: &[&str]) -> Outcomes {
        names
            .iter()
            .map(|n| {
                (
                    n.to_string(),
                    Outcome {
                        passed: true,
                        file: None,
                        line: None,
                        message: String::new(),
                    },
                )
            })
            .collect()
    }

    fn files(entries: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> + use<> {
        let map: BTreeMap<String, String> = entries
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |p: &str| map.get(p).cloned()
    }

    #[test]
    fn test_files_importing_a_changed_module_run_first() {
        let layout = |init: &str| {
            files(&[
                ("shop/__init__.py", init),
                ("shop/money.py", "def cents(): ...\n"),
                ("shop/text.py", "def words(): ...\n"),
                ("tests/test_money.py", "from shop.money import cents\n"),
                ("tests/test_pkg.py", "import shop as s\n"),
                ("tests/test_text.py", "from shop.text import words\n"),
            ])
        };
        let before = outcomes(&[
            "tests/test_money.py::test_a",
            "tests/test_pkg.py::test_b",
            "tests/test_text.py::test_c",
        ]);
        let changed = ["shop/money.py".to_string()];
        let phases =
            python_phases(&runner(RunnerKind::Pytest), &before, &changed, &layout("")).unwrap();
        assert_eq!(phases[0].args, vec!["-m", "x", "tests/test_money.py"]);
        assert_eq!(
            phases[1].args,
            vec!["-m", "x", "tests/test_pkg.py", "tests/test_text.py"]
        );
        assert_eq!(phases[0].what, "1 test file");

        // The package imports the changed module: every test file that imports the package (or
        // a module in it, which runs its `__init__.py`) sees the change: one run.
        let all = python_phases(
            &runner(RunnerKind::Pytest),
            &before,
            &changed,
            &layout("from .money import cents\n"),
        );
        assert_eq!(all, None);
    }

    #[test]
    fn unittest_modules_come_from_the_baseline_names() {
        assert_eq!(
            unittest_module("test_b (tests.test_m.T.test_b)"),
            Some("tests.test_m")
        );
        assert_eq!(
            unittest_module("test_b (tests.test_m.T)"),
            Some("tests.test_m")
        );
        let read = files(&[
            ("tests/test_m.py", "from calc.scaling import grow\n"),
            ("tests/test_n.py", "import calc.other\n"),
        ]);
        let before = outcomes(&[
            "test_b (tests.test_m.T.test_b)",
            "test_c (tests.test_n.T.test_c)",
        ]);
        let phases = python_phases(
            &runner(RunnerKind::Unittest),
            &before,
            &["calc/scaling.py".to_string()],
            &read,
        )
        .unwrap();
        assert_eq!(phases[0].args, vec!["-m", "x", "tests.test_m"]);
        assert_eq!(phases[1].args, vec!["-m", "x", "tests.test_n"]);
    }

    #[test]
    fn crates_holding_a_change_run_first() {
        let mut cargo = runner(RunnerKind::Cargo);
        cargo.packages = vec!["core".into(), "app".into()];
        cargo.direct = 1;
        let phases = cargo_phases(&cargo).unwrap();
        assert_eq!(phases[0].args, vec!["test", "--no-fail-fast", "-p", "core"]);
        assert_eq!(phases[1].args, vec!["test", "--no-fail-fast", "-p", "app"]);
        cargo.direct = 2;
        assert_eq!(cargo_phases(&cargo), None);
    }

    #[test]
    fn imports_are_read_with_relative_ones_resolved() {
        let names = imported(
            "import os, shop.money as m\nfrom . import text\nfrom ..base import (a, b)\nfrom x import *\n",
            Some("shop.sub.mod"),
            false,
        );
        assert_eq!(
            names,
            vec![
                "os",
                "shop.money",
                "shop.sub.text",
                "shop.sub",
                "shop.base.a",
                "shop.base.b",
                "shop.base",
                "x"
            ]
        );
    }
}
