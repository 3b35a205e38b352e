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
        let (bom, body) = match bytes.strip_prefix(BOM) {
            Some(rest) => (true, rest),
            None => (false, bytes),
        };
        if memchr::memchr(0, &body[..body.len().min(64 * 1024)]).is_some() {
            return Err(DecodeError::Binary);
        }
        let text = match std::str::from_utf8(body) {
            Ok(text) => std::sync::Arc::<str>::from(text),
            Err(e) => {
                let line = body[..e.valid_up_to()]
                    .iter()
                    .filter(|b| **b == b'\n')
                    .count()
                    + 1;
                return Err(DecodeError::NotUtf8 { line });
            }
        };
        Ok(SourceFile {
            path: path.into(),
            text,
            bom,
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
