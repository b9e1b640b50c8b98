"""The sharded search's kernels as a native library: a shard's level without loading numba.

A shard (:class:`~sdg_automata.search.shard.Shard`) steps its frontier with
:func:`~sdg_automata.kernels.sharded.expand`, translates what it received into its ids
with :func:`~sdg_automata.kernels.sharded.translate` and dedupes it with
:func:`~sdg_automata.kernels.sharded.absorb_packed` (:func:`~sdg_automata.kernels.sharded.absorb`
on records; either notes each value's first new state), and numbers a level with
:func:`~sdg_automata.kernels.sharded.mark` and :func:`~sdg_automata.kernels.sharded.number`.
Through numba's dispatchers those
kernels spent about half of a shard's CPU in ``NRT_incref``/``NRT_decref`` (profiled:
47% of the samples of a one-shard search of 1.27·10⁷ states, issue 36 item 6): every
call of a compiled helper that took arrays (the step, the owner hash, a lookup) counted
references to them with atomic instructions.  The arrays of a native entry point are
rebuilt from pointer and shape (``numba.carray``) and carry no reference count, so those
calls cost a test and a return; yet each stayed a call LLVM could not see through (0.40
CPU s of a one-worker search, the step 30% slower than in one process's walk), until the
kernels were compiled without numba's runtime at all (:func:`sdg_automata.kernels.jit`),
after which the dispatchers run the shards nearly as fast (what is left to the library
is a process that never loads numba).  :data:`LIBRARY` makes them one native object
(:mod:`sdg_automata.kernels.native`), as :mod:`~sdg_automata.kernels.bfs_native` does for
the walk of one process: the same kernels, the same answers; numba's dispatchers are the
fallback.

The functions here take the kernels' arguments and pick the entry point for their
arrays' types, so a shard calls this module as it would :mod:`~sdg_automata.kernels.sharded`.
This module imports neither numba nor the kernels' modules.
"""

from __future__ import annotations

import functools
from typing import Any

from .native import Entry, Library, dtype_name
from .records_native import RECORDS

__all__ = ["LIBRARY", "absorb", "absorb_packed", "expand", "functions", "mark", "number",
           "owner", "translate"]

#: the types of a batch's ids on the wire (uint16 while every id fits, then int32)
WIRE = {"uint16": "u2", "int32": "i4"}


def _entries() -> tuple[Entry, ...]:
    i4, i8, u1, u8 = "i4[:]", "i8[:]", "u1[:]", "u8[:]"
    rows = "i4[:, :]"
    out: list[Entry] = []
    for wire in WIRE.values():
        raw = f"{wire}[:, :]"
        for rec in RECORDS.values():  # a packed shard passes its int32 scratch as records
            out.append(Entry(
                name=f"expand_{rec}_{wire}", function="expand",
                args=(i4, i8, i8, f"{rec}[:, :]", i8, i8, u8, i8, "i8", rows, "i8",
                      "u8[:, :]", "i8", rows, i8, u8, f"{wire}[:, :, :]", "i8[:, :]", i8, i8,
                      "i8"),
                result=True))
            out.append(Entry(
                name=f"absorb_{rec}_{wire}", function="absorb",
                args=(f"{rec}[:, :]", i4, u1, i8, raw, i8, i8, i8, f"{rec}[:, :]", u8, i8,
                      i4, "i8", "i8", u1, i8, i8),
                result=True))
        out.append(Entry(
            name=f"absorb_packed_{wire}", function="absorb_packed",
            args=(u8, i8, "i8", i8, u8, i8, raw, i8, i8, i8, i8, u8, i8, i4, "i8", "i8", u1,
                  i8, i8),
            result=True))
        # a sender's ids (its wire type) into ours (our wire type)
        out.extend(Entry(name=f"translate_{wire}_{into}", function="translate",
                         args=(raw, i4, i8, f"{into}[:, :]")) for into in WIRE.values())
    return (*out,
            Entry(name="owner", function="owner",
                  args=("u8[:, :]", rows, "i8", "i8", "i8", u8)),
            Entry(name="mark", function="mark", args=(i8, "i8", "i8", "i8", u8)),
            Entry(name="number", function="number",
                  args=(i8, "i8", "i8", "i8", u8, "i8", "i8", i8)))


#: the entry points; the kernels are :mod:`~sdg_automata.kernels.sharded`'s
LIBRARY = Library(name="sharded_native", module="sdg_automata.kernels.sharded", kernels=(),
                  entries=_entries())


@functools.cache
def functions() -> dict[str, Any]:
    """The entry points by name: native, or numba's dispatchers (see
    :meth:`~sdg_automata.kernels.native.Library.functions`)."""
    return LIBRARY.functions()


def expand(*args: Any) -> int:
    """:func:`~sdg_automata.kernels.sharded.expand` (records ``args[3]``, buffers ``args[16]``)."""
    name = f"expand_{RECORDS[dtype_name(args[3].dtype)]}_{WIRE[dtype_name(args[16].dtype)]}"
    return int(functions()[name](*args))


def absorb(*args: Any) -> int:
    """:func:`~sdg_automata.kernels.sharded.absorb` (records ``args[0]``, batch ``args[4]``)."""
    name = f"absorb_{RECORDS[dtype_name(args[0].dtype)]}_{WIRE[dtype_name(args[4].dtype)]}"
    return int(functions()[name](*args))


def absorb_packed(*args: Any) -> int:
    """:func:`~sdg_automata.kernels.sharded.absorb_packed` (batch ``args[6]``)."""
    return int(functions()[f"absorb_packed_{WIRE[dtype_name(args[6].dtype)]}"](*args))


def translate(*args: Any) -> None:
    """:func:`~sdg_automata.kernels.sharded.translate` (batch ``args[0]``, out ``args[3]``)."""
    functions()[f"translate_{WIRE[dtype_name(args[0].dtype)]}_"
                f"{WIRE[dtype_name(args[3].dtype)]}"](*args)


def owner(*args: Any) -> None:
    """:func:`~sdg_automata.kernels.sharded.owner`."""
    functions()["owner"](*args)


def mark(*args: Any) -> None:
    """:func:`~sdg_automata.kernels.sharded.mark`."""
    functions()["mark"](*args)


def number(*args: Any) -> None:
    """:func:`~sdg_automata.kernels.sharded.number`."""
    functions()["number"](*args)

