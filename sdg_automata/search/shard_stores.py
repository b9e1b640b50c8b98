"""The stores a shard of the sharded search keeps its states in (:mod:`sdg_automata.search.shard`).

A shard's store holds the states it owns: a table to dedupe the successors it receives
against, and the ids of its frontier to step them.  Two stores, with the kernels of
:mod:`sdg_automata.kernels.sharded` that walk each:

* :class:`PackedShard` (the default): a state is its packed key, one word, in the
  ordered table of :class:`~sdg_automata.search.compiled.packed.PackedStore` (the
  one-process walk's table store, issue 36), the frontier in its ring of keys; a
  lookup compares one word (:func:`~sdg_automata.kernels.sharded.absorb_packed`);
* :class:`RecordShard`: a state is its record of ids, in the record store
  (:class:`~sdg_automata.search.compiled.stores._Store`), for the instances whose ids
  outgrow a key (:class:`~sdg_automata.search.compiled.stores.KeyTooWide`: the driver
  runs the search again on it, as the one-process walk does).

Both take the batches received as streams in the shard's ids, merged by code
(:meth:`absorb`), and number their new states from the shard's count on,
in code order, noting each value's first new state as they go.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from .compiled.packed import PackedStore, key_widths
from .compiled.stores import NARROW, _Store

__all__ = ["STORES", "PackedShard", "RecordShard", "ShardStore"]


class ShardStore(Protocol):
    """What a shard asks of its store (the kernels' arguments are the store's own)."""

    def add_first(self, start: Any) -> None:
        """Store q₀, state 0."""

    def ids(self, s: int) -> list[int]:
        """The ids of state ``s`` (in the frontier)."""

    def expand(self, kernel: Any, tables: Any, gids: Any, hi: int, crows: Any, wc: int,
               keys: Any, shards: int, scratch: tuple[Any, ...], out: Any, codes: Any,
               fill: Any, cursor: Any, quantum: int) -> int:
        """:func:`~sdg_automata.kernels.sharded.expand` on this store (``scratch``: its
        ``block, origin, sums``): its status."""

    def fit(self, tables: Any, n: int) -> None:
        """Make room in the states' encoding for every id interned so far."""

    def absorb(self, kernel: Any, codes: Any, streams: tuple[Any, ...],
               firsts: tuple[Any, ...], cursor: Any) -> int:
        """:func:`~sdg_automata.kernels.sharded.absorb` on this store (``firsts``: its
        ``values, head, wc, cfinal, first``): its status."""

    def room(self, n: int, keep: int, cursor: Any) -> None:
        """Room for a block of states after n (the states from ``keep`` on kept)."""

    def nbytes(self, n: int) -> int:
        """The bytes the store holds for n states."""

    def close(self) -> None:
        """Give the memory back."""


class PackedShard:
    """A shard's states as packed keys (:class:`PackedStore`; its tree is not used: a
    shard keeps the codes of its states instead)."""

    def __init__(self, counts: list[int], fixed: list[int], letters: int) -> None:
        self.fixed = fixed
        self.store = PackedStore(key_widths(counts, fixed), letters)

    def add_first(self, start: Any) -> None:
        self.store.add_first(start)

    def ids(self, s: int) -> list[int]:
        """The ids of state ``s`` (in the frontier or the level being absorbed)."""
        return self.store.record(s)

    def expand(self, kernel: Any, tables: Any, gids: Any, hi: int, crows: Any, wc: int,
               keys: Any, shards: int, scratch: tuple[Any, ...], out: Any, codes: Any,
               fill: Any, cursor: Any, quantum: int) -> int:
        import numpy as np

        st = self.store
        src = np.empty((1, len(st.widths)), dtype=np.int32)
        return int(kernel.expand(
            tables.heap, tables.plan, tables.starts, src, st.shifts, st.masks, st.queue.array,
            gids, hi, crows, wc, keys, shards, *scratch, out, codes, fill, cursor, quantum))

    def fit(self, tables: Any, n: int) -> None:
        """Re-encode the keys if an id interned no longer fits its field (raises
        :class:`~sdg_automata.search.compiled.stores.KeyTooWide`)."""
        self.store.fit(tables.part_counts, self.fixed, n)

    def absorb(self, kernel: Any, codes: Any, streams: tuple[Any, ...],
               firsts: tuple[Any, ...], cursor: Any) -> int:
        import numpy as np

        from ..kernels.protocol import BATCH

        st = self.store
        picked = np.empty(BATCH, dtype=np.int64)
        keys = np.empty(BATCH, dtype=np.uint64)
        slots = np.empty(BATCH, dtype=np.int64)
        return int(kernel.absorb_packed(st.table.array, st.form, st.load, st.shifts,
                                        st.queue.array, codes, *streams, picked, keys, slots,
                                        *firsts, cursor))

    def room(self, n: int, keep: int, cursor: Any) -> None:
        """Room for a block of states after n, the states from ``keep`` on kept in the
        ring (a cluster that ran past the table's tail: ``cursor[OVERFLOW]``)."""
        from ..kernels.protocol import OVERFLOW

        self.store.make_room(n, keep, bool(cursor[OVERFLOW]))

    def nbytes(self, n: int) -> int:
        st = self.store
        return max(st.peak, st.table.capacity * 8) + st.queue.capacity * 8

    def close(self) -> None:
        self.store.close()


class RecordShard:
    """A shard's states as records of ids (:class:`_Store`, without tree or rows)."""

    def __init__(self, counts: list[int], fixed: list[int], letters: int) -> None:
        self.store = _Store(len(counts) + len(fixed), tree=False, letters=letters, rows=False,
                            narrow=all(f <= NARROW for f in fixed))

    def add_first(self, start: Any) -> None:
        self.store.add_first(start)

    def ids(self, s: int) -> list[int]:
        return [int(v) for v in self.store.records.array[s]]

    def expand(self, kernel: Any, tables: Any, gids: Any, hi: int, crows: Any, wc: int,
               keys: Any, shards: int, scratch: tuple[Any, ...], out: Any, codes: Any,
               fill: Any, cursor: Any, quantum: int) -> int:
        import numpy as np

        none = np.zeros(0, dtype=np.int64)  # no fields: states are records
        return int(kernel.expand(
            tables.heap, tables.plan, tables.starts, self.store.records.array, none, none,
            np.zeros(1, dtype=np.uint64), gids, hi, crows, wc, keys, shards, *scratch, out,
            codes, fill, cursor, quantum))

    def fit(self, tables: Any, n: int) -> None:
        """Widen the records to 32 bits once an id needs it."""
        self.store.fit(tables, n)

    def absorb(self, kernel: Any, codes: Any, streams: tuple[Any, ...],
               firsts: tuple[Any, ...], cursor: Any) -> int:
        import numpy as np

        from ..kernels.protocol import BATCH

        st = self.store
        records = st.records.array
        block = np.empty((BATCH, records.shape[1]), dtype=records.dtype)
        return int(kernel.absorb(records, st.table.array, st.tags.array, codes, *streams,
                                 block, np.empty(BATCH, dtype=np.uint64),
                                 np.empty(BATCH, dtype=np.int64), *firsts, cursor))

    def room(self, n: int, keep: int, cursor: Any) -> None:
        self.store.make_room(n)

    def nbytes(self, n: int) -> int:
        return self.store.nbytes(n)

    def close(self) -> None:
        self.store.close()


#: the stores by name, made from the part counts, the constraint's states and the letters
#: (the driver's choice, in this order: ``"records"`` where the ids outgrow a key)
STORES: dict[str, Callable[[list[int], list[int], int], ShardStore]] = {
    "packed": PackedShard, "records": RecordShard}
