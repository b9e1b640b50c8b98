"""The compiled step of the Step 1–5 automaton and its state store (numba).

The foundation every walk kernel shares (:mod:`sdg_automata.kernels.automaton`,
:mod:`sdg_automata.kernels.compact`): :func:`step`, δ(q, a) by table lookups
over states stored as vectors of per-group part ids
(:class:`~sdg_automata.search.compiled.tables.StepTables`), whose reference it must
equal is :meth:`GrundyAutomaton.step
<sdg_automata.automaton.construction.GrundyAutomaton.step>` (``step_reference``
behind the memo); the open-addressing table of record numbers with 8-bit tags
(:func:`rehash` and the probes); and the statuses and cursor fields of the
kernels' protocol, which :mod:`sdg_automata.kernels.automaton` describes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from . import jit

#: a numpy array (numba types it at the call)
Array = Any

__all__ = ["Array", "first_value", "highest", "lowest", "popcount", "prefetch", "rehash", "step"]

#: a helper inlined into its callers (a kernel's hot loop)
_inline = functools.partial(jit, inline=True)


def _prefetch_reference(array: Array, index: int) -> None:
    """:func:`prefetch` in Python: a hint, so nothing to do."""


def _prefetch() -> Any:
    """``prefetch(array, index)``: LLVM's prefetch of the cache line of ``array[index]``
    (for a read, into every cache level), where numba compiles; :func:`_prefetch_reference`
    where it runs Python (``NUMBA_DISABLE_JIT``).  A kernel that knows its next lookups
    asks for their lines first and the misses overlap, where a load would hold the
    processor until its line comes (issue 36: the compact store's walk on 1.3·10⁷ states,
    1.6–1.85 × the table store's CPU without it, 1.23 × with it)."""
    from numba.core import config

    if getattr(config, "DISABLE_JIT", False):
        return _prefetch_reference
    from llvmlite import ir
    from numba.core import cgutils as untyped
    from numba.core import types
    from numba.extending import intrinsic

    cgutils: Any = untyped  # (numba's helpers carry no annotations)

    def typer(typingctx: Any, array: Any, index: Any) -> Any:
        def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
            kind = signature.args[0]
            item = cgutils.get_item_pointer(context, builder, kind,
                                            context.make_array(kind)(context, builder, args[0]),
                                            [args[1]])
            byte = ir.IntType(8).as_pointer()
            word = ir.IntType(32)
            hint = cgutils.get_or_insert_function(  # (named for typed pointers, numba's IR)
                builder.module, ir.FunctionType(ir.VoidType(), [byte, word, word, word]),
                "llvm.prefetch.p0i8")
            # (address, read, locality 3: keep in every level, data cache)
            builder.call(hint, [builder.bitcast(item, byte), ir.Constant(word, 0),
                                ir.Constant(word, 3), ir.Constant(word, 1)])
            return context.get_dummy_value()

        return types.void(array, index), codegen

    return intrinsic(typer)


#: the prefetch hint (see :func:`_prefetch`)
prefetch = _prefetch()


def popcount_reference(x: Any) -> int:
    """The set bits of a uint64 (SWAR), :data:`popcount`'s reference."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2))
                                                & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


def highest_reference(x: Any) -> int:
    """The index of the highest set bit of a nonzero uint64 (a binary search),
    :data:`highest`'s reference."""
    i = 0
    for s in (32, 16, 8, 4, 2, 1):
        if x >> np.uint64(s):
            x >>= np.uint64(s)
            i += s
    return i


def lowest_reference(x: Any) -> int:
    """The index of the lowest set bit of a nonzero uint64, :data:`lowest`'s reference."""
    return highest_reference(x & (~x + np.uint64(1)))


def _bit_scans() -> tuple[Callable[[Any], int], Callable[[Any], int], Callable[[Any], int]]:
    """``popcount(x)``, ``highest(x)`` and ``lowest(x)`` of a uint64 (the last two of a
    nonzero one), as int64: LLVM's ``ctpop``, ``ctlz`` and ``cttz`` where numba
    compiles (one instruction each on x86-64 with POPCNT and BMI; LLVM expands them
    where the processor lacks them), the references otherwise.  The references are
    branchy, and a Cleary table's walks take a highest or lowest bit and a popcount a
    block: their branches were mispredicted on random bit words."""
    from numba.core import config

    if getattr(config, "DISABLE_JIT", False):
        return popcount_reference, highest_reference, lowest_reference
    from llvmlite import ir
    from numba.core import cgutils as untyped
    from numba.core import types
    from numba.extending import intrinsic

    cgutils: Any = untyped  # (numba's helpers carry no annotations)
    word, flag = ir.IntType(64), ir.IntType(1)

    def scan(name: str) -> Any:
        def typer(typingctx: Any, x: Any) -> Any:
            if not isinstance(x, types.Integer) or getattr(x, "bitwidth", 0) != 64:
                return None

            def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
                if name == "ctpop":
                    fn = cgutils.get_or_insert_function(
                        builder.module, ir.FunctionType(word, [word]), "llvm.ctpop.i64")
                    return builder.call(fn, [args[0]])
                fn = cgutils.get_or_insert_function(  # (zero is poison: never asked)
                    builder.module, ir.FunctionType(word, [word, flag]), f"llvm.{name}.i64")
                n = builder.call(fn, [args[0], ir.Constant(flag, 1)])
                return builder.sub(ir.Constant(word, 63), n) if name == "ctlz" else n

            return types.int64(x), codegen

        return intrinsic(typer)

    return scan("ctpop"), scan("ctlz"), scan("cttz")


#: bit counts and scans of a uint64 word (see :func:`_bit_scans`)
popcount, highest, lowest = _bit_scans()

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX = np.uint64(0xFF51AFD7ED558CCD)


@_inline
def _chain_new(heap: Array, plan: Array, at: int, dst: Array, drow: int) -> tuple[int, int]:
    """Kind 3 of :func:`step` (``NEW``: r projected new parts chained), the instruction at
    ``plan[at]``: (the group's part id, or −1 for an entry not learned; where the next
    instruction starts).  The new parts are read from ``dst[drow]`` (the state being made)."""
    r = plan[at + 2]
    at += 3
    lv = at + 2 * r
    c = heap[plan[at + 1] + dst[drow, plan[at]]]
    if c < 0:
        return -1, lv
    for _j in range(1, r):
        at += 2
        p = heap[plan[at + 1] + dst[drow, plan[at]]]
        if p < 0:
            return -1, lv
        c = heap[plan[lv] + c * plan[lv + 1] + p]
        if c < 0:
            return -1, lv
        lv += 2
    return c, lv


@_inline
def _chain_any(heap: Array, plan: Array, at: int, src: Array, srow: int, dst: Array,
               drow: int) -> tuple[int, int]:
    """Kind 4 of :func:`step` (``ANY``: any mix of old parts, from ``src[srow]``, and new
    ones, from ``dst[drow]``), as :func:`_chain_new`."""
    r = plan[at + 2]
    at += 3
    lv = at + 3 * r
    c = 0
    for j in range(r):
        p = dst[drow, plan[at]] if plan[at + 1] else src[srow, plan[at]]
        if plan[at + 2] >= 0:
            p = heap[plan[at + 2] + p]
            if p < 0:
                return -1, lv
        at += 3
        if j == 0:
            c = p
            if r > 1:
                continue
            p = 0
        c = heap[plan[lv] + c * plan[lv + 1] + p]
        lv += 2
        if c < 0:
            return -1, lv
    return c, lv


@_inline
def step(heap: Array, plan: Array, at: int, src: Array, srow: int, dst: Array,
         drow: int) -> int:
    """dst[drow] ← δ(src[srow], a), a the letter whose plan starts at ``plan[at]``: one
    instruction per group (``sdg_automata.search.compiled.tables._instruction`` documents
    them; states are rows of 2-D arrays, so no view is made in the hot loop).

    Every table covers every id that exists, so an entry is read without a bounds
    check; ``-1`` is an entry not learned yet: the function returns 1 (the row is
    then garbage) and the caller asks Python to learn the step
    (:meth:`StepTables.learn <sdg_automata.search.compiled.tables.StepTables.learn>`).  Else 0.
    """
    entries = plan[at]
    at += 1
    for _ in range(entries):
        kind = plan[at]
        g = plan[at + 1]
        if kind == 0:  # idle
            dst[drow, g] = 0
            at += 2
            continue
        if kind == 1:  # one old part
            c = heap[plan[at + 3] + src[srow, plan[at + 2]]]
            at += 4
        elif kind == 2:  # two old parts
            c = heap[plan[at + 4] + src[srow, plan[at + 2]] * plan[at + 5]
                     + src[srow, plan[at + 3]]]
            at += 6
        elif kind == 3:  # r projected new parts
            c, at = _chain_new(heap, plan, at, dst, drow)
        else:  # any mix
            c, at = _chain_any(heap, plan, at, src, srow, dst, drow)
        if c < 0:
            return 1
        dst[drow, g] = c
    return 0


@jit
def _hash(records: Array, row: int) -> Any:  # a numpy uint64
    """64 bits of hash of ``records[row]`` (multiply–xorshift per word, then a final mix)."""
    h = _GOLDEN
    for i in range(records.shape[1]):
        h = (h ^ np.uint64(records[row, i])) * _GOLDEN
        h ^= h >> np.uint64(29)
    h ^= h >> np.uint64(32)
    h *= _MIX
    h ^= h >> np.uint64(29)
    return h


@jit
def _find(records: Array, row: int, table: Array, tags: Array) -> tuple[int, int, int]:
    """(slot, number, tag) of the stored record equal to ``records[row]``; number -1:
    none (the slot is then free for it).  Linear probing over a power-of-two table of
    record numbers (+1; 0 is free); ``tags[slot]`` holds 8 other bits of the record's
    hash, so a probe reads a record only when its tag matches (1 in 256 by chance)."""
    width = records.shape[1]
    h = _hash(records, row)
    tag = np.int64(h >> np.uint64(56))
    mask = table.shape[0] - 1
    slot = np.int64(h & np.uint64(mask))
    while True:
        e = table[slot]
        if e == 0:
            return slot, -1, tag
        if tags[slot] == tag:
            r = e - 1
            same = True
            for i in range(width):
                if records[r, i] != records[row, i]:
                    same = False
                    break
            if same:
                return slot, r, tag
        slot = (slot + 1) & mask


@jit
def rehash(records: Array, n: int, table: Array, tags: Array, slots: Array,
           marks: Array) -> None:
    """Put records 0 … n−1 (distinct) into the zeroed ``table`` and its ``tags``.

    In blocks: the hashes of a block of records first (as many as ``slots`` and
    ``marks``, int64 scratch from the caller: a native entry allocates nothing), then
    their insertions, whose random accesses the processor overlaps (2.5× faster than
    one at a time with blocks of 32)."""
    block = slots.shape[0]
    mask = table.shape[0] - 1
    for base in range(0, n, block):
        m = min(block, n - base)
        for j in range(m):
            h = _hash(records, base + j)
            marks[j] = np.int64(h >> np.uint64(56))
            slots[j] = np.int64(h & np.uint64(mask))
        for j in range(m):
            slot = slots[j]
            while table[slot] != 0:
                slot = (slot + 1) & mask
            table[slot] = base + j + 1
            tags[slot] = marks[j]


def _first_value(values: Array, found_at: Array, rec: Array, row: int, head: int, groups: int,
                 wc: int, cfinal: Array, state: int, settle: int) -> bool:
    """A breadth-first walk's new state ``state`` (its ids in ``rec[row]``): its value
    (``values`` of the part of group ``head``), where the constraint accepts, recorded in
    ``found_at`` if met for the first time; whether that value settles the walk (≥ ``settle``)."""
    v = values[rec[row, head]]
    if v >= 0 and found_at[v] < 0 and (wc == 0 or cfinal[rec[row, groups]]):
        found_at[v] = state
        return bool(v >= settle)
    return False


#: the breadth-first kernels' bookkeeping of values (inlined into them: it runs per state)
first_value = jit(_first_value, inline=True)


@jit
def _probe(table: Array, tags: Array, records: Array, block: Array, row: int, tag: int,
           slot: int, mask: int) -> tuple[int, int]:
    """(the number of the stored record equal to ``block[row]``, or −1; the slot where the
    linear probe from ``slot`` ended): a record is read only where the 8-bit tag matches."""
    width = records.shape[1]
    while True:
        e = table[slot]
        if e == 0:
            return -1, slot
        if tags[slot] == tag:
            same = True
            for c in range(width):
                if records[e - 1, c] != block[row, c]:
                    same = False
                    break
            if same:
                return e - 1, slot
        slot = (slot + 1) & mask
