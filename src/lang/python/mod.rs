//! Python's syntax facts: everything candor knows about the Python grammar lives under this
//! module (its node kinds appear nowhere else). [`Python`] answers the [`Syntax`] trait; the
//! modules below answer the questions only Python asks.

pub mod body;
pub mod definitions;
pub mod errors;
pub mod flow;
pub mod import_bindings;
pub mod imports;
pub mod modules;
pub mod names;
pub mod params;
pub mod refs;
pub mod statements;

use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::Language;
use super::finder::NodeFinder;
use super::names::Occurrence;
use super::params::{ParamList, Unreadable};
use super::syntax::{
    Binding, BlockOwner, BrokenList, Defined, Enclosing, Flow, Function, LocalUse, Owner, Syntax,
    UseKind,
};

/// Hard keywords. Soft keywords (`match`, `case`, `type`, `_`) stay usable as names.
pub const KEYWORDS: &[&str] = &[
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue",
    "def", "del", "elif", "else", "except", "finally", "for", "from", "global", "if", "import",
    "in", "is", "lambda", "nonlocal", "not", "or", "pass", "raise", "return", "try", "while",
    "with", "yield",
];

/// Python's answers to [`Syntax`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Python;

impl Syntax for Python {
    fn language(&self) -> Language {
        Language::Python
    }

    fn line_comment(&self) -> &'static str {
        "#"
    }

    fn comment_markers(&self) -> &'static [&'static str] {
        &["#"]
    }

    fn is_comment(&self, node: Node<'_>) -> bool {
        statements::is_comment(node)
    }

    fn is_string(&self, node: Node<'_>) -> bool {
        statements::is_string(node)
    }

    fn is_attribute(&self, _node: Node<'_>) -> bool {
        false
    }

    fn is_statement_list(&self, node: Node<'_>) -> bool {
        statements::is_statement_list(node)
    }

    fn inside_delimiters(&self, _list: Node<'_>, _code: &Range<usize>) -> bool {
        true
    }

    fn is_item_container(&self, _node: Node<'_>) -> bool {
        false
    }

    fn is_definition(&self, node: Node<'_>) -> bool {
        statements::is_definition(node)
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

    fn is_tail_value(&self, _block: Node<'_>, _last: Node<'_>) -> bool {
        false
    }

    fn line_in_block(
        &self,
        _block: Node<'_>,
        line: &Range<usize>,
        text: &str,
        statement_indent: usize,
    ) -> bool {
        statements::line_in_block(line, text, statement_indent)
    }

    fn enclosing_block<'t>(&self, node: Node<'t>) -> Option<Node<'t>> {
        statements::enclosing_block(node)
    }

    fn block_owner(&self, block: Node<'_>) -> BlockOwner {
        statements::block_owner(block)
    }

    fn is_docstring(&self, block: Node<'_>, statement: Node<'_>) -> bool {
        statements::is_docstring(block, statement)
    }

    fn diverges(&self, _statement: Node<'_>, _text: &str) -> bool {
        false
    }

    fn control_flow<'t>(&self, statement: Node<'t>, _text: &str) -> Vec<Flow<'t>> {
        statements::control_flow(statement)
    }

    fn enclosing<'t>(&self, node: Node<'t>) -> Enclosing<'t> {
        definitions::enclosing(node)
    }

    fn function<'t>(&self, node: Node<'t>, text: &str) -> Function<'t> {
        definitions::function(node, text)
    }

    fn unsafe_block_line(&self, _node: Node<'_>, _function: Node<'_>) -> Option<usize> {
        None
    }

    fn inherent_impl_header(&self, _impl_node: Node<'_>, _text: &str) -> Result<String, String> {
        Err(String::new())
    }

    fn owner_node<'t>(&self, _function: Node<'t>) -> Option<Node<'t>> {
        None
    }

    fn defines_type(&self, _tree: &Tree, _text: &str, _name: &str) -> bool {
        true
    }

    fn definition_named(
        &self,
        tree: &Tree,
        text: &str,
        _owner: &Owner,
        function: Option<Node<'_>>,
        name: &str,
    ) -> Option<(usize, Defined)> {
        definitions::definition_named(tree, text, function, name)
    }

    fn occurrences(&self, region: Node<'_>, text: &str) -> Vec<Occurrence> {
        let mut out = Vec::new();
        names::collect_python(region, text, &mut out);
        out
    }

    fn call_at<'t>(&self, finder: &mut NodeFinder<'t>, range: &Range<usize>) -> Option<Node<'t>> {
        finder.exact(range, "call")
    }

    fn function_named<'t>(&self, tree: &'t Tree, name_range: &Range<usize>) -> Option<Node<'t>> {
        body::function_named(tree, name_range)
    }

    fn parameter_list(
        &self,
        list: Node<'_>,
        text: &str,
        receiver: bool,
    ) -> Result<ParamList, Unreadable> {
        params::read_list(list, text, receiver)
    }

    fn read_written_list(&self, inner: &str) -> Result<ParamList, BrokenList> {
        let wrapped = format!("def probe({inner}):\n    pass\n");
        crate::lang::params::read_written(
            Language::Python,
            &wrapped,
            inner,
            10,
            |l, t| params::read_list(l, t, false),
            |unreadable| format!("`{}` is not a parameter", unreadable.text),
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

    fn local_use(&self, _region: Node<'_>, _at: usize, _text: &str) -> LocalUse {
        LocalUse {
            kind: UseKind::Value,
            shorthand: false,
        }
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

    fn binding_is_mutable(&self, _region: Node<'_>, _at: usize) -> bool {
        true
    }

    fn binds_item(&self, _region: Node<'_>, _at: usize) -> bool {
        false
    }
}
