//! Rust's syntax facts: everything candor knows about the Rust grammar lives under this module
//! (its node kinds appear nowhere else). [`Rust`] answers the [`Syntax`] trait; the modules
//! below answer the questions only Rust asks.

pub mod body;
pub mod borrow_root;
pub mod closures;
pub mod elision;
pub mod expr;
pub mod flow;
pub mod generics;
pub mod imports;
pub mod items;
pub mod iterators;
pub mod macros;
pub mod matched;
pub mod members;
pub mod mod_decls;
pub mod names;
pub mod params;
pub mod paths;
pub mod patterns;
pub mod refs;
pub mod statements;
pub mod std_types;
pub mod traits;
pub mod types;
pub mod use_edits;
pub mod uses;

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::Language;
use super::finder::NodeFinder;
use super::names::Occurrence;
use super::params::{ParamList, Unreadable};
use super::syntax::{
    Binding, BlockOwner, BrokenList, Defined, Enclosing, Flow, Function, LocalUse, Owner, Syntax,
};

/// Strict and reserved keywords (2021/2024 editions). `union`, `macro_rules` and `raw` are weak
/// keywords and stay usable as names.
pub const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "false", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut",
    "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type",
    "unsafe", "use", "where", "while", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try",
];

/// Rust's answers to [`Syntax`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Rust;

impl Syntax for Rust {
    fn language(&self) -> Language {
        Language::Rust
    }

    fn line_comment(&self) -> &'static str {
        "//"
    }

    fn comment_markers(&self) -> &'static [&'static str] {
        &["//", "/*"]
    }

    fn is_comment(&self, node: Node<'_>) -> bool {
        statements::is_comment(node)
    }

    fn is_string(&self, node: Node<'_>) -> bool {
        statements::is_string(node)
    }

    fn is_attribute(&self, node: Node<'_>) -> bool {
        statements::is_attribute(node)
    }

    fn is_statement_list(&self, node: Node<'_>) -> bool {
        statements::is_statement_list(node)
    }

    fn inside_delimiters(&self, list: Node<'_>, code: &Range<usize>) -> bool {
        statements::inside_delimiters(list, code)
    }

    fn is_item_container(&self, node: Node<'_>) -> bool {
        statements::is_item_container(node)
    }

    fn is_definition(&self, node: Node<'_>) -> bool {
        statements::is_function(node)
    }

    fn is_item(&self, node: Node<'_>) -> bool {
        statements::is_item(node)
    }

    fn describe(&self, node: Node<'_>, text: &str) -> String {
        statements::describe(node, text)
    }

    fn body_lines(&self, definition: Node<'_>) -> Option<(usize, usize)> {
        statements::body_lines(definition)
    }

    fn is_tail_value(&self, block: Node<'_>, last: Node<'_>) -> bool {
        statements::is_tail_value(block, last)
    }

    fn line_in_block(
        &self,
        block: Node<'_>,
        line: &Range<usize>,
        _text: &str,
        _statement_indent: usize,
    ) -> bool {
        line.start >= block.start_byte() && line.end <= block.end_byte()
    }

    fn enclosing_block<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        statements::enclosing_block(node)
    }

    fn block_owner(&self, block: Node<'_>) -> BlockOwner {
        statements::block_owner(block)
    }

    fn is_docstring(&self, _block: Node<'_>, _statement: Node<'_>) -> bool {
        false
    }

    fn diverges(&self, statement: Node<'_>, text: &str) -> bool {
        statements::diverges(statement, text)
    }

    fn control_flow<'t>(&self, statement: Node<'t>, text: &str) -> Vec<Flow<'t>> {
        statements::control_flow(statement, text)
    }

    fn enclosing<'t>(&self, node: Node<'t>) -> Enclosing<'t> {
        items::enclosing(node)
    }

    fn function<'t>(&self, node: Node<'t>, text: &str) -> Function<'t> {
        items::function(node, text)
    }

    fn unsafe_block_line(&self, node: Node<'_>, function: Node<'_>) -> Option<usize> {
        items::unsafe_block_line(node, function)
    }

    fn inherent_impl_header(&self, impl_node: Node<'_>, text: &str) -> Result<String, String> {
        items::inherent_impl_header(impl_node, text)
    }

    fn owner_node<'t>(&self, function: Node<'t>) -> Option<Node<'t>> {
        items::owner_node(function)
    }

    fn defines_type(&self, tree: &Tree, text: &str, name: &str) -> bool {
        items::defines_type(tree, text, name)
    }

    fn definition_named(
        &self,
        tree: &Tree,
        text: &str,
        owner: &Owner,
        function: Option<Node<'_>>,
        name: &str,
    ) -> Option<(usize, Defined)> {
        items::definition_named(tree, text, owner, function, name)
    }

    fn occurrences(&self, region: Node<'_>, text: &str) -> Vec<Occurrence> {
        let mut out = Vec::new();
        names::collect_rust(region, text, &mut out);
        out
    }

    fn call_at<'t>(&self, finder: &mut NodeFinder<'t>, range: &Range<usize>) -> Option<Node<'t>> {
        finder.exact(range, "call_expression")
    }

    fn function_named<'t>(&self, tree: &'t Tree, name_range: &Range<usize>) -> Option<Node<'t>> {
        items::function_named(tree, name_range)
    }

    fn parameter_list(
        &self,
        list: Node<'_>,
        text: &str,
        _receiver: bool,
    ) -> Result<ParamList, Unreadable> {
        params::read_list(list, text)
    }

    fn read_written_list(&self, inner: &str) -> Result<ParamList, BrokenList> {
        let wrapped = format!("fn probe({inner}) {{}}\n");
        crate::lang::params::read_written(
            Language::Rust,
            &wrapped,
            inner,
            9,
            params::read_list,
            params::explain_written,
        )
    }

    fn import_alias(&self, node: Node<'_>, text: &str) -> Option<String> {
        imports::alias_of(node, text)
    }

    fn variable_lines(&self, node: Node<'_>, text: &str, name: &str) -> Vec<usize> {
        names::variable_lines(node, text, name)
    }

    fn top_level_bindings(&self, tree: &Tree, text: &str) -> Vec<Binding> {
        imports::top_level_bindings(tree, text)
    }

    fn local_use(&self, region: Node<'_>, at: usize, text: &str) -> LocalUse {
        flow::local_use(region, at, text)
    }

    fn always_runs(&self, node: Node<'_>, statement: Node<'_>) -> bool {
        flow::always_runs(node, statement)
    }

    fn loop_around<'t>(&self, node: Node<'t>, within: Node<'t>) -> Option<Node<'t>> {
        flow::loop_around(node, within)
    }

    fn is_return(&self, statement: Node<'_>) -> bool {
        flow::is_return(statement)
    }

    fn binding_is_mutable(&self, region: Node<'_>, at: usize) -> bool {
        flow::binding_is_mutable(region, at)
    }

    fn binds_item(&self, region: Node<'_>, at: usize) -> bool {
        flow::binds_item(region, at)
    }
}
