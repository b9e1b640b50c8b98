"""The game graph of an SDG: positions, moves and Grundy numbers (SPEC §2, §7).

A finite part of the game graph, like the paper's Figures 1 and 7: every
position (X, w) with 1 ≤ |w| ≤ N, every position reachable from them by moves,
and the moves.  This is the game itself, not a picture of it:
:mod:`sdg_automata.render` draws it (DOT, SVG, Jupyter).

>>> from sdg_automata import load_grammar
>>> gg = game_graph(load_grammar("examples/example3.txt"), ["A"], 2)
>>> [f"{gg.name(p)}: {v}" for p, v in zip(gg.nodes, gg.values)][:5]
['∅: 0', '(A, a): 1', '(A, b): 0', '(B, b): 1', '(A, aa): 2']
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from itertools import product
from typing import Any

from ..errors import BudgetExceeded, InputError
from ..games.impartial import grundy_values
from ..grammar import Grammar
from ..runtime.budget import UNLIMITED, Budget
from .semantics import Position, make_position

__all__ = ["GameGraph", "game_graph"]


@dataclass(frozen=True, eq=False, kw_only=True)
class GameGraph:
    """A finite part of the game graph of an SDG, with Grundy numbers.

    Attributes
    ----------
    nodes:
        Positions (sorted multisets of (A, w)); ``()`` is the final position ∅.
        Ordered by total length, then by words and nonterminals.
    edges:
        Moves, as pairs of indices into ``nodes``.
    values:
        𝒢 of each node, computed on the graph itself (mex of the successors').
    """

    nodes: tuple[Position, ...]
    edges: tuple[tuple[int, int], ...]
    values: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.values) != len(self.nodes):
            raise InputError(f"{len(self.nodes)} nodes but {len(self.values)} values")
        n = len(self.nodes)
        bad = next((e for e in self.edges if not (0 <= e[0] < n and 0 <= e[1] < n)), None)
        if bad is not None:
            raise InputError(f"move {bad} names a node outside 0..{n - 1}")

    @staticmethod
    def name(position: Position) -> str:
        """``(A, aa)`` for a singleton, ``{(A, a), (B, b)}`` for a multiset, ``∅``."""
        parts = [f"({h}, {w})" for h, w in position]
        if not parts:
            return "∅"
        return parts[0] if len(parts) == 1 else "{" + ", ".join(parts) + "}"

    def value(self, head: str, w: str) -> int | None:
        """𝒢 of the singleton (A, w), if it is a node."""
        try:
            return self.values[self.nodes.index(((head, w),))]
        except ValueError:
            return None

    def p_positions(self) -> list[Position]:
        """The nodes with Grundy number 0 (the previous player wins)."""
        return [p for p, v in zip(self.nodes, self.values, strict=True) if v == 0]

    def moves(self) -> list[list[int]]:
        """For each node, the indices of the nodes one move leads to."""
        out: list[list[int]] = [[] for _ in self.nodes]
        for s, t in self.edges:
            out[s].append(t)
        return out

    def to_json(self) -> dict[str, Any]:
        """``{"nodes": [{"position": [[A, w], ...], "grundy": g, "moves": [k, ...]}]}``;
        ``moves`` are indices into ``nodes`` (schema
        ``sdg_automata/schemas/game-graph.json``)."""
        return {"nodes": [{"position": [list(part) for part in p], "grundy": v, "moves": m}
                          for p, v, m in zip(self.nodes, self.values, self.moves(),
                                             strict=True)]}


def game_graph(
    grammar: Grammar,
    heads: Iterable[str] | None = None,
    max_length: int = 3,
    *,
    max_nodes: int = 2000,
    budget: Budget = UNLIMITED,
) -> GameGraph:
    """Every position (X, w) with X in ``heads`` and 1 ≤ |w| ≤ ``max_length``,
    with every position reachable from them by moves (SPEC §2).

    Like the paper's Figures 1 and 7.  For a right-linear grammar every
    successor is a singleton or ∅; for other grammars moves may lead to
    multisets, which are expanded too.  Grundy numbers are computed on the
    graph (mex of the successors', in increasing total length: a move always
    shortens the position), independently of :mod:`sdg_automata.derivation.semantics`'
    evaluators (the graph solver of :mod:`sdg_automata.games.impartial` does it); only
    membership and moves come from there, through one
    :class:`~sdg_automata.derivation.play.Analyzer`: one automaton for every node of a
    right- or left-linear grammar (not one per node), each component analysed
    once however many nodes hold it.

    Parameters
    ----------
    grammar:
        Any grammar.
    heads:
        The nonterminals X (default: all).
    max_length:
        The largest |w|.
    max_nodes:
        Refuse larger graphs (:class:`~sdg_automata.errors.BudgetExceeded`: exit 3).
    budget:
        ``max_seconds`` bounds the whole construction; ``progress`` gets the
        number of positions found.

    Raises
    ------
    BudgetExceeded
        Over ``max_nodes`` positions or out of time, saying how many were found.
    Interrupted
        On Ctrl-C, the same.
    """
    from .play import Analyzer  # the moves of a component, analysed once and kept

    chosen = tuple(grammar.check_nonterminal(h) for h in heads) if heads else grammar.nonterminals
    if max_length < 0:
        raise InputError(f"the maximum length is a natural number, not {max_length}")
    letters = sorted(grammar.terminals)
    meter = budget.start("game graph", unit="positions")
    analyzer = Analyzer(grammar, budget=meter.shared())  # a CFG's substring tables too

    def too_many() -> BudgetExceeded:
        return BudgetExceeded(f"the game graph up to length {max_length} has more than "
                              f"{max_nodes} positions; lower --max-length or raise --max-nodes",
                              explored=len(queue))

    def moves(position: Position) -> Iterable[Position]:
        parts = list(position)
        for k, (head, w) in enumerate(parts):
            rest = parts[:k] + parts[k + 1:]
            for move in analyzer.component(head, w)[1]:
                yield make_position(rest + list(move.parts))

    adjacency: dict[Position, list[Position]] = {}
    queue: list[Position] = []
    if len(letters) > 1:  # refused before any word is tried when a length has too many
        n, words = 1, len(letters)
        while n <= max_length and words <= max_nodes * 10:
            n, words = n + 1, words * len(letters)
        if n <= max_length:
            raise too_many()
    done, due = 0, meter.due  # words tried and positions expanded: where the time goes
    try:
        for n in range(1, max_length + 1):
            for t in product(letters, repeat=n):
                w = "".join(t)
                for h in chosen:
                    if analyzer.value(h, w) is not None:
                        queue.append(((h, w),))
                        adjacency[queue[-1]] = []
                done += 1
                if done >= due:
                    due = meter.check(len(queue), step=done)
            if len(queue) > max_nodes:
                raise too_many()
        for position in queue:  # the queue grows while it is read: breadth-first closure
            targets = adjacency[position]
            for succ in moves(position):
                if succ not in targets:
                    targets.append(succ)
                if succ not in adjacency:
                    adjacency[succ] = []
                    queue.append(succ)
                    if len(queue) > max_nodes:
                        raise too_many()
            done += 1
            if done >= due:
                due = meter.check(len(queue), step=done)
    except KeyboardInterrupt:
        raise meter.interrupted(len(queue)) from None
    nodes = sorted(adjacency, key=lambda p: (sum(len(w) for _, w in p), len(p),
                                             [(len(w), w, h) for h, w in p]))
    index = {p: k for k, p in enumerate(nodes)}
    # the game graph's own values (SPEC §7 solver); no unit cycles (SPEC §1) makes it acyclic
    values = grundy_values(adjacency)
    edges = tuple((index[p], index[s]) for p in nodes for s in adjacency[p])
    return GameGraph(nodes=tuple(nodes), edges=edges, values=tuple(values[p] for p in nodes))
