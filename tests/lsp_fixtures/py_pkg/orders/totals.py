"""Totals of order lines."""


def summarize(lines, discount):
    """The total after a per-line discount, the number of items, the average and the largest line."""
    total = 0
    count = 0
    largest = 0
    for price, quantity in lines:
        cost = price * quantity
        total += max(cost - discount, 0)
        count += quantity
        largest = max(largest, cost)
    average = total // count if count else 0
    return {"total": total, "count": count, "average": average, "largest": largest}
