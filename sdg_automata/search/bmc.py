"""Max-Grundy by bounded model checking: the lean Step 3–4 relation in CNF, solved by CaDiCaL.

Explicit search stores every state it reaches; the hardness family of SPEC §5
(an intersection of many DFAs) has products far beyond any memory long before
a witness is far away.  Bounded model checking [1]_ asks a SAT solver instead:
"is there a word of length ℓ whose state after reading it holds A^v?", for
ℓ = 1, 2, …, L.

The encoding
------------
One **frame** per letter position: the letter read (⌈log₂|Σ|⌉ variables, decoded)
and a literal per latch of the lean relation (:mod:`sdg_automata.search.lean`: the
Step 3–4 relation of :mod:`sdg_automata.search.circuit` with its constant and
equivalent latches removed, checked against the unreduced relation first), the
state after the frame being its next-state gates instantiated as Tseitin clauses
with constant folding.  Witnesses are given back in the user's order; a ``within``
constraint is part of the state.

The search
----------
One incremental CaDiCaL solver holds the unrolling.  At length ℓ one query
asks for any value not found yet (in the portfolio, any value above the largest
found: the question is the maximum), through an activation literal [2]_; a model
gives a word, the value it shows is recorded with it, and the query is asked
again for the rest.  The first length at which a value appears is the length
of its shortest witness.  An unsatisfiable query leaves its negation as
permanent unit facts (no such value at length ℓ), retired activation
literals as units.

A found witness is an exact "yes" (replayed through
:meth:`~sdg_automata.automaton.construction.GrundyAutomaton.step` before it is
reported).  Nothing found up to L is not a "no": the result then says how far
it looked.  **k-induction** [3]_ turns the bounded "no" into a proof, by
either of its two closing conditions at a depth k, once the bounded search
has covered the lengths 0 … k − 1:

* no path from q₀ of k letters visits pairwise distinct states: every
  reachable state was met at a shorter length (for a one-letter alphabet the
  unrolling folds to constants, and this is the lasso closing);
* the step case, for U the values above the largest one found: no path
  s₀ … s_k of pairwise distinct states (s₀ arbitrary) whose first k states
  show no value of U ends in a state that shows one.  A second solver holds
  that free-start unrolling of the lean circuit (whose latch correspondence,
  checked to hold on every reachable state, is built in), and s₀ is restricted
  by an invariant of every reachable state: each item field x B^· holds at most
  one value, the constraint at most one state.

Simple-path constraints are added lazily, only for the pair of equal states a
model shows (as pono does, [4]_); those of the first condition stay in the
bounded search's solver, which is sound because a shortest witness never
visits a state twice.  Depths are tried one by one up to
:data:`EVERY_DEPTH`, then growing by :data:`INDUCTION_RATIO` (with simple
paths both conditions hold at every depth beyond one where they hold, so no
proof is lost), and the step case only while its solver has not spent
:data:`STEP_ALLOWANCE` propagations more than the bounded search.

Budgets hold inside the solver (:class:`~sdg_automata.search.solvers.Budgeted`): every
call runs in slices with the clock, the progress callback and Ctrl-C served between
them, on the solver ``--solver`` names (CaDiCaL 1.9.5 by default).  The search is
resumable (:class:`BoundedSearch`): the portfolio of :mod:`sdg_automata.search.portfolio`
gives it conflicts in turns with PDR.

References
----------
.. [1] A. Biere, A. Cimatti, E. Clarke, Y. Zhu, "Symbolic model checking
   without BDDs", TACAS 1999.
.. [2] N. Eén, N. Sörensson, "Temporal induction by incremental SAT
   solving", BMC 2003 (assumptions and incremental unrolling).
.. [3] M. Sheeran, S. Singh, G. Stålmarck, "Checking safety properties using
   induction and a SAT-solver", FMCAD 2000 (k-induction with simple paths).
.. [4] M. Mann et al., "Pono: a flexible and extensible SMT-based model
   checker", CAV 2021 (``engines/kinduction.cpp``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..automaton.construction import GrundyAutomaton
from ..errors import SdgBug
from ..runtime.budget import Meter
from .circuit import Relation
from .unrolling import Unrolling, holds

if TYPE_CHECKING:
    from .constraint import Constraint

__all__ = ["BoundedSearch", "replay", "shows"]

#: k-induction is tried at every depth up to EVERY_DEPTH, then at depths growing by this
#: ratio: its step case holds at every depth beyond one where it holds (with simple paths),
#: so a skipped depth loses no proof, and the attempts cost a constant factor over the last
INDUCTION_RATIO = 1.25
EVERY_DEPTH = 8
#: the free-start (step case) solver may spend this many propagations more than the bounded
#: search has spent (CaDiCaL's counts, so the schedule is the same on every machine and run)
STEP_ALLOWANCE = 2_000_000


# ---------------------------------------------------------------------------
# the search


class BoundedSearch:
    """Incremental bounded model checking of ``relation``, resumable, with k-induction.

    Parameters
    ----------
    relation:
        The relation unrolled (the lean relation of A's values).
    head:
        A (for the replay of witnesses).
    settled:
        Whether finding a value answers the question (the search then ends).
    meter:
        Seconds and progress (the count is the length being searched).
    solver:
        The SAT solver's name.
    induction:
        Try to prove by k-induction that nothing more is found (off in the portfolio,
        where PDR proves; the unrolling's own closing, a repeated constant state, stays).
    above:
        Look only for values above the largest one found (the portfolio: the question
        is the maximum), instead of every value not found.
    """

    def __init__(self, relation: Relation, head: str, *, settled: Callable[[int], bool],
                 meter: Meter, solver: str, induction: bool = True, above: bool = False
                 ) -> None:
        self.relation = relation
        self.head = head
        self.settled = settled
        self.meter = meter
        self.solver = solver
        self.induction = induction
        self.above = above
        self.bound = relation.bound
        self.base = Unrolling(relation, meter, free=False, solver=solver)
        self.step: _Induction | None = None
        #: per value found, the letters of a shortest word showing it (indices into Σ)
        self.found: dict[int, list[int]] = {}
        #: every word up to this length was considered for every value looked for (the
        #: last one until a value there settled the question)
        self.length = 0
        #: the k of a proof that nothing more occurs (k-induction, or the unrolling closed)
        self.depth: int | None = None
        self.finished = False
        self._attempt = 0  # the next depth tried once every depth is no longer tried
        self._query: tuple[int, dict[int, int], list[int]] | None = None  # a paused query

    @property
    def proven(self) -> bool:
        """Whether nothing above the largest value found occurs (``depth`` says how)."""
        return self.depth is not None

    def wanted(self, v: int) -> bool:
        """Whether the search still looks for value ``v``."""
        return v not in self.found and (not self.above or v > max(self.found, default=-1))

    def advance(self, *, max_length: int | None = None, conflicts: int | None = None,
                lengths: int | None = None) -> None:
        """Search on until settled or proven (:attr:`finished`), every length up to
        ``max_length`` covered, ``lengths`` more lengths covered, or about ``conflicts``
        conflicts spent (a query then pauses, and the next call resumes it)."""
        base = self.base
        start = base.solver.stats().get("conflicts", 0)
        if lengths is not None:
            max_length = min(self.length + lengths, max_length or self.length + lengths)
        while not self.finished:
            length = self.length + 1
            if self._query is None:
                if max_length is not None and self.length >= max_length:
                    return
                self.meter.check(length)  # the clock, progress and memory
                base.extend(length)
                if base.repeat == length:
                    # every word of this length runs through one state twice: no simple path
                    # from q₀ this long, so every reachable state was seen at a shorter length
                    self.depth, self.finished = length, True
                    return
            left = None
            if conflicts is not None:
                left = conflicts - (base.solver.stats().get("conflicts", 0) - start)
                if left <= 0:
                    return
            ended = self._search_length(length, left)
            if ended is None:
                return  # paused
            self.length = length  # settled there: nothing else matters at that length
            if ended:
                self.finished = True
                return
            if self.induction and self._induce(length + 1):
                self.depth, self.finished = length + 1, True

    def _search_length(self, length: int, conflicts: int | None) -> bool | None:
        """Find the values looked for that a word of exactly ``length`` letters shows:
        ``True`` when one settles the question, ``False`` when the length is covered,
        ``None`` when ``conflicts`` ran out first."""
        base = self.base
        g = base.gates
        while True:
            if self._query is None:
                bad = {v: base.bad(length, v) for v in range(self.bound + 1) if self.wanted(v)}
                goal = [b for b in bad.values() if b != g.false]
                if not goal:
                    return False
                act = g.new()
                g.clause([-act, *goal])
                self._query = (act, bad, goal)
            act, bad, goal = self._query
            model = base.solver.solve([act], conflicts=conflicts)
            if model is False:
                return None
            self._query = None
            g.clause([-act])  # retired
            if model is None:
                for b in goal:  # none of them at this length: permanent facts
                    g.clause([-b])
                return False
            shown = [v for v, b in bad.items() if holds(model, b)]
            if len(shown) != 1:
                raise SdgBug(f"SAT model shows values {shown} of one nonterminal at once")
            v = shown[0]
            read = base.letters(model, length)
            replay(self.relation.automaton, self.head, self.relation.within, read, v)
            self.found[v] = read
            if self.settled(v):
                return True

    def _induce(self, k: int) -> bool:
        """k-induction at depth k, the lengths 0 … k − 1 covered (see the module
        docstring), on the schedule of :data:`EVERY_DEPTH` and :data:`INDUCTION_RATIO`."""
        if not (k <= EVERY_DEPTH or k >= self._attempt):
            return False
        self._attempt = max(k + 1, math.ceil(k * INDUCTION_RATIO))
        base = self.base
        base.extend(k)
        if base.solve_simple([], k) is None:
            return True  # no simple path from q₀ of k letters
        self.step = self.step or _Induction(self.relation, self.meter, self.bound, self.solver)
        return (self.step.unrolling.effort() <= base.effort() + STEP_ALLOWANCE
                and self.step.holds(k, range(max(self.found, default=-1) + 1, self.bound + 1)))

    def stats(self) -> dict[str, Any]:
        """Variables, clauses, conflicts and calls of the solvers, summed."""
        stats = self.base.stats()
        if self.step is not None:
            for key, n in self.step.unrolling.stats().items():
                stats[key] += n
        return stats

    def close(self) -> None:
        """Delete the solvers (a solver left by Ctrl-C answers nothing more, but deletes)."""
        self.base.close()
        if self.step is not None:
            self.step.unrolling.close()


class _Induction:
    """The step case of k-induction on a free-start unrolling (see the module docstring).

    ``hypotheses[v]`` switches on "no frame before the last shows v"; a query
    assumes it for the values asked about, so the set may shrink as values are
    found.  The simple-path constraints stay: they hold at every depth.
    """

    def __init__(self, relation: Relation, meter: Meter, bound: int, solver: str) -> None:
        self.unrolling = Unrolling(relation, meter, free=True, solver=solver)
        self.hypotheses = [self.unrolling.gates.new() for _ in range(bound + 1)]
        self.assumed = 0  # frames 0 … assumed − 1 carry the hypotheses

    def holds(self, k: int, values: range) -> bool:
        """Whether every path s₀ … s_k of pairwise distinct states (s₀ arbitrary) whose
        first k states show no value of ``values`` ends in a state that shows none."""
        if not values:
            return True
        step, hypotheses = self.unrolling, self.hypotheses
        g = step.gates
        step.extend(k)
        for t in range(self.assumed, k):
            for v, h in enumerate(hypotheses):
                g.clause([-h, -step.bad(t, v)])
        self.assumed = k
        return step.query((step.bad(k, v) for v in values), [hypotheses[v] for v in values],
                          simple=k) is None


def replay(automaton: GrundyAutomaton, head: str, within: Constraint | None,
           read: list[int], v: int) -> None:
    """Check a witness against :meth:`GrundyAutomaton.step` and the constraint's tables:
    :class:`~sdg_automata.errors.SdgBug` unless it shows ``v`` where the constraint
    accepts."""
    if not shows(automaton, head, within, read, v):
        raise SdgBug(f"SAT witness {read} does not replay to value {v}")


def shows(automaton: GrundyAutomaton, head: str, within: Constraint | None,
          read: list[int], v: int) -> bool:
    """Whether the letters ``read`` (indices into Σ) lead, by
    :meth:`GrundyAutomaton.step`, to a state showing A^v where the constraint accepts."""
    alphabet = automaton.alphabet
    ok = automaton.grundy_at(automaton.run(alphabet[c] for c in read), head) == v
    if within is not None:
        d = within.initial
        for c in read:
            d = within.rows[alphabet[c]][d] if d >= 0 else -1
        ok = ok and d >= 0 and within.final[d] == 1
    return ok
