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

mod layout;
mod python;
mod rust;
mod snippet;

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

use rayon::prelude::*;
use tree_sitter::{Node, Tree};

use super::{Finding, InlineRequest, Plan, RefactorError, SourceError, Sources};
use crate::edit::{ChangeSetBuilder, SourceFile, TextEdit};
use crate::lang::Language;
use crate::lang::calls::{CallSite, Reference, ReferenceKind, find_mentions};
use crate::lang::finder::NodeFinder;
use crate::lang::symbols::{Symbol, resolve};
use crate::text::TextStyle;

/// How many refused sites an error message lists before it says "and N more".
const LISTED_SITES: usize = 8;

/// How many files are parsed ahead, in parallel, while inlining across the project.
const PARSED_AHEAD: usize = 64;

pub fn plan(sources: &dyn Sources, request: &InlineRequest) -> Result<Plan, RefactorError> {
    let def_file = sources
        .file(&request.file)?
        .ok_or_else(|| SourceError::Missing {
            path: request.file.clone(),
        })?;
    let lang = Language::from_path(&def_file.path)
        .ok_or_else(|| RefactorError::UnsupportedLanguage(def_file.path.clone()))?;
    let def = Parsed::with_tree(&def_file, lang, sources.parse(lang, &def_file));
    let symbols = sources.outline(lang, &def_file, &def.tree);
    let symbol = resolve(&symbols, &request.function, "function", |s| {
        s.kind.is_function()
    })?;
    let target: Box<dyn Target + '_> = match lang {
        Language::Python => Box::new(python::PyTarget::analyze(&def, &symbols, symbol)?),
        Language::Rust => rust::RustTarget::analyze(&def, &symbols, symbol)?,
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

    /// The node of `kind` spanning exactly `range`.
    pub fn node_at(&self, range: &Range<usize>, kind: &str) -> Option<Node<'_>> {
        NodeFinder::new(&self.tree).exact(range, kind)
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
}

/// The line of the claimed range that overlaps `range`, if any.
fn overlapping(claims: &[(Range<usize>, usize)], range: Range<usize>) -> Option<usize> {
    claims
        .iter()
        .find(|(c, _)| c.start < range.end && range.start < c.end)
        .map(|(_, line)| *line)
}

/// A call left alone because it overlaps one inlined at `other_line`.
fn overlap_left(path: &str, name: &str, line: usize, other_line: usize) -> Left {
    Left {
        file: path.to_string(),
        line,
        why: format!(
            "the call of `{name}` at line {line} overlaps the call inlined at line {other_line} (nested, or in the same statement); run the refactor again to inline it"
        ),
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
#[derive(Debug, Clone)]
pub(super) struct Inlined {
    pub edits: Vec<TextEdit>,
    /// The text this inlining rewrites or depends on; another inlining overlapping it is
    /// refused (nested calls, two calls hoisting bindings before one statement).
    pub claim: Range<usize>,
    pub findings: Vec<Finding>,
}

/// The function being inlined, analysed by its language module.
pub(super) trait Target {
    /// The function's own name (what call sites spell).
    fn name(&self) -> &str;
    /// The function's whole text in the definition file (docs, attributes, decorators included).
    fn definition_range(&self) -> Range<usize>;
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
    fn inline(&self, file: &Parsed<'_>, facts: &Facts, call: &CallSite) -> Result<Inlined, String>;
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
    target: &dyn Target,
) -> Result<Plan, RefactorError> {
    let name = target.name().to_string();
    let lang = def.lang;
    let mentioning = sources.files_mentioning(lang, &name)?;
    let mut files: BTreeMap<String, &SourceFile> = mentioning
        .files
        .iter()
        .map(|f| (f.path.clone(), f))
        .collect();
    files.insert(def.path().to_string(), def.file);

    let mut findings: Vec<Finding> = Vec::new();
    let mut left: Vec<Left> = Vec::new();
    let mut import_removals: Vec<(String, TextEdit, usize)> = Vec::new();
    let mut builder = ChangeSetBuilder::new();
    let mut inlined = 0usize;
    let mut changed: BTreeSet<String> = BTreeSet::new();

    for (path, why) in &mentioning.skipped {
        left.push(Left {
            file: path.clone(),
            line: 1,
            why: format!(
                "{path} was not read ({why}); it may call `{name}`, so the definition is kept"
            ),
        });
    }

    // The other files are parsed on every core, a batch at a time (a batch of trees is what
    // memory holds at once); the files are then visited in order, as before.
    let mut parsed_ahead: BTreeMap<&str, Tree> = BTreeMap::new();
    for (index, (path, file)) in files.iter().enumerate() {
        if *path != def.path() && !parsed_ahead.contains_key(path.as_str()) {
            parsed_ahead = files
                .iter()
                .skip(index)
                .filter(|(p, _)| p.as_str() != def.path())
                .take(PARSED_AHEAD)
                .collect::<Vec<_>>()
                .par_iter()
                .map(|(p, f)| (p.as_str(), lang.parse(&f.text)))
                .collect();
        }
        let owned;
        let parsed: &Parsed<'_> = if *path == def.path() {
            def
        } else {
            let tree = parsed_ahead
                .remove(path.as_str())
                .unwrap_or_else(|| lang.parse(&file.text));
            owned = Parsed::with_tree(file, lang, tree);
            &owned
        };
        let mentions = find_mentions(lang, &parsed.tree, parsed.text(), &name);
        if mentions.calls.is_empty() && mentions.references.is_empty() {
            continue;
        }
        let facts = target.facts(parsed);
        findings.extend(facts.findings.iter().cloned());
        let definition = (*path == def.path()).then(|| target.definition_range());
        let inside_definition = |at: usize| definition.as_ref().is_some_and(|d| d.contains(&at));
        let mut claims: Vec<(Range<usize>, usize)> = Vec::new();
        let hidden = target.hidden_calls(parsed, &facts);
        let hidden_names: Vec<usize> = hidden.iter().map(|c| c.name_range.start).collect();
        let mut calls = mentions.calls.clone();
        calls.extend(hidden);
        calls.sort_by_key(|c| c.range.start);
        // The calls come in order of position: one finder keeps deep nests linear.
        let mut finder = NodeFinder::new(&parsed.tree);
        let call_kind = match lang {
            Language::Python => "call",
            Language::Rust => "call_expression",
        };
        for call in &calls {
            let node = finder.exact(&call.range, call_kind);
            let owner = target.owner_of_call(parsed, &facts, call, node);
            if inside_definition(call.range.start) {
                if owner == Owner::Ours {
                    return Err(RefactorError::Unsupported(format!(
                        "`{name}` calls itself at line {}; a recursive function cannot be inlined",
                        call.line
                    )));
                }
                continue;
            }
            match owner {
                Owner::NotOurs => {}
                Owner::Unsure(why) => left.push(Left {
                    file: path.clone(),
                    line: call.line,
                    why,
                }),
                // A call inside text an earlier inlining claims (`f(f(x))`) is not worked out
                // at all: deep nests stay linear.
                Owner::Ours
                    if let Some(other) =
                        overlapping(&claims, call.range.start..call.range.start + 1) =>
                {
                    left.push(overlap_left(path, &name, call.line, other));
                }
                Owner::Ours => match target.inline(parsed, &facts, call) {
                    Ok(site) => {
                        if let Some(other) = overlapping(&claims, site.claim.clone()) {
                            left.push(overlap_left(path, &name, call.line, other));
                            continue;
                        }
                        claims.push((site.claim.clone(), call.line));
                        for edit in site.edits {
                            builder.edit(path, edit);
                        }
                        findings.extend(site.findings);
                        changed.insert(path.clone());
                        inlined += 1;
                    }
                    Err(why) => left.push(Left {
                        file: path.clone(),
                        line: call.line,
                        why: format!(
                            "the call of `{name}` at line {} is not inlined: {why}",
                            call.line
                        ),
                    }),
                },
            }
        }
        for reference in &mentions.references {
            if hidden_names.contains(&reference.range.start) {
                continue;
            }
            let verdict = target.reference(parsed, &facts, reference);
            if inside_definition(reference.range.start) {
                // Its own docs and strings go with the definition.
                let text_only = matches!(
                    reference.kind,
                    ReferenceKind::InString | ReferenceKind::InComment
                );
                if let (RefVerdict::Blocking(_), false) = (verdict, text_only) {
                    return Err(RefactorError::Unsupported(format!(
                        "the body of `{name}` refers to `{name}` itself at line {}; a recursive function cannot be inlined",
                        reference.line
                    )));
                }
                continue;
            }
            match verdict {
                RefVerdict::Ignore => {}
                RefVerdict::Info(message) => {
                    findings.push(Finding::info(path, reference.line, message))
                }
                RefVerdict::Blocking(why) => left.push(Left {
                    file: path.clone(),
                    line: reference.line,
                    why,
                }),
                RefVerdict::Import(Ok(edit)) => {
                    import_removals.push((path.clone(), edit, reference.line))
                }
                RefVerdict::Import(Err(why)) => left.push(Left {
                    file: path.clone(),
                    line: reference.line,
                    why,
                }),
            }
        }
    }

    if inlined == 0 {
        return Err(RefactorError::Unsupported(nothing_inlined_message(
            &name, lang, &left,
        )));
    }

    let definition_removed = left.is_empty();
    let def_path = def.path().to_string();
    if definition_removed {
        for edit in target.removal() {
            builder.edit(&def_path, edit);
        }
        changed.insert(def_path.clone());
        findings.push(Finding::info(
            &def_path,
            symbol.first_line,
            format!(
                "removed the definition of `{name}` (lines {}-{}): every call was inlined",
                symbol.first_line, symbol.end_line
            ),
        ));
        findings.extend(target.removal_findings());
        for (path, edit, line) in import_removals {
            builder.edit(&path, edit);
            findings.push(Finding::info(
                &path,
                line,
                format!("removed the import of `{name}`, unused now"),
            ));
            changed.insert(path);
        }
    } else {
        findings.push(Finding::warning(
            &def_path,
            symbol.line,
            format!(
                "the definition of `{name}` is kept: {} place(s) still need it (see the warnings)",
                left.len()
            ),
        ));
    }
    for site in &left {
        findings.push(Finding::warning(&site.file, site.line, site.why.clone()));
    }

    let changes = builder.build(|path| files.get(path).copied())?;
    let mut details = serde_json::Map::new();
    details.insert("function_name".into(), symbol.name_path.clone().into());
    details.insert("call_sites_updated".into(), inlined.into());
    details.insert("call_sites_left".into(), left.len().into());
    details.insert("definition_removed".into(), definition_removed.into());
    details.insert(
        "definition_lines".into(),
        format!("{}-{}", symbol.first_line, symbol.end_line).into(),
    );
    details.insert(
        "files_changed".into(),
        changes
            .iter()
            .map(|c| serde_json::Value::from(c.path.clone()))
            .collect::<Vec<_>>()
            .into(),
    );
    Ok(Plan {
        changes,
        findings,
        details,
    })
}

fn nothing_inlined_message(name: &str, lang: Language, left: &[Left]) -> String {
    if left.is_empty() {
        return format!(
            "found no call of `{name}` in the project's {} files, so there is nothing to inline; the definition is left as it is (delete it by hand if it is really unused)",
            lang.name()
        );
    }
    let mut listed: Vec<String> = left
        .iter()
        .take(LISTED_SITES)
        .map(|l| format!("{}:{}: {}", l.file, l.line, l.why))
        .collect();
    if left.len() > LISTED_SITES {
        listed.push(format!("and {} more", left.len() - LISTED_SITES));
    }
    format!(
        "no call of `{name}` can be inlined, so nothing was changed: {}",
        listed.join("; ")
    )
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
