"""The packed table store of the breadth-first walk: a table of keys probed by one word.

The ``compiled`` engine's breadth-first search keeps its states here when a state's
part ids fit a key of :data:`~sdg_automata.kernels.protocol.KEY_BITS` bits (else in the
record store, :class:`~sdg_automata.search.compiled.stores._Store`): the kernel is
:func:`~sdg_automata.kernels.packed.packed_bfs`, which documents the layout.  Issue 36:
the record store probed a table of record numbers and read the record behind each
hit (two random accesses a lookup, 30–36 bytes a state); here a lookup compares keys
in one cache line or two, and a state costs 8 / load bytes of table, 5 of tree and
its frontier's 8 while it waits, about 15–20 bytes in all.

Decisions:

* **fields with room**: a key's fields are as wide as the ids interned so far need,
  plus spare bits shared among them (:func:`key_widths`), so that ids may grow a few
  times over before the keys must be re-encoded (:meth:`PackedStore.fit`: every key
  anew, rare and early, since the step tables learn most parts in the first levels);
  ids that outgrow :data:`~sdg_automata.kernels.protocol.KEY_BITS` bits raise
  :class:`KeyTooWide`, and the driver runs the walk on the record store;
* **sized from the bound**: a walk that cannot store more than a known number of
  states (the budget's ``max_states``) starts with the table for that many
  (:func:`slots_for`) and never grows it, unless that table would take more than
  :data:`BOUND_SHARE` of the memory available, where it grows from small as any other;
* **growth in place**: the table grows by about :data:`GROWTH` (not doubling: the load
  stays between :data:`LOAD_PERCENT` / :data:`GROWTH` and :data:`LOAD_PERCENT`), by
  ``mremap`` and one sequential pass (:func:`~sdg_automata.kernels.packed.spread`): no
  second table, no rehash at random.
"""

from __future__ import annotations

from typing import Any

from ...errors import SdgBug
from .stores import Growing, KeyTooWide, _shifts, _wrapping

__all__ = ["BOUND_SHARE", "GROWTH", "LOAD_PERCENT", "PackedStore", "key_widths", "slots_for"]

#: the table is kept at most this full (percent): its probes read one or two cache lines
#: (linear probing, keys only) and are cheap even this full
LOAD_PERCENT = 85
#: the table grows to at least this many times its size (the sizes are m · 2^q, m = 4…7)
GROWTH = 1.4
#: a bound on the states sizes the table only while that table takes at most this share
#: of the memory available (a loose bound on a small walk would cost its whole table)
BOUND_SHARE = 0.25
#: the most spare bits a field gets beyond what its ids need so far
MAX_SPARE = 6
#: the table's first size (slots) when no bound sizes it
FIRST_SLOTS = 1 << 12
#: keys a growth may hold aside (see ``spread``)
STASH = 1 << 16
#: the frontier ring's first size (keys; a power of two, doubled as needed)
FIRST_RING = 1 << 12


def key_widths(counts: list[int], fixed: list[int], old: list[int] | None = None) -> list[int]:
    """Field widths for ids below ``counts`` (the groups, which may grow) and below
    ``fixed`` (the constraint's states, which may not), each at least as wide as in
    ``old``: what the ids need, then the spare bits of the key shared among the
    growing fields (at most :data:`MAX_SPARE` each).

    Raises
    ------
    KeyTooWide
        When the ids need more than :data:`~sdg_automata.kernels.protocol.KEY_BITS` bits.
    """
    from ...kernels.protocol import KEY_BITS

    need = [max(1, (c - 1).bit_length()) for c in [*counts, *fixed]]
    if old is not None:
        need = [max(a, b) for a, b in zip(need, old, strict=True)]
    total = sum(need)
    if total > KEY_BITS:
        raise KeyTooWide(f"a state's ids take {total} bits, over the packed key's {KEY_BITS}")
    spare = min(MAX_SPARE, (KEY_BITS - total) // max(1, len(counts)))
    return [w + spare for w in need[:len(counts)]] + need[len(counts):]


def slots_for(states: int) -> tuple[int, int]:
    """(q, m): the smallest table of m · 2^q slots (m = 4…7, q ≥ 10) holding ``states``
    keys below :data:`LOAD_PERCENT`."""
    q = 10
    while True:
        for m in (4, 5, 6, 7):
            if ((m << q) * LOAD_PERCENT) // 100 > states:
                return q, m
        q += 1


class PackedStore:
    """The states of a breadth-first walk as packed keys: the table, the frontier's ring of
    keys, the tree (``parent``, ``via``, as the record store's).

    Parameters
    ----------
    widths:
        The fields' widths (:func:`key_widths`).
    letters:
        The alphabet's size (the tree's letters).
    bound:
        The most states the walk may store, where known: the table is sized for them.
    """

    def __init__(self, widths: list[int], letters: int, bound: int | None = None) -> None:
        import numpy as np

        from ...kernels.protocol import BATCH, TAIL

        self.widths = widths
        self.shifts, self.masks = _fields(widths)
        q, m = slots_for(FIRST_SLOTS * LOAD_PERCENT // 100 - 1)
        if bound is not None:
            sized = slots_for(bound + BATCH)
            if _fits_memory((sized[1] << sized[0]) + TAIL):
                q, m = max((q, m), sized, key=lambda f: f[1] << f[0])
        self.form = np.array([q, m], dtype=np.int64)
        self.table = Growing(np.uint64, (), (m << q) + TAIL)
        self.queue = Growing(np.uint64, (), FIRST_RING)
        self.parent = Growing(np.int32, (), 1 << 12)
        self.via = Growing(np.uint8 if letters < 256 else np.int32, (), 1 << 12)
        #: how many times the table grew, and was rebuilt (re-encoded or recovered)
        self.grown = 0
        self.rebuilt = 0
        self.peak = 0

    @property
    def load(self) -> int:
        """The most keys the table may hold."""
        return ((int(self.form[1]) << int(self.form[0])) * LOAD_PERCENT) // 100

    def key(self, record: Any) -> int:
        """The key of a record (its ids)."""
        return sum(int(v) << int(s) for v, s in zip(record, self.shifts, strict=True))

    def record(self, s: int) -> list[int]:
        """The ids of state ``s`` (in the frontier)."""
        key = int(self.queue.array[s & (self.queue.capacity - 1)])
        return [(key >> int(s)) & int(m) for s, m in zip(self.shifts, self.masks, strict=True)]

    def add_first(self, record: Any) -> None:
        import numpy as np

        from ...kernels.bfs_native import functions

        key = np.array([self.key(record)], dtype=np.uint64)
        with _wrapping():
            if functions()["insert_keys"](self.table.array, self.form, key, 1) != 1:
                raise SdgBug("packed store: the first key found no slot")
        self.queue.array[0] = key[0]
        self.parent.array[0] = 0
        self.via.array[0] = 0

    def fit(self, counts: list[int], fixed: list[int], n: int) -> None:
        """Re-encode every key if an id (below ``counts``) no longer fits its field
        (:class:`KeyTooWide` when they would need too many bits)."""
        if all(c - 1 <= m for c, m in zip(counts, self.masks[:len(counts)], strict=True)):
            return
        import numpy as np

        widths = key_widths(counts, fixed, self.widths)
        shifts, masks = _fields(widths)

        def recode(keys: Any) -> Any:
            out = np.zeros_like(keys)
            for s, m, t in zip(self.shifts, self.masks, shifts, strict=True):
                out |= ((keys >> np.uint64(s)) & np.uint64(m)) << np.uint64(t)
            return out

        table = self.table.array
        keys = recode(table[table != 0] - np.uint64(1))
        if len(keys) != n:
            raise SdgBug(f"packed store: {len(keys)} keys in the table, {n} stored")
        self.queue.array[...] = recode(self.queue.array)
        self.widths, self.shifts, self.masks = widths, shifts, masks
        self._rebuild(keys, (int(self.form[0]), int(self.form[1])))

    def make_room(self, n: int, sid: int, overflow: bool) -> None:
        """Room for a block of states after state n, the frontier starting at ``sid``: the
        tree's rows, the ring, the table (below its load; larger when a cluster ran
        past its tail: ``overflow``)."""
        from ...kernels.protocol import BATCH

        if n + BATCH >= self.parent.capacity:
            for g in (self.parent, self.via):
                g.grow(2 * g.capacity)
        if n + BATCH - sid >= self.queue.capacity:
            self._widen_queue(n, sid)
        if overflow or n + BATCH >= self.load:
            self._grow(n)

    def _widen_queue(self, n: int, sid: int) -> None:
        """Double the ring, keeping the keys of states ``sid`` … n − 1 at their places."""
        import numpy as np

        old = self.queue.capacity
        live = np.arange(sid, n, dtype=np.int64)
        keys = self.queue.array[live & (old - 1)].copy()
        self.queue.grow(2 * old)
        self.queue.array[live & (2 * old - 1)] = keys

    def _grow(self, n: int) -> None:
        """The table by :data:`GROWTH` at least, in place (``spread``)."""
        import numpy as np

        from ...kernels.bfs_native import functions
        from ...kernels.protocol import TAIL

        size = int(self.form[1]) << int(self.form[0])
        q, m = slots_for(max(n + (n >> 2), int(size * GROWTH * LOAD_PERCENT) // 100))
        old_end = self.table.capacity
        self.form[:] = (q, m)
        self.table.grow((m << q) + TAIL)
        self.grown += 1
        stash = np.empty(STASH, dtype=np.uint64)
        with _wrapping():
            left = functions()["spread"](self.table.array, old_end, self.form, stash)
        if left < 0:  # a cluster ran past the tail, or too many keys were held aside
            table = self.table.array
            keys = np.concatenate([table[table != 0] - np.uint64(1), stash[:-1 - left]])
            self._rebuild(keys, slots_for(n + (n >> 1)))
        self.peak = max(self.peak, self.table.capacity * 8)

    def _rebuild(self, keys: Any, size: tuple[int, int]) -> None:
        """A new table of ``size`` (or larger, until they fit) holding ``keys``."""
        import numpy as np

        from ...kernels.bfs_native import functions
        from ...kernels.protocol import TAIL

        q, m = size
        keys = np.ascontiguousarray(keys, dtype=np.uint64)
        while True:
            self.table.close()
            self.form[:] = (q, m)
            self.table = Growing(np.uint64, (), (m << q) + TAIL)
            with _wrapping():
                if functions()["insert_keys"](self.table.array, self.form, keys,
                                              len(keys)) == len(keys):
                    break
            q += 1
        self.rebuilt += 1
        self.peak = max(self.peak, self.table.capacity * 8 + keys.nbytes)

    def scratch(self) -> tuple[Any, ...]:
        """The scratch arrays of :func:`~sdg_automata.kernels.packed.packed_bfs` for this
        store's records (src, block, keys, slots, origin): made once a walk, here, so that
        the kernel allocates nothing."""
        import numpy as np

        from ...kernels.protocol import BATCH

        fields = len(self.widths)
        return (np.empty((1, fields), dtype=np.int32), np.empty((BATCH, fields), dtype=np.int32),
                np.empty(BATCH, dtype=np.uint64), np.empty(BATCH, dtype=np.int64),
                np.empty(BATCH, dtype=np.int64))

    def nbytes(self, n: int) -> int:
        """Bytes the store holds for n states at the most (the table at its largest, the
        ring, the tree's rows written)."""
        return (max(self.peak, self.table.capacity * 8) + self.queue.capacity * 8
                + n * (self.parent.row_bytes + self.via.row_bytes))

    def close(self) -> None:
        for g in (self.table, self.queue, self.parent, self.via):
            g.close()


def _fields(widths: list[int]) -> tuple[Any, Any]:
    """(shifts, masks) of fields of ``widths`` bits, the first lowest."""
    import numpy as np

    return _shifts(widths, np.int64), np.array([(1 << w) - 1 for w in widths], dtype=np.int64)


def _fits_memory(slots: int) -> bool:
    """Whether a table of ``slots`` takes at most :data:`BOUND_SHARE` of the memory
    available (unknown: at most 2³⁰ bytes)."""
    from ...runtime.budget import available_bytes

    free = available_bytes()
    return slots * 8 <= (BOUND_SHARE * free if free is not None else 1 << 30)
