"""Nim arithmetic: the nim product and inverse, and the ``*n`` notation of nimbers.

The nimbers (the values of Nim heaps) form a field of characteristic 2 under the
nim sum ⊕ (:func:`~sdg_automata.games.mex.nim_sum`, the XOR) and the nim product
⊗ (Conway, *On Numbers and Games*, ch. 6).  Below 2^(2^k) they form the field
GF(2^(2^k)), whose arithmetic is built from the Fermat 2-powers F = 2^(2^j):
F ⊗ x = F·x for x < F (an ordinary product) and F ⊗ F = 3F/2.  So for
x = a·F ⊕ b and y = c·F ⊕ d with a, b, c, d < F,

    x ⊗ y = (a⊗c ⊕ a⊗d ⊕ b⊗c)·F ⊕ (b⊗d ⊕ (a⊗c) ⊗ F/2),

and the middle term is (a⊕b)⊗(c⊕d) ⊕ a⊗c ⊕ b⊗d, so three half-size products
do (as in Karatsuba's method).  The inverse of x ≠ 0 in GF(2^(2^k)) is
x^(2^(2^k) − 2).

:func:`star` writes a nimber as combinatorial game theorists (and CGSuite) do:
``0``, ``*``, ``*2``, ….

References
----------
.. [1] J. H. Conway, *On Numbers and Games*, 2nd ed., A K Peters 2001, ch. 6
   ("The curious field On₂").
.. [2] E. R. Berlekamp, J. H. Conway, R. K. Guy, *Winning Ways for your
   Mathematical Plays*, 2nd ed., vol. 1, ch. 14 (nim multiplication tables).
"""

from __future__ import annotations

from functools import cache

from ..errors import InputError

__all__ = ["nim_inverse", "nim_power", "nim_product", "star"]

#: products of operands below this are read from a table (built on first use)
_SMALL_BITS = 8


def _natural(x: object, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or x < 0:
        raise InputError(f"{what} must be a natural number (a nimber), not {x!r}")
    return x


def _field_bits(x: int) -> int:
    """The least 2^k with x < 2^(2^k): the size in bits of the smallest nim field holding x."""
    bits = 1
    while x >> bits:
        bits <<= 1
    return bits


@cache
def _small_table() -> tuple[tuple[int, ...], ...]:
    size = 1 << _SMALL_BITS
    return tuple(tuple(_product(a, b, _SMALL_BITS) for b in range(size)) for a in range(size))


def _product(x: int, y: int, bits: int) -> int:
    """x ⊗ y for x, y < 2^bits, bits a power of two (the recursion of the module docstring)."""
    if x < 2 or y < 2:
        return x * y
    if bits <= _SMALL_BITS and _small_table.cache_info().currsize:
        return _small_table()[x][y]
    half = bits >> 1
    mask = (1 << half) - 1
    a, b, c, d = x >> half, x & mask, y >> half, y & mask
    ac = _product(a, c, half)
    bd = _product(b, d, half)
    middle = _product(a ^ b, c ^ d, half) ^ bd  # = a⊗c ⊕ a⊗d ⊕ b⊗c
    # F ⊗ F = F ⊕ F/2, so a⊗c·F⊗F contributes a⊗c·F and (a⊗c) ⊗ F/2
    return (middle << half) | (bd ^ _product(ac, 1 << (half - 1), half))


def nim_product(x: int, y: int) -> int:
    """The nim product x ⊗ y (Conway, ONAG ch. 6).

    Parameters
    ----------
    x, y:
        Natural numbers (nimbers).

    Returns
    -------
    int
        x ⊗ y.  With the nim sum (XOR), ⊗ makes the naturals a field.

    Raises
    ------
    InputError
        For an argument that is not a natural number.

    Examples
    --------
    The squares of the Fermat 2-powers (F ⊗ F = 3F/2) and a small product:

    >>> [nim_product(f, f) for f in (2, 4, 16, 256)]
    [3, 6, 24, 384]
    >>> nim_product(8, 8), nim_product(3, 3)
    (13, 2)
    """
    x, y = _natural(x, "x"), _natural(y, "y")
    bits = _field_bits(max(x, y))
    if bits <= _SMALL_BITS:
        return _small_table()[x][y]
    return _product(x, y, bits)


def nim_power(x: int, e: int) -> int:
    """x ⊗ x ⊗ … ⊗ x (``e`` times; 1 for e = 0), by repeated squaring.

    >>> nim_power(2, 3)  # 2 ⊗ 2 = 3, 3 ⊗ 2 = 1: 2 generates GF(4)*
    1
    """
    x, e = _natural(x, "x"), _natural(e, "the exponent")
    result = 1
    while e:
        if e & 1:
            result = nim_product(result, x)
        x = nim_product(x, x)
        e >>= 1
    return result


def nim_inverse(x: int) -> int:
    """The nim inverse of x ≠ 0: the y with x ⊗ y = 1.

    In the field GF(2^(2^k)) that holds x, y = x^(2^(2^k) − 2).

    Parameters
    ----------
    x:
        A non-zero natural number (nimber).

    Returns
    -------
    int
        The y with x ⊗ y = 1 (it lies in the same field GF(2^(2^k)) as x).

    Raises
    ------
    InputError
        For x = 0 (no inverse) or an argument that is not a natural number.

    Examples
    --------
    >>> nim_inverse(2), nim_product(2, nim_inverse(2))
    (3, 1)
    >>> [nim_inverse(x) for x in range(1, 8)]
    [1, 3, 2, 15, 12, 9, 11]
    """
    x = _natural(x, "x")
    if x == 0:
        raise InputError("0 has no nim inverse")
    return nim_power(x, (1 << _field_bits(x)) - 2)


def star(n: int) -> str:
    """A nimber as game theorists write it: ``0``, ``*``, ``*2``, ``*3``, ….

    >>> [star(n) for n in range(4)]
    ['0', '*', '*2', '*3']
    """
    n = _natural(n, "a nimber")
    return "0" if n == 0 else "*" if n == 1 else f"*{n}"
