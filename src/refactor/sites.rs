//! The sites of a plan: each changed place a user may leave out (a reference renamed, a call
//! rewritten, an import rewritten by a move, an occurrence replaced), with a stable id, and
//! [`choose`], which recomputes the changes from the same `before` texts for a choice of sites
//! and says at each left-out site what leaving it out means. Pure: no disk.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::findings::Finding;
use super::sites_wording as w;
use super::{Details, Plan};
use crate::edit::{EditError, FileChange, SourceFile, TextEdit};
use crate::honesty::Tool;
use crate::text::LineIndex;

/// What a site is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SiteKind {
    /// A reference renamed.
    Reference,
    /// A call rewritten (change signature, inline, introduce parameter).
    Call,
    /// An import or path in a third file rewritten by a move.
    Import,
    /// One more occurrence of an extracted expression replaced by the new variable.
    Occurrence,
    /// An edit of a language server or rope that candor cannot classify.
    Edit,
}

impl SiteKind {
    pub fn as_str(self) -> &'static str {
        match self {
            SiteKind::Reference => "reference",
            SiteKind::Call => "call",
            SiteKind::Import => "import",
            SiteKind::Occurrence => "occurrence",
            SiteKind::Edit => "edit",
        }
    }
}

/// One site of a plan (`data.sites`, without its edits).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Site {
    /// First 12 hex digits of the sha256 of the tool, the file, each edit's range (line:column)
    /// and the text it replaces and writes: the same for two previews of the same request.
    pub id: String,
    pub file: String,
    /// 1-based line and character column of the site's first edit.
    pub line: usize,
    pub column: usize,
    pub kind: SiteKind,
    /// Whether the backend is sure the site belongs to the refactor.
    pub certain: bool,
    /// Whether the plan writes it.
    pub chosen: bool,
    /// The edits of the site, in the offsets of the file's `before` text.
    #[serde(skip)]
    pub edits: Vec<TextEdit>,
}

/// 1-based line and character column of byte `offset` of `text` (`lines` its index).
fn line_column(text: &str, lines: &LineIndex, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let line = lines.line_of(offset);
    let start = lines.line_start(line).min(offset);
    (line + 1, text[start..offset].chars().count() + 1)
}

/// The stable id of a site (`lines`: the index of `text`).
pub fn site_id(
    tool: Tool,
    file: &str,
    text: &str,
    lines: &LineIndex,
    edits: &[TextEdit],
) -> String {
    let mut hasher = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    field(tool.name().as_bytes());
    field(file.as_bytes());
    for edit in edits {
        let (sl, sc) = line_column(text, lines, edit.range.start);
        let (el, ec) = line_column(text, lines, edit.range.end);
        field(format!("{sl}:{sc}-{el}:{ec}").as_bytes());
        field(text.get(edit.range.clone()).unwrap_or("").as_bytes());
        field(edit.new_text.as_bytes());
    }
    hex::encode(hasher.finalize())[..12].to_string()
}

/// Collects the edits a planner marks as sites, next to its `ChangeSetBuilder`; `finish` turns
/// them into [`Site`]s once the texts are known.
#[derive(Debug, Default, Clone)]
pub struct SiteTags {
    tagged: Vec<Tagged>,
}

#[derive(Debug, Clone)]
struct Tagged {
    path: String,
    edits: Vec<TextEdit>,
    kind: SiteKind,
    certain: bool,
    chosen: bool,
}

impl SiteTags {
    pub fn new() -> SiteTags {
        SiteTags::default()
    }

    /// A certain site the plan writes, made of `edits` (a call may need several).
    pub fn tag(&mut self, path: &str, edits: Vec<TextEdit>, kind: SiteKind) -> &mut Self {
        self.tag_with(path, edits, kind, true, true)
    }

    /// A site with its certainty and whether the plan writes it.
    pub fn tag_with(
        &mut self,
        path: &str,
        edits: Vec<TextEdit>,
        kind: SiteKind,
        certain: bool,
        chosen: bool,
    ) -> &mut Self {
        let edits: Vec<TextEdit> = edits
            .into_iter()
            .filter(|e| !(e.range.is_empty() && e.new_text.is_empty()))
            .collect();
        if !edits.is_empty() {
            self.tagged.push(Tagged {
                path: path.to_string(),
                edits,
                kind,
                certain,
                chosen,
            });
        }
        self
    }

    /// The sites, in file and position order; `text` gives the text the edits apply to. A site
    /// whose file has no text is dropped (it cannot be shown or chosen).
    pub fn finish<'t>(self, tool: Tool, text: impl Fn(&str) -> Option<&'t str>) -> Vec<Site> {
        // One line index per file: thousands of sites in one file stay linear.
        let mut indexes: BTreeMap<String, LineIndex> = BTreeMap::new();
        let mut sites: Vec<Site> = self
            .tagged
            .into_iter()
            .filter_map(|t| {
                let text = text(&t.path)?;
                let lines = indexes
                    .entry(t.path.clone())
                    .or_insert_with(|| LineIndex::new(text));
                let mut edits = t.edits;
                edits.sort_by_key(|e| (e.range.start, e.range.end));
                let (line, column) = line_column(text, lines, edits[0].range.start);
                Some(Site {
                    id: site_id(tool, &t.path, text, lines, &edits),
                    file: t.path,
                    line,
                    column,
                    kind: t.kind,
                    certain: t.certain,
                    chosen: t.chosen,
                    edits,
                })
            })
            .collect();
        sites.sort_by(|a, b| (&a.file, a.line, a.column).cmp(&(&b.file, b.line, b.column)));
        sites.dedup_by(|a, b| a.id == b.id);
        sites
    }
}

/// [`SiteTags::finish`] with the texts of `changes` (every site is in a changed file).
impl SiteTags {
    pub fn finish_in(self, tool: Tool, changes: &[FileChange]) -> Vec<Site> {
        self.finish(tool, |path| {
            changes
                .iter()
                .find(|c| c.path == path)
                .map(|c| c.before.as_str())
        })
    }
}

/// The files a plan's sites need beyond its changes: each file where only sites left out by
/// default would write, as read (a cheap copy: its text is shared).
pub fn bases_for(
    sites: &[Site],
    changes: &[FileChange],
    base: impl Fn(&str) -> Option<SourceFile>,
) -> Vec<SourceFile> {
    let changed: BTreeSet<&str> = changes.iter().map(|c| c.path.as_str()).collect();
    let files: BTreeSet<&str> = sites
        .iter()
        .map(|s| s.file.as_str())
        .filter(|f| !changed.contains(f))
        .collect();
    files.into_iter().filter_map(base).collect()
}

/// Why a choice of sites cannot be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChoiceError {
    #[error("{}", w::unknown_site(.0))]
    Unknown(String),
    #[error("{}", w::both(.0))]
    Both(String),
    #[error(transparent)]
    Edit(#[from] EditError),
}

/// A plan's changes and sites for a choice, and what leaving sites out means.
#[derive(Debug, Clone, PartialEq)]
pub struct Chosen {
    pub changes: Vec<FileChange>,
    pub sites: Vec<Site>,
    pub findings: Vec<Finding>,
    /// (file, line) of each possible site the choice writes: the planner's "left unchanged"
    /// warning there no longer holds.
    pub written_possible: Vec<(String, usize)>,
}

/// The kind of a planner's warning that a possible site is left as it was (a rename's possible
/// reference): moot once the choice writes that site.
pub const POSSIBLE_LEFT: &str = "rename.possible_left";

impl Chosen {
    /// Whether `finding` is a planner's "possible site left unchanged" at a site this choice
    /// writes.
    pub fn supersedes(&self, finding: &Finding) -> bool {
        finding.kind == Some(POSSIBLE_LEFT)
            && self
                .written_possible
                .iter()
                .any(|(file, line)| *file == finding.file && *line == finding.line)
    }
}

/// Recomputes the plan's changes (each from its own `before`, no disk) with the sites of
/// `excluded` left out and those of `included` written; the plan's `site_bases` are the files
/// where only sites left out by default write. The plan's sites carry its own choice
/// (`chosen`), the starting point.
pub fn choose(
    tool: Tool,
    plan: &Plan,
    excluded: &BTreeSet<String>,
    included: &BTreeSet<String>,
) -> Result<Chosen, ChoiceError> {
    let (changes, bases, sites) = (&plan.changes, &plan.site_bases, &plan.sites);
    let known: BTreeSet<&str> = sites.iter().map(|s| s.id.as_str()).collect();
    for id in excluded.iter().chain(included) {
        if !known.contains(id.as_str()) {
            return Err(ChoiceError::Unknown(id.clone()));
        }
    }
    if let Some(id) = excluded.intersection(included).next() {
        return Err(ChoiceError::Both(id.clone()));
    }
    // Per file: the edits to drop and those to add.
    let mut drop: BTreeMap<&str, Vec<&TextEdit>> = BTreeMap::new();
    let mut add: BTreeMap<&str, Vec<&TextEdit>> = BTreeMap::new();
    let mut out_sites = Vec::with_capacity(sites.len());
    let mut left_out = Vec::new();
    let mut written_possible = Vec::new();
    for site in sites {
        let chosen = if excluded.contains(&site.id) {
            false
        } else if included.contains(&site.id) {
            true
        } else {
            site.chosen
        };
        if chosen != site.chosen {
            let into = if chosen { &mut add } else { &mut drop };
            into.entry(site.file.as_str())
                .or_default()
                .extend(site.edits.iter());
        }
        if !chosen && site.chosen {
            left_out.push(site);
        }
        if chosen && !site.certain {
            written_possible.push((site.file.clone(), site.line));
        }
        let mut site = site.clone();
        site.chosen = chosen;
        out_sites.push(site);
    }
    let mut out = Vec::with_capacity(changes.len());
    let touched: BTreeSet<&str> = drop.keys().chain(add.keys()).copied().collect();
    // A file's edits without those dropped, with those added; `None` when it is then unchanged.
    let rebuilt = |change: &FileChange| -> Result<Option<FileChange>, ChoiceError> {
        let path = change.path.as_str();
        let dropped = drop.get(path).map(Vec::as_slice).unwrap_or(&[]);
        let mut edits: Vec<TextEdit> = change
            .edits
            .iter()
            .filter(|e| !dropped.contains(e))
            .cloned()
            .collect();
        if let Some(added) = add.get(path) {
            edits.extend(added.iter().map(|e| (*e).clone()));
        }
        let rebuilt = change.with_edits(edits)?;
        Ok((rebuilt.before != rebuilt.after || rebuilt.created()).then_some(rebuilt))
    };
    let mut seen = BTreeSet::new();
    for change in changes {
        if !seen.insert(change.path.as_str()) {
            continue;
        }
        match touched.contains(change.path.as_str()) {
            true => out.extend(rebuilt(change)?),
            false => out.push(change.clone()),
        }
    }
    // A file only sites left out by default write: changed once the choice writes one.
    for base in bases {
        if seen.insert(base.path.as_str()) && touched.contains(base.path.as_str()) {
            out.extend(rebuilt(&FileChange::unchanged(base))?);
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    let findings = left_out
        .into_iter()
        .map(|site| left_out_finding(tool, plan, site))
        .collect();
    Ok(Chosen {
        changes: out,
        sites: out_sites,
        findings,
        written_possible,
    })
}

/// What leaving `site` out means, at the site.
fn left_out_finding(tool: Tool, plan: &Plan, site: &Site) -> Finding {
    let before = (plan.changes.iter())
        .find(|c| c.path == site.file)
        .map(|c| c.before.as_str())
        .or_else(|| {
            (plan.site_bases.iter())
                .find(|b| b.path == site.file)
                .map(|b| &*b.text)
        })
        .unwrap_or("");
    let old = site
        .edits
        .first()
        .and_then(|e| before.get(e.range.clone()))
        .unwrap_or("");
    // An inline that keeps the definition (some calls stay) breaks nothing at a call left out.
    let removes = !matches!(&plan.details, Details::Inline(d) if !d.definition_removed);
    let (severity, message, kind) = w::left_out(tool, site.kind, site.certain, removes, old);
    Finding::new(&site.file, site.line, severity, message).with_kind(kind)
}

/// The sites of a result candor did not plan itself (a language server's, rope's), where the
/// edits say nothing about what they are: for a rename, each edit but the one at the definition
/// (`definition`: path and 1-based line) is a `reference`; for the other tools, each edit in
/// another file than the request's is an `edit` site (the request's own file holds the
/// definition or the selection, always written). Created files are never sites.
pub fn of_backend(
    tool: Tool,
    request_file: &str,
    changes: &[FileChange],
    definition: Option<(&str, usize)>,
) -> Vec<Site> {
    let mut tags = SiteTags::new();
    for change in changes.iter().filter(|c| !c.created()) {
        let lines = LineIndex::new(&change.before);
        for edit in &change.edits {
            if tool == Tool::RenameSymbol {
                let line = lines.line_of(edit.range.start) + 1;
                if definition != Some((change.path.as_str(), line)) {
                    tags.tag(&change.path, vec![edit.clone()], SiteKind::Reference);
                }
            } else if change.path != request_file {
                tags.tag(&change.path, vec![edit.clone()], SiteKind::Edit);
            }
        }
    }
    tags.finish(tool, |path| {
        changes
            .iter()
            .find(|c| c.path == path)
            .map(|c| c.before.as_str())
    })
}

/// How many sites a plan writes, of how many.
pub fn counts(sites: &[Site]) -> (usize, usize) {
    (sites.iter().filter(|s| s.chosen).count(), sites.len())
}

#[cfg(test)]
#[path = "sites_tests.rs"]
mod tests;
