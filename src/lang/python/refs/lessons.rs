//! What a Python file teaches the references engine whatever the project is known to reach the
//! target through ([`Lessons`]: its module-level `from … import` statements, or its classes that
//! derive from something the reach could own), and their fold into a [`Reach`]. Lessons depend
//! on the file's content and tree only: plain data the shell may keep per file, so that learning
//! again is a fold, not a walk of the tree.

use tree_sitter::{Node, Tree};

use super::receiver::{ClassRef, class_name, class_ref};
use super::shape::from_module;
use super::view::{View, export_named, exports_name};
use crate::lang::python::imports::{imported_names, module_level_statements};
use crate::lang::python::modules::module_parts;
use crate::lang::refs::Reach;

/// What one file teaches, for one kind of target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lessons {
    /// For a module-level item: the module-level `from … import` statements, in order (they
    /// re-export it when they import it from a module that exports it).
    Imports(Vec<FromImport>),
    /// For a member: the classes of the file, in the order of the tree, that derive from a
    /// class some reach could own (the others never become owners).
    Classes(Vec<Derived>),
}

/// `from module import names` or `from module import *` at the top of a module.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FromImport {
    /// As written (`.x`, `pkg.a`, `.`).
    pub module: String,
    /// Each imported name with its alias.
    pub names: Vec<(String, Option<String>)>,
    pub star: bool,
}

/// A class and the bases that may be owner classes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Derived {
    pub name: String,
    pub bases: Vec<ClassRef>,
}

impl Lessons {
    /// An estimate of the memory it holds, in bytes.
    pub fn bytes(&self) -> usize {
        let strings = |names: &[(String, Option<String>)]| -> usize {
            names
                .iter()
                .map(|(n, a)| 48 + n.len() + a.as_ref().map_or(0, String::len))
                .sum()
        };
        64 + match self {
            Lessons::Imports(imports) => imports
                .iter()
                .map(|i| 64 + i.module.len() + strings(&i.names))
                .sum::<usize>(),
            Lessons::Classes(classes) => classes
                .iter()
                .map(|c| 64 + c.name.len() + c.bases.len() * 64)
                .sum(),
        }
    }
}

/// The `from … import` statements at the top of the module.
pub fn imports(tree: &Tree, text: &str) -> Lessons {
    let imports = module_level_statements(tree)
        .into_iter()
        .filter(|s| s.kind() == "import_from_statement")
        .map(|statement| FromImport {
            module: from_module(statement, text).to_string(),
            names: imported_names(statement, text),
            star: is_star(statement),
        })
        .collect();
    Lessons::Imports(imports)
}

fn is_star(statement: Node<'_>) -> bool {
    statement
        .named_children(&mut statement.walk())
        .any(|c| c.kind() == "wildcard_import")
}

/// The classes of the file whose bases may be owner classes.
pub fn classes(tree: &Tree, text: &str, path: &str) -> Lessons {
    let view = View::build(tree, text, path);
    let mut derived = Vec::new();
    crate::lang::walk_tree(tree, |node| {
        if node.kind() != "class_definition" {
            return true;
        }
        let bases: Vec<ClassRef> = node
            .child_by_field_name("superclasses")
            .map(|bases| {
                bases
                    .named_children(&mut bases.walk())
                    .map(|base| class_ref(&view, base, text))
                    .filter(ClassRef::may_be_owner)
                    .collect()
            })
            .unwrap_or_default();
        if !bases.is_empty() {
            derived.push(Derived {
                name: class_name(node, text).to_string(),
                bases,
            });
        }
        true
    });
    Lessons::Classes(derived)
}

/// Adds what the file at `path` teaches to `reach`: a module that imports the target from a
/// module exporting it (or `*` from one) exports it too; a class deriving from an owner is an
/// owner. The names that are new (aliases, subclasses), in the order of the file.
pub fn fold(lessons: &Lessons, path: &str, reach: &mut Reach) -> Vec<String> {
    let here = module_parts(path);
    let mut words = Vec::new();
    match lessons {
        Lessons::Imports(imports) => {
            for import in imports {
                let module = import.module.as_str();
                let mut gained: Vec<String> = Vec::new();
                for (original, alias) in &import.names {
                    if exports_name(reach, path, module, original) {
                        gained.push(alias.clone().unwrap_or_else(|| original.clone()));
                    }
                }
                if import.star
                    && let Some(source) = export_named(reach, path, module)
                {
                    let names = reach.exports.get(source).cloned().unwrap_or_default();
                    gained.extend(names.into_iter().filter(|n| !n.starts_with('_')));
                }
                for name in gained {
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
        }
        Lessons::Classes(classes) => {
            for class in classes {
                let derives = class
                    .bases
                    .iter()
                    .any(|base| base.is_owner(reach, path) == Some(true));
                if derives && reach.owners.insert((here.clone(), class.name.clone())) {
                    words.push(class.name.clone());
                }
            }
        }
    }
    words
}
