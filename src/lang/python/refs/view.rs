//! What a Python module binds at its top level, for the references engine: each name with the
//! statements that bind it (an import from a module, a module import, a definition), and the
//! `*` imports. Built once per file; asked per occurrence.

use std::collections::HashMap;

use tree_sitter::{Node, Tree};

use crate::lang::node_text;
use crate::lang::python::imports::{identifiers_in, module_level_statements};
use crate::lang::python::modules::import_names_module;
use crate::lang::refs::Reach;

/// One statement binding a name at the top of a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TopBinding {
    /// `from module import original [as name]`; `module` as written (`.x`, `pkg.a`, `.`).
    From {
        module: String,
        original: String,
        line: usize,
    },
    /// `import a.b` binds `a` to the module `a`; `import a.b as m` binds `m` to `a.b`.
    Module { module: String, line: usize },
    /// A `def`, a `class`, an assignment, a `for` or `with` target at the top level.
    Defined {
        what: &'static str,
        line: usize,
        /// The name token.
        at: usize,
    },
}

impl TopBinding {
    pub fn line(&self) -> usize {
        match self {
            TopBinding::From { line, .. }
            | TopBinding::Module { line, .. }
            | TopBinding::Defined { line, .. } => *line,
        }
    }

    pub fn what(&self) -> &'static str {
        match self {
            TopBinding::From { .. } | TopBinding::Module { .. } => "import",
            TopBinding::Defined { what, .. } => what,
        }
    }
}

/// The module-level bindings of one file.
#[derive(Debug, Clone, Default)]
pub struct View {
    pub path: String,
    bindings: HashMap<String, Vec<TopBinding>>,
    /// The modules of `from m import *`, as written.
    pub stars: Vec<String>,
}

/// `from` + `.` + `name`, as a dotted module path written in the importing file.
pub fn submodule(from: &str, name: &str) -> String {
    if from.ends_with('.') {
        format!("{from}{name}")
    } else {
        format!("{from}.{name}")
    }
}

impl View {
    pub fn build(tree: &Tree, text: &str, path: &str) -> View {
        let mut view = View {
            path: path.to_string(),
            ..View::default()
        };
        for statement in module_level_statements(tree) {
            view.statement(statement, text);
        }
        // `for` targets, `with`/`except … as` names and walrus targets bind module variables
        // too; each name's bindings stay in the order they are written.
        let compound = crate::lang::python::imports::compound_targets(tree, text);
        for (name, _) in &compound {
            view.defined(*name, text, "variable");
        }
        if !compound.is_empty() {
            for bindings in view.bindings.values_mut() {
                bindings.sort_by_key(TopBinding::line);
            }
        }
        if text.contains("global") {
            view.globals_of_functions(tree, text);
        }
        view
    }

    /// `global name` in a function that binds `name` there: a module-level variable (its first
    /// binding in such a function), when the module's top level does not bind it itself.
    fn globals_of_functions(&mut self, tree: &Tree, text: &str) {
        let mut declared: Vec<(std::ops::Range<usize>, String)> = Vec::new();
        let mut first: Vec<(String, Node<'_>)> = Vec::new();
        crate::lang::walk_tree_with_ancestors(tree, |node, ancestors| {
            let function = || {
                ancestors
                    .iter()
                    .rev()
                    .find(|a| matches!(a.kind(), "function_definition" | "lambda"))
                    .map(|f| f.byte_range())
            };
            if node.kind() == "global_statement" {
                if let Some(range) = function() {
                    for name in node.named_children(&mut node.walk()) {
                        declared.push((range.clone(), node_text(name, text).to_string()));
                    }
                }
                return false;
            }
            if node.kind() == "identifier" {
                let name = node_text(node, text);
                let global_here = function()
                    .is_some_and(|range| declared.iter().any(|(r, n)| *r == range && n == name));
                if global_here
                    && !first.iter().any(|(n, _)| n == name)
                    && crate::lang::python::names::role(node, crate::lang::up_from(node, ancestors))
                        == crate::lang::names::NameRole::Bind
                {
                    first.push((name.to_string(), node));
                }
                return false;
            }
            true
        });
        for (name, node) in first {
            if self.get(&name).is_empty() {
                self.defined(node, text, "global variable");
            }
        }
    }

    fn bind(&mut self, name: &str, binding: TopBinding) {
        self.bindings
            .entry(name.to_string())
            .or_default()
            .push(binding);
    }

    fn statement(&mut self, statement: Node<'_>, text: &str) {
        let line = statement.start_position().row + 1;
        match statement.kind() {
            "import_statement" => {
                let mut cursor = statement.walk();
                for item in statement.children_by_field_name("name", &mut cursor) {
                    match item.kind() {
                        "dotted_name" => {
                            let module = node_text(item, text);
                            let first = module.split('.').next().unwrap_or("").trim();
                            self.bind(
                                first,
                                TopBinding::Module {
                                    module: first.to_string(),
                                    line,
                                },
                            );
                        }
                        "aliased_import" => {
                            let module = item
                                .child_by_field_name("name")
                                .map_or("", |n| node_text(n, text));
                            if let Some(alias) = item.child_by_field_name("alias") {
                                self.bind(
                                    node_text(alias, text),
                                    TopBinding::Module {
                                        module: module.to_string(),
                                        line,
                                    },
                                );
                            }
                        }
                        _ => {}
                    }
                }
            }
            "import_from_statement" => {
                let module = statement
                    .child_by_field_name("module_name")
                    .map_or("", |m| node_text(m, text))
                    .to_string();
                let mut cursor = statement.walk();
                if statement
                    .named_children(&mut cursor)
                    .any(|c| c.kind() == "wildcard_import")
                {
                    self.stars.push(module.clone());
                }
                for (original, alias) in
                    crate::lang::python::imports::imported_names(statement, text)
                {
                    let name = alias.unwrap_or_else(|| original.clone());
                    self.bind(
                        &name,
                        TopBinding::From {
                            module: module.clone(),
                            original,
                            line,
                        },
                    );
                }
            }
            "decorated_definition" => {
                if let Some(definition) = statement.child_by_field_name("definition") {
                    self.statement(definition, text);
                }
            }
            "function_definition" | "class_definition" => {
                if let Some(name) = statement.child_by_field_name("name") {
                    let what = if statement.kind() == "class_definition" {
                        "class"
                    } else {
                        "function"
                    };
                    self.defined(name, text, what);
                }
            }
            "expression_statement" => {
                let mut cursor = statement.walk();
                for assignment in statement.named_children(&mut cursor) {
                    if matches!(assignment.kind(), "assignment" | "augmented_assignment")
                        && let Some(left) = assignment.child_by_field_name("left")
                    {
                        for name in identifiers_in(left) {
                            self.defined(name, text, "variable");
                        }
                    }
                }
            }
            _ => {}
        }
    }

    fn defined(&mut self, name: Node<'_>, text: &str, what: &'static str) {
        self.bind(
            node_text(name, text),
            TopBinding::Defined {
                what,
                line: name.start_position().row + 1,
                at: name.start_byte(),
            },
        );
    }

    /// The statements binding `name` at the top of the module, in order.
    pub fn get(&self, name: &str) -> &[TopBinding] {
        self.bindings.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// The dotted module (as written here) a receiver `a.b.c` names, when its first name is
    /// bound by an import: `import a` makes `a.b` the module `a.b`; `from pkg import a` makes
    /// `a.b` the module `pkg.a.b`.
    pub fn module_of(&self, dotted: &str) -> Option<String> {
        let mut parts = dotted.split('.').map(str::trim);
        let first = parts.next()?;
        let rest: Vec<&str> = parts.collect();
        let base = match self.get(first).last()? {
            TopBinding::Module { module, .. } => module.clone(),
            TopBinding::From {
                module, original, ..
            } => submodule(module, original),
            TopBinding::Defined { .. } => return None,
        };
        Some(rest.iter().fold(base, |acc, part| format!("{acc}.{part}")))
    }

    /// Whether `module` (as written here) names a module through which the target is reached
    /// under `name`.
    pub fn exports_name(&self, reach: &Reach, module: &str, name: &str) -> bool {
        reach.exports.iter().any(|(parts, names)| {
            names.contains(name) && import_names_module(module, &self.path, parts)
        })
    }

    /// Whether `module` (as written here) is the module `parts`.
    pub fn names_module(&self, module: &str, parts: &[String]) -> bool {
        import_names_module(module, &self.path, parts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::Language;

    #[test]
    fn bindings_and_modules() {
        let text = "import os.path\nimport pkg.a as m\nfrom . import util\nfrom .x import f as g, h\nfrom y import *\n\ndef k(): pass\nclass C: pass\nz = 1\n";
        let tree = Language::Python.parse(text);
        let view = View::build(&tree, text, "pkg/b.py");
        assert_eq!(view.module_of("os.path").as_deref(), Some("os.path"));
        assert_eq!(view.module_of("m").as_deref(), Some("pkg.a"));
        assert_eq!(view.module_of("util").as_deref(), Some(".util"));
        assert_eq!(view.module_of("k"), None);
        assert!(matches!(
            view.get("g"),
            [TopBinding::From { original, .. }] if original == "f"
        ));
        assert_eq!(view.get("C")[0].what(), "class");
        assert_eq!(view.get("z")[0].what(), "variable");
        assert_eq!(view.stars, vec!["y".to_string()]);
        let mut reach = Reach::default();
        reach
            .exports
            .insert(vec!["pkg".into(), "util".into()], ["f".to_string()].into());
        assert!(view.exports_name(&reach, ".util", "f"));
        assert!(!view.exports_name(&reach, ".util", "g"));
    }

    #[test]
    fn loop_with_except_and_walrus_targets_bind_module_variables_in_order() {
        let text = "x = 0
for i, (j, x) in pairs:
    pass
with f() as (fh, gh):
    pass
try:
    pass
except E as err:
    pass
while (w := g()):
    ys = [v for u in us if (v := u)]

def inner():
    for hidden in range(3):
        pass
    return (h2 := 1)
";
        let tree = Language::Python.parse(text);
        let view = View::build(&tree, text, "m.py");
        for name in ["i", "j", "fh", "gh", "err", "w", "v", "ys"] {
            assert_eq!(view.get(name).len(), 1, "{name}");
        }
        // `x = 0` first, then the loop's `x`.
        let lines: Vec<usize> = view.get("x").iter().map(TopBinding::line).collect();
        assert_eq!(lines, vec![1, 2]);
        // A comprehension's own variable and a function's names are not the module's.
        for name in ["u", "hidden", "h2"] {
            assert!(view.get(name).is_empty(), "{name}");
        }
    }
}
