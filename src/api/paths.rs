//! The paths of a tool call: checked (no NUL, no control character, not the root itself) and
//! resolved against the project root. Each becomes the file's path with no symbolic link in it,
//! so a file reached through a linked folder is the same file as the one the project-wide
//! search finds, listed and written once.

use std::path::{Component, Path};

use crate::refactor::Request;
use crate::workspace::Root;

use super::arg;
use super::args::ToolCall;
use super::error::ApiError;

/// Checks and resolves every path of `call` in place.
pub fn resolve(root: &Root, call: &mut ToolCall) -> Result<(), ApiError> {
    let resolved = |path: &str, param: &str| -> Result<String, ApiError> {
        check(path, param)?;
        root.resolve(path)
            .map(|r| r.real_relative)
            .map_err(|e| ApiError::from(e).with_param(param))
    };
    match &mut call.request {
        Request::Extract(r) => r.file = resolved(&r.file, arg::FILE_PATH)?,
        Request::Inline(r) => r.file = resolved(&r.file, arg::FILE_PATH)?,
        Request::ChangeSignature(r) => r.file = resolved(&r.file, arg::FILE_PATH)?,
        Request::Rename(r) => r.file = resolved(&r.file, arg::FILE_PATH)?,
        Request::ExtractVariable(r) => r.file = resolved(&r.file, arg::FILE_PATH)?,
        Request::InlineVariable(r) => r.file = resolved(&r.file, arg::FILE_PATH)?,
        Request::SafeDelete(r) => r.file = resolved(&r.file, arg::FILE_PATH)?,
        Request::IntroduceParameter(r) => r.file = resolved(&r.file, arg::FILE_PATH)?,
        Request::Move(r) => {
            r.file = resolved(&r.file, arg::FILE_PATH)?;
            r.target_file = resolved(&r.target_file, arg::TARGET_FILE)?;
        }
    }
    let mut expected = std::collections::BTreeMap::new();
    for (path, hash) in std::mem::take(&mut call.options.expected_sha256) {
        expected.insert(resolved(&path, arg::EXPECTED_SHA256)?, hash);
    }
    call.options.expected_sha256 = expected;
    Ok(())
}

/// A path candor can show and write: not empty, no NUL, no control character (a line break would
/// break a diff header, an escape sequence would reach the terminal), and not the root itself.
pub fn check(path: &str, param: &str) -> Result<(), ApiError> {
    if path.contains('\0') {
        return Err(ApiError::invalid(
            param,
            format!(
                "`{param}` contains a NUL character; give a file path relative to the project root"
            ),
        ));
    }
    if let Some(c) = path.chars().find(|c| c.is_control()) {
        return Err(ApiError::invalid(
            param,
            format!(
                "`{param}` contains the control character {}; candor reads and writes only files whose names have none (a line break or an escape sequence would corrupt the diff and the terminal)",
                c.escape_default()
            ),
        ));
    }
    let mut depth = 0usize;
    for component in Path::new(path).components() {
        match component {
            Component::Normal(_) => depth += 1,
            // Climbing above the root is for the resolver to refuse (outside_root).
            Component::ParentDir if depth == 0 => return Ok(()),
            Component::ParentDir => depth -= 1,
            Component::CurDir => {}
            // An absolute path is checked against the root when it is resolved.
            Component::RootDir | Component::Prefix(_) => return Ok(()),
        }
    }
    if depth == 0 {
        return Err(ApiError::invalid(
            param,
            format!(
                "`{param}` \"{path}\" is the project root itself, not a file; give a file path relative to it"
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::ErrorCode;

    #[test]
    fn unusable_paths_are_invalid_arguments() {
        for bad in [
            "a\0.py",
            "a\n.py",
            "x/\u{1b}[31mred.py",
            "\t",
            ".",
            "./",
            "a/..",
        ] {
            let err = check(bad, "target_file").unwrap_err();
            assert_eq!(err.code, ErrorCode::InvalidArgument, "{bad:?}");
            assert_eq!(err.param.as_deref(), Some("target_file"));
        }
        for good in [
            "a.py",
            "pkg/b.py",
            "./a.py",
            "../x.py",
            "/abs/x.py",
            "café.py",
        ] {
            assert!(check(good, "file_path").is_ok(), "{good:?}");
        }
    }
}
