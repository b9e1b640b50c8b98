"""The lasso's kernel as a native library: a one-letter ``max`` without numba.

The ``compiled`` engine's lasso (:func:`~sdg_automata.search.compiled.drive.lasso`, the
default strategy of a grammar or constraint of one letter) moves its hare, and then its
tortoise and hare together, by :func:`~sdg_automata.kernels.packed_lasso.move` on states
packed in one word (its scratch made by :func:`scratch`).  :data:`LIBRARY` makes it a native object
(:mod:`sdg_automata.kernels.native`), linked in later processes without importing numba
(about 0.8 CPU s and 100 MB a process, issue 36), as
:mod:`~sdg_automata.kernels.bfs_native` does for the breadth-first search: the same kernel,
the same answers, numba's dispatcher the fallback.  States wider than a word walk as
vectors on numba's :func:`~sdg_automata.kernels.automaton.walk` and ``meet``.

This module imports neither numba nor the kernels' module.
"""

from __future__ import annotations

import functools
from typing import Any

from .native import Entry, Library

__all__ = ["LIBRARY", "functions", "scratch"]

#: the entry point: ``move`` (the hare alone, or with ``meeting`` both), the kernel
#: :mod:`~sdg_automata.kernels.packed_lasso`'s
LIBRARY = Library(
    name="lasso_native", module="sdg_automata.kernels.packed_lasso", kernels=(),
    entries=(Entry(name="move", function="move",
                   args=("i4[:]", "i8[:]", "i8", "i8", "i4[:, :]", "u1[:]", "i8", "i4[:]", "i8",
                         "i8", "i8[:]", "i8", "i4[:, :]", "i8[:]", "i8[:]", "i8", "i8[:]", "i8",
                         "b1", "i8[:, :]", "i8[:, :]", "i8[:, :]", "u8[:]", "u8[:]"),
                   result=True),))


@functools.cache
def functions() -> dict[str, Any]:
    """The entry point by name: native, or numba's dispatcher (see
    :meth:`~sdg_automata.kernels.native.Library.functions`)."""
    return LIBRARY.functions()


def scratch(plan: Any, at: int, groups: int) -> tuple[Any, ...]:
    """The zeroed scratch of one call of ``move`` from ``plan[at]`` (its current length)
    for states of ``groups`` groups: ``ops``, ``new``, ``old``, ``ws``, ``moved``."""
    import numpy as np

    from .protocol import COLUMNS

    return (np.zeros((int(plan[at]), COLUMNS), dtype=np.int64),
            np.zeros((1, groups), dtype=np.int64), np.zeros((1, groups), dtype=np.int64),
            np.zeros(2, dtype=np.uint64), np.zeros(2, dtype=np.uint64))
