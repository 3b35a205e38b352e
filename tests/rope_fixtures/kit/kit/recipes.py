"""Recipes for iterables, listed in `__all__` (the package re-exports them with `*`)."""
from collections import deque
from collections.abc import Sized
from itertools import chain, combinations, islice

__all__ = [
    'powerset',
    'tail',
    'take',
]


def take(n, iterable):
    """The first *n* items of *iterable* as a list."""
    return list(islice(iterable, n))


def tail(n, iterable):
    """An iterator over the last *n* items of *iterable*."""
    # A sized iterable is sliced; any other goes through a bounded deque.
    if isinstance(iterable, Sized):
        yield from islice(iterable, max(0, len(iterable) - n), None)
    else:
        yield from iter(deque(iterable, maxlen=n))


def powerset(iterable):
    """Every subset of *iterable*, smallest first."""
    s = list(iterable)
    return chain.from_iterable(combinations(s, r) for r in range(len(s) + 1))
