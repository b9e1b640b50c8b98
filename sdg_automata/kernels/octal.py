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
# infrequent value at once (0.376: 4-26x fewer splits with them) but are wasted where the
# values are spread evenly (0.6: 2.8x slower with them).  One heap in _SAMPLE on average is
# searched both ways, the second time for the measurement only and given up once it has
# cost _RACE times the first; the costs, counted as below, are summed per way (halved every
# _SAMPLES_KEPT samples, so that old heaps fade) and the cheaper way searches the other
# heaps.  Both ways run on the same heaps: a heap that needs a long search needs it either
# way, and the sums compare like with like (blocks of heaps, one way each, were tried
# first: their costs differ more from block to block than between the ways, and 0.376 lost
# 2.4x to them).  The sampled heaps are spaced by pseudo-random gaps of 1 to 2·_SAMPLE − 1:
# every 64th heap of 0.376 is atypically cheap (588 split-costs with the index and 2,008
# without, over the heaps near 2^19 where all of them cost 430 k and 11.3 M).  The other
# way's cost, given up at _RACE times, is a lower bound: the way changes only when the
# other one's sum is _MARGIN times smaller (0.376's plain scan, 26x dearer in all, costs
# as little as the index on most heaps and its few long searches are cut at 3x: its sum
# came within 1.2x of the index's, and an even rule flipped to it).
_SAMPLE = 128
_SEED = np.uint64(0x9E3779B97F4A7C15)
_RACE = 3
_MARGIN = 2
_SAMPLES_KEPT = 64
#: the budget of a search that is not a measurement
_UNLIMITED = 1 << 62
#: a probed split's cost in scanned splits, and a call of the index's
_PROBE_COST = 4
_PROBE_CALL = 8
#: the kernels' ``gain`` for "auto"'s judgement (``values._SPARSE_GAIN`` is the Python
#: reference's, whose full mex is numpy's, far faster per split than its sparse loops): a
#: split costs the compiled full mex about what it costs the sparse kernel, so the full mex
#: runs only where it visits fewer splits (measured to 2^18: 0.6 1.2x, 0.56 1.7x, 0.376
#: 1.0x, 0.16 1.2x faster than with 4; 0.354 and 0.644 alike)
SPARSE_GAIN = 1
#: the fields of the search's state (``tune``, kept by :class:`Kernels` between calls): the
#: way (1: the plain scan, without the index; 0, the start: with it), the sampled costs of
#: each way, the samples since the last halving, the next heap sampled and the state of
#: the xorshift that draws the gaps
_PLAIN, _COST_WITH, _COST_PLAIN, _SAMPLES, _NEXT, _DRAW = range(6)
TUNE_FIELDS = 8


def _mex_store(g: Vals, seen: Ints, h: int, v: int, vmax: int) -> int:
    """Store 𝒢(h) = v, or say why not: (status, extra) as the runners return them."""
    if v > vmax:
        return WIDEN
    g[h] = v
    if v >= len(seen) - 1:
        return GROW
    return DONE


def _mark_one_heap(g: Vals, seen: Ints, stamp: int, h: int, one: Ints,
                   terminal: Flags) -> None:
    """Stamp the options of h that leave one heap or none."""
    for k in one:
        if k < h:
            seen[g[h - k]] = stamp
    if h < len(terminal) and terminal[h]:
        seen[0] = stamp


def full(g: Vals, n: int, stop: int, one: Ints, two: Ints, terminal: Flags, seen: Ints,
         vmax: int, work: int, out: Ints) -> None:
    """``_Engine._run_full``: the mex over every option, O(h) per heap; with no
    splitting removal (``two`` empty), ``_Engine._run_one_heap``.  Writes
    ``(reached, status, extra)`` to ``out``."""
    done = 0
    for h in range(n, stop):
        _mark_one_heap(g, seen, h, h, one, terminal)
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


def _probe(g: Vals, seen: Ints, stamp: int, h: int, v: int, two: Ints, partners: Ints,
           start: Ints, heaps: Ints, probes: int) -> tuple[bool, int]:
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
                    seen[x] = stamp
                    if x == v:
                        return True, tried
    return False, tried


def _scan(g: Vals, seen: Ints, stamp: int, h: int, v: int, two: Ints, scanned: Ints,
          upto: int) -> bool:
    """Search the splits (a, s − a) of each splitting k, a from ``scanned[k] + 1`` to
    min(s // 2, ``upto``), marking each, until one is worth v; whether one was."""
    for i in range(len(two)):
        s = h - two[i]
        top = min(s // 2, upto)
        a = scanned[i]
        while a < top:
            a += 1
            x = g[a] ^ g[s - a]
            seen[x] = stamp
            if x == v:
                scanned[i] = a
                return True
        scanned[i] = a
    return False


def _mark(g: Vals, seen: Ints, stamp: int, h: int, one: Ints, terminal: Flags, two: Ints,
          rare: Ints, rare_count: int) -> None:
    """Stamp the common-class options of h: its one-heap moves and the splits with a rare
    part."""
    _mark_one_heap(g, seen, stamp, h, one, terminal)
    for k in two:
        s = h - k
        for i in range(rare_count):
            r = rare[i]
            if r >= s:
                break
            seen[g[r] ^ g[s - r]] = stamp


def _search(g: Vals, seen: Ints, stamp: int, h: int, mask: int, positional: bool, rho: int,
            two: Ints, scanned: Ints, first: int, partners: Ints, start: Ints, heaps: Ints,
            probes: int, budget: int) -> tuple[int, int, int]:
    """The mex of h, its common-class options stamped ``stamp`` (:func:`_mark`): the least
    unmarked value when it is of the common class, else the common–common splits are
    searched until it turns up — the first ``first`` of each splitting k, then at most
    ``probes`` of the value index, then the rest from the smallest heap — and the next
    unmarked value is tried.  ``(mex, cost, splits visited)``; the mex is −1 when the
    cost (the splits scanned, a probed one as :data:`_PROBE_COST`, a call of the index as
    :data:`_PROBE_CALL`) would pass ``budget``."""
    nt = len(two)
    for i in range(nt):
        scanned[i] = 0
    tried = 0
    calls = 0
    v = 0
    while True:
        while seen[v] == stamp:
            v += 1
        if not _rare_class(v, h, mask, positional, rho):
            break  # a common-class value no option has: the mex
        if _scan(g, seen, stamp, h, v, two, scanned, first):
            continue
        if probes > 0:
            calls += 1
            found, t = _probe(g, seen, stamp, h, v, two, partners, start, heaps, probes)
            tried += t
            if found:
                continue
        upto = h
        if budget < _UNLIMITED:  # a measurement: stop once it has cost ``budget``
            spent = _PROBE_COST * tried + _PROBE_CALL * calls
            most = 0
            for i in range(nt):
                spent += scanned[i]
                most = max(most, scanned[i])
            if spent >= budget:
                return -1, spent, spent
            upto = most + budget - spent  # at most nt times the budget left: a bound enough
        if not _scan(g, seen, stamp, h, v, two, scanned, upto):
            if upto < h:
                for i in range(nt):
                    if scanned[i] < (h - two[i]) // 2:  # the budget, not the splits, ran out
                        return -1, budget, budget
            break  # every split seen: v is the mex
    cost = _PROBE_COST * tried + _PROBE_CALL * calls
    visited = tried
    for i in range(nt):
        cost += scanned[i]
        visited += scanned[i]
    return v, cost, visited


def _gap(tune: Ints) -> int:
    """The next gap between sampled heaps, 1 to 2·_SAMPLE − 1 (xorshift64 in ``tune``)."""
    x = np.uint64(tune[_DRAW]) if tune[_DRAW] != 0 else _SEED
    x ^= x << np.uint64(13)
    x ^= x >> np.uint64(7)
    x ^= x << np.uint64(17)
    tune[_DRAW] = np.int64(x >> np.uint64(1))
    return 1 + int(x % np.uint64(2 * _SAMPLE - 1))


def sparse(g: Vals, n: int, stop: int, rare: Ints, rare_count: int, mask: int,
           positional: bool, rho: int, one: Ints, two: Ints, terminal: Flags, seen: Ints,
           vmax: int, work: int, judge: bool, judge_from: int, gain: int, partners: Ints,
           start: Ints, heaps: Ints, first: int, probes: int, scanned: Ints, tune: Ints,
           out: Ints) -> None:
    """``_Engine._run_sparse``: the sparse-space method.

    Every common-class option of heap h is a one-heap move or a split with a
    rare part (``rare[:rare_count]``, ascending), all marked; the mex is then
    found by :func:`_search`, with the value index (``partners``, ``start``,
    ``heaps``: ``octal._ValueIndex``, at most ``probes`` splits a value) or
    without, as the search's state ``tune`` says is cheaper (it is learned here,
    see ``_SAMPLE``).  ``scanned`` (one entry per splitting k) is scratch.

    Writes ``(reached, status, extra, rare_count)`` to ``out``.
    """
    done = 0
    work_b = 0  # splits visited in this block, and what the full mex would have visited
    full_b = 0
    block = n
    nt = len(two)
    sampling = probes > 0 and len(partners) > 0
    for h in range(n, stop):
        if rare_count == len(rare):
            out[0], out[1], out[2], out[3] = h, RARE_FULL, 0, rare_count
            return
        plain = tune[_PLAIN] if sampling else 1
        _mark(g, seen, h, h, one, terminal, two, rare, rare_count)
        v, cost, visited = _search(g, seen, h, h, mask, positional, rho, two, scanned, first,
                                   partners, start, heaps, 0 if plain else probes, _UNLIMITED)
        if sampling and h >= tune[_NEXT]:
            tune[_NEXT] = h + _gap(tune)
            # the other way on the same heap, measured only (its own stamp: no heap's)
            other = -2 - h
            _mark(g, seen, other, h, one, terminal, two, rare, rare_count)
            _, against, seen_too = _search(g, seen, other, h, mask, positional, rho, two,
                                           scanned, first, partners, start, heaps,
                                           probes if plain else 0, _RACE * cost + 64)
            tune[_COST_WITH] += against if plain else cost
            tune[_COST_PLAIN] += cost if plain else against
            tune[_SAMPLES] += 1
            if tune[_SAMPLES] == _SAMPLES_KEPT:
                tune[_COST_WITH] //= 2
                tune[_COST_PLAIN] //= 2
                tune[_SAMPLES] = _SAMPLES_KEPT // 2
            if plain and _MARGIN * tune[_COST_WITH] < tune[_COST_PLAIN]:
                tune[_PLAIN] = 0
            elif not plain and _MARGIN * tune[_COST_PLAIN] < tune[_COST_WITH]:
                tune[_PLAIN] = 1
            done += rare_count * nt + seen_too
        status = _mex_store(g, seen, h, v, vmax)
        if status == WIDEN:
            out[0], out[1], out[2], out[3] = h, status, v, rare_count
            return
        if h >= 1 and _rare_class(v, h, mask, positional, rho):
            rare[rare_count] = h
            rare_count += 1
        work_b += rare_count * nt + visited
        full_b += nt * (h // 2)
        done += rare_count * nt + visited + 1
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
KERNELS = ("_mex_store", "_mark_one_heap", "full", "_rare_class", "_probe", "_scan", "_mark",
           "_search", "_gap", "sparse", "last_exception", "find_period", "first_period")

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


#: every entry point, for each value type; the helpers a runner calls for each heap inlined
LIBRARY = Library(name="octal", module=__name__, kernels=KERNELS,
                  entries=tuple(e for code in _VALUES.values() for e in _entries(code)),
                  inline=("_mex_store", "_mark_one_heap", "_rare_class", "_probe", "_scan",
                          "_mark", "_search", "_gap"))


@functools.cache
def functions() -> dict[str, Any]:
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
        self._fn = functions()
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
