"""Counting the words of one length of a DFA over int tables, and the cost rule (SPEC §4).

:class:`TransferTable` is a complete DFA trimmed to its live states; it counts the
words of length n by two exact methods — ``"levels"`` (two rolling levels of big
integers) and ``"power"`` (the transfer matrix by repeated squaring, Stanley,
*Enumerative Combinatorics I*, Theorem 4.7.2) — and :func:`plan` chooses the cheaper
from the per-operation costs of CPython's integers (:data:`COSTS`), refusing up front a
count that cannot fit in memory or time.  :mod:`sdg_automata.automaton.counting`
describes both methods and the rule, and builds the tables of the Grundy classes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from operator import add, mul
from typing import TYPE_CHECKING, Any, Literal, get_args

from ..errors import BudgetExceeded, InputError, SdgBug
from ..runtime.budget import ESTIMATE_CEILING, UNLIMITED, Budget, Meter, available_bytes

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

__all__ = ["COSTS", "COUNTERS", "COUNT_SECONDS", "CountMethod", "Estimate", "TransferTable",
           "plan"]


CountMethod = Literal["auto", "levels", "power", "automata-lib"]
"""How :meth:`ClassMachine.count` counts (see the module docstring)."""

#: per-operation costs of CPython's integers, in seconds, measured on the development
#: machine (Python 3.11, shared 2-core): an addition costs ``op + bits·add_bit``, a
#: product ``op + mul·bits**mul_exp`` (Karatsuba), ``str()`` of an int ``str·bits²``
#: (CPython 3.11 converts to decimal in quadratic time)
COSTS: dict[str, float] = {"op": 4e-8, "add_bit": 4e-11, "mul": 1.1e-11, "mul_exp": 1.62,
                           "str": 1e-12}

#: a count whose estimate exceeds this many seconds is refused up front; with a time
#: budget (``max_seconds``) the limit is three times that budget instead (the one rule of
#: :meth:`~sdg_automata.runtime.budget.Budget.refuse_slow`)
COUNT_SECONDS = ESTIMATE_CEILING

@dataclass(frozen=True, kw_only=True)
class Estimate:
    """What one counting method would cost: the basis of :func:`plan`'s choice.

    Attributes
    ----------
    method:
        ``"levels"`` or ``"power"``.
    seconds:
        Estimated time of the count (not of printing it).
    bytes:
        Estimated peak memory of the integers alive.
    decimal_seconds:
        Estimated time to write the count in decimal (CPython's ``str``).
    """

    method: str
    seconds: float
    bytes: int
    decimal_seconds: float

    def to_json(self) -> dict[str, Any]:
        """The fields as a JSON object."""
        return {"method": self.method, "seconds": self.seconds, "bytes": self.bytes,
                "decimal_seconds": self.decimal_seconds}


@dataclass(frozen=True, kw_only=True, eq=False)
class TransferTable:
    """A complete DFA as int tables, trimmed to its live states, for counting.

    Live states are those from which a final state can be reached; they are
    numbered 0 … m−1 and every other state becomes the one index ``m``
    (``dead``), whose count is always 0.

    Attributes
    ----------
    rows:
        ``rows[k][s]``: the successor of live state ``s`` on the k-th letter
        (``dead`` when it cannot reach F any more).
    final:
        ``final[s]`` is 1 when live state ``s`` is accepting, else 0.
    initial:
        The initial state (``dead`` when the language is empty).
    """

    rows: tuple[tuple[int, ...], ...]
    final: tuple[int, ...]
    initial: int

    def __post_init__(self) -> None:
        m = len(self.final)
        if not self.rows or any(len(r) != m for r in self.rows):
            raise SdgBug("a transfer table needs one row of m successors per letter")
        if not 0 <= self.initial <= m or any(not 0 <= t <= m for r in self.rows for t in r):
            raise SdgBug("a transfer table's states are 0 … m (m: the dead state)")

    @classmethod
    def from_rows(cls, rows: Sequence[Sequence[int]], finals: Iterable[int],
                  initial: int = 0) -> TransferTable:
        """Trim a complete DFA given as ``rows[k][s]`` (states 0 … n−1) to its live part."""
        n = len(rows[0])
        fin = set(finals)
        back: list[list[int]] = [[] for _ in range(n)]
        for r in rows:
            for s, t in enumerate(r):
                back[t].append(s)
        live = [False] * n
        queue = sorted(fin)
        for s in queue:
            live[s] = True
        for t in queue:  # breadth-first backwards from F
            for s in back[t]:
                if not live[s]:
                    live[s] = True
                    queue.append(s)
        index = [-1] * n
        order = [s for s in range(n) if live[s]]
        for k, s in enumerate(order):
            index[s] = k
        dead = len(order)
        return cls(rows=tuple(tuple(index[r[s]] if live[r[s]] else dead for s in order)
                              for r in rows),
                   final=tuple(int(s in fin) for s in order),
                   initial=index[initial] if live[initial] else dead)

    @classmethod
    def from_dfa(cls, d: DFA) -> TransferTable:
        """The table of a complete automata-lib DFA, its letters in sorted order."""
        states = sorted(d.states, key=repr)
        number = {q: k for k, q in enumerate(states)}
        rows = [[number[d.transitions[q][a]] for q in states] for a in sorted(d.input_symbols)]
        return cls.from_rows(rows, (number[q] for q in d.final_states), number[d.initial_state])

    @property
    def size(self) -> int:
        """m, the number of live states."""
        return len(self.final)

    @property
    def dead(self) -> int:
        """The index standing for every state that cannot reach F."""
        return len(self.final)

    @property
    def edges(self) -> int:
        """Transitions between live states."""
        return sum(t != self.dead for r in self.rows for t in r)

    # -- the two methods -------------------------------------------------------------

    def levels(self, max_length: int, meter: Meter | None = None) -> Iterator[int]:
        """count₀, count₁, …, count_{max_length}, with two levels of integers alive.

        Backwards: cₙ(s) is the number of words of length n leading from s into
        F; countₙ = cₙ(q₀).  The dead state's entry stays 0.
        """
        if self.initial == self.dead:
            yield from (0 for _ in range(max_length + 1))
            return
        for level in self._backward(max_length, meter):
            yield level[self.initial]

    def _backward(self, max_length: int, meter: Meter | None) -> Iterator[list[int]]:
        """c₀, c₁, …, c_{max_length} as lists (index ``dead`` holds 0), two alive."""
        level = [*self.final, 0]
        yield level
        first, rest = self.rows[0], self.rows[1:]
        due = 0 if meter is None else meter.due  # levels grow with n: the meter paces them
        try:
            for n in range(1, max_length + 1):
                if len(rest) == 1:
                    nxt = [level[a] + level[b] for a, b in zip(first, rest[0], strict=True)]
                else:
                    get = level.__getitem__
                    nxt = list(map(get, first))
                    for r in rest:
                        nxt = list(map(add, nxt, map(get, r)))
                nxt.append(0)
                level = nxt
                yield level
                if meter is not None and n >= due:
                    due = meter.check(n)
        except KeyboardInterrupt:
            if meter is None:
                raise
            raise meter.interrupted() from None

    def count_levels(self, length: int, meter: Meter | None = None) -> int:
        """count_{length} by :meth:`levels` (only the last level is kept).

        Meeting in the middle (half the levels forwards from q₀, a dot product)
        would halve the bits added, but the forward step needs predecessor
        lists of varying length; measured on the 396-state class it was 15%
        slower at N = 10⁴ and even at 3·10⁴, so the levels run backwards only.
        """
        last = 0
        for last in self.levels(length, meter):  # noqa: B007 - only the last level is wanted
            pass
        return last

    def matrix(self) -> list[list[int]]:
        """The transfer matrix over the live states: M[s][t] = letters from s to t."""
        m = self.size
        out = [[0] * m for _ in range(m)]
        for r in self.rows:
            for s, t in enumerate(r):
                if t != m:
                    out[s][t] += 1
        return out

    def count_power(self, length: int, meter: Meter | None = None) -> int:
        """count_{length} = e_{q₀}ᵀ Mᴺ f by repeated squaring of M.

        The vector v = Mⁿ f is multiplied by the squares M^{2ᵏ} of the set bits
        of N; the top square is never formed (v ← P(Pv) instead of P²v), which
        saves the largest m³ products.
        """
        if self.initial == self.dead:
            return 0
        v = list(self.final)
        p = self.matrix()
        n = length
        try:
            step = 0
            while n:
                if n & 1:
                    v = _matvec(p, v)
                n >>= 1
                if n == 1:
                    v = _matvec(p, _matvec(p, v))
                    break
                if n:
                    p = _matmul(p, p)
                step += 1
                if meter is not None:
                    meter.check(step)
        except KeyboardInterrupt:
            if meter is None:
                raise
            raise meter.interrupted() from None
        return v[self.initial]

    # -- the cost rule -------------------------------------------------------------------

    def estimate(self, method: str, length: int) -> Estimate:
        """What counting words of length ``length`` costs by ``method`` (see :data:`COSTS`)."""
        op, add_bit, mul_c = COSTS["op"], COSTS["add_bit"], COSTS["mul"]
        exp = COSTS["mul_exp"]
        bits = max(1.0, length * math.log2(max(2, len(self.rows))))  # count_N < |Σ|^N
        m, e = max(1, self.size), max(1, self.edges)
        decimal = COSTS["str"] * bits * bits
        if method == "levels":
            # N levels of E additions of numbers of bits/2 on average
            seconds = length * e * (op + add_bit * bits / 2)
            return Estimate(method=method, seconds=seconds, decimal_seconds=decimal,
                            bytes=int(2 * (m + 1) * (bits / 8 + 40)))
        # squarings k = 1 … K−1 with entries of about 2ᵏ·(bits/N) bits, then ≤ 2K matvecs
        per_letter = bits / max(1, length)
        top = max(1, length.bit_length())
        seconds = 0.0
        for k in range(1, top):
            b = per_letter * 2 ** (k - 1)
            seconds += m**3 * (2 * op + mul_c * b**exp) + 2 * m * m * (op + mul_c * b**exp)
        seconds += 2 * m * m * (op + mul_c * (bits / 2) ** exp)
        return Estimate(method=method, seconds=seconds, decimal_seconds=decimal,
                        bytes=int(3 * m * m * (bits / 16 + 40) + 2 * m * (bits / 8 + 40)))


def _matmul(a: list[list[int]], b: list[list[int]]) -> list[list[int]]:
    cols = list(zip(*b, strict=True))
    return [[sum(map(mul, row, col)) for col in cols] for row in a]


def _matvec(a: list[list[int]], v: list[int]) -> list[int]:
    return [sum(map(mul, row, v)) for row in a]


#: the counting methods over a :class:`TransferTable`
COUNTERS: dict[str, Callable[[TransferTable, int, Meter | None], int]] = {
    "levels": TransferTable.count_levels,
    "power": TransferTable.count_power,
}


def plan(table: TransferTable, length: int, *, method: CountMethod = "auto",
         budget: Budget = UNLIMITED, decimal: bool = False) -> Estimate:
    """The method to count words of length ``length`` on ``table``, refused if it cannot fit.

    Parameters
    ----------
    table:
        The class's transfer table.
    length:
        N.
    method:
        ``"auto"``: the cheaper of ``"levels"`` and ``"power"`` by their
        estimates; otherwise that method (``"automata-lib"`` is estimated as
        ``"levels"`` keeping every level).
    budget:
        With ``max_seconds``, the time ceiling is three times that; without,
        :data:`COUNT_SECONDS`.
    decimal:
        Include the time to write the count in decimal.

    Raises
    ------
    BudgetExceeded
        When the estimate needs more memory than :func:`available_bytes`, or
        more than three times the allowed seconds: refused before any work.
    """
    if method == "auto":
        est = min((table.estimate(name, length) for name in COUNTERS), key=lambda e: e.seconds)
    elif method == "automata-lib":
        lv = table.estimate("levels", length)
        # every level kept, each of (on average) half the final count's bits, in dicts
        # (measured: 1.4 GB at N = 10⁴ on a 396-state class)
        est = Estimate(method=method, seconds=lv.seconds * 3, bytes=lv.bytes * length // 4,
                       decimal_seconds=lv.decimal_seconds)
    elif method in COUNTERS:
        est = table.estimate(method, length)
    else:
        raise InputError(f"unknown counting method {method!r} "
                         f"(expected one of {', '.join(get_args(CountMethod))})")
    seconds = est.seconds + (est.decimal_seconds if decimal else 0.0)
    free = available_bytes()
    bits = length * math.log2(max(2, len(table.rows)))
    why = (f"counting words of length {length} on a {table.size}-state class "
           f"({est.method}, numbers of about {bits:.3g} bits)")
    if free is not None and est.bytes > free:
        raise BudgetExceeded(f"{why} needs about {_bytes(est.bytes)} of memory; "
                             f"{_bytes(free)} is available")
    budget.refuse_slow(seconds, why)
    return est


def _bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1024 or unit == "TB":
            return f"{n:.3g} {unit}"
        n /= 1024
    return f"{n:.3g} TB"  # pragma: no cover
