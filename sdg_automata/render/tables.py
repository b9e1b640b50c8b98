"""Transition tables of automata-lib DFAs and NFAs, as plain text and as HTML.

:func:`text_table` aligns rows of cells (the command line's tables use it too);
:func:`dfa_to_table` and :func:`dfa_to_html` are the transition tables (``→``
marks the initial state, ``*`` the final ones, ``—`` a missing transition).  The
HTML helpers here are shared by every notebook display of :mod:`sdg_automata.render`:
every cell left-aligned, the caption a paragraph above the table.
"""

from __future__ import annotations

import html
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

__all__ = ["TABLE_LIMIT", "Labeler", "dfa_to_html", "dfa_to_table", "text_table"]

Labeler = Callable[[Any], str]

#: the largest number of rows of a table shown in a notebook
TABLE_LIMIT = 60


def _order(d: DFA) -> list[Any]:
    """States in a stable order: the initial state first, then by name."""
    rest = sorted((s for s in d.states if s != d.initial_state), key=lambda s: (str(type(s)), s))
    return [d.initial_state, *rest]


def text_table(rows: Sequence[Sequence[str]], *, right: Sequence[bool] = ()) -> str:
    """Rows (the first one a header) as aligned plain text, one line each.

    ``right[c]`` right-justifies column c (numbers); other columns are left-justified.
    """
    widths = [max(map(len, column)) for column in zip(*rows, strict=True)]
    flags = [*right, *[False] * (len(widths) - len(right))]
    return "".join(
        "  ".join(cell.rjust(w) if r else cell.ljust(w)
                  for cell, w, r in zip(row, widths, flags, strict=True)).rstrip() + "\n"
        for row in rows)


def _is_dfa(fa: Any) -> bool:
    """Whether an automata-lib automaton is a DFA (a letter leads to one state) rather
    than an NFA (to a set of states).  If automata-lib's NFA module was never
    imported, ``fa`` cannot be one of its NFAs."""
    nfa = sys.modules.get("automata.fa.nfa")
    return nfa is None or not isinstance(fa, nfa.NFA)


def _targets(fa: Any, state: Any, rank: Mapping[Any, int]) -> dict[str, list[Any]]:
    """Letter -> target states of one state (ε written ``ε``; targets in ``rank`` order)."""
    out = fa.transitions.get(state, {})
    if _is_dfa(fa):
        return {a: [t] for a, t in sorted(out.items())}
    return {a or "ε": sorted(ts, key=rank.__getitem__) for a, ts in sorted(out.items()) if ts}


def _fa_rows(fa: Any, label: Labeler, limit: int | None) -> tuple[list[list[str]], int]:
    """Header + one row per state (at most ``limit``), and the number left out;
    an NFA's cell is a set of states, ``—`` is no transition (it rejects)."""
    deterministic = _is_dfa(fa)
    symbols = sorted(fa.input_symbols)
    if not deterministic and any("" in out for out in fa.transitions.values()):
        symbols.append("ε")
    rows = [["", "state", *symbols]]
    order = _order(fa)
    rank = {s: k for k, s in enumerate(order)}
    shown = order if limit is None else order[:limit]
    for s in shown:
        mark = ("→" if s == fa.initial_state else "") + ("*" if s in fa.final_states else "")
        out = _targets(fa, s, rank)
        cells = [("—" if a not in out else label(out[a][0]) if deterministic
                  else "{" + ", ".join(map(label, out[a])) + "}") for a in symbols]
        rows.append([mark, label(s), *cells])
    return rows, len(order) - len(shown)


def dfa_to_table(d: DFA, *, label: Labeler = str, limit: int | None = None) -> str:
    """A transition table: ``→`` marks the initial state, ``*`` the final ones;
    ``—`` is a missing transition of a partial DFA (it rejects).

    ``limit`` shows only the first rows and says how many were left out.
    """
    rows, left = _fa_rows(d, label, limit)
    return text_table(rows) + (f"… {left} more states\n" if left else "")


def _html_table(rows: Sequence[Sequence[str]], caption: str, left: int, *,
                header: bool = True) -> str:
    # the caption is a paragraph above the table, not a <caption>: a <caption> is as wide as
    # its table, so a long one wrapped into a narrow column over a two-column table
    # every cell left-aligned, in its own style attribute: JupyterLab's stylesheet
    # right-aligns td and th, which pushed a short witness out of sight beside a long one
    # header=False: rows of facts (name, value), where a first row of <th> cells would read
    # as column titles
    head, *body = rows if header else [[], *rows]
    out = [_caption(caption), "<table>"]
    if header:
        out.append("<tr>" + "".join(f"<th{_LEFT}>{html.escape(c)}</th>" for c in head)
                   + "</tr>")
    out += ["<tr>" + "".join(f"<td{_LEFT}>{html.escape(c)}</td>" for c in r) + "</tr>"
            for r in body]
    if left:
        out.append(f'<tr><td colspan="{len(rows[0])}"{_LEFT}>… {left} more rows</td></tr>')
    out.append("</table>")
    return "\n".join(out)


_LEFT = ' style="text-align: left"'


def _caption(caption: str) -> str:
    return f"<p>{html.escape(caption)}</p>"


def dfa_to_html(d: DFA, *, label: Labeler = str, limit: int | None = TABLE_LIMIT) -> str:
    """The transition table of :func:`dfa_to_table` in HTML: a caption paragraph, then a
    ``<table>``."""
    rows, left = _fa_rows(d, label, limit)
    return _html_table(rows, f"DFA: {len(d.states)} states, {len(d.final_states)} final", left)

