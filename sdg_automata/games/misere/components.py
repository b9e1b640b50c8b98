"""Families of games whose positions are sums of components: the input of a misère quotient.

A misère quotient (Plambeck–Siegel) is taken over a *hereditarily closed* set A of
games: every position is a finite sum of games of A, and every option of a game of
A is again such a sum.  :class:`Components` is that interface: the components in an
order where each one's options are made of earlier components, and each
component's options, a move leaving a (possibly empty) tuple of components.  Three
families implement it:

* :class:`HeapFamily` — the heaps 1, …, N of an octal or hexadecimal game (a heap
  of 0 is the empty sum);
* :class:`GraphFamily` — the positions of a finite acyclic game graph (a follower
  is one component; a sink has no option);
* the derivation game of a grammar, words up to a length
  (:class:`sdg_automata.derivation.misere.DerivationFamily`, in the derivation package,
  which sits above this one).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ...errors import InputError, UnknownPositionError
from ..octal.rules import OctalGame
from ..solution import GameGraphLike, _finish_order, _show, adjacency_of

__all__ = ["Components", "GraphFamily", "HeapFamily", "heap_options"]


class Components(Protocol):
    """A hereditarily closed family of games, given by its components.

    ``components`` lists them so that every option of a component is made of
    components listed before it (the quotient is built in that order);
    ``options(i)`` are the moves of the i-th one, each the tuple of the indices of
    the components it leaves (``()`` when the move leaves nothing).
    """

    @property
    def name(self) -> str:
        """What the family is, in a sentence's words (``"0.77, heaps 1–30"``)."""

    @property
    def components(self) -> Sequence[Hashable]:
        """The components, each option's components before it."""

    def options(self, i: int) -> Sequence[tuple[int, ...]]:
        """The moves of component i: for each, the indices of the components it leaves."""

    def show(self, component: Hashable) -> str:
        """How a component is written (``"7"`` for a heap of 7)."""

    def span(self, count: int) -> str:
        """The first ``count`` components, in words (``"heaps 1–7"``)."""

    def index(self, component: object) -> int:
        """The index of ``component``; :class:`~sdg_automata.errors.UnknownPositionError`
        when it is none of them."""


def heap_options(game: OctalGame, n: int) -> Iterator[tuple[int, ...]]:
    """The moves of a heap of n (the sizes of the heaps each leaves, smallest first).

    >>> sorted(heap_options(OctalGame.parse("0.77"), 3))
    [(1,), (1, 1), (2,)]
    """
    for k, d in enumerate(game.digits, start=1):
        s = n - k
        if s < 0:
            break
        if d & 1 and s == 0:
            yield ()
        if d & 2 and s >= 1:
            yield (s,)
        if d & 4:
            yield from ((a, s - a) for a in range(1, s // 2 + 1))
        if d & 8:
            yield from ((a, b, s - a - b) for a in range(1, s // 3 + 1)
                        for b in range(a, (s - a) // 2 + 1))


@dataclass(frozen=True, kw_only=True)
class HeapFamily:
    """The heaps 1, …, ``upto`` of the octal or hexadecimal game ``game``.

    Component i is the heap of i + 1; a heap of 0 is the empty sum.
    """

    game: OctalGame
    upto: int

    def __post_init__(self) -> None:
        if isinstance(self.upto, bool) or not isinstance(self.upto, int) or self.upto < 1:
            raise InputError(f"the heap bound must be a positive integer, not {self.upto!r}")

    @property
    def name(self) -> str:
        """``"0.77, heaps 1–N"``."""
        return f"{self.game.code}, heaps 1–{self.upto}"

    @property
    def components(self) -> Sequence[int]:
        """The heap sizes 1, …, upto."""
        return range(1, self.upto + 1)

    def options(self, i: int) -> list[tuple[int, ...]]:
        """The moves of the heap of i + 1, as component indices."""
        return list(dict.fromkeys(tuple(h - 1 for h in move)
                                  for move in heap_options(self.game, i + 1)))

    def show(self, component: Hashable) -> str:
        """The heap's size."""
        return str(component)

    def span(self, count: int) -> str:
        """``"heaps 1–N"``."""
        return f"heaps 1–{count}" if count else "no heap"

    def index(self, component: object) -> int:
        """Heap n is component n − 1 (a heap of 0 has none: refused here, taken as the
        empty sum by the quotient)."""
        if isinstance(component, bool) or not isinstance(component, int) or component < 1:
            raise UnknownPositionError(f"a heap is a positive integer, not {component!r}")
        if component > self.upto:
            raise UnknownPositionError(f"heap {component} is beyond the quotient's bound "
                                       f"{self.upto} (it is proven for heaps ≤ {self.upto})")
        return component - 1


@dataclass(frozen=True, kw_only=True)
class GraphFamily:
    """The positions of a finite acyclic game graph, each a component.

    A position's options are its followers, each one component; a sink has none.
    """

    graph: GameGraphLike[Hashable] = field(repr=False)
    title: str = "game graph"
    _order: tuple[Hashable, ...] = field(init=False, repr=False)
    _followers: dict[Hashable, tuple[Hashable, ...]] = field(init=False, repr=False)
    _at: dict[Hashable, int] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        adjacency = adjacency_of(self.graph)
        order = tuple(_finish_order(adjacency))  # each position after its followers
        object.__setattr__(self, "_followers", adjacency)
        object.__setattr__(self, "_order", order)
        object.__setattr__(self, "_at", {p: i for i, p in enumerate(order)})

    @property
    def name(self) -> str:
        """``"game graph, N positions"``."""
        return f"{self.title}, {len(self._order)} positions"

    @property
    def components(self) -> Sequence[Hashable]:
        """The positions, each after its followers."""
        return self._order

    def options(self, i: int) -> list[tuple[int, ...]]:
        """The followers of position i, one component each."""
        return [(self._at[f],) for f in self._followers[self._order[i]]]

    def show(self, component: Hashable) -> str:
        """The position's name."""
        return _show(component)

    def span(self, count: int) -> str:
        """``"N of the M positions"``."""
        return f"{count} of the {len(self._order)} positions"

    def index(self, component: object) -> int:
        """The index of the position ``component``."""
        try:
            return self._at[component]
        except (KeyError, TypeError):
            raise UnknownPositionError(f"unknown position {component!r}") from None
