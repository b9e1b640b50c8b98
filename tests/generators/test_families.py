"""The PSPACE-hardness family of SPEC §5 and the other instance families.

Ground truths, independent of the Grundy automaton:

* the Chinese remainder theorem for the unary modular DFAs, re-derived here by
  plain arithmetic on n (:func:`crt_value`), and brute force for
  :func:`smallest_common_solution`;
* automata-lib's ``accepts_input`` and products for random binary DFAs;
* the classic subtraction-game recurrence when 1 ∈ S (SPEC §7).

Reachable-state counts of the modular family, derived (not copied from a table of
cases: one such table had "(4,1),(6,2) → max 1", which is wrong): the grammar has
only rules s → a s′ and s → a, so Step 2's Γ_N is empty and the state after
reading aⁿ (n ≥ 1) is the set of items s^{n mod 2} of the DFA states s with
aⁿ ∈ L(s), plus the chain and top items that are functions of those.  A DFA
with a solvable congruence has one final residue f mod mᵢ = lcm(2, pᵢ), all its
states are live, and s_k is in the state iff n ≡ f − k (mod mᵢ): the state
determines n mod mᵢ and is determined by it.  A DFA without an even solution
contributes no rules.  So the reachable part is q₀ = {E⁰} plus one state per
residue of n modulo L = lcm of the mᵢ of the solvable specs: 1 + L states.
"""

from __future__ import annotations

from math import lcm

import pytest
from automata.fa.dfa import DFA
from hypothesis import event, given, settings
from hypothesis import strategies as st
from strategies import all_words

from sdg_automata.automaton.construction import GrundyAutomaton
from sdg_automata.derivation.semantics import evaluator, grundy
from sdg_automata.errors import InputError
from sdg_automata.generators.families import (
    ModularSpec,
    intersection_grammar,
    modular_dfa,
    modular_family,
    modular_truth,
    product_truth,
    random_family,
    smallest_common_solution,
    subtraction_grammar,
)
from sdg_automata.search.decide import max_grundy

# ---------------------------------------------------------------------------
# arithmetic ground truth for the modular family


def in_language(spec: tuple[int, int], n: int) -> bool:
    """aⁿ ∈ L(Dᵢ): n even and n ≡ r (mod p)."""
    p, r = spec
    return n % 2 == 0 and n % p == r


def crt_value(specs: list[tuple[int, int]], n: int) -> int | None:
    """𝒢(A, aⁿ) = mex{t − 1 : aⁿ ∈ L(D_t)} (SPEC §5), or None when no D_t accepts aⁿ."""
    inside = {t for t, s in enumerate(specs) if in_language(s, n)}  # t − 1, 0-based
    if not inside:
        return None
    m = 0
    while m in inside:
        m += 1
    return m


def period(specs: list[tuple[int, int]]) -> int:
    return lcm(*(lcm(2, p) for p, _ in specs))


def solvable(spec: tuple[int, int]) -> bool:
    p, r = spec
    return any(in_language(spec, n) for n in range(1, 2 * p + 1))


specs_strategy = st.lists(
    st.integers(1, 9).flatmap(lambda p: st.tuples(st.just(p), st.integers(0, p - 1))),
    min_size=1, max_size=4)


def to_specs(raw: list[tuple[int, int]]) -> list[ModularSpec]:
    return [ModularSpec(p, r) for p, r in raw]


# ---------------------------------------------------------------------------
# modular family: decisions against the CRT


@settings(max_examples=80, deadline=None)
@given(specs_strategy, st.data())
def test_modular_family_against_crt(raw, data):
    specs = to_specs(raw)
    truth, length = modular_truth(specs)
    # an arithmetic check of modular_truth itself, over one full period (and one more,
    # so that every value's first occurrence is seen)
    values = {n: crt_value(raw, n) for n in range(1, 2 * period(raw) + 1)}
    occurring = {v for v in values.values() if v is not None}
    if not occurring:
        assert (truth, length) == (None, None)
        with pytest.raises(InputError, match="no non-empty word"):
            modular_family(specs)
        return
    assert truth == max(occurring)
    event(f"max {truth} of {len(raw)}")
    if truth > 0:
        assert length == min(n for n, v in values.items() if v == truth)
    else:
        assert length is None
    g = modular_family(specs)
    first = {}
    for n, v in sorted(values.items()):
        if v is not None:
            first.setdefault(v, n)
    # every route, with and without a question, agrees
    for method, strategy in [("onthefly", "bfs"), ("onthefly", "dfs"), ("explicit", "bfs")]:
        v = max_grundy(g, "A", method=method, strategy=strategy)
        assert v.maximum == truth and v.exact
        for value, w in v.witnesses.items():
            assert set(w) == {"a"} and values[len(w)] == value
        if strategy == "bfs":
            # shortest witnesses; for the maximum > 0 that is the CRT's smallest solution
            assert {value: len(w) for value, w in v.witnesses.items()} == \
                {value: first[value] for value in v.witnesses}
            if truth > 0:
                assert v.witness == "a" * length
    k = data.draw(st.integers(0, len(raw) + 1), label="k")
    method = data.draw(st.sampled_from(["onthefly", "explicit"]), label="method")
    yes = max_grundy(g, "A", truth, method=method)
    assert yes.answer is True
    no = max_grundy(g, "A", k, method=method)
    assert no.answer is (k == truth)
    event("yes" if k == truth else "no")


@settings(max_examples=60, deadline=None)
@given(specs_strategy)
def test_modular_reachable_states(raw):
    live = [s for s in raw if solvable(s)]
    if not live:
        return
    g = modular_family(to_specs(raw))
    assert len(GrundyAutomaton(g).explore()) == 1 + period(live)


@pytest.mark.parametrize(("raw", "states", "maximum", "length"), [
    # counts derived as 1 + lcm(lcm(2, p) : solvable)
    ([(3, 0), (5, 2)], 1 + 30, 2, 12),               # 12 ≡ 0 (3), ≡ 2 (5), even
    ([(3, 1), (3, 2)], 1 + 6, 1, 4),                 # 1 and 2 mod 3 exclude each other
    ([(3, 0), (5, 1), (7, 3)], 1 + 210, 3, 66),      # 66 ≡ 0 (3), 1 (5), 3 (7)
    # 4:1 needs n odd: D₁ is empty, so 𝒢 = mex{1} = 0 on L(D₂) and the maximum is 0
    # (the notes' "max 1" is wrong); D₁ contributes no states: 1 + lcm(2, 6)
    ([(4, 1), (6, 2)], 1 + 6, 0, None),
    ([(4, 0), (6, 2)], 1 + 12, 2, 8),                # 8 ≡ 0 (4), ≡ 2 (6)
])
def test_reference_instances(raw, states, maximum, length):
    specs = to_specs(raw)
    assert modular_truth(specs) == (maximum, length)
    g = modular_family(specs)
    assert len(GrundyAutomaton(g).explore()) == states
    for method in ("onthefly", "explicit"):
        v = max_grundy(g, "A", method=method)
        assert v.maximum == maximum
        if length is not None:
            assert v.witness == "a" * length
    assert max_grundy(g, "A", method="explicit").states == states


def test_modular_spec_parse():
    assert ModularSpec.parse("5:2") == ModularSpec(5, 2)
    assert ModularSpec.parse(" 7 : 3 ") == ModularSpec(7, 3)
    for bad in ("3:x", "3", "", ":1", "3:1:2", "a:b"):
        with pytest.raises(InputError, match="is not MODULUS:RESIDUE"):
            ModularSpec.parse(bad)
    # well-formed but out of range: the precise reason, not the generic one
    with pytest.raises(InputError, match="modulus 0 must be at least 1"):
        ModularSpec.parse("0:0")
    with pytest.raises(InputError, match=r"residue 5 must be in 0\.\.2"):
        ModularSpec.parse("3:5")
    with pytest.raises(InputError, match="residue -1"):
        ModularSpec.parse("3:-1")


def test_modular_dfa():
    d = modular_dfa(ModularSpec(3, 0))
    assert len(d.states) == 6
    assert [n for n in range(20) if d.accepts_input("a" * n)] == [0, 6, 12, 18]
    assert not modular_dfa(ModularSpec(2, 1)).final_states


# ---------------------------------------------------------------------------
# the generalized CRT against brute force

congruences = st.lists(
    st.integers(1, 12).flatmap(lambda p: st.tuples(st.just(p), st.integers(0, 2 * p - 1))),
    max_size=4)


@settings(max_examples=300, deadline=None)
@given(congruences)
def test_smallest_common_solution(cs):
    bound = lcm(*(p for p, _ in cs)) if cs else 1
    brute = next((n for n in range(1, bound + 1) if all((n - r) % p == 0 for p, r in cs)), None)
    assert smallest_common_solution(cs) == brute


def test_smallest_common_solution_examples():
    assert smallest_common_solution([]) == 1
    assert smallest_common_solution([(2, 0), (3, 0), (5, 1), (7, 3)]) == 66
    assert smallest_common_solution([(4, 1), (2, 0)]) is None
    assert smallest_common_solution([(4, 0)]) == 4  # n ≥ 1: 0 does not count
    assert smallest_common_solution([(6, 2), (4, 0)]) == 8


# ---------------------------------------------------------------------------
# random binary families against automata-lib


@pytest.mark.parametrize("seed", range(40))
def test_random_family_against_products(seed):
    count, size = 1 + seed % 4, 2 + seed % 5
    dfas = random_family(count, size, seed=seed)
    truth, length = product_truth(dfas)
    if truth is None:
        with pytest.raises(InputError):
            intersection_grammar(dfas)
        return
    g = intersection_grammar(dfas)
    for method, strategy in [("onthefly", "bfs"), ("onthefly", "dfs"), ("explicit", "bfs")]:
        v = max_grundy(g, "A", method=method, strategy=strategy)
        assert v.maximum == truth, (method, strategy)
        w = v.witness
        assert w and all(d.accepts_input(w) for d in dfas[:truth])
        if truth < count:
            assert not dfas[truth].accepts_input(w)
        assert grundy(g, "A", w, method="brute") == truth
        assert max_grundy(g, "A", truth, method=method, strategy=strategy).answer is True
        if strategy == "bfs":  # shortest witnesses: the length product_truth computes
            assert len(w) == length if truth else length is None


@pytest.mark.parametrize("seed", range(6))
def test_grundy_is_mex_of_memberships(seed):
    # 𝒢(A, w) = mex{t − 1 : w ∈ L(D_t)}, word by word, for every word up to length 8
    dfas = random_family(3, 3 + seed % 3, seed=100 + seed)
    g = intersection_grammar(dfas)
    by_dfa, by_dp = evaluator(g, method="dfa"), evaluator(g, method="brute")
    checked = 0
    for w in all_words("ab", 8):
        inside = {t for t, d in enumerate(dfas) if d.accepts_input(w)}
        expected = None
        if inside:
            expected = 0
            while expected in inside:
                expected += 1
        assert by_dfa("A", w) == expected, w
        assert by_dp("A", w) == expected, w
        checked += expected is not None
    assert checked > 0


def test_embedding_values_are_length_parity():
    # SPEC §5: every (s, w) has exactly one move, so 𝒢(s, w) = |w| mod 2 = 0 on L(Dᵢ)
    dfas = random_family(2, 4, seed=7)
    g = intersection_grammar(dfas)
    value = evaluator(g, method="brute")
    embedded = [a for a in g.nonterminals if a.startswith("D")]
    assert embedded
    for w in all_words("ab", 6):
        for s in embedded:
            assert value(s, w) in (None, len(w) % 2)


def test_intersection_grammar_rejects_odd_lengths():
    odd = DFA(states={0, 1}, input_symbols={"a"}, transitions={0: {"a": 1}, 1: {"a": 0}},
              initial_state=0, final_states={1})
    with pytest.raises(InputError, match="odd length"):
        intersection_grammar([odd])
    # one odd word among even ones is enough to refuse, in any position of the list
    mixed = DFA(states={0, 1, 2, 3}, input_symbols={"a"},
                transitions={0: {"a": 1}, 1: {"a": 2}, 2: {"a": 3}, 3: {"a": 3}},
                initial_state=0, final_states={2, 3})
    with pytest.raises(InputError, match="DFA 2 accepts words of odd length"):
        intersection_grammar([modular_dfa(ModularSpec(3, 0)), mixed])


def test_intersection_grammar_needs_a_nonempty_word():
    only_epsilon = DFA(states={0, 1}, input_symbols={"a"}, transitions={0: {"a": 1}, 1: {"a": 1}},
                       initial_state=0, final_states={0})
    with pytest.raises(InputError, match="no non-empty word"):
        intersection_grammar([only_epsilon])
    assert product_truth([only_epsilon]) == (None, None)  # (max, length), as modular_truth


def test_random_family_inputs():
    dfas = random_family(3, 4, seed=1)
    assert len(dfas) == 3
    assert all(not d.accepts_input(w) for d in dfas for w in all_words("ab", 5) if len(w) % 2)
    assert [d.transitions for d in random_family(3, 4, seed=1)] == [d.transitions for d in dfas]
    for count, states in ((0, 3), (2, 0)):
        with pytest.raises(InputError):
            random_family(count, states, seed=0)


# ---------------------------------------------------------------------------
# subtraction games (SPEC §7)


def classic(subtraction: list[int], n: int) -> list[int]:
    g = [0] * (n + 1)
    for m in range(1, n + 1):
        options = {g[m - k] for k in subtraction if k <= m}
        v = 0
        while v in options:
            v += 1
        g[m] = v
    return g


@pytest.mark.parametrize("subtraction", [[1], [1, 2], [1, 3, 4], [1, 4], [1, 2, 5]])
def test_subtraction_with_one_is_classic(subtraction):
    g = subtraction_grammar(subtraction)
    value = evaluator(g, method="dfa")
    expected = classic(subtraction, 30)
    assert [value("A", "a" * n) for n in range(1, 31)] == expected[1:]


def test_subtraction_without_one():
    # SPEC §7: S = {2, 3} gives ⊥, 1, 1, 0, 0, 2, 1, 1, 0, 0, 2 for n = 1…11
    value = evaluator(subtraction_grammar([2, 3]), method="dfa")
    assert [value("A", "a" * n) for n in range(1, 12)] == [None, 1, 1, 0, 0, 2, 1, 1, 0, 0, 2]
    assert classic([2, 3], 4)[4] == 2  # where the classic game differs


def test_subtraction_inputs():
    assert subtraction_grammar([3, 1, 3]) == subtraction_grammar([1, 3])
    for bad in ([], [0, 1], [-2]):
        with pytest.raises(InputError):
            subtraction_grammar(bad)


@settings(max_examples=60, deadline=None)
@given(states=st.integers(1, 9), seed=st.integers(0, 10**6), density=st.floats(0.3, 1.0))
def test_productive_states_are_those_a_nonempty_word_leads_to_acceptance(
        states: int, seed: int, density: float) -> None:
    """Should keep exactly the states from which some non-empty word reaches a final state,
    as a forward search from each state finds them, on random partial DFAs."""
    import random

    from sdg_automata.generators.families import _productive

    rng = random.Random(seed)
    transitions = {s: {c: rng.randrange(states) for c in "ab" if rng.random() < density}
                   for s in range(states)}
    final = {s for s in range(states) if rng.random() < 0.3}
    d = DFA(states=set(range(states)), input_symbols={"a", "b"}, transitions=transitions,
            initial_state=0, final_states=final, allow_partial=True)

    def leads(s: int) -> bool:  # forward: one letter at least, then any path to a final
        seen, todo = set(), list(transitions[s].values())
        while todo:
            t = todo.pop()
            if t in final:
                return True
            if t not in seen:
                seen.add(t)
                todo.extend(transitions[t].values())
        return False

    assert _productive(d) == {s for s in range(states) if leads(s)}
