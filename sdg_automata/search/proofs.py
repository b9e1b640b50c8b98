"""The checks of what others claim about the Step 3–4 relation, by CaDiCaL on the relation
itself.

Two things are believed only once checked here, on the *unreduced* relation
(:class:`~sdg_automata.search.circuit.StepEncoding` as clauses, one step from any
assignment of its bits), never on the circuit they were found on:

* a latch correspondence E (:mod:`sdg_automata.search.reduce`, or any reducer): it
  holds in q₀ (checked bit by bit), and one step from any state where it holds keeps
  it (:meth:`OneStep.verify`).  From such a state the relation's step is its step
  with every latch read as its representative (or constant): built here by the
  Step 3–4 gates themselves, in the solver, as an and-inverter graph would build them
  (:class:`Mirror`, structurally hashed), so a latch whose next literal is its
  representative's holds by construction and the others are asked of CaDiCaL.  The
  lean circuit (:mod:`sdg_automata.search.lean`) is instantiated next to that step,
  from the same state and letter: its next latches, values and acceptance must be
  the relation's (when it is what it claims, each pair is one literal).  So every
  reachable state keeps E, and whatever is true of the lean circuit's reachable
  states (a bounded search's "no", a k-induction, an invariant) is true of the
  relation's;
* an inductive invariant C (ABC's ``pdr``, over the lean circuit's latches and mapped
  back to the relation's bits): q₀ satisfies C (initiation), a step of the relation
  from any state satisfying E ∧ C that is not bad satisfies C (consecution, relative
  to the property as ``pdr`` assumes it), and no state satisfying E ∧ C is bad
  (safety) (:meth:`OneStep.check`).  Then E ∧ C holds in q₀ and is closed under every
  step, so it holds in every reachable state, and none of them is bad [1]_.

One :class:`OneStep` holds the CNF for both, so the relation is encoded once.

References
----------
.. [1] A. R. Bradley, "SAT-based model checking without unrolling", VMCAI 2011
   (inductive invariants relative to the property).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ..runtime.budget import Meter
from .aig import decode, tree_or
from .circuit import Frame, Gates, StepEncoding
from .reduce import Correspondence, initial_bits
from .unrolling import Unrolling

if TYPE_CHECKING:
    from .aig import AigGates

__all__ = ["Invariant", "LeanCircuit", "OneStep"]


class LeanCircuit(Protocol):
    """What :meth:`OneStep.verify` reads of a lean circuit
    (:class:`~sdg_automata.search.lean.LeanRelation`): its graph, its latches (latch k holds
    the relation's latch ``reps[k]``, complemented where q₀ has a 1), the gates of its step
    and of its outputs, its next latches, letters, values and acceptance."""

    @property
    def aig(self) -> AigGates: ...

    @property
    def latches(self) -> tuple[int, ...]: ...

    @property
    def reps(self) -> tuple[int, ...]: ...

    @property
    def step_ands(self) -> list[tuple[int, int, int]]: ...

    @property
    def out_ands(self) -> list[tuple[int, int, int]]: ...

    @property
    def next_state(self) -> tuple[int, ...]: ...

    @property
    def letters(self) -> tuple[int, ...]: ...

    @property
    def values(self) -> tuple[int, ...]: ...

    @property
    def accept(self) -> int: ...


@dataclass(frozen=True)
class Invariant:
    """An inductive invariant as the cubes it excludes: the conjunction of the negations of
    ``cubes``, each a tuple of (latch, value) over the relation's latches (the item bits,
    then the constraint's states)."""

    cubes: tuple[tuple[tuple[int, bool], ...], ...]


class OneStep:
    """One step of the unreduced relation in CaDiCaL, from any assignment of its bits: frame
    0 free (unconstrained), frame 1 its successor on any letter (built when an invariant
    is first checked).

    Parameters
    ----------
    encoding:
        The Step 3–4 relation.
    meter:
        Its clock and Ctrl-C hold inside every call.
    solver:
        The SAT solver's name.
    """

    def __init__(self, encoding: StepEncoding, meter: Meter, solver: str) -> None:
        self.encoding = encoding
        self.init = initial_bits(encoding)
        self.unrolling = Unrolling(encoding, meter, free=True, constrained=False, solver=solver,
                                   hashed=True)
        self.assumed: list[int] = []  # activation literals of the verified correspondence
        #: the relation's step from frame 0 with the verified correspondence applied (which
        #: is the step from frame 0 wherever the correspondence holds, as it is assumed)
        self.after: tuple[int, ...] | None = None

    def bits(self, t: int) -> tuple[int, ...]:
        """The literals of the latches in frame ``t`` (0 or 1)."""
        self.unrolling.extend(t)
        frame = self.unrolling.frames[t]
        return (*frame.state, *frame.within)

    def verify(self, correspondence: Correspondence, lean: LeanCircuit | None = None
               ) -> str | None:
        """Check ``correspondence`` (and the lean circuit built on it): ``None`` when it
        holds in q₀ and a step from any state where it holds keeps it (and the lean
        circuit's next latches and outputs are the relation's there), else what fails.
        Once verified, it stays assumed by :meth:`check`.

        From a state where the correspondence holds, the relation's step is the step
        taken with each latch read as its representative (or constant); that step is
        built here, in the solver, by the very gates of an and-inverter graph
        (:class:`Mirror`, structurally hashed), so that a latch whose next literal is
        its representative's (or its constant) holds by construction, and so does every
        next latch and output of a lean circuit that is what it claims (instantiated
        next to it, gate for gate).  What does not fold so is asked of the solver.
        """
        from .aig import instantiate, literal

        init = self.init
        if len(correspondence.rep) != len(init):
            return "initiation (the correspondence is not over this relation's latches)"
        pairs = list(zip(correspondence.rep, correspondence.flip, strict=True))
        for p, (r, flip) in enumerate(pairs):
            if (flip if r < 0 else init[r] != flip) != init[p]:
                return f"initiation (latch {p} differs from what it is merged with in q₀)"
        u, g = self.unrolling, self.unrolling.gates
        now = self.bits(0)
        act = g.new()
        read = []
        for p, (r, flip) in enumerate(pairs):
            x = (g.true if flip else g.false) if r < 0 else (-now[r] if flip else now[r])
            read.append(x)
            if r != p:  # assumed in frame 0
                g.clause([-act, -now[p], x])
                g.clause([-act, now[p], -x])
        mirror = Mirror(g)
        width = self.encoding.width
        start = Frame(letters=(), state=tuple(read[:width]), within=tuple(read[width:]))
        step = self.encoding.step(mirror, start)
        after = (*step.state, *step.within)
        goal = []
        for p, (r, flip) in enumerate(pairs):
            if r != p:
                want = (g.true if flip else g.false) if r < 0 else (-after[r] if flip
                                                                     else after[r])
                goal.append(g.xor(after[p], want))
        if lean is not None:  # the lean circuit from the same state, on the same letter
            known: dict[int, int] = {}
            for x, p in zip(lean.latches, lean.reps, strict=True):
                known[x] = -now[p] if init[p] else now[p]
            known.update(zip(lean.aig.inputs, mirror.inputs, strict=True))
            known = instantiate(lean.step_ands, mirror, known)
            known = instantiate(lean.out_ands, mirror, known)
            goal += [g.xor(literal(known, x), -after[p] if init[p] else after[p])
                     for x, p in zip(lean.next_state, lean.reps, strict=True)]
            goal += [g.xor(literal(known, lean.values[v]), self.encoding.value(start, v))
                     for v in range(self.encoding.bound + 1)]
            goal.append(g.xor(literal(known, lean.accept),
                              self.encoding.accepting(mirror, start)))
        goal = [x for x in goal if x != g.false]
        if goal and u.query(goal, [act]) is not None:
            g.clause([-act])
            return ("consecution (a step from a state where the merged latches agree makes "
                    "them differ" + (", or the lean circuit differs from the relation)"
                                     if lean is not None else ")"))
        self.assumed.append(act)
        self.after = tuple(after)
        return None

    def check(self, invariant: Invariant, values: Sequence[int]) -> str | None:
        """Check that the verified correspondences and ``invariant`` together are an
        inductive invariant of the unreduced relation disjoint from the states showing a
        value of ``values`` where the constraint accepts: ``None`` when they are, else the
        condition that fails (see the module docstring)."""
        init = self.init
        if any(all(init[p] == on for p, on in cube) for cube in invariant.cubes):
            return "initiation (q₀ is not in the invariant)"
        u, g = self.unrolling, self.unrolling.gates
        now = self.bits(0)
        after = self.after if self.after is not None else self.bits(1)

        def cubes(bits: tuple[int, ...]) -> list[list[int]]:
            return [[bits[p] if on else -bits[p] for p, on in cube] for cube in invariant.cubes]

        inside, good = g.new(), g.new()
        for lits in cubes(now):  # frame 0 is in the invariant
            g.clause([-inside, *(-x for x in lits)])
        bad = [u.bad(0, v) for v in values]
        for b in bad:  # consecution starts from a state that is not bad
            g.clause([-good, -b])
        try:
            left = [_conjunction(g, lits) for lits in cubes(after)]
            left = [x for x in left if x != g.false]
            if left and u.query(left, [inside, good, *self.assumed]) is not None:
                return "consecution (a step leaves the invariant)"
            if u.query(bad, [inside, *self.assumed]) is not None:
                return "safety (a state of the invariant shows a value asked about)"
        finally:
            g.clause([-inside])
            g.clause([-good])
        return None

    def close(self) -> None:
        self.unrolling.close()


class Mirror:
    """The gates of an and-inverter graph (:class:`~sdg_automata.search.aig.AigGates`: the
    same ANDs, ORs as balanced trees, letters decoded from ⌈log₂|Σ|⌉ inputs, a dead move
    of the constraint a sink) written as clauses through structurally hashed ``gates``:
    what it builds from the same literals is what the graph built, gate for gate."""

    def __init__(self, gates: Gates) -> None:
        self.gates = gates
        self.true, self.false = gates.true, gates.false
        self.and2 = gates.and2
        self.inputs: list[int] = []

    def input(self) -> int:
        x = self.gates.new()
        self.inputs.append(x)
        return x

    def or_(self, lits: Sequence[int]) -> int:
        return tree_or(self.and2, self.true, lits)

    def one_of(self, n: int) -> tuple[int, ...]:
        return decode(self.and2, self.true, self.input, n)

    def forbid(self, lits: Sequence[int]) -> None:
        """A dead move: a sink, as in the graph (nothing to add)."""


def _conjunction(g: Gates, lits: Sequence[int]) -> int:
    out = g.true
    for x in lits:
        out = g.and2(out, x)
    return out
