//! Every name a region of code (a function, a Python module) binds and uses, with the role of each
//! occurrence and the bytes where each binding is visible: parameters, `let`/assignment targets,
//! loop and pattern variables, closures, comprehensions and nested definitions, with lexical
//! scopes approximated by node ranges. Syntactic and best effort: no macros expanded, no types, no
//! imports followed. The languages fill it in (`rust::names`, `python::names`); extract function
//! reads it for its findings. Pure.

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::Node;

use super::{Language, node_text, walk_node_with_ancestors};

/// What an occurrence of a name does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The value is used.
    Read,
    /// Rust: an existing binding is assigned (`x = 1`, `x += 1`); it must be in scope.
    Write,
    /// A new binding: `let x`, `x = 1` in Python, a parameter, a loop variable.
    Bind,
    /// Python `global x`; `scope` is the function it is declared in.
    Global,
    /// Python `nonlocal x`; `scope` is the function it is declared in.
    Nonlocal,
    /// Rust: a type name (for generic parameters).
    Type,
}

/// What one identifier does with a name, for the quick per-identifier questions (the languages'
/// `role` functions): simpler than [`Role`], which a whole-region walk gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NameRole {
    /// Reads the name.
    Use,
    /// Binds the name (definition, parameter, pattern, assignment target, import, `as` target).
    Bind,
    /// No free name at all (attribute, keyword argument name, a qualified path's tail, a label).
    Other,
}

/// The lines of the identifiers spelled `name` under `node` that `keep` accepts.
pub fn identifier_lines(
    node: Node<'_>,
    text: &str,
    name: &str,
    keep: impl Fn(Node<'_>) -> bool,
) -> Vec<usize> {
    let mut lines = Vec::new();
    super::walk_node(node, |n| {
        if n.kind() == "identifier" && super::node_text(n, text) == name && keep(n) {
            lines.push(n.start_position().row + 1);
        }
        true
    });
    lines
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Occurrence {
    pub name: String,
    pub role: Role,
    /// Byte of the name token.
    pub pos: usize,
    /// 1-based line of the name token.
    pub line: usize,
    /// For a binding: from where it holds (`let x = x + 1` binds after the value is read).
    pub at: usize,
    /// For a binding: the bytes where it is visible; for a declaration: its function.
    pub scope: Range<usize>,
    /// For a binding: whether it is a parameter of the function it is scoped to.
    pub parameter: bool,
}

impl Occurrence {
    pub(crate) fn new(node: Node<'_>, text: &str, role: Role) -> Occurrence {
        Occurrence {
            name: node_text(node, text).to_string(),
            role,
            pos: node.start_byte(),
            line: node.start_position().row + 1,
            at: node.start_byte(),
            scope: 0..0,
            parameter: false,
        }
    }

    pub(crate) fn binding(node: Node<'_>, text: &str, at: usize, scope: Node<'_>) -> Occurrence {
        Occurrence {
            at,
            scope: scope.byte_range(),
            ..Occurrence::new(node, text, Role::Bind)
        }
    }
}

/// Every occurrence of a name in `region` (a function, or a Python module), in document order.
pub fn collect(lang: Language, region: Node<'_>, text: &str) -> Vec<Occurrence> {
    let mut out = lang.syntax().occurrences(region, text);
    out.sort_by_key(|o| o.pos);
    out
}

/// The occurrences of a region with its bindings indexed by name.
#[derive(Debug, Clone, Default)]
pub struct Names {
    pub all: Vec<Occurrence>,
    bindings: HashMap<String, Vec<usize>>,
    /// Binding position → the position of the first binding of the same variable: the
    /// alternatives of an or-pattern (`Some(x) | Ok(x)`, `case (x, 0) | (0, x)`) each bind
    /// the name, from the same point over the same scope, and are one variable.
    same: HashMap<usize, usize>,
}

impl Names {
    pub fn collect(lang: Language, region: Node<'_>, text: &str) -> Names {
        Names::new(collect(lang, region, text))
    }

    pub fn new(all: Vec<Occurrence>) -> Names {
        let mut bindings: HashMap<String, Vec<usize>> = HashMap::new();
        let mut first: HashMap<(&str, usize, usize, usize), usize> = HashMap::new();
        let mut same = HashMap::new();
        for (i, o) in all.iter().enumerate() {
            if o.role == Role::Bind {
                bindings.entry(o.name.clone()).or_default().push(i);
                let key = (o.name.as_str(), o.at, o.scope.start, o.scope.end);
                let canonical = *first.entry(key).or_insert(o.pos);
                if canonical != o.pos {
                    same.insert(o.pos, canonical);
                }
            }
        }
        Names {
            all,
            bindings,
            same,
        }
    }

    /// The variable the binding at `pos` binds, as the position of its first binding (the
    /// first alternative of an or-pattern); `pos` itself for any other binding.
    pub fn variable(&self, pos: usize) -> usize {
        self.same.get(&pos).copied().unwrap_or(pos)
    }

    /// Every binding of `name`, in document order.
    pub fn bindings_of<'a>(
        &'a self,
        name: &str,
    ) -> impl Iterator<Item = &'a Occurrence> + Clone + 'a {
        self.bindings
            .get(name)
            .map(Vec::as_slice)
            .unwrap_or_default()
            .iter()
            .filter_map(|&i| self.all.get(i))
    }

    /// The binding a use of `name` at byte `at` refers to: among the bindings visible there,
    /// the one of the innermost scope, and in it the last one before `at`.
    pub fn resolve(&self, name: &str, at: usize) -> Option<&Occurrence> {
        let visible = self
            .bindings_of(name)
            .filter(|o| o.scope.contains(&at) && o.at < at);
        let innermost = visible.clone().map(|o| o.scope.len()).min()?;
        visible
            .filter(|o| o.scope.len() == innermost)
            .max_by_key(|o| o.at)
    }
}

pub(crate) fn field_of<'t>(parent: Node<'t>, child: Node<'t>) -> Option<&'t str> {
    let mut cursor = parent.walk();
    if !cursor.goto_first_child() {
        return None;
    }
    loop {
        if cursor.node().id() == child.id() {
            return cursor.field_name();
        }
        if !cursor.goto_next_sibling() {
            return None;
        }
    }
}

pub(crate) fn starts_uppercase(name: &str) -> bool {
    name.chars().next().is_some_and(char::is_uppercase)
}

/// The ancestors of the node being visited, root first: a tree-sitter `parent()` walks down
/// from the root, so climbing with it is quadratic on deeply nested code; this is not.
#[derive(Clone, Copy)]
pub(crate) struct Up<'p, 't> {
    pub(crate) path: &'p [Node<'t>],
}

impl<'p, 't> Up<'p, 't> {
    /// The `k`-th ancestor: 0 is the parent.
    pub(crate) fn nth(self, k: usize) -> Option<Node<'t>> {
        self.path
            .len()
            .checked_sub(k + 1)
            .and_then(|i| self.path.get(i))
            .copied()
    }

    pub(crate) fn parent(self) -> Option<Node<'t>> {
        self.nth(0)
    }

    /// The ancestors of the parent.
    pub(crate) fn rise(self) -> Up<'p, 't> {
        Up {
            path: &self.path[..self.path.len().saturating_sub(1)],
        }
    }

    /// The nearest ancestor `accept`s.
    pub(crate) fn find(self, accept: impl Fn(Node<'t>) -> bool) -> Option<Node<'t>> {
        self.path.iter().rev().copied().find(|n| accept(*n))
    }
}

/// [`walk_node_with_ancestors`] with the ancestors as an [`Up`].
pub(crate) fn walk_with_up<'t>(
    root: Node<'t>,
    mut visit: impl FnMut(Node<'t>, Up<'_, 't>) -> bool,
) {
    walk_node_with_ancestors(root, |node, path| visit(node, Up { path }));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn occurrences(lang: Language, text: &str) -> Vec<(String, Role, usize)> {
        let tree = lang.parse(text);
        let root = tree.root_node();
        let region = if lang == Language::Rust {
            root.child(0).unwrap()
        } else {
            root
        };
        collect(lang, region, text)
            .into_iter()
            .map(|o| (o.name, o.role, o.line))
            .collect()
    }

    fn has(list: &[(String, Role, usize)], name: &str, role: Role, line: usize) -> bool {
        list.iter()
            .any(|(n, r, l)| n == name && *r == role && *l == line)
    }

    #[test]
    fn rust_bindings_and_reads() {
        let text = "\
fn f(a: i32, (b, c): (i32, i32), Foo { d, e: g }: Foo) -> i32 {
    let x = a + b;
    for i in 0..c { x += i; }
    if let Some(y) = opt { y } else { None };
    match v { Some(w) if w > d => w, Color::Red => g, _ => 0 };
    println!(\"{x} {} {z:?}\", obj.len());
    let cl = |p, q: i32| p + q + outer;
    Self::h(s.field);
    x
}
";
        let list = occurrences(Language::Rust, text);
        for (name, line) in [
            ("a", 1),
            ("b", 1),
            ("c", 1),
            ("d", 1),
            ("g", 1),
            ("x", 2),
            ("i", 3),
            ("y", 4),
            ("w", 5),
            ("cl", 7),
            ("p", 7),
            ("q", 7),
        ] {
            assert!(
                has(&list, name, Role::Bind, line),
                "{name} bound at {line}: {list:?}"
            );
        }
        for (name, line) in [
            ("a", 2),
            ("b", 2),
            ("c", 3),
            ("i", 3),
            ("opt", 4),
            ("y", 4),
            ("v", 5),
            ("w", 5),
            ("d", 5),
            ("g", 5),
            ("x", 6),
            ("z", 6),
            ("obj", 6),
            ("outer", 7),
            ("s", 8),
            ("x", 9),
        ] {
            assert!(
                has(&list, name, Role::Read, line),
                "{name} read at {line}: {list:?}"
            );
        }
        assert!(has(&list, "x", Role::Write, 3));
        for name in [
            "Some", "None", "Color", "Red", "len", "h", "field", "Foo", "println",
        ] {
            assert!(
                !list
                    .iter()
                    .any(|(n, r, _)| n == name && *r == Role::Read && name != "None"),
                "{name} is no read: {list:?}"
            );
            assert!(
                !list.iter().any(|(n, r, _)| n == name && *r == Role::Bind),
                "{name} is not a local: {list:?}"
            );
        }
    }

    #[test]
    fn rust_let_shadowing_resolves_to_the_earlier_binding() {
        let text =
            "fn f() {\n    let x = 1;\n    let x = x + 1;\n    { let x = 5; }\n    use_it(x);\n}\n";
        let tree = Language::Rust.parse(text);
        let names = Names::collect(Language::Rust, tree.root_node().child(0).unwrap(), text);
        let read_at = |line: usize| {
            names
                .all
                .iter()
                .find(|o| o.name == "x" && o.role == Role::Read && o.line == line)
                .unwrap()
                .at
        };
        assert_eq!(names.resolve("x", read_at(3)).unwrap().line, 2);
        assert_eq!(names.resolve("x", read_at(5)).unwrap().line, 3);
    }

    #[test]
    fn python_bindings_and_reads() {
        let text = "\
def f(self, a, b=1, *args, c: int = 2, **kw):
    x = y = a
    p.q, r[i] = 1, 2
    total += 1
    for k, (m, n) in z: pass
    with open(path) as fh: pass
    try:
        pass
    except E as e:
        pass
    [u for u in us if u]
    import os.path, sys as system
    from . import mod as alias, other
    global gg
    if (w := 10) > 5: pass
    match cmd:
        case Point(x=px, y=0): pass
        case [first, *rest]: pass
        case Color.RED: pass
    print(f\"{x}\")
";
        let list = occurrences(Language::Python, text);
        for (name, line) in [
            ("self", 1),
            ("a", 1),
            ("b", 1),
            ("args", 1),
            ("c", 1),
            ("kw", 1),
            ("x", 2),
            ("y", 2),
            ("total", 4),
            ("k", 5),
            ("m", 5),
            ("n", 5),
            ("fh", 6),
            ("e", 9),
            ("u", 11),
            ("os", 12),
            ("system", 12),
            ("alias", 13),
            ("other", 13),
            ("w", 15),
            ("px", 17),
            ("first", 18),
            ("rest", 18),
        ] {
            assert!(
                has(&list, name, Role::Bind, line),
                "{name} bound at {line}: {list:?}"
            );
        }
        for (name, line) in [
            ("a", 2),
            ("p", 3),
            ("r", 3),
            ("i", 3),
            ("total", 4),
            ("z", 5),
            ("path", 6),
            ("E", 9),
            ("us", 11),
            ("u", 11),
            ("cmd", 16),
            ("Point", 17),
            ("Color", 19),
            ("x", 20),
        ] {
            assert!(
                has(&list, name, Role::Read, line),
                "{name} read at {line}: {list:?}"
            );
        }
        assert!(has(&list, "gg", Role::Global, 14));
        for name in ["q", "RED", "mod", "print", "open"] {
            assert!(
                !list.iter().any(|(n, r, _)| n == name && *r == Role::Bind),
                "{name}: {list:?}"
            );
        }
    }

    #[test]
    fn python_comprehension_variables_are_scoped_to_it() {
        let text = "def f(xs):\n    k = 1\n    ys = [k for k in xs]\n    return k\n";
        let tree = Language::Python.parse(text);
        let names = Names::collect(Language::Python, tree.root_node(), text);
        let read_at = |line: usize| {
            names
                .all
                .iter()
                .find(|o| o.name == "k" && o.role == Role::Read && o.line == line)
                .unwrap()
                .at
        };
        assert_eq!(names.resolve("k", read_at(3)).unwrap().line, 3);
        assert_eq!(names.resolve("k", read_at(4)).unwrap().line, 2);
    }
}
