//! Move to file: moves a top-level item with its doc comments, attributes or decorators to
//! another file of the same language, creating it when missing. Around the code it carries what
//! the code needs: the imports of the moved code go to the target (and those the source no longer
//! needs leave it), the items of the source it reaches become importable and are imported, the
//! source imports the item back where it still uses it, and the imports and paths of other files
//! that reached the item at its old place are rewritten. Pure: the project is seen only through
//! [`Sources`]. Module paths, imports and visibility are per language (`python`, `rust`).
//!
//! What cannot be carried (a private field, a module variable rebound in place, a path in a
//! string) is a finding; the canonical caveats stay, with a caveat note for what was done.

mod assemble;
mod block;
mod carry;
mod notes;
mod python;
mod rust;
mod wording;

use std::ops::Range;
use wording as w;

use tree_sitter::Tree;

use super::{
    Details, MoveDetails, MoveRequest, MovedPiece, Plan, RefactorError, SourceError, Sources,
};
use crate::edit::SourceFile;
use crate::lang::Language;
use crate::lang::symbols::{LookupError, Symbol, SymbolKind, SymbolQuery, resolve};
pub(super) use crate::lang::syntax::Binding;
use crate::text::surgery;
use crate::text::{LineIndex, TextStyle};
use notes::Resolver;
use notes::{At, Note};

/// At most this many findings of one kind (third-file callers, dependencies); the rest are
/// summed up in one more finding.
const MAX_FINDINGS_PER_KIND: usize = 20;

/// How the module path of a Python import was found (the driver's `python` module finds it,
/// `wording` says it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Basis {
    /// From the top of a chain of packages (directories with `__init__.py`).
    Package,
    /// A module in the importer's own directory (run as scripts from there).
    SameDirectory,
    /// From the project root (a leading `src/` dropped): a guess that the root is on `sys.path`.
    Root,
}

/// How a language's notes on other files word what they count.
struct ThirdFiles<'w> {
    /// What the "…and N more" line counts (`places`, `paths`).
    counted: &'w str,
    /// What an unreadable file could not be searched for (`imports of it`, `paths to it`).
    searched_for: &'w str,
}

pub fn plan(
    sources: &dyn Sources,
    request: &MoveRequest,
    lang: Language,
) -> Result<Plan, RefactorError> {
    let source = sources
        .file(&request.file)?
        .ok_or_else(|| SourceError::Missing {
            path: request.file.clone(),
        })?;
    let target_path = check_target(lang, &source.path, &request.target_file)?;
    let target = sources.file(&target_path)?;
    if target.is_none() {
        let dir = parent_dir(&target_path);
        if !sources.dir_exists(dir) {
            return Err(RefactorError::InvalidArgument {
                param: "target_file",
                message: w::target_directory_missing(dir, &target_path),
            });
        }
    }
    let store = sources.parsed();
    let tree = store.tree(lang, &source);
    let symbols = store.outline(lang, &source, &tree);
    let symbol = choose_symbol(lang, &symbols, &request.symbol, &source.path)?;
    let moved: Vec<&Symbol> = match lang {
        Language::Rust => {
            rust::check_movable(symbol, &tree)?;
            rust::with_impl_blocks(&symbols, symbol)
        }
        Language::Python => vec![symbol],
    };
    let pieces = pieces_of(lang, &source.text, &moved)?;
    let removals = removals_of(&source.text, &pieces);
    let target_tree = target.as_ref().map(|t| store.tree(lang, t));
    let m = Move {
        sources,
        lang,
        source: &source,
        tree: &tree,
        symbol,
        pieces,
        removals,
        target_path,
        target: target.as_ref(),
        target_tree: target_tree.as_ref(),
        source_style: TextStyle::detect(&source.text),
    };
    m.plan()
}

/// The refused targets: the source itself, another language, a stub for a module.
fn check_target(lang: Language, source: &str, target_file: &str) -> Result<String, RefactorError> {
    let target = normalize_path(target_file);
    let invalid = |message: String| RefactorError::InvalidArgument {
        param: "target_file",
        message,
    };
    if target.is_empty() || target.ends_with('/') {
        return Err(invalid(w::target_not_a_file_path(
            target_file,
            lang.extensions()[0],
        )));
    }
    if target == source {
        return Err(invalid(w::target_is_the_source(&target)));
    }
    let wanted = lang
        .extensions()
        .iter()
        .map(|e| format!(".{e}"))
        .collect::<Vec<_>>()
        .join(", ");
    match Language::from_path(&target) {
        Some(other) if other != lang => Err(invalid(w::target_of_another_language(
            &target,
            other.name(),
            source,
            lang.name(),
            &wanted,
        ))),
        None => Err(invalid(w::target_extension_unknown(
            &target,
            lang.name(),
            &wanted,
        ))),
        Some(_)
            if lang == Language::Python && source.ends_with(".pyi") != target.ends_with(".pyi") =>
        {
            Err(invalid(w::stub_and_module(source, &target)))
        }
        Some(_) => Ok(target),
    }
}

/// `./a//b.py` → `a/b.py`.
fn normalize_path(path: &str) -> String {
    path.replace('\\', "/")
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        .collect::<Vec<_>>()
        .join("/")
        + if path.ends_with('/') { "/" } else { "" }
}

/// `a/b/c.py` → `a/b`; `c.py` → ``.
fn parent_dir(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `a/b/c.py` → `c.py`.
fn file_name(path: &str) -> &str {
    path.rsplit_once('/').map_or(path, |(_, name)| name)
}

/// Resolves the query among the top-level items. A Rust type and its impl blocks share a name
/// path: without a `line`, the type is meant. A nested item is refused with what to move instead.
fn choose_symbol<'s>(
    lang: Language,
    symbols: &'s [Symbol],
    query: &SymbolQuery,
    file: &str,
) -> Result<&'s Symbol, RefactorError> {
    const WANTED: &str = "top-level item";
    match resolve(symbols, query, WANTED, |s| s.top_level) {
        Ok(symbol) => Ok(symbol),
        Err(ambiguous @ LookupError::Ambiguous { .. }) => {
            if query.line.is_some() {
                return Err(ambiguous.into());
            }
            resolve(symbols, query, WANTED, |s| {
                s.top_level && s.kind != SymbolKind::Impl
            })
            .map_err(|_| ambiguous.into())
        }
        Err(not_found) => match resolve(symbols, query, "item", |s| !s.top_level) {
            Ok(nested) => Err(RefactorError::Unsupported(not_top_level(
                lang, symbols, nested, file,
            ))),
            Err(LookupError::Ambiguous { candidates, .. }) => {
                Err(RefactorError::Unsupported(w::not_a_top_level_item(
                    &query.name,
                    file,
                    &(candidates
                        .iter()
                        .map(|(p, l)| w::at_line(p, *l))
                        .collect::<Vec<_>>()
                        .join(", ")),
                )))
            }
            Err(_) => Err(not_found.into()),
        },
    }
}

fn not_top_level(lang: Language, symbols: &[Symbol], nested: &Symbol, file: &str) -> String {
    let container = nested.container.and_then(|c| symbols.get(c));
    let what = match container {
        Some(c) if c.kind == SymbolKind::Impl && lang == Language::Rust => {
            let type_name = c.name_path.rsplit('/').next().unwrap_or(&c.name_path);
            w::method_in_an_impl(&c.name, c.line, type_name)
        }
        Some(c) if c.kind == SymbolKind::Class => w::method_of_a_class(&c.name, c.line),
        Some(c) if c.kind == SymbolKind::Trait => w::method_of_a_trait(&c.name, c.line),
        Some(c) if c.kind == SymbolKind::Module => w::inside_an_inline_module(&c.name, c.line),
        Some(c) => w::defined_inside(&c.name_path, c.line),
        None => w::inside_a_block(file),
    };
    w::not_top_level(&nested.name_path, nested.line, &what)
}

/// One item that moves, as whole lines of the source.
#[derive(Debug, Clone)]
pub(super) struct Piece {
    pub name_path: String,
    pub kind: SymbolKind,
    /// The item itself (after its doc comments and attributes).
    pub item: Range<usize>,
    /// 0-based first and last line.
    pub first_line: usize,
    pub last_line: usize,
    /// The whole lines, terminators included.
    pub bytes: Range<usize>,
}

fn pieces_of(lang: Language, text: &str, moved: &[&Symbol]) -> Result<Vec<Piece>, RefactorError> {
    let index = LineIndex::new(text);
    let markers = lang.syntax().comment_markers();
    let mut pieces = Vec::new();
    for symbol in moved {
        let (first_line, last_line) =
            surgery::owned_lines(text, &index, &symbol.full_range, markers).map_err(|line| {
                RefactorError::Unsupported(w::shares_its_line(&symbol.name_path, line))
            })?;
        pieces.push(Piece {
            name_path: symbol.name_path.clone(),
            kind: symbol.kind,
            item: symbol.range.clone(),
            first_line,
            last_line,
            bytes: index.line_start(first_line)..index.line_start(last_line + 1),
        });
    }
    pieces.sort_by_key(|p| p.first_line);
    if pieces.windows(2).any(|w| w[0].last_line >= w[1].first_line) {
        return Err(RefactorError::Unsupported(
            w::PIECES_SHARE_A_LINE.to_string(),
        ));
    }
    Ok(pieces)
}

/// The byte ranges removed from the source for the pieces (groups separated only by blank lines
/// are removed at once).
fn removals_of(text: &str, pieces: &[Piece]) -> Vec<Range<usize>> {
    let index = LineIndex::new(text);
    let spans: Vec<(usize, usize)> = pieces.iter().map(|p| (p.first_line, p.last_line)).collect();
    surgery::merge_spans(text, &index, &spans)
        .into_iter()
        .map(|(first, last)| surgery::removal_range(text, &index, first, last))
        .collect()
}

/// Everything known about one move request.
pub(super) struct Move<'a> {
    pub sources: &'a dyn Sources,
    pub lang: Language,
    pub source: &'a SourceFile,
    pub tree: &'a Tree,
    pub symbol: &'a Symbol,
    pub pieces: Vec<Piece>,
    /// What the plan deletes from the source: the pieces with the blank lines that go with them.
    pub removals: Vec<Range<usize>>,
    pub target_path: String,
    pub target: Option<&'a SourceFile>,
    pub target_tree: Option<&'a Tree>,
    /// The source's indent unit and line ending, detected once (a scan of the whole file).
    pub source_style: TextStyle,
}

impl Move<'_> {
    /// Whether a source offset lies in code that moves.
    pub fn moves(&self, offset: usize) -> bool {
        self.pieces.iter().any(|p| p.bytes.contains(&offset))
    }

    /// The name the moved item is imported by (none for a Rust impl block).
    pub fn importable_name(&self) -> Option<&str> {
        (self.symbol.kind != SymbolKind::Impl).then_some(self.symbol.name.as_str())
    }

    /// Names defined by the moved code at its top level.
    pub(super) fn moved_names(&self) -> Vec<&str> {
        self.pieces
            .iter()
            .filter(|p| p.kind != SymbolKind::Impl)
            .map(|p| p.name_path.as_str())
            .collect()
    }

    /// The bytes of the source that move.
    pub fn moved_ranges(&self) -> Vec<Range<usize>> {
        self.pieces.iter().map(|p| p.bytes.clone()).collect()
    }

    fn plan(&self) -> Result<Plan, RefactorError> {
        let name = self.importable_name();
        let uses = match (name, self.lang) {
            (Some(name), Language::Python) => python::remaining_uses(self, name),
            (Some(name), Language::Rust) => rust::remaining_uses(self, name),
            (None, _) => Vec::new(),
        };
        let mut back = match self.lang {
            Language::Python => python::import_back(self, &uses)?,
            Language::Rust => rust::import_back(self, &uses)?,
        };
        // The paths to the old location first, then what the moved code needs at the target (a
        // circular import is decided once the import back and the rewrites are known).
        match self.lang {
            Language::Python => {
                python::callers::rewrite(self, &mut back)?;
                python::carry::carry(self, &mut back)?;
            }
            Language::Rust => {
                rust::callers::rewrite(self, &mut back)?;
                rust::carry::carry(self, &mut back)?;
            }
        }
        back.summary.collisions_checked = self.target.is_some();
        let (changes, block_start, sites) = self.assemble(&back)?;

        let mut notes = back.notes.clone();
        if self.lang == Language::Python {
            notes.extend(python::future_notes(self));
        }
        notes.extend(self.collision_notes(&back.target_imports_removed));
        notes.extend(self.dependency_notes(&changes, &back.carried));
        if self.lang == Language::Rust {
            notes.extend(rust::private_member_notes(self, &back.carried));
            notes.extend(rust::location_macro_notes(self));
            notes.extend(rust::trait_notes(self, &back.carried));
        }
        notes.extend(self.string_notes(name));
        match self.lang {
            Language::Python => {
                notes.extend(python::global_notes(self));
                notes.extend(python::file_relative_notes(self));
            }
            Language::Rust => {
                notes.extend(rust::file_relative_notes(
                    self,
                    back.summary.paths_made_absolute > 0,
                ));
            }
        }
        let resolver = Resolver {
            m: self,
            changes: &changes,
            block_start,
        };
        let findings = notes.into_iter().map(|n| resolver.finding(n)).collect();
        let caveat_notes = back.caveat_notes(self);

        let symbol_label = self
            .pieces
            .iter()
            .find(|p| p.item == self.symbol.range)
            .map_or_else(|| self.symbol.name_path.clone(), |p| self.piece_label(p));
        let details = Details::Move(MoveDetails {
            target_file: self.target_path.clone(),
            symbol: symbol_label,
            target_created: self.target.is_none(),
            import_added: back.import_added.clone(),
            module_declared: (self.lang == Language::Rust).then(|| back.module_declared.clone()),
            moved: self
                .pieces
                .iter()
                .map(|p| MovedPiece {
                    symbol: self.piece_label(p),
                    lines: format!("{}-{}", p.first_line + 1, p.last_line + 1),
                })
                .collect(),
        });
        Ok(Plan {
            changes,
            findings,
            details,
            caveat_notes,
            sites,
            ..Plan::default()
        })
    }

    fn piece_label(&self, piece: &Piece) -> String {
        if piece.kind == SymbolKind::Impl {
            self.source.text[piece.item.clone()]
                .split('{')
                .next()
                .unwrap_or("impl")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        } else {
            piece.name_path.clone()
        }
    }
}

/// The names a file binds at its top level.
pub(super) fn bindings(lang: Language, tree: &Tree, text: &str) -> Vec<Binding> {
    lang.syntax().top_level_bindings(tree, text)
}

fn internal(what: &str) -> RefactorError {
    RefactorError::Unsupported(w::internal_error(what))
}

#[cfg(test)]
mod tests;
