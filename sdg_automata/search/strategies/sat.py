"""Strategy ``sat`` of Max-Grundy (SPEC §5): bounded model checking with CaDiCaL.

It stores no state: bounded model checking of the Step 3–4 relation with
CaDiCaL (:mod:`sdg_automata.search.bmc`, the ``sat`` extra), length by length
up to ``max_length`` (its one option, ``--max-length``), with shortest
witnesses.  A witness is exact; nothing found up to the length is not a "no"
unless k-induction proves it (then ``proof="k-induction"``); otherwise the
verdict is not exact and, asked about k, its answer is ``None``.  Its evidence
(:class:`~sdg_automata.search.strategies.solver_evidence.SolverEvidence`) is the length
searched, the depth of the induction and the solver's work, three fields of the
``evidence`` of the ``max`` command's JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...errors import InputError
from ...runtime.budget import Budget
from ..options import Argument
from ..request import Search, SearchResult
from .base import SearchStrategy, refuse_states

__all__ = ["STRATEGY", "SatOptions"]


@dataclass(frozen=True)
class SatOptions:
    """The longest word searched (``None``: until settled or proven, or out of budget)."""

    max_length: int | None = None


#: its command-line argument: the longest word
ARGUMENTS = (Argument(
    flag="--max-length", field="max_length", kind="positive", metavar="L",
    help="--strategy sat: search words up to L letters (default: until the answer is settled "
         "or proven, or --max-seconds); nothing found up to L is not a no: exit 3 unless "
         "k-induction proves it"),)


def _check(options: SatOptions, budget: Budget) -> None:
    refuse_states("sat", budget, bounds="a maximum length or ")
    n = options.max_length
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise InputError(f"max_length must be a positive integer, not {n!r}")


def _refuse(user: str, given: Mapping[str, Any]) -> str:
    return f"a maximum length bounds the sat strategy only; {user} searches every length"


def _sat(search: Search) -> SearchResult:
    """Bounded model checking with CaDiCaL, then k-induction (:mod:`sdg_automata.search.bmc`)."""
    from ..bmc import bounded_search
    from .solver_evidence import SolverEvidence

    found = bounded_search(search.automaton, search.head, settled=search.settled,
                           budget=search.budget, max_length=search.options.max_length,
                           within=search.constraint)
    witness = search.automaton.witness
    return SearchResult(found={v: witness(read) for v, read in found.found.items()},
                         explored=0, complete=found.proven, peak_bytes=None,
                         proof="k-induction",
                         evidence=SolverEvidence(max_length=found.length,
                                                 induction_depth=found.depth,
                                                 solver=found.solver))


#: the registry's entry (:data:`sdg_automata.search.strategies.STRATEGIES`)
STRATEGY = SearchStrategy(
    name="sat", run=_sat, options=SatOptions, solver="CaDiCaL",
    progress=("SAT search", "letters unrolled"),
    arguments=ARGUMENTS, check=_check, refuse=_refuse,
    describe="stores no states: bounded model checking with CaDiCaL (the sat extra), "
             "shortest witnesses, proofs by k-induction")
