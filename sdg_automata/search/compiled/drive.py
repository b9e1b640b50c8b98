"""The walks of the compiled kernels: their stores, their drivers, and the kernels' fit.

The kernels of :mod:`sdg_automata.kernels.automaton` never raise and never call
Python: they work over numpy arrays until they are done or need something, and
return a status.  This module holds everything around them:

* the drivers :func:`breadth_first`, :func:`depth_first` and :func:`lasso`, which
  call a kernel in quanta of about
  :data:`~sdg_automata.search.compiled.stores.QUANTUM_SECONDS`, learn the steps it
  misses, grow its arrays, and serve budgets, progress, Ctrl-C and memory between
  calls, over the stores of a walk (:mod:`sdg_automata.search.compiled.stores`:
  records of part ids in growing memory maps, or the exact compact table);
* which engine runs is the engines' business (:mod:`sdg_automata.search.engines`,
  whose ``compiled`` and ``compact`` entries call these drivers and say which
  automata the kernels take); the compiled exploration is
  :mod:`sdg_automata.search.compiled.explore`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from ...errors import BudgetExceeded, SdgBug
from ...runtime.budget import Budget
from .loop import Handler, Misses, dispatch, stop
from .packed import PackedStore, _fields, key_widths
from .stores import (
    MAX_KEY_BITS,
    NARROW,
    CompactStore,
    Growing,
    KeyTooWide,
    NoRoom,
    _Quantum,
    _Store,
    _widths,
    _wrapping,
)
from .tables import StepTables

__all__ = ["Walked", "breadth_first", "depth_first", "lasso"]


# ---------------------------------------------------------------------------
# the walks: drivers of the kernels in sdg_automata.kernels.automaton

class Walked:
    """What a compiled walk found (see :func:`breadth_first`, :func:`depth_first`)."""

    def __init__(self, *, store: _Store | CompactStore | PackedStore | None, states: int,
                 complete: bool,
                 found: dict[int, Any], peak_bytes: int) -> None:
        self.store = store
        self.states = states
        self.complete = complete
        #: value -> record number (breadth-first), letters read (depth-first), length (lasso)
        self.found = found
        self.peak_bytes = peak_bytes


def _start(tables: StepTables, constraint: Any) -> tuple[Any, Any, int, Any]:
    """(rows[k, d], final[d], wc, q₀'s record) of a walk: the constraint given as
    (initial, rows, final) and ``wc`` = 1, or dummies and 0; the record is q₀'s part ids,
    then the constraint's initial state."""
    import numpy as np

    if constraint is None:
        crows = np.zeros((len(tables.alphabet), 1), np.int32)
        cfinal, wc = np.ones(1, np.uint8), 0
    else:
        crows = np.ascontiguousarray(constraint[1], dtype=np.int32)
        cfinal, wc = np.frombuffer(bytes(constraint[2]), dtype=np.uint8).copy(), 1
    start = np.empty(tables.groups + wc, dtype=np.int32)
    start[:tables.groups] = tables.initial
    if wc:
        start[tables.groups] = constraint[0]
    return crows, cfinal, wc, start


class _Driver:
    """Around a kernel's loop (:func:`~sdg_automata.search.compiled.loop.dispatch`): the
    kernel's quantum, learning, budget, Ctrl-C and memory."""

    def __init__(self, tables: StepTables, budget: Budget, what: str) -> None:
        import time

        self.tables = tables
        self.meter = budget.start(what, unit="states")
        self.limit = budget.max_states
        self.cap = -1 if self.limit is None else self.limit
        self.quantum = _Quantum()
        self._clock = time.perf_counter
        self._misses = Misses()

    def timed(self, kernel: Callable[..., int], cursor: Any, *args: Any) -> int:
        """``kernel(*args, quantum)``, timed; ``cursor`` (among ``args``) says the work done."""
        from ...kernels.protocol import PAUSE, WORK

        started = self._clock()
        with _wrapping():
            status = kernel(*args, self.quantum.size)
        self.quantum.update(int(cursor[WORK]), self._clock() - started, status == PAUSE)
        return int(status)

    def learn(self, source: Any, k: int, where: tuple[int, ...], reached: int) -> None:
        """Learn δ for a miss at ``where``; the same miss twice in a row is a bug.

        A walk that misses more often than it pauses (a product of many components
        learning its tables) spends its time here, so the meter is served from here too
        (``reached``: the states so far); a lesson costs far more than a look at the clock.
        """
        self._misses.seen(where)
        self.tables.learn(source, k)
        self.meter.check(reached)

    def served(self, n: int) -> None:
        """A pause: progress, the clock and (now and then, by the meter) memory."""
        self._misses.forget()
        self.meter.check(n)

    def exceeded(self, n: int) -> BudgetExceeded:
        return self.meter.exceeded(n, f"{self.limit} states")

    def handlers(self, states: Callable[[], int], **by_status: Handler) -> dict[int, Handler]:
        """The handlers every walk shares — DONE ends it, PAUSE serves the meter, CAP is
        over the budget (``states()``: the states so far) — and the walk's own, by the
        statuses' names (``MISS=...``, ``FULL=...``, ``FOUND=...``)."""
        from ...kernels import protocol

        def over() -> None:
            raise self.exceeded(states())

        table: dict[int, Handler] = {protocol.DONE: stop,
                                     protocol.PAUSE: lambda: self.served(states()),
                                     protocol.CAP: over}
        table.update({getattr(protocol, name): handler for name, handler in by_status.items()})
        return table


def breadth_first(tables: StepTables, budget: Budget, *, what: str = "search",
                  constraint: Any = None, head: str | None = None, bound: int = 0,
                  settle: int = -1, rows: bool = False, store: str = "table") -> Walked:
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
    store:
        ``"table"``: the table store (:class:`_Store`: records, a table of their
        numbers, the tree in memory); ``"compact"``: a :class:`CompactStore`
        (no rows), which raises :class:`~sdg_automata.search.compiled.stores.KeyTooWide`
        (an :class:`~sdg_automata.runtime.engines.Unfit`) when the ids outgrow its keys.

    Returns
    -------
    Walked
        ``found``: value -> number of its first state; ``store`` holds the
        records, the tree and the rows of ``states`` states (or the compact
        store, whose :meth:`CompactStore.runs` gives the witnesses).
    """
    import numpy as np

    from ...kernels import protocol

    letters = len(tables.alphabet)
    crows, cfinal, wc, start = _start(tables, constraint)
    if store == "compact" and not rows:
        return _compact_breadth_first(tables, budget, what=what, crows=crows, cfinal=cfinal,
                                      wc=wc, start=start, head=head, bound=bound,
                                      settle=settle)
    if store != "table":
        raise SdgBug(f"unknown store {store!r}")
    drive = _Driver(tables, budget, what)
    if not rows:  # keys of one word while the ids fit them (issue 36), else records
        try:
            return _packed_breadth_first(tables, drive, crows=crows, cfinal=cfinal, wc=wc,
                                         start=start, head=head, bound=bound, settle=settle)
        except KeyTooWide:
            pass
    from ...kernels import records_native
    from ...kernels.native import prepare

    prepare(records_native.functions, drive.meter)  # a first run's build: budgeted
    table = _Store(tables.groups + wc, tree=True, letters=letters, rows=rows,
                   narrow=crows.shape[1] <= NARROW)
    table.add_first(start)
    found_at = np.full(bound + 1, -1, dtype=np.int64)
    cursor = np.zeros(8, dtype=np.int64)
    cursor[protocol.N] = 1
    empty_rows = np.zeros((1, letters), np.int32)

    def states() -> int:
        return int(cursor[protocol.N])

    def call() -> int:  # the arrays are read anew: a growth replaces them
        head_group, values = _head_values(tables, head)
        assert table.parent is not None and table.via is not None
        records, via = table.records.array, table.via.array
        return drive.timed(
            records_native.bfs(records, via), cursor, tables.heap, tables.plan, tables.starts,
            records, table.table.array, table.tags.array, table.parent.array, via,
            table.rows.array if table.rows is not None else empty_rows, rows, crows, cfinal,
            wc, values, head_group, settle if head is not None else -1, found_at, cursor,
            drive.cap, *records_native.scratch(records))

    def miss() -> None:
        n, sid, k = states(), int(cursor[protocol.SID]), int(cursor[protocol.LETTER])
        drive.learn(table.records.array[sid, :tables.groups].tolist(), k, (n, sid, k), n)
        table.fit(tables, n)

    return _walked(table, drive, states, found_at,
                   lambda: dispatch(call, drive.handlers(
                       states, MISS=miss, FOUND=stop, FULL=lambda: table.make_room(states()))))


def _packed_breadth_first(tables: StepTables, drive: _Driver, *, crows: Any, cfinal: Any,
                          wc: int, start: Any, head: str | None, bound: int,
                          settle: int) -> Walked:
    """:func:`breadth_first` without rows on a :class:`PackedStore`
    (:func:`~sdg_automata.kernels.packed.packed_bfs`): the same states numbered the same,
    the same tree, so the same ``found`` and witnesses.  :class:`KeyTooWide` (the store
    closed) when the ids outgrow a key: the caller walks again on records."""
    import numpy as np

    from ...kernels import protocol
    from ...kernels.bfs_native import VIA, functions
    from ...kernels.native import prepare

    kernels = prepare(functions, drive.meter)  # a first run's build of the library: budgeted
    fixed = [crows.shape[1]] if wc else []
    store = PackedStore(key_widths(tables.part_counts, fixed), len(tables.alphabet),
                        bound=drive.limit)
    store.add_first(start)
    walk = kernels[f"packed_bfs_{VIA[store.via.array.dtype.name]}"]
    scratch = store.scratch()
    found_at = np.full(bound + 1, -1, dtype=np.int64)
    cursor = np.zeros(8, dtype=np.int64)
    cursor[protocol.N] = 1

    def states() -> int:
        return int(cursor[protocol.N])

    def call() -> int:  # the arrays are read anew: a growth replaces them
        head_group, values = _head_values(tables, head)
        return drive.timed(
            walk, cursor, tables.heap, tables.plan, tables.starts, store.shifts,
            store.masks, store.table.array, store.form, store.load, store.queue.array,
            store.parent.array, store.via.array, crows, cfinal, wc, values, head_group,
            settle if head is not None else -1, found_at, cursor, drive.cap, *scratch)

    def miss() -> None:
        n, sid, k = states(), int(cursor[protocol.SID]), int(cursor[protocol.LETTER])
        drive.learn(store.record(sid)[:tables.groups], k, (n, sid, k), n)
        store.fit(tables.part_counts, fixed, n)

    def full() -> None:
        store.make_room(states(), int(cursor[protocol.SID]), bool(cursor[protocol.OVERFLOW]))

    return _walked(store, drive, states, found_at,
                   lambda: dispatch(call, drive.handlers(states, MISS=miss, FOUND=stop,
                                                         FULL=full)))


def _walked(store: _Store | PackedStore, drive: _Driver, states: Callable[[], int],
            found_at: Any, walk: Callable[[], int]) -> Walked:
    """What a breadth-first walk on ``store`` found: ``walk()`` (its status) run, the store
    closed at once if it fails (:func:`_failed`)."""
    from ...kernels import protocol

    try:
        status = walk()
    except BaseException as e:  # the store goes back at once; the found states with it
        failure = _failed(e, store, drive, drive.meter.what, states())
        if failure is e:
            raise
        raise failure from None
    found = {v: int(t) for v, t in enumerate(found_at.tolist()) if t >= 0}
    return Walked(store=store, states=states(), complete=status != protocol.FOUND, found=found,
                  peak_bytes=store.nbytes(states()))


def _failed(e: BaseException, store: _Store | CompactStore | PackedStore, drive: _Driver,
            what: str,
            n: int) -> BaseException:
    """What a breadth-first walk that failed with ``e`` after n states raises: its store
    closed, Ctrl-C as the meter says it, running out of memory as a budget."""
    store.close()
    if isinstance(e, KeyboardInterrupt):
        return drive.meter.interrupted(n)
    if isinstance(e, MemoryError):
        return _out_of_memory(e, what, n)
    return e


def _out_of_memory(e: MemoryError, what: str, n: int) -> BudgetExceeded:
    """A walk that ran out of memory after n states, as a budget: stopped before, when a
    store's growth was refused (:class:`~sdg_automata.search.compiled.stores.NoRoom`)."""
    if isinstance(e, NoRoom):
        return BudgetExceeded(f"{what} stopped before memory ran out ({e}) after {n} states",
                              explored=n)
    return BudgetExceeded(f"{what} ran out of memory after {n} states", explored=n)


def _head_values(tables: StepTables, head: str | None) -> tuple[int, Any]:
    """(group of A, its values by part id) for a walk that looks for values; a table that
    shows none for a walk that does not (an exploration)."""
    import numpy as np

    if head is None:
        return 0, np.full(1, -1, dtype=np.int32)
    return tables.values(head)


#: rows of the compact walk's input and output buffers (its only memory besides the table)
COMPACT_BUFFER = 1 << 14


def _compact_breadth_first(tables: StepTables, budget: Budget, *, what: str, crows: Any,
                           cfinal: Any, wc: int, start: Any, head: str | None, bound: int,
                           settle: int) -> Walked:
    """:func:`breadth_first` on a :class:`CompactStore`
    (:func:`~sdg_automata.kernels.compact.compact_bfs`): the same states numbered the
    same, so the same ``found``; ``store`` is the compact store."""
    import numpy as np

    from ...kernels import protocol
    from ...kernels.compact_native import functions
    from ...kernels.native import prepare

    letters, width = len(tables.alphabet), len(start)
    def counts() -> list[int]:  # ids per field: the groups' parts, the constraint's states
        return [*tables.part_counts, *([crows.shape[1]] if wc else [])]

    drive = _Driver(tables, budget, what)
    walk = prepare(functions, drive.meter)["compact_bfs"]  # a first run's build: budgeted
    store = CompactStore(counts(), letters)
    store.add_first(start)
    inrec = np.zeros((COMPACT_BUFFER, width), dtype=np.int32)
    outrec = np.zeros((COMPACT_BUFFER, width), dtype=np.int32)
    outcode = np.zeros(COMPACT_BUFFER, dtype=np.int64)
    # a batch of successors: BATCH rows, or one state's letters when they are more
    block = np.zeros((max(1, protocol.BATCH // letters) * letters, width), dtype=np.int32)
    hashes = np.zeros(len(block), dtype=np.uint64)
    found_at = np.full(bound + 1, -1, dtype=np.int64)
    cursor = np.zeros(8, dtype=np.int64)
    cursor[protocol.N] = 1
    base = 0  # the state in inrec[0]

    def states() -> int:
        return int(cursor[protocol.N])

    def call() -> int:
        head_group, values = _head_values(tables, head)
        t = store.table
        return drive.timed(
            walk, cursor, tables.heap, tables.plan, tables.starts, t.slots, t.form, t.mix,
            t.fields, inrec, base, outrec, outcode, block, hashes, crows, cfinal, wc, values,
            head_group, settle if head is not None else -1, found_at, cursor,
            drive.cap)

    def miss() -> None:
        n, sid, k = states(), int(cursor[protocol.SID]), int(cursor[protocol.LETTER])
        out = int(cursor[protocol.OUT])
        source = inrec[sid - base] if sid - base < cursor[protocol.IN] else outrec[
            sid - (n - out)]
        drive.learn(source[:tables.groups].tolist(), k, (n, sid, k), n)
        store.fit(counts(), n)

    def full() -> None:
        nonlocal base
        n, sid = states(), int(cursor[protocol.SID])
        out = int(cursor[protocol.OUT])
        if out + letters > COMPACT_BUFFER:  # the output to the spool
            store.push(outrec[:out], outcode[:out])
            cursor[protocol.OUT] = out = 0
        if sid - base >= cursor[protocol.IN] and sid < n - out:  # the next input
            base = sid
            cursor[protocol.IN] = store.read(sid, inrec)
            store.release(sid)
        store.make_room(n, letters)

    try:
        status = dispatch(call, drive.handlers(states, MISS=miss, FULL=full, FOUND=stop))
        out = int(cursor[protocol.OUT])  # the tree of the last states, for the witnesses
        store.push(outrec[:out], outcode[:out])
    except BaseException as e:
        failure = _failed(e, store, drive, what, states())
        if failure is e:
            raise
        raise failure from None
    found = {v: int(t) for v, t in enumerate(found_at.tolist()) if t >= 0}
    return Walked(store=store, states=states(), complete=status != protocol.FOUND, found=found,
                  peak_bytes=store.nbytes() + 3 * inrec.nbytes)


def depth_first(tables: StepTables, budget: Budget, *, constraint: Any = None, head: str,
                bound: int, settle: int) -> Walked:
    """The depth-first search of ``decide._dfs``, compiled: the same order, the same
    states counted, the same witnesses (``found``: value -> letter indices read)."""
    import numpy as np

    from ...kernels import protocol, records_native
    from ...kernels.native import prepare

    crows, cfinal, wc, start = _start(tables, constraint)
    drive = _Driver(tables, budget, "search")
    prepare(records_native.functions, drive.meter)  # a first run's build: budgeted
    store = _Store(tables.groups + wc, tree=False, letters=len(tables.alphabet), rows=False,
                   narrow=crows.shape[1] <= NARROW)
    store.add_first(start)
    path = Growing(np.int32, (), 1 << 10)
    tried = Growing(np.int32, (), 1 << 10)
    read = Growing(np.int32, (), 1 << 10)
    seen = np.zeros(bound + 1, dtype=np.uint8)
    cursor = np.zeros(8, dtype=np.int64)
    cursor[protocol.N] = cursor[protocol.DEPTH] = 1
    found: dict[int, Any] = {}
    deepest = 1

    def states() -> int:
        return int(cursor[protocol.N])

    def depth() -> int:
        return int(cursor[protocol.DEPTH])

    def call() -> int:
        nonlocal deepest
        head_group, values = tables.values(head)
        records = store.records.array
        status = drive.timed(
            records_native.dfs(records), cursor, tables.heap, tables.plan, tables.starts,
            records, store.table.array, store.tags.array, path.array, tried.array, read.array,
            crows, cfinal, wc, values, head_group, seen, cursor, drive.cap)
        deepest = max(deepest, depth())
        return status

    def miss() -> None:
        n, src, k = states(), int(path.array[depth() - 1]), int(tried.array[depth() - 1])
        drive.learn(store.records.array[src, :tables.groups].tolist(), k, (n, src, k), n)
        store.fit(tables, n)

    def full() -> None:
        store.make_room(states())
        if depth() >= path.capacity:
            for g in (path, tried, read):
                g.grow(2 * g.capacity)

    def value() -> bool:  # a value not seen yet: its witness is the path read
        v = int(cursor[protocol.VALUE])
        found[v] = read.array[1:depth()].tolist()
        return v >= settle

    try:
        status = dispatch(call, drive.handlers(states, MISS=miss, FULL=full, FOUND=value))
    except KeyboardInterrupt:
        raise drive.meter.interrupted(states()) from None
    except MemoryError as e:
        raise _out_of_memory(e, "search", states()) from None
    finally:
        store.close()
        for g in (path, tried, read):
            g.close()
    return Walked(store=None, states=states(), complete=status != protocol.FOUND, found=found,
                  peak_bytes=store.nbytes(states()) + 12 * deepest)


#: the compiled lasso keeps at most this many states of the walk (checkpoints), about
#: evenly spaced, so that Brent's second phase starts near q_λ instead of at q₀
CHECKPOINTS = 64


class _WordFields:
    """The lasso's states as words (:mod:`sdg_automata.kernels.packed_lasso`): the fields of the
    ids interned so far (the groups' parts, then the constraint's states: ``states``),
    as the compact store's keys lay them out (:func:`~.stores._widths`), refitted after
    every lesson; none when they need more than one word (the vector kernels then walk)."""

    def __init__(self, tables: StepTables, states: int | None) -> None:
        self.tables, self.states = tables, states
        self.counts: list[int] = []
        self.layout: tuple[Any, Any] | None = None

    def fit(self) -> tuple[Any, Any] | None:
        """(shifts, masks) of the fields, int64 arrays, or ``None``."""
        counts = [*self.tables.part_counts, *([] if self.states is None else [self.states])]
        if counts != self.counts:
            self.counts = counts
            widths = _widths(counts)
            self.layout = None if sum(widths) > MAX_KEY_BITS else _fields(widths)
        return self.layout


class _Checkpoints:
    """States of the walk at positions 0, D, 2D, … (at most :data:`CHECKPOINTS`; D doubles,
    dropping every other one, when they would be more): O(1) states in all."""

    def __init__(self, start: Any) -> None:
        self.spacing = 1
        self.saved: list[tuple[int, Any]] = [(0, start.copy())]

    @property
    def next(self) -> int:
        return self.saved[-1][0] + self.spacing

    def add(self, position: int, state: Any) -> None:
        self.saved.append((position, state.copy()))
        if len(self.saved) > CHECKPOINTS:
            self.spacing *= 2
            self.saved = [(n, q) for n, q in self.saved if n % self.spacing == 0]

    def before(self, position: int) -> tuple[int, Any]:
        """The last saved (position, state) at or before ``position``."""
        return max((c for c in self.saved if c[0] <= position), key=lambda c: c[0])


def lasso(tables: StepTables, budget: Budget, *, letter: int, constraint: Any = None,
          head: str, bound: int, settle: int) -> Walked:
    """The one-letter walk q₀, q₁, … by Brent's cycle detection, compiled (the reference
    is ``decide._lasso``, which documents the budget rule).  Stores O(1) states;
    ``found``: value -> first position n (the witness is the letter to the n-th power);
    ``states``: μ + λ, the states of the lasso (or the settling position plus one).

    Phase 1 is Brent's (:meth:`_Lasso.cycle`).  Phase 2 (:meth:`_Lasso.tail`) needs q_λ:
    instead of walking λ steps from q₀ it starts from the last of :data:`CHECKPOINTS`
    states saved along phase 1 at or before λ, at most about 2·(μ + 3λ)/64 steps short of
    it; then the tortoise from q₀ and the hare from q_λ move together until they meet at μ.
    """
    walk = _Lasso(tables, budget, letter=letter, constraint=constraint, head=head,
                  bound=bound, settle=settle)
    try:
        cycle = walk.cycle()
        if isinstance(cycle, Walked):
            return cycle
        tail = walk.tail(cycle)
    except KeyboardInterrupt:
        raise walk.drive.meter.interrupted() from None
    if 0 <= walk.cap < tail + cycle:
        raise walk.drive.exceeded(walk.cap)
    return _lasso_found(walk.first, tail + cycle, True)


class _Lasso:
    """One compiled lasso walk: the hare and the tortoise (rows of ``cur``), the kernels'
    cursor, and the phases of :func:`lasso`."""

    def __init__(self, tables: StepTables, budget: Budget, *, letter: int, constraint: Any,
                 head: str, bound: int, settle: int) -> None:
        import numpy as np

        from ...kernels import lasso_native, protocol
        from ...kernels.native import prepare

        self.protocol = protocol
        self.tables, self.letter, self.head, self.settle = tables, letter, head, settle
        self.crows, self.cfinal, self.wc, self.start = _start(tables, constraint)
        self.cur = np.zeros((4, len(self.start)), dtype=np.int32)
        self.cur[protocol.HARE] = self.start
        self.first = np.full(bound + 1, -1, dtype=np.int64)
        self.cursor = np.zeros(8, dtype=np.int64)
        self.drive = _Driver(tables, budget, "search")
        # a first run's build of the library: budgeted
        self.move = prepare(lasso_native.functions, self.drive.meter)["move"]
        self.scratch = lasso_native.scratch
        self.at = int(tables.starts[letter])
        self.cap = self.drive.cap
        # a lasso of at most `cap` states is closed by phase 1 before position 3·cap
        self.beyond = 3 * self.cap if self.cap >= 0 else -1
        self.none = np.full(1, -1, dtype=np.int32)
        self.fields = _WordFields(tables, self.crows.shape[1] if self.wc else None)
        self.marks = _Checkpoints(self.start)  # saved by phase 1, read by phase 2

    def _run(self, kernel_call: Callable[[], int], mover: Callable[[], int]) -> int:
        """Call a phase until it ends, learning its misses and serving pauses."""
        protocol, cursor, drive, cap = self.protocol, self.cursor, self.drive, self.cap

        def reached() -> int:  # states, for progress
            position = int(cursor[protocol.POS])
            return position + 1 if cap < 0 else min(position + 1, cap)

        def miss() -> None:
            row = mover()
            drive.learn(self.cur[row, :self.tables.groups].tolist(), self.letter,
                        (int(cursor[protocol.POS]), int(cursor[protocol.STEPS]), row), reached())

        def pause() -> None:
            drive.served(reached())
            if 0 <= self.beyond <= int(cursor[protocol.POS]):
                raise drive.exceeded(cap)

        return dispatch(kernel_call, {protocol.MISS: miss, protocol.PAUSE: pause,
                                      protocol.DONE: stop, protocol.FOUND: stop,
                                      protocol.DEAD: stop, protocol.MET: stop})

    def _hare(self, limit: int, record: bool) -> int:
        """The hare on, up to ``limit`` steps this round (recording values in phase 1)."""
        tables = self.tables
        group, values = tables.values(self.head)
        args = (tables.heap, tables.plan, self.at, self.letter, self.crows, self.cfinal,
                self.wc, values if record else self.none, group if record else 0,
                self.settle if record else -1, self.first, int(record), self.cur)
        layout = self.fields.fit()
        if layout is None:  # states wider than a word: vectors
            return self.drive.timed(self._vectors("walk"), self.cursor, *args, limit,
                                    self.cursor)
        return self.drive.timed(self._words(False), self.cursor, *args, *layout, limit,
                                self.cursor)

    def _meet(self) -> int:
        """The tortoise and the hare together until they meet."""
        tables = self.tables
        layout = self.fields.fit()
        if layout is None:
            return self.drive.timed(self._vectors("meet"), self.cursor, tables.heap, tables.plan,
                                    self.at, self.letter, self.crows, self.wc, self.cur,
                                    self.cursor)
        # move's arguments, its recording ones idle (``settle`` −1, ``record`` 0)
        return self.drive.timed(self._words(True), self.cursor, tables.heap, tables.plan,
                                self.at, self.letter, self.crows, self.cfinal, self.wc,
                                self.none, 0, -1, self.first, 0, self.cur, *layout, 0,
                                self.cursor)

    def _vectors(self, name: str) -> Callable[..., int]:
        """The lasso's kernel ``name`` on vectors (:func:`~sdg_automata.kernels.automaton.walk`
        or ``meet``, native when cached: a first run's build budgeted)."""
        from ...kernels import records_native
        from ...kernels.native import prepare

        kernel: Callable[..., int] = prepare(records_native.functions, self.drive.meter)[name]
        return kernel

    def _words(self, meeting: bool) -> Callable[..., int]:
        """The lasso's kernel on words (:func:`~sdg_automata.kernels.packed_lasso.move`,
        native when cached) as :meth:`_Driver.timed` calls a kernel: its scratch, made anew
        for the plan as it is, after the quantum that ``timed`` passes last."""
        tables, groups = self.tables, self.tables.groups

        def kernel(*args: Any) -> int:
            return int(self.move(*args, meeting, *self.scratch(tables.plan, self.at, groups)))

        return kernel

    def cycle(self) -> int | Walked:
        """Phase 1, Brent's: rounds of 1, 2, 4, … steps of the hare after the tortoise,
        checkpoints saved on the way; the cycle's length λ, or the walk's end (a value
        settled, or a dead state) as its result."""
        protocol, cursor, cur = self.protocol, self.cursor, self.cur
        power = 1
        while True:
            cur[protocol.TORTOISE] = cur[protocol.HARE]
            cursor[protocol.STEPS] = 0
            while True:  # the round, stopping at each checkpoint to save it
                position, steps = int(cursor[protocol.POS]), int(cursor[protocol.STEPS])
                limit = min(power, steps + self.marks.next - position)
                status = self._run(partial(self._hare, limit, True), lambda: protocol.HARE)
                position = int(cursor[protocol.POS])
                if position == self.marks.next:
                    self.marks.add(position, cur[protocol.HARE])
                if status != protocol.DONE or cursor[protocol.STEPS] == power:
                    break
            if status in (protocol.FOUND, protocol.DEAD):
                if 0 <= self.cap <= position:
                    raise self.drive.exceeded(self.cap)
                return _lasso_found(self.first, position + 1, status == protocol.DEAD)
            if status == protocol.MET:
                return int(cursor[protocol.STEPS])
            if 0 <= self.beyond <= position:
                raise self.drive.exceeded(self.cap)
            power *= 2

    def tail(self, cycle: int) -> int:
        """Phase 2: the hare at q_λ (from the checkpoint before it), then with the tortoise
        from q₀ until they meet at μ; μ."""
        protocol, cursor, cur = self.protocol, self.cursor, self.cur
        position, state = self.marks.before(cycle)
        cur[protocol.HARE] = state
        cur[protocol.TORTOISE] = -1  # never met: the hare just goes on to λ
        cursor[protocol.POS], cursor[protocol.STEPS] = position, 0
        self._run(partial(self._hare, cycle - position, False), lambda: protocol.HARE)
        cur[protocol.TORTOISE] = self.start
        cursor[protocol.STEPS] = 0
        self._run(self._meet, lambda: int(cursor[protocol.SID]))
        return int(cursor[protocol.STEPS])


def _lasso_found(first: Any, states: int, complete: bool) -> Walked:
    return Walked(store=None, states=states, complete=complete,
                  found={v: int(n) for v, n in enumerate(first.tolist()) if n >= 0},
                  peak_bytes=first.nbytes + 4 * 8)
