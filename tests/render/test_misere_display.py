"""What a notebook shows of a misère quotient (issue 37 §6): its presentation and its
multiplication table, capped at MULTIPLICATION_LIMIT elements — checked on the
text/plain and text/html a notebook receives."""

from __future__ import annotations

import html

from sdg_automata import misere_quotient
from sdg_automata.render import diagram
from sdg_automata.render.display import DISPLAYED_BY_NAME
from sdg_automata.render.misere import MULTIPLICATION_LIMIT, quotient_facts


def test_a_small_quotient_shows_its_whole_table() -> None:
    q = misere_quotient("0.75", upto=12)
    bundle = diagram(q)._repr_mimebundle_()
    text, page = bundle["text/plain"], bundle["text/html"]
    assert text.startswith("misère quotient of 0.75, heaps 1–12\n")
    assert "relations   a² = 1, b³ = b, bc = ab, c² = b²" in text
    assert "P-portion   {a, b²}" in text
    rows = text.split("multiplication table\n", 1)[1].splitlines()
    assert rows[0].split() == ["·", *q.elements]
    assert len(rows) == 1 + q.size and "more elements" not in text
    # every product in the text is the monoid's
    for line in rows[1:]:
        x, *products = line.split()
        assert products == q.table()[q.elements.index(x)]
    assert "<table>" in page and html.escape("b²") in page
    assert page.count("<tr>") == len(quotient_facts(q)) + 1 + q.size  # facts, then the table


def test_a_large_quotient_shows_a_capped_table() -> None:
    q = misere_quotient("0.07", upto=14)
    assert q.size > MULTIPLICATION_LIMIT
    bundle = diagram(q)._repr_mimebundle_()
    text = bundle["text/plain"]
    left = q.size - MULTIPLICATION_LIMIT
    assert f"… {left} more elements (rows and columns)" in text
    table = text.split("multiplication table\n", 1)[1].splitlines()
    assert len(table[0].split()) == MULTIPLICATION_LIMIT + 1
    assert f"({MULTIPLICATION_LIMIT} of {q.size} elements)" in bundle["text/html"]


def test_notebooks_find_the_quotient_by_name() -> None:
    assert ("sdg_automata.games.misere.quotient", "MisereQuotient") in DISPLAYED_BY_NAME


def test_a_game_shows_its_form_values_and_genus() -> None:
    from sdg_automata.games.misere import heap_forms

    kayles5 = heap_forms("0.77", 5)[5]
    bundle = diagram(kayles5)._repr_mimebundle_()
    text = bundle["text/plain"]
    assert text.splitlines()[0] == "misère canonical form *[2[2]321]"
    assert "normal play       *4" in text and "misère nim value  1" in text
    assert "genus             4¹⁴⁶  (4^146)" in text
    assert html.escape("*4") in bundle["text/html"]
    assert ("sdg_automata.games.misere.canonical", "MisereGame") in DISPLAYED_BY_NAME
