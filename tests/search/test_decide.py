"""Max-Grundy-Number-in-SDG (SPEC §5): sdg_automata.search.decide against brute force.

Ground truths used here, none of them the code under test:

* SPEC §2's Example 3 table (max 𝒢_A = 2, max 𝒢_B = 1);
* exhaustive enumeration with the from-scratch oracle of ``strategies.py``: the
  reachable automaton has n states and every state is reached by a word of
  length < n (a shortest path visits each state at most once), so the values
  taken on the words of length ≤ n − 1 are all the values there are;
* automata-lib's products for regular constraints (``isdisjoint`` of the
  forward DFA {w : 𝒢(A, w) = i} with the constraint DFA);
* the Chinese remainder theorem for the modular hardness family.
"""

from __future__ import annotations

import pytest
from automata.fa.dfa import DFA
from automata.fa.nfa import NFA
from hypothesis import HealthCheck, event, given, note, settings
from hypothesis import strategies as st
from strategies import Definition, all_words, count_words, right_linear_grammars

from sdg_automata.automaton.construction import GrundyAutomaton, dfa
from sdg_automata.derivation.semantics import grundy
from sdg_automata.errors import BudgetExceeded, InputError
from sdg_automata.generators.families import ModularSpec, modular_family, modular_truth
from sdg_automata.grammar import Grammar
from sdg_automata.grammar.parse import parse_grammar
from sdg_automata.search.decide import max_grundy

ROUTES = [("onthefly", "bfs"), ("onthefly", "dfs"), ("explicit", "bfs")]

#: the enumeration oracle is skipped above this many words (the routes are still compared)
MAX_WORDS = 3000

#: a counterexample to ⊆-subsumption of states (cited by decide's module docstring): it
#: would prune "aa" (state {A¹}) in favour of "b" (state {A¹, B¹, C⁰, bE⁰}) and report max 𝒢_C = 0
SUBSUMPTION_COUNTEREXAMPLE = "A -> a a | b | b B\nB -> a A | a b | b\nC -> B"

FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def brute_spectrum(g: Grammar, head: str, max_length: int) -> dict[int, int]:
    """value -> length of a shortest word reaching it, over every word up to ``max_length``."""
    oracle = Definition(g.rules)
    shortest: dict[int, int] = {}
    for w in all_words(g.terminals, max_length):  # shortlex: the first hit is a shortest one
        v = oracle(head, w)
        if v is not None and v not in shortest:
            shortest[v] = len(w)
    return shortest


def reachable_size(g: Grammar, head: str) -> int:
    return len(GrundyAutomaton(g.restricted_to(head)).explore())


def check_witnesses(g: Grammar, head: str, v) -> None:
    for value, w in v.witnesses.items():
        assert grundy(g, head, w, method="brute") == value, (head, w, value)


def check_exact_flag(v) -> None:
    # exact is False only when the search stopped early on a "no"
    assert v.exact == (not v.stopped_early or v.maximum == v.bound)
    if not v.exact:
        assert v.stopped_early and v.answer is False
    if v.maximum is not None:
        assert v.maximum <= v.bound


# ---------------------------------------------------------------------------
# Example 3 (SPEC §2)


@pytest.mark.parametrize(("method", "strategy"), ROUTES)
def test_example3_maxima(example3, method, strategy):
    a = max_grundy(example3, "A", method=method, strategy=strategy)
    assert (a.maximum, a.exact, a.answer, a.bound) == (2, True, None, 4)
    b = max_grundy(example3, "B", method=method, strategy=strategy)
    assert (b.maximum, b.exact, b.bound) == (1, True, 2)
    if strategy == "bfs":
        # SPEC §2: 𝒢_A = 2 first at wᴿ = aa; 𝒢_B = 1 first at wᴿ = b (both length ≤ the others)
        assert a.witness == "aa"
        assert b.witness == "b"
    check_witnesses(example3, "A", a)
    check_witnesses(example3, "B", b)
    # nothing stops the search early: m_A = 4 and m_B = 2 are never reached
    assert a.states == b.states == 10 and not a.stopped_early


@pytest.mark.parametrize(("method", "strategy"), ROUTES)
@pytest.mark.parametrize("k", range(6))
def test_example3_questions(example3, method, strategy, k):
    a = max_grundy(example3, "A", k, method=method, strategy=strategy)
    b = max_grundy(example3, "B", k, method=method, strategy=strategy)
    assert a.answer is (k == 2)
    assert b.answer is (k == 1)
    assert a.k == k and a.nonterminal == "A"
    check_exact_flag(a)
    check_exact_flag(b)
    if k == 0:  # "max = 0?" is settled as soon as a value 1 shows up
        assert b.maximum == 1 and (method == "explicit" or b.stopped_early)
    if k < 2 and method == "onthefly":
        assert a.stopped_early and not a.exact and a.maximum > k


def test_example3_doctest_form():
    g = parse_grammar("A -> a A | a a A | B | a | a a\nB -> b A | b")
    v = max_grundy(g, "A", 2)
    assert (v.answer, v.maximum, v.witness) == (True, 2, "aa")


def test_to_json_keys(example3):
    j = max_grundy(example3, "A", 2).to_json()
    assert {"nonterminal", "k", "answer", "max", "witness", "states"} <= set(j)
    assert (j["nonterminal"], j["k"], j["answer"], j["max"], j["witness"]) == \
        ("A", 2, True, 2, "aa")


# ---------------------------------------------------------------------------
# random right-linear grammars against exhaustive enumeration


@settings(FAST, max_examples=100)
@given(right_linear_grammars(), st.data())
def test_routes_agree_with_enumeration(g, data):
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    verdicts = {r: max_grundy(g, head, method=r[0], strategy=r[1]) for r in ROUTES}
    maxima = {r: v.maximum for r, v in verdicts.items()}
    assert len(set(maxima.values())) == 1, maxima
    for v in verdicts.values():
        check_witnesses(g, head, v)
        check_exact_flag(v)
    n = reachable_size(g, head)
    assert verdicts["explicit", "bfs"].states == n
    for r in ROUTES[:2]:
        assert verdicts[r].states <= n
        if not verdicts[r].stopped_early:
            assert verdicts[r].states == n
    if count_words(len(g.terminals), n - 1) > MAX_WORDS:
        note(f"enumeration skipped: {n} states")
        event("enumeration skipped")
        return
    event("enumerated")
    truth = brute_spectrum(g, head, n - 1)
    assert maxima["explicit", "bfs"] == max(truth, default=None)
    bfs = verdicts["onthefly", "bfs"]
    # bfs witnesses are shortest; so are the explicit route's
    for value, w in bfs.witnesses.items():
        assert len(w) == truth[value], (value, w, truth)
    for value, w in verdicts["explicit", "bfs"].witnesses.items():
        assert len(w) == truth[value]
    # a complete search sees every value that occurs
    for r in ROUTES[:2]:
        if not verdicts[r].stopped_early:
            assert set(verdicts[r].witnesses) == set(truth)


@FAST
@given(right_linear_grammars(), st.data())
def test_yes_no_questions(g, data):
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    truth = max_grundy(g, head, method="explicit").maximum
    k = data.draw(st.integers(0, 4), label="k")
    method, strategy = data.draw(st.sampled_from(ROUTES), label="route")
    v = max_grundy(g, head, k, method=method, strategy=strategy)
    assert v.answer is (truth == k)
    check_exact_flag(v)
    check_witnesses(g, head, v)
    if v.exact:
        assert v.maximum == truth
    else:
        assert v.maximum is not None and k < v.maximum <= truth


# ---------------------------------------------------------------------------
# left-linear grammars go through the mirror


@FAST
@given(right_linear_grammars(), st.data())
def test_left_linear_mirror(g, data):
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    left = g.mirror()
    for method, strategy in ROUTES:
        right_v = max_grundy(g, head, method=method, strategy=strategy)
        left_v = max_grundy(left, head, method=method, strategy=strategy)
        assert left_v.maximum == right_v.maximum
        check_witnesses(left, head, left_v)
        if not left.is_right_linear:
            # decided on left.mirror() == g: the same search, witnesses reversed
            assert left_v.witnesses == {v: w[::-1] for v, w in right_v.witnesses.items()}
            assert left_v.states == right_v.states


def test_left_linear_example3(example3):
    left = example3.mirror()  # A → A a | A a a | B | a | a a,  B → A b | b
    assert left.is_left_linear and not left.is_right_linear
    v = max_grundy(left, "A")
    assert (v.maximum, v.witness) == (2, "aa")
    v = max_grundy(left, "B", 1)
    assert v.answer and v.witness == "b"


# ---------------------------------------------------------------------------
# regular constraints against automata-lib products

REGEXES = ["a*", "a+", "(ab)*", "b(a|b)*", "a+b+", "(a|b)(a|b)", "(a|b)*aa", "ba*",
           "(a|c)*b", "c(a|b|c)*", "abc"]


def forward_values(g: Grammar, head: str, within: DFA) -> set[int]:
    """The i with {w : 𝒢(A, w) = i} ∩ L(within) ≠ ∅, by automata-lib."""
    out = set()
    for i in range(GrundyAutomaton(g.mirror() if not g.is_right_linear else g).bounds[head] + 1):
        forward = dfa(g, head, i, forward=True)
        if not forward.isdisjoint(within):
            out.add(i)
    return out


def regex_dfa(regex: str, alphabet) -> DFA:
    return DFA.from_nfa(NFA.from_regex(regex, input_symbols=set(alphabet)))


def check_within(g: Grammar, head: str, within, within_dfa: DFA, k: int | None = None) -> None:
    expected = forward_values(g, head, within_dfa)
    for method, strategy in ROUTES:
        if k is not None:
            q = max_grundy(g, head, k, method=method, strategy=strategy, within=within)
            assert q.answer is (max(expected, default=None) == k)
            check_exact_flag(q)
        v = max_grundy(g, head, method=method, strategy=strategy, within=within)
        assert v.maximum == max(expected, default=None), (method, strategy, expected)
        assert set(v.witnesses) <= expected
        if method == "onthefly" and not v.stopped_early:
            assert set(v.witnesses) == expected
        for value, w in v.witnesses.items():
            assert within_dfa.accepts_input(w)
            assert grundy(g, head, w, method="brute") == value
        check_exact_flag(v)


@FAST
@given(right_linear_grammars(), st.data())
def test_within_regex(g, data):
    usable = [r for r in REGEXES if set(r) - set("()|*+") <= set(g.terminals)]
    regex = data.draw(st.sampled_from(usable), label="regex")
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    k = data.draw(st.integers(0, 3), label="k")
    check_within(g, head, regex, regex_dfa(regex, g.terminals), k)


@settings(max_examples=30, deadline=None)
@given(right_linear_grammars(), st.data())
def test_within_regex_left_linear(g, data):
    usable = [r for r in REGEXES if set(r) - set("()|*+") <= set(g.terminals)]
    regex = data.draw(st.sampled_from(usable), label="regex")
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    left = g.mirror()
    check_within(left, head, regex, regex_dfa(regex, g.terminals))


def even_count_dfa(letter: str, alphabet) -> DFA:
    """Words with an even number of ``letter`` (a complete 2-state DFA)."""
    return DFA(states={0, 1}, input_symbols=set(alphabet),
               transitions={s: {a: (1 - s if a == letter else s) for a in alphabet}
                            for s in (0, 1)},
               initial_state=0, final_states={0})


@FAST
@given(right_linear_grammars(), st.data())
def test_within_dfa(g, data):
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    letter = data.draw(st.sampled_from(g.terminals), label="letter")
    d = even_count_dfa(letter, g.terminals)
    check_within(g, head, d, d)


def test_within_example3(example3):
    # only words a^n: 𝒢_A(a^n) = 1, 2, 0, 1, 2, 0, ... (wᴿ lists of SPEC §2)
    v = max_grundy(example3, "A", within="a*")
    assert (v.maximum, v.witness) == (2, "aa")
    # words starting with b: the only move from (A, b·y) is to (B, b·y), so 𝒢_A ≤ 1 there
    # (SPEC §2 table: wᴿ = ab is the shortest such word with 𝒢_A = 1)
    v = max_grundy(example3, "A", within="b(a|b)*")
    assert (v.maximum, v.witness) == (1, "ba")
    # ... while words ending in b reach 2 (wᴿ = baa)
    v = max_grundy(example3, "A", within="(a|b)*b")
    assert (v.maximum, v.witness) == (2, "aab")
    # a letter outside Σ: only 'a' itself is a position
    v = max_grundy(example3, "A", within="c*a")
    assert (v.maximum, v.witnesses) == (1, {1: "a"})
    # no position at all
    v = max_grundy(example3, "B", within="a*")
    assert v.maximum is None and v.answer is None and v.witness is None
    assert max_grundy(example3, "B", 0, within="a*").answer is False
    # a partial automata-lib DFA: exactly the word "ab"
    partial = DFA(states={0, 1, 2}, input_symbols={"a", "b"},
                  transitions={0: {"a": 1}, 1: {"b": 2}, 2: {}},
                  initial_state=0, final_states={2}, allow_partial=True)
    for method, strategy in ROUTES:
        v = max_grundy(example3, "A", method=method, strategy=strategy, within=partial)
        assert (v.maximum, v.witness) == (grundy(example3, "A", "ab"), "ab")


def test_within_bad_regex(example3):
    with pytest.raises(InputError, match="invalid constraint"):
        max_grundy(example3, "A", within="(a")


# ---------------------------------------------------------------------------
# soundness regression: subset subsumption


@pytest.mark.parametrize(("method", "strategy"), ROUTES)
def test_subsumption_counterexample(method, strategy):
    g = parse_grammar(SUBSUMPTION_COUNTEREXAMPLE)
    assert grundy(g, "C", "aaa", method="brute") == 1
    v = max_grundy(g, "C", method=method, strategy=strategy)
    assert v.maximum == 1
    assert max_grundy(g, "C", 1, method=method, strategy=strategy).answer is True
    assert max_grundy(g, "C", 0, method=method, strategy=strategy).answer is False
    check_witnesses(g, "C", v)
    n = reachable_size(g, "C")
    assert v.maximum == max(brute_spectrum(g, "C", n - 1))


# ---------------------------------------------------------------------------
# early stopping, exactness, budgets

#: 𝒢(A, aⁿ) = 2 first at n = 6 (6 ≡ 0 mod 3, 6 ≡ 1 mod 5), 3 first at n = 66 (CRT);
#: the reachable part has 1 + lcm(6, 10, 14) = 211 states
EARLY = [ModularSpec(3, 0), ModularSpec(5, 1), ModularSpec(7, 3)]


@pytest.mark.parametrize("strategy", ["bfs", "dfs"])
def test_early_stop_on_no(strategy):
    g = modular_family(EARLY)
    full = reachable_size(g, "A")
    assert full == 211
    v = max_grundy(g, "A", 1, strategy=strategy)
    assert v.answer is False and v.stopped_early and not v.exact
    assert v.maximum == 2 and v.witnesses[2] == "a" * 6
    assert v.states * 10 < full
    # the explicit route always builds everything
    e = max_grundy(g, "A", 1, method="explicit")
    assert e.answer is False and e.exact and e.maximum == 3 and e.states == full


@pytest.mark.parametrize("strategy", ["bfs", "dfs"])
def test_early_stop_on_bound_is_exact(strategy):
    g = modular_family(EARLY)
    v = max_grundy(g, "A", 3, strategy=strategy)
    # the bound m_A = 3 was seen: the maximum is proven although the search stopped early
    assert v.answer is True and v.stopped_early and v.exact and v.bound == 3
    assert v.witness == "a" * 66 and v.states < 211
    w = max_grundy(g, "A", strategy=strategy)
    assert (w.maximum, w.exact, w.stopped_early) == (3, True, True)
    assert modular_truth(EARLY) == (3, 66)


def test_no_early_stop_when_nothing_settles(example3):
    v = max_grundy(example3, "A", 2)  # yes: must rule out 3 and 4 by exhausting
    assert v.answer and v.exact and not v.stopped_early and v.states == 10


@pytest.mark.parametrize(("method", "strategy"), ROUTES)
def test_max_states_budget(example3, method, strategy):
    # Example 3 has 10 reachable states and the search must see them all
    v = max_grundy(example3, "A", method=method, strategy=strategy, max_states=10)
    assert v.maximum == 2
    with pytest.raises(BudgetExceeded, match="budget of 9 states") as info:
        max_grundy(example3, "A", method=method, strategy=strategy, max_states=9)
    assert info.value.explored >= 9
    with pytest.raises(BudgetExceeded, match="budget of 2 states") as info:
        max_grundy(example3, "A", method=method, strategy=strategy, max_states=2)
    assert str(info.value.explored) in str(info.value)


@pytest.mark.parametrize("strategy", ["bfs", "dfs"])
def test_max_seconds_budget(strategy):
    # max 4 (CRT: n = 1890), but m_A = 5: the whole 1 + lcm(10, 14, 18, 8, 4) = 2521
    # states must be explored, far more than the 1024 between two clock checks
    specs = [ModularSpec(5, 0), ModularSpec(7, 0), ModularSpec(9, 0), ModularSpec(8, 2),
             ModularSpec(4, 0)]
    assert modular_truth(specs) == (4, 1890)
    g = modular_family(specs)
    with pytest.raises(BudgetExceeded, match="budget of") as info:
        max_grundy(g, "A", strategy=strategy, max_seconds=1e-9)
    assert 0 < info.value.explored < 2521
    v = max_grundy(g, "A", strategy=strategy, max_seconds=60)
    assert (v.maximum, v.exact, v.states) == (4, True, 2521)


def test_max_seconds_budget_explicit():
    # 1 + lcm(18, 8, 14, 10, 22) = 27721 states to build; the clock is checked while building
    specs = [ModularSpec(9, 0), ModularSpec(8, 0), ModularSpec(7, 0), ModularSpec(5, 0),
             ModularSpec(11, 1)]
    assert modular_truth(specs) == (5, 2520)
    g = modular_family(specs)
    with pytest.raises(BudgetExceeded, match="budget of") as info:
        max_grundy(g, "A", method="explicit", max_seconds=1e-9)
    assert 0 < info.value.explored < 27721
    v = max_grundy(g, "A", method="explicit", max_seconds=60)
    assert (v.maximum, v.witness, v.states) == (5, "a" * 2520, 27721)


def test_progress_is_called():
    specs = [ModularSpec(5, 0), ModularSpec(7, 0), ModularSpec(9, 0), ModularSpec(8, 2),
             ModularSpec(4, 0)]
    seen: list[int] = []
    max_grundy(modular_family(specs), "A", strategy="bfs", progress=seen.append)
    assert seen and seen == sorted(seen) and seen[-1] <= 2521
    # the lasso reports the positions it walks: Brent's first phase passes the cycle
    walked: list[int] = []
    v = max_grundy(modular_family(specs), "A", progress=walked.append)
    assert v.strategy == "lasso" and walked == sorted(walked) and walked[-1] <= 3 * 2521


# ---------------------------------------------------------------------------
# input errors


def test_input_errors(example3):
    with pytest.raises(InputError):
        max_grundy(example3, "Z")
    with pytest.raises(InputError, match="natural"):
        max_grundy(example3, "A", -1)
    with pytest.raises(InputError, match="right- and left-linear"):
        max_grundy(parse_grammar("S -> a S b | a b"), "S")
    with pytest.raises(InputError, match="method"):
        max_grundy(example3, "A", method="magic")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="strategy"):
        max_grundy(example3, "A", strategy="magic")  # type: ignore[arg-type]
