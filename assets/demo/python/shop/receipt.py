"""Order totals, shipping and the printed receipt of the demo shop."""

from shop.money import format_cents


class Item:
    """One line of an order."""

    def __init__(self, name, unit_price_cents, quantity):
        self.name = name
        self.unit_price_cents = unit_price_cents
        self.quantity = quantity


def line_total(item):
    """The price of one order line."""
    return item.unit_price_cents * item.quantity


def order_total(items):
    """The total of an order in cents, before shipping."""
    total = 0
    for item in items:
        total += line_total(item)
    return total


def shipping_cents(weight_grams, express=False, legacy_zone=None):
    """Shipping in cents for a parcel; the zone is no longer used by any tariff."""
    base = 450 + weight_grams // 100 * 25
    if express:
        return base * 2
    return base


def parse_cents(text):
    """Reads a price written like "12.50" or "3" into cents (None when it is not a price)."""
    units, _, cents = text.strip().partition(".")
    if not units.isdigit() or (cents and (len(cents) != 2 or not cents.isdigit())):
        return None
    return int(units) * 100 + int(cents or "0")


def print_receipt(items, weight_grams, express=False):
    """Prints the receipt of an order."""
    print("==============================")
    print("       CANDOR DEMO SHOP       ")
    print("==============================")
    for item in items:
        print("%-20s%10s" % (item.name, format_cents(line_total(item))))
    shipping = shipping_cents(weight_grams, express)
    print("%-20s%10s" % ("shipping", format_cents(shipping)))
    print("%-20s%10s" % ("total", format_cents(order_total(items) + shipping)))
