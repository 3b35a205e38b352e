//! A tiny shop: order lines, totals, shipping and a printed receipt. This is candor's demo crate:
//! each of the four refactors has a natural target here.

pub mod money;

pub use money::*;

/// One line of an order.
#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub name: String,
    pub unit_price_cents: u64,
    pub quantity: u64,
}

/// The price of one order line.
fn line_total(item: &Item) -> u64 {
    item.unit_price_cents * item.quantity
}

/// The total of an order in cents, before shipping.
pub fn order_total(items: &[Item]) -> u64 {
    let mut total = 0;
    for item in items {
        total += line_total(item);
    }
    total
}

/// Shipping in cents for a parcel; the zone is no longer used by any tariff.
pub fn shipping_cents(weight_grams: u64, express: bool, _legacy_zone: u32) -> u64 {
    let base = 450 + weight_grams / 100 * 25;
    if express {
        base * 2
    } else {
        base
    }
}

/// Reads a price written like `12.50` or `3` into cents.
pub fn parse_cents(text: &str) -> Option<u64> {
    let (units, cents) = match text.trim().split_once('.') {
        Some((units, cents)) if cents.len() == 2 => (units, cents),
        Some(_) => return None,
        None => (text.trim(), "00"),
    };
    Some(units.parse::<u64>().ok()? * 100 + cents.parse::<u64>().ok()?)
}

/// Prints the receipt of an order.
pub fn print_receipt(items: &[Item], weight_grams: u64, express: bool) {
    println!("==============================");
    println!("       CANDOR DEMO SHOP       ");
    println!("==============================");
    for item in items {
        let price = line_total(item);
        println!("{:<20}{:>10}", item.name, format_cents(price));
    }
    let shipping = shipping_cents(weight_grams, express, 0);
    let total = order_total(items) + shipping;
    println!("{:<20}{:>10}", "shipping", format_cents(shipping));
    println!("{:<20}{:>10}", "total", format_cents(total));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn basket() -> Vec<Item> {
        vec![
            Item { name: "tea".to_string(), unit_price_cents: 350, quantity: 2 },
            Item { name: "honey".to_string(), unit_price_cents: 799, quantity: 1 },
        ]
    }

    #[test]
    fn totals_and_shipping() {
        // Calls outside macros: candor rewrites call sites, but not inside macro arguments.
        let standard = shipping_cents(1200, false, 0);
        let express = shipping_cents(1200, true, 0);
        assert_eq!(order_total(&basket()), 1499);
        assert_eq!(standard, 750);
        assert_eq!(express, 1500);
        assert_eq!(format_cents(1499), "14.99");
        assert_eq!(parse_cents("12.50"), Some(1250));
        assert_eq!(parse_cents("3"), Some(300));
        assert_eq!(parse_cents("1.5"), None);
        print_receipt(&basket(), 1200, false);
    }
}
