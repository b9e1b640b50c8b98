"""What "certified means checked" costs an octal run (issue 34 §1).

Measured side by side in one process (CPU seconds, ``resource.getrusage``, the least of
three; numba, the solver's and the checker's kernels loaded first):

* a run to certification, and the independent period check it ends with
  (:func:`sdg_automata.games.octal.verify.check_period`) alone;
* the same run resumed from a checkpoint holding all its values, whose certified claim the
  independent checker then re-derives value by value
  (:func:`sdg_automata.games.octal.period.recheck`): what resuming a run costs when the
  claim rests on resumed values alone.

The three runs must certify the same least preperiod and period.

``python -m benchmarks bench_octal_resume [--quick]`` prints the table; ``run()`` returns
the rows.
"""

from __future__ import annotations

import functools
import os
import resource
import tempfile
from collections.abc import Callable
from typing import Any

from benchmarks.common import show
from sdg_automata.games.octal import OctalGame, load_kernels
from sdg_automata.games.octal.verify import check_period, check_values

#: (code, --upto): the sizes of docs/octal.md (0.354 needs 2·10⁷ values)
GAMES = [("0.16", 1 << 20), ("0.56", 1 << 20), ("0.354", 1 << 25)]
QUICK_GAMES = [("0.156", 1 << 14)]


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _least(fn: Callable[[], Any], times: int = 3) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(times):
        t = _cpu()
        out = fn()
        best = min(best, _cpu() - t)
    return best, out


def _warm() -> None:
    load_kernels("compiled", 1 << 20)
    warm = OctalGame.parse("0.45").period(engine="compiled")
    for sparse in (None, {"mask": 15, "positional": False, "rare_parity": 0}):
        check_values("0.45", warm.computed, sparse=sparse, engine="compiled")
    assert warm.preperiod is not None and warm.period is not None
    check_period("0.45", warm.computed, warm.preperiod, warm.period, engine="compiled")


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure; one dict per game."""
    _warm()
    rows = []
    for code, upto in QUICK_GAMES if quick else GAMES:
        game = OctalGame.parse(code)

        def once(checkpoint: str | None = None, game: OctalGame = game,
                 upto: int = upto) -> Any:
            return game.period(max_n=upto, engine="compiled", checkpoint=checkpoint)

        run_s, result = _least(once)
        n0, p = result.preperiod, result.period
        assert n0 is not None and p is not None
        need = 2 * max(n0, 1) + 2 * p + game.t
        values = result.computed[:need]

        def check(code: str = code, values: Any = values, n0: int = n0, p: int = p) -> None:
            check_period(code, values, n0, p, engine="compiled")

        check_s, _ = _least(check)
        with tempfile.TemporaryDirectory() as folder:
            path = os.path.join(folder, "run.ckpt")
            once(path)
            resumed_s, resumed = _least(functools.partial(once, path))
        claims = {(r.preperiod, r.period) for r in (result, resumed)}
        if len(claims) != 1 or not resumed.certified or resumed.resumed < need:
            raise AssertionError(f"{code}: the runs disagree ({claims})")
        rows.append({"bench": "octal resume", "code": code, "values": result.checked_to,
                     "run_s": run_s, "check_s": check_s, "resumed_s": resumed_s,
                     "ratio": resumed_s / run_s})
    show("octal: a run to certification and the same run resumed from a checkpoint of all "
         "its values, re-derived by the independent checker (CPU seconds, least of 3)",
         ["code", "values", "run s", "its period check s", "resumed s", "resumed / run"],
         [[r["code"], f"{r['values']:,}", f"{r['run_s']:.3f}", f"{r['check_s']:.4f}",
           f"{r['resumed_s']:.3f}", f"{r['ratio']:.2f}"] for r in rows])
    return rows


def main() -> None:
    import sys

    run(quick="--quick" in sys.argv[1:])


if __name__ == "__main__":
    main()
