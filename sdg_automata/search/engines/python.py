"""The ``python`` engine: each strategy's own pure-Python reference.

The reference of a strategy (``SearchStrategy.reference``) stays in the strategy's
module (:mod:`sdg_automata.search.strategies.bfs`, ``dfs``, ``lasso``): it is the
definition every other engine must equal (the tests hold them equal).  It needs
nothing but Python, takes every search, and is ``auto``'s first stage: it runs up to
``THRESHOLDS["walk states"]`` states, where loading numba would not yet have paid off
(:mod:`sdg_automata.runtime.engines`).
"""

from __future__ import annotations

from .base import Auto, SearchEngine

__all__ = ["ENGINE"]

#: the registry's entry (:data:`sdg_automata.search.engines.ENGINES`)
ENGINE = SearchEngine(
    name="python", describe="the pure-Python reference of each strategy",
    runs_reference=True, auto=Auto(stage=0, threshold="walk states"))
