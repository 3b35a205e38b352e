//! Order totals: the fixture of candor's rust-analyzer tests (tests/lsp_real.rs).

pub struct Line {
    pub price: u32,
    pub quantity: u32,
}

#[derive(Debug, PartialEq, Eq)]
pub struct Summary {
    pub total: u32,
    pub count: u32,
    pub average: u32,
    pub largest: u32,
}

/// The total after a per-line discount, the number of items, the average and the largest line.
pub fn summarize(lines: &[Line], discount: u32) -> Summary {
    let mut total = 0;
    let mut count = 0;
    let mut largest = 0;
    for line in lines {
        let cost = line.price * line.quantity;
        total += cost.saturating_sub(discount);
        count += line.quantity;
        if cost > largest {
            largest = cost;
        }
    }
    let average = if count == 0 { 0 } else { total / count };
    Summary { total, count, average, largest }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summarizes_lines() {
        let lines = [Line { price: 10, quantity: 2 }, Line { price: 3, quantity: 1 }];
        let summary = summarize(&lines, 5);
        assert_eq!(summary, Summary { total: 15, count: 3, average: 5, largest: 20 });
        assert_eq!(summarize(&[], 5), Summary { total: 0, count: 0, average: 0, largest: 0 });
    }
}
