"""The checker's loops (:mod:`sdg_automata.games.octal.verify`), plain Python that numba compiles.

Written apart from the solver's kernels (:mod:`sdg_automata.kernels.octal`)
on purpose: the checker must not share the solver's code.  The functions
here are ordinary Python over numpy arrays — the reference, run as they are
by ``engine="python"`` — and :func:`compiled` returns them compiled: native
code loaded without numba when cached (:mod:`sdg_automata.kernels.native`),
else numba's dispatchers (importing numba only then).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import numpy.typing as npt

from .native import Entry, Library

__all__ = ["CHECKED", "LIBRARY", "PAUSED", "RARE_FULL", "WRONG", "check_heaps", "check_three",
           "compiled", "first_break"]

Vals = npt.NDArray[Any]
Ints = npt.NDArray[np.int64]
Bytes = npt.NDArray[np.uint8]


#: what :func:`check_heaps` says: every heap checked, a wrong value at the heap returned,
#: the rare list full (grow it and call again from the heap), or its work spent (call
#: again from the heap)
CHECKED, WRONG, RARE_FULL, PAUSED = 0, 1, 2, 3


def check_heaps(g: Vals, start: int, stop: int, one: Ints, two: Ints, ends: Ints,
                sparse: bool, positional: bool, odd: Bytes, common_below: Ints,
                rare: Ints, nrare: int, seen: Ints, work: int) -> tuple[int, int, int]:
    """Check 𝒢(h) = mex(options of h) for ``start ≤ h < stop``, from the stored values
    of smaller heaps (checked before them).

    Without ``sparse`` every option is enumerated.  With it (the sparse-space
    lemma: a common-class option is a one-heap move, a removal of the whole heap or
    a split with a rare heap) those options are marked first; a common-class value
    below 𝒢(h) still unmarked is then no option at all, and the splits of two common
    heaps are searched only while a value below 𝒢(h) is unmarked, or all of them
    when 𝒢(h) is of the rare class (it must not be an option).  ``odd[x]`` is the
    class of the value x at an even heap (0 rare, 1 common; flipped at odd heaps
    when ``positional``) and ``common_below[f, v]`` the number of common-class
    values below v at heaps of parity f; both, and ``seen``, cover every value of
    the heaps checked.  ``rare[:nrare]`` are the rare heaps so far, ascending; the
    heaps found rare here are appended.

    ``work`` bounds the splits visited by one call: once they reach it, the call
    returns before the next heap (one heap is always checked), so that a caller
    serves its budget and Ctrl-C between calls however long the check is.

    Returns ``(h, nrare, status)``: :data:`CHECKED` (h = ``stop``), :data:`WRONG` (the
    stored 𝒢(h) is not the mex), :data:`RARE_FULL` (``rare`` is full: the caller grows
    it and calls again from h) or :data:`PAUSED` (``work`` spent: call again from h).
    Either of the last two returns before heap h marks anything in ``seen`` (a heap
    begun and called again would find its own marks and miscount).
    """
    done = 0
    for h in range(start, stop):
        if done >= work and h > start:
            return h, nrare, PAUSED
        if sparse and nrare == len(rare):  # before the heap marks anything: called again
            return h, nrare, RARE_FULL    # from h, it starts afresh
        v = int(g[h])
        f = (h & 1) if positional else 0
        below = 0  # distinct option values below v, and those of the common class
        common = 0
        for k in one:
            if k < h:
                x = int(g[h - k])
                if seen[x] != h:
                    seen[x] = h
                    if x < v:
                        below += 1
                        common += odd[x] ^ f
        for k in ends:
            if k == h and seen[0] != h:
                seen[0] = h
                if v > 0:
                    below += 1
                    common += odd[0] ^ f
        if sparse:
            for k in two:
                s = h - k
                for i in range(nrare):
                    r = rare[i]
                    if r >= s:
                        break
                    done += 1
                    x = int(g[r] ^ g[s - r])
                    if seen[x] != h:
                        seen[x] = h
                        if x < v:
                            below += 1
                            common += odd[x] ^ f
            if common < common_below[f, v]:
                return h, nrare, WRONG  # a common-class value below v that no move reaches
        missing = v - below
        whole = not sparse or odd[v] ^ f == 0  # v of the rare class: no split may give it
        if missing or whole:
            for k in two:
                s = h - k
                for a in range(1, s // 2 + 1):
                    done += 1
                    x = int(g[a] ^ g[s - a])
                    if seen[x] != h:
                        seen[x] = h
                        if x < v:
                            missing -= 1
                            if not missing and not whole:
                                break
                if not missing and not whole:
                    break
        if missing or seen[v] == h:
            return h, nrare, WRONG
        if sparse and h >= 1 and odd[v] ^ f == 0:
            rare[nrare] = h
            nrare += 1
    return stop, nrare, CHECKED


def check_three(g: Vals, start: int, stop: int, one: Ints, two: Ints, three: Ints,
                ends: Ints) -> int:
    """Check 𝒢(h) = mex(options of h) for ``start ≤ h < stop`` when a move may leave three
    heaps (a hexadecimal code): every option enumerated, the three-heap splits
    a ≤ b ≤ c one a at a time (numpy over b).  Python only (a certificate of such a
    code is small: the sparse-space lemma does not hold for three heaps).

    Returns the first heap whose stored value is wrong, or ``stop``.
    """
    for h in range(start, stop):
        v = int(g[h])
        options: set[int] = set()
        for k in ends:
            if k == h:
                options.add(0)
        for k in one:
            if k < h:
                options.add(int(g[h - k]))
        for k in two:
            s = int(h - k)
            if s >= 2:
                firsts = np.arange(1, s // 2 + 1)
                options.update(np.unique(g[firsts] ^ g[s - firsts]).tolist())
        for k in three:
            s = int(h - k)
            for a in range(1, s // 3 + 1):
                b = np.arange(a, (s - a) // 2 + 1)
                options.update(np.unique(g[a] ^ g[b] ^ g[s - a - b]).tolist())
        if v in options or any(x not in options for x in range(v)):
            return h
    return stop


def first_break(g: Vals, start: int, stop: int, d: int) -> int:
    """The first n with ``start ≤ n < stop`` and 𝒢(n + d) ≠ 𝒢(n), or −1."""
    for n in range(start, stop):
        if g[n + d] != g[n]:
            return n
    return -1


def _check_into(g: Vals, start: int, stop: int, one: Ints, two: Ints, ends: Ints,
                sparse: bool, positional: bool, odd: Bytes, common_below: Ints,
                rare: Ints, nrare: int, seen: Ints, work: int, out: Ints) -> None:
    """:func:`check_heaps` with its result written to ``out`` (the compiled entry point:
    native code returns no tuple)."""
    out[0], out[1], out[2] = check_heaps(g, start, stop, one, two, ends, sparse, positional,
                                         odd, common_below, rare, nrare, seen, work)


def _entries(code: str) -> tuple[Entry, ...]:
    g, i8 = f"{code}[:]", "i8[:]"
    return (Entry(name=f"check_{code}", function="_check_into",
                  args=(g, "i8", "i8", i8, i8, i8, "b1", "b1", "u1[:]", "i8[:, :]", i8, "i8",
                        i8, "i8", i8)),
            Entry(name=f"first_break_{code}", function="first_break", args=(g, "i8", "i8", "i8"),
                  result=True))


#: the value types of a certificate's values (:mod:`sdg_automata.games.octal.valuefile`)
_VALUES = {np.dtype(np.uint8): "u1", np.dtype(np.uint16): "u2", np.dtype(np.uint32): "u4"}
#: the checker's loops, compiled (native when cached: :mod:`sdg_automata.kernels.native`)
LIBRARY = Library(name="octal_check", module=__name__,
                  kernels=("check_heaps", "first_break", "_check_into"),
                  entries=tuple(e for code in _VALUES.values() for e in _entries(code)))


@functools.cache
def compiled() -> tuple[Any, Any]:
    """(:func:`check_heaps`, :func:`first_break`) compiled: native code when a library of
    them is cached (built now when it is not), else numba's dispatchers."""
    functions = LIBRARY.functions()
    out = np.zeros(3, dtype=np.int64)

    def check(g: Vals, *args: Any) -> tuple[int, int, int]:
        functions[f"check_{_VALUES[g.dtype]}"](g, *args, out)
        return int(out[0]), int(out[1]), int(out[2])

    def first(g: Vals, start: int, stop: int, d: int) -> int:
        return int(functions[f"first_break_{_VALUES[g.dtype]}"](g, start, stop, d))

    return check, first
