"""The memoized step of Steps 1–5 as arrays: states as vectors of per-group part ids.

:meth:`GrundyAutomaton.step <sdg_automata.construction.GrundyAutomaton.step>`
splits the nonterminals into groups (:class:`~sdg_automata.construction.GroupLayout`)
and computes the part of δ(q, a) each group owns from a key of a few bits.
This module keeps that split for the compiled kernels
(:mod:`sdg_automata.kernels.automaton`):

* a state is a **vector of part ids**, one per group: each group's parts are
  interned in a small table (id 0 is the empty part), so a state of a few
  hundred bits is a few int32s — the tree (vector) compression that
  explicit-state model checkers use (LTSmin's; Laarman et al.), here with the
  memo's groups as the leaves;
* a step is, per group that reads something on the letter, one **projection**
  per input (the group's own old part, another group's old part such as E's,
  or the new part of a unit target's group) to a small id, then a chain of
  dense 2-D tables combining those ids into the group's new part id;
* every table is **learned lazily**: an entry the kernel does not know sends it
  back to Python, which computes δ(q, a) by
  :meth:`~sdg_automata.construction.GrundyAutomaton.step_reference` (the
  Steps 3–4 computation, kept whole) and records every group's entries
  (:meth:`StepTables.learn`); the kernel then resumes where it stopped.

All tables live in one int32 heap addressed by an int64 descriptor, so a
kernel takes two arrays for the whole step; Python grows a table by laying
the heap out again (doubling, so rarely).  An entry met twice must agree
(the key holds everything the part depends on): a disagreement is
:class:`~sdg_automata.errors.SdgBug`, never a wrong answer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from .budget import Budget
from .errors import BudgetExceeded, SdgBug

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .construction import GrundyAutomaton

__all__ = ["AUTO_STATES", "Growing", "PartStates", "StepTables", "Walked", "breadth_first",
           "depth_first", "lasso", "run_engine", "unfit"]

#: ids are int32: a part table (or a combination table) may hold at most this many entries
MAX_ID = (1 << 31) - 1


class _Table:
    """One dense table of the heap: ``rows × cols`` int32 entries, ``-1`` unknown."""

    __slots__ = ("cols", "offset", "rows")

    def __init__(self, rows: int, cols: int) -> None:
        self.rows, self.cols, self.offset = rows, cols, 0


class _Input:
    """One input of a group's key: the (old or new) part of group ``source``, projected."""

    __slots__ = ("ids", "mask", "new", "source", "table")

    def __init__(self, source: int, new: bool, mask: int, table: _Table) -> None:
        self.source, self.new, self.mask, self.table = source, new, mask, table
        self.ids: dict[int, int] = {}  # projection (an int) -> its id


class _Entry:
    """A group that reads something on a letter: its inputs and combining tables."""

    __slots__ = ("group", "inputs", "levels", "pairs")

    def __init__(self, group: int, inputs: list[_Input], levels: list[_Table]) -> None:
        self.group, self.inputs, self.levels = group, inputs, levels
        # per intermediate level: (combination id, projection id) -> combination id
        self.pairs: list[dict[tuple[int, int], int]] = [{} for _ in levels[:-1]]


class StepTables:
    """The compiled form of :meth:`GrundyAutomaton.step`'s memo (see the module docstring).

    Parameters
    ----------
    automaton:
        An automaton with a :attr:`~sdg_automata.construction.GrundyAutomaton.layout`
        (two groups or more).

    Attributes
    ----------
    groups:
        The number of groups G: a state is G part ids.
    initial:
        The vector of q₀.
    heap, plan, starts:
        The kernel's view: the int32 tables, the int64 descriptor, and where
        each letter's descriptor starts in ``plan``.  Replaced (not resized)
        when a table grows, so read them again after :meth:`learn`.
    """

    def __init__(self, automaton: GrundyAutomaton) -> None:
        import numpy as np

        layout = automaton.layout
        if layout is None:
            raise SdgBug("compiled step tables need a layout of two groups or more")
        self.automaton = automaton
        self.alphabet = automaton.alphabet
        self.owned = layout.owned
        self.groups = len(self.owned)
        self.parts: list[list[int]] = [[0] for _ in self.owned]
        self.index: list[dict[int, int]] = [{0: 0} for _ in self.owned]
        self._tables: list[_Table] = []
        self._letters: list[tuple[list[_Entry], int]] = []
        for a in self.alphabet:
            entries = []
            masks, uncovered = layout.letters[a]
            for mask, deps, owned in masks:
                g = self.owned.index(owned)
                sources = [(g, False, mask & owned)] if mask & owned else []
                sources += [(h, False, mask & o) for h, o in enumerate(self.owned)
                            if h != g and mask & o]
                sources += [(h, True, deps & o) for h, o in enumerate(self.owned) if deps & o]
                if (mask | deps) != sum(m for _, _, m in sources):
                    raise SdgBug("step tables: a key reads bits no group owns")
                inputs = [_Input(h, new, m, self._table(4, 1)) for h, new, m in sources]
                levels = [self._table(8, 4) for _ in range(max(1, len(inputs) - 1))]
                if len(inputs) == 1:
                    levels[0].cols = 1
                entries.append(_Entry(g, inputs, levels))
            self._letters.append((entries, uncovered))
        self._values: dict[str, tuple[int, npt.NDArray[np.int32]]] = {}
        self.initial = np.array(self.vector(automaton.initial), dtype=np.int32)
        self._layout_heap()

    # -- the heap ------------------------------------------------------------------------

    def _table(self, rows: int, cols: int) -> _Table:
        t = _Table(rows, cols)
        self._tables.append(t)
        return t

    def _layout_heap(self, old: npt.NDArray[np.int32] | None = None,
                     shapes: list[tuple[int, int, int]] | None = None) -> None:
        """Place every table in a new heap (copying ``old``'s entries) and write the plan."""
        import numpy as np

        size = 0
        for t in self._tables:
            t.offset, size = size, size + t.rows * t.cols
        heap = np.full(size, -1, dtype=np.int32)
        if old is not None and shapes is not None:
            for t, (offset, rows, cols) in zip(self._tables, shapes, strict=True):
                heap[t.offset:t.offset + t.rows * t.cols].reshape(t.rows, t.cols)[
                    :rows, :cols] = old[offset:offset + rows * cols].reshape(rows, cols)
        plan: list[int] = []
        starts = []
        for entries, _ in self._letters:
            starts.append(len(plan))
            plan.append(len(entries))
            for e in entries:
                plan += [e.group, len(e.inputs)]
                for i in e.inputs:
                    plan += [i.source, int(i.new), i.table.offset, i.table.rows]
                for t in e.levels:
                    plan += [t.offset, t.rows, t.cols]
        self.heap = heap
        self.plan = np.array(plan, dtype=np.int64)
        self.starts = np.array(starts, dtype=np.int64)

    def _ensure(self, t: _Table, row: int, col: int) -> None:
        """Make room for entry (row, col) of ``t`` (doubling), laying the heap out again."""
        if row < t.rows and col < t.cols:
            return
        if max(row, col) >= MAX_ID:
            raise OverflowError("a step table outgrew its int32 ids")
        shapes = [(u.offset, u.rows, u.cols) for u in self._tables]
        while t.rows <= row:
            t.rows *= 2
        while t.cols <= col:
            t.cols *= 2
        self._layout_heap(self.heap, shapes)

    def _set(self, t: _Table, row: int, col: int, value: int, what: str) -> None:
        self._ensure(t, row, col)
        at = t.offset + row * t.cols + col
        known = int(self.heap[at])
        if known < 0:
            self.heap[at] = value
        elif known != value:
            raise SdgBug(f"step tables: {what} gives two results ({known} and {value})")

    # -- parts ---------------------------------------------------------------------------

    def _intern(self, g: int, part: int) -> int:
        index = self.index[g]
        pid = index.get(part)
        if pid is None:
            pid = index[part] = len(self.parts[g])
            if pid >= MAX_ID:
                raise OverflowError("a group's part table outgrew its int32 ids")
            self.parts[g].append(part)
            for head, (group, table) in list(self._values.items()):
                if group == g:
                    self._value_of(head, pid, table)
        return pid

    def state(self, vector: Sequence[int]) -> int:
        """The bitset of the state with part ids ``vector`` (its first G entries)."""
        q = 0
        for g, parts in enumerate(self.parts):
            q |= parts[vector[g]]
        return q

    def vector(self, q: int) -> list[int]:
        """The part ids of state ``q``, interning its parts."""
        return [self._intern(g, q & owned) for g, owned in enumerate(self.owned)]

    def group_of(self, head: str) -> int:
        """The group owning the items A^v of ``head``."""
        bit = self.automaton.value_bits(head)[0]
        return next(g for g, owned in enumerate(self.owned) if owned & bit)

    def values(self, head: str) -> tuple[int, npt.NDArray[np.int32]]:
        """(group of A, ``table``): ``table[id]`` is 𝒢_A read off part ``id`` of that group
        (``-1``: no item A^v), kept up to date as parts are learned; read it again after
        :meth:`learn` (it is replaced when it grows)."""
        import numpy as np

        if head not in self._values:
            g = self.group_of(head)
            table = np.full(max(16, 2 * len(self.parts[g])), -1, dtype=np.int32)
            self._values[head] = (g, table)
            for pid in range(len(self.parts[g])):
                self._value_of(head, pid, table)
        return self._values[head]

    def _value_of(self, head: str, pid: int, table: npt.NDArray[np.int32]) -> None:
        import numpy as np

        g = self._values[head][0]
        if pid >= len(table):
            grown = np.full(2 * len(table), -1, dtype=np.int32)
            grown[:len(table)] = table
            table = grown
            self._values[head] = (g, table)
        v = self.automaton.grundy_at(self.parts[g][pid], head)
        table[pid] = -1 if v is None else v

    # -- learning ------------------------------------------------------------------------

    def learn(self, source: Sequence[int], k: int) -> list[int]:
        """δ(q, a) for the state with part ids ``source`` and letter ``alphabet[k]``, by
        :meth:`~sdg_automata.construction.GrundyAutomaton.step_reference`, recorded in
        every table the kernel reads for it; returns the new vector."""
        entries, uncovered = self._letters[k]
        q = self.state(source)
        out = self.automaton.step_reference(q, self.alphabet[k])
        if out & uncovered:
            raise SdgBug(f"step tables: letter {self.alphabet[k]!r} sets items outside its "
                         "groups")
        target = [self._intern(g, out & owned) for g, owned in enumerate(self.owned)]
        for e in entries:
            c = 0
            for j, i in enumerate(e.inputs):
                pid = (target if i.new else source)[i.source]
                projection = self.parts[i.source][pid] & i.mask
                p = i.ids.setdefault(projection, len(i.ids))
                self._set(i.table, pid, 0, p, "a projection")
                if j == 0:
                    c = p
                    if len(e.inputs) > 1:
                        continue
                    p = 0
                level = max(0, j - 1)
                last = level == len(e.levels) - 1
                if last:
                    nxt = target[e.group]
                else:
                    pairs = e.pairs[level]
                    nxt = pairs.setdefault((c, p), len(pairs))
                self._set(e.levels[level], c, p, nxt,
                          f"letter {self.alphabet[k]!r}, group {e.group}")
                c = nxt
        return target

    def memo_entries(self) -> int:
        """Entries learned in all tables (for reports)."""
        return int((self.heap >= 0).sum())

    @property
    def part_counts(self) -> list[int]:
        """How many parts each group has interned."""
        return [len(p) for p in self.parts]


class PartStates(Sequence[int]):
    """States stored as rows of part ids, seen as their bitsets (``states[s]`` is an int).

    The reachable states of a compiled exploration: ``records[s]`` holds the
    part ids of state s, and the bitset is rebuilt on access.
    """

    def __init__(self, tables: StepTables, records: npt.NDArray[np.int32]) -> None:
        self.tables = tables
        self.records = records

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, s: Any) -> Any:
        if isinstance(s, slice):
            return [self[i] for i in range(*s.indices(len(self)))]
        return self.tables.state(self.records[s].tolist())

    def __iter__(self) -> Iterator[int]:
        parts = self.tables.parts
        for row in self.records.tolist():
            q = 0
            for g, pid in enumerate(row):
                q |= parts[g][pid]
            yield q

    @property
    def inverse(self) -> Mapping[int, int]:
        """The inverse of this sequence (built on first use: nothing in the package needs
        it, but a :class:`~sdg_automata.crawl.Crawl` offers it)."""
        return _Index(self)

    def grundy(self, head: str) -> list[int | None]:
        """𝒢_A read off every state (``None`` where A has no item), without building them."""
        g, table = self.tables.values(head)
        return [None if v < 0 else v for v in table[self.records[:, g]].tolist()]


class _Index(Mapping[int, int]):
    """``{state: number}`` of a :class:`PartStates`, built when first read."""

    def __init__(self, states: PartStates) -> None:
        self._states = states
        self._map: dict[int, int] | None = None

    def _built(self) -> dict[int, int]:
        if self._map is None:
            self._map = {q: s for s, q in enumerate(self._states)}
        return self._map

    def __getitem__(self, q: int) -> int:
        return self._built()[q]

    def __iter__(self) -> Iterator[int]:
        return iter(self._built())

    def __len__(self) -> int:
        return len(self._states)


# ---------------------------------------------------------------------------
# arrays that grow in place


class Growing:
    """A numpy array of ``capacity`` rows backed by anonymous memory that grows in place.

    The memory is an anonymous private ``mmap``: pages cost nothing until they
    are written, and :meth:`grow` remaps (``mremap``) instead of copying, so
    a store that doubles never holds two copies and never touches the rows it
    has not filled (numpy's own ``resize`` zero-fills them).  Call :attr:`array`
    again after :meth:`grow`; no view may be kept across it.
    """

    def __init__(self, dtype: Any, tail: tuple[int, ...], capacity: int) -> None:
        import numpy as np

        self.dtype = np.dtype(dtype)
        self.tail = tail
        self.row_bytes: int = int(self.dtype.itemsize) * max(1, _prod(tail))
        self.capacity = 0
        self._map: Any = None
        self._array: Any = None
        self.grow(capacity)

    def grow(self, capacity: int) -> None:
        """At least ``capacity`` rows (contents kept; new rows are zero)."""
        import mmap

        if capacity <= self.capacity:
            return
        size = max(mmap.PAGESIZE, capacity * self.row_bytes)
        self._array = None  # the view must go before the map can move
        if self._map is None:
            self._map = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)
        else:
            self._map.resize(size)
        self.capacity = capacity

    @property
    def array(self) -> Any:
        import numpy as np

        if self._array is None:
            flat = np.frombuffer(self._map, dtype=self.dtype,
                                 count=self.capacity * max(1, _prod(self.tail)))
            self._array = flat.reshape((self.capacity, *self.tail))
        return self._array

    def clear(self) -> None:
        """Zero every row (the memory is touched: only for arrays about to be filled)."""
        self.array[...] = 0

    def copy(self, rows: int) -> Any:
        """The first ``rows`` rows as an ordinary numpy array."""
        return self.array[:rows].copy()

    def close(self) -> None:
        self._array = None
        if self._map is not None:
            self._map.close()
            self._map = None


def _prod(shape: tuple[int, ...]) -> int:
    out = 1
    for x in shape:
        out *= x
    return out


# ---------------------------------------------------------------------------
# the walks: drivers of the kernels in sdg_automata.kernels.automaton

#: a kernel call is sized to take about this long, so that budgets, progress and Ctrl-C
#: are served at least this often (plus one step table's learning)
QUANTUM_SECONDS = 0.05
#: memory (:meth:`~sdg_automata.budget.Meter.check_memory`) is checked this often
_MEMORY_SECONDS = 0.5


class _Quantum:
    """The work a kernel call may do, sized from the measured rate to ``QUANTUM_SECONDS``."""

    def __init__(self) -> None:
        self.size = 1 << 14
        self._calls = 0

    def update(self, work: int, seconds: float, paused: bool) -> None:
        self._calls += 1
        if paused and self._calls > 1 and seconds > 0:  # the first call may compile
            rate = work / seconds
            self.size = int(min(1 << 26, max(1 << 10, rate * QUANTUM_SECONDS)))


class _Store:
    """The states of a walk: records (part ids, then the constraint's state), an
    open-addressing table of record numbers, and optionally the tree and the rows."""

    def __init__(self, width: int, *, tree: bool, letters: int, rows: bool,
                 capacity: int = 1 << 12) -> None:
        import numpy as np

        self.records = Growing(np.int32, (width,), capacity)
        self.table = Growing(np.int32, (), 1 << 13)
        self.parent = Growing(np.int32, (), capacity) if tree else None
        self.via = Growing(np.uint8 if letters < 256 else np.int32, (), capacity) if tree else None
        self.rows = Growing(np.int32, (letters,), capacity) if rows else None
        self._growing = [g for g in (self.records, self.parent, self.via, self.rows) if g]

    def add_first(self, vector: Any) -> None:
        from .kernels.automaton import rehash

        self.records.array[0] = vector
        rehash(self.records.array, 1, self.table.array)

    def make_room(self, n: int, depth: int = 0) -> None:
        """Room for state n (records, tree, rows) and a table below its load."""
        from .kernels.automaton import rehash

        if n >= self.records.capacity:
            for g in self._growing:
                g.grow(2 * g.capacity)
        if n >= (self.table.capacity * 7) // 10:  # the kernels' load limit: 0.7
            self.table.grow(2 * self.table.capacity)
            self.table.clear()
            rehash(self.records.array, n, self.table.array)

    def nbytes(self, n: int) -> int:
        """Bytes the store holds for n states (rows written, the whole table)."""
        return n * sum(g.row_bytes for g in self._growing) + self.table.capacity * 4

    def close(self) -> None:
        for g in (*self._growing, self.table):
            g.close()


class Walked:
    """What a compiled walk found (see :func:`breadth_first`, :func:`depth_first`)."""

    def __init__(self, *, store: _Store | None, states: int, complete: bool,
                 found: dict[int, Any], peak_bytes: int) -> None:
        self.store = store
        self.states = states
        self.complete = complete
        #: value -> record number (breadth-first), letters read (depth-first), length (lasso)
        self.found = found
        self.peak_bytes = peak_bytes


def _constraint_arrays(constraint: Any, letters: int) -> tuple[Any, Any, int]:
    """(rows[k, d], final[d], 1) of a constraint given as (initial, rows, final), or dummies."""
    import numpy as np

    if constraint is None:
        return np.zeros((letters, 1), np.int32), np.ones(1, np.uint8), 0
    _, rows, final = constraint
    return (np.ascontiguousarray(rows, dtype=np.int32),
            np.frombuffer(bytes(final), dtype=np.uint8).copy(), 1)


class _Driver:
    """The loop around a kernel: learning, growth, budget, Ctrl-C and memory."""

    def __init__(self, tables: StepTables, budget: Budget, what: str) -> None:
        import time

        self.tables = tables
        self.meter = budget.start(what, unit="states")
        self.limit = budget.max_states
        self.cap = -1 if self.limit is None else self.limit
        self.quantum = _Quantum()
        self._clock = time.perf_counter
        self._memory_at = self._clock() + _MEMORY_SECONDS
        self._last_miss: tuple[int, ...] | None = None

    def timed(self, kernel: Callable[..., int], cursor: Any, *args: Any) -> int:
        """``kernel(*args, quantum)``, timed; ``cursor`` (among ``args``) says the work done."""
        from .kernels.automaton import PAUSE, WORK

        started = self._clock()
        status = kernel(*args, self.quantum.size)
        self.quantum.update(int(cursor[WORK]), self._clock() - started, status == PAUSE)
        return int(status)

    def learn(self, source: Any, k: int, where: tuple[int, ...]) -> None:
        """Learn δ for a miss at ``where``; the same miss twice in a row is a bug."""
        if where == self._last_miss:
            raise SdgBug(f"step tables: the kernel missed twice at {where}")
        self._last_miss = where
        self.tables.learn(source, k)

    def served(self, n: int) -> None:
        """A pause: progress, the clock and (now and then) memory."""
        self._last_miss = None
        self.meter.check(n)
        now = self._clock()
        if now >= self._memory_at:
            self._memory_at = now + _MEMORY_SECONDS
            self.meter.check_memory(n)

    def exceeded(self, n: int) -> BudgetExceeded:
        return self.meter.exceeded(n, f"{self.limit} states")


def breadth_first(tables: StepTables, budget: Budget, *, what: str = "search",
                  constraint: Any = None, head: str | None = None, bound: int = 0,
                  settle: int = -1, rows: bool = False) -> Walked:
    """The breadth-first walk from q₀ (× the constraint's initial state), compiled.

    Parameters
    ----------
    tables:
        The step tables of the automaton.
    budget:
        States (exact), seconds, progress; memory pressure stops it too.
    what:
        The phase's name in messages.
    constraint:
        ``(initial, rows, final)`` of a DFA on the letters (``rows[k][d]``,
        ``-1``: dead) for the product walk of ``decide``, or ``None``.
    head, bound, settle:
        Record the first state of every value of 𝒢_head (at most ``bound``)
        where the constraint accepts, and stop at a value ≥ ``settle``.
    rows:
        Keep every transition (``store.rows``), for an exploration.

    Returns
    -------
    Walked
        ``found``: value -> number of its first state; ``store`` holds the
        records, the tree and the rows of ``states`` states.
    """
    import numpy as np

    from .kernels import automaton as kernel

    letters = len(tables.alphabet)
    crows, cfinal, wc = _constraint_arrays(constraint, letters)
    store = _Store(tables.groups + wc, tree=True, letters=letters, rows=rows)
    first = np.empty(tables.groups + wc, dtype=np.int32)
    first[:tables.groups] = tables.initial
    if wc:
        first[tables.groups] = constraint[0]
    store.add_first(first)
    found_at = np.full(bound + 1, -1, dtype=np.int64)
    cursor = np.zeros(8, dtype=np.int64)
    cursor[kernel.N] = 1
    drive = _Driver(tables, budget, what)
    stopped = False
    n = 1
    try:
        while True:
            if head is not None:
                head_group, values = tables.values(head)
            else:
                head_group, values = 0, np.full(1, -1, dtype=np.int32)
            rows_array = store.rows.array if store.rows is not None else np.zeros(
                (1, letters), np.int32)
            records, table = store.records.array, store.table.array
            parent, via = store.parent.array, store.via.array  # type: ignore[union-attr]
            heap, plan, starts = tables.heap, tables.plan, tables.starts
            status = drive.timed(
                kernel.bfs, cursor, heap, plan, starts, records, table, parent, via, rows_array,
                rows, crows, cfinal, wc, values, head_group,
                settle if head is not None else -1, found_at, cursor, drive.cap)
            n = int(cursor[kernel.N])
            del records, table, parent, via, rows_array  # no view across a growth
            if status == kernel.DONE:
                break
            if status == kernel.MISS:
                sid, k = int(cursor[kernel.SID]), int(cursor[kernel.LETTER])
                drive.learn(store.records.array[sid, :tables.groups].tolist(), k, (n, sid, k))
            elif status == kernel.FULL:
                store.make_room(n)
            elif status == kernel.PAUSE:
                drive.served(n)
            elif status == kernel.CAP:
                raise drive.exceeded(n)
            elif status == kernel.FOUND:
                stopped = True
                break
    except KeyboardInterrupt:
        store.close()
        raise drive.meter.interrupted(n) from None
    except MemoryError:
        store.close()
        raise BudgetExceeded(f"{what} ran out of memory after {n} states", explored=n) from None
    except BaseException:
        store.close()
        raise
    found = {v: int(t) for v, t in enumerate(found_at.tolist()) if t >= 0}
    return Walked(store=store, states=n, complete=not stopped, found=found,
                  peak_bytes=store.nbytes(n))


def depth_first(tables: StepTables, budget: Budget, *, constraint: Any = None, head: str,
                bound: int, settle: int) -> Walked:
    """The depth-first search of ``decide._dfs``, compiled: the same order, the same
    states counted, the same witnesses (``found``: value -> letter indices read)."""
    import numpy as np

    from .kernels import automaton as kernel

    letters = len(tables.alphabet)
    crows, cfinal, wc = _constraint_arrays(constraint, letters)
    store = _Store(tables.groups + wc, tree=False, letters=letters, rows=False)
    first = np.empty(tables.groups + wc, dtype=np.int32)
    first[:tables.groups] = tables.initial
    if wc:
        first[tables.groups] = constraint[0]
    store.add_first(first)
    path = Growing(np.int32, (), 1 << 10)
    tried = Growing(np.int32, (), 1 << 10)
    read = Growing(np.int32, (), 1 << 10)
    seen = np.zeros(bound + 1, dtype=np.uint8)
    cursor = np.zeros(8, dtype=np.int64)
    cursor[kernel.N] = cursor[kernel.DEPTH] = 1
    drive = _Driver(tables, budget, "search")
    found: dict[int, Any] = {}
    deepest = 1
    n = 1
    stopped = False
    try:
        while True:
            head_group, values = tables.values(head)
            records, table = store.records.array, store.table.array
            p, t, r = path.array, tried.array, read.array
            status = drive.timed(
                kernel.dfs, cursor, tables.heap, tables.plan, tables.starts, records, table,
                p, t, r, crows, cfinal, wc, values, head_group, seen, cursor, drive.cap)
            n, depth = int(cursor[kernel.N]), int(cursor[kernel.DEPTH])
            deepest = max(deepest, depth)
            del records, table, p, t, r
            if status == kernel.DONE:
                break
            if status == kernel.MISS:
                src = int(path.array[depth - 1])
                k = int(tried.array[depth - 1])
                drive.learn(store.records.array[src, :tables.groups].tolist(), k, (n, src, k))
            elif status == kernel.FULL:
                store.make_room(n)
                if depth >= path.capacity:
                    for g in (path, tried, read):
                        g.grow(2 * g.capacity)
            elif status == kernel.PAUSE:
                drive.served(n)
            elif status == kernel.CAP:
                raise drive.exceeded(n)
            elif status == kernel.FOUND:
                v = int(cursor[kernel.VALUE])
                found[v] = read.array[1:depth].tolist()
                if v >= settle:
                    stopped = True
                    break
    except KeyboardInterrupt:
        raise drive.meter.interrupted(n) from None
    except MemoryError:
        raise BudgetExceeded(f"search ran out of memory after {n} states", explored=n) from None
    finally:
        store.close()
        for g in (path, tried, read):
            g.close()
    return Walked(store=None, states=n, complete=not stopped, found=found,
                  peak_bytes=store.nbytes(n) + 12 * deepest)


def lasso(tables: StepTables, budget: Budget, *, letter: int, constraint: Any = None,
          head: str, bound: int, settle: int) -> Walked:
    """The one-letter walk q₀, q₁, … by Brent's cycle detection, compiled (the reference
    is ``decide._lasso``, which documents the budget rule).  Stores O(1) states;
    ``found``: value -> first position n (the witness is the letter to the n-th power);
    ``states``: μ + λ, the states of the lasso (or the settling position plus one)."""
    import numpy as np

    from .kernels import automaton as kernel

    letters = len(tables.alphabet)
    crows, cfinal, wc = _constraint_arrays(constraint, letters)
    width = tables.groups + wc
    start = np.empty(width, dtype=np.int32)
    start[:tables.groups] = tables.initial
    if wc:
        start[tables.groups] = constraint[0]
    cur = np.zeros((4, width), dtype=np.int32)
    cur[kernel.HARE] = start
    first = np.full(bound + 1, -1, dtype=np.int64)
    cursor = np.zeros(8, dtype=np.int64)
    drive = _Driver(tables, budget, "lasso")
    at = int(tables.starts[letter])
    cap = drive.cap
    # a lasso of at most `cap` states is closed by phase 1 before position 3·cap
    beyond = 3 * cap if cap >= 0 else -1

    def run(kernel_call: Callable[[], int], mover: Callable[[], int]) -> int:
        """Call a phase until it ends, learning its misses and serving pauses."""
        while True:
            status = kernel_call()
            position = int(cursor[kernel.POS])
            if status == kernel.MISS:
                row = mover()
                drive.learn(cur[row, :tables.groups].tolist(), letter,
                            (position, int(cursor[kernel.STEPS]), row))
            elif status == kernel.PAUSE:
                drive.served(position + 1 if cap < 0 else min(position + 1, cap))
                if 0 <= beyond <= position:
                    raise drive.exceeded(cap)
            else:
                return status

    def rounds(power: int) -> int:  # `power` steps after the tortoise, recording values
        return drive.timed(kernel.walk, cursor, tables.heap, tables.plan, at, letter, crows,
                           cfinal, wc, tables.values(head)[1], head_group, settle, first, 1,
                           cur, power, cursor)

    power = 1
    head_group = tables.values(head)[0]
    try:
        while True:  # phase 1: rounds of `power` steps after the tortoise, 1, 2, 4, …
            cur[kernel.TORTOISE] = cur[kernel.HARE]
            cursor[kernel.STEPS] = 0
            status = run(partial(rounds, power), lambda: kernel.HARE)
            position = int(cursor[kernel.POS])
            if status in (kernel.FOUND, kernel.DEAD):
                if 0 <= cap <= position:
                    raise drive.exceeded(cap)
                return _lasso_found(first, position + 1, status == kernel.DEAD)
            if status == kernel.MET:
                cycle = int(cursor[kernel.STEPS])
                break
            if 0 <= beyond <= position:
                raise drive.exceeded(cap)
            power *= 2
        # phase 2: the hare λ ahead of q₀, then both until they meet at μ
        cur[kernel.HARE] = start
        cur[kernel.TORTOISE] = -1  # never met: the hare just goes λ steps
        cursor[kernel.POS] = cursor[kernel.STEPS] = 0
        none = np.full(1, -1, dtype=np.int32)
        run(lambda: drive.timed(kernel.walk, cursor, tables.heap, tables.plan, at, letter, crows,
                                cfinal, wc, none, 0, -1, first, 0, cur, cycle, cursor),
            lambda: kernel.HARE)
        cur[kernel.TORTOISE] = start
        cursor[kernel.STEPS] = 0
        run(lambda: drive.timed(kernel.meet, cursor, tables.heap, tables.plan, at, letter,
                                crows, wc, cur, cursor),
            lambda: int(cursor[kernel.SID]))
        tail = int(cursor[kernel.STEPS])
    except KeyboardInterrupt:
        raise drive.meter.interrupted() from None
    if 0 <= cap < tail + cycle:
        raise drive.exceeded(cap)
    return _lasso_found(first, tail + cycle, True)


def _lasso_found(first: Any, states: int, complete: bool) -> Walked:
    return Walked(store=None, states=states, complete=complete,
                  found={v: int(n) for v, n in enumerate(first.tolist()) if n >= 0},
                  peak_bytes=first.nbytes + 4 * 8)


# ---------------------------------------------------------------------------
# choosing the engine of a walk

#: ``engine="auto"`` runs the Python reference for up to this many states and, when the
#: walk is larger, restarts it on the compiled kernels.  Measured (benchmarks/bench_search):
#: the reference walks 2¹⁶ states in about 0.15–0.3 CPU s, while importing numba and
#: loading the cached kernels costs about 0.7 CPU s, so a walk that ends below this never
#: pays for numba and a larger one wastes at most a fraction of that fixed cost.
AUTO_STATES = 1 << 16
#: the widest state the kernels take: this many groups (plus one for a constraint)
MAX_GROUPS = 255

R = TypeVar("R")


def unfit(automaton: GrundyAutomaton) -> str | None:
    """Why the compiled kernels cannot walk ``automaton`` (a phrase), or ``None``."""
    layout = automaton.layout
    if layout is None:
        return ("its nonterminals form one group, so the compiled step would learn every "
                "state from Python")
    if len(layout.owned) > MAX_GROUPS:
        return f"its states have {len(layout.owned)} groups, over the kernels' {MAX_GROUPS}"
    return None


def run_engine(engine: str, budget: Budget, python: Callable[[Any], R],
               compiled: Callable[[Any], R], *, reason: str | None, what: str,
               auto_states: int = AUTO_STATES) -> tuple[R, str]:
    """Run a walk on the engine ``engine`` chooses; returns (result, engine that ran).

    ``"python"`` runs ``python(budget)``; ``"compiled"`` runs ``compiled(budget)``
    (an :class:`~sdg_automata.errors.InputError` when numba cannot be imported);
    ``"auto"`` runs ``python`` for at most ``auto_states`` states and, if the walk
    needs more, restarts it with ``compiled`` on what is left of the time budget
    (:data:`AUTO_STATES`).  When the automaton does not fit the kernels
    (``reason``, from :func:`unfit`) or a table outgrows its ids, a run that
    would be compiled runs in Python after one :class:`~sdg_automata.errors.EngineNotice`.
    """
    import dataclasses
    import importlib.util
    import time
    import warnings

    from .errors import EngineNotice
    from .kernels import check_engine, numba_missing, use_compiled

    check_engine(engine)
    if engine == "python":
        return python(budget), "python"
    reached = 0  # states the walk has reached, for a Ctrl-C while numba loads

    def fallback(why: str) -> tuple[R, str]:
        warnings.warn(f"the {what} runs in Python: {why}", EngineNotice, stacklevel=3)
        return python(budget), "python"

    started = time.perf_counter()
    if engine == "auto":
        if (budget.max_states is not None and budget.max_states <= auto_states
                or importlib.util.find_spec("numba") is None):
            return python(budget), "python"
        try:
            return python(dataclasses.replace(budget, max_states=auto_states)), "python"
        except BudgetExceeded as e:
            if e.explored != auto_states:
                raise
        reached = auto_states
        try:
            missing = numba_missing()
        except KeyboardInterrupt:
            raise budget.start(what).interrupted(reached) from None
        if missing is not None:  # found but broken: the reference, from the start
            return python(budget), "python"
        shown = budget.progress
        if shown is not None:  # the restart counts from 0 again: progress never goes back
            budget = dataclasses.replace(
                budget, progress=lambda n: shown(max(n, auto_states)))
    else:
        try:
            use_compiled("compiled", work=1, threshold=0)  # raises when numba is missing
        except KeyboardInterrupt:
            raise budget.start(what).interrupted(0) from None
    if reason is not None:
        return fallback(reason)
    rest = budget
    if budget.max_seconds is not None:
        left = budget.max_seconds - (time.perf_counter() - started)
        if left <= 0:
            raise budget.start(what).exceeded(auto_states, f"{budget.max_seconds:g} s")
        rest = dataclasses.replace(budget, max_seconds=left)
    try:
        return compiled(rest), "compiled"
    except OverflowError as e:
        return fallback(str(e))
    except KeyboardInterrupt:  # while numba loads: the kernels' drivers say their own count
        raise budget.start(what).interrupted(reached) from None
