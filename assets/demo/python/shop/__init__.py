"""A tiny shop: order lines, totals, shipping and a printed receipt (candor's demo package)."""

from shop.money import *  # noqa: F401,F403
from shop.receipt import *  # noqa: F401,F403
