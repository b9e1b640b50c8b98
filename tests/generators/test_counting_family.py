"""``family counting`` (issue 35 §4): DFAs counting a's modulo twice the odd primes, with an
empty intersection or a shortest common word a^n known from the residues.

Ground truths: automata-lib's products (:func:`product_truth`), independent of the
residue arithmetic of :func:`counting_truth`; the DFAs' sizes and languages read off
automata-lib; the breadth-first search on the grammar.
"""

from __future__ import annotations

import json

import pytest
from clirun import run

from sdg_automata.errors import BudgetExceeded, InputError
from sdg_automata.generators.families import (
    counting_intersection,
    counting_truth,
    intersection_grammar,
    product_truth,
)
from sdg_automata.search.decide import max_grundy


@pytest.mark.parametrize("count, length, noise", [
    (2, None, 0), (3, None, 0), (4, None, 0), (2, 6, 0), (3, 8, 0), (3, 26, 0), (2, 12, 2),
    (3, 4, 1)])
def test_the_residues_are_the_products(count: int, length: int | None, noise: int) -> None:
    dfas = counting_intersection(count, length=length, noise=noise, states=5, seed=7)
    assert product_truth(dfas) == counting_truth(count, length=length, noise=noise)


@pytest.mark.parametrize("count, length", [(3, None), (3, 10)])
def test_the_grammar_has_the_answer(count: int, length: int | None) -> None:
    g = intersection_grammar(counting_intersection(count, length=length))
    v = max_grundy(g, "A")
    best, shortest = counting_truth(count, length=length)
    assert (v.maximum, v.exact, len(v.witness)) == (best, True, shortest)


def test_the_rings() -> None:
    """Ring i counts a's modulo 2·pᵢ (3, 5, 7, …): 4·pᵢ states once crossed with the
    even-length DFA; the empty variant's last ring accepts the odd counts (4 states)."""
    empty = counting_intersection(4)
    assert [len(d.states) for d in empty] == [12, 20, 28, 4]
    assert empty[0].accepts_input("aaaaaa") and not empty[0].accepts_input("aaa" + "b")
    assert empty[3].accepts_input("ab") and not empty[3].accepts_input("aa")
    common = counting_intersection(3, length=26)
    assert [len(d.states) for d in common] == [12, 20, 28]
    assert all(d.accepts_input("a" * 26) for d in common)


def test_refusals() -> None:
    with pytest.raises(InputError, match="at least 2 DFAs"):
        counting_intersection(1)
    with pytest.raises(InputError, match="even and positive"):
        counting_intersection(3, length=7)
    with pytest.raises(InputError, match="counts repeat every 30 letters"):
        counting_intersection(2, length=30)
    with pytest.raises(InputError, match="give its length"):
        counting_intersection(3, noise=2)
    with pytest.raises(BudgetExceeded, match="too large to build"):
        counting_intersection(10**6)


def test_cli(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "c.json"
    code, out, err = run(["family", "counting", "4", "-o", path], capsys)
    assert (code, out) == (0, "")
    assert err.startswith("ground truth (residues): max 𝒢(A) = 3, shortest witness bb")
    assert json.loads(path.read_text(encoding="utf-8"))["start"] == "A"
    code, out, err = run(["family", "counting", "3", "--length", "26", "--noise", "2"],
                         capsys)
    assert code == 0 and json.loads(out)["start"] == "A"
    assert err.startswith("ground truth (Chinese remainder theorem): max 𝒢(A) = 5, shortest "
                          "witness a^26")
    code, out, err = run(["family", "counting", "3", "--length", "7"], capsys)
    assert (code, out) == (2, "") and err.startswith("error: ") and "even" in err
