"""The octal survey: every octal code of up to D digits, its proven period or how far it got.

Each code is one job of the sweep engine (:mod:`sdg_automata.sweeps.runner`): a row
per code, certified (its least preperiod and period, proven by
:meth:`OctalGame.period <sdg_automata.games.octal.rules.OctalGame.period>`) or open
as far as its values reached within ``max_n`` and its budget.  The CLI runs it as
``octal survey``; ``docs/octal.md`` ("The 3-digit survey") shows its results.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field, replace
from typing import Any

from ..errors import BudgetExceeded, InputError
from ..games.octal.period import OctalPeriod
from ..games.octal.rules import OctalGame
from ..games.octal.values import load_kernels
from ..runtime.budget import UNLIMITED, Budget, Meter
from ..runtime.engines import Engine, check_engine
from .runner import Status, Sweep, run_sweep

__all__ = ["SURVEY_COLUMNS", "SURVEY_MAX_N", "SurveyRow", "codes", "survey", "survey_failed",
           "survey_row", "survey_sweep"]

#: values per code in a survey before the code is reported open
SURVEY_MAX_N = 1 << 15
#: the share of a survey's per-code seconds (at most 5 s) left between the engine's own
#: budget and the sweep's deadline, so that the engine stops first and says how far it got
_SURVEY_MARGIN = 0.1



def codes(digits: int) -> Iterator[str]:
    """Every canonical code with 1 … ``digits`` digits, in numeric order."""
    if isinstance(digits, bool) or not isinstance(digits, int) or digits < 1:
        raise InputError(f"the number of digits must be a positive integer, not {digits!r}")
    for length in range(1, digits + 1):
        for i in range(8 ** length):
            ds = [(i >> (3 * (length - 1 - j))) & 7 for j in range(length)]
            if ds[-1]:
                yield "0." + "".join(map(str, ds))


#: the fields of a survey row, in the order CSV shows them
SURVEY_COLUMNS = ("key", "status", "code", "preperiod", "period", "certified", "checked_to",
                  "mask", "positional", "rare", "seconds", "error")


@dataclass(frozen=True, kw_only=True)
class SurveyRow:
    """One code of a survey (a :class:`~sdg_automata.sweeps.runner.Row`): its period or why not.

    ``status`` is ``"ok"`` when the job finished (certified or open up to
    ``checked_to``), ``"budget"`` or ``"error"`` when it did not (``error``
    says why; ``result`` is then ``None``).
    """

    code: str
    status: Status
    result: OctalPeriod | None = None
    seconds: float = field(default=0.0, compare=False)
    error: str | None = None

    @property
    def key(self) -> str:
        """The code: what a resumed survey matches."""
        return self.code

    def to_json(self) -> dict[str, Any]:
        """The :data:`SURVEY_COLUMNS`, without the values (``null`` where unknown)."""
        r, sp = self.result, self.result.sparse if self.result else None
        return {"key": self.code, "status": self.status, "code": self.code,
                "preperiod": r and r.preperiod, "period": r and r.period,
                "certified": r.certified if r else None,
                "checked_to": r.checked_to if r else None,
                "mask": sp.mask if sp else None, "positional": sp.positional if sp else None,
                "rare": sp.rare if sp else None, "seconds": round(self.seconds, 4),
                "error": self.error}


def survey_row(job: tuple[str, int, Engine], meter: Meter) -> SurveyRow:
    """The sweep's work: :meth:`OctalGame.period` of one (code, max_n, engine), timed."""
    code, max_n, engine = job
    budget, seconds = meter.budget, meter.budget.max_seconds
    if seconds is not None:  # stop before the sweep's own deadline, to say how far
        budget = replace(budget, max_seconds=seconds - min(_SURVEY_MARGIN * seconds, 5.0))
    # the values reached, as progress reports them, are the job meter's count: should the
    # sweep's own deadline (its alarm) stop the engine first, or this row as it is built,
    # the sweep's row (survey_failed) says how far it got all the same
    inner = budget.progress

    def report(count: int) -> None:
        meter.count = count
        if inner is not None:
            inner(count)

    try:
        result = OctalGame.parse(code).period(max_n=max_n, engine=engine,
                                              budget=replace(budget, progress=report))
    except BudgetExceeded as e:  # open as far as it got: the row says how far
        return _open_row(code, max(e.explored, meter.count), str(e), meter.elapsed)
    return SurveyRow(code=code, status="ok", result=result, seconds=meter.elapsed)


def survey_failed(job: tuple[str, int, Engine], status: Status, message: str,
                  reached: int) -> SurveyRow:
    """The sweep's row for a job over its budget (open as far as the ``reached`` values)
    or failed."""
    if status == "budget":
        return _open_row(job[0], reached, message, 0.0)
    return SurveyRow(code=job[0], status=status, error=message)


def _open_row(code: str, reached: int, why: str, seconds: float) -> SurveyRow:
    """A code stopped at its budget: open as far as the ``reached`` values (which ``why``
    says, unless the engine's own message did)."""
    if not why.endswith(f"({reached} values reached)"):
        why = f"{why}, {reached} values reached"
    result = OctalPeriod(code=code, preperiod=None, period=None, certified=False,
                         checked_to=reached)
    return SurveyRow(code=code, status="budget", result=result, seconds=seconds, error=why)


def _brief(row: dict[str, Any]) -> dict[str, str]:
    """A row as the short cells of a terminal table ("open" when not proven up to N)."""
    def cell(value: Any) -> str:
        return "" if value is None else str(value)

    if row["status"] != "ok":
        first = row["status"]
    elif not row["certified"]:
        first = "open"
    else:
        first = cell(row["preperiod"])
    return {"code": row["code"], "preperiod": first, "period": cell(row["period"]),
            "values": cell(row["checked_to"]), "seconds": f"{row['seconds']:.3f}"}


def survey_sweep(digits: int, *, max_n: int = SURVEY_MAX_N,
                 engine: Engine = "auto") -> Sweep[tuple[str, int, Engine]]:
    """Every code of up to ``digits`` digits as a sweep (:mod:`sdg_automata.sweeps.runner`).

    Run it with :func:`~sdg_automata.sweeps.runner.run_sweep` on any executor, or on
    the command line with ``octal survey``.
    """
    if isinstance(max_n, bool) or not isinstance(max_n, int) or max_n < 1:
        raise InputError(f"max_n must be a positive integer, not {max_n!r}")
    check_engine(engine)
    return Sweep(name="octal games", jobs=[(c, max_n, engine) for c in codes(digits)],
                 key=_job_key, work=survey_row, failed=survey_failed, columns=SURVEY_COLUMNS,
                 brief=_brief, unit="values")


def _job_key(job: tuple[str, int, Engine]) -> str:
    return job[0]


def survey(digits: int, *, max_n: int = SURVEY_MAX_N, executor: Executor | None = None,
           budget: Budget = UNLIMITED, engine: Engine = "auto") -> list[dict[str, Any]]:
    """The rows of :func:`survey_sweep`, in code order.

    Parameters
    ----------
    digits:
        The most digits (2 or 3 in practice: 63 and 511 codes).
    max_n:
        Values per code before it is reported open ("not proven up to N").
    executor:
        Where the codes run (a process pool, a Dask executor); ``None``: here.
    budget:
        The per-code budget; a code over it is a row with status ``"budget"``.
    engine:
        Where each code's values are computed (see
        :meth:`~sdg_automata.games.octal.rules.OctalGame.values`).
    """
    sweep = survey_sweep(digits, max_n=max_n, engine=engine)
    load_kernels(engine, max_n)  # before any code's budget starts (or a local pool forks)
    rows: dict[str, dict[str, Any]] = {}
    run_sweep(sweep, lambda row: rows.__setitem__(row["key"], row), executor=executor,
              budget=budget)
    return [rows[c] for c, _, _ in sweep.jobs]
