//! Extract function: moves whole statements of one block into a new function and leaves a call in their place. Pure.

use super::{ExtractRequest, Plan, RefactorError, Sources};

pub fn plan(_sources: &dyn Sources, _request: &ExtractRequest) -> Result<Plan, RefactorError> {
    Err(RefactorError::Unsupported(
        "this refactor is not implemented yet".to_string(),
    ))
}
