"""Impartial games in general (SPEC §7): mex, nim sums.

Everything here is iterative; no function depends on Python's recursion depth.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import reduce
from operator import xor

__all__ = ["mex", "mex_mask", "nim_sum"]


def mex(values: Iterable[int]) -> int:
    """The minimum excludant: the least natural number not in ``values``.

    >>> mex([0, 1, 3])
    2
    >>> mex([])
    0
    """
    seen = set(values)
    m = 0
    while m in seen:
        m += 1
    return m


def mex_mask(mask: int) -> int:
    """:func:`mex` of the set whose members are the 1-bits of ``mask``.

    >>> mex_mask(0b1011)
    2
    """
    return (~mask & (mask + 1)).bit_length() - 1


def nim_sum(values: Iterable[int]) -> int:
    """The XOR of ``values``: the Grundy number of a sum of games.

    >>> nim_sum([1, 2, 3])
    0
    """
    return reduce(xor, values, 0)
