//! Inline function: replaces each call with the function's body (arguments bound to parameters) and removes the definition. Pure.

use super::{InlineRequest, Plan, RefactorError, Sources};

pub fn plan(_sources: &dyn Sources, _request: &InlineRequest) -> Result<Plan, RefactorError> {
    Err(RefactorError::Unsupported(
        "this refactor is not implemented yet".to_string(),
    ))
}
