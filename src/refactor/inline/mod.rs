//! Inline function: replaces each call of a function with its body (arguments bound to the
//! parameter names, one `let`/assignment per parameter) and removes the definition with its
//! docs, attributes or decorators. Pure: text in through [`Sources`], a [`Plan`] out.
//!
//! The driver here is language-neutral: it finds the definition, searches every project file
//! of the language for mentions of the name, asks the language module which calls are this
//! function's, inlines those it can, and removes the definition only when nothing that still
//! needs it remains (a call it could not inline, a use as a value, an import it cannot edit, a
//! file it could not read). Everything it leaves alone is a located finding. The language
//! modules ([`python`], [`rust`]) hold the syntax-tree work.

mod memo;
mod python;
mod rust;
mod wording;

use std::collections::BTreeMap;
use std::ops::Range;

use tree_sitter::{Node, Tree};

use super::sites::{SiteKind, SiteTags};
use super::{
    Details, Finding, InlineDetails, InlineRequest, Plan, RefactorError, SourceError, Sources,
    map_in_parallel,
};
use crate::edit::{ChangeSetBuilder, SourceFile, TextEdit};
use crate::honesty::Tool;
use crate::lang::Language;
use crate::lang::calls::{CallSite, Reference, ReferenceKind, find_mentions};
use crate::lang::finder::NodeFinder;
use crate::lang::symbols::{Symbol, resolve};
use crate::text::TextStyle;
use wording as w;

/// How many refused sites an error message lists before it says "and N more".
const LISTED_SITES: usize = 8;

/// How many files are parsed ahead, in parallel, while inlining across the project.
const PARSED_AHEAD: usize = 64;

pub fn plan(
    sources: &dyn Sources,
    request: &InlineRequest,
    lang: Language,
) -> Result<Plan, RefactorError> {
    let def_file = sources
        .file(&request.file)?
        .ok_or_else(|| SourceError::Missing {
            path: request.file.clone(),
        })?;
    let store = sources.parsed();
    let def = Parsed::with_tree(&def_file, lang, store.tree(lang, &def_file));
    let symbols = store.outline(lang, &def_file, &def.tree);
    let symbol = resolve(&symbols, &request.function, "function", |s| {
        s.kind.is_function()
    })?;
    let target: Box<dyn Callee + '_> = match lang {
        Language::Python => Box::new(python::PythonCallee::analyze(&def, &symbols, symbol)?),
        Language::Rust => rust::RustCallee::analyze(&def, &symbols, symbol)?,
    };
    run(sources, &def, symbol, target.as_ref())
}

/// A file of the project, parsed, with its conventions.
pub(super) struct Parsed<'a> {
    pub file: &'a SourceFile,
    pub lang: Language,
    pub tree: Tree,
    pub style: TextStyle,
}

impl<'a> Parsed<'a> {
    /// A file with its syntax tree (from the shell's cache, or parsed in parallel ahead).
    pub fn with_tree(file: &'a SourceFile, lang: Language, tree: Tree) -> Parsed<'a> {
        Parsed {
            file,
            lang,
            tree,
            style: TextStyle::detect(&file.text),
        }
    }

    pub fn text(&self) -> &'a str {
        &self.file.text
    }

    pub fn path(&self) -> &'a str {
        &self.file.path
    }
}

/// What the language module learnt about one file before looking at its mentions.
#[derive(Debug, Clone, Default)]
pub(super) struct Facts {
    /// Plain calls of the name in this file call the target (it is defined or imported here).
    pub plain_is_ours: bool,
    /// Expressions naming the target's module (`utils` in `utils.helper(x)`).
    pub module_aliases: Vec<String>,
    /// Names this file imports (unaliased) from the target's module; `*` for a wildcard.
    pub imported: Vec<String>,
    /// Notes about the file, reported once whatever happens.
    pub findings: Vec<Finding>,
    /// Local bindings of the name in this file (they are not the function).
    pub locals: crate::lang::locals::Locals,
    /// What the calls of this file share (their callers' names), worked out once.
    pub memo: memo::Memo,
}

/// The text claimed by the calls inlined so far in a file, each with its line.
#[derive(Default)]
struct Claims {
    claims: Vec<(Range<usize>, usize)>,
    /// The furthest end of a claim: a range starting there or later overlaps none (the calls
    /// come in order of position, so this answers almost every question at once).
    furthest_end: usize,
}

impl Claims {
    /// The line of the claimed range that overlaps `range`, if any.
    fn overlapping(&self, range: Range<usize>) -> Option<usize> {
        if self.furthest_end <= range.start {
            return None;
        }
        self.claims
            .iter()
            .rev()
            .find(|(c, _)| c.start < range.end && range.start < c.end)
            .map(|(_, line)| *line)
    }

    fn push(&mut self, range: Range<usize>, line: usize) {
        self.furthest_end = self.furthest_end.max(range.end);
        self.claims.push((range, line));
    }
}

/// A call left alone because it overlaps one inlined at `other_line`.
fn overlap_left(path: &str, name: &str, line: usize, other_line: usize) -> Left {
    Left {
        file: path.to_string(),
        line,
        why: w::overlap(name, line, other_line),
    }
}

/// Whether a call (or a reference) designates the function being inlined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Owner {
    Ours,
    NotOurs,
    /// It may be: the heuristic cannot tell, so the definition must stay. The message says why.
    Unsure(String),
}

impl Owner {
    /// From a language's reading of a call: how it designates the function (`Some`), that it
    /// does not (`None`), or why it cannot tell (`Err`).
    pub(super) fn of_site<S>(site: Result<Option<S>, String>) -> Owner {
        match site {
            Ok(Some(_)) => Owner::Ours,
            Ok(None) => Owner::NotOurs,
            Err(why) => Owner::Unsure(why),
        }
    }
}

/// What to do about a mention that is not a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum RefVerdict {
    Ignore,
    /// Worth telling (a comment or a string mentions the name); changes nothing.
    Info(String),
    /// The function is used here in a way that is not inlined: the definition must stay.
    Blocking(String),
    /// An import of the function; the edit removes it when the definition goes, or the reason
    /// it cannot be removed (then the definition stays).
    Import(Result<TextEdit, String>),
}

/// The edits that inline one call.
#[derive(Debug, Clone, Default)]
pub(super) struct Inlined {
    pub edits: Vec<TextEdit>,
    /// The text this inlining rewrites or depends on; another inlining overlapping it is
    /// refused (nested calls, two calls hoisting bindings before one statement).
    pub claim: Range<usize>,
    pub findings: Vec<Finding>,
    /// Arguments were bound to the parameter names (`let`, assignments).
    pub bound_arguments: bool,
    /// Temporaries given fresh names: (old, new).
    pub renamed: Vec<(String, String)>,
}

/// The function being inlined (its name and whole text are its [`Symbol`]'s), analysed by its
/// language strategy.
pub(super) trait Callee {
    fn facts(&self, file: &Parsed<'_>) -> Facts;
    /// `node`: the call's node (`call_expression`, `call`), when the tree has one there.
    fn owner_of_call(
        &self,
        file: &Parsed<'_>,
        facts: &Facts,
        call: &CallSite,
        node: Option<Node<'_>>,
    ) -> Owner;
    fn reference(&self, file: &Parsed<'_>, facts: &Facts, reference: &Reference) -> RefVerdict;
    /// Calls the syntax tree does not show as calls (inside macro arguments) that the language
    /// module can still find and inline.
    fn hidden_calls(&self, _file: &Parsed<'_>, _facts: &Facts) -> Vec<CallSite> {
        Vec::new()
    }
    /// The edits replacing `call` (already known to be ours) by the body, or why it cannot be.
    /// `finder`: the finder of the file's calls, in order (its lookups stay linear).
    fn inline<'t>(
        &self,
        file: &'t Parsed<'_>,
        facts: &Facts,
        call: &CallSite,
        finder: &mut NodeFinder<'t>,
    ) -> Result<Inlined, String>;
    /// The edits removing the definition from its file.
    fn removal(&self) -> Vec<TextEdit>;
    /// Warnings that apply when the definition is removed (e.g. a `pub` function).
    fn removal_findings(&self) -> Vec<Finding>;
}

/// A site left as it is, for the findings and the refusal message.
struct Left {
    file: String,
    line: usize,
    why: String,
}

fn run(
    sources: &dyn Sources,
    def: &Parsed<'_>,
    symbol: &Symbol,
    target: &dyn Callee,
) -> Result<Plan, RefactorError> {
    let name = symbol.name.clone();
    let lang = def.lang;
    let mentioning = sources.files_mentioning(lang, &name)?;
    let mut files: BTreeMap<String, &SourceFile> = mentioning
        .files
        .iter()
        .map(|f| (f.path.clone(), f))
        .collect();
    files.insert(def.path().to_string(), def.file);
    let mut progress = Progress {
        name: &name,
        cancel: sources.cancel(),
        target,
        findings: Vec::new(),
        left: Vec::new(),
        import_removals: Vec::new(),
        builder: ChangeSetBuilder::new(),
        tags: SiteTags::new(),
        inlined: 0,
        engine: None,
        bound_arguments: false,
        renamed: Vec::new(),
    };
    // Only the calls the references engine is certain of are inlined; its possible ones stay
    // (and keep the definition); when it cannot resolve the function, the calls' forms decide.
    match crate::refactor::references::Verdicts::of_function(
        sources,
        def.path(),
        &symbol.name_path,
        symbol.line,
        lang,
    ) {
        Ok(verdicts) => {
            progress
                .findings
                .extend(verdicts.server_findings.iter().cloned());
            progress.engine = Some(verdicts);
        }
        Err(error) => progress.findings.push(Finding::info(
            def.path(),
            symbol.line,
            w::engine_unavailable(&error.to_string()),
        )),
    }
    for (path, why) in &mentioning.skipped {
        progress.left.push(Left {
            file: path.clone(),
            line: 1,
            why: w::file_not_read(path, why, &name),
        });
    }
    // The other files are parsed by the store's workers, a batch at a time (a batch of trees
    // is what memory holds at once); the files are then visited in order, as before.
    let store = sources.parsed();
    let mut parsed_ahead: BTreeMap<&str, Tree> = BTreeMap::new();
    for (index, (path, file)) in files.iter().enumerate() {
        progress.cancel.check()?;
        if *path != def.path() && !parsed_ahead.contains_key(path.as_str()) {
            let batch: Vec<(&String, &&SourceFile)> = files
                .iter()
                .skip(index)
                .filter(|(p, _)| p.as_str() != def.path())
                .take(PARSED_AHEAD)
                .collect();
            let trees = map_in_parallel(store, &batch, &|(_, f)| store.tree_in_passing(lang, f));
            parsed_ahead = batch.iter().map(|(p, _)| p.as_str()).zip(trees).collect();
        }
        if *path == def.path() {
            progress.visit_file(def, Some(symbol.full_range.clone()))?;
        } else {
            let tree = parsed_ahead
                .remove(path.as_str())
                .unwrap_or_else(|| lang.parse(&file.text));
            progress.visit_file(&Parsed::with_tree(file, lang, tree), None)?;
        }
    }
    progress.finish(def, symbol, &files)
}

/// What inlining has done so far across the project.
struct Progress<'r> {
    name: &'r str,
    /// The request's token, checked per file and per call.
    cancel: crate::cancel::Cancel,
    target: &'r dyn Callee,
    findings: Vec<Finding>,
    /// The places that still need the definition.
    left: Vec<Left>,
    /// Imports of the function that go when the definition goes: (file, edit, line).
    import_removals: Vec<(String, TextEdit, usize)>,
    builder: ChangeSetBuilder,
    /// Each inlined call, a site.
    tags: SiteTags,
    inlined: usize,
    /// The references engine's verdicts on the function's occurrences.
    engine: Option<crate::refactor::references::Verdicts>,
    /// Some inlined call bound its arguments to the parameter names.
    bound_arguments: bool,
    /// Temporaries renamed by some inlined call: (old, new).
    renamed: Vec<(String, String)>,
}

impl Progress<'_> {
    /// Inlines the calls of one file and judges its other mentions; `definition` is the
    /// definition's range in its own file.
    fn visit_file(
        &mut self,
        parsed: &Parsed<'_>,
        definition: Option<Range<usize>>,
    ) -> Result<(), RefactorError> {
        let target = self.target;
        let mentions = find_mentions(parsed.lang, &parsed.tree, parsed.text(), self.name);
        if mentions.calls.is_empty() && mentions.references.is_empty() {
            return Ok(());
        }
        let facts = target.facts(parsed);
        self.findings.extend(facts.findings.iter().cloned());
        let hidden = target.hidden_calls(parsed, &facts);
        let hidden_names: Vec<usize> = hidden.iter().map(|c| c.name_range.start).collect();
        let mut calls = mentions.calls.clone();
        calls.extend(hidden);
        calls.sort_by_key(|c| c.range.start);
        self.visit_calls(target, parsed, &facts, &calls, definition.as_ref())?;
        let references: Vec<&Reference> = mentions
            .references
            .iter()
            .filter(|r| !hidden_names.contains(&r.range.start))
            .collect();
        self.visit_references(target, parsed, &facts, &references, definition.as_ref())
    }

    fn visit_calls(
        &mut self,
        target: &dyn Callee,
        parsed: &Parsed<'_>,
        facts: &Facts,
        calls: &[CallSite],
        definition: Option<&Range<usize>>,
    ) -> Result<(), RefactorError> {
        let path = parsed.path();
        let name = self.name;
        let mut claims = Claims::default();
        // The calls come in order of position: one finder keeps deep nests linear.
        let mut finder = NodeFinder::new(&parsed.tree);
        for call in calls {
            self.cancel.check()?;
            let node = parsed.lang.syntax().call_at(&mut finder, &call.range);
            let mut owner = target.owner_of_call(parsed, facts, call, node);
            // The engine only takes calls away from the heuristic's own "ours": what the call's
            // form leaves unsure keeps its own reason.
            if owner == Owner::Ours
                && let Some(doubt) = self
                    .engine
                    .as_ref()
                    .and_then(|e| e.doubt(path, call.name_range.start))
            {
                owner = match doubt {
                    Ok(why) => Owner::Unsure(w::engine_possible(why)),
                    Err(()) => Owner::NotOurs,
                };
            }
            if definition.is_some_and(|d| d.contains(&call.range.start)) {
                if owner == Owner::Ours {
                    return Err(RefactorError::Unsupported(w::recursive_call(
                        name, call.line,
                    )));
                }
                continue;
            }
            match owner {
                Owner::NotOurs => {}
                Owner::Unsure(why) => self.left.push(Left {
                    file: path.to_string(),
                    line: call.line,
                    why,
                }),
                // A call inside text an earlier inlining claims (`f(f(x))`) is not worked out
                // at all: deep nests stay linear.
                Owner::Ours
                    if let Some(other) =
                        claims.overlapping(call.range.start..call.range.start + 1) =>
                {
                    self.left.push(overlap_left(path, name, call.line, other));
                }
                Owner::Ours => match target.inline(parsed, facts, call, &mut finder) {
                    Ok(site) => {
                        if let Some(other) = claims.overlapping(site.claim.clone()) {
                            self.left.push(overlap_left(path, name, call.line, other));
                            continue;
                        }
                        claims.push(site.claim.clone(), call.line);
                        self.bound_arguments |= site.bound_arguments;
                        for (old, new) in site.renamed {
                            if !self.renamed.contains(&(old.clone(), new.clone())) {
                                self.renamed.push((old, new));
                            }
                        }
                        self.tags.tag(path, site.edits.clone(), SiteKind::Call);
                        for edit in site.edits {
                            self.builder.edit(path, edit);
                        }
                        self.findings.extend(site.findings);
                        self.inlined += 1;
                    }
                    Err(why) => self.left.push(Left {
                        file: path.to_string(),
                        line: call.line,
                        why: w::call_not_inlined(name, call.line, &why),
                    }),
                },
            }
        }
        Ok(())
    }

    fn visit_references(
        &mut self,
        target: &dyn Callee,
        parsed: &Parsed<'_>,
        facts: &Facts,
        references: &[&Reference],
        definition: Option<&Range<usize>>,
    ) -> Result<(), RefactorError> {
        let path = parsed.path();
        for reference in references {
            let verdict = target.reference(parsed, facts, reference);
            if definition.is_some_and(|d| d.contains(&reference.range.start)) {
                // Its own docs and strings go with the definition.
                let text_only = matches!(
                    reference.kind,
                    ReferenceKind::InString | ReferenceKind::InComment
                );
                if let (RefVerdict::Blocking(_), false) = (verdict, text_only) {
                    return Err(RefactorError::Unsupported(w::recursive_reference(
                        self.name,
                        reference.line,
                    )));
                }
                continue;
            }
            let left = |why| Left {
                file: path.to_string(),
                line: reference.line,
                why,
            };
            match verdict {
                RefVerdict::Ignore => {}
                RefVerdict::Info(message) => {
                    self.findings
                        .push(Finding::info(path, reference.line, message))
                }
                RefVerdict::Blocking(why) => self.left.push(left(why)),
                RefVerdict::Import(Ok(edit)) => {
                    self.import_removals
                        .push((path.to_string(), edit, reference.line))
                }
                RefVerdict::Import(Err(why)) => self.left.push(left(why)),
            }
        }
        Ok(())
    }

    /// Removes the definition (and its imports) when nothing needs it any more, and builds the
    /// plan.
    fn finish(
        mut self,
        def: &Parsed<'_>,
        symbol: &Symbol,
        files: &BTreeMap<String, &SourceFile>,
    ) -> Result<Plan, RefactorError> {
        let name = self.name;
        let target = self.target;
        if self.inlined == 0 {
            return Err(RefactorError::Unsupported(nothing_inlined_message(
                name, def.lang, &self.left,
            )));
        }
        let definition_removed = self.left.is_empty();
        let def_path = def.path();
        if definition_removed {
            for edit in target.removal() {
                self.builder.edit(def_path, edit);
            }
            self.findings.push(Finding::info(
                def_path,
                symbol.first_line,
                w::definition_removed(name, symbol.first_line, symbol.end_line),
            ));
            self.findings.extend(target.removal_findings());
            for (path, edit, line) in std::mem::take(&mut self.import_removals) {
                self.builder.edit(&path, edit);
                self.findings
                    .push(Finding::info(&path, line, w::import_removed(name)));
            }
        } else {
            self.findings.push(Finding::warning(
                def_path,
                symbol.line,
                w::definition_kept(name, self.left.len()),
            ));
        }
        for site in &self.left {
            self.findings
                .push(Finding::warning(&site.file, site.line, site.why.clone()));
        }
        let changes = self.builder.build(|path| files.get(path).copied())?;
        let sites = self.tags.finish(Tool::InlineFunction, |path| {
            files.get(path).map(|f| &*f.text)
        });
        let details = Details::Inline(InlineDetails {
            function_name: symbol.name_path.clone(),
            call_sites_updated: self.inlined,
            call_sites_left: self.left.len(),
            definition_removed,
            definition_lines: format!("{}-{}", symbol.first_line, symbol.end_line),
            files_changed: changes.iter().map(|c| c.path.clone()).collect(),
        });
        let caveat_notes = w::caveat_notes(def.lang, self.bound_arguments, &self.renamed);
        Ok(Plan {
            changes,
            findings: self.findings,
            details,
            caveat_notes,
            sites,
            ..Plan::default()
        })
    }
}

fn nothing_inlined_message(name: &str, lang: Language, left: &[Left]) -> String {
    if left.is_empty() {
        return w::no_call(name, lang.name());
    }
    let mut listed: Vec<String> = left
        .iter()
        .take(LISTED_SITES)
        .map(|l| format!("{}:{}: {}", l.file, l.line, l.why))
        .collect();
    if left.len() > LISTED_SITES {
        listed.push(format!("and {} more", left.len() - LISTED_SITES));
    }
    w::nothing_inlinable(name, &listed.join("; "))
}

/// Whether `word` occurs as a whole word in `text` (a cheap, conservative "mentions").
pub(super) fn mentions_word(text: &str, word: &str) -> bool {
    !crate::lang::calls::word_matches(text, word).is_empty()
}

/// A fresh name based on `base` that is not a whole word of any of `texts`.
pub(super) fn fresh_name(base: &str, texts: &[&str]) -> String {
    let taken = |candidate: &str| texts.iter().any(|t| mentions_word(t, candidate));
    if !taken(base) {
        return base.to_string();
    }
    (2..)
        .map(|i| format!("{base}{i}"))
        .find(|c| !taken(c))
        .unwrap_or_else(|| base.to_string())
}

#[cfg(test)]
mod tests;
