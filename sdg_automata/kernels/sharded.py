"""Kernels of one level of the breadth-first walk sharded over a cluster (numba; a shard
runs them from a native library, :mod:`sdg_automata.kernels.sharded_native`).

The shard's side of :mod:`sdg_automata.search.sharded` (the actor is
:class:`sdg_automata.search.shard.Shard`): :func:`expand` steps the frontier and puts
each successor into the buffer of the shard owning it (:func:`owner`), and
:func:`absorb` dedupes the batches received against the shard's store, read in the
order of their codes.  Their reference is :func:`sdg_automata.kernels.automaton.bfs`:
the states of a level and their codes (parent's number × letters + letter, the least
that reaches each state) are those of the one-process walk.  They follow the protocol of
:mod:`sdg_automata.kernels.automaton` (statuses, cursor) and share its step and its
store (:mod:`sdg_automata.kernels.step`).

Issue 36 (item 6): a successor is made in a block of the walk's successors, as one
process makes them, and copied once, into its owner's buffer (the batch that goes on the
wire), not into a block sorted by owner afterwards and copied out by slices; a batch
received is translated into the shard's part ids as it is copied into the level's streams
(:func:`translate`: the copy that was made anyway, a table lookup per id, in cache); and
the shard reads the streams, one per sender, merged by code on the fly: its new states
come out in code order, so no sort of the level and no pass that moves table entries.
(The ids were translated inside :func:`absorb` until issue 36: there a branch per id on
the row's sender, which the merge makes unpredictable.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import jit
from .packed import _lookup, home, key_hash, unpack
from .protocol import (
    BATCH,
    DONE,
    FULL,
    LETTER,
    MAX_LOAD_PERCENT,
    MISS,
    OVERFLOW,
    PAUSE,
    SID,
    WORK,
    N,
)
from .step import _GOLDEN, Array, _hash, _inline, _probe, first_value, popcount, prefetch, step

__all__ = ["absorb", "absorb_packed", "expand", "mark", "number", "owner", "translate"]

#: the owner hash's first term (any constant: what makes a state's owner independent of its
#: slot in the shard's table, a hash of the shard's own ids, is the parts' random keys)
_OWNER_SEED = np.uint64(0xD1B54A32D192ED03)
#: the largest code (a stream that is done reads as this)
_NO_CODE = np.int64(0x7FFFFFFFFFFFFFFF)


@_inline
def _owner_sums(keys: Array, block: Array, m: int, groups: int, wc: int, sums: Array) -> None:
    """``sums[j]`` ← the sum that gives the owner of the state ``block[j]``
    (:func:`_owner_of_sum`), for j < m: its parts' canonical keys (``keys[g, id]``: the
    same for the same part of the same group on every shard, whatever its id there, and
    independent random words), and its constraint's state, added up.  Additions, not a
    multiplication per group, which would be a chain; and a group at a time over the rows,
    whose key reads are then independent (a row at a time, each after its step, the owners
    of a block took 5% of the steps' CPU more: scratch kernels in one process, 1.27·10⁷
    states)."""
    for j in range(m):
        sums[j] = _OWNER_SEED
    for g in range(groups):
        for j in range(m):
            sums[j] += keys[g, block[j, g]]
    if wc:
        for j in range(m):
            sums[j] += np.uint64(block[j, groups] + 1) * _GOLDEN


@_inline
def _owner_of_sum(h: Any, shards: int) -> int:
    """The shard owning a state whose sum (:func:`_owner_sums`) is ``h``.  The sum is a
    random word already (two states that differ in a part differ by the difference of two
    random words), so its top 32 bits are scaled to the shards by a multiply and a shift
    (Lemire's reduction), with no mix and no 64-bit division (which took about 3 ns of a
    step's 75, issue 36 item 6)."""
    return int(((h >> np.uint64(32)) * np.uint64(shards)) >> np.uint64(32))


@jit
def owner(keys: Array, block: Array, groups: int, wc: int, shards: int, owners: Array) -> None:
    """``owners[j]`` ← the shard owning the state ``block[j]``, for every row (as
    :func:`expand` routes it)."""
    _owner_sums(keys, block, block.shape[0], groups, wc, owners)
    for j in range(block.shape[0]):
        owners[j] = _owner_of_sum(owners[j], shards)


@jit
def expand(heap: Array, plan: Array, starts: Array, records: Array, shifts: Array,
           masks: Array, queue: Array, gids: Array, hi: int, crows: Array, wc: int,
           keys: Array, shards: int, block: Array, origin: Array, sums: Array, out: Array,
           codes: Array, fill: Array, cursor: Array, quantum: int) -> int:
    """The successors of states ``cursor[SID]`` … ``hi`` − 1 (from letter ``cursor[LETTER]``),
    each into the buffer of its owner w (:func:`owner`): row ``fill[w]`` of ``out[w]``,
    its code ``gids[s]·letters + k`` (the parent's global number and the letter: the order
    of the one-process walk) at ``codes[w, fill[w]]``.

    State s is ``records[s]`` (the record store), or, where ``shifts`` is not empty (a
    packed store, :mod:`sdg_automata.kernels.packed`), the key ``queue[s & (len − 1)]``,
    its ids unpacked into ``records[0]`` (``records`` is then 1 × fields, int32) once for
    all its letters.

    In blocks of :data:`BATCH` steps, as the one-process walk: the successors are made
    into ``block`` (:data:`BATCH` × width, int32), their codes into ``origin`` (int64),
    then their owners found together (``sums``, uint64: :func:`_owner_sums`) and each row
    copied into its owner's buffer.  FULL before a block when a buffer has fewer than
    :data:`BATCH` rows free; MISS as :func:`~sdg_automata.kernels.automaton.bfs` (the
    block's successors made before it routed first, the cursor at the step missed);
    PAUSE at the end of the state whose steps reach ``quantum``; DONE at ``hi``.  (Issue
    36 item 6: made, owned and copied row by row, the successors took 1.45–1.51× the CPU
    of their steps alone; in blocks 1.37–1.42×, the same runs, in one process, on
    1.27·10⁷ states.)
    """
    letters = starts.shape[0]
    width = block.shape[1]
    groups = width - wc
    room = out.shape[1]
    packed = shifts.shape[0] > 0
    qmask = queue.shape[0] - 1
    sid, k = cursor[SID], cursor[LETTER]
    first = sid * letters + k  # the steps done are the (state, letter) pairs passed
    # the quantum as the state whose end passes it, so that no step counts it
    last = min(hi, (first + quantum) // letters + 1)
    # buffers only fill during a call: all are looked at once, then those a block fills
    crowded = False
    for w in range(fill.shape[0]):
        crowded |= fill[w] + BATCH > room
    unpacked = -1
    status = DONE
    while sid < last:
        if crowded:
            status = FULL
            break
        m = 0
        while m < BATCH and sid < last:
            row = 0 if packed else sid
            if packed and unpacked != sid:
                unpack(queue[sid & qmask], shifts, masks, records, 0)
                unpacked = sid
            live = True
            if wc:  # the constraint's state: no successor where it dies
                d = crows[k, records[row, groups]]
                live = d >= 0
                block[m, groups] = d
            if live:
                if step(heap, plan, starts[k], records, row, block, m):
                    status = MISS
                    break
                origin[m] = gids[sid] * letters + k
                m += 1
            k += 1
            if k == letters:
                k = 0
                sid += 1
        _owner_sums(keys, block, m, groups, wc, sums)
        for j in range(m):
            w = _owner_of_sum(sums[j], shards)
            t = fill[w]
            for i in range(width):
                out[w, t, i] = block[j, i]
            codes[w, t] = origin[j]
            fill[w] = t + 1
            crowded |= t + 1 + BATCH > room
        if status == MISS:
            break
    if status == DONE and sid < hi:
        status = PAUSE
    cursor[SID], cursor[LETTER], cursor[WORK] = sid, k, sid * letters + k - first
    return status


@_inline
def _next(rcodes: Array, heads: Array) -> int:
    """The stream whose next row has the least code, or −1 when all are done (a stream
    that is done reads its sentinel, the largest code).  The least is kept by selects,
    not branches: the streams' heads interleave at random (owners are hashed), so a
    branch on which is least was mispredicted one row in two.  Inlined into
    :func:`_batch`: as a call it took a tenth of a shard's merge (two arrays passed as
    fourteen arguments, their reference counts called, a row at a time)."""
    if heads.shape[0] == 0:
        return -1
    best, least = 0, rcodes[heads[0]]
    for s in range(1, heads.shape[0]):
        c = rcodes[heads[s]]
        less = c < least
        best = s if less else best
        least = c if less else least
    return best if least != _NO_CODE else -1


@_inline
def _take(rcodes: Array, heads: Array) -> tuple[int, int]:
    """(stream, row) of the next row of the streams by code (:func:`absorb`), taken off
    its stream; (−1, −1) when all are read."""
    s = _next(rcodes, heads)
    if s < 0:
        return -1, -1
    i = int(heads[s])
    heads[s] = i + 1
    return s, i


@_inline
def _batch_of_two(rcodes: Array, heads: Array, rows: Array) -> int:
    """:func:`_batch` of two streams (a shard of two, or one receiving from one other),
    their heads and next codes held in registers: :func:`_take` stores a head and loads
    it back each row, and its next row's code with it, a chain of dependent loads (8 ns a
    row on two shards of 1.27·10⁷ states, 11% of the merge)."""
    h0, h1 = heads[0], heads[1]
    c0, c1 = rcodes[h0], rcodes[h1]
    m = 0
    while m < BATCH:
        second = c1 < c0  # codes are distinct but for the sentinels
        if (c1 if second else c0) == _NO_CODE:
            break
        rows[m] = h1 if second else h0
        m += 1
        h0 += 1 - second
        h1 += second
        c0, c1 = rcodes[h0], rcodes[h1]
    heads[0], heads[1] = h0, h1
    return m


@jit
def _batch(rcodes: Array, heads: Array, rows: Array) -> int:
    """Up to :data:`BATCH` rows of the streams by code (:func:`_take`) into ``rows``; how
    many (fewer: every stream is read)."""
    if heads.shape[0] == 2:
        return _batch_of_two(rcodes, heads, rows)
    m = 0
    while m < BATCH:
        s, i = _take(rcodes, heads)
        if s < 0:
            break
        rows[m] = i
        m += 1
    return m


@jit
def translate(rows: Array, table: Array, offsets: Array, out: Array) -> None:
    """``out[i, c]`` ← ``table[offsets[c] + rows[i, c]]`` where ``offsets[c]`` ≥ 0 (a
    group's ids: the sender's, as ours), else ``rows[i, c]`` (the constraint's state, the
    same on every shard): a batch received, in the shard's ids, as it is copied into the
    level's streams (``out`` may be narrower than ``rows``: the caller knows ours fit)."""
    for i in range(rows.shape[0]):
        for c in range(rows.shape[1]):
            o = offsets[c]
            out[i, c] = table[o + rows[i, c]] if o >= 0 else rows[i, c]


@jit
def absorb(records: Array, table: Array, tags: Array, codes: Array, raw: Array,
           rcodes: Array, heads: Array, ends: Array, block: Array, hashes: Array,
           rows: Array, values: Array, head: int, wc: int, cfinal: Array, first: Array,
           cursor: Array) -> int:
    """Add the states of the streams received not stored yet, as new states ``cursor[N]``,
    … with their codes, reading the streams merged in the order of their codes.

    Stream s is rows ``heads[s]`` … ``ends[s]`` − 1 of ``raw`` (codes ``rcodes``), sorted
    by code, in the shard's part ids (:func:`translate`), and ``rcodes[ends[s]]`` is the
    largest code (a sentinel, so that a stream's end needs no test).  Codes are distinct (one per
    edge), so the first time a state is read is by its least code, and the new states
    come out in code order: the one-process walk's order within the level.  A state
    already stored is left as it is.  ``first[v]``, where still −1, becomes the first new
    state of value v (``values`` of its part of group ``head``), where ``cfinal`` accepts
    its constraint's state (its last field, if ``wc``), as the one-process walk records
    them (:func:`~sdg_automata.kernels.step.first_value`); ``first`` covers every value of
    ``values``.  ``block`` (:data:`BATCH` rows of the records'
    type), ``hashes`` (uint64) and ``rows`` (int64), of :data:`BATCH` each, are scratch (a
    native entry point allocates nothing: :mod:`sdg_automata.kernels.sharded_native`).

    FULL when the store needs room (as :func:`~sdg_automata.kernels.automaton.bfs`),
    else DONE.  By runs of :data:`BATCH` rows, hashes first (their homes prefetched), then
    lookups in order, as :func:`~sdg_automata.kernels.automaton.bfs` does, so that the
    lookups' cache misses overlap.
    """
    width = records.shape[1]
    groups = width - wc
    capacity = records.shape[0]
    load = (table.shape[0] * MAX_LOAD_PERCENT) // 100
    mask = table.shape[0] - 1
    n = cursor[N]
    status = DONE
    done = False
    while not done:
        if n + BATCH >= capacity or n + BATCH >= load:
            status = FULL
            break
        m = _batch(rcodes, heads, rows)
        done = m < BATCH
        for j in range(m):
            i = rows[j]
            for c in range(width):
                block[j, c] = raw[i, c]
            hashes[j] = _hash(block, j)
            slot = np.int64(hashes[j] & np.uint64(mask))  # its lines, for the lookups
            prefetch(table, slot)
            prefetch(tags, slot)
        for j in range(m):
            h = hashes[j]
            tag = np.int64(h >> np.uint64(56))
            r, slot = _probe(table, tags, records, block, j, tag,
                             np.int64(h & np.uint64(mask)), mask)
            if r < 0:
                for c in range(width):
                    records[n, c] = block[j, c]
                table[slot] = n + 1
                tags[slot] = tag
                codes[n] = rcodes[rows[j]]
                first_value(values, first, block, j, head, groups, wc, cfinal, n, -1)
                n += 1
    cursor[N] = n
    return status


@jit
def absorb_packed(table: Array, form: Array, load: int, shifts: Array, queue: Array,
                  codes: Array, raw: Array, rcodes: Array, heads: Array, ends: Array,
                  picked: Array, bkeys: Array, slots: Array, values: Array, head: int,
                  wc: int, cfinal: Array, first: Array, cursor: Array) -> int:
    """:func:`absorb` over a packed store: a state is its key (its ids, ours, as bit fields
    at ``shifts``), looked up in the ordered table of :mod:`sdg_automata.kernels.packed`
    (one word compared a probe); a new state n's key goes to ``queue[n & (len − 1)]``, and
    its value to ``first`` as :func:`absorb` does.

    FULL when the table would pass ``load`` keys, when ``queue`` or ``codes`` has no room
    for :data:`BATCH` more states past ``cursor[SID]`` (the first state still needed in the
    ring), or when a cluster runs past the tail (``cursor[OVERFLOW]`` = 1): the streams'
    heads are then where the first row not stored is.  ``picked``, ``bkeys`` and
    ``slots`` (:data:`BATCH` each) are scratch."""
    qmask = queue.shape[0] - 1
    groups = shifts.shape[0] - wc
    capacity = codes.shape[0]
    end = table.shape[0]
    n, keep = cursor[N], cursor[SID]
    cursor[OVERFLOW] = 0
    status = DONE
    done = False
    while not done:
        if n + BATCH >= load or n + BATCH >= capacity or n + BATCH - keep > qmask:
            status = FULL
            break
        # picked: the rows (a row's stream is found again on an overflow)
        m = _batch(rcodes, heads, picked)
        done = m < BATCH
        for j in range(m):
            i = picked[j]
            key = np.uint64(0)
            for c in range(shifts.shape[0]):
                key |= np.uint64(raw[i, c]) << np.uint64(shifts[c])
            bkeys[j] = key
            slots[j] = home(key_hash(key), form)
            prefetch(table, slots[j])
        for j in range(m):
            key1 = bkeys[j] + np.uint64(1)
            found = _lookup(table, slots[j], key1)
            if found >= 0:
                continue
            slot = -1 - found
            if slot == end:  # the cluster runs past the tail: rows j … m − 1 wait
                _unread(picked, j, m, heads, ends)
                cursor[OVERFLOW] = 1
                status = FULL
                done = True
                break
            table[slot] = key1
            queue[n & qmask] = bkeys[j]
            codes[n] = rcodes[picked[j]]
            first_value(values, first, raw, picked[j], head, groups, wc, cfinal, n, -1)
            n += 1
    cursor[N] = n
    return status


@jit
def _unread(picked: Array, j: int, m: int, heads: Array, ends: Array) -> None:
    """Put rows ``picked[j:m]`` back at the heads of their streams: stream s ends before
    row ``ends[s]`` (its sentinel), after the one before it, and its rows were picked in
    order, so its head goes back to the first of them."""
    for t in range(m - 1, j - 1, -1):
        i = picked[t]
        for s in range(heads.shape[0]):
            if i < ends[s]:
                heads[s] = i
                break


@jit
def mark(codes: Array, lo: int, hi: int, origin: int, bits: Array) -> None:
    """Set bit ``codes[i]`` − ``origin`` of ``bits`` (uint64 words, bit j of word w is
    bit 64w + j) for i in ``lo`` … ``hi`` − 1: a level's codes as the bitmap
    :func:`number` ranks in."""
    one = np.uint64(1)
    for i in range(lo, hi):
        c = codes[i] - origin
        bits[c >> 6] |= one << np.uint64(c & 63)


@jit
def number(keys: Array, lo: int, hi: int, div: int, bits: Array, origin: int, base: int,
           out: Array) -> None:
    """Number by rank among a level's codes: for i in ``lo`` … ``hi`` − 1, with p =
    ⌊``keys[i]`` / ``div``⌋, ``out[i]`` ← n·``div`` + (``keys[i]`` − p·``div``), where n
    is ``base`` plus how many of the level's codes are below p.

    The level's codes, every shard's, are the set bits of ``bits`` (bit c − ``origin``
    for code c: :func:`mark`), so the codes below p are the bits below p − ``origin``.
    The keys' p are nondecreasing: one pass over the words, their set bits counted as
    it goes.  ``div`` = 1 numbers a shard's own states of the level (their codes are
    among the bits: n is a code's rank, ``base`` the level's first number); ``div`` =
    letters turns the codes of the next level's states, made from their parents' codes
    (parent's code × letters + letter), into parent's number × letters + letter.
    ``out`` may be ``keys``.  A ``div`` that is a power of two (the letters of a binary
    alphabet, and 1) divides by a shift: a division by a variable took about 40 cycles a
    key."""
    words = bits.shape[0]
    w = 0
    below = 0  # the set bits of words 0 … w − 1
    one = np.uint64(1)
    shift = 0  # log₂ div, or −1 (an arithmetic shift floors as ⌊/⌋ does)
    while (1 << shift) < div:
        shift += 1
    if (1 << shift) != div:
        shift = -1
    for i in range(lo, hi):
        k = keys[i]
        p = k >> shift if shift >= 0 else k // div
        c = p - origin
        q = min(max(c, 0) >> 6, words)
        while w < q:
            below += popcount(bits[w])
            w += 1
        n = base + below
        if 0 <= c < words * 64:
            n += popcount(bits[q] & ((one << np.uint64(c & 63)) - one))
        out[i] = n * div + (k - p * div)
