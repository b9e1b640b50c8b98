"""The "add an engine" recipe of docs/architecture.md, followed by
tests/project/test_architecture.py.

A hot loop (the values of a subtraction game) written twice: the Python reference and a
kernel for ``kernels.jit`` (numba arrays and ints, its scratch given by the caller, no
exception, a status code), run by
the one policy of :mod:`sdg_automata.runtime.engines` from its entry in ``THRESHOLDS``,
each kernel call inside :func:`~sdg_automata.runtime.stopping.held_signals`.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

import numpy as np

from sdg_automata.games.mex import mex
from sdg_automata.runtime.engines import THRESHOLDS, Engine, use_compiled
from sdg_automata.runtime.stopping import held_signals

#: the recipe's entry of the threshold table (the test adds it, as one line of the table)
LOOP = "recipe subtraction values"


def values_python(moves: Iterable[int], n: int) -> list[int]:
    """The reference: 𝒢(0), …, 𝒢(n) by the mex rule."""
    ordered = sorted(set(moves))
    out: list[int] = []
    for heap in range(n + 1):
        out.append(mex(out[heap - s] for s in ordered if s <= heap))
    return out


def _values_kernel(moves: Any, seen: Any, out: Any) -> int:
    """The kernel :func:`values_python` must equal; returns 0 (its status: done).
    ``seen`` (uint8, one more than the moves and one spare) is scratch: a kernel
    allocates nothing."""
    for heap in range(out.shape[0]):
        seen[:] = 0
        for s in moves:
            if s <= heap and out[heap - s] < seen.shape[0]:
                seen[out[heap - s]] = 1
        g = 0
        while seen[g]:
            g += 1
        out[heap] = g
    return 0


@cache
def _compiled() -> Any:
    from sdg_automata.kernels import jit  # numba: loaded once the policy has chosen it

    return jit(_values_kernel)


def values(moves: Iterable[int], n: int, engine: Engine = "auto") -> tuple[list[int], str]:
    """The values and the engine that computed them, as the policy chooses."""
    ordered = sorted(set(moves))
    if not use_compiled(engine, work=n + 1, threshold=THRESHOLDS[LOOP]):
        return values_python(ordered, n), "python"
    out = np.zeros(n + 1, dtype=np.int64)
    kernel = _compiled()
    with held_signals():  # the first call compiles or loads: never broken by a Ctrl-C
        kernel(np.array(ordered, dtype=np.int64), np.zeros(len(ordered) + 2, dtype=np.uint8),
               out)
    return [int(v) for v in out], "compiled"
