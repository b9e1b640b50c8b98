"""Stopping a run: Ctrl-C, SIGTERM and the budget's alarm, held and delivered in one way.

Every way a run can be stopped from outside its loops arrives as a signal:
Ctrl-C (``SIGINT``), ``SIGTERM`` (a batch system, ``timeout``, ``kill``) and
the ``SIGALRM`` of a ``--max-seconds`` budget inside a library call
(:meth:`~sdg_automata.runtime.budget.Meter.library`).  This module is the one
place where the package touches them (issue 26 §4; a sweep's pool keeps its
own guard, :mod:`sdg_automata.sweeps.runner`):

* :func:`answer_at_once` -- from the first line of a process that runs the command line
  (:func:`launched` says so; the package's ``__init__`` asks before importing anything
  else) until the command line can answer them, SIGINT and SIGTERM print one line and
  end the process with the documented code at once: nothing has been computed or written
  yet, and a ``KeyboardInterrupt`` among the imports would be a traceback, a SIGTERM
  with its default action silence (issue 34 §2).  What comes before that first line,
  the interpreter's own start (~20 ms), takes the system's default action.
* :func:`sigterm_as_interrupt` -- while the command line runs, ``SIGTERM``
  raises :class:`KeyboardInterrupt` as Ctrl-C does (issue 21 §5), so every
  phase that answers Ctrl-C (with how far it got, a sweep with its rows intact
  and resumable) answers ``SIGTERM`` the same way; :func:`received` then says
  which signal it was, for the exit code (128 + the signal: 130, 143).
* :func:`alarm` -- a deadline that raises a budget's error from wherever the
  main thread is, inside a library we do not control.
* :func:`held_signals` -- the three held over a section of native code that
  must not be cut, and delivered when it ends: numba's import and a kernel's
  first call (interrupted, they leave numba broken for the rest of the process,
  "duplicate registration" on every later use; a Ctrl-C that lands in a
  callback from LLVM is printed and lost, and the command ran on to exit 0),
  the start of a subprocess (ABC: cut inside ``Popen``, it runs on unknown to
  us), and a slice of CaDiCaL (pysat's own ``SIGINT`` handler would
  ``longjmp`` out of it mid-search, leaving its heap corrupt: 1 Ctrl-C in 40
  ended in ``munmap_chunk(): invalid pointer``, exit -6, instead of exit 130).
  Engines hold every kernel call, not only the first (which compiles):
  :mod:`~sdg_automata.search.compiled.drive`, :mod:`~sdg_automata.games.octal`,
  :func:`~sdg_automata.kernels.numba_missing`, :mod:`~sdg_automata.search.pdr`
  and :mod:`~sdg_automata.search.bmc`.

The package is POSIX; where ``SIGALRM`` or ``pthread_sigmask`` are missing
(Windows) the alarm is not armed (:data:`CAN_ALARM`) and blocking falls back to
holding at Python's level.  Off the main thread Python delivers no signal, so
every function here does nothing there.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

__all__ = ["CAN_ALARM", "HELD", "alarm", "answer_at_once", "held_signals", "is_stop_handler",
           "launched", "received", "sigterm_as_interrupt"]

#: whether a deadline can interrupt a call in progress here (not on Windows: no SIGALRM)
CAN_ALARM = hasattr(signal, "SIGALRM") and hasattr(signal, "setitimer")
#: the signals :func:`held_signals` holds: a budget's alarm, Ctrl-C, and SIGTERM (which the
#: command line handles as Ctrl-C)
HELD: tuple[int, ...] = tuple(int(getattr(signal, name)) for name in
                              ("SIGALRM", "SIGINT", "SIGTERM") if hasattr(signal, name))
#: seconds beyond which :func:`alarm` sets no timer (about three years: never met, and
#: ``setitimer`` overflows on ``--max-seconds 1e300``)
LONGEST_ALARM = 1e8

#: the signal that stopped the run last (SIGINT unless SIGTERM came)
_RECEIVED = [int(signal.SIGINT)]


def _on_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


# -- the first instant of a command --------------------------------------------------------

#: what a signal says when it ends a command before the command line can answer it
_AT_ONCE = {int(signal.SIGINT): "interrupted", int(signal.SIGTERM): "terminated (SIGTERM)"}


def launched(module: str, script: str) -> bool:
    """Whether this process runs ``python -m module`` or the console script ``script``.

    Asked while the package is first imported: ``python -m`` sets ``sys.argv[0]`` to
    ``"-m"`` while it locates the module (and ``sys.orig_argv`` names it); a console
    script is the ``__main__`` module, whose file is ``sys.argv[0]``.
    """
    argv = sys.argv
    if argv[:1] == ["-m"]:
        orig = list(getattr(sys, "orig_argv", []))
        for i, word in enumerate(orig[1:], start=1):
            if word.startswith("-m"):  # the first -m is python's option
                name = word[2:] or (orig[i + 1] if i + 1 < len(orig) else "")
                return name == module
        return False
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    return (bool(argv) and bool(path) and path == argv[0]
            and os.path.splitext(os.path.basename(argv[0]))[0] == script)


def _at_once(signum: int, frame: Any) -> None:
    try:
        os.write(2, f"error: {_AT_ONCE.get(signum, 'interrupted')}\n".encode())
    except OSError:  # no standard error: the exit code still says it
        pass
    os._exit(128 + signum)


def answer_at_once() -> None:
    """Until :func:`sigterm_as_interrupt` takes over, answer SIGINT and SIGTERM with one
    ``error:`` line and the exit code 128 + the signal (130, 143), at once.

    For a process that runs the command line, from its first line (see the module's
    docstring); a signal a caller chose to ignore stays ignored.  Off the main thread
    (no signal goes there) it does nothing.
    """
    if not _on_main_thread():
        return
    for sig in _AT_ONCE:
        if signal.getsignal(sig) in (signal.SIG_DFL, signal.default_int_handler):
            signal.signal(sig, _at_once)


# -- SIGTERM as Ctrl-C, for the command line ------------------------------------------------


def _terminate(signum: int, frame: Any) -> None:
    _RECEIVED[0] = signum
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM raises :class:`KeyboardInterrupt`, as Ctrl-C does.

    Only on the main thread (signals go nowhere else), and only where SIGTERM
    has its default action or that of :func:`answer_at_once` (which this replaces for
    SIGINT too, by Python's own): a caller that ignores or handles it keeps its choice.
    Leaving puts back what was there.
    """
    _RECEIVED[0] = int(signal.SIGINT)
    previous: dict[int, Any] = {}
    if _on_main_thread():
        for sig, handler in ((signal.SIGTERM, _terminate),
                             (signal.SIGINT, signal.default_int_handler)):
            now = signal.getsignal(sig)
            if now is _at_once or (sig == signal.SIGTERM and now == signal.SIG_DFL):
                previous[int(sig)] = signal.signal(sig, handler)
    try:
        yield
    finally:
        for signum, before in previous.items():
            signal.signal(signum, before)


def received() -> int:
    """The signal behind the last :class:`KeyboardInterrupt`: SIGINT or SIGTERM."""
    return _RECEIVED[0]


def is_stop_handler(handler: Any) -> bool:
    """Whether ``handler`` is one that turns its signal into :class:`KeyboardInterrupt`
    (Python's own for SIGINT, ours for SIGTERM): such a signal may be held back over a
    step it must not cut and raised after it (:mod:`sdg_automata.sweeps.runner`)."""
    return handler is signal.default_int_handler or handler is _terminate


# -- the budget's alarm ---------------------------------------------------------------------


@contextlib.contextmanager
def alarm(seconds: float | None, error: Callable[[], BaseException]) -> Iterator[None]:
    """Raise ``error()`` from wherever the block is once ``seconds`` have passed.

    A ``SIGALRM`` timer, disarmed (and the previous handler put back) when the
    block ends.  Nothing is armed for ``None``, for a deadline beyond
    :data:`LONGEST_ALARM`, off the main thread or without ``SIGALRM``
    (:data:`CAN_ALARM`): the caller checks its clock when the block returns.
    A :func:`held_signals` section inside the block holds the alarm until it ends.
    """
    armed = (seconds is not None and seconds < LONGEST_ALARM and CAN_ALARM
             and _on_main_thread())

    def ring(signum: int, frame: Any) -> None:
        raise error()

    previous: Any = None
    if armed:
        assert seconds is not None
        previous = signal.signal(signal.SIGALRM, ring)
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        if armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)


# -- holding signals over native code ---------------------------------------------------------


@contextlib.contextmanager
def held_signals(*, block: bool = False) -> Iterator[None]:
    """Hold a budget's alarm, Ctrl-C and SIGTERM (:data:`HELD`) until the block ends,
    then deliver each that came, once, in the order they came.

    Parameters
    ----------
    block:
        ``False`` (default): Python's handlers are replaced by one that only
        records the signal, which holds them over numba (its import, a kernel's
        compiling or loading) and over the start of a subprocess.  ``True``:
        also block the signals at the operating system's level, for a C library
        that installs a C handler of its own (pysat's CaDiCaL, whose ``SIGINT``
        handler would jump out of the solver mid-search); a blocked signal waits,
        and reaches the recording handler as the block ends.  The system keeps
        no order among blocked signals: those are delivered by number.  Do not
        block around starting a subprocess: the child would inherit the mask.

    Notes
    -----
    Delivering calls the handler that was in place before the block (raising
    :class:`KeyboardInterrupt`, a budget's error, ...), also when the block raised (the
    signal's exception then takes the place of the block's, which is its context); a
    signal whose handler was the default action takes it (SIGTERM then ends the process,
    as it came), except a stray alarm; an ignored one stays ignored.  Sections nest: an inner
    one delivers to the outer one's recorder.  Held sections are short (a kernel
    call returns within a fraction of a second, numba loads within seconds), so
    holding costs little.  Off the main thread Python delivers no signal, and
    the block runs as it is.
    """
    if not _on_main_thread():
        yield
        return
    fired: dict[int, Any] = {}  # each signal once, in the order it first came

    def hold(signum: int, frame: Any) -> None:
        fired.setdefault(signum, frame)

    # a handler set from C (getsignal says None) cannot be put back from Python: left alone
    previous = {sig: signal.signal(sig, hold) for sig in HELD
                if signal.getsignal(sig) is not None}
    masked = block and hasattr(signal, "pthread_sigmask")
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, HELD) if masked else None
    try:
        yield
    finally:
        if mask is not None:  # what came is delivered now, to ``hold`` (Python runs the
            signal.pthread_sigmask(signal.SIG_SETMASK, mask)  # handlers as this returns)
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        # delivered even when the block raised: a Ctrl-C during a kernel call that then
        # fails (a full table, and the run goes on in Python) is still the user's Ctrl-C
        for signum, frame in fired.items():
            _deliver(previous[signum], signum, frame)


def _deliver(handler: Any, signum: int, frame: Any) -> None:
    """Act on ``signum`` as ``handler`` (a Python handler, or SIG_DFL / SIG_IGN) would."""
    if callable(handler):
        handler(signum, frame)
    elif handler == signal.SIG_DFL and signum != getattr(signal, "SIGALRM", None):
        signal.raise_signal(signum)  # its default action (SIGTERM: the end), as it came
