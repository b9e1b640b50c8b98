"""The breadth-first walk over packed keys: a table of keys probed by one word (numba).

Beside its Python side, :class:`sdg_automata.search.compiled.packed.PackedStore` (the
table store of the breadth-first search when a state's ids fit
:data:`~sdg_automata.kernels.protocol.KEY_BITS` bits):
:func:`packed_bfs` is the walk, whose reference is :func:`sdg_automata.kernels.automaton.bfs`
(the same states in the same numbers, the same tree); :func:`spread` grows its table
in place and :func:`insert_keys` puts keys into it.  It follows the protocol of
:mod:`sdg_automata.kernels.automaton` and steps with :func:`sdg_automata.kernels.step.step`.

The state is kept as its **key**: the part ids of its record as bit fields (``shifts``,
``masks``: the Python side chooses the widths), at most
:data:`~sdg_automata.kernels.protocol.KEY_BITS` bits.  The
table holds key + 1 in each used slot (0: free), so a probe compares one word and
never reads a record (the record store of :mod:`sdg_automata.kernels.step` reads the
record behind every tag that matches, and behind every hit: a second random access);
the frontier is a ring of keys (``queue``, state s at ``s & (len − 1)``), the tree is
``parent``/``via``.  Nothing else per state: about 8 / load + 5 bytes a state, plus the
frontier.

The table is ordered (Amble and Knuth's ordered hash tables, as in Cleary's): the home
of a key is the top bits of its hash scaled to the size (``((h >> (61 − q)) · m) >> 3``
for ``m · 2^q`` slots, m ∈ 4…7), linear probing without wrapping around (a tail of
:data:`~sdg_automata.kernels.protocol.TAIL` slots past the last home takes the overflow).
A larger table keeps the
order of the homes, so growing it is one pass from the top down in the same memory
(:func:`spread`, after ``mremap``): every key moves up, to its home in the larger
table or just past it, reading and writing sequentially — no rehash of the whole
table at random, no second table, and the size may grow by less than doubling.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import jit
from .protocol import (
    BATCH,
    CAP,
    DONE,
    FOUND,
    FULL,
    LETTER,
    MISS,
    OVERFLOW,
    PAUSE,
    SCALE,
    SID,
    WORK,
    N,
    Q,
)
from .step import (
    _GOLDEN,
    _MIX,
    Array,
    _inline,
    first_value,
    prefetch,
    step,
)

__all__ = ["home", "insert_keys", "key_hash", "pack", "packed_bfs", "spread", "unpack"]



@_inline
def key_hash(key: Any) -> Any:  # a numpy uint64
    """64 bits of hash of a key (multiply–xorshift, the final mix of ``step._hash``)."""
    h = key * _GOLDEN
    h ^= h >> np.uint64(32)
    h *= _MIX
    h ^= h >> np.uint64(29)
    return h


@_inline
def home(h: Any, form: Array) -> Any:  # a numpy int64
    """The home slot of hash ``h`` in a table of ``form[SCALE] · 2^form[Q]`` homes: its top
    q + 3 bits times m, over 8 (monotone in ``h`` for every size)."""
    return np.int64(((h >> np.uint64(61 - form[Q])) * np.uint64(form[SCALE])) >> np.uint64(3))


@_inline
def pack(block: Array, row: int, shifts: Array) -> Any:  # a numpy uint64
    """The key of ``block[row]``: its ids as bit fields."""
    key = np.uint64(0)
    for i in range(shifts.shape[0]):
        key |= np.uint64(block[row, i]) << np.uint64(shifts[i])
    return key


@_inline
def unpack(key: Any, shifts: Array, masks: Array, out: Array, row: int) -> None:
    """``out[row]`` ← the ids of ``key``."""
    for i in range(shifts.shape[0]):
        out[row, i] = np.int64((key >> np.uint64(shifts[i])) & np.uint64(masks[i]))


@jit
def _place(table: Array, slot: int, key1: Any) -> int:
    """The first free slot at or after ``slot`` (``key1`` = key + 1 written there), or −1
    when the cluster runs past the tail (nothing written)."""
    end = table.shape[0]
    while table[slot] != 0:
        slot += 1
        if slot == end:
            return -1
    table[slot] = key1
    return slot


@jit
def insert_keys(table: Array, form: Array, keys: Array, count: int) -> int:
    """Put ``keys[:count]`` (distinct, not in the table) into it; how many went in before a
    cluster ran past the tail (``count``: all)."""
    for i in range(count):
        key = keys[i]
        if _place(table, home(key_hash(key), form), key + np.uint64(1)) < 0:
            return i
    return count


@jit
def spread(table: Array, old_end: int, form: Array, stash: Array) -> int:
    """Move the keys of slots 0 … ``old_end`` − 1 (a table of a smaller ``form``, its tail
    included) to their places in the table of ``form`` that the same memory now holds
    (the slots from ``old_end`` on are free): 0, or −1 − the keys left in ``stash``.

    From the top down: a key is taken out of its slot, then put at the first free slot
    from its new home on.  Homes only grow with the table, so that slot lies at or above
    the one it was taken from, among slots already done, unless its cluster started far
    below its home (the first slots only): such a key goes to ``stash`` and is
    inserted at the end.  Negative when ``stash`` is full or a cluster ran past the
    tail: the keys are then in ``table`` and at the front of ``stash``, each once, for
    a rebuild."""
    held = 0
    for j in range(old_end - 1, -1, -1):
        e = table[j]
        if e == 0:
            continue
        table[j] = 0
        at = home(key_hash(e - np.uint64(1)), form)
        if at < j or _place(table, at, e) < 0:
            if held == stash.shape[0]:
                table[j] = e
                return -1 - held
            stash[held] = e - np.uint64(1)
            held += 1
    done = insert_keys(table, form, stash, held)
    if done < held:
        # the keys not inserted stay in the stash, at its front
        for i in range(held - done):
            stash[i] = stash[done + i]
        return -1 - (held - done)
    return 0


@_inline
def _lookup(table: Array, slot: int, key1: Any) -> int:
    """The slot holding ``key1`` from ``slot`` on (≥ 0), or −1 − the free slot ending the
    cluster, or ``−1 − len(table)`` when the cluster runs past the tail."""
    end = int(table.shape[0])
    while True:
        e = table[slot]
        if e == key1:
            return slot
        if e == 0:
            return -1 - slot
        slot += 1
        if slot == end:
            return -1 - end


@jit
def packed_bfs(heap: Array, plan: Array, starts: Array, shifts: Array, masks: Array,
               table: Array, form: Array, load: int, queue: Array, parent: Array, via: Array,
               crows: Array, cfinal: Array, wc: int, values: Array, head: int, settle: int,
               found_at: Array, cursor: Array, cap: int, src: Array, block: Array, keys: Array,
               slots: Array, origin: Array, quantum: int) -> int:
    """Breadth-first walk from state 0 (the key in ``queue[0]``), as
    :func:`sdg_automata.kernels.automaton.bfs` without transition rows: the same states
    numbered the same, ``parent``/``via`` the same tree, ``found_at`` the same first
    states of the values, the same statuses.

    FULL when the table would pass ``load`` keys, when the frontier would not fit
    ``queue``, or when a cluster runs past the tail (``cursor[OVERFLOW]`` = 1): the
    driver grows them and calls again.  In blocks of :data:`BATCH` successors (steps and
    keys first, their homes prefetched, then the lookups in order), as
    :func:`~sdg_automata.kernels.automaton.bfs` (the prefetch: 1.28–1.32× → 1.10–1.13× the C
    floor's CPU on bench_floor's binary 1.3·10⁷-state row).

    The scratch is the caller's
    (:meth:`~sdg_automata.search.compiled.packed.PackedStore.scratch`), so that the kernel
    allocates nothing (a native entry point may not: :mod:`sdg_automata.kernels.native`):
    ``src`` (1 ×
    fields int32), ``block`` (:data:`BATCH` × fields int32), ``keys`` (uint64),
    ``slots`` and ``origin`` (int64; s·letters + k, −1 − that: no successor), each of
    :data:`BATCH`.
    """
    fields = shifts.shape[0]
    groups = fields - wc
    letters = starts.shape[0]
    capacity = parent.shape[0]
    qmask = queue.shape[0] - 1
    n, sid, k = cursor[N], cursor[SID], cursor[LETTER]
    cursor[OVERFLOW] = 0
    work = 0
    status = DONE
    while sid < n and status == DONE:
        if n + BATCH >= capacity or n + BATCH >= load or n + BATCH - sid > qmask:
            status = FULL
            break
        m = 0  # the block: successors of (sid, k), (sid, k + 1), … in order
        s, c = sid, k
        unpacked = -1
        missed = False
        while m < BATCH and s < n:
            if unpacked != s:
                unpack(queue[s & qmask], shifts, masks, src, 0)
                unpacked = s
            code = s * letters + c
            d = crows[c, src[0, groups]] if wc else 0
            if d < 0:  # the constraint dies: no successor
                origin[m] = -1 - code
            else:
                if wc:
                    block[m, groups] = d
                if step(heap, plan, starts[c], src, 0, block, m):
                    missed = True
                    break
                origin[m] = code
                key = pack(block, m, shifts)
                keys[m] = key
                slots[m] = home(key_hash(key), form)
                prefetch(table, slots[m])
            m += 1
            c += 1
            if c == letters:
                c = 0
                s += 1
        for j in range(m):  # the lookups, in order
            code = origin[j]
            dead = code < 0
            if dead:
                code = -1 - code
            s, c = code // letters, code % letters
            if not dead:
                key1 = keys[j] + np.uint64(1)
                found = _lookup(table, slots[j], key1)
                if found < 0:
                    slot = -1 - found
                    if slot == table.shape[0]:  # the cluster runs past the tail
                        sid, k = s, c
                        cursor[OVERFLOW] = 1
                        status = FULL
                        break
                    if n == cap:
                        sid, k = s, c
                        status = CAP
                        break
                    work += 1
                    table[slot] = key1
                    queue[n & qmask] = keys[j]
                    parent[n] = s
                    via[n] = c
                    n += 1
                    if settle >= 0 and first_value(values, found_at, block, j, head, groups,
                                                   wc, cfinal, n - 1, settle):
                        status = FOUND
                else:
                    work += 1
            sid, k = (s + 1, 0) if c + 1 == letters else (s, c + 1)
            if status == FOUND:
                break
        if status == DONE and missed:
            status = MISS
        elif status == DONE and work >= quantum:
            status = PAUSE
    cursor[N], cursor[SID], cursor[LETTER], cursor[WORK] = n, sid, k, work
    return status
