"""The lasso decides "one letter" from the nonterminal's language (issue 34 §6).

Truth: the breadth-first search, which walks every letter, on the same question; and
for :meth:`Grammar.letters_of`, the letters of every word of L(G, A) up to a length,
found by the definition's membership test (:func:`grundy` is ``None`` off L(G, A)).
"""

from __future__ import annotations

from itertools import product

import pytest
from clirun import run

from sdg_automata import grundy, max_grundy, parse_grammar
from sdg_automata.errors import InputError

#: (grammar, A, within): every word of L(G, A) ∩ L(within) uses one letter (or there is
#: none), though Σ has more
ONE_LETTER = [
    ("A -> a A | a\nB -> b B | b A", "A", None),          # A's words: a⁺; Σ = {a, b}
    ("A -> a A | a a | C\nC -> c C\nB -> b", "A", None),   # C derives nothing: no c
    ("A -> a A | a", "A", "b*"),                           # nothing but ε over {a}
    ("A -> a A | a", "A", "ba*"),                          # no word of a⁺ starts with b
    ("A -> a A | a | b A", "A", "a*"),                     # the constraint keeps a
    ("A -> a B | b\nB -> a A | a", "A", "(aa)*b*"),       # a letter each, both kept: not one
]


def _bfs(g: str, head: str, within: str | None) -> tuple[int | None, dict[int, str]]:
    v = max_grundy(parse_grammar(g), head, within=within, strategy="bfs")
    return v.maximum, dict(v.witnesses)


@pytest.mark.parametrize(("g", "head", "within"), ONE_LETTER[:-1])
def test_lasso_answers_as_bfs_does(g: str, head: str, within: str | None) -> None:
    """Should walk one letter and give bfs's maximum and shortest witnesses (old: refused
    "the grammar reads {a, b}", or "the constraint allows more than one of them" where
    the constraint allows no non-empty word)."""
    lasso = max_grundy(parse_grammar(g), head, within=within, strategy="lasso")
    assert (lasso.maximum, dict(lasso.witnesses)) == _bfs(g, head, within)
    auto = max_grundy(parse_grammar(g), head, within=within)
    assert auto.strategy == "lasso"  # chosen by default for such walks


def test_two_letters_are_still_refused() -> None:
    g, head, within = ONE_LETTER[-1]
    with pytest.raises(InputError, match=r"L\(G, A\) use \{a, b\}"):
        max_grundy(parse_grammar(g), head, within=within, strategy="lasso")
    assert _bfs(g, head, within)[0] is not None


def test_the_cli_answers_no_position_as_every_strategy(
        capsys: pytest.CaptureFixture[str], tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "g.txt"
    path.write_text("A -> a A | a\n", encoding="utf-8")
    answers = set()
    for strategy in ("lasso", "bfs", "dfs"):
        code, out, err = run(["max", path, "A", "--within", "b*", "--strategy", strategy],
                             capsys)
        answers.add((code, out.split(" (")[0], err))
    assert answers == {(0, "no positions: L(G, A) ∩ L(within) is empty", "")}


GRAMMARS = ["A -> a A | a\nB -> b B | b A", "A -> a A | a a | C\nC -> c C\nB -> b",
            "S -> a S b | S S | a b", "A -> a B | c\nB -> b A | b\nD -> d D | d",
            "A -> A a | B\nB -> b"]


@pytest.mark.parametrize("g", GRAMMARS)
def test_letters_of_are_those_of_the_words(g: str) -> None:
    grammar = parse_grammar(g)
    for head in grammar.nonterminals:
        seen: set[str] = set()
        for n in range(1, 7):
            for letters in product(grammar.terminals, repeat=n):
                w = "".join(letters)
                if grundy(grammar, head, w) is not None:
                    seen |= set(w)
        assert grammar.letters_of(head) == frozenset(seen), head
