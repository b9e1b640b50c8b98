"""The game i-Mark(S, D) and the convergence technique (SPEC §6).

From a position n ∈ ℕ a move goes to n − s for s ∈ S (when n − s ≥ 0) or to
n / d for d ∈ D (when n ≥ 1 and d divides n).  Every Grundy value is at most
|S| + |D|.  Two ways to compute 𝒢(n):

* :func:`imark_sequence` — the naive bottom-up table 𝒢(0), …, 𝒢(N); Θ(N) time
  and space, the oracle for everything else.  Division followers of a block
  [B, 2B) all lie below B, so their masks are built block-wise with C-level
  slicing, and only the subtraction recurrence runs as a Python loop over a
  transition table (about 55 ns per position; N = 10⁷ in about half a second).
* :func:`imark_grundy` / :func:`imark_value` / :func:`imark_values` — the
  convergence technique of Nivasch and Rubinstein, "A convergence technique for
  the game i-Mark", arXiv 2503.23196 (TCS 2025): 𝒢 on the intervals
  J_m = [m − c, m] for every m in M = {⌊n / ∏ dᵢ^{aᵢ}⌋}, in increasing m, each
  from the guess sequences over I_m = [m − 2c, m].  Time polylogarithmic in n.

Soundness
---------
For x ∈ I_m and d | x, x/d ≥ (m − 2c)/d ≥ m/d − c ≥ ⌊m/d⌋ − c (as d ≥ 2) and
x/d ≤ ⌊m/d⌋, so every division follower lies in J_{⌊m/d⌋}, already known
(⌊m/d⌋ ∈ M); the lookup checks it anyway and raises an internal error rather
than read an unknown value.  The unknown history, the max(S) values before the
run, ranges over every vector in {0, …, |S|+|D|}^max(S), which contains the
true one; so a position where *all* guess sequences agree carries the true
value.  An interval is accepted only when they agree on all of J_m; otherwise a
:class:`IMarkConvergenceError` is raised.  No unproven value is ever returned.

The guess sequences are run together as a *set* of states (a state is the last
max(S) values, a set is an int bitmask over states), so sequences that merged
are run once, and a step is one lookup in a lazily filled table.

Reuse (the default, ``reuse=True``)
-----------------------------------
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
import operator
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from typing import Any

from .errors import ConvergenceError, InputError
from .impartial import mex_mask

__all__ = [
    "C_MAX",
    "C_START",
    "NAIVE_BASE",
    "IMark",
    "IMarkConvergenceError",
    "IMarkValue",
    "SurveyRow",
    "coalescence_steps",
    "imark_cache_clear",
    "imark_grundy",
    "imark_naive",
    "imark_sequence",
    "imark_sequence_chunks",
    "imark_value",
    "imark_values",
    "survey",
    "survey_instance",
    "survey_instances",
]

#: the first window c tried when none is given; doubled on failure
C_START = 8
#: the largest window tried automatically
C_MAX = 512
#: with ``reuse=True``, 𝒢 on [0, NAIVE_BASE] comes from the naive table (sound, and
#: cheaper than intervals this low: about 0.3 ms)
NAIVE_BASE = 1 << 12
#: the most guess states (|S|+|D|+1)^max(S) the convergence technique accepts
MAX_STATES = 1 << 16

_BLOCK = 1 << 20  # naive table: positions per block (bounds the temporary buffers)


# ---------------------------------------------------------------------------
# the game


def _index(v: Any, what: str) -> int:
    """``v`` as an int; a bool or a non-integer is an InputError "{what}, not {v!r}"."""
    if not isinstance(v, bool):
        try:
            return operator.index(v)
        except TypeError:
            pass
    raise InputError(f"{what}, not {v!r}")


def _int_set(values: Iterable[int], name: str, least: int) -> tuple[int, ...]:
    if isinstance(values, (str, bytes)):
        raise InputError(f"{name} must be a collection of integers, not {values!r}")
    try:
        items = list(values)
    except TypeError:
        raise InputError(f"{name} must be a collection of integers, not {values!r}") from None
    out: set[int] = set()
    for v in items:
        i = _index(v, f"{name} must contain integers")
        if i < least:
            raise InputError(f"{name} must contain integers ≥ {least}, got {i}"
                             + (" (n/1 = n would be a move to itself)" if name == "D" else ""))
        out.add(i)
    return tuple(sorted(out))


def _position(n: int) -> int:
    i = _index(n, "a position must be a natural number")
    if i < 0:
        raise InputError(f"a position must be a natural number, got {i}")
    return i


def _show_set(t: tuple[int, ...]) -> str:
    return "{" + ",".join(map(str, t)) + "}" if t else "∅"


@dataclass(frozen=True)
class IMark:
    """The game i-Mark(S, D) (SPEC §6), validated; build it with :meth:`of`.

    (The functions below validate a directly built ``IMark(S, D)`` again.)

    Attributes
    ----------
    S:
        The subtractions, sorted, each ≥ 1.
    D:
        The divisors, sorted, each ≥ 2.

    Notes
    -----
    S = ∅ (with D ≠ ∅) is the pure division game: 𝒢(n) = mex{𝒢(n/d) : d ∈ D,
    d | n}, and 0 and every n with no divisor in D are terminal.  D = ∅ is a
    subtraction game (eventually periodic, Sopena): its naive sequence is fine,
    but nothing ever corrects a wrong guess, so the convergence technique fails
    on it.  S = D = ∅ has no move at all and is refused.
    """

    S: tuple[int, ...]
    D: tuple[int, ...]

    @classmethod
    def of(cls, S: Iterable[int], D: Iterable[int]) -> IMark:
        """Validate S ⊆ ℕ∖{0} and D ⊆ ℕ∖{0, 1} (finite; duplicates are merged).

        >>> IMark.of([1], [3, 2])
        IMark(S=(1,), D=(2, 3))
        """
        s = _int_set(S, "S", 1)
        d = _int_set(D, "D", 2)
        if not s and not d:
            raise InputError("S and D are both empty: i-Mark(∅, ∅) has no move at all "
                             "(every position is terminal, 𝒢 ≡ 0); give a subtraction or a divisor")
        if len(s) + len(d) > 254:
            raise InputError(f"|S| + |D| = {len(s) + len(d)} is too large (at most 254: "
                             "values are stored as bytes)")
        return cls(s, d)

    def __str__(self) -> str:
        return f"i-Mark(S={_show_set(self.S)}, D={_show_set(self.D)})"

    @property
    def max_value(self) -> int:
        """|S| + |D|, a bound on every Grundy value (a position has that many moves at most)."""
        return len(self.S) + len(self.D)

    def followers(self, n: int) -> list[int]:
        """The positions one move away from ``n``, subtractions first.

        >>> IMark.of([1], [2, 3]).followers(6)
        [5, 3, 2]
        >>> IMark.of([1], [2, 3]).followers(0)
        []
        """
        n = _position(n)
        out = [n - s for s in self.S if s <= n]
        if n:
            out += [n // d for d in self.D if n % d == 0]
        return out


def _game(S: Iterable[int] | IMark, D: Iterable[int] | None) -> IMark:
    if isinstance(S, IMark):
        if D is not None:
            raise InputError("give either an IMark or S and D, not both")
        return IMark.of(S.S, S.D)  # validated again: IMark(...) itself does not check
    if D is None:
        raise InputError("D is missing")
    return IMark.of(S, D)


# ---------------------------------------------------------------------------
# transition tables


class _Lazy(dict[int, int]):
    """A table filled on demand: a missing key k gets ``fill(k)``."""

    def __init__(self, fill: Callable[[int], int]):
        super().__init__()
        self.fill = fill

    def __missing__(self, key: int) -> int:
        out = self[key] = self.fill(key)
        return out


class _Rules:
    """Constants and tables of one i-Mark(S, D).

    A state is the last K values as base-V digits (digit i = the value i
    positions back); a set of states is an int bitmask.  The lazy tables:
    ``sets[set << V | mask]`` is the set one position later, when the division
    followers of that position have the value set ``mask``; ``single`` the same
    for one state; ``agree[set]`` the value all states of the set end with, or −1.
    """

    def __init__(self, game: IMark):
        self.game = game
        self.S = game.S
        self.D = game.D
        self.maxS = max(game.S, default=0)
        self.K = max(1, self.maxS)  # digits per state (one even when S = ∅)
        self.V = game.max_value + 1  # values 0 … |S|+|D|
        # int ** int is typed Any (negative exponents give floats); these are ints
        self.pows: list[int] = [self.V ** i for i in range(self.K + 1)]
        self.VK = self.pows[self.K]
        self.dm_mask = (1 << self.V) - 1
        self.shift = self.pows[self.K - 1]
        self._mex: list[int] | None = (
            [mex_mask(m) for m in range(1 << self.V)] if self.V <= 16 else None)
        self.sets = _Lazy(self._next_set)
        self.single: list[int] | _Lazy = _Lazy(lambda k: self.step(k >> self.V, k & self.dm_mask))
        if self.VK << self.V <= 1 << 16:  # small: a list, faster to index than a dict
            self.single = [self.single[k] for k in range(self.VK << self.V)]
        self.agree = _Lazy(self._agreed)
        self._fast: tuple[list[int], list[int]] | None = None

    def _next_set(self, key: int) -> int:
        dm = key & self.dm_mask
        out = 0
        sset = key >> self.V
        while sset:
            low = sset & -sset
            out |= 1 << self.step(low.bit_length() - 1, dm)
            sset ^= low
        return out

    def _agreed(self, sset: int) -> int:
        values = set()
        while sset:
            low = sset & -sset
            values.add((low.bit_length() - 1) % self.V)
            sset ^= low
        return values.pop() if len(values) == 1 else -1

    def state_set(self, history: Sequence[int | None]) -> int:
        """The set of states with digit i = history[i], or every value where that is None.

        A digit i ≥ max(S) is never read (S = ∅ still keeps one digit): 0 there.
        """
        states = [0]
        for i, v in enumerate(history):
            if v is not None:
                states = [st + v * self.pows[i] for st in states]
            elif i < self.maxS:
                states = [st + x * self.pows[i] for st in states for x in range(self.V)]
        if len(states) == 1:
            return 1 << states[0]
        sset = 0
        for st in states:
            sset |= 1 << st
        return sset

    def mex(self, mask: int) -> int:
        return self._mex[mask] if self._mex is not None else mex_mask(mask)

    def step(self, st: int, dm: int) -> int:
        """The state after one position whose division followers have the value set ``dm``."""
        V, pows = self.V, self.pows
        mask = dm
        for s in self.S:
            mask |= 1 << (st // pows[s - 1] % V)
        # drop the oldest digit, append the new value as digit 0
        return (st % self.shift) * V + self.mex(mask)

    def check_states(self) -> None:
        if self.V ** self.maxS > MAX_STATES:
            raise InputError(
                f"{self.game}: (|S|+|D|+1)^max(S) = {self.V}^{self.maxS} guess vectors is too "
                f"many for the convergence technique (at most {MAX_STATES}); use the naive "
                "sequence")

    def fast_tables(self) -> tuple[list[int], list[int]] | None:
        """For the naive table: state<<8|mask → next state<<8, and state<<8 → its value."""
        if self._fast is None and self.V <= 8 and self.VK << 8 <= 1 << 20:
            size = self.VK << 8
            nxt = [0] * size
            for st in range(self.VK):
                for dm in range(1 << self.V):
                    nxt[st << 8 | dm] = self.step(st, dm) << 8
            val = [(k >> 8) % self.V for k in range(size)]
            self._fast = (nxt, val)
        return self._fast


@lru_cache(maxsize=64)
def _rules(game: IMark) -> _Rules:
    return _Rules(game)


# ---------------------------------------------------------------------------
# the naive table


_BITS = bytes((1 << v) if v < 8 else 0 for v in range(256))


def _extend_naive(r: _Rules, g: bytearray, upto: int) -> None:
    """Extend ``g`` (𝒢 on [0, len(g)), possibly empty) in place to 𝒢 on [0, upto]."""
    S, D = r.S, r.D
    fast = r.fast_tables()
    # positions with a missing history (x < K), and the first few, one by one
    first_fast = max(r.K, 16) if fast is not None else upto + 1
    x = len(g)
    while x <= min(upto, first_fast - 1):
        mask = 0
        for s in S:
            if s <= x:
                mask |= 1 << g[x - s]
        if x:
            for d in D:
                if x % d == 0:
                    mask |= 1 << g[x // d]
        g.append(r.mex(mask))
        x += 1
    if fast is None:
        return
    nxt, val = fast
    while len(g) <= upto:
        b0 = len(g)
        size = min(b0, upto + 1 - b0, _BLOCK)  # size ≤ b0: every x/d (x < 2·b0) is below b0
        acc = 0
        for d in D:
            f = b0 + (-b0) % d
            if f >= b0 + size:
                continue
            k0 = f // d
            count = (b0 + size - 1 - f) // d + 1
            arr = bytearray(size)
            arr[f - b0::d] = g[k0:k0 + count].translate(_BITS)
            acc |= int.from_bytes(arr, "little")
        masks = acc.to_bytes(size, "little")
        st = 0
        for i in range(r.K):
            st += g[b0 - 1 - i] * r.pows[i]
        st <<= 8
        out = [st := nxt[st | dm] for dm in masks]
        g += bytes(map(val.__getitem__, out))


def imark_sequence(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *,
                   upto: int) -> bytes:
    """𝒢(0), …, 𝒢(upto) of i-Mark(S, D), bottom up (SPEC §6, the naive computation).

    Θ(upto) time and bytes.  Byte ``n`` of the result is 𝒢(n).

    >>> list(imark_sequence([1], [2], upto=15))
    [0, 1, 0, 1, 2, 0, 2, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    >>> list(imark_sequence([1], [2, 3], upto=10))
    [0, 1, 0, 2, 1, 0, 1, 0, 2, 0, 1]
    """
    game = _game(S, D)
    upto = _position(upto)
    g = bytearray()
    _extend_naive(_rules(game), g, upto)
    return bytes(g)


def imark_sequence_chunks(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *,
                          upto: int, chunk: int = 1 << 16) -> Iterator[bytes]:
    """:func:`imark_sequence` delivered in consecutive pieces of at most ``chunk`` values.

    The whole table is still kept (later values need earlier ones); this only
    lets a caller print while computing.
    """
    game = _game(S, D)
    upto = _position(upto)
    if chunk < 1:
        raise InputError("chunk must be ≥ 1")
    r = _rules(game)
    g = bytearray()
    done = 0
    while done <= upto:
        _extend_naive(r, g, min(upto, done + chunk - 1))
        yield bytes(g[done:])
        done = len(g)


def imark_naive(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *, n: int) -> int:
    """𝒢(n) by the naive table (Θ(n) time and memory; the test oracle).

    >>> imark_naive([1], [2, 3], n=1000)
    2
    """
    return imark_sequence(S, D, upto=n)[-1]


# ---------------------------------------------------------------------------
# the convergence technique


class IMarkConvergenceError(ConvergenceError):
    """No value could be proven: the guess sequences disagree inside some J_m (SPEC §6).

    Attributes
    ----------
    game:
        The instance.
    n:
        The position asked for.
    m:
        The element of M whose interval failed (n itself, or one it depends on).
    c:
        The (largest) window tried.
    """

    def __init__(self, game: IMark, n: int, m: int, c: int, tried: Sequence[int]):
        self.game = game
        self.n = n
        self.m = m
        self.c = c
        self.tried = tuple(tried)
        which = "c = " + ", ".join(map(str, self.tried)) if len(self.tried) > 1 else f"c = {c}"
        super().__init__(
            f"{game}: no proven value for n = {n}: the guess sequences run over "
            f"I_m = [m-2c, m] still disagree inside J_m = [m-c, m] at m = {m} with c = {c} "
            f"(tried {which})")


@dataclass(frozen=True)
class IMarkValue:
    """A proven Grundy value of i-Mark(S, D).

    Attributes
    ----------
    S, D:
        The instance.
    n:
        The position.
    grundy:
        𝒢(n).
    c:
        The window with which the convergence technique proved it (SPEC §6).
    """

    S: tuple[int, ...]
    D: tuple[int, ...]
    n: int
    grundy: int
    c: int

    def as_dict(self) -> dict[str, Any]:
        """The JSON form: ``{"S": [1], "D": [2, 3], "n": ..., "grundy": ..., "c": ...}``."""
        return {"S": list(self.S), "D": list(self.D), "n": self.n, "grundy": self.grundy,
                "c": self.c}


class _InternalError(RuntimeError):
    """A value the technique was about to read is not known: a bug, never an answer."""


class _Store:
    """Proven values of one i-Mark(S, D): a naive prefix and intervals ending at m ∈ M.

    ``segs[m] = (start, values)`` holds the true 𝒢 on [start, m].
    """

    def __init__(self, r: _Rules):
        self.r = r
        self.base = bytearray()
        self.segs: dict[int, tuple[int, bytes]] = {}
        self.keys: list[int] = []  # sorted keys of segs

    def run(self, ns: Sequence[int], c: int, *, reuse: bool, abort: bool
            ) -> tuple[dict[int, int], dict[int, int]]:
        """Prove 𝒢 on J_m for every m in the union of the M(n); (values, failures n → m)."""
        r = self.r
        _extend_naive(r, self.base, max(2 * c + r.K, NAIVE_BASE if reuse else 0))
        B = len(self.base) - 1
        segs = self.segs
        D = r.D

        def adequate(m: int) -> bool:
            s = segs.get(m)
            return s is not None and s[0] <= m - c

        # M(n) = {⌊n/∏dᵢ^aᵢ⌋}, closed under m ↦ ⌊m/d⌋; below B the table answers
        seen = {n for n in ns if n > B}
        stack = list(seen)
        while stack:
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
        for m in sorted(seen):
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
            raise _InternalError(f"{r.game}: the history of m = {m} before {p} is not known")
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
                    raise _InternalError(
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
            raise _InternalError(f"{r.game}: interval of {m} proven only from {start}")
        if m not in segs:
            bisect.insort(self.keys, m)
        segs[m] = (start, values)
        return True


_STORES: OrderedDict[IMark, _Store] = OrderedDict()
_MAX_STORES = 16


def _store(game: IMark) -> _Store:
    st = _STORES.get(game)
    if st is None:
        st = _STORES[game] = _Store(_rules(game))
        while len(_STORES) > _MAX_STORES:
            _STORES.popitem(last=False)
    else:
        _STORES.move_to_end(game)
    return st


def imark_cache_clear() -> None:
    """Forget every memoized interval (the next query starts cold)."""
    _STORES.clear()


def _ladder(c: int | None, max_c: int, K: int) -> list[int]:
    if c is not None:
        c = _position(c)
        if c < 1:
            raise InputError("c must be ≥ 1")
        return [c]
    max_c = _position(max_c)
    out = []
    cc = C_START
    while cc < K:  # a window shorter than the history cannot settle it
        cc *= 2
    while cc <= max_c:
        out.append(cc)
        cc *= 2
    return out or [max(1, max_c)]


def imark_values(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *,
                 ns: Iterable[int], c: int | None = None, max_c: int = C_MAX,
                 reuse: bool = True) -> list[IMarkValue]:
    """𝒢(n) for every n in ``ns`` by the convergence technique (SPEC §6).

    The union of the sets M(n) is processed once, so many positions cost
    little more than the largest one.

    Parameters
    ----------
    S, D:
        The instance (or an :class:`IMark` as ``S``).
    ns:
        Positions.
    c:
        The window; ``None`` tries ``C_START``, doubling up to ``max_c``, and
        each value reports the c that proved it.
    reuse:
        Share proven values with earlier calls and run from a known history
        where there is one (see the module notes); ``False`` runs SPEC §6
        literally.

    Returns
    -------
    list of IMarkValue
        In the order of ``ns``.

    Raises
    ------
    IMarkConvergenceError
        (a :class:`~sdg_automata.errors.ConvergenceError`) for the first n of
        ``ns`` whose value could not be proven, with the failing m and c.
    InputError
        For a bad instance, position or c.

    Notes
    -----
    Nivasch, Rubinstein, "A convergence technique for the game i-Mark",
    arXiv 2503.23196: cost O(c · V^max(S) · log^|D| n) for V = |S|+|D|+1.

    >>> [v.grundy for v in imark_values([1], [2, 3], ns=range(11))]
    [0, 1, 0, 2, 1, 0, 1, 0, 2, 0, 1]
    """
    game = _game(S, D)
    order = [_position(n) for n in ns]
    r = _rules(game)
    r.check_states()
    ladder = _ladder(c, max_c, r.K)
    store = _store(game) if reuse else _Store(r)
    pending = sorted(set(order))
    proven: dict[int, tuple[int, int]] = {}
    failures: dict[int, int] = {}
    for cc in ladder:
        values, failures = store.run(pending, cc, reuse=reuse, abort=len(pending) == 1)
        for n, v in values.items():
            proven[n] = (v, cc)
        pending = [n for n in pending if n in failures]
        if not pending:
            break
    if pending:
        n = next(n for n in order if n in failures)
        raise IMarkConvergenceError(game, n, failures[n], ladder[-1], ladder)
    return [IMarkValue(game.S, game.D, n, *proven[n]) for n in order]


def imark_value(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *, n: int,
                c: int | None = None, max_c: int = C_MAX, reuse: bool = True) -> IMarkValue:
    """𝒢(n) with the window c that proved it; see :func:`imark_values`.

    >>> imark_value([1], [2, 3], n=10**30, reuse=False)
    IMarkValue(S=(1,), D=(2, 3), n=1000000000000000000000000000000, grundy=2, c=16)
    """
    return imark_values(S, D, ns=[n], c=c, max_c=max_c, reuse=reuse)[0]


def imark_grundy(S: Iterable[int] | IMark, D: Iterable[int] | None, n: int,
                 c: int | None = None, *, max_c: int = C_MAX, reuse: bool = True) -> int:
    """𝒢(n) of i-Mark(S, D) by the convergence technique (SPEC §6), never unproven.

    Parameters
    ----------
    S, D:
        The subtractions (⊆ ℕ∖{0}) and divisors (⊆ ℕ∖{0, 1}).
    n:
        The position, any natural number (10¹⁰⁰ takes seconds).
    c:
        The window: I_m = [m − 2c, m], J_m = [m − c, m]; ``None`` chooses it
        (``C_START`` doubled up to ``max_c``).

    Raises
    ------
    IMarkConvergenceError
        When the guess sequences do not agree within c steps somewhere (the
        message says at which m and with which c).

    >>> imark_grundy([1], [2, 3], 10**18)
    2
    """
    return imark_value(S, D, n=n, c=c, max_c=max_c, reuse=reuse).grundy


# ---------------------------------------------------------------------------
# the convergence survey (the experiment of the seed paper)


def _division_masks(r: _Rules, g: bytes | bytearray, upto: int) -> list[int]:
    """mask[x] = the set of 𝒢(x/d), d ∈ D dividing x, for x ≤ upto (g must reach upto//2)."""
    masks = [0] * (upto + 1)
    for d in r.D:
        x = d
        for v in g[1:upto // d + 1]:
            masks[x] |= 1 << v
            x += d
    return masks


def _steps_counter(game: IMark, upto: int, max_c: int) -> tuple[int, Callable[[int], int | None]]:
    """(K, steps): steps(lo) for a start lo ≤ upto is the entry of :func:`coalescence_steps`."""
    r = _rules(game)
    r.check_states()
    horizon = upto + max_c + r.K + 1
    masks = _division_masks(r, imark_sequence(game, upto=horizon), horizon)
    full = r.state_set([None] * r.K)
    sets, V, K = r.sets, r.V, r.K

    def steps(lo: int) -> int | None:
        sset, x = full, lo
        while sset & (sset - 1):
            # a merge at x would make the sequences agree from x − K + 1 on
            if x - K + 1 - lo > max_c:
                return None
            sset = sets[sset << V | masks[x]]
            x += 1
        return max(0, x - K - lo)

    return K, steps


def coalescence_steps(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *,
                      upto: int, max_c: int = 128) -> list[int | None]:
    """For each start lo ≤ ``upto``: how many steps until every guess sequence agrees.

    All guess vectors for 𝒢 on [lo − max S, lo − 1] are run with the true
    division followers; entry lo is the least t with all of them equal from
    lo + t on (``None`` when that is beyond ``max_c``).  Entries up to
    K = max(1, max S) are ``None`` (not a start).

    With c ≥ every entry, the convergence technique proves every n ≤ upto + 2c
    (I_m starts at m − 2c).

    >>> steps = coalescence_steps([1], [2, 3], upto=100)
    >>> worst = max(s for s in steps if s is not None)
    >>> worst, steps.index(worst)
    (9, 61)
    """
    upto = _position(upto)
    K, steps = _steps_counter(_game(S, D), upto, _position(max_c))
    return [None if lo <= K else steps(lo) for lo in range(upto + 1)]


@dataclass(frozen=True)
class SurveyRow:
    """The convergence of one instance over the starts K + 1 … upto (K = max(1, max S)).

    Attributes
    ----------
    S, D:
        The instance.
    upto:
        The largest start checked.
    max_c:
        Starts needing more steps than this count as not converging.
    c:
        The smallest window c that makes every start converge (so the
        technique proves every n ≤ upto + 2c), or ``None``.
    worst_start:
        The first start that needs ``c`` steps.
    failed_start:
        The first start whose guess sequences do not agree within ``max_c``
        steps, or ``None``.
    starts:
        How many starts were checked (the scan stops at ``failed_start``).
    seconds:
        Wall time of the instance.
    """

    S: tuple[int, ...]
    D: tuple[int, ...]
    upto: int
    max_c: int
    c: int | None
    worst_start: int | None
    failed_start: int | None
    starts: int
    seconds: float

    @property
    def converges(self) -> bool:
        """True when every start converged within ``max_c`` steps."""
        return self.failed_start is None

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"S": list(self.S), "D": list(self.D), "upto": self.upto, "max_c": self.max_c,
                "converges": self.converges, "c": self.c, "worst_start": self.worst_start,
                "failed_start": self.failed_start, "starts": self.starts,
                "seconds": round(self.seconds, 4)}


def survey_instance(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *,
                    upto: int, max_c: int = 128) -> SurveyRow:
    """The smallest c for every start ≤ ``upto``, or the first start that never converges.

    Like :func:`coalescence_steps`, but stops at the first failing start.

    >>> row = survey_instance([2], [2], upto=100)
    >>> row.converges, row.failed_start
    (False, 3)
    """
    t0 = time.perf_counter()
    game = _game(S, D)
    upto, max_c = _position(upto), _position(max_c)
    K, steps = _steps_counter(game, upto, max_c)
    worst, worst_start = -1, None
    for lo in range(K + 1, upto + 1):
        t = steps(lo)
        if t is None:  # the first start that does not converge ends the scan
            return SurveyRow(game.S, game.D, upto, max_c, None, None, lo, lo - K,
                             time.perf_counter() - t0)
        if t > worst:
            worst, worst_start = t, lo
    return SurveyRow(game.S, game.D, upto, max_c, max(1, worst), worst_start, None,
                     max(0, upto - K), time.perf_counter() - t0)


def survey_instances(max_s: int, max_d: int, *, max_d_size: int = 2,
                     max_s_size: int | None = None) -> list[IMark]:
    """The survey's instances: S a non-empty subset of {1 … max_s}, D a non-empty subset of
    {2 … max_d} with |D| ≤ ``max_d_size`` (and |S| ≤ ``max_s_size`` if given).

    Ordered by |S|, S, |D|, D.

    >>> [str(g) for g in survey_instances(1, 3)]
    ['i-Mark(S={1}, D={2})', 'i-Mark(S={1}, D={3})', 'i-Mark(S={1}, D={2,3})']
    """
    if max_s < 1 or max_d < 2 or max_d_size < 1:
        raise InputError("the survey needs max_s ≥ 1, max_d ≥ 2 and max_d_size ≥ 1")
    s_sizes = range(1, (max_s_size or max_s) + 1)
    subsets = [c for k in s_sizes for c in combinations(range(1, max_s + 1), k)]
    divisors = [c for k in range(1, max_d_size + 1) for c in combinations(range(2, max_d + 1), k)]
    return [IMark(s, d) for s in subsets for d in divisors]


def _survey_job(args: tuple[tuple[int, ...], tuple[int, ...], int, int]) -> SurveyRow:
    S, D, upto, max_c = args
    return survey_instance(S, D, upto=upto, max_c=max_c)


def survey(instances: Iterable[IMark], *, upto: int, max_c: int = 128, jobs: int | None = None,
           on_result: Callable[[SurveyRow], None] | None = None) -> list[SurveyRow]:
    """:func:`survey_instance` for every instance, over ``jobs`` local processes.

    ``jobs=None`` uses ``os.cpu_count()``; ``jobs=1`` runs in this process.
    ``on_result`` is called in the parent as each instance finishes (in
    completion order); the returned list keeps the order of ``instances``.
    """
    import os

    work = [(g.S, g.D, upto, max_c) for g in instances]
    jobs = jobs or os.cpu_count() or 1
    rows: list[SurveyRow | None] = [None] * len(work)
    if jobs == 1 or len(work) <= 1:
        for i, w in enumerate(work):
            row = _survey_job(w)
            rows[i] = row
            if on_result:
                on_result(row)
    else:
        from concurrent.futures import ProcessPoolExecutor, as_completed

        with ProcessPoolExecutor(max_workers=min(jobs, len(work))) as pool:
            futures = {pool.submit(_survey_job, w): i for i, w in enumerate(work)}
            for fut in as_completed(futures):
                row = fut.result()
                rows[futures[fut]] = row
                if on_result:
                    on_result(row)
    return [row for row in rows if row is not None]
