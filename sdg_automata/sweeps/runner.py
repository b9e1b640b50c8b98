"""Sweeps: many independent jobs, one row each, streamed, resumable, on any executor.

A :class:`Sweep` is a sequence of picklable jobs, a key for each job, and a
function job → row (a frozen dataclass with ``to_json``).  :func:`run_sweep`
runs it over any :class:`concurrent.futures.Executor`: a local process pool,
or a Dask cluster through ``Client.submit``
(:func:`~sdg_automata.runtime.cluster.dask_executor`; the ``cluster`` extra).
There is no scheduler, socket or queue of our own.

Guarantees (issue 12):

* **Streamed.**  Each row is handed to the sink as soon as its job is done,
  in completion order; the sinks (:class:`JsonlSink`, :class:`CsvSink`,
  :class:`TableSink`) write and flush it at once.
* **Resumable, nothing lost.**  :func:`~sdg_automata.sweeps.resume.resume`
  reads an output file before a sweep appends to it and skips the keys it holds;
  a killed sweep loses at most the rows in flight and never duplicates or
  corrupts one (:mod:`sdg_automata.sweeps.resume`).
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
* **Same code everywhere.**  Every batch's result carries the
  :func:`~sdg_automata.runtime.cluster.fingerprint` of the worker that ran it,
  so the rows of a worker running other code that joins mid-run are refused,
  and the sweep stops saying so (:mod:`sdg_automata.runtime.cluster` checks the
  workers of a Dask cluster before the sweep starts).
* **Workers die with their parent** (:mod:`sdg_automata.sweeps.pool`).

Jobs are sent in batches (``batch`` jobs per task) so that the per-task cost
of a distributed scheduler (about a millisecond) is shared by many small jobs;
at most ``window`` batches are in flight, so a sweep of millions of jobs does
not queue millions of futures.

This module is the runner; the rest of a sweep's machinery has a module each:
:mod:`.sinks` (the output formats),
:mod:`.resume` (resuming and locking the output file), :mod:`.pool` (the local
process pool) and :mod:`sdg_automata.runtime.cluster` (Dask).
"""

from __future__ import annotations

import contextlib
import itertools
import signal
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
    wait,
)
from dataclasses import dataclass
from typing import Any, Generic, Literal, NamedTuple, Protocol, TypeVar, get_args

from ..errors import BudgetExceeded, InputError, Interrupted, ResourceError, SdgBug
from ..runtime.budget import UNLIMITED, Budget, Meter
from ..runtime.cluster import (
    fingerprint,
    worker_place,
)
from ..runtime.stopping import is_stop_handler
from .pool import stop

__all__ = [
    "Batch", "Row", "Status", "Sweep", "SweepStats", "run_sweep",
]

Status = Literal["ok", "budget", "error"]
#: seconds between two looks for a Ctrl-C while waiting for an executor
_TICK = 0.1

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
    return Batch(fingerprint(), worker_place(), rows)




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
        return Batch(fingerprint(), worker_place(),
                     [sweep.failed(job, "error", message, 0).to_json() for _, job in chunk])

    guard = _SigintGuard()
    try:
        with guard.installed():
            _run(sweep, executor, restart, pending(), budget, batch, window, deliver, failures,
                 guard)
        # made inside the try: a signal now still says how many rows were written
        return SweepStats(rows=sum(counts.values()), ok=counts["ok"], budget=counts["budget"],
                          error=counts["error"], skipped=skipped[0],
                          seconds=time.perf_counter() - started)
    except (KeyboardInterrupt, Interrupted):
        done = sum(counts.values())
        raise Interrupted(f"sweep {sweep.name} interrupted after {done} rows; rerun the same "
                          f"command with the same --out to resume", explored=done) from None
    except ResourceError as e:
        raise ResourceError(f"sweep {sweep.name} stopped after {sum(counts.values())} rows: "
                            f"{e}; rerun the same command with the same --out to resume the "
                            f"jobs not done") from None


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
            stop(executor)
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
                    stop(executor)
                    executor = restart()
                    own.append(executor)
    finally:  # futures still in flight (an exception) go with their executor's shutdown
        for ex in own:
            stop(ex)
