"""The stores of the compiled walks: where the states they find are kept.

The drivers of :mod:`sdg_automata.search.compiled.drive` keep a walk's states in one of three
stores, all outside the process's heap:

* :class:`~sdg_automata.search.compiled.packed.PackedStore` (the ``compiled`` engine's
  breadth-first search, while a state's ids fit one word) — a table of packed keys, in
  its own module;
* :class:`_Store` (the ``compiled`` engine otherwise) — records of part ids
  (:class:`~sdg_automata.search.compiled.tables.StepTables`) in :class:`Growing` arrays
  (anonymous memory maps that grow by ``mremap``: no copy, no touching of rows not
  written yet), an open-addressing table with 8-bit tags, the breadth-first tree
  and the rows;
* :class:`CompactStore` (the ``compact`` engine) — an exact Cleary table of keys of at
  most :data:`MAX_KEY_BITS` bits (:class:`_Cleary`, whose kernels are in
  :mod:`sdg_automata.kernels.compact`), its frontier queued in a :class:`_Spool` of
  unlinked temporary files (the page cache, not resident memory).

Every kernel call of a store or a driver runs inside :func:`_wrapping`, and in quanta
of about :data:`QUANTUM_SECONDS` (:class:`_Quantum`).
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from typing import Any

from ...errors import ResourceError, SdgBug
from ...runtime.engines import Unfit
from .tables import StepTables

__all__ = ["COMPACT_FULL_PERCENT", "COMPACT_LOAD_PERCENT", "HUGE_PAGE", "LARGE_GROWTH",
           "MAX_KEY_BITS", "NARROW", "QUANTUM_SECONDS", "SPOOL_SEGMENT", "CompactStore",
           "Growing", "KeyTooWide", "NoRoom"]

#: a growth of at least this many bytes first asks whether they are left
#: (:func:`~sdg_automata.runtime.budget.available_bytes`); smaller ones are what the
#: meter's reserve (:data:`~sdg_automata.runtime.budget.MEMORY_RESERVE`) is for
LARGE_GROWTH = 16 << 20


class NoRoom(MemoryError):
    """A store's growth refused before it was tried: it needs more memory than is left to
    allocate, less the meter's reserve.  A doubling asks for hundreds of megabytes at
    once, far more than the reserve the meter keeps between its looks, so without this
    question it failed (``MemoryError`` under an address-space limit) or, where memory is
    overcommitted, could be killed by the kernel with no word said."""


def _room_for(added: int) -> None:
    """Raise :class:`NoRoom` when ``added`` bytes (:data:`LARGE_GROWTH` or more) and the
    meter's reserve are more than this process can still allocate."""
    if added < LARGE_GROWTH:
        return
    from ...runtime.budget import MEMORY_RESERVE, available_bytes

    left = available_bytes()
    if left is not None and added + MEMORY_RESERVE > left:
        raise NoRoom(f"the store's next growth needs {-(-added >> 20)} MB, {left >> 20} MB "
                     "left to allocate")


#: the huge page of the maps read at random (:class:`Growing`'s ``huge``), x86-64's and
#: arm64's with 4 KB pages
HUGE_PAGE = 2 << 20


class Growing:
    """A numpy array of ``capacity`` rows backed by anonymous memory that grows in place.

    The memory is an anonymous private ``mmap``: pages cost nothing until they
    are written, and :meth:`grow` remaps (``mremap``) instead of copying, so
    a store that doubles never holds two copies and never touches the rows it
    has not filled (numpy's own ``resize`` zero-fills them).  Call :attr:`array`
    again after :meth:`grow`; no view may be kept across it.  ``huge``: 2 MB pages where
    the kernel allows them, for arrays read at random (a table), the map from 4 MB a
    whole number of them (:data:`HUGE_PAGE`) so that they survive its moves; an array
    read and written in order gains nothing by them, and pays for each page zeroed whole
    at its first touch.
    """

    def __init__(self, dtype: Any, tail: tuple[int, ...], capacity: int, *,
                 huge: bool = True) -> None:
        import numpy as np

        self.dtype = np.dtype(dtype)
        self.tail = tail
        self.huge = huge
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
        huge = self.huge and size >= 1 << 22
        if huge:
            size = -(-size // HUGE_PAGE) * HUGE_PAGE
        self._array = None  # the view must go before the map can move
        if self._map is not None and size <= len(self._map):  # (the last huge page's room)
            self.capacity = capacity
            return
        _room_for(size - (0 if self._map is None else len(self._map)))
        try:
            if self._map is None:
                self._map = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)
            else:
                try:
                    self._map.resize(size)
                except BufferError:
                    self._move(size)
        except OSError as e:  # ENOMEM (an address-space limit): as any allocation failing
            raise MemoryError(f"cannot map {size:,} bytes: {e.strerror or e}") from None
        if huge and hasattr(mmap, "MADV_HUGEPAGE"):
            # 2 MB pages where the kernel allows them: the table is probed at random, and
            # 4 KB pages made a lookup miss the TLB (measured: 0.6–0.8× the time with them).
            # The map is whole huge pages: a recent Linux (6.18 here) then places it, and
            # moves it on ``mremap``, at a 2 MB boundary, and its huge pages survive a
            # growth.  A map of any other length moved to any page boundary, and each move
            # split its huge pages into 4 KB ones: the compact table, whose lengths are
            # any multiple of a block, ran on 4 KB pages after its first growths
            try:
                self._map.madvise(mmap.MADV_HUGEPAGE)
            except OSError:
                pass
        self.capacity = capacity

    def _move(self, size: int) -> None:
        """Grow into a new map of ``size`` bytes, the rows copied, where the old map cannot
        be resized: a view of it lives on outside this array's users, who all read
        :attr:`array` anew after a growth.  A shard failed with ``BufferError`` in 1 of
        12 runs of a test on a Dask cluster, and no reading of our code found the view;
        Dask's profiler can hold one (every 10 ms it takes the frames of a worker's
        running threads, with the views in their locals, a kernel's arguments, and walks
        them while the sampled thread may go on).  The old map goes with its last
        view."""
        import mmap

        import numpy as np

        _room_for(size)
        fresh = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE)
        old = self._map
        np.frombuffer(fresh, dtype=np.uint8, count=len(old))[:] = np.frombuffer(old, np.uint8)
        self._map = fresh
        try:
            old.close()
        except BufferError:  # the view that stopped the resize: freed with it
            pass

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
#: the compact table is kept at most this full (percent) while it doubles (Cleary's linear
#: probing stays short up to about 80 %) ...
COMPACT_LOAD_PERCENT = 80
#: ... and this full where the memory target sets its growth (:func:`_load_percent`): a
#: fuller table grows by more within the same bytes, so its keys move fewer times (growths
#: of 1.13 become 1.21 for slots of 34 bits), which saves more than its longer clusters
#: cost: on the binary 2.9·10⁷-state benchmark, five interleaved rounds, median 17.7 CPU s
#: at 80 %, 15.6 at 86 % and 17.2 at 90 %; binary 1.3·10⁷, four rounds: 6.9 → 6.2
COMPACT_FULL_PERCENT = 86
#: the widest key the compact table takes (bits): keys are uint64
MAX_KEY_BITS = 64
#: odd multipliers of the key scrambling (Weyl's golden ratio, splitmix64's first)
_MULTIPLIERS = (0x9E3779B97F4A7C15, 0xBF58476D1CE4E5B9)


class KeyTooWide(Unfit):
    """The records of a walk do not fit a compact key of :data:`MAX_KEY_BITS` bits: the
    compact engine gives the search up, and its fallback runs it."""


class _Cleary:
    """One compact table (:func:`~sdg_automata.kernels.compact.admit`): ``size`` slots (a
    multiple of 64) for keys of the given field widths, in a :class:`Growing` map, and
    the arrays the kernels take.  :meth:`grow` enlarges it in place."""

    def __init__(self, size: int, widths: list[int]) -> None:
        import numpy as np

        if size < 64 or size % 64:  # the bit vectors are read by words of 64 slots
            raise SdgBug(f"compact table: {size} slots, not a multiple of 64")
        if size > MAX_SLOTS:
            raise ResourceError(f"the compact table would need {size:,} slots, over its "
                                f"{MAX_SLOTS:,}")
        self.widths, self.kbits = widths, _key_bits(size, widths)
        self.fields = _shifts(widths)
        self.field_widths = np.array(widths, dtype=np.uint64)
        self.form, self.mix = self._shape(size)
        self.memory = Growing(np.uint64, (), self.words)

    def _shape(self, size: int) -> tuple[Any, Any]:
        """``form`` and ``mix`` of ``size`` slots for this table's keys."""
        import numpy as np

        rbits = w = _remainder_bits(size, self.kbits)
        load = size * _load_percent(size, self.kbits) // 100
        form = np.array([size, w, rbits, self.kbits, load], dtype=np.int64)
        modulus = 1 << self.kbits
        m1, m2 = (m % modulus for m in _MULTIPLIERS)
        mix = np.array([(1 << w) - 1, (1 << rbits) - 1, modulus - 1, m1, m2,
                        pow(m1, -1, modulus), pow(m2, -1, modulus)], dtype=np.uint64)
        return form, mix

    @property
    def size(self) -> int:
        return int(self.form[0])

    @property
    def words(self) -> int:
        """uint64 words of the table: blocks of 64 slots, each 3 words of their bits and
        w of their remainders."""
        return _table_words(self.size, self.kbits)

    @property
    def slots(self) -> Any:
        return self.memory.array

    @property
    def load(self) -> int:
        return int(self.form[4])

    def next_size(self, n: int) -> int:
        """The size to grow to, holding n keys (:func:`_next_size`)."""
        return _next_size(self.size, self.kbits, n)

    def grow(self, size: int) -> int | None:
        """``size`` slots, in place (:func:`~sdg_automata.kernels.compact.grow`): the keys
        it holds; None, with nothing changed, when the keys are too narrow for a
        remainder bit at that size (the caller re-encodes them into a new table)."""
        import numpy as np

        from ...kernels.compact_native import functions
        from ...kernels.protocol import KEYS_SHORT, STASH_SHORT

        old = self.size
        if size > MAX_SLOTS or size <= old:
            raise ResourceError(f"the compact table holds at most {MAX_SLOTS:,} slots (about "
                                f"{MAX_SLOTS * COMPACT_FULL_PERCENT // 100:,} states): a home "
                                "is computed in 64 bits")
        if self.kbits < size.bit_length():  # ⌊log₂ size⌋ + 1 key bits at least
            return None
        form, mix = self._shape(size)
        blk, nblk = 3 + int(self.form[1]), 3 + int(form[1])
        g = size / old
        if not _laid_in_place(old, size, self.kbits, margin=1):
            raise SdgBug(f"compact table: growth from {old} to {size} slots cannot be in place")
        low = 64 * (math.ceil((nblk + blk) / (g * nblk - blk)) + 2)
        self.memory.grow((size >> 6) * nblk)
        grow = functions()["grow"]
        room = 1 << 16  # a chunk of keys laid at a time, and the longest cluster
        while True:
            keys, homes = np.empty(room, np.uint64), np.empty(room, np.int64)
            stash = np.empty(room // 4 + 2 * low, np.uint64)
            with _wrapping():
                held = int(grow(self.slots, self.form, self.mix, form, mix, low, keys, homes,
                                stash, np.empty(128, np.uint64)))
            if held not in (KEYS_SHORT, STASH_SHORT):
                break
            room *= 4  # nothing was written: again with more room
        if held < 0:
            raise SdgBug(f"compact table: growing {old} slots overran the keys still to read")
        self.form, self.mix = form, mix
        return held

    def close(self) -> None:
        self.memory.close()


#: the most slots of a compact table (about 3.7·10⁹ states at 86 %): a home is ⌊t·size / 2³²⌋
#: in 64-bit arithmetic, and past 2³² slots the top 32 bits no longer tell homes apart
MAX_SLOTS = 1 << 32
#: the least growth of the compact table (where its keys are too wide for the memory
#: target): a growth moves every key (13–24 ns a key), and growths of 1/16 keep keys of up
#: to about log₂(slots) + 33 bits within it
MIN_GROWTH = 1.0625
#: the compact table's memory target (issue 36 item 3): at most this many bytes a key
#: once it holds :data:`COMPACT_FREE_KEYS`, and as many as that many keys would take
#: before; a growth takes the largest size within it (down to :data:`MIN_GROWTH`)
COMPACT_STATE_BYTES = 6
COMPACT_FREE_KEYS = 10**7


def _memory_target(n: int) -> int:
    """The bytes a compact table holding n keys may take (:data:`COMPACT_STATE_BYTES`)."""
    return COMPACT_STATE_BYTES * max(n, COMPACT_FREE_KEYS)


def _doubles(size: int, kbits: int, n: int) -> bool:
    """Whether a table of ``size`` slots for K-bit keys holding n keys may double within
    :func:`_memory_target`."""
    return 8 * _table_words(2 * size, kbits) <= _memory_target(n)


def _load_percent(size: int, kbits: int) -> int:
    """How full a table of ``size`` slots for K-bit keys gets before it grows:
    :data:`COMPACT_LOAD_PERCENT` where it would double from there (:func:`_next_size`),
    :data:`COMPACT_FULL_PERCENT` where the memory target or :data:`MAX_SLOTS` sets its
    growth."""
    if 2 * size <= MAX_SLOTS and _doubles(size, kbits, size * COMPACT_LOAD_PERCENT // 100):
        return COMPACT_LOAD_PERCENT
    return COMPACT_FULL_PERCENT


def _next_size(size: int, kbits: int, n: int) -> int:
    """The size a table of ``size`` slots for K-bit keys grows to, holding n keys: twice
    this one while that keeps within :func:`_memory_target`; else the largest that does,
    but at least :data:`MIN_GROWTH` times this one (wider keys cannot keep to the target:
    each growth moves every key) and, where the remainders lose a bit, enough for
    :meth:`_Cleary.grow` to lay the keys in place (a block of the new table ending past
    the old one it replaces); never past :data:`MAX_SLOTS`."""
    budget = _memory_target(n)
    if _doubles(size, kbits, n):
        pick = 2 * size
    else:
        fits = [s for s in _sizes_below(2 * size, budget, kbits) if s > size]
        least = _round64(size * MIN_GROWTH + 1)  # (past it: laid in place, :func:`_laid_in_place`)
        pick = min(2 * size, max([least, *fits]))
    if not _laid_in_place(size, pick, kbits):  # narrower blocks: they must end further
        w = _remainder_bits(size, kbits)
        pick = min(2 * size, _round64(size * (3 + w) / (2 + w) * IN_PLACE_MARGIN))
    if pick > MAX_SLOTS:  # as far as it goes, if the keys can still be laid in place
        pick = MAX_SLOTS if _laid_in_place(size, MAX_SLOTS, kbits) else size
    return pick  # (size itself when the table cannot grow: grow refuses)


#: how much further the new blocks must end than the old ones (:func:`_laid_in_place`)
#: for the growth the policy picks: the clusters set aside below ``low`` stay few
IN_PLACE_MARGIN = 1.0625


def _laid_in_place(size: int, new: int, kbits: int, margin: float = IN_PLACE_MARGIN) -> bool:
    """Whether :meth:`_Cleary.grow` can lay a table of ``size`` slots out again in ``new``
    in place: its words end ``margin`` times further than the old ones (the remainders
    lose a bit where the size passes a power of two, so a block narrows)."""
    return (new * (3 + _remainder_bits(new, kbits))
            > margin * size * (3 + _remainder_bits(size, kbits)))


def _remainder_bits(size: int, kbits: int) -> int:
    """r = K − ⌊log₂ size⌋: a home's keys are an interval of at most 2^r keys."""
    return kbits - (size.bit_length() - 1)


def _table_words(size: int, kbits: int) -> int:
    """uint64 words of a table of ``size`` slots for K-bit keys (padded as
    :func:`_key_bits` pads them): blocks of 64 slots, each 3 words of their bits and r
    of their remainders."""
    return (size >> 6) * (3 + _remainder_bits(size, max(kbits, size.bit_length())))


def _round64(slots: float) -> int:
    """``slots`` rounded up to whole blocks of 64."""
    return 64 * math.ceil(slots / 64)


def _sizes_below(limit: int, budget: int, kbits: int) -> list[int]:
    """For each power of two below ``limit``, the largest size from it to the next (and
    to ``limit``) whose table takes at most ``budget`` bytes."""
    out = []
    for j in range(6, limit.bit_length()):
        lo, hi = 1 << j, min(1 << (j + 1), limit + 64)
        per_block = 8 * (3 + _remainder_bits(lo, max(kbits, j + 1)))
        size = min(hi - 64, (budget // per_block) * 64)
        if size >= lo:
            out.append(size)
    return out


def _key_bits(size: int, widths: list[int]) -> int:
    """The key bits K of a table of ``size`` slots for ids of ``widths`` bits: their sum,
    padded to more than ⌊log₂ size⌋ so that a remainder has a bit; :class:`KeyTooWide`
    past :data:`MAX_KEY_BITS`."""
    fields = sum(widths)
    if fields > MAX_KEY_BITS:
        raise KeyTooWide(f"a state's ids take {fields} bits, over the compact store's "
                         f"{MAX_KEY_BITS}")
    return max(fields, size.bit_length(), 2)


def _shifts(widths: list[int], dtype: Any = "uint64") -> Any:
    """The shifts of bit fields of ``widths``, the first lowest (the compact and the
    packed keys' layout)."""
    import numpy as np

    return np.array([sum(widths[:i]) for i in range(len(widths))], dtype=dtype)


def _widths(counts: list[int]) -> list[int]:
    """Field widths for ids below ``counts`` (and one more bit of room for new ids)."""
    return [max(1, c.bit_length()) for c in counts]


#: the largest id a narrow (uint16) record holds
NARROW = 0xFFFF


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

    from ...runtime.stopping import held_signals

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
        from ...kernels.records_native import rehash

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
        from ...kernels.protocol import BATCH, MAX_LOAD_PERCENT
        from ...kernels.records_native import rehash

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


class CompactStore:
    """The states of a breadth-first walk in an exact compact table (issue 27).

    A state is kept as its key only: its record's ids as bit fields (widths from
    the ids interned so far, :func:`_widths`), at most :data:`MAX_KEY_BITS` bits, in
    a Cleary table that stores each key's remainder and three bits.  Nothing else
    per state stays in memory: the frontier (as keys: :meth:`push`) and the tree (a
    code parent·letters + letter per state) go to :class:`_Spool` files, read back as
    the frontier moves on and, for the witnesses, when the walk ends.

    The table grows in place (:meth:`make_room`,
    :func:`~sdg_automata.kernels.compact.grow`: its map grows by ``mremap`` and the
    keys are laid out again from the last), so the memory is never more than the new
    table (issue 36 item 3; it was the two tables, 1.5 × the new one).  It doubles
    until it takes 6·10⁷ bytes, and from there grows to the largest size that keeps
    it within 6 bytes a key (:func:`_next_size`, :data:`COMPACT_STATE_BYTES`; filled to
    86 % first rather than 80 %, :func:`_load_percent`): from
    10⁷ keys on, a search that stops anywhere has had at most 6 bytes a state, where
    its keys allow it at growths of 1/16 (about K − log₂(slots) ≤ 33 bits).  An id that
    outgrows its field re-encodes every key (:meth:`fit`): the keys go out to a
    :class:`_Spool` (:func:`~sdg_automata.kernels.compact.drain`), the old table is
    let go, and they come back into the new one; so does a growth that would leave a
    remainder no bit (keys as narrow as the table's size, a small table).
    :class:`KeyTooWide` when the ids would need more than :data:`MAX_KEY_BITS` bits.

    Decisions (issue 27 item 2):

    * exact, not a fingerprint: the key is the record itself, so no two states
      are ever confused (TLC's 64-bit fingerprints and SPIN's bitstate hashing are
      probabilistic); the table never drops a key (a full table is grown first);
    * bit fields, not tree compression: the records are already LTSmin-style
      vectors of interned part ids (:mod:`sdg_automata.search.compiled.tables`), and their ids
      fit 35–56 bits on the benchmarks, so the key is the vector and Cleary's
      quotient (here the home) saves another log₂(slots) bits: r + 3 =
      K − ⌊log₂ slots⌋ + 3 bits a slot;
    * the same walk: :func:`~sdg_automata.kernels.compact.compact_bfs` numbers
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
    * the cost is CPU: every lookup walks its cluster, the walk's prefetches hiding
      most of its cache misses, and a growth moves every key (13–24 ns a key on a
      2²⁵-slot table at 79 % load, over runs on a shared machine; the growths of
      1.15 to 1.5 that keep wide keys within 6 bytes a state move each key two to
      seven times); see ``python -m benchmarks bench_store`` for the
      ratios to the table store's CPU.  Those growths are the price of the 6 bytes.  On
      the binary 2.9·10⁷-state benchmark (56-bit keys, 34–36-bit slots) the table grows
      18 times (by 1.15–1.21 from 10⁷ keys on); filled to 80 % only, it grew 24 times
      (by 1/16 to 1/8), and there, two interleaved rounds on a busy machine, the search
      took 24.1–25.0 CPU s, 17.4–21.3 s with 7 bytes a state and 14.0–14.9 s with 8
      (growths by doubling), against 14.9–16.5 s on the table store (on a quiet one,
      before the growth's cluster bound: 19.1, 17.9 and 13.2 s against 10.8).  A growth
      or a re-encoding is one pass that Ctrl-C does not interrupt (as the table store's
      growth).
    """

    def __init__(self, counts: list[int], letters: int, q: int = 12) -> None:  # 2^q slots
        import numpy as np

        self.letters = letters
        self.table = _Cleary(1 << q, _widths(counts))
        #: the frontier: each new state's key (:meth:`push`), and from which row on each
        #: layout of the keys (the table's fields then: they only widen) was written
        self.frontier = _Spool(np.uint64, ())
        self.layouts: list[tuple[int, Any, Any]] = []
        self._keys = np.empty(0, dtype=np.uint64)  # push's and read's scratch
        self.tree = _Spool(np.int64, ())
        self.peak = 0  # bytes of the table at its largest

    def add_first(self, record: Any) -> None:
        import numpy as np

        from ...kernels.compact_native import functions

        row = np.asarray(record, dtype=np.int32).reshape(1, -1)
        t = self.table
        key = sum(int(v) << int(f) for v, f in zip(row[0], t.fields, strict=True))  # key_of's
        with _wrapping():
            functions()["admit_keys"](t.slots, t.form, t.mix, np.array([key], dtype=np.uint64))
        self.push(row, np.array([-1], dtype=np.int64))

    def push(self, records: Any, codes: Any) -> None:
        """New states (their records and tree codes), in their order.  The records go to
        the spool as their keys in the table's layout (every id fits it: :meth:`fit`
        widens the fields before a wider id is made): 8 bytes a state where the int32
        records took 4 an id, and writing the spool was a fifth of the walk's CPU (the
        kernel copying into the page cache) on the 1.3·10⁷-state benchmark."""
        import numpy as np

        from ...kernels.compact_native import functions

        t, count = self.table, len(records)
        if not self.layouts or self.layouts[-1][1] is not t.fields:
            self.layouts.append((self.frontier.rows, t.fields, t.field_widths))
        if len(self._keys) < count:
            self._keys = np.empty(count, dtype=np.uint64)
        functions()["pack_rows"](records, count, t.fields, self._keys)
        self.frontier.append(self._keys[:count])
        self.tree.append(codes)

    def read(self, first: int, out: Any) -> int:
        """The records of states ``first`` … into ``out`` (as many as fit and exist, each
        key unpacked in the layout it was written in); how many."""
        import numpy as np

        from ...kernels.compact_native import functions

        if len(self._keys) < len(out):
            self._keys = np.empty(len(out), dtype=np.uint64)
        count = self.frontier.read(first, self._keys[:len(out)])
        unpack = functions()["unpack_rows"]
        for i, (start, fields, widths) in enumerate(self.layouts):
            end = self.layouts[i + 1][0] if i + 1 < len(self.layouts) else first + count
            lo, hi = max(start, first), min(end, first + count)
            if lo < hi:
                unpack(self._keys[lo - first:hi - first], hi - lo, fields, widths,
                       out[lo - first:hi - first])
        return count

    def release(self, first: int) -> None:
        """Hand back the frontier's rows before ``first`` (never read again)."""
        self.frontier.release(first)
        while len(self.layouts) > 1 and self.layouts[1][0] <= first:
            del self.layouts[0]

    def _rehash(self, size: int, widths: list[int], n: int) -> None:
        """The n keys into a new table of ``size`` slots for fields of ``widths``, through
        a spool: the old table is let go before the new one is made."""
        import numpy as np

        from ...kernels.compact_native import functions

        _key_bits(size, widths)  # KeyTooWide before anything moves
        old, fields = self.table, _shifts(widths)
        drain, admit_keys = functions()["drain"], functions()["admit_keys"]
        spool = _Spool(np.uint64, ())
        try:
            out, cursor = np.empty(1 << 16, np.uint64), np.zeros(1, np.int64)
            while cursor[0] < old.form[0]:
                with _wrapping():
                    got = int(drain(old.slots, old.form, old.mix, old.fields, old.field_widths,
                                    fields, cursor, out))
                if got < 0:  # one group is longer than out
                    out = np.empty(2 * len(out), np.uint64)
                    continue
                spool.append(out[:got])
            old.close()
            self.table = new = _Cleary(size, widths)
            held = 0
            for first in range(0, spool.rows, len(out)):
                got = spool.read(first, out)
                with _wrapping():
                    held += int(admit_keys(new.slots, new.form, new.mix, out[:got]))
        finally:
            spool.close()
        if held != n:
            raise SdgBug(f"compact store: {held} keys moved, {n} stored")
        self.peak = max(self.peak, self.table.memory.capacity * 8)

    def fit(self, counts: list[int], n: int) -> None:
        """Re-encode the n keys if an id (below ``counts``) no longer fits its field."""
        if any(c >= 1 << w for c, w in zip(counts, self.table.widths, strict=True)):
            self._rehash(self.table.size, [max(w, v) for w, v in
                                           zip(self.table.widths, _widths(counts), strict=True)],
                         n)

    def make_room(self, n: int, letters: int) -> None:
        """A table that takes ``letters`` more keys after n (grown as needed, to
        :meth:`_Cleary.next_size`)."""
        while n + letters > self.table.load:
            size = self.table.next_size(n)
            held = self.table.grow(size)
            if held is None:
                self._rehash(size, self.table.widths, n)
            elif held != n:
                raise SdgBug(f"compact store: {held} keys after growing, {n} stored")
            self.peak = max(self.peak, self.table.memory.capacity * 8)

    def runs(self, t: int) -> tuple[Any, Any]:
        """The letters of the tree path from state 0 to ``t`` as runs (letters, counts)
        in reading order, as :func:`~sdg_automata.kernels.bfs_native.tree_runs`: the
        codes are read back from the spool a block at a time, going up."""
        import numpy as np

        from ...kernels.compact_native import functions

        runs = np.zeros((1 << 12, 2), dtype=np.int64)
        cursor = np.array([0, -1], dtype=np.int64)
        codes = np.empty(1 << 16, dtype=np.int64)
        done: list[tuple[int, int]] = []
        while t > 0:
            base = max(0, t + 1 - len(codes))
            self.tree.read(base, codes[:t + 1 - base])
            t = int(functions()["climb"](codes, base, self.letters, t, runs, cursor))
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
        """Bytes held in memory at the most (the table and the frontier's scratch; the
        spools are files)."""
        return max(self.peak, self.table.memory.capacity * 8) + self._keys.nbytes

    def close(self) -> None:
        self.frontier.close()
        self.tree.close()
        self.table.close()
