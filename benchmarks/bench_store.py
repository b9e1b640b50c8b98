"""Today's store against the compact store (issue 27), side by side in one run.

The compiled breadth-first search (``max_grundy(..., strategy="bfs")``) on the
``compiled`` engine's table store (records, a table of their numbers and
the tree in memory) and on the ``compact`` engine's (an exact Cleary table of keys, the
frontier and the tree spooled to unlinked files:
:class:`sdg_automata.search.compiled.stores.CompactStore`),
each in a child process of its own (``python -m benchmarks.peak``) on the same
instance, one after the other:

* *CPU s* — user + sys of the whole child (interpreter, imports, numba loading the
  cached kernels), and of the search call alone, measured inside the child;
* *MB* — the child's peak RSS (VmHWM); the spooled files live in the page cache or
  on disk, never in the process's resident memory;
* *bytes/state* — the growth of peak RSS between two instance sizes of the same
  family divided by the growth of the states: what one more state costs (the
  process's fixed cost cancels).

Every instance has its maximum below m_A, so the search stores every reachable state;
both stores must give the same states, maximum and witness length, and the
independent answer (the CRT for the unary family, automata-lib's products for random
binary DFAs).

* *store B/state* — the bytes the store held at its largest (``peak_bytes``: the
  compact table, or the table store's arrays, and the walk's buffers) over the
  states, at the load where this size falls;
* *worst B/state from 10⁷* — the compact table's bytes over the keys it held just after
  each growth (where a search that stops there has the most bytes a state), the most of
  those from 10⁷ keys on: the growth keeps it to 6 where the keys are not too wide
  (issue 36 item 3; :func:`sdg_automata.search.compiled.stores._next_size`).

``SDG_STORE_GIGA=1`` adds a 9.7·10⁸-state unary instance on the compact store alone (about 25
minutes; the table store would need ~17 GB there) and its growth from the 10⁸ row: the
compact store grows in place, so its peak RSS is one table (issue 36 item 3: 10⁹ states
within 8 GiB).  The tree goes to the temporary directory (8 bytes a state: ~8 GB).

``SDG_STORE_REPEAT=N`` (default 1) runs every row's two stores N rounds, in turn: the
CPU columns are then medians, and a column gives the range of the rounds' search CPU
ratios (a round's load moves both stores alike on a shared machine).

``[SDG_STORE_GIGA=1] [SDG_STORE_REPEAT=N] python -m benchmarks bench_store [--quick]``;
the full run takes about 8 minutes a round (the 10⁸-state rows most of it).
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_search import SEARCH as BENCH_SEARCH
from benchmarks.bench_search import _check, _instance
from benchmarks.common import child_cpu, show

#: (label, kind, instance): bench_search's binary rows and its unary 10⁷, then unary 10⁸
SEARCH = [*BENCH_SEARCH[2:], ("binary 2.9·10⁷", "random", "4 20 1"),  # 28,930,051 states
          BENCH_SEARCH[1],
          ("unary 10⁸", "modular", "16:0 243:6 25:0 7:3 11:5 13:1 3:1")]  # 97,297,201 states
#: pairs of SEARCH rows whose peak RSS growth per state is reported
GROWTH = [("binary 2.6·10⁶", "binary 1.3·10⁷"), ("unary 10⁷", "unary 10⁸")]
QUICK_SEARCH = [("unary 3·10⁴", "modular", "3:0 5:2 7:3 11:5 13:1 3:1"),  # 30,031 states
                ("binary 5·10⁴", "random", "3 12 28"),                      # 54,258 states
                ("unary 5·10⁵", "modular", "3:0 5:2 7:3 11:5 13:1 17:1 3:1")]
QUICK_GROWTH = [("unary 3·10⁴", "unary 5·10⁵")]
#: the row of ``--giga`` (the compact store only) and its growth from the 10⁸ row
GIGA = ("unary 10⁹", "modular", "32:0 243:6 125:0 7:3 11:5 13:1 3:1")  # 972,972,001 states
GIGA_GROWTH = ("unary 10⁸", "unary 10⁹")
STORES = ("table", "compact")


def _measure(path: Path, store: str) -> dict[str, Any]:
    cpu, peak, out = child_cpu(["-m", "benchmarks.bench_store", str(path), store],
                               timeout=3600)
    return {**json.loads(out), "cpu": cpu, "peak": peak}


def run(quick: bool = False) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    giga = os.environ.get("SDG_STORE_GIGA", "") not in ("", "0")
    repeat = max(1, int(os.environ.get("SDG_STORE_REPEAT", "1")))
    search, growth = (QUICK_SEARCH, QUICK_GROWTH) if quick else (SEARCH, GROWTH)
    runs = [(row, STORES) for row in search] + ([(GIGA, ("compact",))] if giga else [])
    growth = growth + ([GIGA_GROWTH] if giga and not quick else [])
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        small, _, _ = _instance("modular", "3:0 5:2", folder)
        for store in STORES:  # the kernels' caches (next to the sources) written once
            _measure(small, store)
        by_label: dict[str, dict[str, Any]] = {}
        for (label, kind, spec), stores in runs:
            path, truth, length = _instance(kind, spec, folder)
            rounds = [{store: _measure(path, store) for store in stores}
                      for _ in range(repeat)]  # (the stores in turn, round after round)
            for measured in rounds:
                for store, r in measured.items():
                    _check(label, r, truth, length)
                    assert r["store"] == store, (label, r)
            measured = _median(rounds)
            first = next(iter(measured.values()))
            assert all(r["states"] == first["states"] and r["length"] == first["length"]
                       for m in rounds for r in m.values()), (label, rounds)
            row = {"task": "search", "instance": f"{label}: {kind} {spec}",
                   "states": first["states"], **measured,
                   "rounds": [m["compact"]["search"] / m["table"]["search"] for m in rounds
                              if "table" in m]}
            by_label[label] = row
            rows.append(row)
        for small_label, large_label in growth:
            a, b = by_label[small_label], by_label[large_label]
            states = b["states"] - a["states"]
            rows.append({"task": "bytes/state", "instance": f"{small_label} → {large_label}",
                         "states": states,
                         **{f"{s}_bps": (b[s]["peak"] - a[s]["peak"]) / states
                            for s in STORES if s in a and s in b}})
    searched = [r for r in rows if r["task"] == "search"]
    show("the table store vs the compact store, compiled bfs: CPU s (user + sys) of whole "
         "child processes and of the search call; peak RSS"
         + (f" (medians of {repeat} interleaved rounds; peaks, the least)" if repeat > 1
            else ""),
         ["instance", "states", "table process", "compact process", "ratio", "table search",
          "compact search", "ratio", "rounds' search ratios", "table MB", "compact MB"],
         [[r["instance"], r["states"], _get(r, "table", "cpu"), r["compact"]["cpu"],
           _ratio(r, "cpu"), _get(r, "table", "search"), r["compact"]["search"],
           _ratio(r, "search"),
           "–".join(f"{x:.2f}" for x in sorted({min(r["rounds"]), max(r["rounds"])}))
           if r["rounds"] else None,
           _get(r, "table", "peak", 2**20), r["compact"]["peak"] / 2**20]
          for r in searched])
    show("the store's bytes at their largest (with the walk's buffers), per state; the "
         "compact table's just after each growth from 10⁷ keys on",
         ["instance", "states", "table store B/state", "compact store B/state",
          "compact worst B/state from 10⁷"],
         [[r["instance"], r["states"], _get(r, "table", "bytes", r["states"]),
           r["compact"]["bytes"] / r["states"], r["compact"]["worst"]] for r in searched])
    show("peak RSS growth per state between two sizes",
         ["pair", "states added", "table B/state", "compact B/state"],
         [[r["instance"], r["states"], r.get("table_bps"), r["compact_bps"]]
          for r in rows if r["task"] == "bytes/state"])
    return rows


def _median(rounds: list[dict[str, dict[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Per store, the first round's figures with the CPU the median over the rounds (the
    lower of the middle two for an even count) and the peak the least."""
    out = {}
    for store, first in rounds[0].items():
        runs = [m[store] for m in rounds]
        out[store] = {**first, **{k: statistics.median_low(r[k] for r in runs)
                                  for k in ("cpu", "search")},
                      "peak": min(r["peak"] for r in runs)}
    return out


def _get(row: dict[str, Any], store: str, key: str, per: float = 1) -> float | None:
    """``row[store][key] / per``, or None for a store that did not run."""
    return row[store][key] / per if store in row else None


def _ratio(row: dict[str, Any], key: str) -> float | None:
    """compact / table of ``key``, or None."""
    return row["compact"][key] / row["table"][key] if "table" in row else None


def _log_growths() -> list[tuple[int, int]]:
    """(keys held, table bytes) after each growth of this process's compact stores (in
    place or through a re-encoding)."""
    from sdg_automata.search.compiled import stores

    log: list[tuple[int, int]] = []
    make_room = stores.CompactStore.make_room

    def logged(store: stores.CompactStore, n: int, letters: int) -> None:
        size = store.table.size
        make_room(store, n, letters)
        if store.table.size != size:
            log.append((n, 8 * store.table.words))

    stores.CompactStore.make_room = logged  # type: ignore[method-assign]
    return log


def _worst(growths: list[tuple[int, int]], states: int, start: int) -> float | None:
    """The most bytes a key of a table over any of its sizes from ``start`` keys to
    ``states``: each growth's table, from the keys it took (or ``start``) until the next."""
    ends = [n for n, _ in growths[1:]] + [states] if growths else []
    spans = [(max(n, start), b) for (n, b), end in zip(growths, ends, strict=True)
             if end > start]
    return max((b / n for n, b in spans), default=None)


def _child(path: str, store: str) -> None:
    """One search in this process: one JSON line."""
    from sdg_automata.grammar.parse import load_grammar
    from sdg_automata.search.decide import max_grundy

    g = load_grammar(path)
    growths = _log_growths() if store == "compact" else []
    started = time.process_time()
    # the table store is the compiled engine's, the compact one the compact engine's
    v = max_grundy(g, g.start, strategy="bfs", engine="compiled" if store == "table" else store)
    assert v.engine is not None
    search = time.process_time() - started
    print(json.dumps({"search": search, "states": v.states, "max": v.maximum,
                      "bytes": v.peak_bytes,
                      "worst": _worst(growths, v.states, 10**7),
                      "exact": v.exact, "length": None if v.witness is None else len(v.witness),
                      "engine": v.engine.name, "strategy": v.strategy,
                      "store": v.engine.store}))


if __name__ == "__main__":
    if len(sys.argv) == 3:
        _child(*sys.argv[1:])
    else:
        run(quick="--quick" in sys.argv)
