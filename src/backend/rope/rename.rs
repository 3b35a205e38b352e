//! Rename through rope's `Rename`, checked against candor's references engine. rope renames
//! the symbol at its definition (methods with their overrides up and down the class
//! hierarchy); candor reads back exactly which occurrences rope renamed, and compares them with
//! the engine's list: a reference the engine is certain of and rope was unsure of, and an
//! `__all__` entry (rope leaves strings alone), are renamed too; a certain reference rope left
//! behind, a possible one rope renamed, one only rope found, and the possible ones nobody
//! renamed are findings. Modules are not renamed (that moves a file).

use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;

use crate::edit::{FileChange, SourceFile, TextEdit};
use crate::lang::Language;
use crate::lang::refs::{Rewrite, Role};
use crate::refactor::references::{self, Certainty, Reference, References, ReferencesRequest};
use crate::refactor::{
    Details, Finding, Plan, RefactorError, RenameDetails, RenameRequest, Sources,
};

use super::checks::{skipped_findings, stub_findings};
use super::convert::{OffsetMap, byte_offset, rope_offset, rope_text, without_bom};
use super::request::{RopeChange, ask, sync};
use super::{RopeFailure, Session};

#[derive(Debug, Deserialize)]
struct RenameAnswer {
    changes: Vec<RopeChange>,
    /// Occurrences rope was unsure of (and left alone), in rope's character offsets.
    #[serde(default)]
    unsure: Vec<Unsure>,
}

#[derive(Debug, Deserialize)]
struct Unsure {
    path: String,
    start: usize,
}

/// The request checked the way the heuristic checks it (the new name, a collision, the
/// possible references to include): the engine's references, or the error every backend gives.
pub(super) fn checked(
    sources: &dyn Sources,
    request: &RenameRequest,
    lang: Language,
) -> Result<References, RefactorError> {
    lang.validate_identifier(&request.new_name)
        .map_err(|message| RefactorError::InvalidArgument {
            param: "new_name",
            message,
        })?;
    let found = references::find(
        sources,
        &ReferencesRequest {
            file: request.file.clone(),
            symbol: request.symbol.clone(),
        },
        lang,
        None,
    )?;
    crate::refactor::rename::plan_from(sources, request, &found)?;
    Ok(found)
}

/// Where a name ends up renamed, and who decided.
#[derive(Debug, Default)]
struct Renames {
    /// path → start → range of the old name, in the file as candor read it.
    by_file: BTreeMap<String, BTreeMap<usize, Range<usize>>>,
}

impl Renames {
    fn contains(&self, path: &str, start: usize) -> bool {
        self.by_file
            .get(path)
            .is_some_and(|starts| starts.contains_key(&start))
    }

    fn add(&mut self, path: &str, range: Range<usize>) {
        self.by_file
            .entry(path.to_string())
            .or_default()
            .insert(range.start, range);
    }

    fn count(&self) -> usize {
        self.by_file.values().map(BTreeMap::len).sum()
    }
}

pub(super) fn rename(
    session: &mut Session,
    sources: &dyn Sources,
    request: &RenameRequest,
    found: &References,
    timeout: Duration,
) -> Result<Plan, RopeFailure> {
    let target = &found.target;
    let (old, new) = (target.name.as_str(), request.new_name.as_str());
    let synced = sync(session, sources, &[&request.file, &target.path])?;
    let definition = base(session, found, &target.path)?;
    let answer: RenameAnswer = ask(
        session,
        "rename",
        &[
            ("path", json!(target.path)),
            (
                "offset",
                json!(rope_offset(&definition, target.name_range.start)),
            ),
            ("name", json!(old)),
            ("new_name", json!(new)),
        ],
        timeout,
    )?;
    let mut bases: BTreeMap<String, SourceFile> = BTreeMap::new();
    let mut by_rope = Renames::default();
    for change in &answer.changes {
        let file = base(session, found, &change.path)?;
        if file.sha256 != change.sha256 {
            return Err(RopeFailure::Failed(format!(
                "rope read {} as other bytes than candor copied for it; try again",
                change.path
            )));
        }
        for range in renamed_in(&file, change, old, new)? {
            by_rope.add(&change.path, range);
        }
        bases.insert(change.path.clone(), file);
    }
    let mut unsure: BTreeSet<(String, usize)> = BTreeSet::new();
    for occurrence in &answer.unsure {
        let file = base(session, found, &occurrence.path)?;
        if let Some(at) = byte_offset(&file, occurrence.start) {
            unsure.insert((occurrence.path.clone(), at));
        }
    }
    let included: BTreeSet<&str> = request
        .include_possible
        .iter()
        .map(String::as_str)
        .collect();
    let mut findings = skipped_findings(&synced);
    let mut renames = Renames::default();
    for (path, starts) in &by_rope.by_file {
        for range in starts.values() {
            renames.add(path, range.clone());
        }
    }
    for reference in found
        .references
        .iter()
        .filter(|r| r.rewrite != Rewrite::Keep && !r.alias)
    {
        let (path, start) = (reference.path.as_str(), reference.range.start);
        let judged = judge(
            reference,
            by_rope.contains(path, start),
            unsure.contains(&(path.to_string(), start)),
            included.contains(reference.location().as_str()),
            old,
        );
        if judged.rename && !renames.contains(path, start) {
            renames.add(path, reference.range.clone());
            if !bases.contains_key(path) {
                bases.insert(path.to_string(), base(session, found, path)?);
            }
        }
        if let Some(finding) = judged.finding {
            findings.push(finding);
        }
    }
    findings.extend(rope_only(found, &by_rope, &bases, old));
    for (path, at) in &unsure {
        if found.at(path, &(*at..*at + old.len())).is_none() {
            let line = bases
                .get(path)
                .map_or(1, |f| f.text[..*at].matches('\n').count() + 1);
            findings.push(Finding::warning(
                path,
                line,
                format!("rope could not tell whether this `{old}` is the symbol renamed and left it unchanged; candor's references engine does not list it either — check it"),
            ));
        }
    }
    // The stub of the definition's module, when the engine did not rename in it (stubs of
    // other modules declaring the same name declare something else).
    let own_stub = format!("{}i", target.path);
    findings.extend(
        stub_findings(sources, old)?
            .into_iter()
            .filter(|f| f.file == own_stub && !renames.by_file.contains_key(&f.file)),
    );
    let mut changes = Vec::new();
    for (path, starts) in &renames.by_file {
        let Some(file) = bases.get(path) else {
            continue;
        };
        let edits = starts
            .values()
            .map(|range| TextEdit::new(range.clone(), new))
            .collect();
        changes.push(FileChange::modify(file, edits).map_err(|e| {
            RopeFailure::Failed(format!("the rename of {path} cannot be written: {e}"))
        })?);
    }
    if changes.is_empty() {
        return Err(RopeFailure::Failed(format!(
            "rope found nothing to rename for `{old}`"
        )));
    }
    let possible_references = found
        .possible()
        .filter(|r| !renames.contains(&r.path, r.range.start))
        .map(Reference::location)
        .collect();
    let details = RenameDetails {
        old_name: old.to_string(),
        new_name: new.to_string(),
        symbol_kind: target.label.to_string(),
        definition: format!(
            "{}:{}",
            target.path,
            definition.text[..target.name_range.start]
                .matches('\n')
                .count()
                + 1
        ),
        references_renamed: renames.count(),
        possible_references,
        files_changed: changes.iter().map(|c| c.path.clone()).collect(),
        references_from: format!(
            "rope {}, checked against {}",
            session
                .info
                .version
                .as_deref()
                .unwrap_or("(unknown version)"),
            references::wording::source_engine()
        ),
    };
    Ok(Plan {
        changes,
        findings,
        details: Details::Rename(details),
        ..Plan::default()
    })
}

/// What becomes of one of the engine's references, given what rope did with it.
struct Judged {
    rename: bool,
    finding: Option<Finding>,
}

fn judge(reference: &Reference, by_rope: bool, unsure: bool, included: bool, old: &str) -> Judged {
    let (path, line) = (reference.path.as_str(), reference.line);
    let why = match &reference.certainty {
        Certainty::Possible(why) => Some(why.as_str()),
        Certainty::Certain => None,
    };
    let (rename, finding) = match (why, by_rope) {
        (None, true) => (true, None),
        (Some(why), true) => (
            true,
            (!included).then(|| Finding::info(path, line, format!("rope resolved this `{old}` and renamed it; candor's references engine alone could not tell ({why})"))),
        ),
        (None, false) if path.ends_with(".pyi") => (
            true,
            Some(Finding::info(path, line, format!("candor renamed `{old}` in this stub file from its references engine (rope reads only .py modules)"))),
        ),
        (None, false) if reference.role == Role::DunderAll => (
            true,
            Some(Finding::info(path, line, format!("candor renamed `{old}` in this `__all__` (rope does not rename names in strings)"))),
        ),
        (None, false) if unsure => (
            true,
            Some(Finding::info(path, line, format!("rope was unsure whether this `{old}` is the symbol; candor's references engine resolved it, so candor renamed it"))),
        ),
        (None, false) => (
            false,
            Some(Finding::warning(path, line, format!("rope left this reference to `{old}` unchanged, but candor's references engine resolved it to the symbol renamed: it may now name nothing — check it, or use semantic_edit_backend \"tree-sitter\", which renames it"))),
        ),
        (Some(why), false) if included => (
            true,
            Some(Finding::warning(path, line, format!("possible reference to `{old}` renamed because you included it ({why}); rope did not rename it"))),
        ),
        (Some(why), false) => (
            false,
            Some(Finding::warning(path, line, format!(
                "possible reference to `{old}` left unchanged ({why}{}); include it with `include_possible` if it is the same symbol",
                if unsure { "; rope was unsure of it too" } else { "; rope did not rename it" }
            ))),
        ),
    };
    Judged { rename, finding }
}

/// An info finding for each file where rope renamed occurrences the engine did not list.
fn rope_only(
    found: &References,
    by_rope: &Renames,
    bases: &BTreeMap<String, SourceFile>,
    old: &str,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    for (path, starts) in &by_rope.by_file {
        let Some(file) = bases.get(path) else {
            continue;
        };
        let lines: Vec<usize> = starts
            .values()
            .filter(|range| found.at(path, range).is_none())
            .map(|range| file.text[..range.start].matches('\n').count() + 1)
            .collect();
        if let Some(first) = lines.first() {
            let listed: Vec<String> = lines.iter().map(usize::to_string).collect();
            findings.push(Finding::info(
                path,
                *first,
                format!(
                    "rope renamed `{old}` where candor's references engine found no reference to it (line {}): rope's inference reached it — check it",
                    listed.join(", ")
                ),
            ));
        }
    }
    findings
}

/// `path` in the private copy, checked to be the bytes the engine read (a stub file, which
/// the copy leaves out, as the engine read it).
fn base(session: &Session, found: &References, path: &str) -> Result<SourceFile, RopeFailure> {
    if path.ends_with(".pyi")
        && let Some(read) = found.files.get(path)
    {
        return Ok(read.clone());
    }
    let file = session.mirror.read(path)?;
    if let Some(read) = found.files.get(path)
        && read.sha256 != file.sha256
    {
        return Err(RopeFailure::Failed(format!(
            "{path} changed while the rename was computed; try again"
        )));
    }
    Ok(file)
}

/// The ranges (in `file` as candor read it) of the occurrences of `old` rope renamed to `new`;
/// an error when rope changed anything else.
fn renamed_in(
    file: &SourceFile,
    change: &RopeChange,
    old: &str,
    new: &str,
) -> Result<Vec<Range<usize>>, RopeFailure> {
    let before = without_bom(file, &change.before);
    let after = without_bom(file, &change.after);
    if rope_text(&file.text) != before {
        return Err(RopeFailure::Failed(format!(
            "rope read {} differently from candor (an encoding declaration other than UTF-8?); candor cannot map its changes onto the file",
            file.path
        )));
    }
    let starts = renamed_positions(&before, &after, old, new).ok_or_else(|| {
        RopeFailure::Failed(format!(
            "rope changed more than the name `{old}` in {}; candor does not apply that",
            file.path
        ))
    })?;
    let map = OffsetMap::new(&file.text);
    Ok(starts
        .into_iter()
        .map(|at| {
            let start = map.original(at);
            start..start + old.len()
        })
        .collect())
}

fn is_identifier_char(c: Option<char>) -> bool {
    c.is_some_and(|c| c.is_alphanumeric() || c == '_')
}

/// The byte offsets in `before` of the whole-word occurrences of `old` that became `new` in
/// `after`, when `after` is `before` with exactly those replaced; `None` otherwise.
fn renamed_positions(before: &str, after: &str, old: &str, new: &str) -> Option<Vec<usize>> {
    let mut positions = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < before.len() {
        let word_start = !is_identifier_char(before[..i].chars().next_back());
        if word_start
            && before[i..].starts_with(old)
            && !is_identifier_char(before[i + old.len()..].chars().next())
            && after[j..].starts_with(new)
            && !is_identifier_char(after[j + new.len()..].chars().next())
        {
            positions.push(i);
            i += old.len();
            j += new.len();
            continue;
        }
        let c = before[i..].chars().next()?;
        if !after[j..].starts_with(c) {
            return None;
        }
        i += c.len_utf8();
        j += c.len_utf8();
    }
    (j == after.len()).then_some(positions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_renamed_occurrences_are_read_back_from_rope_s_text() {
        let before = "from m import f as g\nf(f_x, xf)\n# f\n";
        let after = "from m import go as g\ngo(f_x, xf)\n# f\n";
        assert_eq!(
            renamed_positions(before, after, "f", "go"),
            Some(vec![14, 21])
        );
        // A new name that starts with the old one, and one the old name starts with.
        assert_eq!(
            renamed_positions("ab(ab)", "abc(ab)", "ab", "abc"),
            Some(vec![0])
        );
        assert_eq!(
            renamed_positions("abc(abc)", "ab(ab)", "abc", "ab"),
            Some(vec![0, 4])
        );
        assert_eq!(
            renamed_positions("é = f\n", "é = g\n", "f", "g"),
            Some(vec![5])
        );
    }

    #[test]
    fn any_other_change_is_refused() {
        assert_eq!(renamed_positions("f(1)\n", "g(2)\n", "f", "g"), None);
        assert_eq!(renamed_positions("f\n", "g\nx\n", "f", "g"), None);
        assert_eq!(renamed_positions("f\nx\n", "g\n", "f", "g"), None);
        // A rename inside a longer word is not a rename of the name.
        assert_eq!(renamed_positions("ff\n", "gf\n", "f", "g"), None);
    }

    #[test]
    fn crlf_files_map_rope_s_offsets_back() {
        let file = SourceFile::from_bytes("a.py", b"x = 1\r\nf()\r\n").unwrap();
        let change = RopeChange::for_tests("a.py", "x = 1\nf()\n", "x = 1\ngo()\n");
        let ranges = renamed_in(&file, &change, "f", "go").unwrap();
        assert_eq!(ranges, vec![7..8]);
        assert_eq!(&file.text[7..8], "f");
    }
}
