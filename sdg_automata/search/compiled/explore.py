"""The compiled exploration of the Step 1–5 automaton (SPEC §4), reached through the registry.

:meth:`GrundyAutomaton.explore <sdg_automata.automaton.construction.GrundyAutomaton.explore>`
is the automaton's own, pure-Python crawl; its compiled twin is :func:`crawl_compiled`,
the breadth-first driver of :mod:`sdg_automata.search.compiled.drive` with transition rows, over
states kept as part ids.  The automaton may not import it (it sits below the kernels):
it reaches it by name, as ``COMPILED["explore"]`` of :mod:`sdg_automata.runtime.engines`,
whose auto policy chooses between the two.
"""

from __future__ import annotations

from array import array
from typing import TYPE_CHECKING, Any

from ...runtime.engines import Unfit
from ..engines.compiled import ENGINE
from .drive import breadth_first
from .stores import _Store
from .tables import StepTables

if TYPE_CHECKING:
    from ...automaton.construction import GrundyAutomaton
    from ...automaton.crawl import Crawl
    from ...runtime.budget import Budget

__all__ = ["crawl_compiled"]


def crawl_compiled(automaton: GrundyAutomaton, budget: Budget, *, what: str) -> Crawl:
    """:meth:`GrundyAutomaton.explore <sdg_automata.automaton.construction.GrundyAutomaton.explore>`
    on the kernels (``COMPILED["explore"]`` of :mod:`sdg_automata.runtime.engines`): the
    states of :func:`~sdg_automata.automaton.crawl.crawl`, in the same order, kept as
    part ids (:class:`~sdg_automata.search.compiled.tables.PartStates`).

    Raises
    ------
    Unfit
        When the kernels cannot take ``automaton`` (the ``compiled`` search engine's
        scope, :meth:`~sdg_automata.search.engines.base.SearchEngine.unfit`).
    """
    from ...automaton.crawl import Crawl
    from .tables import PartStates

    why = ENGINE.unfit(automaton)
    if why is not None:
        raise Unfit(why)
    tables = StepTables(automaton)
    walked = breadth_first(tables, budget, what=what, rows=True)
    store, n = walked.store, walked.states
    assert isinstance(store, _Store)  # rows: the record store
    assert store.parent is not None and store.via is not None
    assert store.rows is not None
    letters = len(automaton.alphabet)
    try:
        rows = tuple(_int_array("i", store.rows.array[:n, k]) for k in range(letters))
        parent = _int_array("i", store.parent.array[:n])
        parent[0] = -1
        via = _int_array("b" if letters < 128 else "l", store.via.array[:n])
        via[0] = -1  # as crawl's: the root was reached by no letter
        records = store.records.copy(n)
    finally:
        store.close()
    states = PartStates(tables, records)
    return Crawl(states=states, index=states.inverse, parent=parent, via=via, rows=rows,
                 complete=True)


def _int_array(code: str, values: Any) -> array[int]:
    """A numpy vector as an ``array`` of Python ints (one copy, no per-item objects)."""
    out = array(code)
    out.frombytes(values.astype(code).tobytes())  # numpy's and array's codes agree
    return out
