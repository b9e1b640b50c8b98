"""Strategy ``sat`` of Max-Grundy (SPEC §5): bounded model checking with CaDiCaL.

It stores no state: bounded model checking (:mod:`sdg_automata.search.bmc`, the
``sat`` extra) of the lean Step 3–4 relation (:mod:`sdg_automata.search.lean`:
constant and equivalent latches removed, the reduction checked against the
unreduced relation first), length by length up to ``max_length``
(``--max-length``), with shortest witnesses, on the SAT solver ``sat_solver``
names (``--solver``, CaDiCaL 1.9.5 by default).  A witness is exact; nothing
found up to the length is not a "no" unless k-induction proves it (then
``proof="k-induction"``); otherwise the verdict is not exact and, asked about k,
its answer is ``None``.  Its evidence
(:class:`~sdg_automata.search.strategies.solver_evidence.SolverEvidence`) is the length
searched, the depth of the induction, the solver's work and which engine settled
each value, four fields of the ``max`` command's JSON.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...errors import InputError
from ...runtime.budget import Budget
from ...runtime.lazy import lazy_names
from ..options import Argument
from ..request import Search, SearchResult
from .base import SearchStrategy, refuse_states

if TYPE_CHECKING:
    from .solver_options import SatOptions

__all__ = ["SOLVER_ARGUMENT", "STRATEGY", "SatOptions", "check_solver"]

#: its options (:class:`~sdg_automata.search.strategies.solver_options.SatOptions`) are
#: defined when first needed, and importable from here
__getattr__, __dir__ = lazy_names(__name__, {"SatOptions": "solver_options"}, base=__package__)

#: its command-line arguments: the longest word, and the SAT solver (shared with pdr)
SOLVER_ARGUMENT = Argument(
    flag="--solver", field="sat_solver", metavar="NAME",
    help="--strategy sat or pdr: the SAT solver, any incremental one python-sat offers by its "
         "name or alias (cadical195, the default; cadical153, glucose4, maplesat, minisat22, "
         "…); an unknown name lists them")
ARGUMENTS = (Argument(
    flag="--max-length", field="max_length", kind="positive", metavar="L",
    help="--strategy sat: search words up to L letters (default: until the answer is settled "
         "or proven, or --max-seconds); nothing found up to L is not a no: exit 3 unless "
         "k-induction proves it"), SOLVER_ARGUMENT)


def _check(options: SatOptions, budget: Budget) -> None:
    refuse_states("sat", budget, bounds="a maximum length or ")
    n = options.max_length
    if n is not None and (isinstance(n, bool) or not isinstance(n, int) or n < 1):
        raise InputError(f"max_length must be a positive integer, not {n!r}")
    check_solver(options.sat_solver, budget)


def check_solver(name: str | None, budget: Budget) -> str:
    """The SAT solver ``name`` names (:func:`~sdg_automata.search.solvers.resolve`)."""
    from ..solvers import resolve

    if name is not None and not isinstance(name, str):
        raise InputError(f"the SAT solver is named by a string, not {name!r}")
    return resolve(name, timed=budget.max_seconds is not None)


def _refuse(user: str, given: Mapping[str, Any]) -> str:
    if "max_length" not in given:
        return f"the SAT solver is an option of the sat and pdr strategies; {user} runs none"
    return f"a maximum length bounds the sat strategy only; {user} searches every length"


def _sat(search: Search) -> SearchResult:
    """Bounded model checking on the lean relation, then k-induction
    (:mod:`sdg_automata.search.bmc`, :mod:`sdg_automata.search.lean`)."""
    from ...errors import Interrupted
    from ..bmc import BoundedSearch
    from ..lean import Unverified, lean_relation
    from .solver_evidence import SolverEvidence

    options: SatOptions = search.options
    solver = check_solver(options.sat_solver, search.budget)
    meter = search.budget.start("SAT search", unit="letters unrolled")
    try:
        lean = lean_relation(search.automaton, search.head, search.constraint, meter, solver)
    except Unverified as e:
        return SearchResult(found={}, explored=0, complete=False, peak_bytes=None,
                            proof="k-induction",
                            evidence=SolverEvidence(max_length=0, solver={
                                "name": solver, "variables": 0, "clauses": 0, "conflicts": 0,
                                "calls": 0, "unproven": e.why, **e.stats}))
    except (KeyboardInterrupt, Interrupted):
        raise meter.interrupted(0) from None
    bmc = BoundedSearch(lean, search.head, settled=search.settled, meter=meter, solver=solver)
    try:
        bmc.advance(max_length=options.max_length)
        work = {"name": solver, **bmc.stats(), **lean.stats()}
    except (KeyboardInterrupt, Interrupted):
        raise meter.interrupted(bmc.length + 1) from None
    finally:
        bmc.close()
        lean.checker.close()
    witness = search.automaton.witness
    settled = dict.fromkeys(bmc.found, "bmc")
    if bmc.proven:
        settled.update(dict.fromkeys(range(max(bmc.found, default=-1) + 1, lean.bound + 1),
                                     "k-induction"))
    return SearchResult(found={v: witness(read) for v, read in bmc.found.items()},
                         explored=0, complete=bmc.proven, peak_bytes=None,
                         proof="k-induction",
                         evidence=SolverEvidence(
                             max_length=bmc.length, induction_depth=bmc.depth,
                             solver=work,
                             settled={str(v): e for v, e in sorted(settled.items())}))


#: the registry's entry (:data:`sdg_automata.search.strategies.STRATEGIES`)
STRATEGY = SearchStrategy(
    name="sat", run=_sat, options="sdg_automata.search.strategies.solver_options:SatOptions",
    solver="CaDiCaL", progress=("SAT search", "letters unrolled"),
    arguments=ARGUMENTS, check=_check, refuse=_refuse,
    describe="stores no states: bounded model checking with CaDiCaL (the sat extra) on the "
             "lean circuit (constant and equivalent latches removed, checked), shortest "
             "witnesses, proofs by k-induction")
