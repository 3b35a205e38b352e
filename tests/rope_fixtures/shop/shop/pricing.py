"""Prices in cents and the cart that adds them up."""

TAX_RATE = 20


def net_price(gross, rate=None):
    """The price without tax, from a gross price in cents."""
    if rate is None:
        rate = TAX_RATE
    return gross * 100 // (100 + rate)


class Cart:
    """Items as (label, gross cents)."""

    def __init__(self):
        self.items = []

    def add(self, label, gross):
        self.items.append((label, gross))
        return self

    def subtotal(self):
        """The sum of the net prices of the items."""
        return sum(net_price(gross) for _, gross in self.items)

    def describe(self):
        return "%d items, %d net" % (len(self.items), self.subtotal())


class GiftCart(Cart):
    """A cart whose first item is free."""

    def subtotal(self):
        return super().subtotal() - net_price(self.items[0][1]) if self.items else 0
