//! A computed refactor as the engine hands it to the envelope: the outcome, what was rolled back
//! before it was computed, and the token of its plan.

use crate::backend::Outcome;
use crate::verify::Verification;
use crate::workspace::transaction::Recovery;

/// A computed refactor with what the engine did first and the token of its plan.
#[derive(Debug, Clone, PartialEq)]
pub struct Preview {
    pub outcome: Outcome,
    /// Interrupted earlier writes rolled back before the plan was computed (also findings).
    pub recovered: Vec<Recovery>,
    pub plan_id: String,
    /// The check with the project's own tools, when one was asked for (`data.verification`).
    pub verification: Option<Verification>,
}
