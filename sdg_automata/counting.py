"""Counting Grundy classes: how many words of length n have 𝒢_{G,A}(w) = c.

The Step 1–5 automaton (SPEC §4) reads wᴿ, and reversal is a bijection on the
words of each length, so the words of length n with 𝒢_{G,A}(w) = c are counted
by the paths of length n from q₀ into F_{A,c}, i.e. by the words of length n of
M_{A,c}.  automata-lib does the classical work:

* :class:`ClassMachine` — the reachable automaton, explored once; each class c
  becomes automata-lib's minimal DFA of M_{A,c} (``minify``, Hopcroft), and
  :meth:`ClassMachine.count` is automata-lib's ``count_words_of_length``, a
  dynamic program over the states: exact, n in the thousands is immediate.
* :meth:`ClassMachine.generating_function` — Σₙ countₙ xⁿ.  The transfer
  matrix M of the minimal DFA (M[s][t] = number of letters from s to t) gives
  it as e₀ᵀ (I − xM)⁻¹ f, a rational function whose denominator has degree at
  most m = the number of states (Cayley–Hamilton).  So 2m counts determine it,
  and the Berlekamp–Massey algorithm over the rationals recovers it exactly,
  without inverting a symbolic matrix (sympy's ``find_linear_recurrence``
  solves dense rational systems instead: 0.14 s at 4 states, minutes at 211).
* :meth:`ClassMachine.density` — the limit points of countₙ / |Σ|ⁿ.  M/|Σ| is
  stochastic, so its eigenvalues of modulus 1 are simple roots of unity whose
  orders divide the periods of the closed strongly connected components; the
  part of the generating function with those poles is periodic and the rest
  tends to 0.  The limit points are exact rationals.

sympy is imported only by :meth:`~ClassMachine.generating_function` and
:meth:`~ClassMachine.density`, so counting stays light.

For a one-letter alphabet the automaton is a lasso, countₙ ∈ {0, 1} is the
indicator of 𝒢(A, aⁿ) = c, and the density's limit points are that indicator
along the period of :func:`sdg_automata.periodicity.proven_period`.

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

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from math import gcd
from typing import TYPE_CHECKING, Any

from .construction import ReachableAutomaton, automaton_for
from .errors import InputError
from .grammar import Grammar

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

__all__ = [
    "GF_STATE_LIMIT",
    "ClassMachine",
    "Density",
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

    @classmethod
    def build(cls, grammar: Grammar, head: str, *, reachable: ReachableAutomaton | None = None,
              max_states: int | None = None) -> ClassMachine:
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

        Raises
        ------
        InputError
            When the grammar is neither right- nor left-linear, or ``head`` is
            not one of its nonterminals.
        """
        head = grammar.check_nonterminal(head)
        if reachable is None:  # a left-linear grammar's mirror: reversal preserves lengths
            reachable = automaton_for(grammar).explore(max_states=max_states)
        return cls(reachable=reachable, head=head)

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.reachable.alphabet

    @property
    def classes(self) -> tuple[int | None, ...]:
        """The values that occur, ``None`` (not a position) first, then increasing."""
        found = set(self.reachable.values(self.head))
        return tuple(sorted(found, key=lambda v: (v is not None, v)))

    def dfa(self, value: int | None) -> DFA:
        """automata-lib's minimal DFA of the class (it reads wᴿ; same counts as w)."""
        if value not in self._dfas:
            machine = self.reachable.to_dfa(self.reachable.accepting(self.head, value))
            self._dfas[value] = machine.minify()
        return self._dfas[value]

    # -- counting ----------------------------------------------------------------

    def count(self, value: int | None, length: int) -> int:
        """|{w ∈ Σⁿ : 𝒢_{G,A}(w) = value}| for n = ``length`` (``None``: non-positions)."""
        if length < 0:
            raise InputError(f"a length is a natural number, not {length}")
        return int(self.dfa(value).count_words_of_length(length))

    def sequence(self, value: int | None, max_length: int) -> list[int]:
        """[count₀, count₁, …, count_{max_length}] for ``value``."""
        if max_length < 0:
            raise InputError(f"a length is a natural number, not {max_length}")
        d = self.dfa(value)
        return [int(d.count_words_of_length(n)) for n in range(max_length + 1)]

    def counts(self, length: int) -> dict[int | None, int]:
        """Every class that has words of length ``length``, with their numbers.

        ``None`` (not a position) appears when some word is not one; the
        numbers add up to |Σ|^length.
        """
        found = {v: self.count(v, length) for v in self.classes}
        return {v: n for v, n in found.items() if n}

    # -- sympy ---------------------------------------------------------------------

    def _recurrence(self, value: int | None, limit: int | None) -> tuple[list[int], list[int]]:
        m = len(self.dfa(value).states)
        if limit is not None and m > limit:
            raise InputError(f"the minimal DFA of the class has {m} states; the generating "
                             f"function is computed up to {limit} (raise the limit: limit=, or "
                             "--max-dfa-states on the command line)")
        return _rational_gf(self.sequence(value, 2 * m + 1))

    def generating_function(self, value: int | None, x: Any = None, *,
                            limit: int | None = GF_STATE_LIMIT) -> Any:
        """Σₙ countₙ xⁿ as a sympy rational function P(x)/Q(x) in lowest terms.

        Parameters
        ----------
        value:
            The class.
        x:
            The variable (default ``Symbol("x")``).
        limit:
            Refuse (:class:`~sdg_automata.errors.InputError`) when the minimal
            DFA of the class has more states; ``None``: no limit.
        """
        import sympy

        x = sympy.Symbol("x") if x is None else x
        numerator, denominator = self._recurrence(value, limit)
        p = sum((c * x**k for k, c in enumerate(numerator)), sympy.Integer(0))
        q = sum((c * x**k for k, c in enumerate(denominator)), sympy.Integer(0))
        return sympy.factor(p / q)

    def density(self, value: int | None, *, limit: int | None = GF_STATE_LIMIT) -> Density:
        """The limit points of countₙ / |Σ|ⁿ (see the module docstring), exactly."""
        import sympy

        numerator, denominator = self._recurrence(value, limit)
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
          max_states: int | None = None) -> int:
    """|{w ∈ Σⁿ : 𝒢_{G,A}(w) = value}| for n = ``length`` (exact).

    >>> from sdg_automata import load_grammar
    >>> count(load_grammar("examples/example3.txt"), "A", 0, 10)
    409
    """
    return ClassMachine.build(grammar, head, max_states=max_states).count(value, length)


def count_sequence(grammar: Grammar, head: str, value: int | None, max_length: int, *,
                   max_states: int | None = None) -> list[int]:
    """[count₀, …, count_{max_length}] of :func:`count`."""
    return ClassMachine.build(grammar, head, max_states=max_states).sequence(value, max_length)


def generating_function(grammar: Grammar, head: str, value: int | None,
                        x: Any = None, *, max_states: int | None = None,
                        limit: int | None = GF_STATE_LIMIT) -> Any:
    """Σₙ countₙ xⁿ (:meth:`ClassMachine.generating_function`)."""
    machine = ClassMachine.build(grammar, head, max_states=max_states)
    return machine.generating_function(value, x, limit=limit)


def density(grammar: Grammar, head: str, value: int | None, *, max_states: int | None = None,
            limit: int | None = GF_STATE_LIMIT) -> Density:
    """The limit points of countₙ / |Σ|ⁿ (:meth:`ClassMachine.density`)."""
    return ClassMachine.build(grammar, head, max_states=max_states).density(value, limit=limit)
