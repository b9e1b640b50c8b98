"""What a notebook shows of each object: :class:`Diagram` and :func:`diagram`.

:func:`diagram` wraps an automata-lib DFA or NFA, the Step 1–5 automaton
(SPEC §4), its reachable part, a game graph, an octal game's proven period, an
i-Mark sequence or counts by length (the last three with their plot,
:mod:`sdg_automata.render.plots`, as a PNG) into a :class:`Diagram`; a
Max-Grundy verdict is shown by :mod:`sdg_automata.render.verdict`.  Sizes are
capped so that showing never freezes a notebook (:data:`DRAW_LIMIT`,
:data:`DRAW_SECONDS`, :data:`~sdg_automata.render.tables.TABLE_LIMIT`,
:data:`LINE_LIMIT`, :data:`EXPLORE_LIMIT`, :data:`ITEM_LIMIT`).
"""

from __future__ import annotations

import base64
import functools
import html
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..automaton.construction import GrundyAutomaton, ReachableAutomaton
from ..derivation.gamegraph import GameGraph
from ..errors import BudgetExceeded, InputError
from .dot import _fa_dot, game_graph_to_dot, reachable_to_dot
from .drawing import dot_to_png, dot_to_svg, visual_available
from .plots import (
    CountsByLength,
    IMarkSequence,
    figure_bytes,
    plot_available,
    plot_counts,
    plot_imark,
    plot_octal,
)
from .tables import TABLE_LIMIT, Labeler, _caption, _fa_rows, _html_table, _is_dfa, text_table

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..games.octal.period import OctalPeriod

__all__ = [
    "DISPLAYED_BY_NAME", "DRAW_LIMIT", "DRAW_SECONDS", "EXPLORE_LIMIT", "ITEM_LIMIT",
    "LINE_LIMIT", "Diagram", "diagram", "inline_svg",
]

#: the largest number of states (or game-graph nodes) drawn as SVG in a notebook; Graphviz's
#: layout of a 2-letter random DFA takes ~1 s at 50 states, ~27 s at 100, minutes at 200
DRAW_LIMIT = 100
#: how long a notebook display waits for Graphviz's layout before showing the table alone
DRAW_SECONDS = 5.0
#: the largest automaton :func:`diagram` tabulates; beyond it, one line (a table sorts every state)
LINE_LIMIT = 100_000
#: how far :func:`diagram` explores a :class:`~sdg_automata.automaton.construction.GrundyAutomaton`
EXPLORE_LIMIT = 5000
#: the most items shown in a state's cell of a notebook table (then ``… N more``)
ITEM_LIMIT = 8


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
    ReachableAutomaton, a Verdict, a GameGraph, an OctalPeriod, a MisereQuotient (its
    presentation and multiplication table, :mod:`sdg_automata.render.misere`), a
    MisereGame (its form, ``*n`` value, misère nim value and genus), an IMarkSequence or
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
                     "OctalPeriod, MisereQuotient, MisereGame, IMarkSequence and "
                     "CountsByLength)")


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
# shown by name, registered on first need

#: the module of octal results, where :func:`diagram` and IPython find OctalPeriod by name
_OCTAL = f"{__name__.split('.')[0]}.games.octal.period"
#: the modules of misère quotients and forms (MisereQuotient, MisereGame, shown by
#: :mod:`sdg_automata.render.misere`)
_MISERE = f"{__name__.split('.')[0]}.games.misere"


def _misere_diagram(quotient: Any, *, label: Labeler | None = None) -> Diagram:
    from .misere import quotient_shown

    text, page, caption = quotient_shown(quotient)
    return Diagram(text=text, html=page, caption=caption)


def _misere_game_diagram(game: Any, *, label: Labeler | None = None) -> Diagram:
    from .misere import game_shown

    text, page, caption = game_shown(game)
    return Diagram(text=text, html=page, caption=caption)
#: classes :func:`diagram` shows but registers on first need, by module and class name (and
#: IPython's formatter likewise), so that their costly modules are not imported for it: an
#: object of one exists only once its module is loaded.  automata-lib's DFA and NFA (about
#: 80 ms to import; shown here instead of by automata-lib's own drawing, which needs coloraide
#: and has no size limit) and octal results (their module loads numpy)
DISPLAYED_BY_NAME: dict[tuple[str, str], Callable[..., Diagram]] = {
    ("automata.fa.dfa", "DFA"): _fa_diagram,
    ("automata.fa.nfa", "NFA"): _fa_diagram,
    (_OCTAL, "OctalPeriod"): _octal_diagram,
    (f"{_MISERE}.quotient", "MisereQuotient"): _misere_diagram,
    (f"{_MISERE}.canonical", "MisereGame"): _misere_game_diagram,
}
