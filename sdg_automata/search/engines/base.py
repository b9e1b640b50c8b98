"""What a search engine is: :class:`SearchEngine`, the entry of the registry
:data:`sdg_automata.search.engines.ENGINES`.

An engine is one way of running an explicit-state search of Max-Grundy (SPEC §5):
the Python reference of each strategy, the numba kernels over a table store or over
the compact store, the sharded search over a Dask cluster, or the next one.  As a
networkx backend declares what it can run (``can_run``) and when it should
(``should_run``, its priority), an engine declares

* what it implements: for each strategy's name, its run function
  ``run(search, budget, **strategy_args) -> SearchResult`` (or, for the ``python``
  engine, the strategy's own reference);
* its scope: whether it takes a constraint, the largest alphabet, the widest state
  (in part-id groups), the widest packed key, and a hook for what these cannot say;
* whether it can run here (its modules installed; then loaded and working);
* when ``auto`` prefers it (a stage and the threshold that caps it), and which engine
  runs instead, after one :class:`~sdg_automata.errors.EngineNotice`, when it is
  named for a search it does not fit;
* its options and command-line arguments, as a strategy has them
  (:class:`~sdg_automata.search.options.Configurable`).

The one dispatch that reads these fields is :func:`sdg_automata.search.engines.run`.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple

from ..options import Configurable
from ..request import EngineRun

if TYPE_CHECKING:
    from ...automaton.construction import GrundyAutomaton
    from ...runtime.budget import Budget
    from ..constraint import Constraint
    from ..request import SearchResult

__all__ = ["Auto", "Runner", "SearchEngine"]

#: an engine's implementation of a strategy: ``run(search, budget, **strategy_args)``
Runner = Callable[..., "SearchResult"]


class Auto(NamedTuple):
    """When ``engine="auto"`` runs an engine: at ``stage`` (stages run in increasing
    order, each restarting the walk the one before outgrew), capped at
    ``THRESHOLDS[threshold]`` states of :data:`sdg_automata.runtime.engines.THRESHOLDS`
    (``None``: no cap, for the last stage).  A named tuple: a dataclass's generated
    methods cost start-up."""

    stage: int
    threshold: str | None = None


def _no_check(options: Any, budget: Budget) -> None:
    """An engine whose options need no refusal."""


@dataclass(frozen=True, kw_only=True, eq=False, repr=False)
class SearchEngine(Configurable):
    """One way of running an explicit-state search (see the module docstring).

    Its name, what ``--help`` says of it, its options, their arguments and its refusal
    of them are the fields of :class:`~sdg_automata.search.options.Configurable`.

    Attributes
    ----------
    implements:
        Strategy name → its run function ``run(search, budget, **strategy_args)``,
        given the :class:`~sdg_automata.search.request.Search` (whose ``engine`` is
        this engine and ``engine_options`` its options) and the budget to walk under.
    runs_reference:
        Runs every strategy's Python reference (``SearchStrategy.reference``): the
        ``python`` engine.
    constraints:
        Whether it takes a constraint (``within=``).
    letters:
        The largest alphabet it takes (``None``: any).
    groups:
        The widest state it takes, in part-id groups (``None``: any).
    key_bits:
        The widest packed key it takes, in bits; checked before it runs against the
        narrowest key a state can have (a bit per group, and the constraint's), and by
        the engine itself as ids grow, which raises
        :class:`~sdg_automata.runtime.engines.Unfit` (``None``: no key).
    fits:
        What the scope cannot say: ``fits(automaton, constraint) -> reason | None``.
    requires:
        Modules it needs installed (asked cheaply, by ``importlib.util.find_spec``,
        before ``auto`` starts).
    available:
        Why it cannot run here (a phrase after "the NAME engine", e.g. "needs numba:
        …"), or ``None``; may load its modules, so it is asked only when the engine is
        named, or when ``auto`` reaches its stage.
    auto:
        When ``auto`` runs it (:class:`Auto`), or ``None``: only by name.
    native:
        Strategy name → the native library its kernels are linked from when cached
        (:mod:`sdg_automata.kernels.native`, asked by
        :func:`~sdg_automata.runtime.engines.compiled` ``("native")``): then the engine
        loads without numba, so it is ready without asking :attr:`available`, and
        ``auto`` reaches it :data:`~sdg_automata.runtime.engines.NATIVE_GAIN` times
        sooner (:func:`sdg_automata.search.engines.run`).
    fallback:
        The engine that runs, after one :class:`~sdg_automata.errors.EngineNotice`, when
        this one is named but the search does not fit or it raises
        :class:`~sdg_automata.runtime.engines.Unfit` (or ``OverflowError``) mid-way;
        ``None``: such a search is refused.
    check:
        Its refusals of its options before any work: ``check(options, budget)``.
    describe_run:
        What ran, for the verdict (:class:`~sdg_automata.search.request.EngineRun`),
        from the result; ``None``: its name, with the store and workers its run
        function put in the result.
    """

    kind: ClassVar[str] = "engine"

    implements: Mapping[str, Runner] = field(default_factory=dict)
    runs_reference: bool = False
    constraints: bool = True
    letters: int | None = None
    groups: int | None = None
    key_bits: int | None = None
    fits: Callable[[GrundyAutomaton, Constraint | None], str | None] | None = None
    requires: tuple[str, ...] = ()
    available: Callable[[], str | None] = lambda: None
    auto: Auto | None = None
    native: Mapping[str, str] = field(default_factory=dict)
    fallback: str | None = None
    check: Callable[[Any, Budget], None] = _no_check
    describe_run: Callable[[SearchResult], EngineRun] | None = None

    def runner(self, strategy: str, reference: Runner | None) -> Runner | None:
        """Its run function for ``strategy`` (whose Python reference is ``reference``), or
        ``None`` when it does not implement it."""
        if self.runs_reference:
            return reference
        return self.implements.get(strategy)

    def present(self) -> bool:
        """Whether the modules it needs are installed (without importing them)."""
        return all(importlib.util.find_spec(m) is not None for m in self.requires)

    def unfit(self, automaton: GrundyAutomaton, constraint: Constraint | None = None
              ) -> str | None:
        """Why a search of ``automaton`` (× ``constraint``) is outside its scope (a
        phrase), or ``None`` when it fits."""
        if constraint is not None and not self.constraints:
            return f"the {self.name} engine takes no constraint"
        letters = len(automaton.alphabet)
        if self.letters is not None and letters > self.letters:
            return f"the grammar reads {letters} letters, over the {self.name} engine's " \
                   f"{self.letters}"
        layout = automaton.layout
        groups = 1 if layout is None else len(layout.owned)
        if self.groups is not None and groups > self.groups:
            return f"its states have {groups} groups, over the {self.name} engine's {self.groups}"
        bits = groups + (0 if constraint is None else constraint.size.bit_length())
        if self.key_bits is not None and bits > self.key_bits:
            return (f"a state's ids take at least {bits} bits, over the {self.name} engine's "
                    f"{self.key_bits}")
        return None if self.fits is None else self.fits(automaton, constraint)

    def ran(self, result: SearchResult) -> EngineRun:
        """What ran ``result`` (:attr:`describe_run`)."""
        if self.describe_run is not None:
            return self.describe_run(result)
        return EngineRun(name=self.name, store=result.store, workers=result.workers)
