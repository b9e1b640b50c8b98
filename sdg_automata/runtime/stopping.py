"""Stopping from outside: SIGTERM handled like Ctrl-C (issue 21 §5).

A batch system, ``timeout`` or ``kill`` ends a run with SIGTERM.  Its default
action kills the process where it stands: no line says how far the run got,
and a sweep's pool workers lose their parent.  While the command line runs
(:func:`sigterm_as_interrupt`), SIGTERM raises :class:`KeyboardInterrupt`
instead, so every phase that answers Ctrl-C -- with how far it got, and a
sweep with its rows intact and resumable -- answers SIGTERM the same way;
:func:`received` then says which signal it was, for the exit code
(128 + the signal: 130 for SIGINT, 143 for SIGTERM).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any

__all__ = ["is_stop_handler", "received", "sigterm_as_interrupt"]

#: the signal that stopped the run last (SIGINT unless SIGTERM came)
_RECEIVED = [int(signal.SIGINT)]


def _terminate(signum: int, frame: Any) -> None:
    _RECEIVED[0] = signum
    raise KeyboardInterrupt


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """While inside, SIGTERM raises :class:`KeyboardInterrupt`, as Ctrl-C does.

    Only on the main thread (signals go nowhere else), and only where SIGTERM
    has its default action: a caller that ignores or handles it keeps its choice.
    """
    _RECEIVED[0] = int(signal.SIGINT)
    ours = (threading.current_thread() is threading.main_thread()
            and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL)
    if ours:
        signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        if ours:
            signal.signal(signal.SIGTERM, signal.SIG_DFL)


def received() -> int:
    """The signal behind the last :class:`KeyboardInterrupt`: SIGINT or SIGTERM."""
    return _RECEIVED[0]


def is_stop_handler(handler: Any) -> bool:
    """Whether ``handler`` is one that turns its signal into :class:`KeyboardInterrupt`
    (Python's own for SIGINT, ours for SIGTERM): such a signal may be held back over a
    step it must not cut and raised after it (:mod:`sdg_automata.sweeps.runner`)."""
    return handler is signal.default_int_handler or handler is _terminate
