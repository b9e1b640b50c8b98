"""Whole commands where users feel them (issue 28 §6): CPU time and peak RSS of one process.

A command's time as its user pays it: interpreter start, imports, numba's load
(which dominates short compiled runs), the work and the output.  Each command
runs as ``python -m sdg_automata ...`` in a fresh process, ``repeat`` times,
interleaved with the same command of another install when one is named, and
its CPU time (user + sys) and peak RSS are read from ``wait4`` for that child
alone, after one unmeasured run of each (which fills numba's cache, cold after an
install: the first compile takes seconds, once).  The two installs' JSON answers
must agree (preperiod, period and the values both list).

* ``octal 0.16 --json`` and ``octal 0.56 --json``: the long certifications
  (509,622 and 653,570 values).  Issue 28's goal: ≥ 8× 0.2.0's CPU.
* ``max example3 A 2`` is :mod:`benchmarks.bench_startup`'s (against 0.1.0).

To compare with 0.2.0 (or any install), name its interpreter in
``SDG_WHOLE_BASELINE``; as in ``bench_startup``, point ``SDG_WHOLE_NOW`` at a
regular install of this checkout for a fair ratio::

    python -m venv /tmp/v020 && /tmp/v020/bin/pip install ./checkout-of-0.2.0
    python -m venv /tmp/vnow && /tmp/vnow/bin/pip install .
    SDG_WHOLE_BASELINE=/tmp/v020/bin/python SDG_WHOLE_NOW=/tmp/vnow/bin/python \\
        python -m benchmarks bench_whole

``python -m benchmarks bench_whole [--quick]`` prints the table (quick: one run
of a short certification, Kayles, so the suite does not rot); ``run()``
returns the rows.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import installs, show

ROOT = Path(__file__).resolve().parent.parent
COMMANDS = {"octal 0.16 --json": ["octal", "0.16", "--json"],
            "octal 0.56 --json": ["octal", "0.56", "--json"]}
QUICK_COMMANDS = {"octal 0.77 --json": ["octal", "0.77", "--json"]}


def _measure(argv: list[str], env: dict[str, str], cwd: str) -> tuple[float, int, str]:
    """(CPU seconds user + sys, peak RSS bytes, stdout) of one whole process."""
    with tempfile.TemporaryFile() as out:
        child = subprocess.Popen(argv, env=env, cwd=cwd, stdout=out,
                                 stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            raise RuntimeError(f"{' '.join(argv)} exited {child.returncode}")
        out.seek(0)
        text = out.read().decode()
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024, text


def _answer(stdout: str) -> tuple[Any, ...]:
    """What two installs must agree on: the certified period and the values both list."""
    data = json.loads(stdout)
    return data["preperiod"], data["period"], data["certified"], data["values"][:1000]


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure; one dict per command."""
    repeat = 1 if quick else 3
    commands = QUICK_COMMANDS if quick else COMMANDS
    scratch = tempfile.mkdtemp(prefix="sdg-whole-")
    pythons = installs("SDG_WHOLE", str(ROOT), scratch)
    cpu: dict[tuple[str, str], list[float]] = {}
    peak: dict[tuple[str, str], int] = {}
    for args in commands.values():  # unmeasured: numba's cache, cold after an install
        for python, env, cwd in pythons.values():
            _measure([python, "-m", "sdg_automata", *args], env, cwd)
    for _ in range(repeat):  # interleaved, so that load on the machine hits every case alike
        for case, args in commands.items():
            answers = set()
            for who, (python, env, cwd) in pythons.items():
                seconds, rss, stdout = _measure([python, "-m", "sdg_automata", *args], env, cwd)
                cpu.setdefault((case, who), []).append(seconds)
                peak[(case, who)] = max(peak.get((case, who), 0), rss)
                answers.add(json.dumps(_answer(stdout)))
            assert len(answers) == 1, f"{case}: the installs disagree"
    os.rmdir(scratch)
    rows: list[dict[str, Any]] = []
    for case in commands:
        row: dict[str, Any] = {"command": case}
        for who in pythons:
            row[f"{who}_cpu_s"] = statistics.mean(cpu[(case, who)])
            row[f"{who}_peak_mb"] = peak[(case, who)] / 2**20
        if "baseline" in pythons:
            row["speedup"] = row["baseline_cpu_s"] / row["now_cpu_s"]
        rows.append(row)
    columns = ["command"] + [f"{who} {m}" for who in pythons for m in ("CPU s", "peak MB")]
    keys = [f"{who}_{m}" for who in pythons for m in ("cpu_s", "peak_mb")]
    if "baseline" in pythons:
        columns.append("baseline / now")
        keys.append("speedup")
    show(f"Whole commands, CPU (user+sys) per process, mean of {repeat}; "
         + "; ".join(f"{who}: {python}" for who, (python, _, _) in pythons.items()), columns,
         [[r["command"], *(r[k] for k in keys)] for r in rows])
    return rows


def main() -> None:
    run(quick="--quick" in sys.argv)


if __name__ == "__main__":
    main()
