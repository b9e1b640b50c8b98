"""Shared helpers: timing, child processes with their peak memory, rich tables."""

from __future__ import annotations

import gc
import os
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
    """Run ``python args...`` as a whole process: (wall seconds, peak RSS bytes, stdout)."""
    t = time.perf_counter()
    proc = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return time.perf_counter() - t, usage.ru_maxrss * 1024, out


def show(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Print a table to the terminal (rich)."""
    from rich.console import Console
    from rich.table import Table

    table = Table(title=title, title_justify="left")
    for c in columns:
        table.add_column(c, justify="right" if c != columns[0] else "left")
    for r in rows:
        table.add_row(*(fmt(x) for x in r))
    Console(width=160).print(table)


def fmt(x: Any) -> str:
    if isinstance(x, float):
        if x >= 100:
            return f"{x:,.0f}"
        return f"{x:.3g}"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)
