"""Strategy ``bfs`` of Max-Grundy (SPEC §5): breadth-first search, shortest witnesses.

It keeps every reached state with its breadth-first parent, so witnesses are
shortest words.  Memory, in Python (:func:`_bfs_python`, the reference): the states
packed in a :class:`~sdg_automata.search.packed.PackedStates` (fixed-width records,
about 65 bytes per state on the hardness family), the frontier, two small int arrays.
Every engine runs it (:mod:`sdg_automata.search.engines`): the kernels over a table
store (``compiled``) or the exact compact store (``compact``, a few bytes per state),
and sharded over a Dask cluster (``dask``).  It is the default strategy, but for
one-letter walks (:mod:`.lasso`).
"""

from __future__ import annotations

from array import array
from collections import deque

from ...automaton.crawl import tree_path
from ...errors import BudgetExceeded
from ...runtime.budget import Budget, Meter
from ..packed import PackedStates
from ..request import Search, SearchResult, nbytes, read_witness
from .base import SearchStrategy

__all__ = ["STRATEGY"]


def _bfs(search: Search) -> SearchResult:
    """Breadth-first search; shortest witnesses, on the engine the search names
    (:func:`sdg_automata.search.engines.run`; the Python reference: :func:`_bfs_python`)."""
    from ..engines import run

    return run(search, _bfs_python)


def _bfs_python(search: Search, budget: Budget) -> SearchResult:
    """Breadth-first search; shortest witnesses.

    :func:`~sdg_automata.automaton.crawl.crawl`'s loop written out for the search (issue
    11): the states reached in a :class:`~sdg_automata.search.packed.PackedStates`,
    the frontier as ints in a queue, the tree in two arrays, and a new state
    costs one AND against the marks of the values not seen yet, with no call
    unless it shows one.
    """
    walk, settled = search.walk, search.settled
    follow, marks, accepting = walk.follow, walk.marks, walk.accepting
    meter: Meter = budget.start("search", unit="states")
    limit = budget.max_states
    cap = -1 if limit is None else limit  # numbering state `cap` would exceed the budget
    width = len(walk.letters)
    store = PackedStates(walk.bits)
    store.add(walk.initial)
    add = store.add
    frontier = deque([walk.initial])  # only the states reached but not expanded, as ints
    parent = array("i", [-1])  # 4 bytes: up to 2³¹ states, far beyond any memory here
    via = array("b" if width < 128 else "l", [-1])
    found_at: dict[int, int] = {}
    unseen = 0  # the marks of the values not found yet
    for m in marks:
        unseen |= m
    numbered = list(enumerate(walk.letters))
    due = meter.due  # paced on the states expanded, where the time goes (as in crawl)
    sid = t = 0  # the number of the state expanded, of the last state reached
    stopped = False
    try:
        while frontier and not stopped:
            if sid >= due:
                due = meter.check(t, step=sid)
            q = frontier.popleft()
            for k, a in numbered:
                ns = follow(q, a)
                if ns < 0 or not add(ns):
                    continue
                t += 1
                if t == cap:
                    raise meter.exceeded(t, f"{limit} states")
                frontier.append(ns)
                parent.append(sid)
                via.append(k)
                if ns & unseen and (accepting is None or accepting(ns)):
                    v = next(v for v, m in enumerate(marks) if ns & m & unseen)
                    found_at[v] = t
                    unseen &= ~marks[v]
                    if settled(v):
                        stopped = True
                        break
            sid += 1
    except KeyboardInterrupt:
        raise meter.interrupted(t + 1) from None
    except MemoryError:
        n = t + 1
        del store, frontier, parent, via  # give the memory back before reporting
        raise BudgetExceeded(f"search ran out of memory after {n} states", explored=n) from None
    return SearchResult(found={v: read_witness(search.automaton, tree_path(parent, via, u))
                               for v, u in found_at.items()},
                        explored=t + 1, complete=not stopped,
                        peak_bytes=store.nbytes + nbytes(parent, via, frontier), store="packed")



#: the registry's entry (:data:`sdg_automata.search.strategies.STRATEGIES`)
STRATEGY = SearchStrategy(name="bfs", describe="shortest witnesses", run=_bfs,
                          reference=_bfs_python)
