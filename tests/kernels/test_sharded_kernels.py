"""The sharded search's level kernels (:mod:`sdg_automata.kernels.sharded`) where the
walks do not reach them: a packed table's overflow in the middle of a block of rows
merged from two streams; and the merge by code of any number of streams, against a
sort."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

np = pytest.importorskip("numpy")
pytest.importorskip("numba")


@settings(max_examples=80, deadline=None)
@given(streams=st.lists(st.lists(st.integers(-2, 10**4), unique=True, max_size=150),
                        min_size=1, max_size=4))
def test_the_merge_reads_the_streams_in_code_order(streams: list[list[int]]) -> None:
    """Should give the rows of any number of streams (each sorted, ended by its
    sentinel) in the order of their codes, a batch at a time, as a sort of all the codes
    does; two streams take their own path (heads in registers)."""
    from sdg_automata.kernels import protocol
    from sdg_automata.kernels.sharded import _batch

    seen: set[int] = set()  # codes are distinct across the streams
    rcodes, heads = [], []
    for codes in streams:
        mine = sorted(set(codes) - seen)
        seen |= set(mine)
        heads.append(len(rcodes))
        rcodes += [*mine, np.iinfo(np.int64).max]
    rcodes_a, heads_a = np.array(rcodes, dtype=np.int64), np.array(heads, dtype=np.int64)
    rows = np.empty(protocol.BATCH, dtype=np.int64)
    read: list[int] = []
    while True:
        m = _batch(rcodes_a, heads_a, rows)
        read += rows[:m].tolist()
        if m < protocol.BATCH:
            break
    assert [rcodes[i] for i in read] == sorted(seen)


def test_an_overflow_puts_the_rows_back_at_their_streams_heads() -> None:
    """Should, when a cluster of the packed table runs past its tail, store the rows read
    before it (in code order, across two streams) and put the others back: FULL with
    OVERFLOW, each stream's head at its first row not stored."""
    from sdg_automata.kernels import protocol
    from sdg_automata.kernels.packed import home, key_hash
    from sdg_automata.kernels.sharded import absorb_packed

    form = np.array([10, 4], dtype=np.int64)  # 4 · 2¹⁰ homes
    homes = 4 << 10
    table = np.zeros(homes + protocol.TAIL, dtype=np.uint64)
    cut = homes // 2
    table[cut:] = np.uint64(1 << 40)  # slots from `cut` on hold a key no row has
    low, high = [], []  # ids whose key's home is below the cut (stored) or above (overflow)
    for a in range(1, 2000):
        at = home(np.uint64(key_hash(np.uint64(a))), form)
        if at < cut - 64:
            low.append(a)
        elif at >= cut:
            high.append(a)
    # stream 0: codes 0, 2, 4; stream 1: codes 1, 3, 5; by code: low ×4, high, low
    ids = [low[0], low[1], low[2], low[3], high[0], low[4]]
    codes = np.arange(6, dtype=np.int64)
    order = [0, 2, 4, -1, 1, 3, 5, -1]  # each stream followed by its sentinel
    raw = np.array([[ids[c] if c >= 0 else 0] for c in order], dtype=np.uint16)
    rcodes = np.array([codes[c] if c >= 0 else np.iinfo(np.int64).max for c in order],
                      dtype=np.int64)
    heads = np.array([0, 4], dtype=np.int64)
    ends = np.array([3, 7], dtype=np.int64)
    queue = np.zeros(256, dtype=np.uint64)
    out_codes = np.zeros(1 << 8, dtype=np.int64)
    cursor = np.zeros(8, dtype=np.int64)
    scratch = [np.empty(protocol.BATCH, dtype=d) for d in (np.int64, np.uint64, np.int64)]
    values = np.full(2000, -1, dtype=np.int32)  # A's value of each id: 1 for code 1's only
    values[ids[1]] = 1
    first = np.full(2, -1, dtype=np.int64)
    status = absorb_packed(table, form, 10**6, np.array([0], dtype=np.int64), queue,
                           out_codes, raw, rcodes, heads, ends, *scratch, values, 0, 0,
                           np.ones(1, dtype=np.uint8), first, cursor)
    assert (status, cursor[protocol.OVERFLOW], cursor[protocol.N]) == (protocol.FULL, 1, 4)
    assert list(out_codes[:4]) == [0, 1, 2, 3]
    assert list(first) == [-1, 1]  # value 1's first new state: code 1's, state 1
    assert list(queue[:4]) == ids[:4]
    # code 4 (stream 0's third row, 2) overflowed: it and code 5 (stream 1's third) wait
    assert list(heads) == [2, 6]


@pytest.mark.parametrize("wire", ["uint16", "int32"])
@pytest.mark.parametrize("into", ["uint16", "int32"])
def test_translate_maps_each_group_through_its_table(wire: str, into: str) -> None:
    """Should give, for each row of a sender's batch, our id of each group's id (its
    table's entry at the group's offset) and the constraint's column as it is: against a
    Python dict per group; natively and through numba, every pair of wire types."""
    import random

    from sdg_automata.kernels import sharded, sharded_native

    rng = random.Random(7)
    sizes = [5, 1, 40]  # the sender's parts per group
    maps = [rng.sample(range(60000), n) for n in sizes]  # its id -> ours, per group
    table = np.array([v for m in maps for v in m], dtype=np.int32)
    offsets = np.array([0, 5, 6, -1], dtype=np.int64)  # three groups, then the constraint
    rows = np.array([[rng.randrange(n) for n in sizes] + [rng.randrange(9)]
                     for _ in range(300)], dtype=wire)
    want = [[maps[g][int(r[g])] for g in range(3)] + [int(r[3])] for r in rows]
    for kernel in (sharded.translate, sharded_native.translate):
        out = np.full(rows.shape, 7, dtype=into)
        kernel(rows, table, offsets, out)
        assert out.tolist() == want


def test_the_owner_hash_spreads_states_and_ignores_the_ids_numbering() -> None:
    """Should give a state the same shard whatever its part ids in the shard reading it
    (the owner reads each part's canonical key, not its id), every shard in range, and
    spread random states over the shards as a fair die would: each shard's share of
    40,000 states within 4 standard deviations of its mean, for 2, 3, 5 and 8 shards."""
    from sdg_automata.kernels.sharded import owner

    rng = np.random.default_rng(7)
    groups, parts, states = 3, 50, 40_000
    keys = rng.integers(0, 2**64, size=(groups, parts), dtype=np.uint64)
    block = rng.integers(0, parts, size=(states, groups)).astype(np.int32)
    # the same states in another shard's ids: each group's ids permuted, keys with them
    perm = [rng.permutation(parts) for _ in range(groups)]
    keys2 = np.empty_like(keys)
    block2 = np.empty_like(block)
    for g in range(groups):
        keys2[g, perm[g]] = keys[g]
        block2[:, g] = perm[g][block[:, g]]
    for shards in (2, 3, 5, 8):
        got, again = np.zeros(states, dtype=np.uint64), np.zeros(states, dtype=np.uint64)
        owner(keys, block, groups, 0, shards, got)
        owner(keys2, block2, groups, 0, shards, again)
        assert got.tolist() == again.tolist()
        one = np.zeros(1, dtype=np.uint64)  # a row alone: its owner in a block of one
        owner(keys, block[123:124], groups, 0, shards, one)
        assert one[0] == got[123]
        counts = np.bincount(got.astype(np.int64), minlength=shards)
        assert len(counts) == shards
        mean = states / shards
        sigma = (states * (1 / shards) * (1 - 1 / shards)) ** 0.5
        assert np.all(np.abs(counts - mean) < 4 * sigma), (shards, counts)
