//! The vocabulary of the references engine: what a symbol is ([`Target`]), what the project
//! teaches about reaching it ([`Reach`]: the modules that export it, the types that have it),
//! and what one occurrence of its name is ([`Found`]: a role, a verdict — `Certain`, `Possible`
//! with the doubt, or `NotOurs` — and how a rename rewrites it). The languages answer through
//! [`Resolver`] (`rust::refs`, `python::refs`); the driver (`refactor::references`) asks, words
//! the doubts and decides. Pure: trees and text in, data out; never a message for the user.

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::finder::NodeFinder;
use super::{Language, node_text};

/// What kind of symbol is renamed or searched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TargetKind {
    /// A module-level item: a function, a class, struct, enum, trait, union or type alias, a
    /// constant, static or module-level variable. Reached by name through imports and paths.
    Item,
    /// A member of a type: a method, an associated function or constant, a field, a class
    /// attribute. Reached through a receiver or the type.
    Member(Member),
    /// A binding seen only inside one function of its file: a local variable, a parameter, a
    /// nested function.
    Local(LocalBinding),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Member {
    /// The type or class that declares it (the last segment: `Foo` for `impl<T> m::Foo<T>`).
    pub owner: String,
    /// Rust: the trait that declares it (a trait's method, or a method of `impl Trait for T`).
    pub trait_name: Option<String>,
    pub kind: MemberKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    /// A method or associated function (called, or named through the type).
    Method,
    /// A field, a class attribute, an associated constant (read and written, never called by
    /// the language's own rules).
    Field,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalBinding {
    /// The function (or lambda, closure) whose body sees it.
    pub scope: Range<usize>,
    /// Rust: the binding occurrence itself (a later `let` of the same name is another
    /// variable). Python: every binding of the name in `scope` is the same variable.
    pub binding: usize,
    /// A parameter: the range of the function's name (calls of that function name it with
    /// keyword arguments in Python).
    pub parameter_of: Option<Range<usize>>,
}

/// A symbol whose references are wanted, as its language reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub lang: Language,
    pub name: String,
    pub kind: TargetKind,
    /// What it is, in a word a user knows ("function", "method", "struct", "field", "local
    /// variable", "parameter"...).
    pub label: &'static str,
    /// The file that defines it (project-relative).
    pub path: String,
    /// The module the definition sits in (`rust::paths::module_at`, `python::modules`).
    pub module: Vec<String>,
    /// The name token of the definition.
    pub name_range: Range<usize>,
    /// The whole definition (its item, its binding statement).
    pub range: Range<usize>,
}

/// Why the language cannot make a target of the name at an offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoTarget {
    /// Nothing renameable there: a keyword, a literal, punctuation.
    NotAName,
    /// A name whose definition is outside the project (a builtin, a crate, a library), or that
    /// nothing in the file binds.
    Unresolved { name: String },
    /// A name an `import` binds to a module (`import pkg.mod as m`): renaming it would rename a
    /// module, that is a file, which rename does not do.
    Module { name: String, module: String },
    /// `self`, `cls`, `Self`, `super`, `crate`: not a symbol of their own.
    Special { name: String },
    /// A definition found by name in another file: the driver starts again from there.
    Elsewhere { module: Vec<String>, name: String },
    /// A keyword argument (`f(keyword=..)`) of a call of `function`, defined in another file:
    /// the driver finds the function there, then its parameter `keyword`.
    Keyword {
        module: Vec<String>,
        function: String,
        keyword: String,
    },
}

/// What the project tells about how the target is reached, grown file by file
/// ([`Resolver::learn`]) until no file adds anything.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// Modules through which an item is reachable by name, with the names it has there: the
    /// defining module, then every module that re-exports it (`pub use`, `from .a import f` in
    /// an `__init__.py`, `from a import *`).
    pub exports: BTreeMap<Vec<String>, BTreeSet<String>>,
    /// Types that have the member: the owner and (Python) its subclasses in the project, or
    /// (Rust, a trait's member) the types implementing the trait. Keyed by module.
    pub owners: BTreeSet<(Vec<String>, String)>,
    /// Classes seen in the project that do not have the member as ours (they define their own,
    /// or derive from nothing we know): receivers of those types are not ours.
    pub strangers: BTreeSet<String>,
}

impl Reach {
    /// What is known before any file is read: an item is exported by its own module under its
    /// name; a member's owner has it; a local is reached only where it is.
    pub fn of_target(target: &Target) -> Reach {
        let mut reach = Reach::default();
        match &target.kind {
            TargetKind::Item => {
                reach
                    .exports
                    .entry(target.module.clone())
                    .or_default()
                    .insert(target.name.clone());
            }
            TargetKind::Member(member) => {
                reach
                    .owners
                    .insert((target.module.clone(), member.owner.clone()));
            }
            TargetKind::Local(_) => {}
        }
        reach
    }

    /// The names the target has in `module`, if it is reachable there.
    pub fn names_in(&self, module: &[String]) -> Option<&BTreeSet<String>> {
        self.exports.get(module)
    }

    /// Every name the target is reachable by.
    pub fn all_names(&self) -> BTreeSet<String> {
        self.exports.values().flatten().cloned().collect()
    }

    pub fn owner_names(&self) -> BTreeSet<&str> {
        self.owners.iter().map(|(_, n)| n.as_str()).collect()
    }

    pub fn has_owner(&self, name: &str) -> bool {
        self.owners.iter().any(|(_, n)| n == name)
    }
}

/// What an occurrence of the name does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Role {
    /// The definition itself.
    Definition,
    /// Another definition that must keep the name with it: an override in a subclass, a
    /// trait's method in an impl, the declaration in the trait.
    Override,
    /// The callee of a call.
    Call,
    /// A read or a write of the name (as a value, a type, a path).
    Use,
    /// Named by an import (`from m import f`, `use m::f`).
    Import,
    /// A re-export (`pub use`, an `__init__.py` import).
    ReExport,
    /// An entry of `__all__`.
    DunderAll,
    /// A keyword argument naming a parameter (`f(x=1)`).
    KeywordArgument,
    /// A field of a struct literal or pattern (`Point { x: 1 }`).
    FieldInit,
    /// A mention in a string, a comment or documentation.
    Text,
}

/// Why an occurrence may be the target's and may not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Doubt {
    /// `receiver.name` with a receiver of unknown type (its text).
    Receiver(String),
    /// The name may come from a `*` import of a module outside what we can follow.
    StarImport(String),
    /// Inside a macro's arguments (the macro's name), which may not be code.
    Macro(String),
    /// A string whose value is the name or a dotted path to it (a `getattr`, a patch target).
    NameString,
    /// Code in documentation (a doctest, a Rust doc test).
    DocExample,
    /// A method of a class without known bases (a mixin?): it may be combined with the owner.
    Mixin(String),
    /// Several definitions of the name in one scope: which one a use means depends on the path
    /// taken at run time.
    Redefined,
    /// A language server lists it, the engine did not find it certain.
    ServerOnly,
    /// In code nested deeper than the engine follows ([`MAX_NESTING`] levels).
    Nesting,
}

/// How deep the engine follows code: a file nested deeper has every occurrence of the name
/// listed as possible, unjudged (the judges climb ancestors: deep nests would be quadratic).
pub const MAX_NESTING: usize = 400;

/// Whether the tree nests deeper than `limit` (one walk, stopped as soon as it does). A subtree
/// of `n` nodes reaches at most `n - 1` levels below its root, and tree-sitter knows `n` without
/// a walk: the walk goes down only into subtrees large enough to go over the limit.
pub fn nests_deeper_than(tree: &Tree, limit: usize) -> bool {
    let mut cursor = tree.walk();
    let mut depth = 0usize;
    loop {
        let can_go_over = depth + cursor.node().descendant_count() - 1 > limit;
        if can_go_over && cursor.goto_first_child() {
            depth += 1;
            if depth > limit {
                return true;
            }
            continue;
        }
        loop {
            if cursor.goto_next_sibling() {
                break;
            }
            if !cursor.goto_parent() {
                return false;
            }
            depth -= 1;
        }
    }
}

/// Every occurrence (`offsets` of `word`, in order) as a possible reference of unjudged code.
pub fn unjudged(text: &str, word: &str, offsets: &[usize]) -> Vec<Found> {
    let mut line = 1;
    let mut counted = 0;
    offsets
        .iter()
        .map(|&at| {
            line += text.as_bytes()[counted..at]
                .iter()
                .filter(|b| **b == b'\n')
                .count();
            counted = at;
            Found {
                range: at..at + word.len(),
                line,
                role: Role::Use,
                verdict: Verdict::Possible(Doubt::Nesting),
                rewrite: Rewrite::Name,
            }
        })
        .collect()
}

/// The engine's verdict on one occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Certain,
    Possible(Doubt),
    /// A different symbol of the same name.
    NotOurs,
}

/// How a rename rewrites an occurrence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rewrite {
    /// Replace the range by the new name.
    Name,
    /// A shorthand field (`Point { x }`, in a literal or a pattern) whose field is renamed: the
    /// new name is written before it (`Point { y: x }`).
    FieldBeforeShorthand,
    /// A shorthand field whose variable is renamed: the new name is written after it
    /// (`Point { x: y }`).
    ValueAfterShorthand,
    /// A shorthand field of a pattern with binding modifiers (`Foo { ref mut x }`, the
    /// modifiers at `modifiers`, before the name): the edit covers them and moves them after
    /// the colon, `Foo { y: ref mut x }` (the field renamed) or `Foo { x: ref mut y }` (the
    /// variable renamed); `ref y: x` is no Rust.
    ModifiedShorthand {
        modifiers: Range<usize>,
        field_renamed: bool,
    },
    /// Left alone by a rename (a doc mention listed for the user).
    Keep,
}

/// The shorthand rewrite of a name in a shorthand field (`field_renamed`: the field's name
/// changes, not the variable's), with the binding modifiers in front of it (`ref`, `mut`)
/// when there are: `modifiers` is the bytes between the field pattern's start and the name.
pub fn shorthand_rewrite(modifiers: Range<usize>, field_renamed: bool) -> Rewrite {
    if !modifiers.is_empty() {
        Rewrite::ModifiedShorthand {
            modifiers,
            field_renamed,
        }
    } else if field_renamed {
        Rewrite::FieldBeforeShorthand
    } else {
        Rewrite::ValueAfterShorthand
    }
}

/// One occurrence of the name, judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// The name itself (inside a string for `__all__` entries).
    pub range: Range<usize>,
    /// 1-based line of `range.start`.
    pub line: usize,
    pub role: Role,
    pub verdict: Verdict,
    pub rewrite: Rewrite,
}

impl Found {
    pub fn new(node: Node<'_>, role: Role, verdict: Verdict) -> Found {
        Found {
            range: node.byte_range(),
            line: node.start_position().row + 1,
            role,
            verdict,
            rewrite: Rewrite::Name,
        }
    }

    pub fn with_rewrite(mut self, rewrite: Rewrite) -> Found {
        self.rewrite = rewrite;
        self
    }
}

/// A binding of a name visible at some point, for the checks of a new name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    /// 1-based line of the binding.
    pub line: usize,
    /// What binds it, in a word ("function", "import", "local variable", "method").
    pub what: &'static str,
}

/// The `from m import …` statements at the top of a file (module as written, each name with
/// its alias, whether it imports `*`), in order: what [`Resolver::learn`] reads of a file for an
/// item whatever the reach, so the engine can keep it as a fact and learn without a tree.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopImports(pub Vec<TopImport>);

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopImport {
    pub module: String,
    pub names: Vec<(String, Option<String>)>,
    pub star: bool,
}

/// The references questions one language answers. Methods take trees of that language.
pub trait Resolver: Sync {
    /// The target whose name token starts at `at` in the file at `path` (a definition, or a
    /// use the file itself resolves: a local, an import, a member through `self`).
    fn target_at(&self, tree: &Tree, text: &str, path: &str, at: usize)
    -> Result<Target, NoTarget>;

    /// What the project knows before any other file is read: the defining module's exports,
    /// the owner type.
    fn start(&self, target: &Target, tree: &Tree, text: &str) -> Reach;

    /// What one file adds to `reach` (a re-export, a subclass, a trait impl); the words whose
    /// files must be read next (an alias it is re-exported under, a subclass's name).
    fn learn(
        &self,
        target: &Target,
        path: &str,
        tree: &Tree,
        text: &str,
        reach: &mut Reach,
    ) -> Vec<String>;

    /// Whether [`learn`](Resolver::learn) learns nothing from any file for this target (a
    /// method of no trait: no file widens its reach): the engine then parses a candidate only
    /// when no verdict kept for it answers.
    fn learns_nothing(&self, _target: &Target) -> bool {
        false
    }

    /// Whether [`learn`](Resolver::learn) reads nothing of a file but its
    /// [`top_imports`](Resolver::top_imports) for this target: the engine then learns through
    /// [`learn_from_imports`](Resolver::learn_from_imports), keeping the imports as a fact.
    fn learns_from_imports(&self, _target: &Target) -> bool {
        false
    }

    /// The file's top imports, as [`learn_from_imports`](Resolver::learn_from_imports) reads
    /// them.
    fn top_imports(&self, _tree: &Tree, _text: &str) -> TopImports {
        TopImports::default()
    }

    /// [`learn`](Resolver::learn) from the file's top imports alone.
    fn learn_from_imports(
        &self,
        _target: &Target,
        _path: &str,
        _imports: &TopImports,
        _reach: &mut Reach,
    ) -> Vec<String> {
        Vec::new()
    }

    /// The words whose files can hold a reference (beyond the name): an owner class whose
    /// subclasses must be found.
    fn search_words(&self, target: &Target) -> Vec<String>;

    /// The words a partial tree of a file must also be parsed around for [`Resolver::judge`]
    /// (`import`, `use`, and [`crate::lang::partial::WHOLE_FUNCTIONS`] when the functions around
    /// the occurrences are read whole), or `None` when judging needs whole trees (receivers'
    /// types are read from anywhere in a function).
    fn context_words(&self, target: &Target) -> Option<&'static [&'static str]>;

    /// Judges the occurrences (`offsets` of the whole word `word`, in order) of one file.
    /// `tree` holds at least the statements around them and the file's imports.
    // The file's facts (path, tree, text) and the word's (word, offsets) are what every
    // language needs; a struct for them would only rename the arguments.
    #[allow(clippy::too_many_arguments)]
    fn judge(
        &self,
        target: &Target,
        reach: &Reach,
        path: &str,
        tree: &Tree,
        text: &str,
        word: &str,
        offsets: &[usize],
    ) -> Vec<Found>;

    /// [`judge`](Resolver::judge), taking the local bindings of a name in this file from
    /// `locals` (the shell keeps them by content, and the refactor that asks next reads the
    /// same); by default they are not asked for.
    #[allow(clippy::too_many_arguments)]
    fn judge_with_locals(
        &self,
        target: &Target,
        reach: &Reach,
        path: &str,
        tree: &Tree,
        text: &str,
        word: &str,
        offsets: &[usize],
        _locals: &dyn Fn(&str) -> std::sync::Arc<crate::lang::locals::Locals>,
    ) -> Vec<Found> {
        self.judge(target, reach, path, tree, text, word, offsets)
    }

    /// What already binds `name` where the occurrence at `at` sits (a local, a definition or
    /// import of the module, a member of the class the occurrence is in).
    fn bound_at(&self, tree: &Tree, text: &str, at: usize, name: &str) -> Option<Bound>;

    /// [`Resolver::bound_at`] for many occurrences of one file, in their order: the binding the
    /// first of them that has one finds. Languages work out once what the occurrences share
    /// (the scopes of the file, a function's names), so thousands of them stay linear.
    fn first_bound(&self, tree: &Tree, text: &str, offsets: &[usize], name: &str) -> Option<Bound> {
        offsets
            .iter()
            .find_map(|&at| self.bound_at(tree, text, at, name))
    }

    /// What already binds `name` at the top of the module of the file (a definition, an
    /// import).
    fn module_binding(&self, tree: &Tree, text: &str, name: &str) -> Option<Bound>;

    /// The offset of the parameter `keyword` of the function (or class, through its
    /// constructor) `function` defined in this file: where a keyword argument of its calls
    /// leads.
    fn keyword_parameter(
        &self,
        _tree: &Tree,
        _text: &str,
        _function: &Target,
        _keyword: &str,
    ) -> Option<usize> {
        None
    }

    /// The offset of the name of the class whose calls construct through `function` (a
    /// Python `__init__`): their keyword arguments name its parameters too.
    fn constructed_by(&self, _tree: &Tree, _text: &str, _function: &Target) -> Option<usize> {
        None
    }

    /// A member called `name` of a type (or class) `owner` defined in this file.
    fn member_binding(&self, tree: &Tree, text: &str, owner: &str, name: &str) -> Option<Bound>;

    /// Occurrences of `name` inside the local target's scope that the new name would capture
    /// or be captured by: names read there that the binding would shadow.
    fn captured(&self, tree: &Tree, text: &str, target: &Target, name: &str) -> Option<Bound>;
}

/// The module a file is, as the language names modules from paths (`pkg/util.py` is
/// `pkg.util`, `src/net/http.rs` is `net::http`).
pub fn module_of_path(lang: Language, path: &str) -> Vec<String> {
    match lang {
        Language::Rust => super::rust::paths::module_of_file(path),
        Language::Python => super::python::modules::module_parts(path),
    }
}

/// Where an occurrence of the searched word stands in the tree.
pub enum Spot<'t> {
    /// In a string literal (the outermost string node), not in an f-string's code.
    String(Node<'t>),
    /// In a comment.
    Comment(Node<'t>),
    /// A name token: the leaf and its ancestors (root first, the leaf's parent last).
    Name {
        node: Node<'t>,
        ancestors: Vec<Node<'t>>,
    },
    /// Anything else (part of a longer token, a partial tree that left it out).
    Other,
}

/// The spots of the whole-word occurrences `offsets` of `word` (in order), through one
/// [`NodeFinder`]: linear in the occurrences.
pub fn spots<'t>(
    lang: Language,
    tree: &'t Tree,
    text: &str,
    word: &str,
    offsets: &[usize],
) -> Vec<(usize, Spot<'t>)> {
    let mut finder = NodeFinder::new(tree);
    let mut out = Vec::with_capacity(offsets.len());
    for &offset in offsets {
        let end = offset + word.len();
        finder.seek(offset, end);
        let path = finder.path();
        let spot = spot_in(lang, path, text, offset..end);
        out.push((offset, spot));
    }
    out
}

fn spot_in<'t>(lang: Language, path: &[Node<'t>], text: &str, range: Range<usize>) -> Spot<'t> {
    // The outermost string or comment on the path, unless the word is code inside an
    // f-string's interpolation (below the string).
    let mut text_node: Option<(Node<'t>, bool)> = None;
    for node in path {
        match (lang, node.kind()) {
            (Language::Python, "string")
            | (Language::Rust, "string_literal" | "raw_string_literal")
                if text_node.is_none() =>
            {
                text_node = Some((*node, true));
            }
            (Language::Python, "comment") | (Language::Rust, "line_comment" | "block_comment")
                if text_node.is_none() =>
            {
                text_node = Some((*node, false));
            }
            (Language::Python, "interpolation") => text_node = None,
            _ => {}
        }
    }
    let Some(leaf) = path.last().copied() else {
        return Spot::Other;
    };
    if let Some((node, is_string)) = text_node {
        return if is_string {
            Spot::String(node)
        } else {
            Spot::Comment(node)
        };
    }
    let is_name = matches!(
        (lang, leaf.kind()),
        (
            Language::Rust,
            "identifier" | "type_identifier" | "field_identifier" | "shorthand_field_identifier"
        ) | (Language::Python, "identifier")
    );
    if !is_name || leaf.byte_range() != range || node_text(leaf, text).len() != range.len() {
        return Spot::Other;
    }
    Spot::Name {
        node: leaf,
        ancestors: path[..path.len() - 1].to_vec(),
    }
}

/// The parent of a spot's leaf (the last ancestor).
pub fn parent_of<'t>(ancestors: &[Node<'t>]) -> Option<Node<'t>> {
    ancestors.last().copied()
}

/// The value of a string literal when it is exactly `name` between its quotes.
pub fn string_is_name(literal: &str, name: &str) -> Option<usize> {
    let start = literal.find(['"', '\''])?;
    let quote = &literal[start..start + 1];
    let inner = literal[start + 1..].strip_suffix(quote)?;
    (inner == name).then_some(start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The depth of the deepest node, by a walk of every node: what `nests_deeper_than` must
    /// agree with.
    fn deepest(tree: &Tree) -> usize {
        let mut cursor = tree.walk();
        let (mut depth, mut deepest) = (0usize, 0usize);
        loop {
            if cursor.goto_first_child() {
                depth += 1;
                deepest = deepest.max(depth);
                continue;
            }
            loop {
                if cursor.goto_next_sibling() {
                    break;
                }
                if !cursor.goto_parent() {
                    return deepest;
                }
                depth -= 1;
            }
        }
    }

    #[test]
    fn nesting_is_judged_at_every_limit_around_the_depth_of_the_tree() {
        // Deep chains in the middle of a file, shallow code around them, in both languages: the
        // walk that skips small subtrees must answer as the walk of every node does, at the
        // limits just below, at and above the tree's depth.
        let texts = [
            (
                Language::Python,
                format!(
                    "a = 1\nx = {}1{}\nb = [2]\n",
                    "(".repeat(60),
                    ")".repeat(60)
                ),
            ),
            (
                Language::Python,
                format!("def f():\n    return {}\n", "-".repeat(90) + "1"),
            ),
            (
                Language::Rust,
                format!(
                    "fn f() {{ let x = {}1{}; }}\nfn g() {{}}\n",
                    "[".repeat(70),
                    "]".repeat(70)
                ),
            ),
            (
                Language::Rust,
                format!("fn f() -> u8 {{ {}0 }}\n", "!".repeat(120)),
            ),
        ];
        for (lang, text) in texts {
            let tree = lang.parse(&text);
            let depth = deepest(&tree);
            assert!(depth > 60, "{lang:?}: depth {depth}");
            for limit in depth.saturating_sub(3)..=depth + 3 {
                assert_eq!(
                    nests_deeper_than(&tree, limit),
                    depth > limit,
                    "{lang:?}, depth {depth}, limit {limit}"
                );
            }
        }
    }

    #[test]
    fn spots_tell_code_strings_and_comments_apart() {
        let text = "def f():\n    # f here\n    x = f'{f(1)} f'\n    return f\n";
        let tree = Language::Python.parse(text);
        let offsets = crate::lang::calls::word_matches(text, "f");
        let kinds: Vec<&str> = spots(Language::Python, &tree, text, "f", &offsets)
            .iter()
            .map(|(_, s)| match s {
                Spot::String(_) => "string",
                Spot::Comment(_) => "comment",
                Spot::Name { .. } => "name",
                Spot::Other => "other",
            })
            .collect();
        // `def f`, `# f`, `f'` (the prefix, inside the string node), `{f(1)}` code, ` f'` in
        // the string, `return f`.
        assert_eq!(
            kinds,
            ["name", "comment", "string", "name", "string", "name"]
        );
        assert_eq!(string_is_name("\"dedent\"", "dedent"), Some(1));
        assert_eq!(string_is_name("'x.dedent'", "dedent"), None);
    }
}
