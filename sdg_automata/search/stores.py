"""The arrays the compiled walks keep their states in, outside the process's heap.

The drivers of :mod:`sdg_automata.search.walks` store what the kernels find in
:class:`Growing` arrays (anonymous memory maps that grow by ``mremap``: no copy,
no touching of rows not written yet), queue a compact walk's frontier in a
:class:`_Spool` of unlinked temporary files (the page cache, not resident memory),
and keep the compact store's exact table (:class:`_Cleary`, whose kernels are in
:mod:`sdg_automata.kernels.compact`) in keys of at most :data:`MAX_KEY_BITS` bits.
"""

from __future__ import annotations

import math
from typing import Any

from ..errors import ResourceError, SdgBug

__all__ = ["COMPACT_LOAD_PERCENT", "MAX_KEY_BITS", "SPOOL_SEGMENT", "Growing", "KeyTooWide"]


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
