"""The compiled walk over the compact store: an exact Cleary table of keys (numba).

Beside its Python side, :class:`sdg_automata.search.compiled.drive.CompactStore` (the
``--store compact`` of the breadth-first search): :func:`admit`, :func:`grow`,
:func:`drain`, :func:`key_of`, :func:`rekey` and :func:`climb` keep the table, and
:func:`compact_bfs` is the breadth-first walk over it, whose reference is
:func:`sdg_automata.kernels.automaton.bfs`: the same states, in the same numbers.
It follows the protocol of :mod:`sdg_automata.kernels.automaton` and steps with
:func:`sdg_automata.kernels.step.step`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import jit
from .protocol import (
    CAP,
    DONE,
    FOUND,
    FULL,
    IN,
    KEYS_SHORT,
    LETTER,
    MISS,
    OUT,
    OVERRUN,
    PAUSE,
    SID,
    STASH_SHORT,
    WORK,
    N,
)
from .step import (
    Array,
    _inline,
    first_value,
    highest,
    lowest,
    popcount,
    prefetch,
    step,
)

__all__ = ["CONTINUATION", "INV1", "INV2", "KEY_BITS", "KEY_MASK", "LOAD", "MUL1", "MUL2",
           "OCCUPIED", "REMAINDER_BITS", "REMAINDER_MASK", "SHIFTED", "SIZE", "SLOT_BITS",
           "SLOT_MASK", "admit", "admit_hash", "admit_keys", "climb", "compact_bfs",
           "drain", "grow", "key_of", "pack_rows", "rekey", "scramble", "unpack_rows",
           "unscramble"]

# ---------------------------------------------------------------------------
# the compact store: an exact Cleary table of keys (sdg_automata.search.compiled.drive.CompactStore)
#
# A state's key is its record as bit fields (``fields[i]``: the shift of field i; the
# widths are the Python side's), at most 64 bits.  The table (Cleary 1984, "Compact hash
# tables using bidirectional linear probing"; laid out as the quotient filter of Bender
# et al. 2012) is ``size`` slots (any multiple of 64) of r + 3 bits: a key is scrambled
# by a bijection of its K bits (odd multiplications and xorshifts modulo 2^K), its home
# slot is ⌊t·size / 2^32⌋ for t its top 32 bits (:func:`_home`; Lemire's range
# reduction: Cleary's quotient when the size is a power of two) and its remainder its low
# r = K − ⌊log₂ size⌋ bits.  The keys of one home are an interval of at most 2^r scrambled
# keys (:func:`_base`), so home and remainder give the key back; the home is never stored.
# Linear probing keeps the remainders of one home in one run sorted by value, runs in
# the order of their homes; three bits per slot (occupied: some key has this slot as
# home; continuation: not the first of its run; shifted: not in its home slot) let the
# home of every slot be recovered, so the table is exact (no key is lost or confused)
# and enumerable (keys are recovered for a growth or a re-encoding: :func:`drain`), and
# it grows in place by any factor (:func:`grow`).
#
# Layout (as the rank-and-select quotient filter of Pandey et al. 2017, without its
# offsets): blocks of 64 slots, each 3 + r uint64 words — the 64 occupied bits, the 64
# continuation bits, the 64 shifted bits, then the 64 remainders packed.  The walks
# over a cluster read 64 slots per word (popcounts, highest and lowest bits), and a
# lookup touches one block or the few its cluster spans: measured at 80 % load, 250
# ns per lookup of a present key against 760 ns for slots of r + 3 bits packed one
# after the other, whose walks read slot by slot.

#: the metadata bits of a slot (the remainder is above them)
OCCUPIED, CONTINUATION, SHIFTED = 1, 2, 4
#: geometry of a compact table (int64 array ``form``): slots (a multiple of 64, at most
#: 2^32), bits of a remainder field, remainder bits (the same two in this layout), key
#: bits, the most keys it may hold
SIZE, SLOT_BITS, REMAINDER_BITS, KEY_BITS, LOAD = range(5)
#: its masks and multipliers (uint64 array ``mix``): field, remainder and key masks, the
#: two odd multipliers of the scrambling and their inverses modulo 2^K
SLOT_MASK, REMAINDER_MASK, KEY_MASK, MUL1, MUL2, INV1, INV2 = range(7)

_ONE = np.uint64(1)
_ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


@jit
def scramble(key: Any, kbits: int, mix: Array) -> Any:
    """A bijection of the K-bit keys (an odd multiplication, a xorshift by ⌈K/2⌉, twice):
    its top bits spread the structured keys over the slots."""
    s = np.uint64((kbits + 1) // 2)
    kmask = mix[KEY_MASK]
    h = (key * mix[MUL1]) & kmask
    h ^= h >> s
    h = (h * mix[MUL2]) & kmask
    return h ^ (h >> s)


@jit
def unscramble(h: Any, kbits: int, mix: Array) -> Any:
    """The inverse of :func:`scramble` (a xorshift by ≥ K/2 is its own inverse)."""
    s = np.uint64((kbits + 1) // 2)
    kmask = mix[KEY_MASK]
    h ^= h >> s
    h = (h * mix[INV2]) & kmask
    h ^= h >> s
    return (h * mix[INV1]) & kmask


@jit
def _home(h: Any, size: int, kbits: int) -> Any:  # an int64
    """The home slot of the scrambled key ``h``: ⌊t·size / 2^32⌋ for t its top 32 bits
    (⌊h·size / 2^K⌋ for keys of K ≤ 32 bits), one multiplication (size ≤ 2^32)."""
    if kbits > 32:
        return np.int64(((h >> np.uint64(kbits - 32)) * np.uint64(size)) >> np.uint64(32))
    return np.int64((h * np.uint64(size)) >> np.uint64(kbits))


@jit
def _base(home: int, size: int, kbits: int) -> Any:
    """The least scrambled key whose home is ``home``: the keys of a home are an interval
    of at most 2^r keys from there (r = K − ⌊log₂ size⌋), so a key is its home's base
    plus its remainder minus the base's, modulo 2^r."""
    return _base_parts(home, size, kbits)[0] << np.uint64(kbits - min(kbits, 32))


@jit
def _key(base: Any, rem: Any, rmask: Any) -> Any:
    """The scrambled key of remainder ``rem`` at the home whose base is ``base``."""
    return base + ((rem - base) & rmask)


@jit
def _base_parts(home: int, size: int, kbits: int) -> Any:
    """:func:`_base` of ``home`` before its shift, as ⌈home·2^t / size⌉ = top + rest/size,
    and 2^t / size as (step, step_rest): the next home's base is a step further, without
    a division per run (:func:`_next_base`)."""
    t = np.uint64(min(kbits, 32))
    usize = np.uint64(size)
    num = (np.uint64(home) << t) + usize - _ONE
    return num // usize, num % usize, (_ONE << t) // usize, (_ONE << t) % usize


@jit
def _next_base(top: Any, rest: Any, step: Any, step_rest: Any, usize: Any) -> Any:
    """(top, rest) of :func:`_base_parts` for the next home."""
    top += step
    rest += step_rest
    if rest >= usize:
        rest -= usize
        top += _ONE
    return top, rest


@_inline
def _ix(i: int) -> Any:
    """An index as uint64, for the table's words and the growth's and the walk's buffers:
    numba wraps a signed index around (a sign test and a conditional move at every
    access), and these indices are never negative.  Measured in one process, identical
    tables, interleaved: new keys at 85 % load 150 → 124 ns; the walk's lookups (half new,
    prefetched, 2²⁵ slots at 80 %) 122 → 104 ns; a growth 15 → 13 ns a key."""
    return np.uint64(i)


@jit
def _bit(slots: Array, blk: int, kind: int, i: int) -> Any:  # a bool
    """Slot ``i``'s bit ``kind`` (0 occupied, 1 continuation, 2 shifted)."""
    return ((slots[_ix((i >> 6) * blk + kind)] >> np.uint64(i & 63)) & np.uint64(1)
            != np.uint64(0))


@jit
def _put_bit(slots: Array, blk: int, kind: int, i: int, on: bool) -> None:
    b = np.uint64(1) << np.uint64(i & 63)
    if on:
        slots[_ix((i >> 6) * blk + kind)] |= b
    else:
        slots[_ix((i >> 6) * blk + kind)] &= ~b


@jit
def _rem(slots: Array, blk: int, w: int, wmask: Any, i: int) -> Any:
    """Slot ``i``'s remainder (``w`` bits): the two words it may span, read without a
    branch (whether it spans them follows the slot, which is random in a walk: the
    branch was mispredicted, and was most of a growth's reading)."""
    bit = (i & 63) * w
    word = (i >> 6) * blk + 3 + (bit >> 6)
    off = np.uint64(bit & 63)
    after = min(word + 1, slots.shape[0] - 1)  # (the word after: the last word has none)
    return (((slots[_ix(word)] >> off) | ((slots[_ix(after)] << _ONE) << (np.uint64(63) - off)))
            & wmask)


@jit
def _set_rem(slots: Array, blk: int, w: int, wmask: Any, i: int, v: Any) -> None:
    """Slot ``i``'s remainder ← ``v``: :func:`_rem`'s two words, without a branch (the
    second unchanged where the remainder does not reach it)."""
    bit = (i & 63) * w
    word = (i >> 6) * blk + 3 + (bit >> 6)
    off = np.uint64(bit & 63)
    slots[_ix(word)] = (slots[_ix(word)] & ~(wmask << off)) | (v << off)
    after = min(word + 1, slots.shape[0] - 1)  # (the last word has none: nothing moves)
    hi = np.uint64(63) - off  # (shifts of 64 − off in two steps: off may be 0)
    slots[_ix(after)] = (slots[_ix(after)] & ~((wmask >> _ONE) >> hi)) | ((v >> _ONE) >> hi)


@jit
def _filled(slots: Array, blk: int, wi: int) -> Any:
    """The slots of block ``wi`` that hold a key: occupied or shifted (a key at its home
    sets the home's occupied bit; a key elsewhere is shifted)."""
    return slots[_ix(wi * blk)] | slots[_ix(wi * blk + 2)]


@_inline
def _first_empty(slots: Array, blk: int, blocks: int, i: int) -> int:
    """The first slot at or after ``i`` (around the table) that holds no key."""
    wi = i >> 6
    x = ~_filled(slots, blk, wi) & (np.uint64(0xFFFFFFFFFFFFFFFF) << np.uint64(i & 63))
    while x == np.uint64(0):
        wi = wi + 1 if wi + 1 < blocks else 0
        x = ~_filled(slots, blk, wi)
    return wi * 64 + lowest(x)


@_inline
def _run_start(slots: Array, blk: int, blocks: int, fq: int) -> int:
    """Where the run of quotient ``fq`` starts (or would start: the slot where its first
    key goes), ``fq``'s home holding a key.

    As the quotient filter's ``find_run_index``, a block of 64 slots at a time (by
    their bit words): back to the cluster's start b (the last slot at or before fq
    that is not shifted), count the occupied quotients in [b, fq), m; fq's run is
    the (m + 1)-th run from b (a run starts at a filled slot that is no
    continuation), or, when the cluster has only m runs, the empty slot ending it."""
    size = blocks * 64
    wi = fq >> 6
    x = ~slots[_ix(wi * blk + 2)] & (np.uint64(0xFFFFFFFFFFFFFFFF) >> np.uint64(63 - (fq & 63)))
    while x == np.uint64(0):
        wi = wi - 1 if wi > 0 else blocks - 1
        x = ~slots[_ix(wi * blk + 2)]
    b = wi * 64 + highest(x)
    if b == fq:
        return fq
    m = 0  # occupied quotients in [b, fq), a block at a time around the table
    i = b
    while i != fq:
        wi = i >> 6
        end = fq if (fq >> 6) == wi and fq > i else (wi + 1) * 64
        span = end - i
        x = slots[_ix(wi * blk)] >> np.uint64(i & 63)
        if span < 64:
            x &= (np.uint64(1) << np.uint64(span)) - np.uint64(1)
        m += popcount(x)
        i = end if end < size else 0
    need = m + 1  # then the (m + 1)-th run start from b, unless the cluster ends first
    i = b
    while True:
        wi = i >> 6
        lo = np.uint64(i & 63)
        filled = _filled(slots, blk, wi)
        starts = (filled & ~slots[_ix(wi * blk + 1)]) >> lo
        empty = ~filled >> lo
        if lo:
            empty &= np.uint64(0xFFFFFFFFFFFFFFFF) >> lo
        e = 64
        if empty != np.uint64(0):
            e = lowest(empty)
            if e < 63:
                starts &= (np.uint64(1) << np.uint64(e + 1)) - np.uint64(1)
        c = popcount(starts)
        if c >= need:
            for _ in range(need - 1):
                starts &= starts - np.uint64(1)
            return i + lowest(starts)  # (within block wi: no wrap)
        if e < 64:
            return i + e
        need -= c
        i = (wi + 1) * 64 if wi + 1 < blocks else 0


@_inline
def _shift_right(slots: Array, blk: int, w: int, wmask: Any, blocks: int, s: int,
                 e: int) -> None:
    """The keys of the slots [s, e) (around the table; e empty) one slot right, their
    remainders and continuation bits with them, all shifted; the occupied bits stay.

    A block at a time from the last: its range's bit words move by a shift under a
    mask, and its remainders by a funnel shift of w bits a word, where moving slot by
    slot read and wrote each remainder and bit (an insertion at 70–78 % load: 186 ns
    against 267, with the branchless :func:`_rem`, in one process on 2²⁴ slots).  The
    slot leaving a block at its end goes to the next block's first, which has moved
    already."""
    size = blocks * 64
    j = e if e > 0 else size  # the end of the slots still to move
    while True:
        b = (j - 1) >> 6
        first = b * 64
        a = s if first <= s < j else first
        z = j - first  # the block's slots a − first … z − 1 move
        base = b * blk
        if z == 64:  # its last slot to the next block's first
            nxt = (b + 1) * blk if b + 1 < blocks else 0
            _set_rem(slots, blk, w, wmask, (b + 1) * 64 if b + 1 < blocks else 0,
                     _rem(slots, blk, w, wmask, first + 63))
            top = slots[_ix(base + 1)] >> np.uint64(63)
            slots[_ix(nxt + 1)] = (slots[_ix(nxt + 1)] & ~_ONE) | top
            slots[_ix(nxt + 2)] |= _ONE
            z = 63
        lo = a - first
        if lo < z:
            span = ((_ONE << np.uint64(z - lo)) - _ONE) << np.uint64(lo)  # sources
            cont = slots[_ix(base + 1)]
            slots[_ix(base + 1)] = (cont & ~(span << _ONE)) | ((cont & span) << _ONE)
            slots[_ix(base + 2)] |= span << _ONE
            # remainders: bits [(lo + 1)·w, (z + 1)·w) take those w bits below
            # (a funnel shift a word, from the last; only the first and last words are
            # masked: a mask for every word was a quarter of an insertion at 85 % load.
            # Word 0's low bits come from the bit word before it and are masked off, as
            # d0 ≥ w)
            d0, d1 = (lo + 1) * w, (z + 1) * w
            uw, rw = np.uint64(w), np.uint64(64 - w)
            kl, kh = d0 >> 6, (d1 - 1) >> 6  # the first and last remainder words
            first_word, last_word = base + 3 + kl, base + 3 + kh
            low, high = max(d0 - 64 * kh, 0), d1 - 64 * kh
            mask = (_ALL >> np.uint64(64 - (high - low))) << np.uint64(low)
            v = (slots[_ix(last_word)] << uw) | (slots[_ix(last_word - 1)] >> rw)
            slots[_ix(last_word)] = (slots[_ix(last_word)] & ~mask) | (v & mask)
            if first_word < last_word:
                for word in range(last_word - 1, first_word, -1):
                    slots[_ix(word)] = (slots[_ix(word)] << uw) | (slots[_ix(word - 1)] >> rw)
                mask = _ALL << np.uint64(d0 & 63)
                v = (slots[_ix(first_word)] << uw) | (slots[_ix(first_word - 1)] >> rw)
                slots[_ix(first_word)] = (slots[_ix(first_word)] & ~mask) | (v & mask)
        if a == s:
            return
        j = first if first > 0 else size


@jit
def admit(slots: Array, form: Array, mix: Array, key: Any) -> bool:
    """Put ``key`` in the table unless it is there; whether it was new
    (:func:`admit_hash` of its scrambled form)."""
    return admit_hash(slots, form, mix, scramble(key, form[KEY_BITS], mix))


@_inline
def admit_hash(slots: Array, form: Array, mix: Array, h: Any) -> bool:
    """Put the scrambled key ``h`` in the table unless it is there; whether it was new.

    The insertion of the quotient filter (``qf_insert`` of vedantk/quotient-filter,
    after Cleary): find the run of the key's quotient (:func:`_run_start`), look for
    the remainder in it (sorted, so the scan stops at a larger one), and move the keys
    after it right by one up to the first empty slot, each slot's occupied bit
    staying where it is.  ``slots`` is blocks of 64 slots, 3 + ``w`` words each:
    the slots' occupied, continuation and shifted bits, then their remainders of
    ``w`` bits (a lookup reads one block, or the few of its cluster).  The
    table must have an empty slot (the drivers keep it below ``form[LOAD]``).
    """
    size, w = form[SIZE], form[SLOT_BITS]
    wmask = mix[SLOT_MASK]
    blocks, blk = size >> 6, 3 + w
    fq = _home(h, size, form[KEY_BITS])
    fr = h & mix[REMAINDER_MASK]
    had_run = _bit(slots, blk, 0, fq)
    if not had_run and not _bit(slots, blk, 2, fq):  # an empty home: alone in its cluster
        _set_rem(slots, blk, w, wmask, fq, fr)
        _put_bit(slots, blk, 0, fq, True)
        return True
    s = start = _run_start(slots, blk, blocks, fq)
    if had_run:
        while True:  # the place of fr in the sorted run
            rem = _rem(slots, blk, w, wmask, s)
            if rem == fr:
                return False
            if rem > fr:
                break
            s = s + 1 if s + 1 < size else 0
            if not _bit(slots, blk, 1, s):
                break
    else:
        _put_bit(slots, blk, 0, fq, True)
    e = _first_empty(slots, blk, blocks, s)
    if e != s:
        _shift_right(slots, blk, w, wmask, blocks, s, e)
    _set_rem(slots, blk, w, wmask, s, fr)
    _put_bit(slots, blk, 2, s, s != fq)
    if had_run and s == start:  # the new first of the run: the old first continues it
        _put_bit(slots, blk, 1, s, False)
        _put_bit(slots, blk, 1, s + 1 if s + 1 < size else 0, True)
    else:
        _put_bit(slots, blk, 1, s, had_run)
    return True


@jit
def admit_keys(slots: Array, form: Array, mix: Array, keys: Array) -> int:
    """:func:`admit` each of ``keys``; how many were new."""
    new = 0
    for k in range(keys.shape[0]):
        if admit(slots, form, mix, keys[k]):
            new += 1
    return new


@jit
def key_of(rows: Array, row: int, fields: Array) -> Any:
    """The key of ``rows[row]``: its ids as bit fields at the shifts ``fields``."""
    key = np.uint64(0)
    for i in range(rows.shape[1]):
        key |= np.uint64(rows[row, i]) << fields[i]
    return key


@_inline
def _field(key: Any, fields: Array, widths: Array, f: int) -> Any:
    """Field ``f`` of ``key``: ``widths[f]`` bits at the shift ``fields[f]``."""
    return (key >> fields[f]) & ((_ONE << widths[f]) - _ONE)


@jit
def pack_rows(rows: Array, count: int, fields: Array, keys: Array) -> None:
    """``keys[i]`` ← the key of ``rows[i]`` (:func:`key_of`), for i below ``count``: the
    frontier goes to its spool as keys, 8 bytes a state where its records take 4 an id."""
    for i in range(count):
        keys[i] = key_of(rows, i, fields)


@jit
def unpack_rows(keys: Array, count: int, fields: Array, widths: Array, rows: Array) -> None:
    """``rows[i]`` ← the ids of ``keys[i]`` (fields of ``widths`` bits at the shifts
    ``fields``: :func:`pack_rows`'s inverse), for i below ``count``."""
    for i in range(count):
        key = keys[i]
        for f in range(fields.shape[0]):
            rows[i, f] = np.int32(_field(key, fields, widths, f))


@jit
def rekey(key: Any, fields: Array, widths: Array, nfields: Array) -> Any:
    """``key`` (ids of ``widths`` bits at the shifts ``fields``, :func:`key_of`'s) with its
    ids at the shifts ``nfields``."""
    fresh = np.uint64(0)
    for i in range(fields.shape[0]):
        fresh |= _field(key, fields, widths, i) << nfields[i]
    return fresh


@jit
def _next_start(slots: Array, blk: int, blocks: int, i: int) -> int:
    """The first slot at or after ``i`` (not around the table) whose key is at its home
    (occupied, not shifted: a group starts there), or the table's size if none."""
    size = blocks * 64
    if i >= size:
        return size
    wi = i >> 6
    x = (slots[_ix(wi * blk)] & ~slots[_ix(wi * blk + 2)]) & (_ALL << np.uint64(i & 63))
    while x == np.uint64(0):
        wi += 1
        if wi == blocks:
            return size
        x = slots[_ix(wi * blk)] & ~slots[_ix(wi * blk + 2)]
    return wi * 64 + lowest(x)


@jit
def _prev_start(slots: Array, blk: int, i: int) -> int:
    """The last slot before ``i`` (not around the table) whose key is at its home, or -1."""
    if i <= 0:
        return -1
    j = i - 1
    wi = j >> 6
    x = (slots[_ix(wi * blk)] & ~slots[_ix(wi * blk + 2)]) & (_ALL >> np.uint64(63 - (j & 63)))
    while x == np.uint64(0):
        wi -= 1
        if wi < 0:
            return -1
        x = slots[_ix(wi * blk)] & ~slots[_ix(wi * blk + 2)]
    return wi * 64 + highest(x)


@jit
def _group(slots: Array, form: Array, mix: Array, c: int, out: Array, m: int,
           cluster: bool) -> int:
    """Append the scrambled keys of the group (or with ``cluster``, the cluster) that
    starts at slot ``c`` to ``out[m:]``, in their order (by home, then remainder); the
    new ``m``, or -1 when ``out`` is full.

    A group is a key at its home and the shifted keys after it (around the table) up to
    an empty slot or the next key at its home; a cluster, the keys up to an empty slot
    from one after an empty slot.  Their homes are recovered as the quotient filter's
    iterator does: the first is ``c``, and each next run belongs to the next occupied
    slot.  The keys of slots ``c`` … have homes ``c`` … and the keys before ``c`` homes
    before it, so a group's keys are exactly those whose homes lie between its first
    and last slots."""
    size, w, kbits = form[SIZE], form[SLOT_BITS], form[KEY_BITS]
    wmask, rmask = mix[SLOT_MASK], mix[REMAINDER_MASK]
    blk = 3 + w
    shift, usize = np.uint64(kbits - min(kbits, 32)), np.uint64(size)
    home = c
    top, rest, step, step_rest = _base_parts(c, size, kbits)
    i = c
    while True:
        shifted = _bit(slots, blk, 2, i)
        if i != c:
            if not shifted and (not cluster or not _bit(slots, blk, 0, i)):
                break  # empty (or for a group, the next group's first key)
            if not _bit(slots, blk, 1, i):  # the next run: the next occupied slot
                while True:
                    if home + 1 < size:
                        home += 1
                        top, rest = _next_base(top, rest, step, step_rest, usize)
                    else:  # around the table: base 0
                        home, top, rest = 0, np.uint64(0), usize - _ONE
                    if _bit(slots, blk, 0, home):
                        break
        if m == out.shape[0]:
            return -1
        out[m] = _key(top << shift, _rem(slots, blk, w, wmask, i), rmask)
        m += 1
        i = i + 1 if i + 1 < size else 0
    return m


@jit
def drain(slots: Array, form: Array, mix: Array, fields: Array, widths: Array,
          nfields: Array, cursor: Array, out: Array) -> int:
    """The table's keys, re-encoded with the field shifts ``nfields``, into ``out``, a
    group at a time from slot ``cursor[0]`` on (the table's size when all are out); how
    many, or -1 when ``out`` cannot take the next group.  Groups go out in the order of
    their first slots; the group around the table's end last."""
    kbits = form[KEY_BITS]
    blocks, blk = form[SIZE] >> 6, 3 + form[SLOT_BITS]
    c = _next_start(slots, blk, blocks, cursor[0])
    m = 0
    while c < form[SIZE]:
        got = _group(slots, form, mix, c, out, m, False)
        if got < 0:
            cursor[0] = c
            return -1 if m == 0 else m
        for k in range(m, got):
            out[k] = rekey(unscramble(out[k], kbits, mix), fields, widths, nfields)
        m = got
        c = _next_start(slots, blk, blocks, c + 1)
    cursor[0] = c
    return m


@jit
def _cluster_starts(slots: Array, blk: int, blocks: int, wi: int) -> Any:
    """The slots of block ``wi`` where a cluster starts: filled, the slot before empty
    (around the table)."""
    filled = _filled(slots, blk, wi)
    before = _filled(slots, blk, wi - 1 if wi > 0 else blocks - 1) >> np.uint64(63)
    return filled & ~((filled << np.uint64(1)) | before)


@jit
def _next_cluster(slots: Array, blk: int, blocks: int, i: int) -> int:
    """The first slot at or after ``i`` (not around the table) where a cluster starts, or
    the table's size if none."""
    size = blocks * 64
    if i >= size:
        return size
    wi = i >> 6
    x = _cluster_starts(slots, blk, blocks, wi) & (_ALL << np.uint64(i & 63))
    while x == np.uint64(0):
        wi += 1
        if wi == blocks:
            return size
        x = _cluster_starts(slots, blk, blocks, wi)
    return wi * 64 + lowest(x)


@jit
def _prev_cluster(slots: Array, blk: int, blocks: int, i: int) -> int:
    """The last slot before ``i`` (not around the table) where a cluster starts, or -1."""
    if i <= 0:
        return -1
    j = i - 1
    wi = j >> 6
    x = _cluster_starts(slots, blk, blocks, wi) & (_ALL >> np.uint64(63 - (j & 63)))
    while x == np.uint64(0):
        wi -= 1
        if wi < 0:
            return -1
        x = _cluster_starts(slots, blk, blocks, wi)
    return wi * 64 + highest(x)


@jit
def _scan(slots: Array, form: Array, mix: Array, c: int, hi: int, nsize: int, out: Array,
          homes: Array, bases: Array) -> int:
    """The scrambled keys of the slots [c, hi) into ``out`` (as :func:`_group` reads them;
    ``c`` starts a cluster, and no cluster from ``c`` on goes past ``hi`` or around the
    table) and their homes in a table of ``nsize`` slots into ``homes``; how many.

    The k-th run from a cluster's start is the k-th occupied slot's (the quotient
    filter's invariant), and a cluster's first run is at its home, so the home of every
    run is the next occupied slot after the run before's: the keys are read in slot
    order (by their blocks' filled bits), a home taken from the occupied bits at each
    run's first key without a branch, and the bases of the homes of each block and the
    one before read from ``bases`` (128 words, filled a block at a time by
    :func:`_next_base`).  With the branchless :func:`_rem`, 4 ns a key where moving slot
    by slot, testing each slot's bits, took 13 (most of it the remainder's branch)."""
    size, w, kbits = form[SIZE], form[SLOT_BITS], form[KEY_BITS]
    wmask, rmask = mix[SLOT_MASK], mix[REMAINDER_MASK]
    blk = 3 + w
    shift, usize = np.uint64(kbits - min(kbits, 32)), np.uint64(size)
    last = (hi - 1) >> 6  # the last block read
    top, rest, step, step_rest = _base_parts(c & ~63, size, kbits)
    hw = c >> 6  # the occupied bits still to take, from c on: the homes of runs to come
    hmask = slots[_ix(hw * blk)] & (_ALL << np.uint64(c & 63))
    home = c
    m = 0
    for wi in range(c >> 6, last + 1):
        first = wi * 64
        for j in range(64):  # the bases of this block's slots (over the one before last)
            bases[_ix((first + j) & 127)] = top
            top, rest = _next_base(top, rest, step, step_rest, usize)
        filled = _filled(slots, blk, wi)
        if wi == c >> 6:
            filled &= _ALL << np.uint64(c & 63)
        if wi == last and hi - first < 64:
            filled &= (_ONE << np.uint64(hi - first)) - _ONE
        cont = slots[_ix(wi * blk + 1)]
        while filled != np.uint64(0):
            b = lowest(filled)
            filled &= filled - _ONE
            start = ((cont >> np.uint64(b)) & _ONE) ^ _ONE  # a run's first key: 1
            home += (hw * 64 + lowest(hmask) - home) * np.int64(start)
            hmask &= hmask - start
            while hmask == np.uint64(0):  # (the next home's word: once a word of homes)
                if hw == last:
                    hmask = _ONE << np.uint64(63)  # (no home is taken past the last)
                    break
                hw += 1
                hmask = slots[_ix(hw * blk)]
            if home >= first - 64:
                htop = bases[_ix(home & 127)]
            else:  # a home more than a block behind (a long cluster)
                htop = _base_parts(home, size, kbits)[0]
            key = _key(htop << shift, _rem(slots, blk, w, wmask, first + b), rmask)
            out[_ix(m)] = key
            homes[_ix(m)] = _home(key, nsize, kbits)
            m += 1
    return m


@jit
def grow(slots: Array, form: Array, mix: Array, nform: Array, nmix: Array, low: int,
         keys: Array, homes: Array, stash: Array, bases: Array) -> int:
    """The table grown in place to ``nform[SIZE]`` slots (any larger multiple of 64; the
    remainders as wide, or one bit narrower), the same scrambled keys (``nform``,
    ``nmix``: the new geometry; ``slots`` already has room for it); how many keys it
    holds, or a failure (:data:`STASH_SHORT`, :data:`KEYS_SHORT`: a buffer to enlarge,
    nothing written yet; :data:`OVERRUN`: a bug).

    Keys are laid in the order of their new homes and remainders, each at its new home
    or right after the key before, which is the table's layout (sorted runs in home
    order), so the table is the one a fresh table of the new size would be.  With
    g = new size / size, a key's new home is at least its home and less than g·(home +
    1), so the keys of a cluster [c, e) (e is empty) land in [⌊g·c⌋, ⌈g·e⌉) — the keys
    with new homes ≥ ⌈g·a⌉ have homes ≥ a and are at most e − a — and the next cluster
    starts at ⌊g·(e + 1)⌋ ≥ ⌈g·e⌉ or later: no key lands at a slot below its old one,
    and every cluster's first key at its new home.  So the keys are laid from the last, a
    chunk of whole clusters at a time (read by :func:`_scan`, as many as ``keys`` takes
    besides the longest cluster), into new blocks zeroed from the last down to the
    chunk's first: a block lies at or past the old words still to be read as long as
    the clusters still to be laid start past ``low``, which the caller sizes from g and
    the two block widths.  The clusters starting below ``low`` and the one around the
    end are read first into ``stash`` and inserted (:func:`admit_hash`) once the rest is
    laid.  ``homes`` holds a chunk's new homes, ``bases`` (128 words) :func:`_scan`'s
    bases."""
    size, w = form[SIZE], form[SLOT_BITS]
    blocks, blk = size >> 6, 3 + w
    nsize, nw = nform[SIZE], nform[SLOT_BITS]
    nwmask, nrmask = nmix[SLOT_MASK], nmix[REMAINDER_MASK]
    nblocks, nblk = nsize >> 6, 3 + nw
    # read first, writing nothing: the cluster around the end, the clusters below low,
    # and whether the buffers take the longest cluster left and more
    top, stashed = size, 0
    if _filled(slots, blk, 0) & _ONE and _filled(slots, blk, blocks - 1) >> np.uint64(63):
        top = _prev_cluster(slots, blk, blocks, size)  # the last cluster goes on at slot 0
        stashed = _group(slots, form, mix, top, stash, 0, True)
        if stashed < 0:
            return STASH_SHORT
    c = _next_cluster(slots, blk, blocks, 0)
    while c < top and c < low:
        stashed = _group(slots, form, mix, c, stash, stashed, True)
        if stashed < 0:
            return STASH_SHORT
        c = _next_cluster(slots, blk, blocks, c + 1)
    first = c
    # a bound on the longest cluster from ``first`` on: one of L slots covers at least
    # (L − 126) / 64 whole blocks in a row, all filled, so L < 64·(full + 2) for the most
    # filled blocks in a row (one word a block: walking every cluster to its end for its
    # length took a sixth of a growth)
    full = run = 0
    for wi in range(first >> 6, blocks):
        run = run + 1 if _filled(slots, blk, wi) == _ALL else 0
        full = max(full, run)
    longest = 64 * (full + 2)
    chunk = min(keys.shape[0], homes.shape[0]) - longest
    if chunk < 64:
        return KEYS_SHORT
    # then the chunks from the last, into new blocks zeroed from the last
    laid = 0
    zeroed = nblocks  # the new blocks from here up are zero or laid
    hi = top
    while hi > first:
        c = max(_prev_cluster(slots, blk, blocks, hi - chunk + 1), first)
        m = _scan(slots, form, mix, c, hi, nsize, keys, homes, bases)
        if m == 0:  # (c starts a cluster, so never; the laying's words start at homes[0])
            return OVERRUN
        unread = (((c - 1) >> 6) + 1) * blk  # old words of the slots before c
        for k in range(1, m):  # by new home and remainder (mostly in that order already)
            x, hx = keys[_ix(k)], homes[_ix(k)]
            rx = x & nrmask
            hp = homes[_ix(k - 1)]
            # out of order, as an integer: the compiler made the tests of bools two branches,
            # and whether a key shares the home before it is a coin toss, mispredicted
            # (half of a growth's laying, measured by perf)
            late = np.uint64(hp > hx) | (np.uint64(hp == hx)
                                         & np.uint64((keys[_ix(k - 1)] & nrmask) > rx))
            if late == np.uint64(0):
                continue
            i = k
            while i > 0 and (homes[_ix(i - 1)] > hx
                             or (homes[_ix(i - 1)] == hx and (keys[_ix(i - 1)] & nrmask) > rx)):
                keys[_ix(i)], homes[_ix(i)] = keys[_ix(i - 1)], homes[_ix(i - 1)]
                i -= 1
            keys[_ix(i)], homes[_ix(i)] = x, hx
        first_block = homes[0] >> 6
        if first_block < zeroed:
            if first_block * nblk < unread:
                return OVERRUN
            slots[first_block * nblk:zeroed * nblk] = 0
            zeroed = first_block
        # each key at its home or right after the key before; the bits of a block are
        # gathered in words and or-ed in once the keys move on (the homes and the slots
        # only go up)
        p = hb = pb = prev = -1
        occupied = continued = shifted = np.uint64(0)
        for k in range(m):
            hk = homes[_ix(k)]
            p = max(hk, p + 1)
            if p >= nsize:
                return OVERRUN
            if hk >> 6 != hb:
                if hb >= 0:
                    slots[_ix(hb * nblk)] |= occupied
                hb, occupied = hk >> 6, np.uint64(0)
            if p >> 6 != pb:
                if pb >= 0:
                    slots[_ix(pb * nblk + 1)] |= continued
                    slots[_ix(pb * nblk + 2)] |= shifted
                pb, continued, shifted = p >> 6, np.uint64(0), np.uint64(0)
            at = _ONE << np.uint64(p & 63)
            occupied |= _ONE << np.uint64(hk & 63)
            continued |= at * np.uint64(hk == prev)
            shifted |= at * np.uint64(p != hk)
            prev = hk
            _set_rem(slots, nblk, nw, nwmask, p, keys[_ix(k)] & nrmask)
        slots[_ix(hb * nblk)] |= occupied
        slots[_ix(pb * nblk + 1)] |= continued
        slots[_ix(pb * nblk + 2)] |= shifted
        laid += m
        hi = c
    slots[:zeroed * nblk] = 0  # everything is read by now
    for k in range(stashed):
        admit_hash(slots, nform, nmix, stash[k])
    return laid + stashed


@jit
def compact_bfs(heap: Array, plan: Array, starts: Array, slots: Array, form: Array,
                mix: Array, fields: Array, inrec: Array, base: int, outrec: Array,
                outcode: Array, block: Array, hashes: Array, crows: Array, cfinal: Array,
                wc: int, values: Array, head: int, settle: int, found_at: Array,
                cursor: Array, cap: int, quantum: int) -> int:
    """:func:`bfs` over the compact table: the same states in the same order, numbered the
    same, with the same first state of each value (``found_at``).

    The visited set is the table (``slots``, :func:`admit_hash`); the frontier comes in
    as ``inrec`` (records of states ``base`` … ``base + cursor[IN]`` − 1) and every new
    state goes out as its record (``outrec``) and its tree code, parent·letters +
    letter (``outcode``), ``cursor[OUT]`` rows so far, the states n − ``cursor[OUT]``
    … n − 1; the driver spools them to files and brings them back as the next input,
    and a state still in the output is expanded from there (a narrow frontier never
    leaves this call).  FULL when the next state is in neither, the output lacks room
    for one state's successors, or the table reaches ``form[LOAD]``.

    The successors of a batch of states (``block``: its rows, a whole number of
    states' letters) are computed first, with their scrambled keys (``hashes``) and
    a :func:`~sdg_automata.kernels.step.prefetch` of the lines of their homes, then
    looked up in order: the misses of a batch overlap, where one lookup after the
    other would wait for each (a lookup in a table past the caches is two misses or
    more).
    """
    width = inrec.shape[1]
    groups = width - wc
    letters = starts.shape[0]
    per = block.shape[0] // letters  # states in a batch
    load = form[LOAD]
    room = outrec.shape[0]
    size, w, kbits = form[SIZE], form[SLOT_BITS], form[KEY_BITS]
    blk = 3 + w
    last = slots.shape[0] - 1
    n, sid, k = cursor[N], cursor[SID], cursor[LETTER]
    out, avail = cursor[OUT], cursor[IN]
    work = 0
    status = DONE
    while sid < n:
        if k == letters:  # (a FOUND at a state's last letter)
            sid, k = sid + 1, 0
            continue
        if out + letters > room or n + letters > load:
            status = FULL
            break
        batch = min(per, n - sid, (room - out) // letters, (load - n) // letters)
        end = k  # rows computed: k … end − 1 (a miss stops at end)
        missed = spooled = False
        for j in range(batch):
            s = sid + j
            if s - base < avail:
                rows, src = inrec, s - base
            elif s >= n - out:  # a state of this call's output (a narrow frontier)
                rows, src = outrec, s - (n - out)
            else:  # in the spool
                spooled = j == 0
                break
            for c in range(k if j == 0 else 0, letters):
                r = j * letters + c
                if wc:
                    d = crows[c, rows[src, groups]]
                    block[r, groups] = d
                    if d < 0:  # the constraint dies: no successor
                        end = r + 1
                        continue
                if step(heap, plan, starts[c], rows, src, block, r):
                    missed = True
                    break
                h = scramble(key_of(block, r, fields), kbits, mix)
                hashes[_ix(r)] = h
                # the lines of its home's bits (blocks of 3 + w words: in one block of four
                # the third word is on the next line, in none where 3 + w is a multiple of
                # 4; that was the lookup's worst miss in perf) and of its remainder and the
                # next one (a run and the slots an insertion shifts go on past the home: a
                # line holds 512 / w remainders, and a shift's first read was the walk's
                # worst miss after those)
                home = _home(h, size, kbits)
                prefetch(slots, (home >> 6) * blk)
                prefetch(slots, (home >> 6) * blk + 2)
                word = (home >> 6) * blk + 3 + (((home & 63) * w) >> 6)
                prefetch(slots, word)
                prefetch(slots, min(word + 8, last))
                end = r + 1
            if missed:
                break
        if spooled:
            status = FULL
            break
        for r in range(k, end):
            if wc and block[r, groups] < 0:
                continue
            work += 1
            if not admit_hash(slots, form, mix, hashes[_ix(r)]):
                continue
            s, c = sid + r // letters, r % letters
            if n == cap:  # over the budget: the walk ends here (the key's insertion is moot)
                sid, k, status = s, c, CAP
                break
            for i in range(width):
                outrec[_ix(out), _ix(i)] = block[_ix(r), _ix(i)]
            outcode[_ix(out)] = s * letters + c
            out += 1
            n += 1
            if settle >= 0 and first_value(values, found_at, block, r, head, groups, wc, cfinal,
                                           n - 1, settle):
                sid, k, status = s, c + 1, FOUND
                break
        if status != DONE:
            break
        sid, k = sid + end // letters, end % letters
        if missed:
            status = MISS
            break
        if work >= quantum:
            status = PAUSE
            break
    cursor[N], cursor[SID], cursor[LETTER], cursor[WORK] = n, sid, k, work
    cursor[OUT] = out
    return status


@jit
def climb(codes: Array, base: int, letters: int, t: int, runs: Array, cursor: Array) -> int:
    """Up the breadth-first tree from state ``t`` while its code is in ``codes`` (the codes
    of states ``base`` …), appending the letters read as runs, last first, to ``runs``
    (rows (letter, count); ``cursor[0]`` rows so far, ``cursor[1]`` the last letter);
    returns the state reached (0: the root; else below ``base``, or -1 − t when
    ``runs`` is full)."""
    m, last = cursor[0], cursor[1]
    while t > 0 and t >= base:
        code = codes[t - base]
        c = code % letters
        if c != last:
            if m == runs.shape[0]:
                cursor[0], cursor[1] = m, last
                return -1 - t
            runs[m, 0] = c
            runs[m, 1] = 0
            m += 1
            last = c
        runs[m - 1, 1] += 1
        t = code // letters
    cursor[0], cursor[1] = m, last
    return t
