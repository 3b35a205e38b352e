//! A file's bytes mapped read-only into memory: the kernel's cached pages themselves, not a copy
//! of them in a buffer the kernel must first clear. How the index (megabytes, read whole on every
//! request for its checksum) is read. A mapped file must not shrink while it is mapped (reading
//! past its new end stops the process): candor never writes into an index file, it renames a new
//! one over it, and the mapping keeps the old file's pages.

use std::fs::File;
use std::ops::Deref;
use std::ptr::NonNull;

/// Bytes read into memory or mapped from a file; read-only either way.
pub struct Bytes {
    inner: Inner,
}

enum Inner {
    Owned(Vec<u8>),
    Mapped { start: NonNull<u8>, len: usize },
}

// SAFETY: the mapping is private and read-only: no one writes through it, and it is unmapped
// only when its one owner drops it.
unsafe impl Send for Bytes {}
unsafe impl Sync for Bytes {}

impl Bytes {
    /// The whole of `file` (a regular file), mapped; an empty file, or one the kernel will not
    /// map, is read instead.
    pub fn map(file: &File) -> std::io::Result<Bytes> {
        use rustix::mm::{MapFlags, ProtFlags, mmap};
        let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
        if len == 0 {
            return Ok(Bytes::from(Vec::new()));
        }
        // SAFETY: a fresh mapping at an address the kernel picks, of a file open for reading;
        // its pages are only read (see the module's note on files that shrink).
        let mapped = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ,
                MapFlags::PRIVATE | MapFlags::POPULATE,
                file,
                0,
            )
        };
        match mapped.ok().and_then(|at| NonNull::new(at.cast::<u8>())) {
            Some(start) => Ok(Bytes {
                inner: Inner::Mapped { start, len },
            }),
            None => {
                use std::io::Read;
                let mut bytes = Vec::with_capacity(len);
                (&mut &*file).read_to_end(&mut bytes)?;
                Ok(Bytes::from(bytes))
            }
        }
    }

    /// Whether the bytes are the file's mapped pages (not a copy).
    pub fn is_mapped(&self) -> bool {
        matches!(self.inner, Inner::Mapped { .. })
    }
}

impl Default for Bytes {
    fn default() -> Bytes {
        Bytes::from(Vec::new())
    }
}

impl From<Vec<u8>> for Bytes {
    fn from(bytes: Vec<u8>) -> Bytes {
        Bytes {
            inner: Inner::Owned(bytes),
        }
    }
}

impl Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match &self.inner {
            Inner::Owned(bytes) => bytes,
            // SAFETY: `len` bytes mapped readable at `start`, until this value is dropped.
            Inner::Mapped { start, len } => unsafe {
                std::slice::from_raw_parts(start.as_ptr(), *len)
            },
        }
    }
}

impl Drop for Bytes {
    fn drop(&mut self) {
        if let Inner::Mapped { start, len } = self.inner {
            // SAFETY: the mapping made in `map`, unmapped once; no slice of it outlives `self`.
            let _ = unsafe { rustix::mm::munmap(start.as_ptr().cast(), len) };
        }
    }
}

impl std::fmt::Debug for Bytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let how = if self.is_mapped() { "mapped" } else { "read" };
        write!(f, "Bytes({} bytes, {how})", self.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mapped_file_reads_as_its_bytes_and_an_empty_one_as_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.bin");
        let content: Vec<u8> = (0..100_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &content).unwrap();
        let mapped = Bytes::map(&File::open(&path).unwrap()).unwrap();
        assert!(mapped.is_mapped());
        assert_eq!(&*mapped, &content[..]);
        // Replaced by a rename, as candor replaces its index: the mapping keeps the old bytes.
        let next = dir.path().join("next.bin");
        std::fs::write(&next, b"new").unwrap();
        std::fs::rename(&next, &path).unwrap();
        assert_eq!(&*mapped, &content[..]);
        std::fs::write(dir.path().join("empty"), b"").unwrap();
        let empty = Bytes::map(&File::open(dir.path().join("empty")).unwrap()).unwrap();
        assert!(!empty.is_mapped());
        assert!(empty.is_empty());
    }
}
