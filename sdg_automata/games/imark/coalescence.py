"""The convergence of one instance: how many steps each start needs, and its window c.

For a start lo, every guess vector for 𝒢 on [lo − max S, lo − 1] is run with
the true division followers (from the naive table); the number of steps until
all guess sequences agree is the window that start needs.  An instance whose
every start up to N needs at most c steps is proven by the technique for every
n ≤ N + 2c with that c.  This is the experiment of the seed paper (SPEC §6);
the survey of many instances, on any executor or as a sweep, is
:mod:`sdg_automata.sweeps.imark`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ...errors import BudgetExceeded, InputError
from .game import IMark, Rules, game_of, position, rules
from .naive import MAX_TABLE_BYTES, imark_sequence

__all__ = ["BYTES_PER_START", "SurveyRow", "coalescence_steps", "survey_instance",
           "valid_max_c"]

#: bytes per start the survey keeps (a table byte and a Python list slot)
BYTES_PER_START = 9



def _division_masks(r: Rules, masks: list[int], g: bytes | bytearray, upto: int) -> list[int]:
    """Fill mask[x] = the set of 𝒢(x/d), d ∈ D dividing x, for x ≤ upto (g must reach upto//2)."""
    for d in r.D:
        x = d
        for v in g[1:upto // d + 1]:
            masks[x] |= 1 << v
            x += d
    return masks


def _steps_counter(game: IMark, upto: int, max_c: int
                   ) -> tuple[int, Callable[[int], int | None]]:
    """(K, steps): steps(lo) for a start lo ≤ upto is the entry of :func:`coalescence_steps`."""
    r = rules(game)
    horizon = upto + max_c + r.K + 1
    if horizon * BYTES_PER_START > MAX_TABLE_BYTES:
        raise BudgetExceeded(f"a survey up to {upto} needs about "
                             f"{horizon * BYTES_PER_START:,} bytes, more than the limit of "
                             f"{MAX_TABLE_BYTES:,}")
    masks = [0] * (horizon + 1)  # the largest allocation first: a MemoryError comes at once
    masks = _division_masks(r, masks, imark_sequence(game, upto=horizon), horizon)
    full = r.state_set([None] * r.K)
    sets, V, K = r.sets, r.V, r.K

    def steps(lo: int) -> int | None:
        sset, x = full, lo
        while sset & (sset - 1):
            # a merge at x would make the sequences agree from x − K + 1 on
            if x - K + 1 - lo > max_c:
                return None
            sset = sets[sset << V | masks[x]]
            x += 1
        return max(0, x - K - lo)

    return K, steps


def valid_max_c(max_c: Any) -> int:
    """``max_c``, the longest window a start may need, checked: a positive integer."""
    if isinstance(max_c, bool) or not isinstance(max_c, int) or max_c < 1:
        raise InputError(f"max_c must be a positive integer (max_c ≥ 1), not {max_c!r}")
    return max_c


def coalescence_steps(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *,
                      upto: int, max_c: int = 128) -> list[int | None]:
    """For each start lo ≤ ``upto``: how many steps until every guess sequence agrees.

    All guess vectors for 𝒢 on [lo − max S, lo − 1] are run with the true
    division followers; entry lo is the least t with all of them equal from
    lo + t on (``None`` when that is beyond ``max_c``).  Entries up to
    K = max(1, max S) are ``None`` (not a start).

    With c ≥ every entry, the convergence technique proves every n ≤ upto + 2c
    (I_m starts at m − 2c).

    >>> steps = coalescence_steps([1], [2, 3], upto=100)
    >>> worst = max(s for s in steps if s is not None)
    >>> worst, steps.index(worst)
    (9, 61)
    """
    upto = position(upto)
    K, steps = _steps_counter(game_of(S, D), upto, valid_max_c(max_c))
    return [None if lo <= K else steps(lo) for lo in range(upto + 1)]


@dataclass(frozen=True, kw_only=True)
class SurveyRow:
    """The convergence of one instance over the starts K + 1 … upto (K = max(1, max S)).

    Attributes
    ----------
    S, D:
        The instance.
    upto:
        The largest start checked.
    max_c:
        Starts needing more steps than this count as not converging.
    c:
        The smallest window c that makes every start converge (so the
        technique proves every n ≤ upto + 2c), or ``None``.
    worst_start:
        The first start that needs ``c`` steps.
    failed_start:
        The first start whose guess sequences do not agree within ``max_c``
        steps, or ``None``.
    starts:
        How many starts were checked (the scan stops at ``failed_start``).
    seconds:
        Wall time of the instance.
    """

    S: tuple[int, ...]
    D: tuple[int, ...]
    upto: int
    max_c: int
    c: int | None
    worst_start: int | None
    failed_start: int | None
    starts: int
    seconds: float

    @property
    def converges(self) -> bool:
        """True when every start converged within ``max_c`` steps."""
        return self.failed_start is None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"S": list(self.S), "D": list(self.D), "upto": self.upto, "max_c": self.max_c,
                "converges": self.converges, "c": self.c, "worst_start": self.worst_start,
                "failed_start": self.failed_start, "starts": self.starts,
                "seconds": round(self.seconds, 4)}


def survey_instance(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *,
                    upto: int, max_c: int = 128, deadline: float | None = None) -> SurveyRow:
    """The smallest c for every start ≤ ``upto``, or the first start that never converges.

    Like :func:`coalescence_steps`, but stops at the first failing start.
    ``deadline`` (a :func:`time.time` instant) ends the scan with
    :class:`BudgetExceeded`.

    >>> row = survey_instance([2], [2], upto=100)
    >>> row.converges, row.failed_start
    (False, 3)
    """
    t0 = time.perf_counter()
    game = game_of(S, D)
    upto, max_c = position(upto), valid_max_c(max_c)
    K, steps = _steps_counter(game, upto, max_c)
    worst, worst_start = -1, None
    for lo in range(K + 1, upto + 1):
        if deadline is not None and lo & 4095 == 0 and time.time() > deadline:
            raise BudgetExceeded(f"survey of {game} stopped at the time budget after "
                                 f"{lo - K} starts", explored=lo - K)
        t = steps(lo)
        if t is None:  # the first start that does not converge ends the scan
            return SurveyRow(S=game.S, D=game.D, upto=upto, max_c=max_c, c=None,
                             worst_start=None, failed_start=lo, starts=lo - K,
                             seconds=time.perf_counter() - t0)
        if t > worst:
            worst, worst_start = t, lo
    return SurveyRow(S=game.S, D=game.D, upto=upto, max_c=max_c, c=max(1, worst),
                     worst_start=worst_start, failed_start=None, starts=max(0, upto - K),
                     seconds=time.perf_counter() - t0)
