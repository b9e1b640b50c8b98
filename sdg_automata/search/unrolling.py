"""An unrolling of a transition relation in one incremental SAT solver.

Bounded model checking (:mod:`sdg_automata.search.bmc`), the checks of a circuit
reduction (:mod:`sdg_automata.search.lean`) and of an invariant
(:mod:`sdg_automata.search.pdr`) all ask one solver about frames 0 … n of a
:class:`~sdg_automata.search.circuit.Relation`, from q₀ or from a free state (the step
case of k-induction, a consecution check).  :class:`Unrolling` holds them: the
frames as :class:`~sdg_automata.search.circuit.Gates` on an
:class:`~pysat.formula.IDPool`, per-query goals switched on by activation literals
(pysat has no push and pop, [1]_), and simple-path constraints added lazily, for the
pair of equal states a model shows (as pono does, [2]_).  Every call goes through
:class:`~sdg_automata.search.solvers.Budgeted`: the clock and Ctrl-C hold inside it.

References
----------
.. [1] N. Eén, N. Sörensson, "Temporal induction by incremental SAT solving", BMC 2003.
.. [2] M. Mann et al., "Pono: a flexible and extensible SMT-based model checker",
   CAV 2021 (``engines/kinduction.cpp``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..errors import SdgBug
from ..runtime.budget import Meter
from .circuit import Gates, Relation
from .solvers import Budgeted

__all__ = ["Unrolling", "holds"]


class Unrolling:
    """An incremental solver holding frames 0 … n of an unrolling of ``relation`` (from q₀,
    or from a free state).

    Parameters
    ----------
    relation:
        The relation unrolled.
    meter:
        Its clock and Ctrl-C are served inside every call.
    free:
        Frame 0 is any state (``False``: q₀).
    constrained:
        A free frame 0 keeps the invariant of reachable states the relation knows
        (``False``: any assignment of its bits, for checking what someone else found).
    solver:
        The SAT solver's name (:func:`~sdg_automata.search.solvers.resolve`).
    hashed:
        Structurally hash the AND gates (:class:`~sdg_automata.search.circuit.Gates`).
    """

    def __init__(self, relation: Relation, meter: Meter, *, free: bool,
                 constrained: bool = True, solver: str, hashed: bool = False) -> None:
        from pysat.formula import IDPool

        self.solver = Budgeted(solver, meter)
        self.gates = Gates(IDPool(), self.solver.add_clause, hashed=hashed)
        self.relation = relation
        self.meter = meter
        self.frames = [relation.free(self.gates, constrained=constrained) if free
                       else relation.initial(self.gates)]
        self.accepting = [relation.accepting(self.gates, self.frames[0])]
        #: the first frame holding each fully constant state, and the first frame that
        #: repeats an earlier one (every path is then forced through a loop)
        self.constant: dict[tuple[int, ...], int] = {}
        self.repeat: int | None = None
        self.free = free
        self._note_constant()

    def extend(self, length: int) -> None:
        """Unroll up to frame ``length``."""
        while len(self.frames) <= length:
            self.meter.check(self.meter.count)
            frame = self.relation.step(self.gates, self.frames[-1])
            self.frames.append(frame)
            self.accepting.append(self.relation.accepting(self.gates, frame))
            self._note_constant()

    def _note_constant(self) -> None:
        if self.free or self.repeat is not None:  # only q₀'s unrolling looks for a repeat
            return
        frame, t = self.frames[-1], len(self.frames) - 1
        lits = (*frame.state, *frame.within)
        true = self.gates.true
        if all(x in (true, -true) for x in lits) and self.constant.setdefault(lits, t) != t:
            self.repeat = t

    def effort(self) -> int:
        """The solver's propagations so far (deterministic, unlike its time)."""
        return self.solver.effort()

    def bad(self, t: int, v: int) -> int:
        """The literal "frame t shows value v where the constraint accepts"."""
        return self.gates.and2(self.relation.value(self.frames[t], v), self.accepting[t])

    def solve(self, assumptions: Sequence[int]) -> list[int] | None:
        """A model under ``assumptions``, or ``None`` when there is none."""
        model = self.solver.solve(assumptions)
        if model is False:  # pragma: no cover - no conflict limit was given
            raise SdgBug("a solver call without a conflict limit stopped at one")
        return model

    def query(self, goal: Iterable[int], assumptions: Sequence[int] = (),
              simple: int | None = None) -> list[int] | None:
        """A model in which some literal of ``goal`` holds, under ``assumptions`` (and with
        frames 0 … ``simple`` pairwise distinct, when given), or ``None``.  The goal is
        switched on by a fresh activation literal, retired after the call (a lazy ``goal``
        makes its gates after that literal)."""
        g = self.gates
        act = g.new()
        g.clause([-act, *goal])
        model = (self.solve([act, *assumptions]) if simple is None
                 else self.solve_simple([act, *assumptions], simple))
        g.clause([-act])  # retired
        return model

    def solve_simple(self, assumptions: list[int], k: int) -> list[int] | None:
        """A model under ``assumptions`` whose frames 0 … k hold pairwise distinct states,
        or ``None``.  Distinctness is added lazily, for the first pair of equal states a
        model shows, and stays: every later query is about simple paths too."""
        g = self.gates
        while True:
            model = self.solve(assumptions)
            if model is None:
                return None
            seen: dict[tuple[bool, ...], int] = {}
            for j, frame in enumerate(self.frames[:k + 1]):
                s = tuple(holds(model, x) for x in (*frame.state, *frame.within))
                i = seen.setdefault(s, j)
                if i != j:
                    break
            else:
                return model
            a = self.frames[i]
            differ = [g.xor(x, y) for x, y in zip((*a.state, *a.within),
                                                 (*frame.state, *frame.within), strict=True)]
            if all(d == g.false for d in differ):
                return None  # equal in every model: no simple path this long
            g.clause(differ)

    def letters(self, model: list[int], length: int) -> list[int]:
        """The letters (indices into Σ) a model reads in frames 1 … ``length``."""
        return [next(c for c, x in enumerate(frame.letters) if holds(model, x))
                for frame in self.frames[1:length + 1]]

    def stats(self) -> dict[str, int]:
        """Variables, clauses, conflicts and calls of the solver."""
        solver = self.solver.solver
        return {"variables": solver.nof_vars(), "clauses": solver.nof_clauses(),
                "conflicts": self.solver.stats().get("conflicts", 0),
                "calls": self.solver.calls}

    def close(self) -> None:
        self.solver.delete()


def holds(model: Sequence[int], lit: int) -> bool:
    """The truth of ``lit`` in ``model`` (variables the solver never saw are false)."""
    i = abs(lit) - 1
    value = model[i] > 0 if i < len(model) else False
    return value if lit > 0 else not value
