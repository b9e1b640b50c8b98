"""Counting Grundy classes (sdg_automata.automaton.counting) against brute-force enumeration.

Every count is checked against the words themselves: all words up to length
12 are enumerated and evaluated by the exact dynamic program of
:mod:`sdg_automata.derivation.semantics` (spot-checked against the definition), the role
sympy's ``testutil`` brute-force implementations play for their fast
counterparts.  Generating functions are checked coefficient by coefficient and,
for Example 3, against sympy's own transfer-matrix inverse e₀ᵀ(I − xM)⁻¹f.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import product

import pytest
from golden import csub, example3  # noqa: E402

from sdg_automata.automaton import counting, transfer
from sdg_automata.automaton.counting import (
    ClassMachine,
    count,
    count_sequence,
    density,
    generating_function,
)
from sdg_automata.automaton.series import Density, berlekamp_massey
from sdg_automata.automaton.transfer import COUNTERS, TransferTable, plan
from sdg_automata.derivation.semantics import grundy, naive_grundy
from sdg_automata.errors import BudgetExceeded, InputError, SdgBug
from sdg_automata.generators.families import subtraction_grammar
from sdg_automata.grammar import Grammar, Rule
from sdg_automata.grammar.parse import parse_grammar
from sdg_automata.runtime.budget import Budget

#: |{w ∈ {a,b}ⁿ : 𝒢(A, w) = c}| for Example 3, n = 0…12, by enumeration (computed once
#: with semantics.grundy over all 8 190 words, and spot-checked with the definition)
EXAMPLE3_COUNTS_A = {
    0: [0, 1, 1, 3, 7, 13, 25, 51, 103, 205, 409, 819, 1639],
    1: [0, 1, 2, 4, 7, 14, 30, 59, 116, 234, 469, 936, 1872],
    2: [0, 0, 1, 1, 2, 5, 9, 18, 37, 73, 146, 293, 585],
}


def brute_counts(g: Grammar, head: str, max_length: int) -> list[Counter[int | None]]:
    """Counter of 𝒢(A, w) over all w of each length 0…max_length, by enumeration."""
    out: list[Counter[int | None]] = [Counter({None: 1})]  # ε is never a position
    letters = sorted(g.terminals)
    out += [Counter(grundy(g, head, "".join(t), method="brute") for t in product(letters, repeat=n))
            for n in range(1, max_length + 1)]
    return out


def random_linear_grammar(rnd: random.Random, *, left: bool = False) -> Grammar:
    """A random right-linear (or left-linear) grammar: A → x | xB | B, acyclic units."""
    names = rnd.sample("ABCD", rnd.randint(1, 3))
    sigma = "ab"[: rnd.randint(1, 2)]
    rules = []
    for i, head in enumerate(names):
        for _ in range(rnd.randint(1, 4)):
            x = tuple(rnd.choice(sigma) for _ in range(rnd.randint(1, 3)))
            if rnd.random() < 0.6:
                tail = rnd.choice(names)
                rules.append(Rule(head, (tail, *x) if left else (*x, tail)))
            else:
                rules.append(Rule(head, x))
        if i + 1 < len(names) and rnd.random() < 0.4:
            rules.append(Rule(head, (rnd.choice(names[i + 1:]),)))
    return Grammar(rules=rules, start=names[0], terminals=sigma)


# ---------------------------------------------------------------------------
# counts


def test_example3_length_10_is_409_by_brute_force() -> None:
    words = ["".join(t) for t in product("ab", repeat=10)]
    by_dp = Counter(grundy(example3(), "A", w, method="brute") for w in words)
    assert by_dp[0] == 409
    # the definition itself agrees on a sample of those words
    rnd = random.Random(3)
    for w in rnd.sample(words, 40):
        assert naive_grundy(example3(), "A", w) == grundy(example3(), "A", w, method="brute")
    assert count(example3(), "A", 0, 10) == 409


def test_example3_golden_table_matches_enumeration() -> None:
    brute = brute_counts(example3(), "A", 12)
    machine = ClassMachine.build(example3(), "A")
    for value, expected in EXAMPLE3_COUNTS_A.items():
        assert [c[value] for c in brute] == expected
        assert machine.sequence(value, 12) == expected


@pytest.mark.parametrize("name", ["example3", "csub"])
def test_counts_agree_with_enumeration_up_to_12(name: str) -> None:
    g = example3() if name == "example3" else csub()
    for head in g.nonterminals:
        brute = brute_counts(g, head, 12)
        machine = ClassMachine.build(g, head)
        for value in {v for c in brute for v in c} | {0, 1, 2, 3, 4}:
            assert machine.sequence(value, 12) == [c[value] for c in brute], (head, value)
        for n in (0, 5, 12):
            assert machine.counts(n) == {v: k for v, k in brute[n].items() if k}


@pytest.mark.parametrize("seed", range(12))
def test_counts_agree_with_enumeration_on_random_grammars(seed: int) -> None:
    rnd = random.Random(seed)
    g = random_linear_grammar(rnd, left=seed % 4 == 3)
    max_length = 12 if len(g.terminals) == 2 else 20
    for head in g.nonterminals:
        brute = brute_counts(g, head, max_length)
        machine = ClassMachine.build(g, head)
        for value in {v for c in brute for v in c}:
            assert machine.sequence(value, max_length) == [c[value] for c in brute], (
                head, value)


def test_counts_add_up_to_all_words() -> None:
    g = parse_grammar("A -> a A | b B | a\nB -> b | a A")  # not every word is a position
    machine = ClassMachine.build(g, "A")
    for n in range(9):
        assert sum(machine.counts(n).values()) == 2**n
    assert None in machine.counts(3)


def test_count_large_length_is_exact_and_fast() -> None:
    machine = ClassMachine.build(example3(), "A")
    big = machine.count(0, 2000)
    # GF denominator (1 − 2x)(1 + x²): count_n = (2/5)·2ⁿ + a period-4 correction
    assert abs(Fraction(big, 2**2000) - Fraction(2, 5)) < Fraction(1, 2**1990)
    assert sum(machine.count(v, 2000) for v in (0, 1, 2)) == 2**2000


def test_count_errors() -> None:
    with pytest.raises(InputError, match="right-linear"):
        count(parse_grammar("A -> A A | a"), "A", 0, 3)
    with pytest.raises(InputError):
        count(example3(), "Z", 0, 3)
    with pytest.raises(InputError, match="natural"):
        ClassMachine.build(example3(), "A").count(0, -1)
    with pytest.raises(BudgetExceeded):
        count(example3(), "A", 0, 3, max_states=3)


def test_class_dfas_are_automata_lib_minimal() -> None:
    """Should count on automata-lib's minimal M_{A,c} (it is the construction's DFA)."""
    from sdg_automata.automaton.construction import dfa

    machine = ClassMachine.build(example3(), "A")
    for value in (0, 1, 2):
        d = dfa(example3(), "A", value, minimal=True)
        assert len(machine.dfa(value).states) == len(d.states)
        assert machine.dfa(value) == d


def test_long_lasso_minimizes_fast() -> None:
    """A one-letter lasso of 34 000 states minimizes in reasonable time (automata-lib)."""
    from sdg_automata.generators.families import ModularSpec, modular_family

    g = modular_family([ModularSpec(7, 1), ModularSpec(11, 3), ModularSpec(13, 5),
                        ModularSpec(17, 2)])
    machine = ClassMachine.build(g, "A")  # quadratic behaviour would take hours: CI's timeout
    assert machine.count(2, 2000) in (0, 1)


# ---------------------------------------------------------------------------
# generating functions


def _series(expr: object, n: int) -> list[int]:
    """The first n Taylor coefficients of a rational function at 0, by long division
    of its numerator and denominator (sympy.series is far slower on these)."""
    import sympy

    x = sympy.Symbol("x")
    num, den = sympy.fraction(sympy.together(expr))
    p = [Fraction(int(c.p), int(c.q)) for c in sympy.Poly(num, x).all_coeffs()[::-1]]
    q = [Fraction(int(c.p), int(c.q)) for c in sympy.Poly(den, x).all_coeffs()[::-1]]
    out: list[Fraction] = []
    for k in range(n):
        acc = p[k] if k < len(p) else Fraction(0)
        acc -= sum((q[i] * out[k - i] for i in range(1, min(k, len(q) - 1) + 1)), Fraction(0))
        out.append(acc / q[0])
    assert all(c.denominator == 1 for c in out)
    return [int(c) for c in out]


def test_berlekamp_massey_finds_fibonacci() -> None:
    fib = [0, 1]
    for _ in range(10):
        fib.append(fib[-1] + fib[-2])
    assert berlekamp_massey(fib) == [1, -1, -1]
    assert berlekamp_massey([0, 0, 0, 0]) == [1]


@pytest.mark.parametrize("value", [0, 1, 2])
def test_generating_function_of_example3(value: int) -> None:
    gf = generating_function(example3(), "A", value)
    assert _series(gf, 13) == EXAMPLE3_COUNTS_A[value]
    assert _series(gf, 40) == count_sequence(example3(), "A", value, 39)


def test_generating_function_equals_transfer_matrix_inverse() -> None:
    """Independent route: sympy inverts I − xM for the minimal forward DFA (automata-lib)."""
    import sympy

    from sdg_automata.automaton.construction import dfa

    x = sympy.Symbol("x")
    for value in (0, 1, 2):
        d = dfa(example3(), "A", value, forward=True).to_complete()
        states = sorted(d.states, key=str)
        index = {s: k for k, s in enumerate(states)}
        m = sympy.zeros(len(states), len(states))
        for s, row in d.transitions.items():
            for t in row.values():
                m[index[s], index[t]] += 1
        e = sympy.zeros(1, len(states))
        e[0, index[d.initial_state]] = 1
        f = sympy.Matrix([1 if s in d.final_states else 0 for s in states])
        direct = (e * (sympy.eye(len(states)) - x * m).inv() * f)[0, 0]
        assert sympy.simplify(direct - generating_function(example3(), "A", value)) == 0


def test_generating_function_string_parses_back() -> None:
    import sympy

    gf = generating_function(example3(), "A", 0)
    assert sympy.simplify(sympy.sympify(str(gf)) - gf) == 0
    assert str(gf) == "-x*(2*x**2 - x + 1)/((2*x - 1)*(x**2 + 1))"


@pytest.mark.parametrize("seed", range(6))
def test_generating_function_series_on_random_grammars(seed: int) -> None:
    g = random_linear_grammar(random.Random(100 + seed))
    machine = ClassMachine.build(g, g.start)
    for value in machine.classes:
        gf = machine.generating_function(value)
        assert _series(gf, 30) == machine.sequence(value, 29)


def test_generating_function_limit() -> None:
    """Should say the limit is a number of states, and name no Python keyword."""
    with pytest.raises(BudgetExceeded, match="classes of at most 2 states") as err:
        generating_function(example3(), "A", 0, limit=2)
    assert "limit=" not in str(err.value) and "computed up to" not in str(err.value)


# ---------------------------------------------------------------------------
# densities


def test_density_of_example3() -> None:
    values = {v: density(example3(), "A", v) for v in (0, 1, 2, 3)}
    assert {v: d.limit for v, d in values.items()} == {
        0: Fraction(2, 5), 1: Fraction(16, 35), 2: Fraction(1, 7), 3: Fraction(0)}
    assert sum(d.mean for d in values.values()) == 1
    machine = ClassMachine.build(example3(), "A")
    for v, d in values.items():
        assert d.limit is not None
        assert abs(Fraction(machine.count(v, 400), 2**400) - d.limit) < Fraction(1, 10**9)


def test_density_oscillates_with_parity() -> None:
    g = parse_grammar("A -> a A | b A | a | b")  # 𝒢(A, w) = |w| mod 2
    d = density(g, "A", 0)
    assert d == Density(2, (Fraction(1), Fraction(0)))
    assert d.limit is None and d.points == (Fraction(0), Fraction(1)) and d.mean == Fraction(1, 2)
    assert "oscillates" in str(d)
    assert d.to_json() == {"limit": None, "period": 2, "limits": ["1", "0"], "mean": "1/2"}


@pytest.mark.parametrize("seed", range(8))
def test_density_matches_long_counts(seed: int) -> None:
    """count_n/|Σ|ⁿ approaches limits[n mod p] (the rest decays geometrically)."""
    g = random_linear_grammar(random.Random(200 + seed))
    machine = ClassMachine.build(g, g.start)
    k = len(g.terminals)
    for value in machine.classes:
        d = machine.density(value)
        seq = machine.sequence(value, 600)
        for n in range(560, 601):
            assert abs(Fraction(seq[n], k**n) - d.limits[n % d.period]) < Fraction(1, 10**6)


# ---------------------------------------------------------------------------
# one letter: the periodic pattern


@pytest.mark.parametrize("subtraction", [[1], [2, 3], [1, 3, 4], [2, 5, 7], [1, 2, 6]])
def test_unary_counts_gf_and_density_are_the_periodic_pattern(subtraction: list[int]) -> None:
    from sdg_automata.derivation.periodicity import proven_period

    g = subtraction_grammar(subtraction)
    machine = ClassMachine.build(g, "A")
    period = proven_period(g, "A")
    for n in range(1, 40):
        assert period.value(n) == grundy(g, "A", "a" * n)
    tail = period.preperiod + 1
    for value in set(period.values) - {None}:
        seq = machine.sequence(value, 60)
        assert seq == [int(n > 0 and period.value(n) == value) for n in range(61)]
        d = machine.density(value)
        for n in range(tail, tail + 3 * period.period):
            assert d.limits[n % d.period] == (1 if period.value(n) == value else 0)
        assert _series(machine.generating_function(value), 61) == seq


def test_unary_density_agrees_with_proven_period() -> None:
    from sdg_automata.derivation import periodicity
    for subtraction in ([2, 3], [1, 3, 4], [2, 5, 7]):
        g = subtraction_grammar(subtraction)
        p = periodicity.proven_period(g, "A")
        machine = ClassMachine.build(g, "A")
        for value in set(p.values) - {None}:
            d = machine.density(value)
            for n in range(p.preperiod + 1, p.preperiod + 1 + 2 * p.period):
                assert d.limits[n % d.period] == (1 if p.value(n) == value else 0)


# ---------------------------------------------------------------------------
# the int-table methods against automata-lib's count_words_of_length


TERNARY = "A -> a A | b B | c A | c\nB -> a B | b A | c C | b\nC -> c A | a C | b | a"


@pytest.mark.parametrize("seed", range(10))
def test_methods_agree_with_automata_lib(seed: int) -> None:
    """Should give automata-lib's count_words_of_length by every method, for every class."""
    g = random_linear_grammar(random.Random(300 + seed), left=seed % 3 == 2)
    machine = ClassMachine.build(g, g.start)
    for value in machine.classes:
        reference = machine.dfa(value)
        expected = [int(reference.count_words_of_length(n)) for n in range(70)]
        assert machine.sequence(value, 69) == expected
        for n in (0, 1, 2, 3, 7, 31, 32, 33, 64, 69):
            for method in ("levels", "power", "automata-lib", "auto"):
                assert machine.count(value, n, method=method) == expected[n], (value, n, method)


def test_methods_agree_on_three_letters() -> None:
    g = parse_grammar(TERNARY)
    machine = ClassMachine.build(g, "A")
    assert len(machine.alphabet) == 3
    for value in machine.classes:
        reference = machine.dfa(value)
        for n in (0, 1, 5, 17, 40):
            expected = int(reference.count_words_of_length(n))
            assert machine.count(value, n, method="levels") == expected
            assert machine.count(value, n, method="power") == expected
        assert sum(machine.counts(17).values()) == 3**17


def test_power_and_levels_agree_on_long_words() -> None:
    g = random_linear_grammar(random.Random(7))
    machine = ClassMachine.build(g, g.start)
    for value in machine.classes:
        table = machine.table(value)
        for n in (1000, 2049):
            assert table.count_power(n) == table.count_levels(n)


def test_example3_at_a_hundred_thousand_is_the_closed_form() -> None:
    """5·countₙ − 2ⁿ⁺¹ has period 4 (GF denominator (1 − 2x)(1 + x²)); checked far out."""
    machine = ClassMachine.build(example3(), "A")
    pattern = {n % 4: 5 * EXAMPLE3_COUNTS_A[0][n] - 2 ** (n + 1) for n in range(8, 12)}
    for n in (10**5, 10**5 + 1, 10**5 + 2, 10**5 + 3):
        assert 5 * machine.count(0, n, method="power") - 2 ** (n + 1) == pattern[n % 4]
    assert plan(machine.table(0), 10**5).method == "power"


def test_transfer_table_trims_states_that_cannot_accept() -> None:
    # 0 -a-> 1 (final), 0 -b-> 2 (dead), 1 -> 1, 2 -> 2
    table = TransferTable.from_rows([[1, 1, 2], [2, 1, 2]], [1])
    assert table.size == 2 and table.dead == 2 and table.edges == 3
    assert table.rows == ((1, 1), (2, 1)) and table.final == (0, 1)
    assert list(table.levels(4)) == [0, 1, 2, 4, 8]
    empty = TransferTable.from_rows([[1, 1], [0, 1]], [])
    assert empty.initial == empty.dead == 0
    assert empty.count_levels(5) == empty.count_power(5) == 0
    with pytest.raises(SdgBug):
        TransferTable(rows=((0, 5),), final=(0, 1), initial=0)


def test_the_cost_rule() -> None:
    """Should pick the power for a small class and long words, the levels for many states."""
    small = ClassMachine.build(example3(), "A").table(0)
    assert plan(small, 10).method == "levels"  # short words: a few additions
    assert plan(small, 10**6).method == "power"
    n = 60  # a 60-state cycle: m³ products per squaring lose against N·E additions
    big = TransferTable.from_rows([[(s + 1) % n for s in range(n)], list(range(n))], [0])
    assert plan(big, 10**4).method == "levels"
    assert set(COUNTERS) == {"levels", "power"}
    with pytest.raises(InputError, match="unknown counting method"):
        plan(small, 5, method="fast")  # type: ignore[arg-type]


def test_huge_lengths_are_refused_up_front() -> None:
    machine = ClassMachine.build(example3(), "A")
    # refused by the estimate, before a level is counted (the messages say so; no clock of
    # the test's, which a loaded machine stretches: issue 34 §7)
    with pytest.raises(BudgetExceeded, match="would take about") as info:
        machine.count(0, 10**9)
    assert not info.value.explored
    with pytest.raises(BudgetExceeded, match="over three times the budget of 1 s"):
        machine.count(0, 10**7, budget=Budget(max_seconds=1))


def test_memory_is_refused_up_front(monkeypatch: pytest.MonkeyPatch) -> None:
    machine = ClassMachine.build(example3(), "A")
    machine.table(0)
    for module in (counting, transfer):  # the count's plan, and the minimization
        monkeypatch.setattr(module, "available_bytes", lambda: 10_000)
    with pytest.raises(BudgetExceeded, match="of memory"):
        machine.count(0, 10**5)
    assert machine.count(0, 10) == 409  # small counts still fit
    with pytest.raises(BudgetExceeded, match="minimizing"):
        machine.dfa(1)  # not minimized yet: 10 states × 2 KB do not fit in 10 KB


def test_the_budget_stops_a_long_count() -> None:
    table = TransferTable.from_rows([[1, 0], [0, 1]], [0])
    meter = Budget(max_seconds=0.05).start("count", unit="levels")
    with pytest.raises(BudgetExceeded, match="levels reached"):
        table.count_levels(10**7, meter)
    meter = Budget(max_seconds=0.01).start("count", unit="squarings")
    big = TransferTable.from_rows([[(s + 1) % 30 for s in range(30)], list(range(30))], [0])
    with pytest.raises(BudgetExceeded):
        big.count_power(10**6, meter)


def test_generating_function_refusal_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should name the generating function and the counts it needs when refusing them."""
    machine = ClassMachine.build(example3(), "A")
    machine.table(0)
    monkeypatch.setattr(transfer, "COSTS", {**transfer.COSTS, "op": 1e3})  # every step slow
    with pytest.raises(BudgetExceeded, match="generating function of a 4-state class needs "
                                             "the counts up to length 9"):
        machine.generating_function(0)
