"""The presentation of a Max-Grundy verdict (SPEC §5) in a notebook: its headline
(the maximum, exact or a lower bound, and a witness), how it was found, and its
witnesses by value, run-length beyond 60 letters as the command line prints them.
"""

from __future__ import annotations

from ..grammar.words import brief
from ..search.decide import Verdict
from .display import Diagram, diagram
from .tables import TABLE_LIMIT, Labeler, _html_table, text_table

__all__: list[str] = []  # registers the Verdict display of diagram(); nothing to import


@diagram.register
def _(v: Verdict, *, label: Labeler | None = None) -> Diagram:
    if v.maximum is None:
        headline = f"no positions for {v.nonterminal}"
    else:
        headline = (f"max 𝒢_{v.nonterminal} {'=' if v.exact else '≥'} {v.maximum}, "
                    f"witness {brief(v.witness) if v.witness is not None else None}")
    if v.k is not None:
        answer = {True: "yes", False: "no", None: "not settled"}[v.answer]
        headline = f"is max 𝒢_{v.nonterminal} = {v.k}? {answer}; " + headline
    # what the strategy searched (a bounded search: lengths, it stores no states)
    searched = (None if v.evidence is None else v.evidence.searched()) or f"{v.states} states"
    detail = (f"{searched} ({v.method}{', ' + v.strategy if v.strategy else ''}"
              f"{', stopped early' if v.stopped_early else ''}), bound m = {v.bound}, "
              f"{'proof: ' + v.proof + ', ' if v.proof else ''}{v.seconds:.3f} s")
    # what the strategy leaves open (a bounded search, a proof that failed our check)
    unsettled = None if v.evidence is None else v.evidence.unsettled(v)
    if unsettled:
        detail += f"; {unsettled}"
    # witnesses as the command line prints them (run-length beyond 60 letters), capped
    witnesses = sorted(v.witnesses.items())
    rows = [["𝒢", "witness"], *([str(k), brief(w)] for k, w in witnesses[:TABLE_LIMIT])]
    left = len(witnesses) - (len(rows) - 1)
    text = (f"{headline}\n{detail}\n" + (text_table(rows) if witnesses else "")
            + (f"… {left} more rows\n" if left else ""))
    return Diagram(text=text, html=_html_table(rows, f"{headline} — {detail}", left))
