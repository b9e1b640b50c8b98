"""The options of the strategies that run solvers (``sat`` and ``pdr``): the longest word
searched and the SAT solver.

It is a module of its own, imported when their options are first needed (an option given,
or one of them running): the strategies' entries (:mod:`sdg_automata.search.strategies.sat`,
:mod:`sdg_automata.search.strategies.pdr`) name these classes
(:attr:`~sdg_automata.search.options.Configurable.options`), are loaded whenever the
command line lists them, and a dataclass costs start-up to define (issue 33 §4).
Both names are importable from their strategy's module too.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PdrOptions", "SatOptions"]


@dataclass(frozen=True)
class SatOptions:
    """The longest word searched (``None``: until settled or proven, or out of budget), and
    the SAT solver (``None``: CaDiCaL 1.9.5; any incremental solver python-sat offers)."""

    max_length: int | None = None
    sat_solver: str | None = None


@dataclass(frozen=True)
class PdrOptions:
    """The SAT solver (``None``: CaDiCaL 1.9.5), shared with the sat strategy."""

    sat_solver: str | None = None
