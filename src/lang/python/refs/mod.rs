//! Python's answers to the references engine ([`Resolver`]): the symbol a name stands for
//! ([`target`]), how the project reaches it (re-exports through `__init__.py` and `*`,
//! subclasses of its class), the verdict on each occurrence ([`judge`]), and what already binds
//! a new name where a rename would put it.

mod judge;
mod lessons;
mod receiver;
mod shape;
mod target;
mod view;

use tree_sitter::Tree;

pub use target::absolute_module;

use self::receiver::{class_defines, class_name};
use self::view::View;
use crate::lang::locals::Locals;
use crate::lang::names::NameRole;
use crate::lang::refs::{Bound, Found, Lessons, NoTarget, Reach, Resolver, Target, TargetKind};
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
        match self.lessons_kind(target) {
            Some(_) => lessons::fold(&python_lessons(target, path, tree, text), path, reach),
            None => Vec::new(),
        }
    }

    fn lessons_kind(&self, target: &Target) -> Option<&'static str> {
        match &target.kind {
            TargetKind::Item => Some("imports"),
            TargetKind::Member(_) => Some("classes"),
            TargetKind::Local(_) => None,
        }
    }

    fn lessons(&self, target: &Target, path: &str, tree: &Tree, text: &str) -> (Lessons, usize) {
        let lessons = python_lessons(target, path, tree, text);
        let bytes = lessons.bytes();
        (std::sync::Arc::new(lessons), bytes)
    }

    fn fold(
        &self,
        _target: &Target,
        path: &str,
        lessons: &Lessons,
        reach: &mut Reach,
    ) -> Option<Vec<String>> {
        let lessons = lessons.downcast_ref::<lessons::Lessons>()?;
        Some(lessons::fold(lessons, path, reach))
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

/// What the file teaches for `target`'s kind ([`Resolver::lessons_kind`]: imports for an item,
/// classes for a member).
fn python_lessons(target: &Target, path: &str, tree: &Tree, text: &str) -> lessons::Lessons {
    match &target.kind {
        TargetKind::Member(_) => lessons::classes(tree, text, path),
        _ => lessons::imports(tree, text),
    }
}

#[cfg(test)]
mod tests;
