"""Max-Grundy proofs by property-directed reachability: ABC's ``pdr`` on our AIGER, its
invariant checked by CaDiCaL.

Bounded model checking (:mod:`sdg_automata.search.bmc`) finds shortest witnesses, but
its unbounded "no" rests on k-induction, which never closes when unreachable
states loop inside the bad set: K ring DFAs with an empty intersection are
such a family, where no depth is ever enough.  PDR (IC3) [1]_ [2]_ proves such
properties by learning an inductive invariant clause by clause.

The strategy
------------
The question "does a word show a value of U?" (U: the values above the
largest one found) is written as an and-inverter graph in AIGER [3]_ by our
own code, from the same :class:`~sdg_automata.search.circuit.StepEncoding` the SAT
strategy unrolls, built here with :class:`AigGates`:

* one latch per item bit of the state and per state of the ``within``
  constraint (a latch whose initial value is 1 is stored complemented, since
  ABC dumps invariants for all-zero initial states only);
* the letter read as ⌈log₂|Σ|⌉ inputs, codes beyond Σ read as its first letter
  (so the reachable states are exactly the automaton's);
* a dead move of the constraint leaves its one-hot state all zero, a sink that
  never accepts (the SAT encoding forbids the move instead: the same
  reachable accepting states);
* one output, the bad state: a value of U where the constraint accepts.

ABC (``berkeley-abc`` on Debian) runs ``pdr`` on it as a subprocess, under
the budget and Ctrl-C (it runs in a session of its own and is killed).  When it
answers "unreachable" it dumps its invariant (``pdr -d``): clauses over the
latches.  The answer is not believed: three CaDiCaL queries over the SAT
encoding's clauses, which share nothing with the AIGER writer but the step
written as gates, check that the dumped clauses C

* hold in q₀ (initiation),
* hold after one step from any state where they hold and that is not bad
  (consecution; the state is any assignment of its bits),
* exclude every bad state (safety),

so that C is an inductive invariant of every reachable state that no bad state
satisfies, before a "no" is called exact; an invariant that fails is reported,
and the verdict stays unproven.  When ABC answers "reachable" at some depth, the
bounded search up to that length gives the shortest witnesses, replayed
through :meth:`~sdg_automata.automaton.construction.GrundyAutomaton.step`; a counterexample
without such a witness is a bug (the two encodings disagree), never a value.
The values found raise the bar, and ABC is asked again about those above.

References
----------
.. [1] A. R. Bradley, "SAT-based model checking without unrolling", VMCAI 2011.
.. [2] N. Eén, A. Mishchenko, R. Brayton, "Efficient implementation of property
   directed reachability", FMCAD 2011 (the ``pdr`` of ABC).
.. [3] A. Biere, K. Heljanko, S. Wieringa, "AIGER 1.9 and beyond", FMV report
   11/2, JKU Linz, 2011.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..automaton.construction import GrundyAutomaton
from ..errors import InputError, Interrupted, ResourceError, SdgBug
from ..runtime.budget import Budget, Meter
from .bmc import SOLVER, bounded_search, require_sat
from .circuit import Frame, Gates, StepEncoding, fold_and

if TYPE_CHECKING:
    from .constraint import Constraint

__all__ = ["ABC_NAMES", "AigGates", "Invariant", "PdrResult", "abc_command", "check_invariant",
           "pdr_search", "prove_unreachable", "write_aiger"]

#: the names ABC's executable goes by, tried in this order on PATH (``SDG_ABC``, when set,
#: is the path of the one to run)
ABC_NAMES = ("berkeley-abc", "abc", "yosys-abc")
#: how to install it, named when it is missing
INSTALL_HINT = ("apt-get install berkeley-abc (Debian and Ubuntu), or name its executable in "
                "the SDG_ABC environment variable")
#: seconds between two looks at ABC, the clock and Ctrl-C
POLL = 0.05
#: the longest ``-T`` ABC takes (a C int); a longer budget leaves ABC unlimited, and ours rules
ABC_SECONDS_MAX = 2**31 - 1


def abc_command() -> str:
    """The path of ABC's executable; :class:`~sdg_automata.errors.InputError` when there is
    none (``SDG_ABC`` names one, else the first of :data:`ABC_NAMES` on PATH)."""
    named = os.environ.get("SDG_ABC")
    if named:
        path = shutil.which(named)
        if path is None:
            raise InputError(f"SDG_ABC names {named!r}, which is not an executable")
        return os.path.abspath(path)  # ABC runs in a folder of its own
    for name in ABC_NAMES:
        path = shutil.which(name)
        if path is not None:
            return os.path.abspath(path)
    raise InputError(f"the pdr strategy runs ABC, which is not installed: {INSTALL_HINT}")


# ---------------------------------------------------------------------------
# the and-inverter graph


class AigGates:
    """An and-inverter graph built through the interface of :class:`~sdg_automata.search.bmc.Gates`
    (:class:`~sdg_automata.search.circuit.Circuit`), with constant folding and structural hashing.

    Literals are non-zero ints: variable 1 is the constant true, ``-x`` negates
    ``x``.  Variables are numbered in the order they are made, so every AND
    gate comes after its inputs, as binary AIGER requires.
    """

    __slots__ = ("true", "false", "inputs", "latches", "ands", "_count", "_hashed")

    def __init__(self) -> None:
        self.true = 1
        self.false = -1
        self.inputs: list[int] = []
        self.latches: list[int] = []
        #: (gate, a, b): gate = a ∧ b
        self.ands: list[tuple[int, int, int]] = []
        self._count = 1
        self._hashed: dict[tuple[int, int], int] = {}

    def _new(self) -> int:
        self._count += 1
        return self._count

    def input(self) -> int:
        """A fresh input."""
        x = self._new()
        self.inputs.append(x)
        return x

    def latch(self) -> int:
        """A fresh latch (its next value is given to :func:`write_aiger`)."""
        x = self._new()
        self.latches.append(x)
        return x

    def and2(self, a: int, b: int) -> int:
        """a ∧ b."""
        folded = fold_and(a, b, self.true)
        if folded is not None:
            return folded
        key = (a, b) if a < b else (b, a)
        y = self._hashed.get(key)
        if y is None:
            y = self._hashed[key] = self._new()
            self.ands.append((y, a, b))
        return y

    def or_(self, lits: Sequence[int]) -> int:
        """The disjunction of ``lits`` (false when empty), as a balanced tree."""
        layer = sorted({x for x in lits if x != self.false})
        if self.true in layer:
            return self.true
        if not layer:
            return self.false
        while len(layer) > 1:
            paired = [-self.and2(-layer[i], -layer[i + 1]) for i in range(0, len(layer) - 1, 2)]
            layer = paired + layer[len(layer) - len(layer) % 2:]
        return layer[0]

    def one_of(self, n: int) -> tuple[int, ...]:
        """The letter read: ⌈log₂ n⌉ inputs decoded, codes ≥ n read as letter 0."""
        if n == 1:
            return (self.true,)
        bits = [self.input() for _ in range((n - 1).bit_length())]
        letters = []
        for c in range(n):
            x = self.true
            for i, b in enumerate(bits):
                x = self.and2(x, b if c >> i & 1 else -b)
            letters.append(x)
        letters[0] = -self.or_(letters[1:])
        return tuple(letters)

    def forbid(self, lits: Sequence[int]) -> None:
        """Nothing to add: a dead move leaves the constraint's one-hot state all zero, a sink
        that never accepts (see the module docstring)."""


def write_aiger(aig: AigGates, next_state: Sequence[int], bad: int, path: Path) -> None:
    """Write binary AIGER: the inputs, then the latches (``next_state[i]`` is latch i's
    next literal, initial value 0), one output (``bad``), then the AND gates."""
    number = {1: 0}  # our variable -> AIGER's; the constant is variable 0
    for x in (*aig.inputs, *aig.latches, *(y for y, _, _ in aig.ands)):
        number[x] = len(number)

    def lit(x: int) -> int:
        if abs(x) == 1:
            return 1 if x == 1 else 0
        return 2 * number[abs(x)] + (x < 0)

    i, n, a = len(aig.inputs), len(aig.latches), len(aig.ands)
    out = bytearray(f"aig {i + n + a} {i} {n} 1 {a}\n".encode())
    for x in next_state:
        out += b"%d\n" % lit(x)
    out += b"%d\n" % lit(bad)
    for y, p, q in aig.ands:
        lhs, r0, r1 = 2 * number[y], lit(p), lit(q)
        if r0 < r1:
            r0, r1 = r1, r0
        for delta in (lhs - r0, r0 - r1):
            while delta >= 0x80:
                out.append(delta & 0x7F | 0x80)
                delta >>= 7
            out.append(delta)
    out += b"c\nsdg_automata: a value of the bad set where the constraint accepts\n"
    path.write_bytes(bytes(out))


@dataclass(frozen=True)
class _Model:
    """One question as an AIG: ``latches[i]`` is (frame position, complemented) of latch i
    (positions index the state bits, then the constraint's)."""

    aig: AigGates
    next_state: tuple[int, ...]
    bad: int
    latches: tuple[tuple[int, bool], ...]


def _model(encoding: StepEncoding, values: Sequence[int]) -> _Model:
    """The AIG of "a state shows a value of ``values`` where the constraint accepts"."""
    aig = AigGates()
    q0 = encoding.automaton.initial
    init = [bool(q0 >> k & 1) for k in range(encoding.width)]
    if encoding.within is not None:
        init += [d == encoding.within.initial for d in range(encoding.within.size)]
    latches = [aig.latch() for _ in init]
    current = [-x if one else x for x, one in zip(latches, init, strict=True)]
    frame = Frame(letters=(), state=tuple(current[:encoding.width]),
                  within=tuple(current[encoding.width:]))
    after = encoding.step(aig, frame)
    nxt = [*after.state, *after.within]
    next_state = tuple(-x if one else x for x, one in zip(nxt, init, strict=True))
    accepting = encoding.accepting(aig, frame)
    bad = aig.or_([aig.and2(encoding.value(frame, v), accepting) for v in values])
    return _Model(aig=aig, next_state=next_state, bad=bad,
                  latches=tuple((p, one) for p, one in enumerate(init)))


# ---------------------------------------------------------------------------
# the invariant and its check


@dataclass(frozen=True)
class Invariant:
    """ABC's inductive invariant: the cubes it blocked, each a tuple of (latch, value); the
    invariant is the conjunction of their negations (ABC's PLA: one cube per line over
    the latches ``.ilb`` names, ``lo<k>`` for latch k)."""

    cubes: tuple[tuple[tuple[int, bool], ...], ...]

    @classmethod
    def parse(cls, text: str, latches: int) -> Invariant:
        """Read ``pdr -d``'s PLA; :class:`~sdg_automata.errors.ResourceError` when it is not
        one over ``latches`` latches (another ABC writes another format)."""
        names: list[int] = []
        cubes = []
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#") or line in (".e", ".ob inv"):
                continue
            if line.startswith(".ilb"):
                for name in line.split()[1:]:
                    match = re.fullmatch(r"lo0*(\d+)", name)
                    if match is None or int(match[1]) >= latches:
                        raise ResourceError(f"ABC's invariant names {name!r}, not one of our "
                                            f"{latches} latches")
                    names.append(int(match[1]))
            elif line.startswith("."):
                continue  # .i, .o, .p: counts, checked by the cubes themselves
            else:
                cube, _, out = line.partition(" ")
                if out.strip() != "1" or len(cube) != len(names) or set(cube) - set("01-"):
                    raise ResourceError(f"ABC's invariant has a line {line!r} over "
                                        f"{len(names)} latches")
                cubes.append(tuple((names[i], c == "1") for i, c in enumerate(cube)
                                   if c != "-"))
        return cls(cubes=tuple(cubes))


def check_invariant(encoding: StepEncoding, invariant: Invariant,
                    latches: Sequence[tuple[int, bool]], values: Sequence[int],
                    meter: Meter) -> str | None:
    """Check that ``invariant`` is an inductive invariant disjoint from the bad states, by
    three CaDiCaL queries over the SAT encoding's clauses; ``None`` when it is, else the
    condition that fails.

    The conditions, for C the clauses (the negations of the cubes): q₀ satisfies C
    (initiation); from any state satisfying C and not bad, any letter leads to one
    satisfying C (consecution, relative to the property as ABC's ``pdr -o`` assumes
    it; the state is any assignment of its bits, not only a reachable one); no state
    satisfying C is bad, i.e. shows a value of ``values`` where the constraint accepts
    (safety).  Together: C ∧ ¬bad = C holds in q₀ and is closed under every step, so
    every reachable state satisfies it, and none is bad.  ``latches[i]`` is (frame
    position, complemented) of latch i.
    """
    from .bmc import _Unrolling

    def cube_literals(frame: Frame) -> list[list[int]]:
        bits = (*frame.state, *frame.within)
        out = []
        for cube in invariant.cubes:
            lits = []
            for latch, value in cube:
                position, complemented = latches[latch]
                lits.append(bits[position] if value != complemented else -bits[position])
            out.append(lits)
        return out

    def inside(u: _Unrolling, t: int) -> None:  # clauses: frame t is in the invariant
        for lits in cube_literals(u.frames[t]):
            u.gates.clause([-x for x in lits])

    def outside(u: _Unrolling, t: int) -> list[int]:  # one of them holds iff t is not in it
        return [_conjunction(u.gates, lits) for lits in cube_literals(u.frames[t])]

    queries: list[tuple[str, bool, int, Callable[[_Unrolling], list[int]]]] = [
        ("initiation (q₀ is not in the invariant)", False, 0, lambda u: outside(u, 0)),
        ("consecution (a step leaves the invariant)", True, 1, lambda u: outside(u, 1)),
        ("safety (a state of the invariant shows a value asked about)", True, 0,
         lambda u: [u.bad(0, v) for v in values]),
    ]
    for failure, free, length, goal in queries:
        u = _Unrolling(encoding, meter, free=free, constrained=False)
        try:
            u.extend(length)
            if free:
                inside(u, 0)
                if length:  # consecution: the step starts from a state that is not bad
                    for v in values:
                        u.gates.clause([-u.bad(0, v)])
            if u.query(goal(u)) is not None:
                return failure
        finally:
            u.close()
    return None


def _conjunction(g: Gates, lits: Sequence[int]) -> int:
    out = g.true
    for x in lits:
        out = g.and2(out, x)
    return out


# ---------------------------------------------------------------------------
# ABC


#: ``pdr``'s options: ``-f`` orders the latches by cost before generalizing, which closes
#: the ring family (:func:`~sdg_automata.generators.families.ring_intersection`) at K = 5 in 0.06 s
#: where the default order had reached frame 63 without an answer after 10 s
PDR_OPTIONS = "-f"


@dataclass(frozen=True, kw_only=True)
class _Outcome:
    """What one run of ABC settled: ``"proven"`` (its invariant checked), ``"reachable"``
    (at ``depth``), or ``"unproven"`` (``why``)."""

    status: str
    depth: int | None = None
    clauses: int | None = None
    why: str | None = None


def prove_unreachable(encoding: StepEncoding, values: Sequence[int], meter: Meter,
                      command: str) -> _Outcome:
    """Ask ABC's ``pdr`` whether a state shows a value of ``values`` (where the constraint
    accepts), and check its invariant when it says none does (see the module docstring)."""
    model = _model(encoding, values)
    with tempfile.TemporaryDirectory(prefix="sdg-pdr-") as folder:
        where = Path(folder)
        write_aiger(model.aig, model.next_state, model.bad, where / "model.aig")
        limit = ""
        left = meter.deadline - time.perf_counter()
        if left < ABC_SECONDS_MAX:  # ABC's own clock, besides ours (its -T is an int)
            limit = f" -T {max(1, int(left) + 1)}"
        said = _run_abc(command, f"read_aiger model.aig; pdr {PDR_OPTIONS}{limit} -d -I "
                        "invariant.pla", where, meter)
        if "Property proved" in said:
            try:
                text = (where / "invariant.pla").read_text()
            except OSError as e:
                return _Outcome(status="unproven", why=f"ABC proved it but wrote no invariant "
                                                      f"to check ({e.strerror or e})")
            try:
                invariant = Invariant.parse(text, len(model.latches))
            except ResourceError as e:  # unread, it proves nothing
                return _Outcome(status="unproven", why=f"ABC's invariant could not be read: {e}")
            failure = check_invariant(encoding, invariant, model.latches, values, meter)
            if failure is not None:
                return _Outcome(status="unproven", clauses=len(invariant.cubes),
                                why=f"ABC's invariant fails our check of {failure}")
            return _Outcome(status="proven", clauses=len(invariant.cubes))
    asserted = re.search(r"was asserted in frame (\d+)", said)
    if asserted is not None:
        return _Outcome(status="reachable", depth=int(asserted[1]))
    if "Reached timeout" in said and meter.budget.max_seconds is not None:  # our -T
        raise meter.exceeded(meter.count, f"{meter.budget.max_seconds:g} s")
    reached = re.search(r"Reached limit[^\n]*", said)
    if reached is not None:  # ABC's own limits (10,000 frames): no answer
        return _Outcome(status="unproven", why=f"ABC gave up: {reached[0].strip()}")
    last = [line for line in said.splitlines() if line.strip()][-1:] or ["no output"]
    raise ResourceError(f"ABC ({command}) answered neither proved nor asserted: "
                        f"{last[0].strip()!r}")


def _run_abc(command: str, script: str, folder: Path, meter: Meter) -> str:
    """ABC's output for ``script``, run in ``folder`` under the meter: the clock and Ctrl-C are
    served every :data:`POLL` seconds, and ABC (in a session of its own, so a terminal's
    Ctrl-C reaches us only) is killed when either stops the run."""
    from ..runtime.stopping import held_signals

    log = folder / "abc.log"
    # a process of our own session dies with us however we end (a closed terminal's SIGHUP,
    # the OOM killer's SIGKILL): util-linux's setpriv sets its parent-death signal
    guard = shutil.which("setpriv")
    argv = [command, "-c", script]
    if guard is not None:
        argv = [guard, "--pdeathsig", "KILL", "--", *argv]
    child = None
    try:
        # held while ABC starts: a Ctrl-C inside Popen would leave it running, ours to kill
        # but unknown to us; it is delivered as the block ends, where ``child`` is set
        with log.open("wb") as out, held_signals():
            child = subprocess.Popen(argv, cwd=folder, stdin=subprocess.DEVNULL, stdout=out,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        while True:
            try:
                child.wait(timeout=POLL)
                break
            except subprocess.TimeoutExpired:
                meter.check(meter.count)
    except OSError as e:  # Popen: not executable after all
        raise ResourceError(f"cannot run ABC ({command}): {e.strerror or e}") from None
    except BaseException:
        if child is not None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        raise
    said = log.read_text(errors="replace")
    if child.returncode:
        how = (f"was killed by signal {-child.returncode}" if child.returncode < 0
               else f"exited with status {child.returncode}")
        last = [line for line in said.splitlines() if line.strip()][-1:] or ["no output"]
        raise ResourceError(f"ABC ({command}) {how}: {last[0].strip()!r}")
    return said


# ---------------------------------------------------------------------------
# the search


@dataclass(frozen=True, kw_only=True)
class PdrResult:
    """What :func:`pdr_search` found.

    Attributes
    ----------
    found:
        Per value found, the letters of a shortest word showing it (indices into Σ, in
        the automaton's reading order), from the bounded search.
    length:
        Every word up to this length was searched for every value not found.
    proof:
        Why no value above the largest one found occurs: ``"pdr"`` (ABC's invariant,
        checked), ``"k-induction"`` (the bounded search's unrolling closed: no path from
        q₀ that long visits distinct states), or ``None``.
    depth:
        The depth of that closing.
    why:
        Why not, when neither proven nor settled (an invariant that failed our check).
    solver:
        The rounds of ABC, the clauses of the last invariant, and the work of the
        CaDiCaL solvers of the bounded searches.
    """

    found: dict[int, list[int]]
    length: int
    proof: str | None
    depth: int | None = None
    why: str | None = None
    solver: dict[str, Any] = field(default_factory=dict)

    @property
    def proven(self) -> bool:
        """Whether no value above the largest one found occurs."""
        return self.proof is not None


def pdr_search(
    automaton: GrundyAutomaton,
    head: str,
    *,
    settled: Callable[[int], bool],
    budget: Budget,
    within: Constraint | None = None,
) -> PdrResult:
    """The values of A with shortest witnesses, and a checked PDR proof that there are no
    others above them.

    Rounds: ABC is asked whether any value above the largest one found occurs; an
    unreachable answer is checked (:func:`check_invariant`) and ends the search; a
    counterexample at depth d sends the bounded search
    (:func:`~sdg_automata.search.bmc.bounded_search`, without k-induction) up to length d for
    shortest witnesses.

    Parameters
    ----------
    automaton, head:
        The automaton (of the cone of influence of A) and A.
    settled:
        Whether finding a value answers the question (it then stops).
    budget:
        Seconds and progress (the count is the rounds of ABC).
    within:
        A constraint's tables in the automaton's reading order.

    Raises
    ------
    InputError
        When ABC or python-sat is missing.
    BudgetExceeded, Interrupted
        Saying how many rounds ran.
    """
    require_sat()
    command = abc_command()
    encoding = StepEncoding(automaton, head, within)
    bound = len(encoding.value_bits) - 1
    meter = budget.start("PDR", unit="rounds of ABC")
    found: dict[int, list[int]] = {}
    length, rounds, clauses, depth = 0, 0, None, None
    work = {"variables": 0, "clauses": 0, "conflicts": 0, "calls": 0}
    proof: str | None = None
    why = None
    # the bounded search inside a round reports no progress of its own: the bar counts rounds
    quiet = replace(meter.shared(), progress=None)
    try:
        while True:  # a round finds a value above top (settled(m_A) ends it), or stops
            top = max(found, default=-1)
            rounds += 1
            meter.check(rounds)  # counts the rounds started, as Ctrl-C's message does
            outcome = prove_unreachable(encoding, range(top + 1, bound + 1), meter, command)
            clauses = outcome.clauses
            if outcome.status != "reachable":
                proof, why = ("pdr" if outcome.status == "proven" else None), outcome.why
                break
            assert outcome.depth is not None
            searched = bounded_search(automaton, head, settled=settled, budget=quiet,
                                      max_length=max(outcome.depth, 1), within=within,
                                      induction=False)
            for key in work:
                work[key] += searched.solver[key]
            if max(searched.found, default=-1) <= top:
                raise SdgBug(f"ABC reached a value above {top} in {outcome.depth} steps, but no "
                             f"word of that length shows one")
            found, length = searched.found, searched.length
            if searched.proven:  # its unrolling closed (no simple path that long): a proof
                proof, depth = "k-induction", searched.depth
                break
            if any(settled(v) for v in found if v > top):
                break
    except (KeyboardInterrupt, Interrupted):
        raise meter.interrupted(rounds) from None
    return PdrResult(found=found, length=length, proof=proof, depth=depth, why=why,
                     solver={"name": f"abc pdr {PDR_OPTIONS}, checked by {SOLVER}", **work,
                             "pdr_rounds": rounds, "invariant_clauses": clauses})
