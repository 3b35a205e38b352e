"""The till: relative imports from the package above."""
from ..pricing import TAX_RATE, Cart, net_price
from .. import pricing


def ring_up(entries):
    cart = Cart()
    for label, gross in entries:
        cart.add(label, gross)
    return cart.subtotal()


def receipt(entries):
    cart: Cart = pricing.Cart()
    for label, gross in entries:
        cart.add(label, gross)
    lines = ["%s %d" % (label, net_price(gross)) for label, gross in cart.items]
    lines.append("tax %d%%" % TAX_RATE)
    return lines
