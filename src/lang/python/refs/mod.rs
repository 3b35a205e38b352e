//! Python's answers to the references engine ([`Resolver`]): the symbol a name stands for
//! ([`target`]), how the project reaches it (re-exports through `__init__.py` and `*`,
//! subclasses of its class), the verdict on each occurrence ([`judge`]), and what already binds
//! a new name where a rename would put it.

mod judge;
mod receiver;
mod shape;
mod target;
mod view;

use std::collections::BTreeSet;

use tree_sitter::{Node, Tree};

pub use target::absolute_module;

use self::receiver::{class_defines, class_is_owner, class_name};
use self::view::View;
use crate::lang::locals::Locals;
use crate::lang::names::NameRole;
use crate::lang::python::imports::{imported_names, module_level_statements};
use crate::lang::python::modules::module_parts;
use crate::lang::refs::{
    Bound, Found, NoTarget, Reach, Resolver, Target, TargetKind, TopImport, TopImports,
};
use crate::lang::{Language, node_text, up_from, walk_tree_with_ancestors};

/// Python's [`Resolver`].
#[derive(Debug, Clone, Copy, Default)]
pub struct PythonRefs;

impl Resolver for PythonRefs {
    fn target_at(
        &self,
        tree: &Tree,
        text: &str,
        path: &str,
        at: usize,
    ) -> Result<Target, NoTarget> {
        target::target_at(tree, text, path, at)
    }

    fn start(&self, target: &Target, _tree: &Tree, _text: &str) -> Reach {
        Reach::of_target(target)
    }

    fn learn(
        &self,
        target: &Target,
        path: &str,
        tree: &Tree,
        text: &str,
        reach: &mut Reach,
    ) -> Vec<String> {
        match &target.kind {
            TargetKind::Item => learn_reexports(path, &top_imports(tree, text), reach),
            TargetKind::Member(_) => learn_subclasses(path, tree, text, reach),
            TargetKind::Local(_) => Vec::new(),
        }
    }

    fn learns_from_imports(&self, target: &Target) -> bool {
        matches!(target.kind, TargetKind::Item)
    }

    fn top_imports(&self, tree: &Tree, text: &str) -> TopImports {
        top_imports(tree, text)
    }

    fn learn_from_imports(
        &self,
        target: &Target,
        path: &str,
        imports: &TopImports,
        reach: &mut Reach,
    ) -> Vec<String> {
        match &target.kind {
            TargetKind::Item => learn_reexports(path, imports, reach),
            _ => Vec::new(),
        }
    }

    fn search_words(&self, target: &Target) -> Vec<String> {
        match &target.kind {
            TargetKind::Member(member) => vec![member.owner.clone()],
            // The files that star-import the defining module name it (`from pkg.mod import *`
            // in a package's `__init__.py`): they re-export the target without naming it.
            TargetKind::Item => target.module.last().cloned().into_iter().collect(),
            TargetKind::Local(_) => Vec::new(),
        }
    }

    fn context_words(&self, target: &Target) -> Option<&'static [&'static str]> {
        match &target.kind {
            TargetKind::Item => Some(&["import"]),
            _ => None,
        }
    }

    fn judge(
        &self,
        target: &Target,
        reach: &Reach,
        path: &str,
        tree: &Tree,
        text: &str,
        word: &str,
        offsets: &[usize],
    ) -> Vec<Found> {
        let locals =
            |name: &str| std::sync::Arc::new(Locals::new(Language::Python, tree, text, name));
        judge::File::new(target, reach, path, tree, text, word, &locals).judge(offsets)
    }

    fn judge_with_locals(
        &self,
        target: &Target,
        reach: &Reach,
        path: &str,
        tree: &Tree,
        text: &str,
        word: &str,
        offsets: &[usize],
        locals: &dyn Fn(&str) -> std::sync::Arc<Locals>,
    ) -> Vec<Found> {
        judge::File::new(target, reach, path, tree, text, word, locals).judge(offsets)
    }

    fn bound_at(&self, tree: &Tree, text: &str, at: usize, name: &str) -> Option<Bound> {
        let locals = Locals::new(Language::Python, tree, text, name);
        if let Some(scope) = locals.python_scope_at(at) {
            let line = first_in_scope(tree, text, name, &scope, &locals)
                .map_or_else(|| line_of(text, scope.start), |(line, _)| line);
            return Some(Bound {
                line,
                what: "local variable",
            });
        }
        self.module_binding(tree, text, name)
    }

    fn first_bound(&self, tree: &Tree, text: &str, offsets: &[usize], name: &str) -> Option<Bound> {
        // The scopes of the file are found once, and the module's bindings asked at most once.
        let locals = Locals::new(Language::Python, tree, text, name);
        let mut module_asked = false;
        for &at in offsets {
            if let Some(scope) = locals.python_scope_at(at) {
                let line = first_in_scope(tree, text, name, &scope, &locals)
                    .map_or_else(|| line_of(text, scope.start), |(line, _)| line);
                return Some(Bound {
                    line,
                    what: "local variable",
                });
            }
            if !module_asked {
                module_asked = true;
                if let Some(bound) = self.module_binding(tree, text, name) {
                    return Some(bound);
                }
            }
        }
        None
    }

    fn module_binding(&self, tree: &Tree, text: &str, name: &str) -> Option<Bound> {
        View::build(tree, text, "")
            .get(name)
            .first()
            .map(|b| Bound {
                line: b.line(),
                what: b.what(),
            })
    }

    fn member_binding(&self, tree: &Tree, text: &str, owner: &str, name: &str) -> Option<Bound> {
        let mut found = None;
        crate::lang::walk_tree(tree, |node| {
            if found.is_some() {
                return false;
            }
            if node.kind() == "class_definition" && class_name(node, text) == owner {
                found = class_defines(node, text, name).map(|line| Bound {
                    line,
                    what: "member",
                });
            }
            true
        });
        found
    }

    fn keyword_parameter(
        &self,
        tree: &Tree,
        text: &str,
        function: &Target,
        keyword: &str,
    ) -> Option<usize> {
        target::keyword_parameter(tree, text, function, keyword)
    }

    fn constructed_by(&self, tree: &Tree, _text: &str, function: &Target) -> Option<usize> {
        target::constructed_by(tree, function)
    }

    fn captured(&self, tree: &Tree, text: &str, target: &Target, name: &str) -> Option<Bound> {
        let locals = Locals::new(Language::Python, tree, text, name);
        let view = View::build(tree, text, "");
        let mut found = None;
        walk_tree_with_ancestors(tree, |node, ancestors| {
            if found.is_some() {
                return false;
            }
            if node.kind() != "identifier" || node_text(node, text) != name {
                return true;
            }
            let at = node.start_byte();
            let role = crate::lang::python::names::role(node, up_from(node, ancestors));
            match &target.kind {
                TargetKind::Local(local) => {
                    if !local.scope.contains(&at) || role == NameRole::Other {
                        return true;
                    }
                    let scope = locals.python_scope_at(at);
                    if scope.as_ref() == Some(&local.scope) {
                        found = Some(Bound {
                            line: line_of(text, at),
                            what: "local variable",
                        });
                    } else if role == NameRole::Use
                        && scope.as_ref().is_none_or(|s| s.start < local.scope.start)
                    {
                        found = Some(Bound {
                            line: line_of(text, at),
                            what: "use",
                        });
                    }
                }
                TargetKind::Item => {
                    if role == NameRole::Use && !locals.shadows(at) && view.get(name).is_empty() {
                        found = Some(Bound {
                            line: line_of(text, at),
                            what: "use",
                        });
                    }
                }
                TargetKind::Member(_) => {}
            }
            false
        });
        found
    }
}

fn line_of(text: &str, at: usize) -> usize {
    text[..at.min(text.len())].matches('\n').count() + 1
}

/// The line and offset of the first binding of `name` in `scope`.
fn first_in_scope(
    tree: &Tree,
    text: &str,
    name: &str,
    scope: &std::ops::Range<usize>,
    locals: &Locals,
) -> Option<(usize, usize)> {
    let mut found = None;
    walk_tree_with_ancestors(tree, |node, ancestors| {
        if found.is_some() || node.end_byte() <= scope.start || node.start_byte() >= scope.end {
            return false;
        }
        if node.kind() == "identifier"
            && node_text(node, text) == name
            && locals.python_scope_at(node.start_byte()).as_ref() == Some(scope)
            && crate::lang::python::names::role(node, up_from(node, ancestors)) == NameRole::Bind
        {
            found = Some((node.start_position().row + 1, node.start_byte()));
        }
        true
    });
    found
}

/// The `from m import …` statements at the module level of the file.
fn top_imports(tree: &Tree, text: &str) -> TopImports {
    let imports = module_level_statements(tree)
        .into_iter()
        .filter(|statement| statement.kind() == "import_from_statement")
        .map(|statement| TopImport {
            module: self::shape::from_module(statement, text).to_string(),
            names: imported_names(statement, text),
            star: is_star(statement),
        })
        .collect();
    TopImports(imports)
}

/// `from m import name [as alias]` and `from m import *` at the top of a module that `reach`
/// exports from: this module exports the target too. The aliases are new words.
fn learn_reexports(path: &str, imports: &TopImports, reach: &mut Reach) -> Vec<String> {
    use crate::lang::python::modules::import_names_module;
    // This module's parts, worked out for the first name it gains (most files gain none).
    let mut here: Option<Vec<String>> = None;
    let mut words = Vec::new();
    for import in &imports.0 {
        let module = import.module.as_str();
        let mut gained: Vec<String> = Vec::new();
        for (original, alias) in &import.names {
            // Most names a file imports no module exports: passed over without asking whether
            // the import names each module.
            if !reach.exports.values().any(|names| names.contains(original)) {
                continue;
            }
            let exports = |(parts, names): (&Vec<String>, &BTreeSet<String>)| {
                names.contains(original) && import_names_module(module, path, parts)
            };
            if reach.exports.iter().any(exports) {
                gained.push(alias.clone().unwrap_or_else(|| original.clone()));
            }
        }
        let named = |parts: &&Vec<String>| import_names_module(module, path, parts);
        if import.star
            && let Some(source) = reach.exports.keys().find(named)
        {
            let names = reach.exports.get(source).cloned().unwrap_or_default();
            gained.extend(names.into_iter().filter(|n| !n.starts_with('_')));
        }
        for name in gained {
            let here = here.get_or_insert_with(|| module_parts(path));
            if reach
                .exports
                .entry(here.clone())
                .or_default()
                .insert(name.clone())
            {
                words.push(name);
            }
        }
    }
    words
}

fn is_star(statement: Node<'_>) -> bool {
    statement
        .named_children(&mut statement.walk())
        .any(|c| c.kind() == "wildcard_import")
}

/// Classes of the file deriving from an owner class: owners too. Their names are new words
/// (their own subclasses, and their instances, are found through them).
fn learn_subclasses(path: &str, tree: &Tree, text: &str, reach: &mut Reach) -> Vec<String> {
    let view = View::build(tree, text, path);
    let here = module_parts(path);
    let mut words = Vec::new();
    crate::lang::walk_tree(tree, |node| {
        if node.kind() != "class_definition" {
            return true;
        }
        let name = class_name(node, text).to_string();
        let derives = node
            .child_by_field_name("superclasses")
            .is_some_and(|bases| {
                bases
                    .named_children(&mut bases.walk())
                    .any(|base| class_is_owner(&view, reach, base, text) == Some(true))
            });
        if derives && reach.owners.insert((here.clone(), name.clone())) {
            words.push(name);
        }
        true
    });
    words
}

#[cfg(test)]
mod tests;
