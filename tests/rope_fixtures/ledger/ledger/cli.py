"""A command line: `python -m ledger.cli 1.50 2.25`."""
import sys

from ledger.core import apply_rate as with_rate
from ledger.core import to_cents as cents


def main(argv):
    values = [cents(arg) for arg in argv]
    return [with_rate(v, 5, verbose=False) for v in values]


if __name__ == "__main__":
    print(main(sys.argv[1:]))
