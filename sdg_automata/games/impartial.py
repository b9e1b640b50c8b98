"""Impartial games in general (SPEC §7): mex, nim sums, finite game graphs.

A *game graph* is a finite directed acyclic graph whose vertices are positions
and whose edges are moves.  It may be given as

* a mapping ``{position: followers}`` (a ``dict`` of lists, say), where every
  follower must be hashable; a follower that is not itself a key of the
  mapping is a **sink**, a position with no moves (so leaves need not be
  listed), and it appears in every result;
* any directed graph with ``.nodes`` and ``.successors(node)``, such as a
  :class:`networkx.DiGraph` (duck-typed: networkx is never imported here);
* a JSON file ``{"positions": {"x": ["y", "z"], ...}}``, a plain JSON object
  of lists, or networkx's node-link JSON, read by :func:`load_game_graph` or
  solved by :func:`solve_game_graph_file` (the same sink rule; errors carry the
  file and line).  Positions are strings, except in node-link JSON, where a
  node is its JSON ``id``, a string or an integer: the integer ``1`` and the
  string ``"1"`` are two positions, as they are two nodes of networkx.

Normal play (SPEC §7): a sink is a P-position with Grundy number 0; the Grundy
number of a position is the mex of its followers' numbers, and it is 0 exactly
at P-positions.  A sum of games (one move in one component per turn) has the
XOR of the components' Grundy numbers; a winning move from a sum of XOR
``total ≠ 0`` moves one component ``g`` to a follower of Grundy number
``g ^ total`` (one exists when ``g ^ total < g``, by the mex; in a general graph
a follower of a larger number ``g ^ total`` also wins).

Misère play (the last mover *loses*) changes the outcome rules: a sink is a win
for the player to move (an N-position), and otherwise a position is N iff some
follower is P.  :func:`outcomes` computes these outcomes for single positions
of a graph.  The Grundy/XOR theory does **not** decide misère sums (in misère
Nim a single heap of size 1 has Grundy number 1 but is a loss for the player
to move), so every sum function refuses ``misere=True`` with
:class:`MisereSumError` instead of answering wrongly.

Everything here is iterative; no function depends on Python's recursion depth
(a path of 10⁶ positions is fine).  A cycle is an input error,
:class:`GraphCycleError`, whose message names it (``x -> y -> x``).

>>> sol = solve_game_graph({"a": ["b", "c"], "b": ["c"]})
>>> dict(sol.grundy)
{'a': 2, 'b': 1, 'c': 0}
>>> sol.outcome("c"), sol.outcome("c", misere=True)
('P', 'N')
>>> sol.winning_moves(["a", "b"])
[SumMove(component=0, source='a', target='b')]
"""

from __future__ import annotations

import json
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import reduce
from itertools import chain
from operator import xor
from os import PathLike
from types import MappingProxyType
from typing import Any, Generic, Literal, Protocol, TypeVar, Union

from ..errors import (
    GameGraphError,
    GraphCycleError,
    InputError,
    MisereSumError,
    UnknownPositionError,
    brief,
)
from ..grammar.jsontext import json_lines, load_json

__all__ = [
    "DiGraphLike",
    "GameGraphLike",
    "GraphCycleError",
    "GraphSolution",
    "MisereSumError",
    "NodeId",
    "Outcome",
    "SumMove",
    "UnknownPositionError",
    "adjacency_of",
    "game_graph_from_json",
    "grundy_values",
    "load_game_graph",
    "mex",
    "mex_mask",
    "nim_sum",
    "outcomes",
    "solve_game_graph",
    "solve_game_graph_file",
    "sum_grundy",
    "sum_outcome",
    "winning_moves",
]

P = TypeVar("P", bound=Hashable)

Outcome = Literal["P", "N"]
"""``"P"``: the previous player (who just moved) wins; ``"N"``: the next player."""

NodeId = str | int
"""A position read from JSON: a string, or an integer node id of node-link JSON."""



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


def mex(values: Iterable[int]) -> int:
    """The minimum excludant: the least natural number not in ``values`` (SPEC §2).

    Parameters
    ----------
    values:
        Natural numbers, in any order, repeats allowed (the followers' Grundy
        numbers); numbers that are not naturals are ignored.

    Returns
    -------
    int
        The least n ≥ 0 not in ``values``: the Grundy number of a position whose
        followers have these numbers.

    Examples
    --------
    >>> mex([0, 1, 3])
    2
    >>> mex([])
    0
    >>> mex(range(5))  # a Nim heap of 5 moves to heaps 0..4
    5
    """
    seen = set(values)
    m = 0
    while m in seen:
        m += 1
    return m


def mex_mask(mask: int) -> int:
    """:func:`mex` of the set whose members are the 1-bits of ``mask``.

    >>> mex_mask(0b1011)
    2
    """
    return (~mask & (mask + 1)).bit_length() - 1


def nim_sum(values: Iterable[int]) -> int:
    """The XOR of ``values``: the Grundy number of a sum of games (SPEC §7).

    Parameters
    ----------
    values:
        Grundy numbers of the components.

    Returns
    -------
    int
        Their bitwise XOR; 0 for no values.  A sum is a P-position (the player
        to move loses) iff it is 0.

    Examples
    --------
    >>> nim_sum([1, 2, 3])
    0
    >>> nim_sum([3, 5, 7])  # Nim with heaps 3, 5, 7: an N-position
    1
    """
    return reduce(xor, values, 0)


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


def grundy_values(graph: GameGraphLike[P]) -> dict[P, int]:
    """The normal-play Grundy number of every position of ``graph`` (SPEC §7).

    A sink has 0; any other position the mex of its followers' numbers.

    Parameters
    ----------
    graph:
        A finite acyclic game graph: a mapping position -> followers, a
        :class:`GraphSolution`, or a directed graph with ``.nodes`` and
        ``.successors(node)`` such as a :class:`networkx.DiGraph`
        (see :func:`adjacency_of`).  A follower that is not a key is a sink.

    Returns
    -------
    dict
        Position -> Grundy number, every position of the graph included.

    Raises
    ------
    GraphCycleError
        The graph has a cycle; the message names one.
    GameGraphError
        ``graph`` is not a game graph.

    Examples
    --------
    >>> grundy_values({3: [2, 1, 0], 2: [1, 0], 1: [0]})  # Nim heaps as a graph
    {3: 3, 2: 2, 1: 1, 0: 0}
    >>> grundy_values({"x": ["y"], "y": ["x"]})
    Traceback (most recent call last):
    ...
    sdg_automata.errors.GraphCycleError: the game graph has a cycle x -> y -> x
    """
    if isinstance(graph, GraphSolution):
        return dict(graph.grundy)
    adjacency = adjacency_of(graph)
    return _grundy(adjacency, _finish_order(adjacency))


def outcomes(graph: GameGraphLike[P], *, misere: bool = False) -> dict[P, Outcome]:
    """The outcome (``"P"`` or ``"N"``) of every position of ``graph`` (SPEC §7).

    Under normal play a position is P iff its Grundy number is 0.  Under
    misère play a sink is N (the player to move has already won) and another
    position is N iff some follower is P.

    >>> outcomes({1: [0]}), outcomes({1: [0]}, misere=True)
    ({1: 'N', 0: 'P'}, {1: 'P', 0: 'N'})
    """
    if isinstance(graph, GraphSolution):
        return graph.outcomes(misere=misere)
    adjacency = adjacency_of(graph)
    order = _finish_order(adjacency)
    if misere:
        return {p: "N" if w else "P" for p, w in _misere_win(adjacency, order).items()}
    return {p: "N" if g else "P" for p, g in _grundy(adjacency, order).items()}


def sum_grundy(values: Mapping[P, int] | GraphSolution[P], components: Iterable[P], *,
               misere: bool = False) -> int:
    """The Grundy number of a sum of games: the XOR of the components' numbers (SPEC §7).

    Parameters
    ----------
    values:
        Grundy numbers, e.g. from :func:`grundy_values`, or a :class:`GraphSolution`.
    components:
        The positions making up the sum (repetitions allowed).
    misere:
        Refused: the XOR does not decide misère sums.

    Raises
    ------
    UnknownPositionError
        A component has no value in ``values``.
    MisereSumError
        ``misere=True``.

    >>> sum_grundy({"a": 1, "b": 2, "c": 3}, ["a", "b", "c"])
    0
    """
    if misere:
        raise MisereSumError
    if isinstance(values, GraphSolution):
        return values.sum_grundy(components)
    total = 0
    for c in components:
        if not _hashable(c) or c not in values:
            raise UnknownPositionError(f"unknown position {c!r}")
        total ^= values[c]
    return total


def sum_outcome(graph: GameGraphLike[P], components: Iterable[P], *,
                misere: bool = False) -> Outcome:
    """The normal-play outcome of the sum of ``components``: P iff the XOR is 0.

    ``misere=True`` raises :class:`MisereSumError`.

    >>> sum_outcome({2: [1, 0], 1: [0]}, [2, 2])
    'P'
    """
    if misere:
        raise MisereSumError
    return solve_game_graph(graph).sum_outcome(components)


def winning_moves(graph: GameGraphLike[P], components: Iterable[P], *,
                  misere: bool = False) -> list[SumMove[P]]:
    """Every winning move from the sum of ``components`` of ``graph`` (SPEC §7).

    A move in component ``i`` from ``g_i = 𝒢(c_i)`` wins iff it reaches a
    follower of Grundy number ``g_i ^ total``.  Such a follower exists when
    ``g_i ^ total < g_i`` (by the mex) and may exist when it is larger (the
    followers' numbers are not bounded by ``g_i``).  The list is empty iff the
    sum is a P-position.

    Parameters
    ----------
    graph:
        A finite acyclic game graph, as :func:`grundy_values` takes.
    components:
        The positions of the sum, one per component (a position may repeat).
    misere:
        Must be ``False``: misère sums are not decided by the XOR.

    Returns
    -------
    list of SumMove
        ``SumMove(component, source, target)`` for each winning move, by component.

    Raises
    ------
    MisereSumError
        For ``misere=True``.
    UnknownPositionError
        For a component that is not a position of ``graph``.
    GraphCycleError
        The graph has a cycle.

    Examples
    --------
    >>> nim = {h: list(range(h)) for h in range(8)}  # Nim heaps 0..7
    >>> for move in winning_moves(nim, [3, 5, 7]):
    ...     print(move)
    SumMove(component=0, source=3, target=2)
    SumMove(component=1, source=5, target=4)
    SumMove(component=2, source=7, target=6)
    >>> winning_moves(nim, [1, 2, 3])
    []

    A :class:`networkx.DiGraph` is a game graph too:

    >>> import networkx as nx
    >>> winning_moves(nx.DiGraph([(h, k) for h in range(5) for k in range(h)]), [3, 1])
    [SumMove(component=0, source=3, target=1)]
    """
    if misere:
        raise MisereSumError
    return solve_game_graph(graph).winning_moves(components)


# ---------------------------------------------------------------------------
# JSON


_ALLOWED_KEYS = {"positions", "description"}


def _line(text: str, *path: str) -> int | None:
    """The line of the member at ``path`` (keys from the top); for error messages only."""
    return json_lines(text).get(path)


def _node_link(data: dict[str, Any], source: str) -> dict[NodeId, list[NodeId]]:
    """networkx's node-link JSON (``nx.node_link_data``: ``nodes`` + ``edges`` or
    ``links``) as ``{position: followers}``.  A node is its JSON id, a string or an
    integer, as in networkx: ``1`` and ``"1"`` are two nodes (issue 21 §11)."""
    edges_key = "edges" if "edges" in data else "links"
    if data.get("directed") is False:
        raise GameGraphError("the node-link graph is undirected; a game graph's moves have a "
                             "direction (\"directed\": true)", source=source)

    def name(node: Any) -> NodeId:
        if isinstance(node, bool) or not isinstance(node, (str, int)):
            raise GameGraphError(f"node id {json.dumps(node)[:40]} must be a string or an "
                                 "integer", source=source)
        return node

    positions: dict[NodeId, list[NodeId]] = {}
    for node in data["nodes"]:
        if not isinstance(node, dict) or "id" not in node:
            raise GameGraphError('every node of a node-link graph is an object with an "id"',
                                 source=source)
        positions.setdefault(name(node["id"]), [])
    for edge in data[edges_key]:
        if not isinstance(edge, dict) or "source" not in edge or "target" not in edge:
            raise GameGraphError(f'every {edges_key[:-1]} of a node-link graph is an object '
                                 'with "source" and "target"', source=source)
        followers = positions.setdefault(name(edge["source"]), [])
        target = name(edge["target"])
        if target not in followers:  # a multigraph's parallel edges are one move
            followers.append(target)
    return positions


def _is_node_link(data: dict[str, Any]) -> bool:
    return isinstance(data.get("nodes"), list) and any(
        isinstance(data.get(k), list) and all(isinstance(e, dict) for e in data[k])
        for k in ("edges", "links")) and all(isinstance(n, dict) for n in data["nodes"])


def _json_adjacency(text: str, source: str) -> dict[NodeId, tuple[NodeId, ...]]:
    """The graph in JSON ``text``, shape-checked.  Three shapes are read (see
    :func:`game_graph_from_json`): ``{"positions": {...}}``, networkx's node-link
    JSON, and a plain object of lists."""
    data = load_json(text, source=source, error=GameGraphError)
    if not isinstance(data, dict):
        raise GameGraphError('a game graph must be a JSON object {"positions": {...}}, '
                             f"not {_json_type(data)}", source=source, line=1)
    at: tuple[str, ...] | None = ("positions",)  # where positions sit, for line numbers
    ids: type | tuple[type, ...] = str  # what a position may be
    if _is_node_link(data):
        data, at, ids = {"positions": _node_link(data, source)}, None, (str, int)
    elif "positions" not in data and data and all(type(v) is list for v in data.values()):
        data, at = {"positions": data}, ()  # a plain object of lists
    unknown = sorted(set(data) - _ALLOWED_KEYS)
    if unknown:
        raise GameGraphError(f"unknown key {brief(unknown[0])} (expected 'positions', "
                             "'description')", source=source, line=_line(text, unknown[0]))
    if "positions" not in data:
        raise GameGraphError("missing key 'positions'", source=source, line=1)
    if not isinstance(data.get("description", ""), str):
        raise GameGraphError("'description' must be a string", source=source,
                             line=_line(text, "description"))
    positions = data["positions"]
    if not isinstance(positions, dict):
        raise GameGraphError("'positions' must be an object position -> list of followers, "
                             f"not {_json_type(positions)}", source=source,
                             line=_line(text, "positions"))

    def line(position: NodeId) -> int | None:
        return None if at is None else _line(text, *at, str(position))

    for position, followers in positions.items():
        if type(followers) is not list:
            raise GameGraphError(
                f"the followers of position {brief(position)} must be a list, not "
                f"{_json_type(followers)}", source=source, line=line(position))
    odd = [(p, f) for p, fs in positions.items() for f in fs
           if not isinstance(f, ids) or isinstance(f, bool)]
    if odd:
        position, bad = odd[0]
        shown = _json_type(bad) if isinstance(bad, (list, dict)) else json.dumps(bad)
        raise GameGraphError(
            f"follower {shown} of position {brief(str(position))} must be a string "
            "(positions are the keys of 'positions')", source=source, line=line(position))
    return _complete({p: tuple(fs) for p, fs in positions.items()})


def _located(error: GraphCycleError, text: str, source: str) -> InputError:
    head = error.cycle[0]
    return error.located(source, _line(text, "positions", head) if isinstance(head, str)
                         else None)


def game_graph_from_json(text: str, *, source: str = "<string>"
                         ) -> dict[NodeId, tuple[NodeId, ...]]:
    """Read a game graph from JSON text ``{"positions": {"x": ["y", "z"], ...}}`` (SPEC §7).

    The only other key allowed at the top is ``"description"`` (a string).
    Positions are strings; a follower that is not a key of ``"positions"`` is
    a sink.  The graph is checked to be acyclic.  Two other shapes are read
    as the same graph: a plain object of lists ``{"x": ["y", "z"], ...}``
    (what ``json.dump`` of a dict of lists writes), and networkx's node-link
    JSON (``json.dump(nx.node_link_data(G))``, with ``"edges"`` or the older
    ``"links"``; an undirected graph is refused).  A node-link node is its JSON
    id: an integer id stays an integer, distinct from the string of its digits,
    as in networkx.

    Parameters
    ----------
    text:
        The JSON text.
    source:
        Where the text came from, for error messages.

    Returns
    -------
    dict
        The normalized graph, as :func:`adjacency_of` returns it.

    Raises
    ------
    GameGraphError
        Invalid JSON (with line and column), a wrong shape, a duplicate key,
        or a cycle (:class:`GraphCycleError`); located at ``source`` and the
        line of the offending position where possible.

    Examples
    --------
    >>> game_graph_from_json('{"positions": {"2": ["1", "0"], "1": ["0"]}}')
    {'2': ('1', '0'), '1': ('0',), '0': ()}
    >>> game_graph_from_json('{"positions": {"x": ["y"], "y": ["x"]}}', source="g.json")
    Traceback (most recent call last):
    ...
    sdg_automata.errors.GraphCycleError: g.json:1: the game graph has a cycle x -> y -> x
    """
    adjacency = _json_adjacency(text, source)
    try:
        _finish_order(adjacency)
    except GraphCycleError as e:
        raise _located(e, text, source) from None
    return adjacency


def _json_type(value: Any) -> str:
    names = {dict: "an object", list: "an array", str: "a string", bool: "a boolean",
             int: "a number", float: "a number", type(None): "null"}
    return names.get(type(value), type(value).__name__)


def _read(path: str | PathLike[str]) -> str:
    from ..grammar.parse import read_text

    return read_text(path, what="game graph file")


def load_game_graph(path: str | PathLike[str]) -> dict[NodeId, tuple[NodeId, ...]]:
    """Read a game graph JSON file (format: :func:`game_graph_from_json`).

    Raises
    ------
    InputError
        The file is missing, unreadable or not UTF-8 text.
    GameGraphError
        The file does not hold a valid acyclic game graph; the error names the
        file and, where possible, the line.
    """
    return game_graph_from_json(_read(path), source=str(path))


def solve_game_graph_file(path: str | PathLike[str]) -> GraphSolution[NodeId]:
    """:func:`solve_game_graph` of the graph in a JSON file, in one pass.

    Same as ``solve_game_graph(load_game_graph(path))`` without searching the
    graph twice; errors as :func:`load_game_graph`.
    """
    text = _read(path)
    adjacency = _json_adjacency(text, str(path))
    try:
        return _solution(adjacency)
    except GraphCycleError as e:
        raise _located(e, text, str(path)) from None
