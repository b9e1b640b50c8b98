"""Moves of SDG positions and the engine (SPEC §2, §7): checked against the definition.

Every listed move is compared with two independent oracles: the tests' own
definition (:class:`strategies.Definition`, sharing no code with the package)
for values, and :func:`sdg_automata.derivation.semantics.position_moves` for the set of
successor positions.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import (
    Definition,
    cfgs,
    left_linear_grammars,
    right_linear_grammars,
    sample_positions,
)

from sdg_automata.derivation.play import (
    Analysis,
    Analyzer,
    Game,
    analyze,
    engine_choice,
    format_parts,
    parse_pair,
    parse_position,
)
from sdg_automata.derivation.semantics import make_position, naive_grundy, position_moves
from sdg_automata.errors import GrammarError, InputError
from sdg_automata.grammar import Grammar
from sdg_automata.grammar.parse import parse_grammar


def xor_of(oracle: Definition, parts) -> int:
    total = 0
    for h, w in parts:
        v = oracle(h, w)
        assert v is not None, (h, w)
        total ^= v
    return total


def check_against_oracle(g: Grammar, position, analysis: Analysis, oracle: Definition) -> None:
    """The analysis is the definition: values, every successor once, winning = XOR 0."""
    assert analysis.position == tuple(position)
    assert list(analysis.values) == [oracle(h, w) for h, w in position]
    assert analysis.grundy == xor_of(oracle, position)
    expected = {succ for _, succ in position_moves(g, position)}
    got = [make_position(m.result) for m in analysis.moves]
    assert len(got) == len(set(got)), "each resulting position is listed once"
    assert set(got) == expected
    for m in analysis.moves:
        assert m.result == (*position[:m.index], *m.parts, *position[m.index + 1:])
        assert m.component == position[m.index]
        assert m.rule.head == m.component[0] and m.rule in g.rules
        assert m.grundy == xor_of(oracle, m.result), m
        assert m.winning == (m.grundy == 0)
    assert set(analysis.winning_moves) == {m for m in analysis.moves if m.grundy == 0}
    # a position is N iff it has a winning move (SPEC §7)
    assert (analysis.outcome == "N") == bool(analysis.winning_moves)
    assert (analysis.grundy == 0) == (analysis.outcome == "P")


# ---------------------------------------------------------------------------
# random grammars and positions


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_moves_are_the_definition_on_random_cfgs(data):
    g = data.draw(cfgs())
    oracle = Definition(g.rules)
    position = tuple(sample_positions(data, g, oracle, max_length=5, max_size=3))
    check_against_oracle(g, position, analyze(g, position), oracle)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_moves_are_the_definition_on_right_linear_grammars(data):
    g = data.draw(right_linear_grammars())
    oracle = Definition(g.rules)
    position = tuple(sample_positions(data, g, oracle, max_length=6, max_size=4))
    a = analyze(g, position)
    check_against_oracle(g, position, a, oracle)
    b = analyze(g, position, method="cyk")  # the substring DP lists the same moves
    assert b.values == a.values
    assert {(make_position(m.result), m.grundy) for m in b.moves} == \
        {(make_position(m.result), m.grundy) for m in a.moves}


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_moves_are_the_definition_on_left_linear_grammars(data):
    g = data.draw(left_linear_grammars())
    oracle = Definition(g.rules)
    position = tuple(sample_positions(data, g, oracle, max_length=6, max_size=3))
    analyzer = Analyzer(g)
    assert analyzer.method == "dfa"
    check_against_oracle(g, position, analyzer.analyze(position), oracle)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_values_agree_with_naive_grundy(data):
    g = data.draw(st.one_of(cfgs(), right_linear_grammars()))
    oracle = Definition(g.rules)
    position = sample_positions(data, g, oracle, max_length=5, max_size=3)
    analysis = analyze(g, position)
    for m in analysis.moves:
        assert m.grundy == xor_of_naive(g, m.result)


def xor_of_naive(g: Grammar, parts) -> int:
    total = 0
    for h, w in parts:
        v = naive_grundy(g, h, w)
        assert v is not None
        total ^= v
    return total


# ---------------------------------------------------------------------------
# Example 3 (SPEC §2): 𝒢_A(aab) = 2, 𝒢_B(ba) = 0


def test_example3_moves(example3):
    a = analyze(example3, [("A", "aab"), ("B", "ba")])
    assert a.values == (2, 0) and a.grundy == 2 and a.outcome == "N"
    assert [(m.text(), str(m.rule), m.grundy) for m in a.moves] == [
        ("A:aab → A:ab", "A -> a A", 1),
        ("A:aab → A:b", "A -> a a A", 0),
        ("B:ba → A:a", "B -> b A", 3),
    ]
    assert [m.text() for m in a.winning_moves] == ["A:aab → A:b"]
    data = a.to_json()
    assert data["grundy"] == 2 and data["outcome"] == "N" and data["winning"] == [1]
    assert data["moves"][1]["parts"] == [{"nonterminal": "A", "word": "b"}]


def test_terminal_and_unit_moves(example3):
    a = analyze(example3, [("A", "aa")])
    texts = {m.text(): m.grundy for m in a.moves}
    # A → aA (to A:a, 1), A → a a (to ∅, 0); A → B is no move: aa ∉ L(B)
    assert texts == {"A:aa → A:a": 1, "A:aa → ∅": 0}
    b = analyze(example3, [("A", "b")])
    assert [(m.text(), str(m.rule)) for m in b.moves] == [("A:b → B:b", "A -> B")]


def test_equal_components_give_one_move_each_result(example3):
    a = analyze(example3, [("A", "a"), ("A", "a")])
    assert a.grundy == 0 and a.outcome == "P"
    assert [m.text() for m in a.moves] == ["A:a → ∅"]
    assert a.moves[0].result == (("A", "a"),)


def test_left_linear_rules_are_reported_as_written():
    g = parse_grammar("A -> A a | B a a | b\nB -> b")
    a = analyze(g, [("A", "baa")])
    assert {(m.text(), str(m.rule)) for m in a.moves} == {
        ("A:baa → A:ba", "A -> A a"), ("A:baa → B:b", "A -> B a a")}


def test_general_cfg_splits():
    g = parse_grammar("S -> A A | a\nA -> a A | a")
    oracle = Definition(g.rules)
    position = (("S", "aaa"),)
    a = analyze(g, position)
    assert Analyzer(g).method == "cyk"
    check_against_oracle(g, position, a, oracle)
    # the splits a|aa and aa|a give the same multiset: one move
    assert [m.text() for m in a.moves] == ["S:aaa → A:a A:aa"]
    h = parse_grammar("S -> A b B | a\nA -> a A | a\nB -> a")
    b = analyze(h, [("S", "aaba")])
    # 𝒢_A(aa) = 0, 𝒢_B(a) = 1
    assert [(m.text(), m.grundy) for m in b.moves] == [("S:aaba → A:aa B:a", 0 ^ 1)]


def test_empty_position_has_no_moves(example3):
    a = analyze(example3, [])
    assert a.moves == () and a.grundy == 0 and engine_choice(a) is None


# ---------------------------------------------------------------------------
# input errors


def test_bad_positions(example3):
    analyzer = Analyzer(example3)
    with pytest.raises(InputError, match="NONTERMINAL:WORD"):
        parse_pair(example3, "Aaab")
    with pytest.raises(GrammarError, match="not a nonterminal"):
        parse_position(analyzer, ["Z:a"])
    with pytest.raises(InputError, match=r"B:a is not a position"):
        parse_position(analyzer, ["A:aab", "B:a"])
    with pytest.raises(InputError, match="the empty word"):
        parse_position(analyzer, ["A:"])
    with pytest.raises(InputError, match="not a position"):
        analyze(example3, [("A", "xyz")])
    with pytest.raises(InputError, match="at least one"):
        parse_position(analyzer, [])
    assert parse_position(analyzer, ["A:aab", "B:ba"]) == (("A", "aab"), ("B", "ba"))


def test_methods(example3):
    cfg = parse_grammar("S -> A A | a\nA -> a")
    with pytest.raises(InputError, match="right- or left-linear"):
        Analyzer(cfg, method="dfa")
    with pytest.raises(InputError, match="unknown method"):
        Analyzer(example3, method="fast")  # type: ignore[arg-type]
    assert Analyzer(example3, method="cyk").method == "cyk"


def test_format_parts():
    assert format_parts(()) == "∅"
    assert format_parts((("A", "ab"), ("B", "b"))) == "A:ab B:b"


# ---------------------------------------------------------------------------
# the engine


def test_engine_plays_a_winning_move_from_n_positions(example3):
    a = analyze(example3, [("A", "aab"), ("B", "ba")])
    move = engine_choice(a)
    assert move is not None and move.winning


def test_engine_policy_in_p_positions(example3):
    # a P-position: the engine removes the fewest letters (the first such move)
    a = analyze(example3, [("A", "aab"), ("A", "aab")])
    assert a.grundy == 0
    move = engine_choice(a)
    assert move is not None and not move.winning
    assert move.letters_removed == min(m.letters_removed for m in a.moves)
    assert move == next(m for m in a.moves if m.letters_removed == move.letters_removed)


def random_human(rng: random.Random):
    return lambda analysis: rng.choice(analysis.moves)


def play_out(game: Game, human) -> str:
    for _ in range(10_000):
        if game.over:
            return game.winner
        if game.to_move == "engine":
            game.engine_move()
        else:
            game.play(human(game.analysis()))
    raise AssertionError("the game did not end")


@pytest.mark.parametrize("seed", range(6))
def test_engine_wins_from_every_n_position_it_starts(example3, csub, seed):
    rng = random.Random(seed)
    for g in (example3, csub):
        oracle = Definition(g.rules)
        words = ["".join(rng.choice(g.terminals) for _ in range(rng.randint(1, 7)))
                 for _ in range(40)]
        found = [("A", w) for w in words if oracle("A", w) is not None]
        found += [("B", w) for w in words if "B" in g.nonterminals and oracle("B", w) is not None]
        for _ in range(10):
            position = tuple(rng.sample(found, rng.randint(1, 3)))
            analyzer = Analyzer(g)
            start = analyzer.analyze(position)
            game = Game(analyzer, position, to_move="engine")
            if start.grundy:  # engine first from an N-position
                assert play_out(game, random_human(rng)) == "engine"
            else:  # human first from a P-position: whatever the human does is an error
                game = Game(analyzer, position, to_move="human")
                assert play_out(game, random_human(rng)) == "engine"


def test_engine_loses_to_perfect_play(example3):
    analyzer = Analyzer(example3)
    position = (("A", "aab"), ("B", "ba"))  # N-position: the human, first, can win
    game = Game(analyzer, position, to_move="human")
    assert play_out(game, lambda a: a.winning_moves[0]) == "human"
    assert all(not m.winning for who, m in game.history if who == "engine")


def test_engine_wins_when_the_human_errs(example3):
    analyzer = Analyzer(example3)
    position = (("A", "aab"), ("B", "ba"))
    game = Game(analyzer, position, to_move="human")
    first = True

    def human(a: Analysis):
        nonlocal first
        if first:  # the one error: a move to a nonzero XOR
            first = False
            return next(m for m in a.moves if not m.winning)
        return a.winning_moves[0] if a.winning_moves else a.moves[0]

    assert play_out(game, human) == "engine"


def test_game_bookkeeping(example3):
    game = Game(Analyzer(example3), (("A", "a"),), to_move="human")
    assert not game.over and game.winner is None
    move = game.analysis().moves[0]
    game.play(move)
    assert game.over and game.winner == "human" and game.history == [("human", move)]
    with pytest.raises(InputError):
        game.engine_move()
    with pytest.raises(InputError, match="not a move"):
        game.play(move)
    with pytest.raises(InputError, match="not a position"):
        Game(Analyzer(example3), (("B", "a"),))
