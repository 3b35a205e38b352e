//! Finding programs on PATH, the one lookup every language server, checker and interpreter goes
//! through: only absolute PATH entries outside the project and outside candor's cache (where the
//! verification shadows live) are searched — a relative entry (`.`, `tools`, an empty one) would
//! find the project's own `./ruff` — and each entry skipped is said. Also the PATH those programs
//! get, with the same entries left out, so what they start in turn is not the project's either.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// What a lookup found, and the PATH entries it did not search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lookup {
    pub found: Option<PathBuf>,
    /// One sentence per entry skipped: "skipped PATH entry `.`: relative".
    pub skipped: Vec<String>,
}

impl Lookup {
    /// `"; skipped PATH entry `.`: relative"`, or nothing: for the end of a "not found" message.
    pub fn skipped_suffix(&self) -> String {
        if self.skipped.is_empty() {
            String::new()
        } else {
            format!(" ({})", self.skipped.join("; "))
        }
    }
}

/// The folders no program is taken from when working on the project at `project` (the project
/// and candor's cache), each with how it is named.
fn excluded(project: &Path) -> Vec<(PathBuf, &'static str)> {
    let mut dirs = Vec::new();
    for dir in [Some(project.to_path_buf()), project.canonicalize().ok()]
        .into_iter()
        .flatten()
    {
        if !dir.as_os_str().is_empty() {
            dirs.push((dir, "inside the project"));
        }
    }
    if let Some(cache) = crate::verify::cache::cache_root() {
        if let Ok(real) = cache.canonicalize() {
            dirs.push((real, "inside candor's cache"));
        }
        dirs.push((cache, "inside candor's cache"));
    }
    dirs
}

/// Why the PATH entry `entry` is not searched, if it is not.
fn skip_reason(entry: &Path, excluded: &[(PathBuf, &'static str)]) -> Option<String> {
    if entry.as_os_str().is_empty() {
        return Some("skipped an empty PATH entry: it means the current folder".to_string());
    }
    let shown = entry.display();
    if !entry.is_absolute() {
        return Some(format!("skipped PATH entry `{shown}`: relative"));
    }
    let real = entry.canonicalize().unwrap_or_else(|_| entry.to_path_buf());
    excluded
        .iter()
        .find(|(dir, _)| entry.starts_with(dir) || real.starts_with(dir))
        .map(|(_, inside)| format!("skipped PATH entry `{shown}`: {inside}"))
}

fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// The executable file `program` for work on the project at `project`: at `program` when it
/// has a `/`, else in the first PATH entry searched (see the module doc).
pub fn find(program: &str, project: &Path) -> Lookup {
    find_in(program, std::env::var_os("PATH"), project)
}

fn find_in(program: &str, path_var: Option<OsString>, project: &Path) -> Lookup {
    if program.contains('/') {
        let path = PathBuf::from(program);
        return Lookup {
            found: executable(&path).then_some(path),
            skipped: Vec::new(),
        };
    }
    let mut lookup = Lookup::default();
    let Some(paths) = path_var else {
        return lookup;
    };
    let excluded = excluded(project);
    for entry in std::env::split_paths(&paths) {
        let candidate = entry.join(program);
        match skip_reason(&entry, &excluded) {
            // Said only where the program was, before the one found: an entry without it, or
            // after it, changed nothing.
            Some(reason) if executable(&candidate) && !lookup.skipped.contains(&reason) => {
                lookup.skipped.push(reason);
            }
            Some(_) => {}
            None if executable(&candidate) => {
                lookup.found = Some(candidate);
                break;
            }
            None => {}
        }
    }
    lookup
}

/// The PATH a program started for the project at `project` gets: the user's, without the
/// entries [`find`] skips. `None` when there is no PATH.
pub fn child_path(project: &Path) -> Option<OsString> {
    let paths = std::env::var_os("PATH")?;
    let excluded = excluded(project);
    let kept: Vec<PathBuf> = std::env::split_paths(&paths)
        .filter(|entry| skip_reason(entry, &excluded).is_none())
        .collect();
    std::env::join_paths(kept).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    fn tool(dir: &Path, name: &str) {
        std::fs::create_dir_all(dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }

    #[test]
    fn only_absolute_entries_outside_the_project_are_searched_and_the_others_are_said() {
        let scratch = tempfile::tempdir().unwrap();
        let base = scratch.path().canonicalize().unwrap();
        let project = base.join("project");
        let user_bin = base.join("bin");
        tool(&project, "ruff");
        tool(&project.join("tools"), "ruff");
        tool(&user_bin, "ruff");
        let path = std::env::join_paths([
            PathBuf::from("."),
            PathBuf::from("tools"),
            project.join("tools"),
            user_bin.clone(),
        ])
        .unwrap();
        // Wherever the current folder is, `.` and `tools` are never searched.
        let lookup = find_in("ruff", Some(path), &project);
        assert_eq!(lookup.found, Some(user_bin.join("ruff")));
        let project_tools = format!(
            "skipped PATH entry `{}`: inside the project",
            project.join("tools").display()
        );
        // `.` and `tools` hold no ruff from this test's current folder: said only when they do.
        assert!(lookup.skipped.contains(&project_tools), "{lookup:?}");

        // Relative and empty entries, whatever the current folder holds.
        assert_eq!(
            skip_reason(Path::new("."), &[]).unwrap(),
            "skipped PATH entry `.`: relative"
        );
        assert_eq!(
            skip_reason(Path::new("tools"), &[]).unwrap(),
            "skipped PATH entry `tools`: relative"
        );
        assert!(
            skip_reason(Path::new(""), &[])
                .unwrap()
                .contains("empty PATH entry")
        );
        let empty = find_in("sh", Some(OsString::from("")), &project);
        assert_eq!(empty.found, None);

        // The PATH the programs get leaves out the same entries.
        let excluded = excluded(&project);
        assert!(skip_reason(&user_bin, &excluded).is_none());
        assert!(skip_reason(&project.join("tools"), &excluded).is_some());
    }

    #[test]
    fn a_program_named_with_a_slash_is_taken_as_is() {
        let lookup = find_in("/bin/sh", None, Path::new("/"));
        assert_eq!(lookup.found, Some(PathBuf::from("/bin/sh")));
    }
}
