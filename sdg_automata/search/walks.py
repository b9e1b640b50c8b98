"""The walks of the compiled kernels: their arrays, their drivers, and the engine choice.

The kernels of :mod:`sdg_automata.kernels.automaton` never raise and never call
Python: they work over numpy arrays until they are done or need something, and
return a status.  This module holds everything around them:

* :class:`Growing` — arrays in anonymous memory maps that grow by ``mremap``
  (no copy, no touching of rows not written yet, 2 MB pages);
* the store of a walk: records of part ids (:class:`~sdg_automata.automaton.vectors.StepTables`),
  an open-addressing table with 8-bit tags, the breadth-first tree, the rows;
* the drivers :func:`breadth_first`, :func:`depth_first` and :func:`lasso`, which
  call a kernel in quanta of about :data:`QUANTUM_SECONDS`, learn the steps it
  misses, grow its arrays, and serve budgets, progress, Ctrl-C and memory between
  calls;
* :func:`run_engine`, the one place where ``engine="auto"|"compiled"|"python"``
  becomes a run (and :func:`unfit`, which says when the kernels cannot take an
  automaton).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any, TypeVar

from ..automaton.vectors import StepTables
from ..errors import BudgetExceeded, ResourceError, SdgBug
from ..runtime.budget import Budget

if TYPE_CHECKING:
    from ..automaton.construction import GrundyAutomaton

__all__ = ["AUTO_STATES", "STORES", "CompactStore", "Growing", "KeyTooWide", "Walked",
           "breadth_first", "depth_first", "lasso", "run_engine", "unfit"]

#: the largest id a narrow (uint16) record holds
NARROW = 0xFFFF
#: the stores of a breadth-first walk (:func:`breadth_first`)
STORES = ("table", "compact")


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
        self.row_bytes: int = int(self.dtype.itemsize) * max(1, math.prod(tail))
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
        try:
            if self._map is None:
                self._map = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)
            else:
                self._map.resize(size)
        except OSError as e:  # ENOMEM (an address-space limit): as any allocation failing
            raise MemoryError(f"cannot map {size:,} bytes: {e.strerror or e}") from None
        if size >= 1 << 22 and hasattr(mmap, "MADV_HUGEPAGE"):
            # 2 MB pages where the kernel allows them: the table is probed at random, and
            # 4 KB pages made a lookup miss the TLB (measured: 0.6–0.8× the time with them)
            try:
                self._map.madvise(mmap.MADV_HUGEPAGE)
            except OSError:
                pass
        self.capacity = capacity

    @property
    def array(self) -> Any:
        import numpy as np

        if self._array is None:
            flat = np.frombuffer(self._map, dtype=self.dtype,
                                 count=self.capacity * max(1, math.prod(self.tail)))
            self._array = flat.reshape((self.capacity, *self.tail))
        return self._array

    def clear(self) -> None:
        """Zero every row (the memory is touched: only for arrays about to be filled)."""
        self.array[...] = 0

    def copy(self, rows: int) -> Any:
        """The first ``rows`` rows as an ordinary numpy array."""
        return self.array[:rows].copy()

    def close(self) -> None:
        """Give the memory back now (or, while a view is still alive, when it dies)."""
        self._array = None
        if self._map is not None:
            try:
                self._map.close()
            except BufferError:  # a view lives on (an exception's frame): freed with it
                pass
            self._map = None


# ---------------------------------------------------------------------------
# the walks: drivers of the kernels in sdg_automata.kernels.automaton

#: a kernel call is sized to take about this long, so that budgets, progress and Ctrl-C
#: are served at least this often (plus one step table's learning)
QUANTUM_SECONDS = 0.05


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


@contextlib.contextmanager
def _wrapping() -> Iterator[None]:
    """Around every kernel call: a budget's ``SIGALRM`` (a sweep job's deadline) held until
    it returns, since one that lands while numba compiles or loads the kernel leaves numba
    broken for the rest of the process (:func:`~sdg_automata.runtime.stopping.held_signals`;
    a call returns within :data:`QUANTUM_SECONDS`); and no overflow warnings: hashing multiplies
    uint64s modulo 2⁶⁴, which is what the compiled code does, while under
    ``NUMBA_DISABLE_JIT=1`` the kernels run on numpy scalars, which would warn."""
    import numpy as np

    from ..runtime.stopping import held_signals

    with held_signals(), np.errstate(over="ignore"):
        yield


class _Store:
    """The states of a walk: records (part ids, then the constraint's state), an
    open-addressing table of record numbers, and optionally the tree and the rows.

    Records are uint16 while every id is below 2¹⁶ (:meth:`fit` widens them to int32
    the moment an id reaches it; the kernels are compiled for both), which halves
    the bytes of a state on every instance measured."""

    def __init__(self, width: int, *, tree: bool, letters: int, rows: bool,
                 capacity: int = 1 << 12, narrow: bool = True) -> None:
        import numpy as np

        self.records = Growing(np.uint16 if narrow else np.int32, (width,), capacity)
        self.table = Growing(np.int32, (), 1 << 13)
        self.tags = Growing(np.uint8, (), 1 << 13)
        self.parent = Growing(np.int32, (), capacity) if tree else None
        self.via = Growing(np.uint8 if letters < 256 else np.int32, (), capacity) if tree else None
        self.rows = Growing(np.int32, (letters,), capacity) if rows else None
        self._growing = [g for g in (self.records, self.parent, self.via, self.rows) if g]

    def add_first(self, vector: Any) -> None:
        from ..kernels.automaton import rehash

        self.records.array[0] = vector
        with _wrapping():
            rehash(self.records.array, 1, self.table.array, self.tags.array)

    def fit(self, tables: StepTables, n: int) -> None:
        """Widen the records to int32 once a part id no longer fits in 16 bits (the
        hashes are of the ids' values, so the table stays valid)."""
        import numpy as np

        if self.records.dtype == np.uint16 and max(tables.part_counts) > NARROW:
            wide = Growing(np.int32, self.records.tail, self.records.capacity)
            wide.array[:n + 1] = self.records.array[:n + 1]
            self.records.close()
            self._growing[0] = self.records = wide

    def make_room(self, n: int) -> None:
        """Room for a block of states after state n (records, tree, rows) and a table
        below its load."""
        from ..kernels.automaton import BATCH, MAX_LOAD_PERCENT, rehash

        if n + BATCH >= self.records.capacity:
            for g in self._growing:
                g.grow(2 * g.capacity)
        if n + BATCH >= (self.table.capacity * MAX_LOAD_PERCENT) // 100:  # the kernels' limit
            for g in (self.table, self.tags):
                g.grow(2 * g.capacity)
                g.clear()
            with _wrapping():
                rehash(self.records.array, n, self.table.array, self.tags.array)

    def nbytes(self, n: int) -> int:
        """Bytes the store holds for n states (rows written, the whole table)."""
        return n * sum(g.row_bytes for g in self._growing) + self.table.capacity * 5

    def close(self) -> None:
        for g in (*self._growing, self.table, self.tags):
            g.close()


class _Spool:
    """A first-in first-out sequence of numpy rows kept in unlinked temporary files.

    Written and read with ordinary ``pwrite``/``preadv`` calls: the rows live in the
    page cache (or on disk), never in the process's resident memory, and nothing is
    mapped.  Rows are numbered from 0 in the order appended; the files are segments of
    :data:`SPOOL_SEGMENT` rows, so that :meth:`release` can hand back the disk of the
    rows already consumed (a breadth-first frontier moves through a spool once).
    """

    def __init__(self, dtype: Any, tail: tuple[int, ...]) -> None:
        import numpy as np

        self.dtype = np.dtype(dtype)
        self.tail = tail
        self.row_bytes: int = int(self.dtype.itemsize) * max(1, math.prod(tail))
        self.rows = 0
        self._files: dict[int, Any] = {}  # segment -> its unlinked file

    def _fd(self, segment: int) -> int:
        import tempfile

        if segment not in self._files:
            self._files[segment] = tempfile.TemporaryFile(prefix="sdg-spool-")
        return int(self._files[segment].fileno())

    def append(self, rows: Any) -> None:
        """Append ``rows`` (an array of this spool's rows)."""
        import os

        import numpy as np

        data = np.ascontiguousarray(rows, dtype=self.dtype).reshape(-1).view(np.uint8).data
        done = 0
        while done < len(data):
            at = self.rows * self.row_bytes + done
            segment, offset = divmod(at, SPOOL_SEGMENT * self.row_bytes)
            piece = min(len(data) - done, SPOOL_SEGMENT * self.row_bytes - offset)
            try:
                done += os.pwrite(self._fd(segment), data[done:done + piece], offset)
            except OSError as e:  # a full disk is a resource, not the input's fault
                import tempfile

                raise ResourceError(f"the compact store's temporary files (in "
                                    f"{tempfile.gettempdir()}; TMPDIR chooses) could not be "
                                    f"written: {e.strerror or e}") from None
        self.rows += len(rows)

    def read(self, first: int, out: Any) -> int:
        """Rows ``first`` … into ``out`` (as many as fit and exist); how many."""
        import os

        import numpy as np

        count = max(0, min(len(out), self.rows - first))
        data = memoryview(out.reshape(-1).view(np.uint8))[:count * self.row_bytes]
        done = 0
        while done < len(data):
            at = first * self.row_bytes + done
            segment, offset = divmod(at, SPOOL_SEGMENT * self.row_bytes)
            piece = min(len(data) - done, SPOOL_SEGMENT * self.row_bytes - offset)
            got = os.preadv(self._fd(segment), [data[done:done + piece]], offset)
            if got <= 0:
                raise SdgBug(f"spool: row {first} cannot be read back")
            done += got
        return count

    def release(self, first: int) -> None:
        """Hand back the segments wholly before row ``first`` (never read again)."""
        for segment in [s for s in self._files if (s + 1) * SPOOL_SEGMENT <= first]:
            self._files.pop(segment).close()

    def close(self) -> None:
        for f in self._files.values():
            f.close()
        self._files.clear()


#: rows of one spool file
SPOOL_SEGMENT = 1 << 22
#: the compact table is kept at most this full (percent; Cleary's linear probing stays
#: short up to about 80 %)
COMPACT_LOAD_PERCENT = 80
#: the widest key the compact table takes (bits): keys are uint64
MAX_KEY_BITS = 64
#: odd multipliers of the key scrambling (Weyl's golden ratio, splitmix64's first)
_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9)


class KeyTooWide(Exception):
    """The records of a walk do not fit a compact key of :data:`MAX_KEY_BITS` bits."""


class _Cleary:
    """One compact table (:func:`~sdg_automata.kernels.automaton.admit`): 2^q slots for
    keys of the given field widths, and the arrays the kernels take."""

    def __init__(self, q: int, widths: list[int]) -> None:
        import numpy as np

        fields = sum(widths)
        if fields > MAX_KEY_BITS:
            raise KeyTooWide(f"a state's ids take {fields} bits, over the compact store's "
                             f"{MAX_KEY_BITS}")
        # the key space is padded to more than the quotient, so that a remainder has a bit
        if q < 6:  # the bit vectors are read by words of 64 slots
            raise SdgBug(f"compact table: 2^{q} slots, fewer than 64")
        kbits = max(fields, q + 1, 2)
        rbits = w = kbits - q
        size = 1 << q
        self.q, self.widths, self.kbits = q, widths, kbits
        self.form = np.array([size, w, rbits, kbits, size * COMPACT_LOAD_PERCENT // 100],
                             dtype=np.int64)
        modulus = 1 << kbits
        m1, m2 = (m % modulus for m in _MULTIPLIERS)
        self.mix = np.array([(1 << w) - 1, (1 << rbits) - 1, modulus - 1, m1, m2,
                             pow(m1, -1, modulus), pow(m2, -1, modulus)], dtype=np.uint64)
        self.fields = np.array([sum(widths[:i]) for i in range(len(widths))], dtype=np.uint64)
        self.field_widths = np.array(widths, dtype=np.uint64)
        # blocks of 64 slots: 3 words of their bits, then w words of their remainders
        self.slots = np.zeros((size >> 6) * (3 + w), dtype=np.uint64)

    @property
    def load(self) -> int:
        return int(self.form[4])


def _widths(counts: list[int]) -> list[int]:
    """Field widths for ids below ``counts`` (and one more bit of room for new ids)."""
    return [max(1, c.bit_length()) for c in counts]


class CompactStore:
    """The states of a breadth-first walk in an exact compact table (issue 27).

    A state is kept as its key only: its record's ids as bit fields (widths from
    the ids interned so far, :func:`_widths`), at most :data:`MAX_KEY_BITS` bits, in
    a Cleary table that stores each key's remainder and three bits.  Nothing else
    per state stays in memory: the frontier's records and the tree (a code
    parent·letters + letter per state) go to :class:`_Spool` files, read back as
    the frontier moves on and, for the witnesses, when the walk ends.

    An id that outgrows its field re-encodes the table (:meth:`fit`); growth
    doubles it (:meth:`make_room`): both move every key into a new table
    (:func:`~sdg_automata.kernels.automaton.migrate`), so the peak is the two
    tables together, about 1.5 × the new one.  :class:`KeyTooWide` when the ids
    would need more than :data:`MAX_KEY_BITS` bits.

    Decisions (issue 27 item 2):

    * exact, not a fingerprint: the key is the record itself, so no two states
      are ever confused (TLC's 64-bit fingerprints and SPIN's bitstate hashing are
      probabilistic); the table never drops a key (a full table is grown first);
    * bit fields, not tree compression: the records are already LTSmin-style
      vectors of interned part ids (:mod:`sdg_automata.automaton.vectors`), and their ids
      fit 35–48 bits on the benchmarks, so the key is the vector and Cleary's
      quotient saves another log₂(slots) bits: about r + 3 = K − q + 3 bits a slot;
    * the same walk: :func:`~sdg_automata.kernels.automaton.compact_bfs` numbers
      the states in the order of :func:`~sdg_automata.kernels.automaton.bfs`
      (FIFO in discovery order, letters in order), so the states, the values'
      first states and the witnesses (the shortlex-least access words) are the
      same; the tree is read back from the spool (:meth:`runs`);
    * the files are written with ``pwrite``, never mapped: their pages are the
      page cache's (or the disk's), not the process's resident memory (they go
      to the temporary directory, ``TMPDIR``: on a tmpfs they are RAM after all,
      and a full disk is a :class:`~sdg_automata.errors.ResourceError`); the
      frontier's files are dropped as it moves on, the tree's (8 bytes a state)
      when the store closes;
    * the cost is CPU: every lookup walks its cluster (1.4–1.5 × the table store's
      CPU time in ``python -m benchmarks bench_store``), and a growth or a
      re-encoding is one pass that Ctrl-C does not interrupt (as the table store's rehash).
    """

    def __init__(self, counts: list[int], letters: int, q: int = 12) -> None:
        import numpy as np

        self.letters = letters
        self.table = _Cleary(q, _widths(counts))
        self.records = _Spool(np.int32, (len(counts),))
        self.tree = _Spool(np.int64, ())
        self.peak = 0  # bytes of the tables at their largest (two during a move)

    def add_first(self, record: Any) -> None:
        import numpy as np

        from ..kernels.automaton import admit, key_of

        row = np.asarray(record, dtype=np.int32).reshape(1, -1)
        t = self.table
        with _wrapping():
            # (numba returns a uint64 as a Python int, which it would read back as int64)
            admit(t.slots, t.form, t.mix, np.uint64(key_of(row, 0, t.fields)))
        self.push(row, np.array([-1], dtype=np.int64))

    def push(self, records: Any, codes: Any) -> None:
        """New states (their records and tree codes), in their order."""
        self.records.append(records)
        self.tree.append(codes)

    def _move(self, q: int, widths: list[int], n: int) -> None:
        import numpy as np

        from ..kernels.automaton import migrate

        old, new = self.table, _Cleary(q, widths)
        scratch = np.zeros((1, len(widths)), dtype=np.int32)
        with _wrapping():
            moved = migrate(old.slots, old.form, old.mix, old.fields, old.field_widths,
                            new.slots, new.form, new.mix, new.fields, scratch)
        if moved != n:
            raise SdgBug(f"compact store: {moved} keys moved, {n} stored")
        self.peak = max(self.peak, int(old.slots.nbytes + new.slots.nbytes))
        self.table = new

    def fit(self, counts: list[int], n: int) -> None:
        """Re-encode the n keys if an id (below ``counts``) no longer fits its field."""
        if any(c >= 1 << w for c, w in zip(counts, self.table.widths, strict=True)):
            self._move(self.table.q, [max(w, v) for w, v in
                                      zip(self.table.widths, _widths(counts), strict=True)], n)

    def make_room(self, n: int, letters: int) -> None:
        """A table that takes ``letters`` more keys after n (doubled as needed)."""
        q = self.table.q
        while n + letters > ((1 << q) * COMPACT_LOAD_PERCENT) // 100:
            q += 1
        if q != self.table.q:
            self._move(q, self.table.widths, n)

    def runs(self, t: int) -> tuple[Any, Any]:
        """The letters of the tree path from state 0 to ``t`` as runs (letters, counts)
        in reading order, as :func:`~sdg_automata.kernels.automaton.tree_runs`: the
        codes are read back from the spool a block at a time, going up."""
        import numpy as np

        from ..kernels.automaton import climb

        runs = np.zeros((1 << 12, 2), dtype=np.int64)
        cursor = np.array([0, -1], dtype=np.int64)
        codes = np.empty(1 << 16, dtype=np.int64)
        done: list[tuple[int, int]] = []
        while t > 0:
            base = max(0, t + 1 - len(codes))
            self.tree.read(base, codes[:t + 1 - base])
            t = int(climb(codes, base, self.letters, t, runs, cursor))
            if t < 0:  # the runs are full: keep the last (it may go on)
                t = -1 - t
                m = int(cursor[0])
                done.extend((int(a), int(b)) for a, b in runs[:m - 1])
                runs[0] = runs[m - 1]
                cursor[0] = 1
        done.extend((int(a), int(b)) for a, b in runs[:int(cursor[0])])
        done.reverse()
        return (np.array([a for a, _ in done], dtype=np.int32),
                np.array([b for _, b in done], dtype=np.int64))

    def nbytes(self) -> int:
        """Bytes held in memory at the most (the tables; the spools are files)."""
        return max(self.peak, int(self.table.slots.nbytes))

    def close(self) -> None:
        self.records.close()
        self.tree.close()


class Walked:
    """What a compiled walk found (see :func:`breadth_first`, :func:`depth_first`)."""

    def __init__(self, *, store: _Store | CompactStore | None, states: int, complete: bool,
                 found: dict[int, Any], peak_bytes: int, store_kind: str = "table") -> None:
        self.store = store
        #: the store that ran: ``"table"`` or ``"compact"`` (see :func:`breadth_first`)
        self.store_kind = store_kind
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
    """The loop around a kernel: learning, growth, budget, Ctrl-C and memory."""

    def __init__(self, tables: StepTables, budget: Budget, what: str) -> None:
        import time

        self.tables = tables
        self.meter = budget.start(what, unit="states")
        self.limit = budget.max_states
        self.cap = -1 if self.limit is None else self.limit
        self.quantum = _Quantum()
        self._clock = time.perf_counter
        self._last_miss: tuple[int, ...] | None = None

    def timed(self, kernel: Callable[..., int], cursor: Any, *args: Any) -> int:
        """``kernel(*args, quantum)``, timed; ``cursor`` (among ``args``) says the work done."""
        from ..kernels.automaton import PAUSE, WORK

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
        if where == self._last_miss:
            raise SdgBug(f"step tables: the kernel missed twice at {where}")
        self._last_miss = where
        self.tables.learn(source, k)
        self.meter.check(reached)

    def served(self, n: int) -> None:
        """A pause: progress, the clock and (now and then, by the meter) memory."""
        self._last_miss = None
        self.meter.check(n)

    def exceeded(self, n: int) -> BudgetExceeded:
        return self.meter.exceeded(n, f"{self.limit} states")


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
        (no rows; when the keys would be too wide, the table store after one
        :class:`~sdg_automata.errors.EngineNotice`, and ``Walked.store_kind``
        says which ran).

    Returns
    -------
    Walked
        ``found``: value -> number of its first state; ``store`` holds the
        records, the tree and the rows of ``states`` states (or the compact
        store, whose :meth:`CompactStore.runs` gives the witnesses).
    """
    import numpy as np

    from ..kernels import automaton as kernel

    letters = len(tables.alphabet)
    crows, cfinal, wc, start = _start(tables, constraint)
    if store == "compact" and not rows:
        try:
            return _compact_breadth_first(tables, budget, what=what, crows=crows,
                                          cfinal=cfinal, wc=wc, start=start, head=head,
                                          bound=bound, settle=settle)
        except KeyTooWide as e:
            import warnings

            from ..errors import EngineNotice

            warnings.warn(f"the {what} keeps the table store, not the compact one: {e}",
                          EngineNotice, stacklevel=2)
    elif store not in STORES:
        raise SdgBug(f"unknown store {store!r}")
    table = _Store(tables.groups + wc, tree=True, letters=letters, rows=rows,
                   narrow=crows.shape[1] <= NARROW)
    table.add_first(start)
    found_at = np.full(bound + 1, -1, dtype=np.int64)
    cursor = np.zeros(8, dtype=np.int64)
    cursor[kernel.N] = 1
    drive = _Driver(tables, budget, what)
    stopped = False
    n = 1
    try:
        while True:
            head_group, values = _head_values(tables, head)
            rows_array = table.rows.array if table.rows is not None else np.zeros(
                (1, letters), np.int32)
            records, slots, tags = table.records.array, table.table.array, table.tags.array
            parent, via = table.parent.array, table.via.array  # type: ignore[union-attr]
            heap, plan, starts = tables.heap, tables.plan, tables.starts
            status = drive.timed(
                kernel.bfs, cursor, heap, plan, starts, records, slots, tags, parent, via,
                rows_array,
                rows, crows, cfinal, wc, values, head_group,
                settle if head is not None else -1, found_at, cursor, drive.cap)
            n = int(cursor[kernel.N])
            del records, slots, tags, parent, via, rows_array  # no view across a growth
            if status == kernel.DONE:
                break
            if status == kernel.MISS:
                sid, k = int(cursor[kernel.SID]), int(cursor[kernel.LETTER])
                drive.learn(table.records.array[sid, :tables.groups].tolist(), k, (n, sid, k), n)
                table.fit(tables, n)
            elif status == kernel.FULL:
                table.make_room(n)
            elif status == kernel.PAUSE:
                drive.served(n)
            elif status == kernel.CAP:
                raise drive.exceeded(n)
            elif status == kernel.FOUND:
                stopped = True
                break
    except BaseException as e:  # the store goes back at once; the found states with it
        failure = _failed(e, table, drive, what, n)
        if failure is e:
            raise
        raise failure from None
    found = {v: int(t) for v, t in enumerate(found_at.tolist()) if t >= 0}
    return Walked(store=table, states=n, complete=not stopped, found=found,
                  peak_bytes=table.nbytes(n))


def _failed(e: BaseException, store: _Store | CompactStore, drive: _Driver, what: str,
            n: int) -> BaseException:
    """What a breadth-first walk that failed with ``e`` after n states raises: its store
    closed, Ctrl-C as the meter says it, running out of memory as a budget."""
    store.close()
    if isinstance(e, KeyboardInterrupt):
        return drive.meter.interrupted(n)
    if isinstance(e, MemoryError):
        return BudgetExceeded(f"{what} ran out of memory after {n} states", explored=n)
    return e


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
    (:func:`~sdg_automata.kernels.automaton.compact_bfs`): the same states numbered the
    same, so the same ``found``; ``store`` is the compact store."""
    import numpy as np

    from ..kernels import automaton as kernel

    letters, width = len(tables.alphabet), len(start)
    def counts() -> list[int]:  # ids per field: the groups' parts, the constraint's states
        return [*tables.part_counts, *([crows.shape[1]] if wc else [])]

    store = CompactStore(counts(), letters)
    store.add_first(start)
    inrec = np.zeros((COMPACT_BUFFER, width), dtype=np.int32)
    outrec = np.zeros((COMPACT_BUFFER, width), dtype=np.int32)
    outcode = np.zeros(COMPACT_BUFFER, dtype=np.int64)
    block = np.zeros((letters, width), dtype=np.int32)
    found_at = np.full(bound + 1, -1, dtype=np.int64)
    cursor = np.zeros(8, dtype=np.int64)
    cursor[kernel.N] = 1
    drive = _Driver(tables, budget, what)
    stopped = False
    base = 0  # the state in inrec[0]
    n = 1
    try:
        while True:
            head_group, values = _head_values(tables, head)
            t = store.table
            status = drive.timed(
                kernel.compact_bfs, cursor, tables.heap, tables.plan, tables.starts, t.slots,
                t.form, t.mix, t.fields, inrec, base, outrec, outcode, block, crows, cfinal,
                wc, values, head_group, settle if head is not None else -1, found_at,
                cursor, drive.cap)
            n, sid = int(cursor[kernel.N]), int(cursor[kernel.SID])
            if status == kernel.DONE:
                break
            if status == kernel.MISS:
                k = int(cursor[kernel.LETTER])
                out = int(cursor[kernel.OUT])
                source = inrec[sid - base] if sid - base < cursor[kernel.IN] else outrec[
                    sid - (n - out)]
                drive.learn(source[:tables.groups].tolist(), k, (n, sid, k), n)
                store.fit(counts(), n)
            elif status == kernel.FULL:
                out = int(cursor[kernel.OUT])
                if out + letters > COMPACT_BUFFER:  # the output to the spool
                    store.push(outrec[:out], outcode[:out])
                    cursor[kernel.OUT] = out = 0
                if sid - base >= cursor[kernel.IN] and sid < n - out:  # the next input
                    base = sid
                    cursor[kernel.IN] = store.records.read(sid, inrec)
                    store.records.release(sid)
                store.make_room(n, letters)
            elif status == kernel.PAUSE:
                drive.served(n)
            elif status == kernel.CAP:
                raise drive.exceeded(n)
            elif status == kernel.FOUND:
                stopped = True
                break
        out = int(cursor[kernel.OUT])  # the tree of the last states, for the witnesses
        store.push(outrec[:out], outcode[:out])
    except BaseException as e:
        failure = _failed(e, store, drive, what, n)
        if failure is e:
            raise
        raise failure from None
    found = {v: int(t) for v, t in enumerate(found_at.tolist()) if t >= 0}
    return Walked(store=store, states=n, complete=not stopped, found=found,
                  peak_bytes=store.nbytes() + 3 * inrec.nbytes, store_kind="compact")


def depth_first(tables: StepTables, budget: Budget, *, constraint: Any = None, head: str,
                bound: int, settle: int) -> Walked:
    """The depth-first search of ``decide._dfs``, compiled: the same order, the same
    states counted, the same witnesses (``found``: value -> letter indices read)."""
    import numpy as np

    from ..kernels import automaton as kernel

    crows, cfinal, wc, start = _start(tables, constraint)
    store = _Store(tables.groups + wc, tree=False, letters=len(tables.alphabet), rows=False,
                   narrow=crows.shape[1] <= NARROW)
    store.add_first(start)
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
            records, table, tags = store.records.array, store.table.array, store.tags.array
            p, t, r = path.array, tried.array, read.array
            status = drive.timed(
                kernel.dfs, cursor, tables.heap, tables.plan, tables.starts, records, table,
                tags, p, t, r, crows, cfinal, wc, values, head_group, seen, cursor, drive.cap)
            n, depth = int(cursor[kernel.N]), int(cursor[kernel.DEPTH])
            deepest = max(deepest, depth)
            del records, table, tags, p, t, r
            if status == kernel.DONE:
                break
            if status == kernel.MISS:
                src = int(path.array[depth - 1])
                k = int(tried.array[depth - 1])
                drive.learn(store.records.array[src, :tables.groups].tolist(), k, (n, src, k), n)
                store.fit(tables, n)
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


#: the compiled lasso keeps at most this many states of the walk (checkpoints), about
#: evenly spaced, so that Brent's second phase starts near q_λ instead of at q₀
CHECKPOINTS = 64


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

    Phase 1 is Brent's.  Phase 2 needs q_λ: instead of walking λ steps from q₀ it
    starts from the last of :data:`CHECKPOINTS` states saved along phase 1 at or
    before λ, at most about 2·(μ + 3λ)/64 steps short of it; then the tortoise
    from q₀ and the hare from q_λ move together until they meet at μ.
    """
    import numpy as np

    from ..kernels import automaton as kernel

    crows, cfinal, wc, start = _start(tables, constraint)
    cur = np.zeros((4, len(start)), dtype=np.int32)
    cur[kernel.HARE] = start
    first = np.full(bound + 1, -1, dtype=np.int64)
    cursor = np.zeros(8, dtype=np.int64)
    drive = _Driver(tables, budget, "search")
    at = int(tables.starts[letter])
    cap = drive.cap
    # a lasso of at most `cap` states is closed by phase 1 before position 3·cap
    beyond = 3 * cap if cap >= 0 else -1
    none = np.full(1, -1, dtype=np.int32)
    head_group = tables.values(head)[0]

    def run(kernel_call: Callable[[], int], mover: Callable[[], int]) -> int:
        """Call a phase until it ends, learning its misses and serving pauses."""
        while True:
            status = kernel_call()
            position = int(cursor[kernel.POS])
            reached = position + 1 if cap < 0 else min(position + 1, cap)  # states, for progress
            if status == kernel.MISS:
                row = mover()
                drive.learn(cur[row, :tables.groups].tolist(), letter,
                            (position, int(cursor[kernel.STEPS]), row), reached)
            elif status == kernel.PAUSE:
                drive.served(reached)
                if 0 <= beyond <= position:
                    raise drive.exceeded(cap)
            else:
                return status

    def hare(limit: int, record: bool) -> int:  # the hare on, up to `limit` steps this round
        values = tables.values(head)[1] if record else none
        return drive.timed(kernel.walk, cursor, tables.heap, tables.plan, at, letter, crows,
                           cfinal, wc, values, head_group if record else 0,
                           settle if record else -1, first, int(record), cur, limit, cursor)

    marks = _Checkpoints(start)
    power = 1
    try:
        while True:  # phase 1: rounds of `power` steps after the tortoise, 1, 2, 4, …
            cur[kernel.TORTOISE] = cur[kernel.HARE]
            cursor[kernel.STEPS] = 0
            while True:  # the round, stopping at each checkpoint to save it
                position, steps = int(cursor[kernel.POS]), int(cursor[kernel.STEPS])
                limit = min(power, steps + marks.next - position)
                status = run(partial(hare, limit, True), lambda: kernel.HARE)
                position = int(cursor[kernel.POS])
                if position == marks.next:
                    marks.add(position, cur[kernel.HARE])
                if status != kernel.DONE or cursor[kernel.STEPS] == power:
                    break
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
        # phase 2: the hare at q_λ (from the checkpoint before it), then with the
        # tortoise from q₀ until they meet at μ
        position, state = marks.before(cycle)
        cur[kernel.HARE] = state
        cur[kernel.TORTOISE] = -1  # never met: the hare just goes on to λ
        cursor[kernel.POS], cursor[kernel.STEPS] = position, 0
        run(partial(hare, cycle - position, False), lambda: kernel.HARE)
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
#: walk is larger, restarts it on the compiled kernels.  Measured (``python -m benchmarks
#: bench_search``): the reference walks 150–400k states per CPU second, and the compiled
#: engine's fixed cost (importing numba, loading the cached kernels; numba also imports
#: scipy when it is installed) is 0.7–1.2 CPU s.  As in ski rental, the Python walk before
#: the switch should cost about that fixed cost: then no run pays more than about twice
#: what the better engine alone would have cost, and walks below 2¹⁸ states never load numba.
AUTO_STATES = 1 << 18
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


def run_engine(engine: str, budget: Budget, python: Callable[[Budget], R],
               compiled: Callable[[Budget], R], *, reason: str | None, what: str
               ) -> tuple[R, str]:
    """Run a walk on the engine ``engine`` chooses; returns (result, engine that ran).

    ``"python"`` runs ``python(budget)``; ``"compiled"`` runs ``compiled(budget)``
    (an :class:`~sdg_automata.errors.InputError` when numba cannot be imported);
    ``"auto"`` runs ``python`` for at most :data:`AUTO_STATES` states and, if the
    walk needs more, restarts it with ``compiled``, its seconds counted from the start.
    When the automaton does not fit the kernels (``reason``, from :func:`unfit`) or
    a table outgrows its ids, a run that would be compiled runs in Python after one
    :class:`~sdg_automata.errors.EngineNotice`.
    """
    import dataclasses
    import importlib.util
    import time
    import warnings

    from ..errors import EngineNotice
    from ..kernels import check_engine, numba_missing, use_compiled

    check_engine(engine)
    if engine == "python":
        return python(budget), "python"
    reached = 0  # states the walk has reached, for a Ctrl-C while numba loads
    auto_states = AUTO_STATES

    def fallback(why: str) -> tuple[R, str]:
        warnings.warn(f"the {what} runs in Python: {why}", EngineNotice, stacklevel=3)
        return python(budget), "python"

    if budget.since is None:  # one clock for the Python run and the compiled restart
        budget = dataclasses.replace(budget, since=time.perf_counter())
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
    try:
        return compiled(budget), "compiled"
    except OverflowError as e:
        return fallback(str(e))
    except KeyboardInterrupt:  # while numba loads: the kernels' drivers say their own count
        raise budget.start(what).interrupted(reached) from None
