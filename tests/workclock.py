"""A budget's clock that moves with the work, not with the machine's load (issue 34 §7).

A test that asserts CPU or wall time fails on a loaded machine; what such a test means
is that a loop checks its budget often enough, which is a count.  :func:`work_clock`
replaces the clock of :mod:`sdg_automata.runtime.budget` by one that advances ``step``
seconds each time a meter reads it, so a budget of S seconds runs out after about
S / ``step`` checks whatever the load, and the work done by then is bounded by the
checks' strides (at most :data:`~sdg_automata.runtime.budget.MAX_STRIDE` units each).
"""

from __future__ import annotations

import time
from typing import Any

import pytest


class WorkClock:
    """``time`` for the budget module: ``perf_counter`` moves ``step`` per reading."""

    def __init__(self, step: float) -> None:
        self.step = step
        self.now = time.perf_counter()
        self.readings = 0

    def perf_counter(self) -> float:
        self.readings += 1
        self.now += self.step
        return self.now

    def __getattr__(self, name: str) -> Any:  # every other function of time, as it is
        return getattr(time, name)


#: the modules whose ``time`` is the budgets' clock: the meters, and the command line's
#: start of --max-seconds
CLOCKED = ("sdg_automata.runtime.budget", "sdg_automata.cli")


def work_clock(monkeypatch: pytest.MonkeyPatch, step: float = 0.01) -> WorkClock:
    """Install a :class:`WorkClock` for the budgets (undone by ``monkeypatch``)."""
    import importlib

    clock = WorkClock(step)
    for name in CLOCKED:
        monkeypatch.setattr(importlib.import_module(name), "time", clock)
    return clock


#: a ``sitecustomize`` for a child process (put on its PYTHONPATH by :func:`child_env`): once
#: :mod:`sdg_automata.runtime.budget` is imported, its clock is a :class:`WorkClock` of
#: ``SDG_TEST_CLOCK_STEP`` seconds a reading, and the readings are written to
#: ``SDG_TEST_CLOCK_FILE`` when the process exits
CHILD_SITECUSTOMIZE = '''
import atexit, importlib.abc, os, sys, time

STEP = float(os.environ["SDG_TEST_CLOCK_STEP"])
COUNT = [0]


class Clock:
    now = time.perf_counter()

    def perf_counter(self):
        COUNT[0] += 1
        Clock.now += STEP
        return Clock.now

    def __getattr__(self, name):
        return getattr(time, name)


CLOCK = Clock()
WANTED = {"sdg_automata.runtime.budget", "sdg_automata.cli"}


class Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name not in WANTED:
            return None
        WANTED.discard(name)
        import importlib.util
        sys.meta_path.remove(self)
        try:
            spec = importlib.util.find_spec(name)
        finally:
            sys.meta_path.insert(0, self)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            module.time = CLOCK

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, Finder())


@atexit.register
def _say():
    with open(os.environ["SDG_TEST_CLOCK_FILE"], "w") as f:
        f.write(str(COUNT[0]))
'''


def child_env(folder: Any, step: float = 0.02) -> dict[str, str]:
    """The environment of a child process whose budgets run on a work clock of ``step``
    seconds a reading (its readings written to ``folder / "readings"`` at exit)."""
    import os
    from pathlib import Path

    folder = Path(folder)
    (folder / "sitecustomize.py").write_text(CHILD_SITECUSTOMIZE, encoding="utf-8")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(folder)] + [p for p in [env.get("PYTHONPATH")]
                                                          if p])
    env["SDG_TEST_CLOCK_STEP"] = str(step)
    env["SDG_TEST_CLOCK_FILE"] = str(folder / "readings")
    return env


def child_readings(folder: Any) -> int:
    """How many times the child's budgets read their clock (−1: the child wrote nothing)."""
    from pathlib import Path

    path = Path(folder) / "readings"
    return int(path.read_text(encoding="utf-8")) if path.exists() else -1
