"""The one loop of the compiled search: call a kernel, dispatch its status to a handler.

The kernels of :mod:`sdg_automata.kernels` never raise and never call Python: they
work over numpy arrays until they are done or need something, leave how far they got
in a cursor, and return a status (:mod:`sdg_automata.kernels.step`: ``DONE``,
``MISS`` — a step not learned yet, ``FULL`` — an array needs room, ``PAUSE`` — a
quantum of work is spent, ``FOUND``, ``CAP`` — the state budget, ``MET`` and ``DEAD``
— the lasso's ends).  Every driver of the compiled search — the breadth-first walk on
the table store and on the compact store, the depth-first walk, the lasso's phases
(:mod:`sdg_automata.search.compiled.drive`) and the sharded search's expansion and
absorption (:mod:`sdg_automata.search.shard`) — is this one loop with a table of
handlers, one per status it expects: :func:`dispatch`.  A status no handler expects is
a bug of ours, said as such.

The shared lesson of a miss is :class:`Misses`: the kernel misses a step, Python learns
it, the kernel goes on; the same miss twice in a row means the lesson did not take.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from ...errors import SdgBug

__all__ = ["STATUS_NAMES", "Handler", "Misses", "dispatch", "stop"]

#: the kernels' statuses by value (:mod:`sdg_automata.kernels.step`), for messages
STATUS_NAMES = ("DONE", "MISS", "FULL", "PAUSE", "FOUND", "CAP", "MET", "DEAD")

#: what a status calls: ``True`` ends the loop (which returns that status), ``None`` or
#: ``False`` calls the kernel again; it may raise (a budget, Ctrl-C, a bug)
Handler = Callable[[], "bool | None"]


def stop() -> bool:
    """The handler of a status that ends the loop as it is."""
    return True


def dispatch(call: Callable[[], int], handlers: Mapping[int, Handler]) -> int:
    """Call ``call`` (one kernel call, which re-reads whatever arrays may have grown)
    until the handler of the status it returns says stop; return that status.

    Raises
    ------
    SdgBug
        For a status no handler expects.
    """
    while True:
        status = call()
        handler = handlers.get(status)
        if handler is None:
            name = STATUS_NAMES[status] if 0 <= status < len(STATUS_NAMES) else str(status)
            raise SdgBug(f"a kernel returned {name}, which its driver does not expect "
                         f"(it expects {', '.join(STATUS_NAMES[s] for s in sorted(handlers))})")
        if handler():
            return status


class Misses:
    """The misses of a walk, so that the same one twice in a row is caught: after a miss
    Python learns the step (:meth:`StepTables.learn
    <sdg_automata.search.compiled.tables.StepTables.learn>`), so the kernel must get past
    it."""

    def __init__(self) -> None:
        self._last: tuple[int, ...] | None = None

    def seen(self, where: tuple[int, ...]) -> None:
        """A miss at ``where`` (the walk's position); :class:`SdgBug` if it is the last one
        again."""
        if where == self._last:
            raise SdgBug(f"step tables: the kernel missed twice at {where}")
        self._last = where

    def forget(self) -> None:
        """The kernel moved on (a pause): the next miss may be anywhere."""
        self._last = None
