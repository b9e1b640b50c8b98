"""The convergence survey: which instances converge, and with which window c.

For a start lo, every guess vector for 𝒢 on [lo − max S, lo − 1] is run with
the true division followers (from the naive table); the number of steps until
all guess sequences agree is the window that start needs.  An instance whose
every start up to N needs at most c steps is proven by the technique for every
n ≤ N + 2c with that c.  This is the experiment of the seed paper (SPEC §6).

:func:`survey` takes any :class:`concurrent.futures.Executor` (default: a local
process pool of :func:`default_jobs` workers); the jobs are plain tuples and
the rows frozen dataclasses, so both pickle.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from ...errors import BudgetExceeded, InputError
from ...runtime.budget import UNLIMITED, Budget
from ...sweeps.runner import default_jobs
from .game import IMark, Rules, game_of, position, rules
from .naive import MAX_TABLE_BYTES, imark_sequence

__all__ = ["MAX_INSTANCES", "MAX_SURVEY_STEPS", "SurveyRow", "coalescence_steps", "default_jobs",
           "survey", "survey_instance", "survey_instances", "survey_steps"]

#: the most instances one survey enumerates
MAX_INSTANCES = 100_000
#: the most guess-set steps (instances × starts × max_c, the worst case) a survey runs
#: without a time budget; beyond it the command line refuses up front
MAX_SURVEY_STEPS = 10**9
#: bytes per start the survey keeps (a table byte and a Python list slot)
_BYTES_PER_START = 9


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
    if horizon * _BYTES_PER_START > MAX_TABLE_BYTES:
        raise BudgetExceeded(f"a survey up to {upto} needs about "
                             f"{horizon * _BYTES_PER_START:,} bytes, more than the limit of "
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


def _max_c(max_c: Any) -> int:
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
    K, steps = _steps_counter(game_of(S, D), upto, _max_c(max_c))
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
    upto, max_c = position(upto), _max_c(max_c)
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


def survey_steps(instances: int, upto: int, max_c: int) -> int:
    """The worst-case number of guess-set steps of a survey: every start of every instance
    running the full ``max_c`` steps (converging instances take far fewer)."""
    return instances * upto * max_c


def _subsets(n: int, most: int, cap: int) -> int:
    """Σ_{1 ≤ k ≤ most} C(n, k), or the first partial sum over ``cap`` (huge n stay fast)."""
    total, term = 0, 1
    for k in range(1, most + 1):
        term = term * (n - k + 1) // k  # C(n, k) from C(n, k - 1)
        total += term
        if total > cap:
            break
    return total


def _count(max_s: int, max_d: int, max_d_size: int, max_s_size: int) -> int:
    """The number of instances, or a number over :data:`MAX_INSTANCES` when there are more."""
    return (_subsets(max_s, max_s_size, MAX_INSTANCES)
            * _subsets(max_d - 1, max_d_size, MAX_INSTANCES))


def survey_instances(max_s: int, max_d: int, *, max_d_size: int = 2,
                     max_s_size: int | None = None) -> list[IMark]:
    """The survey's instances: S a non-empty subset of {1 … max_s}, D a non-empty subset of
    {2 … max_d} with |D| ≤ ``max_d_size`` (and |S| ≤ ``max_s_size`` if given).

    Ordered by |S|, S, |D|, D.  More than :data:`MAX_INSTANCES` are refused
    before any is built.

    >>> [str(g) for g in survey_instances(1, 3)]
    ['i-Mark(S={1}, D={2})', 'i-Mark(S={1}, D={3})', 'i-Mark(S={1}, D={2,3})']
    """
    for name, v in (("max_s", max_s), ("max_d", max_d), ("max_d_size", max_d_size)):
        if isinstance(v, bool) or not isinstance(v, int):
            raise InputError(f"{name} must be an integer, not {v!r}")
    if max_s < 1 or max_d < 2 or max_d_size < 1:
        raise InputError("the survey needs max_s ≥ 1, max_d ≥ 2 and max_d_size ≥ 1")
    s_top = max_s if max_s_size is None else min(max_s, max_s_size)
    count = _count(max_s, max_d, min(max_d_size, max_d - 1), s_top)
    if count > MAX_INSTANCES:
        raise InputError(f"the survey would have more than {MAX_INSTANCES:,} instances; lower "
                         "--max-s, --max-d or --max-d-size")
    subsets = [c for k in range(1, s_top + 1) for c in combinations(range(1, max_s + 1), k)]
    divisors = [c for k in range(1, max_d_size + 1) for c in combinations(range(2, max_d + 1), k)]
    return [IMark(S=s, D=d) for s in subsets for d in divisors]


#: one job: (S, D, upto, max_c, deadline); a tuple of ints so it pickles anywhere
Job = tuple[tuple[int, ...], tuple[int, ...], int, int, "float | None"]


def survey_job(job: Job) -> SurveyRow:
    """Run one job (a module-level function: process pools pickle it by name)."""
    S, D, upto, max_c, deadline = job
    return survey_instance(IMark(S=S, D=D), upto=upto, max_c=max_c, deadline=deadline)


def survey(instances: Iterable[IMark], *, upto: int, max_c: int = 128, jobs: int | None = None,
           executor: Executor | None = None, budget: Budget = UNLIMITED,
           on_result: Callable[[SurveyRow], None] | None = None) -> list[SurveyRow]:
    """:func:`survey_instance` for every instance, on ``executor`` or ``jobs`` local processes.

    Parameters
    ----------
    instances:
        The instances (each's guess space is checked before any work).
    executor:
        Any :class:`concurrent.futures.Executor`; ``None`` makes a process
        pool of ``jobs`` workers (``None``: :func:`default_jobs`), or runs in
        this process when ``jobs == 1``.
    budget:
        ``max_seconds`` for the whole survey (each job gets the deadline).
    on_result:
        Called in this process as each instance finishes (in completion
        order); the returned list keeps the order of ``instances``.

    Raises
    ------
    BudgetExceeded
        When the seconds run out (saying how many instances finished).
    """
    games = list(instances)
    upto, max_c = position(upto), _max_c(max_c)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise InputError(f"jobs must be a positive integer, not {jobs!r}")
    for g in games:
        rules(g)  # refuses a guess space too large before any work
    if (upto + max_c) * _BYTES_PER_START > MAX_TABLE_BYTES:
        raise BudgetExceeded(f"a survey up to {upto} needs about "
                             f"{(upto + max_c) * _BYTES_PER_START:,} bytes per instance, more "
                             f"than the limit of {MAX_TABLE_BYTES:,}")
    meter = budget.start("survey", unit="instances")
    deadline = None if budget.max_seconds is None else time.time() + budget.max_seconds
    work: list[Job] = [(g.S, g.D, upto, max_c, deadline) for g in games]
    rows: list[SurveyRow | None] = [None] * len(work)

    def done(i: int, row: SurveyRow) -> None:
        rows[i] = row
        if on_result:
            on_result(row)
        meter.check(sum(r is not None for r in rows))

    workers = jobs or default_jobs()
    try:
        if executor is None and (workers == 1 or len(work) <= 1):
            for i, w in enumerate(work):
                done(i, survey_job(w))
        else:
            from concurrent.futures import ProcessPoolExecutor, as_completed

            pool = executor or ProcessPoolExecutor(max_workers=min(workers, len(work)))
            futures: dict[Future[SurveyRow], int] = {}
            try:
                futures.update({pool.submit(survey_job, w): i for i, w in enumerate(work)})
                for fut in as_completed(futures):
                    done(futures[fut], fut.result())
            except BaseException:
                for f in futures:
                    f.cancel()
                raise
            finally:
                if executor is None:
                    pool.shutdown(wait=True, cancel_futures=True)
    except KeyboardInterrupt:
        raise meter.interrupted(sum(r is not None for r in rows)) from None
    return [row for row in rows if row is not None]
