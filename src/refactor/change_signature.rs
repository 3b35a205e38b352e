//! Change signature: rewrites a function's parameter list and its call sites positionally. Pure.

use super::{ChangeSignatureRequest, Plan, RefactorError, Sources};

pub fn plan(
    _sources: &dyn Sources,
    _request: &ChangeSignatureRequest,
) -> Result<Plan, RefactorError> {
    Err(RefactorError::Unsupported(
        "this refactor is not implemented yet".to_string(),
    ))
}
