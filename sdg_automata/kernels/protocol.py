"""The protocol between the walk kernels and their drivers: statuses, cursor fields, sizes.

A kernel of :mod:`sdg_automata.kernels.automaton`, :mod:`~sdg_automata.kernels.compact`,
:mod:`~sdg_automata.kernels.packed` or :mod:`~sdg_automata.kernels.packed_lasso` never
raises and never calls Python: it returns one of these statuses and leaves where it
stopped in an int64 ``cursor`` (:mod:`sdg_automata.kernels.automaton` describes the
protocol).  Plain ints in a module of their own, without numba: a driver whose
kernels are linked as native code (:mod:`sdg_automata.kernels.native`) reads them
without importing numba (issue 36: numba's import is most of a 10⁶-state ``max``).
"""

from __future__ import annotations

__all__ = ["BATCH", "CAP", "COLUMNS", "DEAD", "DEPTH", "DONE", "FOUND", "FULL", "HARE", "IN",
           "KEYS_SHORT", "KEY_BITS", "LETTER", "MAX_LOAD_PERCENT", "MET", "MISS", "N", "OTHER",
           "OUT", "OVERFLOW", "OVERRUN", "PAUSE", "POS", "Q", "SCALE", "SID", "SPARE",
           "STASH_SHORT", "STEPS", "TAIL", "TORTOISE", "VALUE", "WORK"]

#: statuses a kernel returns
DONE, MISS, FULL, PAUSE, FOUND, CAP, MET, DEAD = range(8)

# cursor fields (int64 array shared by the kernels and their driver)
#: states stored, state being expanded, next letter, work done since the last return
N, SID, LETTER, WORK = range(4)
#: the value found (FOUND), the depth of the path (dfs)
VALUE, DEPTH = 4, 5
#: lasso: the hare's position, the steps of this round
POS, STEPS = 6, 7
#: rows of the lasso's state array (``cur``)
HARE, TORTOISE, SPARE, OTHER = range(4)
#: columns of a decoded instruction of the lasso on words
#: (:mod:`~sdg_automata.kernels.packed_lasso`)
COLUMNS = 11

#: the open-addressing table is kept at most this full (percent; the drivers grow it)
MAX_LOAD_PERCENT = 70

#: successors a breadth-first kernel computes before it looks them up (the store keeps
#: room for this many new states beyond the last)
BATCH = 64

# the packed table of :mod:`sdg_automata.kernels.packed`
#: the widest key (bits): the table holds key + 1 in a uint64, 0 marking a free slot
KEY_BITS = 63
#: slots past the last home (a cluster there runs on into them; one that would run past
#: them is FULL: the table grows)
TAIL = 1 << 10
#: the geometry of a table (int64 array ``form``): m · 2^q homes
Q, SCALE = range(2)
#: cursor field of :func:`~sdg_automata.kernels.packed.packed_bfs`: 1 when the last FULL
#: was a cluster reaching the end of the tail (the table must grow whatever its load)
OVERFLOW = 4

# the compact table of :mod:`sdg_automata.kernels.compact`
#: cursor fields of :func:`~sdg_automata.kernels.compact.compact_bfs`: rows written to its
#: output, rows in its input
OUT, IN = 6, 7
#: :func:`~sdg_automata.kernels.compact.grow`'s failures: a buffer too short for the keys
#: set aside or for the longest cluster (nothing written yet), the keys still to read
#: overwritten (a bug)
STASH_SHORT, KEYS_SHORT, OVERRUN = -1, -2, -3
