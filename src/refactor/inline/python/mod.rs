//! Inline function for Python. A call that is a whole statement (`f(x)`, `y = f(x)`,
//! `y += f(x)`, `return f(x)`) becomes one assignment per parameter followed by the body at the
//! statement's indentation, its final `return v` turned into `y = v` / `return v` / `v`. A call
//! inside a larger expression is inlined only when the body is a single `return expr`: the
//! parameters are bound in statements before the enclosing statement and the call becomes
//! `(expr)`. Refused (with the reason): `*args`/`**kwargs`, generators, `global`/`nonlocal`,
//! early returns, decorators that change the function, calls in lambdas and comprehensions.
//! The syntax facts come from `lang::python`; this module decides and [`paste`] writes.

mod paste;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use tree_sitter::Node;

use super::wording as w;
use super::{Callee, Facts, Inlined, Owner, Parsed, RefVerdict};
use crate::edit::TextEdit;
use crate::lang::Language;
use crate::lang::calls::{CallForm, CallSite, Reference, ReferenceKind, TextMention, text_mention};
use crate::lang::finder::NodeFinder;
use crate::lang::locals::Locals;
use crate::lang::python::body::{self as py_body, Param, TailReturn};
use crate::lang::python::definitions;
use crate::lang::python::imports::{self as py_imports, ImportShape};
use crate::lang::python::modules::{import_names_module, module_parts};
use crate::lang::python::names::{self as py_names, InString, MentionShape};
use crate::lang::symbols::{Symbol, SymbolKind};
use crate::refactor::{Finding, RefactorError};
use crate::text::surgery::{
    ends_its_line, line_content_end, line_start, remove_item_lines, starts_its_line,
};

/// Decorators that do not change what calling the function does.
const HARMLESS_DECORATORS: &[&str] = &[
    "staticmethod",
    "classmethod",
    "override",
    "typing.override",
    "typing_extensions.override",
    "final",
    "typing.final",
    "typing_extensions.final",
];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    Free,
    /// A function defined inside another function: callable only within `scope`.
    Nested {
        scope: Range<usize>,
    },
    Method {
        class: String,
        first: First,
    },
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum First {
    /// An instance method; the name of its `self` parameter.
    Instance(String),
    /// A `@classmethod`; the name of its `cls` parameter.
    Class(String),
    Static,
}

pub(super) struct PythonCallee<'a> {
    def: &'a Parsed<'a>,
    symbol: &'a Symbol,
    name: String,
    kind: Kind,
    params: Vec<Param>,
    /// The body's statements after the docstring; `None` when there are none.
    body: Option<Range<usize>>,
    tail_returns: Vec<TailReturn>,
    /// Statements at the end of a path through the body that are not returns: after them the
    /// function returns `None`. Byte offset where a line may be added after each.
    fallthrough: Vec<(usize, String)>,
    /// The value of the body when it is a single `return value` statement.
    single_return: Option<Range<usize>>,
    /// Multi-line string literals of the body (their inner lines are content).
    protected: Vec<Range<usize>>,
    /// Names the body itself assigns (parameters not included unless reassigned).
    body_bound: BTreeSet<String>,
    /// Names the body reads without binding them.
    free: BTreeSet<String>,
    /// Line of a zero-argument `super()` or a `__private` name: only sound inside the class.
    class_bound: Option<usize>,
    /// Names defined or imported at the top of the definition's module.
    module_names: BTreeSet<String>,
    /// The definition's module name (`utils` for `pkg/utils.py`, `pkg` for `pkg/__init__.py`).
    module: Vec<String>,
    /// Nothing but the end of its block follows the definition.
    last_in_container: bool,
    /// The enclosing block is left with nothing but this definition.
    container_emptied: bool,
    /// The module defines another top-level function of this name.
    defined_twice: bool,
    /// Where the parameters and the names the body assigns occur in the body (to rename them).
    own_ranges: BTreeMap<String, Vec<Range<usize>>>,
    /// Those of them a nested scope of the body binds again: never renamed.
    rebound: BTreeSet<String>,
    /// Every name the body reads or binds (a fresh name must be none of them).
    body_names: BTreeSet<String>,
}

fn error(message: impl Into<String>) -> RefactorError {
    RefactorError::Unsupported(message.into())
}

/// The decorators, each refused unless harmless, in order.
fn check_decorators(func: Node<'_>, text: &str, name: &str) -> Result<Vec<String>, RefactorError> {
    let mut decorators = Vec::new();
    for (decorator, line) in definitions::decorators_with_lines(func, text) {
        if !HARMLESS_DECORATORS.contains(&decorator.as_str()) {
            return Err(error(w::python_decorated(name, &decorator, line)));
        }
        decorators.push(decorator);
    }
    Ok(decorators)
}

/// What kind of function it is; a method loses its first parameter to its receiver.
fn kind_of(
    symbols: &[Symbol],
    symbol: &Symbol,
    decorators: &[String],
    params: &mut Vec<Param>,
) -> Result<Kind, RefactorError> {
    let (name, line) = (&symbol.name, symbol.line);
    let container = symbol.container.and_then(|c| symbols.get(c));
    Ok(match container {
        Some(c) if c.kind == SymbolKind::Class => {
            let first = if decorators.iter().any(|d| d == "staticmethod") {
                First::Static
            } else {
                if params.is_empty() {
                    return Err(error(w::python_no_self(name, line)));
                }
                let first = params.remove(0).name;
                if decorators.iter().any(|d| d == "classmethod") {
                    First::Class(first)
                } else {
                    First::Instance(first)
                }
            };
            Kind::Method {
                class: c.name.clone(),
                first,
            }
        }
        Some(c) if c.kind.is_function() => Kind::Nested {
            scope: c.range.clone(),
        },
        _ => Kind::Free,
    })
}

impl<'a> PythonCallee<'a> {
    pub fn analyze(
        def: &'a Parsed<'a>,
        symbols: &'a [Symbol],
        symbol: &'a Symbol,
    ) -> Result<PythonCallee<'a>, RefactorError> {
        let text = def.text();
        let name = symbol.name.clone();
        let line = symbol.line;
        let func = py_body::function_named(&def.tree, &symbol.name_range)
            .ok_or_else(|| error(w::not_in_tree(&name)))?;
        if py_body::is_async(func) {
            return Err(error(w::python_async(&name, line)));
        }
        let outer = definitions::outer(func);
        // `if ...: def f` / `try: ... except: def f`: another branch gives the name another
        // meaning, which the inlined body would silently drop.
        if let Some(at) = py_body::conditional_definition(outer) {
            return Err(error(w::python_conditional_definition(&name, line, at)));
        }
        let decorators = check_decorators(func, text, &name)?;
        let container = symbol.container.and_then(|c| symbols.get(c));
        let is_method = container.is_some_and(|c| c.kind == SymbolKind::Class);
        if is_method && name.starts_with("__") && name.ends_with("__") {
            return Err(error(w::python_special_method(&name, line)));
        }
        let mut params = py_body::parameters(func, text)
            .map_err(|problem| error(w::python_parameters(&name, problem)))?;
        let kind = kind_of(symbols, symbol, &decorators, &mut params)?;
        let block = py_body::body_of(func).ok_or_else(|| error(w::no_body(&name)))?;
        if let Some(blocker) = py_body::blocker(block, text) {
            return Err(error(w::python_blocker(&name, &blocker)));
        }
        let (tail_returns, fallthrough) =
            py_body::tails(block, text).map_err(|at| error(w::early_return(&name, at)))?;
        let rest = py_body::statements_after_docstring(block);
        let body = match (rest.first(), rest.last()) {
            (Some(first), Some(last)) => {
                let end_line = line_content_end(text, last.end_byte());
                Some(first.start_byte()..end_line.max(last.end_byte()))
            }
            _ => None,
        };
        let (protected, class_bound) = py_body::strings_and_class_bound(block, text);
        let mut bound: BTreeSet<String> = params.iter().map(|p| p.name.clone()).collect();
        if let Kind::Method {
            first: First::Instance(s) | First::Class(s),
            ..
        } = &kind
        {
            bound.insert(s.clone());
        }
        let body_bound = py_names::bound_names(block, text);
        bound.extend(body_bound.iter().cloned());
        let read = py_names::read_names(block, text);
        let free: BTreeSet<String> = read
            .iter()
            .filter(|n| !bound.contains(*n))
            .cloned()
            .collect();
        let (own_ranges, rebound) = py_names::variable_ranges(block, text, &bound);
        let body_names: BTreeSet<String> = read.into_iter().chain(bound.iter().cloned()).collect();
        Ok(PythonCallee {
            def,
            symbol,
            kind,
            params,
            body,
            tail_returns,
            fallthrough,
            single_return: py_body::single_return(&rest),
            protected,
            body_bound,
            free,
            class_bound,
            module_names: py_names::module_names(def.tree.root_node(), text),
            module: module_parts(def.path()),
            last_in_container: crate::lang::python::statements::next_statement(outer).is_none(),
            defined_twice: py_body::top_level_functions_named(&def.tree, text, &symbol.name) > 1,
            own_ranges,
            rebound,
            body_names,
            container_emptied: py_body::alone_in_block(outer),
            name,
        })
    }

    fn class_name(&self) -> Option<&str> {
        match &self.kind {
            Kind::Method { class, .. } => Some(class),
            _ => None,
        }
    }

    /// Whether a string whose value is the name (or a dotted path ending in it) can designate
    /// this function: in its own file, in a file that imports it or its module, or as a dotted
    /// path through its module (`"pkg.util.helper"`).
    fn string_may_name_target(
        &self,
        file: &Parsed<'_>,
        facts: &Facts,
        text: &str,
        range: &Range<usize>,
    ) -> bool {
        let before = &text[..range.start];
        let path_start = before
            .rfind(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | ':')))
            .map_or(0, |i| i + 1);
        let prefix = before[path_start..].trim_end_matches(['.', ':']);
        if !prefix.is_empty() {
            let parts: Vec<&str> = prefix.split(['.', ':']).collect();
            return self.module.len() >= parts.len()
                && self.module[self.module.len() - parts.len()..]
                    .iter()
                    .zip(&parts)
                    .all(|(a, b)| a == b);
        }
        file.path() == self.def.path() || facts.plain_is_ours || !facts.module_aliases.is_empty()
    }

    /// Whether the call designates this function, and how; `Err` when it may but the
    /// heuristic cannot tell.
    fn site_kind(
        &self,
        file: &Parsed<'_>,
        facts: &Facts,
        node: Node<'_>,
        call: &CallSite,
    ) -> Result<Option<SiteKind>, String> {
        let text = file.text();
        let name = &self.name;
        match (&self.kind, &call.form) {
            (Kind::Free, CallForm::Plain) => {
                if !facts.plain_is_ours || facts.locals.shadows(node.start_byte()) {
                    return Ok(None);
                }
                if file.path() == self.def.path() && self.defined_twice {
                    return Err(w::defined_twice(name, file.path(), call.line));
                }
                Ok(Some(SiteKind::Function))
            }
            (Kind::Free, CallForm::Method { receiver }) => {
                let receiver = &text[receiver.clone()];
                Ok(facts
                    .module_aliases
                    .iter()
                    .any(|a| a == receiver)
                    .then_some(SiteKind::Function))
            }
            (Kind::Nested { scope }, CallForm::Plain) => Ok((file.path() == self.def.path()
                && scope.contains(&call.range.start))
            .then_some(SiteKind::Function)),
            (Kind::Method { class, .. }, CallForm::Method { receiver }) => {
                let receiver_text = text[receiver.clone()].trim().to_string();
                let in_def_file = file.path() == self.def.path();
                let through_module = receiver_text
                    .strip_suffix(class.as_str())
                    .and_then(|r| r.strip_suffix('.'))
                    .is_some_and(|module| facts.module_aliases.iter().any(|a| a == module));
                if receiver_text == *class || through_module {
                    let visible = in_def_file
                        || through_module
                        || facts.imported.iter().any(|i| i == class || i == "*");
                    if visible {
                        return Ok(Some(SiteKind::ClassQualified));
                    }
                    return Err(w::python_class_not_imported(
                        file.path(),
                        class,
                        self.def.path(),
                        &receiver_text,
                        name,
                        call.line,
                    ));
                }
                let own = in_def_file
                    .then(|| self.own_receiver(node, text, &receiver_text))
                    .flatten();
                if let Some(caller_is_class) = own {
                    return Ok(Some(SiteKind::OwnReceiver {
                        receiver: receiver_text,
                        caller_is_class,
                    }));
                }
                Err(w::python_receiver_type_unknown(
                    &receiver_text,
                    name,
                    call.line,
                    class,
                ))
            }
            _ => Ok(None),
        }
    }

    /// For `receiver.m(...)`: whether `receiver` is the first parameter of the method of the
    /// same class the call is in (and whether that method is a classmethod).
    fn own_receiver(&self, node: Node<'_>, text: &str, receiver: &str) -> Option<bool> {
        let class = self.class_name()?;
        let mut current = py_body::enclosing_function(node);
        while let Some(func) = current {
            if py_body::parameter_names(func, text).contains(receiver) {
                let (caller_class, _) = py_body::class_of_function(func, text)?;
                if caller_class != class
                    || definitions::first_parameter(func, text).as_deref() != Some(receiver)
                {
                    return None;
                }
                let decorators = definitions::decorators(func, text);
                if decorators.iter().any(|d| d == "staticmethod") {
                    return None;
                }
                return Some(decorators.iter().any(|d| d == "classmethod"));
            }
            current = py_body::enclosing_function(func);
        }
        None
    }

    fn import_verdict(&self, file: &Parsed<'_>, node: Node<'_>) -> RefVerdict {
        let name = &self.name;
        let Some((module, shape)) = py_imports::import_at(node, file.text()) else {
            return RefVerdict::Ignore; // `import helper`: a module of that name
        };
        if !import_names_module(module, file.path(), &self.module) || file.path() == self.def.path()
        {
            return RefVerdict::Ignore;
        }
        if !matches!(self.kind, Kind::Free) {
            return RefVerdict::Ignore;
        }
        let line = node.start_position().row + 1;
        match shape {
            ImportShape::Aliased => RefVerdict::Import(Err(w::imported_under_alias(name, line))),
            ImportShape::Item(_) if file.path().ends_with("__init__.py") => {
                RefVerdict::Import(Err(w::python_reexport(file.path(), name, line)))
            }
            ImportShape::Item(edit) => RefVerdict::Import(Ok(edit)),
        }
    }
}

/// How the call designates the function.
enum SiteKind {
    /// `f(...)` or `module.f(...)`.
    Function,
    /// `self.m(...)` in a method of the same class; the caller's receiver name and whether the
    /// caller is a classmethod.
    OwnReceiver {
        receiver: String,
        caller_is_class: bool,
    },
    /// `Class.m(...)`.
    ClassQualified,
}

impl Callee for PythonCallee<'_> {
    fn facts(&self, file: &Parsed<'_>) -> Facts {
        let mut facts = Facts::default();
        let text = file.text();
        facts.locals = Locals::new(Language::Python, &file.tree, text, &self.name);
        let is_def_file = file.path() == self.def.path();
        facts.plain_is_ours = is_def_file;
        if !is_def_file {
            let imports =
                py_imports::from_module(&file.tree, text, file.path(), &self.name, &self.module);
            facts.plain_is_ours =
                imports.name_imported && !py_body::defines_top_level(&file.tree, text, &self.name);
            facts.module_aliases = imports.module_aliases;
            facts.imported = imports.imported;
        }
        if let Some(class) = self.class_name() {
            // Another class defining a method of this name may override it.
            let symbols = crate::lang::symbols::outline(file.lang, &file.tree, text);
            for other in &symbols {
                let is_other_method = other.kind == SymbolKind::Method
                    && other.name == self.name
                    && !(is_def_file && other.range == self.symbol.range);
                if is_other_method {
                    facts.findings.push(Finding::warning(
                        file.path(),
                        other.line,
                        w::python_override(&other.name_path, &self.name, class),
                    ));
                }
            }
        }
        facts
    }

    fn owner_of_call(
        &self,
        file: &Parsed<'_>,
        facts: &Facts,
        call: &CallSite,
        node: Option<Node<'_>>,
    ) -> Owner {
        let Some(node) = node else {
            return Owner::NotOurs;
        };
        Owner::of_site(self.site_kind(file, facts, node, call))
    }

    fn reference(&self, file: &Parsed<'_>, facts: &Facts, reference: &Reference) -> RefVerdict {
        let text = file.text();
        let line = reference.line;
        let name = &self.name;
        match reference.kind {
            ReferenceKind::InComment | ReferenceKind::InString
                if text_mention(Language::Python, text, reference) == TextMention::DocExample =>
            {
                return RefVerdict::Blocking(w::python_doctest(name, line));
            }
            ReferenceKind::InComment => {
                return RefVerdict::Info(w::mentioned_in_comment(name, line));
            }
            ReferenceKind::InString => {
                match py_names::in_string(&file.tree, text, &reference.range) {
                    InString::FString => {
                        return RefVerdict::Blocking(w::python_in_fstring(name, line));
                    }
                    InString::DunderAll if file.path() == self.def.path() => {
                        return RefVerdict::Blocking(w::python_in_all(name, line));
                    }
                    _ => {}
                }
                if text_mention(Language::Python, text, reference) == TextMention::NameString
                    && self.string_may_name_target(file, facts, text, &reference.range)
                {
                    return RefVerdict::Blocking(w::python_name_string(name, line));
                }
                return RefVerdict::Info(w::mentioned_in_string(name, line));
            }
            _ => {}
        }
        let mut finder = NodeFinder::new(&file.tree);
        let Some(node) = file
            .lang
            .syntax()
            .identifier_at(&mut finder, &reference.range)
        else {
            return RefVerdict::Ignore;
        };
        if node.parent().is_none() {
            return RefVerdict::Ignore;
        }
        if reference.kind == ReferenceKind::Import {
            return self.import_verdict(file, node);
        }
        match py_names::mention_shape(node, text) {
            MentionShape::NotAName => return RefVerdict::Ignore,
            MentionShape::Attribute(object) => {
                let ours = match &self.kind {
                    Kind::Method { .. } => true,
                    _ => facts.module_aliases.contains(&object),
                };
                return if ours {
                    RefVerdict::Blocking(w::python_attribute_value(&object, name, line))
                } else {
                    RefVerdict::Ignore
                };
            }
            MentionShape::Plain => {}
        }
        let plain_ours = match &self.kind {
            Kind::Free => facts.plain_is_ours && !facts.locals.shadows(node.start_byte()),
            Kind::Nested { scope } => {
                file.path() == self.def.path() && scope.contains(&reference.range.start)
            }
            Kind::Method { .. } => false,
        };
        if !plain_ours {
            return RefVerdict::Ignore;
        }
        RefVerdict::Blocking(w::python_used(
            name,
            reference.kind == ReferenceKind::Decorator,
            line,
        ))
    }

    fn inline<'t>(
        &self,
        file: &'t Parsed<'_>,
        facts: &Facts,
        call: &CallSite,
        finder: &mut NodeFinder<'t>,
    ) -> Result<Inlined, String> {
        paste::inline(self, file, facts, call, finder)
    }

    fn removal(&self) -> Vec<TextEdit> {
        let text = self.def.text();
        let range = self.symbol.full_range.clone();
        if self.container_emptied
            && starts_its_line(text, range.start)
            && ends_its_line(text, range.end, "#")
        {
            let start = line_start(text, range.start);
            let end = line_content_end(text, range.end);
            let indent = crate::text::indentation_at(text, range.start);
            return vec![TextEdit::new(start..end, format!("{indent}pass"))];
        }
        vec![remove_item_lines(text, range, self.last_in_container, "#")]
    }

    fn removal_findings(&self) -> Vec<Finding> {
        if self.container_emptied {
            vec![Finding::info(
                self.def.path(),
                self.symbol.first_line,
                w::python_pass(&self.name),
            )]
        } else {
            Vec::new()
        }
    }
}
