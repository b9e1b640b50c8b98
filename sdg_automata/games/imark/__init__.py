"""The game i-Mark(S, D) and the convergence technique (SPEC §6).

Four concerns, one module each:

* :mod:`.game` — :class:`IMark`, the validated instance, and the step tables;
* :mod:`.naive` — the bottom-up table 𝒢(0..N), the oracle (Θ(N));
* :mod:`.convergence` — 𝒢(n) for huge n, proven, through the engines
  :mod:`.layers` (default) and :mod:`.reference` (the first implementation);
* :mod:`.coalescence` — the convergence of one instance: the window c it needs.

The survey of many instances (which converge, and with which window) runs on
the sweep engine: :mod:`sdg_automata.sweeps.imark`.

>>> from sdg_automata.games.imark import imark_grundy
>>> imark_grundy([1], [2, 3], 10**18)
2
"""

from __future__ import annotations

from .coalescence import SurveyRow, coalescence_steps, survey_instance
from .convergence import (
    C_MAX,
    C_START,
    ENGINES,
    Engine,
    IMarkConvergenceError,
    IMarkValue,
    imark_grundy,
    imark_prove,
    imark_value,
    imark_values,
    window_ladder,
)
from .game import CAVEAT_NO_ONE, MAX_STATES, IMark
from .naive import (
    MAX_TABLE_BYTES,
    NAIVE_BASE,
    imark_naive,
    imark_sequence,
    imark_sequence_chunks,
    table_bytes,
)
from .reference import imark_cache_clear

__all__ = [
    "CAVEAT_NO_ONE",
    "C_MAX",
    "C_START",
    "ENGINES",
    "Engine",
    "IMark",
    "IMarkConvergenceError",
    "IMarkValue",
    "MAX_STATES",
    "MAX_TABLE_BYTES",
    "NAIVE_BASE",
    "SurveyRow",
    "coalescence_steps",
    "imark_cache_clear",
    "imark_grundy",
    "imark_naive",
    "imark_prove",
    "imark_sequence",
    "imark_sequence_chunks",
    "imark_value",
    "imark_values",
    "survey_instance",
    "table_bytes",
    "window_ladder",
]
