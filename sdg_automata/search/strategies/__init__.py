"""The registry of Max-Grundy's on-the-fly search strategies (SPEC §5; issue 26).

:data:`STRATEGIES` is the one table, name → :class:`~.base.SearchStrategy`, in the
order the command line lists them: ``bfs`` (shortest witnesses, :mod:`.bfs`),
``dfs`` (less memory, :mod:`.dfs`), ``lasso`` (one-letter walks in constant memory,
:mod:`.lasso`), ``sat`` (bounded model checking with CaDiCaL, :mod:`.sat`) and
``pdr`` (proofs by ABC's PDR, :mod:`.pdr`).  :func:`sdg_automata.search.decide.max_grundy`
runs the one it is given (``strategy=``; ``None``: :func:`default`), the ``max``
command offers every one (``--strategy``) with its own arguments, and the ``--json``
object, the text and :mod:`sdg_automata.render` show its evidence; none of them
names a strategy.

How to add a strategy
---------------------
Write one module (here, or anywhere) that defines a run function
``run(search: Search) -> SearchResult`` (:mod:`sdg_automata.search.request`: the
question, with ``search.options`` your options, and the answer, whose ``evidence``
is yours; a strategy that walks the automaton hands its Python reference to
:func:`sdg_automata.search.engines.run`, which runs it on the engine asked for),
optionally a frozen dataclass of options (its fields become keywords of
``max_grundy(options={...})``; their defaults mean "not given"), an evidence class
deriving from :class:`~sdg_automata.search.request.Evidence` (``to_json()`` gives the
fields of the ``evidence`` object of ``--json``, ``summary()`` the note the command
line prints), command-line :class:`~sdg_automata.search.options.Argument` s and the
refusals (``check``, ``prepare``, ``refuse``); then make one
:class:`~.base.SearchStrategy` of them and :func:`register` it (a built-in one is
listed in :data:`STRATEGIES` below).  ``max_grundy(strategy=name)``, ``max
--strategy name`` with its arguments, and the JSON follow at once
(``tests/search/test_strategy_registry.py`` does this with a toy).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ...errors import InputError
from .. import engines
from ..options import entry, refuse_options
from . import bfs, dfs, lasso, pdr, sat
from .base import SearchStrategy

if TYPE_CHECKING:
    from ...automaton.construction import GrundyAutomaton
    from ...runtime.budget import Budget

__all__ = ["STRATEGIES", "check", "default", "get", "names", "prepare", "register", "solved"]

#: the strategies by name, in the order the command line lists them
STRATEGIES: dict[str, SearchStrategy] = {
    s.name: s for s in (bfs.STRATEGY, dfs.STRATEGY, lasso.STRATEGY, sat.STRATEGY, pdr.STRATEGY)}


def register(strategy: SearchStrategy) -> None:
    """Add ``strategy`` to :data:`STRATEGIES` (last), or replace the one of its name."""
    STRATEGIES[strategy.name] = strategy


def get(name: str) -> SearchStrategy:
    """The strategy ``name``; :class:`~sdg_automata.errors.InputError` for an unknown one."""
    return entry(STRATEGIES, name, "strategy", STRATEGIES)


def names() -> tuple[str, ...]:
    """The strategies' names, in the registry's order."""
    return tuple(STRATEGIES)


def solved() -> dict[str, str]:
    """The strategies that run solvers rather than our engines, and what they run."""
    return {name: s.solver for name, s in STRATEGIES.items() if s.solver is not None}


def _defaults() -> tuple[SearchStrategy, ...]:
    """The strategies :func:`default` may choose."""
    return STRATEGIES["lasso"], STRATEGIES["bfs"]


def check(strategy: SearchStrategy | None, keywords: Mapping[str, Any], budget: Budget,
          *, engine: str = engines.AUTO, route: str | None = None) -> None:
    """Refuse, before any automaton is built, what ``strategy`` (``None``: the default) on
    ``engine`` cannot take: its own refusals of its options and ``budget``, any option in
    ``keywords`` of another strategy or engine (one logic for both registries:
    :func:`~sdg_automata.search.options.refuse_options`), and the engine's refusals of
    its own options.  ``route`` names a route instead of the on-the-fly search (``"the
    explicit route"``), which takes no option at all."""
    named = None if engine == engines.AUTO else engines.get(engine)
    entries = (*STRATEGIES.values(), *engines.ENGINES.values())
    if route is not None:
        refuse_options(keywords, {"strategy": route, "engine": route}, entries, ())
        return
    if strategy is not None:
        strategy.check(strategy.make_options(keywords), budget)
    users = {"strategy": "the default strategy" if strategy is None else strategy.name,
             "engine": f"engine {engines.AUTO}" if named is None else f"the {engine} engine"}
    allowed = (*(_defaults() if strategy is None else (strategy,)), *([named] if named else []))
    refuse_options(keywords, users, entries, allowed)
    if named is not None:
        named.check(named.make_options(keywords), budget)


def default(one_letter: bool, engine: str = engines.AUTO) -> SearchStrategy:
    """The strategy of ``strategy=None``: lasso for a one-letter walk when ``engine`` runs
    it, else bfs."""
    lasso_, bfs_ = _defaults()
    if one_letter and engines.implements(engine, lasso_.name, lasso_.reference):
        return lasso_
    return bfs_


def prepare(strategy: SearchStrategy, keywords: Mapping[str, Any], engine: str,
            automaton: GrundyAutomaton) -> str:
    """Refuse what ``strategy`` cannot take once the automaton is built, and return the
    engine it runs on: a strategy that runs a solver takes no engine of ours but the
    Python reference (``auto`` and ``python`` mean: no kernels)."""
    if strategy.solver is not None and engine not in (engines.AUTO, "python"):
        ours = [name for name, s in STRATEGIES.items()
                if s.solver is None and engines.implements(engine, name, s.reference)]
        listed = ", ".join(ours[:-1]) + " and " + ours[-1] if len(ours) > 1 else "".join(ours)
        raise InputError(f"the {strategy.name} strategy runs {strategy.solver}, not the "
                         f"{engine} engine" + (f": --engine {engine} goes with {listed}"
                                               if listed else ""))
    return strategy.prepare(strategy.make_options(keywords), engine, automaton)
