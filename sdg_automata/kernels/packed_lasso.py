"""The lasso's kernels on states packed in one machine word (numba).

Brent's cycle detection over a one-letter walk (driver:
:func:`sdg_automata.search.compiled.drive.lasso`) stores O(1) states and spends
its time in the step, so here a state is one ``uint64``: its record of part ids
(:class:`~sdg_automata.search.compiled.tables.StepTables`, then the constraint's
state) as bit fields at the shifts ``shifts`` — the key of the compact store
(:func:`~sdg_automata.kernels.compact.key_of`; the widths are the driver's, from
the ids interned so far).  The step (in :func:`move`) runs the letter's plan
decoded once per call (:func:`decode`): an instruction of one or two old parts
(all of the hardness family's but one) reads its inputs from the word by a shift
and a mask and its result from its table; a chain of new parts runs as
:func:`~sdg_automata.kernels.step.step` runs it (the same helpers), over the ids
of the state being made.  Comparing two states is comparing two words.

The reference is the vector walk, :func:`sdg_automata.kernels.automaton.walk` and
:func:`~sdg_automata.kernels.automaton.meet` (which the driver runs when the
fields need more than 64 bits), itself held to
``strategies.lasso._lasso_python``: :func:`move` (the hare alone, or with ``meeting`` the
tortoise and the hare: ``walk`` and ``meet``) takes the same arguments but the layout,
and leaves the same rows of ``cur``, cursor and statuses.  The states enter and leave a
call unpacked, in the rows of ``cur``, so that a miss is learned, and the layout widened,
between calls as for the vector walk.  An id that does not fit its field (a layout not
refitted after a lesson: a bug) is reported as a miss, which the driver's loop then sees
twice.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import jit
from .packed import pack, unpack
from .protocol import (
    COLUMNS,
    DEAD,
    DONE,
    FOUND,
    HARE,
    MET,
    MISS,
    PAUSE,
    POS,
    SID,
    STEPS,
    TORTOISE,
    WORK,
)
from .step import (
    Array,
    _chain_any,
    _chain_new,
    _inline,
)

__all__ = ["COLUMNS", "decode", "move", "walk"]

#: columns of a decoded instruction (int64 rows of ``ops``): kind, group, table offset,
#: its columns, where it starts in the plan, the shifts and masks of its (old) inputs,
#: and the shift and mask of its group's field
#: (:data:`~sdg_automata.kernels.protocol.COLUMNS` of them)
KIND, GROUP, OFF, COLS, AT, S0, M0, S1, M1, GS, GM = range(COLUMNS)


@jit
def _length(plan: Array, at: int) -> Any:  # an int64
    """The length of the instruction at ``plan[at]`` (``tables._instruction``'s forms)."""
    kind, r = plan[at], plan[at + 2]
    if kind == 0:
        return 2
    if kind == 1:
        return 4
    if kind == 2:
        return 6
    if kind == 3:  # r (group, projection), r − 1 (offset, columns)
        return 3 + 2 * r + 2 * (r - 1)
    return 3 + 3 * r + 2 * max(1, r - 1)  # r (group, new, projection), levels


@jit
def decode(plan: Array, at: int, shifts: Array, masks: Array, ops: Array,
           new: Array) -> tuple[int, int, bool]:
    """``ops`` ← the instructions of the plan at ``plan[at]`` (a letter's: kinds as
    :func:`~sdg_automata.kernels.step.step` reads them) with the fields of their old
    inputs and of their groups: first those that read old parts only (kinds 1 and 2,
    as one: one old part is two with the second's field empty), then the chains in
    their order (kinds 3 and 4, which read the new parts of groups made before them);
    an idle group's new id (0) is written to ``new`` here, once.  Returns (the number
    of the first, the number of the chains, whether a chain reads old parts: the step
    then unpacks the word first)."""
    n = plan[at]
    tables = chains = 0
    mixed = False
    for chaining in (False, True):
        i = at + 1
        for _ in range(n):
            kind, g = plan[i], plan[i + 1]
            if kind == 0:
                new[0, g] = 0
            elif (kind >= 3) == chaining:
                e = tables + chains
                ops[e, KIND], ops[e, GROUP], ops[e, AT] = kind, g, i
                ops[e, GS], ops[e, GM] = shifts[g], masks[g]
                if kind == 1 or kind == 2:
                    ops[e, S0], ops[e, M0] = shifts[plan[i + 2]], masks[plan[i + 2]]
                    if kind == 1:
                        ops[e, S1], ops[e, M1] = 0, 0
                        ops[e, OFF], ops[e, COLS] = plan[i + 3], 1
                    else:
                        ops[e, S1], ops[e, M1] = shifts[plan[i + 3]], masks[plan[i + 3]]
                        ops[e, OFF], ops[e, COLS] = plan[i + 4], plan[i + 5]
                    tables += 1
                else:
                    mixed |= kind == 4
                    chains += 1
            i += _length(plan, i)
    return tables, chains, mixed


@_inline
def _field(w: Any, shift: int, mask: int) -> Any:  # an int64
    """The id in the field (``shift``, ``mask``) of the word ``w``."""
    return np.int64((w >> np.uint64(shift)) & np.uint64(mask))


@jit
def move(heap: Array, plan: Array, at: int, letter: int, crows: Array, cfinal: Array, wc: int,
         values: Array, head: int, settle: int, first: Array, record: int, cur: Array,
         shifts: Array, masks: Array, limit: int, cursor: Array, quantum: int, meeting: bool,
         ops: Array, new: Array, old: Array, ws: Array, moved: Array) -> int:
    """:func:`~sdg_automata.kernels.automaton.walk` (the hare alone) or, ``meeting``,
    :func:`~sdg_automata.kernels.automaton.meet` (the tortoise, then the hare, in
    lockstep): one loop with the step written once in it.  Its scratch comes from
    the caller, zeroed (a native entry allocates nothing:
    :mod:`~sdg_automata.kernels.lasso_native`): ``ops`` (``plan[at]`` × :data:`COLUMNS`,
    int64), ``new`` and ``old`` (1 × groups, int64), ``ws`` and ``moved`` (2, uint64).

    The step is :func:`~sdg_automata.kernels.step.step` on words, the plan as
    :func:`decode` leaves it: the old parts' lookups read their inputs from the word
    (no branch but the loop's; one check of all their results), the chains run as
    ``step`` runs them over ``new``, the groups' new ids (with ``old``, the ids of the
    word, unpacked when a chain reads them).  (Not a function of its own: numba would
    count references to its arrays at every step.)"""
    groups = cur.shape[1] - wc
    tables, chains, mixed = decode(plan, at, shifts, masks, ops, new)
    # the two states as words: ws[0] the tortoise, ws[1] the hare
    ws[1] = pack(cur, HARE, shifts)
    chase = cur[TORTOISE, 0] >= 0  # −1: a tortoise never met
    ws[0] = pack(cur, TORTOISE, shifts) if chase else ws[1]
    lo = 0 if meeting else 1  # the words that move
    hs, hm = shifts[head], masks[head]
    cs, cm = (shifts[groups], masks[groups]) if wc else (0, 0)
    pos, steps = cursor[POS], cursor[STEPS]
    work = 0
    status = DONE
    while True:
        if meeting:
            if ws[0] == ws[1]:
                status = MET
                break
        elif steps >= limit:
            break
        if work >= quantum:
            status = PAUSE
            break
        rc = 0
        m = lo
        while m < 2:
            w = ws[m]
            d = np.int64(0)
            if wc:
                d = np.int64(crows[letter, _field(w, cs, cm)])
                if d < 0:
                    rc = 2
                    break
            out = np.uint64(d) << np.uint64(cs)
            bad = np.int64(0)  # result bits outside their fields: −1 (unknown) has them
            for e in range(tables):
                c = np.int64(heap[ops[e, OFF] + _field(w, ops[e, S0], ops[e, M0]) * ops[e, COLS]
                                  + _field(w, ops[e, S1], ops[e, M1])])
                bad |= c & ~ops[e, GM]
                new[0, ops[e, GROUP]] = c
                out |= np.uint64(c) << np.uint64(ops[e, GS])
            if bad:
                rc = 1
                break
            if mixed:
                for i in range(groups):
                    old[0, i] = _field(w, shifts[i], masks[i])
            for e in range(tables, tables + chains):
                if ops[e, KIND] == 3:
                    c, _ = _chain_new(heap, plan, ops[e, AT], new, 0)
                else:
                    c, _ = _chain_any(heap, plan, ops[e, AT], old, 0, new, 0)
                if c & ~ops[e, GM]:
                    rc = 1
                    break
                new[0, ops[e, GROUP]] = c
                out |= np.uint64(c) << np.uint64(ops[e, GS])
            if rc:
                break
            moved[m] = out
            m += 1
        if rc == 1:
            status = MISS
            if meeting:
                cursor[SID] = TORTOISE if m == 0 else HARE
            break
        if rc == 2:
            status = DEAD
            break
        if meeting:
            ws[0], ws[1] = moved[0], moved[1]
            steps += 1
            work += 2
            continue
        ws[1] = moved[1]
        pos += 1
        steps += 1
        work += 1
        if record:
            v = values[_field(ws[1], hs, hm)]
            if v >= 0 and first[v] < 0 and (wc == 0 or cfinal[_field(ws[1], cs, cm)]):
                first[v] = pos
                if v >= settle:
                    status = FOUND
                    break
        if chase and ws[1] == ws[0]:
            status = MET
            break
    unpack(ws[1], shifts, masks, cur, HARE)
    if meeting:
        unpack(ws[0], shifts, masks, cur, TORTOISE)
        cursor[STEPS], cursor[WORK] = steps, work
    else:
        cursor[POS], cursor[STEPS], cursor[WORK] = pos, steps, work
    return status


def walk(heap: Array, plan: Array, at: int, letter: int, crows: Array, cfinal: Array, wc: int,
         values: Array, head: int, settle: int, first: Array, record: int, cur: Array,
         shifts: Array, masks: Array, limit: int, cursor: Array, quantum: int) -> int:
    """:func:`sdg_automata.kernels.automaton.walk` on words: the hare (``cur[HARE]``) moved
    by up to ``limit`` steps, with the same statuses, cursor and rows of ``cur`` (the
    tortoise never met when its row is −1).  ``shifts`` and ``masks``: the fields of the
    record (the groups', then the constraint's when ``wc``).  :func:`move` with its scratch
    made here (:func:`~sdg_automata.kernels.lasso_native.scratch`), as the driver calls it."""
    from .lasso_native import scratch

    return int(move(heap, plan, at, letter, crows, cfinal, wc, values, head, settle, first,
                    record, cur, shifts, masks, limit, cursor, quantum, False,
                    *scratch(plan, at, cur.shape[1] - wc)))
