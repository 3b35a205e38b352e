//! Rust's answers to the references engine ([`Resolver`]): the symbol a name stands for
//! ([`target`]), how the project reaches it (`use` re-exports and globs, the impls of a trait),
//! the verdict on each occurrence ([`judge`]), and what already binds a new name where a
//! rename would put it.

mod generic;
mod judge;
mod macros;
mod scope;
mod target;

pub use self::generic::LIFETIME_PARAMETER;

use std::collections::HashMap;

use tree_sitter::Tree;

use self::scope::{modules_of, outermost_function, use_path_modules, uses};
use crate::lang::names::{Names, Role as NameRole};
use crate::lang::refs::{Bound, Found, NoTarget, Reach, Resolver, Target, TargetKind};
use crate::lang::rust::imports::top_level_bindings;
use crate::lang::rust::items::impl_type_name;
use crate::lang::rust::paths::{last_path_segment, module_at};
use crate::lang::{Language, node_text, walk_tree};

/// Rust's [`Resolver`].
#[derive(Debug, Clone, Copy, Default)]
pub struct RustRefs;

impl Resolver for RustRefs {
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
            TargetKind::Item => learn_reexports(path, tree, text, reach),
            TargetKind::Member(member) => {
                if let Some(trait_name) = &member.trait_name {
                    learn_impls(path, tree, text, trait_name, reach);
                }
                Vec::new()
            }
            TargetKind::Local(_) => Vec::new(),
        }
    }

    fn learns_nothing(&self, target: &Target) -> bool {
        // What `learn` reads: re-exports for an item, the impls of a member's trait.
        match &target.kind {
            TargetKind::Member(member) => member.trait_name.is_none(),
            TargetKind::Item | TargetKind::Local(_) => false,
        }
    }

    fn search_words(&self, target: &Target) -> Vec<String> {
        match &target.kind {
            // Files that glob-import the defining module name it.
            TargetKind::Item => target.module.last().cloned().into_iter().collect(),
            TargetKind::Member(member) => member.trait_name.iter().cloned().collect(),
            TargetKind::Local(_) => Vec::new(),
        }
    }

    fn context_words(&self, target: &Target) -> Option<&'static [&'static str]> {
        // Beyond the statements around the name, the judge reads every `use` of the file (and
        // where each is visible), the headers of the impls, traits and modules around an
        // occurrence (partial trees keep them), and, inside a function, the bindings anywhere
        // in it (a receiver's `let x: T`, a parameter, a local of the name): the whole
        // function. A local is judged in its own file, on the tree it was found in.
        match &target.kind {
            TargetKind::Item | TargetKind::Member(_) => {
                Some(&["use", crate::lang::partial::WHOLE_FUNCTIONS])
            }
            TargetKind::Local(_) => None,
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
        judge::File::new(target, reach, path, tree, text, word).judge(offsets)
    }

    fn bound_at(&self, tree: &Tree, text: &str, at: usize, name: &str) -> Option<Bound> {
        if let Some(node) = tree.root_node().descendant_for_byte_range(at, at)
            && let Some(function) = outermost_function(node)
        {
            let names = Names::collect(Language::Rust, function, text);
            if let Some(binding) = names.resolve(name, at) {
                return Some(Bound {
                    line: binding.line,
                    what: "local variable",
                });
            }
        }
        let here = tree
            .root_node()
            .descendant_for_byte_range(at, at)
            .map(|n| module_at("", n, text))
            .unwrap_or_default();
        item_binding(tree, text, name, Some(&here), Some(at))
    }

    fn first_bound(&self, tree: &Tree, text: &str, offsets: &[usize], name: &str) -> Option<Bound> {
        // Worked out once: each outermost function's names, each module's items, the uses.
        let mut functions: HashMap<usize, Names> = HashMap::new();
        let mut items: HashMap<Vec<String>, Option<Bound>> = HashMap::new();
        let mut leaves = None;
        for &at in offsets {
            let node = tree.root_node().descendant_for_byte_range(at, at);
            if let Some(function) = node.and_then(outermost_function) {
                let names = functions
                    .entry(function.id())
                    .or_insert_with(|| Names::collect(Language::Rust, function, text));
                if let Some(binding) = names.resolve(name, at) {
                    return Some(Bound {
                        line: binding.line,
                        what: "local variable",
                    });
                }
            }
            let here = node.map(|n| module_at("", n, text)).unwrap_or_default();
            let item = items
                .entry(here)
                .or_insert_with_key(|here| item_definition(tree, text, name, Some(here)));
            if item.is_some() {
                return item.clone();
            }
            let leaves = leaves.get_or_insert_with(|| uses(tree, text, ""));
            if let Some(bound) = use_binding(leaves, name, Some(at)) {
                return Some(bound);
            }
        }
        None
    }

    fn module_binding(&self, tree: &Tree, text: &str, name: &str) -> Option<Bound> {
        let binding = top_level_bindings(tree, text)
            .into_iter()
            .find(|b| b.name == name)?;
        Some(Bound {
            line: text[..binding.offset.min(text.len())].matches('\n').count() + 1,
            what: if binding.imported { "import" } else { "item" },
        })
    }

    fn member_binding(&self, tree: &Tree, text: &str, owner: &str, name: &str) -> Option<Bound> {
        let mut found = None;
        walk_tree(tree, |node| {
            if found.is_some() {
                return false;
            }
            let owns = match node.kind() {
                "impl_item" => impl_type_name(node, text) == owner,
                "trait_item" | "struct_item" | "enum_item" | "union_item" => node
                    .child_by_field_name("name")
                    .is_some_and(|n| node_text(n, text) == owner),
                _ => return true,
            };
            if owns {
                crate::lang::walk_node(node, |inner| {
                    if found.is_none()
                        && matches!(
                            inner.kind(),
                            "function_item"
                                | "function_signature_item"
                                | "const_item"
                                | "field_declaration"
                                | "enum_variant"
                                | "type_item"
                        )
                        && inner
                            .child_by_field_name("name")
                            .is_some_and(|n| node_text(n, text) == name)
                    {
                        found = Some(Bound {
                            line: inner.start_position().row + 1,
                            what: "member",
                        });
                    }
                    found.is_none() && inner.kind() != "block"
                });
            }
            false
        });
        found
    }

    fn captured(&self, tree: &Tree, text: &str, target: &Target, name: &str) -> Option<Bound> {
        match &target.kind {
            TargetKind::Local(local) => {
                let node = tree
                    .root_node()
                    .descendant_for_byte_range(local.binding, local.binding)?;
                let function = outermost_function(node)?;
                let names = Names::collect(Language::Rust, function, text);
                names.all.iter().find(|o| o.name == name).map(|o| Bound {
                    line: o.line,
                    what: if o.parameter {
                        "parameter"
                    } else if o.role == NameRole::Bind {
                        "local variable"
                    } else {
                        "use"
                    },
                })
            }
            TargetKind::Item => {
                // A plain use of the new name in the defining file that no local binds: it
                // means something else today (a prelude name, a macro-made item).
                let locals = crate::lang::locals::Locals::new(Language::Rust, tree, text, name);
                let mut found = None;
                walk_tree(tree, |node| {
                    if found.is_some() {
                        return false;
                    }
                    if node.kind() == "identifier"
                        && node_text(node, text) == name
                        && !locals.shadows(node.start_byte())
                        && node.parent().is_some_and(|p| {
                            !matches!(
                                p.kind(),
                                "scoped_identifier" | "field_expression" | "use_declaration"
                            ) && !crate::lang::rust::items::is_definition_kind(p.kind())
                        })
                        && !crate::lang::locals::is_rust_binding(node, &[])
                    {
                        found = Some(Bound {
                            line: node.start_position().row + 1,
                            what: "use",
                        });
                    }
                    true
                });
                found
            }
            TargetKind::Member(_) => None,
        }
    }
}

/// An item or `use` binding `name` in module `here` (or at the top) visible at `at`.
fn item_binding(
    tree: &Tree,
    text: &str,
    name: &str,
    here: Option<&[String]>,
    at: Option<usize>,
) -> Option<Bound> {
    item_definition(tree, text, name, here).or_else(|| use_binding(&uses(tree, text, ""), name, at))
}

/// An item called `name` defined at the top of the module `here` (any module when `None`).
fn item_definition(tree: &Tree, text: &str, name: &str, here: Option<&[String]>) -> Option<Bound> {
    let mut found = None;
    walk_tree(tree, |node| {
        if found.is_some() {
            return false;
        }
        let in_module = |n: tree_sitter::Node<'_>| here.is_none_or(|h| module_at("", n, text) == h);
        if crate::lang::rust::items::is_definition_kind(node.kind())
            && node.kind() != "enum_variant"
            && node
                .child_by_field_name("name")
                .is_some_and(|n| node_text(n, text) == name)
            && node.parent().is_some_and(|p| {
                matches!(p.kind(), "source_file")
                    || (p.kind() == "declaration_list"
                        && p.parent().is_some_and(|m| m.kind() == "mod_item"))
            })
            && in_module(node)
        {
            found = Some(Bound {
                line: node.start_position().row + 1,
                what: "item",
            });
            return false;
        }
        !matches!(node.kind(), "function_item" | "impl_item" | "trait_item")
    });
    found
}

/// A `use` among `leaves` that binds `name` where `at` sits (anywhere when `None`).
fn use_binding(leaves: &[scope::UseLeaf], name: &str, at: Option<usize>) -> Option<Bound> {
    leaves
        .iter()
        .find(|u| u.binds() == Some(name) && at.is_none_or(|a| u.visible.contains(&a)))
        .map(|u| Bound {
            line: u.line,
            what: "import",
        })
}

/// `use`s that bring the target into their module (by name, under an alias, by glob): the
/// module reaches it too. A new alias is a word to search.
fn learn_reexports(path: &str, tree: &Tree, text: &str, reach: &mut Reach) -> Vec<String> {
    let mut words = Vec::new();
    for leaf in uses(tree, text, path)
        .into_iter()
        .filter(|u| u.module_level)
    {
        let modules = if leaf.is_glob() {
            use_path_modules(leaf.head(), &leaf.module)
        } else {
            let mut head_modules = use_path_modules(leaf.head(), &leaf.module);
            if head_modules.is_empty() {
                head_modules = modules_of(leaf.head(), &leaf.module, &[], 0);
            }
            head_modules
        };
        let mut gained: Vec<String> = Vec::new();
        for module in &modules {
            let Some(names) = reach.names_in(module) else {
                continue;
            };
            if leaf.is_glob() {
                gained.extend(names.iter().cloned());
            } else if let (Some(original), Some(binds)) = (leaf.original(), leaf.binds())
                && names.contains(original)
            {
                gained.push(binds.to_string());
            }
        }
        for name in gained {
            if reach
                .exports
                .entry(leaf.module.clone())
                .or_default()
                .insert(name.clone())
            {
                words.push(name);
            }
        }
    }
    words
}

/// The project's declaration of the target's trait makes the trait an owner; then every
/// `impl Trait for Type` gives its type the member. A library's trait (`Display`, `Serialize`)
/// never becomes an owner: its impls are separate symbols that cannot be renamed together.
fn learn_impls(path: &str, tree: &Tree, text: &str, trait_name: &str, reach: &mut Reach) {
    walk_tree(tree, |node| {
        if node.kind() == "trait_item"
            && node
                .child_by_field_name("name")
                .is_some_and(|n| node_text(n, text) == trait_name)
        {
            reach
                .owners
                .insert((module_at(path, node, text), trait_name.to_string()));
        }
        true
    });
    if !reach.has_owner(trait_name) {
        return;
    }
    walk_tree(tree, |node| {
        if node.kind() == "impl_item"
            && let Some(written) = node.child_by_field_name("trait")
            && last_path_segment(node_text(written, text)) == trait_name
        {
            reach
                .owners
                .insert((module_at(path, node, text), impl_type_name(node, text)));
        }
        true
    });
}

#[cfg(test)]
mod tests;
