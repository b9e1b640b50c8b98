"""The breadth-first search's kernels as a native library: a ``max`` run without numba.

The ``compiled`` engine's breadth-first walk on the table store calls, in a default
``max`` run, :func:`~sdg_automata.kernels.packed.packed_bfs` (the walk),
:func:`~sdg_automata.kernels.packed.insert_keys` and
:func:`~sdg_automata.kernels.packed.spread` (its table's first key and growth) and,
for the witnesses, :func:`~sdg_automata.kernels.automaton.tree_count` and
:func:`~sdg_automata.kernels.automaton.tree_fill`.  Issue 36: importing numba and
loading those kernels from its cache cost 0.8 of the 2.2 CPU s of ``max`` on a
10⁶-state instance, against 0.3 s for the whole C walk.  :data:`LIBRARY` makes them
one native object (:mod:`sdg_automata.kernels.native`), linked in later processes
without numba: the same kernels, the same answers, numba's dispatchers the fallback.

This module imports neither numba nor the kernels' modules: the drivers take the
entry points from :func:`functions` (native code, or numba's dispatchers) and the
protocol's constants from :mod:`sdg_automata.kernels.protocol`.
"""

from __future__ import annotations

import functools
from typing import Any

from .native import Entry, Library

__all__ = ["LIBRARY", "VIA", "functions", "tree_runs"]

#: the tree's letter types (``via``: uint8 below 256 letters, else int32), by numpy name
VIA = {"uint8": "u1", "int32": "i4"}


def _entries(via: str) -> tuple[Entry, ...]:
    """The entry points for a tree whose letters are of the numba type ``via``."""
    i8, i4, u8 = "i8[:]", "i4[:]", "u8[:]"
    return (
        Entry(name=f"packed_bfs_{via}", function="packed_bfs",
              args=(i4, "i8[:]", i8, i8, i8, u8, i8, "i8", u8, i4, f"{via}[:]", "i4[:, :]",
                    "u1[:]", "i8", i4, "i8", "i8", i8, i8, "i8", "i4[:, :]", "i4[:, :]", u8,
                    i8, i8, "i8"),
              result=True),
        Entry(name=f"tree_count_{via}", function="automaton.tree_count",
              args=(i4, f"{via}[:]", "i8"), result=True),
        Entry(name=f"tree_fill_{via}", function="automaton.tree_fill",
              args=(i4, f"{via}[:]", "i8", i4, i8)),
    )


#: the entry points; the kernels are :mod:`~sdg_automata.kernels.packed`'s
LIBRARY = Library(
    name="bfs_native", module="sdg_automata.kernels.packed", kernels=(),
    entries=(*(e for via in VIA.values() for e in _entries(via)),
             Entry(name="insert_keys", function="insert_keys",
                   args=("u8[:]", "i8[:]", "u8[:]", "i8"), result=True),
             Entry(name="spread", function="spread",
                   args=("u8[:]", "i8", "i8[:]", "u8[:]"), result=True)))


@functools.cache
def functions() -> dict[str, Any]:
    """The entry points by name: native, or numba's dispatchers (see
    :meth:`~sdg_automata.kernels.native.Library.functions`)."""
    return LIBRARY.functions()


def tree_runs(parent: Any, via: Any, s: int) -> tuple[Any, Any]:
    """The letters of the tree path from state 0 to ``s`` as runs (letters int32, counts
    int64), in the order they were read (``crawl.tree_path`` is the reference, one letter
    each): counted first, so that the arrays are made once, here, then filled."""
    import numpy as np

    code = VIA[via.dtype.name]
    run = functions()
    runs = int(run[f"tree_count_{code}"](parent, via, s))
    letters = np.empty(runs, dtype=np.int32)
    counts = np.zeros(runs, dtype=np.int64)
    run[f"tree_fill_{code}"](parent, via, s, letters, counts)
    return letters, counts
