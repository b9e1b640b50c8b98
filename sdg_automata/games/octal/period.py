"""Periods of octal games: proven by the octal periodicity theorem, made least, and the result.

:func:`prove` computes values (:mod:`sdg_automata.games.octal.values`) until the
periodicity theorem (Guy–Smith 1956; ``docs/octal.md`` §2) proves a period: if
𝒢(n + p) = 𝒢(n) for all n₀ ≤ n < 2n₀ + p + t, then for all n ≥ n₀.  Nothing is
extrapolated: when no period is proven within the values computed, the result
(:class:`OctalPeriod`) says so.  :func:`find_period` proposes a candidate from the
values, :func:`minimize` makes a proven one least (``docs/octal.md`` §3); both run
compiled (:mod:`sdg_automata.kernels.octal`) when the values are.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, get_args

import numpy as np
import numpy.typing as npt

from ...errors import BudgetExceeded, InputError, Interrupted, InvalidCertificate, SdgBug
from ...runtime.budget import Budget, Meter
from ...runtime.engines import THRESHOLDS, Engine
from ...runtime.stopping import held_signals
from .checkpoint import _Checkpoint
from .space import SparseSpace
from .values import Method, Rules, _Engine
from .verify import check_period, check_values

__all__ = ["DEFAULT_MAX_N", "JSON_VALUES", "PERIOD_COMPILED_FROM", "OctalPeriod",
           "find_period", "minimize", "prove", "recheck", "theorem_values"]

#: values computed by default before a period is declared not proven: enough
#: for every game of the benchmark table (0.56 needs 653 582)
DEFAULT_MAX_N = 1 << 20

#: the values ``OctalPeriod.to_json`` lists by default (the rest: ``shown=``, ``--values``)
JSON_VALUES = 1000

#: ``engine="auto"`` runs a period search compiled from this many values (a plain run of
#: values: :data:`~sdg_automata.games.octal.values.COMPILED_FROM`; both in
#: :data:`sdg_automata.runtime.engines.THRESHOLDS`, which says why)
PERIOD_COMPILED_FROM = THRESHOLDS["octal period values"]

_EMPTY: npt.NDArray[np.uint8] = np.zeros(0, dtype=np.uint8)
_EMPTY.flags.writeable = False


@dataclass(frozen=True, kw_only=True)
class OctalPeriod:
    """The eventual period of an octal game's Grundy sequence, or "not proven up to N".

    Attributes
    ----------
    code:
        The canonical code.
    preperiod, period:
        The least n₀ with 𝒢(n + p) = 𝒢(n) for every n ≥ n₀, for the least
        such p; ``None`` when not certified.
    certified:
        ``True`` when proven by the periodicity theorem, ``False`` when no
        period was proven within ``checked_to`` values (never a guess).
    checked_to:
        The number of values computed.
    values:
        𝒢(0), …, 𝒢(n₀ + p − 1) (a read-only array of the narrowest unsigned
        type that holds them; empty when not certified): with the period
        they give every value.
    sparse:
        The rare/common split used, or ``None`` (full computation).
    computed:
        All ``checked_to`` values computed (read-only; the certificate's
        source), or empty.
    resumed:
        How many of ``computed`` came from a checkpoint rather than from this run
        (:func:`prove` has them re-derived by the independent checker before it says
        anything of them: :func:`recheck`).
    """

    code: str
    preperiod: int | None
    period: int | None
    certified: bool
    checked_to: int
    values: npt.NDArray[np.integer[Any]] = field(default_factory=lambda: _EMPTY, compare=False)
    sparse: SparseSpace | None = field(default=None, compare=False)
    computed: npt.NDArray[np.integer[Any]] = field(default_factory=lambda: _EMPTY,
                                                    compare=False, repr=False)
    resumed: int = field(default=0, compare=False)

    def __post_init__(self) -> None:
        if self.certified != (self.preperiod is not None and self.period is not None):
            raise SdgBug("a certified period has a preperiod and a period, and only it")
        if self.period is not None and self.preperiod is not None:
            if self.period < 1 or self.preperiod < 0:
                raise SdgBug(f"impossible period {self.period} / preperiod {self.preperiod}")
            if len(self.values) != self.preperiod + self.period:
                raise SdgBug("a certified period carries its first preperiod + period values")

    def value(self, n: int) -> int:
        """𝒢(n) for any n ≥ 0, from the proven period."""
        if self.preperiod is None or self.period is None:
            raise InputError(f"{self.code} has no proven period (checked to {self.checked_to})")
        if n < 0:
            raise InputError(f"heap sizes are natural numbers, not {n}")
        if n >= self.preperiod:
            n = self.preperiod + (n - self.preperiod) % self.period
        return int(self.values[n])

    def first(self, k: int) -> list[int]:
        """𝒢(0), …, 𝒢(k − 1) from the proven period."""
        if self.preperiod is None or self.period is None:
            raise InputError(f"{self.code} has no proven period (checked to {self.checked_to})")
        idx = np.arange(k, dtype=np.int64)
        late = idx >= self.preperiod
        idx[late] = self.preperiod + (idx[late] - self.preperiod) % self.period
        out: list[int] = self.values[idx].tolist()
        return out

    def to_json(self, *, shown: int | None = None) -> dict[str, Any]:
        """``{"code", "preperiod", "period", "certified", "checked_to", "values",
        "values_total"}``: ``values`` lists the first ``shown`` values (default: the
        first preperiod + period, at most :data:`JSON_VALUES`); ``values_total`` is
        preperiod + period, the number of values that give every value (``null``
        when not certified).  Not certified, ``values`` lists the first ``shown`` of the
        values computed (each exact; none by default)."""
        total = len(self.values) if self.certified else None
        k = min(total or 0, JSON_VALUES) if shown is None else shown
        listed = self.first(k) if self.certified else self.computed[:k].tolist()
        return {"code": self.code, "preperiod": self.preperiod, "period": self.period,
                "certified": self.certified, "checked_to": self.checked_to,
                "values": listed, "values_total": total}


# -- the proof ----------------------------------------------------------------------------


def prove(game: Rules, *, max_n: int, method: Method, budget: Budget, engine: Engine,
          checkpoint: str | None) -> OctalPeriod:
    """:meth:`OctalGame.period <sdg_automata.games.octal.rules.OctalGame.period>`: the
    arguments checked, the least preperiod and period proven, or "not proven up to N"."""
    if isinstance(max_n, bool) or not isinstance(max_n, int) or max_n < 1:
        raise InputError(f"max_n must be a positive integer, not {max_n!r}")
    if method not in get_args(Method) or method == "naive":
        raise InputError(f"periods are computed with 'auto', 'sparse' or 'full', "
                         f"not {method!r}")
    run = _Engine(game, method=method, engine=engine, compiled_from=PERIOD_COMPILED_FROM)
    saver = None if checkpoint is None else _Checkpoint(checkpoint, run)
    bar = budget.progress  # the check's progress: the saver's would save the values checked
    if saver is not None:
        budget = replace(budget, progress=saver.progress(budget.progress))
    meter = budget.start(f"{game.code} period", unit="values")
    try:
        try:
            result = _prove(game, run, max_n, meter)
            if saver is not None:
                result = replace(result, resumed=saver.resumed)
            _checked(result, game.heaps, engine, replace(meter.shared(), progress=bar),
                     saver)
        except KeyboardInterrupt:  # between two kernel calls (extend has its own)
            raise meter.interrupted(run.n) from None
    except (BudgetExceeded, Interrupted):
        if saver is not None:  # keep what was computed
            saver.save()
        raise
    if saver is not None:
        saver.save()
    return result


def _checked(result: OctalPeriod, heaps: int, engine: Engine, budget: Budget,
             saver: _Checkpoint | None) -> None:
    """What the run says is checked, not trusted (``docs/octal.md`` §8).

    A certified period: the independent checker's steps 2–3
    (:func:`~sdg_automata.games.octal.verify.check_period`: the theorem's count, the
    period, the least preperiod and period) on the values the claim rests on, and its
    step 1 on those of them this run did not compute itself but resumed from a
    checkpoint (:func:`recheck`).  "No period proven within N values" rests on all N:
    every resumed value is re-derived.

    Raises
    ------
    InputError
        A resumed value is wrong: the checkpoint was damaged or edited.
    SdgBug
        The checker refutes a period this run proved.
    """
    need = _needed(result, heaps) if result.certified else result.checked_to
    meter = budget.start(f"{result.code}: the independent check", unit="values")
    try:
        recheck(result, need, engine=engine, meter=meter)
    except InvalidCertificate as e:
        assert saver is not None  # only resumed values are re-derived
        raise saver.damaged(f"the independent checker refutes a value it holds: "
                            f"{str(e).replace(' in the certificate', '')}") from None
    if result.preperiod is None or result.period is None:
        return
    try:
        check_period(result.code, result.computed[:need], result.preperiod, result.period,
                     engine=engine, meter=meter)
    except InvalidCertificate as e:
        raise SdgBug(f"the checker refutes the period proven for {result.code}: {e}") from None


def _needed(result: OctalPeriod, heaps: int) -> int:
    """The values a certified result rests on: :func:`theorem_values` (§2)."""
    assert result.preperiod is not None and result.period is not None
    return theorem_values(result.preperiod, result.period, len(result.code) - 2, heaps)


def recheck(result: OctalPeriod, upto: int, *, engine: Engine = "auto",
            meter: Meter | None = None) -> None:
    """Re-derive the values below ``upto`` that came from a checkpoint (``result.resumed``)
    by the independent checker (:func:`~sdg_automata.games.octal.verify.check_values`).

    The values a run computes after them depend on them, so checking the first
    min(``upto``, resumed) values makes every value below ``upto`` checked or computed.
    The check uses the run's sparse space (any one the lemma holds for is sound), or
    enumerates every option without one.  Nothing to do for a run that resumed nothing.

    Raises
    ------
    InvalidCertificate
        The first resumed value the rules refute.
    """
    upto = min(upto, result.resumed)
    if upto <= 0:
        return
    sparse = None if result.sparse is None else result.sparse.to_json()
    check_values(result.code, result.computed[:upto], sparse=sparse, engine=engine,
                 meter=meter)


def _prove(game: Rules, run: _Engine, max_n: int, meter: Meter) -> OctalPeriod:
    """Extend ``run`` until the theorem proves a period or ``max_n`` values are known."""
    target = min(max_n, max(128, run.n))
    while True:
        run.extend(target, meter)
        n = run.n
        found = _candidate(run)
        if found is not None and found[2] <= n:
            pre, per = _least(run, found[0], found[1])
            return OctalPeriod(code=game.code, preperiod=pre, period=per, certified=True,
                               checked_to=n, values=run.frozen(pre + per),
                               sparse=run.space, computed=run.frozen(n))
        if n >= max_n:
            return OctalPeriod(code=game.code, preperiod=None, period=None, certified=False,
                               checked_to=n, sparse=run.space, computed=run.frozen(n))
        # the plausible candidate says how many values would prove it; else grow by 1/4
        step = max(128, n // 4)
        target = min(max_n, found[2] if found is not None and found[2] < n + step else n + step)


# -- candidates and least periods --------------------------------------------------------

_MATCH = 64  # the trailing window whose recurrences propose periods


def theorem_values(n0: int, p: int, t: int, heaps: int = 2) -> int:
    """How many values 𝒢(0..N−1) prove the period p from n₀ (``docs/octal.md`` §2).

    Octal codes (a move leaves at most two heaps): N = 2·max(n₀, 1) + 2p + t, the
    Guy–Smith theorem.  Hexadecimal codes (three heaps): N = 3n₀ + 3p + t + 3, the
    bound of CGSuite's take-and-break checker (``maxHeaps·(n₀ + p) + t + maxHeaps``),
    which is at least the 3·max(n₀, 1) + 3p + t the same induction needs.

    >>> theorem_values(71, 12, 2), theorem_values(0, 5, 2, heaps=3)
    (168, 20)
    """
    if heaps == 3:
        return 3 * n0 + 3 * p + t + 3
    return 2 * max(n0, 1) + 2 * p + t


def find_period(g: npt.NDArray[np.integer[Any]], t: int,
                heaps: int = 2) -> tuple[int, int, int] | None:
    """A candidate (n₀, p, N) from the computed values, or ``None``.

    p is the least shift at which the last values recur and that has held for
    at least one full period; n₀ = 1 + its last exception in ``g``; N =
    :func:`theorem_values` (2·max(n₀, 1) + 2p + t for an octal code) is the number
    of values that would prove it (the theorem holds when ``len(g) >= N``).
    """
    n = len(g)
    w = min(_MATCH, n // 4)
    if w < 1:
        return None
    tail = g[n - w:]
    cand = np.arange(1, n - w + 1)  # shifts p
    for j in range(w):
        cand = cand[g[n - w + j - cand] == tail[j]]
        if not len(cand):
            return None
    for p in cand.tolist():
        bad = np.flatnonzero(g[p:] != g[:n - p])
        n0 = int(bad[-1]) + 1 if len(bad) else 0
        if n - p - n0 >= p:  # held for a full period at least: worth proving
            return n0, p, theorem_values(n0, p, t, heaps)
    return None


def minimize(g: npt.NDArray[np.integer[Any]], n0: int, p: int) -> tuple[int, int]:
    """The least preperiod and period, given a proven (n₀, p) and the values up to n₀ + 2p."""
    period = next(d for d in _divisors(p)
                  if np.array_equal(g[n0 + d:n0 + d + p], g[n0:n0 + p]))
    bad = np.flatnonzero(g[period:n0 + period] != g[:n0])
    return (int(bad[-1]) + 1 if len(bad) else 0), period


def _divisors(p: int) -> list[int]:
    small = [d for d in range(1, int(p ** 0.5) + 1) if p % d == 0]
    return sorted(set(small + [p // d for d in small]))


def _candidate(run: _Engine) -> tuple[int, int, int] | None:
    """:func:`find_period` of the values so far (compiled when the values are)."""
    if run.kernels is None:
        return find_period(run.g[:run.n], run.game.t, run.game.heaps)
    w = min(_MATCH, run.n // 4)
    if w < 1:
        return None
    with held_signals():  # as in _Engine._compiled
        n0, p, need = run.kernels.find_period(run.g, run.n, run.game.t, w)
    return None if p < 0 else (int(n0), int(p), int(need))


def _least(run: _Engine, n0: int, p: int) -> tuple[int, int]:
    """:func:`minimize` (compiled when the values are)."""
    if run.kernels is None:
        return minimize(run.g[:run.n], n0, p)
    with held_signals():  # as in _Engine._compiled
        period = int(run.kernels.first_period(run.g, n0, p,
                                               np.array(_divisors(p), dtype=np.int64)))
        return int(run.kernels.last_exception(run.g, n0, period)) + 1, period
