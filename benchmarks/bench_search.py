"""The compiled kernels against the Python reference (issue 18), side by side in one run.

Every figure is a whole child process (``python -m benchmarks.peak``): CPU time user +
sys of the process (interpreter, imports, numba and the kernels' cached machine code
included) and its peak RSS (VmHWM), plus the CPU time of the search alone measured
inside the child.  Each row runs the Python engine and the compiled engine on the
same instance, one after the other; both must give the same states, maximum and
witness length, and the independent answer (the CRT for the unary hardness family,
automata-lib's products for random binary DFAs).

* *search* — ``max_grundy(..., strategy="bfs")`` on instances whose maximum is below
  m_A, so that every reachable state is stored (the store, not the lasso);
* *bytes/state* — the growth of peak RSS between two instance sizes of the same
  family, divided by the growth of the states: what one more state costs;
* *lasso* — ``strategy="lasso"`` on the unary instance with moduli 2·3·…·23, about
  2.2·10⁸ states, compiled only (the Python lasso walks ~10⁶ states/s);
* *numba* — the fixed cost of the compiled engine: importing numba and loading the
  kernels from the on-disk cache, and compiling them with a cold cache.

``python -m benchmarks bench_search [--quick]``; ``--quick`` keeps every size small.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.common import child_cpu, show
from sdg_automata.generators.families import (
    ModularSpec,
    even_length_dfa,
    intersection_grammar,
    modular_family,
    modular_truth,
    product_truth,
    random_family,
)
from sdg_automata.grammar.parse import grammar_to_json

#: (label, kind, instance), each with its maximum below m_A so that the search stores
#: every reachable state: "modular SPECS" (the last congruence contradicts an earlier one)
#: or "random DFAS STATES SEED" (``family random``'s DFAs, then the complement of the
#: first one: no word is in all of them, so the maximum is at most DFAS < m_A = DFAS + 1)
SEARCH = [
    ("unary 10⁶", "modular", "8:0 27:6 5:0 7:3 11:5 13:1 3:1"),        # 1,081,081 states
    ("unary 10⁷", "modular", "16:0 27:6 25:0 7:3 11:5 13:1 3:1"),      # 10,810,801 states
    ("binary 2.6·10⁶", "random", "3 14 1"),                            # 2,564,942 states
    ("binary 1.3·10⁷", "random", "4 14 6"),                            # 12,738,287 states
]
#: pairs of SEARCH rows whose peak RSS growth per state is reported
GROWTH = [("unary 10⁶", "unary 10⁷"), ("binary 2.6·10⁶", "binary 1.3·10⁷")]
#: the lasso: moduli 2·3·…·23 (λ = 223,092,870), the residues of 160,949,018, and a
#: tenth DFA contradicting the mod-3 one so that the maximum (9) is below m_A (10) and
#: Brent's detection must close the whole lasso; and the same without it, which settles
#: at the CRT solution n = 160,949,018
LASSO = [("lasso, whole", "2:0 3:2 5:3 7:6 11:10 13:9 17:5 19:18 23:9 3:0"),
         ("lasso, settles", "2:0 3:2 5:3 7:6 11:10 13:9 17:5 19:18 23:9")]
QUICK_SEARCH = [("unary 2·10³", "modular", "3:0 5:2 7:3 11:5 3:1"),   # 2,311 states
                ("unary 3·10⁴", "modular", "3:0 5:2 7:3 11:5 13:1 3:1"),
                ("binary 10⁴", "random", "3 11 1")]                    # 13,259 states
QUICK_GROWTH = [("unary 2·10³", "unary 3·10⁴")]
QUICK_LASSO = [("lasso, whole", "3:2 5:3 7:6 11:10 3:0")]


def _instance(kind: str, spec: str, folder: Path) -> tuple[Path, int | None, int | None]:
    """The grammar written to ``folder``, its maximum and shortest witness length."""
    if kind == "modular":
        specs = [ModularSpec.parse(s) for s in spec.split()]
        g, (truth, length) = modular_family(specs), modular_truth(specs)
    else:
        count, states, seed = map(int, spec.split())
        dfas = random_family(count, states, seed=seed)
        # the complement of the first DFA (on even lengths) empties the intersection
        dfas.append(dfas[0].complement().intersection(
            even_length_dfa(dfas[0].input_symbols)).minify())
        g, (truth, length) = intersection_grammar(dfas), product_truth(dfas)
    path = folder / f"{kind}_{spec.replace(' ', '_').replace(':', '-')}.json"
    path.write_text(grammar_to_json(g), encoding="utf-8")
    return path, truth, length


def _measure(path: Path, strategy: str, engine: str, env: dict[str, str] | None = None
             ) -> dict[str, Any]:
    cpu, peak, out = child_cpu(["-m", "benchmarks.bench_search", str(path), strategy, engine],
                               timeout=3600, env=env)
    return {**json.loads(out), "cpu": cpu, "peak": peak}


def _check(label: str, r: dict[str, Any], truth: int | None, length: int | None) -> None:
    assert r["max"] == truth and r["exact"], (label, r, truth)
    if length is not None and r["max"] == truth and r["strategy"] != "dfs":
        assert r["length"] == length, (label, r, length)


def run(quick: bool = False) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    search, growth, lassos = ((QUICK_SEARCH, QUICK_GROWTH, QUICK_LASSO) if quick
                              else (SEARCH, GROWTH, LASSO))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        # the compiled engine's fixed cost: a 10-state search, cold cache then cached
        small, _, _ = _instance("modular", "3:0 5:2", folder)
        # (quick: the cache the tests use, no cold compile and no run without scipy)
        cache = {} if quick else {"NUMBA_CACHE_DIR": str(folder / "cache")}
        warm = cold = _measure(small, "bfs", "compiled", cache)
        if not quick:
            warm = _measure(small, "bfs", "compiled", cache)
        # numba imports scipy.linalg on its first compiled call when scipy is installed:
        # the same without it (a stub package that refuses to import)
        lean = warm
        if not quick:
            stub = folder / "noscipy" / "scipy"
            stub.mkdir(parents=True)
            (stub / "__init__.py").write_text("raise ImportError('hidden by bench_search')\n")
            lean = _measure(small, "bfs", "compiled", {**cache, "PYTHONPATH": os.pathsep.join(
                [str(stub.parent), os.environ.get("PYTHONPATH", "")])})
        bare = _measure(small, "bfs", "python")
        _measure(small, "bfs", "compiled")  # the rows' cache (next to the sources) loaded once:
        # a checkout or an edit of the kernels' file makes numba compile them again
        fixed = {"cold": cold["search"], "cached": warm["search"], "lean": lean["search"],
                 "python": bare["search"], "cold_process": cold["cpu"],
                 "cached_process": warm["cpu"], "lean_process": lean["cpu"],
                 "python_process": bare["cpu"]}
        by_label: dict[str, dict[str, Any]] = {}
        for label, kind, spec in search:
            path, truth, length = _instance(kind, spec, folder)
            python, compiled = (_measure(path, "bfs", e) for e in ("python", "compiled"))
            for r in (python, compiled):
                _check(label, r, truth, length)
            assert python["states"] == compiled["states"], (label, python, compiled)
            assert (python["engine"], compiled["engine"]) == ("python", "compiled"), label
            row = {"task": "search", "instance": f"{label}: {kind} {spec}",
                   "states": python["states"], "python": python, "compiled": compiled,
                   "process_ratio": python["cpu"] / (compiled["cpu"] - compiled["warm"]),
                   "search_ratio": python["search"] / compiled["search"],
                   "warm_ratio": python["search"] / compiled["warm"]}
            by_label[label] = row
            rows.append(row)
        for small_label, large_label in growth:
            a, b = by_label[small_label], by_label[large_label]
            states = b["states"] - a["states"]
            rows.append({"task": "bytes/state", "instance": f"{small_label} → {large_label}",
                         "states": states,
                         "python_bps": (b["python"]["peak"] - a["python"]["peak"]) / states,
                         "compiled_bps": (b["compiled"]["peak"] - a["compiled"]["peak"])
                         / states})
        for label, spec in lassos:
            path, truth, length = _instance("modular", spec, folder)
            compiled = _measure(path, "lasso", "compiled")
            _check(label, compiled, truth, length)
            rows.append({"task": "lasso", "instance": f"{label}: modular {spec}",
                         "states": compiled["states"], "compiled": compiled,
                         "length": compiled["length"]})
    show("compiled kernels vs the Python reference: CPU s (user + sys) of whole child "
         "processes, of the search call, and of the same call again in the compiled child "
         "(numba and the kernels loaded)",
         ["task", "instance", "states", "Python process", "compiled process", "ratio",
          "Python search", "compiled search", "ratio", "compiled again", "ratio",
          "Python MB", "compiled MB"],
         [[r["task"], r["instance"], r["states"], r["python"]["cpu"],
           r["compiled"]["cpu"] - r["compiled"]["warm"], r["process_ratio"],
           r["python"]["search"], r["compiled"]["search"], r["search_ratio"],
           r["compiled"]["warm"], r["warm_ratio"], r["python"]["peak"] / 2**20,
           r["compiled"]["peak"] / 2**20] for r in rows if r["task"] == "search"])
    print("compiled process = the child's CPU minus its second search (it searches twice); "
          "peak RSS is the first search's or the second's, whichever is larger (the same "
          "states).")
    show("peak RSS growth per state between two sizes", ["pair", "states added",
                                                         "Python B/state", "compiled B/state"],
         [[r["instance"], r["states"], r["python_bps"], r["compiled_bps"]]
          for r in rows if r["task"] == "bytes/state"])
    show("the lasso (Brent), compiled", ["instance", "states (μ + λ or settling n + 1)",
                                         "witness length", "CPU s", "MB"],
         [[r["instance"], r["states"], r["length"], r["compiled"]["cpu"],
           r["compiled"]["peak"] / 2**20] for r in rows if r["task"] == "lasso"])
    costs = ([["compiled, the default cache", fixed["cached"], fixed["cached_process"]]]
             if quick else
             [["compiled, cold cache (numba import + compile)", fixed["cold"],
               fixed["cold_process"]],
              ["compiled, cached (numba import + load)", fixed["cached"],
               fixed["cached_process"]],
              ["compiled, cached, scipy not installed", fixed["lean"], fixed["lean_process"]]])
    show("the compiled engine's fixed cost (a 10-state search; CPU s)",
         ["", "the search call", "whole process"],
         [*costs, ["python", fixed["python"], fixed["python_process"]]])
    return rows + [{"task": "fixed", **fixed}]


def _child(path: str, strategy: str, engine: str) -> None:
    """One search in this process: one JSON line."""
    from sdg_automata.grammar.parse import load_grammar
    from sdg_automata.search.decide import max_grundy

    g = load_grammar(path)
    started = time.process_time()
    v = max_grundy(g, g.start, strategy=strategy, engine=engine)  # type: ignore[arg-type]
    search = time.process_time() - started
    warm = search
    if engine == "compiled" and strategy != "lasso":  # again, numba and the kernels loaded
        started = time.process_time()
        max_grundy(g, g.start, strategy=strategy, engine=engine)  # type: ignore[arg-type]
        warm = time.process_time() - started
    print(json.dumps({"search": search, "warm": warm, "states": v.states, "max": v.maximum,
                      "exact": v.exact, "length": None if v.witness is None else len(v.witness),
                      "engine": None if v.engine is None else v.engine.name,
                      "strategy": v.strategy}))


if __name__ == "__main__":
    if len(sys.argv) == 4:
        _child(*sys.argv[1:])
    else:
        run(quick="--quick" in sys.argv)
