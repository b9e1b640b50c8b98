"""Nim arithmetic (sdg_automata.games.nim) against Conway's definition and the field axioms.

The oracle is the definition of the nim product itself (ONAG ch. 6),

    x ⊗ y = mex{ (x'⊗y) ⊕ (x⊗y') ⊕ (x'⊗y') : x' < x, y' < y },

tabulated here from scratch; the library's product is Karatsuba-style recursion on the
Fermat 2-powers, a different computation.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

import sdg_automata
from sdg_automata.errors import InputError
from sdg_automata.games.nim import nim_inverse, nim_power, nim_product, star

SIZE = 16


def _definition_table(size: int) -> list[list[int]]:
    table = [[0] * size for _ in range(size)]
    for x in range(size):
        for y in range(size):
            seen = {table[a][y] ^ table[x][b] ^ table[a][b] for a in range(x) for b in range(y)}
            v = 0
            while v in seen:
                v += 1
            table[x][y] = v
    return table


def test_the_product_is_the_definition_below_16() -> None:
    table = _definition_table(SIZE)
    assert [[nim_product(x, y) for y in range(SIZE)] for x in range(SIZE)] == table


def test_conways_small_table() -> None:
    # ONAG ch. 6: the squares of the Fermat 2-powers are 3F/2, and 8 ⊗ 8 = 13
    assert nim_product(2, 2) == 3
    assert nim_product(4, 4) == 6
    assert nim_product(8, 8) == 13
    assert nim_product(16, 16) == 24
    assert nim_product(1 << 32, 1 << 32) == 3 << 31
    # F ⊗ x = F·x for x < F
    assert nim_product(16, 11) == 176


nimbers = st.one_of(st.integers(0, 255), st.integers(0, (1 << 64) - 1), st.integers(0, 1 << 130))


@given(nimbers, nimbers, nimbers)
def test_field_axioms(x: int, y: int, z: int) -> None:
    assert nim_product(x, y) == nim_product(y, x)
    assert nim_product(x, nim_product(y, z)) == nim_product(nim_product(x, y), z)
    assert nim_product(x, y ^ z) == nim_product(x, y) ^ nim_product(x, z)
    assert nim_product(x, 1) == x and nim_product(x, 0) == 0
    if x:
        assert nim_product(x, nim_inverse(x)) == 1


@given(st.integers(1, (1 << 64) - 1))
def test_frobenius_and_the_multiplicative_group(x: int) -> None:
    # squaring is additive in characteristic 2, and x^(2^64 - 1) = 1 in GF(2^64)*
    assert nim_product(x ^ 5, x ^ 5) == nim_product(x, x) ^ nim_product(5, 5)
    assert nim_power(x, (1 << 64) - 1) == 1


def test_bad_arguments_are_input_errors() -> None:
    with pytest.raises(InputError, match="0 has no nim inverse"):
        nim_inverse(0)
    for bad in (-1, 1.5, True, "3"):
        with pytest.raises(InputError, match="natural number"):
            nim_product(bad, 2)  # type: ignore[arg-type]


def test_star_notation_and_the_package_root() -> None:
    assert [star(n) for n in (0, 1, 2, 42)] == ["0", "*", "*2", "*42"]
    assert sdg_automata.nim_product is nim_product
    assert sdg_automata.nim_inverse is nim_inverse
    assert sdg_automata.nim_sum([3, 5, 7]) == 1
