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
:class:`~sdg_automata.errors.VisualUnavailable` (an :class:`~sdg_automata.errors.InputError` that
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

This package presents; it sits at the top of the package's layers (only the
command line and the package root import it) and nothing below imports it.
The game graph itself is :mod:`sdg_automata.derivation.gamegraph`.  The names above are
the package's public interface, each defined in one of its modules (one concept each;
the package's own code imports a name from the module that defines it):

* :mod:`~sdg_automata.render.tables` — text and HTML transition tables;
* :mod:`~sdg_automata.render.exports` — automata-lib JSON, JFLAP, regular expressions;
* :mod:`~sdg_automata.render.dot` — DOT text;
* :mod:`~sdg_automata.render.drawing` — SVG and PNG through Graphviz;
* :mod:`~sdg_automata.render.display` — :class:`Diagram` and :func:`diagram`;
* :mod:`~sdg_automata.render.verdict` — how a verdict is shown;
* :mod:`~sdg_automata.render.notebook` — the IPython extension;
* :mod:`~sdg_automata.render.plots` — matplotlib pictures of sequences.

>>> from sdg_automata import load_grammar
>>> from sdg_automata.derivation.gamegraph import game_graph
>>> gg = game_graph(load_grammar("examples/example3.txt"), ["A"], 2)
>>> print(diagram(gg).text.splitlines()[0])
game graph: 10 positions, 10 moves
"""

from __future__ import annotations

from . import verdict  # noqa: F401  (registers the Verdict display of diagram())
from .display import (
    DRAW_LIMIT,
    DRAW_SECONDS,
    LINE_LIMIT,
    Diagram,
    diagram,
    inline_svg,
)
from .dot import dfa_to_dot, game_graph_to_dot, nfa_to_dot, reachable_to_dot
from .drawing import dot_to_png, dot_to_svg, visual_available
from .exports import REGEX_STATE_LIMIT, dfa_from_json, dfa_to_jff, dfa_to_json, dfa_to_regex
from .notebook import load_ipython_extension, unload_ipython_extension
from .tables import TABLE_LIMIT, dfa_to_html, dfa_to_table, text_table

__all__ = [
    "DRAW_LIMIT",
    "DRAW_SECONDS",
    "LINE_LIMIT",
    "REGEX_STATE_LIMIT",
    "TABLE_LIMIT",
    "Diagram",
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
    "game_graph_to_dot",
    "inline_svg",
    "load_ipython_extension",
    "nfa_to_dot",
    "reachable_to_dot",
    "text_table",
    "unload_ipython_extension",
    "visual_available",
]

