"""Where jobs run: the local width, and a Dask cluster (the ``cluster`` extra).

Both the sweeps (:mod:`sdg_automata.sweeps.runner`) and the sharded search
(:mod:`sdg_automata.search.sharded`) stand on :func:`dask_client`; the sweeps
run over :func:`dask_executor`, a :class:`concurrent.futures.Executor` over
``Client.submit``.  There is no scheduler, socket or queue of our own.

* **Same code everywhere.**  :func:`check_workers` compares the package
  version and a fingerprint of its source (:func:`fingerprint`) on every Dask
  worker with ours and refuses to start when they differ; the sweeps also stamp
  every batch of rows with the fingerprint and :func:`worker_place` of the
  worker that computed it, so a worker running other code that joins mid-run is
  caught (issue 12).
* **Loud, bounded failure.**  Every wait has a deadline (at most
  :data:`LONGEST_WAIT`): an address no scheduler can have is refused before any
  connection (:class:`~sdg_automata.errors.InputError`, exit 2), the other side
  must greet us in Dask's protocol within the timeout (:func:`_probe`; else a
  :class:`~sdg_automata.errors.ResourceError` naming the cause, exit 3), and a
  running sweep's executor notices a lost scheduler, or a cluster left without
  workers, while it waits
  (:class:`_DaskExecutor`; issue 21 §1).

``distributed`` is imported only when a cluster is asked for: a command that
runs none does not pay for it (issue 18 §4).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import hashlib
import importlib
import os
import re
import sys
import time
import weakref
from collections.abc import Callable, Iterator
from concurrent.futures import (
    CancelledError,
    Executor,
    Future,
    InvalidStateError,
    ThreadPoolExecutor,
)
from functools import cache
from pathlib import Path
from typing import Any

from ..errors import InputError, ResourceError

__all__ = ["LOCAL_CONFIG", "LONGEST_WAIT", "check_workers", "dask_client", "dask_executor",
           "default_jobs", "fingerprint", "worker_place"]

#: the longest --connect-timeout: a wait of a day is "forever" on any cluster, and far
#: longer ones overflow the clocks of threading and asyncio
LONGEST_WAIT = 86400.0
#: the share of the connect timeout that Dask may spend connecting (it retries a refused
#: or unresolved connection); the rest is for the scheduler's greeting
CONNECTING = 0.8
#: the package directory: its whole source is what :func:`fingerprint` hashes
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def default_jobs() -> int:
    """Worker processes when none are asked for: the number of CPUs (the one default)."""
    return os.cpu_count() or 1


@cache
def fingerprint() -> str:
    """The package version and a hash of its source files: equal means the same code."""
    # the package is imported before any of its modules; importing it here would put
    # this module above everything the package root re-exports
    version = sys.modules[__name__.partition(".")[0]].__version__
    digest = hashlib.sha256()
    for f in sorted(_PACKAGE_DIR.rglob("*.py")):
        digest.update(str(f.relative_to(_PACKAGE_DIR)).encode() + b"\0" + f.read_bytes()
                      + b"\0")
    return f"{version}+{digest.hexdigest()[:12]}"


def worker_place() -> str:
    """Where this runs: the Dask worker's address, or the process."""
    distributed = sys.modules.get("distributed")
    if distributed is not None:
        with contextlib.suppress(ValueError):  # not inside a Dask task
            return str(distributed.get_worker().address)
    return f"process {os.getpid()}"


def _worker_identity() -> dict[str, str]:
    """Run on each worker by :func:`check_workers`."""
    return {"fingerprint": fingerprint(), "python": sys.version.split()[0],
            "path": str(_PACKAGE_DIR)}


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


async def _cascade(task: Any, future: Future[Any]) -> None:
    """Pass the outcome of the Dask future ``task`` to ``future``.

    ``distributed.cfexecutor._cascade_future`` (which ``Client.get_executor``
    uses) reads the task's status *after* it has fetched the result: a worker
    killed in between marks the task lost, and the fetched result is then
    unpacked as an error triple -- a :class:`~sdg_automata.sweeps.runner.Batch`
    (three fields) became "AttributeError: 'str' object has no attribute
    'with_traceback'" and stopped a sweep that had lost nothing (CI, once in
    many runs).  Here the outcome is what awaiting the result raises or returns;
    a fetch that fails on the connection, or this coroutine cut by the client's
    loop closing, is the executor's loss (:class:`CancelledError`).
    """
    import asyncio

    try:
        result = await task._result()  # raises the task's error, or CancelledError
    except BaseException as e:  # noqa: BLE001 -- the task's error is the future's
        if task.cancelled():
            _settle(future, cancel=True)
        elif isinstance(e, asyncio.CancelledError) or (isinstance(e, OSError)
                                                       and task.status != "error"):
            _settle(future, error=CancelledError(
                f"its result was lost with the connection ({type(e).__name__}: {e})"))
        else:  # the task's own error (an OSError it raised too)
            _settle(future, error=e)
    else:
        _settle(future, result=result)


def _settle(future: Future[Any], *, result: Any = None, error: BaseException | None = None,
            cancel: bool = False) -> None:
    """Give ``future`` its outcome, unless its holder cancelled it first (from another
    thread, at any moment); a cancelled future is then marked as such for the waiters
    (``wait`` and ``as_completed`` count it done only then, as an executor's worker
    marks it)."""
    try:
        if cancel:
            future.cancel()
        elif error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)
    except InvalidStateError:  # cancelled meanwhile
        pass
    if future.cancelled():
        future.set_running_or_notify_cancel()


class _DaskExecutor(Executor):
    """A Dask client's executor that knows when its cluster is gone.

    :meth:`watch` is called by :func:`~sdg_automata.sweeps.runner.run_sweep` while it
    waits: a client that lost its scheduler, or a cluster that has had no worker for ``grace``
    seconds (its tasks would wait forever), raises
    :class:`~sdg_automata.errors.ResourceError`.  The worker count is the one
    the client refreshes by itself every ``scheduler-info-interval`` (2 s), so
    watching costs no message to the scheduler.  Its futures are fed by
    :func:`_cascade`, not by ``Client.get_executor``'s (which races a lost worker).
    """

    def __init__(self, client: Any, grace: float) -> None:
        self._client = client
        self._grace = grace
        self._empty_since: float | None = None
        self._tasks: weakref.WeakSet[Any] = weakref.WeakSet()  # cancelled at shutdown
        self._futures: weakref.WeakSet[Future[Any]] = weakref.WeakSet()  # waited for

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        task = self._client.submit(fn, *args, pure=False, **kwargs)
        self._tasks.add(task)
        future: Future[Any] = Future()
        self._futures.add(future)
        # a future cancelled by its holder cancels its task (not one :func:`_cascade` cancelled)
        future.add_done_callback(
            lambda f: task.cancel() if f.cancelled() and not task.cancelled() else None)
        self._client.loop.add_callback(_cascade, task, future)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """As :meth:`concurrent.futures.Executor.shutdown`: ``wait`` until every future
        has its outcome (``cancel_futures``: those not done are cancelled first); without
        ``wait``, the tasks are cancelled on the cluster and nothing is waited for."""
        futures = list(self._futures)
        if cancel_futures:
            for future in futures:
                future.cancel()  # and its task (the future's callback)
        if wait:
            concurrent.futures.wait(futures)
            return
        with contextlib.suppress(Exception):  # a client that lost its scheduler cannot cancel
            self._client.cancel(list(self._tasks))

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


#: HOST:PORT, the host a name, an IPv4 address or an IPv6 one in brackets
_HOST_PORT = re.compile(r"(?:\[(?P<v6>[^\[\]]*)\]|(?P<host>[^\[\]:]*)):(?P<port>[0-9]+)")
#: a host name or an IPv4 address (letters, digits, dots, hyphens; underscores as some
#: clusters name their nodes)
_HOST_NAME = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9_.-]*[A-Za-z0-9_])?")


def _check_host_port(address: str, scheme: str, location: str) -> str:
    """The host of ``location`` (``HOST:PORT``); :class:`InputError` when it is not one."""
    import ipaddress

    expected = (f"expected {scheme}://HOST:PORT with a port from 1 to 65535 (an IPv6 host in "
                f"brackets: {scheme}://[::1]:8786), or 'local'")
    found = _HOST_PORT.fullmatch(location)
    if found is None:
        why = ("the bracket around its IPv6 host is not closed" if location.count("[")
               != location.count("]") else "an IPv6 host goes in brackets"
               if location.count(":") > 1 and "[" not in location else "")
        raise InputError(f"--scheduler {address!r}: {why + ': ' if why else ''}{expected}")
    port = int(found["port"])
    if not 0 < port < 65536:
        raise InputError(f"--scheduler {address!r}: port {port} is out of range: {expected}")
    if found["v6"] is not None:
        try:
            ipaddress.IPv6Address(found["v6"].partition("%")[0])
        except ValueError:
            raise InputError(f"--scheduler {address!r}: {found['v6']!r} in brackets is not an "
                             f"IPv6 address: {expected}") from None
        return str(found["v6"])
    host = str(found["host"])
    if not _HOST_NAME.fullmatch(host):
        raise InputError(f"--scheduler {address!r}: {host!r} is not a host name or address: "
                         f"{expected}")
    return host


def _check_address(distributed: Any, address: str) -> None:
    """Refuse an address no Dask scheduler can have, before any connection."""
    try:
        scheme, location = distributed.comm.parse_address(address)
        distributed.comm.registry.get_backend(scheme)
    except (ValueError, TypeError) as e:
        raise InputError(f"--scheduler {address!r}: {e}") from None
    if scheme in ("tcp", "tls"):  # a host and a port, before any connection is tried
        _check_host_port(address, scheme, location)
    if scheme == "inproc":
        raise InputError(f"--scheduler {address!r}: an inproc:// address names a scheduler "
                         f"inside this very process; give tcp://HOST:PORT, or 'local'")


def _unreachable(address: str, e: BaseException, timeout: float) -> ResourceError:
    """Why nothing speaking Dask's protocol answered at ``address``: the deepest cause of
    ``e`` (Dask retries a refused or unresolved connection until the timeout, then raises
    an OSError "Timed out trying to connect" whose cause says why)."""
    import errno
    import socket

    causes = [e]
    while causes[-1].__cause__ is not None:
        causes.append(causes[-1].__cause__)
    e = next((c for c in reversed(causes) if isinstance(c, OSError)), e)
    if isinstance(e, socket.gaierror):
        why = f"the host name {_host(address)!r} does not resolve ({e.strerror or e})"
    elif isinstance(e, ConnectionRefusedError):
        why = "the connection was refused (no scheduler listens on that port)"
    elif isinstance(e, OSError) and e.errno in (errno.ENETUNREACH, errno.EHOSTUNREACH):
        why = f"there is no route to the host ({e.strerror})"
    elif isinstance(e, OSError) and e.strerror:
        why = e.strerror
    elif isinstance(e, TimeoutError | OSError):  # asyncio's timeout; a bare "timed out"
        why = f"no answer in Dask's protocol within {timeout:g} s"
    else:  # an answer Dask cannot read: MemoryError (an HTTP status line read as a
        # frame length asks for exabytes), ValueError, ...
        why = ("what answers there does not speak Dask's protocol (a web server such as the "
               "Dask dashboard, an SSH daemon, or a proxy on the way?)")
    return ResourceError(f"cannot reach a Dask scheduler at {address!r}: {why}")


def _host(address: str) -> str:
    """The host of a checked ``SCHEME://HOST:PORT`` (an IPv6 one without its brackets)."""
    return address.partition("://")[2].rpartition(":")[0].removeprefix("[").removesuffix("]")


def _reach(address: str, seconds: float, timeout: float) -> None:
    """Open (and close) a TCP connection to the scheduler's host and port, retrying for up
    to ``seconds`` (a scheduler may be starting) unless the host name does not exist;
    :func:`_unreachable` with the last failure when none opens.  Dask's own ``connect``
    retries as well, but its error then says why only when its last, shortened attempt
    failed for a reason rather than for want of time."""
    import socket
    import threading

    host, port = _host(address), int(address.rpartition(":")[2])
    deadline = time.monotonic() + seconds
    failures: list[OSError] = []

    def knock() -> None:  # in a daemon thread: a resolver that hangs keeps only it
        while (left := deadline - time.monotonic()) > 0:
            try:
                socket.create_connection((host, port), timeout=left).close()
                return
            except socket.gaierror as e:
                failures.append(e)
                if e.errno in (socket.EAI_NONAME, getattr(socket, "EAI_NODATA", None)):
                    return  # no such name: final
            except TimeoutError as e:  # no answer at all (a host that drops the packets)
                failures.append(e)
                return
            except OSError as e:  # refused, no route, ...: perhaps not yet
                failures.append(e)
            time.sleep(min(0.1, max(0.0, deadline - time.monotonic())))
        failures.append(TimeoutError())

    knocking = threading.Thread(target=knock, name="sdg-reach", daemon=True)
    knocking.start()
    knocking.join(seconds)
    # still knocking, and no attempt has come back: resolving the name takes longer than the
    # timeout (an attempt that came back, refused say, was resolved: it says why below,
    # even when the last retry, on a loaded machine, is still under way at the deadline)
    if knocking.is_alive() and not failures:
        raise ResourceError(f"cannot reach a Dask scheduler at {address!r}: resolving "
                            f"{host!r} took more than {timeout:g} s")
    telling = [e for e in failures if not isinstance(e, TimeoutError)]
    if telling:  # why the last attempt that had the time failed
        raise _unreachable(address, telling[-1], timeout)
    if failures:
        raise ResourceError(f"cannot reach a Dask scheduler at {address!r}: the host did not "
                            f"answer within {timeout:g} s (down, unreachable, or a firewall "
                            "drops the connection)")


def _probe(distributed: Any, address: str, timeout: float) -> None:
    """Greet the scheduler in Dask's protocol, all within ``timeout`` seconds.

    ``Client`` waits for the other side's handshake without a deadline (an
    HTTP server on the port hangs it for ever) and reads any bytes as a
    frame length (an SSH banner asks for exabytes): distributed's own
    ``connect``, under ``asyncio.wait_for`` on a loop of its own, says at once
    whether a Dask scheduler is there.

    Raises
    ------
    ResourceError
        Naming the cause (exit 3): the name does not resolve, the connection is
        refused, there is no route, nothing answers within ``timeout``, or what
        answers is not a Dask scheduler.
    """
    import asyncio

    async def knock() -> None:
        args = distributed.Security().get_connection_args("client")
        # connecting (Dask retries it) ends before the whole greeting's deadline, so that
        # its own error, which says why, comes first
        connecting = distributed.comm.connect(address, timeout=CONNECTING * timeout, **args)
        comm = await asyncio.wait_for(connecting, timeout)
        await comm.close()

    if address.startswith(("tcp://", "tls://")):
        _reach(address, CONNECTING * timeout, timeout)
    try:
        with ThreadPoolExecutor(1) as thread:  # a loop of its own, whatever runs here
            thread.submit(asyncio.run, knock()).result()
    except Exception as e:  # noqa: BLE001 -- MemoryError included: what answered is not Dask
        raise _unreachable(address, e, timeout) from None


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


#: the Dask configuration of the cluster that ``"local"`` starts (its scheduler and
#: nannies in this process, its workers in processes that take it as they start): no
#: worker profiler (see :func:`dask_client`), and the servers' housekeeping, which none
#: of this package's work needs at Dask's pace, less often: the event-loop health check
#: (a warning when a loop was blocked for seconds) every 500 ms instead of 20, each
#: process's resource sample (the dashboard's plots, the heartbeats' memory and CPU
#: figures: nothing here reads them) every 2 s instead of 0.5, and the memory check of
#: workers and nannies (pause, then terminate, a worker past its memory limit) every
#: 500 ms instead of 100.
#: Measured idle on 2 workers, CPU s a second: the workers 0.020 → 0.0035 each, this
#: process (a scheduler and two nannies) 0.044 → 0.0095; 0.07 CPU s a second saved over
#: a sharded search's run, 2–3% of its CPU (issue 36 item 6).  A cluster of one's own
#: (``tcp://``) keeps the configuration it was started with: docs/max.md gives the same
#: settings for it.
LOCAL_CONFIG: dict[str, object] = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "500ms",
    "distributed.admin.system-monitor.interval": "2s",
    "distributed.worker.memory.monitor-interval": "500ms",
}


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
        When the ``cluster`` extra is not installed, or the address is not one
        of a scheduler (malformed: checked before any connection; exit 2).
    ResourceError
        When no Dask scheduler with a worker answers there within ``timeout``
        (the name does not resolve, the connection is refused or goes nowhere,
        something else answers; exit 3), saying which.
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
            # a cluster of this run only: no dashboard (nobody is told its port) and so no
            # worker profiler, which samples every 10 ms only for the dashboard (the workers
            # take the configuration they are started under): 0.5 CPU s and 11 MB less a
            # run, bokeh's import most of it; the scheduler's plain HTTP routes stay, on a
            # port of their own (8787 may be taken: a warning on stderr); and its servers'
            # housekeeping less often (:data:`LOCAL_CONFIG`)
            dask = importlib.import_module("dask")
            stack.enter_context(dask.config.set(LOCAL_CONFIG))
            cluster = stack.enter_context(distributed.LocalCluster(
                n_workers=n, threads_per_worker=1, processes=address == "local",
                dashboard_address=":0", scheduler_kwargs={"dashboard": False}))
            target: Any = cluster
        else:
            _check_address(distributed, address)
            _probe(distributed, address, timeout)
            target = address
        try:
            client = stack.enter_context(distributed.Client(target, timeout=timeout))
            client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError) as e:
            raise ResourceError(f"cannot reach a Dask scheduler with workers at {address!r}: "
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
