"""Money formatting for the demo shop."""


def format_cents(cents):
    """Formats cents as `units.cents`, e.g. 1499 as "14.99"."""
    return "%d.%02d" % (cents // 100, cents % 100)
