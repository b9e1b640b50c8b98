"""Exploration with the memoized ``step`` against ``step_reference`` (issue 11 §1).

Every figure is a whole child process (``python -m benchmarks.peak``, so VmHWM
is that process's own peak), old and new run back to back on the same instance:

* *old* — ``GrundyAutomaton.step`` replaced by ``step_reference``, today's
  Step 3–4 computation, on the same exploration and search loops;
* *new* — the memoized ``step`` (one table per group of nonterminals).

Rows: ``explore()`` of the reachable part (states/s over the CPU time of the
exploration alone; bytes/state = (VmHWM − the child's floor on Example 3) /
states), and ``max_grundy`` on the fly on instances whose maximum is below m_A,
so the search must exhaust the reachable part ("full").  Instances come from the
hardness family of SPEC §5 (unary modular DFAs, answer by the CRT) and from
``family random`` (binary DFAs, answer by automata-lib's products); both routes
must return the same states and the independent answer.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import child, show
from sdg_automata.families import (
    ModularSpec,
    intersection_grammar,
    modular_family,
    modular_truth,
    product_truth,
    random_family,
)
from sdg_automata.parse import grammar_to_json

#: (what, instance): "modular SPECS" or "random DFAS STATES SEED"
EXPLORE = [
    ("modular", "3:0 5:2 7:3 11:5 13:1"),            # 30,031 states
    ("modular", "16:0 27:6 5:0 7:3 11:5"),           # 166,321 states
    ("modular", "3:0 5:2 7:3 11:5 13:1 17:14"),      # 510,511 states
    ("random", "3 12 7"),                            # 86,327 states
    ("random", "3 14 1"),                            # 2,564,941 states
]
MAX = [
    ("modular", "3:0 5:2 7:3 11:5 13:1 3:1"),        # max 5 < m_A = 6: every state explored
    ("modular", "3:0 5:2 7:3 11:5 13:1 17:14 3:1"),  # the same at 510k states
    ("random", "3 12 28"),                           # max 0 < m_A = 2: 54,258 states
]
QUICK_EXPLORE = [("modular", "3:0 5:2 7:3"), ("random", "3 5 7")]
QUICK_MAX = [("modular", "3:0 5:2 7:3 3:1"), ("random", "3 10 25")]
EXAMPLE3 = Path(__file__).resolve().parent.parent / "examples" / "example3.json"


def _instance(kind: str, spec: str, folder: Path) -> tuple[Path, int | None]:
    """The grammar written to ``folder`` and its independently known maximum."""
    if kind == "modular":
        specs = [ModularSpec.parse(s) for s in spec.split()]
        g, truth = modular_family(specs), modular_truth(specs)[0]
    else:
        count, states, seed = map(int, spec.split())
        dfas = random_family(count, states, seed=seed)
        g, truth = intersection_grammar(dfas), product_truth(dfas)
    path = folder / f"{kind}_{spec.replace(' ', '_').replace(':', '-')}.json"
    path.write_text(grammar_to_json(g), encoding="utf-8")
    return path, truth


def _measure(task: str, route: str, path: Path) -> dict:
    seconds, peak, out = child(["-m", "benchmarks.bench_explore", task, route, str(path)],
                               timeout=1800)
    return {**json.loads(out), "wall": seconds, "peak": peak}


def run(quick: bool = False) -> list[dict]:
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        floor = {route: _measure("explore", route, EXAMPLE3)["peak"] for route in ("old", "new")}
        for task, cases in (("explore", QUICK_EXPLORE if quick else EXPLORE),
                            ("max", QUICK_MAX if quick else MAX)):
            for kind, spec in cases:
                path, truth = _instance(kind, spec, Path(tmp))
                old, new = (_measure(task, route, path) for route in ("old", "new"))
                assert old["states"] == new["states"], (spec, old, new)
                if task == "max":
                    assert old["max"] == new["max"] == truth and new["exact"], (spec, old, new)
                else:
                    assert old["top"] == new["top"] == truth, (spec, old, new)
                row = {"task": task, "kind": kind, "instance": spec, "states": new["states"]}
                for route, r in (("old", old), ("new", new)):
                    row[f"{route}_cpu"] = r["cpu"]
                    row[f"{route}_states_per_s"] = r["states"] / max(r["cpu"], 1e-9)
                    row[f"{route}_mb"] = r["peak"] / 2**20
                    row[f"{route}_bytes_per_state"] = ((r["peak"] - floor[route]) / r["states"]
                                                       if r["states"] >= 5000 else "-")
                row["speedup"] = old["cpu"] / max(new["cpu"], 1e-9)
                row["memo_entries"] = new.get("memo", "-")
                rows.append(row)
    show("exploration: memoized step (new) vs step_reference (old), one child process each; "
         "CPU seconds of the exploration or search alone",
         ["task", "instance", "states", "old s", "new s", "speedup", "old states/s",
          "new states/s", "old MB", "new MB", "old B/state", "new B/state", "memo entries"],
         [[r["task"], f"{r['kind']} {r['instance']}", r["states"], r["old_cpu"], r["new_cpu"],
           r["speedup"], r["old_states_per_s"], r["new_states_per_s"], r["old_mb"],
           r["new_mb"], r["old_bytes_per_state"], r["new_bytes_per_state"],
           r["memo_entries"]] for r in rows])
    print(f"B/state = (VmHWM − the same child's VmHWM on Example 3: old "
          f"{floor['old'] / 2**20:.1f} MB, new {floor['new'] / 2**20:.1f} MB) / states "
          f"(from 5,000 states on)")
    return rows


def _child(task: str, route: str, path: str) -> None:
    """One measurement in this process: prints one JSON line."""
    from sdg_automata.construction import GrundyAutomaton
    from sdg_automata.decide import max_grundy
    from sdg_automata.parse import load_grammar

    if route == "old":  # today's Step 3–4 computation, in every caller
        GrundyAutomaton.step = GrundyAutomaton.step_reference  # type: ignore[method-assign]
    g = load_grammar(path)
    report: dict = {}
    started = time.process_time()
    if task == "explore":
        m = GrundyAutomaton(g)
        reachable = m.explore()
        report["cpu"] = time.process_time() - started
        values = [v for v in reachable.values(g.start) if v is not None]
        report |= {"states": len(reachable), "top": max(values, default=None),
                   "memo": sum(map(sum, m.memo_sizes().values()))}
    else:
        verdict = max_grundy(g, g.start)
        report["cpu"] = time.process_time() - started
        report |= {"states": verdict.states, "max": verdict.maximum, "exact": verdict.exact}
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) == 4:
        _child(*sys.argv[1:])
    else:
        run(quick="--quick" in sys.argv)
