//! Move to file: moves a top-level item with its docs, attributes or decorators to another file and imports it back where needed. Pure.

use super::{MoveRequest, Plan, RefactorError, Sources};

pub fn plan(_sources: &dyn Sources, _request: &MoveRequest) -> Result<Plan, RefactorError> {
    Err(RefactorError::Unsupported(
        "this refactor is not implemented yet".to_string(),
    ))
}
