"""Strategy ``pdr`` of Max-Grundy (SPEC §5): proofs by ABC's property-directed reachability.

It stores no state either: ABC's PDR proves that no value above those found
occurs (:mod:`sdg_automata.search.pdr`; ABC is an executable, ``berkeley-abc``
on Debian), and the proof counts only once its inductive invariant passes our
own CaDiCaL check (``proof="pdr"``); its counterexamples send the bounded
search of :mod:`.sat` to their length for shortest witnesses.  It closes where
k-induction never does: unreachable states that loop inside the bad set.  Its
evidence is sat's, with the invariant's size in the command line's note
(:class:`~sdg_automata.search.strategies.solver_evidence.PdrEvidence`).
"""

from __future__ import annotations

from ...runtime.budget import Budget
from ..request import Search, SearchResult
from .base import SearchStrategy, refuse_states

__all__ = ["STRATEGY"]


def _check(options: None, budget: Budget) -> None:
    refuse_states("pdr", budget)


def _pdr(search: Search) -> SearchResult:
    """ABC's PDR for the proof, its invariant checked by CaDiCaL, and bounded model checking
    for the shortest witnesses (:mod:`sdg_automata.search.pdr`)."""
    from ..pdr import pdr_search
    from .solver_evidence import PdrEvidence

    found = pdr_search(search.automaton, search.head, settled=search.settled,
                       budget=search.budget, within=search.constraint)
    witness = search.automaton.witness
    solver = found.solver if found.why is None else {**found.solver, "unproven": found.why}
    return SearchResult(found={v: witness(read) for v, read in found.found.items()},
                         explored=0, complete=found.proven, peak_bytes=None,
                         proof=found.proof or "pdr",
                         evidence=PdrEvidence(max_length=found.length,
                                              induction_depth=found.depth, solver=solver))


#: the registry's entry (:data:`sdg_automata.search.strategies.STRATEGIES`)
STRATEGY = SearchStrategy(
    name="pdr", run=_pdr, solver="ABC and CaDiCaL", progress=("PDR", "rounds of ABC"),
    check=_check,
    describe="sat's witnesses, proofs by ABC's PDR (the berkeley-abc executable) whose "
             "invariant CaDiCaL checks")
