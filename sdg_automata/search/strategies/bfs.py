"""Strategy ``bfs`` of Max-Grundy (SPEC §5): breadth-first search, shortest witnesses.

It keeps every reached state with its breadth-first parent, so witnesses are
shortest words.  Memory: the states packed in a
:class:`~sdg_automata.search.packed.PackedStates` (fixed-width records, about 65
bytes per state on the hardness family), the frontier, two small int arrays.
On the compiled engine its visited set is a store of
:func:`sdg_automata.search.compiled.drive.breadth_first`: ``table`` (records in memory, the
fastest) or ``compact`` (:class:`~sdg_automata.search.compiled.drive.CompactStore`, a few
bytes per state), its one option (``store=``, ``--store``).  It is the default
strategy, but for one-letter walks (:mod:`.lasso`).
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...automaton.construction import GrundyAutomaton
from ...automaton.crawl import tree_path
from ...errors import BudgetExceeded, InputError
from ...grammar.words import LONG_WORD, Word
from ...runtime.budget import Budget, Meter
from ..packed import PackedStates
from ..request import Evidence, Search, SearchResult, nbytes, read_witness
from .base import Argument, SearchStrategy

if TYPE_CHECKING:
    from ...runtime.engines import Engine

__all__ = ["STRATEGY", "BfsEvidence", "BfsOptions"]


@dataclass(frozen=True)
class BfsOptions:
    """The visited set of the compiled search: ``"table"`` (default) or ``"compact"``."""

    store: str = "table"


@dataclass(frozen=True)
class BfsEvidence(Evidence):
    """The store a compiled breadth-first search ran on (``"table"`` or ``"compact"``;
    ``"table"`` when the compact one was asked for but the states did not fit its keys).
    Not in the JSON (a new field would be a new schema version)."""

    store: str | None = None


#: its command-line argument: the store
ARGUMENTS = (Argument(
    flag="--store", field="store", choices=("table", "compact"),
    help="the visited set of the compiled breadth-first search: table (default; records in "
         "memory, the fastest) or compact (an exact Cleary table of the states' keys, a few "
         "bytes per state, frontier and tree in temporary files); the same answer and "
         "witnesses"),)


def _refuse(user: str, given: Mapping[str, Any]) -> str:
    """A store for a route (which builds DFAs and stores nothing of ours), for another
    strategy, or an unknown store, whoever asks."""
    from ..compiled.drive import STORES

    store = given["store"]
    if user.endswith(" route"):
        return (f"the {store} store is the on-the-fly breadth-first search's; {user} builds "
                "every M_{A,i} with automata-lib")
    if store not in STORES:
        return f"unknown store {store!r} (choose from {', '.join(STORES)})"
    return (f"the {store} store is the compiled breadth-first search's: it goes with "
            "strategy bfs and engine compiled or auto")


def _prepare(options: BfsOptions, engine: Engine, automaton: GrundyAutomaton) -> Engine:
    """The compact store is the compiled engine's: refused with Python, asked for by name
    under auto (which would take Python for a small automaton)."""
    from ..compiled.drive import STORES, unfit

    store = options.store
    if store not in STORES or store != "table" and engine == "python":
        raise InputError(_refuse("bfs", {"store": store}))
    if store != "table" and engine == "auto" and unfit(automaton) is None:
        return "compiled"
    return engine


def _bfs(search: Search) -> SearchResult:
    """Breadth-first search; shortest witnesses (:func:`_bfs_python`, or compiled)."""
    return search.run(_bfs_python, _bfs_compiled)


def _bfs_compiled(search: Search, budget: Budget) -> SearchResult:
    """:func:`_bfs_python` on the kernels:
    :func:`sdg_automata.search.compiled.drive.breadth_first`."""
    from ..compiled.drive import breadth_first
    from ..compiled.stores import CompactStore

    walked = breadth_first(search.tables(), budget, constraint=search.constraint_arrays(),
                           head=search.head, bound=search.bound, settle=search.settle,
                           store="table" if search.options is None else search.options.store)
    store = walked.store
    assert store is not None
    try:
        if isinstance(store, CompactStore):
            found = {v: _runs_witness(search.automaton, *store.runs(u))
                     for v, u in walked.found.items()}
        else:
            assert store.parent is not None and store.via is not None
            found = {v: _tree_witness(search.automaton, store.parent.array, store.via.array, u)
                     for v, u in walked.found.items()}
    finally:
        store.close()
    return SearchResult(found=found, explored=walked.states, complete=walked.complete,
                         peak_bytes=walked.peak_bytes,
                         evidence=BfsEvidence(store=walked.store_kind))


def _tree_witness(automaton: GrundyAutomaton, parent: Any, via: Any, s: int) -> str | Word:
    """The user's word along the breadth-first tree to ``s``: a ``str``, or a
    :class:`~sdg_automata.grammar.words.Word` when longer than :data:`LONG_WORD` (run-length,
    never spelled out)."""
    if isinstance(parent, array):
        return read_witness(automaton, tree_path(parent, via, s))
    from ...kernels.automaton import tree_runs  # the kernels' arrays: the runs, compiled

    return _runs_witness(automaton, *tree_runs(parent, via, s))


def _runs_witness(automaton: GrundyAutomaton, letters: Any, counts: Any) -> str | Word:
    """:func:`_tree_witness` of a path given as runs (letter indices, counts) in the
    order read, as the kernels give it."""
    if int(counts.sum()) <= LONG_WORD:
        return automaton.witness([int(c) for c, m in zip(letters, counts, strict=True)
                                  for _ in range(int(m))])
    runs = Word.from_runs((automaton.alphabet[c], int(m))
                          for c, m in zip(letters.tolist(), counts.tolist(), strict=True))
    return runs if automaton.reading.mirrored else runs.reversed()


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
    return SearchResult(found={v: _tree_witness(search.automaton, parent, via, u)
                                for v, u in found_at.items()},
                         explored=t + 1, complete=not stopped,
                         peak_bytes=store.nbytes + nbytes(parent, via, frontier))



#: the registry's entry (:data:`sdg_automata.search.strategies.STRATEGIES`)
STRATEGY = SearchStrategy(
    name="bfs", describe="shortest witnesses", run=_bfs, options=BfsOptions,
    arguments=ARGUMENTS, prepare=_prepare, refuse=_refuse)
