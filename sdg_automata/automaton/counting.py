"""Counting Grundy classes: how many words of length n have 𝒢_{G,A}(w) = c.

The Step 1–5 automaton (SPEC §4) reads wᴿ, and reversal is a bijection on the
words of each length, so the words of length n with 𝒢_{G,A}(w) = c are counted
by the paths of length n from q₀ into F_{A,c}, i.e. by the words of length n of
M_{A,c}.  automata-lib minimizes; the counting itself runs over int tables:

* :class:`ClassMachine` — the reachable automaton, explored once; each class c
  becomes automata-lib's minimal DFA of M_{A,c} (``minify``, Hopcroft), copied
  into a :class:`TransferTable` (int rows, trimmed to the states that can still
  reach F) on which :meth:`ClassMachine.count` works.
* Two exact counting methods over that table, chosen by :func:`plan` (below):

  ``"levels"``
      cₙ(s) = Σ_a cₙ₋₁(δ(s, a)), c₀ = [s ∈ F]: two rolling levels of big
      integers, so O(m) integers alive (automata-lib's
      ``count_words_of_length`` keeps every level: N = 10⁴ on a 397-state
      class took 1.6 GB).  Time ≈ N·E additions (E live transitions) of
      numbers of N·log₂|Σ|/2 bits on average.
  ``"power"``
      countₙ = e_{q₀}ᵀ Mᴺ f for the transfer matrix M (M[s][t] = letters from
      s to t; Stanley, Theorem 4.7.2) by repeated squaring: about m³ log N
      multiplications, the last ones of numbers of N·log₂|Σ|/2 bits, which
      CPython multiplies by Karatsuba.  Wins when N is large and m small
      (Example 3 at N = 10⁶: seconds, where the levels would take minutes).

  automata-lib's ``count_words_of_length`` stays reachable as the method
  ``"automata-lib"``: the reference of the tests and of ``benchmarks/bench_count``.
* **Cost rule.**  :func:`plan` estimates both methods from the table's size, N
  and |Σ| with the per-operation costs of CPython's integers measured on the
  development machine (:data:`COSTS`), takes the cheaper, and refuses at once
  (:class:`~sdg_automata.errors.BudgetExceeded`) when the estimate does not fit:
  more memory than :func:`~sdg_automata.runtime.budget.available_bytes`, or more time
  than :data:`COUNT_SECONDS` (one hour), or, with a ``max_seconds`` budget,
  more than three times that budget (the meter stops the run at the budget
  anyway; the slack keeps an estimate that errs high from refusing a count
  that would have finished).
  The estimates are good to a factor of about 3 on a quiet machine; a run that
  is not refused is still metered by its :class:`~sdg_automata.runtime.budget.Budget`.
* :meth:`ClassMachine.generating_function` — Σₙ countₙ xⁿ.  The transfer
  matrix M of the minimal DFA gives it as e₀ᵀ (I − xM)⁻¹ f, a rational
  function whose denominator has degree at most m = the number of states
  (Cayley–Hamilton).  So 2m counts determine it, and the Berlekamp–Massey
  algorithm over the rationals recovers it exactly, without inverting a
  symbolic matrix (sympy's ``find_linear_recurrence`` solves dense rational
  systems instead: 0.14 s at 4 states, minutes at 211).
* :meth:`ClassMachine.density` — the limit points of countₙ / |Σ|ⁿ.  M/|Σ| is
  stochastic, so its eigenvalues of modulus 1 are simple roots of unity whose
  orders divide the periods of the closed strongly connected components; the
  part of the generating function with those poles is periodic and the rest
  tends to 0.  The limit points are exact rationals.

sympy is imported only by :meth:`~ClassMachine.generating_function` and
:meth:`~ClassMachine.density`, so counting stays light.

For a one-letter alphabet the automaton is a lasso, countₙ ∈ {0, 1} is the
indicator of 𝒢(A, aⁿ) = c, and the density's limit points are that indicator
along the period of :func:`sdg_automata.games.periodicity.proven_period`.

>>> from sdg_automata import load_grammar
>>> machine = ClassMachine.build(load_grammar("examples/example3.txt"), "A")
>>> machine.count(0, 10)
409
>>> machine.counts(10)
{0: 409, 1: 469, 2: 146}
>>> str(machine.density(2))
'1/7'

References
----------
.. [1] Takata, Inoue, Seki, arXiv 2609.00871, Section 4 (the automaton).
.. [2] Stanley, *Enumerative Combinatorics I*, Theorem 4.7.2 (transfer matrices).
.. [3] Massey, "Shift-register synthesis and BCH decoding", IEEE Trans. Inf.
   Theory 15 (1969) (the Berlekamp–Massey algorithm).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import gcd
from operator import add, mul
from typing import TYPE_CHECKING, Any, Literal, get_args

from ..errors import BudgetExceeded, InputError, SdgBug
from ..grammar import Grammar
from ..runtime.budget import ESTIMATE_CEILING, UNLIMITED, Budget, Meter, available_bytes
from .construction import ReachableAutomaton, automaton_for

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

    from ..runtime.engines import Engine

__all__ = [
    "COSTS",
    "COUNTERS",
    "COUNT_SECONDS",
    "GF_STATE_LIMIT",
    "ClassMachine",
    "CountMethod",
    "Density",
    "Estimate",
    "TransferTable",
    "plan",
    "count",
    "count_sequence",
    "density",
    "generating_function",
]

#: largest minimal DFA for which the generating function and the density are computed
#: by default (the Berlekamp–Massey step is quadratic in it, sympy's gcds more)
GF_STATE_LIMIT = 500


@dataclass(frozen=True)
class Density:
    """The limit points of countₙ / |Σ|ⁿ.

    Attributes
    ----------
    period:
        p such that countₙ / |Σ|ⁿ converges along every residue class mod p.
    limits:
        ``limits[r]`` is the limit along n ≡ r (mod p).
    """

    period: int
    limits: tuple[Fraction, ...]

    @property
    def limit(self) -> Fraction | None:
        """The limit, or ``None`` when the class oscillates."""
        return self.limits[0] if len(set(self.limits)) == 1 else None

    @property
    def points(self) -> tuple[Fraction, ...]:
        """The distinct limit points, increasing."""
        return tuple(sorted(set(self.limits)))

    @property
    def mean(self) -> Fraction:
        """The Cesàro mean (average over a period) of the limit points."""
        return sum(self.limits, Fraction(0)) / self.period

    def to_json(self) -> dict[str, Any]:
        """``{"limit": "1/7" or null, "period": p, "limits": [...], "mean": "..."}``."""
        lim = self.limit
        return {"limit": None if lim is None else str(lim), "period": self.period,
                "limits": [str(v) for v in self.limits], "mean": str(self.mean)}

    def __str__(self) -> str:
        lim = self.limit
        if lim is not None:
            return str(lim)
        parts = ", ".join(f"{v} (n ≡ {r} mod {self.period})" for r, v in enumerate(self.limits))
        return f"oscillates: {parts}; mean {self.mean}"


# -- counting over int tables ------------------------------------------------------------

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

#: bytes per state automata-lib's ``minify`` needs (automata-lib notes: about 1.6 KB)
MINIFY_BYTES_PER_STATE = 2000


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


@dataclass(frozen=True, eq=False)
class ClassMachine:
    """The Grundy classes of one nonterminal, each as automata-lib's minimal DFA.

    Built by :meth:`build` from the Step 1–5 automaton; the class of a value c
    is M_{A,c} (words wᴿ with 𝒢_{G,A}(w) = c; ``None``: not a position),
    minimized by automata-lib and kept once made.
    """

    reachable: ReachableAutomaton
    head: str
    _dfas: dict[int | None, DFA] = field(default_factory=dict, repr=False)
    _tables: dict[int | None, TransferTable] = field(default_factory=dict, repr=False)

    @classmethod
    def build(cls, grammar: Grammar, head: str, *, reachable: ReachableAutomaton | None = None,
              max_states: int | None = None, engine: Engine = "auto") -> ClassMachine:
        """The classes of 𝒢_{G,A} (reading wᴿ; w for left-linear G).

        Parameters
        ----------
        grammar:
            A right-linear or left-linear grammar.
        head:
            The nonterminal A.
        reachable:
            A prebuilt :meth:`GrundyAutomaton.explore` result of ``grammar``
            (of its mirror when it is left-linear).
        max_states:
            Budget for the exploration (:class:`~sdg_automata.errors.BudgetExceeded`).
        engine:
            Which engine explores (:meth:`GrundyAutomaton.explore`'s ``engine``).

        Raises
        ------
        InputError
            When the grammar is neither right- nor left-linear, or ``head`` is
            not one of its nonterminals.
        """
        head = grammar.check_nonterminal(head)
        if reachable is None:  # a left-linear grammar's mirror: reversal preserves lengths
            reachable = automaton_for(grammar).explore(max_states=max_states, engine=engine)
        return cls(reachable=reachable, head=head)

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.reachable.alphabet

    @property
    def classes(self) -> tuple[int | None, ...]:
        """The values that occur, ``None`` (not a position) first, then increasing."""
        found = set(self.reachable.values(self.head))
        return tuple(sorted(found, key=lambda v: (v is not None, v)))

    def dfa(self, value: int | None, budget: Budget = UNLIMITED) -> DFA:
        """automata-lib's minimal DFA of the class (it reads wᴿ; same counts as w).

        ``budget.max_seconds`` covers automata-lib's ``minify``; an automaton
        whose minimization would need more memory than is available
        (:data:`MINIFY_BYTES_PER_STATE`) is refused with
        :class:`~sdg_automata.errors.BudgetExceeded` before it starts.
        """
        if value not in self._dfas:
            n = len(self.reachable)
            free = available_bytes()
            if free is not None and n * MINIFY_BYTES_PER_STATE > free:
                raise BudgetExceeded(f"minimizing the {n}-state class automaton needs about "
                                     f"{_bytes(n * MINIFY_BYTES_PER_STATE)} of memory; "
                                     f"{_bytes(free)} is available", explored=n)
            machine = self.reachable.to_dfa(self.reachable.accepting(self.head, value))
            meter = budget.start("minimization", unit="states")
            with meter.library("automata-lib minify"):
                self._dfas[value] = machine.minify()
        return self._dfas[value]

    def table(self, value: int | None, budget: Budget = UNLIMITED) -> TransferTable:
        """The minimal DFA of the class as a :class:`TransferTable` (made once)."""
        if value not in self._tables:
            self._tables[value] = TransferTable.from_dfa(self.dfa(value, budget))
        return self._tables[value]

    # -- counting ----------------------------------------------------------------

    def plan(self, value: int | None, length: int, *, method: CountMethod = "auto",
             budget: Budget = UNLIMITED, decimal: bool = False) -> Estimate:
        """:func:`plan` for this class: the method :meth:`count` will use, or a refusal."""
        if length < 0:
            raise InputError(f"a length is a natural number, not {length}")
        return plan(self.table(value, budget), length, method=method, budget=budget,
                    decimal=decimal)

    def count(self, value: int | None, length: int, *, method: CountMethod = "auto",
              budget: Budget = UNLIMITED) -> int:
        """|{w ∈ Σⁿ : 𝒢_{G,A}(w) = value}| for n = ``length`` (``None``: non-positions).

        Parameters
        ----------
        value, length:
            The class c and n.
        method:
            ``"auto"`` (the cost rule of :func:`plan`), ``"levels"``,
            ``"power"``, or ``"automata-lib"`` (its ``count_words_of_length``:
            the reference; it keeps every level in memory).
        budget:
            ``max_seconds`` bounds minimization and counting; ``progress``
            hears the levels (or squarings) done.  ``max_states`` is ignored:
            it bounds the exploration (:meth:`build`).

        Raises
        ------
        BudgetExceeded
            Refused up front (:func:`plan`) or stopped at the budget.
        """
        budget = replace(budget, max_states=None)  # a state budget is the exploration's
        est = self.plan(value, length, method=method, budget=budget)
        if est.method == "automata-lib":
            meter = budget.start("count", unit="levels")
            with meter.library("automata-lib count_words_of_length"):
                return int(self.dfa(value).count_words_of_length(length))
        meter = budget.start("count", unit="levels" if est.method == "levels" else "squarings")
        return COUNTERS[est.method](self.table(value, budget), length, meter)

    def sequence(self, value: int | None, max_length: int, *,
                 budget: Budget = UNLIMITED) -> list[int]:
        """[count₀, count₁, …, count_{max_length}] for ``value`` (two levels alive)."""
        if max_length < 0:
            raise InputError(f"a length is a natural number, not {max_length}")
        budget = replace(budget, max_states=None)  # a state budget is the exploration's
        table = self.table(value, budget)
        plan(table, max_length, method="levels", budget=budget)
        return list(table.levels(max_length, budget.start("count", unit="levels")))

    def counts(self, length: int, *, budget: Budget = UNLIMITED) -> dict[int | None, int]:
        """Every class that has words of length ``length``, with their numbers.

        ``None`` (not a position) appears when some word is not one; the
        numbers add up to |Σ|^length.
        """
        found = {v: self.count(v, length, budget=budget) for v in self.classes}
        return {v: n for v, n in found.items() if n}

    # -- sympy ---------------------------------------------------------------------

    def _recurrence(self, value: int | None, limit: int | None,
                    budget: Budget = UNLIMITED) -> tuple[list[int], list[int]]:
        m = len(self.dfa(value, budget).states)
        if limit is not None and m > limit:
            raise BudgetExceeded(f"the minimal DFA of the class has {m} states; the generating "
                                 f"function and the density are computed for classes of at "
                                 f"most {limit} states (--max-dfa-states raises that limit)",
                                 explored=m)
        try:
            plan(self.table(value, budget), 2 * m + 1, method="levels",
                 budget=replace(budget, max_states=None))
        except BudgetExceeded as e:  # say why those counts are needed
            raise BudgetExceeded(f"the generating function of a {m}-state class needs the "
                                 f"counts up to length {2 * m + 1}: {e}", explored=e.explored
                                 ) from None
        return _rational_gf(self.sequence(value, 2 * m + 1, budget=budget))

    def generating_function(self, value: int | None, x: Any = None, *,
                            limit: int | None = GF_STATE_LIMIT,
                            budget: Budget = UNLIMITED) -> Any:
        """Σₙ countₙ xⁿ as a sympy rational function P(x)/Q(x) in lowest terms.

        Parameters
        ----------
        value:
            The class.
        x:
            The variable (default ``Symbol("x")``).
        limit:
            Refuse (:class:`~sdg_automata.errors.BudgetExceeded`) when the minimal
            DFA of the class has more states; ``None``: no limit.
        budget:
            ``max_seconds`` bounds minimization and the 2m counts.
        """
        import sympy

        x = sympy.Symbol("x") if x is None else x
        numerator, denominator = self._recurrence(value, limit, budget)
        p = sum((c * x**k for k, c in enumerate(numerator)), sympy.Integer(0))
        q = sum((c * x**k for k, c in enumerate(denominator)), sympy.Integer(0))
        return sympy.factor(p / q)

    def density(self, value: int | None, *, limit: int | None = GF_STATE_LIMIT,
                budget: Budget = UNLIMITED) -> Density:
        """The limit points of countₙ / |Σ|ⁿ (see the module docstring), exactly."""
        import sympy

        numerator, denominator = self._recurrence(value, limit, budget)
        if not any(numerator):
            return Density(1, (Fraction(0),))
        k = len(self.alphabet)
        y = sympy.Symbol("y")
        # H(y) = G(y/k): its coefficients are countₙ / kⁿ
        n_poly = sympy.Poly([sympy.Rational(c, k**i) for i, c in enumerate(numerator)][::-1], y,
                            domain="QQ")
        q_poly = sympy.Poly([sympy.Rational(c, k**i) for i, c in enumerate(denominator)][::-1], y,
                            domain="QQ")
        period = 1
        for d in _closed_periods(self.dfa(value)):
            period = period * d // gcd(period, d)
        cycle = sympy.Poly(1 - y**period, y, domain="QQ")
        poles = sympy.gcd(q_poly, cycle)  # the poles on the unit circle, each simple
        rest = sympy.div(q_poly, poles)[0]
        if poles.degree() == 0:
            return Density(1, (Fraction(0),))
        u, v, one = sympy.gcdex(poles, rest)  # u·poles + v·rest = 1
        assert one.degree() == 0
        periodic = sympy.rem(n_poly * v * sympy.Poly(1 / one.LC(), y, domain="QQ"), poles)
        h = sympy.div(periodic * cycle, poles)[0]  # periodic/poles = h/(1 − y^p)
        coeffs = h.all_coeffs()[::-1]
        coeffs += [sympy.Integer(0)] * (period - len(coeffs))
        limits = tuple(Fraction(int(c.p), int(c.q)) for c in coeffs[:period])
        return _shortest(Density(period, limits))


def _closed_periods(d: DFA) -> list[int]:
    """The period of every closed strongly connected component of a complete DFA.

    A closed component has no edge leaving it; its period is the gcd of its
    cycle lengths (the gcd of level[u] + 1 − level[v] over its edges, for
    breadth-first levels from any of its states).  Components are sympy's.
    """
    from sympy.utilities.iterables import strongly_connected_components

    succ = {s: list(d.transitions[s].values()) for s in d.states}
    edges = [(s, t) for s, ts in succ.items() for t in ts]
    periods = []
    for comp in strongly_connected_components((list(d.states), edges)):
        members = set(comp)
        if any(t not in members for s in comp for t in succ[s]):
            continue
        level = {comp[0]: 0}
        queue = [comp[0]]
        period = 0
        for u in queue:
            for t in succ[u]:
                if t not in level:
                    level[t] = level[u] + 1
                    queue.append(t)
                else:
                    period = gcd(period, level[u] + 1 - level[t])
        periods.append(period)
    return periods


def _shortest(d: Density) -> Density:
    """The same density with the least period."""
    for p in range(1, d.period + 1):
        if d.period % p == 0 and all(d.limits[r] == d.limits[r % p] for r in range(d.period)):
            return Density(p, d.limits[:p])
    return d  # pragma: no cover - p = period always matches


def berlekamp_massey(seq: Sequence[int | Fraction]) -> list[Fraction]:
    """The shortest linear recurrence of ``seq``, over the rationals.

    Returns C = [1, c₁, …, c_L] with Σᵢ cᵢ s_{n−i} = 0 for every L ≤ n < len(seq).
    It is the true minimal recurrence of an infinite sequence whose linear
    complexity is at most len(seq) / 2 (Massey 1969).
    """
    s = [Fraction(v) for v in seq]
    c: list[Fraction] = [Fraction(1)]
    b: list[Fraction] = [Fraction(1)]
    length, shift, last = 0, 1, Fraction(1)
    for n in range(len(s)):
        d = s[n] + sum((c[i] * s[n - i] for i in range(1, length + 1)), Fraction(0))
        if d == 0:
            shift += 1
            continue
        coef = d / last
        old = list(c)
        c += [Fraction(0)] * (len(b) + shift - len(c))
        for i, bi in enumerate(b):
            c[i + shift] -= coef * bi
        if 2 * length <= n:
            length, b, last, shift = n + 1 - length, old, d, 1
        else:
            shift += 1
    c += [Fraction(0)] * (length + 1 - len(c))
    return c[: length + 1]


def _rational_gf(seq: Sequence[int]) -> tuple[list[int], list[int]]:
    """Integer coefficient lists (P, Q), Q(0) = 1, with Σ seqₙ xⁿ = P/Q.

    ``seq`` must hold at least twice the linear complexity of the sequence
    (2m terms for a DFA with m states, plus a margin that is checked).
    """
    c = berlekamp_massey(seq)
    length = len(c) - 1
    if 2 * length + 2 > len(seq):  # pragma: no cover - the DFA bound guarantees it
        raise AssertionError("too few terms for the recurrence")
    p = [sum((c[i] * seq[n - i] for i in range(min(n, length) + 1)), Fraction(0))
         for n in range(length)]
    # an integer sequence with a rational generating function has one with integer
    # coefficients and Q(0) = 1 (Fatou's lemma); check rather than trust
    if any(v.denominator != 1 for v in (*c, *p)):  # pragma: no cover
        raise AssertionError("non-integral generating function")
    num = [int(v) for v in p]
    while num and num[-1] == 0:
        num.pop()
    return num, [int(v) for v in c]


# -- module-level conveniences ---------------------------------------------------------


def count(grammar: Grammar, head: str, value: int | None, length: int, *,
          max_states: int | None = None, method: CountMethod = "auto",
          budget: Budget = UNLIMITED, engine: Engine = "auto") -> int:
    """|{w ∈ Σⁿ : 𝒢_{G,A}(w) = value}| for n = ``length``, exactly.

    Parameters
    ----------
    grammar:
        A right- or left-linear grammar.
    head:
        The nonterminal A.
    value:
        The Grundy number i; ``None`` counts the words that are not positions (⊥).
    length:
        The length n of the words, any natural number.
    max_states:
        Refuse automata with more states (:class:`~sdg_automata.errors.BudgetExceeded`).
    method:
        ``"auto"`` (default), ``"levels"`` (the count level by level),
        ``"power"`` (matrix powers, for large n) or ``"automata-lib"``
        (``DFA.count_words_of_length``): the same number.
    budget:
        Limits on states and time, for every phase.
    engine:
        Which engine explores the automaton (:meth:`GrundyAutomaton.explore
        <sdg_automata.automaton.construction.GrundyAutomaton.explore>`'s ``engine``:
        ``"auto"``, ``"compiled"`` or ``"python"``); the count is the same.

    Returns
    -------
    int
        The number of words of length n with 𝒢_{G,A}(w) = value.

    Raises
    ------
    InputError
        For a grammar that is neither right- nor left-linear, an unknown
        nonterminal, a negative length.
    BudgetExceeded
        When a limit runs out, or the count is estimated not to fit in memory or
        time (refused before any work).

    Examples
    --------
    The 2⁴ = 16 words of length 4 of Example 3 are all positions of A:

    >>> from sdg_automata import load_grammar
    >>> g = load_grammar("examples/example3.txt")
    >>> [count(g, "A", i, 4) for i in (0, 1, 2, None)]
    [7, 7, 2, 0]
    >>> count(g, "A", 0, 10)
    409
    """
    machine = ClassMachine.build(grammar, head, max_states=max_states, engine=engine)
    return machine.count(value, length, method=method, budget=budget)


def count_sequence(grammar: Grammar, head: str, value: int | None, max_length: int, *,
                   max_states: int | None = None) -> list[int]:
    """[count₀, …, count_{max_length}] of :func:`count`."""
    return ClassMachine.build(grammar, head, max_states=max_states).sequence(value, max_length)


def generating_function(grammar: Grammar, head: str, value: int | None,
                        x: Any = None, *, max_states: int | None = None,
                        limit: int | None = GF_STATE_LIMIT) -> Any:
    """Σₙ countₙ xⁿ, where countₙ is :func:`count`'s (:meth:`ClassMachine.generating_function`).

    Parameters
    ----------
    grammar, head, value:
        As :func:`count`'s.
    x:
        The sympy variable (default ``Symbol("x")``).
    max_states:
        Refuse automata with more states.
    limit:
        Refuse when the minimal DFA of the class has more states; ``None``: no limit.

    Returns
    -------
    sympy.Expr
        A rational function P(x)/Q(x) in lowest terms (sympy is imported only here).

    Raises
    ------
    InputError
        As :func:`count`.
    BudgetExceeded
        Past ``max_states`` or ``limit``.

    Examples
    --------
    Its coefficients are the counts of :func:`count` (x² for ``aa``, the one word
    of length 2 with value 2):

    >>> from sdg_automata import load_grammar
    >>> g = load_grammar("examples/example3.txt")
    >>> f = generating_function(g, "A", 2)
    >>> f
    -x**2/((2*x - 1)*(x**2 + x + 1))
    >>> f.series(n=5).removeO()
    2*x**4 + x**3 + x**2
    >>> count(g, "A", 2, 4)
    2
    """
    machine = ClassMachine.build(grammar, head, max_states=max_states)
    return machine.generating_function(value, x, limit=limit)


def density(grammar: Grammar, head: str, value: int | None, *, max_states: int | None = None,
            limit: int | None = GF_STATE_LIMIT) -> Density:
    """The limit points of countₙ / |Σ|ⁿ, exactly (:meth:`ClassMachine.density`).

    Parameters
    ----------
    grammar, head, value:
        As :func:`count`'s.
    max_states:
        Refuse automata with more states.
    limit:
        Refuse when the minimal DFA of the class has more states; ``None``: no limit.

    Returns
    -------
    Density
        The period p and the limit along each residue class of n mod p, as
        :class:`fractions.Fraction`; printed as one fraction when p = 1.

    Raises
    ------
    InputError
        As :func:`count`.
    BudgetExceeded
        Past ``max_states`` or ``limit``.

    Examples
    --------
    In Example 3, 2/5 of the long words have value 0 (409/1024 at length 10):

    >>> from sdg_automata import load_grammar
    >>> g = load_grammar("examples/example3.txt")
    >>> d = density(g, "A", 0)
    >>> d.period, d.limits
    (1, (Fraction(2, 5),))
    >>> print(density(g, "A", None))  # every word of Example 3 is a position of A
    0
    """
    return ClassMachine.build(grammar, head, max_states=max_states).density(value, limit=limit)
