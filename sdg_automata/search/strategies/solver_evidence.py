"""The evidence of the strategies that run solvers (``sat`` and ``pdr``): what they searched
and how they proved.

It is a module of its own, imported when one of them runs: the strategies' entries
(:mod:`sdg_automata.search.strategies.sat`, :mod:`sdg_automata.search.strategies.pdr`)
are loaded whenever the command line lists them, and a class costs start-up to define
(issue 33 §4).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from ..request import Evidence

if TYPE_CHECKING:
    from ..request import VerdictFields

__all__ = ["PdrEvidence", "SolverEvidence"]


@dataclass(frozen=True)
class SolverEvidence(Evidence):
    """What a solver-backed strategy searched and how it proved (strategies sat and pdr).

    Attributes
    ----------
    max_length:
        Every word up to this length was searched.
    induction_depth:
        The k of a k-induction proof.
    solver:
        The solver's name, variables, clauses, conflicts, calls, and the lean circuit's
        size (pdr adds the rounds of ABC, the clauses of its last invariant, and why a
        proof was not accepted, ``unproven``).
    settled:
        Per value (a string key, as in the JSON), the engine that settled it: ``"bmc"``
        (a witness), ``"k-induction"`` or ``"pdr"`` (no such value).
    """

    #: how the command line names the strategy in its note
    label: ClassVar[str] = "SAT"

    max_length: int | None = None
    induction_depth: int | None = None
    solver: dict[str, Any] | None = None
    settled: dict[str, str] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"max_length": self.max_length, "induction_depth": self.induction_depth,
                "solver": self.solver, "settled": self.settled}

    def summary(self, proof: str | None) -> str | None:
        note = f"{self.label}: {self.searched()}{self.proved(proof)}"
        engines = _engines(self.settled)
        return f"{note}; {engines}" if engines else note

    def proved(self, proof: str | None) -> str:
        """How the note says the proof (after what was searched)."""
        return f", k-induction at k = {self.induction_depth}" if proof == "k-induction" else ""

    def searched(self) -> str | None:
        return f"words up to length {self.max_length}"

    def unsettled(self, verdict: VerdictFields) -> str | None:
        why = (self.solver or {}).get("unproven")
        if why is not None:  # a proof was found and refused (strategy pdr)
            return f"not proven: {why}"
        if verdict.exact:
            return None
        return f"no witness of length ≤ {self.max_length}; not proven beyond"

    def reached(self) -> int | None:
        return self.max_length


@dataclass(frozen=True)
class PdrEvidence(SolverEvidence):
    """:class:`SolverEvidence` of a portfolio run: its ``solver`` also has the rounds of
    ABC, the clauses of the last invariant, and why a proof was refused (``unproven``)."""

    label: ClassVar[str] = "PDR"

    def proved(self, proof: str | None) -> str:
        if proof == "pdr" and self.solver is not None:
            return f", invariant of {self.solver['invariant_clauses']} clauses, checked"
        return super().proved(proof)


def _engines(settled: Mapping[str, str] | None) -> str:
    """``settled`` in words, per engine the runs of values it settled:
    ``0–2, 11 by bmc; 12–24 by pdr``."""
    if not settled:
        return ""
    runs: dict[str, list[list[int]]] = {}
    for v, engine in sorted((int(v), e) for v, e in settled.items()):
        mine = runs.setdefault(engine, [])
        if mine and mine[-1][1] == v - 1:
            mine[-1][1] = v
        else:
            mine.append([v, v])
    return "; ".join(", ".join(f"{a}–{b}" if b > a else f"{a}" for a, b in spans)
                     + f" by {engine}" for engine, spans in runs.items())
