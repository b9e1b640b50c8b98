"""ABC's ``pdr`` on the lean circuit, as a subprocess: its invariant checked by CaDiCaL on
the unreduced relation, its counterexample replayed through the automaton.

Bounded model checking (:mod:`sdg_automata.search.bmc`) finds shortest witnesses, but
its unbounded "no" rests on k-induction, which never closes when unreachable states
loop inside the bad set: K ring DFAs with an empty intersection are such a family,
where no depth is ever enough.  PDR (IC3) [1]_ [2]_ proves such properties by learning
an inductive invariant clause by clause.  :func:`prove_unreachable` asks ABC's ``pdr``
whether a state shows a value of U where the constraint accepts, on the lean circuit
of :mod:`sdg_automata.search.lean` written as binary AIGER [3]_ (one output, the bad
states; every latch starts at 0, as ABC's invariants need).

Nothing ABC says is believed:

* "proved": ABC dumps its invariant (``pdr -d``: the clauses over the lean latches);
  it is read as data (a regular file, at most :data:`INVARIANT_CAP` bytes, ASCII),
  mapped back to the relation's latches and, conjoined with the latch correspondence
  the lean circuit rests on, checked for initiation, consecution and safety on the
  *unreduced* relation (:meth:`~sdg_automata.search.proofs.OneStep.check`).  An
  invariant that fails, is missing or cannot be read proves nothing: the verdict stays
  unproven, saying why;
* "asserted in frame d": ABC's counterexample (``write_cex -a``) is replayed through
  :meth:`~sdg_automata.automaton.construction.GrundyAutomaton.step`; one that does
  not reach a value of U is ABC's fault (:class:`~sdg_automata.errors.ResourceError`,
  exit 3, naming ABC), and one that does is shortened to the shortest witnesses by
  the bounded search.

ABC runs in a session of its own (a terminal's Ctrl-C reaches us only), under the
budget: the clock and Ctrl-C are served every :data:`POLL` seconds, its output is
read through a pipe of which the last :data:`LOG_CAP` bytes are kept, and its process
group is killed on every way out (also after ABC ended: what it left running goes
with it); ``setpriv --pdeathsig`` (util-linux) kills ABC if we die any other way.

References
----------
.. [1] A. R. Bradley, "SAT-based model checking without unrolling", VMCAI 2011.
.. [2] N. Eén, A. Mishchenko, R. Brayton, "Efficient implementation of property
   directed reachability", FMCAD 2011 (the ``pdr`` of ABC).
.. [3] A. Biere, K. Heljanko, S. Wieringa, "AIGER 1.9 and beyond", FMV report
   11/2, JKU Linz, 2011.
"""

from __future__ import annotations

import contextlib
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, ResourceError
from ..runtime.budget import Meter
from ..runtime.files import read_capped
from .bmc import shows
from .lean import LeanRelation

__all__ = ["ABC_NAMES", "INVARIANT_CAP", "LOG_CAP", "Outcome", "abc_command", "parse_cex",
           "parse_invariant", "prove_unreachable", "run_abc"]

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
#: the bytes of ABC's output kept (its last ones: the verdict is at the end); ABC writes a
#: few hundred bytes a run, a broken one was seen writing 460 MB in 3 s
LOG_CAP = 1 << 20
#: the largest invariant or counterexample file read (ABC's invariants on our circuits
#: have tens to thousands of clauses, each a line of one character per latch)
INVARIANT_CAP = 256 << 20
#: ``pdr``'s options: ``-f`` orders the latches by cost before generalizing, which closes
#: the ring family (:func:`~sdg_automata.generators.families.ring_intersection`) at K = 5 in 0.06 s
#: where the default order had reached frame 63 without an answer after 10 s
PDR_OPTIONS = "-f"


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
# what ABC writes


def _text(data: bytes, what: str, command: str) -> str:
    """``data`` as text; ABC's fault (exit 3, naming it) when it is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise ResourceError(f"ABC ({command}) wrote {what} that is not UTF-8 text (byte "
                            f"{data[e.start]:#04x} at offset {e.start:,})") from None


def parse_invariant(text: str, latches: int) -> tuple[tuple[tuple[int, bool], ...], ...]:
    """The cubes of ``pdr -d``'s PLA (one per line over the latches ``.ilb`` names, ``lo<k>``
    for latch k): the invariant is the conjunction of their negations.

    Raises
    ------
    ResourceError
        When it is not such a PLA over ``latches`` latches (another ABC writes another
        format).
    """
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
                    raise ResourceError(f"ABC's invariant names {name[:40]!r}, not one of "
                                        f"our {latches} latches")
                names.append(int(match[1]))
        elif line.startswith("."):
            continue  # .i, .o, .p: counts, checked by the cubes themselves
        else:
            cube, _, out = line.partition(" ")
            if out.strip() != "1" or len(cube) != len(names) or set(cube) - set("01-"):
                raise ResourceError(f"ABC's invariant has a line {line[:60]!r} over "
                                    f"{len(names)} latches")
            cubes.append(tuple((names[i], c == "1") for i, c in enumerate(cube) if c != "-"))
    return tuple(cubes)


def parse_cex(text: str, inputs: int, latches: int) -> list[int]:
    """The input vectors of ``write_cex -a`` (AIGER 1.9 witness: the initial values of the
    ``latches`` latches, then one line of ``inputs`` values per frame), as ints (bit i:
    input i; ``x`` read as 0).

    Raises
    ------
    ResourceError
        When it is not such a witness.
    """
    lines = [line.split("#")[0].strip() for line in text.splitlines()]
    lines = [line for line in lines if line]
    while lines and (lines[0] == "1" or re.fullmatch(r"[bcjf]\d+", lines[0])):
        lines = lines[1:]  # the status and property lines of a full AIGER witness
    if latches:
        if not lines or len(lines[0]) != latches or set(lines[0]) - set("01x"):
            raise ResourceError("ABC's counterexample does not start with the values of our "
                                f"{latches} latches: {(lines or ['nothing'])[0][:60]!r}")
        lines = lines[1:]
    out = []
    for line in lines:
        if len(line) != inputs or set(line) - set("01x"):
            raise ResourceError(f"ABC's counterexample has a frame {line[:60]!r}, not "
                                f"{inputs} input values")
        out.append(sum(1 << i for i, c in enumerate(line) if c == "1"))
    return out


# ---------------------------------------------------------------------------
# ABC


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What one run of ABC settled: ``"proven"`` (its invariant checked), ``"reachable"``
    (a value of U at ``depth``: ``word``, replayed), ``"timeout"`` (the run's seconds
    ran out first), or ``"unproven"`` (``why``)."""

    status: str
    depth: int | None = None
    word: list[int] | None = None
    clauses: int | None = None
    why: str | None = None


def prove_unreachable(lean: LeanRelation, head: str, values: Sequence[int], meter: Meter,
                      command: str, seconds: float | None = None) -> Outcome:
    """Ask ABC's ``pdr`` whether a state shows a value of ``values`` (where the constraint
    accepts), for at most ``seconds`` (``None``: the meter's deadline), and check what it
    says (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="sdg-pdr-") as folder:
        where = Path(folder)
        (where / "model.aig").write_bytes(lean.aiger(values))
        until = meter.deadline if seconds is None else min(meter.deadline,
                                                            time.perf_counter() + seconds)
        limit = ""
        left = until - time.perf_counter()
        if left < ABC_SECONDS_MAX:  # ABC's own clock, besides ours (its -T is an int)
            limit = f" -T {max(1, int(left) + 1)}"
        said = run_abc(command, f"read_aiger model.aig; pdr {PDR_OPTIONS}{limit} -d -I "
                       "invariant.pla; write_cex -a cex.txt", where, meter, until=until)
        if said is None:
            return Outcome(status="timeout")
        if "Property proved" in said:
            return _proven(lean, values, where / "invariant.pla", meter, command)
        asserted = re.search(r"was asserted in frame (\d+)", said)
        if asserted is not None:
            depth = int(asserted[1])
            word = _counterexample(lean, head, values, where / "cex.txt", depth, meter, command)
            return Outcome(status="reachable", depth=depth, word=word)
    if "Reached timeout" in said:  # our -T
        return Outcome(status="timeout")
    reached = re.search(r"Reached limit[^\n]*", said)
    if reached is not None:  # ABC's own limits (10,000 frames): no answer
        return Outcome(status="unproven", why=f"ABC gave up: {reached[0].strip()}")
    raise ResourceError(f"ABC ({command}) answered neither proved nor asserted: "
                        f"{_last_line(said)!r}")


def _read(path: Path, what: str, meter: Meter, command: str) -> str:
    """A file ABC wrote, read as data: a regular file, at most :data:`INVARIANT_CAP` bytes,
    within the budget, UTF-8."""
    data = read_capped(path, cap=INVARIANT_CAP, what=what,
                       check=lambda _: meter.check(meter.count))
    return _text(data, what, command)


def _proven(lean: LeanRelation, values: Sequence[int], path: Path, meter: Meter,
            command: str) -> Outcome:
    """ABC's "proved", once its invariant passes our check."""
    try:
        text = _read(path, "invariant", meter, command)
    except InputError as e:  # missing, a FIFO, a device, too large: unread, it proves nothing
        return Outcome(status="unproven", why=f"ABC proved it but wrote no invariant we can "
                                              f"read ({e.message})")
    try:
        cubes = parse_invariant(text, len(lean.latches))
    except ResourceError as e:
        return Outcome(status="unproven", why=f"ABC's invariant could not be read: {e}")
    failure = lean.checker.check(lean.original(cubes), values)
    if failure is not None:
        return Outcome(status="unproven", clauses=len(cubes),
                       why=f"ABC's invariant fails our check of {failure}")
    return Outcome(status="proven", clauses=len(cubes))


def _counterexample(lean: LeanRelation, head: str, values: Sequence[int], path: Path,
                    depth: int, meter: Meter, command: str) -> list[int]:
    """ABC's counterexample as letters, once replayed through the automaton to a value of
    ``values``; :class:`ResourceError` naming ABC when it is missing or false."""
    try:
        text = _read(path, "counterexample", meter, command)
    except InputError as e:
        raise ResourceError(f"ABC ({command}) said a value of {list(values)} is reached in "
                            f"{depth} steps but wrote no counterexample we can read "
                            f"({e.message})") from None
    codes = parse_cex(text, len(lean.aig.inputs), len(lean.latches))
    if not lean.aig.inputs:  # one letter: no input, and ABC's frames are empty lines
        codes = [0] * depth
    n = len(lean.automaton.alphabet)
    word = [c if c < n else 0 for c in codes[:depth]]  # codes beyond Σ read as letter 0
    if len(word) != depth or not any(shows(lean.automaton, head, lean.within, word, v)
                                     for v in values):
        raise ResourceError(f"ABC ({command}) reported a counterexample of {depth} steps that "
                            f"our replay refutes: its word reaches no value of {list(values)}")
    return word


def _last_line(said: str) -> str:
    lines = [line for line in said.splitlines() if line.strip()]
    return lines[-1].strip()[:200] if lines else "no output"


def run_abc(command: str, script: str, folder: Path, meter: Meter, *,
            until: float | None = None) -> str | None:
    """ABC's output for ``script``, run in ``folder`` under the meter (see the module
    docstring), or ``None`` when ``until`` (a :func:`time.perf_counter` reading) came
    first: ABC is then killed, as it is when the budget or Ctrl-C stops the run."""
    from ..runtime.stopping import held_signals

    # a process of our own session dies with us however we end (a closed terminal's SIGHUP,
    # the OOM killer's SIGKILL): util-linux's setpriv sets its parent-death signal
    guard = shutil.which("setpriv")
    argv = [command, "-c", script]
    if guard is not None:
        argv = [guard, "--pdeathsig", "KILL", "--", *argv]
    child = None
    log = bytearray()
    try:
        # held while ABC starts: a Ctrl-C inside Popen would leave it running, ours to kill
        # but unknown to us; it is delivered as the block ends, where ``child`` is set
        with held_signals():
            child = subprocess.Popen(argv, cwd=folder, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        assert child.stdout is not None
        os.set_blocking(child.stdout.fileno(), False)
        while not _ended(child.pid):
            _drain(child.stdout.fileno(), log, POLL)
            meter.check(meter.count)
            if until is not None and time.perf_counter() >= until:
                return None  # the slice is over: killed below
        # ABC ended (a zombie, so its group cannot be reused): what it left running goes
        _kill_group(child.pid)
        _drain(child.stdout.fileno(), log, 1.0, to_end=True)
        child.wait()
    except OSError as e:  # Popen: not executable after all
        if child is None:
            raise ResourceError(f"cannot run ABC ({command}): {e.strerror or e}") from None
        raise
    finally:
        if child is not None:
            if child.returncode is None:  # not reaped: its group is still ours to kill
                _kill_group(child.pid)
                child.wait()
            if child.stdout is not None:
                child.stdout.close()
    said = _text(bytes(log), "output", command)
    if child.returncode:
        how = (f"was killed by signal {-child.returncode}" if child.returncode < 0
               else f"exited with status {child.returncode}")
        raise ResourceError(f"ABC ({command}) {how}: {_last_line(said)!r}")
    return said


def _ended(pid: int) -> bool:
    """Whether the process ``pid`` (our child) has ended, leaving it to be reaped."""
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:  # reaped already
        return True


def _drain(fd: int, log: bytearray, wait: float, *, to_end: bool = False) -> None:
    """Read what ABC wrote (waiting up to ``wait`` seconds for it), keeping the last
    :data:`LOG_CAP` bytes; ``to_end``: until the pipe closes or ``wait`` is over."""
    deadline = time.perf_counter() + wait
    while True:
        left = deadline - time.perf_counter()
        if left <= 0:
            return
        ready, _, _ = select.select([fd], [], [], left)
        if not ready:
            return
        try:
            block = os.read(fd, 1 << 16)
        except BlockingIOError:
            continue
        if not block:
            return  # closed: ABC and everything it started are done
        log += block
        if len(log) > LOG_CAP:
            del log[:len(log) - LOG_CAP]
        if not to_end and time.perf_counter() >= deadline:
            return


def _kill_group(pid: int) -> None:
    """Kill ABC's process group (its session: ABC and whatever it started)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)
