//! Which Python interpreters may run the rope helper, in order: the config file's
//! `rope.python` (a project file's only when the project is trusted), else the project's
//! `.venv/bin/python` (only when trusted: it is a program the repository controls), else
//! `python3` and `python` on PATH. Starts nothing; says why a candidate was passed over.

use std::path::{Path, PathBuf};

use crate::trust::Trust;

/// Where a candidate interpreter came from (for messages).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Origin {
    /// `rope.python` in the user's config file.
    UserConfig,
    /// `rope.python` in the project's `.candor/config.toml` (trusted project).
    ProjectConfig,
    /// `<root>/.venv/bin/python` (trusted project).
    ProjectVenv,
    /// `python3` or `python` on PATH.
    Path,
}

/// One interpreter to try.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Candidate {
    pub program: PathBuf,
    pub origin: Origin,
}

impl Candidate {
    /// How messages name it: "python3 on PATH (/usr/bin/python3)".
    pub fn describe(&self) -> String {
        let program = self.program.display();
        match self.origin {
            Origin::UserConfig => format!("`{program}` (rope.python in your config file)"),
            Origin::ProjectConfig => format!("`{program}` (rope.python in .candor/config.toml)"),
            Origin::ProjectVenv => format!("the project's .venv ({program})"),
            Origin::Path => {
                let name = self
                    .program
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| program.to_string());
                format!("{name} on PATH ({program})")
            }
        }
    }
}

/// `rope.python` of the config file and which file said it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredPython {
    pub program: String,
    pub from_project: bool,
}

/// The interpreters to try, and notes on those passed over.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Search {
    pub candidates: Vec<Candidate>,
    /// Sentences for the user: "the project's .venv was not used: …".
    pub passed_over: Vec<String>,
    /// True when the config named the interpreter: then nothing else is tried.
    pub configured: bool,
}

/// Interpreters an untrusted project's config may still name: found on PATH, as without it.
const KNOWN_INTERPRETERS: &[&str] = &["python3", "python"];

/// The interpreters for the project at `root`, in the order they are tried, or the refusal of
/// an interpreter the project's own config names when the project is not trusted.
pub fn search(
    root: &Path,
    configured: Option<&ConfiguredPython>,
    trust: &Trust,
) -> Result<Search, String> {
    let mut found = Search::default();
    if let Some(configured) = configured {
        let by_name = KNOWN_INTERPRETERS.contains(&configured.program.as_str());
        if configured.from_project && !trust.allows_project_programs() && !by_name {
            return Err(trust.refusal(&format!(
                "`{}`, which rope.python in the project's .candor/config.toml names (an untrusted project may only choose {} by name)",
                configured.program,
                KNOWN_INTERPRETERS.join(" or ")
            )));
        }
        let program = crate::programs::find(&configured.program, root)
            .found
            .unwrap_or_else(|| PathBuf::from(&configured.program));
        found.candidates.push(Candidate {
            program,
            origin: if configured.from_project {
                Origin::ProjectConfig
            } else {
                Origin::UserConfig
            },
        });
        found.configured = true;
        return Ok(found);
    }
    let venv = root.join(".venv").join("bin").join("python");
    if venv.exists() {
        if trust.allows_project_programs() {
            found.candidates.push(Candidate {
                program: venv,
                origin: Origin::ProjectVenv,
            });
        } else {
            found.passed_over.push(format!(
                "{}; rope ran under the Python found on PATH instead",
                trust.refusal(&format!("the project's interpreter {}", venv.display()))
            ));
        }
    }
    for name in KNOWN_INTERPRETERS {
        let lookup = crate::programs::find(name, root);
        found.passed_over.extend(lookup.skipped);
        if let Some(program) = lookup.found {
            let same = |c: &Candidate| same_file(&c.program, &program);
            if !found.candidates.iter().any(same) {
                found.candidates.push(Candidate {
                    program,
                    origin: Origin::Path,
                });
            }
        }
    }
    Ok(found)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::trust::Untrusted;

    fn fake_python(dir: &Path) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let bin = dir.join(".venv/bin");
        std::fs::create_dir_all(&bin).unwrap();
        let python = bin.join("python");
        std::fs::write(&python, "#!/bin/sh\nexit 1\n").unwrap();
        std::fs::set_permissions(&python, std::fs::Permissions::from_mode(0o755)).unwrap();
        python
    }

    fn untrusted(root: &Path) -> Trust {
        Trust::Untrusted {
            root: root.to_path_buf(),
            why: Untrusted::Never,
        }
    }

    #[test]
    fn an_untrusted_project_chooses_no_interpreter() {
        let dir = tempfile::tempdir().unwrap();
        let venv = fake_python(dir.path());
        let from_project = ConfiguredPython {
            program: "/opt/evil/python".into(),
            from_project: true,
        };
        let refused = search(dir.path(), Some(&from_project), &untrusted(dir.path())).unwrap_err();
        assert!(refused.contains("/opt/evil/python"), "{refused}");
        assert!(refused.contains("candor trust"), "{refused}");
        let by_name = ConfiguredPython {
            program: "python3".into(),
            from_project: true,
        };
        assert!(search(dir.path(), Some(&by_name), &untrusted(dir.path())).is_ok());

        let untrusted = search(dir.path(), None, &untrusted(dir.path())).unwrap();
        assert!(
            untrusted
                .candidates
                .iter()
                .all(|c| c.origin == Origin::Path && c.program != venv),
            "{untrusted:?}"
        );
        assert_eq!(untrusted.passed_over.len(), 1, "{untrusted:?}");
        assert!(untrusted.passed_over[0].contains(".venv"));
        assert!(untrusted.passed_over[0].contains("candor trust"));

        let trusted = search(dir.path(), None, &Trust::Trusted).unwrap();
        assert_eq!(trusted.candidates[0].program, venv);
        assert_eq!(trusted.candidates[0].origin, Origin::ProjectVenv);
        assert!(trusted.passed_over.is_empty());
    }

    #[test]
    fn a_configured_interpreter_is_the_only_one_tried() {
        let dir = tempfile::tempdir().unwrap();
        fake_python(dir.path());
        let user = ConfiguredPython {
            program: "/opt/py/bin/python3".into(),
            from_project: false,
        };
        let found = search(dir.path(), Some(&user), &untrusted(dir.path())).unwrap();
        assert!(found.configured);
        assert_eq!(
            found.candidates,
            vec![Candidate {
                program: PathBuf::from("/opt/py/bin/python3"),
                origin: Origin::UserConfig
            }]
        );
        assert!(found.candidates[0].describe().contains("your config file"));
    }
}
