"""i-Mark(S, D): the convergence technique against the naive table (SPEC §6).

Measured side by side in one run:

* n = 10⁵, 10⁶, 10⁷: the naive sequence 𝒢(0..n) against one value 𝒢(n) by the
  convergence technique from a cold cache (default mode, and SPEC §6 literally
  with ``reuse=False``); the ratio is naive / convergence (default mode).
* n = 10¹⁸, 10⁵⁰ (and 10¹⁰⁰ unless quick): the time of one value, cold.

Targets (issue 5): 10¹⁸ in under a second; at 10⁷ at least 100× faster than
the naive sequence.

``python -m benchmarks bench_imark [--quick]`` prints the table; ``run()``
returns the rows.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from benchmarks.common import show
from sdg_automata.imark import IMark, imark_cache_clear, imark_sequence, imark_value

MAIN = IMark.of([1], [2, 3])
WIDER = IMark.of([1, 2], [2, 3])


def _best(fn: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """The fastest of ``repeats`` runs (seconds) and the last result."""
    best, result = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - t0)
    return best, result


def _cold(game: IMark, n: int, reuse: bool = True) -> Any:
    imark_cache_clear()
    return imark_value(game, n=n, reuse=reuse)


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure; one dict per row (times in seconds, ``None`` where not measured)."""
    rows: list[dict[str, Any]] = []
    sizes = [10**5, 10**6] if quick else [10**5, 10**6, 10**7]
    for n in sizes:
        naive_s, table = _best(lambda n=n: imark_sequence(MAIN, upto=n), 1 if n >= 10**7 else 3)
        conv_s, v = _best(lambda n=n: _cold(MAIN, n), 5)
        spec_s, w = _best(lambda n=n: _cold(MAIN, n, reuse=False), 5)
        if not v.grundy == w.grundy == table[n]:
            raise AssertionError(f"{MAIN}: values disagree at n = {n}")
        rows.append({"bench": "imark", "case": "naive vs convergence", "instance": str(MAIN),
                     "n": n, "grundy": v.grundy, "c": v.c, "naive_s": naive_s,
                     "convergence_s": conv_s, "spec_literal_s": spec_s,
                     "ratio": naive_s / conv_s})
    singles = [(MAIN, 10**18), (MAIN, 10**50), (WIDER, 10**18)]
    if not quick:
        singles += [(MAIN, 10**100), (WIDER, 10**50)]
    for game, n in singles:
        conv_s, v = _best(lambda game=game, n=n: _cold(game, n), 1 if n > 10**60 else 3)
        spec_s, w = _best(lambda game=game, n=n: _cold(game, n, reuse=False), 1)
        if v.grundy != w.grundy:
            raise AssertionError(f"{game}: values disagree at n = {n}")
        rows.append({"bench": "imark", "case": "one value", "instance": str(game), "n": n,
                     "grundy": v.grundy, "c": v.c, "naive_s": None, "convergence_s": conv_s,
                     "spec_literal_s": spec_s, "ratio": None})
    _show(rows)
    return rows


def _n(n: int) -> str:
    e = len(str(n)) - 1
    return f"10^{e}" if n == 10**e else str(n)


def _show(rows: list[dict[str, Any]]) -> None:
    def ms(x: float | None) -> str:
        return "" if x is None else f"{x * 1000:.2f} ms"

    show("i-Mark: convergence technique vs naive table (cold cache)",
         ["instance", "n", "𝒢(n)", "c", "naive", "convergence", "SPEC literal",
          "naive / convergence"],
         [[r["instance"].removeprefix("i-Mark"), _n(r["n"]), r["grundy"], r["c"],
           ms(r["naive_s"]), ms(r["convergence_s"]), ms(r["spec_literal_s"]),
           "" if r["ratio"] is None else f"{r['ratio']:.0f}×"] for r in rows])


def main() -> None:
    import sys

    run(quick="--quick" in sys.argv[1:])


if __name__ == "__main__":
    main()
