"""sdg_automata.derivation.gamegraph: the game graph against the definition, and its budget.

Ground truth: :class:`strategies.Definition`, SPEC §2 written again on the raw
rules (membership, successors, values), sharing no code with the package.  The
graph is built from it here by a plain breadth-first closure, and its values
are the XOR of the parts' values by the definition.
"""

from __future__ import annotations

import pytest
from golden import example3
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import Definition, all_words, cfgs, left_linear_grammars, right_linear_grammars

from sdg_automata.derivation.gamegraph import game_graph
from sdg_automata.errors import BudgetExceeded
from sdg_automata.grammar import Grammar
from sdg_automata.runtime.budget import Budget

Node = tuple[tuple[str, str], ...]


def _by_definition(g: Grammar, max_length: int) -> tuple[set[Node], set[tuple[Node, Node]],
                                                         dict[Node, int]]:
    oracle = Definition(g.rules)
    queue: list[Node] = [((h, w),) for w in all_words(g.terminals, max_length)
                         for h in g.nonterminals if oracle(h, w) is not None]
    nodes, edges = set(queue), set()
    for p in queue:
        for k, (h, w) in enumerate(p):
            rest = p[:k] + p[k + 1:]
            for succ in oracle.successors(h, w):
                q = tuple(sorted(rest + succ))
                edges.add((p, q))
                if q not in nodes:
                    nodes.add(q)
                    queue.append(q)
    values = {}
    for p in nodes:
        x = 0
        for h, w in p:
            x ^= oracle(h, w)  # type: ignore[operator]
        values[p] = x
    return nodes, edges, values


@settings(max_examples=40, deadline=None)
@given(st.one_of(right_linear_grammars(max_nonterminals=3),
                 left_linear_grammars(max_nonterminals=3), cfgs(max_nonterminals=2)))
def test_game_graph_is_the_definitions(g: Grammar) -> None:
    """Should have the definition's positions, moves and values, one automaton for all."""
    length = 3 if len(g.terminals) < 3 else 2
    nodes, edges, values = _by_definition(g, length)
    gg = game_graph(g, None, length, max_nodes=10**6)
    assert set(gg.nodes) == nodes
    assert {(gg.nodes[s], gg.nodes[t]) for s, t in gg.edges} == edges
    assert {p: v for p, v in zip(gg.nodes, gg.values, strict=True)} == values


def test_game_graph_obeys_its_time_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should stop near max_seconds (issue 21 §10: `--max-seconds 1` ran 5.9 s and more
    than 60 s, building an automaton per node).

    As a count, not a time (CPU time failed under load too, issue 34 §7): the budget's
    clock moves with its readings (tests/workclock.py), so 0.3 s is about 30 checks, and
    the positions built by then are bounded by their strides, far below the 10⁷ allowed."""
    from workclock import work_clock

    from sdg_automata.runtime.budget import MAX_STRIDE

    clock = work_clock(monkeypatch, step=0.01)
    with pytest.raises(BudgetExceeded, match="budget of 0.3 s") as info:
        game_graph(example3(), None, 16, max_nodes=10**7, budget=Budget(max_seconds=0.3))
    assert clock.readings <= 60 and info.value.explored <= 60 * MAX_STRIDE


def test_a_length_with_too_many_words_is_refused_before_any_word() -> None:
    """Should refuse at once, whatever --max-length (a million-letter length is no work):
    counted, not timed (issue 34 §7) — at most the 100 positions allowed are built."""
    with pytest.raises(BudgetExceeded, match="more than 100 positions") as info:
        game_graph(example3(), None, 10**100, max_nodes=100)
    assert (info.value.explored or 0) <= 101
