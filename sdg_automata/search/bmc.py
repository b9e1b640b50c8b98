"""Max-Grundy by bounded model checking: the Step 3–4 relation in CNF, solved by CaDiCaL.

Explicit search stores every state it reaches; the hardness family of SPEC §5
(an intersection of many DFAs) has products far beyond any memory long before
a witness is far away.  Bounded model checking [1]_ asks a SAT solver instead:
"is there a word of length ℓ whose state after reading it holds A^v?", for
ℓ = 1, 2, …, L.

The encoding
------------
One **frame** per letter position: a variable per letter of Σ (exactly one
true) and a literal per item bit of the state, the state after the frame
being δ(q, a) of Steps 3–4 as Tseitin gates with constant folding
(:mod:`sdg_automata.search.circuit`: :class:`StepEncoding` over
:class:`Gates`).  Witnesses are given back in the user's order; a ``within``
constraint is a one-hot product component.

The search
----------
One incremental CaDiCaL solver holds the unrolling.  At length ℓ one query
asks for any value not found yet, through an activation literal [2]_; a model
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
  that free-start unrolling, and s₀ is restricted by an invariant of every
  reachable state: each item field x B^· holds at most one value.

Simple-path constraints are added lazily, only for the pair of equal states a
model shows (as pono does, [4]_); those of the first condition stay in the
bounded search's solver, which is sound because a shortest witness never
visits a state twice.  Depths are tried one by one up to
:data:`EVERY_DEPTH`, then growing by :data:`INDUCTION_RATIO` (with simple
paths both conditions hold at every depth beyond one where they hold, so no
proof is lost), and the step case only while its solver has not spent
:data:`STEP_ALLOWANCE` propagations more than the bounded search.

Budgets hold inside the solver: python-sat's CaDiCaL has no ``interrupt()``,
so every call runs in slices of conflicts and decisions (``conf_budget``,
``dec_budget``, ``solve_limited``) with the clock, the progress callback and
Ctrl-C served between them.  Under a time limit the slices are sized to about
:data:`SLICE_SECONDS` at the rates measured; without one, to about
:data:`SLICE_PROPAGATIONS` propagations, so that the models, hence the
witnesses, do not depend on the machine's speed.  Ctrl-C (and SIGTERM, and a
budget's alarm) is held at the operating system's level during a slice
(:func:`~sdg_automata.runtime.stopping.held_signals` with ``block=True``) and raised
as it returns: pysat's own SIGINT handler would ``longjmp`` out of CaDiCaL
mid-search.

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
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..automaton.construction import GrundyAutomaton
from ..errors import InputError, SdgBug
from ..runtime.budget import Budget, Meter
from ..runtime.stopping import held_signals
from .circuit import Gates, StepEncoding

if TYPE_CHECKING:
    from .constraint import Constraint

__all__ = ["SOLVER", "BmcResult", "bounded_search", "require_sat"]

#: the CaDiCaL of python-sat used for every query (CaDiCaL 1.9.5)
SOLVER = "cadical195"
#: the install command named when python-sat is missing
INSTALL_HINT = 'pip install "sdg_automata[sat]"'
#: conflicts in the first slice of a solver call (and 20 times as many decisions); slices
#: then adapt to about SLICE_SECONDS at the rates measured under a time limit, and to about
#: SLICE_PROPAGATIONS without one (a few seconds: CaDiCaL propagates 3–10 M literals a second
#: on the planted intersections of bench_sat; smaller slices cost: at 10⁶ propagations 24
#: planted DFAs took 25 s of CPU instead of 15, as CaDiCaL resumes a sliced call slowly)
FIRST_SLICE = 2_000
SLICE_SECONDS = 0.25
SLICE_PROPAGATIONS = 20_000_000
#: k-induction is tried at every depth up to EVERY_DEPTH, then at depths growing by this
#: ratio: its step case holds at every depth beyond one where it holds (with simple paths),
#: so a skipped depth loses no proof, and the attempts cost a constant factor over the last
INDUCTION_RATIO = 1.25
EVERY_DEPTH = 8
#: the free-start (step case) solver may spend this many propagations more than the bounded
#: search has spent (CaDiCaL's counts, so the schedule is the same on every machine and run)
STEP_ALLOWANCE = 2_000_000


def require_sat() -> None:
    """Raise :class:`~sdg_automata.errors.InputError` naming the extra unless python-sat
    (with CaDiCaL) can be imported."""
    try:
        from pysat.solvers import SolverNames
    except ImportError as e:
        raise InputError(f"the SAT strategy needs python-sat ({e}): {INSTALL_HINT}") from None
    if SOLVER not in SolverNames.cadical195:  # pragma: no cover - an old python-sat
        raise InputError(f"the SAT strategy needs python-sat with CaDiCaL 1.9.5: {INSTALL_HINT}")


# ---------------------------------------------------------------------------
# one solver and its unrolling


class _Unrolling:
    """An incremental CaDiCaL solver holding frames 0 … n of an unrolling (from q₀, or
    from a free state for the step case of k-induction).

    Every call runs in slices with the meter checked between them (see the module
    docstring).
    """

    def __init__(self, encoding: StepEncoding, meter: Meter, *, free: bool,
                 constrained: bool = True) -> None:
        from pysat.formula import IDPool
        from pysat.solvers import Solver

        self.solver = Solver(name=SOLVER)
        self.gates = Gates(IDPool(), self.solver.add_clause)
        self.encoding = encoding
        self.meter = meter
        self.frames = [encoding.free(self.gates, constrained=constrained) if free
                       else encoding.initial(self.gates)]
        self.accepting = [encoding.accepting(self.gates, self.frames[0])]
        self.slice = FIRST_SLICE
        self.decisions = FIRST_SLICE * 20
        self.calls = 0
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
            frame = self.encoding.step(self.gates, self.frames[-1])
            self.frames.append(frame)
            self.accepting.append(self.encoding.accepting(self.gates, frame))
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
        return int(self.solver.accum_stats().get("propagations", 0))

    def bad(self, t: int, v: int) -> int:
        """The literal "frame t shows value v where the constraint accepts"."""
        return self.gates.and2(self.encoding.value(self.frames[t], v), self.accepting[t])

    def solve(self, assumptions: list[int]) -> list[int] | None:
        """A model under ``assumptions``, or ``None`` when there is none."""
        solver, meter = self.solver, self.meter
        self.calls += 1
        # slices measured by the clock end where the machine's speed says, so without a
        # deadline they are measured by the solver's own work: the same models anywhere
        timed = meter.budget.max_seconds is not None
        while True:
            meter.check(meter.count)  # the clock and progress, between slices
            solver.conf_budget(self.slice)
            solver.dec_budget(self.decisions)
            before, started = solver.accum_stats(), time.perf_counter()
            try:
                with held_signals(block=True):
                    status = solver.solve_limited(assumptions=assumptions)
            except KeyboardInterrupt:
                raise
            except Exception as e:  # pysat's own Ctrl-C error, where it cannot be held
                if "keyboard interrupt" in str(e).lower():
                    raise KeyboardInterrupt from None
                raise
            # the next slice: one slice's worth at this one's rates (either limit may end it)
            after = solver.accum_stats()
            spent, target = ((time.perf_counter() - started, SLICE_SECONDS) if timed else
                             (after["propagations"] - before["propagations"],
                              SLICE_PROPAGATIONS))
            self.slice = _rate(after, before, "conflicts", spent, target, self.slice, 100,
                               1 << 24)
            self.decisions = _rate(after, before, "decisions", spent, target, self.decisions,
                                   1000, 1 << 28)
            if status is not None:
                return list(solver.get_model()) if status else None

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

    def conflicts(self) -> int:
        return int(self.solver.accum_stats().get("conflicts", 0))

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
                s = tuple(_holds(model, x) for x in (*frame.state, *frame.within))
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
        return [next(c for c, x in enumerate(frame.letters) if _holds(model, x))
                for frame in self.frames[1:length + 1]]

    def stats(self) -> dict[str, int]:
        return {"variables": self.solver.nof_vars(), "clauses": self.solver.nof_clauses(),
                "conflicts": self.conflicts(),
                "calls": self.calls}

    def close(self) -> None:
        self.solver.delete()


def _holds(model: list[int], lit: int) -> bool:
    """The truth of ``lit`` in ``model`` (variables the solver never saw are false)."""
    i = abs(lit) - 1
    value = model[i] > 0 if i < len(model) else False
    return value if lit > 0 else not value


# ---------------------------------------------------------------------------
# the search


@dataclass(frozen=True, kw_only=True)
class BmcResult:
    """What :func:`bounded_search` found.

    Attributes
    ----------
    found:
        Per value found, the letters of a shortest word showing it (indices into
        Σ, in the automaton's reading order).
    length:
        The longest length the bounded search covered: every word up to it was
        considered for every value not found.
    proven:
        ``True`` when k-induction showed that no value above the largest one
        found occurs at any length.
    depth:
        The k of that induction.
    solver:
        Variables, clauses, conflicts and calls of the solvers, summed.
    """

    found: dict[int, list[int]]
    length: int
    proven: bool
    depth: int | None = None
    solver: dict[str, Any] = field(default_factory=dict)


def bounded_search(
    automaton: GrundyAutomaton,
    head: str,
    *,
    settled: Callable[[int], bool],
    budget: Budget,
    max_length: int | None = None,
    within: Constraint | None = None,
    induction: bool = True,
) -> BmcResult:
    """Shortest witnesses for the values of A by incremental BMC, and k-induction.

    Parameters
    ----------
    automaton, head:
        The automaton (of the cone of influence of A) and A.
    settled:
        Whether finding a value answers the question (it then stops).
    budget:
        Seconds and progress (the count is the length being searched).
    max_length:
        Search words up to this length; ``None``: until settled or proven.
    within:
        A constraint's tables in the automaton's reading order.
    induction:
        Try to prove by k-induction that nothing more is found (the pdr strategy,
        which proves otherwise, turns it off).

    Raises
    ------
    BudgetExceeded, Interrupted
        Saying how long the words searched were.
    """
    require_sat()
    encoding = StepEncoding(automaton, head, within)
    bound = len(encoding.value_bits) - 1
    meter = budget.start("SAT search", unit="letters unrolled")
    base = _Unrolling(encoding, meter, free=False)
    step: _Induction | None = None
    found: dict[int, list[int]] = {}
    length = 0
    depth = None
    attempt = 0  # the next depth tried once every depth is no longer tried
    try:
        while max_length is None or length < max_length:
            length += 1
            meter.check(length)  # the clock, progress and (every MEMORY_TICK) memory
            base.extend(length)
            if base.repeat == length:
                # every word of this length runs through one state twice: no simple path
                # from q₀ this long, so every reachable state was seen at a shorter length
                depth, length = length, length - 1
                break
            if _search_length(base, length, bound, found, settled):
                break
            # k-induction at k = length + 1: the bounded search has covered 0 … length
            k = length + 1
            if induction and (k <= EVERY_DEPTH or k >= attempt):
                attempt = max(k + 1, math.ceil(k * INDUCTION_RATIO))
                base.extend(k)
                if base.solve_simple([], k) is None:
                    depth = k  # no simple path from q₀ of k letters
                    break
                step = step or _Induction(encoding, meter, bound)
                if (step.unrolling.effort() <= base.effort() + STEP_ALLOWANCE
                        and step.holds(k, range(max(found, default=-1) + 1, bound + 1))):
                    depth = k
                    break
        stats = base.stats()
        if step is not None:
            for key, n in step.unrolling.stats().items():
                stats[key] += n
    except KeyboardInterrupt:
        raise meter.interrupted(length) from None
    finally:  # a solver left by Ctrl-C answers nothing more (CaDiCaL aborts), but deletes
        base.close()
        if step is not None:
            step.unrolling.close()
    for v, read in found.items():
        _replay(automaton, head, encoding.within, read, v)
    return BmcResult(found=found, length=length, proven=depth is not None, depth=depth,
                     solver={"name": SOLVER, **stats})


def _search_length(base: _Unrolling, length: int, bound: int, found: dict[int, list[int]],
                   settled: Callable[[int], bool]) -> bool:
    """Find every value 0 … ``bound`` not found yet that a word of exactly ``length``
    letters shows; ``True`` when one settles the question."""
    g = base.gates
    while len(found) <= bound:
        bad = {v: base.bad(length, v) for v in range(bound + 1) if v not in found}
        goal = [b for b in bad.values() if b != g.false]
        if not goal:
            return False
        model = base.query(goal)
        if model is None:
            for b in goal:  # none of them at this length: permanent facts
                g.clause([-b])
            return False
        shown = [v for v, b in bad.items() if _holds(model, b)]
        if len(shown) != 1:
            raise SdgBug(f"SAT model shows values {shown} of one nonterminal at once")
        v = shown[0]
        found[v] = base.letters(model, length)
        if settled(v):
            return True
    return False


def _rate(after: dict[str, int], before: dict[str, int], what: str, spent: float,
          target: float, last: int, floor: int, cap: int) -> int:
    """A slice of ``what`` (conflicts, decisions) worth ``target`` of what the last slice
    ``spent`` (seconds, or propagations), ``last`` when that slice used too few to measure
    (fewer than ``floor``)."""
    used = after.get(what, 0) - before.get(what, 0)
    if used < floor or spent <= 0:
        return last
    return max(floor, min(int(used / spent * target), cap))


class _Induction:
    """The step case of k-induction on a free-start unrolling (see the module docstring).

    ``hypotheses[v]`` switches on "no frame before the last shows v"; a query
    assumes it for the values asked about, so the set may shrink as values are
    found.  The simple-path constraints stay: they hold at every depth.
    """

    def __init__(self, encoding: StepEncoding, meter: Meter, bound: int) -> None:
        self.unrolling = _Unrolling(encoding, meter, free=True)
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


def _replay(automaton: GrundyAutomaton, head: str, within: Constraint | None, read: list[int],
            v: int) -> None:
    """Check a witness against :meth:`GrundyAutomaton.step` and the constraint's tables."""
    alphabet = automaton.alphabet
    ok = automaton.grundy_at(automaton.run(alphabet[c] for c in read), head) == v
    if within is not None:
        d = within.initial
        for c in read:
            d = within.rows[alphabet[c]][d] if d >= 0 else -1
        ok = ok and d >= 0 and within.final[d] == 1
    if not ok:
        raise SdgBug(f"SAT witness {read} does not replay to value {v}")
