"""The convergence technique for one huge n, a layer of intervals at a time (SPEC §6).

Why layers
----------
For D = {d₁ < d₂ < …} every element of M(n) is m(a, r) = ⌊n / (d₁^a · ∏ dᵢ^rᵢ)⌋,
a node of an exponent grid, and ⌊m(a, r) / d₁⌋ = m(a + 1, r),
⌊m(a, r) / dᵢ⌋ = m(a, r + eᵢ) (⌊⌊n/x⌋/y⌋ = ⌊n/(xy)⌋).  The interval of a node
needs exactly the intervals of the nodes one *layer* s = a + |r| higher, so the
layers are processed from the top (s = log_{d₁} n) down to s = 0 (m = n), and
only two layers are alive at any time: memory O(#columns · c), not O(|M|).

Inside a layer the intervals are independent, so their guess sequences run in
lockstep as numpy arrays: one step of every interval of the layer is one
gather in the table of guess-state *sets* (:class:`_SetTable`).  At 10¹⁰⁰⁰ a
layer holds up to ~2,000 intervals and there are ~3,300 layers; the per-interval
Python work of the reference engine (about 20 µs an interval) becomes a few
numpy operations per layer.  numpy is used for exactly this.

No big integer is touched per node: a column r (fixed r, a running) holds
Q_r = ⌊n / ∏ dᵢ^rᵢ⌋, and going one layer down appends the next base-d₁ digit
of Q_r: m ← d₁·m + digit, m mod d ← (d₁·(m mod d) + digit) mod d, all int64
vectors over the columns (m itself only while it is small: then it indexes the
naive table).

Soundness
---------
Exactly the argument of SPEC §6 and of the reference engine: every interval
I_m = [m − 2c, m] with m > B (B ≥ 2c + max S: the naive table covers the rest)
starts from the set of *all* guessed histories, the true one among them; its
division followers x/d lie in J_{⌊m/d⌋} = [⌊m/d⌋ − c, ⌊m/d⌋], read from the
layer above (or from the naive table when ⌊m/d⌋ ≤ B); a position is accepted
only where every guess sequence agrees, and an interval only when they agree
on all of J_m.  Any disagreement there aborts the run for this c
(``_NoConvergence``, caught by :mod:`~sdg_automata.games.imark.convergence`, which
tries the next c or raises :class:`~sdg_automata.errors.ConvergenceError`), so no
unproven value is ever returned.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...errors import BudgetExceeded, SdgBug
from ...runtime.budget import Meter, available_bytes
from .game import IMark, Rules

__all__ = ["columns", "layered_value", "supports"]

#: a layered run is refused (BudgetExceeded) beyond this many digit bytes (columns × digits)
MAX_GRID_BYTES = 1 << 27
#: values of m kept exactly; larger ones are only compared with the table's end
_CAP = 1 << 40
#: the widest value mask the lockstep table handles (2^V entries per set of states)
_MAX_V = 12
#: divisors must stay below this so that residues times d₁ fit int64
_MAX_D = 1 << 20


class _NoConvergence(Exception):
    """The guess sequences of the interval ending at ``m`` disagree inside J_m (not an answer).

    A signal from this engine to its one caller, the convergence driver
    (:func:`sdg_automata.games.imark.convergence.imark_prove`), which catches it at
    once and tries a wider window c; when every c fails, the user gets
    :class:`~sdg_automata.games.imark.convergence.IMarkConvergenceError` with the last
    m, never this.  So it is private, and deliberately not an
    :class:`~sdg_automata.errors.SdgError`: it is control flow, not an error of the
    caller, and no handler meant for the package's errors may catch it (as networkx
    keeps the internal exceptions of its algorithms out of its public hierarchy).
    """

    def __init__(self, m: int):
        super().__init__(m)
        self.m = m


def supports(game: IMark, n: int) -> bool:
    """Whether the layered engine serves ``game`` at ``n`` (small V, divisors < 2²⁰)."""
    return game.max_value + 1 <= _MAX_V and all(d < _MAX_D for d in game.D if d <= n)


# ---------------------------------------------------------------------------
# sets of guess states, numbered densely


class _SetTable:
    """Sets of guess states numbered 0, 1, …, stored pre-multiplied by W = 2^V so a step
    is one add and one gather: ``T[id·W + mask]`` = the next set's id·W (−1: not yet
    computed); ``AG[id·W + mask]`` = the value every state of set ``id`` ends with, or
    :data:`_DISAGREE`."""

    def __init__(self, r: Rules):
        self.r = r
        self.W = 1 << r.V
        self.ids: dict[int, int] = {}
        self.sets: list[int] = []
        self.T = np.full(8 * self.W, -1, dtype=np.int64)
        self.AG = np.full(8 * self.W, _DISAGREE, dtype=np.uint8)
        self.full = self.id(r.state_set([None] * r.K)) * self.W
        self.complete = self._close()

    def _close(self) -> bool:
        """Fill T for every set reachable from the full set under any masks, if they are at
        most :data:`_CLOSURE` (then no step needs a miss check)."""
        if self.r.VK > _CLOSURE_STATES:  # sets of many states: found lazily, as met
            return False
        i = 0
        while i < len(self.sets):
            if len(self.sets) > _CLOSURE:
                return False
            self.fill(np.arange(i * self.W, (i + 1) * self.W, dtype=np.int64))
            i += 1
        return True

    def id(self, sset: int) -> int:
        i = self.ids.get(sset)
        if i is None:
            i = self.ids[sset] = len(self.sets)
            self.sets.append(sset)
            if (i + 1) * self.W > len(self.T):
                self.T = np.concatenate([self.T, np.full_like(self.T, -1)])
                self.AG = np.concatenate([self.AG, np.full_like(self.AG, _DISAGREE)])
            agreed = self.r.agree[sset]
            self.AG[i * self.W:(i + 1) * self.W] = _DISAGREE if agreed < 0 else agreed
        return i

    def fill(self, keys: np.ndarray) -> None:
        """Compute the missing entries T[keys]."""
        V, W, sets = self.r.V, self.W, self.r.sets
        for key in np.unique(keys[self.T[keys] < 0]).tolist():
            i, dm = divmod(key, W)
            self.T[key] = self.id(sets[self.sets[i] << V | dm]) * W


#: divisors up to this get their position patterns tabulated per residue
_PATTERN_D = 1 << 10
#: the most sets of guess states tabulated up front, and the most guess states for that
_CLOSURE = 1 << 10
_CLOSURE_STATES = 64
#: the agreement table's mark for "the guesses disagree here" (values are < 255)
_DISAGREE = 255


@lru_cache(maxsize=16)
def _set_table(game: IMark) -> _SetTable:
    from .game import rules

    return _SetTable(rules(game))


def _mask_dtype(V: int) -> type[np.unsignedinteger]:
    return np.uint8 if V <= 8 else np.uint16


def _prove(tab: _SetTable, dm: np.ndarray, c: int, meter: Meter) -> tuple[np.ndarray, int]:
    """Run every guess sequence of every row of ``dm`` (rows × 2c+1 division masks).

    Returns (J, −1): J[row, t] = the proven value at position m − c + t; or
    (_, row) for the first row whose guesses disagree inside J_m.  The meter is
    checked along the window (a window of 10⁷ positions is seconds of steps), its
    count left as it is.
    """
    rows = dm.shape[0]
    cols = np.ascontiguousarray(dm.T).astype(np.int64)
    ids = np.full(rows, tab.full, dtype=np.int64)
    out = np.empty((c + 1, rows), dtype=np.uint8)
    T = tab.T
    done, due = meter.count, 0
    for i in range(2 * c + 1):
        if i >= due:
            due = meter.check(done, step=i)
        key = ids + cols[i]
        ids = T[key]
        if not tab.complete and ids.min() < 0:  # a set of states met for the first time
            tab.fill(key)
            T = tab.T
            ids = T[key]
        if i >= c:
            out[i - c] = tab.AG[ids]
    bad = np.flatnonzero((out == _DISAGREE).any(axis=0))
    return out.T, int(bad[0]) if bad.size else -1


# ---------------------------------------------------------------------------
# the exponent grid


@dataclass(frozen=True, kw_only=True)
class Columns:
    """The columns of the exponent grid of n: one per r with ∏ dᵢ^rᵢ ≤ n (i ≥ 2), by |r|.

    Attributes
    ----------
    q:
        Q_r = ⌊n / ∏ dᵢ^rᵢ⌋ per column.
    sums:
        |r| per column (non-decreasing).
    succ:
        succ[i][col] = the column of r + e_{i+2}, or len(q) (a sentinel: m = 0).
    """

    q: list[int]
    sums: np.ndarray
    succ: list[np.ndarray]


def columns(n: int, others: tuple[int, ...], *, limit: int) -> Columns:
    """The grid's columns for the divisors ``others`` = (d₂, …); refused beyond ``limit``."""
    index: dict[tuple[int, ...], int] = {}
    vecs: list[tuple[int, ...]] = []
    prods: list[int] = []
    sums: list[int] = []
    level = [(tuple(0 for _ in others), 1)]
    depth = 0
    while level:
        nxt: list[tuple[tuple[int, ...], int]] = []
        for v, p in level:
            index[v] = len(vecs)
            vecs.append(v)
            prods.append(p)
            sums.append(depth)
            if len(vecs) > limit:
                raise BudgetExceeded(
                    f"the convergence technique at n ≈ 10^{len(str(n)) - 1} with "
                    f"{len(others) + 1} divisors needs more than {limit:,} columns of "
                    "intervals (|M(n)| grows as log(n)^|D|); too large",
                    explored=0)
            for i, d in enumerate(others):
                if any(v[j] for j in range(i + 1, len(v))):
                    continue  # generate each vector once: increase coordinates in order
                w = v[:i] + (v[i] + 1,) + v[i + 1:]
                if p * d <= n:
                    nxt.append((w, p * d))
        level = nxt
        depth += 1
    R = len(vecs)
    succ = [np.array([index.get(v[:i] + (v[i] + 1,) + v[i + 1:], R) for v in vecs] + [R],
                     dtype=np.int64) for i in range(len(others))]
    return Columns(q=[n // p for p in prods], sums=np.array(sums + [1 << 62], dtype=np.int64),
                   succ=succ)


def _width(n: int, base: int) -> int:
    """How many base-``base`` digits n ≥ 1 has."""
    w = max(1, int(n.bit_length() / math.log2(base)) - 1)
    while base ** w <= n:
        w += 1
    return w


def _digits(q: int, base: int, width: int) -> np.ndarray:
    """The base-``base`` digits of ``q``, least significant first, padded to ``width``."""
    out = np.zeros(width, dtype=np.int64)
    if base & (base - 1) == 0:
        bits = base.bit_length() - 1
        raw = np.unpackbits(np.frombuffer(q.to_bytes((width * bits + 7) // 8, "little"),
                                          dtype=np.uint8), bitorder="little")
        weights = (1 << np.arange(bits, dtype=np.int64))
        return raw[:width * bits].reshape(width, bits).astype(np.int64) @ weights
    e = max(1, 62 // base.bit_length())
    big = base ** e
    limbs = []
    while q:
        q, rem = divmod(q, big)
        limbs.append(rem)
    arr = np.array(limbs, dtype=np.int64)
    for j in range(e):
        part = arr % base
        take = out[j::e]
        take[:len(part)] = part[:len(take)]
        arr //= base
    return out


# ---------------------------------------------------------------------------
# one value


def _pattern(pos: np.ndarray, residues: np.ndarray, d: int, c: int) -> np.ndarray:
    """For each residue r = m mod d, the child's J column read at each position of I_m."""
    num = pos[None, :] - residues[:, None]
    return np.where((num >= 0) & (num % d == 0), c - num // d, c + 1).astype(np.int32)


def _check_room(n: int, rows: int, width: int, c: int, mask_bytes: int) -> None:
    """Refuse, before the work, a grid of more than :data:`MAX_GRID_BYTES` digit bytes or a
    layer (``rows`` columns) whose arrays exceed the memory left (:class:`BudgetExceeded`)."""
    if rows * width > MAX_GRID_BYTES:
        raise BudgetExceeded(f"the convergence technique at n ≈ 10^{len(str(n)) - 1} needs "
                             f"{rows * width:,} bytes of digits; too large")
    # a layer's arrays: J of two layers, the children's J and the option masks, per column
    layer = (rows + 1) * (3 * (c + 2) + (2 * c + 1) * mask_bytes)
    left = available_bytes()
    if left is not None and layer > left:
        raise BudgetExceeded(f"the convergence technique with c = {c:,} at n ≈ "
                             f"10^{len(str(n)) - 1} needs {layer:,} bytes per layer of its "
                             f"{rows:,} columns, more than the {left:,} bytes left: give a "
                             "smaller --c or --max-c")


def _digit_grid(cols: Columns, d1: int, width: int) -> np.ndarray:
    """The base-d₁ digits of every column's Q_r, digit j of column r at index |r| + j, so
    that layer s reads index s of every column."""
    R = len(cols.q)
    dtype = np.uint8 if d1 <= 256 else np.int64
    digits = np.zeros((R, width), dtype=dtype)
    sums = cols.sums
    if d1 == 2:  # every column's bits in one unpacking
        size = (width + 7) // 8
        raw = np.frombuffer(b"".join(q.to_bytes(size, "little") for q in cols.q),
                            dtype=np.uint8).reshape(R, size)
        bits = np.unpackbits(raw, axis=1, bitorder="little")
        for j in range(R):
            k = int(sums[j])
            digits[j, k:] = bits[j, :width - k]
    else:
        for j, q in enumerate(cols.q):
            k = int(sums[j])
            digits[j, k:] = _digits(q, d1, width - k)
    return digits


def _patterns(D: tuple[int, ...], pos: np.ndarray, c: int, meter: Meter
              ) -> dict[int, np.ndarray]:
    """Per divisor d, the :func:`_pattern` row of each residue below :data:`_PATTERN_D`.

    A row is 2c + 1 positions, seconds of work for c = 10⁷, so the meter is checked
    after each one; the rows are filled in place (no second copy of the table).
    """
    done = meter.count
    pattern = {}
    for d in D:
        rows = pattern[d] = np.empty((min(d, _PATTERN_D), 2 * c + 1), dtype=np.int32)
        for r in range(len(rows)):
            rows[r] = _pattern(pos, np.array([r], dtype=np.int64), d, c)[0]
            meter.check(done)
    return pattern


@dataclass(frozen=True, kw_only=True)
class _Layer:
    """What one layer's option masks read: the columns of the layer above, the grid's
    successor columns, the naive table, and the per-divisor position patterns."""

    D: tuple[int, ...]
    c: int
    B: int
    V: int
    bit: np.ndarray
    G: np.ndarray
    span: np.ndarray
    pos: np.ndarray
    cols: Columns
    pattern: dict[int, np.ndarray]
    mtype: type[np.unsignedinteger]

    def masks(self, live: np.ndarray, val_prev: np.ndarray, J_prev: np.ndarray,
              res: list[np.ndarray]) -> np.ndarray:
        """The division masks of the intervals of the ``live`` columns (rows × 2c + 1): at
        each position, the bit of every division follower's proven value."""
        c, B, L = self.c, self.B, live.size
        dm = np.zeros((L, 2 * c + 1), dtype=self.mtype)
        rowbase = (np.arange(L, dtype=np.int32) * (c + 2))[:, None]
        for j, d in enumerate(self.D):
            child = live if j == 0 else self.cols.succ[j - 1][live]
            cval = val_prev[child]
            cj = np.empty((L, c + 2), dtype=np.uint8)
            cj[:, :c + 1] = J_prev[child]
            cj[:, c + 1] = self.V  # bit[V] = 0: "no follower here"
            small = np.flatnonzero(cval <= B)  # the child's J comes from the naive table
            if small.size:
                cj[small, :c + 1] = self.G[np.clip(cval[small, None] - c + self.span, 0, B)]
            r_live = res[j][live]
            where = (self.pattern[d][r_live] if d <= _PATTERN_D
                     else _pattern(self.pos, r_live, d, c))  # a wide divisor: computed
            dm |= self.bit[cj].ravel()[where + rowbase]
        return dm


def layered_value(game: IMark, n: int, c: int, table: bytes, meter: Meter) -> int:
    """𝒢(n) proven with window ``c``; ``table`` is the naive 𝒢 on [0, B], B ≥ 2c + max S.

    Raises
    ------
    _NoConvergence
        With the m whose interval could not be proven with this c (caught by the
        convergence driver, never seen by users).
    BudgetExceeded
        When the grid would exceed :data:`MAX_GRID_BYTES` (checked before the work).
    """
    B = len(table) - 1
    if B < 2 * c + game.history:
        raise SdgBug(f"{game}: naive table up to {B} is too short for c = {c}")
    if n <= B:
        return table[n]
    tab = _set_table(game)
    V = game.max_value + 1
    mtype = _mask_dtype(V)
    D = tuple(d for d in game.D if d <= n)
    if not D:  # no division move below n: the single interval J_n from guesses alone
        out, bad = _prove(tab, np.zeros((1, 2 * c + 1), dtype=mtype), c, meter)
        if bad >= 0:
            raise _NoConvergence(n)
        return int(out[0, c])
    d1, others = D[0], D[1:]
    width = _width(n, d1)
    cols = columns(n, others, limit=max(1, MAX_GRID_BYTES // width))
    R = len(cols.q)
    _check_room(n, R, width, c, np.dtype(mtype).itemsize)
    digits = _digit_grid(cols, d1, width)
    sums = cols.sums
    active_upto = np.searchsorted(sums, np.arange(width), side="right")

    val = np.zeros(R + 1, dtype=np.int64)  # m per column, capped at _CAP
    res = [np.zeros(R + 1, dtype=np.int64) for _ in D]  # m mod d per column
    # J of the layer above (m = 0 above the top) and of this one; rows of columns whose m
    # is at most B are stale and never read (those children come from the naive table)
    J_prev = np.zeros((R + 1, c + 1), dtype=np.uint8)
    J_cur = np.zeros((R + 1, c + 1), dtype=np.uint8)
    val_prev = np.zeros(R + 1, dtype=np.int64)
    # position i = 2c − r − d·u of I_m (r = m mod d) has the division follower ⌊m/d⌋ − u,
    # at column c − u of the child's J; column c + 1 means "no follower" (bit 0)
    pos = 2 * c - np.arange(2 * c + 1, dtype=np.int64)
    done = meter.count  # intervals of the whole call (earlier values and windows too)
    layer = _Layer(D=D, c=c, B=B, V=V, bit=np.array([1 << v for v in range(V)] + [0],
                                                     dtype=mtype),
                   G=np.frombuffer(table, dtype=np.uint8),
                   span=np.arange(c + 1, dtype=np.int64), pos=pos, cols=cols,
                   pattern=_patterns(D, pos, c, meter), mtype=mtype)
    for s in range(width - 1, -1, -1):
        na = int(active_upto[s])
        dig = digits[:na, s].astype(np.int64)
        np.copyto(val_prev, val)  # every column of layer s + 1, not only the active ones
        val[:na] = np.minimum(val[:na] * d1 + dig, _CAP)
        for j, d in enumerate(D):
            res[j][:na] = (res[j][:na] * d1 + dig) % d
        live = np.flatnonzero(val[:na] > B)
        if live.size:
            out, bad = _prove(tab, layer.masks(live, val_prev, J_prev, res), c, meter)
            if bad >= 0:
                col = int(live[bad])
                raise _NoConvergence(cols.q[col] // d1 ** (s - int(sums[col])))
            J_cur[live] = out
            done += live.size
        J_prev, J_cur = J_cur, J_prev
        meter.check(done)
    if val[0] <= B:
        raise SdgBug(f"{game}: n = {n} ended below the naive table")
    return int(J_prev[0, c])
