//! Move to file: moves a top-level item with its doc comments, attributes or decorators to
//! another file of the same language, creating it when missing, and imports the item back where
//! the source still uses it. Pure: the project is seen only through [`Sources`]. Module paths,
//! imports and visibility are per language (`python`, `rust`); line surgery is in `layout`.
//!
//! The heuristic does not resolve the imports the moved code needs, rewrite callers in third
//! files or prevent name collisions at the target (the canonical caveats); it reports where each
//! of them bites as findings.

mod python;
mod rust;
mod wording;

use std::collections::BTreeMap;
use std::ops::Range;
use wording as w;

use tree_sitter::Tree;

use super::{
    Details, Finding, MoveDetails, MoveRequest, MovedPiece, Plan, RefactorError, Severity,
    SourceError, Sources,
};
use crate::edit::{self, ChangeSetBuilder, FileChange, SourceFile, TextEdit};
use crate::lang::calls::{ReferenceKind, find_mentions};
use crate::lang::symbols::{LookupError, Symbol, SymbolKind, SymbolQuery, resolve};
pub(super) use crate::lang::syntax::Binding;
use crate::lang::{Language, walk_tree};
use crate::refactor::sources::Mentioning;
use crate::text::surgery::{self, Reindent};
use crate::text::{LineIndex, TextStyle};

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

/// Where a finding points, resolved to a line once the changes are built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum At {
    /// An offset in the source as it was.
    Source(usize),
    /// An offset in the source inside the moved code: the line where it lands in the target.
    Moved(usize),
    /// An offset in the target as it was.
    Target(usize),
    /// The line holding `line_text`, inserted by this plan at `at` (an offset in `path` as it was).
    Inserted {
        path: String,
        at: usize,
        line_text: String,
    },
    /// A 1-based line of a file this plan does not change.
    Line { path: String, line: usize },
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Note {
    pub at: At,
    pub severity: Severity,
    pub message: String,
}

impl Note {
    pub fn new(at: At, severity: Severity, message: impl Into<String>) -> Note {
        Note {
            at,
            severity,
            message: message.into(),
        }
    }
}

/// What a language adds around the move: the import back into the source, declarations in other
/// files, visibility edits inside the moved code, and notes about them.
#[derive(Debug, Default)]
pub(super) struct ImportBack {
    /// (offset, text) insertions into the source, in the order they should appear.
    pub source_inserts: Vec<(usize, String)>,
    /// Insertions into other existing files (which are kept here to build their changes).
    pub other_inserts: Vec<(SourceFile, Vec<(usize, String)>)>,
    /// Edits inside the moved pieces (source offsets), e.g. `pub(crate) `.
    pub moved_edits: Vec<TextEdit>,
    pub notes: Vec<Note>,
    /// The import line added to the source.
    pub import_added: Option<String>,
    /// The module declaration added (Rust).
    pub module_declared: Option<String>,
}

impl ImportBack {
    /// The source no longer uses the moved `name`: no import is added, and the note says so.
    fn no_import_needed(&mut self, m: &Move<'_>, name: &str) {
        self.notes.push(Note::new(
            At::Source(m.pieces[0].bytes.start),
            Severity::Info,
            w::no_import_needed(&m.source.path, name),
        ));
    }

    /// Inserts the import `statement` into the source (`inserted`: where, and the text with its
    /// line ending and blank lines), with the note that says so; `how` qualifies the statement
    /// (` (a module of the same directory)`), `uses` counts the uses it serves.
    fn import_inserted(
        &mut self,
        m: &Move<'_>,
        name: &str,
        inserted: (usize, String),
        statement: String,
        how: &str,
        uses: usize,
    ) {
        let source = &m.source.path;
        let at = inserted.0;
        self.source_inserts.push(inserted);
        self.notes.push(Note::new(
            At::Inserted {
                path: source.clone(),
                at,
                line_text: statement.clone(),
            },
            Severity::Info,
            w::import_added(&statement, how, source, name, uses),
        ));
        self.import_added = Some(statement);
    }
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
        let back = match self.lang {
            Language::Python => python::import_back(self, &uses)?,
            Language::Rust => rust::import_back(self, &uses)?,
        };

        let block = self.moved_block(&back.moved_edits)?;
        let mut builder = ChangeSetBuilder::new();
        let target_created = self.target.is_none();
        let block_start = match self.target {
            None => {
                let header = match self.lang {
                    Language::Python => python::future_header(self),
                    Language::Rust => String::new(),
                };
                builder.create(&self.target_path, format!("{header}{block}"));
                header.len()
            }
            Some(target) => {
                let tree = self
                    .target_tree
                    .ok_or_else(|| internal("target tree missing"))?;
                let before = match self.lang {
                    Language::Python => {
                        crate::lang::python::imports::main_guard_start(tree, &target.text)
                    }
                    Language::Rust => {
                        crate::lang::rust::items::test_module_start(tree, &target.text)
                    }
                };
                let separator = match self.lang {
                    Language::Python => python::separator(self, tree, before),
                    Language::Rust => 1,
                };
                let style = TextStyle::detect(&target.text);
                let placement = surgery::place_block(
                    &target.text,
                    &block,
                    before,
                    separator,
                    style.line_ending,
                );
                builder.edit(&self.target_path, placement.edit.clone());
                // The target gets no other edit, so the offset is final.
                placement.block_start
            }
        };

        for range in &self.removals {
            builder.edit(&self.source.path, TextEdit::delete(range.clone()));
        }
        for (at, text) in merge_inserts(&back.source_inserts, &self.removals) {
            builder.edit(&self.source.path, TextEdit::insert(at, text));
        }
        for (file, inserts) in &back.other_inserts {
            for (at, text) in merge_inserts(inserts, &[]) {
                builder.edit(&file.path, TextEdit::insert(at, text));
            }
        }
        let mut loaded: BTreeMap<&str, &SourceFile> = BTreeMap::new();
        loaded.insert(&self.source.path, self.source);
        if let Some(target) = self.target {
            loaded.insert(&self.target_path, target);
        }
        for (file, _) in &back.other_inserts {
            loaded.insert(&file.path, file);
        }
        let changes = builder.build(|path| loaded.get(path).copied())?;

        let mut notes = back.notes.clone();
        if self.lang == Language::Python {
            notes.extend(python::future_notes(self));
        }
        notes.extend(self.collision_notes());
        notes.extend(self.dependency_notes(&changes));
        if self.lang == Language::Rust {
            notes.extend(rust::private_member_notes(self));
            notes.extend(rust::location_macro_notes(self));
            notes.extend(rust::trait_notes(self));
        }
        notes.extend(self.string_notes(name));
        match self.lang {
            Language::Python => {
                notes.extend(python::third_file_notes(self, back.import_added.is_some())?);
                notes.extend(python::global_notes(self));
                notes.extend(python::file_relative_notes(self));
            }
            Language::Rust => {
                notes.extend(rust::third_file_notes(self)?);
                notes.extend(rust::file_relative_notes(self));
            }
        }
        let resolver = Resolver {
            m: self,
            changes: &changes,
            block_start,
        };
        let findings = notes.into_iter().map(|n| resolver.finding(n)).collect();

        let symbol_label = self
            .pieces
            .iter()
            .find(|p| p.item == self.symbol.range)
            .map_or_else(|| self.symbol.name_path.clone(), |p| self.piece_label(p));
        let details = Details::Move(MoveDetails {
            target_file: self.target_path.clone(),
            symbol: symbol_label,
            target_created,
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
            caveat_notes: Vec::new(),
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

    /// The moved pieces as the text added to the target: visibility edits applied, indentation
    /// converted to the target's unit, line endings to the target's (the source's for a new file).
    fn moved_block(&self, moved_edits: &[TextEdit]) -> Result<String, RefactorError> {
        let existing = self.target.filter(|t| !surgery::is_blank(&t.text));
        let line_ending = match existing {
            Some(t) => TextStyle::detect(&t.text).line_ending,
            None => self.source_style.line_ending,
        };
        let target_indent = existing
            .filter(|t| surgery::has_indented_line(&t.text))
            .map(|t| TextStyle::detect(&t.text).indent);
        let index = LineIndex::new(&self.source.text);
        let mut block = String::new();
        for (i, piece) in self.pieces.iter().enumerate() {
            let base = piece.bytes.start;
            let local: Vec<TextEdit> = moved_edits
                .iter()
                .filter(|e| piece.bytes.contains(&e.range.start))
                .map(|e| {
                    TextEdit::new(e.range.start - base..e.range.end - base, e.new_text.clone())
                })
                .collect();
            let raw =
                surgery::lines_text(&self.source.text, &index, piece.first_line, piece.last_line);
            let local = edit::validate(&raw, local)?;
            let mut text = edit::apply(&raw, &local);
            if let Some(to) = target_indent
                && surgery::has_indented_line(&text)
            {
                let from = TextStyle::detect(&text).indent;
                let keep = self.string_continuation_rows(piece);
                text = Reindent::units(from, to).block_strict(&text, &keep);
            }
            if i > 0 {
                block.push_str(line_ending);
            }
            block.push_str(&surgery::with_line_endings(&text, line_ending));
        }
        Ok(block)
    }

    /// Rows (0-based, relative to the piece) that start inside a multi-line string literal.
    fn string_continuation_rows(&self, piece: &Piece) -> Vec<usize> {
        let mut rows = Vec::new();
        walk_tree(self.tree, |node| {
            let range = node.byte_range();
            if range.end <= piece.bytes.start || range.start >= piece.bytes.end {
                return false;
            }
            if self.lang.syntax().is_string(node) {
                let (start, end) = (node.start_position().row, node.end_position().row);
                rows.extend((start + 1..=end).filter_map(|r| r.checked_sub(piece.first_line)));
                return false;
            }
            true
        });
        rows
    }

    /// The target already binds a name the moved code defines.
    fn collision_notes(&self) -> Vec<Note> {
        let (Some(target), Some(tree)) = (self.target, self.target_tree) else {
            return Vec::new();
        };
        let bindings = bindings(self.lang, tree, &target.text);
        let index = LineIndex::new(&target.text);
        let mut notes = Vec::new();
        for name in self.moved_names() {
            for binding in bindings.iter().filter(|b| b.name == name) {
                let line = index.line_of(binding.offset) + 1;
                let (severity, message) = match (self.lang, binding.imported) {
                    (Language::Rust, false) => {
                        (Severity::Error, w::target_defines_the_name(name, line))
                    }
                    (Language::Rust, true) => {
                        (Severity::Error, w::target_imports_the_name(name, line))
                    }
                    (Language::Python, false) => {
                        (Severity::Warning, w::target_definition_replaced(name, line))
                    }
                    (Language::Python, true) => {
                        (Severity::Warning, w::target_import_shadowed(name, line))
                    }
                };
                notes.push(Note::new(At::Target(binding.offset), severity, message));
            }
        }
        notes
    }

    /// Names the moved code uses that the source binds (imports or defines) and the target does
    /// not: the target needs them.
    fn dependency_notes(&self, changes: &[FileChange]) -> Vec<Note> {
        let source_bindings = bindings(self.lang, self.tree, &self.source.text);
        let target_bindings = match (self.target, self.target_tree) {
            (Some(t), Some(tree)) => bindings(self.lang, tree, &t.text),
            _ => Vec::new(),
        };
        let used = match self.lang {
            Language::Python => python::used_names(self),
            Language::Rust => rust::used_names(self),
        };
        let moved_names = self.moved_names();
        let source_after = changes.iter().find(|c| c.path == self.source.path);
        let mut notes = Vec::new();
        let mut skipped = 0;
        let target_name = file_name(&self.target_path);
        let source_name = &self.source.path;
        for (name, offset) in used {
            if moved_names.contains(&name.as_str()) {
                continue;
            }
            let Some(binding) = source_bindings
                .iter()
                .find(|b| b.name == name && !self.moves(b.offset))
            else {
                continue;
            };
            // A module of that name in the target does not provide a function (`mod identifier;`
            // next to a call of `identifier(...)`).
            if target_bindings
                .iter()
                .any(|b| b.name == name && (!b.module || binding.module || binding.imported))
            {
                continue;
            }
            if notes.len() >= MAX_FINDINGS_PER_KIND {
                skipped += 1;
                continue;
            }
            let line = match source_after {
                Some(change) => line_after(change, binding.offset),
                None => LineIndex::new(&self.source.text).line_of(binding.offset) + 1,
            };
            let private = self.lang == Language::Rust && !binding.imported && !binding.public;
            notes.push(Note::new(
                At::Moved(offset),
                Severity::Warning,
                w::name_not_imported(
                    &self.symbol.name,
                    &name,
                    binding.imported,
                    line,
                    source_name,
                    private,
                    target_name,
                ),
            ));
        }
        if skipped > 0 {
            notes.push(Note::new(
                At::Moved(self.symbol.range.start),
                Severity::Warning,
                w::more_names_not_imported(skipped, source_name),
            ));
        }
        notes
    }

    /// Notes on the files mentioning `name` that `found` reports (line and message pairs; the
    /// source and the target left out): the first [`MAX_FINDINGS_PER_KIND`], then how many more,
    /// then how many files could not be searched.
    fn third_file_notes(
        &self,
        name: &str,
        mentioning: &Mentioning,
        words: ThirdFiles<'_>,
        mut found: impl FnMut(&SourceFile) -> Vec<(usize, String)>,
    ) -> Vec<Note> {
        let mut notes = Vec::new();
        let mut skipped = 0usize;
        for file in &mentioning.files {
            if file.path == self.source.path || file.path == self.target_path {
                continue;
            }
            for (line, message) in found(file) {
                if notes.len() >= MAX_FINDINGS_PER_KIND {
                    skipped += 1;
                    continue;
                }
                let at = At::Line {
                    path: file.path.clone(),
                    line,
                };
                notes.push(Note::new(at, Severity::Warning, message));
            }
        }
        if skipped > 0 {
            notes.push(Note::new(
                At::Source(self.symbol.range.start),
                Severity::Warning,
                w::more_in_other_files(skipped, words.counted, name, &self.source.path),
            ));
        }
        if let Some((path, why)) = mentioning.skipped.first() {
            notes.push(Note::new(
                At::Source(self.symbol.range.start),
                Severity::Info,
                w::files_not_searched(
                    mentioning.skipped.len(),
                    name,
                    words.searched_for,
                    path,
                    why,
                ),
            ));
        }
        notes
    }

    /// Whole-word mentions of the name in the source's strings, which nothing rewrites.
    fn string_notes(&self, name: Option<&str>) -> Vec<Note> {
        let Some(name) = name else { return Vec::new() };
        let mentions = find_mentions(self.lang, self.tree, &self.source.text, name);
        let exported = match self.lang {
            Language::Python => {
                crate::lang::python::imports::dunder_all_strings(self.tree, &self.source.text)
            }
            Language::Rust => Vec::new(),
        };
        mentions
            .references
            .iter()
            .filter(|r| r.kind == ReferenceKind::InString && !self.moves(r.range.start))
            .filter(|r| !exported.iter().any(|s| s.contains(&r.range.start)))
            .map(|r| {
                Note::new(
                    At::Source(r.range.start),
                    Severity::Info,
                    w::string_mentions_the_name(name),
                )
            })
            .collect()
    }
}

/// The names a file binds at its top level.
pub(super) fn bindings(lang: Language, tree: &Tree, text: &str) -> Vec<Binding> {
    lang.syntax().top_level_bindings(tree, text)
}

/// Insertions at one offset become one (in the given order); an insertion strictly inside a
/// removed range moves to its start.
fn merge_inserts(inserts: &[(usize, String)], removals: &[Range<usize>]) -> Vec<(usize, String)> {
    let mut merged: Vec<(usize, String)> = Vec::new();
    for (at, text) in inserts {
        let at = removals
            .iter()
            .find(|r| r.start < *at && *at < r.end)
            .map_or(*at, |r| r.start);
        match merged.iter_mut().find(|(a, _)| *a == at) {
            Some((_, existing)) => existing.push_str(text),
            None => merged.push((at, text.clone())),
        }
    }
    merged
}

fn internal(what: &str) -> RefactorError {
    RefactorError::Unsupported(w::internal_error(what))
}

/// The offset in a change's new text of `offset` in its old text (after anything inserted there).
fn offset_after(change: &FileChange, offset: usize) -> usize {
    let mut shift: isize = 0;
    for edit in &change.edits {
        if edit.range.start > offset {
            break;
        }
        if edit.range.end <= offset {
            shift += edit.new_text.len() as isize - edit.range.len() as isize;
        } else {
            return (edit.range.start as isize + shift) as usize;
        }
    }
    (offset as isize + shift).max(0) as usize
}

/// 1-based line in a change's new text of `offset` in its old text (the last line for an offset
/// that ends up past the final newline).
fn line_after(change: &FileChange, offset: usize) -> usize {
    let mut after = offset_after(change, offset).min(change.after.len());
    if after == change.after.len() && change.after.ends_with('\n') {
        after -= 1;
    }
    change.after[..after].matches('\n').count() + 1
}

/// Turns notes into findings once the changes (and so the final line numbers) are known.
struct Resolver<'a> {
    m: &'a Move<'a>,
    changes: &'a [FileChange],
    block_start: usize,
}

impl Resolver<'_> {
    fn change(&self, path: &str) -> Option<&FileChange> {
        self.changes.iter().find(|c| c.path == path)
    }

    fn finding(&self, note: Note) -> Finding {
        let (file, line) = match &note.at {
            At::Source(offset) => (self.m.source.path.clone(), self.source_line(*offset)),
            At::Target(offset) => (
                self.m.target_path.clone(),
                match self.change(&self.m.target_path) {
                    Some(change) => line_after(change, *offset),
                    None => 1,
                },
            ),
            At::Moved(offset) => (self.m.target_path.clone(), self.moved_line(*offset)),
            At::Inserted {
                path,
                at,
                line_text,
            } => (path.clone(), self.inserted_line(path, *at, line_text)),
            At::Line { path, line } => (path.clone(), *line),
        };
        Finding {
            file,
            line,
            severity: note.severity,
            message: note.message,
        }
    }

    fn source_line(&self, offset: usize) -> usize {
        match self.change(&self.m.source.path) {
            Some(change) => line_after(change, offset),
            None => {
                self.m.source.text[..offset.min(self.m.source.text.len())]
                    .matches('\n')
                    .count()
                    + 1
            }
        }
    }

    /// The target line where a source line inside the moved pieces lands.
    fn moved_line(&self, offset: usize) -> usize {
        let Some(target) = self.change(&self.m.target_path) else {
            return 1;
        };
        let start_line = target.after[..self.block_start.min(target.after.len())]
            .matches('\n')
            .count();
        let source_line = self.m.source.text[..offset.min(self.m.source.text.len())]
            .matches('\n')
            .count();
        // Pieces are joined with one blank line.
        let separator_rows = 1;
        let mut row = 0;
        for piece in &self.m.pieces {
            if (piece.first_line..=piece.last_line).contains(&source_line) {
                return start_line + row + (source_line - piece.first_line) + 1;
            }
            row += piece.last_line - piece.first_line + 1 + separator_rows;
        }
        start_line + 1
    }

    fn inserted_line(&self, path: &str, at: usize, line_text: &str) -> usize {
        let Some(change) = self.change(path) else {
            return 1;
        };
        let mut shift: isize = 0;
        for edit in &change.edits {
            if edit.range.start >= at {
                break;
            }
            shift += edit.new_text.len() as isize - edit.range.len() as isize;
        }
        let from = ((at as isize + shift).max(0) as usize).min(change.after.len());
        match change.after[from..].find(line_text) {
            Some(found) => change.after[..from + found].matches('\n').count() + 1,
            None => change.after[..from].matches('\n').count() + 1,
        }
    }
}

#[cfg(test)]
mod tests;
