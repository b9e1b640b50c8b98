"""Max-Grundy by a portfolio under one budget: bounded model checking for the witnesses,
ABC's PDR for the proofs, taking turns on the lean circuit.

The two engines answer different halves of the question.  Bounded model checking
(:class:`~sdg_automata.search.bmc.BoundedSearch`) finds each value's shortest witness,
length by length, but never proves that no larger value exists when unreachable states
loop inside the bad set; PDR (:func:`~sdg_automata.search.pdr.prove_unreachable`)
proves exactly that, but is no witness finder.  So they take turns, both on the lean
relation of :mod:`sdg_automata.search.lean`:

1. the bounded search looks for values above the largest one found, for
   :data:`FIRST_LENGTHS` more lengths or :data:`FIRST_CONFLICTS` conflicts, whichever
   comes first (then twice as many each turn; a query it is in the middle of is
   resumed, not restarted), which finds the short witnesses first: no PDR round is
   spent on a value a short word shows;
2. ABC's ``pdr`` is asked whether any value above the largest one found occurs, for
   :data:`FIRST_SECONDS` seconds (then twice as long each turn); "proved" ends the
   search once the invariant passes our check on the unreduced relation; "asserted"
   (a counterexample, replayed through the automaton) sends the bounded search up to
   its length for the shortest witness; running out of the turn's time goes back to 1.

Everything runs under the one budget (the meter's deadline bounds every turn), and the
verdict says which engine settled each value (:attr:`PortfolioResult.settled`):
``"bmc"`` for a witness, ``"pdr"`` for values shown absent by a checked invariant,
``"k-induction"`` where the bounded search's own unrolling closed (a one-letter walk
repeats a state: no longer path visits distinct states).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..errors import Interrupted, SdgBug
from ..runtime.budget import Budget
from .bmc import BoundedSearch
from .lean import Unverified, lean_relation
from .pdr import PDR_OPTIONS, abc_command, prove_unreachable

if TYPE_CHECKING:
    from ..automaton.construction import GrundyAutomaton
    from .constraint import Constraint

__all__ = ["FIRST_CONFLICTS", "FIRST_LENGTHS", "FIRST_SECONDS", "PortfolioResult",
           "portfolio"]

#: the bounded search's first turn, in conflicts of its solver (doubled every turn): enough
#: for the short witnesses, small next to a hard length
FIRST_CONFLICTS = 20_000
#: and in lengths searched (doubled every turn): short words first, then PDR
FIRST_LENGTHS = 8
#: ABC's first turn, in seconds (doubled every turn); its -T takes whole seconds
FIRST_SECONDS = 1.0


@dataclass(frozen=True, kw_only=True)
class PortfolioResult:
    """What :func:`portfolio` found.

    Attributes
    ----------
    found:
        Per value found, the letters of a shortest word showing it (indices into Σ, in
        the automaton's reading order).
    length:
        Every word up to this length was searched for every value above those found.
    proof:
        Why no value above the largest one found occurs: ``"pdr"`` (ABC's invariant,
        checked), ``"k-induction"`` (the bounded search's unrolling closed), or ``None``.
    depth:
        The depth of that closing.
    why:
        Why not, when neither proven nor settled (an invariant that failed our check, a
        reduction that failed it, ABC giving up).
    settled:
        Per value, the engine that settled it (see the module docstring).
    solver:
        The solvers' work, the rounds of ABC, the clauses of the last invariant, and the
        lean circuit's size.
    """

    found: dict[int, list[int]]
    length: int
    proof: str | None
    depth: int | None = None
    why: str | None = None
    settled: dict[int, str] = field(default_factory=dict)
    solver: dict[str, Any] = field(default_factory=dict)

    @property
    def proven(self) -> bool:
        """Whether no value above the largest one found occurs."""
        return self.proof is not None


def portfolio(automaton: GrundyAutomaton, head: str, *, settled: Callable[[int], bool],
              budget: Budget, solver: str, within: Constraint | None = None
              ) -> PortfolioResult:
    """The values of A with shortest witnesses, and a checked proof that there are no
    others above them (see the module docstring).

    Parameters
    ----------
    automaton, head:
        The automaton (of the cone of influence of A) and A.
    settled:
        Whether finding a value answers the question (the search then stops).
    budget:
        Seconds and progress (the count is the rounds of ABC).
    solver:
        The SAT solver's name (:func:`~sdg_automata.search.solvers.resolve`).
    within:
        A constraint's tables in the automaton's reading order.

    Raises
    ------
    InputError
        When ABC is missing.
    ResourceError
        When ABC fails or reports a counterexample our replay refutes.
    BudgetExceeded, Interrupted
        Saying how many rounds ran.
    """
    command = abc_command()
    meter = budget.start("PDR", unit="rounds of ABC")
    rounds, clauses = 0, None
    try:
        lean = lean_relation(automaton, head, within, meter, solver)
    except Unverified as e:
        return PortfolioResult(found={}, length=0, proof=None, why=e.why,
                               solver={"name": _name(solver), **_nothing(), **e.stats})
    # the bounded search counts letters, under the same deadline; the bar counts rounds
    letters = replace(meter.shared(), progress=None).start("PDR", unit="letters unrolled")
    bmc = BoundedSearch(lean, head, settled=settled, meter=letters, solver=solver,
                        induction=False, above=True)
    proof: str | None = None
    why = None
    conflicts, lengths, seconds = FIRST_CONFLICTS, FIRST_LENGTHS, FIRST_SECONDS
    try:
        while True:
            bmc.advance(conflicts=conflicts, lengths=lengths)
            if bmc.finished:
                proof = "k-induction" if bmc.proven else None
                break
            top = max(bmc.found, default=-1)
            rounds += 1
            meter.check(rounds)  # counts the rounds started, as Ctrl-C's message does
            outcome = prove_unreachable(lean, head, range(top + 1, lean.bound + 1), meter,
                                        command, seconds)
            clauses = outcome.clauses if outcome.clauses is not None else clauses
            if outcome.status == "proven":
                proof = "pdr"
                break
            if outcome.status == "unproven":
                why = outcome.why
                break
            if outcome.status == "reachable":
                assert outcome.depth is not None
                bmc.advance(max_length=outcome.depth)  # the shortest witness, up to its length
                if not bmc.finished and max(bmc.found, default=-1) <= top:
                    raise SdgBug(f"ABC's counterexample of {outcome.depth} letters reaches a "
                                 f"value above {top} (replayed), but the bounded search finds "
                                 "none that long")
                continue
            # a turn ran out: longer turns
            conflicts, lengths, seconds = conflicts * 2, lengths * 2, seconds * 2
        work = bmc.stats()
    except (KeyboardInterrupt, Interrupted):
        raise meter.interrupted(rounds) from None
    finally:
        bmc.close()
        lean.checker.close()
    engines: dict[int, str] = dict.fromkeys(bmc.found, "bmc")
    if proof is not None:
        engines.update(dict.fromkeys(range(max(bmc.found, default=-1) + 1, lean.bound + 1),
                                     proof))
    return PortfolioResult(
        found=dict(bmc.found), length=bmc.length, proof=proof, depth=bmc.depth, why=why,
        settled=dict(sorted(engines.items())),
        solver={"name": _name(solver), **work, "pdr_rounds": rounds,
                "invariant_clauses": clauses, **lean.stats()})


def _name(solver: str) -> str:
    return f"abc pdr {PDR_OPTIONS}, {solver}"


def _nothing() -> dict[str, Any]:
    return {"variables": 0, "clauses": 0, "conflicts": 0, "calls": 0, "pdr_rounds": 0,
            "invariant_clauses": None}
