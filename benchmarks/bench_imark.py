"""i-Mark(S, D) (SPEC §6): the layered engine against the reference engine and the naive table.

Measured side by side in one run:

* **Huge n, whole processes** (issue 11 §3): ``python -m sdg_automata imark value
  ... --engine reference`` (the first implementation, one interval at a time,
  kept reachable as the reference) against ``--engine layers`` (the default:
  the exponent grid a layer at a time, intervals in lockstep), each as its own
  process: wall time and peak RSS (VmHWM).  ({1}, {2, 3}) at 10¹⁸, 10¹⁰⁰,
  10¹⁰⁰⁰; ({1}, {2, 3, 5}) at 10¹⁸, 10¹⁰⁰; ({1, 2}, {2, 3}) at 10¹⁰⁰.  The two
  engines must print the same 𝒢(n).
  Targets: 10¹⁰⁰⁰ for ({1}, {2, 3}) under 10 s and 300 MB (reference: 89 s,
  2.1 GB); ({1}, {2, 3, 5}) at 10¹⁰⁰ under 5 s.
* **Naive vs convergence, in process**: the naive sequence 𝒢(0..n) against one
  value 𝒢(n) from a cold cache, n = 10⁵, 10⁶, 10⁷ (issue 5's target: ≥ 100× at 10⁷).

``python -m benchmarks bench_imark [--quick]`` prints the tables (quick: the
small cases only, no 10¹⁰⁰⁰ and no reference run over 10 s); ``run()``
returns the rows.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

from benchmarks.common import child, show
from sdg_automata.games.imark import IMark, imark_cache_clear, imark_sequence, imark_value

MAIN = IMark.of([1], [2, 3])
WIDE = IMark.of([1], [2, 3, 5])
LONG = IMark.of([1, 2], [2, 3])


def _best(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """The fastest of ``repeats`` runs (seconds) and the last result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def _cold(game: IMark, n: int, engine: str) -> Any:
    imark_cache_clear()
    return imark_value(game, n=n, engine=engine)  # type: ignore[arg-type]


def _process(game: IMark, exponent: int, engine: str) -> tuple[float, int, dict[str, Any]]:
    """One ``imark value`` process: (seconds, peak RSS bytes, its JSON answer)."""
    args = ["-m", "sdg_automata", "imark", "value", "--S", ",".join(map(str, game.S)),
            "--D", ",".join(map(str, game.D)), f"10^{exponent}", "--json", "--engine", engine]
    seconds, peak, out = child(args, timeout=1800)
    return seconds, peak, json.loads(out)


def huge(quick: bool) -> list[dict[str, Any]]:
    """Reference vs layered engine as whole processes."""
    cases = [(MAIN, 18), (MAIN, 100), (WIDE, 18)]
    if not quick:
        cases += [(MAIN, 1000), (WIDE, 100), (LONG, 100)]
    rows = []
    for game, e in cases:
        new_s, new_b, new = _process(game, e, "layers")
        old_s, old_b, old = _process(game, e, "reference")
        if new["grundy"] != old["grundy"]:
            raise AssertionError(f"{game} at 10^{e}: the engines disagree ({old} vs {new})")
        rows.append({"bench": "imark", "case": "engines", "instance": str(game), "n": f"10^{e}",
                     "grundy": new["grundy"], "c_layers": new["c"], "c_reference": old["c"],
                     "reference_s": old_s, "layers_s": new_s, "time_ratio": old_s / new_s,
                     "reference_mb": old_b / 2**20, "layers_mb": new_b / 2**20,
                     "memory_ratio": old_b / new_b})
    show("i-Mark at huge n: reference vs layered engine (whole processes, peak RSS)",
         ["instance", "n", "𝒢(n)", "c", "reference", "layers", "time ratio", "reference RSS",
          "layers RSS", "RSS ratio"],
         [[r["instance"].removeprefix("i-Mark"), r["n"], r["grundy"],
           f"{r['c_layers']} / {r['c_reference']}", f"{r['reference_s']:.2f} s",
           f"{r['layers_s']:.2f} s", f"{r['time_ratio']:.1f}×", f"{r['reference_mb']:.0f} MB",
           f"{r['layers_mb']:.0f} MB", f"{r['memory_ratio']:.1f}×"] for r in rows])
    return rows


def naive(quick: bool) -> list[dict[str, Any]]:
    """The naive table against one convergence value (each engine), in this process."""
    rows = []
    sizes = [10**5, 10**6] if quick else [10**5, 10**6, 10**7]
    for n in sizes:
        naive_s, table = _best(lambda n=n: imark_sequence(MAIN, upto=n), 1 if n >= 10**7 else 3)
        new_s, v = _best(lambda n=n: _cold(MAIN, n, "layers"), 5)
        old_s, w = _best(lambda n=n: _cold(MAIN, n, "reference"), 5)
        if not v.grundy == w.grundy == table[n]:
            raise AssertionError(f"{MAIN}: values disagree at n = {n}")
        rows.append({"bench": "imark", "case": "naive vs convergence", "instance": str(MAIN),
                     "n": n, "grundy": v.grundy, "c": v.c, "naive_s": naive_s,
                     "layers_s": new_s, "reference_s": old_s, "ratio": naive_s / new_s})
    show("i-Mark: naive table vs one value by the convergence technique (cold, in process)",
         ["instance", "n", "𝒢(n)", "c", "naive", "layers", "reference", "naive / layers"],
         [[r["instance"].removeprefix("i-Mark"), f"10^{len(str(r['n'])) - 1}", r["grundy"],
           r["c"], f"{r['naive_s'] * 1000:.1f} ms", f"{r['layers_s'] * 1000:.2f} ms",
           f"{r['reference_s'] * 1000:.2f} ms", f"{r['ratio']:.0f}×"] for r in rows])
    return rows


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure; one dict per row (times in seconds, memory in MB)."""
    return huge(quick) + naive(quick)


def main() -> None:
    import sys

    run(quick="--quick" in sys.argv[1:])


if __name__ == "__main__":
    main()
