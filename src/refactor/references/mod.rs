//! The references engine: for one symbol, every reference in the project, each `certain`
//! (resolved through the file's own imports and paths, its scopes, `self`/`Self`, the class or
//! impl it is in, a receiver of evident type) or `possible` (same name, receiver of unknown
//! type, `*` import, a macro, a string naming it), and where the list came from. Rename,
//! change signature, inline and `candor calls` all ask it.
//!
//! Language-neutral: the language ([`crate::lang::refs::Resolver`]) says what a name stands
//! for and judges each occurrence; this driver asks the project which files can hold the name
//! and where ([`Sources::word_sites`], the seam an index answers), grows what it knows about how
//! the symbol is reached (re-exports, subclasses, trait impls) until no file adds anything,
//! has every file judged, and, when a language server is running ([`Oracle`]), checks the list
//! against the server's `textDocument/references`. Pure: it reads through `Sources` and asks the
//! oracle, nothing else.

mod kept;
mod locate;
mod oracle;
pub mod wording;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::sync::OnceLock;

use tree_sitter::Tree;

pub use self::locate::{Located, locate};
pub use self::oracle::{Oracle, ServerReferences};
use super::{Finding, ParsedFiles, RefactorError, Sources, map_in_parallel};
use crate::edit::SourceFile;
use crate::lang::Language;
use crate::lang::calls::find_mentions;
use crate::lang::refs::{Doubt, Found, Reach, Rewrite, Role, Target, TargetKind, Verdict};
use crate::lang::symbols::SymbolQuery;
use crate::text::columns::Columns;
use wording as w;

/// How many rounds of learning (a re-export leads to another) the engine runs at most.
const MAX_ROUNDS: usize = 8;

/// A request for the references of a symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReferencesRequest {
    pub file: String,
    pub symbol: SymbolQuery,
}

/// How sure the engine is that an occurrence is the symbol's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Certainty {
    Certain,
    /// It may be: the sentence says why.
    Possible(String),
}

/// One reference of the symbol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub path: String,
    /// The name as written there (inside a string for an `__all__` entry).
    pub range: Range<usize>,
    /// 1-based line and column (characters).
    pub line: usize,
    pub column: usize,
    pub role: Role,
    pub certainty: Certainty,
    /// The name written there is not the symbol's own (an import alias): a rename leaves it.
    pub alias: bool,
    pub rewrite: Rewrite,
    /// A language server listed it too.
    pub confirmed: bool,
}

impl Reference {
    pub fn is_certain(&self) -> bool {
        self.certainty == Certainty::Certain
    }

    /// `path:line:column`.
    pub fn location(&self) -> String {
        format!("{}:{}:{}", self.path, self.line, self.column)
    }
}

/// Where the list came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// candor's own engine (tree-sitter), unchecked.
    Engine,
    /// candor's engine, checked against a running language server (its name and version).
    EngineChecked(String),
}

impl Source {
    /// For `data.references_from`.
    pub fn describe(&self) -> String {
        match self {
            Source::Engine => w::source_engine(),
            Source::EngineChecked(server) => w::source_checked(server),
        }
    }
}

/// The references of one symbol.
#[derive(Debug, Clone)]
pub struct References {
    pub target: Target,
    /// Every certain and possible reference, by path then position; the definition included.
    pub references: Vec<Reference>,
    /// The files the references are in, as they were read.
    pub files: BTreeMap<String, SourceFile>,
    /// Files that could not be searched (path, why).
    pub skipped: Vec<(String, String)>,
    pub source: Source,
    /// What the engine noticed on the way: files not searched, disagreements with the server.
    pub findings: Vec<Finding>,
}

impl References {
    pub fn certain(&self) -> impl Iterator<Item = &Reference> {
        self.references.iter().filter(|r| r.is_certain())
    }

    pub fn possible(&self) -> impl Iterator<Item = &Reference> {
        self.references.iter().filter(|r| !r.is_certain())
    }

    /// The reference whose name is at `range` in `path`.
    pub fn at(&self, path: &str, range: &Range<usize>) -> Option<&Reference> {
        self.references
            .iter()
            .find(|r| r.path == path && r.range == *range)
    }
}

/// Every reference of the symbol `request` names.
pub fn find(
    sources: &dyn Sources,
    request: &ReferencesRequest,
    lang: Language,
    oracle: Option<&dyn Oracle>,
) -> Result<References, RefactorError> {
    let located = locate(sources, &request.file, &request.symbol, lang)?;
    find_located(sources, located, oracle)
}

/// Every reference of a target already located.
pub fn find_located(
    sources: &dyn Sources,
    located: Located,
    oracle: Option<&dyn Oracle>,
) -> Result<References, RefactorError> {
    let Located { file, tree, target } = located;
    let mut references = match &target.kind {
        TargetKind::Local(_) => local_references(&target, &file, &tree),
        _ => project_references(sources, &target, &file, &tree)?,
    };
    if let TargetKind::Local(local) = &target.kind
        && let Some(function) = &local.parameter_of
    {
        keyword_arguments(
            sources,
            &target,
            &file,
            &tree,
            function.start,
            &mut references,
        )?;
    }
    references.sort();
    if let Some(oracle) = oracle {
        oracle::check(oracle, sources, &mut references)?;
    }
    Ok(references.finish())
}

/// What is gathered before the references are sorted and worded.
struct Gathered {
    target: Target,
    found: Vec<(String, String, Found)>,
    files: BTreeMap<String, SourceFile>,
    skipped: Vec<(String, String)>,
    source: Source,
    findings: Vec<Finding>,
    /// Locations a server listed that the engine judged not ours or did not see.
    server_only: Vec<Reference>,
    confirmed: BTreeSet<(String, usize)>,
}

impl Gathered {
    fn new(target: &Target) -> Gathered {
        Gathered {
            target: target.clone(),
            found: Vec::new(),
            files: BTreeMap::new(),
            skipped: Vec::new(),
            source: Source::Engine,
            findings: Vec::new(),
            server_only: Vec::new(),
            confirmed: BTreeSet::new(),
        }
    }

    fn sort(&mut self) {
        self.found
            .sort_by(|a, b| (&a.0, a.2.range.start).cmp(&(&b.0, b.2.range.start)));
        self.found
            .dedup_by(|a, b| a.0 == b.0 && a.2.range == b.2.range);
    }

    fn finish(self) -> References {
        let Gathered {
            target,
            found,
            files,
            skipped,
            source,
            mut findings,
            server_only,
            confirmed,
        } = self;
        // `found` is sorted by file and position: one column counter per file keeps a file of
        // one long line linear.
        let mut columns: Option<(String, Columns<'_>)> = None;
        let mut references: Vec<Reference> = found
            .into_iter()
            .map(|(path, word, found)| {
                let counter = match &mut columns {
                    Some((at, counter)) if *at == path => counter,
                    slot => {
                        let text = files.get(&path).map_or("", |f| &*f.text);
                        &mut slot.insert((path.clone(), Columns::new(text))).1
                    }
                };
                let column = counter.column_of(found.range.start);
                let certainty = match &found.verdict {
                    Verdict::Possible(doubt) => Certainty::Possible(w::doubt(doubt, &target.name)),
                    _ => Certainty::Certain,
                };
                Reference {
                    confirmed: confirmed.contains(&(path.clone(), found.range.start)),
                    alias: word != target.name,
                    path,
                    line: found.line,
                    column,
                    range: found.range,
                    role: found.role,
                    certainty,
                    rewrite: found.rewrite,
                }
            })
            .collect();
        references.extend(server_only);
        references.sort_by(|a, b| (&a.path, a.range.start).cmp(&(&b.path, b.range.start)));
        for (path, why) in &skipped {
            findings.push(Finding::warning(
                path,
                1,
                w::not_searched(path, why, &target.name),
            ));
        }
        References {
            target,
            references,
            files,
            skipped,
            source,
            findings,
        }
    }
}

/// 1-based column in characters of a byte offset.
pub fn column_of(text: &str, at: usize) -> usize {
    let at = at.min(text.len());
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    text.get(line_start..at).map_or(0, |s| s.chars().count()) + 1
}

fn local_references(target: &Target, file: &SourceFile, tree: &Tree) -> Gathered {
    let mut gathered = Gathered::new(target);
    let offsets = crate::lang::calls::word_matches(&file.text, &target.name);
    let found = if crate::lang::refs::nests_deeper_than(tree, crate::lang::refs::MAX_NESTING) {
        crate::lang::refs::unjudged(&file.text, &target.name, &offsets)
    } else {
        target.lang.resolver().judge(
            target,
            &Reach::default(),
            &file.path,
            tree,
            &file.text,
            &target.name,
            &offsets,
        )
    };
    for f in found {
        gathered
            .found
            .push((file.path.clone(), target.name.clone(), f));
    }
    gathered.files.insert(file.path.clone(), file.clone());
    gathered
}

/// A file of the project read for the search, with the words found in it.
struct Candidate {
    file: SourceFile,
    /// word → offsets.
    words: BTreeMap<String, Vec<usize>>,
    /// Parsed when first asked: a fact kept for the file's content may make it unneeded.
    tree: OnceLock<Tree>,
    /// The words the tree is parsed around; `None` for a whole tree.
    parsed_for: Option<BTreeSet<String>>,
    /// Whether the tree to read the file through is decided (`parsed_for`).
    planned: bool,
}

impl Candidate {
    fn new(file: SourceFile) -> Candidate {
        Candidate {
            file,
            words: BTreeMap::new(),
            tree: OnceLock::new(),
            parsed_for: None,
            planned: false,
        }
    }

    /// The tree the file is read through, parsed now if it was not: around `parsed_for` and
    /// the context words, exactly that tree when `exact` (the facts asked of the store name it).
    fn tree(&self, store: &dyn ParsedFiles, lang: Language, how: &Parsing) -> &Tree {
        self.tree.get_or_init(|| match &self.parsed_for {
            Some(words) => {
                let words: Vec<&str> = words
                    .iter()
                    .map(String::as_str)
                    .chain(how.context.unwrap_or(&[]).iter().copied())
                    .collect();
                match how.lazy {
                    true => store.tree_around_words_exactly(lang, &self.file, &words),
                    false => store.tree_around_words(lang, &self.file, &words),
                }
            }
            None => store.tree_in_passing(lang, &self.file),
        })
    }
}

/// How the candidates' trees are made: around which context words, and whether only when a fact
/// kept for the file does not answer (then each tree is exactly the one its words name).
struct Parsing {
    context: Option<&'static [&'static str]>,
    lazy: bool,
}

fn project_references(
    sources: &dyn Sources,
    target: &Target,
    def_file: &SourceFile,
    def_tree: &Tree,
) -> Result<Gathered, RefactorError> {
    let lang = target.lang;
    let resolver = lang.resolver();
    let store = sources.parsed();
    let mut gathered = Gathered::new(target);
    let mut reach = resolver.start(target, def_tree, &def_file.text);
    let mut candidates: BTreeMap<String, Candidate> = BTreeMap::new();
    let mut own = Candidate::new(def_file.clone());
    own.tree = OnceLock::from(def_tree.clone());
    own.planned = true;
    candidates.insert(def_file.path.clone(), own);
    let mut searched: BTreeSet<String> = BTreeSet::new();
    let mut pending: Vec<String> = vec![target.name.clone()];
    pending.extend(resolver.search_words(target));
    let asking = kept::Asking::new(store, target);
    let context = resolver.context_words(target);
    let learns_nothing = resolver.learns_nothing(target);
    let how = Parsing {
        context,
        lazy: context.is_some() && (learns_nothing || resolver.learns_from_imports(target)),
    };
    for _ in 0..MAX_ROUNDS {
        pending.retain(|word| !searched.contains(word));
        pending.sort();
        pending.dedup();
        for word in std::mem::take(&mut pending) {
            let sites = sources.word_sites(lang, &word)?;
            gathered.skipped.extend(sites.skipped);
            for (file, offsets) in sites.files {
                let path = file.path.clone();
                // The definition's file is judged as read above: the search may have read it
                // again, after another process changed it, and its offsets there are not offsets
                // in this text (a definition judged at the wrong offsets was silently lost, and
                // the rename wrote only the other files).
                if path == def_file.path {
                    continue;
                }
                let candidate = candidates
                    .entry(path)
                    .or_insert_with(|| Candidate::new(file));
                candidate.words.insert(word.clone(), offsets);
            }
            searched.insert(word);
        }
        // The definition's own file as read above, whatever the search returned for it.
        if let Some(own) = candidates.get_mut(&def_file.path) {
            for word in &searched {
                own.words
                    .entry(word.clone())
                    .or_insert_with(|| crate::lang::calls::word_matches(&def_file.text, word));
            }
        }
        plan_candidates(store, lang, &mut candidates, &searched, &how);
        let before = reach.clone();
        // Nothing to learn: the loop would parse for nothing.
        let learning: Vec<(&String, &Candidate)> =
            candidates.iter().filter(|_| !learns_nothing).collect();
        if how.lazy {
            // Each file's imports are a fact of its content alone: read (or parsed for) on
            // every core, then learned from in order.
            let imports = map_in_parallel(store, &learning, &|(_, candidate)| {
                let file = &candidate.file;
                asking.top_imports(file, candidate.parsed_for.as_ref(), || {
                    resolver.top_imports(candidate.tree(store, lang, &how), &file.text)
                })
            });
            for ((path, _), imports) in learning.iter().zip(imports) {
                pending.extend(resolver.learn_from_imports(target, path, &imports, &mut reach));
            }
        } else {
            for (path, candidate) in learning {
                // Not kept in the store: its question would hold the reach, which grows with
                // every file learned from (a digest and a copy per file: quadratic).
                let tree = candidate.tree(store, lang, &how);
                pending.extend(resolver.learn(
                    target,
                    path,
                    tree,
                    &candidate.file.text,
                    &mut reach,
                ));
            }
        }
        pending.retain(|word| !searched.contains(word));
        if pending.is_empty() && reach == before {
            break;
        }
    }
    let mut judged_words: BTreeSet<String> = reach.all_names();
    judged_words.insert(target.name.clone());
    let list: Vec<(&String, &Candidate)> = candidates.iter().collect();
    let reach_digest = kept::reach_digest(&reach);
    let judged = map_in_parallel(store, &list, &|(path, candidate)| {
        if !candidate.planned {
            return Vec::new();
        }
        let file = &candidate.file;
        let mut out = Vec::new();
        for (word, offsets) in &candidate.words {
            if !judged_words.contains(word) {
                continue;
            }
            let parsed_for = candidate.parsed_for.as_ref();
            let found = asking.judged(file, parsed_for, &reach_digest, word, || {
                let tree = candidate.tree(store, lang, &how);
                let too_deep =
                    crate::lang::refs::nests_deeper_than(tree, crate::lang::refs::MAX_NESTING);
                if too_deep {
                    crate::lang::refs::unjudged(&file.text, word, offsets)
                } else {
                    let locals =
                        |name: &str| super::sources::locals_of(store, lang, file, tree, name);
                    resolver.judge_with_locals(
                        target, &reach, path, tree, &file.text, word, offsets, &locals,
                    )
                }
            });
            for found in found {
                out.push(((*path).clone(), word.clone(), found));
            }
        }
        out
    });
    let mut with_references: BTreeSet<String> = BTreeSet::new();
    for found in judged.into_iter().flatten() {
        with_references.insert(found.0.clone());
        gathered.found.push(found);
    }
    for (path, candidate) in candidates {
        if with_references.contains(&path) {
            gathered.files.insert(path, candidate.file);
        }
    }
    gathered
        .files
        .insert(def_file.path.clone(), def_file.clone());
    Ok(gathered)
}

/// Decides the tree of each candidate that has none yet (whole, or partial around the searched
/// words and the context words, as the language asks) and parses them now unless the trees are
/// lazy.
fn plan_candidates(
    store: &dyn super::ParsedFiles,
    lang: Language,
    candidates: &mut BTreeMap<String, Candidate>,
    searched: &BTreeSet<String>,
    how: &Parsing,
) {
    // No tree yet, or a partial one planned before a word found later (an alias) was known.
    let stale = |c: &Candidate| match (c.planned, &c.parsed_for) {
        (false, _) => true,
        (true, None) => false,
        (true, Some(parsed)) => c.words.keys().any(|w| !parsed.contains(w)),
    };
    let mut missing: Vec<&Candidate> = Vec::new();
    for candidate in candidates.values_mut().filter(|c| stale(c)) {
        candidate.tree = OnceLock::new();
        candidate.parsed_for = how.context.map(|_| searched.clone());
        candidate.planned = true;
        missing.push(candidate);
    }
    if !how.lazy {
        map_in_parallel(store, &missing, &|candidate| {
            candidate.tree(store, lang, how);
        });
    }
}

/// Python keyword arguments naming a parameter, at the calls of its function: as certain as
/// the call.
fn keyword_arguments(
    sources: &dyn Sources,
    target: &Target,
    file: &SourceFile,
    tree: &Tree,
    function_at: usize,
    gathered: &mut Gathered,
) -> Result<(), RefactorError> {
    if target.lang != Language::Python {
        return Ok(());
    }
    let resolver = target.lang.resolver();
    let Ok(function) = resolver.target_at(tree, &file.text, &file.path, function_at) else {
        return Ok(());
    };
    // `A(keyword=..)` calls `A.__init__` too.
    let class = resolver
        .constructed_by(tree, &file.text, &function)
        .and_then(|at| resolver.target_at(tree, &file.text, &file.path, at).ok());
    for callee in std::iter::once(function).chain(class) {
        let located = Located {
            file: file.clone(),
            tree: tree.clone(),
            target: callee,
        };
        keywords_at_calls(sources, target, located, gathered)?;
    }
    Ok(())
}

/// The keyword arguments naming the parameter `target` at the calls of `callee`.
fn keywords_at_calls(
    sources: &dyn Sources,
    target: &Target,
    callee: Located,
    gathered: &mut Gathered,
) -> Result<(), RefactorError> {
    let calls = find_located(sources, callee, None)?;
    gathered.skipped.extend(calls.skipped.iter().cloned());
    let mut by_file: BTreeMap<&str, Vec<&Reference>> = BTreeMap::new();
    for reference in calls.references.iter().filter(|r| r.role == Role::Call) {
        by_file.entry(&reference.path).or_default().push(reference);
    }
    for (path, references) in by_file {
        let Some(source) = calls.files.get(path) else {
            continue;
        };
        let tree = sources.parsed().tree_in_passing(target.lang, source);
        // The calls under the function's own name and under each alias it is imported as.
        let words: BTreeSet<&str> = references
            .iter()
            .filter_map(|r| source.text.get(r.range.clone()))
            .collect();
        let calls_here = words
            .into_iter()
            .flat_map(|word| find_mentions(target.lang, &tree, &source.text, word).calls);
        for call in calls_here {
            let Some(reference) = references.iter().find(|r| r.range == call.name_range) else {
                continue;
            };
            for argument in &call.args {
                if argument.keyword.as_deref() != Some(target.name.as_str()) {
                    continue;
                }
                let start = argument.range.start;
                let verdict = match &reference.certainty {
                    Certainty::Certain => Verdict::Certain,
                    Certainty::Possible(_) => Verdict::Possible(Doubt::Receiver(
                        source.text[call.callee_range.clone()].to_string(),
                    )),
                };
                gathered.found.push((
                    path.to_string(),
                    target.name.clone(),
                    Found {
                        range: start..start + target.name.len(),
                        line: source.text[..start].matches('\n').count() + 1,
                        role: Role::KeywordArgument,
                        verdict,
                        rewrite: Rewrite::Name,
                    },
                ));
            }
        }
        gathered.files.insert(path.to_string(), source.clone());
    }
    // `f(x, keyword=1)` in a code example of the documentation (a doctest runs it): listed as
    // possible, as the example's call is.
    for reference in calls.references.iter().filter(|r| r.role == Role::Text) {
        let Some(source) = calls.files.get(&reference.path) else {
            continue;
        };
        for start in doc_keywords(&source.text, reference.range.end, &target.name) {
            gathered.found.push((
                reference.path.clone(),
                target.name.clone(),
                Found {
                    range: start..start + target.name.len(),
                    line: source.text[..start].matches('\n').count() + 1,
                    role: Role::KeywordArgument,
                    verdict: Verdict::Possible(Doubt::DocExample),
                    rewrite: Rewrite::Name,
                },
            ));
        }
        gathered
            .files
            .insert(reference.path.clone(), source.clone());
    }
    Ok(())
}

/// The offsets of `keyword=` in the parenthesized arguments that follow a name ending at
/// `after`, on its line (`f(x, keyword=1)` in a docstring's example); not `keyword==`.
fn doc_keywords(text: &str, after: usize, keyword: &str) -> Vec<usize> {
    let rest = &text[after..];
    let line = &rest[..rest.find('\n').unwrap_or(rest.len())];
    if !line.starts_with('(') {
        return Vec::new();
    }
    let mut depth = 0usize;
    let mut end = line.len();
    for (i, c) in line.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    end = i;
                    break;
                }
            }
            _ => {}
        }
    }
    let arguments = &line[..end];
    let pattern = format!("{keyword}=");
    arguments
        .match_indices(&pattern)
        .filter(|(i, _)| {
            let before = arguments[..*i].chars().next_back();
            !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                && !arguments[i + pattern.len()..].starts_with('=')
        })
        .map(|(i, _)| after + i)
        .collect()
}

/// The engine's verdicts on the occurrences of a function, by file and offset of the name: what
/// change signature and inline ask before they touch a call.
#[derive(Debug, Default)]
pub struct Verdicts {
    pub certain: BTreeSet<(String, usize)>,
    /// The possible ones, with why they are only possible.
    pub possible: BTreeMap<(String, usize), String>,
    /// What checking the list against a running language server said (confirmations,
    /// disagreements, why it was not asked, which server): findings for the refactor's result.
    pub server_findings: Vec<Finding>,
}

impl Verdicts {
    /// The verdicts on the references of the function `name_path` defined at 1-based `line`
    /// of `path`.
    pub fn of_function(
        sources: &dyn Sources,
        path: &str,
        name_path: &str,
        line: usize,
        lang: Language,
    ) -> Result<Verdicts, RefactorError> {
        let request = ReferencesRequest {
            file: path.to_string(),
            symbol: SymbolQuery {
                name: name_path.to_string(),
                line: Some(line),
                column: None,
            },
        };
        let found = find(sources, &request, lang, sources.oracle())?;
        let mut verdicts = Verdicts::default();
        // The engine's own findings are files it could not search, which the refactors report
        // themselves; the rest come from the server's check.
        let not_searched: BTreeSet<String> = found
            .skipped
            .iter()
            .map(|(path, why)| w::not_searched(path, why, &found.target.name))
            .collect();
        verdicts.server_findings = found
            .findings
            .iter()
            .filter(|f| !not_searched.contains(&f.message))
            .cloned()
            .collect();
        if let Source::EngineChecked(_) = &found.source {
            verdicts.server_findings.push(Finding::info(
                path,
                line,
                w::calls_from(&found.source.describe()),
            ));
        }
        for reference in &found.references {
            let key = (reference.path.clone(), reference.range.start);
            match &reference.certainty {
                Certainty::Certain => {
                    verdicts.certain.insert(key);
                }
                Certainty::Possible(why) => {
                    verdicts.possible.insert(key, why.clone());
                }
            }
        }
        Ok(verdicts)
    }

    /// `None` when the engine takes the occurrence for the function's, else why not: `Ok` with
    /// the doubt of a possible one, `Err` for another symbol of the same name.
    pub fn doubt(&self, path: &str, at: usize) -> Option<Result<&str, ()>> {
        let key = (path.to_string(), at);
        if self.certain.contains(&key) {
            return None;
        }
        Some(self.possible.get(&key).map(String::as_str).ok_or(()))
    }
}

#[cfg(test)]
mod tests;
