"""What a Max-Grundy search strategy is: :class:`SearchStrategy`, the entry of the
registry :data:`sdg_automata.search.strategies.STRATEGIES`.

A strategy is one object: its name, its run function (a
:class:`~sdg_automata.search.request.Search` in, a
:class:`~sdg_automata.search.request.SearchResult` out), its Python reference (what the
``python`` engine runs), its options (a frozen dataclass whose fields are keywords of
:func:`~sdg_automata.search.decide.max_grundy`, with their command-line arguments and
refusals: :class:`~sdg_automata.search.options.Configurable`, shared with the engines),
its own refusals, its progress label and, for those that run solvers rather than our
engines, the solver's name.  The facade
(:mod:`sdg_automata.search.decide`), the command line (:mod:`sdg_automata.cli.automata`)
and :mod:`sdg_automata.render` read these fields and never a strategy's name.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ...errors import InputError
from ..options import Configurable

if TYPE_CHECKING:
    from ...automaton.construction import GrundyAutomaton
    from ...runtime.budget import Budget
    from ..request import Search, SearchResult

__all__ = ["EXPLORING", "SearchStrategy", "refuse_states"]

#: what a progress bar says and counts by default: the states a search explores
EXPLORING = ("exploring", "states")


def _keep_engine(options: Any, engine: str, automaton: GrundyAutomaton) -> str:
    """A strategy that takes the engine asked for as it is."""
    return engine


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class SearchStrategy(Configurable):
    """One on-the-fly search strategy of Max-Grundy (SPEC §5).

    Its name, what ``--help`` says of it, its options, their arguments and its refusal
    of them are the fields of :class:`~sdg_automata.search.options.Configurable`.

    Attributes
    ----------
    run:
        The search: ``run(search)`` answers a
        :class:`~sdg_automata.search.request.Search` (whose ``options`` are this
        strategy's) with a :class:`~sdg_automata.search.request.SearchResult`.  A
        strategy that runs on our engines hands its Python reference to the one
        dispatch, :func:`sdg_automata.search.engines.run`.
    reference:
        Its pure-Python reference, ``reference(search, budget, **strategy_args)``, which
        the ``python`` engine runs (and every other engine must equal); ``None`` for a
        strategy that runs a solver.
    solver:
        What it runs instead of our engines (``"CaDiCaL"``), or ``None``: such a
        strategy stores no states and takes no engine but ``auto`` and ``python``.
    progress:
        What the command line's progress bar says and counts (default :data:`EXPLORING`).
    check:
        Its refusals before the automaton is built: ``check(options, budget)``.
    prepare:
        Its refusals once the automaton is built, and the engine it runs on:
        ``prepare(options, engine, automaton) -> engine``.
    """

    kind: ClassVar[str] = "strategy"

    run: Callable[[Search], SearchResult]
    reference: Callable[..., SearchResult] | None = None
    solver: str | None = None
    progress: tuple[str, str] = EXPLORING
    check: Callable[[Any, Budget], None] = lambda options, budget: None
    prepare: Callable[[Any, str, GrundyAutomaton], str] = _keep_engine


def refuse_states(name: str, budget: Budget, *, bounds: str = "") -> None:
    """The refusal of a state budget by strategy ``name``, which stores no states and is
    bounded by ``bounds`` (e.g. ``"a maximum length or "``) or seconds."""
    if budget.max_states is not None:
        raise InputError(f"the {name} strategy stores no states: bound it by {bounds}seconds, "
                         "not by states")
