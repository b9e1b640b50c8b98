"""The lean transition relation: the one circuit the sat, k-induction and pdr searches share.

The Step 3–4 relation of SPEC §4 (:class:`~sdg_automata.search.circuit.StepEncoding`)
has a latch per item bit, and on the instances researchers bring (intersections of
DFAs through the reduction of SPEC §5) most of them are constant or copies of others
on every reachable state.  :func:`lean_relation` builds the circuit every solver-backed
search runs on:

1. the latch correspondence of :mod:`sdg_automata.search.reduce` (van Eijk's
   method: constants and equivalences up to complement, proven by induction);
2. checked against the *unreduced* relation by our own query
   (:meth:`~sdg_automata.search.proofs.OneStep.verify`): it holds in q₀, a step from
   any state where it holds keeps it, and the lean circuit built on it behaves there
   as the relation (next latches, values, acceptance).  A claim that fails (a wrong
   reducer) is never used: the search stops unproven, saying why;
3. the lean circuit itself: an and-inverter graph (:class:`~sdg_automata.search.aig.AigGates`:
   constants propagated, structurally equal gates merged) with one latch per
   representative (stored complemented where q₀ holds a 1, so every latch starts at
   0, as ABC's invariants need), the letter as ⌈log₂|Σ|⌉ inputs, and per value v
   the literal "the state shows A^v", with "the constraint accepts".

:class:`LeanRelation` is a :class:`~sdg_automata.search.circuit.Relation`: unrollings
instantiate its gates frame by frame.  Its reachable states are the relation's,
projected on the representatives; so a witness found on it is one of the relation's
(and is replayed through :meth:`~sdg_automata.automaton.construction.GrundyAutomaton.step`
anyway), a length at which it shows no value is one where the relation shows none,
and an invariant of it, mapped back (:meth:`LeanRelation.original`) and conjoined with
the correspondence, is checked on the unreduced relation before any "no" is exact.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..automaton.construction import GrundyAutomaton
from ..runtime.budget import Meter
from .aig import AigGates, aiger, cone, instantiate, literal
from .circuit import Circuit, Frame, Gates, StepEncoding
from .proofs import Invariant, OneStep
from .reduce import Correspondence, correspondence, initial_bits, substitute

if TYPE_CHECKING:
    from .constraint import Constraint

__all__ = ["REDUCER", "LeanRelation", "Unverified", "lean_relation"]

#: the reducer: ``REDUCER(encoding, meter, solver) -> Correspondence``, a claim checked
#: before use (tests put a wrong one here to see it caught)
REDUCER: Callable[[StepEncoding, Meter, str], Correspondence] = correspondence


class Unverified(Exception):
    """The reducer's correspondence failed our check: ``why`` says which condition."""

    def __init__(self, why: str, stats: dict[str, int]) -> None:
        self.why = why
        self.stats = stats
        super().__init__(why)


@dataclass(frozen=True, eq=False, kw_only=True)
class LeanRelation:
    """The lean circuit of one question (see the module docstring).

    Attributes
    ----------
    encoding:
        The unreduced Step 3–4 relation.
    correspondence:
        The verified correspondence the circuit is built on.
    aig:
        The graph: its latches are :attr:`latches`, its inputs the letter's bits.
    latches:
        The graph's latch variables, one per representative.
    reps:
        Latch k represents the relation's latch ``reps[k]`` (item bits, then the
        constraint's states), whose value is latch k's, complemented where q₀ holds a 1.
    next_state:
        Per latch, its next literal.
    letters:
        Per letter of Σ, the literal "this letter is read" (decoded from the inputs).
    values:
        Per value v = 0 … m_A, the literal "the state shows A^v".
    accept:
        The literal "the constraint accepts" (true without one).
    fields:
        Groups of literals of which at most one holds in a reachable state (an item
        field x B^·; the constraint's one-hot state), for k-induction's free states.
    checker:
        The one-step CNF of the unreduced relation that verified it, for the check of
        invariants (:meth:`~sdg_automata.search.proofs.OneStep.check`).
    """

    automaton: GrundyAutomaton
    within: Constraint | None
    encoding: StepEncoding
    correspondence: Correspondence
    aig: AigGates
    latches: tuple[int, ...]
    reps: tuple[int, ...]
    next_state: tuple[int, ...]
    letters: tuple[int, ...]
    values: tuple[int, ...]
    accept: int
    fields: tuple[tuple[int, ...], ...]
    checker: OneStep
    step_ands: list[tuple[int, int, int]] = field(repr=False)
    out_ands: list[tuple[int, int, int]] = field(repr=False)

    @property
    def bound(self) -> int:
        """m_A."""
        return len(self.values) - 1

    def stats(self) -> dict[str, int]:
        """The circuit's size against the unreduced relation's."""
        return {"latches": len(self.correspondence.rep), "lean_latches": len(self.latches),
                "constant_latches": self.correspondence.constants,
                "and_gates": len(self.step_ands)}

    # -- the Relation protocol, for unrollings ------------------------------------------

    def _frame(self, g: Circuit, state: Sequence[int], letters: tuple[int, ...] = ()
               ) -> Frame:
        known = instantiate(self.out_ands, g, dict(zip(self.latches, state, strict=True)))
        outputs = tuple(literal(known, x) for x in (*self.values, self.accept))
        return Frame(letters=letters, state=tuple(state), outputs=outputs)

    def initial(self, g: Circuit) -> Frame:
        """q₀: every latch 0."""
        return self._frame(g, (g.false,) * len(self.latches))

    def free(self, g: Gates, *, constrained: bool = True) -> Frame:
        """Any state; ``constrained``: at most one literal of each of :attr:`fields`."""
        state = tuple(g.new() for _ in self.latches)
        frame = self._frame(g, state)
        if constrained:
            known = dict(zip(self.latches, state, strict=True))
            known[1] = g.true
            for group in self.fields:
                g.at_most_one([literal(known, x) for x in group])
        return frame

    def step(self, g: Circuit, prev: Frame) -> Frame:
        """The next frame: one letter read from ``prev``'s state (in CNF gates: the
        letter's bits are fresh variables; codes beyond Σ read as its first letter)."""
        if not isinstance(g, Gates):  # pragma: no cover - unrollings are CNF
            raise TypeError("a lean step is unrolled in CNF gates")
        known = dict(zip(self.latches, prev.state, strict=True))
        known.update({x: g.new() for x in self.aig.inputs})
        known = instantiate(self.step_ands, g, known)
        state = tuple(literal(known, x) for x in self.next_state)
        return self._frame(g, state, tuple(literal(known, x) for x in self.letters))

    def value(self, frame: Frame, v: int) -> int:
        """The literal "the frame's state shows A^v"."""
        return frame.outputs[v]

    def accepting(self, g: Circuit, frame: Frame) -> int:
        """The literal "the constraint accepts in the frame's state"."""
        return frame.outputs[-1]

    # -- for ABC ------------------------------------------------------------------------

    def aiger(self, values: Sequence[int]) -> bytes:
        """Binary AIGER of "a state shows a value of ``values`` where the constraint
        accepts" (one output, the bad states), for ABC."""
        aig = self.aig
        bad = aig.and2(aig.or_([self.values[v] for v in values]), self.accept)
        return aiger(aig, self.next_state, [bad], ["sdg_automata: the lean relation; the "
                                                   "output: a value of "
                                                   f"{sorted(values)} where the constraint "
                                                   "accepts"])

    def original(self, cubes: Sequence[Sequence[tuple[int, bool]]]) -> Invariant:
        """Cubes over the lean latches (latch k, value) as an :class:`Invariant` over the
        relation's latches."""
        init = self.checker.init
        return Invariant(cubes=tuple(
            tuple((self.reps[k], on != init[self.reps[k]]) for k, on in cube)
            for cube in cubes))


def lean_relation(automaton: GrundyAutomaton, head: str, within: Constraint | None,
                  meter: Meter, solver: str) -> LeanRelation:
    """The lean relation of A's values (see the module docstring).

    Raises
    ------
    Unverified
        When the reducer's correspondence fails our check (it is not used).
    BudgetExceeded, Interrupted
        From the meter.
    """
    encoding = StepEncoding(automaton, head, within)
    checker = OneStep(encoding, meter, solver)
    try:
        claim = REDUCER(encoding, meter, solver)
        lean = _build(encoding, claim, checker)
        why = checker.verify(claim, lean)
    except BaseException:  # the budget, Ctrl-C: the solver goes with the run
        checker.close()
        raise
    if why is not None:
        checker.close()
        raise Unverified(f"the circuit reduction fails our check of {why}",
                         {"latches": len(claim.rep),
                          "lean_latches": len(claim.representatives)})
    return lean


def _build(encoding: StepEncoding, claim: Correspondence, checker: OneStep) -> LeanRelation:
    """The lean circuit on ``claim`` (to be verified)."""
    init = initial_bits(encoding)
    step = substitute(encoding, claim)
    aig = step.aig
    reps = tuple(sorted(step.latches))
    # latch k holds latch reps[k]'s value complemented where q₀ has a 1: all start at 0
    normal = {step.latches[p]: -step.latches[p] if init[p] else step.latches[p] for p in reps}
    next_state = tuple(-step.after[p] if init[p] else step.after[p] for p in reps)
    aig, renamed = _renormalized(aig, normal)
    latches = tuple(abs(renamed(step.latches[p])) for p in reps)
    next_state = tuple(renamed(x) for x in next_state)
    values = tuple(renamed(encoding.value(step.start, v)) for v in range(encoding.bound + 1))
    accept = encoding.accepting(aig, _renamed_frame(step.start, renamed))
    letters = tuple(renamed(x) for x in step.frame.letters)
    fields = tuple(tuple(renamed(step.now[p]) for p in group) for group in _fields(encoding))
    return LeanRelation(
        automaton=encoding.automaton, within=encoding.within, encoding=encoding,
        correspondence=claim, aig=aig, latches=latches, reps=reps, next_state=next_state,
        letters=letters, values=values, accept=accept, fields=fields, checker=checker,
        step_ands=cone(aig, (*next_state, *letters)), out_ands=cone(aig, (*values, accept)))


def _renamed_frame(frame: Frame, renamed: Callable[[int], int]) -> Frame:
    return Frame(letters=(), state=tuple(renamed(x) for x in frame.state),
                 within=tuple(renamed(x) for x in frame.within))


def _renormalized(aig: AigGates, normal: dict[int, int]) -> tuple[AigGates, Callable[[int], int]]:
    """``aig`` rebuilt with each latch x meaning ``normal[x]`` of the old one (its
    complement where q₀ holds a 1), and the map of old literals to new ones."""
    out = AigGates()
    new: dict[int, int] = {1: out.true}
    for x in aig.inputs:
        new[x] = out.input()
    for x in aig.latches:
        y = out.latch()
        new[x] = -y if normal[x] < 0 else y  # old x = new y complemented where flipped

    def lit(x: int) -> int:
        return new[x] if x > 0 else -new[-x]

    for y, a, b in aig.ands:
        new[y] = out.and2(lit(a), lit(b))
    return out, lit


def _fields(encoding: StepEncoding) -> list[list[int]]:
    """The relation's latches in groups of which at most one holds in a reachable state:
    the item fields (:meth:`~sdg_automata.search.circuit.StepEncoding.fields`), and the
    constraint's states (one-hot, or none after a dead move)."""
    out = [list(range(start, end)) for start, end in encoding.fields() if end - start > 1]
    if encoding.within is not None:
        out.append(list(range(encoding.width, encoding.width + encoding.within.size)))
    return out
