"""Proven periods of n ↦ 𝒢(A, aⁿ) (SPEC §7) against brute force and known results.

The brute-force sequence is :func:`sdg_automata.derivation.semantics.grundy` with
``method="brute"`` (the suffix DP, no automaton), one word at a time; for
1 ∈ S it is also the classic subtraction game, computed here by mex directly.
"""

from __future__ import annotations

from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdg_automata.derivation.periodicity import Period, guess_period, proven_period
from sdg_automata.derivation.semantics import grundy
from sdg_automata.errors import BudgetExceeded, GrammarError, InputError
from sdg_automata.generators.families import subtraction_grammar
from sdg_automata.grammar import Grammar, Rule
from sdg_automata.grammar.parse import parse_grammar

ALL_SETS = [frozenset(c) for r in range(1, 8) for c in combinations(range(1, 8), r)]


def brute(g: Grammar, head: str, n_max: int) -> list[int | None]:
    """s(1), …, s(n_max) by the suffix DP, one word at a time."""
    return [grundy(g, head, "a" * n, method="brute") for n in range(1, n_max + 1)]


def fits(seq: list[int | None], p: int, p0: int) -> bool:
    """s(n + p) = s(n) for every n > p0 inside the prefix (seq[0] is s(1))."""
    return all(seq[n - 1 + p] == seq[n - 1] for n in range(p0 + 1, len(seq) - p + 1))


def classic(subtraction: frozenset[int], n_max: int) -> list[int]:
    """The classic subtraction game g(1), …, g(n_max): g(n) = mex{g(n − k) : k ∈ S, k ≤ n}."""
    g = [0]
    for n in range(1, n_max + 1):
        seen = {g[n - k] for k in subtraction if k <= n}
        m = 0
        while m in seen:
            m += 1
        g.append(m)
    return g[1:]


def check(period: Period, seq: list[int | None]) -> None:
    """The period reproduces ``seq`` and is minimal on it."""
    p, p0 = period.period, period.preperiod
    assert [period.value(n) for n in range(1, len(seq) + 1)] == seq
    assert period.values == tuple(seq[p0:p0 + p])
    assert period.prefix == tuple(seq[:p0])
    assert fits(seq, p, p0)
    if p0 > 0:  # the preperiod is minimal: s(p0 + p) ≠ s(p0)
        assert not fits(seq, p, p0 - 1)
    for q in range(1, p):  # no smaller period fits, even with a long preperiod
        assert not any(fits(seq, q, q0) for q0 in range(len(seq) // 2)), q
    assert period.lasso_cycle % p == 0 and p0 < max(period.lasso_tail, 1)


@pytest.mark.parametrize("subtraction", ALL_SETS, ids=lambda s: "S=" + "".join(map(str, sorted(s))))
def test_every_subtraction_set_up_to_7(subtraction):
    g = subtraction_grammar(subtraction)
    period = proven_period(g, "A")
    n_max = 10 * (period.preperiod + period.period)
    seq = brute(g, "A", n_max)
    check(period, seq)
    if 1 in subtraction:  # SPEC §7: then the grammar is the classic game
        assert seq == classic(subtraction, n_max)


@pytest.mark.parametrize("k", range(1, 8))
def test_one_to_k_is_n_mod_k_plus_one(k):
    period = proven_period(subtraction_grammar(range(1, k + 1)), "A")
    assert (period.preperiod, period.period) == (0, k + 1)
    assert period.values == (*range(1, k + 1), 0)
    assert period.to_json() == {"nonterminal": "A", "preperiod": 0, "period": k + 1,
                                "values": [*range(1, k + 1), 0]}


def test_known_periods():
    p = proven_period(subtraction_grammar({1, 3, 4}), "A")  # classic: 0 1 0 1 2 3 2, period 7
    assert (p.preperiod, p.period, p.values) == (0, 7, (1, 0, 1, 2, 3, 2, 0))
    q = proven_period(subtraction_grammar({1, 2}), "A")
    assert q.to_json() == {"nonterminal": "A", "preperiod": 0, "period": 3, "values": [1, 2, 0]}


def test_subtraction_2_3_is_not_the_classic_game():
    # SPEC §7: ⊥, 1, 1, 0, 0, 2, 1, 1, 0, 0, 2 for n = 1…11; the classic game has g(4) = 2
    p = proven_period(subtraction_grammar({2, 3}), "A")
    assert [p.value(n) for n in range(1, 12)] == [None, 1, 1, 0, 0, 2, 1, 1, 0, 0, 2]
    assert (p.preperiod, p.period, p.values, p.prefix) == (1, 5, (1, 1, 0, 0, 2), (None,))
    assert p.to_json()["values"] == [1, 1, 0, 0, 2]
    assert classic(frozenset({2, 3}), 4)[3] == 2


def test_positions_only_in_a_residue_class():
    p = proven_period(subtraction_grammar({2}), "A")  # a^n is a position iff n is even
    assert (p.preperiod, p.period, p.values) == (0, 4, (None, 1, None, 0))
    assert p.to_json()["values"] == [None, 1, None, 0]


# ---------------------------------------------------------------------------
# other unary grammars: several nonterminals, unit rules, left-linear


def test_left_linear_unary_grammar():
    g = parse_grammar("A -> A a | B a a a | a\nB -> A a | a a")
    assert g.is_left_linear and not g.is_right_linear
    for head in ("A", "B"):
        period = proven_period(g, head)
        seq = brute(g, head, 10 * (period.preperiod + period.period) + 20)
        check(period, seq)


@st.composite
def unary_right_linear(draw: st.DrawFn) -> Grammar:
    """A → aᵏ | aᵏB | B (k ≤ 4) with up to 3 nonterminals; unit rules only forwards."""
    names = ["A", "B", "C"][: draw(st.integers(1, 3))]
    rules = []
    for i, head in enumerate(names):
        for _ in range(draw(st.integers(1, 3))):
            k = draw(st.integers(1, 4))
            tail = draw(st.sampled_from([None, *names]))
            rules.append(Rule(head, ("a",) * k + ((tail,) if tail else ())))
        later = names[i + 1:]
        if later and draw(st.booleans()):
            rules.append(Rule(head, (draw(st.sampled_from(later)),)))
    return Grammar(rules=rules)


@settings(max_examples=60, deadline=None)
@given(unary_right_linear(), st.booleans())
def test_random_unary_grammars_against_brute_force(g, mirrored):
    if mirrored:  # the left-linear mirror has the same sequence
        g = g.mirror()
    for head in g.nonterminals:
        period = proven_period(g, head)
        seq = brute(g, head, 10 * (period.preperiod + period.period) + 10)
        check(period, seq)


# ---------------------------------------------------------------------------
# refusals, budget, and the unproven guess


def test_refusals(example3):
    with pytest.raises(InputError, match="one letter"):
        proven_period(example3, "A")
    cfg = parse_grammar("A -> A A | a")
    with pytest.raises(InputError, match="right- or left-linear"):
        proven_period(cfg, "A")
    with pytest.raises(GrammarError, match="not a nonterminal"):
        proven_period(subtraction_grammar({1}), "Z")
    with pytest.raises(ValueError):
        proven_period(subtraction_grammar({1}), "A").value(0)


def test_budget():
    with pytest.raises(BudgetExceeded):
        proven_period(subtraction_grammar({3, 5}), "A", max_states=3)


def test_guess_is_labelled_unproven_and_can_be_wrong():
    g = subtraction_grammar({1, 4})
    proven = proven_period(g, "A")
    assert proven.proven is True and (proven.preperiod, proven.period) == (0, 5)
    short = brute(g, "A", 8)  # 1 0 1 2 0 1 0 1: looks like period 2 after n = 4
    guess = guess_period(short)
    assert guess is not None and guess.proven is False
    assert (guess.preperiod, guess.period) == (4, 2)  # wrong: the proof says (0, 5)
    long = brute(g, "A", 10 * (proven.preperiod + proven.period))
    right = guess_period(long)
    assert right is not None and (right.preperiod, right.period) == (proven.preperiod,
                                                                     proven.period)
    assert guess_period([1]) is None
