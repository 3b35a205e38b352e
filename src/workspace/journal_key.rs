//! The per-user key that signs undo journal entries, so that recovery and undo act only on
//! entries this user's candor wrote on this machine (a repository can commit a `.candor/journal/`
//! of its own). 32 random bytes in `$XDG_STATE_HOME/candor/journal.key` (else
//! `~/.local/state/candor/journal.key`), created 0600 in a 0700 folder, outside every project;
//! an entry's `manifest.mac` is the HMAC-SHA256 of its `manifest.json` under that key.

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

const KEY_BYTES: usize = 32;
const BLOCK: usize = 64;

/// The key, loaded (never printed: `Debug` hides it).
#[derive(Clone, PartialEq, Eq)]
pub struct Key([u8; KEY_BYTES]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Key(..)")
    }
}

/// Why the key cannot be used: the message names the file and what to do.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot use the journal key {path}: {message}")]
pub struct KeyError {
    pub path: String,
    pub message: String,
}

/// `$XDG_STATE_HOME/candor/journal.key`, or `~/.local/state/candor/journal.key`.
pub fn user_key_path() -> Option<PathBuf> {
    std::env::var_os("XDG_STATE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .filter(|p| p.is_absolute())
                .map(|home| home.join(".local/state"))
        })
        .or_else(dirs::state_dir)
        .map(|dir| dir.join("candor").join("journal.key"))
}

impl Key {
    /// The user's key, created when there is none yet.
    pub fn user() -> Result<Key, KeyError> {
        let path = user_key_path().ok_or_else(|| KeyError {
            path: "$XDG_STATE_HOME/candor/journal.key".into(),
            message:
                "there is no user state folder; set XDG_STATE_HOME (or HOME) to an absolute path"
                    .into(),
        })?;
        Key::at(&path, true)
    }

    /// The user's key if it exists (nothing is created): without one, no entry is authentic.
    pub fn user_existing() -> Option<Key> {
        Key::at(&user_key_path()?, false).ok()
    }

    /// The key in the file `path`, created (0600, its folder 0700) when `create` and missing.
    pub fn at(path: &Path, create: bool) -> Result<Key, KeyError> {
        let error = |message: String| KeyError {
            path: path.display().to_string(),
            message,
        };
        match read_key(path) {
            Ok(key) => return Ok(key),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound && create => {}
            Err(e) => return Err(error(e.to_string())),
        }
        if let Some(dir) = path.parent() {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)
                .map_err(|e| error(e.to_string()))?;
        }
        let mut bytes = [0u8; KEY_BYTES];
        File::open("/dev/urandom")
            .and_then(|mut f| f.read_exact(&mut bytes))
            .map_err(|e| error(format!("no random bytes from /dev/urandom: {e}")))?;
        // Written whole under a temporary name, then linked in place: two processes creating it
        // at once both end up with the one that won. The name is this call's own (two threads
        // of one process removed each other's temporary file when it was the process's).
        static CALLS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let temp = path.with_extension(format!("tmp-{}-{call}", std::process::id()));
        let written = (|| -> std::io::Result<()> {
            let _ = std::fs::remove_file(&temp);
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
                .open(&temp)?;
            file.write_all(hex::encode(bytes).as_bytes())?;
            file.sync_all()?;
            match std::fs::hard_link(&temp, path) {
                Ok(()) => Ok(()),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
                Err(e) => Err(e),
            }
        })();
        let _ = std::fs::remove_file(&temp);
        written.map_err(|e| error(e.to_string()))?;
        read_key(path).map_err(|e| error(e.to_string()))
    }

    /// HMAC-SHA256 of `message` under this key, in hex.
    pub fn mac(&self, message: &[u8]) -> String {
        hex::encode(hmac_sha256(&self.0, message))
    }

    /// Whether `mac` (hex) is this key's MAC of `message`, compared in constant time.
    pub fn verifies(&self, message: &[u8], mac: &str) -> bool {
        let want = self.mac(message);
        let got = mac.trim().as_bytes();
        want.len() == got.len()
            && want
                .as_bytes()
                .iter()
                .zip(got)
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0
    }
}

/// Reads the key file: a regular file of this user, not a link, readable by no one else.
fn read_key(path: &Path) -> std::io::Result<Key> {
    let file = OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)?;
    let meta = file.metadata()?;
    let bad = |m: &str| std::io::Error::other(m.to_string());
    if !meta.is_file() {
        return Err(bad("it is not a regular file"));
    }
    if meta.uid() != rustix::process::getuid().as_raw() {
        return Err(bad(
            "it belongs to another user; remove it (candor creates a new one)",
        ));
    }
    if meta.permissions().mode() & 0o077 != 0 {
        return Err(bad(
            "other users can read or write it; remove it (candor creates a new one) or chmod 600 it",
        ));
    }
    let mut text = String::new();
    file.take(1024).read_to_string(&mut text)?;
    let decoded = hex::decode(text.trim()).map_err(|_| {
        bad("it is not a key written by candor; remove it (candor creates a new one)")
    })?;
    let key: [u8; KEY_BYTES] = decoded.try_into().map_err(|_| {
        bad("it is not a key written by candor; remove it (candor creates a new one)")
    })?;
    Ok(Key(key))
}

/// HMAC (RFC 2104) with SHA-256.
fn hmac_sha256(key: &[u8], message: &[u8]) -> [u8; 32] {
    let mut block = [0u8; BLOCK];
    if key.len() > BLOCK {
        block[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        block[..key.len()].copy_from_slice(key);
    }
    let pad = |byte: u8| block.map(|b| b ^ byte);
    let mut inner = Sha256::new();
    inner.update(pad(0x36));
    inner.update(message);
    let inner = inner.finalize();
    let mut outer = Sha256::new();
    outer.update(pad(0x5c));
    outer.update(inner);
    outer.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test case 1 and 2 of RFC 4231.
        assert_eq!(
            hex::encode(hmac_sha256(&[0x0b; 20], b"Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hex::encode(hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than the block.
        assert_eq!(
            hex::encode(hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    #[test]
    fn threads_creating_the_key_at_once_all_get_the_one_that_won() {
        for _ in 0..20 {
            let home = tempfile::tempdir().unwrap();
            let path = home.path().join("state/candor/journal.key");
            let keys: Vec<Result<Key, KeyError>> = std::thread::scope(|s| {
                let threads: Vec<_> = (0..8).map(|_| s.spawn(|| Key::at(&path, true))).collect();
                threads.into_iter().map(|t| t.join().unwrap()).collect()
            });
            let first = keys[0].as_ref().expect("created");
            for key in &keys {
                assert_eq!(key.as_ref().ok(), Some(first));
            }
            let left: Vec<_> = std::fs::read_dir(path.parent().unwrap()).unwrap().collect();
            assert_eq!(left.len(), 1, "no temporary file left");
        }
    }

    #[test]
    fn the_key_is_created_private_and_kept() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().join("state/candor/journal.key");
        assert!(
            Key::at(&path, false).is_err(),
            "nothing created without asking"
        );
        assert!(!path.exists());
        let key = Key::at(&path, true).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let dir_mode = std::fs::metadata(path.parent().unwrap())
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(dir_mode & 0o777, 0o700);
        assert_eq!(Key::at(&path, true).unwrap(), key, "the same key next time");
        let mac = key.mac(b"manifest");
        assert!(key.verifies(b"manifest", &mac));
        assert!(!key.verifies(b"manifest!", &mac));
        assert!(!key.verifies(b"manifest", &mac[1..]));

        // A key others can read is refused, never used.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = Key::at(&path, true).unwrap_err();
        assert!(err.to_string().contains("other users can read"), "{err}");

        // A key file that is a link is refused, not followed.
        let other = home.path().join("elsewhere.key");
        std::fs::write(&other, hex::encode([7u8; 32])).unwrap();
        std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o600)).unwrap();
        let link = home.path().join("link.key");
        std::os::unix::fs::symlink(&other, &link).unwrap();
        assert!(Key::at(&link, true).is_err());
    }
}
