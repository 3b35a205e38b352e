//! Money formatting for the demo shop.

/// Formats cents as `units.cents`, e.g. `1499` as `14.99`.
pub fn format_cents(cents: u64) -> String {
    format!("{}.{:02}", cents / 100, cents % 100)
}
