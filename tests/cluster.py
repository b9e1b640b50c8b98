"""A real Dask cluster for the tests: `dask scheduler` and `dask worker` processes on
127.0.0.1 (free ports, no dashboard), stopped when the test ends."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
COMMON = ["--host", "127.0.0.1", "--no-dashboard"]


def start(args: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", *args], env=env, cwd="/",
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def reap(p: subprocess.Popen[bytes]) -> None:
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        p.wait()


@dataclass
class Cluster:
    """A scheduler and its workers, each a process of its own."""

    address: str
    scheduler: subprocess.Popen[bytes]
    env: dict[str, str]
    workers: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def add_worker(self, pythonpath: Path = ROOT) -> subprocess.Popen[bytes]:
        """A `dask worker` of one thread, importing sdg_automata from ``pythonpath``."""
        worker = start(["distributed.cli.dask_worker", self.address, "--nthreads", "1",
                        "--no-nanny", *COMMON], dict(self.env, PYTHONPATH=str(pythonpath)))
        self.workers.append(worker)
        return worker

    def wait_for(self, n: int, timeout: float = 60) -> None:
        """Until the scheduler has ``n`` workers."""
        from distributed import Client

        with Client(self.address, timeout=timeout) as client:
            client.wait_for_workers(n, timeout=timeout)


@contextlib.contextmanager
def dask_cluster(tmp: Path, workers: int = 2) -> Iterator[Cluster]:
    """A running cluster of ``workers`` workers (every process stopped at the end)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    tmp.mkdir(parents=True, exist_ok=True)
    file = tmp / "scheduler.json"
    scheduler = start(["distributed.cli.dask_scheduler", "--port", "0", "--scheduler-file",
                       str(file), *COMMON], env)
    cluster = Cluster("", scheduler, env)
    try:
        deadline = time.monotonic() + 60
        while not file.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        if not file.exists():
            raise RuntimeError(f"the Dask scheduler did not start (exit {scheduler.poll()})")
        time.sleep(0.05)  # the file is written whole, but give it its last bytes
        cluster.address = json.loads(file.read_text())["address"]
        for _ in range(workers):
            cluster.add_worker()
        if workers:
            cluster.wait_for(workers)
        yield cluster
    finally:
        # the workers first, the scheduler once they are gone: a worker told to stop while
        # its scheduler goes away can wait for it until killed (Dask's own close, with any
        # workload: the teardown waited 20 s for reap's kill after one test in three)
        for p in cluster.workers:
            if p.poll() is None:
                p.terminate()
        try:
            for p in cluster.workers:
                reap(p)
        finally:  # (the scheduler stopped too when the wait is cut short: Ctrl-C)
            if scheduler.poll() is None:
                scheduler.terminate()
            reap(scheduler)
