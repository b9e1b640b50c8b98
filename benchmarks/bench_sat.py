"""Max-Grundy beyond explicit reach: SAT (``max --strategy sat``) against the explicit search.

The instances are the planted intersection family (``family intersection``, issue 20):
K random DFAs on 10 states over {a, b, c}, each accepting exactly the words that end
where one planted word of length 30 ends, through the reduction of SPEC §5, so
max 𝒢(A) = K is known.  For each K one process runs ``max G A --strategy sat`` and
one runs the explicit breadth-first search ``max G A --max-states 10^7``, side by
side in this run; each is measured as a whole process: CPU time (user + sys, from
``wait4``) and peak RSS (VmHWM, ``benchmarks.peak``).  Every SAT witness is checked
by running the DFAs on it (automata-lib), and where the explicit search finishes,
its maximum and shortest witness length must equal SAT's.  The crossover is the
smallest K from which SAT takes less CPU time than the explicit search at every
larger K measured.  Once the explicit search has run out of its budget for two K in
a row it is not run for larger K (its states only get wider, and each such run takes
minutes): those rows say "not run".
"""

from __future__ import annotations

import json
import os
import re
import resource
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.common import SEED, show
from sdg_automata.generators.families import intersection_grammar, planted_intersection
from sdg_automata.grammar.parse import grammar_to_json

#: (K values, states per DFA, planted length, explicit search's state budget)
FULL = (range(8, 25, 2), 10, 30, 10**7)
QUICK = (range(3, 6), 6, 10, 10**5)
#: address space of each measured process: the explicit search's states are as wide as the
#: automaton's items (3,588 bits at K = 24), so 10⁷ of them would not fit in a shared machine's
#: share; it then stops "before memory ran out", with exit 3 like any budget
MEMORY_CAP = 5 << 30
ROOT = Path(__file__).resolve().parent.parent


def measured(args: list[str], *, cap: int = MEMORY_CAP) -> tuple[float, int, int, str, str]:
    """Run ``python -m benchmarks.peak sdg_automata ARGS`` in ``cap`` bytes of address space:
    (CPU seconds, user + sys, of that process and what it ran and waited for (``wait4``:
    ABC for ``--strategy pdr``); the largest peak RSS among them in bytes; exit code;
    stdout; stderr)."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", "benchmarks.peak", "sdg_automata", *args],
                                stdout=out, stderr=err, text=True, cwd=ROOT, preexec_fn=limit)
        _, status, usage = os.wait4(proc.pid, 0)  # the child's own rusage, unlike waitpid
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    peak = max(int(re.findall(r"PEAK_KB (\d+)", stderr)[-1]), usage.ru_maxrss) * 1024
    return usage.ru_utime + usage.ru_stime, peak, proc.returncode, stdout, stderr


def run(quick: bool = False) -> list[dict[str, Any]]:
    ks, states, length, budget = QUICK if quick else FULL
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in ks:
            dfas, planted = planted_intersection(k, states, length=length, seed=SEED)
            path = Path(tmp) / f"planted{k}.json"
            path.write_text(grammar_to_json(intersection_grammar(dfas)), encoding="utf-8")
            sat_cpu, sat_rss, code, out, err = measured(["max", str(path), "A", "--strategy",
                                                         "sat", "--json"])
            assert code == 0, err
            sat = json.loads(out)
            word = sat["witness"]
            solver = sat["evidence"]["solver"]
            assert sat["max"] == k and sat["exact"], sat
            assert all(d.accepts_input(word) for d in dfas), (k, word)
            row: dict[str, Any] = {
                "k": k, "planted": planted, "witness_length": len(word), "sat_cpu_s": sat_cpu,
                "sat_mb": sat_rss / 2**20, "sat_variables": solver["variables"],
                "sat_clauses": solver["clauses"],
                "sat_conflicts": solver["conflicts"], "explicit": "not run",
                "explicit_states": "-", "explicit_cpu_s": "-", "explicit_mb": "-",
                "cpu_ratio": "-"}
            rows.append(row)
            if sum(r["explicit"] != f"max {r['k']}" for r in rows[-3:-1]) == 2:
                print(f"K = {k}: SAT {sat_cpu:.1f} s CPU, explicit not run", file=sys.stderr,
                      flush=True)
                continue
            bfs_cpu, bfs_rss, code, out, err = measured(["max", str(path), "A", "--json",
                                                         "--max-states", str(budget)])
            if code == 0:
                bfs = json.loads(out)
                assert bfs["max"] == k and len(bfs["witness"]) == len(word), (bfs, sat)
                explicit, reached = f"max {k}", bfs["states"]
            else:  # the state budget, or memory (MEMORY_CAP) first
                assert code == 3, err
                explicit = "out of budget" if "budget of" in err else "out of memory"
                reached = int(re.findall(r"(\d+) states", err)[-1])
            print(f"K = {k}: SAT {sat_cpu:.1f} s CPU, explicit {explicit} after {reached:,} "
                  f"states, {bfs_cpu:.1f} s CPU", file=sys.stderr, flush=True)
            row.update(explicit=explicit, explicit_states=reached, explicit_cpu_s=bfs_cpu,
                       explicit_mb=bfs_rss / 2**20, cpu_ratio=bfs_cpu / sat_cpu)
    crossover = None
    for row in reversed(rows):  # the smallest K from which SAT wins at every larger K measured
        if row["explicit"] == "not run":
            continue
        if row["sat_cpu_s"] >= row["explicit_cpu_s"]:
            break
        crossover = row["k"]
    show(f"max: SAT (CaDiCaL) vs explicit search (budget {budget:,} states, address space "
         f"{MEMORY_CAP >> 30} GB); {states}-state "
         f"DFAs over abc with a planted word of length {length}; whole processes, CPU = user + "
         "sys", ["K", "shortest", "SAT CPU s", "SAT MB", "variables", "clauses", "conflicts",
                 "explicit", "states", "explicit CPU s", "explicit MB", "CPU ratio"],
         [[r["k"], r["witness_length"], r["sat_cpu_s"], r["sat_mb"], r["sat_variables"],
           r["sat_clauses"], r["sat_conflicts"], r["explicit"], r["explicit_states"],
           r["explicit_cpu_s"], r["explicit_mb"], r["cpu_ratio"]] for r in rows])
    print(f"crossover: SAT takes less CPU time than the explicit search from K = {crossover} on"
          if crossover is not None else "crossover: none in this range")
    return rows + [{"crossover_k": crossover, "explicit_budget": budget}]


def main() -> None:
    run()


if __name__ == "__main__":
    main()
