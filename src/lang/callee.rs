//! The function a cross-check is about, read from one version of its file (parameters, body,
//! owner), and the calls of it a check can be sure of: by the form of the call and what the file
//! imports, never by types, and only where no other function of the name could be meant.

use std::path::Path;

use tree_sitter::{Node, Tree};

use crate::lang::calls::{CallForm, CallSite, ReferenceKind, find_mentions};
use crate::lang::locals::Locals;
use crate::lang::symbols::{self, Symbol, SymbolKind};
use crate::lang::{Language, node_text};

/// How a parameter is filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ParamKind {
    /// By position (or by keyword, unless `positional_only`).
    Positional {
        default: bool,
        positional_only: bool,
    },
    /// Python, after `*` or `*args`: by keyword only.
    KeywordOnly { default: bool },
    /// `*args`, Rust's `...`.
    VarPositional,
    /// `**kwargs`.
    VarKeyword,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Param {
    /// The bound name; the pattern's text for a Rust pattern parameter.
    pub name: String,
    pub kind: ParamKind,
}

/// A function as one version of its file defines it.
#[derive(Debug, Clone)]
pub struct Function {
    pub lang: Language,
    pub name: String,
    pub name_path: String,
    pub file: String,
    /// The type or class of a method.
    pub owner: Option<String>,
    /// Rust `self`, a Python method's `self`/`cls` (not a `@staticmethod`'s).
    pub receiver: Option<String>,
    /// The parameters after the receiver.
    pub params: Vec<Param>,
    pub body: String,
    /// Decorated with something that may change how it is called (not `staticmethod` or
    /// `classmethod`): its parameters say nothing certain about its calls.
    pub wrapped: bool,
}

impl Function {
    /// Reads `symbol` (a function of `text`, whose tree is `tree`).
    pub fn read(
        lang: Language,
        file: &str,
        text: &str,
        tree: &Tree,
        outline: &[Symbol],
        symbol: &Symbol,
    ) -> Option<Function> {
        let node = lang.syntax().function_named(tree, &symbol.name_range)?;
        let owner = symbol
            .container
            .and_then(|c| outline.get(c))
            .filter(|c| {
                matches!(
                    c.kind,
                    SymbolKind::Impl | SymbolKind::Trait | SymbolKind::Class
                )
            })
            .and_then(|_| symbol.name_path.rsplit_once('/'))
            .map(|(owner, _)| owner.rsplit('/').next().unwrap_or(owner).to_string());
        let decorators = decorators(lang, node, text);
        let static_method = decorators.iter().any(|d| d == "staticmethod");
        let wrapped = decorators
            .iter()
            .any(|d| d != "staticmethod" && d != "classmethod");
        let mut params = Vec::new();
        let mut receiver = None;
        if let Some(list) = node.child_by_field_name("parameters") {
            match lang {
                Language::Python => python_params(list, text, &mut params),
                Language::Rust => rust_params(list, text, &mut params, &mut receiver),
            }
        }
        if lang == Language::Python && owner.is_some() && !static_method && !params.is_empty() {
            receiver = Some(params.remove(0).name);
        }
        Some(Function {
            lang,
            name: symbol.name.clone(),
            name_path: symbol.name_path.clone(),
            file: file.to_string(),
            owner,
            receiver,
            params,
            body: node
                .child_by_field_name("body")
                .map(|b| node_text(b, text).to_string())
                .unwrap_or_default(),
            wrapped,
        })
    }

    /// Finds the function `query` designates in `text`.
    pub fn find(
        lang: Language,
        file: &str,
        text: &str,
        query: &symbols::SymbolQuery,
    ) -> Option<Function> {
        Function::find_in(lang, file, text, &lang.parse(text), query)
    }

    /// [`Function::find`] in a text already parsed as `tree`.
    pub fn find_in(
        lang: Language,
        file: &str,
        text: &str,
        tree: &Tree,
        query: &symbols::SymbolQuery,
    ) -> Option<Function> {
        let outline = symbols::outline(lang, tree, text);
        let symbol =
            symbols::resolve(&outline, query, "function", |s| s.kind.is_function()).ok()?;
        Function::read(lang, file, text, tree, &outline, symbol)
    }

    /// The names a qualified call or an import may use for the function's module.
    pub fn module(&self) -> Option<&str> {
        self.module_name()
    }

    /// Whether another function of the same name is defined in `outline` (of `file`): then a call
    /// there may mean that one.
    pub fn shadowed_in(&self, file: &str, outline: &[Symbol]) -> bool {
        outline.iter().any(|s| {
            s.kind.is_function()
                && s.name == self.name
                && !(file == self.file && s.name_path == self.name_path)
        })
    }

    /// Whether a top-level `use …::*;` of `text` (the file `file`) brings the module whose file
    /// defines this Rust function: `use crate::util::*;` in `tests/a.rs` brings
    /// `tests/util/mod.rs`'s functions (semver's test crates call `assert_to_string` so).
    fn glob_imported(&self, file: &str, text: &str, tree: &Tree) -> bool {
        if self.lang != Language::Rust || self.owner.is_some() {
            return false;
        }
        let module = crate::lang::rust::paths::module_of_file(&self.file);
        let here = crate::lang::rust::paths::module_of_file(file);
        crate::lang::rust::imports::use_paths(tree, text)
            .into_iter()
            .any(|(path, alias, _)| {
                alias.is_none()
                    && path.last().is_some_and(|l| l == "*")
                    && crate::lang::rust::paths::resolve_prefix(
                        &path[..path.len() - 1].join("::"),
                        &here,
                    )
                    .contains(&module)
            })
    }

    /// The names a qualified call may use for the function's module: the file's stem, or its
    /// directory for `__init__.py` and `mod.rs`.
    fn module_name(&self) -> Option<&str> {
        let path = Path::new(&self.file);
        let stem = path.file_stem()?.to_str()?;
        match stem {
            "__init__" | "mod" => path.parent()?.file_name()?.to_str(),
            "lib" | "main" => None,
            _ => Some(stem),
        }
    }

    /// The calls of this function in `text` (the file `file`, parsed as `tree`) that can only be
    /// calls of it, each with whether it passes the receiver as its first argument
    /// (`Type::m(x, …)`, `Class.m(obj, …)`). None where the file defines another function of the
    /// name.
    pub fn certain_calls(&self, file: &str, text: &str, tree: &Tree) -> Vec<(CallSite, bool)> {
        self.certain_calls_where(file, text, tree, &|_, _| true)
    }

    /// Those of [`certain_calls`](Function::certain_calls) that `wanted` keeps (given the call
    /// and whether it passes the receiver), in the same order. The locals of the name (a walk of
    /// the whole tree) are collected only when a plain call is wanted: a check that asks only
    /// about the calls that do not fit needs none when every call fits (a change of signature
    /// that rewrote 100,000 calls in one file: 0.37 s).
    pub fn certain_calls_where(
        &self,
        file: &str,
        text: &str,
        tree: &Tree,
        wanted: &dyn Fn(&CallSite, bool) -> bool,
    ) -> Vec<(CallSite, bool)> {
        // The outline only when some function of the name is defined here (most files that
        // call a function define none of its name): the same answer, without walking the file.
        if symbols::defines_function_named(tree, text, &self.name)
            && self.shadowed_in(file, &symbols::outline(self.lang, tree, text))
        {
            return Vec::new();
        }
        let mentions = find_mentions(self.lang, tree, text, &self.name);
        // A call of a local of the same name (`op = lambda x: …`, `let op = |x| …;`, a parameter)
        // is not a call of the function.
        let locals = std::cell::OnceCell::new();
        let shadowed = |call: &CallSite| {
            locals
                .get_or_init(|| Locals::new(self.lang, tree, text, &self.name))
                .shadows(call.name_range.start)
        };
        let same_file = file == self.file;
        let imported = mentions
            .references
            .iter()
            .any(|r| r.kind == ReferenceKind::Import)
            || (!same_file && self.glob_imported(file, text, tree));
        let module = self.module_name();
        let last_segment = |q: &str| q.rsplit("::").next().unwrap_or(q).to_string();
        mentions
            .calls
            .into_iter()
            .filter_map(|call| {
                let explicit = match (&call.form, &self.owner) {
                    (CallForm::Plain, None) => (same_file || imported).then_some(false),
                    (CallForm::Method { receiver }, None) => {
                        let receiver = &text[receiver.clone()];
                        (self.lang == Language::Python && Some(receiver) == module).then_some(false)
                    }
                    (CallForm::Path { qualifier }, None) => {
                        let last = last_segment(qualifier);
                        ((same_file && (qualifier == "self" || qualifier == "Self"))
                            || Some(last.as_str()) == module)
                            .then_some(false)
                    }
                    (CallForm::Method { receiver }, Some(owner)) => {
                        let receiver = &text[receiver.clone()];
                        if same_file && self.receiver.as_deref() == Some(receiver) {
                            Some(false)
                        } else if self.lang == Language::Python && receiver == owner {
                            // `Class.method(obj, …)`: the receiver is passed, unless it is a
                            // class method (bound to the class) or static (has none).
                            Some(self.receiver.as_deref().is_some_and(|r| r != "cls"))
                        } else {
                            None
                        }
                    }
                    (CallForm::Path { qualifier }, Some(owner)) => {
                        let last = last_segment(qualifier);
                        (same_file && qualifier == "Self" || &last == owner)
                            .then_some(self.receiver.is_some())
                    }
                    (CallForm::Plain, Some(_)) => None,
                };
                explicit.map(|e| (call, e))
            })
            // The locals last: what they cost is paid only for the calls the caller wants.
            .filter(|(call, explicit)| wanted(call, *explicit))
            .filter(|(call, _)| !matches!(call.form, CallForm::Plain) || !shadowed(call))
            .collect()
    }

    /// Whether the body uses the parameter `name`.
    pub fn uses(&self, name: &str) -> bool {
        is_identifier(name) && !crate::lang::calls::word_matches(&self.body, name).is_empty()
    }
}

/// The byte range of the statement that holds `range` (the range itself at the top).
pub fn statement_around(
    tree: &tree_sitter::Tree,
    range: std::ops::Range<usize>,
) -> std::ops::Range<usize> {
    let Some(mut node) = tree
        .root_node()
        .descendant_for_byte_range(range.start, range.end)
    else {
        return range;
    };
    while let Some(parent) = node.parent() {
        if matches!(parent.kind(), "block" | "module" | "source_file") {
            return node.byte_range();
        }
        node = parent;
    }
    range
}

fn is_identifier(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c == '_' || c.is_alphabetic())
        && name.chars().all(|c| c == '_' || c.is_alphanumeric())
}

/// The names of a Python function's decorators (`functools.wraps(f)` → `wraps`).
fn decorators(lang: Language, node: Node<'_>, text: &str) -> Vec<String> {
    if lang != Language::Python {
        return Vec::new();
    }
    let Some(parent) = node.parent().filter(|p| p.kind() == "decorated_definition") else {
        return Vec::new();
    };
    let mut cursor = parent.walk();
    parent
        .children(&mut cursor)
        .filter(|c| c.kind() == "decorator")
        .map(|d| {
            let text = node_text(d, text).trim_start_matches('@').trim();
            let head = text.split('(').next().unwrap_or(text);
            head.rsplit('.').next().unwrap_or(head).trim().to_string()
        })
        .collect()
}

fn python_params(list: Node<'_>, text: &str, out: &mut Vec<Param>) {
    let mut keyword_only = false;
    let mut cursor = list.walk();
    for child in list.named_children(&mut cursor) {
        let (name, kind) = match child.kind() {
            "identifier" => (node_text(child, text), positional(keyword_only, false)),
            "typed_parameter" => {
                let inner = child.named_child(0);
                match inner.map(|n| n.kind()) {
                    Some("list_splat_pattern") => {
                        keyword_only = true;
                        (splat_name(inner, text), ParamKind::VarPositional)
                    }
                    Some("dictionary_splat_pattern") => {
                        (splat_name(inner, text), ParamKind::VarKeyword)
                    }
                    _ => (
                        inner.map(|n| node_text(n, text)).unwrap_or(""),
                        positional(keyword_only, false),
                    ),
                }
            }
            "default_parameter" | "typed_default_parameter" => (
                child
                    .child_by_field_name("name")
                    .map(|n| node_text(n, text))
                    .unwrap_or(""),
                positional(keyword_only, true),
            ),
            "list_splat_pattern" => {
                keyword_only = true;
                (splat_name(Some(child), text), ParamKind::VarPositional)
            }
            "dictionary_splat_pattern" => (splat_name(Some(child), text), ParamKind::VarKeyword),
            "keyword_separator" => {
                keyword_only = true;
                continue;
            }
            "positional_separator" => {
                for param in out.iter_mut() {
                    if let ParamKind::Positional { default, .. } = param.kind {
                        param.kind = ParamKind::Positional {
                            default,
                            positional_only: true,
                        };
                    }
                }
                continue;
            }
            _ => continue,
        };
        out.push(Param {
            name: name.to_string(),
            kind,
        });
    }
}

fn positional(keyword_only: bool, default: bool) -> ParamKind {
    if keyword_only {
        ParamKind::KeywordOnly { default }
    } else {
        ParamKind::Positional {
            default,
            positional_only: false,
        }
    }
}

fn splat_name<'t>(node: Option<Node<'_>>, text: &'t str) -> &'t str {
    node.and_then(|n| n.named_child(0))
        .map(|n| node_text(n, text))
        .unwrap_or("")
}

fn rust_params(list: Node<'_>, text: &str, out: &mut Vec<Param>, receiver: &mut Option<String>) {
    let mut cursor = list.walk();
    for child in list.named_children(&mut cursor) {
        match child.kind() {
            "self_parameter" => *receiver = Some("self".to_string()),
            "parameter" => out.push(Param {
                name: child
                    .child_by_field_name("pattern")
                    .map(|p| node_text(p, text).trim_start_matches("mut ").to_string())
                    .unwrap_or_default(),
                kind: positional(false, false),
            }),
            "variadic_parameter" => out.push(Param {
                name: String::new(),
                kind: ParamKind::VarPositional,
            }),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn find(lang: Language, file: &str, text: &str, name: &str) -> Function {
        let query = symbols::SymbolQuery {
            name: name.to_string(),
            line: None,
            column: None,
        };
        Function::find(lang, file, text, &query).unwrap()
    }

    #[test]
    fn python_parameters_and_receivers() {
        let text = "class T:\n    def m(self, a, b=1, *rest, c, d=2, **kw):\n        return a\n\n    @staticmethod\n    def s(x, /, y):\n        return x\n\n    @property\n    def p(self):\n        return 1\n";
        let m = find(Language::Python, "pkg/t.py", text, "T/m");
        assert_eq!(m.owner.as_deref(), Some("T"));
        assert_eq!(m.receiver.as_deref(), Some("self"));
        let kinds: Vec<(&str, ParamKind)> =
            m.params.iter().map(|p| (p.name.as_str(), p.kind)).collect();
        assert_eq!(
            kinds,
            vec![
                (
                    "a",
                    ParamKind::Positional {
                        default: false,
                        positional_only: false
                    }
                ),
                (
                    "b",
                    ParamKind::Positional {
                        default: true,
                        positional_only: false
                    }
                ),
                ("rest", ParamKind::VarPositional),
                ("c", ParamKind::KeywordOnly { default: false }),
                ("d", ParamKind::KeywordOnly { default: true }),
                ("kw", ParamKind::VarKeyword),
            ]
        );
        assert!(m.uses("a") && !m.uses("b"));
        let s = find(Language::Python, "pkg/t.py", text, "T/s");
        assert_eq!(s.receiver, None);
        assert_eq!(
            s.params[0].kind,
            ParamKind::Positional {
                default: false,
                positional_only: true
            }
        );
        assert!(!s.wrapped);
        assert!(find(Language::Python, "pkg/t.py", text, "T/p").wrapped);
    }

    #[test]
    fn rust_parameters() {
        let text = "struct S;\nimpl S {\n    fn m(&self, mut a: u8, (b, c): (u8, u8)) -> u8 { a + b + c }\n}\nfn free(x: u8) {}\n";
        let m = find(Language::Rust, "src/s.rs", text, "m");
        assert_eq!(m.owner.as_deref(), Some("S"));
        assert_eq!(m.receiver.as_deref(), Some("self"));
        let names: Vec<&str> = m.params.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, vec!["a", "(b, c)"]);
        let free = find(Language::Rust, "src/s.rs", text, "free");
        assert_eq!((free.owner, free.receiver), (None, None));
    }

    #[test]
    fn certain_calls_by_form_and_import() {
        let def =
            "def helper(a):\n    return a\n\n\ndef use():\n    return helper(1) + obj.helper(2)\n";
        let f = find(Language::Python, "pkg/util.py", def, "helper");
        let calls = |file: &str, text: &str| -> Vec<usize> {
            let tree = Language::Python.parse(text);
            f.certain_calls(file, text, &tree)
                .into_iter()
                .map(|(c, _)| c.line)
                .collect()
        };
        // Same file: the plain call, not the method of another object.
        assert_eq!(calls("pkg/util.py", def), vec![6]);
        // Another file: only when it imports the name, or through the module.
        assert_eq!(
            calls("pkg/a.py", "from pkg.util import helper\n\nhelper(3)\n"),
            vec![3]
        );
        assert_eq!(calls("pkg/b.py", "helper(3)\n"), Vec::<usize>::new());
        assert_eq!(
            calls("pkg/c.py", "from pkg import util\nutil.helper(3)\n"),
            vec![2]
        );
        // A local of the name.
        assert_eq!(
            calls(
                "pkg/util.py",
                "def helper(a):\n    return a\n\n\ndef f(helper):\n    return helper(1)\n"
            ),
            Vec::<usize>::new()
        );
        // A file with its own `helper`.
        assert_eq!(
            calls(
                "pkg/d.py",
                "from pkg.util import helper\ndef helper(x):\n    pass\nhelper(1)\n"
            ),
            Vec::<usize>::new()
        );
    }

    #[test]
    fn the_wanted_certain_calls_are_the_certain_calls_it_keeps() {
        let text = "def helper(a):\n    return a\n\n\ndef f(helper):\n    return helper(1, 2)\n\n\ndef g():\n    return helper(3) + helper(4, 5)\n";
        let f = find(Language::Python, "pkg/util.py", text, "helper");
        let tree = Language::Python.parse(text);
        let lines = |calls: Vec<(CallSite, bool)>| -> Vec<usize> {
            calls.into_iter().map(|(c, _)| c.line).collect()
        };
        let two_args = |call: &CallSite, _: bool| call.args.len() == 2;
        let all = lines(f.certain_calls("pkg/util.py", text, &tree));
        assert_eq!(all, vec![10, 10]);
        // The call with two arguments in `f` is a call of the parameter: still not certain when
        // it is one the caller wants.
        let wanted = lines(f.certain_calls_where("pkg/util.py", text, &tree, &two_args));
        assert_eq!(wanted, vec![10]);
        let none = lines(f.certain_calls_where("pkg/util.py", text, &tree, &|_, _| false));
        assert!(none.is_empty());
    }

    #[test]
    fn method_calls_through_the_receiver_or_the_type() {
        let text = "struct S;\nimpl S {\n    fn m(&self, a: u8) {}\n    fn n(&self) { self.m(1); Self::m(self, 2); S::m(self, 3); other.m(4); }\n}\n";
        let m = find(Language::Rust, "src/s.rs", text, "m");
        let tree = Language::Rust.parse(text);
        let found: Vec<bool> = m
            .certain_calls("src/s.rs", text, &tree)
            .into_iter()
            .map(|(_, e)| e)
            .collect();
        assert_eq!(found, vec![false, true, true]);
    }
}
