//! The project root and containment: a user path is resolved against the root and refused when
//! it leads outside, whether through `..`, an absolute path or a symlink.

use std::path::{Component, Path, PathBuf};

use crate::refactor::SourceError;

/// The canonical project root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Root {
    path: PathBuf,
}

/// A user path resolved inside the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Project-relative path with `/` separators, as shown to users (the link's own path for a
    /// symlink).
    pub relative: String,
    /// The absolute path as the user named it (under the canonical root).
    pub absolute: PathBuf,
    /// The absolute path with symlinks resolved (where reads and writes go); for a file that does
    /// not exist yet, its canonical parent joined with its name.
    pub real: PathBuf,
    pub exists: bool,
}

impl Root {
    /// Opens a project root; it must be an existing directory.
    pub fn new(path: impl AsRef<Path>) -> std::io::Result<Root> {
        let path = path.as_ref().canonicalize()?;
        if !path.is_dir() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::NotADirectory,
                format!("{} is not a directory", path.display()),
            ));
        }
        Ok(Root { path })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Resolves a user path (relative to the root, or absolute under it). Refuses a path that
    /// leaves the root lexically or through a symlink.
    pub fn resolve(&self, user_path: &str) -> Result<Resolved, SourceError> {
        let outside = || SourceError::OutsideRoot {
            path: user_path.to_string(),
        };
        if user_path.is_empty() || user_path.contains('\0') {
            return Err(SourceError::Io {
                path: user_path.to_string(),
                message: "is not a usable path".to_string(),
            });
        }
        let given = Path::new(user_path);
        let relative = if given.is_absolute() {
            let lexical = normalize(given).ok_or_else(outside)?;
            match lexical.strip_prefix(&self.path) {
                Ok(rest) => rest.to_path_buf(),
                // An absolute path through a symlinked root (e.g. /tmp vs /private/tmp).
                Err(_) => match given
                    .canonicalize()
                    .ok()
                    .and_then(|c| c.strip_prefix(&self.path).ok().map(Path::to_path_buf))
                {
                    Some(rest) => rest,
                    None => return Err(outside()),
                },
            }
        } else {
            normalize(given).ok_or_else(outside)?
        };
        if relative.as_os_str().is_empty() {
            return Err(SourceError::Io {
                path: user_path.to_string(),
                message: "is the project root itself, not a file".to_string(),
            });
        }
        let absolute = self.path.join(&relative);
        let (real, exists) = match absolute.canonicalize() {
            Ok(real) => (real, true),
            Err(_) => (self.resolve_missing(&absolute, user_path)?, false),
        };
        if !real.starts_with(&self.path) {
            return Err(outside());
        }
        let relative = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join("/");
        Ok(Resolved {
            relative,
            absolute,
            real,
            exists,
        })
    }

    /// Where a path that does not resolve would be created: its nearest existing ancestor with
    /// symlinks resolved, joined with the missing rest (so a symlinked directory on the way that
    /// points outside is caught). A dangling symlink is refused: writing through it would create
    /// its target, possibly outside, and replacing it would turn the link into a file.
    fn resolve_missing(&self, absolute: &Path, user_path: &str) -> Result<PathBuf, SourceError> {
        let outside = || SourceError::OutsideRoot {
            path: user_path.to_string(),
        };
        if let Ok(meta) = std::fs::symlink_metadata(absolute)
            && meta.file_type().is_symlink()
        {
            let target = std::fs::read_link(absolute).map_err(|e| SourceError::Io {
                path: user_path.to_string(),
                message: e.to_string(),
            })?;
            let target = absolute
                .parent()
                .map_or(target.clone(), |p| p.join(&target));
            if !normalize(&target).is_some_and(|t| t.starts_with(&self.path)) {
                return Err(outside());
            }
            return Err(SourceError::Io {
                path: user_path.to_string(),
                message: format!(
                    "is a symbolic link to {}, which does not exist; fix or remove the link",
                    target.display()
                ),
            });
        }
        let mut missing = Vec::new();
        let mut ancestor = absolute;
        loop {
            match ancestor.canonicalize() {
                Ok(existing) => {
                    let mut real = existing;
                    for part in missing.iter().rev() {
                        real.push(part);
                    }
                    return Ok(real);
                }
                Err(_) => {
                    missing.push(ancestor.file_name().ok_or_else(outside)?.to_os_string());
                    ancestor = ancestor.parent().ok_or_else(outside)?;
                }
            }
        }
    }

    /// The project-relative `/` path of an absolute path under the root.
    pub fn relative_of(&self, absolute: &Path) -> Option<String> {
        let rest = absolute.strip_prefix(&self.path).ok()?;
        Some(
            rest.components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/"),
        )
    }
}

/// Removes `.` and resolves `..` lexically; `None` when `..` climbs above the start.
fn normalize(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    let mut depth = 0usize;
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                if depth == 0 {
                    return None;
                }
                out.pop();
                depth -= 1;
            }
            Component::Normal(part) => {
                out.push(part);
                depth += 1;
            }
            Component::RootDir | Component::Prefix(_) => {
                out.push(component.as_os_str());
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn containment() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.py"), "x = 1\n").unwrap();
        std::fs::write(outside.path().join("secret.py"), "y = 2\n").unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.py"), dir.path().join("link.py"))
            .unwrap();
        let root = Root::new(dir.path()).unwrap();

        let ok = root.resolve("src/../src/a.py").unwrap();
        assert_eq!(ok.relative, "src/a.py");
        assert!(ok.exists);
        let abs = root
            .resolve(root.path().join("src/a.py").to_str().unwrap())
            .unwrap();
        assert_eq!(abs.relative, "src/a.py");
        assert!(!root.resolve("src/new.py").unwrap().exists);

        std::os::unix::fs::symlink(outside.path(), dir.path().join("linkdir")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("gone.py"),
            dir.path().join("dangling.py"),
        )
        .unwrap();
        std::os::unix::fs::symlink(
            dir.path().join("src/gone.py"),
            dir.path().join("dangling_in.py"),
        )
        .unwrap();
        assert!(
            matches!(root.resolve("dangling_in.py"), Err(SourceError::Io { .. })),
            "a dangling link is refused"
        );
        for bad in [
            "../x.py",
            "src/../../x.py",
            outside.path().join("secret.py").to_str().unwrap(),
            "link.py",
            "linkdir/new/x.py",
            "linkdir/x.py",
            "dangling.py",
        ] {
            assert!(
                matches!(root.resolve(bad), Err(SourceError::OutsideRoot { .. })),
                "{bad} must be refused"
            );
        }
    }
}
