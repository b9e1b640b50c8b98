"""DOT text of automata, the reachable Step 1–5 automaton (SPEC §4) and game graphs.

DOT follows automata-lib's drawing conventions: final states are double
circles, an arrow from an invisible point marks the initial state,
``rankdir=LR``, and every label is a quoted, escaped DOT string.  Nothing here
needs Graphviz: :mod:`sdg_automata.render.drawing` lays the text out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from .tables import Labeler, _order, _targets

if TYPE_CHECKING:
    from automata.fa.dfa import DFA
    from automata.fa.nfa import NFA

    from ..automaton.construction import ReachableAutomaton
    from ..derivation.gamegraph import GameGraph

__all__ = ["dfa_to_dot", "game_graph_to_dot", "nfa_to_dot", "reachable_to_dot"]


def _dot_id(text: str) -> str:
    """A quoted DOT string: backslashes, quotes and line breaks escaped."""
    return '"' + (text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "")
                  .replace("\n", "\\n")) + '"'


def _dot(
    name: str,
    nodes: Sequence[tuple[str, str, str]],
    initial: str | None,
    edges: Iterable[tuple[str, str, str]],
    *,
    rankdir: str = "LR",
) -> str:
    """DOT text from (node id, label, extra attributes) and (source, target, label)."""
    lines = [f"digraph {_dot_id(name)} {{", f"  rankdir={rankdir};", "  node [shape=circle];"]
    if initial is not None:
        lines.append('  __start__ [shape=point, label=""];')
    for node, text, attrs in nodes:
        lines.append(f"  {node} [{attrs + ', ' if attrs else ''}label={_dot_id(text)}];")
    if initial is not None:
        lines.append(f"  __start__ -> {initial};")
    for source, target, text in edges:
        lines.append(f"  {source} -> {target}" + (f" [label={_dot_id(text)}];" if text else ";"))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _grouped(out: Mapping[str, Any]) -> dict[Any, list[str]]:
    """Letters grouped by target: one edge ``a,b`` instead of two."""
    grouped: dict[Any, list[str]] = {}
    for a, t in sorted(out.items()):
        grouped.setdefault(t, []).append(a)
    return grouped


def dfa_to_dot(d: DFA, *, label: Labeler = str, name: str = "DFA") -> str:
    """DOT text for any automata-lib DFA (labels escaped for DOT).

    >>> from automata.fa.dfa import DFA
    >>> d = DFA(states={0, 1}, input_symbols={"a"}, transitions={0: {"a": 1}, 1: {"a": 0}},
    ...         initial_state=0, final_states={1})
    >>> print(dfa_to_dot(d))  # doctest: +NORMALIZE_WHITESPACE
    digraph "DFA" {
      rankdir=LR;
      node [shape=circle];
      __start__ [shape=point, label=""];
      q0 [shape=circle, label="0"];
      q1 [shape=doublecircle, label="1"];
      __start__ -> q0;
      q0 -> q1 [label="a"];
      q1 -> q0 [label="a"];
    }
    """
    return _fa_dot(d, label, name)


def nfa_to_dot(n: NFA, *, label: Labeler = str, name: str = "NFA") -> str:
    """DOT text for an automata-lib NFA: one edge per target state, ``ε`` for ε-moves."""
    return _fa_dot(n, label, name)


def _fa_dot(fa: Any, label: Labeler, name: str) -> str:
    rank = {s: k for k, s in enumerate(_order(fa))}
    ids = {s: f"q{k}" for s, k in rank.items()}
    nodes = [(node, label(s), "shape=doublecircle" if s in fa.final_states else "shape=circle")
             for s, node in ids.items()]
    edges = []
    for s, node in ids.items():
        grouped: dict[Any, list[str]] = {}  # letters grouped by target: one edge `a,b`
        for a, targets in _targets(fa, s, rank).items():
            for t in targets:
                grouped.setdefault(t, []).append(a)
        edges += [(node, ids[t], ",".join(letters)) for t, letters in grouped.items()]
    return _dot(name, nodes, ids[fa.initial_state], edges)


def reachable_to_dot(
    reachable: ReachableAutomaton,
    *,
    head: str | None = None,
    value: int | None = None,
    labels: str = "items",
    name: str = "M",
) -> str:
    """DOT text for the reachable part of the Step 1–5 automaton (SPEC §4).

    States are labelled by their item sets (``{A¹, aE⁰}``) or, with
    ``labels="ids"``, by their numbers (0 is q₀).  With ``head`` and ``value``
    the states of F_{A,i} are double circles (M_{A,i} of Step 5); without,
    the shared transition structure is drawn with no final state.
    """
    automaton = reachable.automaton
    finals = reachable.accepting(head, value) if head is not None and value is not None else ()
    nodes = [(f"q{s}", automaton.label(q) if labels == "items" else str(s),
              "shape=doublecircle" if s in finals else "shape=circle")
             for s, q in enumerate(reachable.states)]
    edges = []
    for s in range(len(reachable.states)):
        out = {a: reachable.rows[k][s] for k, a in enumerate(reachable.alphabet)}
        edges += [(f"q{s}", f"q{t}", ",".join(letters)) for t, letters in _grouped(out).items()]
    return _dot(name, nodes, "q0", edges)


# ---------------------------------------------------------------------------
# game graphs (the paper's Figures 1 and 7)


def game_graph_to_dot(gg: GameGraph, *, name: str = "SDG") -> str:
    """DOT text for a game graph: every node shows its position and Grundy number,
    P-positions (𝒢 = 0) are filled and drawn with a thick border, ∅ is a box."""
    nodes = []
    for k, (p, v) in enumerate(zip(gg.nodes, gg.values, strict=True)):
        attrs = ["shape=box" if not p else "shape=ellipse"]
        if v == 0:
            attrs += ['style="filled,bold"', 'fillcolor="#d7ecd9"', "penwidth=2"]
        nodes.append((f"p{k}", f"{gg.name(p)}\n𝒢 = {v}", ", ".join(attrs)))
    edges = [(f"p{s}", f"p{t}", "") for s, t in gg.edges]
    return _dot(name, nodes, None, edges)

