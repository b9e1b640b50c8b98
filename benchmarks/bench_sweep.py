"""Sweeps: rows per second of ``sweep grammars`` on each backend, and the Dask path's cost.

Measured side by side in one run, on the same sweep (every grammar with 2
nonterminals over {a, b}, at most 2 rules of at most 2 letters: 9,639
isomorphism classes; quick: 139):

* rows/s in this process (``--jobs 1``), on a local pool of 2 processes
  (``--jobs 2``), and on a Dask ``LocalCluster`` of 2 worker processes with one
  thread each (the path ``--scheduler`` takes); the ratios are against
  ``--jobs 1``.  The rows are checked to be the same on every backend.
* the per-job overhead of the Dask path: jobs that do nothing, run through
  the cluster, minus the same jobs run in this process, divided by the number
  of jobs; with one job per task (``batch 1``) and with the batches the
  command line picks.  Target (issue 12): under 5 ms per job.

Pools and clusters are started before their clock starts (a sweep pays that
once).  Next to wall time, the CPU time of every process involved (this one,
which also hosts the LocalCluster's scheduler, and the workers) per row: on a
shared machine the wall-clock ratios say how much of the CPUs a run got, the
CPU time what the backend itself costs.  ``python -m benchmarks bench_sweep [--quick]``.
"""

from __future__ import annotations

import json
import resource
import time
from dataclasses import dataclass
from typing import Any

from benchmarks.common import show
from sdg_automata.generators.enumeration import GrammarShape
from sdg_automata.runtime.budget import Meter
from sdg_automata.runtime.cluster import dask_executor
from sdg_automata.sweeps.grammars import grammar_sweep
from sdg_automata.sweeps.pool import process_pool
from sdg_automata.sweeps.runner import Status, Sweep, run_sweep


@dataclass(frozen=True)
class NoopRow:
    key: str
    status: Status = "ok"

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "status": self.status}


def noop(job: int, meter: Meter) -> NoopRow:
    return NoopRow(str(job))


def noop_failed(job: int, status: Status, message: str, reached: int) -> NoopRow:
    return NoopRow(str(job), status)


def _batch(todo: int, width: int) -> int:
    """The command line's choice (cli/sweep.py): 16 tasks per worker, at most 64 jobs each."""
    return max(1, min(64, todo // (width * 16)))


def _cpu(who: int = resource.RUSAGE_SELF) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def _timed(sweep: Sweep[Any], **kw: Any) -> tuple[float, dict[str, str]]:
    rows: list[dict[str, Any]] = []
    t = time.perf_counter()
    run_sweep(sweep, rows.append, **kw)
    seconds = time.perf_counter() - t
    return seconds, {r["key"]: json.dumps({k: v for k, v in r.items() if k != "seconds"},
                                          sort_keys=True) for r in rows}


def run(quick: bool = False) -> list[dict[str, Any]]:
    shape = GrammarShape(nonterminals=2, letters="ab", max_rules=2, max_body=1 if quick else 2)
    sweep = grammar_sweep(shape)
    n = sum(1 for _ in sweep.jobs)
    batch = _batch(n, 2)
    results: list[dict[str, Any]] = []
    cpu = _cpu()
    one, reference = _timed(sweep)
    results.append({"backend": "--jobs 1 (this process)", "rows": n, "batch": 1,
                    "seconds": one, "rows_per_s": n / one, "ratio": 1.0,
                    "cpu_ms_per_row": 1000 * (_cpu() - cpu) / n})
    children = _cpu(resource.RUSAGE_CHILDREN)
    with process_pool(2) as pool:
        pool.submit(int).result()  # the workers are up before the clock starts
        cpu = _cpu()
        seconds, rows = _timed(sweep, executor=pool, batch=batch, window=8)
        cpu = _cpu() - cpu
    cpu += _cpu(resource.RUSAGE_CHILDREN) - children  # the pool's processes, now joined
    assert rows == reference, "the process pool's rows differ"
    results.append({"backend": "--jobs 2 (process pool)", "rows": n, "batch": batch,
                    "seconds": seconds, "rows_per_s": n / seconds, "ratio": one / seconds,
                    "cpu_ms_per_row": 1000 * cpu / n})
    jobs = 200 if quick else 2000
    noops = Sweep(name="noop", jobs=list(range(jobs)), key=str, work=noop, failed=noop_failed,
                  columns=("key", "status"))
    here, _ = _timed(noops)
    with dask_executor("local", workers=2) as (executor, width):
        client = executor._client  # type: ignore[attr-defined]
        workers, cpu = client.run(_cpu), _cpu()  # the scheduler runs in this process
        seconds, rows = _timed(sweep, executor=executor, batch=batch, window=4 * width)
        cpu = _cpu() - cpu + sum(client.run(_cpu).values()) - sum(workers.values())
        assert rows == reference, "the Dask cluster's rows differ"
        results.append({"backend": "Dask LocalCluster, 2 workers", "rows": n, "batch": batch,
                        "seconds": seconds, "rows_per_s": n / seconds, "ratio": one / seconds,
                        "cpu_ms_per_row": 1000 * cpu / n})
        for b in (1, _batch(jobs, width)):
            t, _ = _timed(noops, executor=executor, batch=b, window=4 * width)
            results.append({"backend": f"Dask, {jobs} no-op jobs", "rows": jobs, "batch": b,
                            "seconds": t, "rows_per_s": jobs / t,
                            "overhead_ms_per_job": 1000 * (t - here) / jobs})
    show(f"sweep grammars {shape.nonterminals} nonterminals, ≤{shape.max_rules} rules of "
         f"≤{shape.max_body} letters over ab ({n} classes); ratio = rows/s over --jobs 1",
         ["backend", "rows", "batch", "seconds", "rows/s", "ratio", "CPU ms/row (all processes)",
          "overhead ms/job"],
         [[r["backend"], r["rows"], r["batch"], r["seconds"], r["rows_per_s"], r.get("ratio", ""),
           r.get("cpu_ms_per_row", ""), r.get("overhead_ms_per_job", "")] for r in results])
    return results
