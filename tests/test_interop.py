"""pyformlang interop (sdg_automata.interop): conversions checked against pyformlang's own CYK.

pyformlang's ``CFG.contains`` is an independent membership test: (A, w) is a
position of the game exactly when A ⇒* w (SPEC §1–2), which the package's own
semantics reports as a Grundy number that is not ``None``.
"""

from __future__ import annotations

import pytest
from golden import EXAMPLES, csub, example3
from hypothesis import given
from strategies import all_words, cfgs

from sdg_automata.errors import GrammarError, InputError
from sdg_automata.grammar import Grammar, Rule
from sdg_automata.parse import load_grammar
from sdg_automata.semantics import grundy

cfg_module = pytest.importorskip("pyformlang.cfg")
from sdg_automata.interop import from_pyformlang, to_pyformlang  # noqa: E402

CFG, Production, Variable, Terminal = (cfg_module.CFG, cfg_module.Production,
                                       cfg_module.Variable, cfg_module.Terminal)


def _with_start(g: Grammar, head: str) -> Grammar:
    return Grammar(rules=g.rules, start=head, terminals=g.terminals)


@pytest.mark.parametrize("grammar", [example3(), csub(), load_grammar(EXAMPLES / "dyck.txt")],
                         ids=["example3", "csub", "dyck"])
def test_pyformlang_membership_is_our_position_set(grammar: Grammar) -> None:
    for head in grammar.nonterminals:
        cfg = to_pyformlang(_with_start(grammar, head))
        assert str(cfg.start_symbol.value) == head
        for w in all_words(grammar.terminals, 6):
            assert cfg.contains(w) == (grundy(grammar, head, w) is not None), (head, w)


@given(cfgs())
def test_round_trip_through_pyformlang(grammar: Grammar) -> None:
    cfg = to_pyformlang(grammar)
    assert {str(t.value) for t in cfg.terminals} == set(grammar.terminals)
    assert len(cfg.productions) == len(grammar.rules)
    assert from_pyformlang(cfg) == grammar
    for head in grammar.nonterminals:
        assert from_pyformlang(cfg, start=head).start == head


def test_from_pyformlang_text_with_an_explicit_start() -> None:
    # pyformlang's text: variables by case; its start symbol is a parameter, not the first rule
    cfg = CFG.from_text("B -> b A | b\nA -> a A | a a A | B | a | a a", start_symbol=Variable("A"))
    assert from_pyformlang(cfg) == example3()
    assert from_pyformlang(cfg, start="B").start == "B"


def test_declared_letters_survive() -> None:
    g = Grammar(rules=[Rule("A", ("a",))], terminals=["b"])
    back = from_pyformlang(to_pyformlang(g))
    assert back.terminals == ("a", "b") and back == g


def test_what_an_sdg_cannot_be() -> None:
    eps = CFG.from_text("S -> a S | $")
    with pytest.raises(InputError, match="ε production"):
        from_pyformlang(eps)
    useless = CFG(start_symbol=Variable("S"), productions={
        Production(Variable("S"), [Terminal("a"), Variable("X")]),
        Production(Variable("S"), [Terminal("a")])})
    with pytest.raises(InputError, match="'X' .* has no productions"):
        from_pyformlang(useless)
    assert from_pyformlang(useless.remove_useless_symbols()) == Grammar(rules=[Rule("S", ("a",))])
    long = CFG(start_symbol=Variable("S"), productions={Production(Variable("S"),
                                                                   [Terminal("ab")])})
    with pytest.raises(GrammarError, match="not one character"):
        from_pyformlang(long)
    clash = CFG(start_symbol=Variable("S"), productions={
        Production(Variable("S"), [Terminal("A")]), Production(Variable("A"), [Terminal("a")])})
    with pytest.raises(InputError, match="both a variable and a terminal"):
        from_pyformlang(clash)
    headless = CFG(productions={Production(Variable("S"), [Terminal("a")])})
    with pytest.raises(InputError, match="no start symbol"):
        from_pyformlang(headless)
    assert from_pyformlang(headless, start="S").start == "S"
    with pytest.raises(GrammarError, match="start symbol 'Z' has no rules"):
        from_pyformlang(headless, start="Z")


def test_without_pyformlang_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setitem(sys.modules, "pyformlang.cfg", None)
    with pytest.raises(InputError, match=r'pip install "sdg_automata\[interop\]"'):
        to_pyformlang(example3())
