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
along the period of :func:`sdg_automata.derivation.periodicity.proven_period`.

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

from dataclasses import dataclass, field, replace
from fractions import Fraction
from math import gcd
from typing import TYPE_CHECKING, Any

from ..errors import BudgetExceeded, InputError
from ..grammar import Grammar
from ..runtime.budget import UNLIMITED, Budget, available_bytes
from .construction import ReachableAutomaton, automaton_for
from .series import Density, _closed_periods, _rational_gf, _shortest
from .transfer import (
    COUNTERS,
    CountMethod,
    Estimate,
    TransferTable,
    _bytes,
    plan,
)

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

    from ..runtime.engines import Engine

__all__ = [
    "GF_STATE_LIMIT",
    "ClassMachine",
    "count",
    "count_sequence",
    "density",
    "generating_function",
]

#: largest minimal DFA for which the generating function and the density are computed
#: by default (the Berlekamp–Massey step is quadratic in it, sympy's gcds more)
GF_STATE_LIMIT = 500


#: bytes per state automata-lib's ``minify`` needs (automata-lib notes: about 1.6 KB)
MINIFY_BYTES_PER_STATE = 2000


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
