//! The error side of the JSON contract: codes, messages that say what to do, CLI exit codes.

use serde::Serialize;

use crate::backend::BackendError;
use crate::refactor::{RefactorError, SourceError};
use crate::workspace::undo::UndoError;
use crate::workspace::write::WriteError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    MissingParam,
    InvalidArgument,
    InvalidRange,
    NotFound,
    AmbiguousSymbol,
    UnsupportedLanguage,
    UnsupportedOperation,
    StaleFile,
    OutsideRoot,
    Io,
    Lsp,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::MissingParam => "missing_param",
            ErrorCode::InvalidArgument => "invalid_argument",
            ErrorCode::InvalidRange => "invalid_range",
            ErrorCode::NotFound => "not_found",
            ErrorCode::AmbiguousSymbol => "ambiguous_symbol",
            ErrorCode::UnsupportedLanguage => "unsupported_language",
            ErrorCode::UnsupportedOperation => "unsupported_operation",
            ErrorCode::StaleFile => "stale_file",
            ErrorCode::OutsideRoot => "outside_root",
            ErrorCode::Io => "io",
            ErrorCode::Lsp => "lsp",
        }
    }

    /// The exit status of a command that failed with this code.
    pub fn exit(self) -> Exit {
        match self {
            ErrorCode::MissingParam
            | ErrorCode::InvalidArgument
            | ErrorCode::InvalidRange
            | ErrorCode::AmbiguousSymbol
            | ErrorCode::UnsupportedLanguage
            | ErrorCode::UnsupportedOperation
            | ErrorCode::OutsideRoot => Exit::BadArguments,
            ErrorCode::NotFound => Exit::NotFound,
            ErrorCode::StaleFile => Exit::Stale,
            ErrorCode::Io | ErrorCode::Lsp => Exit::Failure,
        }
    }

    /// `candor call` exit status (see [`Exit`]).
    pub fn exit_code(self) -> i32 {
        self.exit() as i32
    }
}

/// Every exit status of the `candor` binary, in one table (`candor call`, `candor undo`,
/// `candor trust`, `candor calls`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// Done.
    Success = 0,
    /// Anything else: an I/O error, a language server, another candor process writing.
    Failure = 1,
    /// Bad arguments: the request itself is wrong (fix it).
    BadArguments = 2,
    /// Not found: no such file or symbol, nothing to undo, no such transaction.
    NotFound = 3,
    /// Stale: a file changed since the preview, or since candor wrote it; nothing was written.
    Stale = 4,
    /// Done in part: an interrupted write was rolled back except for files it names (their
    /// earlier content is in the journal); the next undo moves on.
    Incomplete = 5,
}

impl Exit {
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// `{"code", "message", "param"?}` of the error envelope.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// What the refusal is about, for programs (a refused safe delete's references).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<ErrorData>,
}

/// `error.data`: the facts behind a refusal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ErrorData {
    /// `path:line` of every reference that kept a safe delete from happening, certain first.
    pub references: Vec<String>,
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ApiError {
        ApiError {
            code,
            message: message.into(),
            param: None,
            data: None,
        }
    }

    pub fn with_param(mut self, param: impl Into<String>) -> ApiError {
        self.param = Some(param.into());
        self
    }

    pub fn missing(param: &str, what: &str) -> ApiError {
        ApiError::new(
            ErrorCode::MissingParam,
            format!("missing required argument `{param}`: {what}"),
        )
        .with_param(param)
    }

    pub fn invalid(param: &str, message: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::InvalidArgument, message).with_param(param)
    }
}

impl From<SourceError> for ApiError {
    fn from(error: SourceError) -> ApiError {
        let code = match &error {
            SourceError::Missing { .. } => ErrorCode::NotFound,
            SourceError::OutsideRoot { .. } => ErrorCode::OutsideRoot,
            SourceError::Unreadable { .. } => ErrorCode::InvalidArgument,
            SourceError::Io { .. } => ErrorCode::Io,
        };
        ApiError::new(code, error.to_string())
    }
}

impl From<RefactorError> for ApiError {
    fn from(error: RefactorError) -> ApiError {
        match error {
            RefactorError::InvalidRange { .. } => {
                ApiError::new(ErrorCode::InvalidRange, error.to_string())
            }
            RefactorError::NotFound(m) => ApiError::new(ErrorCode::NotFound, m),
            RefactorError::Ambiguous(m) => ApiError::new(ErrorCode::AmbiguousSymbol, m),
            RefactorError::InvalidArgument { param, message } => ApiError::invalid(param, message),
            RefactorError::Unsupported(m) => ApiError::new(ErrorCode::UnsupportedOperation, m),
            RefactorError::Referenced {
                message,
                references,
            } => {
                let mut api = ApiError::new(ErrorCode::UnsupportedOperation, message);
                api.data = Some(ErrorData { references });
                api
            }
            RefactorError::UnsupportedLanguage(_) => {
                ApiError::new(ErrorCode::UnsupportedLanguage, error.to_string())
                    .with_param("file_path")
            }
            RefactorError::Source(e) => e.into(),
            RefactorError::Edit(_) | RefactorError::Cancelled(_) => {
                ApiError::new(ErrorCode::Io, error.to_string())
            }
        }
    }
}

impl From<BackendError> for ApiError {
    fn from(error: BackendError) -> ApiError {
        match error {
            BackendError::Refactor(e) => e.into(),
            BackendError::UnsupportedOperation(m) => {
                ApiError::new(ErrorCode::UnsupportedOperation, m)
            }
            BackendError::Lsp(m) => ApiError::new(ErrorCode::Lsp, m),
        }
    }
}

impl From<WriteError> for ApiError {
    fn from(error: WriteError) -> ApiError {
        let message = error.to_string();
        match error {
            WriteError::Stale { .. } | WriteError::AlreadyExists { .. } => {
                ApiError::new(ErrorCode::StaleFile, message)
            }
            WriteError::Source(e) => e.into(),
            WriteError::Refused { .. } => ApiError::new(ErrorCode::InvalidArgument, message),
            WriteError::Io { .. } | WriteError::Journal(_) => ApiError::new(ErrorCode::Io, message),
            // The code of what failed; the message says what was rolled back first.
            WriteError::AfterRecovery { error, .. } => {
                ApiError::new(ApiError::from(*error).code, message)
            }
        }
    }
}

impl From<UndoError> for ApiError {
    fn from(error: UndoError) -> ApiError {
        match error {
            UndoError::Write(e) => e.into(),
            UndoError::NothingToUndo
            | UndoError::UnknownTransaction { .. }
            | UndoError::AlreadyUndone { .. }
            | UndoError::NotApplied { .. } => ApiError::new(ErrorCode::NotFound, error.to_string()),
            UndoError::Changed { .. } => ApiError::new(ErrorCode::StaleFile, error.to_string()),
            UndoError::Journal(_) => ApiError::new(ErrorCode::Io, error.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workspace::journal::JournalError;
    use crate::workspace::write::Failure;

    #[test]
    fn undo_errors_take_their_exit_status_from_the_one_table() {
        let stale = WriteError::Stale {
            path: "a.py".into(),
            expected: "e".into(),
            found: "f".into(),
            done: Failure::default(),
        };
        let cases = [
            (UndoError::NothingToUndo, Exit::NotFound),
            (
                UndoError::UnknownTransaction { id: "1".into() },
                Exit::NotFound,
            ),
            (
                UndoError::AlreadyUndone {
                    id: "1".into(),
                    by: "2".into(),
                },
                Exit::NotFound,
            ),
            (UndoError::NotApplied { id: "1".into() }, Exit::NotFound),
            (
                UndoError::Changed {
                    transaction: "1".into(),
                    what: "x".into(),
                    files: vec![crate::workspace::undo::Edited {
                        path: "a.py".into(),
                        how: crate::workspace::undo::EditedHow::Gone,
                        expected: Some("e".into()),
                        found: None,
                    }],
                },
                Exit::Stale,
            ),
            (
                UndoError::Journal(JournalError::Busy {
                    path: "lock".into(),
                }),
                Exit::Failure,
            ),
            (UndoError::Write(stale), Exit::Stale),
            (
                UndoError::Write(WriteError::Source(SourceError::OutsideRoot {
                    path: "../x".into(),
                })),
                Exit::BadArguments,
            ),
            (
                UndoError::Write(WriteError::Refused {
                    path: ".candor/x".into(),
                    reason: "r".into(),
                }),
                Exit::BadArguments,
            ),
        ];
        for (error, exit) in cases {
            assert_eq!(ApiError::from(error.clone()).code.exit(), exit, "{error:?}");
        }
        assert_eq!(Exit::Incomplete.code(), 5);
        assert_eq!(ErrorCode::StaleFile.exit_code(), 4);
    }
}
