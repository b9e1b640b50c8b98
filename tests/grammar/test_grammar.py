"""Grammar: classification, derived grammars, unit order, validation (SPEC §1)."""

from __future__ import annotations

import dataclasses
import re

import pytest
from hypothesis import given, settings
from strategies import cfgs, left_linear_grammars, right_linear_grammars

from sdg_automata.errors import GrammarError, InputError, UnitCycleError
from sdg_automata.grammar import Grammar, Rule, check_letter, check_name


def R(head: str, body: str) -> Rule:
    """``R("A", "a b A")`` is the rule A → a b A."""
    return Rule(head, tuple(body.split()))


def G(*specs: str, start: str | None = None, terminals: str = "") -> Grammar:
    """``G("A -> a A | a", "B -> b")``: a grammar built from Rule objects, no parser involved."""
    rules = []
    for spec in specs:
        head, rhs = spec.split("->")
        rules += [R(head.strip(), alt) for alt in rhs.split("|")]
    return Grammar(rules=rules, start=start, terminals=terminals)


EXAMPLE3_RULES = [R("A", "a A"), R("A", "a a A"), R("A", "B"), R("A", "a"), R("A", "a a"),
                  R("B", "b A"), R("B", "b")]


# ---------------------------------------------------------------------------
# the basic structure


def test_example3_structure(example3):
    assert example3.start == "A"
    assert example3.nonterminals == ("A", "B")
    assert example3.terminals == ("a", "b")
    assert set(example3.rules) == set(EXAMPLE3_RULES)
    assert len(example3.rules) == 7
    assert example3 == Grammar(rules=EXAMPLE3_RULES)


def test_start_defaults_to_first_head_and_comes_first():
    g = G("B -> b A | b", "A -> a")
    assert g.start == "B"
    g = G("B -> b A | b", "A -> a", start="A")
    assert g.start == "A"
    assert g.nonterminals == ("A", "B")


def test_nonterminals_are_exactly_the_heads():
    g = G("A -> a B c", "B -> b")
    assert g.is_nonterminal("A") and g.is_nonterminal("B")
    assert not g.is_nonterminal("a") and not g.is_nonterminal("C")
    assert g.terminals == ("a", "b", "c")
    assert g.nonterminals_in(R("A", "a B c")) == ("B",)
    assert g.is_unit(R("A", "B")) and not g.is_unit(R("A", "b")) and not g.is_unit(R("A", "a B"))


def test_declared_terminals_extend_the_alphabet():
    g = G("A -> a", terminals="cb")
    assert g.terminals == ("a", "b", "c")


def test_rules_of_and_unknown_nonterminals():
    g = G("A -> a A | a", "B -> b")
    assert g.rules_of("A") == (R("A", "a A"), R("A", "a"))
    with pytest.raises(GrammarError):
        g.rules_of("Z")
    with pytest.raises(GrammarError, match=r"'Z' is not a nonterminal.*A, B"):
        g.check_nonterminal("Z")
    assert g.check_nonterminal("B") == "B"


def test_iteration_and_str():
    g = G("A -> a A | a")
    assert list(g) == [R("A", "a A"), R("A", "a")]
    assert str(R("A", "a A")) == "A -> a A"


# ---------------------------------------------------------------------------
# classification (SPEC §1)


@pytest.mark.parametrize(
    ("specs", "kind", "right", "left", "linear"),
    [
        (("A -> a A | a a A | B | a | a a", "B -> b A | b"), "right-linear", True, False, True),
        (("A -> a A | a a A | b A | a | a a | b",), "right-linear", True, False, True),
        (("A -> B a | a", "B -> A b | b"), "left-linear", False, True, True),
        (("A -> a A b | a b",), "linear", False, False, True),
        (("A -> a B", "B -> A b | b"), "linear", False, False, True),
        (("A -> A A | a",), "context-free", False, False, False),
        (("A -> a B B", "B -> b"), "context-free", False, False, False),
        # both right- and left-linear: reported as right-linear
        (("A -> B | a b", "B -> b"), "right-linear", True, True, True),
    ],
)
def test_classification(specs, kind, right, left, linear):
    g = G(*specs)
    assert g.kind == kind
    assert g.is_right_linear is right
    assert g.is_left_linear is left
    assert g.is_linear is linear


@settings(max_examples=60, deadline=None)
@given(cfgs())
def test_classification_matches_the_definitions(g):
    nts = set(g.nonterminals)
    where = [(len(r.body), [k for k, s in enumerate(r.body) if s in nts]) for r in g.rules]
    linear = all(len(ks) <= 1 for _, ks in where)
    right = all(all(k == n - 1 for k in ks) for n, ks in where)
    left = all(all(k == 0 for k in ks) for _, ks in where)
    assert (g.is_linear, g.is_right_linear, g.is_left_linear) == (linear, right, left)
    expected = ("right-linear" if right else "left-linear" if left
                else "linear" if linear else "context-free")
    assert g.kind == expected


@settings(max_examples=30, deadline=None)
@given(right_linear_grammars(), left_linear_grammars())
def test_generated_classes(rlg, llg):
    assert rlg.is_right_linear and rlg.kind == "right-linear"
    assert llg.is_left_linear and not llg.is_right_linear and llg.kind == "left-linear"


# ---------------------------------------------------------------------------
# derived grammars


@settings(max_examples=60, deadline=None)
@given(cfgs())
def test_mirror_reverses_every_body(g):
    m = g.mirror()
    assert set(m.rules) == {Rule(r.head, tuple(reversed(r.body))) for r in g.rules}
    assert m.start == g.start and m.terminals == g.terminals
    assert m.mirror() == g


@settings(max_examples=30, deadline=None)
@given(left_linear_grammars())
def test_mirror_of_left_linear_is_right_linear(g):
    assert g.mirror().is_right_linear


def test_mirror_example():
    g = G("A -> B a b | c", "B -> b")
    assert g.mirror() == G("A -> b a B | c", "B -> b")


def test_reachable_from_and_restricted_to():
    g = G("S -> a A | b", "A -> a B | a", "B -> b | B2", "B2 -> b b", "C -> c S")
    assert g.reachable_from("A") == {"A", "B", "B2"}
    assert g.reachable_from("B2") == {"B2"}
    assert g.reachable_from("C") == {"S", "A", "B", "B2", "C"}
    r = g.restricted_to("A")
    assert r.start == "A"
    assert set(r.nonterminals) == {"A", "B", "B2"}
    assert set(r.rules) == {R("A", "a B"), R("A", "a"), R("B", "b"), R("B", "B2"), R("B2", "b b")}
    assert r.terminals == ("a", "b", "c")  # Σ is kept whole
    with pytest.raises(GrammarError):
        g.reachable_from("Z")
    with pytest.raises(GrammarError):
        g.restricted_to("Z")


@settings(max_examples=60, deadline=None)
@given(cfgs())
def test_reachable_from_is_the_closure(g):
    for head in g.nonterminals:
        closure = {head}
        while True:
            more = {s for r in g.rules if r.head in closure for s in r.body
                    if s in g.nonterminals} - closure
            if not more:
                break
            closure |= more
        assert g.reachable_from(head) == closure
        assert set(g.restricted_to(head).rules) == {r for r in g.rules if r.head in closure}


# ---------------------------------------------------------------------------
# the unit-rule order <_Γ (Step 1)


@settings(max_examples=80, deadline=None)
@given(cfgs())
def test_unit_order_puts_b_before_a(g):
    order = g.unit_order
    assert sorted(order) == sorted(g.nonterminals)
    pos = {a: k for k, a in enumerate(order)}
    units = [r for r in g.rules if len(r.body) == 1 and r.body[0] in pos]
    for r in units:
        assert pos[r.body[0]] < pos[r.head], (r, order)


def test_unit_order_chain():
    g = G("A -> B | a", "B -> C | b", "C -> c", "D -> A | B")
    order = g.unit_order
    assert order.index("C") < order.index("B") < order.index("A") < order.index("D")


# ---------------------------------------------------------------------------
# validation


def test_empty_grammar():
    with pytest.raises(GrammarError, match="no rules"):
        Grammar(rules=[])


def test_epsilon_body():
    with pytest.raises(GrammarError, match="ε"):
        Grammar(rules=[R("A", "a"), Rule("A", ())])


@pytest.mark.parametrize("spelling", ["ε", "epsilon", '""', "eps", "λ"])
def test_epsilon_spelled_as_a_symbol(spelling):
    with pytest.raises(GrammarError, match="ε"):
        Grammar(rules=[R("A", "a"), Rule("A", (spelling,))])


def test_multi_character_terminal():
    with pytest.raises(GrammarError, match="'ab' is not one character"):
        Grammar(rules=[Rule("A", ("ab", "A")), R("A", "a")])


def test_declared_terminals_are_checked():
    with pytest.raises(GrammarError, match="not one character"):
        G("A -> a", terminals=["bc"])  # type: ignore[arg-type]
    with pytest.raises(GrammarError, match="also a nonterminal"):
        G("A -> a", terminals="A")


def test_start_without_rules():
    with pytest.raises(GrammarError, match="start symbol 'S' has no rules"):
        G("A -> a", start="S")


def test_unit_cycle_is_named():
    with pytest.raises(UnitCycleError, match="A -> B -> C -> A") as info:
        G("A -> B | a", "B -> C | b", "C -> A | c")
    assert info.value.cycle == ("A", "B", "C", "A")
    assert info.value.rule == R("C", "A")


def test_unit_cycle_away_from_the_start():
    with pytest.raises(UnitCycleError) as info:
        G("S -> A | s", "A -> a B | B", "B -> A | b")
    cycle = info.value.cycle
    assert cycle[0] == cycle[-1] and set(cycle) == {"A", "B"} and len(cycle) == 3
    assert " -> ".join(cycle) in str(info.value)


def test_unit_self_loop():
    with pytest.raises(UnitCycleError, match="A -> A"):
        G("A -> A | a")


def test_non_unit_recursion_is_fine():
    G("A -> A A | a A | a", "B -> A B | b")  # no unit cycle: valid


def test_errors_are_value_errors():
    assert issubclass(GrammarError, InputError) and issubclass(GrammarError, ValueError)
    assert issubclass(UnitCycleError, GrammarError)


# ---------------------------------------------------------------------------
# equality and immutability


def test_equality_is_on_sets_of_rules():
    a = Grammar(rules=EXAMPLE3_RULES)
    b = Grammar(rules=EXAMPLE3_RULES[::-1], start="A")
    c = Grammar(rules=EXAMPLE3_RULES + EXAMPLE3_RULES[:3])  # duplicates are dropped
    assert a == b == c
    assert len(c.rules) == 7
    assert a != Grammar(rules=EXAMPLE3_RULES, start="B")
    assert a != Grammar(rules=EXAMPLE3_RULES, terminals="c")
    assert a != Grammar(rules=EXAMPLE3_RULES[:-1])
    assert a != "A -> a"
    assert (a == 1) is False


def test_grammar_is_immutable_and_unhashable(example3):
    with pytest.raises(dataclasses.FrozenInstanceError):
        example3.start = "B"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        example3.rules = ()  # type: ignore[misc]
    assert isinstance(example3.rules, tuple)
    assert isinstance(example3.nonterminals, tuple) and isinstance(example3.terminals, tuple)
    with pytest.raises(TypeError):
        hash(example3)
    rule = example3.rules[0]
    with pytest.raises(dataclasses.FrozenInstanceError):
        rule.head = "Z"  # type: ignore[misc]


def test_input_list_is_copied():
    rules = list(EXAMPLE3_RULES)
    g = Grammar(rules=rules)
    rules.append(R("A", "b b"))
    assert len(g.rules) == 7
    assert R("A", "b b") not in g.rules


# ---------------------------------------------------------------------------
# names and letters (issue 15: every grammar the API accepts can be written as text)


@pytest.mark.parametrize(
    ("head", "fragment"),
    [
        ("", "empty or blank"),
        ("   ", "empty or blank"),
        ("\t", "empty or blank"),
        ("A B", "blank or a control character (U+0020)"),
        ("A\x00", "control character (U+0000)"),
        ("\ufeffA", "control character (U+FEFF)"),  # a byte-order mark glued to a name
        ("A\u200b", "(U+200B)"),  # zero-width space, a format character
        ("A->B", "arrow"),
        ("A→B", "arrow"),
        ("A::=B", "arrow"),
        ("$", "spells ε"),
        ("epsilon", "spells ε"),
    ],
)
def test_bad_nonterminal_names_are_refused(head, fragment):
    assert check_name(head) is not None and fragment in check_name(head)
    with pytest.raises(GrammarError, match=re.escape(fragment)) as info:
        Grammar(rules=[Rule("S", ("a",)), Rule(head, ("a",))])
    assert info.value.rule == Rule(head, ("a",))


@pytest.mark.parametrize("head", ["A", "A1", "Expr", "Ä", "A'", "<expr>", "A|B", "名"])
def test_good_nonterminal_names(head):
    assert check_name(head) is None
    assert Grammar(rules=[Rule(head, ("a",))]).nonterminals == (head,)


@pytest.mark.parametrize(
    ("letter", "fragment"),
    [
        ("\x00", "control character (U+0000)"),
        ("\x1b", "(U+001B)"),
        ("\x7f", "(U+007F)"),
        (" ", "blank"),
        ("\u00a0", "blank or a control character (U+00A0)"),
        ("\ufeff", "(U+FEFF)"),
        ("$", "spells ε"),
        ("Є", "spells ε"),
        ("ab", "not one character"),
    ],
)
def test_bad_letters_are_refused(letter, fragment):
    assert fragment in (check_letter(letter) or "")
    with pytest.raises(GrammarError, match=re.escape(fragment)):
        Grammar(rules=[Rule("A", ("a", letter))])
    with pytest.raises(GrammarError, match=re.escape(fragment)):
        Grammar(rules=[Rule("A", ("a",))], terminals=[letter])


@pytest.mark.parametrize("letter", ["a", "Z", "0", "|", "#", "é", "→", "-"])
def test_good_letters(letter):
    assert check_letter(letter) is None
    assert letter in Grammar(rules=[Rule("A", (letter,))]).terminals


def test_error_messages_stay_short_for_huge_names():
    huge = "N" * 1_000_000
    with pytest.raises(GrammarError) as info:
        Grammar(rules=[Rule(huge + " ", ("a",))])
    assert len(str(info.value)) < 200 and "1,000,001 characters" in str(info.value)
    with pytest.raises(GrammarError) as info:
        Grammar(rules=[Rule("A", ("a", "x" * 1_000_000))])
    assert len(str(info.value)) < 300


def test_a_long_unit_chain_is_fine():
    # 3,000 unit rules A0 -> A1 -> ... -> a: the order <_Γ is found without recursion
    n = 3000
    g = Grammar(rules=[Rule(f"A{i}", (f"A{i + 1}",)) for i in range(n)] + [Rule(f"A{n}", ("a",))])
    assert g.unit_order == tuple(f"A{i}" for i in range(n, -1, -1))
    with pytest.raises(UnitCycleError) as info:
        Grammar(rules=[Rule(f"A{i}", (f"A{(i + 1) % n}",)) for i in range(n)])
    assert len(info.value.cycle) == n + 1
