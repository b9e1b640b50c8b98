"""The compact store (issue 27): the Cleary table kernels against a Python set, and the
compiled breadth-first search on it against the table store and the Python reference.

Truths used here, none of them the code under test:

* a Python ``set`` of the same keys: :func:`~sdg_automata.kernels.compact.admit` says
  "new" exactly when the key is not in it, and every key survives a growth or a
  re-encoding (:func:`~sdg_automata.kernels.compact.grow`, ``drain``);
* a table filled afresh with the same keys: a table grown in place is laid out the same,
  word for word (the layout is a function of the set of keys);
* the home of every key near a home's bounds, computed in Python's integers: the keys of
  a home are the interval from its base, at most 2^r of them;
* the table's bytes counted from its definition (blocks of 64 slots, 3 + r words each):
  the growth keeps to 6 bytes a key from 10⁷ keys on, where the keys are not too wide;
* the table store (``engine="compiled"``) and the Python reference (``engine="python"``):
  the same maximum, witnesses, states and early stops;
* the Chinese remainder theorem (``families.modular_truth``) and automata-lib's
  products (``families.product_truth``).
"""

from __future__ import annotations

import warnings

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import Definition, right_linear_grammars

from sdg_automata.errors import (
    BudgetExceeded,
    EngineNotice,
    InputError,
    Interrupted,
    ResourceError,
    SdgBug,
)
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

import numba  # noqa: E402  (after the skip)
import numpy as np  # noqa: E402  (after the skip: numpy comes with numba here)

from sdg_automata.kernels.compact import (  # noqa: E402
    _base,
    _bit,
    _put_bit,
    _rem,
    _set_rem,
    _shift_right,
    admit,
    admit_hash,
    drain,
    grow,
    key_of,
    rekey,
    scramble,
    unscramble,
)
from sdg_automata.kernels.protocol import KEYS_SHORT, STASH_SHORT  # noqa: E402
from sdg_automata.kernels.step import (  # noqa: E402
    highest,
    highest_reference,
    lowest,
    lowest_reference,
    popcount,
    popcount_reference,
)
from sdg_automata.search.compiled import drive, stores  # noqa: E402

FAST = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# ---------------------------------------------------------------------------
# the table


def _admit(t: stores._Cleary, record: tuple[int, ...]) -> bool:
    return bool(admit(t.slots, t.form, t.mix, np.uint64(key_of(np.array([record], np.int32), 0,
                                                               t.fields))))


def _records(widths: list[int], count: int, seed: int) -> list[tuple[int, ...]]:
    """``count`` records (repeats included) whose ids fill their fields, extremes first."""
    rng = np.random.default_rng(seed)
    extremes = [tuple(0 for _ in widths), tuple((1 << w) - 1 for w in widths)]
    drawn = [tuple(int(rng.integers(0, 1 << w)) for w in widths) for _ in range(count)]
    return extremes + drawn + drawn[: count // 3]  # a third met again


#: table sizes: whole blocks of 64 slots, powers of two or not
SIZES = st.integers(1, 12).map(lambda blocks: 64 * blocks) | st.sampled_from([256, 512])


@settings(max_examples=150, deadline=None)
@given(size=SIZES, widths=st.lists(st.integers(1, 9), min_size=1, max_size=5),
       fill=st.floats(0, 1), seed=st.integers(0, 2**32 - 1))
def test_the_table_is_a_set(size: int, widths: list[int], fill: float, seed: int) -> None:
    """New exactly when not seen, up to the load the drivers allow (``form[LOAD]``), for keys
    narrower than the table (one remainder bit) as for wider ones."""
    t = stores._Cleary(size, widths)
    seen: set[tuple[int, ...]] = set()
    for r in _records(widths, int(t.load * fill) * 2 + 2, seed):
        if len(seen) >= t.load:
            break
        assert _admit(t, r) == (r not in seen), (r, len(seen))
        seen.add(r)
    for r in seen:  # every key still there
        assert not _admit(t, r)


def _keys(t: stores._Cleary, fields: object = None) -> list[int]:
    """The table's keys (re-encoded to the shifts ``fields``), by ``drain``, a few at a time."""
    out, cursor, keys = np.empty(64, np.uint64), np.zeros(1, np.int64), []
    while cursor[0] < t.form[0]:
        got = drain(t.slots, t.form, t.mix, t.fields, t.field_widths,
                    t.fields if fields is None else fields, cursor, out)
        if got < 0:
            out = np.empty(2 * len(out), np.uint64)
            continue
        keys += out[:got].tolist()
    return keys


@settings(max_examples=60, deadline=None)
@given(widths=st.lists(st.integers(1, 9), min_size=1, max_size=5),
       steps=st.lists(st.tuples(st.integers(1, 40), st.lists(st.integers(0, 4), min_size=5,
                                                            max_size=5)),
                      min_size=1, max_size=5),
       reads=st.lists(st.tuples(st.integers(0, 200), st.integers(1, 64)), max_size=8),
       seed=st.integers(0, 2**32 - 1))
def test_the_spooled_frontier_reads_back_across_re_encodings(
        widths: list[int], steps: list[tuple[int, list[int]]],
        reads: list[tuple[int, int]], seed: int) -> None:
    """The frontier goes to its spool as keys in the table's layout of the moment
    (:meth:`CompactStore.push`); the layout widens between pushes (:meth:`fit`), and
    every range read back (:meth:`CompactStore.read`) is the records pushed, against a
    plain list of them."""
    import random

    rng = random.Random(seed)
    store = stores.CompactStore([(1 << w) - 1 for w in widths], 2, q=6)
    pushed: list[tuple[int, ...]] = []
    released = 0
    try:
        for count, widen in steps:
            w = store.table.widths
            rows = np.array([[rng.randrange(1 << b) for b in w] for _ in range(count)],
                            dtype=np.int32)
            store.push(rows, np.arange(count, dtype=np.int64))
            pushed += [tuple(r) for r in rows.tolist()]
            wider = [b + d for b, d in zip(w, widen, strict=False)]
            if sum(wider) <= 64:  # (wider keys are refused: tested below)
                store.fit([(1 << b) - 1 for b in wider], 0)
            for first, size in reads:
                first = released + first % (len(pushed) - released)
                out = np.full((size, len(widths)), -1, dtype=np.int32)
                got = store.read(first, out)
                assert got == min(size, len(pushed) - first)
                assert [tuple(r) for r in out[:got].tolist()] == pushed[first:first + got]
            # release up to a random row, or just before or at a layout's first row (the
            # boundary where the layout before it is still needed, or no longer), then read
            # from there
            starts = [a for a, _, _ in store.layouts if released < a - 1 < len(pushed)]
            released = rng.choice([rng.randrange(released, len(pushed)),
                                   *(a - 1 for a in starts), *(a for a in starts
                                                               if a < len(pushed))])
            store.release(released)
            out = np.full((len(pushed) - released, len(widths)), -1, dtype=np.int32)
            assert store.read(released, out) == len(pushed) - released
            assert [tuple(r) for r in out.tolist()] == pushed[released:]
    finally:
        store.close()


@settings(max_examples=150, deadline=None)
@given(q=st.integers(6, 8), widths=st.lists(st.integers(1, 7), min_size=1, max_size=4),
       grow=st.integers(0, 2), widen=st.lists(st.integers(0, 3), min_size=4, max_size=4),
       fill=st.floats(0, 1), seed=st.integers(0, 2**32 - 1))
def test_growth_and_re_encoding_lose_no_key(q: int, widths: list[int], grow: int,
                                            widen: list[int], fill: float, seed: int) -> None:
    """The store's two moves: doubling (in place, or through the spool when the keys are
    as narrow as the quotient) and re-encoding to wider fields."""
    store = stores.CompactStore([(1 << w) - 1 for w in widths], 2, q=q)
    t = store.table
    seen: set[tuple[int, ...]] = set()
    for r in _records(widths, int(t.load * fill), seed):
        if len(seen) < t.load:
            _admit(t, r)
            seen.add(r)
    assert sorted(_keys(t)) == sorted(int(key_of(np.array([r], np.int32), 0, t.fields))
                                      for r in seen)
    if grow:  # one key more than 2^(q + grow - 1) slots take
        store.make_room(len(seen), (1 << (q + grow - 1)) * stores.COMPACT_LOAD_PERCENT // 100
                        + 1 - len(seen))
    wider = [w + d for w, d in zip(widths, widen, strict=False)]
    store.fit([(1 << w) - 1 for w in wider], len(seen))
    u = store.table
    assert u.size == 1 << (q + grow) and u.widths == wider  # (small tables double)
    for r in seen:
        assert not _admit(u, r)
    fresh = tuple((1 << w) - 1 for w in wider)  # a key only the wider fields can hold
    if fresh not in seen and len(seen) < u.load:
        assert _admit(u, fresh)
    store.close()


def _crowded(size: int, kbits: int, count: int, ends: float, seed: int) -> set[int]:
    """``count`` distinct scrambled keys for ``size`` slots, a share ``ends`` of them homed
    in the first and last eighth of the table (clusters around the end and in the first
    blocks, which the growth sets aside)."""
    rng = np.random.default_rng(seed)
    out: set[int] = set()
    while len(out) < min(count, 1 << (kbits - 2)):
        h = int(rng.integers(0, 1 << kbits, dtype=np.uint64))
        if rng.random() < ends:
            h = h >> 3 if rng.random() < 0.5 else (1 << kbits) - 1 - (h >> 3)
        out.add(h)
    return out


def _in_place(size: int, new: int, kbits: int) -> bool:
    """Whether a table of ``size`` slots can grow to ``new`` in place: its new blocks end
    past the old ones (what :func:`stores._next_size` keeps to)."""
    old_block, new_block = (3 + stores._remainder_bits(s, kbits) for s in (size, new))
    return new * new_block > 1.05 * size * old_block


@settings(max_examples=150, deadline=None)
@given(blocks=st.integers(1, 40), g=st.floats(1.0, 2.0), extra=st.integers(2, 40),
       fill=st.floats(0, 1), ends=st.sampled_from([0.0, 0.3, 1.0]),
       seed=st.integers(0, 2**32 - 1))
def test_growing_in_place_lays_the_keys_as_a_fresh_table(blocks: int, g: float, extra: int,
                                                        fill: float, ends: float,
                                                        seed: int) -> None:
    """Grown in place by any factor, the table holds the same keys, word for word as a
    table of the new size filled with them afresh (in another order)."""
    size = 64 * blocks
    new = max(size + 64, stores._round64(size * g))
    kbits = size.bit_length() + extra
    assume(kbits <= 64 and new.bit_length() <= kbits and _in_place(size, new, kbits))
    t = stores._Cleary(size, [kbits])
    hs = _crowded(size, t.kbits, int(t.load * fill), ends, seed)
    for h in hs:
        assert admit_hash(t.slots, t.form, t.mix, np.uint64(h))
    assert t.grow(new) == len(hs)
    fresh = stores._Cleary(new, [kbits])
    for h in sorted(hs, reverse=True):
        admit_hash(fresh.slots, fresh.form, fresh.mix, np.uint64(h))
    assert np.array_equal(t.slots[:fresh.words], fresh.slots)
    for h in hs:
        assert not admit_hash(t.slots, t.form, t.mix, np.uint64(h))


@settings(max_examples=40, deadline=None)
@given(blocks=st.integers(16, 40), g=st.floats(1.1, 2.0), at=st.floats(0.3, 0.6),
       homes=st.integers(1, 40), pile=st.integers(130, 400), seed=st.integers(0, 2**32 - 1))
def test_growing_lays_clusters_many_blocks_long(blocks: int, g: float, at: float, homes: int,
                                                pile: int, seed: int) -> None:
    """A pile of keys on a few homes in the middle of a sparse table: a cluster two to
    six blocks long, whose last runs' homes are blocks behind their keys (the growth
    computes their bases apart); laid as a fresh table would be, word for word."""
    size, kbits = 64 * blocks, 40
    new = stores._round64(size * g)
    assume(_in_place(size, new, kbits))
    t = stores._Cleary(size, [kbits])
    rng = np.random.default_rng(seed)
    first = int(size * at)
    hs = set()
    for _ in range(pile):  # keys whose homes are first … first + homes − 1
        home = first + int(rng.integers(0, homes))
        base = int(_base(home, size, kbits))
        upper = int(_base(home + 1, size, kbits))
        hs.add(base + int(rng.integers(0, upper - base)))
    hs |= _crowded(size, kbits, size // 8, 0.0, seed)  # and a few elsewhere
    hs = set(list(hs)[:t.load])
    for h in hs:
        assert admit_hash(t.slots, t.form, t.mix, np.uint64(h))
    assert t.grow(new) == len(hs)
    fresh = stores._Cleary(new, [kbits])
    for h in hs:
        admit_hash(fresh.slots, fresh.form, fresh.mix, np.uint64(h))
    assert np.array_equal(t.slots[:fresh.words], fresh.slots)


@numba.njit
def _scans(x: np.uint64) -> tuple[int, int, int]:
    return popcount(x), highest(x), lowest(x)


@given(x=st.integers(1, 2**64 - 1))
def test_the_bit_scans_are_their_references_and_pythons(x: int) -> None:
    """LLVM's ctpop, ctlz and cttz, compiled, against the branchy references and Python's
    integers."""
    word = np.uint64(x)
    truth = (x.bit_count(), x.bit_length() - 1, (x & -x).bit_length() - 1)
    assert _scans(word) == truth
    with warnings.catch_warnings(), np.errstate(over="ignore"):
        warnings.simplefilter("ignore")
        assert (popcount_reference(word), highest_reference(word),
                lowest_reference(word)) == truth


@numba.njit
def _shift_slot_by_slot(slots: np.ndarray, blk: int, w: int, wmask: np.uint64, blocks: int,
                        s: int, e: int) -> None:
    """The shift the insertion did before it moved words: slot by slot, from the last."""
    size = blocks * 64
    j = e
    while j != s:
        i = j - 1 if j > 0 else size - 1
        _set_rem(slots, blk, w, wmask, j, _rem(slots, blk, w, wmask, i))
        _put_bit(slots, blk, 1, j, _bit(slots, blk, 1, i))
        _put_bit(slots, blk, 2, j, True)
        j = i


@settings(max_examples=300, deadline=None)
@given(blocks=st.integers(1, 6), w=st.integers(1, 58), data=st.data())
def test_an_insertion_moves_a_clusters_words_as_slot_by_slot(blocks: int, w: int,
                                                             data: st.DataObject) -> None:
    """Random words, a range [s, e) of slots (around the table, within a block or over
    several): the word-wise shift leaves the table as the slot-by-slot one does."""
    size, blk = 64 * blocks, 3 + w
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    words = rng.integers(0, 2**64, size=blocks * blk, dtype=np.uint64)
    s = data.draw(st.integers(0, size - 1))
    e = (s + data.draw(st.integers(1, size - 1))) % size
    wmask = np.uint64((1 << w) - 1)
    ours, theirs = words.copy(), words.copy()
    _shift_right(ours, blk, w, wmask, blocks, s, e)
    _shift_slot_by_slot(theirs, blk, w, wmask, blocks, s, e)
    for i in range(size):  # slot s is the caller's to write
        if i != s:
            assert int(_rem(ours, blk, w, wmask, i)) == int(_rem(theirs, blk, w, wmask, i))
    keep = ~np.uint64(0) ^ (np.uint64(1) << np.uint64(s & 63))
    for b in range(blocks):
        at = b * blk
        mask = keep if b == s >> 6 else ~np.uint64(0)
        assert ours[at] == theirs[at]  # the occupied bits stay
        assert ours[at + 1] & mask == theirs[at + 1] & mask
        assert ours[at + 2] & mask == theirs[at + 2] & mask


def _grow_raw(t: stores._Cleary, new: int, room: int, stash: int) -> tuple[int, object]:
    """:func:`grow` on ``t`` with buffers of ``room`` keys and ``stash`` set-aside keys:
    its result and the new geometry."""
    form, mix = t._shape(new)
    old_block, new_block = 3 + int(t.form[1]), 3 + int(form[1])
    g = new / t.size
    low = 64 * (int(np.ceil((new_block + old_block) / (g * new_block - old_block))) + 2)
    t.memory.grow((new >> 6) * new_block)
    return grow(t.slots, t.form, t.mix, form, mix, low, np.empty(room, np.uint64),
                np.empty(room, np.int64), np.empty(stash, np.uint64),
                np.empty(128, np.uint64)), (form, mix)


@settings(max_examples=60, deadline=None)
@given(blocks=st.integers(8, 60), g=st.floats(1.1, 2.0), room=st.integers(65, 400),
       ends=st.sampled_from([0.0, 0.3]), seed=st.integers(0, 2**32 - 1))
def test_growing_a_chunk_at_a_time(blocks: int, g: float, room: int, ends: float,
                                   seed: int) -> None:
    """Buffers of a few hundred keys: the keys are laid a chunk of clusters at a time,
    from the last, and the table is still a fresh one's, word for word; a buffer too
    short is refused before a word is written."""
    size, kbits = 64 * blocks, 40
    new = stores._round64(size * g)
    assume(_in_place(size, new, kbits))
    t = stores._Cleary(size, [kbits])
    hs = _crowded(size, kbits, t.load, ends, seed)
    for h in hs:
        admit_hash(t.slots, t.form, t.mix, np.uint64(h))
    while True:
        before = t.slots.copy()
        held, (form, mix) = _grow_raw(t, new, room, 4 * room)
        if held not in (KEYS_SHORT, STASH_SHORT):
            break
        assert np.array_equal(t.slots[:len(before)], before)
        room *= 2
    assert held == len(hs)
    t.form, t.mix = form, mix
    fresh = stores._Cleary(new, [kbits])
    for h in hs:
        admit_hash(fresh.slots, fresh.form, fresh.mix, np.uint64(h))
    assert np.array_equal(t.slots[:fresh.words], fresh.slots)


def test_growing_asks_for_room_before_writing() -> None:
    """Buffers too short for the set-aside keys or the longest cluster: refused before a
    word of the table is written (the store then retries with more room)."""
    t = stores._Cleary(1 << 10, [20])
    for h in sorted(_crowded(1 << 10, t.kbits, t.load, 0.3, 7)):
        admit_hash(t.slots, t.form, t.mix, np.uint64(h))
    for new in (1 << 11, 1216):
        for room, stash, code in [(64, 1 << 12, KEYS_SHORT), (1 << 12, 1, STASH_SHORT)]:
            u = stores._Cleary(1 << 10, [20])
            u.slots[:] = t.slots
            got, _ = _grow_raw(u, new, room, stash)
            assert got == code
            assert np.array_equal(u.slots[:t.words], t.slots[:t.words])


@given(size=st.integers(1, 1 << 26).map(lambda b: 64 * b), kbits=st.integers(7, 64),
       data=st.data())
def test_a_homes_keys_are_an_interval_from_its_base(size: int, kbits: int,
                                                    data: st.DataObject) -> None:
    """Home ⌊t·size / 2³²⌋ of the top 32 bits, in Python's integers: the base of a home
    is its least key (the key before it is the home before's), and the next home's base
    is at most 2^r further."""
    from sdg_automata.kernels.compact import _base, _home

    assume(size.bit_length() <= kbits)
    t = min(kbits, 32)

    def home(h: int) -> int:
        return ((h >> (kbits - t)) * size) >> t

    c = data.draw(st.integers(0, size - 1))
    base = int(_base(c, size, kbits))
    assert home(base) == c == int(_home(np.uint64(base), size, kbits))
    if c:
        assert home(base - 1) == c - 1
    upper = int(_base(c + 1, size, kbits)) if c + 1 < size else 1 << kbits
    assert upper - base <= 1 << stores._remainder_bits(size, kbits)
    assert home(upper - 1) == c


def _table_bytes(size: int, kbits: int) -> int:
    """Blocks of 64 slots, each 3 words of bits and r = K − ⌊log₂ size⌋ of remainders."""
    return size // 64 * (3 + kbits - (size.bit_length() - 1)) * 8


@pytest.mark.parametrize("kbits", [40, 43, 46, 52, 55, 56])
def test_the_growth_keeps_to_six_bytes_a_key_from_ten_million(kbits: int) -> None:
    """The keys of the benchmarks' instances (40 to 56 bits): grown when full (80 %, or 86 %
    where the target sets the growth) from 2¹² slots to 10⁹ keys, the table never takes
    more than 6 bytes a key once it holds 10⁷ (nor more than 6·10⁷ bytes before), and it
    doubles while that allows."""
    size, worst = 1 << 12, 0.0
    while size * 0.8 < 1e9:
        percent = stores._load_percent(size, kbits)
        n = size * percent // 100
        new = stores._next_size(size, kbits, n)
        assert size < new <= 2 * size and new % 64 == 0
        if percent == stores.COMPACT_LOAD_PERCENT:  # filled to 80 % only where it then doubles
            assert new == 2 * size
        else:
            assert percent == stores.COMPACT_FULL_PERCENT
            assert _table_bytes(2 * size, kbits) > 6 * max(size * 8 // 10, 10**7)
        assert _in_place(size, new, kbits)
        taken = _table_bytes(new, kbits)
        assert taken <= 6 * max(n, 10**7), (size, new, n)
        if new < 2 * size:  # the largest within the budget
            assert _table_bytes(2 * size, kbits) > 6 * max(n, 10**7)
            assert _table_bytes(new + 64, kbits) > 6 * max(n, 10**7) or new + 64 > 2 * size
        if n >= 10**7:
            worst = max(worst, taken / n)
        size = new
    assert 4 < worst <= 6


def test_a_table_fills_further_where_the_memory_target_sets_its_growth() -> None:
    """80 % full while the table doubles; 86 % where its keys are too wide to double within
    6 bytes a key (2²³ slots of 56-bit keys: 2²⁴ slots of 35 bits take 73 MB, over 6·10⁷),
    so that it grows by more within the same bytes (each growth moves every key)."""
    assert stores._load_percent(1 << 22, 56) == stores.COMPACT_LOAD_PERCENT
    assert stores._next_size(1 << 22, 56, (1 << 22) * 80 // 100) == 1 << 23
    size = 1 << 23
    assert stores._load_percent(size, 56) == stores.COMPACT_FULL_PERCENT
    t = stores._Cleary(size, [56])
    try:
        assert t.load == size * 86 // 100
    finally:
        t.close()
    size = 1 << 24  # (past 10⁷ keys: the target grows with them)
    at_80, at_86 = (stores._next_size(size, 56, size * p // 100) for p in (80, 86))
    assert size < at_80 < at_86 < 2 * size


@pytest.mark.parametrize("kbits", [36, 40, 46, 64])
def test_the_table_grows_no_further_than_its_homes_tell_apart(kbits: int) -> None:
    """2³² slots at most (a home is ⌊t·size / 2³²⌋ in 64 bits): the policy stops there,
    or short of it where the keys could not be laid in place, and a table at its most
    refuses to grow with a ResourceError (a reviewer found keys confused past it)."""
    for size in (1 << 31, (1 << 32) - (1 << 26), (1 << 32) - 64, 1 << 32):
        new = stores._next_size(size, kbits, size * 8 // 10)
        assert new <= stores.MAX_SLOTS
        assert new == size or _in_place(size, new, kbits)


def test_a_full_grown_table_refuses_to_grow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stores, "MAX_SLOTS", 1 << 12)
    store = stores.CompactStore([(1 << 20) - 1], 2, q=12)
    try:
        assert stores._next_size(1 << 12, store.table.kbits, 3000) == 1 << 12
        with pytest.raises(ResourceError, match="at most 4,096 slots"):
            store.make_room(int(store.table.load), 2)
    finally:
        store.close()


@pytest.mark.parametrize("size", [1 << 24, 3 << 23, 50_000_000 // 64 * 64])
def test_keys_too_wide_for_the_target_grow_by_a_sixteenth(size: int) -> None:
    """64-bit keys take more than 6 bytes a key at any load: the table grows by a block
    more than 1/16 (each growth moves every key), not by less, and in place."""
    new = stores._next_size(size, 64, size * 8 // 10)
    assert new == stores._round64(size * 1.0625 + 1)
    assert _in_place(size, new, 64)


@pytest.mark.parametrize("widths", [[64], [32, 32], [1, 63], [2]])
def test_remainders_from_one_bit_to_the_widest_key(widths: list[int]) -> None:
    """64-bit keys (a remainder of 64 − q bits, the slot spanning words) and keys as
    narrow as the table (padded to one remainder bit)."""
    t = stores._Cleary(1 << 10, widths)
    assert t.kbits == max(sum(widths), 11)
    top = [(1 << min(w, 31)) - 1 for w in widths]  # records are int32
    keys = {tuple(x % (v + 1) for x, v in zip((i * 2654435761, i * 40503), top, strict=False))
            for i in range(700)}
    keys = set(list(keys)[: t.load])
    for r in keys:
        assert _admit(t, r)
    for r in keys:
        assert not _admit(t, r)


@given(kbits=st.integers(2, 64), key=st.integers(0, 2**64 - 1))
def test_the_scrambling_is_a_bijection(kbits: int, key: int) -> None:
    t = stores._Cleary(1 << 8, [kbits])
    field = kbits
    kbits = t.kbits  # at least q + 1
    h = scramble(np.uint64(key % (1 << kbits)), kbits, t.mix)
    assert int(h) < 1 << kbits
    assert int(unscramble(np.uint64(h), kbits, t.mix)) == key % (1 << kbits)
    if field <= 31:  # records are int32
        row = np.array([[key % (1 << field)]], np.int32)
        assert int(key_of(row, 0, t.fields)) == key % (1 << field)


@given(widths=st.lists(st.integers(1, 12), min_size=1, max_size=5), data=st.data())
def test_rekeying_moves_each_id_to_its_new_field(widths: list[int], data: st.DataObject) -> None:
    """A key re-encoded to wider fields is the key of the same record at those fields."""
    wider = [w + data.draw(st.integers(0, 3)) for w in widths]
    assume(sum(wider) <= stores.MAX_KEY_BITS)  # (wider keys are refused: tested below)
    record = [data.draw(st.integers(0, (1 << w) - 1)) for w in widths]
    row = np.array([record], np.int32)
    old, new = stores._Cleary(1 << 8, widths), stores._Cleary(1 << 8, wider)
    key = np.uint64(key_of(row, 0, old.fields))  # (numba gives a Python int back)
    assert int(rekey(key, old.fields, old.field_widths, new.fields)) == int(
        key_of(row, 0, new.fields))


def test_a_re_encoding_past_64_bits_leaves_the_table_as_it_was() -> None:
    """KeyTooWide before a key moves (the engine then falls back): the table holds its keys."""
    store = stores.CompactStore([(1 << 30) - 1, (1 << 30) - 1], 2)
    records = [(i, 3 * i) for i in range(100)]
    for r in records:
        _admit(store.table, r)
    with pytest.raises(stores.KeyTooWide, match="65 bits"):
        store.fit([(1 << 30) - 1, (1 << 35) - 1], len(records))
    assert all(not _admit(store.table, r) for r in records)
    store.close()


def test_keys_wider_than_64_bits_are_refused() -> None:
    with pytest.raises(stores.KeyTooWide, match="65 bits"):
        stores._Cleary(1 << 12, [33, 32])
    for size in (32, 100):  # the blocks are of 64 slots
        with pytest.raises(SdgBug, match="not a multiple of 64"):
            stores._Cleary(size, [8])


# ---------------------------------------------------------------------------
# the search


def stores_agree(g: Grammar, head: str, k: int | None = None, **kw: object
                 ) -> tuple[object, ...]:
    """The verdicts of the table store, the compact one and the Python reference: equal,
    and the compact one ran."""
    def verdict(**more: object) -> tuple[tuple[object, ...], str | None]:
        v = max_grundy(g, head, k, strategy="bfs", **kw, **more)  # type: ignore[arg-type]
        assert v.engine is not None
        return (v.maximum, v.answer, v.exact, v.stopped_early, v.states, v.witnesses), \
            v.engine.store

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EngineNotice)  # one-group grammars: Python anyway
        python, _ = verdict(engine="python")
        table, ran = verdict(engine="compiled")
        compact, kind = verdict(engine="compact")
    assert compact == table == python, (python, table, compact)
    # the kernels ran on both stores, or neither took the automaton (Python's store)
    assert (ran, kind) in (("table", "compact"), ("packed", "packed"))
    oracle = Definition(g.rules)
    witnesses = python[-1]
    assert isinstance(witnesses, dict)
    for value, w in witnesses.items():
        assert oracle(head, str(w)) == value
    return python


@FAST
@given(right_linear_grammars(), st.data())
def test_stores_agree_on_random_grammars(g: Grammar, data: st.DataObject) -> None:
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    k = data.draw(st.one_of(st.none(), st.integers(0, 3)), label="k")
    within = data.draw(st.sampled_from([None, "a*", "(ab)*", "(a|b)*aa", "(aa|b)*"]))
    stores_agree(g, head, k, within=within)


@settings(max_examples=12, deadline=None)
@given(count=st.integers(2, 3), states=st.integers(3, 9), seed=st.integers(0, 10**6))
def test_stores_agree_on_random_binary_dfas(count: int, states: int, seed: int) -> None:
    dfas = random_family(count, states, seed=seed)
    maximum, length = product_truth(dfas)
    try:
        g = intersection_grammar(dfas)
    except InputError:  # refused only when no DFA accepts a non-empty word (seed 3731)
        assert maximum is None  # the products' "all ⊆ {ε}"
        assume(False)
    found = stores_agree(g, "A")
    assert found[0] == maximum
    if length is not None:  # the shortest word of the maximum, when the products know it
        assert len(str(found[-1][maximum])) == length  # type: ignore[index]


@pytest.mark.parametrize("specs", ["3:0 5:2 7:3 11:5 3:1", "3:0 5:2 7:3 11:5",
                                   "4:1 9:2 5:0 7:6 2:0"])
def test_stores_agree_on_the_hardness_family(specs: str) -> None:
    parsed = [ModularSpec.parse(s) for s in specs.split()]
    truth, length = modular_truth(parsed)
    g = modular_family(parsed)
    v = max_grundy(g, "A", engine="compact")
    assert (v.maximum, v.exact, v.engine.store, v.strategy) == (truth, True, "compact", "bfs")
    assert length is None or len(v.witness or "") == length
    stores_agree(g, "A")


def test_ids_outgrowing_their_fields_and_the_table_growing() -> None:
    """54,258 states: the keys are re-encoded as ids appear and the table grows from
    4,096 slots; the compact walk's buffers (16,384 rows) fill and spill many times."""
    dfas = random_family(3, 12, seed=28)
    g = intersection_grammar(dfas)
    v = max_grundy(g, "A", engine="compact", strategy="bfs")
    t = max_grundy(g, "A", engine="compiled", strategy="bfs")
    assert (v.maximum, v.states, v.witnesses) == (t.maximum, t.states, t.witnesses)
    assert (v.states, v.maximum) == (54258, product_truth(dfas)[0])
    # the compact table against the table store's (whose keys take 8 / load + 5 bytes a
    # state since issue 36): the compact walk's three buffers of records apart
    from sdg_automata.automaton.construction import GrundyAutomaton
    from sdg_automata.search.compiled.tables import StepTables

    buffers = 3 * drive.COMPACT_BUFFER * 4 * StepTables(GrundyAutomaton(g)).groups
    assert v.peak_bytes is not None and t.peak_bytes is not None
    assert v.peak_bytes - buffers < t.peak_bytes / 2


def test_small_buffers_spill_to_the_spool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(drive, "COMPACT_BUFFER", 8)
    monkeypatch.setattr(stores, "SPOOL_SEGMENT", 64)  # many files, the consumed ones released
    stores_agree(intersection_grammar(random_family(2, 6, seed=3)), "A")
    stores_agree(modular_family([ModularSpec.parse(s) for s in "3:0 5:2 7:3 3:1".split()]),
                 "A")


def test_spooled_keys_of_older_layouts_read_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """54,258 states through buffers of 8 rows: ids outgrow their fields while states wait
    in the spool, so hundreds of reads unpack keys of an older layout (some reads span
    two), against the table store and automata-lib's products."""
    monkeypatch.setattr(drive, "COMPACT_BUFFER", 8)
    seen: list[int] = []
    read = stores.CompactStore.read

    def counting(self: stores.CompactStore, first: int, out: object) -> int:
        seen.append(sum(start <= first for start, _, _ in self.layouts))  # layouts before
        return read(self, first, out)

    monkeypatch.setattr(stores.CompactStore, "read", counting)
    dfas = random_family(3, 12, seed=28)
    g = intersection_grammar(dfas)
    v = max_grundy(g, "A", engine="compact", strategy="bfs")
    t = max_grundy(g, "A", engine="compiled", strategy="bfs")
    assert (v.maximum, v.states, v.witnesses) == (t.maximum, t.states, t.witnesses)
    assert v.maximum == product_truth(dfas)[0]
    assert max(seen) > 1  # a read from under a later layout: the test can see a wrong one


def test_long_witnesses_come_back_from_the_spool(monkeypatch: pytest.MonkeyPatch) -> None:
    """A unary witness of 196,080 letters read back up the spooled tree in blocks."""
    specs = [ModularSpec.parse(s) for s in "8:0 27:6 5:0 7:3 11:5 13:1".split()]
    truth, length = modular_truth(specs)
    g = modular_family(specs)
    v = max_grundy(g, "A", engine="compact", strategy="bfs")
    assert (v.maximum, len(v.witness or "")) == (truth, length)
    assert v.witnesses == max_grundy(g, "A", engine="compiled", strategy="bfs").witnesses


def test_keys_too_wide_fall_back_to_the_table(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stores, "MAX_KEY_BITS", 12)
    g = modular_family([ModularSpec.parse(s) for s in "3:0 5:2 7:3 11:5 3:1".split()])
    with pytest.warns(EngineNotice, match="runs on the compiled engine, not compact: a "
                                          "state's ids take") as notes:
        v = max_grundy(g, "A", engine="compact")
    assert len(notes) == 1
    assert (v.engine.name, v.engine.store, v.states) == ("compiled", "table", 2311)


def test_budgets_and_progress_on_the_compact_store() -> None:
    g = modular_family([ModularSpec.parse(s) for s in "3:0 5:2 7:3 3:1".split()])  # 211 states
    assert max_grundy(g, "A", engine="compact", max_states=211).states == 211
    with pytest.raises(BudgetExceeded, match="budget of 210 states") as e:
        max_grundy(g, "A", engine="compact", max_states=210)
    assert e.value.explored == 210
    big = modular_family([ModularSpec.parse(s) for s in "16:0 27:6 25:0 7:3 11:5 13:1 3:1"
                          .split()])
    seen: list[int] = []
    with pytest.raises(BudgetExceeded, match="budget of 0.3 s"):
        max_grundy(big, "A", engine="compact", max_seconds=0.3,
                   progress=seen.append)
    assert seen and seen == sorted(seen)


def test_ctrl_c_on_the_compact_store() -> None:
    """A KeyboardInterrupt between kernel calls (from progress, as a SIGINT handler's
    would be) ends the walk as Interrupted with the states reached."""
    big = modular_family([ModularSpec.parse(s) for s in "16:0 27:6 25:0 7:3 11:5 13:1 3:1"
                          .split()])

    def interrupt(n: int) -> None:
        if n > 5000:
            raise KeyboardInterrupt

    with pytest.raises(Interrupted) as e:
        max_grundy(big, "A", engine="compact", progress=interrupt)
    assert e.value.explored > 5000


def test_the_compact_store_goes_with_bfs() -> None:
    g = modular_family([ModularSpec.parse(s) for s in "3:0 5:2".split()])
    for strategy in ("dfs", "lasso"):
        with pytest.raises(InputError, match=f"the compact engine does not run the {strategy} "
                                             "strategy \\(it runs bfs\\)"):
            max_grundy(g, "A", strategy=strategy, engine="compact")
    # unary: lasso by default, bfs on the compact engine (which runs no lasso)
    assert max_grundy(g, "A").strategy == "lasso"
    assert max_grundy(g, "A", engine="compact").strategy == "bfs"


def test_the_command_line_compact_engine(capsys: pytest.CaptureFixture[str]) -> None:
    from clirun import run

    code, out, err = run(["max", "examples/example3.txt", "A", "--engine", "compact"], capsys)
    assert code == 0 and out.startswith("max 2, witness 'aa'")
    assert err.startswith("note: the search runs on the python engine, not compact: its "
                          "nonterminals form one group")
    code, _, err = run(["max", "examples/example3.txt", "A", "--store", "compact"], capsys)
    assert code == 2 and "unrecognized arguments: --store" in err


def test_a_full_disk_is_a_resource_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """The spool's writes failing (ENOSPC) end the search as exit 3 does, naming TMPDIR."""
    import errno
    import os

    from sdg_automata.errors import ResourceError
    from sdg_automata.search.compiled.stores import _Spool

    def full(*args: object) -> int:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "pwrite", full)
    spool = _Spool(np.int32, (2,))
    with pytest.raises(ResourceError, match="TMPDIR chooses.*No space left on device"):
        spool.append(np.zeros((3, 2), dtype=np.int32))


def test_asking_for_the_compact_engine_runs_it() -> None:
    """By name, whatever the size (auto would run a small search in Python), and never
    ignored: the explicit route refuses it."""
    g = intersection_grammar(random_family(3, 5, seed=1))
    v = max_grundy(g, g.start, engine="compact")
    assert (v.engine.name, v.engine.store) == ("compact", "compact")
    assert (v.maximum, v.witnesses, v.states) == (lambda t: (t.maximum, t.witnesses, t.states))(
        max_grundy(g, g.start, strategy="bfs", engine="python"))
    with pytest.raises(InputError, match="explicit route explores the automaton in this "
                                         "process .*, not on the compact engine"):
        max_grundy(g, g.start, engine="compact", method="explicit")
