"""The i-Mark convergence survey as a sweep: one row per instance i-Mark(S, D) (SPEC §6).

The work of a job is :func:`sdg_automata.games.imark.survey_instance`; this module
only names the jobs, keeps the survey's row fields (``S, D, upto, max_c,
converges, c, worst_start, failed_start, starts, seconds``) and adds the
engine's ``key``, ``status`` and ``error``.  The key holds ``upto`` and
``max_c``: rows of a survey with other limits are other rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..runtime.budget import Meter
from .runner import Status, Sweep

if TYPE_CHECKING:
    from ..games.imark import IMark

__all__ = ["COLUMNS", "IMarkJob", "IMarkRow", "imark_sweep"]

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
    from ..games.imark import survey_instance

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
    """The survey of ``instances`` (e.g. :func:`sdg_automata.games.imark.survey_instances`)."""
    jobs = [IMarkJob(S=tuple(g.S), D=tuple(g.D), upto=upto, max_c=max_c) for g in instances]
    return Sweep(name="imark survey", jobs=jobs, key=_key, work=imark_row, failed=imark_failed,
                 columns=COLUMNS, brief=_brief, csv=_csv, unit="starts")
