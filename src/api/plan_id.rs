//! The preview token. A preview returns `data.plan_id`, the sha256 of exactly what its plan would
//! write: every file's path, the sha256 it was computed from (or its creation), and the sha256 of
//! the result of its edits (two edit lists that write the same bytes are the same plan). An apply that passes `plan_id` recomputes the plan and writes it only if
//! it is that same plan; otherwise the refusal names what differs (a file that changed, one that
//! newly needs a change, one that no longer does). The engine remembers the summaries of its
//! recent previews to name the differences; a plan it did not preview itself (another process)
//! is described as it is now.

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;

use sha2::{Digest, Sha256};

use crate::edit::FileChange;

/// How many previews an engine remembers (an MCP session, a TUI session).
const REMEMBERED: usize = 64;

/// The token of a plan: lowercase hex sha256.
pub fn plan_id(changes: &[FileChange]) -> String {
    let mut ordered: Vec<&FileChange> = changes.iter().collect();
    ordered.sort_by(|a, b| a.path.cmp(&b.path));
    let mut hasher = Sha256::new();
    hasher.update(b"candor-plan-1\n");
    let field = |hasher: &mut Sha256, bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    for change in ordered {
        field(&mut hasher, change.path.as_bytes());
        field(
            &mut hasher,
            change.sha256_before.as_deref().unwrap_or("-").as_bytes(),
        );
        field(&mut hasher, change.sha256_after.as_bytes());
    }
    hex::encode(hasher.finalize())
}

/// What a plan writes, file by file: path → (sha256 before, sha256 after).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PlanSummary {
    files: BTreeMap<String, (Option<String>, String)>,
}

impl PlanSummary {
    pub fn of(changes: &[FileChange]) -> PlanSummary {
        PlanSummary {
            files: changes
                .iter()
                .map(|c| {
                    (
                        c.path.clone(),
                        (c.sha256_before.clone(), c.sha256_after.clone()),
                    )
                })
                .collect(),
        }
    }

    /// The paths whose current content the plan was computed from (not those it creates).
    pub fn existing_paths(&self) -> impl Iterator<Item = &str> {
        self.files
            .iter()
            .filter(|(_, (before, _))| before.is_some())
            .map(|(path, _)| path.as_str())
    }
}

fn short(hash: &str) -> &str {
    hash.get(..12).unwrap_or(hash)
}

/// What differs between the plan that was previewed (when known) and the one computed now, one
/// clause per file, in path order.
pub fn differences(previewed: Option<&PlanSummary>, fresh: &PlanSummary) -> Vec<String> {
    let Some(previewed) = previewed else {
        return fresh
            .files
            .iter()
            .map(|(path, (before, _))| match before {
                Some(before) => format!("{path} (now sha256 {})", short(before)),
                None => format!("{path} (created)"),
            })
            .map(|file| format!("it now changes {file}"))
            .collect();
    };
    let mut clauses = Vec::new();
    for (path, (before, after)) in &fresh.files {
        match previewed.files.get(path) {
            None if before.is_some() => clauses.push(format!(
                "{path} now needs a change too (the preview did not change it)"
            )),
            None => clauses.push(format!(
                "{path} would now be created (the preview did not create it)"
            )),
            Some((then, _)) if then != before => clauses.push(format!(
                "{path} changed on disk since the preview (sha256 {} then, {} now)",
                then.as_deref().map_or("none", short),
                before.as_deref().map_or("none: it is gone", short)
            )),
            Some((_, then_after)) if then_after != after => clauses.push(format!(
                "{path} would now be written differently than previewed"
            )),
            Some(_) => {}
        }
    }
    for path in previewed.files.keys() {
        if !fresh.files.contains_key(path) {
            clauses.push(format!("{path} no longer needs a change"));
        }
    }
    clauses
}

/// How many site ids an engine remembers (to tell a stale id from an unknown one).
const REMEMBERED_SITES: usize = 100_000;

/// The summaries of an engine's recent previews, by plan id, and the files of their sites.
#[derive(Debug, Default)]
pub struct Previews {
    recent: Mutex<VecDeque<(String, PlanSummary)>>,
    sites: Mutex<VecDeque<(String, String)>>,
}

impl Previews {
    pub fn remember(&self, id: &str, summary: PlanSummary) {
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        if recent.iter().any(|(known, _)| known == id) {
            return;
        }
        recent.push_back((id.to_string(), summary));
        while recent.len() > REMEMBERED {
            recent.pop_front();
        }
    }

    /// Remembers the file of each site of a preview.
    pub fn remember_sites<'a>(&self, sites: impl Iterator<Item = (&'a str, &'a str)>) {
        let mut known = self.sites.lock().unwrap_or_else(|e| e.into_inner());
        known.extend(sites.map(|(id, file)| (id.to_string(), file.to_string())));
        while known.len() > REMEMBERED_SITES {
            known.pop_front();
        }
    }

    /// The file of a site a recent preview listed.
    pub fn site_file(&self, id: &str) -> Option<String> {
        let known = self.sites.lock().unwrap_or_else(|e| e.into_inner());
        known
            .iter()
            .rev()
            .find(|(k, _)| k.eq_ignore_ascii_case(id))
            .map(|(_, file)| file.clone())
    }

    pub fn get(&self, id: &str) -> Option<PlanSummary> {
        let recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        recent
            .iter()
            .find(|(known, _)| known.eq_ignore_ascii_case(id))
            .map(|(_, summary)| summary.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edit::{SourceFile, TextEdit};

    fn change(path: &str, text: &str, edit: (usize, usize, &str)) -> FileChange {
        let file = SourceFile::from_bytes(path, text.as_bytes()).unwrap();
        FileChange::modify(&file, vec![TextEdit::new(edit.0..edit.1, edit.2)]).unwrap()
    }

    #[test]
    fn the_id_covers_paths_bases_and_edits_in_any_order() {
        let a = change("a.py", "x = 1\n", (4, 5, "2"));
        let b = change("b.py", "y = 1\n", (4, 5, "3"));
        let id = plan_id(&[a.clone(), b.clone()]);
        assert_eq!(id.len(), 64);
        assert_eq!(
            id,
            plan_id(&[b.clone(), a.clone()]),
            "order does not matter"
        );
        assert_ne!(id, plan_id(std::slice::from_ref(&a)), "a file less");
        assert_ne!(
            id,
            plan_id(&[a.clone(), change("b.py", "y = 1\n", (4, 5, "4"))])
        );
        assert_ne!(
            id,
            plan_id(&[a.clone(), change("b.py", "y = 9\n", (4, 5, "3"))])
        );
        // The same bytes written by other edits: the same plan.
        assert_eq!(
            id,
            plan_id(&[a, change("b.py", "y = 1\n", (0, 6, "y = 3\n"))])
        );
    }

    #[test]
    fn differences_name_each_file() {
        let a = change("a.py", "x = 1\n", (4, 5, "2"));
        let c = change("pkg/c.py", "h(41, 1)\n", (5, 8, ""));
        let previewed = PlanSummary::of(std::slice::from_ref(&a));
        let fresh = PlanSummary::of(&[a.clone(), c]);
        assert_eq!(
            differences(Some(&previewed), &fresh),
            vec!["pkg/c.py now needs a change too (the preview did not change it)"]
        );
        let moved = PlanSummary::of(&[change("a.py", "x = 5\n", (4, 5, "2"))]);
        let clauses = differences(Some(&previewed), &moved);
        assert!(
            clauses[0].starts_with("a.py changed on disk"),
            "{clauses:?}"
        );
        assert_eq!(
            differences(Some(&fresh), &previewed),
            vec!["pkg/c.py no longer needs a change"]
        );
        assert!(differences(None, &fresh)[1].contains("pkg/c.py"));
        let previews = Previews::default();
        previews.remember("ab", previewed.clone());
        assert_eq!(previews.get("AB"), Some(previewed));
    }
}
