"""Grundy arithmetic: the minimum excludant and the nim sum (SPEC §2, §7).

The two operations every Grundy computation of the package is built from: a
position's Grundy number is the :func:`mex` of its followers' numbers, and a sum
of games has the :func:`nim_sum` (XOR) of its components' numbers.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import reduce
from operator import xor

__all__ = ["mex", "mex_mask", "nim_sum"]


def mex(values: Iterable[int]) -> int:
    """The minimum excludant: the least natural number not in ``values`` (SPEC §2).

    Parameters
    ----------
    values:
        Natural numbers, in any order, repeats allowed (the followers' Grundy
        numbers); numbers that are not naturals are ignored.

    Returns
    -------
    int
        The least n ≥ 0 not in ``values``: the Grundy number of a position whose
        followers have these numbers.

    Examples
    --------
    >>> mex([0, 1, 3])
    2
    >>> mex([])
    0
    >>> mex(range(5))  # a Nim heap of 5 moves to heaps 0..4
    5
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
    """The XOR of ``values``: the Grundy number of a sum of games (SPEC §7).

    Parameters
    ----------
    values:
        Grundy numbers of the components.

    Returns
    -------
    int
        Their bitwise XOR; 0 for no values.  A sum is a P-position (the player
        to move loses) iff it is 0.

    Examples
    --------
    >>> nim_sum([1, 2, 3])
    0
    >>> nim_sum([3, 5, 7])  # Nim with heaps 3, 5, 7: an N-position
    1
    """
    return reduce(xor, values, 0)
