"""Strategy ``dfs`` of Max-Grundy (SPEC §5): depth-first search, less memory.

It keeps only a hash set of the reached states and the current path (no
index, no parents): about a third less memory than :mod:`.bfs` for the same
states visited, but the witnesses are not shortest and an early stop may come
later or sooner than with bfs.  Both are linear in the reachable states; the
PSPACE bound of SPEC §5 would need iterative deepening without a visited set,
which takes time exponential in the number of states and is not offered.
"""

from __future__ import annotations

from ...errors import BudgetExceeded
from ...grammar.words import Word
from ...runtime.budget import Budget, Meter
from ..request import Search, SearchResult, nbytes
from .base import SearchStrategy

__all__ = ["STRATEGY"]


def _dfs(search: Search) -> SearchResult:
    """Depth-first search, on the engine the search names
    (:func:`sdg_automata.search.engines.run`; the Python reference: :func:`_dfs_python`)."""
    from ..engines import run

    return run(search, _dfs_python)


def _dfs_python(search: Search, budget: Budget) -> SearchResult:
    """Depth-first search keeping only a set of reached states and the current path.

    Not a crawl (the order is depth-first and no tree is kept), but the same
    budget (:class:`~sdg_automata.runtime.budget.Meter`) and the same witnesses
    (:meth:`GrundyAutomaton.witness` of the letters read).
    """
    walk, settled, witness = search.walk, search.settled, search.automaton.witness
    follow, value, letters = walk.follow, walk.value, walk.letters
    width = len(letters)
    meter: Meter = budget.start("search", unit="states")
    limit = budget.max_states
    cap = -1 if limit is None else limit
    seen = {walk.initial}
    path = [walk.initial]  # the states along the current path
    tried = [0]            # per path entry: how many of its letters were tried
    read: list[int] = []   # letters read along the path
    found: dict[int, str | Word] = {}
    deepest = 1
    due = meter.due
    try:
        while path:
            c = tried[-1]
            if c == width:
                path.pop()
                tried.pop()
                if read:
                    read.pop()
                continue
            tried[-1] = c + 1
            ns = follow(path[-1], letters[c])
            if ns < 0 or ns in seen:
                continue
            if len(seen) == cap:
                raise meter.exceeded(len(seen), f"{limit} states")
            seen.add(ns)
            if len(seen) >= due:
                due = meter.check(len(seen))
            v = value(ns)
            if v is not None and v not in found:
                found[v] = witness([*read, c])
                if settled(v):
                    return SearchResult(found=found, explored=len(seen), complete=False,
                                        peak_bytes=nbytes(seen) + deepest * 3 * 8, store="set")
            path.append(ns)
            tried.append(0)
            read.append(c)
            deepest = max(deepest, len(path))
    except KeyboardInterrupt:
        raise meter.interrupted(len(seen)) from None
    except MemoryError:
        n = len(seen)
        del seen, path, tried, read  # give the memory back before reporting
        raise BudgetExceeded(f"search ran out of memory after {n} states", explored=n) from None
    return SearchResult(found=found, explored=len(seen), complete=True,
                        peak_bytes=nbytes(seen) + deepest * 3 * 8, store="set")



#: the registry's entry (:data:`sdg_automata.search.strategies.STRATEGIES`)
STRATEGY = SearchStrategy(name="dfs", describe="keeps less in memory", run=_dfs,
                          reference=_dfs_python)
