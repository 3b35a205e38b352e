//! Rust: what the project's other files declare that the file of an extraction does not say —
//! the return type of a method or function, the type of a struct's field — kept only when the
//! file can name every type in it: by its own items and imports, the prelude, or the full path
//! of a type the other file imports from another crate (`use semver::Error;` gives
//! `semver::Error`). Reads the sources it is handed; writes nothing.

use tree_sitter::Tree;

use crate::lang::Language;
use crate::lang::rust::imports::{self, PathTo};
use crate::lang::rust::paths;
use crate::lang::rust::types;
use crate::refactor::Sources;

/// Types any Rust file can name without an import.
const PRELUDE_TYPES: &[&str] = &[
    "String", "Vec", "Option", "Result", "Box", "Self", "Some", "None", "Ok", "Err", "str",
];

/// Return types of methods and types of fields declared in the project's other files, read
/// once per question.
pub struct ElsewhereReturns<'a> {
    pub sources: &'a dyn Sources,
    pub file: &'a str,
    /// The names this file binds at its top level (items and imports): a type read elsewhere
    /// is only used when every name it holds is one of them or of the prelude.
    pub names_here: std::collections::HashSet<String>,
    pub found: std::cell::RefCell<std::collections::HashMap<(String, String), Option<String>>>,
}

impl ElsewhereReturns<'_> {
    pub fn answer(&self, asked: types::Elsewhere<'_>) -> Option<String> {
        use types::Elsewhere;
        let (owner, key_name) = match asked {
            Elsewhere::Return { owner, name } => (owner, name.to_string()),
            Elsewhere::Field { owner, field } => (owner, format!(".{field}")),
        };
        let key = (owner.to_string(), key_name);
        if let Some(found) = self.found.borrow().get(&key) {
            return found.clone();
        }
        let declared = match asked {
            Elsewhere::Return { owner, name } => {
                self.look_up(&format!("fn {name}"), |tree, text| {
                    let owner = (!owner.is_empty()).then_some(owner);
                    types::function_return(tree.root_node(), text, owner, name)
                })
            }
            Elsewhere::Field { owner, field } if !owner.is_empty() => self
                .look_up(&format!("struct {owner}"), |tree, text| {
                    types::struct_field_type(tree.root_node(), text, owner, field)
                }),
            Elsewhere::Field { .. } => None,
        };
        let found = declared
            .map(|(ty, heads)| (types::self_replaced(&ty, Some(owner)), heads))
            .filter(|(ty, heads)| {
                types::type_names(ty).iter().all(|n| {
                    self.names_here.contains(*n)
                        || PRELUDE_TYPES.contains(n)
                        || heads.iter().any(|h| h == n)
                })
            })
            .map(|(ty, _)| ty);
        self.found.borrow_mut().insert(key, found.clone());
        found
    }

    /// The first answer `read` gives in another file mentioning `word`, with the names that
    /// file imports from another crate written by their full paths (and those crates' names).
    fn look_up(
        &self,
        word: &str,
        read: impl Fn(&Tree, &str) -> Option<String>,
    ) -> Option<(String, Vec<String>)> {
        let files = self.sources.files_mentioning(Language::Rust, word).ok()?;
        let mut others: Vec<_> = files.files.iter().filter(|f| f.path != self.file).collect();
        // A module this file declares or imports (`mod util;`, `use crate::util::*`) first: the
        // name it calls is more likely that module's than another file's of the same name.
        others.sort_by_key(|f| !self.names_here.contains(module_name(&f.path)));
        others.into_iter().find_map(|file| {
            let tree = self.sources.parsed().tree(Language::Rust, file);
            let ty = read(&tree, &file.text)?;
            Some(self.with_crate_paths(ty, &tree, &file.text))
        })
    }

    /// `ty` as read in another file, each name this file cannot name that the other file
    /// imports from another crate (`use semver::{Error, Version};`) written by that path
    /// (`semver::Error`); and the crates' names. A path whose head the other file binds itself
    /// (`mod parse;`, `use a::parse;`) or this file does is left: it may not be a crate.
    fn with_crate_paths(&self, ty: String, tree: &Tree, text: &str) -> (String, Vec<String>) {
        let bound_there: std::collections::HashSet<String> =
            imports::top_level_bindings(tree, text)
                .into_iter()
                .map(|b| b.name)
                .collect();
        let missing: Vec<String> = types::type_names(&ty)
            .iter()
            .filter(|n| !self.names_here.contains(**n) && !PRELUDE_TYPES.contains(n))
            .map(|n| n.to_string())
            .collect();
        let mut ty = ty;
        let mut heads = Vec::new();
        for name in missing {
            let from_a_crate = |head: &[String], inline: &[String]| {
                inline.is_empty()
                    && head.first().is_some_and(|h| {
                        !paths::starts_in_this_crate(h)
                            && !bound_there.contains(h)
                            && !self.names_here.contains(h)
                    })
            };
            let path = imports::paths_to(tree, text, &name, from_a_crate)
                .into_iter()
                .find_map(|(_, path, _)| match path {
                    PathTo::Use(path) => Some(path),
                    _ => None,
                });
            if let Some(path) = path {
                ty = with_word_replaced(&ty, &name, &path.join("::"));
                heads.push(path[0].clone());
            }
        }
        (ty, heads)
    }
}

/// The module a file is: `tests/util/mod.rs` → `util`, `src/parse.rs` → `parse`.
fn module_name(path: &str) -> &str {
    let path = path.strip_suffix("/mod.rs").unwrap_or(path);
    let file = path.rsplit('/').next().unwrap_or(path);
    file.strip_suffix(".rs").unwrap_or(file)
}

/// `ty` with each whole name `word` that is not already a path's tail replaced by `by`.
fn with_word_replaced(ty: &str, word: &str, by: &str) -> String {
    let mut out = String::new();
    let mut rest = ty;
    while let Some(at) = rest.find(word) {
        let before = &rest[..at];
        let after = &rest[at + word.len()..];
        let starts = !before.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':');
        let ends = !after.starts_with(|c: char| c.is_alphanumeric() || c == '_');
        out.push_str(before);
        out.push_str(if starts && ends { by } else { word });
        rest = after;
    }
    out.push_str(rest);
    out
}
