"""The SAT solvers of python-sat, and a solver call that obeys a budget.

The solver-backed strategies (sat, pdr) run any incremental solver python-sat offers
(``--solver NAME``, :func:`resolve`; default :data:`DEFAULT`, CaDiCaL 1.9.5).  Every
call goes through :class:`Budgeted`, which keeps the clock, the progress callback and
Ctrl-C served however long the search inside the solver takes:

* CaDiCaL has no ``interrupt()``: a call runs in slices of conflicts and decisions
  (``conf_budget``, ``dec_budget``, ``solve_limited``), the meter checked between
  them (learned clauses are kept, so a sliced call resumes where it stopped);
* the MiniSat family (Glucose, Maple*, MergeSat, Minicard, MiniSat) has no decision
  budget but a propagation budget for the slices, and ``interrupt()``, which a timer
  calls at the slice's end under a time limit, so that even one long conflict does
  not outlast its slice;
* Lingeling has neither budgets nor ``interrupt()`` in python-sat: it runs whole
  calls, so it is refused under a time limit (nothing could stop it), and answers
  Ctrl-C when a call returns.

pysat's own SIGINT handler is kept out of our calls (:func:`native`): it ``longjmp`` s out
of the solver, and a Ctrl-C delivered to another thread of the process (numpy's
OpenBLAS starts some) jumped onto the main thread's stack from there: a segmentation
fault instead of exit 130.  Our calls are sliced, so Python's own handler, answered
between slices, is all Ctrl-C needs.

Kissat solves no formula under assumptions (it is not incremental), which every
search here needs, and CryptoMiniSat needs a package python-sat leaves out: both
are refused with the reason.  Under a time limit the slices are sized to about
:data:`SLICE_SECONDS` at the rates measured; without one, to about
:data:`SLICE_PROPAGATIONS` propagations, so that the models, hence the witnesses,
do not depend on the machine's speed.  Ctrl-C (and SIGTERM, and a budget's alarm)
is held at the operating system's level during a slice
(:func:`~sdg_automata.runtime.stopping.held_signals` with ``block=True``) and raised
as it returns.

References
----------
.. [1] A. Ignatiev, A. Morgado, J. Marques-Silva, "PySAT: a Python toolkit for
   prototyping with SAT oracles", SAT 2018 (``pysat.solvers``, ``SolverNames``).
"""

from __future__ import annotations

import contextlib
import gc
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from functools import cache
from typing import Any, Literal

from ..errors import InputError
from ..runtime.budget import Meter
from ..runtime.stopping import held_signals

__all__ = ["DEFAULT", "FIRST_SLICE", "INSTALL_HINT", "SLICE_PROPAGATIONS", "SLICE_SECONDS",
           "Budgeted", "native", "offered", "require_sat", "resolve"]

#: the solver of every query unless ``--solver`` names another (CaDiCaL 1.9.5)
DEFAULT = "cadical195"
#: the install command named when python-sat is missing
INSTALL_HINT = 'pip install "sdg_automata[sat]"'
#: conflicts in the first slice of a solver call (and 20 times as many decisions or
#: propagations); slices then adapt to about SLICE_SECONDS at the rates measured under a
#: time limit, and to about SLICE_PROPAGATIONS without one (a few seconds: CaDiCaL
#: propagates 3–10 M literals a second on the planted intersections of bench_sat; smaller
#: slices cost: at 10⁶ propagations 24 planted DFAs took 25 s of CPU instead of 15, as
#: CaDiCaL resumes a sliced call slowly)
FIRST_SLICE = 2_000
SLICE_SECONDS = 0.25
#: how often a slice past its time is interrupted again (:func:`_interrupting`)
INTERRUPT_EVERY = 0.05
SLICE_PROPAGATIONS = 20_000_000
#: python-sat's solvers that cannot serve here, and why
REFUSED = {
    "kissat404": "it solves no formula under assumptions (python-sat's Kissat is not "
                 "incremental), which every search here needs",
}


def require_sat() -> None:
    """Raise :class:`~sdg_automata.errors.InputError` naming the extra unless python-sat
    can be imported."""
    try:
        import pysat.solvers  # noqa: F401
    except ImportError as e:
        raise InputError(f"the SAT strategy needs python-sat ({e}): {INSTALL_HINT}") from None


@cache
def offered() -> dict[str, tuple[str, ...]]:
    """python-sat's solvers: each one's name (``SolverNames``' attribute, e.g.
    ``"cadical195"``, ``"glucose4"``) and the aliases it also answers to."""
    require_sat()
    from pysat.solvers import SolverNames

    return {name: tuple(aliases) for name, aliases in vars(SolverNames).items()
            if not name.startswith("_") and isinstance(aliases, tuple)}


def resolve(name: str | None, *, timed: bool = False) -> str:
    """The name of the solver ``name`` (an alias such as ``"cd19"`` included; ``None``:
    :data:`DEFAULT`), once it is known to run here.

    Parameters
    ----------
    name:
        A name or alias of python-sat's ``SolverNames``.
    timed:
        Whether a time limit applies: a solver that cannot be stopped is refused then.

    Raises
    ------
    InputError
        One line: an unknown name (with every choice), a solver that cannot serve
        (Kissat), one python-sat cannot run here (CryptoMiniSat without its package),
        Lingeling under a time limit.
    """
    require_sat()  # each time: offered() is cached
    names = offered()
    wanted = DEFAULT if name is None else name
    found = next((n for n, aliases in names.items() if wanted == n or wanted in aliases),
                 None)
    if found is None:
        raise InputError(f"unknown SAT solver {wanted!r} (python-sat offers "
                         f"{', '.join(sorted(names))})")
    if found in REFUSED:
        raise InputError(f"the SAT solver {found} cannot serve: {REFUSED[found]}")
    probe = _create(found)  # raises for a solver this python-sat cannot build
    try:
        limited = _capable(probe, "conf_budget", 1)
    finally:
        probe.delete()
    if timed and not limited:
        raise InputError(f"the SAT solver {found} has neither budgets nor interrupt() in "
                         "python-sat, so --max-seconds could not stop it: choose another "
                         f"(e.g. {DEFAULT}) or drop the time limit")
    return found


def _create(name: str) -> Any:
    """A fresh pysat solver ``name``; :class:`InputError` when this python-sat cannot."""
    from pysat.solvers import Solver

    # a solver python-sat fails to build (CryptoMiniSat without its package) complains again
    # as the half-built object goes, from __del__: heard here, not on the user's terminal
    hook = sys.unraisablehook
    sys.unraisablehook = _unheard
    try:
        try:
            return Solver(name=offered()[name][0])
        except Exception as e:  # NoSuchSolverError, a missing package
            why = f"{type(e).__name__}: {e}"
        gc.collect()
    finally:
        sys.unraisablehook = hook
    raise InputError(f"python-sat cannot run the SAT solver {name} here ({why})")


def _unheard(unraisable: Any) -> None:
    """Drop what a half-built pysat solver says as it goes."""


@contextlib.contextmanager
def native() -> Iterator[None]:
    """A call into pysat's C code (a solver, a cardinality encoding) without pysat's SIGINT
    handler, with Ctrl-C, SIGTERM and a budget's alarm held until it returns (see the
    module docstring).

    pysat installs its handler when ``pysat._utils.MainThread.check()`` says the call runs
    on the main thread: it says no for the length of the block.
    """
    from pysat._utils import MainThread

    saved = MainThread.__dict__["check"]
    MainThread.check = staticmethod(_elsewhere)
    try:
        with held_signals(block=True):
            yield
    finally:
        MainThread.check = saved


def _elsewhere() -> bool:
    return False


def _capable(solver: Any, method: str, *args: Any) -> bool:
    """Whether ``solver.method(*args)`` is implemented (pysat raises NotImplementedError)."""
    try:
        getattr(solver, method)(*args)
    except NotImplementedError:
        return False
    return True


class Budgeted:
    """One incremental solver whose every call obeys a meter (see the module docstring).

    Parameters
    ----------
    name:
        A name :func:`resolve` gave.
    meter:
        The phase's meter: its clock, progress and Ctrl-C are served between slices.
    """

    def __init__(self, name: str, meter: Meter) -> None:
        self.name = name
        self.meter = meter
        self.solver = _create(name)
        solver = self.solver
        self.limited = _capable(solver, "conf_budget", FIRST_SLICE)
        #: the second budget of a slice: decisions (CaDiCaL) or propagations (MiniSat)
        self.second = ("decisions" if _capable(solver, "dec_budget", FIRST_SLICE * 20)
                       else "propagations" if _capable(solver, "prop_budget", FIRST_SLICE * 20)
                       else None)
        self.interruptible = _capable(solver, "clear_interrupt")
        self.slice = FIRST_SLICE
        self.budget2 = FIRST_SLICE * 20
        self.calls = 0
        self.add_clause = solver.add_clause

    def stats(self) -> dict[str, int]:
        """The solver's counts so far (conflicts, decisions, propagations, restarts)."""
        try:
            return {k: int(v) for k, v in (self.solver.accum_stats() or {}).items()}
        except NotImplementedError:  # pragma: no cover - every solver offered has them
            return {}

    def effort(self) -> int:
        """Propagations so far (deterministic, unlike time)."""
        return self.stats().get("propagations", 0)

    def solve(self, assumptions: Sequence[int], *, conflicts: int | None = None
              ) -> list[int] | None | Literal[False]:
        """A model under ``assumptions``, ``None`` when there is none; with ``conflicts``,
        ``False`` when that many conflicts settled nothing (a bounded attempt)."""
        solver, meter = self.solver, self.meter
        self.calls += 1
        assumptions = list(assumptions)
        if not self.limited:  # Lingeling: whole calls (refused under a time limit)
            meter.check(meter.count)
            with native():
                status = solver.solve(assumptions=assumptions)
            return list(solver.get_model()) if status else None
        # slices measured by the clock end where the machine's speed says, so without a
        # deadline they are measured by the solver's own work: the same models anywhere
        timed = meter.budget.max_seconds is not None
        left = conflicts
        while True:
            meter.check(meter.count)  # the clock and progress, between slices
            size = self.slice if left is None else min(self.slice, left)
            solver.conf_budget(size)
            if self.second == "decisions":
                solver.dec_budget(self.budget2)
            elif self.second == "propagations":
                solver.prop_budget(self.budget2)
            before, started = self.stats(), time.perf_counter()
            status = self._limited(assumptions, timed)
            # the next slice: one slice's worth at this one's rates (either limit may end it)
            after = self.stats()
            spent, target = ((time.perf_counter() - started, SLICE_SECONDS) if timed else
                             (after.get("propagations", 0) - before.get("propagations", 0),
                              SLICE_PROPAGATIONS))
            self.slice = _rate(after, before, "conflicts", spent, target, self.slice, 100,
                               1 << 24)
            if self.second is not None:
                self.budget2 = _rate(after, before, self.second, spent, target, self.budget2,
                                     1000, 1 << 28)
            if status is not None:
                return list(solver.get_model()) if status else None
            if left is not None:
                left -= after.get("conflicts", 0) - before.get("conflicts", 0)
                if left <= 0:
                    return False

    def _limited(self, assumptions: list[int], timed: bool) -> bool | None:
        """One slice; a solver with ``interrupt()`` is also stopped at the slice's end under
        a time limit (one conflict may take long) by :func:`_interrupting`."""
        solver = self.solver
        ended = threading.Event()
        watch = None
        if timed and self.interruptible:
            delay = min(SLICE_SECONDS * 2, max(0.0, self.meter.deadline - time.perf_counter()))
            watch = threading.Thread(target=_interrupting, args=(solver, delay, ended),
                                     daemon=True)
            watch.start()
        try:
            with native():
                status = solver.solve_limited(assumptions=assumptions,
                                              expect_interrupt=watch is not None)
        finally:
            if watch is not None:
                ended.set()
                watch.join()
                solver.clear_interrupt()
        return None if status is None else bool(status)

    def delete(self) -> None:
        self.solver.delete()


def _interrupting(solver: Any, delay: float, ended: threading.Event) -> None:
    """After ``delay`` seconds, interrupt ``solver`` every :data:`INTERRUPT_EVERY` seconds
    until its call has ended.  Once is not enough: an interrupt that lands before the
    solver enters its search is lost (Glucose 3 then ran a 0.04 s slice for 37 s past a
    2 s budget, ``tests/search/test_sat_solvers.py``)."""
    if ended.wait(delay):
        return
    while True:
        solver.interrupt()
        if ended.wait(INTERRUPT_EVERY):
            return


def _rate(after: dict[str, int], before: dict[str, int], what: str, spent: float,
          target: float, last: int, floor: int, cap: int) -> int:
    """A slice of ``what`` (conflicts, decisions) worth ``target`` of what the last slice
    ``spent`` (seconds, or propagations), ``last`` when that slice used too few to measure
    (fewer than ``floor``)."""
    used = after.get(what, 0) - before.get(what, 0)
    if used < floor or spent <= 0:
        return last
    return max(floor, min(int(used / spent * target), cap))
