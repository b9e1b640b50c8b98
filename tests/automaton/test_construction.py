"""The Step 1–5 automaton (SPEC §4) against SPEC's transitions, its tables, and the oracle."""

from __future__ import annotations

import pytest
from automata.fa.dfa import DFA
from golden import EXAMPLE3_REVERSED
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import (
    Definition,
    all_words,
    count_words,
    left_linear_grammars,
    right_linear_grammars,
)

from sdg_automata.automaton.bounds import upper_bounds
from sdg_automata.automaton.construction import GrundyAutomaton, dfa
from sdg_automata.errors import BudgetExceeded, GrammarError, InputError
from sdg_automata.grammar.parse import parse_grammar

#: SPEC §4, "Example 3, first transitions": δ(source, letter) = target
EXAMPLE3_TRANSITIONS = [
    ("{E⁰}", "a", "{A¹, aE⁰}"),
    ("{E⁰}", "b", "{A⁰, B¹}"),
    ("{A¹, aE⁰}", "a", "{A², aA¹}"),
    ("{A¹, aE⁰}", "b", "{A¹, B⁰}"),
    ("{A⁰, B¹}", "a", "{A¹, aA⁰}"),
    ("{A⁰, B¹}", "b", "{A⁰, B¹}"),
    ("{A², aA¹}", "a", "{A⁰, aA²}"),
    ("{A², aA¹}", "b", "{A¹, B⁰}"),
    ("{A¹, B⁰}", "a", "{A⁰, aA¹}"),
    ("{A¹, B⁰}", "b", "{A¹, B⁰}"),
]


def items(label: str) -> frozenset[str]:
    """``"{A¹, aE⁰}"`` → {"A¹", "aE⁰"}: a label as a set, independent of item order."""
    assert label.startswith("{") and label.endswith("}"), label
    return frozenset(s.strip() for s in label[1:-1].split(","))


# ---------------------------------------------------------------------------
# Example 3


@pytest.fixture(scope="module")
def example3_reachable(example3):
    return GrundyAutomaton(example3).explore()


def test_example3_initial_state(example3):
    m = GrundyAutomaton(example3)
    assert m.label(m.initial) == "{E⁰}"
    assert m.label(0) == "∅"
    assert m.bounds == {"A": 4, "B": 2}
    assert m.alphabet == ("a", "b")


def test_example3_spec_transitions(example3, example3_reachable):
    m = example3_reachable.automaton
    assert len(example3_reachable) == 10
    delta = {(items(m.label(example3_reachable.states[s])), a):
             items(m.label(example3_reachable.states[t]))
             for s, a, t in example3_reachable.transitions()}
    assert len(delta) == 20  # 10 states × 2 letters, labels are distinct per state
    for source, letter, target in EXAMPLE3_TRANSITIONS:
        assert delta[items(source), letter] == items(target), (source, letter)
    # and step() itself, from the states as sets of items
    by_label = {items(m.label(q)): q for q in example3_reachable.states}
    for source, letter, target in EXAMPLE3_TRANSITIONS:
        assert items(m.label(m.step(by_label[items(source)], letter))) == items(target)


def test_example3_states_agree_with_the_tables(example3, example3_reachable):
    """Every reachable state says 𝒢_A, 𝒢_B of its shortest word (SPEC §4's theorem)."""
    oracle = Definition(example3.rules)
    m = example3_reachable.automaton
    for s, q in enumerate(example3_reachable.states):
        w = example3_reachable.word_to(s)
        assert m.run(reversed(w)) == q
        present = items(m.label(q)) if q else frozenset()
        for head in ("A", "B"):
            v = oracle(head, w) if w else None
            assert m.grundy_at(q, head) == v
            assert all(not it.startswith(head) or it == f"{head}{_sup(v)}"
                       for it in present), (head, w, present)


def _sup(v: int | None) -> str:
    return "" if v is None else str(v).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


@pytest.mark.parametrize(("head", "bound"), [("A", 4), ("B", 2)])
def test_example3_languages_up_to_4(example3, example3_reachable, head, bound):
    """L(M_{X,i}) ∩ Σ^{≤4} is SPEC §2's list of wᴿ, for every i ≤ m_X."""
    for i in range(bound + 1):
        machine = dfa(example3, head, i, reachable=example3_reachable)
        forward = dfa(example3, head, i, forward=True)
        minimal = dfa(example3, head, i, minimal=True)
        expected = EXAMPLE3_REVERSED[head].get(i, set())
        for w in all_words("ab", 4):
            assert machine.accepts_input(w) == (w in expected), (head, i, w)
            assert minimal.accepts_input(w) == (w in expected), (head, i, w)
            assert forward.accepts_input(w) == (w[::-1] in expected), (head, i, w)


@pytest.mark.parametrize(("head", "i", "empty"),
                         [("A", 0, False), ("A", 1, False), ("A", 2, False), ("A", 3, True),
                          ("A", 4, True), ("B", 0, False), ("B", 1, False), ("B", 2, True)])
def test_example3_emptiness(example3, head, i, empty):
    d = dfa(example3, head, i)  # bound first: cached queries on temporaries crash
    assert d.isempty() is empty
    f = dfa(example3, head, i, forward=True, minimal=True)
    assert f.isempty() is empty


@pytest.mark.parametrize("forward", [False, True])
@pytest.mark.parametrize("minimal", [False, True])
def test_dfas_validate(example3, csub, forward, minimal):
    for g in (example3, csub):
        for head in g.nonterminals:
            for i in range(upper_bounds(g)[head] + 1):
                d = dfa(g, head, i, forward=forward, minimal=minimal)
                d.validate()  # raises on an invalid DFA (built with validation off)
                assert set(d.input_symbols) == set(g.terminals)


def test_example3_spectrum(example3_reachable):
    # SPEC §2: 𝒢_A takes 0, 1, 2; 𝒢_B takes 0, 1.  Shortest witnesses from the
    # tables: 𝒢_A(b) = 0, 𝒢_A(a) = 1, 𝒢_A(aa) = 2; 𝒢_B(b) = 1, 𝒢_B(ba) = 0.
    assert example3_reachable.shortest_witnesses("A") == {0: "b", 1: "a", 2: "aa"}
    spectrum_b = example3_reachable.shortest_witnesses("B")
    assert set(spectrum_b) == {0, 1}
    assert spectrum_b[1] == "b"
    assert len(spectrum_b[0]) == 2 and spectrum_b[0][::-1] in EXAMPLE3_REVERSED["B"][0]


def test_csub_minimal_dfa_is_the_closed_form(csub):
    """The forward M_{A,0} of CSub accepts exactly SPEC §2's P-positions (|w| ≤ 9)."""
    from golden import csub_is_p_position

    d = dfa(csub, "A", 0, forward=True)
    for w in all_words("ab", 9):
        assert d.accepts_input(w) == csub_is_p_position(w), w


def test_budget(example3):
    with pytest.raises(BudgetExceeded) as info:
        GrundyAutomaton(example3).explore(max_states=5)
    assert info.value.explored == 5
    assert len(GrundyAutomaton(example3).explore(max_states=10)) == 10


def test_foreign_letters_and_empty_word(example3):
    m = GrundyAutomaton(example3)
    assert m.step(m.initial, "c") == 0
    assert m.grundy("A", "abc") is None
    assert m.grundy("A", "") is None
    assert GrundyAutomaton(example3).grundy("A", "aab") == 2  # SPEC §2: baa ∈ A_2
    with pytest.raises(GrammarError):
        m.grundy("Z", "a")


def test_refuses_non_right_linear():
    with pytest.raises(InputError, match="mirror"):
        GrundyAutomaton(parse_grammar("A -> A a | a"))
    with pytest.raises(InputError, match="right-linear"):
        GrundyAutomaton(parse_grammar("A -> A A | a"))


def test_end_symbol_does_not_clash():
    g = parse_grammar("E -> a E | a")
    m = GrundyAutomaton(g)
    assert m.end_symbol != "E"
    assert [m.grundy("E", "a" * n) for n in range(1, 5)] == [1, 0, 1, 0]  # one move each


# ---------------------------------------------------------------------------
# random right-linear grammars against the oracle


@settings(max_examples=80, deadline=None)
@given(right_linear_grammars())
def test_automaton_is_the_oracle(g):
    oracle = Definition(g.rules)
    m = GrundyAutomaton(g)
    for w in all_words(g.terminals, 6):
        q = m.run(reversed(w))
        for head in g.nonterminals:
            assert m.grundy_at(q, head) == oracle(head, w), (head, w)


@settings(max_examples=50, deadline=None)
@given(st.data())
def test_forward_minimal_dfa_is_the_oracle(data):
    g = data.draw(right_linear_grammars(max_nonterminals=3))
    oracle = Definition(g.rules)
    reachable = GrundyAutomaton(g).explore(max_states=400)
    assume(len(reachable) <= 200)  # keeps the reversal's subset construction small
    head = data.draw(st.sampled_from(g.nonterminals))
    words = all_words(g.terminals, 6)
    values = {w: oracle(head, w) for w in words}
    for i in range(upper_bounds(g)[head] + 1):
        forward = dfa(g, head, i, forward=True)
        backward = dfa(g, head, i, reachable=reachable)
        for w, v in values.items():
            assert forward.accepts_input(w) == (v == i), (head, i, w)
            assert backward.accepts_input(w[::-1]) == (v == i), (head, i, w)


@settings(max_examples=40, deadline=None)
@given(st.data())
def test_left_linear_dfas(data):
    g = data.draw(left_linear_grammars(max_nonterminals=3))
    oracle = Definition(g.rules)
    assume(len(GrundyAutomaton(g.mirror()).explore(max_states=400)) <= 60)
    head = data.draw(st.sampled_from(g.nonterminals))
    for i in range(upper_bounds(g.mirror())[head] + 1):
        forward = dfa(g, head, i, forward=True)
        backward = dfa(g, head, i)
        for w in all_words(g.terminals, 5 if len(g.terminals) < 3 else 4):
            v = oracle(head, w)
            assert forward.accepts_input(w) == (v == i), (head, i, w)
            assert backward.accepts_input(w[::-1]) == (v == i), (head, i, w)


@settings(max_examples=80, deadline=None)
@given(right_linear_grammars())
def test_spectrum_is_the_set_of_values(g):
    reachable = GrundyAutomaton(g).explore(max_states=2000)
    n = len(reachable)
    # every reachable state is reached by a word of length < n, so words of
    # length ≤ n − 1 see every value the automaton can give
    assume(count_words(len(g.terminals), n - 1) <= 4000)
    oracle = Definition(g.rules)
    words = all_words(g.terminals, max(n - 1, 1))
    for head in g.nonterminals:
        shortest: dict[int, int] = {}
        for w in words:
            v = oracle(head, w)
            if v is not None and v not in shortest:
                shortest[v] = len(w)  # shortlex: the first hit is a shortest one
        spectrum = reachable.shortest_witnesses(head)
        assert set(spectrum) == set(shortest), head
        assert list(spectrum) == sorted(spectrum)
        for v, witness in spectrum.items():
            assert oracle(head, witness) == v
            assert len(witness) == shortest[v], (head, v, witness)
        values = reachable.values(head)
        assert {v for v in values if v is not None} == set(shortest)
        for i in shortest:
            assert reachable.accepting(head, i) == {s for s, v in enumerate(values) if v == i}


@settings(max_examples=60, deadline=None)
@given(right_linear_grammars())
def test_reachable_tables_are_the_step_function(g):
    m = GrundyAutomaton(g)
    reachable = m.explore(max_states=2000)
    states = reachable.states
    assert states[0] == m.initial
    assert len(set(states)) == len(states)
    for s, a, t in reachable.transitions():
        assert m.step(states[s], a) == states[t]
    for s in range(len(states)):
        w = reachable.word_to(s)
        assert m.run(reversed(w)) == states[s]
        assert len(w) < len(states)


def test_dfas_handed_out_are_immutable(example3):
    """Should give automata-lib's promise: a DFA's transitions cannot be changed in place."""
    machine = dfa(example3, "A", 0)
    other = dfa(example3, "A", 1)
    with pytest.raises(TypeError):
        machine.transitions[0]["a"] = 0  # type: ignore[index]
    with pytest.raises(TypeError):
        machine.transitions[0] = {}  # type: ignore[index]
    machine.validate()
    assert machine != other  # sharing one frozen mapping does not merge the languages


def test_minimal_and_forward_dfas_print_the_same_in_every_run(examples_dir):
    """Should number states canonically, whatever Python's string-hash seed."""
    import os
    import subprocess
    import sys

    outputs = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        done = [subprocess.run([sys.executable, "-m", "sdg_automata", "dfa",
                                str(examples_dir / "example3.txt"), "A", "0", *extra],
                               capture_output=True, text=True, env=env, check=True).stdout
                for extra in (["--forward"], ["--minimal", "--format", "json"])]
        outputs.add(tuple(done))
    assert len(outputs) == 1


# ---------------------------------------------------------------------------
# the read-only view of Steps 3–4


def _delta_from_view(m: GrundyAutomaton, q: int, a: str) -> int:
    """δ(q, a) recomputed from ``m.tables`` alone, as a new strategy would (SPEC §4)."""
    view = m.tables
    table = view.letters.get(a)
    if table is None:
        return 0
    out, sets = 0, [0] * len(view.nonterminals)
    for k in range(q.bit_length()):
        if q >> k & 1 and table.relevant >> k & 1:
            out |= table.shift[k]
            for h, mask in table.contributions[k]:
                sets[h] |= mask
    value: dict[int, int] = {}
    planned = {h for h, _ in view.unit_plan}
    for h, j in enumerate(sets):
        if j and h not in planned:
            value[h] = next(v for v in range(64) if not j >> v & 1)
    for h, units in view.unit_plan:
        j = sets[h]
        for c in units:
            if c in value:
                j |= 1 << value[c]
        if j:
            value[h] = next(v for v in range(64) if not j >> v & 1)
    for h, v in value.items():
        assert v <= view.bound[h]
        out |= 1 << (view.base[h] + v)
    return out


@settings(max_examples=60, deadline=None)
@given(right_linear_grammars())
def test_the_tables_view_is_the_transition_relation(g):
    """Should let δ be recomputed from the public view, equal to step on every reachable edge."""
    m = GrundyAutomaton(g)
    view = m.tables
    assert view.items == m.items and set(view.letters) == set(g.terminals)
    with pytest.raises(TypeError):
        view.letters["z"] = view.letters[g.terminals[0]]  # type: ignore[index]
    reachable = m.explore(max_states=500)
    for s, a, _ in reachable.transitions():
        q = reachable.states[s]
        assert _delta_from_view(m, q, a) == m.step(q, a)
    assert _delta_from_view(m, m.initial, "#") == m.step(m.initial, "#") == 0


def test_a_broken_bound_is_a_bug_not_an_answer(example3):
    """Should raise SdgBug when a value would exceed m_A (SPEC §3), never answer."""
    from sdg_automata.errors import SdgBug

    m = GrundyAutomaton(example3)
    m._bound_of = [0] * len(m._bound_of)  # corrupt the bounds: the check must fire
    with pytest.raises(SdgBug, match="exceeds the bound"):
        m.run("aa")


# ---------------------------------------------------------------------------
# the reversed DFA: our subset construction against automata-lib's


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_reversed_dfa_is_automata_libs_reversal(data):
    """Should equal automata-lib's reversal + determinization, and be minimal (Brzozowski)."""
    from automata.fa.dfa import DFA
    from automata.fa.nfa import NFA

    g = data.draw(st.one_of(right_linear_grammars(max_nonterminals=3),
                            left_linear_grammars(max_nonterminals=3)))
    head = data.draw(st.sampled_from(g.nonterminals))
    reachable = (GrundyAutomaton(g) if g.is_right_linear else
                 GrundyAutomaton(g.mirror())).explore(max_states=300)
    assume(len(reachable) <= 120)
    for i in range(upper_bounds(g if g.is_right_linear else g.mirror())[head] + 1):
        machine = reachable.to_dfa(reachable.accepting(head, i))
        theirs = DFA.from_nfa(NFA.from_dfa(machine).reverse())
        ours = dfa(g, head, i, forward=g.is_right_linear)  # the side that needs a reversal
        assert ours == theirs, (head, i)
        assert len(ours.states) == len(theirs.minify().states), (head, i)  # minimal already
        ours.validate()


def _minimal_partial_size(d) -> int:  # noqa: ANN001 - an automata-lib DFA
    """States of the minimal DFA of L(d) without its dead state, by automata-lib's minify."""
    m = d.to_complete().minify()
    dead = [s for s in m.states if s not in m.final_states
            and all(t == s for t in m.transitions[s].values())]
    return len(m.states) - (1 if dead and len(m.states) > 1 else 0)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_forward_dfas_are_minimal_both_ways(data):
    """Should give the minimal (partial) DFA of {w : 𝒢(A, w) = i} for right- and left-linear
    grammars alike, as the help says (issue 21 §12: the left-linear route was the
    reachable automaton itself, 3 states for 2 and 94 for 1), and a minimal M_{A,i}."""
    from automata.fa.nfa import NFA

    g = data.draw(st.one_of(right_linear_grammars(max_nonterminals=3),
                            left_linear_grammars(max_nonterminals=3)))
    head = data.draw(st.sampled_from(g.nonterminals))
    served = g if g.is_right_linear else g.mirror()
    reachable = GrundyAutomaton(served).explore(max_states=300)
    assume(len(reachable) <= 120)
    for i in range(upper_bounds(served)[head] + 2):  # one class past the bound: empty
        own = reachable.to_dfa(reachable.accepting(head, i))  # reads wᴿ, or w for a mirror
        other = DFA.from_nfa(NFA.from_dfa(own).reverse())  # automata-lib's reversal
        words, reverses = (other, own) if g.is_right_linear else (own, other)
        forward = dfa(g, head, i, forward=True)
        assert forward == words, (head, i)  # the language of w, by automata-lib
        assert len(forward.states) == _minimal_partial_size(words), (head, i)
        backward = dfa(g, head, i, minimal=True)  # the paper's M_{A,i}, minimized
        least = (_minimal_partial_size(reverses) if backward.allow_partial
                 else len(reverses.to_complete().minify().states))  # complete: dead state kept
        assert backward == reverses and len(backward.states) == least, (head, i)


def test_left_linear_forward_dfa_of_the_report() -> None:
    """Should give 2 states for class 1 of N0 -> N0 a | a (3 before), 1 for an empty class."""
    g = parse_grammar("N0 -> N0 a | a")
    assert len(dfa(g, "N0", 1, forward=True).states) == 2
    empty = dfa(g, "N0", 7, forward=True)
    assert len(empty.states) == 1 and not empty.final_states


#: issue 15: a 125-state automaton whose forward DFA has more than 175,000 states
ISSUE15 = """Y -> a Y | b B | b b C
C -> a a D | b C
S -> B | b c | c a | c b
D -> B | a S | c | c S
B -> a C | a c | b Y | c S"""


def test_the_subset_construction_obeys_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should stop at the state budget, and at the clock, while building the subsets (the
    clock one that moves with the meter's readings: a count of checks, not seconds of a
    loaded machine; issue 34 §7)."""
    from workclock import work_clock

    from sdg_automata.runtime.budget import MAX_STRIDE, Budget

    g = parse_grammar(ISSUE15)
    assert len(GrundyAutomaton(g).explore()) == 125
    with pytest.raises(BudgetExceeded, match="subset construction stopped at the budget of "
                                             "300 states") as info:
        dfa(g, "Y", 0, forward=True, minimal=True, budget=Budget(max_states=300))
    assert info.value.explored == 300
    clock = work_clock(monkeypatch, step=0.01)
    with pytest.raises(BudgetExceeded, match="budget of 0.3 s") as info:
        dfa(g, "Y", 0, forward=True, budget=Budget(max_seconds=0.3))
    # about 30 readings of the clock, each after at most MAX_STRIDE states (175,000 unchecked)
    assert clock.readings <= 60 and info.value.explored <= 60 * MAX_STRIDE


# ---------------------------------------------------------------------------
# the memo of step() (issue 11 §1) against step_reference, today's computation


def _every_step_is_the_reference(g, *, max_states=3000):
    """Walk the reachable part with a memoized automaton; compare every δ(q, a) with the
    reference of a separate automaton (no shared memo).  Returns the memoized automaton."""
    m = GrundyAutomaton(g)
    reference = GrundyAutomaton(g, memo_limit=0)
    seen = {m.initial}
    queue = [m.initial]
    for q in queue:  # breadth-first: early steps miss, later ones hit
        for a in m.alphabet:
            nq = m.step(q, a)
            assert nq == reference.step_reference(q, a), (m.label(q), a)
            if nq not in seen and len(seen) < max_states:
                seen.add(nq)
                queue.append(nq)
    for q in queue:  # a second pass: every step now answered from the memo
        for a in m.alphabet:
            assert m.step(q, a) == reference.step(q, a)
    fresh = GrundyAutomaton(g)  # the compiled follow, learning as it goes
    for q in queue:
        assert [fresh.follow(q, a) for a in m.alphabet] == [
            reference.step_reference(q, a) for a in m.alphabet]
        assert fresh.follow(q, "#") == 0  # outside Σ: ∅
    return m


def test_memo_spec_examples_keep_the_reference(example3, csub):
    """Should take the reference route where one group holds every nonterminal."""
    for g in (example3, csub):
        m = _every_step_is_the_reference(g)
        assert m.memo_sizes() == {}  # A and B read each other: one group, nothing to memoize
    # the SPEC §4 table through both routes
    m, ref = GrundyAutomaton(example3), GrundyAutomaton(example3, memo_limit=0)
    by_label = {items(m.label(q)): q for q in m.explore().states}
    for source, letter, target in EXAMPLE3_TRANSITIONS:
        q = by_label[items(source)]
        assert items(m.label(m.step(q, letter))) == items(target)
        assert items(m.label(ref.step_reference(q, letter))) == items(target)


@pytest.mark.parametrize("specs", [["3:0", "5:2", "7:3"], ["16:0", "9:6", "5:0", "3:1"],
                                   ["3:0", "5:2", "7:3", "11:5"]])
def test_memo_hardness_modular(specs):
    """Should give the reference's transitions on SPEC §5's family, one memo group per DFA
    (its V chain folded in) and one for A, and the CRT's maximum."""
    from sdg_automata.generators.families import ModularSpec, modular_family, modular_truth

    parsed = [ModularSpec.parse(s) for s in specs]
    g = modular_family(parsed)
    m = _every_step_is_the_reference(g, max_states=10**6)
    sizes = m.memo_sizes()
    assert list(sizes) == ["a"] and len(sizes["a"]) == len(specs) + 1
    assert all(sizes["a"])
    reachable = m.explore()
    assert reachable.states == GrundyAutomaton(g, memo_limit=0).explore().states
    values = {v for v in reachable.values("A") if v is not None}
    assert max(values) == modular_truth(parsed)[0]


@pytest.mark.parametrize("seed", [0, 7])
def test_memo_hardness_random(seed):
    """Should give the reference's transitions on random DFAs (binary) and automata-lib's
    answer for the maximum."""
    from sdg_automata.generators.families import intersection_grammar, product_truth, random_family

    dfas = random_family(3, 5, seed=seed)
    g = intersection_grammar(dfas)
    m = _every_step_is_the_reference(g, max_states=10**6)
    assert sum(map(sum, m.memo_sizes().values())) > 0
    values = {v for v in m.explore().values("A") if v is not None}
    assert max(values) == product_truth(dfas)[0]


@st.composite
def _grammars_in_groups(draw):
    """Two or three random right-linear grammars side by side (renamed apart), tied
    by unit rules: a top unit rule into each part and random unit rules between parts,
    kept acyclic by only pointing to a later part."""
    from sdg_automata.grammar import Grammar, Rule

    parts = draw(st.lists(right_linear_grammars(max_nonterminals=3), min_size=2, max_size=3))
    rules, sigma = [], set()
    for p, g in enumerate(parts):
        def name(s, p=p, g=g):
            return f"{s}{p}" if s in g.nonterminals else s
        rules += [Rule(name(r.head), tuple(map(name, r.body))) for r in g.rules]
        sigma |= set(g.terminals)
        rules.append(Rule("S", (name(g.start),)))
        if p + 1 < len(parts) and draw(st.booleans()):
            later = parts[p + 1]
            target = f"{draw(st.sampled_from(later.nonterminals))}{p + 1}"
            rules.append(Rule(f"{draw(st.sampled_from(g.nonterminals))}{p}", (target,)))
    return Grammar(rules=rules, start="S", terminals=sorted(sigma))


@settings(max_examples=60, deadline=None)
@given(right_linear_grammars())
def test_memo_random_grammars(g):
    _every_step_is_the_reference(g, max_states=1500)


@settings(max_examples=60, deadline=None)
@given(_grammars_in_groups())
def test_memo_random_grammars_in_groups(g):
    """Should agree with the reference where the memo has several groups, some of them
    waiting for others through unit rules."""
    _every_step_is_the_reference(g, max_states=1500)


def test_memo_unit_waits_on_a_cycle_merge_groups():
    """Should merge groups that wait for each other (A2 → B and B2 → A), keep the
    independent C apart, and still give the reference."""
    g = parse_grammar("S -> A | C\nA -> a A2\nA2 -> B | a\nB -> b B2\nB2 -> A | b\n"
                      "C -> a C | c")
    m = _every_step_is_the_reference(g)
    from sdg_automata.automaton.groups import _groups

    letter_rules = [(r.head, "".join(r.body[:-1]), r.body[-1]) for r in g.rules
                    if not g.is_unit(r) and g.is_nonterminal(r.body[-1])]
    groups = [set(x) for x in _groups(g, letter_rules, m.end_symbol)]
    assert {"A", "A2", "B", "B2"} in groups and {"C"} in groups
    assert groups.index({"S"}) == len(groups) - 1  # S waits for both: last
    assert sum(map(len, m.memo_sizes().values())) > 0


def test_the_groups_do_not_follow_the_string_hashing():
    """The groups' order (the state vectors' layout, and so a store's keys and table)
    is the same in processes with different hash seeds: it followed the order of a set
    of nonterminals."""
    import os
    import subprocess
    import sys

    code = ("from sdg_automata.generators.families import intersection_grammar, random_family\n"
            "from sdg_automata.automaton.construction import GrundyAutomaton\n"
            "g = intersection_grammar(random_family(4, 6, seed=3))\n"
            "print(GrundyAutomaton(g).layout.owned)")
    seen = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True, env={**os.environ, "PYTHONHASHSEED": str(seed)}).stdout
            for seed in range(6)}
    assert len(seen) == 1, seen


def test_memo_limit():
    """Should drop the memo past its limit (and keep answering), refuse a negative limit."""
    from sdg_automata.generators.families import ModularSpec, modular_family

    g = modular_family([ModularSpec.parse(s) for s in ("3:0", "5:2", "7:3")])
    full = GrundyAutomaton(g, memo_limit=0).explore().states
    small = GrundyAutomaton(g, memo_limit=20)
    assert small.explore().states == full
    assert small.memo_sizes() == {}  # dropped: more than 20 entries were needed
    roomy = GrundyAutomaton(g)
    assert roomy.explore().states == full
    assert 20 < sum(roomy.memo_sizes()["a"]) <= roomy.memo_limit
    assert GrundyAutomaton(g, memo_limit=0).memo_sizes() == {}
    with pytest.raises(InputError, match="memo_limit"):
        GrundyAutomaton(g, memo_limit=-1)


def test_memo_checks_itself():
    """Should raise SdgBug when a part learned before disagrees with a new computation."""
    from sdg_automata.errors import SdgBug
    from sdg_automata.generators.families import ModularSpec, modular_family

    g = modular_family([ModularSpec.parse(s) for s in ("3:0", "5:2")])
    m = GrundyAutomaton(g)
    states = m.explore().states
    plan = m._plans["a"]
    plan.groups[-1].memo.clear()  # the next step misses in the last group only ...
    true_step = m.step_reference
    first = plan.groups[0].owned & -plan.groups[0].owned
    m.step_reference = lambda q, a: true_step(q, a) ^ first  # ... and learns a wrong part
    with pytest.raises(SdgBug, match="two parts"):
        for q in states:
            m.step(q, "a")
