"""Counting Grundy classes: how many words of length n have 𝒢_{G,A}(w) = c.

The Step 1–5 automaton (SPEC §4) reads wᴿ, and reversal is a bijection on the
words of each length, so the words of length n with 𝒢_{G,A}(w) = c are counted
by the paths of length n from q₀ into F_{A,c}.  Everything here works on int
tables:

* :class:`ClassMachine` — the reachable automaton with each state labelled by
  𝒢_{G,A} (a Moore machine), minimized by partition refinement.
  :meth:`ClassMachine.count` is a dynamic program over its states, n rounds of
  O(states · |Σ|) big-integer additions: exact, and n in the thousands is
  immediate.
* :meth:`ClassMachine.generating_function` — Σₙ countₙ xⁿ.  The transfer
  matrix M of the minimal DFA (M[s][t] = number of letters from s to t) gives
  it as e₀ᵀ (I − xM)⁻¹ f, a rational function whose denominator has degree at
  most m = the number of states (Cayley–Hamilton).  So 2m counts determine it,
  and the Berlekamp–Massey algorithm over the rationals recovers it exactly,
  without inverting a symbolic matrix.
* :meth:`ClassMachine.density` — the limit points of countₙ / |Σ|ⁿ.  M/|Σ| is
  stochastic, so its eigenvalues of modulus 1 are simple roots of unity whose
  orders divide the periods of the closed strongly connected components; the
  part of the generating function with those poles is periodic and the rest
  tends to 0.  The limit points are exact rationals.

sympy is imported only by :meth:`~ClassMachine.generating_function` and
:meth:`~ClassMachine.density`, so counting stays light.

For a one-letter alphabet the automaton is a lasso, countₙ ∈ {0, 1} is the
indicator of 𝒢(A, aⁿ) = c, and the density's limit points are that indicator
along the period (:meth:`ClassMachine.lasso`).

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

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import gcd
from operator import add
from typing import Any

from .construction import GrundyAutomaton, ReachableAutomaton
from .errors import InputError
from .grammar import Grammar

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
    """A complete DFA over ints whose states carry an output (a Moore machine).

    Built by :meth:`build` from the Step 1–5 automaton, the output of a state
    is 𝒢_{G,A} of the words w whose reverse leads there (``None``: not a
    position); :meth:`restrict` turns it into the minimal DFA of one class.
    State 0 is the initial state.

    Attributes
    ----------
    alphabet:
        Σ, sorted.
    rows:
        ``rows[k][s]``: the successor of ``s`` on ``alphabet[k]``.
    outputs:
        The output of each state.
    """

    alphabet: tuple[str, ...]
    rows: tuple[tuple[int, ...], ...]
    outputs: tuple[Hashable, ...]

    @classmethod
    def build(cls, grammar: Grammar, head: str, *, reachable: ReachableAutomaton | None = None,
              max_states: int | None = None) -> ClassMachine:
        """The minimal Moore machine of 𝒢_{G,A} (reading wᴿ; w for left-linear G).

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
        if reachable is None:
            # a left-linear grammar counts through its mirror: 𝒢_G(w) = 𝒢_{G'}(wᴿ), and
            # reversal preserves lengths
            flip = not grammar.is_right_linear and grammar.is_left_linear
            reachable = GrundyAutomaton(grammar.mirror() if flip else grammar).explore(
                max_states=max_states)
        raw = cls(alphabet=reachable.alphabet, rows=tuple(tuple(r) for r in reachable.rows),
                  outputs=tuple(reachable.values(head)))
        return raw.minimal()

    def __len__(self) -> int:
        return len(self.outputs)

    @property
    def classes(self) -> tuple[Hashable, ...]:
        """The outputs that occur, ``None`` first, then increasing."""
        return tuple(sorted(set(self.outputs), key=lambda v: (v is not None, v)))

    def minimal(self) -> ClassMachine:
        """The equivalent machine with the fewest states (Hopcroft's algorithm).

        Blocks start as the output classes and are split by the predecessors
        of splitter blocks, the smaller half of each split becoming a new
        splitter: O(|Σ| · n log n), also on the long chains of one-letter
        lassos where Moore's round-by-round refinement is quadratic.  States
        are then renumbered breadth-first from the initial block, and
        unreachable blocks are dropped.
        """
        block = _hopcroft(self.rows, self.outputs)
        rows = self.rows
        rep: dict[int, int] = {}
        for s in range(len(block) - 1, -1, -1):
            rep[block[s]] = s
        order = {block[0]: 0}
        queue = [block[0]]
        for b in queue:
            for r in rows:
                t = block[r[rep[b]]]
                if t not in order:
                    order[t] = len(order)
                    queue.append(t)
        new_rows = tuple(tuple(order[block[r[rep[b]]]] for b in queue) for r in rows)
        return ClassMachine(alphabet=self.alphabet, rows=new_rows,
                            outputs=tuple(self.outputs[rep[b]] for b in queue))

    def restrict(self, value: Hashable) -> ClassMachine:
        """The minimal DFA of one class: outputs ``True`` exactly where the output is ``value``."""
        return ClassMachine(alphabet=self.alphabet, rows=self.rows,
                            outputs=tuple(o == value for o in self.outputs)).minimal()

    # -- counting ----------------------------------------------------------------

    def _counts(self, value: Hashable, lengths: int) -> list[int]:
        # c[s] = number of words of the current length leading from s into the class;
        # one round: c'[s] = Σ_a c[δ(s, a)], as whole-list maps (C loops, exact ints)
        c = [1 if o == value else 0 for o in self.outputs]
        out = [c[0]]
        first, *others = self.rows
        for _ in range(lengths):
            acc = list(map(c.__getitem__, first))
            for r in others:
                acc = list(map(add, acc, map(c.__getitem__, r)))
            c = acc
            out.append(c[0])
        return out

    def count(self, value: Hashable, length: int) -> int:
        """The number of words w of length ``length`` with output ``value``.

        For a machine from :meth:`build`: |{w ∈ Σⁿ : 𝒢_{G,A}(w) = value}|
        (``value=None`` counts the words that are not positions).
        """
        if length < 0:
            raise InputError(f"a length is a natural number, not {length}")
        machine = self.restrict(value)
        return machine._counts(True, length)[-1]

    def sequence(self, value: Hashable, max_length: int) -> list[int]:
        """[count₀, count₁, …, count_{max_length}] for ``value``."""
        if max_length < 0:
            raise InputError(f"a length is a natural number, not {max_length}")
        return self.restrict(value)._counts(True, max_length)

    def counts(self, length: int) -> dict[Hashable, int]:
        """Every class that has words of length ``length``, with their numbers.

        ``None`` (not a position) appears when some word is not one; the
        numbers add up to |Σ|^length.
        """
        found = {v: self.count(v, length) for v in self.classes}
        return {v: n for v, n in found.items() if n}

    # -- structure -----------------------------------------------------------------

    def closed_components(self) -> list[tuple[int, int]]:
        """(a state, the period) of every closed strongly connected component.

        A closed component has no edge leaving it; its period is the gcd of
        its cycle lengths (the gcd of level[u] + 1 − level[v] over its edges,
        for breadth-first levels from any of its states).
        """
        n = len(self.outputs)
        comp = _components(n, self.rows)
        closed = [True] * (max(comp) + 1)
        for r in self.rows:
            for s in range(n):
                if comp[r[s]] != comp[s]:
                    closed[comp[s]] = False
        out = []
        for c in {comp[s] for s in range(n) if closed[comp[s]]}:
            root = comp.index(c)
            level = {root: 0}
            queue = [root]
            period = 0
            for u in queue:
                for r in self.rows:
                    v = r[u]
                    if v not in level:
                        level[v] = level[u] + 1
                        queue.append(v)
                    else:
                        period = gcd(period, level[u] + 1 - level[v])
            out.append((root, period))
        return sorted(out)

    def lasso(self) -> tuple[int, int, tuple[Hashable, ...]]:
        """For a one-letter alphabet: (preperiod μ, period λ, outputs of aⁿ for n < μ + λ).

        The output of aⁿ is ``outputs[n]`` for n < μ + λ and repeats with period λ
        after that (the minimal machine is the lasso of the sequence, so μ and λ
        are the least preperiod and period).
        """
        if len(self.alphabet) != 1:
            raise InputError("a lasso needs a one-letter alphabet, not "
                             f"{{{', '.join(self.alphabet)}}}")
        (row,) = self.rows
        # breadth-first numbering from :meth:`minimal` makes the lasso 0 → 1 → … → n−1 → μ
        n = len(self.outputs)
        return row[n - 1], n - row[n - 1], self.outputs

    # -- sympy ---------------------------------------------------------------------

    def _recurrence(self, value: Hashable, limit: int | None) -> tuple[list[int], list[int]]:
        machine = self.restrict(value)
        m = len(machine)
        if limit is not None and m > limit:
            raise InputError(f"the minimal DFA of the class has {m} states; the generating "
                             f"function is computed up to {limit} (raise the limit: limit=, or "
                             "--max-dfa-states on the command line)")
        seq = machine._counts(True, 2 * m + 2)
        numerator, denominator = _rational_gf(seq)
        return numerator, denominator

    def generating_function(self, value: Hashable, x: Any = None, *,
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
        import sympy  # type: ignore[import-untyped]  # no stubs; loaded lazily

        x = sympy.Symbol("x") if x is None else x
        numerator, denominator = self._recurrence(value, limit)
        p = sum((c * x**k for k, c in enumerate(numerator)), sympy.Integer(0))
        q = sum((c * x**k for k, c in enumerate(denominator)), sympy.Integer(0))
        return sympy.factor(p / q)

    def density(self, value: Hashable, *, limit: int | None = GF_STATE_LIMIT) -> Density:
        """The limit points of countₙ / |Σ|ⁿ (see the module docstring), exactly."""
        import sympy

        machine = self.restrict(value)
        numerator, denominator = machine._recurrence(True, limit)
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
        for _, d in machine.closed_components():
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


def _hopcroft(rows: Sequence[Sequence[int]], outputs: Sequence[Hashable]) -> list[int]:
    """The coarsest partition of a complete DFA's states that respects ``outputs``
    and the transitions: a block id per state (Hopcroft 1971).

    Every initial block starts as a splitter; splitting Y by the predecessors
    X of a splitter keeps the larger part under Y's id and gives the smaller
    part a new id, which becomes a splitter (Y, if still waiting, stays one):
    each state enters O(log n) splitters.
    """
    n = len(outputs)
    inverse: list[list[list[int]]] = []
    for r in rows:
        inv: list[list[int]] = [[] for _ in range(n)]
        for s, t in enumerate(r):
            inv[t].append(s)
        inverse.append(inv)
    first: dict[Hashable, int] = {}
    block = [first.setdefault(o, len(first)) for o in outputs]
    members: list[set[int]] = [set() for _ in first]
    for s, b in enumerate(block):
        members[b].add(s)
    waiting = list(range(len(members)))
    while waiting:
        splitter = waiting.pop()
        targets = list(members[splitter])  # a snapshot: the block may split below
        for inv in inverse:
            hit: dict[int, list[int]] = {}
            for t in targets:
                for s in inv[t]:
                    hit.setdefault(block[s], []).append(s)
            for y, inside in hit.items():
                whole = members[y]
                if len(inside) == len(whole):
                    continue
                part = set(inside)
                if 2 * len(part) > len(whole):
                    part = whole - part
                whole -= part
                new = len(members)
                members.append(part)
                for s in part:
                    block[s] = new
                waiting.append(new)
    return block


def _shortest(d: Density) -> Density:
    """The same density with the least period."""
    for p in range(1, d.period + 1):
        if d.period % p == 0 and all(d.limits[r] == d.limits[r % p] for r in range(d.period)):
            return Density(p, d.limits[:p])
    return d  # pragma: no cover - p = period always matches


def _components(n: int, rows: Sequence[Sequence[int]]) -> list[int]:
    """Strongly connected components (iterative Tarjan): a component id per state."""
    index = [-1] * n
    low = [0] * n
    on_stack = [False] * n
    comp = [-1] * n
    stack: list[int] = []
    counter = 0
    ncomp = 0
    k = len(rows)
    for root in range(n):
        if index[root] >= 0:
            continue
        work = [(root, 0)]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack[root] = True
        while work:
            s, i = work[-1]
            if i < k:
                work[-1] = (s, i + 1)
                t = rows[i][s]
                if index[t] < 0:
                    index[t] = low[t] = counter
                    counter += 1
                    stack.append(t)
                    on_stack[t] = True
                    work.append((t, 0))
                elif on_stack[t]:
                    low[s] = min(low[s], index[t])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[s])
            if low[s] == index[s]:
                while True:
                    t = stack.pop()
                    on_stack[t] = False
                    comp[t] = ncomp
                    if t == s:
                        break
                ncomp += 1
    return comp


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
