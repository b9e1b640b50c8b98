"""Start-up: the whole-process CPU time of small commands (issue 18 §4).

Each command is run as ``python -m sdg_automata ...`` in a fresh process, many
times, interleaved with the floors it is compared with, and its CPU time
(user + sys, from ``wait4``) is averaged:

* ``python -c pass``: the interpreter alone, the floor nothing beats;
* ``--help`` and ``max examples/example3.json A 2``: what a user types first;
* the number of modules each imports (``-X importtime``).

To compare with another install (0.1.0 in its own venv, say), name its interpreter in
``SDG_STARTUP_BASELINE``: it runs the same commands in the same loop (from a scratch
directory, so it imports its own package), and the table gains the ratio now / baseline.
An editable install or ``PYTHONPATH`` costs start-up of its own (path hooks, ``.pth``
files), so point ``SDG_STARTUP_NOW`` at a regular install of this checkout too.  Issue 33
asks for at most 1.10× 0.1.0 (commit f4f2fa1) on both commands; from the checkout's root::

    git worktree add --detach /tmp/v010src f4f2fa1
    python3 -m venv /tmp/v010 && /tmp/v010/bin/pip install /tmp/v010src
    mkdir /tmp/vnowsrc && git archive HEAD | tar -x -C /tmp/vnowsrc
    python3 -m venv /tmp/vnow && /tmp/vnow/bin/pip install /tmp/vnowsrc
    SDG_STARTUP_BASELINE=/tmp/v010/bin/python SDG_STARTUP_NOW=/tmp/vnow/bin/python \\
        python -m benchmarks bench_startup

(``git archive``, not ``pip install .``: pip builds in the tree it is given, and the
checkout stays clean.)  On a shared machine the CPU times move with the load; the ratio,
measured side by side, moves much less, and ``valgrind --tool=callgrind`` counts the
instructions of one run when a steadier figure is needed.

``python -m benchmarks bench_startup [--quick]`` prints the table; ``run()``
returns the rows.
"""

from __future__ import annotations

import os
import re
import resource
import statistics
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import installs, show

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = str(ROOT / "examples" / "example3.json")
COMMANDS = {"--help": ["--help"], "max example3 A 2": ["max", EXAMPLE, "A", "2"]}


def _cpu(argv: list[str], env: dict[str, str], cwd: str) -> float:
    """CPU seconds (user + sys) of one whole process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _modules(python: str, args: list[str], env: dict[str, str], cwd: str) -> int:
    err = subprocess.run([python, "-X", "importtime", "-m", "sdg_automata", *args],
                         capture_output=True, text=True, env=env, cwd=cwd).stderr
    return len(re.findall(r"^import time:\s+\d+", err, re.M))


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure; one dict per command."""
    repeat = 5 if quick else 30
    scratch = tempfile.mkdtemp(prefix="sdg-startup-")
    pythons = installs("SDG_STARTUP", str(ROOT), scratch)
    cases: dict[str, list[str] | None] = {"python -c pass": None, **COMMANDS}
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(repeat):  # interleaved, so that load on the machine hits every case alike
        for case, args in cases.items():
            for who, (python, env, cwd) in pythons.items():
                argv = [python, "-c", "pass"] if args is None else [
                    python, "-m", "sdg_automata", *args]
                times.setdefault((case, who), []).append(_cpu(argv, env, cwd))
    rows: list[dict[str, Any]] = []
    for case, args in cases.items():
        row: dict[str, Any] = {"command": case}
        for who, (python, env, cwd) in pythons.items():
            row[f"{who}_cpu_ms"] = 1000 * statistics.mean(times[(case, who)])
            row[f"{who}_modules"] = None if args is None else _modules(python, args, env, cwd)
            row[f"{who}_over_python"] = row[f"{who}_cpu_ms"] / (
                1000 * statistics.mean(times[("python -c pass", who)]))
        if "baseline" in pythons:
            row["now_over_baseline"] = row["now_cpu_ms"] / row["baseline_cpu_ms"]
        rows.append(row)
    os.rmdir(scratch)
    columns = ["command", "now CPU ms", "modules", "× python -c pass"]
    if "baseline" in pythons:
        columns += ["baseline CPU ms", "modules", "× python -c pass", "now / baseline"]
    show(f"Start-up, CPU (user+sys) per process, mean of {repeat}; "
         + "; ".join(f"{who}: {python}" for who, (python, _, _) in pythons.items()), columns,
         [[r.get(key) or "-" for key in (
             "command", *(f"{who}_{m}" for who in pythons
                          for m in ("cpu_ms", "modules", "over_python")),
             *(["now_over_baseline"] if "baseline" in pythons else []))] for r in rows])
    return rows
