"""The local process pool of a sweep: workers that ignore Ctrl-C and die with their parent.

Ctrl-C is the parent's business: it stops the sweep in one place
(:mod:`sdg_automata.sweeps.runner`), so the workers ignore it.  A pool's
workers ask Linux for SIGKILL when the process that made them dies
(``prctl(PR_SET_PDEATHSIG)``), so a sweep killed with SIGKILL leaves no orphan
holding its stdout; where prctl is missing a thread in each worker polls its
parent instead (issue 21 §5).  :func:`stop` shuts a pool down without waiting
for its jobs and without the tracebacks of a pool cut under its management
thread (issue 15).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from concurrent.futures import Executor
from typing import Any

__all__ = ["process_pool", "stop"]


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



def process_pool(jobs: int) -> Executor:
    """A local process pool of ``jobs`` workers that ignore Ctrl-C and die with this
    process (:func:`_die_with`).

    Leaving it through an exception (Ctrl-C) terminates the workers instead of
    waiting for the jobs they run; so does a Ctrl-C or SIGTERM that comes while a normal
    exit waits for them to finish (the shutdown cut half-way left the workers waiting for
    an end they were never sent, and the interpreter's exit waiting for them: a hang).
    """
    from concurrent.futures import ProcessPoolExecutor

    class Pool(ProcessPoolExecutor):
        def __exit__(self, kind: Any, value: Any, tb: Any) -> Any:
            if kind is not None:
                stop(self)
            try:
                return super().__exit__(kind, value, tb)
            except BaseException:  # a signal while the shutdown waited
                stop(self)
                raise

    return Pool(max_workers=jobs, initializer=_worker_start, initargs=(os.getpid(),))


def stop(executor: Executor, *, settle: float = 5.0) -> None:
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
