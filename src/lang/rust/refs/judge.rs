//! The verdict on each occurrence of a name in one Rust file. Items are reached through the
//! module they are in and the file's `use` paths (aliases, globs, re-exports, `crate`/`super`/
//! `self`); members through `Type::name`, `Self::name`, a receiver of evident type (`self`, a
//! typed binding, a constructor call) and, for a trait's method, every impl of the trait;
//! locals through the scopes of their function.

use tree_sitter::{Node, Tree};

use super::scope::{Evident, UseLeaf, modules_of, outermost_function, receiver_type, self_type};
use super::target::owner_and_trait;
use crate::lang::locals::Locals;
use crate::lang::names::{Names, Role as NameRole};
use crate::lang::refs::{
    Doubt, Found, LocalBinding, Member, MemberKind, Reach, Role, Spot, Target, TargetKind, Verdict,
    shorthand_rewrite, spots,
};
use crate::lang::rust::imports::segments_of;
use crate::lang::rust::items::is_definition_kind;
use crate::lang::rust::macros::takes_expressions;
use crate::lang::rust::paths::{last_type_segment, list_prefix, module_above};
use crate::lang::{Language, node_text};

pub struct File<'a, 't> {
    pub target: &'a Target,
    pub reach: &'a Reach,
    pub path: &'a str,
    pub tree: &'t Tree,
    pub text: &'a str,
    pub word: &'a str,
    pub uses: Vec<UseLeaf>,
    pub locals: Locals,
}

impl<'a, 't> File<'a, 't> {
    pub fn new(
        target: &'a Target,
        reach: &'a Reach,
        path: &'a str,
        tree: &'t Tree,
        text: &'a str,
        word: &'a str,
    ) -> File<'a, 't> {
        File {
            target,
            reach,
            path,
            tree,
            text,
            word,
            uses: super::scope::uses(tree, text, path),
            locals: Locals::new(Language::Rust, tree, text, word),
        }
    }

    pub fn judge(&self, offsets: &[usize]) -> Vec<Found> {
        let mut out = Vec::new();
        let names = match &self.target.kind {
            TargetKind::Local(local) => self.local_names(local),
            _ => None,
        };
        for (_, spot) in spots(Language::Rust, self.tree, self.text, self.word, offsets) {
            let Spot::Name { node, ancestors } = spot else {
                continue;
            };
            let found = match &self.target.kind {
                TargetKind::Item if self.target.label == super::macros::MACRO => {
                    super::macros::judge(self.tree, node, self.target, self.path, self.text)
                }
                TargetKind::Item => self.item(node, &ancestors),
                TargetKind::Member(member) => self.member(node, member),
                TargetKind::Local(local) if super::generic::is_generic(self.target) => {
                    super::generic::judge(node, self.target, local, self.text)
                }
                TargetKind::Local(local) => names.as_ref().and_then(|n| self.local(node, local, n)),
            };
            let Some(mut found) = found else { continue };
            if found.verdict == Verdict::NotOurs {
                continue;
            }
            // The name of an invocation is not in that invocation's arguments.
            let outside = match super::macros::invocation_above(node, &ancestors) {
                Some(own) => match ancestors.iter().position(|a| a.id() == own.id()) {
                    Some(i) => &ancestors[..i],
                    None => &ancestors[..],
                },
                None => &ancestors[..],
            };
            if let Some(name) = foreign_macro(outside, self.text)
                && found.verdict == Verdict::Certain
                && found.role != Role::Definition
            {
                found.verdict = Verdict::Possible(Doubt::Macro(name));
            }
            out.push(found);
        }
        out
    }

    fn is_target(&self, node: Node<'_>) -> bool {
        self.path == self.target.path && node.byte_range() == self.target.name_range
    }

    // -- items ---------------------------------------------------------------------------------

    /// `ancestors`: those of `node`, root first (a name deep in a long function climbs them
    /// here, not from the root at each step).
    fn item(&self, node: Node<'t>, ancestors: &[Node<'t>]) -> Option<Found> {
        let parent = crate::lang::up_from(node, ancestors).next()?;
        let at = node.start_byte();
        if self.is_target(node) {
            return Some(Found::new(node, Role::Definition, Verdict::Certain));
        }
        if parent.child_by_field_name("name") == Some(node) && is_definition_kind(parent.kind()) {
            return None;
        }
        if node.kind() == "field_identifier" || node.kind() == "shorthand_field_identifier" {
            return None;
        }
        let here = module_above(self.path, node, ancestors, self.text);
        if let Some(use_declaration) =
            crate::lang::up_from(node, ancestors).find(|n| n.kind() == "use_declaration")
        {
            return self.in_use(node, parent, use_declaration, &here);
        }
        let scoped = matches!(
            parent.kind(),
            "scoped_identifier" | "scoped_type_identifier"
        ) && parent.child_by_field_name("name") == Some(node);
        if scoped {
            let head = parent
                .child_by_field_name("path")
                .map(|p| segments_of(node_text(p, self.text)))?;
            let modules = modules_of(&head, &here, &self.uses, at);
            return self
                .exported_by_any(&modules)
                .then(|| Found::new(node, call_or_use(node, ancestors), Verdict::Certain));
        }
        // A path's head names a module or a type: ours only when the target is a type.
        let is_type = matches!(
            self.target.label,
            "struct" | "enum" | "union" | "trait" | "type alias"
        );
        if (is_path_head(node, parent) && !is_type)
            || self.locals.shadows(at)
            || crate::lang::locals::is_rust_binding(node, ancestors)
        {
            return None;
        }
        let verdict = self.plain(&here, at)?;
        Some(Found::new(node, call_or_use(node, ancestors), verdict))
    }

    /// A plain name in module `here`: ours when the module reaches it (it is defined or
    /// imported there) or a glob brings it.
    fn plain(&self, here: &[String], at: usize) -> Option<Verdict> {
        if self
            .reach
            .names_in(here)
            .is_some_and(|n| n.contains(self.word))
        {
            return Some(Verdict::Certain);
        }
        let visible = self.uses.iter().filter(|u| u.visible.contains(&at));
        let mut verdict = None;
        for leaf in visible {
            if leaf.is_glob() {
                let modules = modules_of(leaf.head(), &leaf.module, &self.uses, at);
                if self.exported_by_any(&modules) {
                    return Some(Verdict::Certain);
                }
            } else if !leaf.module_level && leaf.binds() == Some(self.word) {
                let modules = modules_of(leaf.head(), &leaf.module, &self.uses, at);
                let original = leaf.original().unwrap_or(self.word);
                let ours = modules
                    .iter()
                    .any(|m| self.reach.names_in(m).is_some_and(|n| n.contains(original)));
                verdict = Some(if ours {
                    Verdict::Certain
                } else {
                    Verdict::NotOurs
                });
            }
        }
        verdict
    }

    fn exported_by_any(&self, modules: &[Vec<String>]) -> bool {
        modules.iter().any(|m| {
            self.reach
                .names_in(m)
                .is_some_and(|n| n.contains(self.word))
        })
    }

    /// `use a::b::name [as alias]` and `use a::{b::name}`: an import, or a re-export with
    /// `pub use`.
    fn in_use(
        &self,
        node: Node<'t>,
        parent: Node<'t>,
        declaration: Node<'t>,
        here: &[String],
    ) -> Option<Found> {
        if parent.kind() == "use_as_clause" && parent.child_by_field_name("alias") == Some(node) {
            // The alias: the driver finds it as its own word when it is one of the target's.
            return None;
        }
        let mut head: Vec<String> = list_prefix(node, self.text)
            .map(|p| segments_of(&p))
            .unwrap_or_default();
        if matches!(parent.kind(), "scoped_identifier") {
            if parent.child_by_field_name("name") != Some(node) {
                return None;
            }
            if let Some(path) = parent.child_by_field_name("path") {
                head.extend(segments_of(node_text(path, self.text)));
            }
        }
        let modules = super::scope::use_path_modules(&head, here);
        if !self.exported_by_any(&modules) {
            return None;
        }
        let public = declaration
            .children(&mut declaration.walk())
            .any(|c| c.kind() == "visibility_modifier");
        let role = if public { Role::ReExport } else { Role::Import };
        Some(Found::new(node, role, Verdict::Certain))
    }

    // -- members -------------------------------------------------------------------------------

    fn member(&self, node: Node<'t>, member: &Member) -> Option<Found> {
        if self.is_target(node) {
            return Some(Found::new(node, Role::Definition, Verdict::Certain));
        }
        let parent = node.parent()?;
        match parent.kind() {
            "function_item" | "function_signature_item" | "const_item" | "type_item"
                if parent.child_by_field_name("name") == Some(node) =>
            {
                // A field and a method of one name are two members: only the kind the
                // target is.
                let is_method =
                    matches!(parent.kind(), "function_item" | "function_signature_item");
                if is_method != (member.kind == MemberKind::Method) {
                    return None;
                }
                self.member_definition(node, parent, member)
            }
            "field_declaration" => {
                let owner = crate::lang::ancestor_of_kind(parent, "struct_item")
                    .or_else(|| crate::lang::ancestor_of_kind(parent, "union_item"))?;
                let name = owner.child_by_field_name("name")?;
                (member.kind == MemberKind::Field
                    && self.reach.has_owner(node_text(name, self.text)))
                .then(|| Found::new(node, Role::Definition, Verdict::Certain))
            }
            "field_expression" if parent.child_by_field_name("field") == Some(node) => {
                let called = is_called(parent);
                if called != (member.kind == MemberKind::Method) {
                    return None;
                }
                let receiver = parent.child_by_field_name("value")?;
                let role = if called { Role::Call } else { Role::Use };
                let verdict = match receiver_type(receiver, self.text) {
                    Evident::Type(ty) => self.owned_by(&ty),
                    Evident::Unknown => Verdict::Possible(Doubt::Receiver(
                        node_text(receiver, self.text).to_string(),
                    )),
                };
                Some(Found::new(node, role, verdict))
            }
            "scoped_identifier" | "scoped_type_identifier"
                if parent.child_by_field_name("name") == Some(node) =>
            {
                let path = parent.child_by_field_name("path")?;
                let verdict = match path.kind() {
                    "bracketed_type" | "generic_type" if path.kind() == "bracketed_type" => {
                        let written = node_text(path, self.text);
                        let via_trait = member
                            .trait_name
                            .as_ref()
                            .is_some_and(|t| written.contains(&format!("as {t}")));
                        if via_trait {
                            Verdict::Certain
                        } else {
                            Verdict::Possible(Doubt::Receiver(written.to_string()))
                        }
                    }
                    _ => {
                        let ty = last_type_segment(node_text(path, self.text));
                        if ty == "Self" {
                            match self_type(node, self.text) {
                                Evident::Type(ty) => self.owned_by(&ty),
                                Evident::Unknown => Verdict::NotOurs,
                            }
                        } else {
                            self.owned_by(&ty)
                        }
                    }
                };
                Some(Found::new(node, call_or_use(node, &[]), verdict))
            }
            "token_tree" => {
                // `.name` or `Type::name` among a macro's tokens.
                let before = node.prev_sibling()?;
                let verdict = match before.kind() {
                    "." => {
                        // The token before the dot, when it is one short token (`x`, `"s"`).
                        let receiver = before
                            .prev_sibling()
                            .map(|r| node_text(r, self.text))
                            .filter(|r| r.len() <= 40 && !r.contains('\n'))
                            .unwrap_or_default();
                        Verdict::Possible(Doubt::Receiver(receiver.to_string()))
                    }
                    "::" => {
                        let ty = before.prev_sibling()?;
                        self.owned_by(node_text(ty, self.text))
                    }
                    // `Type { name: value }` among the tokens: a field of `Type`.
                    "{" | ","
                        if member.kind == MemberKind::Field
                            && node.next_sibling().is_some_and(|n| n.kind() == ":") =>
                    {
                        let ty = parent.prev_sibling().filter(|t| t.kind() == "identifier")?;
                        let verdict = self.owned_by(node_text(ty, self.text));
                        return Some(Found::new(node, Role::FieldInit, verdict));
                    }
                    _ => return None,
                };
                Some(Found::new(node, Role::Use, verdict))
            }
            "field_initializer" | "field_pattern" | "shorthand_field_initializer" => {
                if member.kind != MemberKind::Field {
                    return None;
                }
                let is_field_name = parent.child_by_field_name("field") == Some(node)
                    || parent.child_by_field_name("name") == Some(node)
                    || parent.kind() == "shorthand_field_initializer";
                if !is_field_name {
                    return None;
                }
                let literal = crate::lang::ancestors(parent)
                    .find(|a| matches!(a.kind(), "struct_expression" | "struct_pattern"))?;
                let ty = literal
                    .child_by_field_name("name")
                    .or_else(|| literal.child_by_field_name("type"))?;
                let ty = last_type_segment(node_text(ty, self.text));
                let verdict = if ty == "Self" {
                    match self_type(node, self.text) {
                        Evident::Type(ty) => self.owned_by(&ty),
                        Evident::Unknown => Verdict::NotOurs,
                    }
                } else {
                    self.owned_by(&ty)
                };
                let shorthand = parent.kind() == "shorthand_field_initializer"
                    || node.kind() == "shorthand_field_identifier";
                let found = Found::new(node, Role::FieldInit, verdict);
                Some(if shorthand {
                    found.with_rewrite(shorthand_rewrite(modifiers_before(node), true))
                } else {
                    found
                })
            }
            _ => None,
        }
    }

    /// A method (or associated item) of the same name in an impl or a trait: the definition
    /// or an override when it is the target's impl or trait.
    fn member_definition(&self, node: Node<'t>, item: Node<'t>, member: &Member) -> Option<Found> {
        let container = item.parent()?;
        let owner = container
            .parent()
            .filter(|_| container.kind() == "declaration_list")?;
        if !matches!(owner.kind(), "impl_item" | "trait_item") {
            return None;
        }
        let (owner_name, trait_name) = owner_and_trait(owner, self.text);
        let ours = match (&member.trait_name, &trait_name) {
            // The same trait: the project's (every impl goes with it), or a library's (only
            // the target's own type).
            (Some(ours), Some(theirs)) => {
                ours == theirs
                    && (self.reach.has_owner(ours)
                        || (owner_name == member.owner && self.reach.has_owner(&owner_name)))
            }
            (None, None) => self.reach.has_owner(&owner_name),
            _ => false,
        };
        ours.then(|| Found::new(node, Role::Override, Verdict::Certain))
    }

    /// Whether a member reached through type `ty` is the target's.
    fn owned_by(&self, ty: &str) -> Verdict {
        if self.reach.has_owner(ty) {
            Verdict::Certain
        } else {
            Verdict::NotOurs
        }
    }

    // -- locals --------------------------------------------------------------------------------

    fn local_names(&self, local: &LocalBinding) -> Option<Names> {
        let node = self
            .tree
            .root_node()
            .descendant_for_byte_range(local.binding, local.binding + self.word.len())?;
        let function = outermost_function(node)?;
        Some(Names::collect(Language::Rust, function, self.text))
    }

    fn local(&self, node: Node<'t>, local: &LocalBinding, names: &Names) -> Option<Found> {
        if self.path != self.target.path || !local.scope.contains(&node.start_byte()) {
            return None;
        }
        let at = node.start_byte();
        let occurrence = names
            .all
            .iter()
            .find(|o| o.pos == at && o.name == self.word)?;
        let binding = if occurrence.role == NameRole::Bind {
            occurrence.pos
        } else {
            names.resolve(self.word, at)?.pos
        };
        // Every alternative of an or-pattern binds the one variable.
        if names.variable(binding) != local.binding {
            return None;
        }
        let role = if occurrence.role == NameRole::Bind {
            Role::Definition
        } else {
            call_or_use(node, &[])
        };
        let found = Found::new(node, role, Verdict::Certain);
        let shorthand = node.kind() == "shorthand_field_identifier"
            || node
                .parent()
                .is_some_and(|p| p.kind() == "shorthand_field_initializer");
        Some(if shorthand {
            found.with_rewrite(shorthand_rewrite(modifiers_before(node), false))
        } else {
            found
        })
    }
}

/// `ref`, `mut`, `ref mut` before a shorthand field of a pattern (`Foo { ref mut x }`): their
/// bytes, up to the name; empty for any other name.
fn modifiers_before(node: Node<'_>) -> std::ops::Range<usize> {
    match node.parent() {
        Some(pattern) if pattern.kind() == "field_pattern" => {
            pattern.start_byte()..node.start_byte()
        }
        _ => node.start_byte()..node.start_byte(),
    }
}

/// `ancestors`: those of `node` already known, root first (may be none).
fn call_or_use<'t>(node: Node<'t>, ancestors: &[Node<'t>]) -> Role {
    let mut current = node;
    for parent in crate::lang::up_from(node, ancestors) {
        match parent.kind() {
            "scoped_identifier" | "generic_function" => current = parent,
            "call_expression" if parent.child_by_field_name("function") == Some(current) => {
                return Role::Call;
            }
            _ => break,
        }
    }
    Role::Use
}

/// Whether a field expression is the callee of a call (through `::<T>`).
fn is_called(field_expression: Node<'_>) -> bool {
    let mut current = field_expression;
    if let Some(parent) = current.parent()
        && parent.kind() == "generic_function"
    {
        current = parent;
    }
    current.parent().is_some_and(|p| {
        p.kind() == "call_expression" && p.child_by_field_name("function") == Some(current)
    })
}

/// `name` as the head of a longer path (`name::x`): a module or a type, another symbol.
fn is_path_head(node: Node<'_>, parent: Node<'_>) -> bool {
    matches!(
        parent.kind(),
        "scoped_identifier" | "scoped_type_identifier" | "scoped_use_list"
    ) && parent.child_by_field_name("path") == Some(node)
}

/// The name of a macro (not one of the expression macros) whose arguments hold the node.
fn foreign_macro(ancestors: &[Node<'_>], text: &str) -> Option<String> {
    let invocation = ancestors
        .iter()
        .rev()
        .find(|a| a.kind() == "macro_invocation")?;
    let name = invocation.child_by_field_name("macro").map(|m| {
        node_text(m, text)
            .rsplit("::")
            .next()
            .unwrap_or("")
            .to_string()
    })?;
    (!takes_expressions(&name)).then_some(name)
}
