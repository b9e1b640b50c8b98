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
question, with ``search.options`` your options, and the answer, whose
``evidence`` is yours), optionally a frozen dataclass of options (its fields become
keywords of ``max_grundy(options={...})``; their defaults mean "not given"), an
evidence class deriving from :class:`~sdg_automata.search.request.Evidence`
(``to_json()`` gives the ``--json`` fields you list in ``json_fields``, ``summary()``
the note the command line prints), command-line :class:`~.base.Argument` s and the
refusals (``check``, ``prepare``, ``refuse``); then make one
:class:`~.base.SearchStrategy` of them and :func:`register` it (a built-in one is
listed in :data:`STRATEGIES` below).  ``max_grundy(strategy=name)``, ``max
--strategy name`` with its arguments, and the JSON follow at once
(``tests/search/test_strategy_registry.py`` does this with a toy).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ...errors import InputError
from . import bfs, dfs, lasso, pdr, sat
from .base import SearchStrategy

if TYPE_CHECKING:
    from ...automaton.construction import GrundyAutomaton
    from ...runtime.budget import Budget
    from ...runtime.engines import Engine

__all__ = ["STRATEGIES", "check", "default", "get", "json_fields", "names", "prepare", "register",
           "solved"]

#: the strategies by name, in the order the command line lists them
STRATEGIES: dict[str, SearchStrategy] = {
    s.name: s for s in (bfs.STRATEGY, dfs.STRATEGY, lasso.STRATEGY, sat.STRATEGY, pdr.STRATEGY)}


def register(strategy: SearchStrategy) -> None:
    """Add ``strategy`` to :data:`STRATEGIES` (last), or replace the one of its name."""
    STRATEGIES[strategy.name] = strategy


def get(name: str) -> SearchStrategy:
    """The strategy ``name``; :class:`~sdg_automata.errors.InputError` for an unknown one."""
    try:
        return STRATEGIES[name]
    except (KeyError, TypeError):
        raise InputError(f"unknown strategy {name!r} (expected {' or '.join(STRATEGIES)})"
                         ) from None


def names() -> tuple[str, ...]:
    """The strategies' names, in the registry's order."""
    return tuple(STRATEGIES)


def solved() -> dict[str, str]:
    """The strategies that run solvers rather than our engines, and what they run."""
    return {name: s.solver for name, s in STRATEGIES.items() if s.solver is not None}


def json_fields() -> tuple[str, ...]:
    """Every field a strategy's evidence adds to the ``--json`` object, in the registry's
    order (each ``null`` in a verdict whose evidence does not give it)."""
    return tuple(dict.fromkeys(f for s in STRATEGIES.values() for f in s.json_fields))


def _refuse_options(user: str, keywords: Mapping[str, Any],
                    allowed: Iterable[SearchStrategy]) -> None:
    """Refuse the options set in ``keywords`` that belong to none of ``allowed`` (an option
    two strategies share, such as the SAT solver, is refused by neither when one runs)."""
    allowed = tuple(allowed)
    shared = {f for s in allowed for f in s.defaults}
    others = {k: v for k, v in keywords.items() if k not in shared}
    for s in STRATEGIES.values():
        why = None if s in allowed else s.refusal(user, others)
        if why is not None:
            raise InputError(why)


def _defaults() -> tuple[SearchStrategy, ...]:
    """The strategies :func:`default` may choose."""
    return STRATEGIES["lasso"], STRATEGIES["bfs"]


def check(strategy: SearchStrategy | None, keywords: Mapping[str, Any], budget: Budget,
          *, user: str | None = None) -> None:
    """Refuse, before any automaton is built, what ``strategy`` (``None``: the default)
    cannot take: its own refusals of its options and ``budget``, then any other
    strategy's option set in ``keywords``; ``user`` names the route instead of a strategy
    (``"the explicit route"``), which takes no option at all."""
    if user is not None:
        _refuse_options(user, keywords, ())
    elif strategy is None:
        _refuse_options("the default strategy", keywords, _defaults())
    else:
        strategy.check(strategy.make_options(keywords), budget)
        _refuse_options(strategy.name, keywords, (strategy,))


def default(keywords: Mapping[str, Any], one_letter: bool) -> SearchStrategy:
    """The strategy of ``strategy=None``: lasso for a one-letter walk, else bfs; bfs
    whenever one of its options is set (its store)."""
    lasso_, bfs_ = _defaults()
    return lasso_ if one_letter and not bfs_.given(keywords) else bfs_


def prepare(strategy: SearchStrategy, keywords: Mapping[str, Any], engine: Engine,
            automaton: GrundyAutomaton) -> Engine:
    """Refuse what ``strategy`` cannot take once the automaton is built, and return the
    engine it runs on: a strategy that runs a solver takes no compiled engine."""
    if strategy.solver is not None and engine == "compiled":
        ours = [name for name, s in STRATEGIES.items() if s.solver is None]
        listed = ", ".join(ours[:-1]) + " and " + ours[-1] if len(ours) > 1 else ours[0]
        raise InputError(f"the {strategy.name} strategy runs {strategy.solver}, not the "
                         f"compiled kernels: --engine compiled goes with {listed}")
    return strategy.prepare(strategy.make_options(keywords), engine, automaton)
