"""The i-Mark convergence survey: many instances i-Mark(S, D), one row each (SPEC §6).

The work of one instance is :func:`sdg_automata.games.imark.survey_instance`
(its convergence: the least window c, or the first start that never converges);
this module holds what makes a survey of many:

* the instances (:func:`survey_instances`: every S and D of a range, bounded by
  :data:`MAX_INSTANCES`) and the worst case of their work (:func:`survey_steps`);
* the survey as a sweep (:func:`imark_sweep`, what ``imark survey`` runs): it
  keeps the survey's row fields (``S, D, upto, max_c, converges, c, worst_start,
  failed_start, starts, seconds``) and adds the engine's ``key``, ``status`` and
  ``error``.  The key holds ``upto`` and ``max_c``: rows of a survey with other
  limits are other rows;
* :func:`survey`, the survey as a list, on any :class:`concurrent.futures.Executor`
  (default: a local process pool of :func:`default_jobs` workers); the jobs are
  plain tuples and the rows frozen dataclasses, so both pickle.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor, Future
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from ..errors import BudgetExceeded, InputError
from ..games.imark.coalescence import BYTES_PER_START, SurveyRow, survey_instance, valid_max_c
from ..games.imark.game import IMark, position, rules
from ..games.imark.naive import MAX_TABLE_BYTES
from ..runtime.budget import UNLIMITED, Budget, Meter
from ..runtime.cluster import default_jobs
from .runner import Status, Sweep

__all__ = ["COLUMNS", "MAX_INSTANCES", "MAX_SURVEY_STEPS", "IMarkJob", "IMarkRow", "imark_sweep",
           "survey", "survey_instances", "survey_steps"]

#: the most instances one survey enumerates
MAX_INSTANCES = 100_000
#: the most guess-set steps (instances × starts × max_c, the worst case) a survey runs
#: without a time budget; beyond it the command line refuses up front
MAX_SURVEY_STEPS = 10**9
#: the survey's fields, after the engine's key and status; CSV's column order
COLUMNS = ("key", "status", "S", "D", "upto", "max_c", "converges", "c", "worst_start",
           "failed_start", "starts", "seconds", "error")


def _show(values: Iterable[int]) -> str:
    return "{" + ",".join(map(str, values)) + "}"


@dataclass(frozen=True, kw_only=True)
class IMarkJob:
    """One instance of the survey, with the survey's limits."""

    S: tuple[int, ...]
    D: tuple[int, ...]
    upto: int
    max_c: int

    @property
    def key(self) -> str:
        """E.g. ``S={1} D={2,3} upto=2000 max_c=128``."""
        return f"S={_show(self.S)} D={_show(self.D)} upto={self.upto} max_c={self.max_c}"


@dataclass(frozen=True, kw_only=True)
class IMarkRow:
    """A survey row (see :class:`sdg_automata.games.imark.SurveyRow`) with key, status and error.

    ``converges``, ``c``, ``worst_start``, ``failed_start`` and ``starts`` are
    ``None`` when the status is not ``"ok"``.
    """

    key: str
    status: Status
    S: tuple[int, ...]
    D: tuple[int, ...]
    upto: int
    max_c: int
    converges: bool | None = None
    c: int | None = None
    worst_start: int | None = None
    failed_start: int | None = None
    starts: int | None = None
    seconds: float = 0.0
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "status": self.status, "S": list(self.S), "D": list(self.D),
                "upto": self.upto, "max_c": self.max_c, "converges": self.converges,
                "c": self.c, "worst_start": self.worst_start, "failed_start": self.failed_start,
                "starts": self.starts, "seconds": round(self.seconds, 4), "error": self.error}


def imark_row(job: IMarkJob, meter: Meter) -> IMarkRow:
    """:func:`~sdg_automata.games.imark.survey_instance` of the job's instance."""
    r = survey_instance(job.S, job.D, upto=job.upto, max_c=job.max_c)
    return IMarkRow(key=job.key, status="ok", S=r.S, D=r.D, upto=r.upto, max_c=r.max_c,
                    converges=r.converges, c=r.c, worst_start=r.worst_start,
                    failed_start=r.failed_start, starts=r.starts, seconds=r.seconds)


def imark_failed(job: IMarkJob, status: Status, message: str, reached: int) -> IMarkRow:
    """The row of an instance whose job failed or ran out of time (``reached`` is not a
    column of this survey)."""
    return IMarkRow(key=job.key, status=status, S=job.S, D=job.D, upto=job.upto,
                    max_c=job.max_c, error=message)


def _key(job: IMarkJob) -> str:
    return job.key


def _csv(row: dict[str, Any]) -> dict[str, Any]:
    """S and D written as sets, ``{1,2}``, as the survey always wrote them in CSV."""
    return dict(row, S=_show(row["S"]), D=_show(row["D"]))


def _brief(row: dict[str, Any]) -> dict[str, str]:
    if row["status"] != "ok":
        result = f"{row['status']}: {row['error']}"
    elif row["converges"]:
        result = "converges"
    else:
        result = f"no convergence from start {row['failed_start']}"
    return {"S": _show(row["S"]), "D": _show(row["D"]),
            "c": "" if row["c"] is None else str(row["c"]),
            "worst start": "" if row["worst_start"] is None else str(row["worst_start"]),
            "seconds": f"{row['seconds']:.2f}", "result": result}


def imark_sweep(instances: Iterable[IMark], *, upto: int, max_c: int = 128) -> Sweep[IMarkJob]:
    """The survey of ``instances`` (e.g. :func:`survey_instances`)."""
    jobs = [IMarkJob(S=tuple(g.S), D=tuple(g.D), upto=upto, max_c=max_c) for g in instances]
    return Sweep(name="imark survey", jobs=jobs, key=_key, work=imark_row, failed=imark_failed,
                 columns=COLUMNS, brief=_brief, csv=_csv, unit="starts")


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
    upto, max_c = position(upto), valid_max_c(max_c)
    if jobs is not None and (isinstance(jobs, bool) or not isinstance(jobs, int) or jobs < 1):
        raise InputError(f"jobs must be a positive integer, not {jobs!r}")
    for g in games:
        rules(g)  # refuses a guess space too large before any work
    if (upto + max_c) * BYTES_PER_START > MAX_TABLE_BYTES:
        raise BudgetExceeded(f"a survey up to {upto} needs about "
                             f"{(upto + max_c) * BYTES_PER_START:,} bytes per instance, more "
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
