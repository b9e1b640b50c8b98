"""The reference engine of the convergence technique: one interval at a time (SPEC §6).

The first implementation, kept as the reference the layered engine
(:mod:`.layers`) is measured and cross-checked against.  𝒢 on the intervals
J_m = [m − c, m] for every m in the union of the M(n), in increasing m, each
from the guess sequences over I_m = [m − 2c, m].

Soundness
---------
For x ∈ I_m and d | x, x/d ≥ (m − 2c)/d ≥ m/d − c ≥ ⌊m/d⌋ − c (as d ≥ 2) and
x/d ≤ ⌊m/d⌋, so every division follower lies in J_{⌊m/d⌋}, already known
(⌊m/d⌋ ∈ M); the lookup checks it anyway and raises :class:`SdgBug` rather
than read an unknown value.  The unknown history, the max(S) values before the
run, ranges over every vector in {0, …, |S|+|D|}^max(S), which contains the
true one; so a position where *all* guess sequences agree carries the true
value.  An interval is accepted only when they agree on all of J_m.

The guess sequences are run together as a *set* of states (a state is the last
max(S) values, a set is an int bitmask over states), so sequences that merged
are run once, and a step is one lookup in a lazily filled table.

Reuse (``reuse=True``)
----------------------
Values are memoized per (S, D) across calls (:func:`imark_cache_clear` drops
them), positions up to ``NAIVE_BASE`` come from a naive table, and an interval
whose history is already known (a neighbouring J_{m'} or the naive table
reaching up to m − 2c − 1) is run from the true history: one sequence, no
guessing; history positions known otherwise are fixed to their values.  The memo
only ever receives the naive table and intervals proven as above (by induction,
whatever c or interval produced them, every stored value is the true one), so
both only replace guesses by the truth and soundness is untouched; a value may
then be proven with a smaller c than a cold run would need.
``reuse=False`` runs SPEC §6 literally: a private table of 𝒢 on [0, 2c + max S]
and every other interval from all guesses.
"""

from __future__ import annotations

import bisect
from collections import OrderedDict
from collections.abc import Iterator, Sequence

from ...errors import SdgBug
from ...runtime.budget import UNLIMITED, Meter
from . import naive
from .game import IMark, Rules, rules
from .naive import imark_sequence

__all__ = ["imark_cache_clear", "reference_outcomes"]

_BITS = bytes((1 << v) if v < 8 else 0 for v in range(256))


def _extend_naive(r: Rules, g: bytearray, upto: int, meter: Meter | None = None) -> None:
    """Extend ``g`` (𝒢 on [0, len(g))) in place to 𝒢 on [0, upto], within ``meter``'s time."""
    if len(g) <= upto:
        g[:] = imark_sequence(r.game, upto=upto,
                              budget=UNLIMITED if meter is None else meter.shared())


class _Store:
    """Proven values of one i-Mark(S, D): a naive prefix and intervals ending at m ∈ M.

    ``segs[m] = (start, values)`` holds the true 𝒢 on [start, m].
    """

    def __init__(self, r: Rules):
        self.r = r
        self.base = bytearray()
        self.segs: dict[int, tuple[int, bytes]] = {}
        self.keys: list[int] = []  # sorted keys of segs

    def run(self, ns: Sequence[int], c: int, *, reuse: bool, abort: bool,
            meter: Meter | None = None
            ) -> tuple[dict[int, int], dict[int, int]]:
        """Prove 𝒢 on J_m for every m in the union of the M(n); (values, failures n → m)."""
        r = self.r
        _extend_naive(r, self.base, max(2 * c + r.K, naive.NAIVE_BASE if reuse else 0), meter)
        B = len(self.base) - 1
        segs = self.segs
        D = r.D

        def adequate(m: int) -> bool:
            s = segs.get(m)
            return s is not None and s[0] <= m - c

        # M(n) = {⌊n/∏dᵢ^aᵢ⌋}, closed under m ↦ ⌊m/d⌋; below B the table answers
        seen = {n for n in ns if n > B}
        stack = list(seen)
        popped = 0
        while stack:
            popped += 1
            if meter is not None and popped & 4095 == 0:
                meter.check_states(len(seen))  # M itself is over the interval budget
                meter.check(meter.count)  # the clock
            m = stack.pop()
            if adequate(m):
                continue
            for d in D:
                k = m // d
                if k > B and k not in seen:
                    seen.add(k)
                    stack.append(k)
        failed: dict[int, int] = {}
        stopped = False
        base = 0 if meter is None else meter.count  # intervals of earlier calls
        due = 0 if meter is None else meter.due - base
        for count, m in enumerate(sorted(seen)):
            if meter is not None and count >= due:
                due = meter.check(base + count) - base
            if adequate(m):
                continue
            root = next((failed[m // d] for d in D if m // d in failed), None)
            if root is None and not self._interval(m, c, reuse):
                root = m
            if root is not None:
                failed[m] = root
                if abort:
                    stopped = True
                    break
        values: dict[int, int] = {}
        failures: dict[int, int] = {}
        for n in ns:
            if n <= B:
                values[n] = self.base[n]
            elif n in failed:
                failures[n] = failed[n]
            elif stopped and not adequate(n):
                failures[n] = next(iter(failed.values()))
            else:
                values[n] = segs[n][1][-1]
        return values, failures

    def _interval(self, m: int, c: int, reuse: bool) -> bool:
        """Prove 𝒢 on J_m = [m − c, m] and store it; False when the guesses do not agree."""
        r = self.r
        K, V = r.K, r.V
        base = self.base
        B = len(base) - 1
        segs = self.segs
        lo = m - 2 * c
        # a known stretch just before (or inside) I_m gives the true history
        pm, ps, pv = -1, 0, b""
        if reuse:
            i = bisect.bisect_left(self.keys, m) - 1
            if i >= 0:
                pm = self.keys[i]
                ps, pv = segs[pm]

        def known(h: int) -> int | None:
            if reuse and h <= B:
                return base[h]
            if ps <= h <= pm:
                return pv[h - ps]
            return None

        p, prefix, exact = lo, b"", False
        if reuse and B >= lo - 1:
            p, prefix, exact = B + 1, bytes(base[max(0, lo):B + 1]), True
        if (reuse and pm >= lo - 1 and (not exact or pm >= p)
                and ps <= min(pm - K + 1, m - c)):
            p, prefix, exact = pm + 1, pv[max(ps, lo) - ps:], True
        history = [known(p - 1 - i) for i in range(K)] if reuse else [None] * K
        if exact and None in history:
            raise SdgBug(f"{r.game}: the history of m = {m} before {p} is not known")
        sset = r.state_set(history)

        # the true values of the division followers of [p, m], from J_{⌊m/d⌋} or the table
        size = m - p + 1
        acc = 0  # V ≤ 8: the masks as one little-endian int of bytes
        masks = [0] * size if V > 8 else []
        for d in r.D:
            f = p + (-p) % d
            if f > m:
                continue
            k0, k1 = f // d, m // d
            if k1 <= B:
                vals: bytes | bytearray = base[k0:k1 + 1]
            else:
                seg = segs.get(k1)
                if seg is None or seg[0] > k0:
                    raise SdgBug(
                        f"{r.game}: division follower {k0} of I_{m} (c = {c}) is outside the "
                        f"known interval of {k1}")
                vals = seg[1][k0 - seg[0]:]
            j = f - p
            if V <= 8:  # masks fit a byte: place them by slicing, OR as big ints
                arr = bytearray(size)
                arr[j::d] = vals.translate(_BITS)
                acc |= int.from_bytes(arr, "little")
            else:
                for v in vals:
                    masks[j] |= 1 << v
                    j += d
        dm: Sequence[int] = acc.to_bytes(size, "little") if V <= 8 else masks

        # all guess sequences at once; a position is proven where they all agree
        sets, agree = r.sets, r.agree
        out = bytearray()
        bad = -1
        last_allowed = m - c - p  # a disagreement at or after index m − c − p is fatal
        i = 0
        while sset & (sset - 1) and i < size:
            sset = sets[sset << V | dm[i]]
            a = agree[sset]
            if a < 0:
                if i >= last_allowed:
                    return False
                bad = i
            out.append(max(a, 0))
            i += 1
        if i < size:  # one sequence left: it is the true one, step it alone
            st = sset.bit_length() - 1
            nxt = r.single
            states = [st := nxt[st << V | x] for x in dm[i:]]
            out += bytes([s % V for s in states])
        if bad >= 0:
            start, values = p + bad + 1, bytes(out[bad + 1:])
        else:
            start, values = p - len(prefix), prefix + bytes(out)
        if start > m - c:  # unreachable: the checks above guarantee J_m
            raise SdgBug(f"{r.game}: interval of {m} proven only from {start}")
        if m not in segs:
            bisect.insort(self.keys, m)
        segs[m] = (start, values)
        return True


_STORES: OrderedDict[IMark, _Store] = OrderedDict()
_MAX_STORES = 16


def _store(game: IMark) -> _Store:
    st = _STORES.get(game)
    if st is None:
        st = _STORES[game] = _Store(rules(game))
        while len(_STORES) > _MAX_STORES:
            _STORES.popitem(last=False)
    else:
        _STORES.move_to_end(game)
    return st


def imark_cache_clear() -> None:
    """Forget every memoized interval (the next query starts cold)."""
    _STORES.clear()




def reference_outcomes(game: IMark, ns: Sequence[int], ladder: Sequence[int], reuse: bool,
                       meter: Meter) -> Iterator[tuple[int, int | None, int]]:
    """(n, 𝒢(n), c) or (n, None, failing m) for every n of ``ns``; the union at once."""
    r = rules(game)
    store = _store(game) if reuse else _Store(r)
    pending = sorted(set(ns))
    proven: dict[int, tuple[int, int]] = {}
    failures: dict[int, int] = {}
    for cc in ladder:
        values, failures = store.run(pending, cc, reuse=reuse, abort=len(pending) == 1,
                                     meter=meter)
        for n, v in values.items():
            proven[n] = (v, cc)
        pending = [n for n in pending if n in failures]
        if not pending:
            break
    for n in ns:
        if n in proven:
            yield n, proven[n][0], proven[n][1]
        else:
            yield n, None, failures[n]
