//! The syntax facts every language answers: the one trait a refactor asks about code, so that
//! it never spells a grammar node kind itself. `lang::rust` and `lang::python` implement it
//! ([`Language::syntax`]); facts only one language has (Rust's module tree, Python's packages)
//! are plain functions of that language's module. Pure: syntax trees and text in, facts out;
//! never a message for the user (the refactors word those).

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::Language;
use super::finder::NodeFinder;
use super::names::Occurrence;
pub use super::params::BrokenList;
use super::params::{ParamList, Unreadable};

/// What holds a function definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// A file, a Rust `mod`, or Python module-level code.
    Module,
    /// A Rust inherent `impl` of a type (`type_name` is the last segment: `Foo` for
    /// `impl<T> m::Foo<T>`).
    Impl { type_name: String },
    /// A Rust `impl Trait for Type`.
    TraitImpl {
        type_name: String,
        trait_name: String,
    },
    /// A Rust trait (a provided or required method).
    Trait { trait_name: String },
    /// A Python class; `qualified` reaches a nested class from the module (`Outer.Inner`).
    Class { name: String, qualified: String },
    /// The body of another function (a nested function).
    Function,
}

/// The first parameter of a method that receives the instance or the class.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Receiver {
    /// As written: `&self`, `&'a mut self`, `self: Box<Self>`; Python's `self`, `cls`, `this`.
    pub written: String,
    /// The name it binds (`self`, `cls`).
    pub name: String,
    /// Rust: the method takes `self` by value (`self`, `mut self`, `self: Box<Self>`).
    pub by_value: bool,
    /// Python: a `@classmethod`'s class parameter.
    pub class: bool,
}

/// What a language says about one function definition.
#[derive(Debug, Clone)]
pub struct Function<'t> {
    /// The definition node.
    pub node: Node<'t>,
    /// The node that stands for it among its siblings (with its decorators, in Python).
    pub outer: Node<'t>,
    pub name: String,
    pub owner: Owner,
    /// The receiver, when the function has one (a Python method's first parameter unless it is
    /// a `@staticmethod`).
    pub receiver: Option<Receiver>,
    /// The first parameter's name (Python), whatever it is.
    pub first_parameter: Option<String>,
    /// Decorators as written after `@` (Python).
    pub decorators: Vec<String>,
    /// The test harness calls it (Rust: `#[test]`, `#[bench]`, `#[tokio::test]`…): it can take
    /// no arguments.
    pub is_test: bool,
    pub is_async: bool,
    pub is_unsafe: bool,
    pub is_const: bool,
    /// Rust: the names of the type parameters it declares itself (not lifetimes, not consts).
    pub type_parameters: Vec<String>,
    /// Rust: it declares a return type other than `()`.
    pub returns_value: bool,
    pub parameters: Option<Node<'t>>,
    pub body: Option<Node<'t>>,
}

/// Where a node sits with respect to functions, looking up from it.
#[derive(Debug, Clone, Copy)]
pub enum Enclosing<'t> {
    /// Inside the body of this function (the innermost).
    Function(Node<'t>),
    /// At the top level of the file (Python module-level code).
    Module,
    /// In the body of a Python class, not in a method: (class name node, class node).
    ClassBody(Node<'t>),
    /// Where only items live, or in an item's initializer (Rust): no function around.
    Item,
}

/// What a statement does to the control flow of the function it is in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlowKind {
    /// `return` leaves the function.
    Return,
    /// `break` or `continue`: `target` is the loop (or labelled block) it leaves or repeats.
    Break,
    Continue,
    /// Rust `?` returns early from the function.
    Try,
    /// `await`, `async for`, `async with`: the function must be `async`.
    Await,
    /// Python `yield` makes the function a generator.
    Yield,
    /// Python `nonlocal`.
    Nonlocal,
}

/// One control-flow construct met in a statement.
#[derive(Debug, Clone)]
pub struct Flow<'t> {
    pub kind: FlowKind,
    pub node: Node<'t>,
    /// Start of the innermost function, closure, lambda, class or async block around the node
    /// (below the walked statement's function): flow inside it stays inside it.
    pub boundary: Option<usize>,
    /// `break`/`continue`: the loop or labelled block they target, unless a boundary (or
    /// nothing) comes first.
    pub target: Option<Node<'t>>,
    /// `break 'label` / `continue 'label`.
    pub label: Option<String>,
}

impl<'t> Flow<'t> {
    /// A construct of `kind` at `node`; `is_boundary` tells the nodes flow cannot cross.
    pub fn at(kind: FlowKind, node: Node<'t>, is_boundary: impl Fn(Node<'t>) -> bool) -> Flow<'t> {
        Flow {
            kind,
            node,
            boundary: super::ancestors(node)
                .find(|n| is_boundary(*n))
                .map(|b| b.start_byte()),
            target: None,
            label: None,
        }
    }
}

/// How one use of a local variable treats its value: what a new function's parameter must be
/// for the use to mean the same (Rust: by value, `&` or `&mut`). Python answers
/// [`UseKind::Value`] for every use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UseKind {
    /// Read through a reference: an operand of a comparison, an argument of a formatting macro.
    Read,
    /// The base of a field access or an index (`x.f`, `x[i]`, `x.0`), read.
    Place,
    /// The receiver of a method call (`x.m(..)`) or a called closure (`x(..)`): it may be
    /// borrowed mutably.
    MethodCall,
    /// `&x`, `&x.f`.
    Borrow,
    /// `&mut x`, `&mut x.f`, `&mut x[i]`.
    BorrowMut,
    /// `x = ..`, `x += ..`.
    Assign,
    /// `x.f = ..`, `x[i] += ..`: mutated through a field or an index.
    AssignThrough,
    /// Used as a value: moved (or copied) into an argument, an operand, a binding; also a token
    /// of a macro that is not a formatting one.
    Value,
    /// `{x}` in a format string: read through a reference.
    Capture,
    /// The value a `match` looks at: read, and matched through a reference as well.
    Scrutinee,
}

/// One use of a local variable (see [`Syntax::local_use`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalUse {
    pub kind: UseKind,
    /// Rust `S { x }`: the name is also the field's.
    pub shorthand: bool,
}

/// What a block of statements belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockOwner {
    /// The body of a function.
    FunctionBody,
    /// A loop body.
    Loop,
    /// An `if` without an `else`.
    IfWithoutElse,
    Other,
}

/// A name a file binds at its top level: an import or a definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    pub name: String,
    /// Offset of the statement or item that binds it.
    pub offset: usize,
    pub imported: bool,
    /// Rust: whether a definition is visible outside its module (`pub` of any kind).
    pub public: bool,
    /// Rust: it binds a module or crate name only (`mod m;`, `extern crate c;`), which lives
    /// apart from functions, constants and statics of the same name.
    pub module: bool,
}

/// A definition found in a scope by its name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Defined {
    Function,
    Class,
    /// A Rust `const` or `static` item (the word).
    Item(&'static str),
    Import,
    /// Any other binding (an assignment, a parameter).
    Binding,
}

/// The syntax facts of one language. Methods take nodes of a tree of that language.
pub trait Syntax: Sync {
    fn language(&self) -> Language;

    // -- comments, strings, attributes ------------------------------------------------------

    /// The line-comment marker (`//`, `#`).
    fn line_comment(&self) -> &'static str;
    /// What may start a comment after code on a line.
    fn comment_markers(&self) -> &'static [&'static str];
    fn is_comment(&self, node: Node<'_>) -> bool;
    /// A string literal, whose inner lines are content, not code.
    fn is_string(&self, node: Node<'_>) -> bool;
    /// A Rust attribute that applies to the statement or item after it (`#[allow(x)]`).
    fn is_attribute(&self, node: Node<'_>) -> bool;

    // -- statements -------------------------------------------------------------------------

    /// A list of statements a refactor can take some of (a block, a module).
    fn is_statement_list(&self, node: Node<'_>) -> bool;
    /// Whether `code` lies inside the delimiters of the statement list `list`.
    fn inside_delimiters(&self, list: Node<'_>, code: &Range<usize>) -> bool;
    /// Where only items live (a Rust file, `impl` or trait body), not statements.
    fn is_item_container(&self, node: Node<'_>) -> bool;
    /// A function or class definition.
    fn is_definition(&self, node: Node<'_>) -> bool;
    /// A definition that sits between items (functions, types, impls, modules, macros): what
    /// generated code keeps its spacing from.
    fn is_item(&self, node: Node<'_>) -> bool;
    /// A short name of a statement for messages: "`if`", "`for` loop", "function `f`".
    fn describe(&self, node: Node<'_>, text: &str) -> String;
    /// The 1-based first and last line of a definition's body that hold its statements.
    fn body_lines(&self, definition: Node<'_>) -> Option<(usize, usize)>;
    /// Whether `last`, a statement of `block`, is the value the block evaluates to (a Rust tail
    /// expression).
    fn is_tail_value(&self, block: Node<'_>, last: Node<'_>) -> bool;
    /// Whether a line (`line`, its byte range) next to the statements of `block` belongs to
    /// that block: inside its braces (Rust), indented at least as its statements, which start
    /// at `statement_indent` columns (Python).
    fn line_in_block(
        &self,
        block: Node<'_>,
        line: &Range<usize>,
        text: &str,
        statement_indent: usize,
    ) -> bool;
    /// The innermost block (or module) holding `node`.
    fn enclosing_block<'t>(&self, node: Node<'t>) -> Option<Node<'t>>;
    /// What `block` belongs to.
    fn block_owner(&self, block: Node<'_>) -> BlockOwner;
    /// Whether `statement` is the docstring of the function whose body is `block`.
    fn is_docstring(&self, block: Node<'_>, statement: Node<'_>) -> bool;
    /// Whether the statement never completes: it panics or exits.
    fn diverges(&self, statement: Node<'_>, text: &str) -> bool;
    /// The control flow met in `statement` (functions and classes inside it are not entered).
    fn control_flow<'t>(&self, statement: Node<'t>, text: &str) -> Vec<Flow<'t>>;

    // -- functions --------------------------------------------------------------------------

    /// What encloses `node`, looking up for a function.
    fn enclosing<'t>(&self, node: Node<'t>) -> Enclosing<'t>;
    /// The facts of the function definition `node`.
    fn function<'t>(&self, node: Node<'t>, text: &str) -> Function<'t>;
    /// The line of an `unsafe` block around `node` inside `function`.
    fn unsafe_block_line(&self, node: Node<'_>, function: Node<'_>) -> Option<usize>;
    /// The header of an inherent impl matching the trait impl `impl_node` (`impl<T> Foo<T>`),
    /// or, when there can be none (a blanket impl, a type that is not a path), the type as
    /// written.
    fn inherent_impl_header(&self, impl_node: Node<'_>, text: &str) -> Result<String, String>;
    /// The impl (or trait) node owning a method, and the type text it is for.
    fn owner_node<'t>(&self, function: Node<'t>) -> Option<Node<'t>>;
    /// Whether the file defines a type called `name`.
    fn defines_type(&self, tree: &Tree, text: &str, name: &str) -> bool;
    /// A definition called `name` that a new function next to `function` (or in the module,
    /// when `None`) would clash with, and its 1-based line.
    fn definition_named(
        &self,
        tree: &Tree,
        text: &str,
        owner: &Owner,
        function: Option<Node<'_>>,
        name: &str,
    ) -> Option<(usize, Defined)>;

    // -- parameter lists --------------------------------------------------------------------

    /// The parameter list `list` of a function as written; `receiver` says whether a Python
    /// method's first parameter is its receiver.
    fn parameter_list(
        &self,
        list: Node<'_>,
        text: &str,
        receiver: bool,
    ) -> Result<ParamList, Unreadable>;
    /// A parameter list as a user writes it, `inner` being what goes between the parentheses.
    fn read_written_list(&self, inner: &str) -> Result<ParamList, BrokenList>;

    // -- names and calls --------------------------------------------------------------------

    /// Every occurrence of a name in `region` (see [`crate::lang::names`]).
    fn occurrences(&self, region: Node<'_>, text: &str) -> Vec<Occurrence>;
    /// The call node spanning exactly `range`.
    fn call_at<'t>(&self, finder: &mut NodeFinder<'t>, range: &Range<usize>) -> Option<Node<'t>>;
    /// The identifier spanning exactly `range`.
    fn identifier_at<'t>(
        &self,
        finder: &mut NodeFinder<'t>,
        range: &Range<usize>,
    ) -> Option<Node<'t>> {
        finder.exact(range, "identifier")
    }
    /// The names a file binds at its top level: imports and definitions.
    fn top_level_bindings(&self, tree: &Tree, text: &str) -> Vec<Binding>;
    /// The alias an import gives the name `node`, when it is not the alias itself.
    fn import_alias(&self, node: Node<'_>, text: &str) -> Option<String>;
    /// The lines of the variables spelled `name` under `node` (not attribute or keyword names).
    fn variable_lines(&self, node: Node<'_>, text: &str, name: &str) -> Vec<usize>;
    /// The function definition whose name is at `name_range`.
    fn function_named<'t>(&self, tree: &'t Tree, name_range: &Range<usize>) -> Option<Node<'t>>;

    // -- data flow (what a new function receives and returns) -------------------------------

    /// How the use of a local whose name starts at byte `at` under `region` treats the value
    /// (a `{name}` capture's byte is inside its format string).
    fn local_use(&self, region: Node<'_>, at: usize, text: &str) -> LocalUse;
    /// Whether `node` is evaluated every time `statement`, one of its ancestors, completes
    /// normally: no branch, loop body, handler, closure or short-circuit between the two.
    fn always_runs(&self, node: Node<'_>, statement: Node<'_>) -> bool;
    /// The innermost loop around `node` that lies inside `within`.
    fn loop_around<'t>(&self, node: Node<'t>, within: Node<'t>) -> Option<Node<'t>>;
    /// Whether `statement` is a `return` statement (with or without a value).
    fn is_return(&self, statement: Node<'_>) -> bool;
    /// Whether the binding whose name starts at byte `at` under `region` is declared mutable
    /// (Rust `mut`; every Python binding is).
    fn binding_is_mutable(&self, region: Node<'_>, at: usize) -> bool;
    /// Whether the binding whose name starts at byte `at` under `region` names an item (a
    /// nested Rust `fn`, `const`, type or `use`) rather than a variable.
    fn binds_item(&self, region: Node<'_>, at: usize) -> bool;
}
