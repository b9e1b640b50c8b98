"""Kernels over the compiled step of the Step 1–5 automaton (numba).

Every walk of the implicit automaton that runs long has a kernel here, over
states stored as vectors of per-group part ids
(:class:`~sdg_automata.automaton.vectors.StepTables`):

* :func:`step` — δ(q, a) by table lookups; the reference it must equal is
  :meth:`GrundyAutomaton.step <sdg_automata.automaton.construction.GrundyAutomaton.step>`
  (``step_reference`` behind the memo);
* :func:`bfs` — the breadth-first walk behind both the on-the-fly search
  (reference: ``sdg_automata.search.decide._bfs``) and the exploration with its
  transition rows (reference: :func:`sdg_automata.automaton.crawl.crawl` as
  ``GrundyAutomaton.explore`` calls it);
* :func:`dfs` — the depth-first search (reference: ``sdg_automata.search.decide._dfs``);
* :func:`walk` and :func:`meet` — the two phases of Brent's cycle detection on
  a one-letter walk (reference: ``sdg_automata.search.decide._lasso``);
* :func:`compact_bfs` — the breadth-first walk over the exact compact table
  (:func:`admit`, :func:`migrate`; :class:`sdg_automata.search.walks.CompactStore`;
  reference: :func:`bfs`, whose states and numbers it must equal);
* :func:`expand`, :func:`by_owner`, :func:`absorb` and :func:`renumber` — one
  level of the breadth-first walk sharded over a cluster
  (:mod:`sdg_automata.search.sharded`; reference: :func:`bfs`).

They share :func:`step` and the state store (an open-addressing table of
record numbers over the rows of ``records``), so they live in one module:
numba's on-disk cache is invalidated by changes to the file that defines a
kernel, not to the files it calls.

Protocol: a kernel never raises and never calls Python.  It works until it
is done or needs Python, and returns a status (:data:`DONE`, :data:`MISS`: a
step table lacks an entry, :data:`FULL`: an array needs room, :data:`PAUSE`:
the work quantum is spent, so the budget, progress and Ctrl-C can be checked,
:data:`FOUND`, :data:`CAP`: the state budget) with everything needed to resume
in its cursor array.  The driver (:mod:`sdg_automata.search.walks`) handles it and
calls again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import jit

#: a numpy array (numba types it at the call)
Array = Any

__all__ = ["CAP", "DEAD", "DONE", "FOUND", "FULL", "MET", "MISS", "PAUSE", "absorb", "admit",
           "bfs", "by_owner", "climb", "compact_bfs", "decode", "dfs", "expand", "key_of", "meet",
           "migrate", "rehash", "renumber", "scramble", "step", "tree_runs", "unscramble", "walk"]

#: statuses a kernel returns
DONE, MISS, FULL, PAUSE, FOUND, CAP, MET, DEAD = range(8)

# cursor fields (int64 array shared by the kernels and their driver)
#: states stored, state being expanded, next letter, work done since the last return
N, SID, LETTER, WORK = range(4)
#: the value found (FOUND), the depth of the path (dfs)
VALUE, DEPTH = 4, 5
#: lasso: the hare's position, the steps of this round
POS, STEPS = 6, 7

#: the open-addressing table is kept at most this full (percent; the drivers grow it)
MAX_LOAD_PERCENT = 70

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xFF51AFD7ED558CCD)


@jit
def step(heap: Array, plan: Array, at: int, src: Array, srow: int, dst: Array,
         drow: int) -> int:
    """dst[drow] ← δ(src[srow], a), a the letter whose plan starts at ``plan[at]``: one
    instruction per group (``sdg_automata.automaton.vectors._instruction`` documents them; states
    are rows of 2-D arrays, so no view is made in the hot loop).

    Every table covers every id that exists, so an entry is read without a bounds
    check; ``-1`` is an entry not learned yet: the function returns 1 (the row is
    then garbage) and the caller asks Python to learn the step
    (:meth:`StepTables.learn <sdg_automata.automaton.vectors.StepTables.learn>`).  Else 0.
    """
    entries = plan[at]
    at += 1
    for _ in range(entries):
        kind = plan[at]
        g = plan[at + 1]
        if kind == 0:  # idle
            dst[drow, g] = 0
            at += 2
            continue
        if kind == 1:  # one old part
            c = heap[plan[at + 3] + src[srow, plan[at + 2]]]
            at += 4
        elif kind == 2:  # two old parts
            c = heap[plan[at + 4] + src[srow, plan[at + 2]] * plan[at + 5]
                     + src[srow, plan[at + 3]]]
            at += 6
        elif kind == 3:  # r projected new parts
            r = plan[at + 2]
            at += 3
            lv = at + 2 * r
            c = heap[plan[at + 1] + dst[drow, plan[at]]]
            if c < 0:
                return 1
            for _j in range(1, r):
                at += 2
                p = heap[plan[at + 1] + dst[drow, plan[at]]]
                if p < 0:
                    return 1
                c = heap[plan[lv] + c * plan[lv + 1] + p]
                if c < 0:
                    return 1
                lv += 2
            at = lv
        else:  # any mix
            r = plan[at + 2]
            at += 3
            lv = at + 3 * r
            c = 0
            for j in range(r):
                p = dst[drow, plan[at]] if plan[at + 1] else src[srow, plan[at]]
                if plan[at + 2] >= 0:
                    p = heap[plan[at + 2] + p]
                    if p < 0:
                        return 1
                at += 3
                if j == 0:
                    c = p
                    if r > 1:
                        continue
                    p = 0
                c = heap[plan[lv] + c * plan[lv + 1] + p]
                lv += 2
                if c < 0:
                    return 1
            at = lv
        if c < 0:
            return 1
        dst[drow, g] = c
    return 0


@jit
def _hash(records: Array, row: int) -> Any:  # a numpy uint64
    """64 bits of hash of ``records[row]`` (multiply–xorshift per word, then a final mix)."""
    h = _GOLDEN
    for i in range(records.shape[1]):
        h = (h ^ np.uint64(records[row, i])) * _GOLDEN
        h ^= h >> np.uint64(29)
    h ^= h >> np.uint64(32)
    h *= _MIX
    h ^= h >> np.uint64(29)
    return h


@jit
def _find(records: Array, row: int, table: Array, tags: Array) -> tuple[int, int, int]:
    """(slot, number, tag) of the stored record equal to ``records[row]``; number -1:
    none (the slot is then free for it).  Linear probing over a power-of-two table of
    record numbers (+1; 0 is free); ``tags[slot]`` holds 8 other bits of the record's
    hash, so a probe reads a record only when its tag matches (1 in 256 by chance)."""
    width = records.shape[1]
    h = _hash(records, row)
    tag = np.int64(h >> np.uint64(56))
    mask = table.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    while True:
        e = table[slot]
        if e == 0:
            return slot, -1, tag
        if tags[slot] == tag:
            r = e - 1
            same = True
            for i in range(width):
                if records[r, i] != records[row, i]:
                    same = False
                    break
            if same:
                return slot, r, tag
        slot = (slot + 1) & mask


@jit
def rehash(records: Array, n: int, table: Array, tags: Array) -> None:
    """Put records 0 … n−1 (distinct) into the zeroed ``table`` and its ``tags``.

    In blocks: the hashes of 32 records first, then their 32 insertions, whose
    random accesses the processor overlaps (2.5× faster than one at a time)."""
    block = 32
    slots = np.empty(block, dtype=np.int64)
    marks = np.empty(block, dtype=np.int64)
    mask = table.shape[0] - 1
    for base in range(0, n, block):
        m = min(block, n - base)
        for j in range(m):
            h = _hash(records, base + j)
            marks[j] = np.int64(h >> np.uint64(56))
            slots[j] = np.int64(h & np.uint64(mask))
        for j in range(m):
            slot = slots[j]
            while table[slot] != 0:
                slot = (slot + 1) & mask
            table[slot] = base + j + 1
            tags[slot] = marks[j]


#: successors a breadth-first kernel computes before it looks them up (the store keeps
#: room for this many new states beyond the last)
BATCH = 64


@jit
def _probe(table: Array, tags: Array, records: Array, block: Array, row: int, tag: int,
           slot: int, mask: int) -> tuple[int, int]:
    """(the number of the stored record equal to ``block[row]``, or −1; the slot where the
    linear probe from ``slot`` ended): a record is read only where the 8-bit tag matches."""
    width = records.shape[1]
    while True:
        e = table[slot]
        if e == 0:
            return -1, slot
        if tags[slot] == tag:
            same = True
            for c in range(width):
                if records[e - 1, c] != block[row, c]:
                    same = False
                    break
            if same:
                return e - 1, slot
        slot = (slot + 1) & mask


@jit
def bfs(heap: Array, plan: Array, starts: Array, records: Array, table: Array, tags: Array,
        parent: Array, via: Array, rows: Array, keep_rows: bool, crows: Array, cfinal: Array,
        wc: int, values: Array, head: int, settle: int, found_at: Array, cursor: Array,
        cap: int, quantum: int) -> int:
    """Breadth-first walk from record 0, as ``decide._bfs`` and ``crawl``.

    ``records[s]`` holds state s (G part ids, then the constraint's state when
    ``wc`` is 1); ``parent``/``via`` keep the tree; with ``keep_rows``,
    ``rows[s, k]`` is the successor of s on letter k (-1: none).  With ``settle``
    ≥ 0, the first state of each value ``values[part of group head]`` (where the
    constraint accepts) goes to ``found_at``, and a value ≥ ``settle`` ends the
    walk (FOUND).  Numbering state ``cap`` is over the budget (CAP; ``cap`` -1:
    none).  Returns after about ``quantum`` steps (PAUSE).

    In blocks of :data:`BATCH` successors: their steps and hashes first, then
    their lookups in order, so that the processor overlaps the lookups' random
    accesses (measured 1.1–1.3× faster than one successor at a time); the
    states are numbered exactly as one at a time would number them.
    """
    width = records.shape[1]
    groups = width - wc
    letters = starts.shape[0]
    capacity = records.shape[0]
    load = (table.shape[0] * MAX_LOAD_PERCENT) // 100
    mask = table.shape[0] - 1
    block = np.empty((BATCH, width), dtype=records.dtype)
    hashes = np.empty(BATCH, dtype=np.uint64)
    origin = np.empty(BATCH, dtype=np.int64)  # s·letters + k; -1 − that: no successor
    n, sid, k = cursor[N], cursor[SID], cursor[LETTER]
    work = 0
    status = DONE
    while sid < n and status == DONE:
        if n + BATCH >= capacity or n + BATCH >= load:
            status = FULL
            break
        m = 0  # the block: successors of (sid, k), (sid, k + 1), … in order
        s, c = sid, k
        missed = False
        while m < BATCH and s < n:
            code = s * letters + c
            d = crows[c, records[s, groups]] if wc else 0
            if d < 0:  # the constraint dies: no successor
                origin[m] = -1 - code
            else:
                if wc:
                    block[m, groups] = d
                if step(heap, plan, starts[c], records, s, block, m):
                    missed = True
                    break
                origin[m] = code
                hashes[m] = _hash(block, m)
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
            r = -1
            if not dead:
                work += 1
                h = hashes[j]
                tag = np.int64(h >> np.uint64(56))
                r, slot = _probe(table, tags, records, block, j, tag,
                                 np.int64(h & np.uint64(mask)), mask)
                if r < 0:
                    if n == cap:
                        sid, k = s, c
                        status = CAP
                        break
                    r = n
                    for i in range(width):
                        records[n, i] = block[j, i]
                    table[slot] = n + 1
                    tags[slot] = tag
                    parent[n] = s
                    via[n] = c
                    n += 1
                    if settle >= 0:
                        v = values[records[r, head]]
                        if v >= 0 and found_at[v] < 0 and (wc == 0 or cfinal[records[r, groups]]):
                            found_at[v] = r
                            if v >= settle:
                                status = FOUND
            if keep_rows:
                rows[s, c] = r
            sid, k = (s + 1, 0) if c + 1 == letters else (s, c + 1)
            if status == FOUND:
                break
        if status == DONE and missed:
            status = MISS
        elif status == DONE and work >= quantum:
            status = PAUSE
    cursor[N], cursor[SID], cursor[LETTER], cursor[WORK] = n, sid, k, work
    return status


@jit
def dfs(heap: Array, plan: Array, starts: Array, records: Array, table: Array, tags: Array,
        path: Array,
        tried: Array, read: Array, crows: Array, cfinal: Array, wc: int, values: Array,
        head: int, found: Array, cursor: Array, cap: int, quantum: int) -> int:
    """Depth-first search as ``decide._dfs``: the stored states are the visited set;
    ``path``/``tried``/``read`` the current path (record, letters tried, letter read to
    enter it).  A value v met for the first time (``found[v]`` was 0) returns FOUND with
    the path ending in its state, so Python can copy the witness."""
    width = records.shape[1]
    groups = width - wc
    letters = starts.shape[0]
    capacity = records.shape[0]
    depth_cap = path.shape[0]
    load = (table.shape[0] * MAX_LOAD_PERCENT) // 100
    n, depth = cursor[N], cursor[DEPTH]
    work = 0
    status = DONE
    while depth > 0:
        c = tried[depth - 1]
        if c == letters:
            depth -= 1
            continue
        if n >= capacity or n >= load or depth >= depth_cap:
            status = FULL
            break
        src = path[depth - 1]
        if wc:
            d = crows[c, records[src, groups]]
            if d < 0:
                tried[depth - 1] = c + 1
                continue
            records[n, groups] = d
        if step(heap, plan, starts[c], records, src, records, n):
            status = MISS
            break
        tried[depth - 1] = c + 1
        work += 1
        slot, r, tag = _find(records, n, table, tags)
        if r < 0:
            if n == cap:
                status = CAP
                break
            table[slot] = n + 1
            tags[slot] = tag
            path[depth] = n
            tried[depth] = 0
            read[depth] = c
            depth += 1
            n += 1
            v = values[records[n - 1, head]]
            if v >= 0 and found[v] == 0 and (wc == 0 or cfinal[records[n - 1, groups]]):
                found[v] = 1
                cursor[VALUE] = v
                status = FOUND
                break
        if work >= quantum:
            status = PAUSE
            break
    cursor[N], cursor[DEPTH], cursor[WORK] = n, depth, work
    return status


@jit
def _advance(heap: Array, plan: Array, at: int, crows: Array, letter: int, wc: int, cur: Array,
             src: int, dst: int) -> int:
    """cur[dst] ← the successor of cur[src] on the walk's letter: 0, 1 (a miss) or 2 (the
    constraint died: no successor)."""
    groups = cur.shape[1] - wc
    if wc:
        d = crows[letter, cur[src, groups]]
        if d < 0:
            return 2
        cur[dst, groups] = d
    return step(heap, plan, at, cur, src, cur, dst)


@jit
def _same(cur: Array, a: int, b: int) -> bool:
    for i in range(cur.shape[1]):
        if cur[a, i] != cur[b, i]:
            return False
    return True


@jit
def _copy(cur: Array, src: int, dst: int) -> None:
    for i in range(cur.shape[1]):
        cur[dst, i] = cur[src, i]


#: rows of the lasso's state array
HARE, TORTOISE, SPARE, OTHER = range(4)


@jit
def walk(heap: Array, plan: Array, at: int, letter: int, crows: Array, cfinal: Array, wc: int,
         values: Array, head: int, settle: int, first: Array, record: int, cur: Array,
         limit: int, cursor: Array, quantum: int) -> int:
    """Move the hare (``cur[HARE]``) along the one-letter walk by up to ``limit`` steps:
    one round of Brent's cycle detection (``decide._lasso`` is the reference).

    After each step: with ``record``, a value met for the first time is written
    to ``first`` at the hare's position ``cursor[POS]`` (FOUND when it is ≥
    ``settle``); the walk stops when the hare equals ``cur[TORTOISE]`` (MET).
    DONE when ``limit`` steps are done (``cursor[STEPS]`` counts them), DEAD when
    the walk has no successor (the constraint died).
    """
    groups = cur.shape[1] - wc
    pos, steps = cursor[POS], cursor[STEPS]
    work = 0
    status = DONE
    while steps < limit:
        if work >= quantum:
            status = PAUSE
            break
        rc = _advance(heap, plan, at, crows, letter, wc, cur, HARE, SPARE)
        if rc == 1:
            status = MISS
            break
        if rc == 2:
            status = DEAD
            break
        _copy(cur, SPARE, HARE)
        pos += 1
        steps += 1
        work += 1
        if record:
            v = values[cur[HARE, head]]
            if v >= 0 and first[v] < 0 and (wc == 0 or cfinal[cur[HARE, groups]]):
                first[v] = pos
                if v >= settle:
                    status = FOUND
                    break
        if _same(cur, HARE, TORTOISE):
            status = MET
            break
    cursor[POS], cursor[STEPS], cursor[WORK] = pos, steps, work
    return status


@jit
def meet(heap: Array, plan: Array, at: int, letter: int, crows: Array, wc: int, cur: Array,
         cursor: Array, quantum: int) -> int:
    """Move ``cur[TORTOISE]`` and ``cur[HARE]`` together until they are equal (Brent's
    second phase: the tortoise from q₀, the hare λ ahead); ``cursor[STEPS]`` counts the
    moves (μ).  A miss (``cursor[SID]`` says whose) moves neither."""
    steps = cursor[STEPS]
    work = 0
    status = MET
    while not _same(cur, TORTOISE, HARE):
        if work >= quantum:
            status = PAUSE
            break
        if _advance(heap, plan, at, crows, letter, wc, cur, TORTOISE, SPARE) == 1:
            cursor[SID] = TORTOISE
            status = MISS
            break
        if _advance(heap, plan, at, crows, letter, wc, cur, HARE, OTHER) == 1:
            cursor[SID] = HARE
            status = MISS
            break
        _copy(cur, SPARE, TORTOISE)
        _copy(cur, OTHER, HARE)
        steps += 1
        work += 2
    cursor[STEPS], cursor[WORK] = steps, work
    return status


@jit
def tree_runs(parent: Array, via: Array, s: int) -> tuple[Array, Array]:
    """The letters of the tree path from state 0 to ``s`` as runs (letters, counts), in
    the order they were read (``crawl.tree_path`` is the reference, one letter each)."""
    runs = 0
    last = -1
    t = s
    while t > 0:  # count the runs first, so that the arrays are made once
        if via[t] != last:
            runs += 1
            last = via[t]
        t = parent[t]
    letters = np.empty(runs, dtype=np.int32)
    counts = np.zeros(runs, dtype=np.int64)
    i = runs
    last = -1
    t = s
    while t > 0:
        if via[t] != last:
            i -= 1
            letters[i] = via[t]
            last = via[t]
        counts[i] += 1
        t = parent[t]
    return letters, counts


# ---------------------------------------------------------------------------
# the compact store: an exact Cleary table of keys (sdg_automata.search.walks.CompactStore)
#
# A state's key is its record as bit fields (``fields[i]``: the shift of field i; the
# widths are the Python side's), at most 64 bits.  The table (Cleary 1984, "Compact hash
# tables using bidirectional linear probing"; laid out as the quotient filter of Bender
# et al. 2012) is ``size`` = 2^q slots of r + 3 bits: a key is scrambled by a
# bijection of its K bits (odd multiplications and xorshifts modulo 2^K), the top q
# bits are its home slot (the quotient, never stored) and the low r = K − q bits its
# remainder.  Linear probing keeps the remainders of one quotient in one sorted run,
# runs in the order of their quotients; three bits per slot (occupied: some key has
# this slot as home; continuation: not the first of its run; shifted: not in its home
# slot) let the quotient of every slot be recovered, so the table is exact (no key is
# lost or confused) and enumerable (keys are recovered for a growth or a re-encoding:
# :func:`migrate`).
#
# Layout (as the rank-and-select quotient filter of Pandey et al. 2017, without its
# offsets): blocks of 64 slots, each 3 + r uint64 words — the 64 occupied bits, the 64
# continuation bits, the 64 shifted bits, then the 64 remainders packed.  The walks
# over a cluster read 64 slots per word (popcounts, highest and lowest bits), and a
# lookup touches one block or the few its cluster spans: measured at 80 % load, 250
# ns per lookup of a present key against 760 ns for slots of r + 3 bits packed one
# after the other, whose walks read slot by slot.

#: the metadata bits of a slot (the remainder is above them)
OCCUPIED, CONTINUATION, SHIFTED = 1, 2, 4
#: geometry of a compact table (int64 array ``form``): slots, bits of a remainder field,
#: remainder bits (the same two in this layout), key bits, the most keys it may hold
SIZE, SLOT_BITS, REMAINDER_BITS, KEY_BITS, LOAD = range(5)
#: its masks and multipliers (uint64 array ``mix``): field, remainder and key masks, the
#: two odd multipliers of the scrambling and their inverses modulo 2^K
SLOT_MASK, REMAINDER_MASK, KEY_MASK, MUL1, MUL2, INV1, INV2 = range(7)
#: cursor fields of :func:`compact_bfs`: rows written to its output, rows in its input
OUT, IN = 6, 7

_ONE = np.uint64(1)


@jit
def scramble(key: Any, kbits: int, mix: Array) -> Any:
    """A bijection of the K-bit keys (an odd multiplication, a xorshift by ⌈K/2⌉, twice):
    its top bits spread the structured keys over the slots."""
    s = np.uint64((kbits + 1) // 2)
    kmask = mix[KEY_MASK]
    h = (key * mix[MUL1]) & kmask
    h ^= h >> s
    h = (h * mix[MUL2]) & kmask
    return h ^ (h >> s)


@jit
def unscramble(h: Any, kbits: int, mix: Array) -> Any:
    """The inverse of :func:`scramble` (a xorshift by ≥ K/2 is its own inverse)."""
    s = np.uint64((kbits + 1) // 2)
    kmask = mix[KEY_MASK]
    h ^= h >> s
    h = (h * mix[INV2]) & kmask
    h ^= h >> s
    return (h * mix[INV1]) & kmask


@jit
def _popcount(x: Any) -> Any:  # an int64
    """The set bits of a uint64 (SWAR: numba has no portable intrinsic)."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2))
                                                & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@jit
def _highest(x: Any) -> int:
    """The index of the highest set bit of a nonzero uint64."""
    i = 0
    for s in (32, 16, 8, 4, 2, 1):
        if x >> np.uint64(s):
            x >>= np.uint64(s)
            i += s
    return i


@jit
def _lowest(x: Any) -> int:
    """The index of the lowest set bit of a nonzero uint64."""
    return _highest(x & (~x + np.uint64(1)))


@jit
def _bit(slots: Array, blk: int, kind: int, i: int) -> Any:  # a bool
    """Slot ``i``'s bit ``kind`` (0 occupied, 1 continuation, 2 shifted)."""
    return ((slots[(i >> 6) * blk + kind] >> np.uint64(i & 63)) & np.uint64(1)
            != np.uint64(0))


@jit
def _put_bit(slots: Array, blk: int, kind: int, i: int, on: bool) -> None:
    b = np.uint64(1) << np.uint64(i & 63)
    if on:
        slots[(i >> 6) * blk + kind] |= b
    else:
        slots[(i >> 6) * blk + kind] &= ~b


@jit
def _rem(slots: Array, blk: int, w: int, wmask: Any, i: int) -> Any:
    """Slot ``i``'s remainder (``w`` bits)."""
    bit = (i & 63) * w
    word = (i >> 6) * blk + 3 + (bit >> 6)
    off = bit & 63
    v = slots[word] >> np.uint64(off)
    if off + w > 64:
        v |= slots[word + 1] << np.uint64(64 - off)
    return v & wmask


@jit
def _set_rem(slots: Array, blk: int, w: int, wmask: Any, i: int, v: Any) -> None:
    bit = (i & 63) * w
    word = (i >> 6) * blk + 3 + (bit >> 6)
    off = bit & 63
    slots[word] = (slots[word] & ~(wmask << np.uint64(off))) | (v << np.uint64(off))
    if off + w > 64:
        hi = np.uint64(64 - off)
        slots[word + 1] = (slots[word + 1] & ~(wmask >> hi)) | (v >> hi)


@jit
def _filled(slots: Array, blk: int, wi: int) -> Any:
    """The slots of block ``wi`` that hold a key: occupied or shifted (a key at its home
    sets the home's occupied bit; a key elsewhere is shifted)."""
    return slots[wi * blk] | slots[wi * blk + 2]


@jit
def _first_empty(slots: Array, blk: int, blocks: int, i: int) -> int:
    """The first slot at or after ``i`` (around the table) that holds no key."""
    wi = i >> 6
    x = ~_filled(slots, blk, wi) & (np.uint64(0xFFFFFFFFFFFFFFFF) << np.uint64(i & 63))
    while x == np.uint64(0):
        wi = (wi + 1) & (blocks - 1)
        x = ~_filled(slots, blk, wi)
    return wi * 64 + _lowest(x)


@jit
def _run_start(slots: Array, blk: int, blocks: int, fq: int) -> int:
    """Where the run of quotient ``fq`` starts (or would start: the slot where its first
    key goes), ``fq``'s home holding a key.

    As the quotient filter's ``find_run_index``, a block of 64 slots at a time (by
    their bit words): back to the cluster's start b (the last slot at or before fq
    that is not shifted), count the occupied quotients in [b, fq), m; fq's run is
    the (m + 1)-th run from b (a run starts at a filled slot that is no
    continuation), or, when the cluster has only m runs, the empty slot ending it."""
    ring = blocks * 64 - 1
    wi = fq >> 6
    x = ~slots[wi * blk + 2] & (np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(63 - (fq & 63)))
    while x == np.uint64(0):
        wi = (wi - 1) & (blocks - 1)
        x = ~slots[wi * blk + 2]
    b = wi * 64 + _highest(x)
    if b == fq:
        return fq
    m = 0  # occupied quotients in [b, fq), a block at a time around the table
    i = b
    while i != fq:
        wi = i >> 6
        end = fq if (fq >> 6) == wi and fq > i else (wi + 1) * 64
        span = end - i
        x = slots[wi * blk] >> np.uint64(i & 63)
        if span < 64:
            x &= (np.uint64(1) << np.uint64(span)) - np.uint64(1)
        m += _popcount(x)
        i = end & ring
    need = m + 1  # then the (m + 1)-th run start from b, unless the cluster ends first
    i = b
    while True:
        wi = i >> 6
        lo = np.uint64(i & 63)
        filled = _filled(slots, blk, wi)
        starts = (filled & ~slots[wi * blk + 1]) >> lo
        empty = ~filled >> lo
        if lo:
            empty &= np.uint64(0xFFFFFFFFFFFFFFFF) >> lo
        e = 64
        if empty != np.uint64(0):
            e = _lowest(empty)
            if e < 63:
                starts &= (np.uint64(1) << np.uint64(e + 1)) - np.uint64(1)
        c = _popcount(starts)
        if c >= need:
            for _ in range(need - 1):
                starts &= starts - np.uint64(1)
            return (i + _lowest(starts)) & ring
        if e < 64:
            return (i + e) & ring
        need -= c
        i = ((wi + 1) * 64) & ring


@jit
def admit(slots: Array, form: Array, mix: Array, key: Any) -> bool:
    """Put ``key`` in the table unless it is there; whether it was new.

    The insertion of the quotient filter (``qf_insert`` of vedantk/quotient-filter,
    after Cleary): find the run of the key's quotient (:func:`_run_start`), look for
    the remainder in it (sorted, so the scan stops at a larger one), and move the keys
    after it right by one up to the first empty slot, each slot's occupied bit
    staying where it is.  ``slots`` is blocks of 64 slots, 3 + ``w`` words each:
    the slots' occupied, continuation and shifted bits, then their remainders of
    ``w`` bits (a lookup reads one block, or the few of its cluster).  The
    table must have an empty slot (the drivers keep it below ``form[LOAD]``).
    """
    size, w, rbits, kbits = form[SIZE], form[SLOT_BITS], form[REMAINDER_BITS], form[KEY_BITS]
    wmask = mix[SLOT_MASK]
    blocks, blk = size >> 6, 3 + w
    smask = size - 1
    h = scramble(key, kbits, mix)
    fq = np.int64(h >> np.uint64(rbits))
    fr = h & mix[REMAINDER_MASK]
    had_run = _bit(slots, blk, 0, fq)
    if not had_run and not _bit(slots, blk, 2, fq):  # an empty home: alone in its cluster
        _set_rem(slots, blk, w, wmask, fq, fr)
        _put_bit(slots, blk, 0, fq, True)
        return True
    s = start = _run_start(slots, blk, blocks, fq)
    if had_run:
        while True:  # the place of fr in the sorted run
            rem = _rem(slots, blk, w, wmask, s)
            if rem == fr:
                return False
            if rem > fr:
                break
            s = (s + 1) & smask
            if not _bit(slots, blk, 1, s):
                break
    else:
        _put_bit(slots, blk, 0, fq, True)
    e = _first_empty(slots, blk, blocks, s)
    j = e
    while j != s:  # the keys in [s, e) one slot right, continuation bits with them
        i = (j - 1) & smask
        _set_rem(slots, blk, w, wmask, j, _rem(slots, blk, w, wmask, i))
        _put_bit(slots, blk, 1, j, _bit(slots, blk, 1, i))
        _put_bit(slots, blk, 2, j, True)
        j = i
    _set_rem(slots, blk, w, wmask, s, fr)
    _put_bit(slots, blk, 2, s, s != fq)
    if had_run and s == start:  # the new first of the run: the old first continues it
        _put_bit(slots, blk, 1, s, False)
        _put_bit(slots, blk, 1, (s + 1) & smask, True)
    else:
        _put_bit(slots, blk, 1, s, had_run)
    return True


@jit
def key_of(rows: Array, row: int, fields: Array) -> Any:
    """The key of ``rows[row]``: its ids as bit fields at the shifts ``fields``."""
    key = np.uint64(0)
    for i in range(rows.shape[1]):
        key |= np.uint64(rows[row, i]) << fields[i]
    return key


@jit
def decode(key: Any, fields: Array, widths: Array, out: Array, row: int) -> None:
    """``out[row]`` ← the record of ``key`` (the inverse of :func:`key_of`)."""
    for i in range(out.shape[1]):
        out[row, i] = (key >> fields[i]) & ((_ONE << widths[i]) - _ONE)


@jit
def migrate(old: Array, oform: Array, omix: Array, ofields: Array, owidths: Array,
            new: Array, nform: Array, nmix: Array, nfields: Array, scratch: Array) -> int:
    """Every key of the table ``old`` into the empty table ``new`` (another size, other
    field widths); returns how many.  The walk starts after an empty slot, so at a
    cluster's start, and recovers each slot's quotient as the quotient filter's
    iterator does: a cluster's first slot is its own home, and each next run belongs
    to the next occupied slot.  ``scratch`` is one record row."""
    size, w, rbits, kbits = oform[SIZE], oform[SLOT_BITS], oform[REMAINDER_BITS], oform[KEY_BITS]
    wmask = omix[SLOT_MASK]
    blocks, blk = size >> 6, 3 + w
    smask = size - 1
    e = _first_empty(old, blk, blocks, 0)
    quotient = 0
    moved = 0
    i = (e + 1) & smask
    for _ in range(size):
        occupied, shifted = _bit(old, blk, 0, i), _bit(old, blk, 2, i)
        if occupied or shifted:
            continues = _bit(old, blk, 1, i)
            if not shifted and not continues:  # a cluster's start
                quotient = i
            elif not continues:  # the next run: the next occupied slot
                quotient = (quotient + 1) & smask
                while not _bit(old, blk, 0, quotient):
                    quotient = (quotient + 1) & smask
            h = (np.uint64(quotient) << np.uint64(rbits)) | _rem(old, blk, w, wmask, i)
            decode(unscramble(h, kbits, omix), ofields, owidths, scratch, 0)
            admit(new, nform, nmix, key_of(scratch, 0, nfields))
            moved += 1
        i = (i + 1) & smask
    return moved


@jit
def compact_bfs(heap: Array, plan: Array, starts: Array, slots: Array, form: Array,
                mix: Array, fields: Array, inrec: Array, base: int, outrec: Array,
                outcode: Array, block: Array, crows: Array, cfinal: Array, wc: int,
                values: Array, head: int, settle: int, found_at: Array, cursor: Array,
                cap: int, quantum: int) -> int:
    """:func:`bfs` over the compact table: the same states in the same order, numbered
    the same, with the same first state of each value (``found_at``).

    The visited set is the table (``slots``, :func:`admit`); the frontier comes in as
    ``inrec`` (records of states ``base`` … ``base + cursor[IN]`` − 1) and every new
    state goes out as its record (``outrec``) and its tree code, parent·letters +
    letter (``outcode``), ``cursor[OUT]`` rows so far, the states n − ``cursor[OUT]``
    … n − 1; the driver spools them to files and brings them back as the next input,
    and a state still in the output is expanded from there (a narrow frontier never
    leaves this call).  FULL when the next state is in neither, the output lacks room
    for one state's successors, or the table reaches ``form[LOAD]``; the successors
    of one state are computed first (``block``), then looked up in order.
    """
    width = inrec.shape[1]
    groups = width - wc
    letters = starts.shape[0]
    load = form[LOAD]
    room = outrec.shape[0]
    n, sid, k = cursor[N], cursor[SID], cursor[LETTER]
    out, avail = cursor[OUT], cursor[IN]
    work = 0
    status = DONE
    while sid < n:
        if out + letters > room or n + letters > load:
            status = FULL
            break
        if sid - base < avail:
            rows, src = inrec, sid - base
        elif sid >= n - out:  # a state of this call's output (a narrow frontier)
            rows, src = outrec, sid - (n - out)
        else:  # in the spool
            status = FULL
            break
        m = k  # successors k … m − 1 computed (a miss stops at m)
        missed = False
        for c in range(k, letters):
            if wc:
                d = crows[c, rows[src, groups]]
                block[c, groups] = d
                if d < 0:  # the constraint dies: no successor
                    m = c + 1
                    continue
            if step(heap, plan, starts[c], rows, src, block, c):
                missed = True
                break
            m = c + 1
        for c in range(k, m):
            if wc and block[c, groups] < 0:
                continue
            work += 1
            if not admit(slots, form, mix, key_of(block, c, fields)):
                continue
            if n == cap:  # over the budget: the walk ends here (the key's insertion is moot)
                k = c
                status = CAP
                break
            for i in range(width):
                outrec[out, i] = block[c, i]
            outcode[out] = sid * letters + c
            out += 1
            n += 1
            if settle >= 0:
                v = values[block[c, head]]
                if v >= 0 and found_at[v] < 0 and (wc == 0 or cfinal[block[c, groups]]):
                    found_at[v] = n - 1
                    if v >= settle:
                        k = c + 1
                        status = FOUND
                        break
        if status != DONE:
            break
        if missed:
            k = m
            status = MISS
            break
        sid += 1
        k = 0
        if work >= quantum:
            status = PAUSE
            break
    cursor[N], cursor[SID], cursor[LETTER], cursor[WORK] = n, sid, k, work
    cursor[OUT] = out
    return status


@jit
def climb(codes: Array, base: int, letters: int, t: int, runs: Array, cursor: Array) -> int:
    """Up the breadth-first tree from state ``t`` while its code is in ``codes`` (the codes
    of states ``base`` …), appending the letters read as runs, last first, to ``runs``
    (rows (letter, count); ``cursor[0]`` rows so far, ``cursor[1]`` the last letter);
    returns the state reached (0: the root; else below ``base``, or -1 − t when
    ``runs`` is full)."""
    m, last = cursor[0], cursor[1]
    while t > 0 and t >= base:
        code = codes[t - base]
        c = code % letters
        if c != last:
            if m == runs.shape[0]:
                cursor[0], cursor[1] = m, last
                return -1 - t
            runs[m, 0] = c
            runs[m, 1] = 0
            m += 1
            last = c
        runs[m - 1, 1] += 1
        t = code // letters
    cursor[0], cursor[1] = m, last
    return t


# ---------------------------------------------------------------------------
# the sharded breadth-first search (reference: ``bfs`` with ``settle``; driver:
# :mod:`sdg_automata.search.sharded`): each shard of a cluster expands its part of a level,
# routes the successors to the shards owning them, and dedupes what it receives

#: the seed of the owner hash: any constant other than the table hash's start, so that
#: which shard owns a state and where the shard's table puts it are independent
_OWNER_SEED = np.uint64(0xD1B54A32D192ED03)


@jit
def _owner(keys: Array, block: Array, row: int, groups: int, wc: int, shards: int) -> int:
    """The shard owning the state ``block[row]``: a hash of its parts' canonical keys
    (``keys[g, id]``: the same for the same part on every shard, whatever its id there),
    and of the constraint's state, reduced modulo ``shards``."""
    h = _OWNER_SEED
    for g in range(groups):
        h = (h ^ keys[g, block[row, g]]) * _GOLDEN
        h ^= h >> np.uint64(31)
    if wc:
        h = (h ^ np.uint64(block[row, groups] + 1)) * _GOLDEN
    h ^= h >> np.uint64(32)
    h *= _MIX
    h ^= h >> np.uint64(29)
    return int(h % np.uint64(shards))


@jit
def expand(heap: Array, plan: Array, starts: Array, records: Array, gids: Array, hi: int,
           crows: Array, wc: int, keys: Array, shards: int, out: Array, codes: Array,
           owners: Array, cursor: Array, quantum: int) -> int:
    """The successors of states ``cursor[SID]`` … ``hi`` − 1 (from letter ``cursor[LETTER]``)
    into ``out`` from row ``cursor[N]`` on, with their codes ``gids[s]·letters + k`` (the
    parent's global number and the letter: the order of the one-process walk) and owners.

    FULL when ``out`` is full, MISS as :func:`bfs`, PAUSE after ``quantum`` steps.
    """
    width = records.shape[1]
    groups = width - wc
    letters = starts.shape[0]
    room = out.shape[0]
    sid, k, m = cursor[SID], cursor[LETTER], cursor[N]
    work = 0
    status = DONE
    while sid < hi:
        if m >= room:
            status = FULL
            break
        if work >= quantum:
            status = PAUSE
            break
        d = crows[k, records[sid, groups]] if wc else 0
        if d >= 0:
            if wc:
                out[m, groups] = d
            if step(heap, plan, starts[k], records, sid, out, m):
                status = MISS
                break
            codes[m] = gids[sid] * letters + k
            owners[m] = _owner(keys, out, m, groups, wc, shards)
            m += 1
        work += 1
        k += 1
        if k == letters:
            k = 0
            sid += 1
    cursor[SID], cursor[LETTER], cursor[N], cursor[WORK] = sid, k, m, work
    return status


@jit
def by_owner(out: Array, codes: Array, owners: Array, m: int, shards: int, sorted_out: Array,
             sorted_codes: Array, bounds: Array) -> None:
    """Rows 0 … m − 1 of ``out`` (and their codes) sorted by owner, stably, into
    ``sorted_out``: shard w's rows are ``bounds[w]`` … ``bounds[w + 1]`` − 1 (a counting
    sort: two passes, no comparison)."""
    bounds[:] = 0
    for j in range(m):
        bounds[owners[j] + 1] += 1
    for w in range(shards):
        bounds[w + 1] += bounds[w]
    at = bounds[:shards].copy()
    for j in range(m):
        w = owners[j]
        t = at[w]
        at[w] = t + 1
        for i in range(out.shape[1]):
            sorted_out[t, i] = out[j, i]
        sorted_codes[t] = codes[j]


@jit
def absorb(records: Array, table: Array, tags: Array, codes: Array, slots: Array, fresh: int,
           block: Array, bcodes: Array, cursor: Array) -> int:
    """Add the states of ``block`` (from row ``cursor[SID]`` on) not stored yet as new states
    ``cursor[N]``, … with their codes (and their table slots in ``slots``, for
    :func:`renumber`); a state stored at or after ``fresh`` (new in this level) keeps the
    least code it is reached by (the one-process walk's parent); one stored before is old.
    FULL when the store needs room (as :func:`bfs`), else DONE.

    By runs of :data:`BATCH` rows, hashes first, then lookups in order, as :func:`bfs`
    does, so that the processor overlaps the lookups' random accesses."""
    width = records.shape[1]
    capacity = records.shape[0]
    load = (table.shape[0] * MAX_LOAD_PERCENT) // 100
    mask = table.shape[0] - 1
    hashes = np.empty(BATCH, dtype=np.uint64)
    n, j = cursor[N], cursor[SID]
    total = block.shape[0]
    status = DONE
    while j < total:
        if n + BATCH >= capacity or n + BATCH >= load:
            status = FULL
            break
        m = min(BATCH, total - j)
        for i in range(m):
            hashes[i] = _hash(block, j + i)
        for i in range(m):
            row = j + i
            h = hashes[i]
            tag = np.int64(h >> np.uint64(56))
            r, slot = _probe(table, tags, records, block, row, tag,
                             np.int64(h & np.uint64(mask)), mask)
            if r < 0:
                for c in range(width):
                    records[n, c] = block[row, c]
                table[slot] = n + 1
                tags[slot] = tag
                codes[n] = bcodes[row]
                slots[n] = slot
                n += 1
            elif r >= fresh and bcodes[row] < codes[r]:
                codes[r] = bcodes[row]
        j += m
    cursor[N], cursor[SID] = n, j
    return status


@jit
def renumber(records: Array, table: Array, tags: Array, codes: Array, slots: Array,
             fresh: int, n: int, moved: bool) -> None:
    """Put the new states ``fresh`` … n − 1 in the order of their codes (so that a shard's
    states are in the order of their global numbers), moving their table entries along:
    those :func:`absorb` wrote to ``slots[fresh:n]``, or, when the table was rebuilt since
    (``moved``), looked up again."""
    m = n - fresh
    order = np.argsort(codes[fresh:n])
    if moved:
        for j in range(m):
            slot, _, _ = _find(records, fresh + j, table, tags)
            slots[fresh + j] = slot
    rows = records[fresh:n].copy()
    keep = codes[fresh:n].copy()
    for i in range(m):
        j = order[i]
        for c in range(records.shape[1]):
            records[fresh + i, c] = rows[j, c]
        codes[fresh + i] = keep[j]
        table[slots[fresh + j]] = fresh + i + 1
