"""Strategy ``pdr`` of Max-Grundy (SPEC §5): a portfolio of bounded model checking and
ABC's property-directed reachability under one budget.

It stores no state either: on the lean circuit (:mod:`sdg_automata.search.lean`), the
bounded search finds the shortest witnesses and ABC's PDR proves that no value above
them occurs, taking turns (:mod:`sdg_automata.search.portfolio`; ABC is an executable,
``berkeley-abc`` on Debian).  A proof counts only once its inductive invariant,
mapped back and conjoined with the circuit's latch correspondence, passes our own
CaDiCaL check on the unreduced relation (``proof="pdr"``).  It closes where
k-induction never does: unreachable states that loop inside the bad set.  Its
evidence is sat's, with the invariant's size in the command line's note and the
engine that settled each value
(:class:`~sdg_automata.search.strategies.solver_evidence.PdrEvidence`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...runtime.budget import Budget
from ...runtime.lazy import lazy_names
from ..request import Search, SearchResult
from .base import SearchStrategy, refuse_states
from .sat import SOLVER_ARGUMENT, check_solver

if TYPE_CHECKING:
    from .solver_options import PdrOptions

__all__ = ["STRATEGY", "PdrOptions"]

#: its options (:class:`~sdg_automata.search.strategies.solver_options.PdrOptions`) are
#: defined when first needed, and importable from here
__getattr__, __dir__ = lazy_names(__name__, {"PdrOptions": "solver_options"}, base=__package__)

def _check(options: PdrOptions, budget: Budget) -> None:
    refuse_states("pdr", budget)
    check_solver(options.sat_solver, budget)


def _pdr(search: Search) -> SearchResult:
    """The portfolio (:mod:`sdg_automata.search.portfolio`)."""
    from ..portfolio import portfolio
    from .solver_evidence import PdrEvidence

    solver = check_solver(search.options.sat_solver, search.budget)
    found = portfolio(search.automaton, search.head, settled=search.settled,
                      budget=search.budget, solver=solver, within=search.constraint)
    witness = search.automaton.witness
    solver_json = found.solver if found.why is None else {**found.solver, "unproven": found.why}
    return SearchResult(found={v: witness(read) for v, read in found.found.items()},
                         explored=0, complete=found.proven, peak_bytes=None,
                         proof=found.proof or "pdr",
                         evidence=PdrEvidence(max_length=found.length,
                                              induction_depth=found.depth, solver=solver_json,
                                              settled={str(v): e for v, e in
                                                       found.settled.items()}))


#: the registry's entry (:data:`sdg_automata.search.strategies.STRATEGIES`)
STRATEGY = SearchStrategy(
    name="pdr", run=_pdr, options="sdg_automata.search.strategies.solver_options:PdrOptions",
    solver="ABC and CaDiCaL",
    progress=("PDR", "rounds of ABC"), arguments=(SOLVER_ARGUMENT,), check=_check,
    describe="a portfolio on the lean circuit: sat's bounded search for the shortest "
             "witnesses, taking turns with ABC's PDR (the berkeley-abc executable) for "
             "proofs whose invariant CaDiCaL checks on the unreduced relation")
