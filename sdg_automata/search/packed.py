"""A packed store of states: a set of ints numbered in insertion order (issue 11 §1).

A Python ``set`` of n-bit ints costs about 110 bytes per state for a few
hundred bits (the int object, the set's slot at its load, the queue's pointer).
:class:`PackedStates` keeps each state as a fixed-width record in one
``bytearray``, 32 bits of its hash in an ``array``, and an open-addressing
table (linear probing, load at most 1/2) of record numbers in another
``array``: about ``width + 4 + 4/load`` bytes per state, with no object per
state.  Records are
numbered 0, 1, … in the order they were added, so the store is also the
breadth-first queue of :func:`sdg_automata.search.decide.max_grundy`'s search.
"""

from __future__ import annotations

from array import array

from ..errors import InputError

__all__ = ["PackedStates"]

#: initial number of slots of the table (a power of two)
_SLOTS = 1 << 10


class PackedStates:
    """A set of non-negative ints below ``2**bits``, stored packed, numbered by insertion.

    Parameters
    ----------
    bits:
        Every state is below ``2**bits`` (for the Step 1–5 automaton: the
        number of items, plus the constraint's bits in a product).

    Notes
    -----
    Not a general container: no removal, no iteration but by number.  The
    width is fixed once; a larger int raises ``OverflowError`` from
    ``int.to_bytes`` rather than being stored wrongly.
    """

    __slots__ = ("_hashes", "_mask", "_records", "_table", "width")

    def __init__(self, bits: int):
        if bits < 1:
            raise InputError(f"a packed store needs at least one bit per state, not {bits}")
        self.width = (bits + 7) // 8
        self._records = bytearray()
        self._hashes = array("I")  # 32 bits of each hash: enough for 2³² slots
        self._table = array("i", bytes(4 * _SLOTS))  # record number + 1; 0: empty
        self._mask = _SLOTS - 1

    def __len__(self) -> int:
        return len(self._hashes)

    def __getitem__(self, number: int) -> int:
        """The state added ``number``-th (0-based)."""
        w = self.width
        if not 0 <= number < len(self._hashes):
            raise IndexError(number)
        return int.from_bytes(self._records[number * w:(number + 1) * w], "little")

    def __contains__(self, q: int) -> bool:
        return self.add(q, insert=False) is False

    def add(self, q: int, *, insert: bool = True) -> bool | None:
        """Add ``q``: ``True`` if it was new (it then has number ``len(self) - 1``),
        ``False`` if it was there; with ``insert=False`` only look (``None``: absent)."""
        key = q.to_bytes(self.width, "little")
        h = hash(key) & 0xFFFFFFFF
        table, hashes, mask, w = self._table, self._hashes, self._mask, self.width
        slot = h & mask
        r = table[slot]
        while r:  # linear probing; the hash is compared before the record
            r -= 1
            if hashes[r] == h and self._records[r * w:(r + 1) * w] == key:
                return False
            slot = (slot + 1) & mask
            r = table[slot]
        if not insert:
            return None
        table[slot] = len(hashes) + 1
        hashes.append(h)
        self._records += key
        if 2 * len(hashes) > len(table):
            self._grow()
        return True

    def _grow(self) -> None:
        """Double the table and put every record back (their hashes are kept)."""
        size = 2 * len(self._table)
        table = array("i", bytes(4 * size))
        mask = size - 1
        for r, h in enumerate(self._hashes, 1):
            slot = h & mask
            while table[slot]:
                slot = (slot + 1) & mask
            table[slot] = r
        self._table, self._mask = table, mask

    @property
    def nbytes(self) -> int:
        """Bytes held by the records, hashes and table (their allocations, not the headers)."""
        return (len(self._records) + self._hashes.itemsize * len(self._hashes)
                + self._table.itemsize * len(self._table))
