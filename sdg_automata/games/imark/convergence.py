"""𝒢(n) of i-Mark(S, D) for huge n by the convergence technique (SPEC §6).

The technique of Nivasch and Rubinstein, "A convergence technique for the game
i-Mark", arXiv 2503.23196: 𝒢 on the intervals J_m = [m − c, m] for
every m in M = {⌊n / ∏ dᵢ^{aᵢ}⌋}, children first, each from the guess sequences
over I_m = [m − 2c, m].  Time polylogarithmic in n.  No unproven value is ever
returned: a failure is :class:`IMarkConvergenceError`.

Two engines, a table (:data:`ENGINES`), checked against each other and the naive
table in the tests:

* ``"layers"`` (the default, :mod:`.layers`): the exponent grid of M(n) a layer at
  a time, the intervals of a layer in lockstep; two layers in memory.
* ``"reference"`` (:mod:`.reference`): the first implementation, one interval at
  a time in increasing m, with intervals memoized across calls.  Kept as the
  reference the benchmark measures the speed-up against.

``c = None`` tries ``C_START``, doubling up to ``max_c``; each value reports the
c that proved it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from ...errors import BudgetExceeded, ConvergenceError, InputError, SdgBug
from ...runtime.budget import UNLIMITED, Budget, Meter, available_bytes
from . import naive
from .game import IMark, game_of, position
from .naive import imark_sequence
from .reference import reference_outcomes

__all__ = [
    "C_MAX", "C_START", "ENGINES", "Engine", "IMarkConvergenceError",
    "IMarkValue", "imark_grundy", "imark_prove", "imark_value", "imark_values", "window_ladder",
]

#: the first window c tried when none is given; doubled on failure
C_START = 8
#: the largest window tried automatically
C_MAX = 512

Engine = Literal["layers", "reference"]


class IMarkConvergenceError(ConvergenceError):
    """No value could be proven: the guess sequences disagree inside some J_m (SPEC §6).

    Attributes
    ----------
    game:
        The instance.
    n:
        The position asked for.
    m:
        The element of M whose interval failed (n itself, or one it depends on).
    c:
        The (largest) window tried.
    tried:
        Every window tried, in order.
    """

    def __init__(self, game: IMark, n: int, m: int, c: int, tried: Sequence[int]):
        self.game = game
        self.n = n
        self.m = m
        self.c = c
        self.tried = tuple(tried)
        which = "c = " + ", ".join(map(str, self.tried)) if len(self.tried) > 1 else f"c = {c}"
        super().__init__(
            f"{game}: no proven value for n = {n}: the guess sequences run over "
            f"I_m = [m-2c, m] still disagree inside J_m = [m-c, m] at m = {m} with c = {c} "
            f"(tried {which})")

    def to_json(self) -> dict[str, Any]:
        """Where the proof failed: S, D, n, the m where the guesses disagreed, every c tried
        (the ``"at"`` of the command line's ``stopped/1`` object)."""
        return {"S": list(self.game.S), "D": list(self.game.D), "n": self.n, "m": self.m,
                "tried": list(self.tried)}


@dataclass(frozen=True, kw_only=True)
class IMarkValue:
    """A proven Grundy value of i-Mark(S, D).

    Attributes
    ----------
    S, D:
        The instance.
    n:
        The position.
    grundy:
        𝒢(n).
    c:
        The window with which the convergence technique proved it (SPEC §6).
    """

    S: tuple[int, ...]
    D: tuple[int, ...]
    n: int
    grundy: int
    c: int

    def to_json(self) -> dict[str, Any]:
        """``{"S": [1], "D": [2, 3], "n": ..., "grundy": ..., "c": ...}``."""
        return {"S": list(self.S), "D": list(self.D), "n": self.n, "grundy": self.grundy,
                "c": self.c}


#: positions per second of the naive table (``imark sequence``: 10⁷ in about a second)
NAIVE_RATE = 1e7


def window_bytes(game: IMark, c: int) -> int:
    """A lower bound on the bytes the convergence technique needs with window ``c``:
    the naive table of 𝒢 on [0, 2c + max S] and the arrays of one interval pair
    I_m, J_m (a few bytes per position: values, option masks, the child's J)."""
    return 2 * c + game.history + 1 + 8 * (2 * c + 1)


def _fitting(game: IMark, ladder: list[int], budget: Budget) -> list[int]:
    """The windows of ``ladder`` that fit in memory and time (a larger one could only be
    tried after the smaller failed); :class:`BudgetExceeded` before any work when even
    the first does not (issue 21 §10: --c 10^9 ran 30 s and 707 MB past a 2 s budget)."""
    left = available_bytes()
    fits = [c for c in ladder if left is None or window_bytes(game, c) <= left] or ladder[:1]
    c = fits[0]
    need = window_bytes(game, c)
    if left is not None and need > left:
        raise BudgetExceeded(f"the window c = {c:,} needs at least {need:,} bytes (the naive "
                             f"table of 𝒢 on [0, 2c + max S] and the intervals of 2c + 1 "
                             f"positions), more than the {left:,} bytes left: give a smaller "
                             "--c or --max-c")
    budget.refuse_slow((2 * c + game.history) / NAIVE_RATE,
                       f"the naive table of 𝒢 on [0, 2c + max S] for the window c = {c:,}")
    return fits


def window_ladder(c: int | None, max_c: int, K: int) -> list[int]:
    """The windows to try: ``[c]``, or C_START doubled (at least K) up to ``max_c``.

    The one place c and max_c are validated (both ≥ 1).
    """
    if c is not None:
        if isinstance(c, bool) or not isinstance(c, int) or c < 1:
            raise InputError(f"c must be a positive integer (c ≥ 1), not {c!r}")
        return [c]
    if isinstance(max_c, bool) or not isinstance(max_c, int) or max_c < 1:
        raise InputError(f"max_c must be a positive integer (max_c ≥ 1), not {max_c!r}")
    out = []
    cc = C_START
    while cc < K:  # a window shorter than the history cannot settle it
        cc *= 2
    while cc <= max_c:
        out.append(cc)
        cc *= 2
    return out or [max_c]


#: an engine's answer for one n: (n, 𝒢(n), c) or (n, None, the failing m)
Outcome = tuple[int, "int | None", int]
EngineFn = Callable[[IMark, Sequence[int], Sequence[int], bool, Meter], Iterator[Outcome]]


def _layers(game: IMark, ns: Sequence[int], ladder: Sequence[int], reuse: bool,
            meter: Meter) -> Iterator[Outcome]:
    from .layers import _NoConvergence, layered_value, supports  # numpy: loaded on first use

    tables: dict[int, bytes] = {}
    for n in ns:
        if not supports(game, n):  # very wide masks or huge divisors: one at a time
            yield from reference_outcomes(game, [n], ladder, reuse, meter)
            continue
        failed = 0
        for c in ladder:
            base = max(naive.NAIVE_BASE if reuse else 0, 2 * c + game.history)
            if base not in tables:  # a huge window's table takes long: our deadline holds
                tables[base] = imark_sequence(game, upto=base, budget=meter.shared())
            try:
                yield n, layered_value(game, n, c, tables[base], meter), c
                break
            except _NoConvergence as e:
                failed = e.m
        else:
            yield n, None, failed


def _reference(game: IMark, ns: Sequence[int], ladder: Sequence[int], reuse: bool,
               meter: Meter) -> Iterator[Outcome]:
    return reference_outcomes(game, ns, ladder, reuse, meter)


#: the engines, by name (the CLI's ``--engine`` choices)
ENGINES: dict[Engine, EngineFn] = {"layers": _layers, "reference": _reference}
assert set(ENGINES) == set(get_args(Engine))


def imark_prove(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *,
                ns: Iterable[int], c: int | None = None, max_c: int = C_MAX,
                reuse: bool = True, engine: Engine = "layers",
                budget: Budget = UNLIMITED) -> Iterator[IMarkValue | IMarkConvergenceError]:
    """For each n of ``ns`` in order: its proven value, or the error saying why there is none.

    Unlike :func:`imark_values` a failure does not stop the rest: the command
    line prints every provable value of a batch.  The ``layers`` engine yields
    each value as soon as it is proven.

    Raises
    ------
    InputError
        For a bad instance, position, c, max_c or engine (before any work).
    BudgetExceeded, Interrupted
        When ``budget`` runs out, or on Ctrl-C.
    """
    game = game_of(S, D)
    order = [position(n) for n in ns]
    game.guess_vectors()
    ladder = window_ladder(c, max_c, game.history)
    if engine not in ENGINES:
        raise InputError(f"engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    ladder = _fitting(game, ladder, budget)
    meter = budget.start("convergence technique", unit="intervals")
    if engine == "layers":  # per n, in order: stream
        unique = list(dict.fromkeys(order))
    else:
        unique = sorted(set(order))
    seen: dict[int, IMarkValue | IMarkConvergenceError] = {}
    done = 0  # order[:done] delivered
    try:
        for n, value, c_or_m in ENGINES[engine](game, unique, ladder, reuse, meter):
            seen[n] = (IMarkValue(S=game.S, D=game.D, n=n, grundy=value, c=c_or_m)
                       if value is not None
                       else IMarkConvergenceError(game, n, c_or_m, ladder[-1], ladder))
            while done < len(order) and order[done] in seen:  # the caller's order
                yield seen[order[done]]
                done += 1
    except KeyboardInterrupt:
        raise meter.interrupted() from None
    if done < len(order):
        raise SdgBug(f"{game}: the {engine} engine gave no outcome for n = {order[done]}")


def imark_values(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *,
                 ns: Iterable[int], c: int | None = None, max_c: int = C_MAX,
                 reuse: bool = True, engine: Engine = "layers",
                 budget: Budget = UNLIMITED) -> list[IMarkValue]:
    """𝒢(n) for every n in ``ns`` by the convergence technique (SPEC §6).

    Parameters
    ----------
    S, D:
        The instance (or an :class:`IMark` as ``S``).
    ns:
        Positions.
    c:
        The window; ``None`` tries ``C_START``, doubling up to ``max_c``, and
        each value reports the c that proved it.
    reuse:
        Take 𝒢 on [0, :data:`~.naive.NAIVE_BASE`] from the naive table (and, with the
        ``reference`` engine, share proven intervals with earlier calls);
        ``False`` runs SPEC §6 literally: a table of 𝒢 on [0, 2c + max S] only.
    engine:
        ``"layers"`` (one n at a time, memory two layers of the grid) or
        ``"reference"`` (the union of the M(n) at once: cheaper for thousands
        of small n); see :data:`ENGINES`.
    budget:
        Seconds and intervals (``max_states``) for the whole call.

    Returns
    -------
    list of IMarkValue
        In the order of ``ns``.

    Raises
    ------
    IMarkConvergenceError
        (a :class:`~sdg_automata.errors.ConvergenceError`) for the first n of
        ``ns`` whose value could not be proven, with the failing m and c.
    InputError
        For a bad instance, position or c.

    Notes
    -----
    Nivasch, Rubinstein, "A convergence technique for the game i-Mark",
    arXiv 2503.23196: cost O(c · V^max(S) · log^|D| n) for V = |S|+|D|+1.

    >>> [v.grundy for v in imark_values([1], [2, 3], ns=range(11))]
    [0, 1, 0, 2, 1, 0, 1, 0, 2, 0, 1]
    """
    out = []
    for v in imark_prove(S, D, ns=ns, c=c, max_c=max_c, reuse=reuse, engine=engine,
                         budget=budget):
        if isinstance(v, IMarkConvergenceError):
            raise v
        out.append(v)
    return out


def imark_value(S: Iterable[int] | IMark, D: Iterable[int] | None = None, *, n: int,
                c: int | None = None, max_c: int = C_MAX, reuse: bool = True,
                engine: Engine = "layers", budget: Budget = UNLIMITED) -> IMarkValue:
    """𝒢(n) with the window c that proved it; see :func:`imark_values`.

    >>> imark_value([1], [2, 3], n=10**30, reuse=False)
    IMarkValue(S=(1,), D=(2, 3), n=1000000000000000000000000000000, grundy=2, c=16)
    """
    return imark_values(S, D, ns=[n], c=c, max_c=max_c, reuse=reuse, engine=engine,
                        budget=budget)[0]


def imark_grundy(S: Iterable[int] | IMark, D: Iterable[int] | None, n: int,
                 c: int | None = None, *, max_c: int = C_MAX, reuse: bool = True,
                 engine: Engine = "layers", budget: Budget = UNLIMITED) -> int:
    """𝒢(n) of i-Mark(S, D) by the convergence technique (SPEC §6), never unproven.

    Parameters
    ----------
    S, D:
        The subtractions (⊆ ℕ∖{0}) and divisors (⊆ ℕ∖{0, 1}); or an ``IMark``
        game as ``S`` and ``D=None``.
    n:
        The position, any natural number (10¹⁰⁰⁰ takes seconds).
    c:
        The window: I_m = [m − 2c, m], J_m = [m − c, m]; ``None`` chooses it
        (``C_START`` doubled up to ``max_c``).
    max_c:
        The largest window tried when ``c`` is ``None``.
    reuse:
        Keep the computed intervals for the next call on the same game.
    engine:
        ``"layers"`` (default: the exponent grid a layer at a time) or
        ``"reference"`` (one interval at a time): the same values.
    budget:
        States (intervals J_m computed) and seconds.

    Returns
    -------
    int
        𝒢(n), proven: the guess sequences agreed within the window everywhere
        the computation went.

    Raises
    ------
    InputError
        For S or D outside their ranges, or a negative n.
    IMarkConvergenceError
        When the guess sequences do not agree within c steps somewhere (the
        message says at which m and with which c): a
        :class:`~sdg_automata.errors.ConvergenceError`.
    BudgetExceeded
        When ``budget`` runs out.

    Examples
    --------
    i-Mark({1}, {2, 3}): the values agree with the naive table at small n, and
    n = 10¹⁸ is proven at once:

    >>> from sdg_automata import imark_sequence
    >>> [imark_grundy([1], [2, 3], n) for n in range(11)]
    [0, 1, 0, 2, 1, 0, 1, 0, 2, 0, 1]
    >>> list(imark_sequence([1], [2, 3], upto=10))
    [0, 1, 0, 2, 1, 0, 1, 0, 2, 0, 1]
    >>> imark_grundy([1], [2, 3], 10**18)
    2
    """
    return imark_value(S, D, n=n, c=c, max_c=max_c, reuse=reuse, engine=engine,
                       budget=budget).grundy
