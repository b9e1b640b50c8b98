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

from collections.abc import Iterable, Mapping

from ..errors import MisereSumError, UnknownPositionError
from .solution import (
    GameGraphLike,
    GraphSolution,
    Outcome,
    P,
    SumMove,
    _finish_order,
    _grundy,
    _hashable,
    _misere_win,
    adjacency_of,
    solve_game_graph,
)

__all__ = [
    "grundy_values",
    "outcomes",
    "sum_grundy",
    "sum_outcome",
    "winning_moves",
]


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
