//! Directory handles: every file candor writes (and every file its writer reads) is reached from
//! an open directory, one name at a time, with `openat(O_NOFOLLOW)`; temp files are created,
//! exchanged and renamed relative to the handle of their own directory. A path component that
//! becomes a symbolic link between a check and a write makes the write fail instead of following
//! the link out of the project. Knows nothing of projects, plans or journals.

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path};

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags};
use rustix::io::Errno;

use super::mapped::Bytes;

/// An open directory. Names given to its methods are single path components (never `/`, `.`
/// or `..`); a name that is a symbolic link is never followed.
#[derive(Debug)]
pub struct Dir {
    fd: OwnedFd,
}

/// What a name in a directory is, without following a symbolic link.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    File,
    Dir,
    Symlink,
    /// A FIFO, socket or device.
    Other,
}

impl Kind {
    /// "a directory", "a symbolic link", … for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Kind::File => "a file",
            Kind::Dir => "a directory",
            Kind::Symlink => "a symbolic link",
            Kind::Other => "a special file (FIFO, socket or device)",
        }
    }

    fn of(file_type: FileType) -> Kind {
        match file_type {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Dir,
            FileType::Symlink => Kind::Symlink,
            _ => Kind::Other,
        }
    }
}

/// Facts about a name, from `fstatat(AT_SYMLINK_NOFOLLOW)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Meta {
    pub kind: Kind,
    pub mode: u32,
    pub uid: u32,
    pub gid: u32,
    pub links: u64,
}

/// The error of an operation that met something that is not what it must be (a symbolic link, a
/// directory where a file was expected…). `kind` is [`std::io::ErrorKind::Other`]; the message
/// says what was found.
pub fn unexpected(found: Kind, wanted: &str) -> std::io::Error {
    std::io::Error::other(format!("is {}, not {wanted}", found.describe()))
}

fn errno(e: Errno) -> std::io::Error {
    e.into()
}

/// Checks that `name` is one plain path component.
fn component(name: &OsStr) -> std::io::Result<&OsStr> {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes == b"." || bytes == b".." || bytes.contains(&b'/') {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("`{}` is not a single file name", name.to_string_lossy()),
        ));
    }
    Ok(name)
}

const DIR_FLAGS: OFlags = OFlags::RDONLY
    .union(OFlags::DIRECTORY)
    .union(OFlags::NOFOLLOW)
    .union(OFlags::CLOEXEC);

impl Dir {
    /// Opens the directory at `path` (an absolute path; symbolic links in it are followed, once:
    /// this is how a project root is pinned).
    pub fn open_path(path: &Path) -> std::io::Result<Dir> {
        let fd = rustix::fs::open(
            path,
            OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
            Mode::empty(),
        )
        .map_err(errno)?;
        Ok(Dir { fd })
    }

    /// Another handle to the same directory.
    pub fn try_clone(&self) -> std::io::Result<Dir> {
        Ok(Dir {
            fd: self.fd.try_clone()?,
        })
    }

    pub fn as_fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// What `name` is, `None` when there is nothing by that name.
    pub fn meta(&self, name: &OsStr) -> std::io::Result<Option<Meta>> {
        match rustix::fs::statat(&self.fd, component(name)?, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => Ok(Some(meta_of(&stat))),
            Err(Errno::NOENT) => Ok(None),
            Err(e) => Err(errno(e)),
        }
    }

    /// The subdirectory `name`; `None` when it does not exist. A symbolic link, a file or
    /// anything else by that name is an error saying what it is.
    pub fn open_dir(&self, name: &OsStr) -> std::io::Result<Option<Dir>> {
        match rustix::fs::openat(&self.fd, component(name)?, DIR_FLAGS, Mode::empty()) {
            Ok(fd) => Ok(Some(Dir { fd })),
            Err(Errno::NOENT) => Ok(None),
            Err(Errno::LOOP | Errno::NOTDIR) => {
                let found = self.meta(name)?.map_or(Kind::Other, |m| m.kind);
                Err(unexpected(found, "a directory"))
            }
            Err(e) => Err(errno(e)),
        }
    }

    /// The subdirectory `name`, created (with `mode`, less the umask) when missing. Returns
    /// whether it was created.
    pub fn create_dir(&self, name: &OsStr, mode: u32) -> std::io::Result<(Dir, bool)> {
        let created =
            match rustix::fs::mkdirat(&self.fd, component(name)?, Mode::from_raw_mode(mode)) {
                Ok(()) => true,
                Err(Errno::EXIST) => false,
                Err(e) => return Err(errno(e)),
            };
        match self.open_dir(name)? {
            Some(dir) => Ok((dir, created)),
            None => Err(std::io::Error::new(
                std::io::ErrorKind::NotFound,
                "the directory was removed as it was being created",
            )),
        }
    }

    /// Walks `relative` (a relative path of plain components) one directory at a time.
    /// `None` when a component does not exist.
    pub fn open_path_under(&self, relative: &Path) -> std::io::Result<Option<Dir>> {
        let mut current = self.try_clone()?;
        for part in relative.components() {
            let Component::Normal(name) = part else {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("`{}` is not a plain relative path", relative.display()),
                ));
            };
            match current.open_dir(name)? {
                Some(next) => current = next,
                None => return Ok(None),
            }
        }
        Ok(Some(current))
    }

    /// Opens the regular file `name` for reading; `None` when there is none. Never blocks on a
    /// FIFO and never follows a symbolic link: anything but a regular file is an error saying
    /// what it is.
    pub fn open_file(&self, name: &OsStr) -> std::io::Result<Option<File>> {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&self.fd, component(name)?, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(Errno::NOENT) => return Ok(None),
            Err(Errno::LOOP) => return Err(unexpected(Kind::Symlink, "a file")),
            Err(e) => return Err(errno(e)),
        };
        let stat = rustix::fs::fstat(&fd).map_err(errno)?;
        let kind = Kind::of(FileType::from_raw_mode(stat.st_mode));
        if kind != Kind::File {
            return Err(unexpected(kind, "a file"));
        }
        // Reads of a regular file never block; clear the flag for the ordinary reader.
        rustix::fs::fcntl_setfl(&fd, OFlags::RDONLY).map_err(errno)?;
        Ok(Some(File::from(fd)))
    }

    /// The bytes of the regular file `name`; `None` when there is none.
    pub fn read_file(&self, name: &OsStr) -> std::io::Result<Option<Vec<u8>>> {
        let Some(mut file) = self.open_file(name)? else {
            return Ok(None);
        };
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes)?;
        Ok(Some(bytes))
    }

    /// The bytes of the regular file `name`, mapped read-only ([`Bytes::map`]: the file must
    /// be replaced by a rename, never shrunk in place, while they are held); `None` when there
    /// is none.
    pub fn map_file(&self, name: &OsStr) -> std::io::Result<Option<Bytes>> {
        let Some(file) = self.open_file(name)? else {
            return Ok(None);
        };
        Bytes::map(&file).map(Some)
    }

    /// Creates the new file `name` (it must not exist) with exactly `mode` and `bytes`, fsynced.
    pub fn create_file(&self, name: &OsStr, mode: u32, bytes: &[u8]) -> std::io::Result<()> {
        let mut file = self.create_new(name)?;
        let written = (|| {
            file.write_all(bytes)?;
            rustix::fs::fchmod(&file, Mode::from_raw_mode(mode)).map_err(errno)?;
            file.sync_all()
        })();
        if written.is_err() {
            let _ = self.remove_file(name);
        }
        written
    }

    /// Creates the new, empty file `name` with mode 0600 (it must not exist).
    pub fn create_new(&self, name: &OsStr) -> std::io::Result<File> {
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(
            &self.fd,
            component(name)?,
            flags,
            Mode::from_raw_mode(0o600),
        )
        .map_err(errno)?;
        Ok(File::from(fd))
    }

    /// Opens `name` for reading and writing, creating it (0600) when missing; never through a
    /// symbolic link.
    pub fn open_or_create(&self, name: &OsStr) -> std::io::Result<File> {
        let flags = OFlags::RDWR | OFlags::CREATE | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        match rustix::fs::openat(
            &self.fd,
            component(name)?,
            flags,
            Mode::from_raw_mode(0o600),
        ) {
            Ok(fd) => {
                let file = File::from(fd);
                if !file.metadata()?.is_file() {
                    return Err(unexpected(Kind::Other, "a file"));
                }
                Ok(file)
            }
            Err(Errno::LOOP) => Err(unexpected(Kind::Symlink, "a file")),
            Err(e) => Err(errno(e)),
        }
    }

    /// Atomically swaps `a` and `b` (both in this directory). `Ok(false)` when the system or the
    /// file system cannot.
    pub fn exchange(&self, a: &OsStr, b: &OsStr) -> std::io::Result<bool> {
        match rustix::fs::renameat_with(
            &self.fd,
            component(a)?,
            &self.fd,
            component(b)?,
            RenameFlags::EXCHANGE,
        ) {
            Ok(()) => Ok(true),
            Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => Ok(false),
            Err(e) => Err(errno(e)),
        }
    }

    /// Renames `from` to `to` only if `to` does not exist (`AlreadyExists` otherwise), atomically.
    pub fn rename_no_replace(&self, from: &OsStr, to: &OsStr) -> std::io::Result<()> {
        match rustix::fs::renameat_with(
            &self.fd,
            component(from)?,
            &self.fd,
            component(to)?,
            RenameFlags::NOREPLACE,
        ) {
            Ok(()) => return Ok(()),
            Err(Errno::INVAL | Errno::NOSYS | Errno::NOTSUP) => {}
            Err(e) => return Err(errno(e)),
        }
        // A hard link fails when the name exists, atomically, on any Unix file system.
        rustix::fs::linkat(&self.fd, from, &self.fd, to, AtFlags::empty()).map_err(errno)?;
        self.remove_file(from)
    }

    /// Renames `from` to `to` (replacing `to`), both in this directory.
    pub fn rename(&self, from: &OsStr, to: &OsStr) -> std::io::Result<()> {
        rustix::fs::renameat(&self.fd, component(from)?, &self.fd, component(to)?).map_err(errno)
    }

    /// Renames `from` in this directory to `to` in `other`.
    pub fn rename_into(&self, from: &OsStr, other: &Dir, to: &OsStr) -> std::io::Result<()> {
        rustix::fs::renameat(&self.fd, component(from)?, &other.fd, component(to)?).map_err(errno)
    }

    /// Removes the file (or symbolic link) `name`.
    pub fn remove_file(&self, name: &OsStr) -> std::io::Result<()> {
        rustix::fs::unlinkat(&self.fd, component(name)?, AtFlags::empty()).map_err(errno)
    }

    /// Removes the empty directory `name`.
    pub fn remove_dir(&self, name: &OsStr) -> std::io::Result<()> {
        rustix::fs::unlinkat(&self.fd, component(name)?, AtFlags::REMOVEDIR).map_err(errno)
    }

    /// Removes `name` and, if it is a directory, everything in it, without ever following a
    /// symbolic link (a link is removed, not what it points to). Missing is fine.
    pub fn remove_tree(&self, name: &OsStr) -> std::io::Result<()> {
        match self.meta(name)? {
            None => Ok(()),
            Some(meta) if meta.kind == Kind::Dir => {
                if let Some(dir) = self.open_dir(name)? {
                    for (child, _) in dir.entries()? {
                        dir.remove_tree(&child)?;
                    }
                }
                match self.remove_dir(name) {
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                    other => other,
                }
            }
            Some(_) => match self.remove_file(name) {
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
                other => other,
            },
        }
    }

    /// The names in this directory (without `.` and `..`), with what each is.
    pub fn entries(&self) -> std::io::Result<Vec<(OsString, Kind)>> {
        let mut reader = rustix::fs::Dir::read_from(&self.fd).map_err(errno)?;
        let mut names = Vec::new();
        while let Some(entry) = reader.read() {
            let entry = entry.map_err(errno)?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name == "." || name == ".." {
                continue;
            }
            let kind = match entry.file_type() {
                FileType::Unknown => self.meta(name)?.map_or(Kind::Other, |m| m.kind),
                known => Kind::of(known),
            };
            names.push((name.to_os_string(), kind));
        }
        Ok(names)
    }

    /// fsyncs the directory, so that a rename or removal in it survives a power loss.
    pub fn sync(&self) -> std::io::Result<()> {
        rustix::fs::fsync(&self.fd).map_err(errno)
    }
}

fn meta_of(stat: &rustix::fs::Stat) -> Meta {
    Meta {
        kind: Kind::of(FileType::from_raw_mode(stat.st_mode)),
        mode: stat.st_mode & 0o7777,
        uid: stat.st_uid,
        gid: stat.st_gid,
        #[allow(clippy::useless_conversion)]
        links: u64::from(stat.st_nlink),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbolic_links_are_never_followed() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret"), b"s").unwrap();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret"), dir.path().join("f")).unwrap();
        std::fs::create_dir(dir.path().join("real")).unwrap();
        let root = Dir::open_path(dir.path()).unwrap();
        let err = root.open_dir(OsStr::new("out")).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        let err = root.read_file(OsStr::new("f")).unwrap_err();
        assert!(err.to_string().contains("symbolic link"), "{err}");
        assert!(root.open_dir(OsStr::new("missing")).unwrap().is_none());
        assert!(root.open_path_under(Path::new("out/x")).is_err());
        let real = root.open_path_under(Path::new("real")).unwrap().unwrap();
        real.create_file(OsStr::new("a"), 0o640, b"hello").unwrap();
        assert_eq!(real.read_file(OsStr::new("a")).unwrap().unwrap(), b"hello");
        assert_eq!(real.meta(OsStr::new("a")).unwrap().unwrap().mode, 0o640);
        assert!(root.read_file(OsStr::new("../x")).is_err());
        root.remove_tree(OsStr::new("out")).unwrap();
        assert!(
            outside.path().join("secret").exists(),
            "a link is removed, not followed"
        );
        root.remove_tree(OsStr::new("real")).unwrap();
        assert!(!dir.path().join("real").exists());
    }

    #[test]
    fn a_fifo_is_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        let status = std::process::Command::new("mkfifo")
            .arg(dir.path().join("pipe"))
            .status();
        if status.is_ok_and(|s| s.success()) {
            let root = Dir::open_path(dir.path()).unwrap();
            let err = root.read_file(OsStr::new("pipe")).unwrap_err();
            assert!(err.to_string().contains("special file"), "{err}");
        }
    }
}
