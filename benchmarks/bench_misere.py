"""Misère quotients of octal and hexadecimal games, heaps 1..100 (issue 37).

Each code's quotient is computed by the command line (``octal CODE --misere --upto N
--json``) in a child process: CPU seconds (user + sys of that process), peak RSS, the
order reached, how far it is proven and from which heap the order stays, and why it
stopped when it did (the order limit, or no trial cover).  The child's quotient must be
the library's, and both must give the brute-force misère outcome of every sum of up to
three small heaps.

Target (issue 37): quotients of order ≤ 1,000 computed for heap bounds to 100 in
seconds; for the others, where the quotient stops being finite within the bound (the
order per heap, in the JSON rows).

``python -m benchmarks bench_misere [--quick]`` prints the table; ``run()`` returns the
rows.
"""

from __future__ import annotations

import functools
import itertools
import json
from typing import Any

from benchmarks.common import child_cpu, show
from sdg_automata.games.misere import misere_quotient
from sdg_automata.games.misere.components import heap_options
from sdg_automata.games.octal import OctalGame

#: finite quotients (Kayles, R8 of 0.75, tame games) and growing ones (Dawson's Kayles,
#: Dawson's chess, 0.26 with its order 2k², hexadecimal 0.3F)
CODES = ["0.33", "0.31", "0.52", "0.75", "0.71", "0.77", "0.106", "0.36", "0.07", "0.137",
         "0.26", "0.3F"]
QUICK = ["0.75", "0.77", "0.07"]
HEAPS, QUICK_HEAPS = 100, 16
#: each child's time budget (seconds): a growing quotient stops there, exit 3
SECONDS, QUICK_SECONDS = 300.0, 30.0


def _outcome(game: OctalGame) -> Any:
    @functools.cache
    def wins(position: tuple[int, ...]) -> bool:
        some = False
        for i, h in enumerate(position):
            for move in heap_options(game, h):
                some = True
                if not wins(tuple(sorted(position[:i] + position[i + 1:] + move))):
                    return True
        return not some

    return wins


def _check(code: str, proven: int, order: int) -> None:
    """The library's quotient to the same bound: the child's order, and brute force."""
    game = OctalGame.parse(code)
    q = misere_quotient(game, upto=min(proven, 12))
    if proven <= 12 and q.size != order:
        raise AssertionError(f"{code}: the child found order {order}, the library {q.size}")
    wins = _outcome(game)
    for k in range(4):
        for heaps in itertools.combinations_with_replacement(range(1, q.proven_to + 1), k):
            if sum(heaps) <= 18 and q.outcome(heaps) != ("N" if wins(heaps) else "P"):
                raise AssertionError(f"{code}: the quotient is wrong at {heaps}")


def run(quick: bool = False) -> list[dict[str, Any]]:
    heaps = QUICK_HEAPS if quick else HEAPS
    seconds = QUICK_SECONDS if quick else SECONDS
    rows: list[dict[str, Any]] = []
    for code in QUICK if quick else CODES:
        cpu, peak, out = child_cpu(["-m", "sdg_automata", "octal", code, "--misere", "--upto",
                                    str(heaps), "--json", "--max-seconds", str(seconds)],
                                   ok=(0, 3))
        objects = [json.loads(line) for line in out.splitlines()]
        # a quotient stopped by the budget is printed too, as far as it was proven
        quotient = next((o for o in objects if o.get("schema") == "misere/1"), None)
        if quotient is None or not quotient["proven_to"]:  # not even heap 1: the stop alone
            stopped = objects[-1]
            rows.append({"bench": "misere", "code": code, "heaps": heaps, "cpu_s": cpu,
                         "peak_mb": peak / 2**20, "order": stopped["at"].get("order"),
                         "proven_to": stopped.get("explored"), "stable_from": None,
                         "stopped": stopped["error"], "orders": []})
            continue
        _check(code, quotient["proven_to"], quotient["orders"][min(quotient["proven_to"], 12) - 1])
        rows.append({"bench": "misere", "code": code, "heaps": heaps, "cpu_s": cpu,
                     "peak_mb": peak / 2**20, "order": quotient["order"],
                     "proven_to": quotient["proven_to"], "stable_from": quotient["stable_from"],
                     "stopped": quotient["stopped"], "orders": quotient["orders"]})
    show(f"misère quotients, heaps 1..{heaps} (one process each, CPU user+sys)",
         ["code", "proven to heap", "order", "order stable from", "CPU s", "peak MB", "stopped"],
         [[r["code"], r["proven_to"], r["order"], r["stable_from"], r["cpu_s"], r["peak_mb"],
           (r["stopped"] or "")[:60]] for r in rows])
    return rows
