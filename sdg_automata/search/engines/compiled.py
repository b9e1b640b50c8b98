"""The ``compiled`` and ``compact`` engines: the numba kernels over part-id states.

Both walk the automaton as vectors of per-group part ids
(:class:`~sdg_automata.search.compiled.tables.StepTables`) with the kernels of
:mod:`sdg_automata.kernels.automaton` and :mod:`sdg_automata.kernels.compact`,
driven by :mod:`sdg_automata.search.compiled.drive`; they differ in where the states
reached are kept (:mod:`sdg_automata.search.compiled.stores`):

* ``compiled`` — the table store: an open-addressing table of the states' packed keys
  (or of record numbers, when a state's ids need more than a word), the breadth-first
  tree; the fastest.  It runs bfs, dfs and lasso,
  and is ``auto``'s second stage (past ``THRESHOLDS["walk states"]`` states);
* ``compact`` — the exact Cleary table of the states' keys, a few bytes per state,
  frontier and tree in temporary files (bfs only; only by name).  Its keys hold at
  most 64 bits: a search whose ids outgrow them goes on, from the start, on the
  ``compiled`` engine.

This module is the engines' entry: it imports no kernel, no numpy.  Each run
function imports its driver when it runs, so listing the engines (``max --help``)
or choosing another costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...grammar.words import LONG_WORD, Word
from ..request import Search, SearchResult, power_witness
from .base import Auto, SearchEngine

if TYPE_CHECKING:
    from ...automaton.construction import GrundyAutomaton
    from ...runtime.budget import Budget
    from ..constraint import Constraint

__all__ = ["COMPACT", "ENGINE", "MAX_GROUPS", "one_group"]

#: the widest state the kernels take: this many groups (plus one for a constraint)
MAX_GROUPS = 255


def one_group(automaton: GrundyAutomaton, constraint: Constraint | None = None) -> str | None:
    """Why the kernels cannot take ``automaton``: its nonterminals form one group (the
    step would learn every state from Python); ``None`` otherwise."""
    if automaton.layout is None:
        return ("its nonterminals form one group, so the compiled step would learn every "
                "state from Python")
    return None


def _numba() -> str | None:
    """Why the kernels cannot run here (numba missing or broken), or ``None``."""
    from ...runtime.engines import numba_missing

    reason = numba_missing()
    if reason is None:
        return None
    return f"needs numba: {reason} (pip install numba, or --engine python)"


def _runs_witness(automaton: GrundyAutomaton, letters: Any, counts: Any) -> str | Word:
    """The user's word for a path given as runs (letter indices, counts) in the order
    read, as the kernels give it: a ``str``, or a
    :class:`~sdg_automata.grammar.words.Word` when longer than :data:`LONG_WORD`."""
    if int(counts.sum()) <= LONG_WORD:
        return automaton.witness([int(c) for c, m in zip(letters, counts, strict=True)
                                  for _ in range(int(m))])
    runs = Word.from_runs((automaton.alphabet[c], int(m))
                          for c, m in zip(letters.tolist(), counts.tolist(), strict=True))
    return runs if automaton.reading.mirrored else runs.reversed()


def _breadth_first(search: Search, budget: Budget, store: str) -> SearchResult:
    """The bfs strategy on the kernels over ``store``:
    :func:`sdg_automata.search.compiled.drive.breadth_first`."""
    from ...kernels.bfs_native import tree_runs
    from ..compiled.drive import breadth_first
    from ..compiled.stores import CompactStore

    walked = breadth_first(search.tables(), budget, constraint=search.constraint_arrays(),
                           head=search.head, bound=search.bound, settle=search.settle,
                           store=store)
    kept = walked.store
    assert kept is not None
    try:
        if isinstance(kept, CompactStore):
            found = {v: _runs_witness(search.automaton, *kept.runs(u))
                     for v, u in walked.found.items()}
        else:
            assert kept.parent is not None and kept.via is not None
            found = {v: _runs_witness(search.automaton,
                                      *tree_runs(kept.parent.array, kept.via.array, u))
                     for v, u in walked.found.items()}
    finally:
        kept.close()
    return SearchResult(found=found, explored=walked.states, complete=walked.complete,
                        peak_bytes=walked.peak_bytes, store=store)


def _bfs(search: Search, budget: Budget) -> SearchResult:
    """bfs on the table store."""
    return _breadth_first(search, budget, "table")


def _bfs_compact(search: Search, budget: Budget) -> SearchResult:
    """bfs on the compact store (ids outgrowing 64 bits: ``Unfit``, the compiled engine)."""
    return _breadth_first(search, budget, "compact")


def _dfs(search: Search, budget: Budget) -> SearchResult:
    """The dfs strategy on the kernels: :func:`sdg_automata.search.compiled.drive.depth_first`."""
    from ..compiled.drive import depth_first

    walked = depth_first(search.tables(), budget, constraint=search.constraint_arrays(),
                         head=search.head, bound=search.bound, settle=search.settle)
    witness = search.automaton.witness
    return SearchResult(found={v: witness(read) for v, read in walked.found.items()},
                        explored=walked.states, complete=walked.complete,
                        peak_bytes=walked.peak_bytes, store="table")


def _lasso(search: Search, budget: Budget, *, letter: int) -> SearchResult:
    """The lasso strategy on the kernels: :func:`sdg_automata.search.compiled.drive.lasso`."""
    from ..compiled.drive import lasso

    walked = lasso(search.tables(), budget, letter=letter,
                   constraint=search.constraint_arrays(), head=search.head, bound=search.bound,
                   settle=search.settle)
    return SearchResult(found={v: power_witness(search.automaton, letter, n)
                               for v, n in walked.found.items()},
                        explored=walked.states, complete=walked.complete,
                        peak_bytes=walked.peak_bytes)


#: the registry's entry of the kernels over the table store
ENGINE = SearchEngine(
    name="compiled", describe="the numba kernels over a table store (the fastest)",
    implements={"bfs": _bfs, "dfs": _dfs, "lasso": _lasso}, groups=MAX_GROUPS,
    fits=one_group, requires=("numba",), available=_numba,
    auto=Auto(stage=1),
    native={"bfs": "bfs_native", "dfs": "records_native", "lasso": "lasso_native"},
    fallback="python")

#: the registry's entry of the kernels over the exact compact store
COMPACT = SearchEngine(
    name="compact",
    describe="bfs on the numba kernels over an exact compact store: a few bytes per state, "
             "frontier and tree in temporary files; the same answer and witnesses",
    # key_bits: the compact store's MAX_KEY_BITS (its keys are uint64), written out so that
    # listing the engines imports no store
    implements={"bfs": _bfs_compact}, groups=MAX_GROUPS, key_bits=64, fits=one_group,
    requires=("numba",), available=_numba, native={"bfs": "compact_native"},
    fallback="compiled")
