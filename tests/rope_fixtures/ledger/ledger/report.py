"""Reports of amounts."""
from ledger.core import apply_rate, to_cents


def report(amounts, rate_percent=5):
    cents = [to_cents(a, currency="USD") for a in amounts]
    return [apply_rate(amount_cents=c, rate_percent=rate_percent, verbose=True) for c in cents]
