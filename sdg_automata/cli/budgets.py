"""What bounds and shows a running command: ``--max-states``/``--max-seconds`` and
the :class:`~sdg_automata.runtime.budget.Budget` they ask for, ``--engine``, the
engines' notes on stderr and the progress display.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import functools
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..grammar import Grammar
from ..runtime.budget import DEGRADED, Budget
from .arguments import duration, positive

if TYPE_CHECKING:
    from ..automaton.construction import ReachableAutomaton

__all__ = ["STARTED", "add_budget", "add_engine", "budget", "explore", "notes", "progress"]


def add_budget(p: argparse.ArgumentParser, *, states: bool = True, seconds: bool = True) -> None:
    """``--max-states`` and ``--max-seconds``: the phase stops with exit 3, saying how far."""
    if states:
        p.add_argument("--max-states", type=positive, metavar="N",
                       help="stop with exit 3 once N states are needed")
    if seconds:
        p.add_argument("--max-seconds", type=duration, metavar="S",
                       help="stop with exit 3 after S seconds (the whole command, every "
                            "phase included)")


def add_engine(p: argparse.ArgumentParser) -> None:
    """``--engine auto|compiled|python``: the compiled kernels or the Python reference
    (:mod:`sdg_automata.kernels`), the two implementations of the loops of every command
    but ``max``, whose search has the engines of its own registry
    (:mod:`sdg_automata.search.engines`)."""
    from ..runtime.engines import ENGINES

    p.add_argument("--engine", choices=ENGINES, default="auto",
                   help="compiled: the numba kernels; python: the pure-Python reference; "
                        "auto (default): compiled for runs large enough to repay loading "
                        "numba (this command's loops exist in these two forms; the search of "
                        "max has more engines: max --help)")


@contextlib.contextmanager
def notes() -> Iterator[None]:
    """Show :class:`~sdg_automata.errors.EngineNotice` warnings as one ``note:`` line on
    stderr each, :class:`~sdg_automata.errors.KernelCacheWarning` as one ``warning:`` line
    (others as Python shows them)."""
    import warnings

    from ..errors import EngineNotice, KernelCacheWarning

    shown = warnings.showwarning

    def show(message: Any, category: type[Warning], *rest: Any, **kw: Any) -> None:
        if issubclass(category, EngineNotice):
            print(f"note: {message}", file=sys.stderr)
        elif issubclass(category, KernelCacheWarning):
            print(f"warning: {message}", file=sys.stderr)
        else:
            shown(message, category, *rest, **kw)

    with warnings.catch_warnings():
        warnings.simplefilter("default", EngineNotice)
        warnings.simplefilter("default", KernelCacheWarning)
        warnings.showwarning = show
        yield


#: when the running command started (:func:`time.perf_counter`): ``--max-seconds`` counts
#: from here, over every phase of the command (set by :func:`sdg_automata.cli.main`)
STARTED: contextvars.ContextVar[float | None] = contextvars.ContextVar("STARTED", default=None)


def budget(args: argparse.Namespace, progress: Callable[[int], None] | None = None, *,
           each: bool = False) -> Budget:
    """The :class:`Budget` the options of ``args`` ask for.

    ``--max-seconds`` bounds the whole command: every phase shares the deadline
    counted from the command's start (:data:`STARTED`).  ``each``: the seconds
    are per item instead, each phase with its own clock (a word of ``grundy``,
    a job of a sweep, an analysis of ``play``), as those commands document.  On
    a system where budgets are weaker (:data:`sdg_automata.runtime.budget.DEGRADED`), a
    ``--max-seconds`` says how, once.
    """
    limits = Budget(max_states=getattr(args, "max_states", None),
                    max_seconds=getattr(args, "max_seconds", None), progress=progress,
                    since=None if each else STARTED.get())
    if limits.max_seconds is not None and DEGRADED:
        _say_degraded()
    return limits


@functools.cache
def _say_degraded() -> None:
    if sys.stderr is not None:
        print(f"note: budgets are weaker on this system ({'; '.join(DEGRADED)})",
              file=sys.stderr)


# -- progress on stderr ----------------------------------------------------------

@contextlib.contextmanager
def progress(description: str, *, enabled: bool = True, unit: str = "states",
             rate: bool = False) -> Iterator[Callable[[int], None] | None]:
    """A rich progress display on stderr, or ``None`` when stderr is not a terminal;
    ``rate`` adds the count per second since the start."""
    if not enabled or sys.stderr is None or not sys.stderr.isatty():
        yield None
        return
    import time

    from rich.console import Console
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    started = time.monotonic()
    with Progress(SpinnerColumn(), TextColumn("{task.description}"),
                  TextColumn("{task.completed:,} " + unit), TextColumn("{task.fields[rate]}"),
                  TimeElapsedColumn(), console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(description, total=None, rate="")
        yield _Report(bar, task, description, unit if rate else None, started)


class _Report:
    """The progress callback of :func:`progress`: the count, and what the phase does while
    the count stands still (:meth:`~sdg_automata.runtime.budget.Meter.describe`)."""

    def __init__(self, bar: Any, task: Any, description: str, rate: str | None,
                 started: float) -> None:
        self.bar, self.task, self.description = bar, task, description
        self.rate, self.started = rate, started

    def __call__(self, n: int) -> None:
        import time

        seconds = time.monotonic() - self.started
        speed = (f"{n / seconds:,.0f} {self.rate}/s" if self.rate is not None and seconds > 0.5
                 else "")
        self.bar.update(self.task, completed=n, rate=speed)

    def describe(self, text: str | None) -> None:
        self.bar.update(self.task, description=self.description if text is None else text)


def explore(args: argparse.Namespace, g: Grammar) -> ReachableAutomaton:
    """The reachable automaton serving ``g`` (its mirror's when left-linear), with progress."""
    from ..automaton.construction import automaton_for

    with progress("building the automaton", enabled=not getattr(args, "json", False)) as bar:
        return automaton_for(g).explore(budget(args, bar),
                                        engine=getattr(args, "engine", "auto"))
