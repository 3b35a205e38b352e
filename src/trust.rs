//! Whether the user trusts a project enough to let candor run programs the project controls: a
//! language server its `.candor/config.toml` names, rust-analyzer with the project's own
//! toolchain file and cargo configuration, pylsp-rope with the project's `.ropeproject`, and later
//! the project's checks and interpreter. A cloned repository is untrusted until the user runs
//! `candor trust DIR`; the record lives in the user's config folder
//! (`$XDG_CONFIG_HOME/candor/trusted.toml`), keyed by the canonical root, pinned to the identity
//! of the root folder (device, inode and birth time where recorded: another repository cloned to
//! the same path is another folder) and to the sha256 of the project's `.candor/config.toml` (or to its absence): any
//! change of either revokes the trust. A record from an older candor, without the identity,
//! trusts nothing (`candor trust DIR` again records it). Decides only; the code about to run something asks
//! [`Trust::allows_project_programs`] and, when refused, says [`Trust::refusal`].

use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::workspace::Root;

/// The user's decision about one project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Trust {
    /// `candor trust` was run on this project, and its `.candor/config.toml` has not changed since.
    Trusted,
    Untrusted {
        /// The canonical project root (for the `candor trust DIR` the refusal suggests).
        root: PathBuf,
        why: Untrusted,
    },
}

/// Why a project is not trusted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Untrusted {
    /// The user never trusted it.
    Never,
    /// It was trusted, and its `.candor/config.toml` changed (or appeared, or went) since.
    ConfigChanged,
    /// A folder at this path was trusted, but this is another one (removed and re-created, or
    /// another repository cloned there).
    FolderReplaced,
    /// Trusted by an older candor, which did not record the folder's identity.
    NoIdentity,
}

impl Untrusted {
    /// Why, in a few words (for `candor trust --list`).
    pub fn short(self) -> &'static str {
        match self {
            Untrusted::Never => "never trusted",
            Untrusted::ConfigChanged => "its .candor/config.toml changed",
            Untrusted::FolderReplaced => {
                "the folder was replaced (another clone at this path); run `candor trust DIR` again if it is yours"
            }
            Untrusted::NoIdentity => {
                "trusted by an older candor that did not record the folder; run `candor trust DIR` again"
            }
        }
    }
}

impl Trust {
    /// Whether candor may run programs the project controls.
    pub fn allows_project_programs(&self) -> bool {
        matches!(self, Trust::Trusted)
    }

    /// The sentence that refuses `what` (e.g. "the program `/bin/sh` that lsp.python in
    /// .candor/config.toml names") and says how to trust the project. Empty for a trusted one.
    pub fn refusal(&self, what: &str) -> String {
        match self {
            Trust::Trusted => String::new(),
            Trust::Untrusted { root, why } => {
                let state = match why {
                    Untrusted::Never => "this project is not trusted",
                    Untrusted::ConfigChanged => {
                        "this project is no longer trusted: its .candor/config.toml changed since it was trusted"
                    }
                    Untrusted::FolderReplaced => {
                        "this project is not trusted: the folder trusted at this path was replaced since (another repository cloned there is another project)"
                    }
                    Untrusted::NoIdentity => {
                        "this project is no longer trusted: it was trusted by an older candor, which did not record which folder it was; run `candor trust DIR` again"
                    }
                };
                format!(
                    "candor does not run {what}: {state} (a cloned repository could make candor run any program); run `candor trust {}` to trust this project",
                    shell_word(&root.to_string_lossy())
                )
            }
        }
    }
}

/// `path` quoted for a shell when it needs it.
fn shell_word(path: &str) -> String {
    if !path.is_empty()
        && path
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+,:@".contains(c))
    {
        path.to_string()
    } else {
        format!("'{}'", path.replace('\'', "'\\''"))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TrustError {
    #[error(
        "the list of trusted projects {path} cannot be used: {message}; fix or remove it (`candor trust` writes it again)"
    )]
    Store { path: String, message: String },
    #[error("cannot read {path}: {message}")]
    Project { path: String, message: String },
    #[error(
        "there is no user config folder to record trusted projects in; set XDG_CONFIG_HOME to an absolute path"
    )]
    NoConfigDir,
}

/// One trusted project as recorded.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Record {
    /// The canonical project root.
    pub root: String,
    /// sha256 of `.candor/config.toml` when trusted, or `"none"` when it had none.
    pub config_sha256: String,
    pub trusted_unix: u64,
    /// The device and inode of the root folder when trusted (`None` in an older record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inode: Option<u64>,
    /// Its birth time in nanoseconds, where the file system records one (an inode number can
    /// be given to a new folder once the old one is gone).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub born_ns: Option<i64>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Records {
    #[serde(default, rename = "project")]
    projects: Vec<Record>,
}

const NO_FILE: &str = "none";

/// The file that records the trusted projects.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TrustStore {
    path: PathBuf,
}

/// The trust of the project at `root`, from the user's record and the project's config file as
/// it is now.
pub fn of_project(root: &Path) -> Result<Trust, TrustError> {
    TrustStore::user()?.of_project(root)
}

/// The trust of the project at `root` whose `.candor/config.toml` hashes to `config_sha256`
/// (`None`: there is none), by the user's record. See [`TrustStore::of_config`].
pub fn of_config(root: &Root, config_sha256: Option<&str>) -> Result<Trust, TrustError> {
    TrustStore::user()?.of_config(root, config_sha256)
}

impl TrustStore {
    /// `$XDG_CONFIG_HOME/candor/trusted.toml` (or the platform's config folder).
    pub fn user() -> Result<TrustStore, TrustError> {
        crate::config::user_config_dir()
            .map(|dir| TrustStore::at(dir.join("trusted.toml")))
            .ok_or(TrustError::NoConfigDir)
    }

    /// A store in the file `path` (tests use a temp folder, never the user's).
    pub fn at(path: impl Into<PathBuf>) -> TrustStore {
        TrustStore { path: path.into() }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The trust of the project at `root` with its config file as it is now.
    pub fn of_project(&self, root: &Path) -> Result<Trust, TrustError> {
        let root = open(root)?;
        let sha = current_config_sha256(&root)?;
        self.of_config(&root, sha.as_deref())
    }

    /// The trust of the project at `root` whose `.candor/config.toml` hashes to `config_sha256`
    /// — the hash of the very bytes the caller loaded, so the file cannot change between the
    /// check and its use. The folder's identity is taken from the root's open handle.
    pub fn of_config(&self, root: &Root, config_sha256: Option<&str>) -> Result<Trust, TrustError> {
        let records = self.read()?;
        let key = root.path().to_string_lossy();
        let pinned = config_sha256.unwrap_or(NO_FILE);
        let identity = identity(root)?;
        let why = match records.projects.iter().find(|r| r.root == key.as_ref()) {
            Some(record) if record.device.is_none() || record.inode.is_none() => {
                Untrusted::NoIdentity
            }
            Some(record)
                if (record.device, record.inode) != (Some(identity.0), Some(identity.1))
                    || (record.born_ns.is_some() && record.born_ns != identity.2) =>
            {
                Untrusted::FolderReplaced
            }
            Some(record) if record.config_sha256 == pinned => return Ok(Trust::Trusted),
            Some(_) => Untrusted::ConfigChanged,
            None => Untrusted::Never,
        };
        Ok(Trust::Untrusted {
            root: root.path().to_path_buf(),
            why,
        })
    }

    /// Records the project at `root` as trusted, pinned to its `.candor/config.toml` as it is now.
    pub fn trust(&self, root: &Path) -> Result<Record, TrustError> {
        let root = open(root)?;
        let sha = current_config_sha256(&root)?;
        let (device, inode, born_ns) = identity(&root)?;
        let record = Record {
            root: root.path().to_string_lossy().into_owned(),
            config_sha256: sha.unwrap_or_else(|| NO_FILE.to_string()),
            trusted_unix: SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs()),
            device: Some(device),
            inode: Some(inode),
            born_ns,
        };
        let mut records = self.read()?;
        records.projects.retain(|r| r.root != record.root);
        records.projects.push(record.clone());
        self.write(&records)?;
        Ok(record)
    }

    /// Forgets the project at `root`; returns whether it was recorded.
    pub fn revoke(&self, root: &Path) -> Result<bool, TrustError> {
        let key = match Root::new(root) {
            Ok(root) => root.path().to_string_lossy().into_owned(),
            // A project folder that is gone can still be forgotten by the path given.
            Err(_) => root.to_string_lossy().into_owned(),
        };
        let mut records = self.read()?;
        let before = records.projects.len();
        records.projects.retain(|r| r.root != key);
        if records.projects.len() == before {
            return Ok(false);
        }
        self.write(&records)?;
        Ok(true)
    }

    /// Every trusted project, with its trust now (`None` when the project cannot be read any
    /// more).
    pub fn list(&self) -> Result<Vec<(Record, Option<Trust>)>, TrustError> {
        Ok(self
            .read()?
            .projects
            .into_iter()
            .map(|record| {
                let now = Root::new(&record.root).ok().and_then(|root| {
                    let sha = current_config_sha256(&root).ok()?;
                    self.of_config(&root, sha.as_deref()).ok()
                });
                (record, now)
            })
            .collect())
    }

    fn error(&self, message: String) -> TrustError {
        TrustError::Store {
            path: self.path.display().to_string(),
            message,
        }
    }

    fn read(&self) -> Result<Records, TrustError> {
        match std::fs::read_to_string(&self.path) {
            Ok(text) => toml::from_str(&text).map_err(|e| self.error(e.to_string())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Records::default()),
            Err(e) => Err(self.error(e.to_string())),
        }
    }

    fn write(&self, records: &Records) -> Result<(), TrustError> {
        let body = toml::to_string(records).map_err(|e| self.error(e.to_string()))?;
        let text = format!(
            "# Projects trusted with `candor trust`: candor may run the programs they control (the\n# language server their .candor/config.toml names, their toolchain and cargo settings,\n# their .ropeproject). A change of a project's .candor/config.toml revokes its trust.\n\n{body}"
        );
        if let Some(dir) = self.path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| self.error(e.to_string()))?;
        }
        crate::workspace::write::write_atomically(&self.path, text.as_bytes())
            .map_err(|e| self.error(e.to_string()))
    }
}

fn open(root: &Path) -> Result<Root, TrustError> {
    Root::new(root).map_err(|e| TrustError::Project {
        path: root.display().to_string(),
        message: format!("{e}; give an existing project directory"),
    })
}

/// The device, inode and birth time of the root folder, from its open handle.
fn identity(root: &Root) -> Result<(u64, u64, Option<i64>), TrustError> {
    root.identity().map_err(|e| TrustError::Project {
        path: root.path().display().to_string(),
        message: e.to_string(),
    })
}

fn current_config_sha256(root: &Root) -> Result<Option<String>, TrustError> {
    let bytes =
        crate::config::project_config_bytes(root).map_err(|message| TrustError::Project {
            path: root
                .path()
                .join(crate::config::PROJECT_CONFIG)
                .display()
                .to_string(),
            message,
        })?;
    Ok(bytes.as_deref().map(crate::edit::sha256_hex))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_pinned_to_the_project_config_and_revoked_by_a_change() {
        let home = tempfile::tempdir().unwrap();
        let store = TrustStore::at(home.path().join("candor/trusted.toml"));
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let trust_now = || store.of_project(&root).unwrap();
        assert_eq!(
            trust_now(),
            Trust::Untrusted {
                root: root.clone(),
                why: Untrusted::Never
            }
        );
        assert!(!trust_now().allows_project_programs());
        let refusal = trust_now().refusal("the program `/bin/sh`");
        assert!(refusal.contains("not trusted"), "{refusal}");
        assert!(
            refusal.contains(&format!("run `candor trust {}`", root.display())),
            "{refusal}"
        );

        store.trust(&root).unwrap();
        assert!(store.path().is_file());
        assert_eq!(trust_now(), Trust::Trusted);
        assert!(trust_now().allows_project_programs());

        // A config file that appears revokes it, and so does any change of it.
        std::fs::create_dir(root.join(".candor")).unwrap();
        std::fs::write(root.join(".candor/config.toml"), "max_file_bytes = 9\n").unwrap();
        assert!(matches!(
            trust_now(),
            Trust::Untrusted {
                why: Untrusted::ConfigChanged,
                ..
            }
        ));
        assert!(trust_now().refusal("x").contains("changed since"));
        store.trust(&root).unwrap();
        assert_eq!(trust_now(), Trust::Trusted);
        std::fs::write(root.join(".candor/config.toml"), "max_file_bytes = 10\n").unwrap();
        assert!(!trust_now().allows_project_programs());

        store.trust(&root).unwrap();
        let listed = store.list().unwrap();
        assert_eq!(listed.len(), 1, "one record per project");
        assert_eq!(listed[0].1, Some(Trust::Trusted));
        assert!(store.revoke(&root).unwrap());
        assert!(!store.revoke(&root).unwrap());
        assert!(!trust_now().allows_project_programs());
    }

    #[test]
    fn trust_is_pinned_to_the_folder_not_the_path() {
        let home = tempfile::tempdir().unwrap();
        let store = TrustStore::at(home.path().join("candor/trusted.toml"));
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap().join("project");
        std::fs::create_dir(&root).unwrap();
        store.trust(&root).unwrap();
        assert_eq!(store.of_project(&root).unwrap(), Trust::Trusted);
        // Removed and made again at the same path: another folder (a new inode, while the old
        // one is still held open so the number cannot be reused).
        let old = std::fs::File::open(&root).unwrap();
        std::fs::remove_dir(&root).unwrap();
        std::fs::create_dir(&root).unwrap();
        let now = store.of_project(&root).unwrap();
        drop(old);
        assert!(
            matches!(
                now,
                Trust::Untrusted {
                    why: Untrusted::FolderReplaced,
                    ..
                }
            ),
            "{now:?}"
        );
        assert!(
            now.refusal("x").contains("was replaced"),
            "{}",
            now.refusal("x")
        );
        assert_eq!(
            store.list().unwrap()[0].1,
            Some(now.clone()),
            "the list says it too"
        );
        store.trust(&root).unwrap();
        assert_eq!(store.of_project(&root).unwrap(), Trust::Trusted);
        // Where the file system records birth times, a new folder given the old one's inode
        // number is still another folder.
        let record = store.read().unwrap().projects.remove(0);
        if let Some(born) = record.born_ns {
            let mut reused = store.read().unwrap();
            reused.projects[0].born_ns = Some(born - 1);
            store.write(&reused).unwrap();
            assert!(matches!(
                store.of_project(&root).unwrap(),
                Trust::Untrusted {
                    why: Untrusted::FolderReplaced,
                    ..
                }
            ));
        }

        // A record of an older candor (no identity) trusts nothing and says to trust again.
        let root_text = root.to_string_lossy();
        std::fs::write(
            store.path(),
            format!(
                "[[project]]\nroot = {root_text:?}\nconfig_sha256 = \"none\"\ntrusted_unix = 1\n"
            ),
        )
        .unwrap();
        let old = store.of_project(&root).unwrap();
        assert!(
            matches!(
                old,
                Trust::Untrusted {
                    why: Untrusted::NoIdentity,
                    ..
                }
            ),
            "{old:?}"
        );
        assert!(
            old.refusal("x").contains("run `candor trust DIR` again"),
            "{}",
            old.refusal("x")
        );
    }

    #[test]
    fn a_damaged_record_is_a_clear_error() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join("trusted.toml");
        std::fs::write(&path, "[[project]]\nroot = 3\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let err = TrustStore::at(&path).of_project(dir.path()).unwrap_err();
        assert!(err.to_string().contains("trusted.toml"), "{err}");
    }

    #[test]
    fn paths_are_quoted_for_the_shell() {
        assert_eq!(shell_word("/home/a/p"), "/home/a/p");
        assert_eq!(shell_word("/home/a b/it's"), "'/home/a b/it'\\''s'");
    }
}
