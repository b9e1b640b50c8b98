"""Octal games: the sparse-space method against the O(n²) computations, and certify times.

Measured side by side in one run:

* values/s for 𝒢(0..n−1) at n = 10⁴ and 10⁵: the sparse-space method, the
  full O(n²) mex with each heap's splits XORed by numpy (the fallback), and
  the naive definition in plain Python (the tests' oracle; at 10⁴ only — it
  is O(n²) Python work, about 100× the time at 10⁵).  Every route must give
  the same values.
* the time to certify each benchmark game's period by the octal periodicity
  theorem, checked against the published preperiod and period.
* peak memory (tracemalloc, numpy included) of the sparse method at 10⁵ and
  2·10⁵ values: bytes per value stays flat (memory linear in the values).

* the value index of the rare-class search (issue 19): 0.376's values by the
  kernels with the index and without it (``_PROBES = 0``: the plain search
  from the smallest heap), CPU time side by side; the values must be equal.
* the compiled kernels against the Python reference (issue 18): 0.16 and 0.56
  certified by each engine, CPU time (``time.process_time``) side by side,
  values/s and the ratio; the certified figures must be equal.  The compiled
  run comes second, after a warm-up that loads numba and the cached kernels
  (whose one-off cost is printed as well).

Targets (issue 14): every 2- and 3-digit game whose period appears within 10⁴
values certified in under a second; 0.127 in under a minute; 0.16 and 0.56
in under ten minutes (moonshot: one minute).  Issue 18: 0.16 and 0.56 to
certification ≥ 20× the Python path and ≥ 2 M values/s compiled (the C floor
of the same algorithm: 5.5 M values/s).

``python -m benchmarks bench_octal [--quick]`` prints the tables; ``run()``
returns the rows.
"""

from __future__ import annotations

import time
import tracemalloc
from typing import Any
from unittest import mock

import numpy as np

from benchmarks.common import show
from sdg_automata.games.octal import OctalGame, naive_values
from sdg_automata.games.octal import values as octal_values

#: (code, published least preperiod, period): Winning Ways ch. 4; Gangolli–Plambeck
#: 1989 and tczajka/octal-games src/SolvedGames.md for the long ones
GAMES = [
    ("0.77", 71, 12), ("0.07", 53, 34), ("0.137", 52, 34), ("0.45", 498, 20),
    ("0.156", 3479, 349), ("0.644", 3256, 442), ("0.165", 5181, 1550), ("0.356", 7315, 142),
    ("0.127", 46578, 4), ("0.16", 105351, 149459), ("0.56", 326640, 144),
]
QUICK_GAMES = GAMES[:5]
SPEED_GAMES = ["0.16", "0.77"]
#: certified by both engines side by side (quick: a game that still reaches the kernels)
ENGINE_GAMES = ["0.16", "0.56"]
QUICK_ENGINE_GAMES = ["0.127"]


def _cpu(fn: Any) -> tuple[float, Any]:
    t = time.process_time()
    result = fn()
    return time.process_time() - t, result


def _engines(codes: list[str]) -> list[dict[str, Any]]:
    """Each code certified by the Python reference and by the kernels, CPU seconds."""
    rows = []
    warm, _ = _cpu(lambda: OctalGame.parse("0.45").period(engine="compiled"))
    rows.append({"bench": "octal", "case": "warm-up", "seconds": warm})
    for code in codes:
        game = OctalGame.parse(code)
        py_s, py = _cpu(lambda game=game: game.period(engine="python"))
        c_s, c = _cpu(lambda game=game: game.period(engine="compiled"))
        if py != c or not c.certified:
            raise AssertionError(f"{code}: the engines disagree ({py} / {c})")
        rows.append({"bench": "octal", "case": "engines", "code": code, "values": c.checked_to,
                     "python_s": py_s, "compiled_s": c_s, "ratio": py_s / c_s,
                     "compiled_values_per_s": c.checked_to / c_s})
    return rows


def _index(code: str, n: int) -> dict[str, Any]:
    """``code``'s first n values by the kernels, without the value index and with it."""
    game = OctalGame.parse(code)
    game.values(1 << 15, engine="compiled")  # numba and the kernels loaded before either
    with mock.patch.object(octal_values, "_PROBES", 0):  # the index proposes nothing
        plain_s, plain = _cpu(lambda: game.values(n, engine="compiled"))
    index_s, indexed = _cpu(lambda: game.values(n, engine="compiled"))
    if not np.array_equal(plain, indexed):
        raise AssertionError(f"{code}: the value index changed a value below {n}")
    return {"bench": "octal", "case": "index", "code": code, "n": n, "plain_s": plain_s,
            "index_s": index_s, "ratio": plain_s / index_s, "index_values_per_s": n / index_s}


def _timed(fn: Any) -> tuple[float, Any]:
    t = time.perf_counter()
    result = fn()
    return time.perf_counter() - t, result


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure; one dict per row (seconds; ``None`` where not measured)."""
    rows: list[dict[str, Any]] = []
    sizes = [2000] if quick else [10**4, 10**5]
    for code in SPEED_GAMES:
        game = OctalGame.parse(code)
        for n in sizes:
            sparse_s, sparse = _timed(lambda n=n, game=game: game.values(
                n, method="sparse", engine="python"))
            full_s, full = _timed(lambda n=n, game=game: game.values(n, method="full",
                                                                      engine="python"))
            naive_s = None
            if n <= 10**4:
                naive_s, naive = _timed(lambda n=n, game=game: naive_values(game, n))
                if naive != sparse.tolist():
                    raise AssertionError(f"{code}: naive and sparse disagree below {n}")
            if full.tolist() != sparse.tolist():
                raise AssertionError(f"{code}: full and sparse disagree below {n}")
            rows.append({"bench": "octal", "case": "values", "code": code, "n": n,
                         "sparse_s": sparse_s, "full_s": full_s, "naive_s": naive_s,
                         "full_ratio": full_s / sparse_s,
                         "naive_ratio": None if naive_s is None else naive_s / sparse_s})
    for code, pre, per in QUICK_GAMES if quick else GAMES:
        seconds, result = _timed(lambda code=code: OctalGame.parse(code).period(
            engine="python"))
        if (result.preperiod, result.period) != (pre, per) or not result.certified:
            raise AssertionError(f"{code}: certified {result.preperiod}/{result.period}, "
                                 f"published {pre}/{per}")
        sparse = result.sparse
        rows.append({"bench": "octal", "case": "certify", "code": code, "preperiod": pre,
                     "period": per, "checked_to": result.checked_to, "seconds": seconds,
                     "mask": None if sparse is None else
                     f"{sparse.mask:#x}{'+pos' if sparse.positional else ''}",
                     "rare": None if sparse is None else sparse.rare})
    rows += _engines(QUICK_ENGINE_GAMES if quick else ENGINE_GAMES)
    rows.append(_index("0.376", 10**5 if quick else 5 * 10**5))
    if not quick:
        game = OctalGame.parse("0.16")
        for n in (10**5, 2 * 10**5):
            tracemalloc.start()
            game.values(n, method="sparse", engine="python")
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
            rows.append({"bench": "octal", "case": "memory", "code": "0.16", "n": n,
                         "peak_bytes": peak, "bytes_per_value": peak / n})
    _show(rows)
    return rows


def _rate(n: int, s: float | None) -> str:
    return "" if s is None else f"{n / s:,.0f}"


def _show(rows: list[dict[str, Any]]) -> None:
    speed = [r for r in rows if r["case"] == "values"]
    show("octal values/s (Python reference): sparse space vs full O(n²) (numpy) vs naive "
         "definition",
         ["code", "n", "sparse values/s", "full values/s", "naive values/s", "full / sparse",
          "naive / sparse"],
         [[r["code"], f"{r['n']:,}", _rate(r["n"], r["sparse_s"]), _rate(r["n"], r["full_s"]),
           _rate(r["n"], r["naive_s"]) or "not run", f"{r['full_ratio']:.1f}×",
           "" if r["naive_ratio"] is None else f"{r['naive_ratio']:.0f}×"] for r in speed])
    show("octal periods certified by the periodicity theorem, Python reference (published "
         "values agree)",
         ["code", "preperiod", "period", "values computed", "seconds", "rare mask", "rare heaps"],
         [[r["code"], r["preperiod"], r["period"], r["checked_to"], f"{r['seconds']:.3f}",
           r["mask"] or "(full)", "" if r["rare"] is None else r["rare"]]
          for r in rows if r["case"] == "certify"])
    engines = [r for r in rows if r["case"] == "engines"]
    warm = next(r["seconds"] for r in rows if r["case"] == "warm-up")
    show(f"octal certified by the Python reference and the compiled kernels, CPU seconds "
         f"(numba and the kernels loaded first: {warm:.2f} s)",
         ["code", "values", "python s", "compiled s", "compiled / python", "compiled values/s",
          "python values/s"],
         [[r["code"], f"{r['values']:,}", f"{r['python_s']:.3f}", f"{r['compiled_s']:.3f}",
           f"{r['ratio']:.0f}×", f"{r['compiled_values_per_s']:,.0f}",
           f"{r['values'] / r['python_s']:,.0f}"] for r in engines])
    show("octal rare-class search by the kernels, CPU seconds: the plain search from the "
         "smallest heap against the value index (same values)",
         ["code", "values", "plain s", "index s", "plain / index", "index values/s"],
         [[r["code"], f"{r['n']:,}", f"{r['plain_s']:.2f}", f"{r['index_s']:.2f}",
           f"{r['ratio']:.1f}×", f"{r['index_values_per_s']:,.0f}"]
          for r in rows if r["case"] == "index"])
    memory = [r for r in rows if r["case"] == "memory"]
    if memory:
        show("octal sparse method, peak memory (tracemalloc)",
             ["code", "n", "peak", "bytes / value"],
             [[r["code"], f"{r['n']:,}", f"{r['peak_bytes'] / 2**20:.2f} MiB",
               f"{r['bytes_per_value']:.1f}"] for r in memory])


def main() -> None:
    import sys

    run(quick="--quick" in sys.argv[1:])


if __name__ == "__main__":
    main()
