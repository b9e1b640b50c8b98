"""The packed table store (issue 36): the breadth-first walk over one-word keys against the
walk over records, and its table (in-place growth, re-encoding, sizing from the bound).

Truths used here, none of them the code under test:

* the record store's walk (:func:`sdg_automata.kernels.automaton.bfs`, run by making the
  packed walk refuse: the fallback of keys too wide): the same states numbered the same,
  the same tree (``parent``/``via`` of every state), the same first states of the values;
* the Python reference (``engine="python"``), the Chinese remainder theorem
  (``families.modular_truth``) and automata-lib's products (``families.product_truth``);
* a Python ``set`` of the keys, and the linear-probing invariant written out in Python
  (every key is found from its home before a free slot).
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import right_linear_grammars

from sdg_automata.errors import BudgetExceeded, EngineNotice, InputError
from sdg_automata.generators.families import (
    ModularSpec,
    intersection_grammar,
    modular_family,
    modular_truth,
    product_truth,
    random_family,
)
from sdg_automata.grammar import Grammar
from sdg_automata.search.decide import max_grundy

pytest.importorskip("numba")

import numpy as np  # noqa: E402  (after the skip: numpy comes with numba here)

from sdg_automata.automaton.construction import GrundyAutomaton  # noqa: E402
from sdg_automata.kernels import packed as kernel  # noqa: E402
from sdg_automata.kernels import protocol  # noqa: E402
from sdg_automata.runtime.budget import Budget  # noqa: E402
from sdg_automata.search.compiled import drive, packed, stores  # noqa: E402
from sdg_automata.search.compiled.tables import StepTables  # noqa: E402

FAST = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------------------
# the table


def _table(q: int, m: int, tail: int = protocol.TAIL) -> tuple[Any, Any]:
    form = np.array([q, m], dtype=np.int64)
    return np.zeros((m << q) + tail, dtype=np.uint64), form


def _holds_exactly(table: Any, form: Any, keys: set[int]) -> None:
    """The table holds ``keys`` once each, each reachable from its home by linear probing."""
    stored = table[table != 0] - np.uint64(1)
    assert sorted(int(k) for k in stored) == sorted(keys)
    for key in keys:
        slot = int(kernel.home(np.uint64(kernel.key_hash(np.uint64(key))), form))
        while int(table[slot]) != key + 1:
            assert table[slot] != 0, key  # a free slot before the key: lost to lookups
            slot += 1


@settings(max_examples=100, deadline=None)
@given(q=st.integers(1, 6), m=st.integers(4, 7), fill=st.floats(0, 0.85),
       steps=st.lists(st.tuples(st.integers(0, 2), st.integers(4, 7)), min_size=1, max_size=4),
       bits=st.integers(1, 63), seed=st.integers(0, 2**32 - 1))
def test_growth_in_place_loses_no_key(q: int, m: int, fill: float,
                                      steps: list[tuple[int, int]], bits: int,
                                      seed: int) -> None:
    """``spread`` into larger tables (by less than doubling, or by several doublings), from
    tables full up to the load, keys of 1 to 63 bits (the widest: key + 1 < 2⁶⁴)."""
    rng = np.random.default_rng(seed)
    table, form = _table(q, m)
    count = min(int((m << q) * fill), 1 << bits)
    keys = {int(k) for k in rng.integers(0, 1 << bits, size=count, dtype=np.uint64)}
    if bits <= 8:
        keys |= {(1 << bits) - 1, 0}
    keys = set(list(keys)[: ((m << q) * 85) // 100])
    order = np.array(sorted(keys), dtype=np.uint64)
    assert kernel.insert_keys(table, form, order, len(order)) == len(order)
    _holds_exactly(table, form, keys)
    for dq, m2 in steps:
        q2 = q + dq
        if (m2 << q2) <= (m << q):
            continue
        grown = np.zeros((m2 << q2) + protocol.TAIL, dtype=np.uint64)
        grown[:len(table)] = table
        old_end, table, q, m = len(table), grown, q2, m2
        form = np.array([q, m], dtype=np.int64)
        assert kernel.spread(table, old_end, form, np.empty(64, dtype=np.uint64)) == 0
        _holds_exactly(table, form, keys)


def test_a_growth_that_cannot_finish_leaves_every_key_once() -> None:
    """A stash too small, or a cluster running past a short tail: ``spread`` says how many
    keys it holds aside, and the table and the stash hold every key once."""
    rng = np.random.default_rng(7)
    keys = {int(k) for k in rng.integers(0, 1 << 40, size=3000, dtype=np.uint64)}
    for stash_size, tail in ((0, protocol.TAIL), (1, protocol.TAIL), (2, 3)):
        table, form = _table(10, 4, tail)  # 4,096 homes, 3,000 keys: 73 %
        order = np.array(sorted(keys), dtype=np.uint64)
        inserted = kernel.insert_keys(table, form, order, len(order))
        kept = set(list(map(int, order[:inserted])))
        grown = np.zeros((5 << 10) + tail, dtype=np.uint64)
        grown[:len(table)] = table
        stash = np.empty(stash_size, dtype=np.uint64)
        left = kernel.spread(grown, len(table), np.array([10, 5], dtype=np.int64), stash)
        held = [] if left >= 0 else [int(k) for k in stash[:-1 - left]]
        stored = [int(k) for k in grown[grown != 0] - np.uint64(1)]
        assert sorted(stored + held) == sorted(kept)


@given(widths=st.lists(st.integers(1, 12), min_size=1, max_size=6)
       .filter(lambda w: sum(w) <= protocol.KEY_BITS),  # key_widths refuses wider ones
       seed=st.integers(0, 10**6))
def test_keys_unpack_to_their_ids(widths: list[int], seed: int) -> None:
    """Ids packed by their widths into one key (of at most ``KEY_BITS``) unpack unchanged."""
    shifts, masks = packed._fields(widths)
    rng = np.random.default_rng(seed)
    ids = np.array([[int(rng.integers(0, 1 << w)) for w in widths]], dtype=np.int32)
    key = kernel.pack(ids, 0, shifts)
    out = np.zeros_like(ids)
    kernel.unpack(np.uint64(key), shifts, masks, out, 0)
    assert out.tolist() == ids.tolist()
    assert int(key) < 1 << sum(widths)


def test_key_widths_leave_room_and_refuse_more_than_a_word() -> None:
    w = packed.key_widths([3, 100, 1], [5])
    assert w[3] == 3 and all(a >= b for a, b in zip(w, [2, 7, 1], strict=False))
    assert sum(w) <= protocol.KEY_BITS
    assert packed.key_widths([3], [], old=[9]) >= [9]
    with pytest.raises(stores.KeyTooWide, match="64 bits, over the packed key's 63"):
        packed.key_widths([1 << 32, 1 << 32], [])


@pytest.mark.parametrize("states", [0, 1, 3480, 3481, 10**6, 12_345_678])
def test_the_table_for_a_bound_holds_it_below_the_load(states: int) -> None:
    q, m = packed.slots_for(states)
    assert 4 <= m <= 7 and ((m << q) * packed.LOAD_PERCENT) // 100 > states
    smaller = (m - 1 << q) if m > 4 else (7 << (q - 1))
    assert q == 10 or (smaller * packed.LOAD_PERCENT) // 100 <= states


# ---------------------------------------------------------------------------
# the walk


def _walks(g: Grammar, monkeypatch: pytest.MonkeyPatch, **kw: Any) -> dict[str, Any]:
    """The packed walk and the record walk of ``g``'s automaton from its start: states,
    completeness, found, and the tree of every state."""
    tables = StepTables(GrundyAutomaton(g))
    head = g.start
    out = {}
    for kind in ("packed", "records"):
        with monkeypatch.context() as m:
            if kind == "records":
                def refuse(*args: Any, **kwargs: Any) -> Any:
                    raise stores.KeyTooWide("the record store, for the comparison")

                m.setattr(drive, "_packed_breadth_first", refuse)
            bound = GrundyAutomaton(g).bounds[head]
            w = drive.breadth_first(tables, Budget(), head=head, bound=bound,
                                    settle=kw.get("settle", bound + 1))
        assert w.store is not None and w.store.parent is not None and w.store.via is not None
        assert isinstance(w.store, packed.PackedStore) == (kind == "packed")
        n = w.states
        out[kind] = (n, w.complete, w.found, w.store.parent.array[1:n].tolist(),
                     w.store.via.array[1:n].tolist())
        w.store.close()
    return out


@FAST
@given(right_linear_grammars(), st.integers(-1, 3))
def test_the_packed_walk_is_the_record_walk(g: Grammar, settle: int) -> None:
    """Same states, same numbers, same tree and first states, stopping at the same value."""
    with pytest.MonkeyPatch.context() as monkeypatch, warnings.catch_warnings():
        warnings.simplefilter("ignore", EngineNotice)
        if GrundyAutomaton(g).layout is None:  # one group: no kernel walk
            return
        walks = _walks(g, monkeypatch, settle=settle)
    assert walks["packed"] == walks["records"]


@settings(max_examples=8, deadline=None)
@given(count=st.integers(2, 3), states=st.integers(3, 12), seed=st.integers(0, 10**6))
def test_random_dfas_against_the_products(count: int, states: int, seed: int) -> None:
    dfas = random_family(count, states, seed=seed)
    maximum, length = product_truth(dfas)
    try:
        g = intersection_grammar(dfas)
    except InputError:  # no DFA accepts a non-empty word: nothing to search
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EngineNotice)  # one group: Python anyway
        v = max_grundy(g, "A", engine="compiled", strategy="bfs")
        p = max_grundy(g, "A", engine="python", strategy="bfs")
    assert (v.maximum, v.states, v.witnesses) == (p.maximum, p.states, p.witnesses)
    assert v.maximum == maximum
    if length is not None and v.witness is not None:
        assert len(str(v.witness)) == length


def test_small_rings_fields_without_room_and_a_small_stash(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """54,258 states with the ring from 1 key, fields re-encoded at every new id's bit, a
    stash of one key (each growth then rebuilds): the walk is the record walk's."""
    dfas = random_family(3, 12, seed=28)
    g = intersection_grammar(dfas)
    made: list[packed.PackedStore] = []
    original = packed.PackedStore.__init__

    def spy(self: packed.PackedStore, *args: Any, **kw: Any) -> None:
        original(self, *args, **kw)
        made.append(self)

    monkeypatch.setattr(packed.PackedStore, "__init__", spy)
    monkeypatch.setattr(packed, "FIRST_RING", 1)
    monkeypatch.setattr(packed, "MAX_SPARE", 0)
    monkeypatch.setattr(packed, "STASH", 1)
    walks = _walks(g, monkeypatch)
    assert walks["packed"] == walks["records"]
    assert walks["packed"][0] == 54258
    store = made[0]
    assert store.grown > 5 and store.rebuilt > 5 and store.queue.capacity > 1


@pytest.mark.parametrize("specs", ["3:0 5:2 7:3 11:5 13:1 3:1", "4:1 9:2 5:0 7:6 2:0"])
def test_the_hardness_family(specs: str) -> None:
    parsed = [ModularSpec.parse(s) for s in specs.split()]
    truth, length = modular_truth(parsed)
    v = max_grundy(modular_family(parsed), "A", engine="compiled", strategy="bfs")
    assert (v.maximum, v.exact, v.engine.store) == (truth, True, "table")
    assert length is None or len(v.witness or "") == length


def test_the_table_sized_from_the_bound_never_grows(monkeypatch: pytest.MonkeyPatch) -> None:
    """A state budget bounds the states: the table holds them all from the start (30,031
    states: the unsized table grows 4 times), the budget still exact."""
    g = modular_family([ModularSpec.parse(s) for s in "3:0 5:2 7:3 11:5 13:1 3:1".split()])
    grown: list[int] = []
    original = packed.PackedStore._grow

    def count(self: packed.PackedStore, n: int) -> None:
        grown.append(n)
        original(self, n)

    monkeypatch.setattr(packed.PackedStore, "_grow", count)
    free = max_grundy(g, "A", engine="compiled", strategy="bfs")
    assert free.states == 30031 and len(grown) >= 4
    grown.clear()
    for budget in (30031, 40000):
        v = max_grundy(g, "A", engine="compiled", strategy="bfs", max_states=budget)
        assert (v.maximum, v.states, v.witnesses) == (free.maximum, 30031, free.witnesses)
    with pytest.raises(BudgetExceeded, match="budget of 30030 states") as e:
        max_grundy(g, "A", engine="compiled", strategy="bfs", max_states=30030)
    assert e.value.explored == 30030
    assert grown == []
    # a bound whose table would not fit the memory available sizes nothing
    monkeypatch.setattr(packed, "_fits_memory", lambda slots: False)
    assert max_grundy(g, "A", engine="compiled", strategy="bfs", max_states=40000).states \
        == 30031
    assert len(grown) >= 4


def test_keys_too_wide_walk_on_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ids outgrowing a word mid-walk: the walk starts again on the record store (same
    answer, same states, the same meter)."""
    made: list[int] = []
    original = stores._Store.__init__

    def spy(self: stores._Store, *args: Any, **kw: Any) -> None:
        original(self, *args, **kw)
        made.append(1)

    monkeypatch.setattr(stores._Store, "__init__", spy)
    g = modular_family([ModularSpec.parse(s) for s in "3:0 5:2 7:3 11:5 3:1".split()])
    wide = max_grundy(g, "A", engine="compiled", strategy="bfs")
    assert made == []
    monkeypatch.setattr(protocol, "KEY_BITS", 14)  # the first ids fit, later ones do not
    v = max_grundy(g, "A", engine="compiled", strategy="bfs")
    assert made == [1]
    assert (v.maximum, v.states, v.witnesses) == (wide.maximum, 2311, wide.witnesses)
