"""The engine registry: which implementation runs a hot loop (``engine=``, ``--engine``).

The hot loops of the package (the exploration of the Step 1–5 automaton and the
on-the-fly Max-Grundy search of SPEC §4, octal values) exist twice: as the
pure-Python reference and as numba kernels (:mod:`sdg_automata.kernels`), which
the tests hold equal to it.  This module is the one place that says which runs:

* ``"python"`` — the reference, always available.
* ``"compiled"`` — the kernels; an :class:`~sdg_automata.errors.InputError` names
  what is missing when numba cannot be imported.
* ``"auto"`` (the default everywhere) — **the Python reference up to a threshold
  of work, the compiled kernels beyond, when numba imports.**  Where the work is
  known in advance (a count of values), :func:`use_compiled` compares it with
  the threshold.  Where it is not (a walk, which learns its size by walking),
  :func:`run_engine` runs the reference capped at the threshold and, if the walk
  needs more, restarts it compiled, its clock counted from the start: as in
  ski rental, no run then costs much more than twice what the better engine
  alone would have cost.  Either way a run below its threshold never imports
  numba (~0.5–1 s of loading).

Every threshold is an entry of :data:`THRESHOLDS`, with the reason for its value.

Why a registry, and not an import.  The layers of ``docs/architecture.md`` put
the automaton (the reference) below the kernels and the walks that drive them,
so :meth:`GrundyAutomaton.explore
<sdg_automata.automaton.construction.GrundyAutomaton.explore>` — whose
``engine=`` is public — may not import them.  As a networkx function reaches
its backends by name, the automaton asks this registry for the implementation
named in :data:`COMPILED`, which imports its module only once the policy has
chosen it: the automaton stays pure Python, ``import sdg_automata`` loads no
kernel, and the kernels may still import the automaton's types.  The numba
probe (:func:`numba_missing`) is reached the same way, since loading numba is
the kernels' business.
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import time
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast, get_args

from ..errors import BudgetExceeded, EngineNotice, InputError

if TYPE_CHECKING:
    from .budget import Budget

__all__ = ["COMPILED", "ENGINES", "THRESHOLDS", "Engine", "Unfit", "check_engine",
           "compiled", "numba_missing", "run_engine", "use_compiled"]

#: which implementation runs a kernel (``engine=``; the command line's ``--engine``)
Engine = Literal["auto", "compiled", "python"]
#: the engines, in the order the command line lists them
ENGINES: tuple[str, ...] = get_args(Engine)

#: the work (states, values) from which ``"auto"`` runs the compiled kernels
THRESHOLDS: dict[str, int] = {
    # walks of the automaton (explore, the on-the-fly search), in states: measured
    # (python -m benchmarks bench_search), the reference walks 150–400k states per CPU
    # second and the compiled engine's fixed cost (importing numba, loading the cached
    # kernels; numba also imports scipy when installed) is 0.7–1.2 CPU s, about what
    # the reference spends on 2^18 states: the ski-rental switch point
    "walk states": 1 << 18,
    # octal values asked for: loading numba and the cached kernels costs ~0.5 s, what
    # the Python path needs for ~50k values (Kayles needs 168); verifying a certificate
    # of so many values pays the same way
    "octal values": 1 << 14,
    # octal values in a period search, which does not know how many it will need: a
    # period not proven by 2^12 values (0.05–0.1 s in Python) usually needs many more
    # (docs/octal.md certifies at hundreds or hundreds of thousands of values)
    "octal period values": 1 << 12,
}

#: the parts of the compiled engine, by name: ``"module:attribute"``, imported only when
#: the policy has chosen that engine (see the module docstring)
COMPILED: dict[str, str] = {
    # why numba cannot be used (a phrase), or None: kernels/__init__ loads numba
    "numba": "sdg_automata.kernels:numba_missing",
    # GrundyAutomaton.explore's compiled twin: (automaton, budget, what=) -> Crawl
    "explore": "sdg_automata.search.compiled.explore:crawl_compiled",
}

R = TypeVar("R")


class Unfit(Exception):
    """Raised by a compiled implementation, before it starts, for an input the kernels
    cannot take; the message says why, and :func:`run_engine` runs the reference."""


def check_engine(engine: object) -> Engine:
    """``engine`` if it names an engine, else :class:`InputError` listing them."""
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r} (choose from {', '.join(ENGINES)})")
    return cast(Engine, engine)


def compiled(name: str) -> Callable[..., Any]:
    """The compiled implementation :data:`COMPILED` names (importing its module)."""
    module, _, attribute = COMPILED[name].partition(":")
    found: Callable[..., Any] = getattr(importlib.import_module(module), attribute)
    return found


def numba_missing() -> str | None:
    """Why numba cannot be used here (a phrase), or ``None`` when it can.

    Imports numba on the first call (about half a second), so call it only once a
    run has chosen to consider the compiled engine.
    """
    missing: str | None = compiled("numba")()
    return missing


def _needs_numba() -> None:
    """Raise :class:`InputError` when the compiled engine, asked for by name, cannot run."""
    reason = numba_missing()
    if reason is not None:
        raise InputError(f"the compiled engine needs numba: {reason} "
                         "(pip install numba, or --engine python)")


def use_compiled(engine: Engine, *, work: int, threshold: int) -> bool:
    """Whether a run of ``work`` units (states, values), known in advance, should use
    the compiled kernels: the auto policy of the module docstring.

    ``threshold`` is an entry of :data:`THRESHOLDS`: ``"auto"`` chooses the kernels
    from so many units on, when numba imports; below it the Python reference
    finishes before numba would have loaded.

    Raises
    ------
    InputError
        For an unknown engine, or ``"compiled"`` without numba.
    """
    check_engine(engine)
    if engine == "python" or engine == "auto" and work < threshold:
        return False
    if engine == "compiled":
        _needs_numba()
        return True
    return numba_missing() is None


def run_engine(engine: str, budget: Budget, python: Callable[[Budget], R],
               compiled: Callable[[Budget], R], *, reason: str | None = None, what: str,
               threshold: int | None = None) -> tuple[R, str]:
    """Run a walk, whose size is not known in advance, on the engine ``engine`` chooses;
    returns (result, engine that ran): the auto policy of the module docstring.

    ``"python"`` runs ``python(budget)``; ``"compiled"`` runs ``compiled(budget)``
    (an :class:`~sdg_automata.errors.InputError` when numba cannot be imported);
    ``"auto"`` runs ``python`` for at most ``threshold`` states (default: the
    table's ``"walk states"``, read at the call) and, if the walk needs more,
    restarts it with ``compiled``, its seconds counted from the start.
    When the input does not fit the kernels (``reason``, or :class:`Unfit` raised
    by ``compiled``) or a table outgrows its ids (``OverflowError``), a run that
    would be compiled runs in Python after one
    :class:`~sdg_automata.errors.EngineNotice`.
    """
    check_engine(engine)
    if engine == "python":
        return python(budget), "python"
    if threshold is None:
        threshold = THRESHOLDS["walk states"]
    reached = 0  # states the walk has reached, for a Ctrl-C while numba loads

    def fallback(why: str) -> tuple[R, str]:
        warnings.warn(f"the {what} runs in Python: {why}", EngineNotice, stacklevel=3)
        return python(budget), "python"

    if budget.since is None:  # one clock for the Python run and the compiled restart
        budget = dataclasses.replace(budget, since=time.perf_counter())
    if engine == "auto":
        if (budget.max_states is not None and budget.max_states <= threshold
                or importlib.util.find_spec("numba") is None):
            return python(budget), "python"
        try:
            return python(dataclasses.replace(budget, max_states=threshold)), "python"
        except BudgetExceeded as e:
            if e.explored != threshold:
                raise
        reached = threshold
        try:
            missing = numba_missing()
        except KeyboardInterrupt:
            raise budget.start(what).interrupted(reached) from None
        if missing is not None:  # found but broken: the reference, from the start
            return python(budget), "python"
        shown = budget.progress
        if shown is not None:  # the restart counts from 0 again: progress never goes back
            budget = dataclasses.replace(budget, progress=lambda n: shown(max(n, threshold)))
    else:
        try:
            _needs_numba()
        except KeyboardInterrupt:
            raise budget.start(what).interrupted(0) from None
    if reason is not None:
        return fallback(reason)
    try:
        return compiled(budget), "compiled"
    except (Unfit, OverflowError) as e:
        return fallback(str(e))
    except KeyboardInterrupt:  # while numba loads: the kernels' drivers say their own count
        raise budget.start(what).interrupted(reached) from None
