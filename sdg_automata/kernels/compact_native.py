"""The compact store's kernels as a native library: ``--engine compact`` without numba.

The ``compact`` engine's breadth-first walk calls
:func:`~sdg_automata.kernels.compact.compact_bfs` (the walk),
:func:`~sdg_automata.kernels.compact.admit_keys` (its first key, and the keys coming
back after a re-encoding), :func:`~sdg_automata.kernels.compact.drain` and
:func:`~sdg_automata.kernels.compact.grow` (its table's moves),
:func:`~sdg_automata.kernels.compact.pack_rows` and
:func:`~sdg_automata.kernels.compact.unpack_rows` (the frontier to and from its spool) and
:func:`~sdg_automata.kernels.compact.climb` (the witnesses).  :data:`LIBRARY` makes
them one native object (:mod:`sdg_automata.kernels.native`), linked in later processes
without importing numba (about 0.8 CPU s and 100 MB a process, issue 36), as
:mod:`~sdg_automata.kernels.bfs_native` does for the table store: the same kernels,
the same answers, numba's dispatchers the fallback.

This module imports neither numba nor the kernels' module.
"""

from __future__ import annotations

import functools
from typing import Any

from .native import Entry, Library

__all__ = ["LIBRARY", "functions"]

_I4, _I8, _U8, _ROWS = "i4[:]", "i8[:]", "u8[:]", "i4[:, :]"

#: the entry points; the kernels are :mod:`~sdg_automata.kernels.compact`'s
LIBRARY = Library(
    name="compact_native", module="sdg_automata.kernels.compact", kernels=(),
    entries=(
        Entry(name="compact_bfs", function="compact_bfs",
              args=(_I4, _I8, _I8, _U8, _I8, _U8, _U8, _ROWS, "i8", _ROWS, _I8, _ROWS, _U8,
                    _ROWS, "u1[:]", "i8", _I4, "i8", "i8", _I8, _I8, "i8", "i8"),
              result=True),
        Entry(name="admit_keys", function="admit_keys", args=(_U8, _I8, _U8, _U8), result=True),
        Entry(name="drain", function="drain", args=(_U8, _I8, _U8, _U8, _U8, _U8, _I8, _U8),
              result=True),
        Entry(name="grow", function="grow",
              args=(_U8, _I8, _U8, _I8, _U8, "i8", _U8, _I8, _U8, _U8), result=True),
        Entry(name="pack_rows", function="pack_rows", args=(_ROWS, "i8", _U8, _U8)),
        Entry(name="unpack_rows", function="unpack_rows", args=(_U8, "i8", _U8, _U8, _ROWS)),
        Entry(name="climb", function="climb", args=(_I8, "i8", "i8", "i8", "i8[:, :]", _I8),
              result=True),
    ))


@functools.cache
def functions() -> dict[str, Any]:
    """The entry points by name: native, or numba's dispatchers (see
    :meth:`~sdg_automata.kernels.native.Library.functions`)."""
    return LIBRARY.functions()
