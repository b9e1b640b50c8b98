"""Grundy numbers of the SDG (SPEC §2): golden tables, closed forms, and the routes agree.

Golden tables are transcribed from SPEC §2 (Example 3 of the seed paper) and
named after their source.  The paper lists wᴿ, the words its automaton reads,
so the tables hold reversed words; they are reversed back before evaluating.
"""

from __future__ import annotations

import random

import pytest
from golden import EXAMPLE3_REVERSED, csub_is_p_position, example3_expected  # noqa: E402
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import (
    Definition,
    all_words,
    cfgs,
    left_linear_grammars,
    right_linear_grammars,
    sample_positions,
    words,
)

from sdg_automata.derivation import semantics
from sdg_automata.derivation.semantics import (
    ReferenceSubstringTable,
    SubstringTable,
    evaluator,
    grundy,
    grundy_position,
    make_position,
    naive_grundy,
    position_moves,
    successors,
    suffix_grundy,
)
from sdg_automata.errors import BudgetExceeded, GrammarError, InputError
from sdg_automata.grammar import Grammar
from sdg_automata.grammar.parse import parse_grammar
from sdg_automata.runtime.budget import Budget

METHODS = ("auto", "dfa", "brute", "cyk", "naive")

#: SPEC §7: the unary grammar A → aaA | aaaA | aa | aaa (subtraction set {2, 3}),
#: 𝒢(A, aⁿ) for n = 1 … 11
SUBTRACTION_2_3 = [None, 1, 1, 0, 0, 2, 1, 1, 0, 0, 2]


# ---------------------------------------------------------------------------
# CSub (SPEC §2): the closed form of Example 2, and the game played directly


def csub_values(w: str) -> list[int]:
    """𝒢(A, y) for every suffix y of w (index = start), by playing CSub directly.

    From (A, y) the moves drop a first letter a or b, or a first aa, keeping a
    non-empty rest (A → aA | aaA | bA), or finish when y ∈ {a, aa, b}.
    Iterative, so it serves words of any length.
    """
    n = len(w)
    g = [0] * (n + 1)
    for p in range(n - 1, -1, -1):
        options = set()
        rest = n - p
        if rest == 1 or (rest == 2 and w[p] == w[p + 1] == "a"):
            options.add(0)
        if rest > 1:
            options.add(g[p + 1])
        if rest > 2 and w[p] == w[p + 1] == "a":
            options.add(g[p + 2])
        m = 0
        while m in options:
            m += 1
        g[p] = m
    return g


def test_csub_examples(csub):
    for method in METHODS:
        assert grundy(csub, "A", "a", method=method) == 1
        assert grundy(csub, "A", "aa", method=method) == 2


def test_csub_closed_form_agrees_with_the_direct_game():
    for w in all_words("ab", 10):
        assert (csub_values(w)[0] == 0) == csub_is_p_position(w), w


@pytest.mark.parametrize("method", ["auto", "dfa", "brute", "cyk"])
def test_csub_every_word_up_to_10(csub, method):
    value = evaluator(csub, method=method)
    words_ = all_words("ab", 10)
    assert len(words_) == sum(2**n for n in range(1, 11))
    for w in words_:
        v = value("A", w)
        assert v is not None
        assert (v == 0) == csub_is_p_position(w), w
        assert v == csub_values(w)[0], w


def test_csub_naive_up_to_7(csub):
    for w in all_words("ab", 7):
        assert naive_grundy(csub, "A", w) == csub_values(w)[0], w


# ---------------------------------------------------------------------------
# Example 3 golden tables


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("head", ["A", "B"])
def test_example3_tables(example3, method, head):
    value = evaluator(example3, method=method)
    found: dict[int | None, set[str]] = {}
    for w in all_words("ab", 4):
        found.setdefault(value(head, w), set()).add(w[::-1])
    expected = EXAMPLE3_REVERSED[head]
    for i, table in expected.items():
        assert found.get(i, set()) == table, (head, i)
    assert set(found) - {None} == set(expected)  # no 𝒢_A ∈ {3, 4}, no 𝒢_B = 2
    assert found.get(None, set()) == set(all_words("ab", 4)) - set().union(*expected.values())


def test_example3_tables_are_the_definition(example3):
    oracle = Definition(example3.rules)
    for head in ("A", "B"):
        for w in all_words("ab", 4):
            assert oracle(head, w) == example3_expected(head, w), (head, w)


# ---------------------------------------------------------------------------
# SPEC §7: subtraction set {2, 3}


@pytest.mark.parametrize("method", METHODS)
def test_subtraction_2_3(method):
    g = parse_grammar("A -> a a A | a a a A | a a | a a a")
    value = evaluator(g, method=method)
    assert [value("A", "a" * n) for n in range(1, 12)] == SUBTRACTION_2_3


# ---------------------------------------------------------------------------
# not a position


@pytest.mark.parametrize("method", METHODS)
def test_empty_word_and_foreign_letters(example3, method):
    value = evaluator(example3, method=method)
    assert value("A", "") is None
    assert value("A", "c") is None
    assert value("A", "abc") is None
    assert value("B", "a") is None  # B → bA | b: every B-word starts with b


def test_unknown_nonterminal_and_method(example3):
    for method in METHODS:
        with pytest.raises(GrammarError):
            grundy(example3, "Z", "ab", method=method)
    with pytest.raises(InputError, match="unknown method"):
        grundy(example3, "A", "ab", method="fast")  # type: ignore[arg-type]


def test_linear_only_routes_refuse_general_grammars():
    g = parse_grammar("A -> A A | a")
    with pytest.raises(InputError):
        grundy(g, "A", "aa", method="dfa")
    with pytest.raises(InputError):
        suffix_grundy(g, "aa")
    assert grundy(g, "A", "aa", method="brute") == grundy(g, "A", "aa", method="naive")


def test_context_free_example():
    # A → AA | a, values by hand: 𝒢(a) = mex{0} = 1 (the terminal move);
    # aa splits only as a+a, XOR 1^1 = 0, so 𝒢(aa) = 1; aaa splits as a+aa or
    # aa+a, both XOR 0, so 𝒢(aaa) = 1; aaaa: a+aaa, aa+aa, aaa+a, all XOR 0 → 1
    g = parse_grammar("A -> A A | a")
    for method in ("auto", "cyk", "naive"):
        value = evaluator(g, method=method)
        assert value("A", "a") == 1
        assert value("A", "aa") == 1  # only move: (A,a)+(A,a), XOR 0
        assert value("A", "aaa") == 1  # moves to a+aa or aa+a, XOR 0
        assert value("A", "aaaa") == 1


# ---------------------------------------------------------------------------
# random grammars: every route is the definition


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_cyk_equals_naive_on_random_cfgs(data):
    g = data.draw(cfgs())
    oracle = Definition(g.rules)
    sample = data.draw(st.lists(words(g.terminals, max_size=6), max_size=4))
    sample += [w for _, w in sample_positions(data, g, oracle)]
    for w in all_words(g.terminals, 3) + sample:
        for head in g.nonterminals:
            expected = oracle(head, w)
            assert grundy(g, head, w, method="cyk") == expected, (head, w)
            assert naive_grundy(g, head, w) == expected, (head, w)
            assert grundy(g, head, w) == expected, (head, w)


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_substring_table_covers_every_substring(data):
    g = data.draw(cfgs())
    oracle = Definition(g.rules)
    w = data.draw(st.one_of(words(g.terminals, max_size=6),
                            st.sampled_from([w for _, w in sample_positions(data, g, oracle)]
                                            or ["a"])))
    table = SubstringTable(g, w)
    for i in range(len(w)):
        for j in range(i + 1, len(w) + 1):
            for head in g.nonterminals:
                assert table.grundy(head, i, j) == oracle(head, w[i:j])
                assert table.is_position(head, i, j) == (oracle(head, w[i:j]) is not None)
    assert table.grundy(g.start, 0, 0) is None


def assert_same_tables(g: Grammar, w: str) -> None:
    new, old = SubstringTable(g, w), ReferenceSubstringTable(g, w)
    for i in range(len(w)):
        for j in range(i + 1, len(w) + 1):
            for head in g.nonterminals:
                assert new.grundy(head, i, j) == old.grundy(head, i, j), (head, i, j)


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_bitset_table_equals_the_reference(data):
    """Should give the per-split table's value on every substring of longer words."""
    g = data.draw(cfgs())
    assert_same_tables(g, data.draw(words(g.terminals, max_size=14)))


DYCK = "S -> a S b | S S | a b"
#: a non-linear grammar whose values go beyond 1 (several XOR values per span)
WIDE = "S -> S S | S T | a | b S\nT -> a T b | T S | b | a a"


@pytest.mark.parametrize("text", [DYCK, WIDE])
def test_bitset_table_equals_the_reference_on_long_words(text):
    g = parse_grammar(text)
    rnd = random.Random(5)
    seen = set()
    for w in ["ab" * 20, "a" * 30, *("".join(rnd.choice("ab") for _ in range(40))
                                      for _ in range(3))]:
        assert_same_tables(g, w)
        table = SubstringTable(g, w)
        seen |= {table.grundy(h, i, j) for h in g.nonterminals for i in range(len(w))
                 for j in range(i + 1, len(w) + 1)}
    assert len(seen - {None}) >= 2


def test_naive_has_no_recursion_limit():
    """Should evaluate 180- and 400-letter words by the definition without RecursionError."""
    g = parse_grammar(DYCK)
    for w in ("ab" * 90, "a" * 100 + "b" * 100, "ab" * 200):
        assert naive_grundy(g, "S", w) == SubstringTable(g, w).grundy("S")
    chain = parse_grammar("A -> a A | a")  # right-linear: depth |w| in the old recursion
    assert naive_grundy(chain, "A", "a" * 3000) == grundy(chain, "A", "a" * 3000)


def test_tables_obey_the_budget(monkeypatch):
    g = parse_grammar(DYCK)
    with pytest.raises(BudgetExceeded, match="substrings reached"):
        SubstringTable(g, "ab" * 400, budget=Budget(max_seconds=0.01))
    with pytest.raises(BudgetExceeded, match="subwords reached"):
        naive_grundy(g, "S", "ab" * 1000, budget=Budget(max_seconds=0.01))
    seen = []
    SubstringTable(g, "ab" * 10, budget=Budget(progress=seen.append))
    assert seen[-1] == 20 * 21 // 2  # every substring, reported column by column
    monkeypatch.setattr(semantics, "available_bytes", lambda: 10**6)
    with pytest.raises(BudgetExceeded, match="needs at least"):
        SubstringTable(g, "ab" * 2000)
    assert SubstringTable(g, "ab" * 20).grundy("S") == 1  # small tables still fit


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_right_linear_routes_agree(data):
    g = data.draw(right_linear_grammars())
    oracle = Definition(g.rules)
    evaluators = {m: evaluator(g, method=m) for m in METHODS}
    sample = data.draw(st.lists(words(g.terminals, max_size=6), max_size=4))
    sample += [w for _, w in sample_positions(data, g, oracle)]
    for w in all_words(g.terminals, 4 if len(g.terminals) < 3 else 3) + sample:
        by_suffix = suffix_grundy(g, w)
        for head in g.nonterminals:
            expected = oracle(head, w)
            assert by_suffix[head] == expected, (head, w)
            for m, value in evaluators.items():
                assert value(head, w) == expected, (m, head, w)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_left_linear_routes_agree(data):
    g = data.draw(left_linear_grammars())
    assert g.is_left_linear and not g.is_right_linear
    oracle = Definition(g.rules)
    mirror = Definition([type(r)(r.head, r.body[::-1]) for r in g.rules])
    evaluators = {m: evaluator(g, method=m) for m in METHODS}
    sample = data.draw(st.lists(words(g.terminals, max_size=6), max_size=4))
    sample += [w for _, w in sample_positions(data, g, oracle)]
    for w in all_words(g.terminals, 4 if len(g.terminals) < 3 else 3) + sample:
        for head in g.nonterminals:
            expected = oracle(head, w)
            assert mirror(head, w[::-1]) == expected  # SPEC: the mirror plays wᴿ
            for m, value in evaluators.items():
                assert value(head, w) == expected, (m, head, w)


# ---------------------------------------------------------------------------
# positions, successors, moves


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_grundy_position_is_the_xor_of_parts(data):
    g = data.draw(st.one_of(cfgs(), right_linear_grammars()))
    oracle = Definition(g.rules)
    parts = data.draw(st.lists(
        st.tuples(st.sampled_from(g.nonterminals), words(g.terminals, max_size=4)),
        max_size=2))
    parts += sample_positions(data, g, oracle, max_length=4, max_size=3)
    parts = data.draw(st.permutations(parts))
    values = [oracle(h, w) for h, w in parts]
    expected = None
    if None not in values:
        expected = 0
        for v in values:
            expected ^= v
    assert grundy_position(g, parts) == expected
    assert grundy_position(g, parts, method="cyk") == expected


def test_grundy_position_examples(example3):
    # 𝒢_A(aab) = 2 (aabᴿ = baa), 𝒢_B(ba) = 0 (baᴿ = ab), 𝒢_A(b) = 0
    assert grundy_position(example3, [("A", "aab"), ("B", "ba")]) == 2
    assert grundy_position(example3, [("A", "aab"), ("A", "aab")]) == 0
    assert grundy_position(example3, [("A", "aab"), ("B", "a")]) is None
    assert grundy_position(example3, []) == 0  # the empty position
    with pytest.raises(GrammarError):
        grundy_position(example3, [("Z", "a")])


def _spells(grammar: Grammar, head: str, w: str, successor) -> bool:
    """Some rule of ``head``, with its nonterminals replaced by the parts' words in some
    order, spells w (the parts form a multiset, so every order is tried)."""
    from itertools import permutations

    for rule in grammar.rules_of(head):
        slots = [s for s in rule.body if grammar.is_nonterminal(s)]
        if sorted(slots) != sorted(h for h, _ in successor):
            continue
        for order in set(permutations(successor)):
            if [h for h, _ in order] != slots:
                continue
            it = iter(order)
            spelled = "".join(next(it)[1] if grammar.is_nonterminal(s) else s for s in rule.body)
            if spelled == w:
                return True
    return False


@settings(max_examples=100, deadline=None)
@given(st.data())
def test_successors_are_the_moves_of_the_definition(data):
    g = data.draw(st.one_of(cfgs(), right_linear_grammars(), left_linear_grammars()))
    oracle = Definition(g.rules)
    picks = [(data.draw(st.sampled_from(g.nonterminals)), data.draw(words(g.terminals)))]
    picks += sample_positions(data, g, oracle, max_size=3)
    for head, w in picks:
        _check_successors(g, oracle, head, w)


def _check_successors(g, oracle, head, w):
    succ = successors(g, head, w)
    assert len(succ) == len(set(succ))  # each once
    assert set(succ) == oracle.successors(head, w)
    for s in succ:
        assert s == make_position(s)
        assert all(oracle(b, u) is not None for b, u in s)
        assert _spells(g, head, w, s), (head, w, s)
    # the value is the mex of the successors' XORs; no successor ⟺ not a position
    xors = set()
    for s in succ:
        x = 0
        for b, u in s:
            x ^= oracle(b, u)
        xors.add(x)
    expected = oracle(head, w)
    if expected is None:
        assert succ == []
    else:
        assert expected == min(set(range(len(xors) + 1)) - xors)


def test_successors_example3(example3):
    # (A, ab): A → aA leaves (A, b) [b ∈ L(A) via A → B → b]; A → B needs ab ∈ L(B): no
    assert successors(example3, "A", "ab") == [(("A", "b"),)]
    # (A, aa): A → aA gives (A, a); A → aa gives ∅
    assert set(successors(example3, "A", "aa")) == {(("A", "a"),), ()}
    # (B, b): B → b gives ∅, and b ∉ L(A) is not needed
    assert successors(example3, "B", "b") == [()]
    assert successors(example3, "B", "a") == []


def test_successors_are_deduplicated():
    # (A, aaa): A → BB splits a+aa and aa+a, one multiset; A → BC and A → CB both
    # give {(B, aa), (C, a)}; so two successors, each listed once
    g = parse_grammar("A -> B B | B C | C B\nB -> a | a a\nC -> a")
    succ = successors(g, "A", "aaa")
    assert len(succ) == 2
    assert set(succ) == {(("B", "a"), ("B", "aa")), (("B", "aa"), ("C", "a"))}
    # 𝒢_B(a) = 1 (B → a), 𝒢_B(aa) = 1 (B → aa), 𝒢_C(a) = 1: XORs 0 and 0
    assert grundy(g, "A", "aaa") == 1


def test_position_moves(example3):
    position = make_position([("A", "aa"), ("B", "b")])
    moves = set(position_moves(example3, position))
    # component 0 is (A, aa), component 1 is (B, b)
    assert moves == {
        (0, make_position([("A", "a"), ("B", "b")])),
        (0, make_position([("B", "b")])),
        (1, make_position([("A", "aa")])),
    }


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_position_values_are_mex_of_moves(data):
    g = data.draw(right_linear_grammars(max_nonterminals=3))
    oracle = Definition(g.rules)
    candidates = [(h, w) for h in g.nonterminals for w in all_words(g.terminals, 3)
                  if oracle(h, w) is not None]
    if not candidates:
        return
    parts = data.draw(st.lists(st.sampled_from(candidates), min_size=1, max_size=3))
    position = make_position(parts)
    follower_values = {grundy_position(g, p) for _, p in position_moves(g, position)}
    expected = grundy_position(g, position)
    m = 0
    while m in follower_values:
        m += 1
    assert expected == m


# ---------------------------------------------------------------------------
# long words: iterative, linear


def test_long_word_brute_and_dfa(example3, csub):
    rng = random.Random(20261129)
    w = "".join(rng.choice("ab") for _ in range(10**5))
    for g in (example3, csub):
        brute = evaluator(g, method="brute")
        auto = evaluator(g, method="dfa")
        for head in g.nonterminals:
            assert brute(head, w) == auto(head, w)
    assert evaluator(csub, method="dfa")("A", w) == csub_values(w)[0]
    assert (csub_values(w)[0] == 0) == csub_is_p_position(w)


def test_million_letters_dfa(csub):
    rng = random.Random(7)
    w = "".join(rng.choices("ab", weights=(3, 1), k=10**6))
    expected = csub_values(w)[0]
    assert grundy(csub, "A", w, method="dfa") == expected
    assert grundy(csub, "A", w) == expected


def test_naive_needs_no_deep_recursion():
    # a 3,000-rule unit chain and a long word: the definition runs on an explicit stack
    import sys

    n = 3000
    chain = parse_grammar("".join(f"A{i} -> A{i + 1}\n" for i in range(n)) + f"A{n} -> a A{n} | a")
    assert n > sys.getrecursionlimit() // 2
    assert naive_grundy(chain, "A0", "a") == 1
    assert naive_grundy(chain, "A0", "aa") == naive_grundy(chain, f"A{n}", "aa") == 0
    csub = parse_grammar("A -> a A | a a A | b A | a | a a | b")
    w = "ab" * 200  # the old recursion needed about three frames per letter
    assert naive_grundy(csub, "A", w) == grundy(csub, "A", w, method="brute")
