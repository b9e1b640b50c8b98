"""The grammar sweep: every right-linear grammar of a size, one row each (issue 12).

The jobs are the canonical grammars of :mod:`~sdg_automata.generators.enumeration`
(one per isomorphism class).  A row holds what one exploration of the
grammar's automaton (SPEC §4, Steps 1–5) tells about every nonterminal A:
the bound m_A (SPEC §3), the maximum of 𝒢_{G,A} over L(G, A) (SPEC §5) and a
shortest word reaching it, and the number of reachable states.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ..generators.enumeration import GrammarShape, grammar_classes
from ..grammar import Grammar, Rule
from ..runtime.budget import Meter
from .runner import Status, Sweep

__all__ = ["COLUMNS", "GrammarJob", "GrammarJobs", "GrammarRow", "grammar_row", "grammar_sweep"]

#: the fields of a row, in the order CSV and the table show them
COLUMNS = ("key", "status", "states", "bounds", "max", "witness", "seconds", "error", "grammar")


@dataclass(frozen=True, kw_only=True)
class GrammarJob:
    """One grammar to explore: Σ and its rules (head, body symbols) in canonical order."""

    letters: str
    rules: tuple[tuple[str, tuple[str, ...]], ...]

    @property
    def key(self) -> str:
        """``Σ: rules``, one line, e.g. ``ab: N0 -> a N0 | b``; the canonical grammar's name."""
        by_head: dict[str, list[str]] = {}
        for head, body in self.rules:
            by_head.setdefault(head, []).append(" ".join(body))
        return f"{self.letters}: " + "; ".join(f"{h} -> {' | '.join(b)}"
                                                for h, b in by_head.items())

    def grammar(self) -> Grammar:
        """The grammar, with Σ the sweep's letters (used or not)."""
        return Grammar(rules=(Rule(h, b) for h, b in self.rules), start="N0",
                       terminals=self.letters)


@dataclass(frozen=True, kw_only=True)
class GrammarRow:
    """The row of one grammar.

    Attributes
    ----------
    key:
        :attr:`GrammarJob.key`.
    grammar:
        The grammar in the text format (:func:`~sdg_automata.grammar.parse.grammar_to_text`).
    status:
        ``"ok"``, ``"budget"`` (over the per-job budget) or ``"error"``.
    states:
        Reachable states of the automaton (for ``"budget"``: how many were
        built when it stopped).
    bounds:
        m_A for every nonterminal (SPEC §3).
    max, witness:
        For every nonterminal A, max 𝒢_{G,A} over L(G, A) and a shortest word
        reaching it (empty when the status is not ``"ok"``).
    seconds:
        Wall time of the job.
    error:
        What went wrong, for ``"budget"`` and ``"error"``.
    """

    key: str
    grammar: str
    status: Status
    states: int | None = None
    bounds: dict[str, int] = field(default_factory=dict)
    max: dict[str, int | None] = field(default_factory=dict)
    witness: dict[str, str | None] = field(default_factory=dict)
    seconds: float = 0.0
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "status": self.status, "states": self.states,
                "bounds": self.bounds, "max": self.max, "witness": self.witness,
                "seconds": round(self.seconds, 6), "error": self.error, "grammar": self.grammar}


def _text(job: GrammarJob) -> str:
    from ..grammar.parse import grammar_to_text

    return grammar_to_text(job.grammar())


def grammar_row(job: GrammarJob, meter: Meter) -> GrammarRow:
    """Explore the grammar's automaton once; every nonterminal's bound, maximum, witness.

    Uses :func:`~sdg_automata.search.spectrum.spectrum` (one exploration serves every
    nonterminal); the meter stops it at the per-job budget.
    """
    from ..automaton.bounds import upper_bounds
    from ..errors import BudgetExceeded
    from ..search.spectrum import spectrum

    g = job.grammar()
    bounds = upper_bounds(g)

    def tick(count: int) -> None:  # the job's clock, consulted as the search reports
        meter.check(count)

    try:
        found = spectrum(g, max_states=meter.budget.max_states, progress=tick)
    except BudgetExceeded as e:  # the bounds are still worth a row
        return GrammarRow(key=job.key, grammar=_text(job), status="budget", states=e.explored,
                          bounds=bounds, seconds=meter.elapsed, error=str(e))
    return GrammarRow(
        key=job.key, grammar=_text(job), status="ok", states=found[0].states, bounds=bounds,
        max={r.nonterminal: r.maximum for r in found},
        witness={r.nonterminal: r.witnesses.get(r.maximum) if r.maximum is not None else None
                 for r in found},
        seconds=meter.elapsed)


def grammar_failed(job: GrammarJob, status: Status, message: str, reached: int) -> GrammarRow:
    """The row of a grammar whose job failed or ran out of budget (``reached``: the states
    its search had reported, which a ``"budget"`` row keeps)."""
    return GrammarRow(key=job.key, grammar=_text(job), status=status,
                      states=reached if status == "budget" else None, error=message)


@dataclass(frozen=True)
class GrammarJobs:
    """One job per isomorphism class of ``shape``, in canonical order, made as they are
    taken (millions of grammars are not held in memory); iterable again and again."""

    shape: GrammarShape

    def __iter__(self) -> Iterator[GrammarJob]:
        for code in grammar_classes(self.shape):
            yield GrammarJob(letters=self.shape.letters, rules=self.shape.rules(code))


def grammar_sweep(shape: GrammarShape) -> Sweep[GrammarJob]:
    """The sweep of every grammar of ``shape``, one per isomorphism class."""
    return Sweep(name="grammars", jobs=GrammarJobs(shape), key=_key, work=grammar_row,
                 failed=grammar_failed, columns=COLUMNS, brief=_brief)


def _brief(row: dict[str, Any]) -> dict[str, str]:
    """A row on one terminal line: the values per nonterminal, then the grammar."""
    def per_head(d: dict[str, Any]) -> str:
        return " ".join(f"{h}={'' if v is None else v}" for h, v in d.items())

    return {"status": row["status"], "states": str(row["states"] or ""),
            "bounds": per_head(row["bounds"]), "max": per_head(row["max"]),
            "witness": per_head(row["witness"]), "grammar (key)": row["key"]}


def _key(job: GrammarJob) -> str:
    return job.key
