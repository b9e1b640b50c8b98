"""One budget for every long phase: states, seconds and progress, validated once.

A :class:`Budget` is the caller's limits (immutable, checked in ``__post_init__``:
negative, NaN and infinite values are refused there and nowhere else).  A phase
that may run long calls :meth:`Budget.start` and gets a :class:`Meter`, the
phase's own clock and counter.  A hot loop compares its count with the count
the meter asked to be called at next, and calls :meth:`Meter.check` then, which
returns the next such count::

    due = meter.due
    for t in ...:
        if t >= due:
            due = meter.check(t)

so the hot path costs one comparison.  The meter chooses that stride from the
work it measured, aiming at a check every :data:`TICK` seconds of work however
costly one unit is (a state of a subset construction can take milliseconds, a
state of a search a microsecond): a ``max_seconds`` budget holds in time, not
only in counts (issue 21 §9).  Memory is looked at every :data:`MEMORY_TICK`
seconds by the same call.

Time spent inside a library we do not control (automata-lib's reversal,
determinization and minimization, Graphviz's layout) is covered by
:meth:`Meter.library`, which turns the remaining seconds into a ``SIGALRM``
deadline when it runs on the main thread.  Ctrl-C inside any metered phase
becomes :class:`~sdg_automata.errors.Interrupted` with the same "how far"
message.

The package is tested on Linux and declared POSIX.  Where ``SIGALRM``,
``resource`` or ``/proc`` are missing (Windows), it still imports and runs,
and its budgets degrade as :data:`DEGRADED` says: the clock of a library call
is checked when the call returns, and memory limits nobody reports never
count.  ``tests/project/test_package.py`` hides those modules and runs the commands.
"""

from __future__ import annotations

import importlib.util
import math
import os
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import BudgetExceeded, InputError, Interrupted
from .stopping import CAN_ALARM, alarm

__all__ = ["DEGRADED", "ESTIMATE_CEILING", "MAX_STRIDE", "MEMORY_RESERVE", "MEMORY_TICK", "TICK",
           "Budget", "Meter", "UNLIMITED", "as_budget", "available_bytes", "memory_pressure"]

#: what budgets cannot do on this system (empty on Linux): one phrase per missing facility
DEGRADED: tuple[str, ...] = tuple(why for missing, why in (
    (not CAN_ALARM, "no SIGALRM: --max-seconds is checked when a call into "
                                     "automata-lib returns, not inside it"),
    (importlib.util.find_spec("resource") is None,
     "no resource module: the address-space limit is not seen"),
    (not os.path.exists("/proc/meminfo"), "no /proc/meminfo: free memory is not seen"),
) if missing)

#: a phase that grows without a known size (a crawl) stops with BudgetExceeded once fewer
#: bytes than this are left to allocate (:func:`available_bytes`); more than such a phase
#: allocates between two checks, so it stops before a MemoryError
MEMORY_RESERVE = 128 << 20
#: seconds of work a hot loop does between two calls of :meth:`Meter.check`, as the meter
#: aims its stride: a budget of seconds is overrun by about this much, progress is this fresh
TICK = 0.05
#: the most units between two checks (a check costs well under a microsecond: at this
#: stride it is free, and a unit that suddenly costs more is caught within so many)
MAX_STRIDE = 1024
#: seconds between two looks at the memory left (a read of /proc/meminfo, ~30 µs)
MEMORY_TICK = 0.25
#: work estimated up front to take longer than this (one hour) is refused before it starts;
#: with a ``max_seconds`` budget the ceiling is three times that budget instead (the meter
#: stops the run at the budget anyway: the slack keeps an estimate that errs high from
#: refusing work that would have finished)
ESTIMATE_CEILING = 3600.0


def _count(name: str, value: Any) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise InputError(f"{name} must be a positive integer, not {value!r}")
    return value


def _seconds(name: str, value: Any) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{name} must be a number of seconds, not {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"{name} must be a positive finite number of seconds, not {value!r}")
    return float(value)


@dataclass(frozen=True, kw_only=True)
class Budget:
    """Limits for a long computation.

    Parameters
    ----------
    max_states:
        The most states (or table entries, values, nodes: the unit of the
        phase) it may build; ``None`` for no limit.
    max_seconds:
        Wall-clock seconds from the start of the phase (or from ``since``);
        ``None`` for no limit.
    progress:
        Called with the phase's count now and then (about every
        :data:`TICK` seconds); the command line draws a progress bar with it
        on a terminal.  One with a ``describe(text)`` method is also told
        what the phase does while it is not counting (:meth:`Meter.describe`).
    since:
        The :func:`time.perf_counter` reading from which ``max_seconds``
        count, so that every phase of one computation shares one deadline
        (the command line's ``--max-seconds`` bounds the whole command);
        ``None`` (default): each phase counts from its own start.  A reading
        of this process's clock: not for budgets sent to other processes.
    """

    max_states: int | None = None
    max_seconds: float | None = None
    progress: Callable[[int], None] | None = field(default=None, compare=False)
    since: float | None = field(default=None, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "max_states", _count("max_states", self.max_states))
        object.__setattr__(self, "max_seconds", _seconds("max_seconds", self.max_seconds))
        if self.since is not None and not (isinstance(self.since, float)
                                           and math.isfinite(self.since)):
            raise InputError(f"since must be a time.perf_counter() reading, not {self.since!r}")

    def start(self, what: str = "search", unit: str = "states") -> Meter:
        """A meter for one phase, its clock started now."""
        return Meter(self, what, unit)

    def fits(self, needed: int) -> bool:
        """Whether ``needed`` units are within ``max_states``."""
        return self.max_states is None or needed <= self.max_states

    def refuse_slow(self, seconds: float, why: str) -> None:
        """:class:`BudgetExceeded` before any work when ``why`` is estimated to take
        ``seconds``, more than :data:`ESTIMATE_CEILING` (three times ``max_seconds``)."""
        limit = ESTIMATE_CEILING if self.max_seconds is None else 3 * self.max_seconds
        if seconds > limit:
            over = (f"three times the budget of {self.max_seconds:g} s"
                    if self.max_seconds is not None else f"the limit of {limit:g} s")
            raise BudgetExceeded(f"{why} would take about {seconds:.3g} s, over {over} (a "
                                 "larger time budget allows it: --max-seconds on the command "
                                 "line)")


#: No limit at all; the default of every long phase.
UNLIMITED = Budget()


def as_budget(
    budget: Budget | None = None,
    *,
    max_states: int | None = None,
    max_seconds: float | None = None,
    progress: Callable[[int], None] | None = None,
) -> Budget:
    """``budget`` (default :data:`UNLIMITED`) with any limit given by keyword put in.

    Lets a long phase keep its keyword spelling (``explore(max_states=10)``)
    while every limit still goes through one :class:`Budget`, validated there.
    """
    budget = UNLIMITED if budget is None else budget
    changes: dict[str, Any] = {}
    if max_states is not None:
        changes["max_states"] = max_states
    if max_seconds is not None:
        changes["max_seconds"] = max_seconds
    if progress is not None:
        changes["progress"] = progress
    return replace(budget, **changes) if changes else budget


def memory_pressure() -> str | None:
    """Why this process is about to run out of memory (a phrase), or ``None``.

    Pressure is fewer than :data:`MEMORY_RESERVE` bytes left to allocate, as
    :func:`available_bytes` counts them (the machine's ``MemAvailable``, or
    what ``RLIMIT_AS`` leaves); unknown quantities (no ``/proc``) never count.
    """
    left = available_bytes()
    if left is not None and left < MEMORY_RESERVE:
        return f"only {left >> 20} MB left to allocate"
    return None


class Meter:
    """The running clock and counter of one phase under a :class:`Budget`.

    ``what`` names the phase in messages ("search", "construction",
    "determinization"); ``unit`` names what is counted.  ``due`` is the count at
    which the phase's loop should call :meth:`check` next (see the module's
    docstring): the first unit, then strides measured to take :data:`TICK`
    seconds each.
    """

    __slots__ = ("budget", "what", "unit", "started", "deadline", "count", "due", "_stride",
                 "_last", "_last_step", "_memory_at")

    def __init__(self, budget: Budget, what: str, unit: str) -> None:
        self.budget = budget
        self.what = what
        self.unit = unit
        self.started = time.perf_counter()
        seconds = budget.max_seconds
        origin = self.started if budget.since is None else budget.since
        self.deadline = math.inf if seconds is None else origin + seconds
        self.count = 0
        self.due = 1
        self._stride = 1  # doubles while units stay cheap, up to MAX_STRIDE
        self._last, self._last_step = self.started, 0
        self._memory_at = self.started + MEMORY_TICK

    @property
    def elapsed(self) -> float:
        """Seconds since the phase started."""
        return time.perf_counter() - self.started

    def shared(self) -> Budget:
        """The budget of a sub-phase that shares this phase's deadline (and progress),
        counting its own units: no state limit of ours applies to them."""
        seconds = self.budget.max_seconds
        since = None if seconds is None else self.deadline - seconds
        return replace(self.budget, max_states=None, since=since)

    def exceeded(self, count: int, why: str) -> BudgetExceeded:
        """The error that says the budget ran out, and how far the phase got."""
        return BudgetExceeded(f"{self.what} stopped at the budget of {why} without an answer "
                              f"({count} {self.unit} reached)", explored=count)

    def check(self, count: int, *, step: int | None = None) -> int:
        """Raise :class:`BudgetExceeded` if ``count``, the clock or memory is over budget;
        return the step at which to call again (also kept as :attr:`due`).

        Also reports ``count`` to the progress callback.  ``step`` is the loop's
        own counter when it is not ``count`` (a crawl counts the states it
        expands, which is where its time goes, and reports the states it
        reached).  Any call is allowed (a loop of costly units may check each
        one); a hot loop calls when its step reaches the returned one, which
        the meter sets from the time the last stride took so that checks come
        about every :data:`TICK` seconds.  A loop that starts counting anew
        under the same meter is measured anew.
        """
        self.count = count
        step = count if step is None else step
        limit = self.budget.max_states
        if limit is not None and count > limit:
            raise self.exceeded(count, f"{limit} {self.unit}")
        now = time.perf_counter()
        if now > self.deadline:
            raise self.exceeded(count, f"{self.budget.max_seconds:g} s")
        done, spent = step - self._last_step, now - self._last
        if done < 0:  # a new loop under this meter: measure from scratch
            self._stride = 1
        elif done:  # aim the next stride at TICK seconds, growing at most twofold
            fits = int(done * TICK / spent) if spent > 0 else MAX_STRIDE
            self._stride = max(1, min(fits, 2 * self._stride, MAX_STRIDE))
        self._last, self._last_step = now, step
        if now >= self._memory_at:
            self._memory_at = now + MEMORY_TICK
            self.check_memory(count)
        if self.budget.progress is not None:
            self.budget.progress(count)
        self.due = step + self._stride
        return self.due

    def describe(self, text: str | None) -> None:
        """Say what the phase does now, while its count stands still (a fresh cluster
        compiling the kernels), where the progress display can (the command line's
        bar: ``progress.describe``); ``None``: what the display said at first."""
        describe = getattr(self.budget.progress, "describe", None)
        if describe is not None:
            describe(text)

    def check_states(self, count: int) -> None:
        """The state limit alone (cheap: no clock), for exact stops."""
        limit = self.budget.max_states
        if limit is not None and count > limit:
            self.count = count
            raise self.exceeded(count, f"{limit} {self.unit}")

    def check_memory(self, count: int) -> None:
        """Raise :class:`BudgetExceeded` when memory is about to run out
        (:func:`memory_pressure`); a file read or two, so call it rarely."""
        reason = memory_pressure()
        if reason is not None:
            self.count = count
            raise BudgetExceeded(f"{self.what} stopped before memory ran out ({reason}) "
                                 f"after {count} {self.unit}", explored=count)

    def interrupted(self, count: int | None = None) -> Interrupted:
        """The error for Ctrl-C during this phase."""
        n = self.count if count is None else count
        # "interrupted after N …" first: the command line has always begun that way
        return Interrupted(f"interrupted after {n} {self.unit} ({self.what})", explored=n)

    @contextmanager
    def library(self, what: str) -> Iterator[None]:
        """Run a call into another library under this phase's remaining seconds.

        On the main thread the remaining time becomes a ``SIGALRM`` timer
        (:func:`~sdg_automata.runtime.stopping.alarm`) that raises
        :class:`BudgetExceeded` from inside the library; elsewhere (a
        worker thread, or a system without ``SIGALRM``: :data:`DEGRADED`) the
        clock is checked when the call returns.
        """
        seconds = self.budget.max_seconds
        remaining = self.deadline - time.perf_counter()
        if seconds is not None and remaining <= 0:
            raise self.exceeded(self.count, f"{seconds:g} s")

        def late() -> BudgetExceeded:
            return BudgetExceeded(f"{self.what} stopped at the budget of {seconds:g} s "
                                  f"(inside {what})", explored=self.count)

        with alarm(None if seconds is None else remaining, late):
            try:
                yield
            except KeyboardInterrupt:
                raise Interrupted(f"interrupted after {self.count} {self.unit} (inside {what})",
                                  explored=self.count) from None
        if seconds is not None and time.perf_counter() > self.deadline:
            raise self.exceeded(self.count, f"{seconds:g} s")


def available_bytes() -> int | None:
    """Bytes this process can still allocate, as far as the system says; ``None``: unknown.

    The smaller of Linux's ``MemAvailable`` (/proc/meminfo) and what the
    address-space limit (``RLIMIT_AS``, e.g. ``ulimit -v``) leaves above the
    current virtual size.  Phases whose size is known in advance compare their
    estimate with it and refuse at once instead of dying of ``MemoryError``.
    """
    try:  # POSIX: the address-space limit (ulimit -v); imported here, off the start path
        import resource
    except ImportError:  # not POSIX: no such limit to read
        resource = None  # type: ignore[assignment]

    found: list[int] = []
    try:
        with open("/proc/meminfo", encoding="ascii") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    found.append(int(line.split()[1]) * 1024)
                    break
    except (OSError, ValueError):
        pass
    soft = None if resource is None else resource.getrlimit(resource.RLIMIT_AS)[0]
    if soft is not None and soft != resource.RLIM_INFINITY:
        try:
            with open("/proc/self/statm", encoding="ascii") as f:
                used = int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError):
            used = 0
        found.append(max(0, soft - used))
    return min(found) if found else None
