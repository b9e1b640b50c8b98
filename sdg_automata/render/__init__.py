"""Showing automata and games: tables, JSON, JFLAP, DOT, SVG/PNG, Jupyter.

Text formats need nothing beyond the standard library:

* :func:`dfa_to_table` / :func:`dfa_to_html` — transition tables;
* :func:`dfa_to_json` — automata-lib's constructor shape;
* :func:`dfa_to_jff` — JFLAP's ``.jff`` XML, for teaching tools;
* :func:`dfa_to_regex` — a regular expression (automata-lib's syntax);
* :func:`dfa_to_dot`, :func:`reachable_to_dot`, :func:`game_graph_to_dot` — DOT.

DOT follows automata-lib's drawing conventions: final states are double
circles, an arrow from an invisible point marks the initial state,
``rankdir=LR``, and every label is a quoted, escaped DOT string.

SVG and PNG need Graphviz, through the optional extra
``pip install "sdg_automata[visual]"`` (pygraphviz, whose wheel bundles
Graphviz).  Without it :func:`dot_to_svg` and :func:`dot_to_png` raise
:class:`VisualUnavailable` (an :class:`~sdg_automata.errors.InputError` that
says what to install); DOT still works.

Jupyter: :func:`diagram` wraps an automata-lib DFA or NFA, the Step 1–5
automaton, its reachable part, a Max-Grundy verdict, a game graph, an octal game's
proven period, an i-Mark sequence or counts by length (the last three with their
plot, :mod:`sdg_automata.render.plots`, as a PNG) into a
:class:`Diagram`, whose ``_repr_mimebundle_`` gives SVG when Graphviz is
available and the drawing is small (:data:`DRAW_LIMIT` states), an HTML table
and a text table otherwise (at most :data:`TABLE_LIMIT` rows, so a 10⁵-state
automaton shows its first rows instead of freezing the notebook), and one line
beyond :data:`LINE_LIMIT` states.  :func:`load_ipython_extension`
(``%load_ext sdg_automata``, or ``import sdg_automata`` in a kernel) makes
notebooks display all of these through :func:`diagram`.

What a notebook shows is as the command line prints it: witnesses of more than
60 letters and items run-length (``a^65535b (length 65,536)``, ``a^40E⁰``, by
:func:`~sdg_automata.grammar.words.brief`), at most :data:`ITEM_LIMIT` items per state
and :data:`TABLE_LIMIT` rows, then a ``… N more`` line; every cell left-aligned
(JupyterLab right-aligns table cells, which hid a short witness beside a long one).

This module presents; it sits at the top of the package's layers (only the
command line and the package root import it) and nothing below imports it.
The game graph itself is :mod:`sdg_automata.games.gamegraph`, re-exported here.

>>> from sdg_automata import load_grammar
>>> gg = game_graph(load_grammar("examples/example3.txt"), ["A"], 2)
>>> print(diagram(gg).text.splitlines()[0])
game graph: 10 positions, 10 moves
"""

from __future__ import annotations

import base64
import functools
import html
import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..automaton.construction import GrundyAutomaton, ReachableAutomaton
from ..errors import BudgetExceeded, InputError, Interrupted, VisualUnavailable
from ..games.gamegraph import GameGraph, game_graph
from ..grammar.words import brief
from ..search.decide import Verdict
from .plots import (
    CountsByLength,
    IMarkSequence,
    figure_bytes,
    plot_available,
    plot_counts,
    plot_imark,
    plot_octal,
)

if TYPE_CHECKING:
    from automata.fa.dfa import DFA
    from automata.fa.nfa import NFA
    from matplotlib.figure import Figure

    from ..games.octal import OctalPeriod

__all__ = [
    "DRAW_LIMIT",
    "DRAW_SECONDS",
    "LINE_LIMIT",
    "REGEX_STATE_LIMIT",
    "TABLE_LIMIT",
    "Diagram",
    "GameGraph",
    "VisualUnavailable",
    "dfa_to_dot",
    "dfa_to_html",
    "dfa_from_json",
    "dfa_to_jff",
    "dfa_to_json",
    "dfa_to_regex",
    "dfa_to_table",
    "diagram",
    "dot_to_png",
    "dot_to_svg",
    "game_graph",
    "game_graph_to_dot",
    "inline_svg",
    "load_ipython_extension",
    "nfa_to_dot",
    "reachable_to_dot",
    "text_table",
    "unload_ipython_extension",
    "visual_available",
]

Labeler = Callable[[Any], str]

#: the largest number of states (or game-graph nodes) drawn as SVG in a notebook; Graphviz's
#: layout of a 2-letter random DFA takes ~1 s at 50 states, ~27 s at 100, minutes at 200
DRAW_LIMIT = 100
#: how long a notebook display waits for Graphviz's layout before showing the table alone
DRAW_SECONDS = 5.0
#: the largest number of rows of a table shown in a notebook
TABLE_LIMIT = 60
#: the largest automaton :func:`diagram` tabulates; beyond it, one line (a table sorts every state)
LINE_LIMIT = 100_000
#: how far :func:`diagram` explores a :class:`~sdg_automata.automaton.construction.GrundyAutomaton`
EXPLORE_LIMIT = 5000
#: the most items shown in a state's cell of a notebook table (then ``… N more``)
ITEM_LIMIT = 8

INSTALL_HINT = ('pip install "sdg_automata[visual]" (pygraphviz, whose wheel bundles Graphviz); '
                "DOT output needs nothing (--format dot)")


# ---------------------------------------------------------------------------
# tables and exchange formats


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


def dfa_to_json(d: DFA, *, label: Labeler | None = None) -> str:
    """automata-lib's constructor shape, read back by :func:`dfa_from_json`.

    JSON object keys are strings, so states are written as strings (``label``,
    by default ``str``).  JSON has no sets either, so ``DFA(**json.loads(text))``
    is refused by automata-lib (it freezes the lists into tuples); use
    :func:`dfa_from_json`, or make ``states``, ``input_symbols`` and
    ``final_states`` sets first.  The DFA read back is ``d`` with its states
    renamed to those strings: the same transitions, initial and final states.

    >>> from sdg_automata import dfa, load_grammar
    >>> d = dfa(load_grammar("examples/example3.txt"), "A", 0)
    >>> e = dfa_from_json(dfa_to_json(d))
    >>> e == d, sorted(e.states) == sorted(map(str, d.states)), dict(e.transitions["0"])
    (True, True, {'a': '1', 'b': '2'})
    """
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


def dfa_from_json(text: str, *, source: str = "<string>") -> DFA:
    """The DFA written by :func:`dfa_to_json` (automata-lib's constructor shape),
    with its lists made sets; its inverse up to state names (states are strings).

    Raises
    ------
    InputError
        For invalid JSON, a missing key or an automaton automata-lib refuses, at ``source``.
    """
    from automata.base.exceptions import AutomatonException
    from automata.fa.dfa import DFA

    from ..grammar.jsontext import load_json

    # the one JSON reader of the package: duplicate keys, deep nesting and huge numbers
    # are refused as for grammars and game graphs
    data = load_json(text, source=source)
    try:
        return DFA(
            states=frozenset(data["states"]),
            input_symbols=frozenset(data["input_symbols"]),
            transitions={s: dict(t) for s, t in data["transitions"].items()},
            initial_state=data["initial_state"],
            final_states=frozenset(data["final_states"]),
            allow_partial=bool(data.get("allow_partial", True)),
        )
    except (KeyError, TypeError, AttributeError) as e:
        raise InputError(f"not a DFA in automata-lib's constructor shape (states, input_symbols, "
                         f"transitions, initial_state, final_states): {e!r}",
                         source=source) from None
    except AutomatonException as e:
        raise InputError(f"invalid DFA: {e} (a DFA file holds one target per state and letter; "
                         "an NFA is taken from Python, as an automata-lib NFA)",
                         source=source) from None


def dfa_to_jff(d: DFA, *, label: Labeler | None = None) -> str:
    """JFLAP's ``.jff`` XML (``<type>fa</type>``), for teaching tools.

    States are ``q0``, ``q1``, … in the order of :func:`dfa_to_table` (``q0``
    initial), laid out on a grid; ``label`` (e.g. the item sets) goes into
    JFLAP's per-state ``<label>``.  A partial DFA simply has fewer
    ``<transition>`` elements, which JFLAP reads as rejection.
    """
    from xml.etree import ElementTree  # only here: keeps `import render` light

    root = ElementTree.Element("structure")
    ElementTree.SubElement(root, "type").text = "fa"
    automaton = ElementTree.SubElement(root, "automaton")
    order = _order(d)
    ids = {s: k for k, s in enumerate(order)}
    cols = max(1, math.ceil(math.sqrt(len(order))))
    for s, k in ids.items():
        state = ElementTree.SubElement(automaton, "state", id=str(k), name=f"q{k}")
        ElementTree.SubElement(state, "x").text = f"{80.0 + 160.0 * (k % cols):.1f}"
        ElementTree.SubElement(state, "y").text = f"{80.0 + 120.0 * (k // cols):.1f}"
        if label is not None:
            ElementTree.SubElement(state, "label").text = label(s)
        if s == d.initial_state:
            ElementTree.SubElement(state, "initial")
        if s in d.final_states:
            ElementTree.SubElement(state, "final")
    for s in order:
        for a, t in sorted(d.transitions.get(s, {}).items()):
            tr = ElementTree.SubElement(automaton, "transition")
            ElementTree.SubElement(tr, "from").text = str(ids[s])
            ElementTree.SubElement(tr, "to").text = str(ids[t])
            ElementTree.SubElement(tr, "read").text = a
    ElementTree.indent(root)
    return ('<?xml version="1.0" encoding="UTF-8" standalone="no"?>'
            "<!--Created with sdg_automata.-->\n" + ElementTree.tostring(root, encoding="unicode")
            + "\n")


# ---------------------------------------------------------------------------
# regular expressions

#: the largest DFA :func:`dfa_to_regex` converts by default: state elimination
#: grows the expression exponentially (about 1 MB at 50 states of a random DFA)
REGEX_STATE_LIMIT = 50

def dfa_to_regex(d: DFA, *, limit: int | None = REGEX_STATE_LIMIT) -> str | None:
    """A regular expression in automata-lib's syntax for L(d), or ``None`` when it is empty.

    By state elimination (automata-lib's ``GNFA.from_dfa(d).to_regex()``),
    whose output can grow exponentially with the states: minimize first.
    ``NFA.from_regex(r, input_symbols=...)`` reads the result back.

    Raises
    ------
    BudgetExceeded
        When ``d`` has more than ``limit`` states.
    InputError
        When a letter is one of automata-lib's regular-expression operators.
    """
    from automata.fa.gnfa import GNFA
    from automata.regex.parser import RESERVED_CHARACTERS  # the one set: automata-lib's

    if limit is not None and len(d.states) > limit:
        raise BudgetExceeded(f"the DFA has {len(d.states)} states; regular expressions by "
                             f"state elimination grow exponentially, so at most {limit} states "
                             "are taken (--max-dfa-states raises that limit)",
                             explored=len(d.states))
    bad = sorted(a for a in d.input_symbols
                 if len(a) != 1 or a in RESERVED_CHARACTERS or a == "\\")
    if bad:
        raise InputError(f"letter(s) {', '.join(map(repr, bad))} cannot be written in "
                         "automata-lib's regular-expression syntax")
    machine = d  # bound to a name: automata-lib's cached queries fail on temporaries
    if machine.isempty():
        return None
    regex = GNFA.from_dfa(machine).to_regex()
    assert isinstance(regex, str)
    return regex


# ---------------------------------------------------------------------------
# DOT


def _dot_id(text: str) -> str:
    """A quoted DOT string: backslashes, quotes and line breaks escaped."""
    return '"' + (text.replace("\\", "\\\\").replace('"', '\\"').replace("\r", "")
                  .replace("\n", "\\n")) + '"'


def _dot(
    name: str,
    nodes: Sequence[tuple[str, str, str]],
    initial: str | None,
    edges: Iterable[tuple[str, str, str]],
    *,
    rankdir: str = "LR",
) -> str:
    """DOT text from (node id, label, extra attributes) and (source, target, label)."""
    lines = [f"digraph {_dot_id(name)} {{", f"  rankdir={rankdir};", "  node [shape=circle];"]
    if initial is not None:
        lines.append('  __start__ [shape=point, label=""];')
    for node, text, attrs in nodes:
        lines.append(f"  {node} [{attrs + ', ' if attrs else ''}label={_dot_id(text)}];")
    if initial is not None:
        lines.append(f"  __start__ -> {initial};")
    for source, target, text in edges:
        lines.append(f"  {source} -> {target}" + (f" [label={_dot_id(text)}];" if text else ";"))
    lines.append("}")
    return "\n".join(lines) + "\n"


def _grouped(out: Mapping[str, Any]) -> dict[Any, list[str]]:
    """Letters grouped by target: one edge ``a,b`` instead of two."""
    grouped: dict[Any, list[str]] = {}
    for a, t in sorted(out.items()):
        grouped.setdefault(t, []).append(a)
    return grouped


def dfa_to_dot(d: DFA, *, label: Labeler = str, name: str = "DFA") -> str:
    """DOT text for any automata-lib DFA (labels escaped for DOT).

    >>> from automata.fa.dfa import DFA
    >>> d = DFA(states={0, 1}, input_symbols={"a"}, transitions={0: {"a": 1}, 1: {"a": 0}},
    ...         initial_state=0, final_states={1})
    >>> print(dfa_to_dot(d))  # doctest: +NORMALIZE_WHITESPACE
    digraph "DFA" {
      rankdir=LR;
      node [shape=circle];
      __start__ [shape=point, label=""];
      q0 [shape=circle, label="0"];
      q1 [shape=doublecircle, label="1"];
      __start__ -> q0;
      q0 -> q1 [label="a"];
      q1 -> q0 [label="a"];
    }
    """
    return _fa_dot(d, label, name)


def nfa_to_dot(n: NFA, *, label: Labeler = str, name: str = "NFA") -> str:
    """DOT text for an automata-lib NFA: one edge per target state, ``ε`` for ε-moves."""
    return _fa_dot(n, label, name)


def _fa_dot(fa: Any, label: Labeler, name: str) -> str:
    rank = {s: k for k, s in enumerate(_order(fa))}
    ids = {s: f"q{k}" for s, k in rank.items()}
    nodes = [(node, label(s), "shape=doublecircle" if s in fa.final_states else "shape=circle")
             for s, node in ids.items()]
    edges = []
    for s, node in ids.items():
        grouped: dict[Any, list[str]] = {}  # letters grouped by target: one edge `a,b`
        for a, targets in _targets(fa, s, rank).items():
            for t in targets:
                grouped.setdefault(t, []).append(a)
        edges += [(node, ids[t], ",".join(letters)) for t, letters in grouped.items()]
    return _dot(name, nodes, ids[fa.initial_state], edges)


def reachable_to_dot(
    reachable: ReachableAutomaton,
    *,
    head: str | None = None,
    value: int | None = None,
    labels: str = "items",
    name: str = "M",
) -> str:
    """DOT text for the reachable part of the Step 1–5 automaton (SPEC §4).

    States are labelled by their item sets (``{A¹, aE⁰}``) or, with
    ``labels="ids"``, by their numbers (0 is q₀).  With ``head`` and ``value``
    the states of F_{A,i} are double circles (M_{A,i} of Step 5); without,
    the shared transition structure is drawn with no final state.
    """
    automaton = reachable.automaton
    finals = reachable.accepting(head, value) if head is not None and value is not None else ()
    nodes = [(f"q{s}", automaton.label(q) if labels == "items" else str(s),
              "shape=doublecircle" if s in finals else "shape=circle")
             for s, q in enumerate(reachable.states)]
    edges = []
    for s in range(len(reachable.states)):
        out = {a: reachable.rows[k][s] for k, a in enumerate(reachable.alphabet)}
        edges += [(f"q{s}", f"q{t}", ",".join(letters)) for t, letters in _grouped(out).items()]
    return _dot(name, nodes, "q0", edges)


# ---------------------------------------------------------------------------
# game graphs (the paper's Figures 1 and 7)


def game_graph_to_dot(gg: GameGraph, *, name: str = "SDG") -> str:
    """DOT text for a game graph: every node shows its position and Grundy number,
    P-positions (𝒢 = 0) are filled and drawn with a thick border, ∅ is a box."""
    nodes = []
    for k, (p, v) in enumerate(zip(gg.nodes, gg.values, strict=True)):
        attrs = ["shape=box" if not p else "shape=ellipse"]
        if v == 0:
            attrs += ['style="filled,bold"', 'fillcolor="#d7ecd9"', "penwidth=2"]
        nodes.append((f"p{k}", f"{gg.name(p)}\n𝒢 = {v}", ", ".join(attrs)))
    edges = [(f"p{s}", f"p{t}", "") for s, t in gg.edges]
    return _dot(name, nodes, None, edges)


# ---------------------------------------------------------------------------
# SVG / PNG through the optional extra


def visual_available() -> bool:
    """Whether pygraphviz (with its bundled Graphviz) can be imported."""
    try:
        import pygraphviz  # noqa: F401
    except ImportError:
        return False
    return True


def require_visual(fmt: str = "SVG and PNG") -> None:
    """Raise :class:`VisualUnavailable` with the install command unless pygraphviz is there."""
    if not visual_available():
        raise VisualUnavailable(f"{fmt} output needs Graphviz: {INSTALL_HINT}")


# Graphviz runs in a child interpreter: its C layout cannot be interrupted from Python,
# and it writes Fontconfig warnings straight to file descriptor 2.
_DRAW_CHILD = (
    "import sys, pygraphviz\n"
    "fmt = sys.argv[1]\n"
    "data = pygraphviz.AGraph(string=sys.stdin.read()).draw(format=fmt, prog='dot')\n"
    "sys.stdout.buffer.write(data)\n"
)


def _draw(dot: str, fmt: str, *, max_seconds: float | None = None) -> bytes:
    """Graphviz ``dot``'s layout of ``dot`` as ``fmt`` bytes, in a child process.

    Ctrl-C and ``max_seconds`` stop the child at once (the layout itself never
    looks at signals); Graphviz's chatter on stderr is shown only if it fails.
    """
    import subprocess
    import sys

    require_visual(fmt.upper())
    try:
        done = subprocess.run([sys.executable, "-c", _DRAW_CHILD, fmt], input=dot.encode(),
                              capture_output=True, timeout=max_seconds, check=False)
    except subprocess.TimeoutExpired:
        raise BudgetExceeded(f"Graphviz's layout stopped at the budget of {max_seconds:g} s"
                             ) from None
    except KeyboardInterrupt:
        raise Interrupted("interrupted during Graphviz's layout") from None
    if done.returncode != 0:
        lines = [ln for ln in done.stderr.decode(errors="replace").splitlines()
                 if ln.strip() and "Fontconfig" not in ln]
        raise InputError(f"Graphviz could not draw the graph: {lines[-1] if lines else '?'}")
    return done.stdout


def dot_to_svg(dot: str, *, max_seconds: float | None = None) -> str:
    """Lay out DOT text with Graphviz ``dot``; the SVG document."""
    return _draw(dot, "svg", max_seconds=max_seconds).decode("utf-8")


def dot_to_png(dot: str, *, max_seconds: float | None = None) -> bytes:
    """Lay out DOT text with Graphviz ``dot``; the PNG bytes."""
    return _draw(dot, "png", max_seconds=max_seconds)


# ---------------------------------------------------------------------------
# Jupyter


@dataclass(frozen=True, kw_only=True)
class Diagram:
    """Something to show: DOT text (``None`` when too large to draw), tables and a caption.

    Displayed by Jupyter through ``_repr_mimebundle_``: the drawing when there
    is one (see there), else the table.  :meth:`save` writes ``.dot``,
    ``.svg``, ``.png``, ``.html`` or ``.txt`` by the file's suffix.
    """

    text: str
    html: str
    dot: str | None = None
    #: one line naming what is shown, above the drawing
    caption: str = ""
    #: makes a matplotlib figure shown below the table (the ``plot`` extra), called only
    #: when a picture is wanted: a sequence's plot
    figure: Callable[[], Figure] | None = None

    def svg(self) -> str:
        """The drawing as SVG (needs the ``visual`` extra)."""
        if self.dot is None:
            raise InputError(f"too large to draw (more than {DRAW_LIMIT} states or nodes)")
        return dot_to_svg(self.dot)

    def png(self) -> bytes:
        """The drawing as PNG (needs the ``visual`` extra)."""
        if self.dot is None:
            raise InputError(f"too large to draw (more than {DRAW_LIMIT} states or nodes)")
        return dot_to_png(self.dot)

    def save(self, path: str | Path) -> None:
        """Write the diagram in the format of ``path``'s suffix."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix == ".png":
            path.write_bytes(self.png())
            return
        writers: dict[str, Callable[[], str]] = {
            ".svg": self.svg, ".html": lambda: self.html, ".txt": lambda: self.text,
            ".dot": lambda: self.dot if self.dot is not None else self.svg()}
        if suffix not in writers:
            raise InputError(f"cannot tell the format of {str(path)!r}: use .dot, .svg, .png, "
                             ".html or .txt")
        path.write_text(writers[suffix](), encoding="utf-8")

    def _repr_mimebundle_(self, include: Iterable[str] | None = None,
                          exclude: Iterable[str] | None = None, **_: Any) -> dict[str, str]:
        """What Jupyter shows: with a drawing, text/html is the caption and the SVG inline
        (JupyterLab, Notebook, VS Code and nbconvert all render text/html before
        image/svg+xml, so the drawing must be in it), image/svg+xml the SVG alone;
        without one (too large, no Graphviz, a layout over :data:`DRAW_SECONDS`),
        text/html is the table.  text/plain is always the text table.  Graphviz runs
        only when a drawing is wanted (``include``/``exclude``) and, per display, once.
        """
        wanted = {"text/plain", "text/html", "image/svg+xml", "image/png"}
        if include is not None:
            wanted &= set(include)
        if exclude is not None:
            wanted -= set(exclude)
        text, page, svg = self.text, self.html, None
        if wanted & {"text/html", "image/svg+xml"} and self.dot is not None and visual_available():
            try:
                svg = dot_to_svg(self.dot, max_seconds=DRAW_SECONDS)
            except BudgetExceeded:  # a dense graph: the table alone, said so
                note = f"not drawn: Graphviz's layout took more than {DRAW_SECONDS:g} s"
                text, page = f"{text}({note})\n", f"{page}\n<p>({html.escape(note)})</p>"
            else:
                page = f"{_caption(self.caption)}\n{inline_svg(svg)}" if self.caption \
                    else inline_svg(svg)
        png = None
        if wanted & {"text/html", "image/png"} and self.figure is not None and plot_available():
            # base64 text, as Jupyter sends PNGs; in the HTML too, which front ends render
            # before image/png
            png = base64.b64encode(figure_bytes(self.figure(), "figure.png")).decode("ascii")
            page = (f'{page}\n<img src="data:image/png;base64,{png}" '
                    f'alt="{html.escape(self.caption)}" style="max-width: 100%">')
        bundle = {"text/plain": text, "text/html": page, "image/svg+xml": svg, "image/png": png}
        return {kind: data for kind, data in bundle.items() if kind in wanted and data is not None}


def inline_svg(svg: str) -> str:
    """An SVG document as an element to put in HTML: without its XML declaration,
    DOCTYPE and comments (Graphviz's version and generator lines), and scaled down
    to the width of its column when wider (a notebook's output, a documentation page)."""
    element = re.sub(r"<\?xml[^>]*\?>|<!DOCTYPE[^>]*>|<!--.*?-->\n?", "", svg, flags=re.S)
    return element.strip().replace("<svg ", '<svg style="max-width: 100%; height: auto" ', 1)


def _reachable_diagram(reachable: ReachableAutomaton, title: str) -> Diagram:
    automaton = reachable.automaton
    nts = automaton.grammar.nonterminals
    n = len(reachable.states)
    rows = [["state", "items", *reachable.alphabet, *(f"𝒢_{a}" for a in nts)]]
    values = {a: reachable.values(a) for a in nts}
    rows += [[("→" if s == 0 else "") + str(s),
              automaton.label(reachable.states[s], compact=True, limit=ITEM_LIMIT),
              *(str(r[s]) for r in reachable.rows),
              *("—" if values[a][s] is None else str(values[a][s]) for a in nts)]
             for s in range(min(n, TABLE_LIMIT))]
    left = n - (len(rows) - 1)
    caption = f"{title}: {n} reachable states over {{{', '.join(reachable.alphabet)}}}"
    text = caption + "\n" + text_table(rows) + (f"… {left} more states\n" if left else "")
    dot = reachable_to_dot(reachable) if n <= DRAW_LIMIT else None
    return Diagram(text=text, html=_html_table(rows, caption, left), dot=dot, caption=caption)


def _one_line(text: str) -> Diagram:
    return Diagram(text=text + "\n", html=f"<p>{html.escape(text)}</p>")


@functools.singledispatch
def diagram(obj: object, *, label: Labeler | None = None) -> Diagram:
    """A :class:`Diagram` of an automata-lib DFA or NFA, a GrundyAutomaton, a
    ReachableAutomaton, a Verdict, a GameGraph, an OctalPeriod, an IMarkSequence or
    a CountsByLength (``label`` names DFA/NFA states).

    Dispatches on the type (:func:`functools.singledispatch`); a new kind of
    object is shown by ``@diagram.register``.  Sizes are capped so that showing
    never freezes a notebook: drawn up to :data:`DRAW_LIMIT` states or nodes
    (and :data:`DRAW_SECONDS` of layout), a table of the first
    :data:`TABLE_LIMIT` rows beyond, one line beyond :data:`LINE_LIMIT` states.

    Raises
    ------
    InputError
        For any other object.
    """
    for (module, name), show in DISPLAYED_BY_NAME.items():  # registered on first need
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type) and isinstance(obj, cls):
            diagram.register(cls, show)
            return diagram(obj, label=label)
    raise InputError(f"cannot draw a {type(obj).__name__} (diagram() shows automata-lib DFAs "
                     "and NFAs, GrundyAutomaton, ReachableAutomaton, Verdict, GameGraph, "
                     "OctalPeriod, IMarkSequence and CountsByLength)")


def _fa_diagram(fa: Any, *, label: Labeler | None = None) -> Diagram:
    name = label or str
    n = len(fa.states)
    kind = "DFA" if _is_dfa(fa) else "NFA"
    if n > LINE_LIMIT:
        return _one_line(f"{kind}: {n} states over {{{', '.join(sorted(fa.input_symbols))}}}, "
                         f"{len(fa.final_states)} final (more than {LINE_LIMIT}: not tabulated)")
    rows, left = _fa_rows(fa, name, TABLE_LIMIT)
    table = text_table(rows) + (f"… {left} more states\n" if left else "")
    caption = f"{kind}: {n} states, {len(fa.final_states)} final"
    return Diagram(text=table, html=_html_table(rows, caption, left),
                   dot=_fa_dot(fa, name, kind) if n <= DRAW_LIMIT else None, caption=caption)


@diagram.register
def _(reachable: ReachableAutomaton, *, label: Labeler | None = None) -> Diagram:
    return _reachable_diagram(reachable, "reachable part of M")


@diagram.register
def _(automaton: GrundyAutomaton, *, label: Labeler | None = None) -> Diagram:
    try:
        reachable = automaton.explore(max_states=EXPLORE_LIMIT)
    except BudgetExceeded:
        return _one_line(f"GrundyAutomaton over {{{', '.join(automaton.alphabet)}}} with "
                         f"{len(automaton.items)} items: more than {EXPLORE_LIMIT} reachable "
                         "states, not shown (explore() it and show parts)")
    return _reachable_diagram(reachable, "GrundyAutomaton")


@diagram.register
def _(gg: GameGraph, *, label: Labeler | None = None) -> Diagram:
    rows = [["position", "𝒢"], *([gg.name(p), str(v)]
                                 for p, v in zip(gg.nodes, gg.values, strict=True))]
    shown, left = rows[: TABLE_LIMIT + 1], max(0, len(rows) - 1 - TABLE_LIMIT)
    caption = f"game graph: {len(gg.nodes)} positions, {len(gg.edges)} moves"
    more = f"… {left} more\n" if left else ""
    return Diagram(text=caption + "\n" + text_table(shown) + more,
                   html=_html_table(shown, caption, left),
                   dot=game_graph_to_dot(gg) if len(gg.nodes) <= DRAW_LIMIT else None,
                   caption=caption)


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
    refused = (v.solver or {}).get("unproven")  # a solver's proof that failed our check
    if refused:
        detail += f"; not proven: {refused}"
    # witnesses as the command line prints them (run-length beyond 60 letters), capped
    witnesses = sorted(v.witnesses.items())
    rows = [["𝒢", "witness"], *([str(k), brief(w)] for k, w in witnesses[:TABLE_LIMIT])]
    left = len(witnesses) - (len(rows) - 1)
    text = (f"{headline}\n{detail}\n" + (text_table(rows) if witnesses else "")
            + (f"… {left} more rows\n" if left else ""))
    return Diagram(text=text, html=_html_table(rows, f"{headline} — {detail}", left))


#: how many values a notebook lists of a sequence (the plot shows more)
VALUES_SHOWN = 40


def _listed(values: Sequence[int], total: int | None = None) -> str:
    """The first :data:`VALUES_SHOWN` values, then ``…`` when there are more."""
    more = (total if total is not None else len(values)) > VALUES_SHOWN
    return " ".join(map(str, values[:VALUES_SHOWN])) + (" …" if more else "")


def _facts(caption: str, rows: list[list[str]], figure: Callable[[], Figure] | None) -> Diagram:
    """A two-column table of facts under a caption, with a plot below it."""
    return Diagram(text=caption + "\n" + text_table(rows),
                   html=_html_table(rows, caption, 0, header=False), caption=caption,
                   figure=figure)


def _octal_diagram(result: OctalPeriod, *, label: Labeler | None = None) -> Diagram:
    if result.preperiod is None or result.period is None:
        return _facts(f"octal game {result.code}: no period proven", [
            ["code", result.code], ["values computed", f"{result.checked_to:,}"],
            ["proven", "no: no period within the values computed (raise max_n)"]], None)
    n0, p = result.preperiod, result.period
    rows = [["code", result.code], ["preperiod", str(n0)], ["period", str(p)],
            ["proven", f"yes, by the octal periodicity theorem from {result.checked_to:,} "
                       "values"],
            ["G(n) from n = 0", _listed(result.first(min(n0 + p, VALUES_SHOWN + 1)), n0 + p)]]
    return _facts(f"octal game {result.code}: preperiod {n0}, period {p}", rows,
                  functools.partial(plot_octal, result))


@diagram.register
def _(sequence: IMarkSequence, *, label: Labeler | None = None) -> Diagram:
    values = sequence.values
    rows = [["game", sequence.name], ["n", f"0 … {len(values) - 1}"],
            ["G(n) from n = 0", _listed(values[:VALUES_SHOWN + 1], len(values))],
            ["largest G(n)", str(max(values, default=0))]]
    return _facts(f"{sequence.name}: G(n) for n ≤ {len(values) - 1} (naive table)", rows,
                  functools.partial(plot_imark, sequence))


@diagram.register
def _(counts: CountsByLength, *, label: Labeler | None = None) -> Diagram:
    rows = [["length", "words"], *([str(n), str(c)] for n, c in
                                   enumerate(counts.counts[:TABLE_LIMIT]))]
    left = len(counts.counts) - (len(rows) - 1)
    caption = f"{counts.name}, by length 0 … {len(counts.counts) - 1}"
    text = caption + "\n" + text_table(rows, right=[True, True]) + (
        f"… {left} more rows\n" if left else "")
    return Diagram(text=text, html=_html_table(rows, caption, left), caption=caption,
                   figure=functools.partial(plot_counts, counts))


# ---------------------------------------------------------------------------
# IPython / Jupyter registration

#: classes :func:`diagram` shows but registers on first need, by module and class name (and
#: IPython's formatter likewise), so that their costly modules are not imported for it: an
#: object of one exists only once its module is loaded.  automata-lib's DFA and NFA (about
#: 80 ms to import; shown here instead of by automata-lib's own drawing, which needs coloraide
#: and has no size limit) and octal results (their module loads numpy)
DISPLAYED_BY_NAME: dict[tuple[str, str], Callable[..., Diagram]] = {
    ("automata.fa.dfa", "DFA"): _fa_diagram,
    ("automata.fa.nfa", "NFA"): _fa_diagram,
    (f"{__package__}.octal", "OctalPeriod"): _octal_diagram,
}


def _display(obj: object) -> dict[str, str]:
    return diagram(obj)._repr_mimebundle_()


def load_ipython_extension(ipython: Any) -> None:
    """``%load_ext sdg_automata``: notebooks show this package's objects and
    automata-lib's DFAs/NFAs through :func:`diagram`, with its size caps.

    ``import sdg_automata`` in a running IPython kernel does the same.
    Registered on IPython's mimebundle formatter, whose type printers come
    before an object's own ``_repr_mimebundle_``.
    """
    formatter = ipython.display_formatter.mimebundle_formatter
    for cls in diagram.registry:
        if cls is not object:
            formatter.for_type(cls, _display)
    for module, name in DISPLAYED_BY_NAME:
        formatter.for_type_by_name(module, name, _display)


def unload_ipython_extension(ipython: Any) -> None:
    """``%unload_ext sdg_automata``: back to every object's own display."""
    formatter = ipython.display_formatter.mimebundle_formatter
    for cls in [*diagram.registry, *(f"{m}.{n}" for m, n in DISPLAYED_BY_NAME)]:
        if cls is not object:
            formatter.pop(cls, None)
