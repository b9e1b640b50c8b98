"""Compiled octal-game kernels: the runners of the value engine
(:class:`sdg_automata.games.octal.values._Engine`) and of its period search, each equal
to the Python reference it names.

* :func:`run_sparse` — ``_Engine._run_sparse``, the sparse-space method;
* :func:`run_full` — ``_Engine._run_full``, the mex over every option;
  with no splits, also ``_Engine._run_one_heap``;
* :func:`find_period`, :func:`first_period`, :func:`last_exception` —
  ``octal.find_period`` and ``octal.minimize``, without the O(n) temporaries
  of their numpy forms (a run of 4·10⁸ values cannot afford them).

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

from typing import Any

import numpy as np
import numpy.typing as npt

from . import jit

#: the values (uint8, uint16 or int32), and the int64 arrays of heaps and stamps
Vals = npt.NDArray[Any]
Ints = npt.NDArray[np.int64]
Flags = npt.NDArray[np.bool_]

__all__ = ["DONE", "FALLBACK", "GROW", "PAUSE", "RARE_FULL", "WIDEN", "find_period",
           "first_period", "last_exception", "run_full", "run_sparse"]

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


@jit
def _mex_store(g: Vals, seen: Ints, h: int, v: int, vmax: int) -> int:
    """Store 𝒢(h) = v, or say why not: (status, extra) as the runners return them."""
    if v > vmax:
        return WIDEN
    g[h] = v
    if v >= len(seen) - 1:
        return GROW
    return DONE


@jit
def _mark_one_heap(g: Vals, seen: Ints, h: int, one: Ints, terminal: Flags) -> None:
    """Stamp the options of h that leave one heap or none."""
    for k in one:
        if k < h:
            seen[g[h - k]] = h
    if h < len(terminal) and terminal[h]:
        seen[0] = h


@jit
def run_full(g: Vals, n: int, stop: int, one: Ints, two: Ints, terminal: Flags, seen: Ints,
             vmax: int, work: int) -> tuple[int, int, int]:
    """``_Engine._run_full``: the mex over every option, O(h) per heap; with no
    splitting removal (``two`` empty), ``_Engine._run_one_heap``."""
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
            return h, status, v
        if status == GROW:
            return h + 1, status, v
        done += len(one) + 1
        if done >= work:
            return h + 1, PAUSE, 0
    return stop, DONE, 0


@jit
def _rare_class(v: int, h: int, mask: int, positional: bool, rho: int) -> bool:
    c = 0
    x = v & mask
    while x:
        c ^= 1
        x &= x - 1
    if positional:
        c ^= h & 1
    return c == rho


@jit
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


@jit
def run_sparse(g: Vals, n: int, stop: int, rare: Ints, rare_count: int, mask: int,
               positional: bool, rho: int, one: Ints, two: Ints, terminal: Flags, seen: Ints,
               vmax: int, work: int, judge: bool, judge_from: int, gain: int, partners: Ints,
               start: Ints, heaps: Ints, first: int, probes: int) -> tuple[int, int, int, int]:
    """``_Engine._run_sparse``: the sparse-space method.

    Every common-class option of heap h is a one-heap move or a split with a
    rare part (``rare[:rare_count]``, ascending), all marked; the least
    unmarked value is the mex when it is of the common class, else the
    common–common splits are searched until it turns up — the first ``first``
    of each splitting k, then those of the value index (``partners``,
    ``start``, ``heaps``: ``octal._ValueIndex``), then the rest, from the
    smallest heap — and the next unmarked value is tried.

    Returns ``(reached, status, extra, rare_count)``.
    """
    done = 0
    scanned = np.zeros(len(two), dtype=np.int64)
    work_b = 0  # splits visited in this block, and what the full mex would have visited
    full_b = 0
    block = n
    nt = len(two)
    for h in range(n, stop):
        if rare_count == len(rare):
            return h, RARE_FULL, 0, rare_count
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
        v = 0
        while True:
            while seen[v] == h:
                v += 1
            if not _rare_class(v, h, mask, positional, rho):
                break  # a common-class value no option has: the mex
            if _scan(g, seen, h, v, two, scanned, first):
                continue
            found, t = _probe(g, seen, h, v, two, partners, start, heaps, probes)
            tried += t
            if found:
                continue
            if not _scan(g, seen, h, v, two, scanned, h):
                break  # every split seen: v is the mex
        status = _mex_store(g, seen, h, v, vmax)
        if status == WIDEN:
            return h, status, v, rare_count
        if h >= 1 and _rare_class(v, h, mask, positional, rho):
            rare[rare_count] = h
            rare_count += 1
        sc = tried
        for i in range(nt):
            sc += scanned[i]
        work_b += rare_count * nt + sc
        full_b += nt * (h // 2)
        done += rare_count * nt + sc + 1
        if status == GROW:
            return h + 1, status, v, rare_count
        if h & 1023 == 0:
            if judge and h >= judge_from and h - block >= 1024 and work_b * gain > full_b:
                return h + 1, FALLBACK, 0, rare_count
            work_b = 0
            full_b = 0
            block = h
        if done >= work:
            return h + 1, PAUSE, 0, rare_count
    return stop, DONE, 0, rare_count


@jit
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


# -- periods ------------------------------------------------------------------------------


@jit
def last_exception(g: Vals, start: int, p: int) -> int:
    """The largest i < ``start`` with 𝒢(i + p) ≠ 𝒢(i), or −1."""
    i = start - 1
    while i >= 0 and g[i + p] == g[i]:
        i -= 1
    return i


@jit
def find_period(g: Vals, n: int, t: int, w: int) -> tuple[int, int, int]:
    """``octal.find_period`` on ``g[:n]``: (n₀, p, N), or (−1, −1, −1) for none."""
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
            return n0, p, 2 * max(n0, 1) + 2 * p + t
    return -1, -1, -1


@jit
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
