"""The derivation game of a grammar as a family of components, for its misère quotient.

A position of the successful derivation game (SPEC §2) is a multiset of pairs
(A, w); a move replaces one pair by the pairs a rule leaves
(:func:`sdg_automata.derivation.semantics.successors`).  The pairs (A, w) with
1 ≤ |w| ≤ L that are positions (w ∈ L(G, A)) are a hereditarily closed family — a
move only leaves subwords — so the misère quotient of sums of them is defined, and
:func:`~sdg_automata.games.misere.quotient.misere_quotient` computes it.  Components
are ordered by length, then word, then the unit-rule order (a unit rule A → B leaves
(B, w): B comes first), so that every option's components come before.

The family meets the protocol :class:`~sdg_automata.games.misere.components.Components`
(the general misère machinery lives in :mod:`sdg_automata.games.misere`, below this
package, and never imports the derivation game).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from itertools import product

from ..errors import InputError, UnknownPositionError
from ..grammar import Grammar
from .semantics import Pair, successors

__all__ = ["DerivationFamily"]

#: the most components (pairs (A, w)) a family may have
MAX_COMPONENTS = 20_000


@dataclass(frozen=True, kw_only=True)
class DerivationFamily:
    """The positions (A, w), 1 ≤ |w| ≤ ``max_length``, of a grammar's derivation game
    (``nonterminals``: all by default; their successors' nonterminals are included)."""

    grammar: Grammar = field(repr=False)
    max_length: int
    nonterminals: tuple[str, ...] | None = None
    _pairs: tuple[Pair, ...] = field(init=False, repr=False)
    _moves: dict[Pair, list[tuple[Pair, ...]]] = field(init=False, repr=False)
    _at: dict[Pair, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        n = self.max_length
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise InputError(f"the largest word length must be a positive integer, not {n!r}")
        g = self.grammar
        heads = g.nonterminals if self.nonterminals is None else self.nonterminals
        for a in heads:
            g.check_nonterminal(a)
        rank = {a: i for i, a in enumerate(g.unit_order)}
        letters = sorted(g.terminals)
        if sum(len(letters) ** k for k in range(1, n + 1)) * len(g.nonterminals) > \
                MAX_COMPONENTS * 50:
            raise InputError(f"words up to length {n} over {len(letters)} letters are too many "
                             f"for a quotient (at most {MAX_COMPONENTS} positions)")
        moves: dict[Pair, list[tuple[Pair, ...]]] = {}
        todo = [(a, "".join(w)) for k in range(1, n + 1) for w in product(letters, repeat=k)
                for a in heads]
        while todo:
            pair = todo.pop()
            if pair in moves:
                continue
            succ = successors(g, *pair)
            if not succ:
                continue  # not a position of the game
            moves[pair] = succ
            if len(moves) > MAX_COMPONENTS:
                raise InputError(f"more than {MAX_COMPONENTS} positions (A, w) with |w| ≤ {n}")
            todo.extend(part for s in succ for part in s)
        order = tuple(sorted(moves, key=lambda p: (len(p[1]), p[1], rank[p[0]])))
        object.__setattr__(self, "_pairs", order)
        object.__setattr__(self, "_moves", moves)
        object.__setattr__(self, "_at", {p: i for i, p in enumerate(order)})

    @property
    def name(self) -> str:
        """``"derivation game, |w| ≤ L (N positions)"``."""
        return f"derivation game, |w| ≤ {self.max_length} ({len(self._pairs)} positions)"

    @property
    def components(self) -> Sequence[Pair]:
        """The positions (A, w), shorter words first."""
        return self._pairs

    def options(self, i: int) -> list[tuple[int, ...]]:
        """The moves of (A, w): the indices of the pairs each leaves."""
        return [tuple(self._at[part] for part in s) for s in self._moves[self._pairs[i]]]

    def show(self, component: Hashable) -> str:
        """``(A, w)``."""
        if isinstance(component, tuple) and len(component) == 2:
            return f"({component[0]}, {component[1]})"
        return str(component)

    def span(self, count: int) -> str:
        """``"N of the M positions (A, w)"``."""
        return f"{count} of the {len(self._pairs)} positions (A, w)"

    def index(self, component: object) -> int:
        """The index of the pair ``(A, w)`` (or the text ``A:w``)."""
        if isinstance(component, str) and ":" in component:
            a, _, w = component.partition(":")
            component = (a, w)
        try:
            return self._at[component]  # type: ignore[index]
        except (KeyError, TypeError):
            raise UnknownPositionError(f"{component!r} is not a position (A, w) of the "
                                       f"family (|w| ≤ {self.max_length})") from None
