//! Inline function for Rust. Every call becomes a block expression
//! `{ let a: T = x; ...body... }`: blocks are expressions, so this is sound for a value
//! (`let y = f(x);`, `g(f(x))`, a tail) and for a statement alike, and the bindings cannot leak
//! into the caller. A final `return v;` becomes the tail `v`; any other `return`, a `?`, or a
//! macro that may return makes the body unsafe to paste and is refused. Methods: `self.m()`
//! inside the same type's impl keeps `self`; `Type::m(recv, ..)` binds `recv` to a fresh name
//! that replaces `self` in the body; `recv.m()` with another receiver is left (no type
//! analysis: the heuristic cannot know `recv` is of this type). The syntax facts come from
//! `lang::rust`; this module decides and [`paste`] writes.

mod paste;

use std::collections::BTreeSet;
use std::ops::Range;

use tree_sitter::Node;

use super::wording as w;
use super::{Callee, Facts, Inlined, Owner, Parsed, RefVerdict};
use crate::edit::TextEdit;
use crate::lang::Language;
use crate::lang::calls::{CallForm, CallSite, Reference, ReferenceKind, TextMention, text_mention};
use crate::lang::finder::NodeFinder;
use crate::lang::locals::Locals;
use crate::lang::rust::body::{self as rust_body, Body, Exit};
use crate::lang::rust::expr::{Shape, type_comes_from_return};
use crate::lang::rust::imports::{ImportShape, import_at, imports_from_module};
use crate::lang::rust::items::{self, FunctionItem, ItemParam};
use crate::lang::rust::macros;
use crate::lang::rust::names::{self as rust_names, MentionShape};
use crate::lang::rust::paths::{last_type_segment, module_at, resolve_prefix};
use crate::lang::symbols::{Symbol, SymbolKind};
use crate::refactor::{Finding, RefactorError};
use crate::text::surgery::{Splice, remove_item_lines};

/// Attributes that do not change what a call does (anything else is refused).
const HARMLESS_ATTRIBUTES: &[&str] = &[
    "inline",
    "must_use",
    "allow",
    "warn",
    "deny",
    "expect",
    "forbid",
    "doc",
    "deprecated",
    "track_caller",
    "cold",
];

/// Macros known to return from the function they are written in.
const RETURNING_MACROS: &[&str] = &["bail", "ensure", "try", "ready"];

#[derive(Debug, Clone, PartialEq, Eq)]
enum Kind {
    /// A function of a module; `module` is its path from the crate root (`["net", "http"]`).
    Free { module: Vec<String> },
    /// A function declared inside another function's body: callable only within `scope`.
    Local { scope: Range<usize> },
    /// A method or associated function of an inherent `impl`.
    Method(MethodInfo),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct MethodInfo {
    /// `Point` for `impl<T> Point<T>`.
    type_name: String,
    /// The impl's self type as written (`Point<T>`).
    type_text: String,
    /// The impl declares generic parameters (then `Self` cannot be spelled outside it).
    generic: bool,
    /// Names of the impl's generic parameters.
    generic_names: Vec<String>,
    self_param: Option<SelfParam>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct SelfParam {
    /// The type `self` has: `&Self`, `&mut Self`, `Self`, or the explicit type.
    ty: String,
    mutable: bool,
}

#[derive(Debug, Clone)]
struct Param {
    /// The pattern as written, `mut` included (`mut a`, `(x, y)`).
    pattern: String,
    /// The name when the pattern is a plain identifier without `mut`.
    simple: Option<String>,
    ty: String,
    /// The type cannot be written at a call site (`impl Trait`, the function's generics).
    type_unwritable: bool,
}

pub(super) struct RustCallee<'a> {
    def: &'a Parsed<'a>,
    symbol: &'a Symbol,
    name: String,
    kind: Kind,
    params: Vec<Param>,
    unit_return: bool,
    /// The body's statements (from the first to the last, comments included).
    body: Option<Range<usize>>,
    /// Edits turning the final `return v;` into the tail `v`.
    tail_splices: Vec<Splice>,
    /// `self` (the receiver) in the body.
    self_ranges: Vec<Range<usize>>,
    /// `Self` in the body.
    self_type_ranges: Vec<Range<usize>>,
    /// Line of a use of the impl's generic parameters in the body.
    impl_generic_use: Option<usize>,
    protected: Vec<Range<usize>>,
    /// Identifiers and type names the body uses without binding them.
    free: BTreeSet<String>,
    /// The body reads fields or builds structs (privacy matters in another module).
    touches_fields: bool,
    /// Names defined or imported at the top of the definition's file.
    module_names: BTreeSet<String>,
    is_pub: bool,
    /// The function or its impl declares generic parameters.
    generic: bool,
    /// Another free function of the definition's file has the same name.
    defined_twice: bool,
    last_in_container: bool,
    /// Identifier-like words of the body, to pick fresh names.
    body_text: String,
    /// The body is one expression (or `return expr;`): its range and shape.
    single_value: Option<(Range<usize>, Shape)>,
    /// The value the body ends with, when its type may come from the declared return type
    /// (`s.parse().ok()`, `None`, a `*mut` returned as `*const`): its range, and the return
    /// type with whether it can be written at a call site. Inlined, the value is bound with
    /// that type so it keeps it.
    typed_tail: Option<TypedTail>,
}

struct TypedTail {
    value: Range<usize>,
    ty: String,
    unwritable: bool,
}

fn error(message: impl Into<String>) -> RefactorError {
    RefactorError::Unsupported(message.into())
}

fn is_harmless_attribute(name: &str) -> bool {
    HARMLESS_ATTRIBUTES.contains(&name)
        || name.starts_with("clippy::")
        || name.starts_with("rustfmt::")
}

/// The item's own refusals, in the order a reader meets them: no body, attributes that do
/// something, `async`.
fn check_item(item: &FunctionItem<'_>, symbol: &Symbol, text: &str) -> Result<(), RefactorError> {
    let (name, line) = (&symbol.name, symbol.line);
    if item.signature_only {
        return Err(error(w::rust_declaration_only(name, line)));
    }
    for (attribute, at) in item.attributes_from(symbol.full_range.start, text) {
        if !is_harmless_attribute(&attribute) {
            return Err(error(w::rust_attribute(name, &attribute, at)));
        }
    }
    if item.is_async {
        return Err(error(w::rust_async(name, line)));
    }
    Ok(())
}

/// What kind of function it is: free, local to another function, or a method of an inherent
/// impl (a trait's methods and trait impls are refused).
fn kind_of(
    def: &Parsed<'_>,
    symbols: &[Symbol],
    symbol: &Symbol,
    item: Node<'_>,
) -> Result<Kind, RefactorError> {
    let text = def.text();
    let (name, line) = (&symbol.name, symbol.line);
    let container = symbol.container.and_then(|c| symbols.get(c));
    Ok(match container.map(|c| c.kind) {
        Some(SymbolKind::Trait) => return Err(error(w::rust_trait_method(name, line))),
        Some(SymbolKind::Impl) => {
            if !items::has_owner(item) {
                return Err(error(w::rust_no_impl(name)));
            }
            let facts =
                items::impl_of_method(item, text).ok_or_else(|| error(w::rust_no_impl(name)))?;
            if let Some(trait_text) = &facts.trait_text {
                return Err(error(w::rust_trait_impl(name, line, trait_text)));
            }
            Kind::Method(MethodInfo {
                type_name: last_type_segment(&facts.type_text),
                generic: !facts.generics.is_empty(),
                generic_names: facts.generics,
                type_text: facts.type_text,
                self_param: None,
            })
        }
        Some(k) if k.is_function() => Kind::Local {
            scope: container.map(|c| c.range.clone()).unwrap_or_default(),
        },
        _ => Kind::Free {
            module: module_at(def.path(), item, text),
        },
    })
}

/// The parameters to bind; the receiver goes to the method's `self_param`.
fn read_params(
    item: &FunctionItem<'_>,
    kind: &mut Kind,
    name: &str,
    text: &str,
) -> Result<Vec<Param>, RefactorError> {
    let mut params = Vec::new();
    for param in &item.params {
        match param {
            ItemParam::SelfParam { ty, mutable } => {
                if let Kind::Method(info) = kind {
                    info.self_param = Some(SelfParam {
                        ty: ty.to_string(),
                        mutable: *mutable,
                    });
                }
            }
            ItemParam::TypedSelf { ty, mutable } => {
                if let Kind::Method(info) = kind {
                    info.self_param = Some(SelfParam {
                        ty: ty.clone(),
                        mutable: *mutable,
                    });
                }
            }
            ItemParam::Typed {
                pattern,
                simple,
                ty,
            } => params.push(Param {
                pattern: pattern.clone(),
                simple: simple.clone(),
                ty: crate::lang::node_text(*ty, text).to_string(),
                type_unwritable: rust_body::type_unwritable(*ty, text, &item.generics, false),
            }),
            ItemParam::Unreadable { line } => {
                return Err(error(w::rust_unreadable_parameter(name, *line)));
            }
            ItemParam::Variadic { line } => return Err(error(w::rust_variadic(name, *line))),
        }
    }
    Ok(params)
}

/// Refuses a body whose exits would leave the caller: `?`, macros that return, and a `return`
/// before the end.
fn check_exits(body: &Body<'_>, text: &str, name: &str) -> Result<(), RefactorError> {
    for exit in rust_body::exits(body.block, text) {
        match exit {
            Exit::Try { line } => return Err(error(w::rust_try(name, line))),
            Exit::Macro {
                name: macro_name,
                line,
                returns_inside,
            } if returns_inside || RETURNING_MACROS.contains(&macro_name.as_str()) => {
                return Err(error(w::rust_returning_macro(name, &macro_name, line)));
            }
            Exit::Macro { .. } => {}
        }
    }
    if let Some(early) = body.early_return() {
        return Err(error(w::early_return(name, early.start_position().row + 1)));
    }
    Ok(())
}

/// The edits turning the final `return v;` into the tail `v`.
fn tail_splices(body: &Body<'_>) -> Vec<Splice> {
    let mut splices = Vec::new();
    if let Some(f) = body.final_return {
        match f.value {
            Some(value) => {
                splices.push((f.ret.start_byte()..value.start_byte(), String::new()));
                if f.statement.id() != f.ret.id() {
                    splices.push((f.ret.end_byte()..f.statement.end_byte(), String::new()));
                }
            }
            None => splices.push((f.statement.byte_range(), String::new())),
        }
    }
    splices
}

impl<'a> RustCallee<'a> {
    pub fn analyze(
        def: &'a Parsed<'a>,
        symbols: &'a [Symbol],
        symbol: &'a Symbol,
    ) -> Result<Box<dyn Callee + 'a>, RefactorError> {
        let text = def.text();
        let name = symbol.name.clone();
        let node = items::function_named(&def.tree, &symbol.name_range)
            .ok_or_else(|| error(w::not_in_tree(&name)))?;
        let item = FunctionItem::read(node, text);
        check_item(&item, symbol, text)?;
        let mut kind = kind_of(def, symbols, symbol, node)?;
        let params = read_params(&item, &mut kind, &name, text)?;
        let block = item.body.ok_or_else(|| error(w::no_body(&name)))?;
        if let Some((generic, line)) = rust_names::mentions_any(block, text, &item.generics) {
            return Err(error(w::rust_generic_in_body(&name, generic, line)));
        }
        let body = Body::read(block);
        check_exits(&body, text, &name)?;
        let typed_tail = item
            .return_type
            .filter(|_| !item.unit_return)
            .zip(body.tail_value(text))
            .filter(|(ty, value)| type_comes_from_return(*ty, *value, text))
            .map(|(ty, value)| TypedTail {
                value: value.byte_range(),
                ty: crate::lang::node_text(ty, text).to_string(),
                unwritable: rust_body::type_unwritable(ty, text, &item.generics, true),
            });
        let marks = rust_body::marks(block, text);
        let impl_generic_use = match &kind {
            Kind::Method(info) => {
                rust_names::mentions_any(block, text, &info.generic_names).map(|(_, l)| l)
            }
            _ => None,
        };
        let mut bound = rust_names::bound_names(block, text);
        bound.extend(params.iter().filter_map(|p| p.simple.clone()));
        if let Some(list) = item.parameters {
            bound.extend(rust_names::bound_names(list, text));
        }
        let free: BTreeSet<String> = rust_names::used_names(block, text)
            .into_iter()
            .filter(|n| !bound.contains(n))
            .collect();
        let generic =
            !item.generics.is_empty() || matches!(&kind, Kind::Method(info) if info.generic);
        Ok(Box::new(RustCallee {
            def,
            symbol,
            kind,
            params,
            unit_return: item.unit_return,
            body: match (body.statements.first(), body.statements.last()) {
                (Some(first), Some(last)) => Some(first.start_byte()..last.end_byte()),
                _ => None,
            },
            tail_splices: tail_splices(&body),
            self_ranges: marks.self_ranges,
            self_type_ranges: marks.self_type_ranges,
            impl_generic_use,
            protected: marks.multiline_strings,
            free,
            touches_fields: marks.touches_fields,
            module_names: rust_names::module_names(def.tree.root_node(), text),
            is_pub: item.is_pub,
            generic,
            defined_twice: items::free_functions_named(&def.tree, text, &name) > 1,
            last_in_container: item.last_in_container,
            body_text: crate::lang::node_text(block, text).to_string(),
            single_value: body.single_value().map(|v| (v.byte_range(), Shape::of(v))),
            typed_tail,
            name,
        }))
    }

    fn method(&self) -> Option<&MethodInfo> {
        match &self.kind {
            Kind::Method(info) => Some(info),
            _ => None,
        }
    }

    /// Whether `node` sits in an impl of the method's type (where `Self` means that type).
    fn in_own_impl(&self, node: Node<'_>, text: &str) -> bool {
        let Some(info) = self.method() else {
            return false;
        };
        items::impl_types_around(node, text)
            .iter()
            .any(|t| t.as_deref() == Some(info.type_name.as_str()))
    }

    /// For `self.m()`: the call is in a method of the same type's impl that has `self`.
    fn is_own_self_call(&self, node: Node<'_>, text: &str) -> bool {
        let Some(info) = self.method() else {
            return false;
        };
        items::method_around(node, text).is_some_and(|(has_self, impl_type)| {
            has_self && impl_type.as_deref() == Some(info.type_name.as_str())
        })
    }

    /// Whether the name at `at` (plain) means this function in `file`.
    fn plain_is_ours(&self, file: &Parsed<'_>, facts: &Facts, at: usize) -> bool {
        match &self.kind {
            Kind::Free { .. } => facts.plain_is_ours,
            Kind::Local { scope } => file.path() == self.def.path() && scope.contains(&at),
            Kind::Method(_) => false,
        }
    }

    /// How `call` designates the function: `Ok(None)` when it does not, `Err` when it may.
    fn site(
        &self,
        file: &Parsed<'_>,
        facts: &Facts,
        node: Node<'_>,
        call: &CallSite,
    ) -> Result<Option<Site>, String> {
        let text = file.text();
        let name = &self.name;
        match (&self.kind, &call.form) {
            (Kind::Free { .. }, CallForm::Plain) => {
                if !facts.plain_is_ours || facts.locals.shadows(node.start_byte()) {
                    return Ok(None);
                }
                if file.path() == self.def.path() && self.defined_twice {
                    return Err(w::defined_twice(name, file.path(), call.line));
                }
                Ok(Some(Site::Function))
            }
            (Kind::Free { module }, CallForm::Path { qualifier }) => {
                let here = module_at(file.path(), node, text);
                let candidates = resolve_prefix(qualifier, &here);
                Ok(candidates
                    .iter()
                    .any(|c| c == module)
                    .then_some(Site::Function))
            }
            (Kind::Local { scope }, CallForm::Plain) => Ok((file.path() == self.def.path()
                && scope.contains(&call.range.start)
                && !facts.locals.shadows(node.start_byte()))
            .then_some(Site::Function)),
            (Kind::Method(info), CallForm::Path { qualifier }) => {
                let last = last_type_segment(qualifier);
                let ours =
                    last == info.type_name || (last == "Self" && self.in_own_impl(node, text));
                Ok(ours.then_some(Site::Qualified))
            }
            (Kind::Method(info), CallForm::Method { receiver }) => {
                if info.self_param.is_none() {
                    return Ok(None);
                }
                let receiver_text = text[receiver.clone()].trim();
                if receiver_text == "self" && self.is_own_self_call(node, text) {
                    return Ok(Some(Site::OwnSelf));
                }
                // How the receiver is passed explicitly: as `self` takes it.
                let borrow = match info.self_param.as_ref().map(|p| p.ty.replace(' ', "")) {
                    Some(ty) if ty.starts_with("&mut") => "&mut ",
                    Some(ty) if ty.starts_with('&') => "&",
                    _ => "",
                };
                Err(w::rust_receiver_type_unknown(
                    receiver_text,
                    name,
                    call.line,
                    &info.type_name,
                    borrow,
                ))
            }
            _ => Ok(None),
        }
    }

    fn import_verdict(&self, file: &Parsed<'_>, node: Node<'_>) -> RefVerdict {
        let name = &self.name;
        let Kind::Free { module } = &self.kind else {
            return RefVerdict::Ignore;
        };
        if file.path() == self.def.path() {
            return RefVerdict::Ignore;
        }
        let Some(import) = import_at(node, file.text(), file.path()) else {
            return RefVerdict::Ignore;
        };
        if !resolve_prefix(&import.prefix, &import.here)
            .iter()
            .any(|c| c == module)
        {
            return RefVerdict::Ignore;
        }
        let line = node.start_position().row + 1;
        if import.public {
            return RefVerdict::Import(Err(w::rust_reexported(file.path(), name, line)));
        }
        let whole = || {
            let last = import.declaration.next_named_sibling().is_none();
            remove_item_lines(file.text(), import.declaration.byte_range(), last, "//")
        };
        match import.shape {
            ImportShape::Whole => RefVerdict::Import(Ok(whole())),
            ImportShape::ListItem(Some(edit)) => RefVerdict::Import(Ok(edit)),
            ImportShape::ListItem(None) => {
                RefVerdict::Import(Err(w::rust_nested_use_list(name, line)))
            }
            ImportShape::Aliased => RefVerdict::Import(Err(w::imported_under_alias(name, line))),
            ImportShape::Other => RefVerdict::Import(Err(w::rust_other_import_form(name, line))),
        }
    }
}

/// How a call designates the function.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Site {
    /// `f(..)`, `module::f(..)`.
    Function,
    /// `self.m(..)` inside the type's own impl: `self` stays `self`.
    OwnSelf,
    /// `Type::m(..)` / `Self::m(..)`: a method's receiver is the first argument.
    Qualified,
}

impl Callee for RustCallee<'_> {
    fn facts(&self, file: &Parsed<'_>) -> Facts {
        let mut facts = Facts::default();
        let text = file.text();
        facts.locals = Locals::new(Language::Rust, &file.tree, text, &self.name);
        if file.path() == self.def.path() {
            facts.plain_is_ours = true;
            return facts;
        }
        let Kind::Free { module } = &self.kind else {
            return facts;
        };
        facts.plain_is_ours =
            imports_from_module(&file.tree, text, file.path(), &self.name, module)
                && !items::defines_top_level_function(&file.tree, text, &self.name);
        facts
    }

    fn hidden_calls(&self, file: &Parsed<'_>, facts: &Facts) -> Vec<CallSite> {
        let in_scope = |at: usize| match &self.kind {
            Kind::Free { .. } => facts.plain_is_ours,
            Kind::Local { scope } => file.path() == self.def.path() && scope.contains(&at),
            Kind::Method(_) => false,
        };
        // A call written in a std macro's arguments is inlined like any other (as a block).
        macros::calls_in_macros(
            &file.tree,
            file.text(),
            &self.name,
            macros::takes_expressions,
        )
        .into_iter()
        .filter(|call| in_scope(call.range.start))
        .collect()
    }

    fn owner_of_call(
        &self,
        file: &Parsed<'_>,
        facts: &Facts,
        call: &CallSite,
        node: Option<Node<'_>>,
    ) -> Owner {
        let Some(node) = node else {
            // A call found in macro arguments: `hidden_calls` only returns this function's.
            return if macros::macro_token_at(&file.tree, &call.name_range).is_some() {
                Owner::Ours
            } else {
                Owner::NotOurs
            };
        };
        Owner::of_site(self.site(file, facts, node, call))
    }

    fn reference(&self, file: &Parsed<'_>, facts: &Facts, reference: &Reference) -> RefVerdict {
        let text = file.text();
        let line = reference.line;
        let name = &self.name;
        if matches!(
            reference.kind,
            ReferenceKind::InComment | ReferenceKind::InString
        ) {
            match text_mention(Language::Rust, text, reference) {
                TextMention::DocExample => {
                    return RefVerdict::Blocking(w::rust_doc_test(name, line));
                }
                TextMention::NameString if macros::in_attribute(&file.tree, &reference.range) => {
                    return RefVerdict::Blocking(w::rust_attribute_string(name, line));
                }
                _ => {}
            }
            return RefVerdict::Info(if reference.kind == ReferenceKind::InComment {
                w::mentioned_in_comment(name, line)
            } else {
                w::mentioned_in_string(name, line)
            });
        }
        let Some(node) = file
            .tree
            .root_node()
            .descendant_for_byte_range(reference.range.start, reference.range.end)
            .filter(|n| n.byte_range() == reference.range)
        else {
            return RefVerdict::Ignore;
        };
        let shape = rust_names::mention_shape(node, text);
        if shape == MentionShape::NotAName {
            return RefVerdict::Ignore;
        }
        if reference.kind == ReferenceKind::Import {
            return self.import_verdict(file, node);
        }
        match shape {
            MentionShape::InMacro => {
                let ours = match &self.kind {
                    Kind::Method(_) => true,
                    _ => self.plain_is_ours(file, facts, reference.range.start),
                };
                let macro_name = macros::macro_of_token(node, text).unwrap_or("?");
                if ours {
                    RefVerdict::Blocking(w::rust_in_macro(name, macro_name, line))
                } else {
                    RefVerdict::Ignore
                }
            }
            MentionShape::Qualified { qualifier, whole } => {
                let ours = match &self.kind {
                    Kind::Free { module } => {
                        resolve_prefix(&qualifier, &module_at(file.path(), node, text))
                            .iter()
                            .any(|c| c == module)
                    }
                    Kind::Method(info) => {
                        let last = last_type_segment(&qualifier);
                        last == info.type_name || (last == "Self" && self.in_own_impl(node, text))
                    }
                    Kind::Local { .. } => false,
                };
                if ours {
                    RefVerdict::Blocking(w::rust_used_as_value(&whole, line))
                } else {
                    RefVerdict::Ignore
                }
            }
            MentionShape::Plain | MentionShape::NotAName => {
                let ours = self.plain_is_ours(file, facts, reference.range.start)
                    && !facts.locals.shadows(node.start_byte());
                if ours {
                    RefVerdict::Blocking(w::rust_used_as_value(name, line))
                } else {
                    RefVerdict::Ignore
                }
            }
        }
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
        vec![remove_item_lines(
            self.def.text(),
            self.symbol.full_range.clone(),
            self.last_in_container,
            "//",
        )]
    }

    fn removal_findings(&self) -> Vec<Finding> {
        if self.is_pub {
            vec![Finding::warning(
                self.def.path(),
                self.symbol.line,
                w::rust_was_pub(&self.name),
            )]
        } else {
            Vec::new()
        }
    }
}
