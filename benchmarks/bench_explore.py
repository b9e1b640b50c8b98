"""Exploration with the memoized ``step`` against ``step_reference`` (issue 11 §1), and
the compiled kernels against both (issue 18).

Every figure is a whole child process (``python -m benchmarks.peak``, so VmHWM
is that process's own peak), the routes run back to back on the same instance:

* *old* — every automaton built with ``memo_limit=0``, so that ``step`` and
  ``follow`` are ``step_reference``, the Step 3–4 computation before issue
  11; for ``max`` also the breadth-first search before it (:func:`_crawl_bfs`:
  the crawl with a dict index and a per-state callback);
* *new* — the memoized step (one table per group of nonterminals, compiled
  into ``follow``), and the search loop written out over packed states
  (``engine="python"``);
* *compiled* — the numba kernels (``engine="compiled"``): the step as table
  lookups over part ids, the store in numpy arrays.  Its CPU includes importing
  numba and loading the cached kernels (about 0.7–0.9 s on the development
  machine), so small instances show the fixed cost, large ones the rate.

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
from typing import Any

from benchmarks.common import child, show
from sdg_automata.generators.families import (
    ModularSpec,
    intersection_grammar,
    modular_family,
    modular_truth,
    product_truth,
    random_family,
)
from sdg_automata.grammar import Grammar, Rule
from sdg_automata.grammar.parse import grammar_to_json

#: (what, instance): "modular SPECS" or "random DFAS STATES SEED"
EXPLORE = [
    ("modular", "3:0 5:2 7:3 11:5 13:1"),            # 30,031 states
    ("modular", "16:0 27:6 5:0 7:3 11:5"),           # 166,321 states
    ("modular", "3:0 5:2 7:3 11:5 13:1 17:14"),      # 510,511 states
    ("random", "3 12 7"),                            # 86,327 states
    ("random", "3 14 1"),                            # 2,564,941 states
    ("random", "4 14 6"),                            # 12,738,286 states (no old route: minutes)
    ("one group", "3:0 5:2 7:3 11:5 13:1"),          # no memo: must cost what the reference does
]
#: instances too large for the old route (step_reference on every step)
NO_OLD = {"4 14 6"}
MAX = [
    ("modular", "3:0 5:2 7:3 11:5 13:1 3:1"),        # max 5 < m_A = 6: every state explored
    ("modular", "3:0 5:2 7:3 11:5 13:1 17:14 3:1"),  # max 6 < m_A = 7: 510,511 states
    ("random", "3 12 28"),                           # max 0 < m_A = 2: 54,258 states
]
#: the routes measured, in the table's order
ROUTES = ("old", "new", "compiled")
QUICK_EXPLORE = [("modular", "3:0 5:2 7:3"), ("random", "3 5 7")]
QUICK_MAX = [("modular", "3:0 5:2 7:3 3:1"), ("random", "3 10 25")]
EXAMPLE3 = Path(__file__).resolve().parent.parent / "examples" / "example3.json"


def _instance(kind: str, spec: str, folder: Path) -> tuple[Path, int | None]:
    """The grammar written to ``folder`` and its independently known maximum."""
    if kind in ("modular", "one group"):
        specs = [ModularSpec.parse(s) for s in spec.split()]
        g, truth = modular_family(specs), modular_truth(specs)[0]
        if kind == "one group":  # A → a Dᵢ for every DFA: everything tied to A, one group
            starts = [f"D{i}_0" for i in range(1, len(specs) + 1)]
            g = Grammar(rules=[*(Rule(g.start, ("a", d)) for d in starts),
                               *(r for r in g.rules if r.head != g.start)],
                        start=g.start, terminals=g.terminals)
            truth = None  # another game; both routes must agree
    else:
        count, states, seed = map(int, spec.split())
        dfas = random_family(count, states, seed=seed)
        g, truth = intersection_grammar(dfas), product_truth(dfas)[0]
    path = folder / f"{kind.replace(' ', '_')}_{spec.replace(' ', '_').replace(':', '-')}.json"
    path.write_text(grammar_to_json(g), encoding="utf-8")
    return path, truth


def _measure(task: str, route: str, path: Path) -> dict:
    seconds, peak, out = child(["-m", "benchmarks.bench_explore", task, route, str(path)],
                               timeout=1800)
    if not out.strip():  # child() lets exit code 1 through (a decision's "no"); not ours
        raise RuntimeError(f"{task} {route} {path.name}: the child printed nothing")
    return {**json.loads(out), "wall": seconds, "peak": peak}


def run(quick: bool = False) -> list[dict]:
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as tmp:
        # each route's floor: the same child on a 13-state instance (numba loaded for the
        # compiled route: its memory is part of the floor, not of the states)
        tiny, _ = _instance("modular", "3:0 5:1", Path(tmp))
        floor = {(task, route): _measure(task, route, tiny)["peak"]
                 for task in ("explore", "max") for route in ROUTES}
        for task, cases in (("explore", QUICK_EXPLORE if quick else EXPLORE),
                            ("max", QUICK_MAX if quick else MAX)):
            for kind, spec in cases:
                path, truth = _instance(kind, spec, Path(tmp))
                new, fast = (_measure(task, route, path) for route in ROUTES[1:])
                old = new if spec in NO_OLD else _measure(task, "old", path)
                assert old["states"] == new["states"] == fast["states"], (spec, old, new, fast)
                if task == "max":
                    assert old["max"] == new["max"] == fast["max"] == truth and new["exact"], (
                        spec, old, new, fast)
                else:
                    assert old["top"] == new["top"] == fast["top"] and truth in (
                        None, new["top"]), (spec, old, new, fast)
                row = {"task": task, "kind": kind, "instance": spec, "states": new["states"]}
                for route, r in (("old", old), ("new", new), ("compiled", fast)):
                    if route == "old" and spec in NO_OLD:
                        row |= {"old_cpu": "-", "old_states_per_s": "-", "old_mb": "-",
                                "old_bytes_per_state": "-"}
                        continue
                    row[f"{route}_cpu"] = r["cpu"]
                    row[f"{route}_states_per_s"] = r["states"] / max(r["cpu"], 1e-9)
                    row[f"{route}_mb"] = r["peak"] / 2**20
                    row[f"{route}_bytes_per_state"] = ((r["peak"] - floor[task, route])
                                                       / r["states"]
                                                       if r["states"] >= 5000 else "-")
                row["speedup"] = "-" if spec in NO_OLD else old["cpu"] / max(new["cpu"], 1e-9)
                row["compiled_speedup"] = new["cpu"] / max(fast["cpu"], 1e-9)
                row["compiled_engine"] = fast["engine"]
                row["memo_entries"] = new.get("memo", "-")
                rows.append(row)
    show("exploration: memoized step (new) vs step_reference (old) vs the compiled kernels, "
         "one child process each; CPU seconds of the exploration or search alone",
         ["task", "instance", "states", "old s", "new s", "compiled s", "new/old",
          "compiled/new", "new states/s", "compiled states/s", "new MB", "compiled MB",
          "new B/state", "compiled B/state", "memo entries"],
         [[r["task"], f"{r['kind']} {r['instance']}", r["states"], r["old_cpu"], r["new_cpu"],
           r["compiled_cpu"], r["speedup"], r["compiled_speedup"]
           if r["compiled_engine"] == "compiled" else "(Python: one group)",
           r["new_states_per_s"], r["compiled_states_per_s"], r["new_mb"], r["compiled_mb"],
           r["new_bytes_per_state"], r["compiled_bytes_per_state"]
           if r["compiled_engine"] == "compiled" else "-", r["memo_entries"]]
          for r in rows])
    print("B/state = (VmHWM − the same child's VmHWM on a 13-state instance: "
          + ", ".join(f"{task} {route} {peak / 2**20:.1f} MB"
                      for (task, route), peak in floor.items())
          + ") / states (from 5,000 states on)")
    return rows


def _crawl_bfs(search: Any) -> Any:
    """The breadth-first search before issue 11 (engine b1be8b6), kept as the reference:
    :func:`~sdg_automata.automaton.crawl.crawl` (a dict index, a list of states) with a ``stop``
    callback reading 𝒢_A off every new state."""
    from sdg_automata.automaton.crawl import crawl
    from sdg_automata.search.request import SearchResult, nbytes

    value, settled, walk = search.walk.value, search.settled, search.walk
    found_at: dict[int, int] = {}

    def stop(t: int, s: int) -> bool:
        v = value(s)
        if v is not None and v not in found_at:
            found_at[v] = t
            return bool(settled(v))
        return False

    c = crawl(walk.initial, walk.follow, walk.letters, search.budget, what="search", rows=False,
              stop=stop)
    witness = search.automaton.witness
    return SearchResult(found={v: witness(c.path(t)) for v, t in found_at.items()},
                         explored=len(c.states), complete=c.complete,
                         peak_bytes=nbytes(c.index, c.states, c.parent, c.via))


def _child(task: str, route: str, path: str) -> None:
    """One measurement in this process: prints one JSON line."""
    import warnings

    from sdg_automata.automaton.construction import GrundyAutomaton
    from sdg_automata.grammar.parse import load_grammar
    from sdg_automata.search.decide import max_grundy

    warnings.simplefilter("ignore")  # the one-group instance runs in Python: said in the table
    engine = "compiled" if route == "compiled" else "python"

    if route == "old":  # the Step 3–4 computation and the search loop before issue 11
        import dataclasses

        from sdg_automata.search import strategies

        # no memo: every automaton's step and follow are step_reference
        GrundyAutomaton.__init__.__kwdefaults__["memo_limit"] = 0
        strategies.register(dataclasses.replace(strategies.get("bfs"), run=_crawl_bfs))
    g = load_grammar(path)
    report: dict = {}
    started = time.process_time()
    if task == "explore":
        m = GrundyAutomaton(g)
        reachable = m.explore(engine=engine)
        report["cpu"] = time.process_time() - started
        values = [v for v in reachable.values(g.start) if v is not None]
        report |= {"states": len(reachable), "top": max(values, default=None),
                   "memo": sum(map(sum, m.memo_sizes().values())),
                   "engine": "compiled" if route == "compiled" and m.layout else "python"}
    else:
        verdict = max_grundy(g, g.start, strategy="bfs", engine=engine)
        report["cpu"] = time.process_time() - started
        report |= {"states": verdict.states, "max": verdict.maximum, "exact": verdict.exact,
                   "engine": None if verdict.engine is None else verdict.engine.name}
    print(json.dumps(report))


if __name__ == "__main__":
    if len(sys.argv) == 4:
        _child(*sys.argv[1:])
    else:
        run(quick="--quick" in sys.argv)
