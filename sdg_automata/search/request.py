"""What a Max-Grundy search strategy is asked and what it answers (SPEC §5).

The on-the-fly route of :func:`sdg_automata.search.decide.max_grundy` hands
every strategy of :mod:`sdg_automata.search.strategies` one :class:`Search`
(the automaton restricted to the cone of A, the question's k and m_A, the
budget, the constraint's tables, the engine and the options of the strategy and
of the engine) and takes back one :class:`SearchResult` (a witness per value
found, the states reached, how it ended, the strategy's :class:`Evidence` and
what ran it, :class:`EngineRun`).  The walk over M or M × within
(:class:`_Walk`), the user's word for the letters read (:func:`read_witness`)
and the size of the search's structures (:func:`nbytes`) are shared by the
strategies and by the engines of :mod:`sdg_automata.search.engines`.
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ..automaton.construction import GrundyAutomaton
from ..grammar.words import LONG_WORD, Word
from ..runtime.budget import Budget

if TYPE_CHECKING:
    from .compiled.tables import StepTables
    from .constraint import Constraint

    class VerdictFields(Protocol):
        """The common fields of a verdict (:class:`~sdg_automata.search.decide.Verdict`)
        that an :class:`Evidence` may read to word what it leaves open (a protocol for the
        type checker only: defining it costs start-up)."""

        @property
        def k(self) -> int | None: ...
        @property
        def answer(self) -> bool | None: ...
        @property
        def maximum(self) -> int | None: ...
        @property
        def exact(self) -> bool: ...
        @property
        def proof(self) -> str | None: ...

__all__ = ["EngineRun", "Evidence", "Search", "SearchResult", "nbytes", "power_witness",
           "read_witness"]



@dataclass(frozen=True)
class Evidence:
    """What a strategy adds to a :class:`~sdg_automata.search.decide.Verdict` beyond the
    common fields: a strategy's evidence class derives from this one.

    The command line and :mod:`sdg_automata.render` read a verdict's evidence through
    these methods only, never a strategy's fields by name.  The defaults say nothing:
    no JSON fields, no text of its own (the CLI and render then show the states
    explored), nothing left unsettled.
    """

    def to_json(self) -> dict[str, Any]:
        """The fields of the ``evidence`` object of the ``max`` command's ``--json``
        (besides ``strategy``, which the verdict gives): schema max/3 lists those of the
        published strategies, and takes any for others."""
        return {}

    def summary(self, proof: str | None) -> str | None:
        """The CLI's note after a verdict (in parentheses), for a verdict whose proof is
        ``proof``; ``None``: the states explored."""
        return None

    def searched(self) -> str | None:
        """What was searched, as :mod:`sdg_automata.render` says it; ``None``: the states."""
        return None

    def unsettled(self, verdict: VerdictFields) -> str | None:
        """What ``verdict`` leaves open by the strategy's own nature (a bounded search that
        found nothing beyond a length; a proof that failed its check), as the error line
        of an unsettled verdict says it; ``None``: nothing (a search of ours either
        settles the question or stops on its budget)."""
        return None

    def reached(self) -> int | None:
        """How far the search got, in the units its progress counts (the ``explored`` of
        the ``stopped/1`` object of an unsettled verdict); ``None``: not counted."""
        return None


class _Walk(NamedTuple):
    """The automaton a search walks: M itself, or M × within packed as q << shift | d.

    ``follow(s, letters[c])`` is the successor on letter c (``-1``: the
    constraint forbids it), as :func:`~sdg_automata.automaton.crawl.crawl` takes it;
    ``value(s)`` is 𝒢_A read off s where the constraint accepts, else ``None``.
    ``marks[v]`` is the bit of s meaning A^v ∈ q, and ``accepting`` (``None``:
    always) the constraint's acceptance: a search can test ``s & marks`` first
    and call nothing on most states.  Every s is below ``2**bits``.  (A named tuple: a
    dataclass's generated methods cost start-up.)
    """

    initial: int
    follow: Callable[[int, Any], int]
    letters: Sequence[Any]
    value: Callable[[int], int | None]
    marks: tuple[int, ...]
    accepting: Callable[[int], bool] | None
    bits: int


def _walk(automaton: GrundyAutomaton, head: str, within: Constraint | None) -> _Walk:
    step, grundy_at = automaton.step, automaton.grundy_at
    fields = automaton.value_bits(head)
    if within is None:
        return _Walk(initial=automaton.initial, follow=automaton.follow, letters=automaton.alphabet,
                     value=partial(grundy_at, head=head), marks=fields, accepting=None,
                     bits=len(automaton.items))
    shift = within.size.bit_length()
    dmask = (1 << shift) - 1
    final = within.final

    def follow(s: int, letter: tuple[array[int], str]) -> int:
        row, a = letter
        nd = row[s & dmask]
        # a dead constraint state: no word through here is allowed
        return step(s >> shift, a) << shift | nd if nd >= 0 else -1

    def value(s: int) -> int | None:
        return grundy_at(s >> shift, head) if final[s & dmask] else None

    return _Walk(initial=automaton.initial << shift | within.initial, follow=follow,
                 letters=[(within.rows[a], a) for a in automaton.alphabet], value=value,
                 marks=tuple(m << shift for m in fields),
                 accepting=lambda s: bool(final[s & dmask]), bits=len(automaton.items) + shift)


@dataclass(frozen=True, eq=False, repr=False, kw_only=True)
class Search:
    """What a search strategy is asked: the values of A on the walk, until settled.

    Compared by identity and shown by its default ``repr`` (it holds the whole automaton;
    each generated method costs start-up).

    Attributes
    ----------
    automaton, head, k, bound:
        M (restricted to the cone of A), A, the question's k (or ``None``), m_A.
    budget:
        States and seconds (every strategy counts the states it reaches).
    constraint:
        The constraint's tables (strategies that read the relation, not ``walk``).
    strategy:
        The strategy's name (which implementation an engine runs).
    engine:
        The engine asked for (a name of :data:`sdg_automata.search.engines.ENGINES`, or
        ``"auto"``); while an engine runs the search, that engine's name (sat and pdr run
        solvers).
    options:
        The strategy's own options (its ``options`` class, e.g. the sat strategy's longest
        word), or ``None``.
    engine_options:
        The options of the engine named by ``engine`` (its ``options`` class, e.g. the
        dask engine's scheduler), or ``None``.
    """

    automaton: GrundyAutomaton
    head: str
    k: int | None
    bound: int
    budget: Budget
    constraint: Constraint | None = None
    strategy: str = "bfs"
    engine: str = "auto"
    options: Any = None
    engine_options: Any = None

    @cached_property
    def walk(self) -> _Walk:
        """The automaton searched (M, or M × the constraint)."""
        return _walk(self.automaton, self.head, self.constraint)

    def settled(self, value: int) -> bool:
        """Whether seeing ``value`` settles the question (SPEC §5)."""
        return value >= self.settle

    @property
    def settle(self) -> int:
        """The least value that settles the question (values never exceed m_A)."""
        return self.bound if self.k is None else min(self.bound, self.k + 1)

    def tables(self) -> StepTables:
        """The compiled step of the automaton (:mod:`sdg_automata.search.compiled.tables`)."""
        from .compiled.tables import StepTables

        return StepTables(self.automaton)

    def constraint_arrays(self) -> tuple[int, Any, bytes] | None:
        """The constraint as the kernels take it: (initial, rows[k][d], final)."""
        c = self.constraint
        if c is None:
            return None
        import numpy as np

        rows = np.array([c.rows[a] for a in self.automaton.alphabet], dtype=np.int32)
        return c.initial, rows.reshape(len(self.automaton.alphabet), c.size), c.final


@dataclass(frozen=True, kw_only=True)
class EngineRun:
    """What explored a search: the engine, the store of its states, its workers.

    Attributes
    ----------
    name:
        The engine that ran (a name of :data:`sdg_automata.search.engines.ENGINES`;
        for the explicit route, the engine of the exploration: ``"python"`` or
        ``"compiled"``).
    store:
        What held the states reached: ``"packed"`` (the Python bfs's
        :class:`~sdg_automata.search.packed.PackedStates`), ``"set"`` (the Python
        dfs's), ``"table"`` (the kernels' records and table; the dask engine's
        shards), ``"compact"`` (the exact Cleary table), an engine's own word, or
        ``None``: no visited set (lasso keeps O(1) states; the explicit route's
        reachable automaton).
    workers:
        The processes that held the states (the dask engine's shards), or ``None``:
        this one.
    """

    name: str
    store: str | None = None
    workers: int | None = None

    def to_json(self) -> dict[str, Any]:
        """The ``engine`` object of the ``max`` command's ``--json``."""
        return {"name": self.name, "store": self.store, "workers": self.workers}


@dataclass(frozen=True, eq=False, kw_only=True)
class SearchResult:
    """What a strategy found: a witness per value, states reached, and how it ended.

    ``complete`` says that no other value occurs, shown as ``proof`` says; the
    other fields go into the :class:`~sdg_automata.search.decide.Verdict` as they are,
    ``evidence`` (the strategy's own, or ``None``) among them.  An engine's
    implementation says what held the states (``store``) and on how many processes
    (``workers``); the dispatch (:func:`sdg_automata.search.engines.run`) then sets
    ``engine``, which stays ``None`` where no engine of ours ran (the solvers).  Results
    are compared through their verdicts, so by identity here (each generated method costs
    start-up).
    """

    found: dict[int, str | Word]
    explored: int
    complete: bool
    peak_bytes: int | None
    store: str | None = None
    workers: int | None = None
    engine: EngineRun | None = None
    proof: str = "exhaustive"
    evidence: Evidence | None = None


def read_witness(automaton: GrundyAutomaton, read: Sequence[int]) -> str | Word:
    """The user's word for the letters (indices) read from q₀: a ``str``, or a
    :class:`~sdg_automata.grammar.words.Word` when longer than :data:`LONG_WORD`."""
    if len(read) <= LONG_WORD:
        return automaton.witness(read)
    runs = Word.of(automaton.alphabet[c] for c in read)
    return runs if automaton.reading.mirrored else runs.reversed()


def power_witness(automaton: GrundyAutomaton, letter: int, n: int) -> str | Word:
    """aⁿ for the letter of index ``letter``, in the user's order (the same either way): a
    ``str``, or a :class:`~sdg_automata.grammar.words.Word` when longer than
    :data:`LONG_WORD`."""
    a = automaton.alphabet[letter]
    return Word.power(a, n) if n > LONG_WORD else a * n


def nbytes(*structures: Any) -> int:
    """Bytes held by ``structures`` (and, for lists, sets and dicts, by their items)."""
    total = 0
    for obj in structures:
        total += sys.getsizeof(obj)
        if isinstance(obj, (list, set, dict)):
            total += sum(sys.getsizeof(x) for x in obj)
    return total
