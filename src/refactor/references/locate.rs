//! Which symbol a request means: a definition found by name or `name_path` in the file's
//! outline, a member or local found inside its container (`Type/field`, `function/variable`),
//! or the name at `line`/`column` — a definition or a use, followed through the file's imports
//! to the project file that defines it.

use tree_sitter::Tree;

use super::wording as w;
use crate::edit::SourceFile;
use crate::lang::Language;
use crate::lang::refs::{NoTarget, Target, TargetKind, module_of_path};
use crate::lang::symbols::{LookupError, Symbol, SymbolKind, SymbolQuery, resolve};
use crate::refactor::{RefactorError, SourceError, Sources};

/// The full tree of the file a query names. A query by a plain name alone (no column, no
/// container, not a lifetime) names an item of the file's outline, whose references are then
/// searched for in the project by that name — in Python, a module-level item, also by its
/// module's name (the files that star-import the module re-export it) —: the parse runs beside
/// that search ([`Sources::search_ahead`]), each on a core.
fn tree_beside_search(
    sources: &dyn Sources,
    lang: Language,
    file: &SourceFile,
    query: &SymbolQuery,
) -> Tree {
    let store = sources.parsed();
    let name = query.name.as_str();
    let plain = query.column.is_none()
        && !name.is_empty()
        && name.chars().all(|c| c.is_alphanumeric() || c == '_');
    if !plain {
        return store.tree(lang, file);
    }
    // Only a guess of what the search will ask (a wrong one costs a search, never a result): a
    // Python name defined at the top of its file is a module-level item; a plain name may also
    // be a method's, searched with its class's or trait's name, not its module's.
    let module = match lang {
        Language::Python if defined_at_top_level(&file.text, name) => {
            module_of_path(lang, &file.path).pop()
        }
        _ => None,
    };
    let words: Vec<&str> = std::iter::once(name).chain(module.as_deref()).collect();
    let mut tree = None;
    let slot = &mut tree;
    store.run(vec![
        Box::new(move || *slot = Some(store.tree(lang, file))),
        Box::new(|| sources.search_ahead(lang, &words)),
    ]);
    tree.unwrap_or_else(|| store.tree(lang, file))
}

/// Whether a line of `text` starts (unindented) with a Python definition of `name`: `def`,
/// `async def`, `class`, or an assignment or annotation of it.
fn defined_at_top_level(text: &str, name: &str) -> bool {
    let defines = |line: &str| {
        let line = line.strip_prefix("async ").unwrap_or(line);
        let rest = ["def ", "class "]
            .iter()
            .find_map(|keyword| line.strip_prefix(keyword))
            .map(str::trim_start)
            .unwrap_or(line);
        rest.strip_prefix(name).is_some_and(|after| {
            !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                && (rest.len() != line.len() || after.trim_start().starts_with(['=', ':']))
        })
    };
    text.lines().any(defines)
}

/// How many re-exports a lookup follows before it gives up.
const MAX_HOPS: usize = 8;

/// The symbol, with the file that defines it and its full tree.
pub struct Located {
    pub file: SourceFile,
    pub tree: Tree,
    pub target: Target,
}

pub fn locate(
    sources: &dyn Sources,
    path: &str,
    query: &SymbolQuery,
    lang: Language,
) -> Result<Located, RefactorError> {
    let file = read(sources, path)?;
    let store = sources.parsed();
    let tree = tree_beside_search(sources, lang, &file, query);
    let resolver = lang.resolver();
    // A lifetime is named with its `'` (`'a`); its name token is the word after it.
    let last = query
        .name
        .rsplit('/')
        .next()
        .unwrap_or(&query.name)
        .trim_start_matches('\'')
        .to_string();
    let found = if let (Some(line), Some(column)) = (query.line, query.column) {
        let at =
            name_at(&file.text, line, column).ok_or_else(|| RefactorError::InvalidArgument {
                param: "column",
                message: w::no_name_at(path, line, column),
            })?;
        let word = word_at(&file.text, at);
        if !last.is_empty() && word != last {
            return Err(RefactorError::InvalidArgument {
                param: "column",
                message: w::other_name_at(path, line, column, word, &last),
            });
        }
        resolver.target_at(&tree, &file.text, path, at)
    } else {
        let symbols = store.outline(lang, &file, &tree);
        by_name(&symbols, query, &last, &tree, &file, lang)?
    };
    match found {
        Ok(target) => Ok(Located { file, tree, target }),
        Err(NoTarget::Elsewhere { module, name }) => follow(sources, lang, module, name, path),
        Err(NoTarget::Keyword {
            module,
            function,
            keyword,
        }) => {
            let located = follow(sources, lang, module, function, path)?;
            keyword_of(lang, located, &keyword)
        }
        Err(other) => Err(no_target(other, path, query.line.unwrap_or(0), &last)),
    }
}

/// The parameter `keyword` of the function `located`: where a keyword argument leads.
fn keyword_of(lang: Language, located: Located, keyword: &str) -> Result<Located, RefactorError> {
    let Located { file, tree, target } = located;
    let resolver = lang.resolver();
    let at = resolver
        .keyword_parameter(&tree, &file.text, &target, keyword)
        .ok_or_else(|| {
            RefactorError::NotFound(w::no_parameter(
                &target.name,
                target.label,
                keyword,
                &target.path,
            ))
        })?;
    match resolver.target_at(&tree, &file.text, &file.path, at) {
        Ok(target) => Ok(Located { file, tree, target }),
        Err(other) => Err(no_target(other, &file.path, 0, keyword)),
    }
}

fn read(sources: &dyn Sources, path: &str) -> Result<SourceFile, RefactorError> {
    Ok(sources.file(path)?.ok_or_else(|| SourceError::Missing {
        path: path.to_string(),
    })?)
}

/// The target from the outline, or from the occurrences of the name inside the container
/// the name path gives (or on the line given).
fn by_name(
    symbols: &[Symbol],
    query: &SymbolQuery,
    last: &str,
    tree: &Tree,
    file: &SourceFile,
    lang: Language,
) -> Result<Result<Target, NoTarget>, RefactorError> {
    let resolver = lang.resolver();
    let text = &file.text;
    let outline = resolve(symbols, query, "symbol", |s| s.kind != SymbolKind::Impl);
    let error = match outline {
        Ok(symbol) => {
            return Ok(resolver.target_at(tree, text, &file.path, symbol.name_range.start));
        }
        Err(error @ LookupError::Ambiguous { .. }) => return Err(error.into()),
        Err(error) => error,
    };
    // A member or a local: inside its container, or on the given line.
    let container: Vec<&str> = query.name.split('/').collect();
    // Every symbol the container path names (a struct and its impls, a class).
    // In a function, its locals come first; in a type or class, its members.
    let mut locals_first = true;
    let within: Vec<std::ops::Range<usize>> = if container.len() > 1 {
        let wanted = &container[..container.len() - 1];
        let matching: Vec<&Symbol> = symbols
            .iter()
            .filter(|s| {
                let path: Vec<&str> = s.name_path.split('/').collect();
                path.len() >= wanted.len() && path[path.len() - wanted.len()..] == wanted[..]
            })
            .collect();
        locals_first = matching.iter().all(|s| s.kind.is_function());
        let ranges: Vec<_> = matching.iter().map(|s| s.range.clone()).collect();
        if ranges.is_empty() {
            let container_query = SymbolQuery {
                name: wanted.join("/"),
                line: None,
                column: None,
            };
            resolve(symbols, &container_query, "symbol", |_| true)?;
        }
        ranges
    } else {
        query
            .line
            .map(|line| line_range(text, line))
            .into_iter()
            .collect()
    };
    if within.is_empty() {
        return Err(error.into());
    }
    let occurrences: Vec<usize> = crate::lang::calls::word_matches(text, last)
        .into_iter()
        .filter(|at| within.iter().any(|r| r.contains(at)))
        .collect();
    let targets: Vec<Target> = occurrences
        .iter()
        .filter_map(|&at| resolver.target_at(tree, text, &file.path, at).ok())
        .collect();
    let preferred = targets
        .iter()
        .find(|t| matches!(t.kind, TargetKind::Local(_)) == locals_first)
        .or_else(|| targets.first());
    match preferred {
        Some(target) => Ok(Ok(target.clone())),
        None => Err(error.into()),
    }
}

/// Follows a name imported from `module` to the project file that defines it.
fn follow(
    sources: &dyn Sources,
    lang: Language,
    mut module: Vec<String>,
    mut name: String,
    from: &str,
) -> Result<Located, RefactorError> {
    let resolver = lang.resolver();
    for _ in 0..MAX_HOPS {
        let sites = sources.word_sites(lang, &name)?;
        let mut next = None;
        for (file, _) in sites.files {
            let parts = module_of_path(lang, &file.path);
            let matches =
                parts.len() >= module.len() && parts[parts.len() - module.len()..] == module[..];
            if !matches {
                continue;
            }
            let tree = sources.parsed().tree_in_passing(lang, &file);
            let symbols = sources.parsed().outline(lang, &file, &tree);
            let definition = symbols
                .iter()
                .find(|s| s.top_level && s.name == name && s.kind != SymbolKind::Impl);
            let at = match definition {
                Some(symbol) => symbol.name_range.start,
                None => match first_import_of(&file.text, &name) {
                    Some(at) => at,
                    None => continue,
                },
            };
            match resolver.target_at(&tree, &file.text, &file.path, at) {
                Ok(target) => return Ok(Located { file, tree, target }),
                Err(NoTarget::Elsewhere { module, name }) => next = Some((module, name)),
                Err(_) => {}
            }
        }
        match next {
            Some((m, n)) => {
                module = m;
                name = n;
            }
            None => break,
        }
    }
    Err(RefactorError::NotFound(w::not_in_project(
        &name,
        &module.join(if lang == Language::Rust { "::" } else { "." }),
        from,
    )))
}

/// The first whole-word occurrence of `name` on an import line (a re-export).
fn first_import_of(text: &str, name: &str) -> Option<usize> {
    crate::lang::calls::word_matches(text, name)
        .into_iter()
        .find(|at| {
            let line_start = text[..*at].rfind('\n').map_or(0, |i| i + 1);
            let line = text[line_start..].trim_start();
            line.starts_with("from ") || line.starts_with("import ") || line.starts_with("pub use ")
        })
}

fn no_target(no: NoTarget, path: &str, line: usize, name: &str) -> RefactorError {
    match no {
        NoTarget::NotAName => RefactorError::InvalidArgument {
            param: "column",
            message: w::not_a_name(path, line),
        },
        NoTarget::Special { name } => RefactorError::Unsupported(w::special_name(&name)),
        NoTarget::Module { name, module } => {
            RefactorError::Unsupported(w::module_name(&name, &module, path))
        }
        NoTarget::Unresolved { name: found } => RefactorError::NotFound(w::unresolved(
            if found.is_empty() { name } else { &found },
            path,
        )),
        NoTarget::Elsewhere { module, name } => {
            RefactorError::NotFound(w::not_in_project(&name, &module.join("."), path))
        }
        NoTarget::Keyword {
            module, function, ..
        } => RefactorError::NotFound(w::not_in_project(&function, &module.join("."), path)),
    }
}

/// The byte offset of 1-based `line` and `column` (characters), on a name.
fn name_at(text: &str, line: usize, column: usize) -> Option<usize> {
    let range = line_range(text, line);
    if range.is_empty() && column > 1 {
        return None;
    }
    let line_text = &text[range.clone()];
    let offset = line_text
        .char_indices()
        .nth(column - 1)
        .map(|(i, _)| range.start + i)?;
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    if !text[offset..].chars().next().is_some_and(is_word) {
        return None;
    }
    // Back to the start of the word.
    let start = text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| is_word(*c))
        .last()
        .map_or(offset, |(i, _)| i);
    Some(start)
}

fn word_at(text: &str, at: usize) -> &str {
    let end = text[at..]
        .char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map_or(text.len(), |(i, _)| at + i);
    &text[at..end]
}

/// The byte range of 1-based `line` (without its line ending).
fn line_range(text: &str, line: usize) -> std::ops::Range<usize> {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => return text.len()..text.len(),
        }
    }
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    let end = if text[..end].ends_with('\r') {
        end - 1
    } else {
        end
    };
    start..end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_to_names() {
        let text = "def f(x):\n    return größe + x\n";
        assert_eq!(name_at(text, 1, 5), Some(4));
        assert_eq!(name_at(text, 2, 15), Some(text.find("größe").unwrap()));
        assert_eq!(name_at(text, 2, 13), Some(text.find("größe").unwrap()));
        assert_eq!(name_at(text, 2, 18), None, "the `+`");
        assert_eq!(word_at(text, text.find("größe").unwrap()), "größe");
        assert_eq!(name_at(text, 9, 1), None);
    }

    /// Files in memory that note each word searched ahead.
    struct Ahead {
        files: crate::refactor::MemorySources,
        words: std::sync::Mutex<Vec<String>>,
    }

    impl Sources for Ahead {
        fn file(&self, path: &str) -> Result<Option<SourceFile>, SourceError> {
            self.files.file(path)
        }

        fn files_mentioning(
            &self,
            lang: Language,
            word: &str,
        ) -> Result<crate::refactor::Mentioning, SourceError> {
            self.files.files_mentioning(lang, word)
        }

        fn dir_exists(&self, path: &str) -> bool {
            self.files.dir_exists(path)
        }

        fn search_ahead(&self, _lang: Language, words: &[&str]) {
            let mut asked = self.words.lock().unwrap();
            asked.extend(words.iter().map(|word| word.to_string()));
        }
    }

    #[test]
    fn a_query_by_a_plain_name_searches_for_it_beside_the_parse() {
        let text = "pub struct P;\nimpl P {\n    pub fn size(&self) -> u8 {\n        let n = 1;\n        n\n    }\n}\n";
        let ahead = Ahead {
            files: crate::refactor::MemorySources::new().with("src/lib.rs", text),
            words: std::sync::Mutex::default(),
        };
        let query = |name: &str, column: Option<usize>| SymbolQuery {
            name: name.to_string(),
            line: Some(3),
            column,
        };
        let located = locate(&ahead, "src/lib.rs", &query("size", None), Language::Rust);
        assert_eq!(located.ok().map(|l| l.target.name), Some("size".into()));
        assert_eq!(*ahead.words.lock().unwrap(), ["size"]);
        // A container (maybe a function's local), a column (maybe a local), a lifetime: no
        // search is sure to follow.
        for (name, column) in [("P/size", None), ("size/n", None), ("size", Some(12))] {
            let _ = locate(&ahead, "src/lib.rs", &query(name, column), Language::Rust);
        }
        assert_eq!(*ahead.words.lock().unwrap(), ["size"]);
        // A Python module-level item: its module's name too, which the references engine
        // searches for the star imports of the module.
        let ahead = Ahead {
            files: crate::refactor::MemorySources::new()
                .with("pkg/textwrap.py", "def dedent(text):\n    return text\n"),
            words: std::sync::Mutex::default(),
        };
        let query = SymbolQuery {
            name: "dedent".to_string(),
            line: None,
            column: None,
        };
        let located = locate(&ahead, "pkg/textwrap.py", &query, Language::Python);
        let module = located.ok().and_then(|l| l.target.module.last().cloned());
        assert_eq!(module.as_deref(), Some("textwrap"));
        assert_eq!(*ahead.words.lock().unwrap(), ["dedent", "textwrap"]);
        // A method by its plain name and line: searched with its class's name, which the
        // engine asks next; its module's is not guessed.
        let ahead = Ahead {
            files: crate::refactor::MemorySources::new().with(
                "pkg/shapes.py",
                "class Shape:\n    def area(self):\n        return 0\n",
            ),
            words: std::sync::Mutex::default(),
        };
        let query = SymbolQuery {
            name: "area".to_string(),
            line: Some(2),
            column: None,
        };
        let _ = locate(&ahead, "pkg/shapes.py", &query, Language::Python);
        assert_eq!(*ahead.words.lock().unwrap(), ["area"]);
    }

    #[test]
    fn a_python_definition_at_the_top_of_its_file_is_told_from_the_text() {
        let text = "import os\n\nasync def fetch(x):\n    pass\nclass Box :\n    def put(self):\n        pass\nLIMIT: int = 3\nname = 1\nnamed = 2\ndef names(): pass\n";
        for name in ["fetch", "Box", "LIMIT", "name", "named", "names"] {
            assert!(defined_at_top_level(text, name), "{name}");
        }
        // Indented, a longer name, a mention, a call at the top.
        for name in ["put", "nam", "os", "x", "fet"] {
            assert!(!defined_at_top_level(text, name), "{name}");
        }
        assert!(!defined_at_top_level("print(value)\n", "print"));
    }
}
