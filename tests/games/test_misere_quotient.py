"""Misère quotients (sdg_automata.games.misere) against brute force (issue 37 §1, §2, §6).

The oracle is written here from the rules alone: the misère outcome of a multiset of
heaps by memoized recursion (a position with no move is won by the player to move).
Every sum of up to four heaps of the bound is compared with the quotient's outcome,
for many codes, octal and hexadecimal.  Published anchors: CGSuite's test suite
(``GameHeapTest.scala``): the misère nim values of the heaps of Kayles (0.77),
Dawson's Kayles (0.07) and 0.3F — a heap is a misère P-position exactly when its
misère nim value is 0.  Certificates: ``certify`` proves a quotient a second time from
its JSON output and the rules alone (a naive search from the definitions), and misère
Nim's quotient is Bouton's rule.  The published quotients (Plambeck 2005, Plambeck–Siegel
2008) could not be read here (docs/misere.md §6).
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import operator
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdg_automata import misere_quotient
from sdg_automata.errors import BudgetExceeded, InputError
from sdg_automata.games.misere import GraphFamily, MisereQuotient
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


def test_misere_nim_is_bouton_s_quotient() -> None:
    # Bouton's misère rule gives Nim's quotient: a position is its pair (nim sum, whether a
    # heap ≥ 2 is present), the pairs (x, big) with x ≤ 1 when not big — heaps ≤ 7: 8 + 2
    # elements —, and the P-positions are (0, big) and (1, not big)
    q = misere_quotient("0.3333333", upto=7)
    assert q.size == 10 and q.stopped is None
    pair_of: dict[str, tuple[int, bool]] = {}
    for heaps in sums(7, most=4, total=28):
        x = functools.reduce(operator.xor, heaps, 0)
        big = any(h >= 2 for h in heaps)
        assert pair_of.setdefault(q.element(heaps), (x, big)) == (x, big)
        assert q.outcome(heaps) == ("P" if (x, big) in {(0, True), (1, False)} else "N")
    assert len(pair_of) == 10


def certify(q: MisereQuotient, digits: tuple[int, ...]) -> tuple[int, int]:
    """Prove the quotient from its JSON output and the rules alone; return its order and
    the size of its P-portion.

    The multiplication table must be a commutative monoid; heap n's class h(n) and the
    classes T(n) of its options give each position X the pair (Φ(X), T(X)), T(X) the
    classes of X's options, and adding a heap n maps (e, T) to (e·h(n), T·h(n) ∪ e·T(n)).
    Every pair reachable from (1, ∅) must have e ∈ P exactly when T ≠ ∅ and T ∩ P = ∅ —
    then, by induction on positions, X is a misère P-position iff Φ(X) ∈ P — and any two
    elements must be told apart by some z (xz ∈ P, yz ∉ P): then Φ's classes are the
    indistinguishability classes, and the order is the quotient's, for the heaps ≤
    ``q.proven_to``.  A naive search written from the definitions (Plambeck–Siegel 2008,
    §2), sharing nothing with the library's proof but its output."""
    data = q.to_json(table_limit=q.size)
    index = {name: i for i, name in enumerate(data["elements"])}
    table, size, one = data["table"], len(index), index["1"]
    p = {index[name] for name in data["p_portion"]}
    every = range(size)
    assert all(table[one][x] == x for x in every)
    assert all(table[x][y] == table[y][x] for x in every for y in every)
    assert all(table[table[x][y]][z] == table[x][table[y][z]]
               for x in every for y in every for z in every)
    heap = [one] + [index[q.element([n], ascii=True)] for n in range(1, q.proven_to + 1)]

    def cls(heaps: tuple[int, ...]) -> int:
        return functools.reduce(lambda x, h: table[x][heap[h]], heaps, one)

    letters = {(heap[n], frozenset(cls(m) for m in heap_moves(digits, n)))
               for n in range(1, q.proven_to + 1)}
    seen = {(one, frozenset[int]())}
    todo = list(seen)
    while todo:
        e, t = todo.pop()
        assert (e in p) == (bool(t) and not t & p), (q.name, e, sorted(t))
        for h, th in letters:
            step = (table[e][h], frozenset([table[x][h] for x in t] + [table[e][x] for x in th]))
            if step not in seen:
                seen.add(step)
                todo.append(step)
    assert {e for e, _ in seen} == set(every)  # the heaps generate the monoid
    for x, y in itertools.combinations(every, 2):
        assert any((table[x][z] in p) != (table[y][z] in p) for z in every), (x, y)
    return size, len(p)


#: (code, heaps): the order and P-portion size docs/misere.md states, proven by certify
CERTIFIED = [("0.77", 100, 40, 9), ("0.75", 100, 8, 2), ("0.31", 100, 6, 2),
             ("0.07", 24, 24, 5)]


@pytest.mark.parametrize(("code", "upto", "order", "p_size"), CERTIFIED,
                         ids=[c[0] for c in CERTIFIED])
def test_quotients_are_certified_from_their_json(code: str, upto: int, order: int,
                                                 p_size: int) -> None:
    q = misere_quotient(code, upto=upto)
    assert q.proven_to == upto
    assert certify(q, OctalGame.parse(code).digits) == (order, p_size)


def test_certify_rejects_a_wrong_quotient() -> None:
    # Kayles' quotient with heap 5's class given to heap 6: the search finds a position
    # whose class says P where the rules say N, or the converse
    q = misere_quotient("0.77", upto=12)
    wrong = dataclasses.replace(q, letter_of=q.letter_of[:5] + (q.letter_of[4],)
                                + q.letter_of[6:])
    with pytest.raises(AssertionError):
        certify(wrong, OctalGame.parse("0.77").digits)


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
    with pytest.raises(BudgetExceeded, match=r"proven for (heaps 1–\d+|no heap) \(order") as e:
        misere_quotient("0.07", upto=200, budget=Budget(max_seconds=0.3))
    q = e.value.partial  # the quotient proven before the budget ran out, stated that far
    assert isinstance(q, MisereQuotient) and q.proven_to == e.value.explored < 200
    assert f"(order {q.size})" in str(e.value) and "budget" in (q.stopped or "")
    assert q.to_json()["proven_to"] == q.proven_to and len(q.history) == q.proven_to
    truth = brute_force((0, 7))
    for heaps in sums(min(q.proven_to, 12), most=3, total=24):
        assert q.outcome(heaps) == truth(heaps)


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
