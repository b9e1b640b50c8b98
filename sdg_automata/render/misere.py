"""How misère results are shown: a quotient (its presentation and multiplication table,
capped), and a table of games with their normal and misère values, genus and canonical
form — the same text for the command line and a notebook.

Nim values are written ``*n`` (:func:`~sdg_automata.games.nim.star`), genus in Conway's
symbol (``0¹²⁰``), canonical forms in CGSuite's notation (``*[2#]``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..games.misere.canonical import MisereGame
from ..games.misere.genus import genus_of
from ..games.misere.quotient import MisereQuotient
from ..games.nim import star
from .tables import _html_table, text_table

__all__ = ["MULTIPLICATION_LIMIT", "forms_html", "forms_json", "forms_rows", "forms_text",
           "game_shown", "quotient_facts", "quotient_shown", "quotient_text"]

#: the most elements whose multiplication table is shown (text and notebook)
MULTIPLICATION_LIMIT = 16
#: the most components whose class is listed
CLASSES_SHOWN = 40


def _orders(q: MisereQuotient) -> str:
    """The quotient's order after each component, runs compressed: ``2 6×3 8×16``."""
    out: list[str] = []
    history = list(q.history)
    i = 0
    while i < len(history):
        j = i
        while j < len(history) and history[j] == history[i]:
            j += 1
        out.append(str(history[i]) + (f"×{j - i}" if j - i > 1 else ""))
        i = j
    return " ".join(out)


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _classes(q: MisereQuotient) -> str:
    family = q.family
    shown = [f"{family.show(c)}:{q.element([c])}"
             for c in list(family.components)[:min(q.proven_to, CLASSES_SHOWN)]]
    more = " …" if q.proven_to > CLASSES_SHOWN else ""
    return " ".join(shown) + more


def quotient_facts(q: MisereQuotient) -> list[list[str]]:
    """The quotient as (fact, value) rows."""
    rows = [["order", str(q.size)],
            ["proven for", q.family.span(q.proven_to)
             + (f" (not beyond: {q.stopped})" if q.stopped else "")],
            ["generators", ", ".join(f"{g} = [{c}]" for g, c in q.generators) or "(none)"],
            ["relations", ", ".join(q.relations) or "(none)"],
            ["P-portion", "{" + ", ".join(q.p_positions) + "}"],
            ["orders", f"{_orders(q)} (after each component; unchanged from the "
                       f"{_ordinal(q.stable_from)} on)"],
            ["classes", _classes(q)]]
    return rows


def _multiplication(q: MisereQuotient) -> tuple[list[list[str]], int]:
    n = min(q.size, MULTIPLICATION_LIMIT)
    names = q.elements
    table = q.table(n)
    rows = [["·", *names[:n]], *([names[x], *table[x]] for x in range(n))]
    return rows, q.size - n


def quotient_text(q: MisereQuotient) -> str:
    """The quotient as the command line prints it: its facts, then the multiplication
    table of its first :data:`MULTIPLICATION_LIMIT` elements."""
    head = f"misère quotient of {q.name}"
    facts = text_table([["", ""], *quotient_facts(q)]).split("\n", 1)[1]
    rows, left = _multiplication(q)
    more = f"… {left} more elements (rows and columns)\n" if left else ""
    return f"{head}\n{facts}multiplication table\n{text_table(rows)}{more}"


def quotient_shown(q: MisereQuotient) -> tuple[str, str, str]:
    """What a notebook shows of a quotient: (text, HTML, caption) — its facts and the
    multiplication table of its first :data:`MULTIPLICATION_LIMIT` elements."""
    caption = f"misère quotient of {q.name}: order {q.size}"
    rows, left = _multiplication(q)
    facts = _html_table(quotient_facts(q), caption, 0, header=False)
    table = _html_table(rows, f"multiplication table ({min(q.size, MULTIPLICATION_LIMIT)} of "
                              f"{q.size} elements)", left)
    return quotient_text(q), f"{facts}\n{table}", caption


def game_shown(game: MisereGame) -> tuple[str, str, str]:
    """What a notebook shows of one game in misère play: (text, HTML, caption) — its form in
    CGSuite's notation, normal value (``*n``), misère nim value and outcome, genus."""
    genus = genus_of(game)
    caption = f"misère canonical form {game}"
    rows = [["form", str(game)], ["normal play", star(game.nim_value)],
            ["misère nim value", str(game.misere_nim_value)],
            ["misère outcome", game.outcome], ["genus", f"{genus.text}  ({genus.ascii})"],
            ["birthday", str(game.birthday)]]
    text = caption + "\n" + text_table([["", ""], *rows]).split("\n", 1)[1]
    return text, _html_table(rows, caption, 0, header=False), caption


def forms_rows(named: Sequence[tuple[str, MisereGame]]) -> list[list[str]]:
    """Rows (header first) of games: name, normal value (``*n``), misère nim value,
    outcome, genus, misère canonical form."""
    rows = [["position", "normal", "misère", "outcome", "genus", "canonical form"]]
    for name, g in named:
        rows.append([name, star(g.nim_value), str(g.misere_nim_value), g.outcome,
                     genus_of(g).text, str(g)])
    return rows


def forms_text(named: Sequence[tuple[str, MisereGame]]) -> str:
    """:func:`forms_rows` as an aligned table."""
    return text_table(forms_rows(named), right=(False, True, True))


def forms_json(named: Sequence[tuple[str, MisereGame]]) -> list[dict[str, Any]]:
    """The games as JSON records (genus in CGSuite's ASCII form)."""
    return [{"position": name, "nim_value": g.nim_value, "misere_nim_value": g.misere_nim_value,
             "outcome": g.outcome, "genus": genus_of(g).ascii, "form": str(g)}
            for name, g in named]


def forms_html(named: Sequence[tuple[str, MisereGame]], caption: str) -> str:
    """The games as an HTML table under a caption."""
    return _html_table(forms_rows(named), caption, 0)

