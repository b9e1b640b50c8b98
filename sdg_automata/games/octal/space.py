"""The sparse space of an octal game: the mask that makes few heaps *rare*, found from the values.

With a mask m (and, when every splitting removal has the same parity, the heap's
parity), the values of an octal game fall into a *rare* class (even popcount(𝒢 & m))
and a *common* class; the XOR of two commons is rare, so the sparse-space method of
:mod:`sdg_automata.games.octal.values` enumerates only the splits with a rare heap
(Gangolli–Plambeck 1989; Flammenkamp).  This module holds the split itself
(:class:`SparseSpace`), its detection from the values (:func:`detect_space`) and the
list of rare heaps, which the engine keeps and a certificate claims
(``docs/octal.md`` §4, §7).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

__all__ = ["SparseSpace", "detect_space", "rare_heaps"]

_SPARSE_ENOUGH = 0.25  # the rare fraction under which the sparse method may pay
#: values read at a time by the whole-array passes (histograms, rare lists), so that
#: their temporaries stay small next to 10⁸ one-byte values
CHUNK = 1 << 22


@dataclass(frozen=True, kw_only=True)
class SparseSpace:
    """The rare/common split used by the sparse-space method.

    A value v of heap n is *rare* when popcount(v & mask) + (n if positional
    else 0) has the parity ``rare_parity``.  ``rare`` is the number of rare
    heaps among the values computed.
    """

    mask: int
    positional: bool
    rare_parity: int
    rare: int

    def to_json(self) -> dict[str, Any]:
        """``{"mask", "positional", "rare_parity", "rare"}``."""
        return {"mask": self.mask, "positional": self.positional,
                "rare_parity": self.rare_parity, "rare": self.rare}


def _parity_table(mask: int, size: int) -> npt.NDArray[np.uint8]:
    """parity(popcount(v & mask)) for v < size."""
    table: npt.NDArray[np.uint8] = (
        np.bitwise_count(np.arange(size, dtype=np.int64) & mask) & 1).astype(np.uint8)
    return table


def rare_heaps(g: npt.NDArray[np.integer[Any]], space: SparseSpace,
               bits: int) -> npt.NDArray[np.int64]:
    """The rare heaps 1 ≤ n < len(g) of the values ``g`` (all below 2^``bits``), ascending.

    Heap 0 is left out: the heaps of a split are non-empty.
    """
    table = _parity_table(space.mask, 1 << bits)
    parts = []
    for i in range(0, len(g), CHUNK):
        cls = table[g[i:i + CHUNK]]
        if space.positional:
            cls = cls ^ (np.arange(i, i + len(cls)) & 1).astype(np.uint8)
        parts.append(np.flatnonzero(cls == space.rare_parity) + i)
    rare = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)
    out: npt.NDArray[np.int64] = np.asarray(rare[rare >= 1], dtype=np.int64)
    return out


def _walsh_hadamard(x: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """W[m] = Σ_v x[v]·(−1)^popcount(v & m), for len(x) a power of two."""
    w: npt.NDArray[np.int64] = x.copy()
    h = 1
    while h < len(w):
        y = w.reshape(-1, 2, h)
        a = y[:, 0, :].copy()
        y[:, 0, :] += y[:, 1, :]
        y[:, 1, :] = a - y[:, 1, :]
        h *= 2
    return w


def detect_space(g: npt.NDArray[np.integer[Any]], splits: Sequence[int]) -> SparseSpace | None:
    """The mask (and positional flag) that makes the fewest heaps rare.

    Masks range over the bits of the largest value; the heap's parity may
    join the class only when every splitting removal k has the same parity
    (then common ⊕ common lands in the rare class of heap n).  ``None`` when
    there is no split, or even the best mask leaves more than a quarter of
    the heaps rare.

    Notes
    -----
    The number of heaps of parity q whose value has an even popcount under
    the mask m is (T_q + W_q[m]) / 2, where T_q counts the heaps of parity q
    and W_q is the Walsh–Hadamard transform of their value histogram (as
    tczajka/octal-games chooses its mask): every mask is scored in
    O(V log V) for values below V.  Ties go to the plain (not positional)
    split, then to the smallest mask.
    """
    n = len(g)
    if n == 0 or not splits:
        return None
    top = 0
    for i in range(0, n, CHUNK):
        top = max(top, int(g[i:i + CHUNK].max()))
    size = 1 << max(1, top.bit_length())
    # hist[q, v]: how many heaps of parity q have the value v
    hist = np.zeros((2, size), dtype=np.int64)
    for i in range(0, n, CHUNK):
        part = g[i:i + CHUNK]
        for q in (0, 1):
            hist[q] += np.bincount(part[(i + q) & 1::2], minlength=size)
    even = [(hist[q].sum() + _walsh_hadamard(hist[q])) // 2 for q in (0, 1)]
    odd = [hist[q].sum() - even[q] for q in (0, 1)]
    best: tuple[int, int, int, int] | None = None  # (rare heaps, positional, mask, rare parity)
    kinds = [False, True] if len({k & 1 for k in splits}) == 1 else [False]
    for positional in kinds:
        rho = splits[0] & 1 if positional else 0
        # heaps of parity q are rare when popcount(v & m) ≡ rho + q·positional (mod 2)
        counts = sum(((odd if (rho ^ (q & positional)) else even)[q] for q in (0, 1)),
                     start=np.zeros(size, dtype=np.int64))[1:]
        i = int(counts.argmin())
        option = (int(counts[i]), int(positional), i + 1, rho)
        if best is None or option < best:
            best = option
    assert best is not None
    if best[0] > _SPARSE_ENOUGH * n:
        return None
    return SparseSpace(mask=best[2], positional=bool(best[1]), rare_parity=best[3], rare=best[0])
