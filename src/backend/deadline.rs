//! When `auto`'s budget for one request ends, and how long a wait may last within it. Pure: the
//! caller passes the time, so the decision is tested without a clock.

use std::time::{Duration, Instant};

use super::Budget;

/// The end of a request's budget under `auto`, and that budget (for the fallback reason).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Deadline {
    pub end: Instant,
    pub budget: Budget,
}

/// How long one wait (a request, the load of the project, a free server) may last.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// No budget, or it ends after `timeout`: the backend's own timeout applies.
    Full(Duration),
    /// The budget ends first: wait this long, then the budget is spent.
    Capped(Duration, Budget),
    /// The budget is already spent: do not wait at all.
    Over(Budget),
}

impl Wait {
    /// How long to wait, and the budget when it is the budget that ends the wait.
    pub fn split(self) -> (Duration, Option<Budget>) {
        match self {
            Wait::Full(t) => (t, None),
            Wait::Capped(t, budget) => (t, Some(budget)),
            Wait::Over(budget) => (Duration::ZERO, Some(budget)),
        }
    }
}

impl Deadline {
    /// The budget starting `now`.
    pub fn starting(now: Instant, budget: Budget) -> Deadline {
        Deadline {
            end: now + budget.limit,
            budget,
        }
    }

    /// Whether the budget is spent at `now`.
    pub fn passed(&self, now: Instant) -> bool {
        now >= self.end
    }
}

/// How long a wait whose own limit is `timeout` may last at `now` within `deadline`.
pub fn wait(deadline: Option<Deadline>, timeout: Duration, now: Instant) -> Wait {
    let Some(deadline) = deadline else {
        return Wait::Full(timeout);
    };
    let left = deadline.end.saturating_duration_since(now);
    if left.is_zero() {
        Wait::Over(deadline.budget)
    } else if left < timeout {
        Wait::Capped(left, deadline.budget)
    } else {
        Wait::Full(timeout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(ms: u64) -> Budget {
        Budget {
            limit: Duration::from_millis(ms),
            key: "[auto] budget_ms",
        }
    }

    #[test]
    fn no_budget_waits_the_whole_timeout() {
        let now = Instant::now();
        assert_eq!(
            wait(None, Duration::from_secs(60), now),
            Wait::Full(Duration::from_secs(60))
        );
    }

    #[test]
    fn the_budget_caps_a_longer_timeout_and_then_stops_every_wait() {
        let now = Instant::now();
        let deadline = Deadline::starting(now, budget(5_000));
        let timeout = Duration::from_secs(60);
        assert_eq!(
            wait(Some(deadline), timeout, now),
            Wait::Capped(Duration::from_millis(5_000), budget(5_000))
        );
        let later = now + Duration::from_millis(4_000);
        assert_eq!(
            wait(Some(deadline), timeout, later),
            Wait::Capped(Duration::from_millis(1_000), budget(5_000))
        );
        assert!(!deadline.passed(later));
        let after = now + Duration::from_millis(5_000);
        assert!(deadline.passed(after));
        assert_eq!(
            wait(Some(deadline), timeout, after),
            Wait::Over(budget(5_000))
        );
        assert_eq!(
            wait(Some(deadline), timeout, after + Duration::from_secs(1)),
            Wait::Over(budget(5_000))
        );
    }

    #[test]
    fn a_shorter_timeout_than_the_budget_left_is_the_backends_own() {
        let now = Instant::now();
        let deadline = Deadline::starting(now, budget(30_000));
        assert_eq!(
            wait(Some(deadline), Duration::from_secs(2), now),
            Wait::Full(Duration::from_secs(2))
        );
    }

    #[test]
    fn a_one_millisecond_budget_is_spent_at_once() {
        let now = Instant::now();
        let deadline = Deadline::starting(now, budget(1));
        assert_eq!(
            wait(
                Some(deadline),
                Duration::from_secs(60),
                now + Duration::from_millis(1)
            ),
            Wait::Over(budget(1))
        );
    }
}
