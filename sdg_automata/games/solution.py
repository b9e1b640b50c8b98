"""Solving a finite acyclic game graph under normal and misère play (SPEC §7).

A game graph given as a mapping, a :class:`GraphSolution` or a directed graph
with ``.nodes``/``.successors`` is normalized by :func:`adjacency_of`; one
iterative depth-first search orders its positions, each after its followers,
and :func:`solve_game_graph` computes every Grundy number and misère outcome
along that order into a :class:`GraphSolution`, which also answers sums
(:class:`SumMove`).  No recursion: a path of 10⁶ positions is fine; a cycle is a
:class:`~sdg_automata.errors.GraphCycleError` naming it.  The function API over
any graph is :mod:`sdg_automata.games.impartial`.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from types import MappingProxyType
from typing import Generic, Literal, Protocol, TypeVar, Union

from ..errors import (
    GameGraphError,
    GraphCycleError,
    InputError,
    MisereSumError,
    UnknownPositionError,
)
from .mex import nim_sum

__all__ = [
    "DiGraphLike", "GameGraphLike", "GraphSolution", "Outcome", "SumMove", "adjacency_of",
    "solve_game_graph",
]

P = TypeVar("P", bound=Hashable)

Outcome = Literal["P", "N"]
"""``"P"``: the previous player (who just moved) wins; ``"N"``: the next player."""


class DiGraphLike(Protocol[P]):
    """A directed graph such as a ``networkx.DiGraph``: ``.nodes`` and ``.successors``."""

    @property
    def nodes(self) -> Iterable[P]:
        """Every node."""

    def successors(self, node: P, /) -> Iterable[P]:
        """The heads of the edges leaving ``node``."""


GameGraphLike = Union[Mapping[P, Iterable[P]], "GraphSolution[P]", DiGraphLike[P]]
"""What the graph functions accept: a mapping position -> followers, a
:class:`GraphSolution`, or a directed graph with ``.nodes``/``.successors``."""


# ---------------------------------------------------------------------------
# errors


def _hashable(obj: object) -> bool:
    try:
        hash(obj)
    except TypeError:
        return False
    return True


def _show(position: Hashable) -> str:
    return position if isinstance(position, str) else repr(position)


def _show_cycle(cycle: Sequence[Hashable], limit: int = 12) -> str:
    names = [_show(p) for p in cycle]
    if len(names) > limit:
        hidden = len(names) - limit
        names = names[: limit // 2] + [f"... ({hidden} more)"] + names[-limit // 2:]
    return " -> ".join(names)


# ---------------------------------------------------------------------------
# graphs


def adjacency_of(graph: GameGraphLike[P]) -> dict[P, tuple[P, ...]]:
    """The game graph ``graph`` as a dict ``{position: followers}`` (SPEC §7).

    Followers are deduplicated (two moves to one position are one option) and
    keep their first-seen order.  Every position is a key: followers that are
    not keys of a mapping are added as sinks, after the listed positions, in
    order of first mention.  Acyclicity is *not* checked here.

    Parameters
    ----------
    graph:
        A mapping position -> iterable of followers (not a string), a
        :class:`GraphSolution`, or a directed graph with ``.nodes`` and
        ``.successors(node)`` such as a ``networkx.DiGraph``.

    Returns
    -------
    dict
        A new dict; the input is not modified.

    Raises
    ------
    GameGraphError
        Not a graph, followers that are not an iterable, or an unhashable follower.

    Examples
    --------
    >>> adjacency_of({"x": ["y", "z", "y"], "y": ("z",)})
    {'x': ('y', 'z'), 'y': ('z',), 'z': ()}
    """
    if isinstance(graph, GraphSolution):
        return dict(graph.followers)
    if hasattr(graph, "successors") and hasattr(graph, "nodes") and not isinstance(graph, Mapping):
        try:
            digraph = {node: tuple(graph.successors(node)) for node in graph.nodes}
        except TypeError as e:
            raise GameGraphError(f"cannot read the directed graph: {e}") from None
        return _complete(digraph)
    if not isinstance(graph, Mapping):
        raise GameGraphError(
            "a game graph must be a mapping position -> followers or a directed graph "
            f"with .nodes and .successors, not {type(graph).__name__}")
    unusual = [p for p, fs in graph.items() if type(fs) is not list and type(fs) is not tuple]
    for position in unusual:
        followers = graph[position]
        if isinstance(followers, (str, bytes)) or not isinstance(followers, Iterable):
            raise GameGraphError(
                f"the followers of position {_show(position)} must be a list of positions, "
                f"not {type(followers).__name__}")
    return _complete({p: tuple(fs) for p, fs in graph.items()})


def _complete(adjacency: dict[P, tuple[P, ...]]) -> dict[P, tuple[P, ...]]:
    """Deduplicate followers and add the unlisted followers as sinks, in place."""
    try:
        for position, followers in adjacency.items():
            if len(followers) > 1:
                adjacency[position] = tuple(dict.fromkeys(followers))
        missing = set(chain.from_iterable(adjacency.values())).difference(adjacency)
    except TypeError:
        for position, followers in adjacency.items():
            for f in followers:
                if not _hashable(f):
                    raise GameGraphError(f"follower {f!r} of position {_show(position)} "
                                         "is not hashable") from None
        raise  # pragma: no cover - a TypeError from a broken __hash__ or __eq__
    if missing:
        for f in chain.from_iterable(tuple(adjacency.values())):
            if f in missing:
                adjacency[f] = ()
                missing.discard(f)
                if not missing:
                    break
    return adjacency


def _finish_order(adjacency: Mapping[P, tuple[P, ...]]) -> list[P]:
    """Every position, each after all of its followers (a reverse topological order).

    One depth-first search with an explicit stack: O(V + E), no recursion.

    Raises
    ------
    GraphCycleError
        The first cycle met, in the order of ``adjacency``.
    """
    state: dict[P, bool] = {}  # False: on the current path; True: finished
    order: list[P] = []
    finish, get = order.append, state.get
    for root in adjacency:
        if root in state:
            continue
        state[root] = False
        path = [root]
        pending = [iter(adjacency[root])]
        while pending:
            for child in pending[-1]:
                seen = get(child)
                if seen is None:
                    state[child] = False
                    path.append(child)
                    pending.append(iter(adjacency[child]))
                    break
                if not seen:
                    cycle = path[path.index(child):] + [child]
                    raise GraphCycleError(cycle, shown=_show_cycle(cycle))
            else:
                pending.pop()
                node = path.pop()
                state[node] = True
                finish(node)
    return order


def _grundy(adjacency: Mapping[P, tuple[P, ...]], order: Iterable[P]) -> dict[P, int]:
    """Grundy numbers, computed along ``order``, listed in the order of ``adjacency``."""
    grundy: dict[P, int] = dict.fromkeys(adjacency, 0)
    for node in order:
        followers = adjacency[node]
        if len(followers) == 1:
            grundy[node] = 0 if grundy[followers[0]] else 1
        elif followers:
            seen = {grundy[f] for f in followers}
            g = 0
            while g in seen:
                g += 1
            grundy[node] = g
    return grundy


def _misere_win(adjacency: Mapping[P, tuple[P, ...]], order: Iterable[P]) -> dict[P, bool]:
    """Misère wins for the player to move, computed along ``order`` (sinks win)."""
    win: dict[P, bool] = dict.fromkeys(adjacency, True)
    for node in order:
        followers = adjacency[node]
        if len(followers) == 1:
            win[node] = not win[followers[0]]
        elif followers:
            win[node] = not all(win[f] for f in followers)
    return win


# ---------------------------------------------------------------------------
# the solution


@dataclass(frozen=True, kw_only=True)
class SumMove(Generic[P]):
    """A move in a sum of games: in component ``component``, from ``source`` to ``target``.

    Attributes
    ----------
    component:
        The index (from 0) of the component moved in.
    source:
        That component's position before the move.
    target:
        A follower of ``source``: the component's position after the move.
    """

    component: int
    source: P
    target: P

    def apply(self, components: Sequence[P]) -> tuple[P, ...]:
        """The components after this move.

        >>> SumMove(component=1, source="y", target="z").apply(["x", "y"])
        ('x', 'z')
        """
        if components[self.component] != self.source:
            raise InputError(f"component {self.component} is {_show(components[self.component])}, "
                             f"not {_show(self.source)}")
        out = list(components)
        out[self.component] = self.target
        return tuple(out)


@dataclass(frozen=True, kw_only=True)
class GraphSolution(Generic[P]):
    """Grundy numbers and outcomes of every position of a game graph (SPEC §7).

    Build it with :func:`solve_game_graph`.  The mappings are read-only and
    list positions in the order of :func:`adjacency_of`.

    Attributes
    ----------
    followers:
        Position -> its followers (the normalized graph).
    grundy:
        Position -> its normal-play Grundy number.
    misere_win:
        Position -> whether the player to move wins under misère play.

    Examples
    --------
    >>> sol = solve_game_graph({"2": ["1", "0"], "1": ["0"]})
    >>> sol.grundy["2"], sol.outcome("2"), sol.outcome("1", misere=True)
    (2, 'N', 'P')
    >>> sol.sum_grundy(["2", "1"]), sol.sum_outcome(["1", "1"])
    (3, 'P')
    """

    followers: Mapping[P, tuple[P, ...]]
    grundy: Mapping[P, int]
    misere_win: Mapping[P, bool]

    def __len__(self) -> int:
        return len(self.grundy)

    def _check(self, position: P) -> P:
        try:
            if position in self.grundy:
                return position
        except TypeError:
            pass
        raise UnknownPositionError(f"unknown position {position!r}")

    def outcome(self, position: P, *, misere: bool = False) -> Outcome:
        """``"N"`` if the player to move from ``position`` wins, else ``"P"``.

        Parameters
        ----------
        position:
            A position of the graph.
        misere:
            Misère play (the last mover loses) instead of normal play.

        Raises
        ------
        UnknownPositionError
            ``position`` is not in the graph.
        """
        position = self._check(position)
        if misere:
            return "N" if self.misere_win[position] else "P"
        return "N" if self.grundy[position] else "P"

    def outcomes(self, *, misere: bool = False) -> dict[P, Outcome]:
        """:meth:`outcome` of every position, in graph order."""
        if misere:
            return {p: "N" if w else "P" for p, w in self.misere_win.items()}
        return {p: "N" if g else "P" for p, g in self.grundy.items()}

    def sum_grundy(self, components: Iterable[P], *, misere: bool = False) -> int:
        """The Grundy number of the sum of ``components``: the XOR of theirs.

        Raises
        ------
        UnknownPositionError
            A component is not a position of the graph.
        MisereSumError
            ``misere=True``: misère sums are not decided by Grundy numbers.
        """
        if misere:
            raise MisereSumError
        return nim_sum(self.grundy[self._check(c)] for c in components)

    def sum_outcome(self, components: Iterable[P], *, misere: bool = False) -> Outcome:
        """``"P"`` if the sum of ``components`` has Grundy number 0, else ``"N"``."""
        return "N" if self.sum_grundy(components, misere=misere) else "P"

    def winning_moves(self, components: Iterable[P], *, misere: bool = False) -> list[SumMove[P]]:
        """Every winning move from the sum of ``components``, by component then follower.

        A winning move leads to a sum of Grundy number 0.  There is none
        exactly when the sum is a P-position (its XOR is 0).

        Raises
        ------
        UnknownPositionError
            A component is not a position of the graph.
        MisereSumError
            ``misere=True``: misère sums are not decided by Grundy numbers.
        """
        parts = list(components)
        total = self.sum_grundy(parts, misere=misere)
        moves: list[SumMove[P]] = []
        if total == 0:
            return moves
        grundy = self.grundy
        for i, source in enumerate(parts):
            # a follower may have a larger Grundy number than its position: the
            # move to one of number g ^ total wins whether it lowers g or not
            want = grundy[source] ^ total
            moves.extend(SumMove(component=i, source=source, target=f)
                         for f in self.followers[source] if grundy[f] == want)
        return moves


def solve_game_graph(graph: GameGraphLike[P]) -> GraphSolution[P]:
    """Solve a finite acyclic game graph under both normal and misère play (SPEC §7).

    One iterative depth-first search, finishing positions in reverse
    topological order: O(V + E) time, no recursion.

    Parameters
    ----------
    graph:
        See :func:`adjacency_of`.  A follower that is not a key is a sink.

    Returns
    -------
    GraphSolution

    Raises
    ------
    GraphCycleError
        The graph has a cycle; the message names one, e.g. ``x -> y -> x``.
    GameGraphError
        ``graph`` is not a game graph.

    Examples
    --------
    In x -> y -> z plus x -> z, z has no move: a normal-play loss (P) and a misère
    win (N):

    >>> s = solve_game_graph({"x": ["y", "z"], "y": ["z"]})
    >>> dict(s.grundy)
    {'x': 2, 'y': 1, 'z': 0}
    >>> [s.outcome(p) for p in "xyz"], [s.outcome(p, misere=True) for p in "xyz"]
    (['N', 'N', 'P'], ['N', 'P', 'N'])
    >>> solve_game_graph({"x": ["y"], "y": ["x"]})
    Traceback (most recent call last):
    ...
    sdg_automata.errors.GraphCycleError: the game graph has a cycle x -> y -> x
    """
    if isinstance(graph, GraphSolution):
        return graph
    return _solution(adjacency_of(graph))


def _solution(adjacency: dict[P, tuple[P, ...]]) -> GraphSolution[P]:
    order = _finish_order(adjacency)
    return GraphSolution(
        followers=MappingProxyType(adjacency),
        grundy=MappingProxyType(_grundy(adjacency, order)),
        misere_win=MappingProxyType(_misere_win(adjacency, order)),
    )
