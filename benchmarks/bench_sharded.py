"""The breadth-first search sharded over a Dask cluster (:mod:`sdg_automata.search.sharded`)
against one process, on the ~10⁷-state binary instance of bench_search.

One run, side by side: one process (``max_grundy(strategy="bfs", engine="compiled")``
in a child process of its own), two such processes at once (see below), then the sharded
search on a local cluster of 1 and of 2
worker processes (the ``distributed.LocalCluster`` that ``--scheduler local`` starts: one
thread each, no dashboard, no worker profiler; this process is the driver and hosts the
scheduler), again on 2 workers with the shards' kernels run by
numba's dispatchers (``SDG_AUTOMATA_NATIVE=0``) rather than the native library, and on 2
workers with every batch sent over the comm (``SDG_AUTOMATA_SHARED_BATCHES=0``, as
between machines) rather than through the shared memory of workers of one machine
(:mod:`sdg_automata.search.arena`).  Seconds
and CPU are the search's (one process: the ``max_grundy`` call, its kernels loaded from
the cache; sharded: the call, its connection to the cluster and the shards' start
included).  Per row: states, wall seconds, states per second, CPU seconds (user +
system) of the driver, of the workers and in all, the peak RSS of the driver and of the
largest worker, and against the 1-worker row the speed-up and the efficiency (speed-up /
workers).  Workers' CPU is read inside them (``Shard.usage``: ``getrusage``), less what a
warm-up search on a small instance had used (imports, the cached kernels), so it is the
big search's alone.  The driver's RSS is this process's peak so far (every row before it
included).

``SDG_SHARDED_REPEAT`` (default 1) runs the rows that many rounds, interleaved (every
row once per round, the sharded rows' order turned by one each round): each figure is
then the median over the rounds (peaks: the least), and a column gives the range of the
CPU ratio to the one-process row *of the same round* (on a shared machine a round's load
moves every row of it alike).  A
last column gives each row's least CPU over the rounds against one process's least:
on a shared host another tenant's load only adds CPU time (caches, memory bandwidth,
the hypervisor), and it moves from minute to minute (one process took 2.8–7.1 CPU s
from round to round here), so a row's least is its cost nearest a quiet machine where
every row met a quiet moment in some round (one row's lucky round alone moves it: read
it beside the median).  Both are printed; neither is picked per run.

Read with care: a 2-core machine runs the driver, the scheduler and both workers on
the same two cores, so 2 workers cannot be expected to halve anything here; the CPU
columns say what the sharding costs in work (issue 36 item 6 asks for the 2-worker row's
CPU total within 1.5× one process's), and the phase table where the shards' time goes
(:data:`~sdg_automata.search.shard.PHASES`; wall seconds, so on a shared machine they
include time spent waiting for a core).  The row "one process, another beside it" runs
two one-process searches at once and gives one's CPU: what two busy processes cost each
other on this machine (shared caches, memory), with no sharding in it, the floor under
the 2-worker row's ratio; its wall seconds are the later one's.
"""

from __future__ import annotations

import json
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks.bench_search import _instance
from benchmarks.common import child_cpu, show

#: (label, bench_search kind, instance)
INSTANCE = ("binary 1.3·10⁷", "random", "4 14 6")  # 12,738,287 states
QUICK_INSTANCE = ("binary 10⁴", "random", "3 11 1")  # 13,259 states
WARM_UP = ("warm-up", "random", "3 8 1")  # 5,177 states
#: (workers, native, shared): the sharded rows; ``native`` off runs the shards' kernels
#: through numba's dispatchers (``SDG_AUTOMATA_NATIVE=0`` in the workers' environment), the
#: reference the native library (:mod:`sdg_automata.kernels.sharded_native`) is measured
#: against; ``shared`` off sends every batch over the comm
#: (``SDG_AUTOMATA_SHARED_BATCHES=0``), the reference of the arenas
#: (:mod:`sdg_automata.search.arena`), as between workers of different machines
ROWS = ((1, True, True), (2, True, True), (2, False, True), (2, True, False))


def _one_process(path: Path) -> dict[str, Any]:
    _, peak, out = child_cpu(["-m", "benchmarks.bench_sharded", str(path)], timeout=3600)
    return {**json.loads(out), "cpu_workers": 0.0, "peak_driver": peak, "peak_worker": 0}


def _two_at_once(path: Path) -> dict[str, Any]:
    """Two one-process searches at the same time, each in a child of its own: the CPU of
    one of them (the mean), which the machine's shared caches and memory raise over a
    search alone; a sharded search's two workers pay it too, so its ratio is the floor
    of the 2-worker row's on this machine (no sharding cost in it at all).  Each child's
    CPU is its own report (``child_cpu``'s, of the children together, is not read)."""
    from concurrent.futures import ThreadPoolExecutor

    def one(_: int) -> tuple[float, int, str]:
        return child_cpu(["-m", "benchmarks.bench_sharded", str(path)], timeout=3600)

    with ThreadPoolExecutor(2) as pool:
        done = list(pool.map(one, range(2)))
    outs = [json.loads(out) for _, _, out in done]
    return {**outs[0], "cpu_driver": sum(o["cpu_driver"] for o in outs) / 2,
            "seconds": max(o["seconds"] for o in outs), "cpu_workers": 0.0,
            "peak_driver": max(peak for _, peak, _ in done), "peak_worker": 0}


def _sharded(path: Path, warm: Path, workers: int, native: bool, shared: bool
             ) -> dict[str, Any]:
    """The sharded search on a fresh local cluster of ``workers`` processes (their kernels
    native, or numba's dispatchers; their batches through shared memory, or the comm)."""
    import os
    from unittest import mock

    from sdg_automata.grammar.parse import load_grammar

    g, small = load_grammar(path), load_grammar(warm)
    with mock.patch.dict(os.environ, {  # the workers inherit them
            "SDG_AUTOMATA_NATIVE": "1" if native else "0",
            "SDG_AUTOMATA_SHARED_BATCHES": "1" if shared else "0"}):
        return _on_cluster(g, small, workers)


def _on_cluster(g: Any, small: Any, workers: int) -> dict[str, Any]:
    from sdg_automata.runtime.cluster import dask_client
    from sdg_automata.search.decide import max_grundy
    from sdg_automata.search.shard import PHASES

    # the cluster ``--scheduler local`` starts (no dashboard, no worker profiler)
    with dask_client("local", workers=workers, timeout=60) as client:
        address = client.scheduler.address
        before: list[dict[str, float]] = []
        after: list[dict[str, float]] = []
        max_grundy(small, small.start, engine="dask",
                   options={"scheduler": address, "usage": before.extend})
        cpu = time.process_time()
        wall = time.perf_counter()
        v = max_grundy(g, g.start, engine="dask",
                       options={"scheduler": address, "usage": after.extend})
        wall = time.perf_counter() - wall
        cpu = time.process_time() - cpu
    me = resource.getrusage(resource.RUSAGE_SELF)
    # the processes' CPU less the warm-up's; the rest is the big search's shards' own
    return {"states": v.states, "max": v.maximum, "seconds": wall, "cpu_driver": cpu,
            "cpu_workers": sum(a["cpu"] - b["cpu"] for a, b in zip(after, before, strict=True)),
            "peak_driver": me.ru_maxrss * 1024, "peak_worker": max(a["peak"] for a in after),
            "received": sum(a["received"] for a in after),
            "placed": sum(a["placed"] for a in after),
            "lessons": sum(a["lessons"] for a in after),
            **{p: sum(a[p] for a in after) for p in PHASES}, "witness": str(v.witness)}


def _round(path: Path, warm: Path, truth: int | None, turn: int) -> list[dict[str, Any]]:
    """Every row once, the one-process rows first and the sharded rows from the
    ``turn``-th on, round the table (in four runs whose rows kept their order, the row
    right after one worker's had the most CPU of the 2-worker rows in 12 rounds of 20,
    which may be its place as much as its kind: turned, no row keeps a place); each with
    its CPU ratio to this round's one process.  Rows come back in :data:`ROWS` order."""
    rows = [{"how": "one process", "workers": 0, "native": True, **_one_process(path)},
            {"how": "one process, another beside it", "workers": 0, "native": True,
             **_two_at_once(path)}]
    start = turn % len(ROWS)
    done = {i: {"how": f"sharded, {w} worker{'s' * (w > 1)}{'' if n else ', numba'}"
                       f"{'' if sh else ', over the comm'}",
                "workers": w, "native": n, "shared": sh, **_sharded(path, warm, w, n, sh)}
            for i, (w, n, sh) in [*enumerate(ROWS)][start:] + [*enumerate(ROWS)][:start]}
    rows += [done[i] for i in range(len(ROWS))]
    for r in rows:
        assert (r["states"], r["max"], r["witness"]) == (
            rows[0]["states"], truth, rows[0]["witness"]), (r, rows[0])
        r["cpu_total"] = r["cpu_driver"] + r["cpu_workers"]
        r["cpu_ratio"] = r["cpu_total"] / rows[0]["cpu_driver"]
    return rows


def _median(rounds: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Per row, each measure's median over the rounds (the lower of the middle two for an
    even count, so that counts stay whole), peaks the least (the driver's is its
    process's peak so far, which later rounds inherit), the row's labels as they are;
    the range of its CPU ratio (``cpu_ratios``), its least CPU (``cpu_least``) and its
    CPU in each round (``cpu_rounds``, in ``--json``'s rows)."""
    import statistics

    out = []
    for runs in zip(*rounds, strict=True):
        row = {k: ((min if k.startswith("peak") else statistics.median_low)(r[k] for r in runs)
                   if isinstance(v, (int, float)) and not isinstance(v, bool) else v)
               for k, v in runs[0].items()}
        row["cpu_ratios"] = (min(r["cpu_ratio"] for r in runs),
                             max(r["cpu_ratio"] for r in runs))
        row["cpu_least"] = min(r["cpu_total"] for r in runs)
        row["cpu_rounds"] = [r["cpu_total"] for r in runs]
        out.append(row)
    return out


def run(quick: bool = False) -> list[dict[str, Any]]:
    import os

    label, kind, spec = QUICK_INSTANCE if quick else INSTANCE
    repeat = max(1, int(os.environ.get("SDG_SHARDED_REPEAT", "1")))
    with tempfile.TemporaryDirectory() as tmp:
        path, truth, _ = _instance(kind, spec, Path(tmp))
        warm, _, _ = _instance(*WARM_UP[1:], Path(tmp))
        rows = _median([_round(path, warm, truth, turn) for turn in range(repeat)])
    from sdg_automata.search.shard import PHASES

    base = next(r for r in rows if r["workers"] == 1 and r["native"])["seconds"]
    for r in rows:  # a row over the comm sent no batch in place (the others' share: shown)
        assert r["workers"] < 2 or r["shared"] or r["placed"] == 0, r
    for r in rows:
        r["cpu_least_ratio"] = r["cpu_least"] / rows[0]["cpu_least"]
    table = []
    for r in rows:
        speedup = base / r["seconds"] if r["workers"] else None
        low, high = r["cpu_ratios"]
        table.append([r["how"], r["states"], r["seconds"], r["states"] / r["seconds"],
                      r["cpu_driver"], r["cpu_workers"], r["cpu_total"],
                      r["cpu_ratio"], f"{low:.2f}–{high:.2f}", r["cpu_least_ratio"],
                      r["peak_driver"] / 2**20, r["peak_worker"] / 2**20,
                      "" if speedup is None else speedup,
                      "" if speedup is None else speedup / r["workers"]])
    sharded = [r for r in rows if r["workers"]]
    show("where the shards' time goes (wall s summed over the shards; send: waiting for "
         "other shards to take batches, end the level or give codes; states received from "
         "other shards, and of them read in the sender's arena; steps the shards learned, "
         "past those the driver learned first)",
         ["", *PHASES, "received", "in place", "lessons"],
         [[r["how"], *(r[p] for p in PHASES), r["received"], r["placed"], r["lessons"]]
          for r in sharded])
    rounds = f"median of {repeat} interleaved rounds; " if repeat > 1 else ""
    show(f"sharded breadth-first search, {label} ({rows[0]['states']:,} states; {rounds}wall "
         "s, CPU s user+sys and against one process's (its range over the rounds; the "
         "row's least CPU over the rounds against one process's least), peak RSS MB; "
         "speed-up and efficiency against 1 worker)",
         ["", "states", "wall s", "states/s", "CPU driver", "CPU workers", "CPU total",
          "CPU ×one", "×one range", "least ×one",
          "RSS driver", "RSS worker (max)", "speed-up", "efficiency"], table)
    return [{k: v for k, v in r.items() if k not in ("witness", "cpu_ratios")}
            | {"instance": spec, "rounds": repeat} for r in rows]


def _child(path: str) -> None:
    """One process's compiled breadth-first search: one JSON line."""
    from sdg_automata.grammar.parse import load_grammar
    from sdg_automata.search.decide import max_grundy

    g = load_grammar(path)
    cpu, wall = time.process_time(), time.perf_counter()
    v = max_grundy(g, g.start, strategy="bfs", engine="compiled")
    print(json.dumps({"states": v.states, "max": v.maximum, "witness": str(v.witness),
                      "seconds": time.perf_counter() - wall,
                      "cpu_driver": time.process_time() - cpu}))


if __name__ == "__main__":
    if len(sys.argv) == 2:
        _child(sys.argv[1])
    else:
        run(quick="--quick" in sys.argv)
