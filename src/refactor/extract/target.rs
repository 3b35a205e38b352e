//! Where the new function goes and how the selection calls it: the enclosing function, its
//! receiver (`&self`, `self`, `cls`, none), the owner (module, impl, trait, class, outer
//! function), the insertion point and spacing, and the name checks of that scope. Pure.

use tree_sitter::{Node, Tree};

use crate::lang::symbols::leading_trivia_start;
use crate::lang::{Language, node_text, walk_tree};
use crate::refactor::RefactorError;
use crate::text::indentation_at;

use super::names::Names;
use super::selection::{Selection, is_comment};

/// What holds the enclosing function, hence the new one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// A file, a Rust `mod`, or Python module-level code.
    Module,
    /// A Rust inherent `impl` of the type.
    Impl { type_name: String },
    /// A Rust `impl Trait for Type`: the new function goes in a new inherent `impl` after it.
    TraitImpl {
        type_name: String,
        trait_name: String,
    },
    /// A Rust trait (a provided method).
    Trait { trait_name: String },
    /// A Python class.
    Class { class_name: String },
    /// The body of an outer function (a nested function).
    Function,
}

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
pub struct Target<'t> {
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
) -> Result<Target<'t>, RefactorError> {
    match lang {
        Language::Rust => locate_rust(tree, text, selection),
        Language::Python => locate_python(tree, text, selection),
    }
}

fn selection_lines(selection: &Selection<'_>) -> String {
    selection.line_label()
}

fn locate_rust<'t>(
    tree: &'t Tree,
    text: &str,
    selection: &Selection<'t>,
) -> Result<Target<'t>, RefactorError> {
    let mut current = Some(selection.block);
    let function = loop {
        match current {
            Some(node) if node.kind() == "function_item" => break node,
            Some(node)
                if matches!(
                    node.kind(),
                    "source_file" | "declaration_list" | "const_item" | "static_item"
                ) =>
            {
                current = None;
            }
            Some(node) => current = node.parent(),
            None => {
                return Err(refuse(
                    selection.first_line + 1,
                    format!(
                        "lines {} are not inside a function (they belong to an item's initializer); extract function takes statements of a function body",
                        selection_lines(selection)
                    ),
                ));
            }
        }
    };
    let function_name = function
        .child_by_field_name("name")
        .map_or("", |n| node_text(n, text))
        .to_string();
    let receiver = function
        .child_by_field_name("parameters")
        .and_then(|p| {
            p.named_children(&mut p.walk())
                .find(|c| is_rust_receiver(*c, text))
        })
        .map(|r| node_text(r, text).to_string());
    let modifiers = function
        .children(&mut function.walk())
        .find(|c| c.kind() == "function_modifiers")
        .map_or("", |m| node_text(m, text));
    let returns_value = function
        .child_by_field_name("return_type")
        .is_some_and(|t| node_text(t, text).trim() != "()");
    let type_parameters = function
        .child_by_field_name("type_parameters")
        .map(|tp| {
            tp.named_children(&mut tp.walk())
                .filter_map(|p| {
                    p.child_by_field_name("name")
                        .or_else(|| (p.kind() == "type_identifier").then_some(p))
                })
                .filter(|n| n.kind() == "type_identifier")
                .map(|n| node_text(n, text).to_string())
                .collect()
        })
        .unwrap_or_default();
    let container = function.parent();
    let owner_node = container.and_then(|c| c.parent());
    let owner = match (container.map(|c| c.kind()), owner_node.map(|o| o.kind())) {
        (Some("declaration_list"), Some("impl_item")) => {
            let impl_item = owner_node.unwrap_or(function);
            let type_name = impl_type_key(impl_item, text);
            match impl_item.child_by_field_name("trait") {
                Some(trait_node) => Owner::TraitImpl {
                    type_name,
                    trait_name: node_text(trait_node, text).to_string(),
                },
                None => Owner::Impl { type_name },
            }
        }
        (Some("declaration_list"), Some("trait_item")) => Owner::Trait {
            trait_name: owner_node
                .and_then(|t| t.child_by_field_name("name"))
                .map_or("", |n| node_text(n, text))
                .to_string(),
        },
        (Some("block"), _) => Owner::Function,
        _ => Owner::Module,
    };
    let call_prefix = match (&receiver, &owner) {
        (Some(_), _) => "self.",
        (None, Owner::Impl { .. } | Owner::TraitImpl { .. } | Owner::Trait { .. }) => "Self::",
        _ => "",
    }
    .to_string();
    let (anchor, wrapper) = match &owner {
        Owner::TraitImpl { .. } => {
            let impl_item = owner_node.unwrap_or(function);
            (impl_item, Some(inherent_impl_header(impl_item, text)?))
        }
        _ => (function, None),
    };
    let receiver_by_value = receiver.as_deref().is_some_and(|r| !r.contains('&'));
    Ok(Target {
        function: Some(function),
        function_name,
        region: function,
        receiver_name: receiver.as_ref().map(|_| "self".to_string()),
        receiver,
        receiver_by_value,
        decorator: None,
        call_prefix,
        is_const: modifiers.split_whitespace().any(|m| m == "const"),
        is_unsafe: modifiers.split_whitespace().any(|m| m == "unsafe"),
        unsafe_block: unsafe_block_around(selection.block, function),
        type_parameters,
        returns_value,
        type_defined_here: match &owner {
            Owner::TraitImpl { type_name, .. } => type_defined_in(tree, text, type_name),
            _ => true,
        },
        wrapper,
        placement: after(anchor, text),
        indent: indentation_at(text, anchor.start_byte()).to_string(),
        blank_lines: observed_gap(Language::Rust, anchor, text).unwrap_or(1),
        owner,
    })
}

/// The first line of the innermost `unsafe { }` block holding `block`, inside `function`.
fn unsafe_block_around(block: Node<'_>, function: Node<'_>) -> Option<usize> {
    let mut current = Some(block);
    while let Some(node) = current {
        if node.id() == function.id() {
            return None;
        }
        if node.kind() == "unsafe_block" {
            return Some(node.start_position().row + 1);
        }
        current = node.parent();
    }
    None
}

fn is_rust_receiver(parameter: Node<'_>, text: &str) -> bool {
    parameter.kind() == "self_parameter"
        || (parameter.kind() == "parameter"
            && parameter
                .child_by_field_name("pattern")
                .is_some_and(|p| node_text(p, text) == "self"))
}

/// Whether the file defines a struct, enum, union or type alias called `name`.
fn type_defined_in(tree: &Tree, text: &str, name: &str) -> bool {
    let mut found = false;
    walk_tree(tree, |node| {
        if found {
            return false;
        }
        if matches!(
            node.kind(),
            "struct_item" | "enum_item" | "union_item" | "type_item"
        ) {
            found = node
                .child_by_field_name("name")
                .is_some_and(|n| node_text(n, text) == name);
        }
        !matches!(node.kind(), "function_item" | "string_literal")
    });
    found
}

/// `Foo` for `impl<T> Trait for foo::Foo<T>`: the key under which impls of a type are grouped.
fn impl_type_key(impl_item: Node<'_>, text: &str) -> String {
    let Some(mut ty) = impl_item.child_by_field_name("type") else {
        return String::new();
    };
    loop {
        let inner = match ty.kind() {
            "reference_type" | "pointer_type" | "generic_type" => ty.child_by_field_name("type"),
            "scoped_type_identifier" => ty.child_by_field_name("name"),
            _ => None,
        };
        match inner {
            Some(next) => ty = next,
            None => return node_text(ty, text).to_string(),
        }
    }
}

/// `impl<'a, T: Clone> Foo<'a, T> where T: Copy` for the trait impl `impl<..> Trait for Foo<..> where ..`.
fn inherent_impl_header(impl_item: Node<'_>, text: &str) -> Result<String, RefactorError> {
    let ty = impl_item.child_by_field_name("type");
    let generics = impl_item.child_by_field_name("type_parameters");
    let type_text = ty.map_or("", |t| node_text(t, text));
    let blanket = generics.is_some_and(|g| {
        g.named_children(&mut g.walk())
            .filter_map(|p| p.child_by_field_name("name"))
            .any(|n| node_text(n, text) == type_text)
    });
    if blanket
        || ty.is_none_or(|t| {
            !matches!(
                t.kind(),
                "type_identifier" | "generic_type" | "scoped_type_identifier"
            )
        })
    {
        return Err(RefactorError::Unsupported(format!(
            "the enclosing function is in `impl ... for {type_text}` (line {}); a trait impl cannot take a new method and an inherent impl for `{type_text}` cannot be written here; extract from an inherent method instead",
            line_of(impl_item)
        )));
    }
    let mut header = String::from("impl");
    if let Some(g) = generics {
        header.push_str(node_text(g, text));
    }
    header.push(' ');
    header.push_str(type_text);
    if let Some(clause) = impl_item
        .children(&mut impl_item.walk())
        .find(|c| c.kind() == "where_clause")
    {
        header.push(' ');
        header.push_str(node_text(clause, text));
    }
    Ok(header)
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
fn observed_gap(lang: Language, node: Node<'_>, text: &str) -> Option<usize> {
    let is_definition = |n: Node<'_>| {
        lang.is_function_kind(n.kind())
            || matches!(
                n.kind(),
                "decorated_definition"
                    | "class_definition"
                    | "impl_item"
                    | "struct_item"
                    | "enum_item"
                    | "union_item"
                    | "trait_item"
                    | "mod_item"
                    | "macro_definition"
            )
    };
    let next = siblings(node, |n| n.next_named_sibling(), lang).filter(|n| is_definition(*n));
    let gap = match next {
        Some(next) => blank_lines_between(
            text,
            node.end_byte(),
            leading_trivia_start(lang, next, text),
        ),
        None => {
            let previous =
                siblings(node, |n| n.prev_named_sibling(), lang).filter(|n| is_definition(*n))?;
            blank_lines_between(
                text,
                previous.end_byte(),
                leading_trivia_start(lang, node, text),
            )
        }
    }?;
    (1..=2).contains(&gap).then_some(gap)
}

fn siblings<'t>(
    node: Node<'t>,
    step: impl Fn(Node<'t>) -> Option<Node<'t>>,
    lang: Language,
) -> Option<Node<'t>> {
    let mut current = step(node);
    while let Some(n) = current {
        if !is_comment(lang, n.kind()) && n.kind() != "attribute_item" {
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

fn locate_python<'t>(
    tree: &'t Tree,
    text: &str,
    selection: &Selection<'t>,
) -> Result<Target<'t>, RefactorError> {
    let mut current = Some(selection.block);
    let mut function = None;
    while let Some(node) = current {
        match node.kind() {
            "function_definition" => {
                function = Some(node);
                break;
            }
            "class_definition" => {
                let name = node
                    .child_by_field_name("name")
                    .map_or("", |n| node_text(n, text));
                return Err(refuse(
                    selection.first_line + 1,
                    format!(
                        "lines {} are in the body of class `{name}` (line {}), not in a function; extract function takes statements of a function or of module-level code",
                        selection_lines(selection),
                        line_of(node)
                    ),
                ));
            }
            _ => current = node.parent(),
        }
    }
    let Some(function) = function else {
        return Ok(module_level(tree, text, selection));
    };
    let outer = function
        .parent()
        .filter(|p| p.kind() == "decorated_definition")
        .unwrap_or(function);
    let function_name = function
        .child_by_field_name("name")
        .map_or("", |n| node_text(n, text))
        .to_string();
    let mut scope = outer.parent();
    while let Some(node) = scope {
        if matches!(
            node.kind(),
            "function_definition" | "class_definition" | "module"
        ) {
            break;
        }
        scope = node.parent();
    }
    let first_parameter = function
        .child_by_field_name("parameters")
        .and_then(|p| p.named_child(0))
        .and_then(|p| match p.kind() {
            "identifier" => Some(p),
            "typed_parameter" => p.named_child(0).filter(|n| n.kind() == "identifier"),
            "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
            _ => None,
        })
        .map(|n| node_text(n, text).to_string());
    let decorators: Vec<&str> = outer
        .children(&mut outer.walk())
        .filter(|c| c.kind() == "decorator")
        .map(|d| node_text(d, text).trim_start_matches('@').trim())
        .collect();
    let mut target = Target {
        function: Some(function),
        function_name,
        region: function,
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
        placement: after(outer, text),
        indent: indentation_at(text, outer.start_byte()).to_string(),
        blank_lines: 1,
    };
    match scope.map(|s| s.kind()) {
        Some("class_definition") => {
            let class = scope.unwrap_or(function);
            let class_name = qualified_class_name(class, text);
            if decorators.contains(&"classmethod") && first_parameter.is_some() {
                target.decorator = Some("@classmethod");
                target.receiver.clone_from(&first_parameter);
            } else if decorators.contains(&"staticmethod") || first_parameter.is_none() {
                target.decorator = Some("@staticmethod");
                target.call_prefix = format!("{class_name}.");
            } else {
                target.receiver.clone_from(&first_parameter);
            }
            if let Some(receiver) = &target.receiver {
                target.call_prefix = format!("{receiver}.");
            }
            target.receiver_name.clone_from(&target.receiver);
            target.owner = Owner::Class { class_name };
        }
        Some("function_definition") => target.owner = Owner::Function,
        _ => {}
    }
    let default_gap = if outer.parent().is_some_and(|p| p.kind() == "module") {
        2
    } else {
        1
    };
    target.blank_lines = observed_gap(Language::Python, outer, text).unwrap_or(default_gap);
    Ok(target)
}

/// `Outer.Inner` for a class nested in class bodies: how a method reaches it by name.
fn qualified_class_name(class: Node<'_>, text: &str) -> String {
    let mut parts = Vec::new();
    let mut current = Some(class);
    while let Some(node) = current {
        parts.push(
            node.child_by_field_name("name")
                .map_or("", |n| node_text(n, text)),
        );
        // class_definition < block < class_definition (possibly through decorated_definition)
        let mut parent = node.parent();
        if parent.is_some_and(|p| p.kind() == "decorated_definition") {
            parent = parent.and_then(|p| p.parent());
        }
        current = parent
            .filter(|p| p.kind() == "block")
            .and_then(|b| b.parent())
            .filter(|p| p.kind() == "class_definition");
    }
    parts.reverse();
    parts.join(".")
}

/// Python code at module level: the new function is defined at column 0 right before the
/// top-level statement holding the selection (with the comments above it), so it exists when
/// the call runs.
fn module_level<'t>(tree: &'t Tree, text: &str, selection: &Selection<'t>) -> Target<'t> {
    let first = selection
        .statements
        .first()
        .copied()
        .unwrap_or(selection.block);
    let mut top = first;
    while let Some(parent) = top.parent() {
        if parent.kind() == "module" {
            break;
        }
        top = parent;
    }
    let trivia = leading_trivia_start(Language::Python, top, text);
    let line_start = |offset: usize| text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let at = line_start(trivia).min(selection.moved.start);
    Target {
        function: None,
        function_name: "<module>".to_string(),
        region: tree.root_node(),
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
    target: &Target<'_>,
    names: &Names,
    name: &str,
) -> Result<(), RefactorError> {
    if let Some((line, what)) = existing_definition(lang, tree, text, target, name) {
        return Err(RefactorError::InvalidArgument {
            param: "new_name",
            message: format!(
                "`{name}` already exists here: {what} at line {line}; pick another name for the new function"
            ),
        });
    }
    if !target.call_prefix.is_empty() {
        return Ok(());
    }
    // A plain call `name()` would find a local of that name first.
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
            message: format!(
                "`{name}` is already a variable{of} (bound at line {}): the call `{name}()` would use it instead of the new function; pick another name",
                local.line
            ),
        });
    }
    Ok(())
}

/// A definition named `name` in the scope the new function joins: (line, description).
fn existing_definition(
    lang: Language,
    tree: &Tree,
    text: &str,
    target: &Target<'_>,
    name: &str,
) -> Option<(usize, String)> {
    match (lang, &target.owner) {
        (Language::Rust, Owner::Impl { type_name } | Owner::TraitImpl { type_name, .. }) => {
            let mut found = None;
            walk_tree(tree, |node| {
                if found.is_some() {
                    return false;
                }
                let body = node.child_by_field_name("body").filter(|_| {
                    node.kind() == "impl_item"
                        && node.child_by_field_name("trait").is_none()
                        && impl_type_key(node, text) == *type_name
                });
                if let Some(body) = body {
                    found = rust_items_named(body, text, name);
                }
                true
            });
            found
        }
        (Language::Rust, Owner::Trait { .. }) => {
            let container = target.function.and_then(|f| f.parent())?;
            rust_items_named(container, text, name)
        }
        (Language::Rust, _) => {
            let container = target.function.and_then(|f| f.parent())?;
            rust_items_named(container, text, name)
        }
        (Language::Python, _) => {
            let scope = match target.function {
                None => tree.root_node(),
                Some(function) => enclosing_python_scope(function)?,
            };
            python_binding_named(scope, text, name)
        }
    }
}

/// The module, class or function whose namespace a Python `function` is defined in.
fn enclosing_python_scope(function: Node<'_>) -> Option<Node<'_>> {
    let mut current = function.parent();
    while let Some(node) = current {
        if matches!(
            node.kind(),
            "function_definition" | "class_definition" | "module"
        ) {
            return Some(node);
        }
        current = node.parent();
    }
    None
}

fn rust_items_named(container: Node<'_>, text: &str, name: &str) -> Option<(usize, String)> {
    let mut cursor = container.walk();
    for item in container.named_children(&mut cursor) {
        match item.kind() {
            "function_item" | "function_signature_item" => {
                if let Some(n) = item
                    .child_by_field_name("name")
                    .filter(|n| node_text(*n, text) == name)
                {
                    return Some((line_of(n), format!("function `{name}`")));
                }
            }
            "const_item" | "static_item" => {
                if let Some(n) = item
                    .child_by_field_name("name")
                    .filter(|n| node_text(*n, text) == name)
                {
                    return Some((
                        line_of(n),
                        format!("`{}` item `{name}`", item.kind().trim_end_matches("_item")),
                    ));
                }
            }
            "use_declaration" => {
                let mut hit = None;
                crate::lang::walk_node(item, |n| {
                    if hit.is_none()
                        && n.kind() == "identifier"
                        && node_text(n, text) == name
                        && imports_name(n)
                    {
                        hit = Some(line_of(n));
                    }
                    hit.is_none()
                });
                if let Some(line) = hit {
                    return Some((line, format!("the import of `{name}`")));
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether an identifier of a `use` declaration is a name it brings into scope (not a path
/// segment before `::`).
fn imports_name(identifier: Node<'_>) -> bool {
    let Some(parent) = identifier.parent() else {
        return false;
    };
    match parent.kind() {
        "use_list" | "use_declaration" => true,
        "use_as_clause" => parent
            .child_by_field_name("alias")
            .is_some_and(|n| n.id() == identifier.id()),
        // `use a::b::c` brings `c`: the name of the whole path, not of a prefix of it.
        "scoped_identifier" => {
            parent
                .child_by_field_name("name")
                .is_some_and(|n| n.id() == identifier.id())
                && parent
                    .parent()
                    .is_some_and(|g| matches!(g.kind(), "use_list" | "use_declaration"))
        }
        _ => false,
    }
}

/// A name bound directly in the Python `scope` (a definition, an import, an assignment, a
/// parameter): the new function would replace it.
fn python_binding_named(scope: Node<'_>, text: &str, name: &str) -> Option<(usize, String)> {
    // A binding of `name` is an occurrence of the word: none in the scope, nothing to collect
    // (the scope may be the whole module).
    if crate::lang::calls::word_matches(node_text(scope, text), name).is_empty() {
        return None;
    }
    let names = Names::collect(Language::Python, scope, text);
    let binding = names
        .bindings_of(name)
        .find(|o| o.scope == scope.byte_range())?;
    let node = scope.descendant_for_byte_range(binding.pos, binding.pos + binding.name.len());
    let what = match node.and_then(|n| n.parent()).map(|p| p.kind()) {
        Some("function_definition") => format!("function `{name}`"),
        Some("class_definition") => format!("class `{name}`"),
        _ => format!("a binding of `{name}`"),
    };
    Some((binding.line, what))
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
                class_name: "Box".into()
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
