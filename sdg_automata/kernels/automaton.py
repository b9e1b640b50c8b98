"""Kernels over the compiled step of the Step 1–5 automaton (numba).

Every walk of the implicit automaton that runs long has a kernel here, over
states stored as vectors of per-group part ids
(:class:`~sdg_automata.search.compiled.tables.StepTables`):

* :func:`bfs` — the breadth-first walk behind both the on-the-fly search
  (reference: ``sdg_automata.search.strategies.bfs._bfs_python``) and the exploration with its
  transition rows (reference: :func:`sdg_automata.automaton.crawl.crawl` as
  ``GrundyAutomaton.explore`` calls it);
* :func:`dfs` — the depth-first search (reference:
  ``sdg_automata.search.strategies.dfs._dfs_python``);
* :func:`walk` and :func:`meet` — the two phases of Brent's cycle detection on
  a one-letter walk (reference: ``sdg_automata.search.strategies.lasso._lasso_python``);
* one level of the breadth-first walk sharded over a cluster
  (:mod:`sdg_automata.search.sharded`) is in :mod:`sdg_automata.kernels.sharded`
  (reference: :func:`bfs`).

They share :func:`~sdg_automata.kernels.step.step` and the state store (an
open-addressing table of record numbers over the rows of ``records``) of
:mod:`sdg_automata.kernels.step`, which also defines the protocol below; the walk
over the compact store is in :mod:`sdg_automata.kernels.compact`.  numba's
on-disk cache is keyed on every kernel source (:mod:`sdg_automata.kernels.cachekey`),
so a kernel may call the kernels of another file.

Protocol: a kernel never raises and never calls Python.  It works until it
is done or needs Python, and returns a status (``DONE``, ``MISS``: a step table
lacks an entry, ``FULL``: an array needs room, ``PAUSE``: the work quantum is spent,
so the budget, progress and Ctrl-C can be checked, ``FOUND``, ``CAP``: the state
budget; all in :mod:`sdg_automata.kernels.step`) with everything needed to resume in
its cursor array.  The driver (:mod:`sdg_automata.search.compiled.drive`) handles it
and calls again.
"""

from __future__ import annotations

import numpy as np

from . import jit
from .protocol import (
    CAP,
    DEAD,
    DEPTH,
    DONE,
    FOUND,
    FULL,
    HARE,
    LETTER,
    MAX_LOAD_PERCENT,
    MET,
    MISS,
    OTHER,
    PAUSE,
    POS,
    SID,
    SPARE,
    STEPS,
    TORTOISE,
    VALUE,
    WORK,
    N,
)
from .step import (
    Array,
    _find,
    _hash,
    _probe,
    first_value,
    prefetch,
    step,
)

__all__ = ["HARE", "OTHER", "SPARE", "TORTOISE", "bfs", "dfs", "meet", "tree_count", "tree_fill",
           "walk"]


@jit
def bfs(heap: Array, plan: Array, starts: Array, records: Array, table: Array, tags: Array,
        parent: Array, via: Array, rows: Array, keep_rows: bool, crows: Array, cfinal: Array,
        wc: int, values: Array, head: int, settle: int, found_at: Array, cursor: Array,
        cap: int, block: Array, hashes: Array, origin: Array, quantum: int) -> int:
    """Breadth-first walk from record 0, as ``strategies.bfs._bfs_python`` and ``crawl``.

    ``records[s]`` holds state s (G part ids, then the constraint's state when
    ``wc`` is 1); ``parent``/``via`` keep the tree; with ``keep_rows``,
    ``rows[s, k]`` is the successor of s on letter k (-1: none).  With ``settle``
    ≥ 0, the first state of each value ``values[part of group head]`` (where the
    constraint accepts) goes to ``found_at``, and a value ≥ ``settle`` ends the
    walk (FOUND).  Numbering state ``cap`` is over the budget (CAP; ``cap`` -1:
    none).  Returns after about ``quantum`` steps (PAUSE).

    In blocks of successors (``block.shape[0]``, the driver's
    :data:`~sdg_automata.kernels.protocol.BATCH`): their steps and hashes first, each
    with a :func:`~sdg_automata.kernels.step.prefetch` of its home slot's lines (as the C
    floor's ``__builtin_prefetch``), then their lookups in order, so that the lookups'
    cache misses overlap (measured 1.1–1.3× faster than one successor at a time, before
    the prefetch; a mispredicted probe branch ends the processor's own overlap); the
    states are numbered exactly as one at a time would number them.  The block's
    scratch comes from the caller (a native entry allocates nothing:
    :mod:`~sdg_automata.kernels.records_native`): ``block`` (rows × the records' width,
    their type), ``hashes`` (uint64) and ``origin`` (int64), as many rows each.
    """
    width = records.shape[1]
    groups = width - wc
    letters = starts.shape[0]
    capacity = records.shape[0]
    load = (table.shape[0] * MAX_LOAD_PERCENT) // 100
    mask = table.shape[0] - 1
    batch = block.shape[0]  # origin: s·letters + k; −1 − that: no successor
    n, sid, k = cursor[N], cursor[SID], cursor[LETTER]
    work = 0
    status = DONE
    while sid < n and status == DONE:
        if n + batch >= capacity or n + batch >= load:
            status = FULL
            break
        m = 0  # the block: successors of (sid, k), (sid, k + 1), … in order
        s, c = sid, k
        missed = False
        while m < batch and s < n:
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
                slot = np.int64(hashes[m] & np.uint64(mask))  # its lines, for the lookups
                prefetch(table, slot)
                prefetch(tags, slot)
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
                    if settle >= 0 and first_value(values, found_at, records, r, head, groups,
                                                   wc, cfinal, r, settle):
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
    """Depth-first search as ``strategies.dfs._dfs_python``: the stored states are the visited set;
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


@jit
def walk(heap: Array, plan: Array, at: int, letter: int, crows: Array, cfinal: Array, wc: int,
         values: Array, head: int, settle: int, first: Array, record: int, cur: Array,
         limit: int, cursor: Array, quantum: int) -> int:
    """Move the hare (``cur[HARE]``) along the one-letter walk by up to ``limit`` steps:
    one round of Brent's cycle detection (``strategies.lasso._lasso_python`` is the reference).

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
def tree_count(parent: Array, via: Array, s: int) -> int:
    """The runs of letters on the tree path from state 0 to ``s``
    (:func:`sdg_automata.kernels.bfs_native.tree_runs`)."""
    runs = 0
    last = -1
    t = s
    while t > 0:
        if via[t] != last:
            runs += 1
            last = via[t]
        t = parent[t]
    return runs


@jit
def tree_fill(parent: Array, via: Array, s: int, letters: Array, counts: Array) -> None:
    """``letters``, ``counts`` (of :func:`tree_count` entries, ``counts`` zero) ← the runs of
    the tree path from state 0 to ``s``, in the order they were read."""
    i = letters.shape[0]
    last = -1
    t = s
    while t > 0:
        if via[t] != last:
            i -= 1
            letters[i] = via[t]
            last = via[t]
        counts[i] += 1
        t = parent[t]

