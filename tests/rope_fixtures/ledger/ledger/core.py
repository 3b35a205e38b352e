"""Core arithmetic of the ledger: amounts are integer cents."""
from decimal import ROUND_HALF_UP, Decimal


def to_cents(amount, currency="EUR"):
    """Converts a decimal amount (a number or a string) to integer cents."""
    if currency not in ("EUR", "USD"):
        raise ValueError("unknown currency: %s" % currency)
    cents = (Decimal(str(amount)) * 100).quantize(Decimal("1"), rounding=ROUND_HALF_UP)
    return int(cents)


def apply_rate(amount_cents, rate_percent, verbose, minimum=0):
    """Adds `rate_percent` percent of `amount_cents`, at least `minimum` cents."""
    extra = max(amount_cents * rate_percent // 100, minimum)
    return amount_cents + extra


def total(amounts):
    """The sum of `amounts` in cents, with 20 % tax."""
    subtotal = sum(to_cents(a) for a in amounts)
    return apply_rate(subtotal, 20, False)
