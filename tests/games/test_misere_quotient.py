"""Misère quotients (sdg_automata.games.misere) against brute force (issue 37 §1, §2, §6).

The oracle is written here from the rules alone: the misère outcome of a multiset of
heaps by memoized recursion (a position with no move is won by the player to move).
Every sum of up to four heaps of the bound is compared with the quotient's outcome,
for many codes, octal and hexadecimal.  Published anchors: CGSuite's test suite
(``GameHeapTest.scala``): the misère nim values of the heaps of Kayles (0.77),
Dawson's Kayles (0.07) and 0.3F — a heap is a misère P-position exactly when its
misère nim value is 0.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdg_automata import misere_quotient
from sdg_automata.errors import BudgetExceeded, InputError
from sdg_automata.games.misere import GraphFamily
from sdg_automata.games.misere.monoid import Monoid
from sdg_automata.games.octal import OctalGame
from sdg_automata.runtime.budget import Budget

#: CGSuite, GameHeapTest: [R(n).MisereNimValue for n from 0 to 20]
CGSUITE_MISERE_NIM_VALUES = {
    "0.77": [1, 0, 2, 3, 0, 1, 3, 2, 1, 0, 2, 4, 0, 1, 2, 5, 1, 6, 3, 2, 0],
    "0.07": [1, 1, 0, 0, 2, 1, 3, 0, 0, 1, 1, 3, 0, 2, 1, 1, 0, 0, 2, 1, 3],
    "0.3F": [1, 0, 2, 1, 0, 2, 1, 0, 4, 1, 0, 4, 1, 0, 6, 1, 0, 6, 1, 0, 6],
}


def heap_moves(digits: tuple[int, ...], n: int) -> list[tuple[int, ...]]:
    """The heaps a move from a heap of n leaves, from the code's digits."""
    out: list[tuple[int, ...]] = []
    for k, d in enumerate(digits, 1):
        s = n - k
        if s < 0:
            continue
        if d & 1 and s == 0:
            out.append(())
        if d & 2 and s > 0:
            out.append((s,))
        if d & 4:
            out += [(a, s - a) for a in range(1, s)]
        if d & 8:
            out += [(a, b, s - a - b) for a in range(1, s) for b in range(1, s - a)]
    return out


def brute_force(digits: tuple[int, ...]) -> Callable[[tuple[int, ...]], str]:
    """The misère outcome of a sum of heaps, from the definition."""
    moves = functools.lru_cache(maxsize=None)(lambda n: heap_moves(digits, n))

    @functools.cache
    def wins(position: tuple[int, ...]) -> bool:
        some = False
        for i, h in enumerate(position):
            rest = position[:i] + position[i + 1:]
            for m in moves(h):
                some = True
                if not wins(tuple(sorted(rest + m))):
                    return True
        return not some  # no move at all: the player to move has won

    return lambda heaps: "N" if wins(tuple(sorted(h for h in heaps if h))) else "P"


def sums(bound: int, most: int = 4, total: int = 20) -> list[tuple[int, ...]]:
    return [c for k in range(most + 1)
            for c in itertools.combinations_with_replacement(range(1, bound + 1), k)
            if sum(c) <= total]


codes = st.lists(st.integers(0, 7), min_size=1, max_size=3).filter(lambda d: d[-1] != 0)
hex_codes = st.lists(st.integers(0, 15), min_size=1, max_size=2).filter(lambda d: d[-1] != 0)


@settings(max_examples=40)
@given(st.one_of(codes, hex_codes))
def test_every_small_sum_is_the_brute_force(digits: list[int]) -> None:
    game = OctalGame(digits=tuple(digits))
    # order ≤ 512 keeps each example quick (0.BB and 0.354 try covers of thousands first);
    # the outcomes are checked as far as the quotient is proven
    q = misere_quotient(game, upto=8, max_order=512)
    truth = brute_force(game.digits)
    for heaps in sums(q.proven_to):
        assert q.outcome(heaps) == truth(heaps), (game.code, heaps)
    # the quotient is reduced: distinct elements are told apart by some element
    table = q.monoid.table()
    rows = {tuple(q.p[table[x]].tolist()) for x in range(q.size)}
    assert len(rows) == q.size
    assert len(q.history) == q.proven_to and q.history[-1] == q.size


@pytest.mark.parametrize("code", ["0.77", "0.07", "0.137", "0.75", "0.26", "0.106", "0.36"])
def test_named_codes_to_twelve_heaps(code: str) -> None:
    q = misere_quotient(code, upto=12)
    assert q.proven_to == 12 and q.stopped is None
    truth = brute_force(OctalGame.parse(code).digits)
    for heaps in sums(12, most=4, total=24):
        assert q.outcome(heaps) == truth(heaps), (code, heaps)


def test_kayles_past_the_heap_its_quotient_settles() -> None:
    """Kayles' quotient keeps order 40 from heap 27 on (docs/misere.md §5): every sum of up
    to three heaps of total ≤ 36 — heaps past 27 — against brute force."""
    q = misere_quotient("0.77", upto=36)
    assert (q.size, q.stable_from, q.proven_to) == (40, 27, 36)
    truth = brute_force(OctalGame.parse("0.77").digits)
    for heaps in sums(36, most=3, total=36):
        assert q.outcome(heaps) == truth(heaps), heaps


@pytest.mark.parametrize("code", sorted(CGSUITE_MISERE_NIM_VALUES))
def test_single_heaps_are_cgsuites(code: str) -> None:
    q = misere_quotient(code, upto=20, max_order=512)
    values = CGSUITE_MISERE_NIM_VALUES[code]
    for n in range(1, q.proven_to + 1):
        assert q.outcome([n]) == ("P" if values[n] == 0 else "N"), (code, n)
    assert q.outcome([]) == "N"  # no heap at all: the player to move has won
    assert q.proven_to >= 10


def test_misere_nim_is_tame() -> None:
    # misère Nim with heaps 1 and 2 (Bouton): order 6, a² = 1, b³ = b, P = {a, b²}
    q = misere_quotient("0.33", upto=2)
    assert (q.size, q.relations, q.p_positions) == (6, ["a² = 1", "b³ = b"], ["a", "b²"])
    assert [g for g, _ in q.generators] == ["a", "b"]
    assert q.element([1, 2, 2]) == "ab²" and q.element([1, 2, 2], ascii=True) == "ab^2"
    assert q.table()[1][1] == "1"  # a·a
    data = q.to_json()
    assert data["order"] == 6 and data["relations"] == ["a^2 = 1", "b^3 = b"]


def test_the_presentation_holds_and_names_every_element() -> None:
    q = misere_quotient("0.75", upto=20)  # Plambeck's R8, checked here against brute force
    assert q.size == 8 and q.stable_from == 5
    assert len(set(q.elements)) == q.size and q.elements[0] == "1"
    heap_of = {name: int(component) for name, component in q.generators}

    def heaps(exponents: tuple[int, ...]) -> list[int]:
        return [heap_of[g] for (g, _), k in zip(q.generators, exponents, strict=True)
                for _ in range(k)]

    assert q._relations
    for lhs, rhs in q._relations:
        assert q.element(heaps(lhs)) == q.element(heaps(rhs))
    truth = brute_force((7, 5))
    for heaps_ in sums(20, most=3, total=30):
        assert q.outcome(heaps_) == truth(heaps_)


def test_outcomes_beyond_the_bound_are_refused() -> None:
    q = misere_quotient("0.77", upto=5)
    with pytest.raises(InputError, match="beyond"):
        q.outcome([6])
    with pytest.raises(InputError):
        misere_quotient("0.77")  # no upto
    with pytest.raises(InputError):
        misere_quotient("0.77", upto=0)


def test_a_growing_quotient_is_stated_only_as_far_as_proven() -> None:
    q = misere_quotient("0.3F", upto=14, max_order=64)
    assert q.stopped is not None and "outgrow the order limit 64" in q.stopped
    assert q.proven_to < 14 and q.size <= 64
    assert list(q.history) == sorted(q.history)  # orders only grow
    truth = brute_force((3, 15))
    for heaps in sums(q.proven_to, most=3, total=16):
        assert q.outcome(heaps) == truth(heaps)


def test_the_time_budget_says_how_far() -> None:
    with pytest.raises(BudgetExceeded, match="proven for the first"):
        misere_quotient("0.07", upto=200, budget=Budget(max_seconds=0.3))


# -- the other families ------------------------------------------------------------------


def graph_outcome(graph: dict[str, list[str]]) -> Callable[[tuple[str, ...]], str]:
    @functools.cache
    def wins(position: tuple[str, ...]) -> bool:
        some = False
        for i, p in enumerate(position):
            for f in graph.get(p, []):
                some = True
                if not wins(tuple(sorted(position[:i] + (f,) + position[i + 1:]))):
                    return True
        return not some

    return lambda parts: "N" if wins(tuple(sorted(parts))) else "P"


@settings(max_examples=30)
@given(st.integers(2, 7).flatmap(lambda n: st.lists(
    st.lists(st.integers(0, n - 1), max_size=3), min_size=n, max_size=n)))
def test_game_graph_sums_are_the_brute_force(children: list[list[int]]) -> None:
    # position i moves to positions j < i only: acyclic
    graph = {f"p{i}": sorted({f"p{j % i}" for j in kids}) if i else []
             for i, kids in enumerate(children)}
    q = misere_quotient(GraphFamily(graph=graph))
    truth = graph_outcome(graph)
    for k in range(4):
        for parts in itertools.combinations_with_replacement(sorted(graph), k):
            assert q.outcome(parts) == truth(parts), parts


def test_monoid_reduction_and_presentation() -> None:
    # Z/2 × ⟨z | z⁴ = z²⟩ reduced by P = {a}: 1 and a stay apart, every zᵏ-multiple
    # (never in P, whatever it is multiplied by) is one class
    import numpy as np

    from sdg_automata.games.misere.monoid import cyclic_product

    base = Monoid.from_table(np.array([[1], [0]]))
    m, z = cyclic_product(base, 2, 2)
    assert (m.size, z) == (8, 1)
    p = np.zeros(m.size, dtype=bool)
    p[m.element([0])] = True
    reduced, rp, classes = m.reduce(p)
    assert reduced.size == 3 and rp.tolist() == [False, True, False]
    assert classes[m.element([1])] == classes[m.element([0, 1, 1, 1])]
    words, relations = m.presentation([0, 1])
    assert ((2, 0), (0, 0)) in relations and ((0, 4), (0, 2)) in relations
