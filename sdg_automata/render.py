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

Jupyter: :func:`diagram` wraps an automata-lib DFA, the Step 1–5 automaton,
its reachable part, a Max-Grundy verdict or a game graph into a
:class:`Diagram`, whose ``_repr_mimebundle_`` gives SVG when Graphviz is
available and the drawing is small (:data:`DRAW_LIMIT` states), an HTML table
and a text table otherwise (at most :data:`TABLE_LIMIT` rows, so a 10⁵-state
automaton shows its first rows instead of freezing the notebook).
:func:`sdg_automata.construction.jupyter_mimebundle` puts the same on a class.

>>> from sdg_automata import load_grammar
>>> gg = game_graph(load_grammar("examples/example3.txt"), ["A"], 2)
>>> [f"{gg.name(p)}: {v}" for p, v in zip(gg.nodes, gg.values)][:5]
['∅: 0', '(A, a): 1', '(A, b): 0', '(B, b): 1', '(A, aa): 2']
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import product
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import BudgetExceeded, InputError, Interrupted, VisualUnavailable
from .impartial import grundy_values

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

    from .construction import ReachableAutomaton
    from .grammar import Grammar
    from .semantics import Position

__all__ = [
    "DRAW_LIMIT",
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
    "text_table",
    "diagram",
    "dot_to_png",
    "dot_to_svg",
    "game_graph",
    "game_graph_to_dot",

    "reachable_to_dot",
    "visual_available",
]

Labeler = Callable[[Any], str]

#: the largest number of states (or game-graph nodes) drawn as SVG in a notebook
DRAW_LIMIT = 200
#: the largest number of rows of a table shown in a notebook
TABLE_LIMIT = 60
#: how far :func:`diagram` explores a :class:`~sdg_automata.construction.GrundyAutomaton`
EXPLORE_LIMIT = 5000

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


def _dfa_rows(d: DFA, label: Labeler, limit: int | None) -> tuple[list[list[str]], int]:
    """Header + one row per state (at most ``limit``), and the number left out."""
    symbols = sorted(d.input_symbols)
    rows = [["", "state", *symbols]]
    order = _order(d)
    shown = order if limit is None else order[:limit]
    for s in shown:
        mark = ("→" if s == d.initial_state else "") + ("*" if s in d.final_states else "")
        out = d.transitions.get(s, {})
        rows.append([mark, label(s), *(label(out[a]) if a in out else "—" for a in symbols)])
    return rows, len(order) - len(shown)


def dfa_to_table(d: DFA, *, label: Labeler = str, limit: int | None = None) -> str:
    """A transition table: ``→`` marks the initial state, ``*`` the final ones;
    ``—`` is a missing transition of a partial DFA (it rejects).

    ``limit`` shows only the first rows and says how many were left out.
    """
    rows, left = _dfa_rows(d, label, limit)
    return text_table(rows) + (f"… {left} more states\n" if left else "")


def _html_table(rows: Sequence[Sequence[str]], caption: str, left: int) -> str:
    head, *body = rows
    out = [f"<table><caption>{html.escape(caption)}</caption>",
           "<tr>" + "".join(f"<th>{html.escape(c)}</th>" for c in head) + "</tr>"]
    out += ["<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>" for r in body]
    if left:
        out.append(f'<tr><td colspan="{len(head)}">… {left} more rows</td></tr>')
    out.append("</table>")
    return "\n".join(out)


def dfa_to_html(d: DFA, *, label: Labeler = str, limit: int | None = TABLE_LIMIT) -> str:
    """The transition table of :func:`dfa_to_table` as an HTML ``<table>``."""
    rows, left = _dfa_rows(d, label, limit)
    return _html_table(rows, f"DFA: {len(d.states)} states, {len(d.final_states)} final", left)


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


def dfa_from_json(text: str, *, source: str = "<string>") -> DFA:
    """The DFA written by :func:`dfa_to_json` (automata-lib's constructor shape).

    Raises
    ------
    InputError
        For invalid JSON, a missing key or an automaton automata-lib refuses, at ``source``.
    """
    from automata.base.exceptions import AutomatonException
    from automata.fa.dfa import DFA

    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"invalid JSON: {e.msg} (column {e.colno})", source=source,
                         line=e.lineno) from None
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
        raise InputError(f"invalid DFA: {e}", source=source) from None


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

#: automata-lib's regular-expression operators (``automata.regex.parser``)
REGEX_RESERVED = frozenset("*|()? \t&+.^{}[]\\")


def dfa_to_regex(d: DFA, *, limit: int | None = REGEX_STATE_LIMIT) -> str | None:
    """A regular expression in automata-lib's syntax for L(d), or ``None`` when it is empty.

    By state elimination (automata-lib's ``GNFA.from_dfa(d).to_regex()``),
    whose output can grow exponentially with the states: minimize first.
    ``NFA.from_regex(r, input_symbols=...)`` reads the result back.

    Raises
    ------
    InputError
        When ``d`` has more than ``limit`` states, or a letter is one of
        automata-lib's regular-expression operators.
    """
    from automata.fa.gnfa import GNFA

    if limit is not None and len(d.states) > limit:
        raise InputError(f"the DFA has {len(d.states)} states; regular expressions by state "
                         f"elimination grow exponentially, so the limit is {limit} states "
                         "(raise the limit: limit=, or --max-dfa-states on the command line)")
    bad = sorted(a for a in d.input_symbols if len(a) != 1 or a in REGEX_RESERVED)
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
    ids = {s: f"q{k}" for k, s in enumerate(_order(d))}
    nodes = [(node, label(s), "shape=doublecircle" if s in d.final_states else "shape=circle")
             for s, node in ids.items()]
    edges = [(node, ids[t], ",".join(letters)) for s, node in ids.items()
             for t, letters in _grouped(d.transitions.get(s, {})).items()]
    return _dot(name, nodes, ids[d.initial_state], edges)


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


@dataclass(frozen=True, eq=False)
class GameGraph:
    """A finite part of the game graph of an SDG, with Grundy numbers.

    Attributes
    ----------
    nodes:
        Positions (sorted multisets of (A, w)); ``()`` is the final position ∅.
        Ordered by total length, then by words and nonterminals.
    edges:
        Moves, as pairs of indices into ``nodes``.
    values:
        𝒢 of each node, computed on the graph itself (mex of the successors').
    """

    nodes: tuple[Position, ...]
    edges: tuple[tuple[int, int], ...]
    values: tuple[int, ...]

    @staticmethod
    def name(position: Position) -> str:
        """``(A, aa)`` for a singleton, ``{(A, a), (B, b)}`` for a multiset, ``∅``."""
        parts = [f"({h}, {w})" for h, w in position]
        if not parts:
            return "∅"
        return parts[0] if len(parts) == 1 else "{" + ", ".join(parts) + "}"

    def value(self, head: str, w: str) -> int | None:
        """𝒢 of the singleton (A, w), if it is a node."""
        try:
            return self.values[self.nodes.index(((head, w),))]
        except ValueError:
            return None

    def p_positions(self) -> list[Position]:
        """The nodes with Grundy number 0 (the previous player wins)."""
        return [p for p, v in zip(self.nodes, self.values, strict=True) if v == 0]


def game_graph(
    grammar: Grammar,
    heads: Iterable[str] | None = None,
    max_length: int = 3,
    *,
    max_nodes: int = 2000,
) -> GameGraph:
    """Every position (X, w) with X in ``heads`` and 1 ≤ |w| ≤ ``max_length``,
    with every position reachable from them by moves (SPEC §2).

    Like the paper's Figures 1 and 7.  For a right-linear grammar every
    successor is a singleton or ∅; for other grammars moves may lead to
    multisets, which are expanded too.  Grundy numbers are computed on the
    graph (mex of the successors', in increasing total length: a move always
    shortens the position), independently of :mod:`sdg_automata.semantics`'
    evaluators (the graph solver of :mod:`sdg_automata.impartial` does it); only
    membership and moves come from there.

    Parameters
    ----------
    grammar:
        Any grammar.
    heads:
        The nonterminals X (default: all).
    max_length:
        The largest |w|.
    max_nodes:
        Refuse (:class:`~sdg_automata.errors.InputError`) larger graphs.
    """
    from .semantics import grundy, position_moves

    chosen = tuple(grammar.check_nonterminal(h) for h in heads) if heads else grammar.nonterminals
    if max_length < 0:
        raise InputError(f"the maximum length is a natural number, not {max_length}")
    letters = sorted(grammar.terminals)

    def too_many() -> InputError:
        return InputError(f"the game graph up to length {max_length} has more than {max_nodes} "
                          "positions; lower the length or raise the node limit")

    adjacency: dict[Position, list[Position]] = {}
    queue: list[Position] = []
    for n in range(1, max_length + 1):
        if len(letters) ** n > max_nodes * 10:
            raise too_many()
        for t in product(letters, repeat=n):
            w = "".join(t)
            for h in chosen:
                if grundy(grammar, h, w) is not None:
                    queue.append(((h, w),))
                    adjacency[queue[-1]] = []
        if len(queue) > max_nodes:
            raise too_many()
    for position in queue:  # the queue grows while it is read: breadth-first closure
        targets = adjacency[position]
        for _, succ in position_moves(grammar, position):
            if succ not in targets:
                targets.append(succ)
            if succ not in adjacency:
                adjacency[succ] = []
                queue.append(succ)
                if len(queue) > max_nodes:
                    raise too_many()
    nodes = sorted(adjacency, key=lambda p: (sum(len(w) for _, w in p), len(p),
                                             [(len(w), w, h) for h, w in p]))
    index = {p: k for k, p in enumerate(nodes)}
    # the game graph's own values (SPEC §7 solver); no unit cycles (SPEC §1) makes it acyclic
    values = grundy_values(adjacency)
    edges = tuple((index[p], index[s]) for p in nodes for s in adjacency[p])
    return GameGraph(nodes=tuple(nodes), edges=edges, values=tuple(values[p] for p in nodes))


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


@dataclass(frozen=True)
class Diagram:
    """Something to show: DOT text (``None`` when too large to draw) and tables.

    Displayed by Jupyter through ``_repr_mimebundle_``; :meth:`save` writes
    ``.dot``, ``.svg``, ``.png``, ``.html`` or ``.txt`` by the file's suffix.
    """

    text: str
    html: str
    dot: str | None = None

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
        wanted = {"text/plain", "text/html", "image/svg+xml"}
        if include is not None:
            wanted &= set(include)
        if exclude is not None:
            wanted -= set(exclude)
        bundle: dict[str, str] = {}
        if "text/plain" in wanted:
            bundle["text/plain"] = self.text
        if "text/html" in wanted:
            bundle["text/html"] = self.html
        if "image/svg+xml" in wanted and self.dot is not None and visual_available():
            bundle["image/svg+xml"] = dot_to_svg(self.dot)
        return bundle


def _reachable_diagram(reachable: ReachableAutomaton, title: str) -> Diagram:
    automaton = reachable.automaton
    nts = automaton.grammar.nonterminals
    n = len(reachable.states)
    rows = [["state", "items", *reachable.alphabet, *(f"𝒢_{a}" for a in nts)]]
    values = {a: reachable.values(a) for a in nts}
    rows += [[("→" if s == 0 else "") + str(s), automaton.label(reachable.states[s]),
              *(str(r[s]) for r in reachable.rows),
              *("—" if values[a][s] is None else str(values[a][s]) for a in nts)]
             for s in range(min(n, TABLE_LIMIT))]
    left = n - (len(rows) - 1)
    caption = f"{title}: {n} reachable states over {{{', '.join(reachable.alphabet)}}}"
    text = caption + "\n" + text_table(rows) + (f"… {left} more states\n" if left else "")
    dot = reachable_to_dot(reachable) if n <= DRAW_LIMIT else None
    return Diagram(text=text, html=_html_table(rows, caption, left), dot=dot)


def diagram(obj: Any, *, label: Labeler | None = None) -> Diagram:
    """A :class:`Diagram` of an automata-lib DFA, a GrundyAutomaton, a
    ReachableAutomaton, a Verdict or a GameGraph (``label`` names DFA states)."""
    from .construction import GrundyAutomaton, ReachableAutomaton
    from .decide import Verdict
    from .errors import BudgetExceeded

    if isinstance(obj, GameGraph):
        rows = [["position", "𝒢"], *([obj.name(p), str(v)]
                                     for p, v in zip(obj.nodes, obj.values, strict=True))]
        shown, left = rows[: TABLE_LIMIT + 1], max(0, len(rows) - 1 - TABLE_LIMIT)
        caption = f"game graph: {len(obj.nodes)} positions, {len(obj.edges)} moves"
        more = f"… {left} more\n" if left else ""
        return Diagram(text=caption + "\n" + text_table(shown) + more,
                       html=_html_table(shown, caption, left),
                       dot=game_graph_to_dot(obj) if len(obj.nodes) <= DRAW_LIMIT else None)
    if isinstance(obj, ReachableAutomaton):
        return _reachable_diagram(obj, "reachable part of M")
    if isinstance(obj, GrundyAutomaton):
        try:
            reachable = obj.explore(max_states=EXPLORE_LIMIT)
        except BudgetExceeded:
            text = (f"GrundyAutomaton over {{{', '.join(obj.alphabet)}}} with {len(obj.items)} "
                    f"items: more than {EXPLORE_LIMIT} reachable states, not shown "
                    "(explore() it and show parts)")
            return Diagram(text=text + "\n", html=f"<p>{html.escape(text)}</p>")
        return _reachable_diagram(reachable, "GrundyAutomaton")
    if isinstance(obj, Verdict):
        return _verdict_diagram(obj)
    if hasattr(obj, "transitions") and hasattr(obj, "final_states"):  # an automata-lib DFA
        name = label or str
        n = len(obj.states)
        return Diagram(text=dfa_to_table(obj, label=name, limit=TABLE_LIMIT),
                       html=dfa_to_html(obj, label=name),
                       dot=dfa_to_dot(obj, label=name) if n <= DRAW_LIMIT else None)
    raise InputError(f"cannot draw a {type(obj).__name__}")


def _verdict_diagram(v: Any) -> Diagram:
    if v.maximum is None:
        headline = f"no positions for {v.nonterminal}"
    else:
        headline = (f"max 𝒢_{v.nonterminal} {'=' if v.exact else '≥'} {v.maximum}, "
                    f"witness {v.witness!r}")
    if v.k is not None:
        headline = f"is max 𝒢_{v.nonterminal} = {v.k}? {'yes' if v.answer else 'no'}; " + headline
    detail = (f"{v.states} states ({v.method}{', ' + v.strategy if v.strategy else ''}"
              f"{', stopped early' if v.stopped_early else ''}), bound m = {v.bound}, "
              f"{v.seconds:.3f} s")
    rows = [["𝒢", "witness"], *([str(k), repr(w)] for k, w in sorted(v.witnesses.items()))]
    text = f"{headline}\n{detail}\n" + (text_table(rows) if v.witnesses else "")
    return Diagram(text=text, html=_html_table(rows, f"{headline} — {detail}", 0))
