"""Showing automata: transition tables, automata-lib JSON, DOT text.

Everything here is plain text and needs no Graphviz binary.  DOT follows
automata-lib's drawing conventions: final states are double circles, an arrow
from an invisible point marks the initial state, ``rankdir=LR``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

__all__ = ["dfa_to_dot", "dfa_to_json", "dfa_to_table"]

Labeler = Callable[[Any], str]


def _order(d: DFA) -> list[Any]:
    """States in a stable order: the initial state first, then by name."""
    rest = sorted((s for s in d.states if s != d.initial_state), key=lambda s: (str(type(s)), s))
    return [d.initial_state, *rest]


def dfa_to_table(d: DFA, *, label: Labeler = str) -> str:
    """A transition table: ``→`` marks the initial state, ``*`` the final ones;
    ``—`` is a missing transition of a partial DFA (it rejects)."""
    symbols = sorted(d.input_symbols)
    rows = [["", "state", *symbols]]
    for s in _order(d):
        mark = ("→" if s == d.initial_state else "") + ("*" if s in d.final_states else "")
        out = d.transitions.get(s, {})
        rows.append([mark, label(s), *(label(out[a]) if a in out else "—" for a in symbols)])
    widths = [max(len(r[c]) for r in rows) for c in range(len(rows[0]))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip()
                     for r in rows) + "\n"


def dfa_to_json(d: DFA, *, label: Labeler | None = None) -> str:
    """automata-lib's constructor shape: ``DFA(**obj)`` rebuilds it once the lists
    are made sets (JSON object keys are strings, so states are written as
    strings when they are not already)."""
    name: Labeler = label or (lambda s: s if isinstance(s, str) else str(s))
    obj: Mapping[str, Any] = {
        "states": [name(s) for s in _order(d)],
        "input_symbols": sorted(d.input_symbols),
        "transitions": {name(s): {a: name(t) for a, t in sorted(d.transitions.get(s, {}).items())}
                        for s in _order(d)},
        "initial_state": name(d.initial_state),
        "final_states": [name(s) for s in _order(d) if s in d.final_states],
        "allow_partial": any(len(d.transitions.get(s, {})) < len(d.input_symbols)
                             for s in d.states),
    }
    return json.dumps(obj, ensure_ascii=False, indent=1) + "\n"


def _dot_id(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def dfa_to_dot(d: DFA, *, label: Labeler = str, name: str = "DFA") -> str:
    """DOT text for any automata-lib DFA (labels escaped for DOT)."""
    lines = [f"digraph {_dot_id(name)} {{", "  rankdir=LR;", '  node [shape=circle];',
             '  __start__ [shape=point, label=""];']
    ids = {s: f"q{k}" for k, s in enumerate(_order(d))}
    for s, node in ids.items():
        shape = "doublecircle" if s in d.final_states else "circle"
        lines.append(f"  {node} [shape={shape}, label={_dot_id(label(s))}];")
    lines.append(f"  __start__ -> {ids[d.initial_state]};")
    for s, node in ids.items():
        grouped: dict[Any, list[str]] = {}
        for a, t in sorted(d.transitions.get(s, {}).items()):
            grouped.setdefault(t, []).append(a)
        for t, symbols in grouped.items():
            lines.append(f"  {node} -> {ids[t]} [label={_dot_id(','.join(symbols))}];")
    lines.append("}")
    return "\n".join(lines) + "\n"
