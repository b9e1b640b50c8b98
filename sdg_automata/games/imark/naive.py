"""The naive bottom-up table 𝒢(0), …, 𝒢(N) of i-Mark(S, D) (SPEC §6): the oracle.

Θ(N) time.  Division followers of a block [B, 2B) all lie below B, so their
value masks are built block-wise with C-level slicing, and only the
subtraction recurrence runs as a Python loop over a transition table (about
55 ns per position; N = 10⁷ in about half a second).

Memory: a value at x is read again only as a division follower (x ≤ N / min D)
or as a subtraction follower (within max S of the end).  The streaming form
:func:`imark_sequence_chunks` therefore keeps 𝒢 on [0, N / min D] and a window
of the last max S values, no more: N / 2 bytes for D ∋ 2, O(max S) for D = ∅.
Subtractions and divisors larger than N are never moves below N and are
dropped first, so a huge max S costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ...errors import BudgetExceeded, InputError, SdgBug
from ...runtime.budget import UNLIMITED, Budget
from ..mex import mex_mask
from .game import IMark, Rules, game_of, position, rules

__all__ = ["MAX_TABLE_BYTES", "NAIVE_BASE", "imark_naive", "imark_sequence",
           "imark_sequence_chunks", "table_bytes"]

#: the most bytes of 𝒢 the naive sequence keeps by default (4 GiB); more is refused
MAX_TABLE_BYTES = 1 << 32

#: the convergence technique takes 𝒢 on [0, NAIVE_BASE] from this table unless asked to
#: run SPEC §6 literally (sound, and cheaper than intervals this low: about 0.3 ms)
NAIVE_BASE = 1 << 12

_BLOCK = 1 << 20  # positions per block (bounds the temporary buffers)
_BITS = bytes((1 << v) if v < 8 else 0 for v in range(256))


def _trimmed(game: IMark, upto: int) -> IMark | None:
    """The instance with the moves that exist below ``upto`` (None: no move at all)."""
    S = tuple(s for s in game.S if s <= upto)
    D = tuple(d for d in game.D if d <= upto)
    if not S and not D:
        return None
    if (S, D) == (game.S, game.D):
        return game
    return IMark(S=S, D=D)


def table_bytes(game: IMark, upto: int) -> int:
    """The bytes of 𝒢 :func:`imark_sequence_chunks` keeps to reach ``upto``."""
    g = _trimmed(game, upto)
    if g is None:
        return 0
    kept = upto // min(g.D) + 1 if g.D else 0
    return kept + max(g.S, default=0)


def _rules_or_none(game: IMark) -> Rules | None:
    try:
        return rules(game)
    except InputError:  # too long a history to tabulate: the generic loop serves it
        return None


def _generic(game: IMark, g: bytearray, hist: bytes, b0: int, size: int) -> bytes:
    """𝒢 on [b0, b0 + size) one position at a time (any instance).

    ``g`` holds 𝒢 from 0 on, at least up to every division follower; ``hist``
    the values just before b0 (at least max S of them, or all of [0, b0)).
    """
    S, D = game.S, game.D
    out = bytearray()
    h0 = b0 - len(hist)
    for x in range(b0, b0 + size):
        mask = 0
        for s in S:
            y = x - s
            if y < 0:
                break
            mask |= 1 << (out[y - b0] if y >= b0 else hist[y - h0])
        if x:
            for d in D:
                if x % d == 0:
                    y = x // d
                    mask |= 1 << (out[y - b0] if y >= b0 else g[y])
        out.append(mex_mask(mask))
    return bytes(out)


def _fast(r: Rules, g: bytearray, hist: bytes, b0: int, size: int) -> bytes:
    """𝒢 on [b0, b0 + size) through the transition table (size ≤ b0, len(hist) ≥ K)."""
    fast = r.fast_tables()
    if fast is None or size > b0 or len(hist) < r.K:
        raise SdgBug(f"{r.game}: fast naive block at {b0} (size {size}) out of its domain")
    nxt, val = fast
    acc = 0
    for d in r.D:
        f = b0 + (-b0) % d
        if f >= b0 + size:
            continue
        k0 = f // d
        count = (b0 + size - 1 - f) // d + 1
        arr = bytearray(size)
        arr[f - b0::d] = g[k0:k0 + count].translate(_BITS)
        acc |= int.from_bytes(arr, "little")
    masks = acc.to_bytes(size, "little")
    st = 0
    for i in range(r.K):
        st += hist[-1 - i] * r.pows[i]
    st <<= 8
    out = [st := nxt[st | dm] for dm in masks]
    return bytes(map(val.__getitem__, out))


def _blocks(game: IMark, upto: int, chunk: int, meter_budget: Budget) -> Iterator[bytes]:
    """𝒢 on [0, upto] in consecutive blocks, keeping only what later positions read."""
    meter = meter_budget.start("naive i-Mark sequence", unit="positions")
    trimmed = _trimmed(game, upto)
    if trimmed is None:  # every move is longer than upto: every position is terminal
        for b0 in range(0, upto + 1, chunk):
            yield bytes(min(chunk, upto + 1 - b0))
        return
    game = trimmed
    r = _rules_or_none(game)
    fast_ok = r is not None and r.fast_tables() is not None
    K = game.history  # values kept before each block (the state reads this many)
    keep = upto // min(game.D) if game.D else -1  # 𝒢 on [0, keep] is read again
    g = bytearray()
    hist = b""
    b0 = 0
    try:
        while b0 <= upto:
            if b0 == 0:
                size = min(upto + 1, max(K, 16), chunk)
            else:
                size = min(upto + 1 - b0, chunk, _BLOCK)
                if fast_ok:
                    size = min(size, b0)
            if fast_ok and b0 >= K and r is not None:
                out = _fast(r, g, hist, b0, size)
            else:
                out = _generic(game, g, hist, b0, size)
            if len(g) <= keep:
                g += out[:keep + 1 - len(g)]
            hist = (hist + out)[-K:]
            yield out
            b0 += size
            meter.check(b0)
    except KeyboardInterrupt:
        raise meter.interrupted(b0) from None


def imark_sequence_chunks(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *,
                          upto: int, chunk: int = 1 << 16, budget: Budget = UNLIMITED,
                          max_bytes: int | None = MAX_TABLE_BYTES) -> Iterator[bytes]:
    """𝒢(0), …, 𝒢(upto) in consecutive pieces of at most ``chunk`` values, streamed.

    Keeps only 𝒢 on [0, upto / min D] and the last max S values
    (:func:`table_bytes`), so a caller can print far beyond what
    :func:`imark_sequence` could hold.

    Raises
    ------
    BudgetExceeded
        Before any work when the kept table would exceed ``max_bytes``
        (``None``: no limit), or when ``budget`` runs out (how far it got).
    """
    game = game_of(S, D)
    upto = position(upto)
    if isinstance(chunk, bool) or not isinstance(chunk, int) or chunk < 1:
        raise InputError(f"chunk must be a positive integer, not {chunk!r}")
    need = table_bytes(game, upto)
    if max_bytes is not None and need > max_bytes:
        raise BudgetExceeded(
            f"the naive sequence up to {upto} keeps 𝒢 on [0, N/min D] and the last max S "
            f"values: {need:,} bytes, more than the limit of {max_bytes:,} bytes")
    return _blocks(game, upto, chunk, budget)


def imark_sequence(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *,
                   upto: int, budget: Budget = UNLIMITED) -> bytes:
    """𝒢(0), …, 𝒢(upto) of i-Mark(S, D), bottom up (SPEC §6, the naive computation).

    Θ(upto) time and bytes: a move from n goes to n − s (s ∈ S) or ⌊n / d⌋ (d ∈ D),
    so 𝒢(n) is the mex of values already computed.

    Parameters
    ----------
    S, D:
        The subtractions (⊆ ℕ∖{0}) and divisors (⊆ ℕ∖{0, 1}); or an ``IMark``
        game as ``S`` and ``D=None``.
    upto:
        The last position computed.
    budget:
        Seconds (the positions computed are its unit).

    Returns
    -------
    bytes
        Byte ``n`` of the result is 𝒢(n).

    Raises
    ------
    InputError
        For S or D outside their ranges, a negative ``upto``, or a table that would
        not fit in memory.
    BudgetExceeded
        When ``budget`` runs out.

    Examples
    --------
    With S = {1} and D = {2} a position n > 0 is losing iff it is even and its
    half is losing:

    >>> list(imark_sequence([1], [2], upto=15))
    [0, 1, 0, 1, 2, 0, 2, 0, 1, 0, 1, 0, 1, 0, 1, 0]
    >>> list(imark_sequence([1], [2, 3], upto=10))
    [0, 1, 0, 2, 1, 0, 1, 0, 2, 0, 1]
    """
    return b"".join(imark_sequence_chunks(S, D, upto=upto, chunk=_BLOCK, budget=budget,
                                          max_bytes=None))


def imark_naive(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *, n: int) -> int:
    """𝒢(n) by the naive table (Θ(n) time; the test oracle).

    >>> imark_naive([1], [2, 3], n=1000)
    2
    """
    return imark_sequence(S, D, upto=n)[-1]
