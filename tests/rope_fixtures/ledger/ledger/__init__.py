"""A tiny ledger: amounts in cents, rates, invoices and reports."""
