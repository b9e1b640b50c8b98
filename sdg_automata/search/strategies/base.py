"""What a Max-Grundy search strategy is: :class:`SearchStrategy`, the entry of the
registry :data:`sdg_automata.search.strategies.STRATEGIES`.

A strategy is one object: its name, its run function (a
:class:`~sdg_automata.search.request.Search` in, a
:class:`~sdg_automata.search.request.SearchResult` out), its options (a frozen
dataclass whose fields are keywords of :func:`~sdg_automata.search.decide.max_grundy`),
its command-line arguments, its refusals, its progress label and, for those that run
solvers rather than our engines, the solver's name.  The facade
(:mod:`sdg_automata.search.decide`), the command line (:mod:`sdg_automata.cli.automata`)
and :mod:`sdg_automata.render` read these fields and never a strategy's name.
"""

from __future__ import annotations

import argparse
import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...errors import InputError

if TYPE_CHECKING:
    from ...automaton.construction import GrundyAutomaton
    from ...runtime.budget import Budget
    from ...runtime.engines import Engine
    from ..request import Search, SearchResult

__all__ = ["EXPLORING", "Argument", "SearchStrategy", "refuse_states"]

#: what a progress bar says and counts by default: the states a search explores
EXPLORING = ("exploring", "states")


@dataclass(frozen=True, kw_only=True)
class Argument:
    """A command-line argument of a strategy's ``max`` subcommand: ``flag`` sets the option
    ``field`` (its default is the option's).

    ``kind`` names the command line's argparse type (``"positive"``, ``"natural"``,
    ``"duration"``: the keys of ``sdg_automata.cli.automata.ARGUMENT_KINDS``; ``None``: a
    string), so that this layer does not import the command line.
    """

    flag: str
    field: str
    help: str
    kind: str | None = None
    choices: tuple[str, ...] | None = None
    metavar: str | None = None


def _keep_engine(options: Any, engine: Engine, automaton: GrundyAutomaton) -> Engine:
    """A strategy that takes the engine asked for as it is."""
    return engine


@dataclass(frozen=True, kw_only=True)
class SearchStrategy:
    """One on-the-fly search strategy of Max-Grundy (SPEC §5).

    Attributes
    ----------
    name:
        Its key in the registry and its ``--strategy`` choice.
    describe:
        What ``max --help`` says of it, after its name.
    run:
        The search: ``run(search)`` answers a
        :class:`~sdg_automata.search.request.Search` (whose ``options`` are this
        strategy's) with a :class:`~sdg_automata.search.request.SearchResult`.
    options:
        A frozen dataclass of its settings, or ``None``; each field is a keyword of
        ``max_grundy`` (and of its ``options=`` mapping), its default the value that
        means "not given".
    solver:
        What it runs instead of our engines (``"CaDiCaL"``), or ``None``: such a
        strategy stores no states and takes no ``--engine compiled``.
    progress:
        What the command line's progress bar says and counts (default :data:`EXPLORING`).
    json_fields:
        The ``--json`` fields its evidence adds (``null`` in every other verdict).
    arguments:
        Its arguments of the ``max`` subcommand (:class:`Argument`), added by the
        command line and read back by :meth:`read_arguments`.
    check:
        Its refusals before the automaton is built: ``check(options, budget)``.
    prepare:
        Its refusals once the automaton is built, and the engine it runs on:
        ``prepare(options, engine, automaton) -> engine``.
    refuse:
        The refusal when its options go to another strategy or route ``user``:
        ``refuse(user, given) -> message`` (``given``: its options that were set).
    """

    name: str
    describe: str
    run: Callable[[Search], SearchResult]
    options: type[Any] | None = None
    solver: str | None = None
    progress: tuple[str, str] = EXPLORING
    json_fields: tuple[str, ...] = ()
    arguments: tuple[Argument, ...] = ()
    check: Callable[[Any, Budget], None] = lambda options, budget: None
    prepare: Callable[[Any, Engine, GrundyAutomaton], Engine] = _keep_engine
    refuse: Callable[[str, Mapping[str, Any]], str] | None = None

    @property
    def defaults(self) -> dict[str, Any]:
        """Its options' keywords with the values that mean "not given"."""
        if self.options is None:
            return {}
        return {f.name: f.default for f in dataclasses.fields(self.options)}

    def read_arguments(self, args: argparse.Namespace) -> dict[str, Any]:
        """Its options as the command line's ``args`` give them (``max_grundy`` keywords)."""
        return {a.field: getattr(args, a.field) for a in self.arguments}

    def given(self, keywords: Mapping[str, Any]) -> dict[str, Any]:
        """Its options among ``keywords`` that are set (differ from their defaults)."""
        return {k: keywords[k] for k, v in self.defaults.items()
                if k in keywords and keywords[k] != v}

    def make_options(self, keywords: Mapping[str, Any]) -> Any:
        """Its options from ``keywords`` (``None`` for a strategy without options)."""
        if self.options is None:
            return None
        return self.options(**{k: keywords[k] for k in self.defaults if k in keywords})

    def refusal(self, user: str, keywords: Mapping[str, Any]) -> str | None:
        """Why ``user`` (another strategy or a route) cannot take the options of this
        strategy set in ``keywords``, or ``None`` when none is set."""
        given = self.given(keywords)
        if not given:
            return None
        if self.refuse is not None:
            return self.refuse(user, given)
        return (f"{', '.join(given)} {'is an option' if len(given) == 1 else 'are options'} "
                f"of the {self.name} strategy; {user} does not take "
                f"{'it' if len(given) == 1 else 'them'}")


def refuse_states(name: str, budget: Budget, *, bounds: str = "") -> None:
    """The refusal of a state budget by strategy ``name``, which stores no states and is
    bounded by ``bounds`` (e.g. ``"a maximum length or "``) or seconds."""
    if budget.max_states is not None:
        raise InputError(f"the {name} strategy stores no states: bound it by {bounds}seconds, "
                         "not by states")
