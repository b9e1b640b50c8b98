"""The "add a game" recipe of docs/architecture.md, followed by tests/project/test_architecture.py.

A game is one module in the games layer: it imports from its layer and those below
(here only :func:`~sdg_automata.games.mex.mex` and the errors), takes a budget-free,
validated input and returns exact values.  This one is the subtraction game S: a heap
of n tokens, a move takes s ∈ S of them; its Grundy values by the mex rule (SPEC §7).
"""

from __future__ import annotations

from collections.abc import Iterable

from sdg_automata.errors import InputError
from sdg_automata.games.mex import mex


def subtraction_values(subtraction: Iterable[int], n: int) -> list[int]:
    """𝒢(0), …, 𝒢(n) of the subtraction game with set ``subtraction``."""
    moves = sorted(set(subtraction))
    if not moves or moves[0] < 1:
        raise InputError("a subtraction set holds positive integers")
    values: list[int] = []
    for heap in range(n + 1):
        values.append(mex(values[heap - s] for s in moves if s <= heap))
    return values
