import unittest

from ledger import cli, core, invoice, report


class LedgerTest(unittest.TestCase):
    def test_total_adds_tax(self):
        self.assertEqual(core.total(["1.50", "2.25"]), 450)

    def test_invoice_has_a_minimum_rate(self):
        self.assertEqual(invoice.invoice_total([("a", "1.00"), ("b", "2.00")]), 350)
        self.assertEqual(invoice.invoice_total([("a", "10.00")], rate=20), 1200)

    def test_report(self):
        self.assertEqual(report.report(["1.00", "2.00"]), [105, 210])

    def test_cli(self):
        self.assertEqual(cli.main(["1.50", "2.25"]), [157, 236])


if __name__ == "__main__":
    unittest.main()
