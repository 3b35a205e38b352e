"""A tiny shop: prices, carts, orders and a checkout."""
from .pricing import Cart, net_price

__all__ = ["Cart", "net_price"]
