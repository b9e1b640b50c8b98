"""The game i-Mark(S, D) (SPEC §6) and the table of its guess-sequence steps.

From a position n ∈ ℕ a move goes to n − s for s ∈ S (when n − s ≥ 0) or to
n / d for d ∈ D (when n ≥ 1 and d divides n).  Every Grundy value is at most
|S| + |D|.

:class:`IMark` is the validated instance (checked once, in ``__post_init__``;
every function of :mod:`sdg_automata.games.imark` trusts it).  :class:`Rules` holds
what both the naive table and the convergence technique step through: a
*state* is the last K = max(1, max S) values, and one step appends 𝒢 of the
next position from the values of its division followers.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ...errors import InputError
from ..mex import mex_mask

__all__ = ["CAVEAT_NO_ONE", "MAX_STATES", "IMark", "Rules", "position", "rules"]

#: the most guess states (|S|+|D|+1)^max(S) the convergence technique accepts
MAX_STATES = 1 << 16

#: why an instance without 1 ∈ S (or with D = ∅) may never converge; said once, here
CAVEAT_NO_ONE = (
    "Without 1 ∈ S a wrong guess may never be corrected: in i-Mark({2}, {2}) an odd "
    "position only moves to n − 2 (division needs an even n), so the guesses for the odd "
    "positions run side by side forever; with D = ∅ nothing ever corrects a guess.  Such "
    "instances end in ConvergenceError (exit 3), never in a value.")


def _index(v: Any, what: str) -> int:
    """``v`` as an int; a bool or a non-integer is an InputError "{what}, not {v!r}"."""
    if not isinstance(v, bool):
        try:
            return operator.index(v)
        except TypeError:
            pass
    raise InputError(f"{what}, not {v!r}")


def _int_set(values: Any, name: str, least: int) -> tuple[int, ...]:
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


def position(n: Any) -> int:
    """``n`` as a position (a natural number), or an InputError."""
    i = _index(n, "a position must be a natural number")
    if i < 0:
        raise InputError(f"a position must be a natural number, got {i}")
    return i


def _show_set(t: tuple[int, ...]) -> str:
    return "{" + ",".join(map(str, t)) + "}" if t else "∅"


@dataclass(frozen=True, kw_only=True)
class IMark:
    """The game i-Mark(S, D) (SPEC §6), validated once.

    Parameters
    ----------
    S:
        The subtractions, each ≥ 1 (any finite collection; stored sorted,
        duplicates merged).
    D:
        The divisors, each ≥ 2.

    Raises
    ------
    InputError
        For a non-integer, an s < 1 or a d < 2, S = D = ∅ (no move at all), or
        |S| + |D| > 254 (values are stored as bytes).

    Notes
    -----
    S = ∅ (with D ≠ ∅) is the pure division game: 𝒢(n) = mex{𝒢(n/d) : d ∈ D,
    d | n}, and 0 and every n with no divisor in D are terminal.  D = ∅ is a
    subtraction game (eventually periodic, Sopena): its naive sequence is fine,
    but the convergence technique fails on it (:data:`CAVEAT_NO_ONE`).

    >>> IMark(S=[1], D=[3, 2])
    IMark(S=(1,), D=(2, 3))
    """

    S: tuple[int, ...]
    D: tuple[int, ...]

    def __post_init__(self) -> None:
        s = _int_set(self.S, "S", 1)
        d = _int_set(self.D, "D", 2)
        if not s and not d:
            raise InputError("S and D are both empty: i-Mark(∅, ∅) has no move at all "
                             "(every position is terminal, 𝒢 ≡ 0); give a subtraction or a divisor")
        if len(s) + len(d) > 254:
            raise InputError(f"|S| + |D| = {len(s) + len(d)} is too large (at most 254: "
                             "values are stored as bytes)")
        object.__setattr__(self, "S", s)
        object.__setattr__(self, "D", d)

    @classmethod
    def of(cls, S: Iterable[int], D: Iterable[int]) -> IMark:
        """``IMark(S=S, D=D)``, positionally.

        >>> IMark.of([1], [3, 2])
        IMark(S=(1,), D=(2, 3))
        """
        return cls(S=tuple(S) if not isinstance(S, (str, bytes)) else S,  # type: ignore[arg-type]
                   D=tuple(D) if not isinstance(D, (str, bytes)) else D)  # type: ignore[arg-type]

    def __str__(self) -> str:
        return f"i-Mark(S={_show_set(self.S)}, D={_show_set(self.D)})"

    @property
    def max_value(self) -> int:
        """|S| + |D|, a bound on every Grundy value (a position has that many moves at most)."""
        return len(self.S) + len(self.D)

    @property
    def history(self) -> int:
        """K = max(1, max S): how many earlier values a step reads (one even when S = ∅)."""
        return max(1, max(self.S, default=0))

    def guess_vectors(self) -> int:
        """(|S|+|D|+1)^max(S), the number of guessed histories; refused beyond MAX_STATES.

        Computed without building the power when it is astronomically large
        (max S = 10²⁰ is refused at once).
        """
        max_s = max(self.S, default=0)
        v = self.max_value + 1
        count: int | None = None
        if max_s * math.log2(v) <= 64:  # else astronomically many: do not build the power
            count = int(v ** max_s)
        if count is None or count > MAX_STATES:
            shown = f"{v}^{max_s}"
            raise InputError(
                f"{self}: (|S|+|D|+1)^max(S) = {shown} guess vectors is too many for the "
                f"convergence technique (at most {MAX_STATES}); use the naive sequence")
        return count

    def followers(self, n: int) -> list[int]:
        """The positions one move away from ``n``, subtractions first.

        >>> IMark.of([1], [2, 3]).followers(6)
        [5, 3, 2]
        >>> IMark.of([1], [2, 3]).followers(0)
        []
        """
        n = position(n)
        out = [n - s for s in self.S if s <= n]
        if n:
            out += [n // d for d in self.D if n % d == 0]
        return out


def game_of(S: Iterable[int] | IMark, D: Iterable[int] | None) -> IMark:
    """The instance from an :class:`IMark` (trusted: validated when built) or from S and D."""
    if isinstance(S, IMark):
        if D is not None:
            raise InputError("give either an IMark or S and D, not both")
        return S
    if D is None:
        raise InputError("D is missing")
    return IMark.of(S, D)


# ---------------------------------------------------------------------------
# the step table


class _Lazy(dict[int, int]):
    """A table filled on demand: a missing key k gets ``fill(k)``."""

    def __init__(self, fill: Callable[[int], int]):
        super().__init__()
        self.fill = fill

    def __missing__(self, key: int) -> int:
        out = self[key] = self.fill(key)
        return out


class Rules:
    """Constants and step tables of one i-Mark(S, D) whose states are few enough.

    A state is the last K values as base-V digits (digit i = the value i
    positions back); a set of states is an int bitmask.  The lazy tables:
    ``sets[set << V | mask]`` is the set one position later, when the division
    followers of that position have the value set ``mask``; ``single`` the same
    for one state; ``agree[set]`` the value all states of the set end with, or −1.

    Built only through :func:`rules`, which refuses a history too long to
    tabulate (the naive table then runs its generic loop).
    """

    def __init__(self, game: IMark):
        self.game = game
        self.S = game.S
        self.D = game.D
        self.maxS = max(game.S, default=0)
        self.K = game.history
        self.V = game.max_value + 1  # values 0 … |S|+|D|
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
        """mex of the value set ``mask`` (a bitmask)."""
        return self._mex[mask] if self._mex is not None else mex_mask(mask)

    def step(self, st: int, dm: int) -> int:
        """The state after one position whose division followers have the value set ``dm``."""
        V, pows = self.V, self.pows
        mask = dm
        for s in self.S:
            mask |= 1 << (st // pows[s - 1] % V)
        # drop the oldest digit, append the new value as digit 0
        return (st % self.shift) * V + self.mex(mask)

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
def rules(game: IMark) -> Rules:
    """The step tables of ``game``; an InputError when its guess states are too many."""
    game.guess_vectors()
    return Rules(game)
