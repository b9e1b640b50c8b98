"""The explicit route of Max-Grundy (SPEC §5): the paper's emptiness tests with automata-lib.

``max_grundy(method="explicit")`` builds the reachable automaton, turns each
M_{A,i} into an automata-lib DFA and tests L(M_{A,i}) for emptiness, for
i = m_A, m_A − 1, … (SPEC §5: max = k iff L(M_{A,k}) ≠ ∅ and L(M_{A,i}) = ∅
for k < i ≤ m_A).  A constraint is intersected with each M_{A,i} as a DFA read
the automaton's way (:func:`constraint_dfa`).  The on-the-fly route
(:mod:`sdg_automata.search.strategies`) answers the same questions without
building any automata-lib object.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING, Any

from ..automaton.construction import GrundyAutomaton
from ..automaton.reading import Reading
from ..grammar.words import Word
from ..runtime.budget import Budget
from .constraint import constraint

if TYPE_CHECKING:
    from automata.fa.dfa import DFA
    from automata.fa.nfa import NFA
    from pyformlang.finite_automaton import EpsilonNFA

    from ..runtime.engines import Engine

__all__ = ["constraint_dfa", "explicit"]


def explicit(
    automaton: GrundyAutomaton, head: str, within: DFA | NFA | EpsilonNFA | str | None,
    budget: Budget, started: float, *, engine: Engine = "auto",
) -> tuple[dict[int, str | Word], int, str]:
    """The paper's route: emptiness of each L(M_{A,i}) with automata-lib (SPEC §5).

    Returns the witness of the maximum (none: no position), the reachable states and
    the engine that explored them (:meth:`GrundyAutomaton.explore`'s ``engine``);
    ``started`` (:func:`time.perf_counter`) is when the decision began, which
    ``budget``'s seconds count from.
    """
    bound = automaton.bounds[head]
    reachable = automaton.explore(budget, engine=engine)  # Ctrl-C: Interrupted
    meter = budget.start("emptiness tests", unit="states")
    meter.count = len(reachable)
    if budget.max_seconds is not None:  # the seconds count from the start of the decision
        meter.deadline = started + budget.max_seconds
    values = reachable.values(head)
    reading = automaton.reading
    guard = None
    if within is not None:
        guard = constraint_dfa(within, automaton.alphabet, reading)
    found: dict[int, str | Word] = {}
    for i in range(bound, -1, -1):
        with meter.library("automata-lib emptiness"):
            # a private DFA: tested for emptiness, then dropped, so no need to freeze it
            machine = reachable.to_dfa((s for s, v in enumerate(values) if v == i),
                                       frozen=False)
            if guard is None:
                empty = machine.isempty()
                if not empty:
                    found[i] = reachable.word_to(values.index(i))
            else:
                product = machine.intersection(guard, minify=False)
                word = _shortest(product)
                if word is not None:
                    found[i] = reading.witness(word)
        if found:
            break  # the largest non-empty L(M_{A,i}) is the maximum (SPEC §5)
    return found, len(reachable), reachable.engine


def constraint_dfa(within: DFA | NFA | EpsilonNFA | str, alphabet: tuple[str, ...],
                    reading: Reading) -> DFA:
    """``within`` read the automaton's way (wᴿ, or w for a mirror), over exactly Σ."""
    from automata.fa.dfa import DFA

    tables = constraint(within, alphabet, reverse=not reading.mirrored)
    dead = tables.size
    transitions = {d: {a: (tables.rows[a][d] if tables.rows[a][d] >= 0 else dead)
                       for a in alphabet} for d in range(dead)}
    transitions[dead] = dict.fromkeys(alphabet, dead)
    return DFA(states=frozenset(range(dead + 1)), input_symbols=frozenset(alphabet),
               transitions=transitions, initial_state=tables.initial,
               final_states=frozenset(d for d in range(dead) if tables.final[d]))


def _shortest(machine: DFA) -> str | None:
    """A shortest word of an automata-lib DFA, by breadth-first search; ``None`` if empty."""

    parent: dict[Any, tuple[Any, str] | None] = {machine.initial_state: None}
    queue = deque([machine.initial_state])
    while queue:
        s = queue.popleft()
        if s in machine.final_states:
            word = []
            step = parent[s]
            while step is not None:
                s, a = step
                word.append(a)
                step = parent[s]
            return "".join(reversed(word))
        for a, t in sorted(machine.transitions[s].items()):
            if t not in parent:
                parent[t] = (s, a)
                queue.append(t)
    return None

