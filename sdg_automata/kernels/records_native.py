"""The kernels on records of ids as a native library: explorations and dfs without numba.

The ``compiled`` engine keeps a state as a record of part ids (the table store,
:class:`~sdg_automata.search.compiled.stores._Store`) where one word does not serve:
the exploration of the Step 1–5 automaton with its transition rows
(:func:`~sdg_automata.search.compiled.explore.crawl_compiled`, which builds the DFAs
M_{A,i}), the depth-first search, a breadth-first search whose ids outgrow a packed key,
and the lasso on states wider than a word.  Their kernels are
:func:`~sdg_automata.kernels.automaton.bfs`, :func:`~sdg_automata.kernels.automaton.dfs`,
:func:`~sdg_automata.kernels.step.rehash` (the store's table), and
:func:`~sdg_automata.kernels.automaton.walk` and
:func:`~sdg_automata.kernels.automaton.meet`.  :data:`LIBRARY` makes them one native
object (:mod:`sdg_automata.kernels.native`), as :mod:`~sdg_automata.kernels.bfs_native`
does for the packed walk: built once by a child process under the caller's budget
(:func:`~sdg_automata.kernels.native.prepare`), then linked in later processes without
importing numba (about 0.8 CPU s and 100 MB a process, issue 36).  The same kernels, the
same answers; numba's dispatchers are the fallback.  The store's ``rehash`` is also the
sharded search's on records (:class:`~sdg_automata.search.shard_stores.RecordShard`,
ids past a packed key), which builds the library on its worker at its first use, as the
workers compile their other kernels, while the driver waits under its budget.  A walk
that checks whether another library is cached (bfs's, the lasso's) and then needs this
one (ids past a packed key, states wider than a word) builds it under its budget then.

This module imports neither numba nor the kernels' modules.
"""

from __future__ import annotations

import functools
from typing import Any

from .bfs_native import VIA
from .native import Entry, Library

__all__ = ["LIBRARY", "RECORDS", "bfs", "dfs", "functions", "rehash", "scratch"]

#: the records' types (uint16 while every id fits, then int32), by numpy name
RECORDS = {"uint16": "u2", "int32": "i4"}
#: records hashed at a time by ``rehash`` (their insertions overlap)
_REHASH_BLOCK = 32


def _entries(rec: str) -> tuple[Entry, ...]:
    """The entry points for records of the numba type ``rec``."""
    i4, i8, u1, rows = "i4[:]", "i8[:]", "u1[:]", f"{rec}[:, :]"
    return (
        *(Entry(name=f"bfs_{rec}_{via}", function="automaton.bfs",
                args=(i4, i8, i8, rows, i4, u1, i4, f"{via}[:]", "i4[:, :]", "b1", "i4[:, :]",
                      u1, "i8", i4, "i8", "i8", i8, i8, "i8", rows, "u8[:]", i8, "i8"),
                result=True)
          for via in VIA.values()),
        Entry(name=f"dfs_{rec}", function="automaton.dfs",
              args=(i4, i8, i8, rows, i4, u1, i4, i4, i4, "i4[:, :]", u1, "i8", i4, "i8", u1,
                    i8, "i8", "i8"),
              result=True),
        Entry(name=f"rehash_{rec}", function="step.rehash",
              args=(rows, "i8", i4, u1, i8, i8)),
    )


#: the entry points; the kernels are :mod:`~sdg_automata.kernels.automaton`'s (and
#: ``rehash``, :mod:`~sdg_automata.kernels.step`'s)
LIBRARY = Library(
    name="records_native", module="sdg_automata.kernels.automaton", kernels=(),
    entries=(*(e for rec in RECORDS.values() for e in _entries(rec)),
             Entry(name="walk", function="walk",
                   args=("i4[:]", "i8[:]", "i8", "i8", "i4[:, :]", "u1[:]", "i8", "i4[:]", "i8",
                         "i8", "i8[:]", "i8", "i4[:, :]", "i8", "i8[:]", "i8"),
                   result=True),
             Entry(name="meet", function="meet",
                   args=("i4[:]", "i8[:]", "i8", "i8", "i4[:, :]", "i8", "i4[:, :]", "i8[:]",
                         "i8"),
                   result=True)))


@functools.cache
def functions() -> dict[str, Any]:
    """The entry points by name: native, or numba's dispatchers (see
    :meth:`~sdg_automata.kernels.native.Library.functions`)."""
    return LIBRARY.functions()


def bfs(records: Any, via: Any) -> Any:
    """The entry of :func:`~sdg_automata.kernels.automaton.bfs` for these arrays' types."""
    return functions()[f"bfs_{RECORDS[records.dtype.name]}_{VIA[via.dtype.name]}"]


def dfs(records: Any) -> Any:
    """The entry of :func:`~sdg_automata.kernels.automaton.dfs` for these records."""
    return functions()[f"dfs_{RECORDS[records.dtype.name]}"]


def scratch(records: Any) -> tuple[Any, Any, Any]:
    """The scratch of one call of ``bfs`` on ``records``: ``block``, ``hashes``,
    ``origin``, of :data:`~sdg_automata.kernels.protocol.BATCH` rows."""
    import numpy as np

    from .protocol import BATCH

    return (np.empty((BATCH, records.shape[1]), dtype=records.dtype),
            np.empty(BATCH, dtype=np.uint64), np.empty(BATCH, dtype=np.int64))


def rehash(records: Any, n: int, table: Any, tags: Any) -> None:
    """:func:`~sdg_automata.kernels.step.rehash` of records 0 … n−1 into ``table``."""
    import numpy as np

    functions()[f"rehash_{RECORDS[records.dtype.name]}"](
        records, n, table, tags, np.empty(_REHASH_BLOCK, dtype=np.int64),
        np.empty(_REHASH_BLOCK, dtype=np.int64))
