"""The registry of Max-Grundy's search engines: the ways to run an explicit-state search.

:data:`ENGINES` is the one table, name → :class:`~.base.SearchEngine`, in the order
the command line lists them: ``python`` (each strategy's pure-Python reference,
:mod:`.python`), ``compiled`` (the numba kernels over a table store) and ``compact``
(the same over the exact compact store, :mod:`.compiled`), and ``dask`` (bfs sharded
over a Dask cluster, :mod:`.dask`).  :func:`sdg_automata.search.decide.max_grundy`
takes an engine's name or ``"auto"`` (``engine=``) and its options
(``options={...}``), the ``max`` command offers every one (``--engine``) with its
own arguments, and the verdict says which ran (``Verdict.engine``); none of them
names an engine.

:func:`run` is the one dispatch, as networkx dispatches to its backends:

* **by name**: the engine must be available (else one ``InputError`` saying what is
  missing) and implement the strategy (else refused); a search outside its scope, or
  one it gives up mid-way (:class:`~sdg_automata.runtime.engines.Unfit`), runs on its
  declared ``fallback`` after one :class:`~sdg_automata.errors.EngineNotice`;
* **auto**: the engines whose ``auto`` is set, that implement the strategy, fit the
  search and are installed, in stage order, each capped at its threshold: the ski
  rental of :func:`sdg_automata.runtime.engines.ski_rental` (today: the Python
  reference up to ``THRESHOLDS["walk states"]`` states, then the kernels, restarted
  with the clock counted from the start).  An engine whose kernels for the strategy
  are cached as native code (``SearchEngine.native``) loads without numba, at a
  sixteenth of numba's fixed cost: the stage before it is capped
  :data:`~sdg_automata.runtime.engines.NATIVE_GAIN` times lower first, and the walk goes
  on there if the library links, else on the stage before, at its own cap (the
  same ski rental, for the smaller fixed cost).

The entries are cheap to list: an engine's module imports its implementation (numba,
Dask) only when it runs.

How to add an engine
--------------------
Write one module (here, or anywhere) with a run function per strategy it
implements, ``run(search, budget, **strategy_args) -> SearchResult``
(:mod:`sdg_automata.search.request`: the question, and the answer, in which you say
what held the states, ``store``), and make one :class:`~.base.SearchEngine` of it,
declaring its scope, when ``auto`` may run it, its fallback, and optionally its
options and command-line arguments (:class:`~sdg_automata.search.options.Argument`);
then :func:`register` it (a built-in one is listed in :data:`ENGINES` below).
``max_grundy(engine=name)``, ``max --engine name`` with its arguments, and the
verdict's ``engine`` follow (``tests/search/test_engine_registry_search.py`` does this
with a toy).
"""

from __future__ import annotations

import dataclasses
import warnings
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, Any

from ...errors import EngineNotice, InputError
from ...runtime.engines import (
    NATIVE_GAIN,
    THRESHOLDS,
    Stage,
    Unfit,
    native_first,
    native_ready,
    ski_rental,
)
from ..options import entry
from . import compiled, dask, python
from .base import Runner, SearchEngine

if TYPE_CHECKING:
    from ...runtime.budget import Budget
    from ..request import Search, SearchResult

__all__ = ["AUTO", "ENGINES", "check", "choose", "get", "implements", "names", "register", "run"]

#: the name that lets the registry choose (``engine="auto"``, the default)
AUTO = "auto"

#: the engines by name, in the order the command line lists them
ENGINES: dict[str, SearchEngine] = {
    e.name: e for e in (python.ENGINE, compiled.ENGINE, compiled.COMPACT, dask.ENGINE)}


def register(engine: SearchEngine) -> None:
    """Add ``engine`` to :data:`ENGINES` (last), or replace the one of its name."""
    if engine.name == AUTO:
        raise InputError(f"{AUTO!r} is the registry's own choice, not an engine's name")
    ENGINES[engine.name] = engine


def get(name: str) -> SearchEngine:
    """The engine ``name``; :class:`~sdg_automata.errors.InputError` for an unknown one."""
    return entry(ENGINES, name, "engine", choices())


def names() -> tuple[str, ...]:
    """The engines' names, in the registry's order."""
    return tuple(ENGINES)


def choices() -> tuple[str, ...]:
    """What ``engine=`` takes: ``"auto"`` and every engine's name."""
    return (AUTO, *ENGINES)


def check(name: object) -> str:
    """``name`` if it is ``"auto"`` or an engine's name, else :class:`InputError` listing them."""
    if name != AUTO:
        get(name)  # type: ignore[arg-type]
    return name  # type: ignore[return-value]


def _auto_engines() -> list[SearchEngine]:
    """The engines ``auto`` may run, in stage order."""
    return sorted((e for e in ENGINES.values() if e.auto is not None),
                  key=lambda e: e.auto.stage if e.auto is not None else 0)


def implements(name: str, strategy: str, reference: Runner | None) -> bool:
    """Whether the engine ``name`` (``"auto"``: any engine auto runs) implements
    ``strategy``, whose Python reference is ``reference``."""
    engines = _auto_engines() if name == AUTO else [get(name)]
    return any(e.runner(strategy, reference) is not None for e in engines)


def choose(search: Search, reference: Runner | None) -> list[SearchEngine]:
    """The engines that may run ``search``, in the order they would: the one named
    (refused when it cannot run, see :func:`run`), or ``auto``'s stages."""
    if search.engine != AUTO:
        engine = get(search.engine)
        if engine.runner(search.strategy, reference) is None:
            raise InputError(f"the {engine.name} engine does not run the {search.strategy} "
                             f"strategy{_runs(engine)}")
        return [engine]
    stages = [e for e in _auto_engines()
              if e.runner(search.strategy, reference) is not None
              and e.unfit(search.automaton, search.constraint) is None]
    if not stages:
        raise InputError(f"no engine that auto runs takes the {search.strategy} strategy here")
    return stages


def _runs(engine: SearchEngine) -> str:
    """What ``engine`` implements, for a refusal."""
    if engine.runs_reference:
        return ""
    return f" (it runs {', '.join(engine.implements)})"


def run(search: Search, reference: Runner | None, **strategy_args: Any) -> SearchResult:
    """Run ``search`` on the engine ``search.engine`` names, or on ``auto``'s choice: the
    one dispatch of the module docstring.  ``reference`` is the strategy's Python
    reference (what the ``python`` engine runs); ``strategy_args`` go to the engine's
    run function (e.g. lasso's letter).

    Returns
    -------
    SearchResult
        Its ``engine`` says what ran (:class:`~sdg_automata.search.request.EngineRun`).

    Raises
    ------
    InputError
        For an engine that is not available here or does not run the strategy, or a
        search outside its scope with no fallback.
    """
    engines = choose(search, reference)
    if search.engine != AUTO:
        try:
            missing = _ready(engines[0], search.strategy)()
        except KeyboardInterrupt:  # while it loads (numba)
            raise search.budget.start("search").interrupted(0) from None
        if missing is not None:
            raise InputError(f"the {engines[0].name} engine {missing}")
    stages = [Stage(name=e.name, run=partial(_attempt, e, search, reference=reference,
                                             arguments=strategy_args),
                    cap=None if e.auto is None or e.auto.threshold is None
                    else THRESHOLDS[e.auto.threshold],
                    present=e.present, ready=_ready(e, search.strategy)) for e in engines]
    # a stage whose kernels may be native first, the stage before it capped NATIVE_GAIN
    # times lower; one stage when named: ski_rental only keeps the clock and turns a
    # Ctrl-C while the engine loads into Interrupted
    natives: list[tuple[str, int] | None] = [None]
    for e, before in zip(engines[1:], stages[:-1], strict=True):
        library = e.native.get(search.strategy)
        natives.append(None if library is None or before.cap is None
                       else (library, before.cap // NATIVE_GAIN))
    return ski_rental(native_first(stages, natives), search.budget, what="search")[0]


def _ready(engine: SearchEngine, strategy: str) -> Callable[[], str | None]:
    """Why ``engine`` cannot run ``strategy`` here, or ``None``: ready without numba when
    its kernels for it are cached as native code (``SearchEngine.native``), else as
    its ``available`` says."""
    library = engine.native.get(strategy)
    if library is None:
        return engine.available

    def ready() -> str | None:
        return None if native_ready(library) is None else engine.available()

    return ready


def _attempt(engine: SearchEngine, search: Search, budget: Budget, reference: Runner | None,
             arguments: Mapping[str, Any]) -> tuple[SearchResult, str]:
    """``engine`` runs ``search`` under ``budget``; when the search does not fit it, or it
    gives up (:class:`Unfit`, ``OverflowError``), its fallback does, after one notice."""
    why = engine.unfit(search.automaton, search.constraint)
    tried = {engine.name}
    while True:
        if why is None:
            runner = engine.runner(search.strategy, reference)
            assert runner is not None
            options = (search.engine_options if engine.name == search.engine
                       else engine.make_options({}))
            try:
                result = runner(dataclasses.replace(search, engine=engine.name,
                                                    engine_options=options),
                                budget, **arguments)
            except (Unfit, OverflowError) as e:
                why = str(e)
            else:
                return dataclasses.replace(result, engine=engine.ran(result)), engine.name
        engine = _fallback(engine, search, reference, why, tried)
        why = None


def _fallback(engine: SearchEngine, search: Search, reference: Runner | None, why: str,
              tried: set[str]) -> SearchEngine:
    """The first engine along ``engine``'s fallbacks that runs the strategy, is available
    and fits the search, announced by one :class:`EngineNotice` saying ``why``."""
    target = engine
    while True:
        if target.fallback is None or target.fallback in tried:
            raise InputError(f"the {engine.name} engine cannot run this search: {why}")
        target = get(target.fallback)
        tried.add(target.name)
        if (target.runner(search.strategy, reference) is not None and target.present()
                and target.unfit(search.automaton, search.constraint) is None
                and target.available() is None):
            break
    warnings.warn(f"the search runs on the {target.name} engine, not {engine.name}: {why}",
                  EngineNotice, stacklevel=2)
    return target
