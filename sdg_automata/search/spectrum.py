"""Every nonterminal at once (SPEC §4–5): m_A, the values 𝒢_{G,A} takes and a shortest
witness for each, from one exploration of the whole grammar's automaton.

:func:`spectrum` and its :class:`SpectrumRow` are names of the facade
:mod:`sdg_automata.search.decide` too (loaded from here on first use: a module of its
own, so that deciding Max-Grundy does not define the row's class, issue 33 §4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..automaton.construction import automaton_for
from ..grammar import Grammar
from ..runtime.budget import UNLIMITED, Budget, as_budget

if TYPE_CHECKING:
    from ..runtime.engines import Engine

__all__ = ["SpectrumRow", "spectrum"]


@dataclass(frozen=True, kw_only=True)
class SpectrumRow:
    """What values 𝒢_{G,A} takes: the bound, each value with a shortest witness."""

    nonterminal: str
    bound: int
    witnesses: dict[int, str]
    states: int

    @property
    def maximum(self) -> int | None:
        return max(self.witnesses, default=None)


def spectrum(
    grammar: Grammar, *, budget: Budget = UNLIMITED, max_states: int | None = None,
    progress: Callable[[int], None] | None = None, engine: Engine = "auto",
) -> list[SpectrumRow]:
    """For every nonterminal: m_A, the values reached and a shortest witness for each.

    One exploration of the whole grammar's automaton serves every nonterminal
    (left-linear grammars through their mirror; witnesses in the user's order),
    on the engine ``engine`` chooses
    (:meth:`~sdg_automata.automaton.construction.GrundyAutomaton.explore`).

    Parameters
    ----------
    grammar:
        A right- or left-linear grammar.
    budget:
        States, seconds and progress for the exploration (:class:`Budget`).
    max_states, progress:
        The same by keyword (put into ``budget``).
    engine:
        ``"auto"`` (default), ``"compiled"`` or ``"python"``: the same rows.

    Returns
    -------
    list of SpectrumRow
        One row per nonterminal, in the grammar's order: ``bound`` (m_A, SPEC §3),
        ``witnesses`` (value -> a shortest word with that value) and ``states``
        (reachable states of the automaton).

    Raises
    ------
    InputError
        For a grammar that is neither right- nor left-linear.
    BudgetExceeded, Interrupted
        When the budget runs out or the exploration is interrupted.

    Examples
    --------
    >>> from sdg_automata import load_grammar
    >>> for row in spectrum(load_grammar("examples/example3.txt")):
    ...     print(row.nonterminal, row.bound, row.witnesses)
    A 4 {0: 'b', 1: 'a', 2: 'aa'}
    B 2 {0: 'ba', 1: 'b'}
    """
    automaton = automaton_for(grammar)
    reachable = automaton.explore(as_budget(budget, max_states=max_states, progress=progress),
                                  engine=engine)
    rows = []
    for head in grammar.nonterminals:
        found = reachable.shortest_witnesses(head)
        rows.append(SpectrumRow(nonterminal=head, bound=automaton.bounds[head], witnesses=found,
                                states=len(reachable)))
    return rows
