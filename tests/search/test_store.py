"""The packed store of states (issue 11 §1) against Python's own set and list."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdg_automata.errors import InputError
from sdg_automata.search.packed import PackedStates


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 300).flatmap(
    lambda bits: st.tuples(st.just(bits), st.lists(st.integers(0, 2**bits - 1), max_size=3000))))
def test_packed_states_is_a_set_numbered_by_insertion(case):
    """Should answer like a set and number states like a list of first occurrences,
    through several doublings of its table."""
    bits, values = case
    store = PackedStates(bits)
    seen: set[int] = set()
    order: list[int] = []
    for q in values:
        assert (q in store) == (q in seen)
        assert store.add(q) == (q not in seen)
        if q not in seen:
            seen.add(q)
            order.append(q)
        assert len(store) == len(order)
    assert [store[n] for n in range(len(store))] == order
    assert all(q in store for q in seen)
    top = 2**bits - 1  # looking only: False when there, None when not, and nothing added
    assert store.add(top, insert=False) is (False if top in seen else None)
    assert len(store) == len(order)


def test_many_states_and_collisions_of_the_low_bits():
    """Should keep 50,000 states that agree on their low bytes (the table probes on)."""
    store = PackedStates(288)
    values = [(n << 200) | 0xFF for n in range(50_000)]
    assert all(store.add(q) for q in values)
    assert not any(store.add(q) for q in values)
    assert store[12_345] == values[12_345]
    assert (7 << 200) not in store
    assert len(store) == 50_000
    assert store.nbytes < 50_000 * 60  # 36-byte records, 4-byte hashes, the table


def test_bad_use():
    with pytest.raises(InputError, match="at least one bit"):
        PackedStates(0)
    store = PackedStates(8)
    with pytest.raises(OverflowError):
        store.add(256)  # wider than declared: refused, never stored cut short
    with pytest.raises(IndexError):
        store[0]
