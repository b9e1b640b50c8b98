"""The native kernel libraries against numba's dispatchers, whole process (issue 36 §4).

Every compiled route of the package links its kernels from a native library once it is
cached (:mod:`sdg_automata.kernels.native`: ``bfs_native``, ``compact_native``,
``lasso_native``, ``records_native``, ``octal``), instead of importing numba and loading
its cached dispatchers (about 0.8 CPU s and 100 MB a process).  Each row runs one
command as ``python -m sdg_automata ...`` in a fresh process, natively and with
``SDG_AUTOMATA_NATIVE=0`` (numba's dispatchers: the same kernels), interleaved,
``repeat`` times after one unmeasured run of each (which builds or fills the caches), and
reports the median CPU time (user + sys of that child alone) and peak RSS of each, and
their ratio.  The two routes' outputs must be equal (the JSON answers without their
timings; a DFA's table as printed), and the ``max`` rows must give the closed form's or
automata-lib's maximum.

``python -m benchmarks bench_native [--quick]`` prints the table; ``run()`` returns the
rows.
"""

from __future__ import annotations

import json
import statistics
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.bench_explore import _instance
from benchmarks.common import child_cpu, show

#: (library, command with GRAMMAR for the instance's file, instance): "modular SPECS",
#: "random DFAS STATES SEED", or None (no grammar: an octal game)
CASES: list[tuple[str, list[str], str | None]] = [
    ("records_native", ["dfa", "GRAMMAR", "A", "1", "--engine", "compiled"],
     "random 3 12 7"),                                       # exploration, 86,327 states
    ("records_native", ["max", "GRAMMAR", "A", "--strategy", "dfs", "--engine", "compiled",
                        "--json"], "modular 3:0 5:2 7:3 11:5 13:1 17:14 3:1"),
    ("bfs_native", ["max", "GRAMMAR", "A", "--strategy", "bfs", "--engine", "compiled",
                    "--json"], "modular 3:0 5:2 7:3 11:5 13:1 17:14 3:1"),  # 510,511 states,
    # all explored: max 6 < m_A = 7
    ("compact_native", ["max", "GRAMMAR", "A", "--strategy", "bfs", "--engine", "compact",
                        "--json"], "modular 3:0 5:2 7:3 11:5 13:1 17:14 3:1"),
    ("lasso_native", ["max", "GRAMMAR", "A", "--engine", "compiled", "--json"],
     "modular 2:0 3:2 5:3 7:6 11:10 13:9 17:5 3:0"),         # one letter
    ("octal", ["octal", "0.16", "--engine", "compiled", "--json"], None),
]
QUICK: list[tuple[str, list[str], str | None]] = [
    ("records_native", ["dfa", "GRAMMAR", "A", "1", "--engine", "compiled"], "random 3 5 7"),
    ("bfs_native", ["max", "GRAMMAR", "A", "--strategy", "bfs", "--engine", "compiled",
                    "--json"], "modular 3:0 5:2 7:3 3:1"),
    ("octal", ["octal", "0.137", "--engine", "compiled", "--json"], None),
]
#: fields of a JSON answer that measure the run rather than answer it
TIMINGS = {"seconds", "peak_bytes", "cpu_seconds", "elapsed"}


def _answer(out: str) -> Any:
    """The output without what measures the run (JSON), or as printed (a table)."""
    try:
        found = json.loads(out)
    except json.JSONDecodeError:
        return out

    def strip(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: strip(v) for k, v in x.items() if k not in TIMINGS}
        if isinstance(x, list):
            return [strip(v) for v in x]
        return x

    return strip(found)


def run(quick: bool = False) -> list[dict[str, Any]]:
    repeat = 1 if quick else 3
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        for library, command, spec in QUICK if quick else CASES:
            truth = None
            if spec is not None:
                kind, instance = spec.split(" ", 1)
                path, truth = _instance(kind, instance, Path(tmp))
                command = [str(path) if a == "GRAMMAR" else a for a in command]
            args = ["-m", "sdg_automata", *command]
            routes: dict[str, dict[str, str]] = {"native": {},
                                                 "numba": {"SDG_AUTOMATA_NATIVE": "0"}}
            answers = {name: _answer(child_cpu(args, env=env)[2])  # unmeasured: the caches
                       for name, env in routes.items()}
            assert answers["native"] == answers["numba"], (command, answers)
            if command[0] == "max":
                assert answers["native"]["max"] == truth, (command, answers["native"], truth)
            cpu: dict[str, list[float]] = {name: [] for name in routes}
            peak: dict[str, list[int]] = {name: [] for name in routes}
            for _ in range(repeat):  # interleaved: the machine's load falls on both
                for name, env in routes.items():
                    seconds, rss, _ = child_cpu(args, env=env)
                    cpu[name].append(seconds)
                    peak[name].append(rss)
            row: dict[str, Any] = {"library": library, "command": " ".join(command[:1] + [
                a if not a.endswith(".json") else Path(a).stem for a in command[1:]])}
            for name in routes:
                row[f"{name}_cpu"] = statistics.median(cpu[name])
                row[f"{name}_mb"] = statistics.median(peak[name]) / 2**20
            row["cpu_ratio"] = row["numba_cpu"] / max(row["native_cpu"], 1e-9)
            rows.append(row)
    show("native libraries vs numba's dispatchers (SDG_AUTOMATA_NATIVE=0), whole process, "
         f"median of {repeat} interleaved runs; CPU = user + sys",
         ["library", "command", "native CPU s", "numba CPU s", "numba / native",
          "native MB", "numba MB"],
         [[r["library"], r["command"], r["native_cpu"], r["numba_cpu"], r["cpu_ratio"],
           r["native_mb"], r["numba_mb"]] for r in rows])
    return rows


if __name__ == "__main__":
    import sys

    run(quick="--quick" in sys.argv)
