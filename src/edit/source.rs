//! A source file as the refactors see it: decoded UTF-8 text without its byte order mark, and
//! the sha256 of the exact bytes it came from.

use sha2::{Digest, Sha256};

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// The content of one project file, decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// Project-relative path with `/` separators.
    pub path: String,
    /// The text after the BOM, byte for byte (line endings untouched).
    pub text: std::sync::Arc<str>,
    pub bom: bool,
    /// sha256 (hex) of the bytes on disk, BOM included.
    pub sha256: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DecodeError {
    #[error("looks like a binary file (it contains NUL bytes)")]
    Binary,
    #[error("is not valid UTF-8 (first invalid byte on line {line})")]
    NotUtf8 { line: usize },
}

impl SourceFile {
    /// The sha256 of its bytes as bytes (`None` if `sha256` is not 64 hex digits).
    pub fn sha256_bytes(&self) -> Option<[u8; 32]> {
        let mut bytes = [0u8; 32];
        hex::decode_to_slice(&self.sha256, &mut bytes).ok()?;
        Some(bytes)
    }

    /// Decodes the bytes of a file; binary and non-UTF-8 content is refused.
    pub fn from_bytes(path: impl Into<String>, bytes: &[u8]) -> Result<SourceFile, DecodeError> {
        SourceFile::from_hashed_bytes(path, bytes, sha256_hex(bytes))
    }

    /// [`SourceFile::from_bytes`] for bytes whose sha256 (hex) is known already (the index
    /// hashed them, and the file's stamp says they have not changed since): not hashed again.
    pub fn from_hashed_bytes(
        path: impl Into<String>,
        bytes: &[u8],
        sha256: String,
    ) -> Result<SourceFile, DecodeError> {
        let (bom, body) = split_bom(bytes);
        let text = std::sync::Arc::<str>::from(checked_text(body)?);
        Ok(SourceFile {
            path: path.into(),
            text,
            bom,
            sha256,
        })
    }

    /// [`SourceFile::from_hashed_bytes`] for bytes read into a shared buffer (hashed here when
    /// `sha256` is `None`): UTF-8 without a BOM becomes the text as it is, not a copy of it.
    pub fn from_shared_bytes(
        path: impl Into<String>,
        bytes: std::sync::Arc<[u8]>,
        sha256: Option<String>,
    ) -> Result<SourceFile, DecodeError> {
        let sha256 = sha256.unwrap_or_else(|| sha256_hex(&bytes));
        if bytes.starts_with(BOM) {
            return SourceFile::from_hashed_bytes(path, &bytes, sha256);
        }
        checked_text(&bytes)?;
        // SAFETY: `checked_text` found the bytes valid UTF-8, and `str` is laid out as `[u8]`.
        let text =
            unsafe { std::sync::Arc::from_raw(std::sync::Arc::into_raw(bytes) as *const str) };
        Ok(SourceFile {
            path: path.into(),
            text,
            bom: false,
            sha256,
        })
    }

    /// A file from text (no BOM), as tests and in-memory callers build them.
    pub fn from_text(path: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        SourceFile {
            path: path.into(),
            sha256: sha256_hex(text.as_bytes()),
            text: text.into(),
            bom: false,
        }
    }

    /// The bytes on disk for `text` in this file's encoding (BOM restored).
    pub fn to_bytes(&self, text: &str) -> Vec<u8> {
        with_bom(self.bom, text)
    }
}

/// Whether `bytes` start with a BOM, and what follows it.
fn split_bom(bytes: &[u8]) -> (bool, &[u8]) {
    match bytes.strip_prefix(BOM) {
        Some(rest) => (true, rest),
        None => (false, bytes),
    }
}

/// `body` (a file's bytes after its BOM) as text: binary (a NUL in its first 64 KiB) and
/// non-UTF-8 bytes are refused.
fn checked_text(body: &[u8]) -> Result<&str, DecodeError> {
    if memchr::memchr(0, &body[..body.len().min(64 * 1024)]).is_some() {
        return Err(DecodeError::Binary);
    }
    std::str::from_utf8(body).map_err(|e| {
        let line = body[..e.valid_up_to()]
            .iter()
            .filter(|b| **b == b'\n')
            .count()
            + 1;
        DecodeError::NotUtf8 { line }
    })
}

pub(super) fn with_bom(bom: bool, text: &str) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(text.len() + 3);
    if bom {
        bytes.extend_from_slice(BOM);
    }
    bytes.extend_from_slice(text.as_bytes());
    bytes
}

/// Lower-case hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    #[test]
    fn shared_bytes_decode_as_bytes_do_and_plain_text_keeps_its_buffer() {
        let cases: [&[u8]; 5] = [
            b"def f():\n    return 1\n",
            b"\xEF\xBB\xBFx = 1\n",
            b"a\n\xFF\n",
            b"a\0b",
            b"",
        ];
        for bytes in cases {
            let shared: Arc<[u8]> = Arc::from(bytes);
            let hashed = SourceFile::from_shared_bytes("f.py", shared.clone(), None);
            assert_eq!(hashed, SourceFile::from_bytes("f.py", bytes), "{bytes:?}");
            let given = SourceFile::from_shared_bytes("f.py", shared, Some("given".into()));
            assert_eq!(given.map(|f| f.sha256), hashed.map(|_| "given".to_string()));
        }
        let shared: Arc<[u8]> = Arc::from(&b"x = 1\n"[..]);
        let at = shared.as_ptr();
        let file = SourceFile::from_shared_bytes("f.py", shared, None).unwrap();
        assert_eq!(
            file.text.as_ptr(),
            at,
            "the text is the buffer read, not a copy"
        );
        let with_bom: Arc<[u8]> = Arc::from(&b"\xEF\xBB\xBFx = 1\n"[..]);
        let file = SourceFile::from_shared_bytes("f.py", with_bom, None).unwrap();
        assert_eq!((&*file.text, file.bom), ("x = 1\n", true));
    }
}
