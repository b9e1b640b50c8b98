"""Shared helpers: timing, child processes with their peak memory, rich tables."""

from __future__ import annotations

import gc
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

SEED = 42


def best_of(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """The smallest wall time of ``repeat`` runs (noise only ever adds time), and the result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        t = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t)
    return best, result


def child(args: Sequence[str], *, timeout: float = 600) -> tuple[float, int, str]:
    """Run ``python -m MODULE args...`` (``args`` starts with ``-m MODULE``) as a whole
    process: (wall seconds, peak RSS bytes of that process alone, stdout)."""
    assert args[0] == "-m", "child() runs modules: pass ['-m', MODULE, ...]"
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "benchmarks.peak", *args[1:]],
                          capture_output=True, text=True, timeout=timeout,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    seconds = time.perf_counter() - t
    if done.returncode not in (0, 1):  # 1 is a decision's "no"
        raise RuntimeError(f"{' '.join(args)} exited {done.returncode}: {done.stderr[-800:]}")
    peak = int(re.findall(r"PEAK_KB (\d+)", done.stderr)[-1]) * 1024
    return seconds, peak, done.stdout


def child_cpu(args: Sequence[str], *, timeout: float = 1800,
              env: dict[str, str] | None = None,
              ok: tuple[int, ...] = (0, 1)) -> tuple[float, int, str]:
    """As :func:`child`, but (CPU seconds user+sys of the whole child process, peak RSS
    bytes, stdout); ``env`` adds variables to the child's environment; ``ok`` are the
    exit codes that are results (a decision's 1, a budget's 3 where the caller reads it)."""
    import resource

    assert args[0] == "-m", "child_cpu() runs modules: pass ['-m', MODULE, ...]"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, "-m", "benchmarks.peak", *args[1:]],
                          capture_output=True, text=True, timeout=timeout,
                          env={**os.environ, **(env or {})},
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in ok:  # 1 is a decision's "no"
        raise RuntimeError(f"{' '.join(args)} exited {done.returncode}: {done.stderr[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    peak = int(re.findall(r"PEAK_KB (\d+)", done.stderr)[-1]) * 1024
    return cpu, peak, done.stdout


def show(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Print a table to the terminal (rich)."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for c in columns:
        table.add_column(c, justify="right" if c != columns[0] else "left")
    for r in rows:
        table.add_row(*(fmt(x) for x in r))
    Console(width=220).print(table)


def fmt(x: Any) -> str:
    if isinstance(x, float):
        if x >= 100:
            return f"{x:,.0f}"
        return f"{x:.3g}"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def installs(prefix: str, root: str, scratch: str) -> dict[str, tuple[str, dict[str, str], str]]:
    """The interpreters to compare, as ``{who: (python, environment, working directory)}``:
    ``"now"`` (this one, in this checkout, or ``{prefix}_NOW``) and ``"baseline"`` when
    ``{prefix}_BASELINE`` names another install's interpreter.  A named install runs
    without ``PYTHONPATH``, from ``scratch`` (not this checkout), so that it imports its
    own package."""
    installed = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    pythons = {"now": (sys.executable, dict(os.environ), root)}
    if os.environ.get(f"{prefix}_NOW"):
        pythons["now"] = (os.environ[f"{prefix}_NOW"], installed, scratch)
    if os.environ.get(f"{prefix}_BASELINE"):
        pythons["baseline"] = (os.environ[f"{prefix}_BASELINE"], installed, scratch)
    return pythons
