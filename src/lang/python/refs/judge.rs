//! The verdict on each occurrence of a name in one Python file: whether it is the target
//! (certain), may be (possible, with the doubt), or is another symbol of the same name.
//! Module-level items are reached through the file's own imports (`from m import f [as g]`,
//! `import m` + `m.f`, relative imports, re-exports, `*`); members through their receiver
//! (`self`/`cls` in the class or a subclass, the class, `super()`, a constructor call, a
//! variable of evident type); locals through the scopes of their file.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Arc;

use tree_sitter::{Node, Tree};

use super::receiver::{
    Receiver, class_defines, class_is_owner, class_name, class_of_method, evident_type, receiver,
};
use super::shape::{Shape, dotted_text, from_module, head_of, role_of, shape_of};
use super::view::{TopBinding, View};
use crate::lang::calls::{Reference, ReferenceKind, TextMention, text_mention};
use crate::lang::locals::Locals;
use crate::lang::python::modules::module_parts;
use crate::lang::python::names::in_dunder_all;
use crate::lang::refs::{
    Doubt, Found, LocalBinding, Reach, Role, Spot, Target, TargetKind, Verdict, spots,
    string_is_name,
};
use crate::lang::{Language, node_text};

/// What judging one file needs.
pub struct File<'a, 't, 'l> {
    pub target: &'a Target,
    pub reach: &'a Reach,
    pub path: &'a str,
    pub tree: &'t Tree,
    pub text: &'a str,
    pub word: &'a str,
    pub view: View,
    pub locals: Arc<Locals>,
    /// Where the local bindings of a name in this file come from.
    locals_of: &'l dyn Fn(&str) -> Arc<Locals>,
    /// The locals of the other names asked about (the head of `m.word`, a receiver variable),
    /// asked once per name: a file of many `textwrap.dedent(..)` asked for `textwrap` at each.
    others: RefCell<HashMap<String, Arc<Locals>>>,
}

impl<'a, 't, 'l> File<'a, 't, 'l> {
    pub fn new(
        target: &'a Target,
        reach: &'a Reach,
        path: &'a str,
        tree: &'t Tree,
        text: &'a str,
        word: &'a str,
        locals_of: &'l dyn Fn(&str) -> Arc<Locals>,
    ) -> File<'a, 't, 'l> {
        File {
            target,
            reach,
            path,
            tree,
            text,
            word,
            view: View::build(tree, text, path),
            locals: locals_of(word),
            locals_of,
            others: RefCell::default(),
        }
    }

    fn is_definition_file(&self) -> bool {
        self.path == self.target.path
    }

    /// Judges every occurrence; `NotOurs` ones are left out.
    pub fn judge(&self, offsets: &[usize]) -> Vec<Found> {
        let mut out = Vec::new();
        for (offset, spot) in spots(Language::Python, self.tree, self.text, self.word, offsets) {
            let found = match spot {
                Spot::Name { node, ancestors } => self.name(node, &ancestors),
                Spot::String(string) => self.string(string, offset),
                Spot::Comment(_) | Spot::Other => None,
            };
            out.extend(found.filter(|f| f.verdict != Verdict::NotOurs));
        }
        out
    }

    fn name(&self, node: Node<'t>, ancestors: &[Node<'t>]) -> Option<Found> {
        let shape = shape_of(node, ancestors);
        match &self.target.kind {
            TargetKind::Item => self.item(node, ancestors, shape),
            TargetKind::Member(_) => self.member(node, ancestors, shape),
            TargetKind::Local(local) => self.local(node, ancestors, shape, local),
        }
    }

    // -- module-level items ------------------------------------------------------------------

    fn item(&self, node: Node<'t>, ancestors: &[Node<'t>], shape: Shape<'t>) -> Option<Found> {
        let role = role_of(node, ancestors);
        let at = node.start_byte();
        let found = |role: Role, verdict: Verdict| Some(Found::new(node, role, verdict));
        match shape {
            Shape::DefName(_) if self.is_target(node) => found(Role::Definition, Verdict::Certain),
            Shape::DefName(_) | Shape::Plain => {
                if self.locals.shadows(at) {
                    return None;
                }
                if class_body_owner(ancestors).is_some()
                    && crate::lang::python::names::role(node, ancestors.iter().rev().copied())
                        != crate::lang::names::NameRole::Use
                {
                    // A class attribute of the same name.
                    return None;
                }
                if ancestors.iter().any(|a| a.kind() == "class_definition")
                    && matches!(shape, Shape::DefName(_))
                {
                    // A method or a class attribute of the same name.
                    return None;
                }
                found(role, self.plain_item(at))
            }
            Shape::Attribute { object } => {
                let head = head_of(object)?;
                if self.shadowed(node_text(head, self.text), head.start_byte()) {
                    return None;
                }
                let module = self.view.module_of(&dotted_text(object, self.text)?)?;
                self.view
                    .exports_name(self.reach, &module, self.word)
                    .then(|| Found::new(node, role, Verdict::Certain))
            }
            Shape::FromImport {
                statement,
                alias,
                original,
            } => {
                if alias {
                    // `as g`: a binding of its own, which a rename keeps.
                    return None;
                }
                let module = from_module(statement, self.text);
                let original = node_text(original, self.text);
                if !self.view.exports_name(self.reach, module, original) {
                    return None;
                }
                // A package's `__init__.py` re-exports what it imports at its top.
                let reexports = self.path.ends_with("__init__.py")
                    && self
                        .reach
                        .names_in(&module_parts(self.path))
                        .is_some_and(|names| names.contains(original))
                    && statement.parent().is_some_and(|p| p.kind() == "module");
                let role = if reexports {
                    Role::ReExport
                } else {
                    Role::Import
                };
                found(role, Verdict::Certain)
            }
            Shape::Keyword { .. } | Shape::Parameter(_) | Shape::OtherImport => None,
        }
    }

    fn is_target(&self, node: Node<'_>) -> bool {
        self.is_definition_file() && node.byte_range() == self.target.name_range
    }

    /// Whether a local binding of `name` holds the position `at`.
    fn shadowed(&self, name: &str, at: usize) -> bool {
        if name == self.word {
            return self.locals.shadows(at);
        }
        let locals = self
            .others
            .borrow_mut()
            .entry(name.to_string())
            .or_insert_with(|| (self.locals_of)(name))
            .clone();
        locals.shadows(at)
    }

    /// A plain name the file's module level binds (or a `*` import brings).
    fn plain_item(&self, at: usize) -> Verdict {
        let bindings = self.view.get(self.word);
        if bindings.is_empty() {
            if self
                .view
                .stars
                .iter()
                .any(|m| self.view.exports_name(self.reach, m, self.word))
            {
                return Verdict::Certain;
            }
            return match self.view.stars.first() {
                Some(module) => Verdict::Possible(Doubt::StarImport(module.clone())),
                None => Verdict::NotOurs,
            };
        }
        let ours = |b: &TopBinding| match b {
            TopBinding::Defined { at: own, .. } => {
                self.is_definition_file() && *own == self.target.name_range.start
            }
            TopBinding::From {
                module, original, ..
            } => self.view.exports_name(self.reach, module, original),
            TopBinding::Module { .. } => false,
        };
        let mine = bindings.iter().filter(|b| ours(b)).count();
        let _ = at;
        match mine {
            0 => Verdict::NotOurs,
            n if n == bindings.len() => Verdict::Certain,
            _ => Verdict::Possible(Doubt::Redefined),
        }
    }

    /// Whether a plain use of the word at the module level of this file means the target.
    fn plain_is_ours(&self) -> bool {
        self.plain_item(0) == Verdict::Certain
    }

    fn string(&self, string: Node<'t>, offset: usize) -> Option<Found> {
        let literal = node_text(string, self.text);
        let at_name = |verdict: Verdict, role: Role| Found {
            range: offset..offset + self.word.len(),
            line: self.text[..offset].matches('\n').count() + 1,
            role,
            verdict,
            rewrite: crate::lang::refs::Rewrite::Name,
        };
        if string_is_name(literal, self.word).is_some() && in_dunder_all(Some(string), self.text) {
            let exported = match &self.target.kind {
                TargetKind::Item => self
                    .reach
                    .names_in(&module_parts(self.path))
                    .is_some_and(|n| n.contains(self.word)),
                _ => false,
            };
            return exported.then(|| at_name(Verdict::Certain, Role::DunderAll));
        }
        let reference = Reference {
            range: offset..offset + self.word.len(),
            line: 0,
            kind: ReferenceKind::InString,
        };
        match text_mention(Language::Python, self.text, &reference) {
            TextMention::NameString => {
                let ours = self.name_string_may_be_ours(string, offset);
                ours.then(|| at_name(Verdict::Possible(Doubt::NameString), Role::Text))
            }
            TextMention::DocExample => {
                let ours = match &self.target.kind {
                    TargetKind::Item => self.is_definition_file() || self.plain_is_ours(),
                    TargetKind::Member(_) => true,
                    TargetKind::Local(_) => false,
                };
                ours.then(|| at_name(Verdict::Possible(Doubt::DocExample), Role::Text))
            }
            TextMention::Prose => None,
        }
    }

    /// `"pkg.mod.name"`, `"pkg.mod:name"`, `getattr(x, "name")`: whether it may be ours.
    fn name_string_may_be_ours(&self, string: Node<'_>, offset: usize) -> bool {
        let before = &self.text[string.start_byte()..offset];
        let prefix_start = before
            .rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | ':')))
            .map_or(0, |i| i + 1);
        let prefix = before[prefix_start..].trim_end_matches(['.', ':']);
        match &self.target.kind {
            TargetKind::Item if !prefix.is_empty() => {
                let parts: Vec<&str> = prefix.split(['.', ':']).collect();
                self.reach.exports.keys().any(|module| {
                    module.len() >= parts.len()
                        && module[module.len() - parts.len()..]
                            .iter()
                            .zip(&parts)
                            .all(|(a, b)| a == b)
                })
            }
            TargetKind::Item => {
                // `getattr(module, "name")` on the target's module.
                let object =
                    crate::lang::python::imports::attribute_lookup_object(string, self.text);
                object.is_some_and(|o| {
                    self.view
                        .module_of(o)
                        .is_some_and(|m| self.view.exports_name(self.reach, &m, self.word))
                })
            }
            TargetKind::Member(_) => {
                prefix.is_empty()
                    && crate::lang::python::imports::attribute_lookup_object(string, self.text)
                        .is_some()
            }
            TargetKind::Local(_) => false,
        }
    }

    // -- members -----------------------------------------------------------------------------

    fn member(&self, node: Node<'t>, ancestors: &[Node<'t>], shape: Shape<'t>) -> Option<Found> {
        let role = role_of(node, ancestors);
        match shape {
            Shape::DefName(definition) => {
                if self.is_target(node) {
                    return Some(Found::new(node, Role::Definition, Verdict::Certain));
                }
                let class = class_of_method(definition)?;
                self.is_owner(class)
                    .then(|| Found::new(node, Role::Override, Verdict::Certain))
            }
            Shape::Attribute { object } => {
                if self.is_target(node) {
                    return Some(Found::new(node, Role::Definition, Verdict::Certain));
                }
                let verdict = self.receiver_verdict(object);
                Some(Found::new(node, role, verdict))
            }
            Shape::Plain => {
                // A class attribute used or assigned in the body of an owner class.
                let class = class_body_owner(ancestors)?;
                if !self.is_owner(class) {
                    return None;
                }
                let role = if self.is_target(node) {
                    Role::Definition
                } else {
                    role
                };
                Some(Found::new(node, role, Verdict::Certain))
            }
            Shape::Keyword { call: Some(call) } => {
                // `Point(x=1)`: a field of a class whose constructor takes its fields.
                let TargetKind::Member(member) = &self.target.kind else {
                    return None;
                };
                if member.kind != crate::lang::refs::MemberKind::Field {
                    return None;
                }
                let function = call.child_by_field_name("function")?;
                (class_is_owner(&self.view, self.reach, function, self.text) == Some(true))
                    .then(|| Found::new(node, Role::KeywordArgument, Verdict::Certain))
            }
            _ => None,
        }
    }

    fn is_owner(&self, class: Node<'_>) -> bool {
        let parts = module_parts(self.path);
        let name = class_name(class, self.text);
        self.reach
            .owners
            .iter()
            .any(|(m, n)| n == name && *m == parts)
    }

    fn receiver_verdict(&self, object: Node<'t>) -> Verdict {
        let unknown =
            || Verdict::Possible(Doubt::Receiver(node_text(object, self.text).to_string()));
        let class_verdict = |expression: Node<'_>| match class_is_owner(
            &self.view, self.reach, expression, self.text,
        ) {
            Some(true) => Verdict::Certain,
            Some(false) => Verdict::NotOurs,
            None => unknown(),
        };
        match receiver(object, self.text) {
            Receiver::Own(class) => {
                if self.is_owner(class) {
                    Verdict::Certain
                } else if class_defines(class, self.text, self.word).is_some() {
                    Verdict::NotOurs
                } else if class.child_by_field_name("superclasses").is_none() {
                    Verdict::Possible(Doubt::Mixin(class_name(class, self.text).to_string()))
                } else {
                    Verdict::NotOurs
                }
            }
            Receiver::Super(class) => {
                let root = match &self.target.kind {
                    TargetKind::Member(m) => m.owner.as_str(),
                    _ => "",
                };
                let is_root = self.is_definition_file() && class_name(class, self.text) == root;
                if self.is_owner(class) && !is_root {
                    Verdict::Certain
                } else {
                    Verdict::NotOurs
                }
            }
            Receiver::Class(expression) | Receiver::Constructed(expression) => {
                class_verdict(expression)
            }
            Receiver::Variable(variable) => {
                let name = node_text(variable, self.text);
                if self.shadowed(name, variable.start_byte()) {
                    return match evident_type(variable, self.text) {
                        Some(ty) => self.type_text_verdict(&ty).unwrap_or_else(unknown),
                        None => unknown(),
                    };
                }
                match self.view.get(name).last() {
                    Some(TopBinding::Module { .. }) => return Verdict::NotOurs,
                    Some(TopBinding::Defined { what: "class", .. })
                    | Some(TopBinding::From { .. }) => {
                        return class_verdict(variable);
                    }
                    _ => {}
                }
                match evident_type(variable, self.text) {
                    Some(ty) => self.type_text_verdict(&ty).unwrap_or_else(unknown),
                    None => match class_is_owner(&self.view, self.reach, variable, self.text) {
                        Some(false) if self.view.get(name).is_empty() => Verdict::NotOurs,
                        _ => unknown(),
                    },
                }
            }
            Receiver::Literal => Verdict::NotOurs,
            Receiver::Unknown => unknown(),
        }
    }

    /// The verdict for a receiver whose class is written `ty`.
    fn type_text_verdict(&self, ty: &str) -> Option<Verdict> {
        let probe = format!("{ty}\n");
        let tree = Language::Python.parse(&probe);
        let expression = tree.root_node().named_child(0)?.named_child(0)?;
        match class_is_owner(&self.view, self.reach, expression, &probe) {
            Some(true) => Some(Verdict::Certain),
            Some(false) => Some(Verdict::NotOurs),
            None => None,
        }
    }

    // -- locals ------------------------------------------------------------------------------

    fn local(
        &self,
        node: Node<'t>,
        ancestors: &[Node<'t>],
        shape: Shape<'t>,
        local: &LocalBinding,
    ) -> Option<Found> {
        if !self.is_definition_file() {
            return None;
        }
        let at = node.start_byte();
        match shape {
            Shape::DefName(_) | Shape::Parameter(_) | Shape::Plain => {}
            _ => return None,
        }
        if self.locals.python_scope_at(at).as_ref() != Some(&local.scope) {
            return None;
        }
        let role = if at == local.binding {
            Role::Definition
        } else {
            role_of(node, ancestors)
        };
        Some(Found::new(node, role, Verdict::Certain))
    }
}

/// The class whose body (not a method) holds the statement of an identifier.
fn class_body_owner<'t>(ancestors: &[Node<'t>]) -> Option<Node<'t>> {
    for (i, node) in ancestors.iter().enumerate().rev() {
        match node.kind() {
            "function_definition" | "lambda" => return None,
            "class_definition" => {
                return ancestors
                    .get(i + 1)
                    .filter(|b| b.kind() == "block")
                    .map(|_| *node);
            }
            _ => {}
        }
    }
    None
}
