//! Where the new function goes and how the selection calls it: the enclosing function, its
//! receiver (`&self`, `self`, `cls`, none), the owner (module, impl, trait, class, outer
//! function), the insertion point and spacing, and the name checks of that scope. Pure.

use tree_sitter::{Node, Tree};

use super::wording as w;
use crate::lang::symbols::leading_trivia_start;
use crate::lang::syntax::{Defined, Enclosing, Owner, Syntax};
use crate::lang::{Language, node_text};
use crate::refactor::RefactorError;
use crate::text::indentation_at;

use super::selection::Selection;
use crate::lang::names::Names;

/// Where the text of the new function is inserted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// At the start of the line after the enclosing definition; `at_eof` when that definition
    /// ends the file without a final newline.
    After { at: usize, at_eof: bool },
    /// Python module-level code: at the start of a line before the selection, so the function
    /// is defined before the call runs.
    Before { at: usize },
}

#[derive(Debug, Clone)]
pub struct Destination<'t> {
    /// The innermost enclosing function; `None` for Python module-level code.
    pub function: Option<Node<'t>>,
    /// Its name (`<module>` for module-level code).
    pub function_name: String,
    /// The node whose names are analysed: the enclosing function, or the module.
    pub region: Node<'t>,
    pub owner: Owner,
    /// As written in the new parameter list: `&self`, `&mut self`, `self`, `cls`.
    pub receiver: Option<String>,
    /// The name the receiver binds (`self`, `cls`).
    pub receiver_name: Option<String>,
    /// A Rust receiver that moves `self` (`self`, `mut self`, `self: Box<Self>`).
    pub receiver_by_value: bool,
    pub decorator: Option<&'static str>,
    /// Put before the name in the call: `self.`, `Self::`, `cls.`, `Box.`.
    pub call_prefix: String,
    /// The enclosing function's qualifiers that matter: `const`, `async`, `unsafe`.
    pub is_const: bool,
    pub is_unsafe: bool,
    /// Rust: the line of an `unsafe` block of the enclosing function around the selection.
    pub unsafe_block: Option<usize>,
    /// Rust generic parameters declared by the enclosing function itself.
    pub type_parameters: Vec<String>,
    /// Rust: whether the enclosing function declares a return type other than `()`.
    pub returns_value: bool,
    /// Rust trait impls: the header of the new inherent impl (`impl<T> Foo<T>`).
    pub wrapper: Option<String>,
    /// Rust trait impls: whether the type is defined in this file (an inherent impl of a type
    /// from another crate is not allowed).
    pub type_defined_here: bool,
    pub placement: Placement,
    /// Indentation of the `fn`/`def` line of the new function (of the wrapper for `wrapper`).
    pub indent: String,
    /// Blank lines between the enclosing definition and the new one.
    pub blank_lines: usize,
}

fn line_of(node: Node<'_>) -> usize {
    node.start_position().row + 1
}

fn refuse(line: usize, message: String) -> RefactorError {
    RefactorError::InvalidRange { line, message }
}

/// Finds where the function extracted from `selection` goes.
pub fn locate<'t>(
    lang: Language,
    tree: &'t Tree,
    text: &str,
    selection: &Selection<'t>,
) -> Result<Destination<'t>, RefactorError> {
    let syntax = lang.syntax();
    let function = match syntax.enclosing(selection.block) {
        Enclosing::Function(function) => function,
        Enclosing::Module => return Ok(module_level(tree, text, selection)),
        Enclosing::ClassBody(class) => {
            let name = class
                .child_by_field_name("name")
                .map_or("", |n| node_text(n, text));
            return Err(refuse(
                selection.first_line + 1,
                w::in_a_class_body(&selection.line_label(), name, line_of(class)),
            ));
        }
        Enclosing::Item => {
            return Err(refuse(
                selection.first_line + 1,
                w::in_an_item_initializer(&selection.line_label()),
            ));
        }
    };
    let facts = syntax.function(function, text);
    let (decorator, call_prefix) = match (&facts.receiver, &facts.owner) {
        (Some(receiver), Owner::Class { .. }) if receiver.class => {
            (Some("@classmethod"), format!("{}.", receiver.name))
        }
        (None, Owner::Class { qualified, .. }) => (Some("@staticmethod"), format!("{qualified}.")),
        (Some(receiver), _) => (None, format!("{}.", receiver.name)),
        (None, Owner::Impl { .. } | Owner::TraitImpl { .. } | Owner::Trait { .. }) => {
            (None, "Self::".to_string())
        }
        (None, _) => (None, String::new()),
    };
    let (anchor, wrapper) = match &facts.owner {
        Owner::TraitImpl { .. } => {
            let impl_item = syntax.owner_node(function).unwrap_or(function);
            let header = syntax
                .inherent_impl_header(impl_item, text)
                .map_err(|type_text| {
                    RefactorError::Unsupported(w::in_a_trait_impl_of_a_foreign_type(
                        &type_text,
                        line_of(impl_item),
                    ))
                })?;
            (impl_item, Some(header))
        }
        _ => (facts.outer, None),
    };
    let default_gap = match lang {
        // PEP 8: two blank lines around top-level definitions.
        Language::Python
            if anchor
                .parent()
                .is_some_and(|p| p.id() == tree.root_node().id()) =>
        {
            2
        }
        _ => 1,
    };
    Ok(Destination {
        function: Some(function),
        function_name: facts.name,
        region: function,
        receiver: facts.receiver.as_ref().map(|r| r.written.clone()),
        receiver_name: facts.receiver.as_ref().map(|r| r.name.clone()),
        receiver_by_value: facts.receiver.as_ref().is_some_and(|r| r.by_value),
        decorator,
        call_prefix,
        is_const: facts.is_const,
        is_unsafe: facts.is_unsafe,
        unsafe_block: syntax.unsafe_block_line(selection.block, function),
        type_parameters: facts.type_parameters,
        returns_value: facts.returns_value,
        type_defined_here: match &facts.owner {
            Owner::TraitImpl { type_name, .. } => syntax.defines_type(tree, text, type_name),
            _ => true,
        },
        wrapper,
        placement: after(anchor, text),
        indent: indentation_at(text, anchor.start_byte()).to_string(),
        blank_lines: observed_gap(syntax, anchor, text).unwrap_or(default_gap),
        owner: facts.owner,
    })
}

fn after(node: Node<'_>, text: &str) -> Placement {
    let end = node.end_byte();
    match text[end..].find('\n') {
        Some(i) => Placement::After {
            at: end + i + 1,
            at_eof: false,
        },
        None => Placement::After {
            at: text.len(),
            at_eof: true,
        },
    }
}

/// The blank lines the file already puts between this definition and its neighbour, when that
/// is 1 or 2.
fn observed_gap(syntax: &dyn Syntax, node: Node<'_>, text: &str) -> Option<usize> {
    let lang = syntax.language();
    let is_definition = |n: Node<'_>| syntax.is_item(n);
    let next = siblings(syntax, node, |n| n.next_named_sibling()).filter(|n| is_definition(*n));
    let gap = match next {
        Some(next) => blank_lines_between(
            text,
            node.end_byte(),
            leading_trivia_start(lang, next, text),
        ),
        None => {
            let previous =
                siblings(syntax, node, |n| n.prev_named_sibling()).filter(|n| is_definition(*n))?;
            blank_lines_between(
                text,
                previous.end_byte(),
                leading_trivia_start(lang, node, text),
            )
        }
    }?;
    (1..=2).contains(&gap).then_some(gap)
}

/// The nearest sibling in the direction of `step` that is not a comment or an attribute.
fn siblings<'t>(
    syntax: &dyn Syntax,
    node: Node<'t>,
    step: impl Fn(Node<'t>) -> Option<Node<'t>>,
) -> Option<Node<'t>> {
    let mut current = step(node);
    while let Some(n) = current {
        if !syntax.is_comment(n) && !syntax.is_attribute(n) {
            return Some(n);
        }
        current = step(n);
    }
    None
}

/// Blank lines between two offsets when only whitespace separates them.
fn blank_lines_between(text: &str, from: usize, to: usize) -> Option<usize> {
    let gap = text.get(from..to)?;
    if !gap.trim().is_empty() {
        return None;
    }
    Some(gap.matches('\n').count().saturating_sub(1))
}

/// Python code at module level: the new function is defined at column 0 right before the
/// top-level statement holding the selection (with the comments above it), so it exists when
/// the call runs.
fn module_level<'t>(tree: &'t Tree, text: &str, selection: &Selection<'t>) -> Destination<'t> {
    let first = selection
        .statements
        .first()
        .copied()
        .unwrap_or(selection.block);
    let root = tree.root_node();
    let mut top = first;
    while let Some(parent) = top.parent() {
        if parent.id() == root.id() {
            break;
        }
        top = parent;
    }
    let trivia = leading_trivia_start(Language::Python, top, text);
    let line_start = |offset: usize| text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let at = line_start(trivia).min(selection.moved.start);
    Destination {
        function: None,
        function_name: "<module>".to_string(),
        region: root,
        owner: Owner::Module,
        receiver: None,
        receiver_name: None,
        receiver_by_value: false,
        decorator: None,
        call_prefix: String::new(),
        is_const: false,
        is_unsafe: false,
        unsafe_block: None,
        type_parameters: Vec::new(),
        returns_value: false,
        wrapper: None,
        type_defined_here: true,
        placement: Placement::Before { at },
        indent: String::new(),
        blank_lines: 2,
    }
}

/// Refuses a `new_name` that already names something the new function would clash with: a
/// function (or other definition) of the same scope, or a local of the caller that would shadow
/// the plain call.
pub fn check_name(
    lang: Language,
    tree: &Tree,
    text: &str,
    target: &Destination<'_>,
    names: &Names,
    name: &str,
) -> Result<(), RefactorError> {
    let existing = lang
        .syntax()
        .definition_named(tree, text, &target.owner, target.function, name);
    if let Some((line, what)) = existing {
        let what = match what {
            Defined::Function => format!("function `{name}`"),
            Defined::Class => format!("class `{name}`"),
            Defined::Item(word) => format!("`{word}` item `{name}`"),
            Defined::Import => format!("the import of `{name}`"),
            Defined::Binding => format!("a binding of `{name}`"),
        };
        return Err(RefactorError::InvalidArgument {
            param: "new_name",
            message: w::name_taken(name, &what, line),
        });
    }
    if !target.call_prefix.is_empty() {
        return Ok(());
    }
    // A plain call `name()` would find a local of that name first: in Rust any binding of the
    // function may be in scope there; in Python a local is local to its whole function.
    let shadowing = names.bindings_of(name).find(|o| match lang {
        Language::Rust => true,
        Language::Python => o.scope == target.region.byte_range(),
    });
    if let Some(local) = shadowing {
        let of = if target.function.is_some() {
            format!(" of `{}`", target.function_name)
        } else {
            String::new()
        };
        return Err(RefactorError::InvalidArgument {
            param: "new_name",
            message: w::name_is_a_variable(name, &of, local.line),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::LineIndex;

    fn target_of(
        lang: Language,
        text: &str,
        line: usize,
    ) -> Result<(Owner, Option<String>, String, usize), RefactorError> {
        let tree = lang.parse(text);
        let lines = LineIndex::new(text);
        let selection = super::super::selection::snap(lang, &tree, text, &lines, line, line)?;
        let target = locate(lang, &tree, text, &selection)?;
        Ok((
            target.owner,
            target.receiver,
            target.call_prefix,
            target.blank_lines,
        ))
    }

    #[test]
    fn rust_receivers_and_owners() {
        let text = "struct S;\n\nimpl S {\n    fn a(&mut self) {\n        x();\n    }\n\n    fn b() {\n        y();\n    }\n}\n\nimpl Clone for S {\n    fn clone(&self) -> S {\n        z();\n        S\n    }\n}\n\nfn free() {\n    w();\n}\n";
        let (owner, receiver, prefix, gap) = target_of(Language::Rust, text, 5).unwrap();
        assert_eq!(
            owner,
            Owner::Impl {
                type_name: "S".into()
            }
        );
        assert_eq!(receiver.as_deref(), Some("&mut self"));
        assert_eq!((prefix.as_str(), gap), ("self.", 1));
        let (_, receiver, prefix, _) = target_of(Language::Rust, text, 9).unwrap();
        assert_eq!((receiver, prefix.as_str()), (None, "Self::"));
        let (owner, _, prefix, _) = target_of(Language::Rust, text, 15).unwrap();
        assert!(matches!(owner, Owner::TraitImpl { ref trait_name, .. } if trait_name == "Clone"));
        assert_eq!(prefix, "self.");
        let (owner, receiver, prefix, _) = target_of(Language::Rust, text, 21).unwrap();
        assert_eq!(
            (owner, receiver, prefix.as_str()),
            (Owner::Module, None, "")
        );
    }

    #[test]
    fn python_receivers_and_spacing() {
        let text = "class Box:\n    @staticmethod\n    def make():\n        a()\n\n    @classmethod\n    def build(kls):\n        b()\n\n    def size(this):\n        c()\n\n\ndef outer():\n    def inner():\n        d()\n    e()\n";
        let (owner, receiver, prefix, gap) = target_of(Language::Python, text, 4).unwrap();
        assert_eq!(
            owner,
            Owner::Class {
                name: "Box".into(),
                qualified: "Box".into()
            }
        );
        assert_eq!((receiver, prefix.as_str(), gap), (None, "Box.", 1));
        let (_, receiver, prefix, _) = target_of(Language::Python, text, 8).unwrap();
        assert_eq!(
            (receiver.as_deref(), prefix.as_str()),
            (Some("kls"), "kls.")
        );
        let (_, receiver, prefix, _) = target_of(Language::Python, text, 11).unwrap();
        assert_eq!(
            (receiver.as_deref(), prefix.as_str()),
            (Some("this"), "this.")
        );
        let (owner, receiver, _, gap) = target_of(Language::Python, text, 16).unwrap();
        assert_eq!((owner, receiver, gap), (Owner::Function, None, 1));
        let (owner, _, _, gap) = target_of(Language::Python, text, 17).unwrap();
        assert_eq!((owner, gap), (Owner::Module, 2));
    }

    #[test]
    fn a_class_body_is_refused() {
        let text = "class A:\n    x = 1\n";
        assert!(matches!(
            target_of(Language::Python, text, 2),
            Err(RefactorError::InvalidRange { line: 2, .. })
        ));
    }

    #[test]
    fn a_blanket_impl_is_unsupported() {
        let text = "impl<T> Tr for T {\n    fn f(&self) {\n        g();\n    }\n}\n";
        assert!(matches!(
            target_of(Language::Rust, text, 3),
            Err(RefactorError::Unsupported(_))
        ));
    }
}
