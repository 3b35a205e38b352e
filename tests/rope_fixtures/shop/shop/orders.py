"""Orders reach the pricing module in every way Python allows."""
import shop.pricing
from shop.pricing import net_price as price
from shop import pricing


def order_net(grosses):
    return [shop.pricing.net_price(g) for g in grosses]


def order_net_aliased(grosses):
    return [price(g, rate=pricing.TAX_RATE) for g in grosses]


def tax_of(gross):
    return gross - shop.pricing.net_price(gross, shop.pricing.TAX_RATE)


def new_cart():
    return shop.pricing.Cart()


def cart_total(grosses):
    cart = new_cart()
    for gross in grosses:
        cart.add("item", gross)
    return cart.subtotal()
