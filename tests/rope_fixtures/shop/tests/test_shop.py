import unittest

import shop
from shop import orders, pricing
from shop.checkout import till
from shop.pricing import GiftCart


class ShopTest(unittest.TestCase):
    def test_net_price(self):
        self.assertEqual(pricing.net_price(120), 100)
        self.assertEqual(shop.net_price(110, rate=10), 100)

    def test_orders(self):
        self.assertEqual(orders.order_net([120, 240]), [100, 200])
        self.assertEqual(orders.order_net_aliased([120]), [100])
        self.assertEqual(orders.tax_of(120), 20)
        self.assertIsInstance(orders.new_cart(), shop.Cart)
        self.assertEqual(orders.cart_total([120, 240]), 300)

    def test_cart(self):
        cart = pricing.Cart().add("a", 120).add("b", 240)
        self.assertEqual(cart.subtotal(), 300)
        self.assertEqual(cart.describe(), "2 items, 300 net")

    def test_gift_cart(self):
        cart = GiftCart().add("a", 120).add("b", 240)
        self.assertEqual(cart.subtotal(), 200)

    def test_till(self):
        self.assertEqual(till.ring_up([("a", 120)]), 100)
        self.assertEqual(till.receipt([("a", 120)]), ["a 100", "tax 20%"])

    def test_rate_is_exported(self):
        self.assertEqual(pricing.TAX_RATE, 20)
        for name in shop.__all__:
            self.assertTrue(hasattr(shop, name), name)


if __name__ == "__main__":
    unittest.main()
