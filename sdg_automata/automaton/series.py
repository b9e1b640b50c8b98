"""Generating functions and densities of count sequences, exactly (SPEC §4).

The counts of a Grundy class (:mod:`sdg_automata.automaton.counting`) satisfy a linear
recurrence of order at most the number of states m of its minimal DFA, so 2m counts
determine the rational generating function: :func:`berlekamp_massey` over the rationals
recovers it (Massey, IEEE Trans. Inf. Theory 15, 1969).  The limit points of
countₙ / |Σ|ⁿ form a :class:`Density`, periodic along the periods of the DFA's closed
strongly connected components (:func:`_closed_periods`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import gcd
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

__all__ = ["Density", "berlekamp_massey"]


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
