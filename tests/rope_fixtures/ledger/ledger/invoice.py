"""Invoices: lines of (label, amount) with a tax rate."""
import ledger.core


def invoice_total(lines, rate=10):
    subtotal = sum(ledger.core.to_cents(amount) for _, amount in lines)
    return ledger.core.apply_rate(subtotal, rate, False, minimum=50)
