"""The upper bound m_A of SPEC §3."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from strategies import Definition, all_words, right_linear_grammars

from sdg_automata.automaton.bounds import upper_bound, upper_bounds
from sdg_automata.errors import GrammarError, InputError
from sdg_automata.grammar.parse import parse_grammar


def test_example3(example3):
    # SPEC §2/§3: "Upper bounds m_A = 4, m_B = 2"
    assert upper_bounds(example3) == {"A": 4, "B": 2}
    assert upper_bound(example3, "A") == 4
    assert upper_bound(example3, "B") == 2


def test_csub(csub):
    assert upper_bounds(csub) == {"A": 4}  # SPEC §3: m_A = 4 for CSub


def test_hand_counted():
    # (A, a·y): A → a, A → aB, A → a a B and the unit A → C (C has an a-rule): 4
    # (A, b·y): A → b B and the unit A → C (C → b): 2;  C: a → 1, b → 1
    g = parse_grammar("A -> a | a B | a a B | b B | C\nB -> b\nC -> a | b")
    assert upper_bounds(g) == {"A": 4, "B": 1, "C": 1}
    # a unit rule to a nonterminal without an a-rule adds nothing for a
    g = parse_grammar("A -> a | D\nD -> b D | b")
    assert upper_bounds(g) == {"A": 1, "D": 2}


def test_refuses_non_right_linear():
    with pytest.raises(InputError, match="right-linear"):
        upper_bounds(parse_grammar("A -> A a | a"))
    with pytest.raises(GrammarError):
        upper_bound(parse_grammar("A -> a"), "Z")


@settings(max_examples=80, deadline=None)
@given(right_linear_grammars())
def test_bound_is_sound(g):
    bounds = upper_bounds(g)
    assert set(bounds) == set(g.nonterminals)
    oracle = Definition(g.rules)
    for w in all_words(g.terminals, 5 if len(g.terminals) < 3 else 4):
        for head in g.nonterminals:
            v = oracle(head, w)
            assert v is None or v <= bounds[head], (head, w, v, bounds)
