"""Compiled octal-game kernels: the runners of the value engine
(:class:`sdg_automata.games.octal.values._Engine`) and of its period search, each equal
to the Python reference it names.

* :func:`sparse` — ``_Engine._run_sparse``, the sparse-space method;
* :func:`full` — ``_Engine._run_full``, the mex over every option;
  with no splits, also ``_Engine._run_one_heap``;
* :func:`find_period`, :func:`first_period`, :func:`last_exception` —
  ``octal.find_period`` and ``octal.minimize``, without the O(n) temporaries
  of their numpy forms (a run of 4·10⁸ values cannot afford them).

The functions here are plain Python over numpy arrays, which numba compiles
(:func:`~sdg_automata.kernels.jit_all`); :func:`loaded` gives them to the engine,
as native code loaded without numba when a native library of them is cached
(:mod:`sdg_automata.kernels.native`: loading numba costs ten times the work of a
typical run), else as numba's dispatchers.  Either way the same machine code of
the same functions runs, allocating nothing: the engine's arrays are the only
memory.

The values live in the engine's array, of the narrowest unsigned type that
holds them (uint8, uint16, then int32); a kernel writes there in place.  The
options of a heap are marked in ``seen`` with the heap's index as a stamp,
so nothing is cleared between heaps.

A runner computes heaps ``n, n + 1, …`` until ``stop`` or until it has done
``work`` units (splits visited; about 0.1–0.2 s), and returns
``(reached, status, extra)``: the caller checks its budget and progress,
then calls again.  Ctrl-C is raised by Python on the return.  The statuses
are the module's constants :data:`DONE` … :data:`FALLBACK`.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

from .native import Entry, Library

#: the values (uint8, uint16 or int32), and the int64 arrays of heaps and stamps
Vals = npt.NDArray[Any]
Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]

__all__ = ["DONE", "FALLBACK", "GROW", "LIBRARY", "PAUSE", "RARE_FULL", "SPARSE_GAIN", "WIDEN",
           "Kernels", "find_period", "first_period", "full", "last_exception", "loaded",
           "sparse"]

#: reached ``stop``
DONE = 0
#: did ``work`` units: call again
PAUSE = 1
#: stored a value of more bits than ``seen`` covers (``extra`` = the value): grow ``seen``
GROW = 2
#: the next value does not fit the values' type (``extra`` = the value; not stored)
WIDEN = 3
#: the rare list is full: grow it
RARE_FULL = 4
#: ``"auto"`` judged the rare values not rare enough over a block of heaps (the
#: reference's _SPARSE_GAIN test): the caller runs the full mex instead
FALLBACK = 5

# The search of a rare-class value (see :func:`sparse`) learns whether the value index
# pays: its probes read random heaps, 4-6 ns a split against 1.3 for the plain scan's
# sequential ones (measured on 0.6 and 0.376), and they find the XOR of a frequent and an
# infrequent value at once (0.376: 5.7x faster with them) but are wasted where the values
# are spread evenly (0.6: 2.8x slower with them).  So _TRIAL heaps are searched with the
# probes and _TRIAL without, the cost of each counted as below, and the cheaper way runs
# for the next _EXPLOIT heaps, twice as many each time the same way wins again.
_TRIAL = 256
_EXPLOIT = 4096
_EXPLOIT_MAX = 1 << 18
#: a probed split's cost in scanned splits, and a call of the index's
_PROBE_COST = 4
_PROBE_CALL = 8
#: the kernels' ``gain`` for "auto"'s judgement (``values._SPARSE_GAIN`` is the Python
#: reference's, whose full mex is numpy's, far faster per split than its sparse loops): a
#: split costs the compiled full mex about what it costs the sparse kernel, so the full mex
#: runs only where it visits fewer splits (measured to 2^18: 0.6 1.2x, 0.56 1.7x, 0.376
#: 1.0x, 0.16 1.2x faster than with 4; 0.354 and 0.644 alike)
SPARSE_GAIN = 1
#: the fields of the search's state (``tune``, kept by :class:`Kernels` between calls)
_PHASE, _LEFT, _COST, _COST_WITH, _LIMIT, _LENGTH, _WINNER = range(7)
#: its phases: running the winner (and the state's start), trying with, trying without
_EXPLOITING, _WITH, _WITHOUT = range(3)
TUNE_FIELDS = 8


def _mex_store(g: Vals, seen: Ints, h: int, v: int, vmax: int) -> int:
    """Store 𝒢(h) = v, or say why not: (status, extra) as the runners return them."""
    if v > vmax:
        return WIDEN
    g[h] = v
    if v >= len(seen) - 1:
        return GROW
    return DONE


def _mark_one_heap(g: Vals, seen: Ints, h: int, one: Ints, terminal: Flags) -> None:
    """Stamp the options of h that leave one heap or none."""
    for k in one:
        if k < h:
            seen[g[h - k]] = h
    if h < len(terminal) and terminal[h]:
        seen[0] = h


def full(g: Vals, n: int, stop: int, one: Ints, two: Ints, terminal: Flags, seen: Ints,
         vmax: int, work: int, out: Ints) -> None:
    """``_Engine._run_full``: the mex over every option, O(h) per heap; with no
    splitting removal (``two`` empty), ``_Engine._run_one_heap``.  Writes
    ``(reached, status, extra)`` to ``out``."""
    done = 0
    for h in range(n, stop):
        _mark_one_heap(g, seen, h, one, terminal)
        for k in two:
            s = h - k
            for a in range(1, s // 2 + 1):
                seen[g[a] ^ g[s - a]] = h
            done += max(s // 2, 0)
        v = 0
        while seen[v] == h:
            v += 1
        status = _mex_store(g, seen, h, v, vmax)
        if status == WIDEN:
            out[0], out[1], out[2] = h, status, v
            return
        if status == GROW:
            out[0], out[1], out[2] = h + 1, status, v
            return
        done += len(one) + 1
        if done >= work:
            out[0], out[1], out[2] = h + 1, PAUSE, 0
            return
    out[0], out[1], out[2] = stop, DONE, 0


def _rare_class(v: int, h: int, mask: int, positional: bool, rho: int) -> bool:
    c = 0
    x = v & mask
    while x:
        c ^= 1
        x &= x - 1
    if positional:
        c ^= h & 1
    return c == rho


def _probe(g: Vals, seen: Ints, h: int, v: int, two: Ints, partners: Ints, start: Ints,
           heaps: Ints, probes: int) -> tuple[bool, int]:
    """Try the splits (a, s − a) of the value index (``octal._ValueIndex.heaps_for(v)``:
    the small heaps a whose value pairs with a frequent one to v, at most ``probes``),
    marking each; (found v, splits tried)."""
    tried = 0
    used = 0
    top = len(start) - 1
    for j in range(len(partners)):
        w = partners[j] ^ v
        if w >= top:
            continue
        for q in range(start[w], start[w + 1]):
            if used == probes:
                return False, tried
            used += 1
            a = heaps[q]
            for i in range(len(two)):
                s = h - two[i]
                if a < s:
                    tried += 1
                    x = g[a] ^ g[s - a]
                    seen[x] = h
                    if x == v:
                        return True, tried
    return False, tried


def _scan(g: Vals, seen: Ints, h: int, v: int, two: Ints, scanned: Ints, upto: int) -> bool:
    """Search the splits (a, s − a) of each splitting k, a from ``scanned[k] + 1`` to
    min(s // 2, ``upto``), marking each, until one is worth v; whether one was."""
    for i in range(len(two)):
        s = h - two[i]
        top = min(s // 2, upto)
        a = scanned[i]
        while a < top:
            a += 1
            x = g[a] ^ g[s - a]
            seen[x] = h
            if x == v:
                scanned[i] = a
                return True
        scanned[i] = a
    return False


def _tune(tune: Ints, probes: int) -> None:
    """The search's next phase, when this one's heaps are done (see ``_TRIAL``)."""
    phase = tune[_PHASE]
    if phase == _WITH:
        tune[_COST_WITH] = tune[_COST]
        tune[_PHASE], tune[_LIMIT], tune[_LEFT] = _WITHOUT, 0, _TRIAL
    elif phase == _WITHOUT:
        winner = 1 if tune[_COST_WITH] < tune[_COST] else 0
        length = _EXPLOIT
        if winner == tune[_WINNER]:
            length = min(max(2 * tune[_LENGTH], _EXPLOIT), _EXPLOIT_MAX)
        tune[_PHASE], tune[_WINNER], tune[_LENGTH] = _EXPLOITING, winner, length
        tune[_LIMIT], tune[_LEFT] = probes * winner, length
    else:  # the winner's heaps are done, or a new state (all zero): try again
        tune[_PHASE], tune[_LIMIT], tune[_LEFT] = _WITH, probes, _TRIAL
    tune[_COST] = 0


def sparse(g: Vals, n: int, stop: int, rare: Ints, rare_count: int, mask: int,
           positional: bool, rho: int, one: Ints, two: Ints, terminal: Flags, seen: Ints,
           vmax: int, work: int, judge: bool, judge_from: int, gain: int, partners: Ints,
           start: Ints, heaps: Ints, first: int, probes: int, scanned: Ints, tune: Ints,
           out: Ints) -> None:
    """``_Engine._run_sparse``: the sparse-space method.

    Every common-class option of heap h is a one-heap move or a split with a
    rare part (``rare[:rare_count]``, ascending), all marked; the least
    unmarked value is the mex when it is of the common class, else the
    common–common splits are searched until it turns up — the first ``first``
    of each splitting k, then (when the search's state ``tune`` says they pay)
    those of the value index (``partners``, ``start``, ``heaps``:
    ``octal._ValueIndex``, at most ``probes``), then the rest, from the smallest
    heap — and the next unmarked value is tried.  ``scanned`` (one entry per
    splitting k) is scratch.

    Writes ``(reached, status, extra, rare_count)`` to ``out``.
    """
    done = 0
    work_b = 0  # splits visited in this block, and what the full mex would have visited
    full_b = 0
    block = n
    nt = len(two)
    for h in range(n, stop):
        if rare_count == len(rare):
            out[0], out[1], out[2], out[3] = h, RARE_FULL, 0, rare_count
            return
        if tune[_LEFT] <= 0:
            _tune(tune, probes)
        tune[_LEFT] -= 1
        limit = tune[_LIMIT]
        _mark_one_heap(g, seen, h, one, terminal)
        for k in two:
            s = h - k
            for i in range(rare_count):
                r = rare[i]
                if r >= s:
                    break
                seen[g[r] ^ g[s - r]] = h
        for i in range(nt):
            scanned[i] = 0
        tried = 0
        calls = 0
        v = 0
        while True:
            while seen[v] == h:
                v += 1
            if not _rare_class(v, h, mask, positional, rho):
                break  # a common-class value no option has: the mex
            if _scan(g, seen, h, v, two, scanned, first):
                continue
            if limit > 0:
                calls += 1
                found, t = _probe(g, seen, h, v, two, partners, start, heaps, limit)
                tried += t
                if found:
                    continue
            if not _scan(g, seen, h, v, two, scanned, h):
                break  # every split seen: v is the mex
        status = _mex_store(g, seen, h, v, vmax)
        if status == WIDEN:
            out[0], out[1], out[2], out[3] = h, status, v, rare_count
            return
        if h >= 1 and _rare_class(v, h, mask, positional, rho):
            rare[rare_count] = h
            rare_count += 1
        sc = 0
        for i in range(nt):
            sc += scanned[i]
        tune[_COST] += sc + _PROBE_COST * tried + _PROBE_CALL * calls
        sc += tried
        work_b += rare_count * nt + sc
        full_b += nt * (h // 2)
        done += rare_count * nt + sc + 1
        if status == GROW:
            out[0], out[1], out[2], out[3] = h + 1, status, v, rare_count
            return
        if h & 1023 == 0:
            if judge and h >= judge_from and h - block >= 1024 and work_b * gain > full_b:
                out[0], out[1], out[2], out[3] = h + 1, FALLBACK, 0, rare_count
                return
            work_b = 0
            full_b = 0
            block = h
        if done >= work:
            out[0], out[1], out[2], out[3] = h + 1, PAUSE, 0, rare_count
            return
    out[0], out[1], out[2], out[3] = stop, DONE, 0, rare_count


# -- periods ------------------------------------------------------------------------------


def last_exception(g: Vals, start: int, p: int) -> int:
    """The largest i < ``start`` with 𝒢(i + p) ≠ 𝒢(i), or −1."""
    i = start - 1
    while i >= 0 and g[i + p] == g[i]:
        i -= 1
    return i


def find_period(g: Vals, n: int, t: int, w: int, out: Ints) -> None:
    """``octal.find_period`` on ``g[:n]``: (n₀, p, N) to ``out``, or (−1, −1, −1) for
    none."""
    for p in range(1, n - w + 1):
        ok = True
        for j in range(n - w, n):
            if g[j - p] != g[j]:
                ok = False
                break
        if not ok:
            continue
        n0 = last_exception(g, n - p, p) + 1
        if n - p - n0 >= p:
            out[0], out[1], out[2] = n0, p, 2 * max(n0, 1) + 2 * p + t
            return
    out[0], out[1], out[2] = -1, -1, -1


def first_period(g: Vals, n0: int, p: int, divisors: Ints) -> int:
    """The least d of ``divisors`` (ascending, p among them) with 𝒢(n + d) = 𝒢(n) on
    n₀ ≤ n < n₀ + p: the least period, given the proven (n₀, p)."""
    for j in range(len(divisors)):
        d = int(divisors[j])
        ok = True
        for i in range(n0, n0 + p):
            if g[i + d] != g[i]:
                ok = False
                break
        if ok:
            return d
    return p


# -- the kernels as the engine calls them -------------------------------------------------

#: the functions numba compiles, callees before their callers
KERNELS = ("_mex_store", "_mark_one_heap", "full", "_rare_class", "_probe", "_scan", "_tune",
           "sparse", "last_exception", "find_period", "first_period")

#: the value types of the engine's array (:func:`~sdg_automata.games.octal.values._narrowest`)
_VALUES = {np.dtype(np.uint8): "u1", np.dtype(np.uint16): "u2", np.dtype(np.int32): "i4"}


def _entries(code: str) -> tuple[Entry, ...]:
    """The entry points for values of the numba type ``code`` (the last array of a
    runner and of :func:`find_period` is ``out``)."""
    g, i8, b1 = f"{code}[:]", "i8[:]", "b1[:]"
    return (
        Entry(name=f"sparse_{code}", function="sparse",
              args=(g, "i8", "i8", i8, "i8", "i8", "b1", "i8", i8, i8, b1, i8, "i8", "i8", "b1",
                    "i8", "i8", i8, i8, i8, "i8", "i8", i8, i8, i8)),
        Entry(name=f"full_{code}", function="full",
              args=(g, "i8", "i8", i8, i8, b1, i8, "i8", "i8", i8)),
        Entry(name=f"find_period_{code}", function="find_period", args=(g, "i8", "i8", "i8", i8)),
        Entry(name=f"first_period_{code}", function="first_period", args=(g, "i8", "i8", i8),
              result=True),
        Entry(name=f"last_exception_{code}", function="last_exception", args=(g, "i8", "i8"),
              result=True),
    )


#: every entry point, for each value type
LIBRARY = Library(name="octal", module=__name__, kernels=KERNELS,
                  entries=tuple(e for code in _VALUES.values() for e in _entries(code)))


@functools.cache
def _functions() -> dict[str, Any]:
    """The entry points by name: native, or numba's (see :meth:`Library.functions`)."""
    return LIBRARY.functions()


class Kernels:
    """The kernels as one value engine calls them, with the state they keep between calls
    (the search's, ``tune``): :func:`loaded` makes one per engine.

    The runners take the engine's arrays and return their results as tuples; the
    scratch and the results' arrays are made here, so that the compiled code
    allocates nothing.
    """

    DONE, PAUSE, GROW, WIDEN, RARE_FULL, FALLBACK = DONE, PAUSE, GROW, WIDEN, RARE_FULL, FALLBACK
    SPARSE_GAIN = SPARSE_GAIN

    def __init__(self) -> None:
        self._fn = _functions()
        self._tune = np.zeros(TUNE_FIELDS, dtype=np.int64)
        self._out = np.zeros(4, dtype=np.int64)

    def _kernel(self, name: str, g: Vals) -> Any:
        return self._fn[f"{name}_{_VALUES[g.dtype]}"]

    def run_sparse(self, g: Vals, n: int, stop: int, rare: Ints, rare_count: int, mask: int,
                   positional: bool, rho: int, one: Ints, two: Ints, terminal: Flags,
                   seen: Ints, vmax: int, work: int, judge: bool, judge_from: int, gain: int,
                   partners: Ints, start: Ints, heaps: Ints, first: int,
                   probes: int) -> tuple[int, int, int, int]:
        """:func:`sparse`: ``(reached, status, extra, rare_count)``."""
        out = self._out
        self._kernel("sparse", g)(g, n, stop, rare, rare_count, mask, positional, rho, one,
                                  two, terminal, seen, vmax, work, judge, judge_from, gain,
                                  partners, start, heaps, first, probes,
                                  np.zeros(len(two), dtype=np.int64), self._tune, out)
        return int(out[0]), int(out[1]), int(out[2]), int(out[3])

    def run_full(self, g: Vals, n: int, stop: int, one: Ints, two: Ints, terminal: Flags,
                 seen: Ints, vmax: int, work: int) -> tuple[int, int, int]:
        """:func:`full`: ``(reached, status, extra)``."""
        out = self._out
        self._kernel("full", g)(g, n, stop, one, two, terminal, seen, vmax, work, out)
        return int(out[0]), int(out[1]), int(out[2])

    def find_period(self, g: Vals, n: int, t: int, w: int) -> tuple[int, int, int]:
        """:func:`find_period`: ``(n₀, p, N)``, or ``(-1, -1, -1)``."""
        out = self._out
        self._kernel("find_period", g)(g, n, t, w, out)
        return int(out[0]), int(out[1]), int(out[2])

    def first_period(self, g: Vals, n0: int, p: int, divisors: Ints) -> int:
        """:func:`first_period`."""
        return int(self._kernel("first_period", g)(g, n0, p, divisors))

    def last_exception(self, g: Vals, start: int, p: int) -> int:
        """:func:`last_exception`."""
        return int(self._kernel("last_exception", g)(g, start, p))


def loaded() -> Kernels:
    """The kernels for one value engine: native when cached, else compiled by numba (the
    first call imports it, or loads the native library: see :mod:`~sdg_automata.kernels.native`)."""
    return Kernels()
