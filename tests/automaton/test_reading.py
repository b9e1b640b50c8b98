"""The reading direction, decided once (sdg_automata.automaton.reading) and owned by the automaton.

Ground truth: the from-scratch definition of SPEC §2 in ``strategies.py``,
applied to the user's grammar and the user's words — never to a mirror — so a
route that forgot to reverse (or reversed twice) fails here.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import Definition, all_words, left_linear_grammars, right_linear_grammars

from sdg_automata.automaton.construction import GrundyAutomaton, automaton_for
from sdg_automata.automaton.reading import Reading, reading_of, servable
from sdg_automata.errors import InputError, SdgBug
from sdg_automata.grammar import Rule
from sdg_automata.grammar.parse import parse_grammar

LEFT = "A -> A a | A a a | B | a | a a\nB -> A b | b"  # Example 3 mirrored (SPEC §2)


def test_right_linear_is_served_directly() -> None:
    g = parse_grammar("A -> a A | a a A | B | a | a a\nB -> b A | b")
    r = reading_of(g)
    assert (r.mirrored, r.right_linear is g, r.grammar is g) == (False, True, True)
    assert (r.word("ab"), r.automaton_input("ab"), r.witness("ba")) == ("ab", "ba", "ab")


def test_left_linear_is_served_by_its_mirror() -> None:
    g = parse_grammar(LEFT)
    r = reading_of(g)
    assert r.mirrored and r.right_linear == g.mirror() and r.grammar is g
    assert (r.word("ab"), r.automaton_input("ab"), r.witness("ab")) == ("ba", "ab", "ab")
    assert r.rule(Rule("A", ("a", "A"))) == Rule("A", ("A", "a"))


def test_both_right_and_left_linear_is_read_directly() -> None:
    assert not reading_of(parse_grammar("A -> a | b a")).mirrored


def test_other_grammars_are_refused_in_the_callers_words() -> None:
    cfg = parse_grammar("A -> A A | a")
    assert not servable(cfg)
    with pytest.raises(InputError, match="right-linear grammars .* this one is context-free"):
        reading_of(cfg)
    with pytest.raises(InputError, match="^periods need it; this one is context-free$"):
        reading_of(cfg, refusal="periods need it; this one is {kind}")
    with pytest.raises(InputError, match="right-linear"):
        Reading(grammar=cfg, right_linear=cfg, mirrored=False)


def test_an_automaton_is_built_on_its_readings_grammar() -> None:
    g = parse_grammar(LEFT)
    with pytest.raises(SdgBug):
        GrundyAutomaton(parse_grammar("A -> a A | a"), reading=reading_of(g))


def test_restriction_keeps_the_direction() -> None:
    # the cone of B alone (B -> b) is right-linear too, but it is read as the whole grammar
    g = parse_grammar("A -> A a | b\nB -> b | A b")
    r = reading_of(g).restricted_to("A")
    assert r.mirrored and r.grammar.nonterminals == ("A",)
    assert r.right_linear == g.mirror().restricted_to("A")


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_the_automaton_takes_and_gives_the_users_words(data: st.DataObject) -> None:
    """Should compute 𝒢 of the user's word and give witnesses in the user's order."""
    g = data.draw(st.one_of(left_linear_grammars(max_nonterminals=3),
                            right_linear_grammars(max_nonterminals=3)))
    oracle = Definition(g.rules)
    m = automaton_for(g)
    assert m.reading.mirrored == (not g.is_right_linear)
    for w in all_words(g.terminals, 5 if len(g.terminals) < 3 else 4):
        for head in g.nonterminals:
            assert m.grundy(head, w) == oracle(head, w), (head, w)
    reachable = m.explore(max_states=300)
    for s in range(min(len(reachable), 60)):
        w = reachable.word_to(s)
        for head in g.nonterminals:
            value = m.grundy_at(reachable.states[s], head)
            assert (oracle(head, w) if w else None) == value, (head, w)
