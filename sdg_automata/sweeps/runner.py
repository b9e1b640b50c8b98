"""Sweeps: many independent jobs, one row each, streamed, resumable, on any executor.

A :class:`Sweep` is a sequence of picklable jobs, a key for each job, and a
function job → row (a frozen dataclass with ``to_json``).  :func:`run_sweep`
runs it over any :class:`concurrent.futures.Executor`: a local process pool,
or a Dask cluster through ``Client.get_executor`` (:func:`dask_executor`; the
``cluster`` extra).  There is no scheduler, socket or queue of our own.

Guarantees (issue 12):

* **Streamed.**  Each row is handed to the sink as soon as its job is done,
  in completion order; the sinks (:class:`JsonlSink`, :class:`CsvSink`,
  :class:`TableSink`) write and flush it at once.
* **Resumable, nothing lost.**  :func:`resume` reads an output file before a
  sweep appends to it: the keys it holds are skipped, and a torn last line (a
  sweep killed mid-write, SIGKILL included) is detected and cut off, so a
  killed sweep loses at most the rows in flight and never duplicates or
  corrupts one.  :func:`locked` keeps a second sweep from appending to the
  same file at the same time.
* **A row is the job's own outcome, never the cluster's** (issue 21 §1).  A
  job that raises gives a row with ``"status": "error"`` and an ``error``
  message; a job over its per-job :class:`~sdg_automata.runtime.budget.Budget` gives
  ``"status": "budget"`` (the job's own such row when it returns one, even late:
  it may say how far the job got).  A job that kills its worker is found by rerunning
  the jobs in flight one at a time (on a fresh pool; on Dask, which reruns a
  dead worker's tasks itself and gives up with ``KilledWorker`` after
  ``distributed.scheduler.allowed-failures`` deaths), and only the job that
  kills a worker alone becomes an error row.  Anything else that fails a task
  -- the scheduler or the connection to it lost, a cancelled future, no
  worker left for the executor's grace time -- is the sweep's fault: no row
  is written for it, and :func:`run_sweep` stops with
  :class:`~sdg_automata.errors.ResourceError` (exit 3) saying how many rows
  it wrote; a rerun with the same ``--out`` recomputes exactly the rest.
  Error rows are results like any other, so a resume skips them; delete
  their lines to run those jobs again.
* **Same code everywhere.**  :func:`check_workers` compares the package
  version and a fingerprint of its source on every Dask worker with ours and
  refuses to start when they differ; every batch's result carries the
  fingerprint of the worker that ran it, so the rows of a worker running
  other code that joins mid-run are refused, and the sweep stops saying so.
* **Workers die with their parent.**  A local pool's workers ask Linux for
  SIGKILL when the process that made them dies (``prctl(PR_SET_PDEATHSIG)``),
  so a sweep killed with SIGKILL leaves no orphan holding its stdout; where
  prctl is missing a thread in each worker polls its parent instead.

Jobs are sent in batches (``batch`` jobs per task) so that the per-task cost
of a distributed scheduler (about a millisecond) is shared by many small jobs;
at most ``window`` batches are in flight, so a sweep of millions of jobs does
not queue millions of futures.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import importlib
import io
import itertools
import json
import os
import signal
import stat
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Container, Iterable, Iterator, Sequence
from concurrent.futures import (
    FIRST_COMPLETED,
    BrokenExecutor,
    CancelledError,
    Executor,
    Future,
    ThreadPoolExecutor,
    wait,
)
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import IO, Any, Generic, Literal, NamedTuple, Protocol, TypeVar, get_args

from ..errors import BudgetExceeded, InputError, Interrupted, ResourceError, SdgBug
from ..runtime.budget import UNLIMITED, Budget, Meter
from ..runtime.stopping import is_stop_handler

__all__ = [
    "FORMATS", "Batch", "CsvSink", "Format", "JsonlSink", "Resumed", "Row", "Sink", "Status",
    "Sweep", "SweepStats", "TableSink", "check_workers", "dask_client", "dask_executor",
    "default_jobs", "fingerprint", "locked", "plain_cells", "process_pool", "resume", "run_sweep",
]

Status = Literal["ok", "budget", "error"]
#: seconds between two looks for a Ctrl-C while waiting for an executor
_TICK = 0.1
#: the longest --connect-timeout: a wait of a day is "forever" on any cluster, and far
#: longer ones overflow the clocks of threading and asyncio
LONGEST_WAIT = 86400.0
Format = Literal["jsonl", "csv", "table"]
#: the output formats, for the command line's ``choices=``
FORMATS: tuple[str, ...] = get_args(Format)

J = TypeVar("J")


class Row(Protocol):
    """What a job returns: a frozen dataclass with a ``key`` and ``to_json``."""

    @property
    def key(self) -> str: ...

    def to_json(self) -> dict[str, Any]: ...


@dataclass(frozen=True, kw_only=True)
class Sweep(Generic[J]):
    """A sweep: what to run and how to name it.

    Parameters
    ----------
    name:
        What the sweep is, for progress and messages (``"grammars"``).
    jobs:
        The jobs, picklable; any iterable that can be iterated again (a list,
        or a lazy collection such as :class:`~sdg_automata.sweeps.grammars.GrammarJobs`):
        the runner takes them one batch at a time.
    key:
        A job's key, unique in the sweep; it is the ``key`` field of its row
        and what resuming matches.
    work:
        Job → row, a module-level function (workers import it by name); it
        gets the job's :class:`~sdg_automata.runtime.budget.Meter` and may raise
        :class:`~sdg_automata.errors.BudgetExceeded`.
    failed:
        (job, status, message, reached) → the row of a job that ran out of
        budget (``"budget"``) or failed (``"error"``); module-level as well.
        ``reached`` is the job meter's :attr:`~sdg_automata.runtime.budget.Meter.count`
        when it stopped (what ``work`` counted on it, ``0`` if nothing), so that
        a row stopped by the per-job deadline anywhere, even while ``work``
        builds its own row, can still say how far it got.
    columns:
        The row fields in the order CSV shows them.
    brief:
        A row as the short cells of a terminal table (header → cell); the
        fields of ``columns`` as they are when ``None``.
    csv:
        A row as CSV shows it (the same fields, some written otherwise);
        the row itself when ``None``.
    unit:
        What the per-job budget counts (for messages).
    """

    name: str
    jobs: Iterable[J]
    key: Callable[[J], str]
    work: Callable[[J, Meter], Row]
    failed: Callable[[J, Status, str, int], Row]
    columns: tuple[str, ...]
    brief: Callable[[dict[str, Any]], dict[str, str]] | None = None
    csv: Callable[[dict[str, Any]], dict[str, Any]] | None = None
    unit: str = "states"

    def __post_init__(self) -> None:
        if "key" not in self.columns or "status" not in self.columns:
            raise SdgBug(f"sweep {self.name!r}: rows need 'key' and 'status' columns")


@dataclass(frozen=True, kw_only=True)
class SweepStats:
    """What a run did: rows written by status, jobs skipped (already done), wall time."""

    rows: int
    ok: int
    budget: int
    error: int
    skipped: int
    seconds: float

    @property
    def rate(self) -> float:
        """Rows per second."""
        return self.rows / self.seconds if self.seconds > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        return {"rows": self.rows, "ok": self.ok, "budget": self.budget, "error": self.error,
                "skipped": self.skipped, "seconds": round(self.seconds, 3),
                "rows_per_second": round(self.rate, 2)}

    def __str__(self) -> str:
        return (f"{self.rows} rows ({self.ok} ok, {self.budget} budget, {self.error} error), "
                f"{self.skipped} skipped as already done, {self.seconds:.1f} s, "
                f"{self.rate:.1f} rows/s")


# ---------------------------------------------------------------------------
# the worker side


class Batch(NamedTuple):
    """A task's result: its rows, and the code and place that computed them."""

    fingerprint: str  #: :func:`fingerprint` of the worker
    place: str  #: the worker (a Dask address, or the process id)
    rows: list[dict[str, Any]]


def _place() -> str:
    """Where this runs: the Dask worker's address, or the process."""
    distributed = sys.modules.get("distributed")
    if distributed is not None:
        with contextlib.suppress(ValueError):  # not inside a Dask task
            return str(distributed.get_worker().address)
    return f"process {os.getpid()}"


def _run_batch(work: Callable[[J, Meter], Row], failed: Callable[[J, Status, str, int], Row],
               jobs: Sequence[J], budget: Budget, unit: str) -> Batch:
    """Run jobs one after the other where the executor put us; every job gives one row."""
    rows = []
    for job in jobs:
        meter = budget.start("job", unit=unit)
        returned: Row | None = None
        try:
            with meter.library("job"):  # the per-job deadline, also inside libraries
                row = returned = work(job, meter)
        except BudgetExceeded as e:
            # a row the job itself stopped at its budget says how far it got: it stands
            # even when it came back after the deadline; any other late row is over it
            if returned is not None and returned.to_json().get("status") == "budget":
                row = returned
            else:
                row = failed(job, "budget", str(e), meter.count)
        except MemoryError:  # a resource limit, like a budget: the job did not fit
            row = failed(job, "budget", "out of memory: the job does not fit in this worker",
                         meter.count)
        except Interrupted:
            raise
        except Exception as e:  # noqa: BLE001 -- a failing job is a row, not a failed sweep
            row = failed(job, "error", f"{type(e).__name__}: {e}", meter.count)
        rows.append(row.to_json())
    return Batch(fingerprint(), _place(), rows)


#: prctl(2)'s option: the signal a process gets when its parent dies (Linux)
_PR_SET_PDEATHSIG = 1


def _worker_start(parent: int) -> None:
    """A pool worker's start: Ctrl-C is the parent's business (it stops the sweep in
    one place), SIGTERM has its default action (the parent terminates its workers with
    it), and the worker dies with its parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    _die_with(parent)


def _die_with(parent: int) -> None:
    """End this process when ``parent`` dies, even by SIGKILL (issue 21 §5).

    A pool worker otherwise outlives a killed sweep forever: it waits on a
    queue whose write end it holds itself, and keeps the sweep's stdout open,
    so a reader never sees end-of-file.  On Linux the kernel sends SIGKILL at
    the parent's death (``PR_SET_PDEATHSIG``, asked through ctypes): at once,
    even while the worker runs a compiled kernel that holds the GIL.  It fires
    when the *thread* that started the worker ends, which for
    :func:`process_pool` is the thread that first submits (the main thread of
    the command line).  Elsewhere, or where prctl fails, a daemon thread looks
    at the parent every half second instead (os.getppid changes when a POSIX
    parent dies).
    """
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
                if os.getppid() != parent:  # the parent died before we asked
                    os._exit(1)
                return
        except (OSError, AttributeError):  # pragma: no cover - no libc prctl
            pass
    threading.Thread(target=_watch_parent, args=(parent,), name="sdg-parent-watch",
                     daemon=True).start()


def _watch_parent(parent: int) -> None:  # pragma: no cover - off Linux
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)


def default_jobs() -> int:
    """Worker processes when none are asked for: the number of CPUs (the one default)."""
    return os.cpu_count() or 1


def process_pool(jobs: int) -> Executor:
    """A local process pool of ``jobs`` workers that ignore Ctrl-C and die with this
    process (:func:`_die_with`).

    Leaving it through an exception (Ctrl-C) terminates the workers instead of
    waiting for the jobs they run.
    """
    from concurrent.futures import ProcessPoolExecutor

    class Pool(ProcessPoolExecutor):
        def __exit__(self, kind: Any, value: Any, tb: Any) -> Any:
            if kind is not None:
                _stop(self)
            return super().__exit__(kind, value, tb)

    return Pool(max_workers=jobs, initializer=_worker_start, initargs=(os.getpid(),))


def _stop(executor: Executor, *, settle: float = 5.0) -> None:
    """Shut an executor down without waiting for its jobs; a process pool's workers are killed.

    No future is cancelled, here or by the pool (``cancel_futures`` stays off):
    the pool's management thread still owns them and fails each with
    ``BrokenProcessPool`` once it sees the workers gone; a future cancelled
    under it makes that thread (or the queue feeder thread, which holds the
    same work items) die on ``InvalidStateError`` with a traceback on stderr,
    after the sweep has already said it was interrupted (issue 15).  The
    management thread is then given ``settle`` seconds to finish, so nothing
    of the pool runs on while the caller reports and the interpreter exits.
    """
    manager = getattr(executor, "_executor_manager_thread", None)  # ProcessPoolExecutor's
    for p in list((getattr(executor, "_processes", None) or {}).values()):
        with contextlib.suppress(Exception):
            p.terminate()
    executor.shutdown(wait=False)
    if isinstance(manager, threading.Thread) and manager is not threading.current_thread():
        manager.join(settle)  # it fails the pending futures and joins the dead workers


class _SigintGuard:
    """Ctrl-C (and SIGTERM, which the command line makes a Ctrl-C:
    :mod:`~sdg_automata.runtime.stopping`)
    held back over steps it must not cut, and raised at a point of our choosing.

    A Ctrl-C that lands between a sink's write and the count makes the message
    one row short of the file; one that lands inside ``concurrent.futures``
    (say while ``wait`` holds the futures' locks) can leave the pool's
    management thread stuck or dying with a traceback (issue 15).  Inside
    :meth:`held` the signal is only noted; it is raised as
    :class:`KeyboardInterrupt` when the outermost held step ends or at
    :meth:`check`, through the handler it stands in for.  It replaces only
    handlers that raise :class:`KeyboardInterrupt`
    (:func:`~sdg_automata.runtime.stopping.is_stop_handler`), on the main thread
    (signals go nowhere else); elsewhere nothing is held.  A second signal
    before the first is raised is raised at once (the count may then be one
    row short of a file the row was being written to).
    """

    def __init__(self) -> None:
        self._depth = 0
        self._pending: int | None = None
        self._handlers: dict[int, Any] = {}

    def _handler(self, signum: int, frame: Any) -> None:
        if self._depth and self._pending is None:
            self._pending = signum
        else:  # a second signal does not wait (a write blocked on a full pipe never ends)
            self._handlers[signum](signum, frame)

    @contextlib.contextmanager
    def installed(self) -> Iterator[None]:
        """Our handler instead of the raising ones, while the sweep runs."""
        if threading.current_thread() is threading.main_thread():
            for signum in (int(signal.SIGINT), int(signal.SIGTERM)):
                handler = signal.getsignal(signum)
                if is_stop_handler(handler):
                    self._handlers[signum] = handler
                    signal.signal(signum, self._handler)
        try:
            yield
        finally:
            for signum, handler in self._handlers.items():
                signal.signal(signum, handler)
            self._handlers.clear()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """A step Ctrl-C does not cut; one that came during it is raised after it."""
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
        if not self._depth:
            self.check()

    def check(self) -> None:
        """Raise the Ctrl-C (or SIGTERM) held so far, if any."""
        if self._pending is not None:
            signum, self._pending = self._pending, None
            self._handlers[signum](signum, None)


# ---------------------------------------------------------------------------
# the runner


def run_sweep(
    sweep: Sweep[J],
    on_row: Callable[[dict[str, Any]], None],
    *,
    executor: Executor | None = None,
    restart: Callable[[], Executor] | None = None,
    budget: Budget = UNLIMITED,
    skip: Container[str] = frozenset(),
    batch: int = 1,
    window: int = 8,
    ordered: bool = False,
) -> SweepStats:
    """Run every job of ``sweep`` whose key is not in ``skip``; hand each row to ``on_row``.

    Parameters
    ----------
    sweep:
        The jobs and the job → row function.
    on_row:
        Called in this process with each row (a JSON-ready dict) as soon as it
        is done, in completion order.  It may raise
        :class:`~sdg_automata.errors.ResourceError` (a full disk): the sweep
        then stops as when its cluster is lost.
    executor:
        Where jobs run: any :class:`concurrent.futures.Executor` (a
        :func:`process_pool`, :func:`dask_executor`); ``None`` runs them here,
        one after the other.  An executor with a ``watch()`` method has it
        called while the sweep waits; it raises
        :class:`~sdg_automata.errors.ResourceError` when the executor can no
        longer finish its tasks (a Dask cluster left without workers).
    restart:
        Makes a fresh executor when ``executor`` breaks (a worker process
        died); the jobs in flight are then rerun one at a time to find the one
        that kills its worker, which becomes an error row.  Without it, the
        sweep stops there with :class:`~sdg_automata.errors.ResourceError`.
    budget:
        The per-job budget (``max_states``, ``max_seconds``).
    skip:
        Keys already done (see :func:`resume`).
    batch, window:
        Jobs per task, and tasks in flight at once.
    ordered:
        Hand rows over in the order of the jobs (each as soon as it and every
        earlier one are done) instead of the order they finish in.

    Returns
    -------
    SweepStats

    Raises
    ------
    Interrupted
        On Ctrl-C, saying how many rows were written (the rest can be resumed).
    ResourceError
        When the executor is lost (a Dask scheduler gone, its tasks cancelled,
        no worker left) or ``on_row`` runs out of room, saying how many rows
        were written; no row is written for a job the executor lost.
    InputError
        When a worker running other code (another :func:`fingerprint`) joins:
        its rows are refused.
    """
    if batch < 1 or window < 1:
        raise InputError(f"batch and window must be positive, not {batch} and {window}")
    batch, window = min(batch, sys.maxsize), min(window, sys.maxsize)  # islice's limit
    started = time.perf_counter()
    counts = dict.fromkeys(get_args(Status), 0)
    skipped = [0]
    sent: deque[str] = deque()  # keys in job order, as they are taken (for ordered)
    waiting: dict[str, dict[str, Any]] = {}  # rows done before an earlier one, when ordered

    def pending() -> Iterator[tuple[str, J]]:
        """The jobs not done yet, taken lazily: a sweep may have millions."""
        for job in sweep.jobs:
            k = sweep.key(job)
            if k in skip:
                skipped[0] += 1
            else:
                if ordered:
                    sent.append(k)
                yield k, job

    def deliver(keys: Sequence[str], result: Batch) -> None:
        rows = result.rows
        if result.fingerprint != fingerprint():
            raise InputError(
                f"sweep {sweep.name}: {result.place} runs sdg_automata {result.fingerprint}, "
                f"but this client runs {fingerprint()}: its {len(rows)} row(s) were refused "
                f"and the sweep stopped after {sum(counts.values())} rows; install the same "
                f"version on every worker (the fingerprint hashes the package source), then "
                f"rerun the same command with the same --out to resume")
        if [r.get("key") for r in rows] != list(keys):
            raise SdgBug(f"sweep {sweep.name!r}: rows came back for other keys than sent")
        if ordered:
            waiting.update(zip(keys, rows, strict=True))
            rows = []
            while sent and sent[0] in waiting:
                rows.append(waiting.pop(sent.popleft()))
        for row in rows:
            with guard.held():  # written and counted as one step: Ctrl-C comes before or after both
                on_row(row)
                counts[row["status"]] = counts.get(row["status"], 0) + 1

    def failures(chunk: Sequence[tuple[str, J]], message: str) -> Batch:
        return Batch(fingerprint(), _place(),
                     [sweep.failed(job, "error", message, 0).to_json() for _, job in chunk])

    guard = _SigintGuard()
    try:
        with guard.installed():
            _run(sweep, executor, restart, pending(), budget, batch, window, deliver, failures,
                 guard)
    except (KeyboardInterrupt, Interrupted):
        done = sum(counts.values())
        raise Interrupted(f"sweep {sweep.name} interrupted after {done} rows; rerun the same "
                          f"command with the same --out to resume", explored=done) from None
    except ResourceError as e:
        raise ResourceError(f"sweep {sweep.name} stopped after {sum(counts.values())} rows: "
                            f"{e}; rerun the same command with the same --out to resume the "
                            f"jobs not done") from None
    return SweepStats(rows=sum(counts.values()), ok=counts["ok"], budget=counts["budget"],
                      error=counts["error"], skipped=skipped[0],
                      seconds=time.perf_counter() - started)


def _run(sweep: Sweep[J], executor: Executor | None, restart: Callable[[], Executor] | None,
         pending: Iterator[tuple[str, J]], budget: Budget, batch: int, window: int,
         deliver: Callable[[Sequence[str], Batch], None],
         failures: Callable[[Sequence[tuple[str, J]], str], Batch],
         guard: _SigintGuard) -> None:
    """Every job of :func:`run_sweep`, here one after the other or on ``executor``."""
    if executor is None:  # jobs run here: Ctrl-C must cut them
        for k, job in pending:
            deliver([k], _run_batch(sweep.work, sweep.failed, [job], budget, sweep.unit))
    else:  # jobs run elsewhere: Ctrl-C is taken between two waits, never inside the pool
        watch = getattr(executor, "watch", None)

        def poll() -> None:
            guard.check()
            if watch is not None:
                watch()

        with guard.held():
            _run_on(sweep, executor, restart, pending, budget, batch, window, deliver,
                    failures, poll)


def _killed_its_worker(e: BaseException) -> bool:
    """Whether a failed task says one of its jobs killed the worker that ran it: Dask's
    ``KilledWorker`` (the task's workers died ``allowed-failures`` times)."""
    distributed = sys.modules.get("distributed")
    return distributed is not None and isinstance(e, distributed.KilledWorker)


def _lost(e: BaseException) -> ResourceError:
    """The error for a task the executor lost (never a row: the job did not fail)."""
    if isinstance(e, CancelledError):
        why = ("a task was cancelled under it: the Dask scheduler, or the connection to it, "
               "was lost")
    else:
        why = f"the executor failed ({type(e).__name__}: {e})"
    return ResourceError(why)


def _run_on(sweep: Sweep[J], executor: Executor, restart: Callable[[], Executor] | None,
            pending: Iterator[tuple[str, J]], budget: Budget, batch: int, window: int,
            deliver: Callable[[Sequence[str], Batch], None],
            failures: Callable[[Sequence[tuple[str, J]], str], Batch],
            poll: Callable[[], None]) -> None:
    """The windowed submit/collect loop of :func:`run_sweep` over an executor.

    ``poll`` raises a Ctrl-C held meanwhile, or a lost executor; it is called
    every :data:`_TICK` seconds while waiting.
    """
    chunks = iter(lambda: list(itertools.islice(pending, batch)), [])
    in_flight: dict[Future[Batch], list[tuple[str, J]]] = {}
    own: list[Executor] = []  # executors made by restart, shut down here

    def submit(ex: Executor, chunk: list[tuple[str, J]]) -> None:
        jobs = [job for _, job in chunk]
        try:
            fut = ex.submit(_run_batch, sweep.work, sweep.failed, jobs, budget, sweep.unit)
        except BrokenExecutor as e:  # the pool broke since the last wait: a task that
            fut = Future()           # failed with it, handled as those of the wait are
            fut.set_exception(e)
        except Exception as e:  # noqa: BLE001 -- a closed Dask client, a lost connection
            raise _lost(e) from None
        in_flight[fut] = chunk

    def settle(fs: Iterable[Future[Batch]]) -> set[Future[Batch]]:
        """Wait for one of ``fs`` to finish, answering Ctrl-C within a tick."""
        while True:
            finished, _ = wait(fs, timeout=_TICK, return_when=FIRST_COMPLETED)
            poll()
            if finished:
                return finished

    def collect(fut: Future[Batch], chunk: list[tuple[str, J]]) -> bool:
        """Deliver a finished task's rows; False when its executor broke.

        Only a job that kills its worker is a row here; any other failure of the
        task (``_run_batch`` makes a row of whatever a job raises) is the
        executor's, and stops the sweep without a row.
        """
        try:
            result = fut.result()
        except BrokenExecutor:
            return False
        except Exception as e:  # noqa: BLE001 -- whatever the executor says, it is not a row
            if not _killed_its_worker(e):
                raise _lost(e) from None
            if len(chunk) > 1:  # one job may have taken its batch down: each again, alone
                for one in chunk:
                    submit(executor, [one])
                return True
            tries = getattr(e, "allowed_failures", None)
            result = failures(chunk, f"the job killed each of the "
                                     f"{'' if tries is None else f'{tries + 1} '}Dask workers "
                                     f"that ran it (KilledWorker)")
        deliver([k for k, _ in chunk], result)
        return True

    try:
        while True:
            for chunk in chunks:
                submit(executor, chunk)
                if len(in_flight) >= window:
                    break
            if not in_flight:
                return
            finished = settle(in_flight)
            suspects: list[tuple[str, J]] = []
            for fut in finished:
                chunk = in_flight.pop(fut)
                if not collect(fut, chunk):
                    suspects += chunk
            if not suspects:
                continue
            # a worker died: every task still in flight on this executor is lost as well
            for fut, chunk in in_flight.items():
                if fut.done() and not fut.cancelled() and fut.exception() is None:
                    deliver([k for k, _ in chunk], fut.result())
                else:  # lost with the pool, or failed: rerun alone below
                    suspects += chunk
            in_flight.clear()
            _stop(executor)
            if restart is None:  # which job killed it cannot be found: not a row
                raise ResourceError("a worker process died and the executor cannot be "
                                    "restarted")
            executor = restart()
            own.append(executor)
            for one in suspects:  # alone on a fresh pool: a death now is this job's
                submit(executor, [one])
                fut = next(iter(in_flight))
                settle([fut])
                chunk = in_flight.pop(fut)
                if not collect(fut, chunk):
                    deliver([chunk[0][0]], failures(chunk, "the worker process died running it"))
                    _stop(executor)
                    executor = restart()
                    own.append(executor)
    finally:  # futures still in flight (an exception) go with their executor's shutdown
        for ex in own:
            _stop(ex)


# ---------------------------------------------------------------------------
# output: sinks, resuming, locking


class Sink(Protocol):
    """Where rows go, one at a time, flushed."""

    def write(self, row: dict[str, Any]) -> None: ...


def _stdout() -> IO[str]:
    return sys.stdout  # looked up per write: a progress display may have wrapped it


@dataclass
class JsonlSink:
    """JSON Lines: one object per line, flushed per row (the default for ``--out``)."""

    stream: IO[str] | None = None

    def write(self, row: dict[str, Any]) -> None:
        out = self.stream or _stdout()
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        out.flush()


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False)
    return str(value)


@dataclass
class CsvSink:
    """CSV with a header line; nested fields (dicts, lists) as JSON in their cell."""

    columns: tuple[str, ...]
    stream: IO[str] | None = None
    header: bool = True
    cells: Callable[[dict[str, Any]], dict[str, Any]] | None = None

    def write(self, row: dict[str, Any]) -> None:
        out = self.stream or _stdout()
        if self.cells is not None:
            row = self.cells(row)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        if self.header:
            writer.writerow(self.columns)
            self.header = False
        writer.writerow([_cell(row.get(c)) for c in self.columns])
        out.write(buffer.getvalue())
        out.flush()


@dataclass
class TableSink:
    """Aligned rows for a terminal, one line per row as it arrives, header first.

    ``cells`` turns a row into its display cells (the sweep's :attr:`Sweep.brief`).
    Widths are fixed by the header and the first row, at least ``least`` and at
    most ``width``; longer cells are cut (the last column never is).
    """

    cells: Callable[[dict[str, Any]], dict[str, str]]
    width: int = 24
    least: int = 10
    stream: IO[str] | None = None
    _widths: list[int] = field(default_factory=list, repr=False)

    def _line(self, cells: Sequence[str]) -> str:
        *first, last = cells
        cut = [c if len(c) <= w else c[:w - 1] + "…" for c, w in zip(first, self._widths,
                                                                       strict=True)]
        return "  ".join(c.ljust(w) for c, w in zip(cut, self._widths, strict=True)) + "  " + last

    def write(self, row: dict[str, Any]) -> None:
        out = self.stream or _stdout()
        cells = self.cells(row)
        if not self._widths:
            self._widths = [max(len(h), self.least, min(self.width, len(c)))
                            for h, c in cells.items()][:-1]
            out.write(self._line(list(cells)) + "\n")
        out.write(self._line(list(cells.values())) + "\n")
        out.flush()


def plain_cells(columns: Sequence[str]) -> Callable[[dict[str, Any]], dict[str, str]]:
    """Display cells that are the row's fields as they are (nested ones as JSON)."""
    def cells(row: dict[str, Any]) -> dict[str, str]:
        return {c: _cell(row.get(c)) for c in columns}

    return cells


@dataclass(frozen=True, kw_only=True)
class Resumed:
    """What :func:`resume` found in an output file."""

    done: frozenset[str]  # keys not to run again
    torn_bytes: int  # bytes of a torn last line that were cut off (0: none)
    header: bool  # whether the file already has its header (CSV)
    retried: int = 0  # keys whose last row has a status to retry


def _regular(path: str) -> bool:
    """Whether ``path`` exists; :class:`~sdg_automata.errors.InputError` when it is not a
    regular file (or a link to one): a sweep rereads its ``--out`` to resume, and a device
    such as /dev/full reads forever, a FIFO blocks the open (issue 21 §6)."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return False
    except OSError as e:
        raise InputError(f"cannot write {path!r}: {e.strerror or e}") from None
    if stat.S_ISDIR(mode):
        raise InputError(f"cannot write {path!r}: it is a directory")
    if not stat.S_ISREG(mode):
        kind = ("a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode)
                else "a device")
        raise InputError(f"--out {path!r} is {kind}, not a regular file: a sweep appends its "
                         f"rows to a file it can read again to resume")
    return True


def resume(path: str | os.PathLike[str], fmt: Format, columns: Sequence[str], *,
           retry: Container[str] = frozenset()) -> Resumed:
    """Read the keys already in ``path`` and cut off a torn last line.

    A key is done unless the status of its last row is in ``retry``
    (``{"error"}`` for ``--retry-errors``): that job runs again, and its new
    row, appended, is the one that counts.

    A line is *torn* when it is the last and does not end with a newline (a
    writer killed in the middle of a row: a row is one write ending with its
    newline, which nothing inside a JSON row or a CSV field at its end can
    be).  Every other line must be a row of this sweep (it has every field of
    ``columns``) or blank, else :class:`~sdg_automata.errors.InputError` (the
    file is someone else's, or was edited, and appending to it would mix
    sweeps); a complete last line is no exception.
    """
    if fmt == "table":
        raise InputError("--out takes jsonl or csv; the table format is for the terminal")
    p = Path(path)
    if not _regular(str(p)):
        return Resumed(done=frozenset(), torn_bytes=0, header=False)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        return Resumed(done=frozenset(), torn_bytes=0, header=False)
    except OSError as e:
        raise InputError(f"cannot read {str(p)!r}: {e.strerror or e}") from None
    lines = [line + b"\n" for line in data.split(b"\n")[:-1]]  # after the last \n: torn
    _torn_tail(data[sum(map(len, lines)):], fmt, bool(lines), columns, str(p))
    read = _read_jsonl if fmt == "jsonl" else _read_csv
    status, keep = read(lines, tuple(columns), str(p))
    header = fmt == "csv" and keep > 0
    if keep < len(data):
        with open(p, "r+b") as f:
            f.truncate(keep)
    done = frozenset(k for k, s in status.items() if s not in retry)
    return Resumed(done=done, torn_bytes=len(data) - keep, header=header,
                   retried=len(status) - len(done))


def _torn_tail(tail: bytes, fmt: Format, after_lines: bool, columns: Sequence[str],
               path: str) -> None:
    """Refuse bytes after the last newline that cannot be the start of a row: cutting
    them would delete what some other program wrote (a file of zeros, a text without
    newline).  A JSON row starts with ``{``; a CSV file starts with its header."""
    if not tail:
        return
    header = ",".join(columns).encode()
    if fmt == "jsonl":
        fits = tail.startswith(b"{")
    else:
        fits = after_lines or header.startswith(tail) or tail.startswith(header)
    if not fits:
        raise InputError("its last line is neither a row of this sweep nor the start of one; "
                         "refusing to append to it", source=path)


def _read_jsonl(lines: list[bytes], columns: tuple[str, ...], path: str
                ) -> tuple[dict[str, str], int]:
    """The status of each key (its last row's) in a JSON Lines file's complete lines, and
    their bytes (all of them)."""
    keys: dict[str, str] = {}
    keep = 0
    for i, line in enumerate(lines, start=1):
        keep += len(line)
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            raise InputError("not a JSON row: the file does not hold rows of this sweep; "
                             "refusing to append to it", source=path, line=i) from None
        missing = [c for c in columns if c not in row] if isinstance(row, dict) else ["key"]
        if missing:
            raise InputError(f"no field {missing[0]!r}: the file does not hold rows of this "
                             f"sweep; refusing to append to it", source=path, line=i)
        keys[str(row["key"])] = str(row["status"])
    return keys, keep


def _read_csv(lines: list[bytes], columns: tuple[str, ...], path: str
              ) -> tuple[dict[str, str], int]:
    """The status of each key (its last row's) in a CSV file, and the bytes to keep (a
    torn last record dropped).

    Records may span lines (a grammar's text is quoted with its newlines), so
    the reader is fed line by line and the bytes of each record are counted; a
    record cut inside such a field (an open quote at the end) is torn.
    """
    consumed = [0]

    def feed() -> Iterator[str]:
        for line in lines:
            consumed[0] += len(line)
            yield line.decode("utf-8", errors="replace")

    reader = csv.reader(feed(), strict=True)
    whole = b"".join(lines)
    keys: dict[str, str] = {}
    keep = 0
    k, st = columns.index("key"), columns.index("status")
    first = True
    while True:
        try:
            record = next(reader)
        except StopIteration:
            return keys, keep
        except csv.Error as e:
            if consumed[0] == len(whole) and whole[keep:].count(b'"') % 2:
                return keys, keep  # a quoted field still open at the end: torn
            raise InputError(f"not CSV ({e}); refusing to append to it", source=path,
                             line=reader.line_num) from None
        if first and tuple(record) != columns:
            raise InputError(f"its header is not this sweep's columns ({','.join(columns)}); "
                             f"refusing to append to it", source=path)
        if len(record) != len(columns):  # a complete record: the file was not written so
            raise InputError(f"{len(record)} fields, not {len(columns)}; refusing to append "
                             f"to it", source=path, line=reader.line_num)
        if not first:
            keys[record[k]] = record[st]
        first = False
        keep = consumed[0]


@contextlib.contextmanager
def locked(path: str | os.PathLike[str]) -> Iterator[IO[str]]:
    """Open ``path`` for appending, holding an exclusive lock while the sweep writes.

    ``path`` must be a regular file or not exist (:func:`_regular`); it is
    opened without blocking, so a FIFO put in its place meanwhile is refused
    too.  A second sweep on the same file fails at once with
    :class:`~sdg_automata.errors.InputError` instead of interleaving rows.  A
    file this call created is removed again when the sweep fails before
    writing a byte to it: a refused start leaves nothing behind.
    """
    name = os.fspath(path)
    if not name:
        raise InputError("--out needs a file name")
    existed = _regular(name)
    flags = (os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
             | getattr(os, "O_CLOEXEC", 0))
    try:
        fd = os.open(name, flags, 0o666)
    except OSError as e:
        raise InputError(f"cannot write {name!r}: {e.strerror or e}") from None
    f = os.fdopen(fd, "a", encoding="utf-8", newline="")
    with f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):  # put there since _regular looked
            raise InputError(f"--out {name!r} is not a regular file")
        os.set_blocking(fd, True)
        try:
            import fcntl

            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except ImportError:  # pragma: no cover - not POSIX: no lock
            pass
        except OSError:
            raise InputError(f"{name!r} is being written by another sweep") from None
        try:
            yield f
        except BaseException:
            if not existed:
                _remove_if_empty(name, fd)
            with contextlib.suppress(OSError):  # a row cut by a full disk is torn: resume
                f.close()                        # cuts it, and flushing it again would fail
            raise


def _remove_if_empty(name: str, fd: int) -> None:
    """Remove the file ``fd`` (created at ``name``) if nothing was written to it."""
    with contextlib.suppress(OSError):
        real = os.path.realpath(name)
        mine = os.fstat(fd)
        if mine.st_size == 0 and os.path.samestat(os.stat(real), mine):
            os.unlink(real)


# ---------------------------------------------------------------------------
# Dask


@cache
def fingerprint() -> str:
    """The package version and a hash of its source files: equal means the same code."""
    # the package is imported before any of its modules; importing it here would put
    # this module above everything the package root re-exports
    version = sys.modules[__name__.split(".")[0]].__version__
    root = Path(__file__).resolve().parents[1]  # the package, not this subpackage
    digest = hashlib.sha256()
    for f in sorted(root.rglob("*.py")):
        digest.update(str(f.relative_to(root)).encode() + b"\0" + f.read_bytes() + b"\0")
    return f"{version}+{digest.hexdigest()[:12]}"


def _worker_identity() -> dict[str, str]:
    """Run on each worker by :func:`check_workers`."""
    return {"fingerprint": fingerprint(), "python": sys.version.split()[0],
            "path": str(Path(__file__).resolve().parents[1])}


def check_workers(client: Any, *, timeout: float = LONGEST_WAIT) -> int:
    """Refuse a cluster whose workers run other code; return how many threads it has.

    Each worker reports :func:`fingerprint` (version + source hash); a worker
    that cannot import ``sdg_automata`` at all fails the check as well.

    Raises
    ------
    InputError
        Naming the first worker that differs, with both fingerprints.
    ResourceError
        When the workers do not all answer within ``timeout`` seconds (a frozen
        worker: ``Client.run`` itself waits for ever).
    """
    import threading

    ours = fingerprint()
    answer: dict[str, Any] = {}

    def ask() -> None:  # in a daemon thread: a worker that never answers keeps only it
        try:
            answer["found"] = client.run(_worker_identity)
        except Exception as e:  # noqa: BLE001 -- reported below
            answer["error"] = e

    asking = threading.Thread(target=ask, name="sdg-check-workers", daemon=True)
    asking.start()
    asking.join(timeout)
    if asking.is_alive():
        raise ResourceError(f"the Dask workers did not all answer within {timeout:g} s (a "
                            "worker frozen or unreachable; --connect-timeout waits longer)")
    try:
        if "error" in answer:
            raise answer["error"]
        found = answer["found"]
    except Exception as e:  # noqa: BLE001 -- what a worker raises is its business
        raise InputError(f"the Dask workers cannot run sdg_automata ({type(e).__name__}: {e}); "
                         f"install sdg_automata {ours.split('+')[0]} on every worker") from None
    if not found:
        raise InputError("the Dask cluster has no workers")
    for address, who in sorted(found.items()):
        if who["fingerprint"] != ours:
            raise InputError(
                f"Dask worker {address} runs sdg_automata {who['fingerprint']} from "
                f"{who['path']}, but this client runs {ours}: install the same version on "
                f"every worker (the fingerprint hashes the package source)")
    info = client.scheduler_info()
    return sum(int(w.get("nthreads", 1)) for w in info.get("workers", {}).values()) or 1


class _DaskExecutor(Executor):
    """A Dask client's executor (``Client.get_executor``) that knows when its cluster is gone.

    :meth:`watch` is called by :func:`run_sweep` while it waits: a client that
    lost its scheduler, or a cluster that has had no worker for ``grace``
    seconds (its tasks would wait forever), raises
    :class:`~sdg_automata.errors.ResourceError`.  The worker count is the one
    the client refreshes by itself every ``scheduler-info-interval`` (2 s), so
    watching costs no message to the scheduler.
    """

    def __init__(self, client: Any, grace: float) -> None:
        self._client = client
        self._inner = client.get_executor(pure=False)
        self._grace = grace
        self._empty_since: float | None = None

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        return self._inner.submit(fn, *args, **kwargs)  # type: ignore[no-any-return]

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with contextlib.suppress(Exception):  # a client that lost its scheduler cannot cancel
            self._inner.shutdown(wait=wait)

    def watch(self) -> None:
        if self._client.status not in ("running", "connecting"):
            raise ResourceError("the Dask client lost its scheduler")
        identity = getattr(self._client, "_scheduler_identity", None) or {}
        if identity.get("n_workers", 1) > 0:
            self._empty_since = None
            return
        now = time.monotonic()
        if self._empty_since is None:
            self._empty_since = now
        elif now - self._empty_since > self._grace:
            raise ResourceError(f"the Dask cluster has had no worker for {self._grace:g} s")


def _check_address(distributed: Any, address: str) -> None:
    """Refuse an address no Dask scheduler can have, before any connection."""
    try:
        scheme, location = distributed.comm.parse_address(address)
        distributed.comm.registry.get_backend(scheme)
    except (ValueError, TypeError) as e:
        raise InputError(f"--scheduler {address!r}: {e}") from None
    if scheme in ("tcp", "tls"):  # a host and a port, before any connection is tried
        host, _, port = location.rpartition(":")
        if not host.strip("[]") or not port.isdigit() or not 0 < int(port) < 65536:
            raise InputError(f"--scheduler {address!r}: expected {scheme}://HOST:PORT with a "
                             "port from 1 to 65535, or 'local'")
    if scheme == "inproc":
        raise InputError(f"--scheduler {address!r}: an inproc:// address names a scheduler "
                         f"inside this very process; give tcp://HOST:PORT, or 'local'")


def _probe(distributed: Any, address: str, timeout: float) -> None:
    """Greet the scheduler in Dask's protocol, all within ``timeout`` seconds.

    ``Client`` waits for the other side's handshake without a deadline (an
    HTTP server on the port hangs it for ever) and reads any bytes as a
    frame length (an SSH banner asks for exabytes): distributed's own
    ``connect``, under ``asyncio.wait_for`` on a loop of its own, says at once
    whether a Dask scheduler is there.
    """
    import asyncio

    async def knock() -> None:
        args = distributed.Security().get_connection_args("client")
        comm = await asyncio.wait_for(distributed.comm.connect(address, timeout=timeout, **args),
                                      timeout)
        await comm.close()

    try:
        with ThreadPoolExecutor(1) as thread:  # a loop of its own, whatever runs here
            thread.submit(asyncio.run, knock()).result()
    except asyncio.TimeoutError:
        raise InputError(f"cannot reach a Dask scheduler at {address!r}: no answer in Dask's "
                         f"protocol within {timeout:g} s") from None
    except OSError as e:
        raise InputError(f"cannot reach a Dask scheduler at {address!r}: {e}") from None
    except Exception as e:  # noqa: BLE001 -- MemoryError included: what answered is not Dask
        raise InputError(f"cannot reach a Dask scheduler at {address!r}: what answers there "
                         f"does not speak Dask's protocol ({type(e).__name__})") from None


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """No log lines from the libraries (distributed, tornado) on stderr: the sweep says in
    one line what went wrong.  Their loggers set levels of their own, so logging is
    switched off as a whole (sdg_automata itself does not log)."""
    import logging

    before = logging.root.manager.disable
    logging.disable(logging.CRITICAL)
    try:
        yield
    finally:
        logging.disable(before)


@contextlib.contextmanager
def dask_client(address: str, *, workers: int | None = None,
                timeout: float = 20.0) -> Iterator[Any]:
    """A connected ``distributed.Client`` with at least one worker (:func:`check_workers`
    says whether they run this very sdg_automata): what :func:`dask_executor` and the sharded search
    (:mod:`sdg_automata.search.sharded`) stand on.

    Parameters
    ----------
    address:
        ``tcp://HOST:PORT`` of a running ``dask scheduler``, or ``"local"``
        for a :class:`distributed.LocalCluster` of ``workers`` processes with
        one thread each (``"local-threads"``: one process, for tests).
    timeout:
        Seconds to wait for the scheduler to answer and for a first worker
        (at most :data:`LONGEST_WAIT`).

    Raises
    ------
    InputError
        When the ``cluster`` extra is not installed, the address is not one
        of a scheduler, nothing answering Dask's protocol is there within
        ``timeout``, or the workers run other code (:func:`check_workers`).
    """
    if not 0 < timeout <= LONGEST_WAIT:
        raise InputError(f"--connect-timeout must be more than 0 and at most {LONGEST_WAIT:g} "
                         f"seconds (a day), not {timeout:g}")
    try:
        distributed: Any = importlib.import_module("distributed")
    except ImportError:
        raise InputError("--scheduler needs Dask: pip install 'sdg_automata[cluster]'") from None
    with contextlib.ExitStack() as stack:
        stack.enter_context(_quiet())
        if address in ("local", "local-threads"):
            n = workers or default_jobs()
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=n, threads_per_worker=1, processes=address == "local",
                # a port of its own: the default 8787 may be taken (a warning on stderr)
                dashboard_address=":0"))
            target: Any = cluster
        else:
            _check_address(distributed, address)
            _probe(distributed, address, timeout)
            target = address
        try:
            client = stack.enter_context(distributed.Client(target, timeout=timeout))
            client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError) as e:
            raise InputError(f"cannot reach a Dask scheduler with workers at {address!r}: "
                             f"{e}") from None
        yield client


@contextlib.contextmanager
def dask_executor(address: str, *, workers: int | None = None,
                  timeout: float = 20.0) -> Iterator[tuple[Executor, int]]:
    """A Dask cluster as an Executor, and its number of worker threads.

    Parameters
    ----------
    address, workers:
        As :func:`dask_client` takes them.
    timeout:
        As :func:`dask_client` takes it; also how long a running sweep waits
        for a worker when the cluster has none left.

    Raises
    ------
    InputError
        As :func:`dask_client` raises it.
    """
    with dask_client(address, workers=workers, timeout=timeout) as client:
        width = check_workers(client, timeout=timeout)
        yield _DaskExecutor(client, timeout), width
