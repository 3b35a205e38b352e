import io
import unittest
from contextlib import redirect_stdout

from shop import Item, format_cents, order_total, parse_cents, print_receipt, shipping_cents


def basket():
    return [Item("tea", 350, 2), Item("honey", 799, 1)]


class ShopTest(unittest.TestCase):
    def test_totals_and_shipping(self):
        self.assertEqual(order_total(basket()), 1499)
        self.assertEqual(shipping_cents(1200), 750)
        self.assertEqual(shipping_cents(1200, express=True), 1500)
        self.assertEqual(format_cents(1499), "14.99")
        self.assertEqual(parse_cents("12.50"), 1250)
        self.assertEqual(parse_cents("3"), 300)
        self.assertIsNone(parse_cents("1.5"))

    def test_receipt(self):
        out = io.StringIO()
        with redirect_stdout(out):
            print_receipt(basket(), 1200)
        self.assertIn("total                    22.49", out.getvalue())


if __name__ == "__main__":
    unittest.main()
