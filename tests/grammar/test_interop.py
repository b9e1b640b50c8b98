"""Interop: pyformlang grammars (sdg_automata.grammar.interop), automata-lib NFAs as constraints,
networkx game graphs as JSON.

pyformlang conversions are checked against pyformlang's own CYK.

pyformlang's ``CFG.contains`` is an independent membership test: (A, w) is a
position of the game exactly when A ⇒* w (SPEC §1–2), which the package's own
semantics reports as a Grundy number that is not ``None``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from golden import EXAMPLES, csub, example3
from hypothesis import given
from strategies import all_words, cfgs

from sdg_automata.derivation.semantics import grundy
from sdg_automata.errors import GrammarError, InputError
from sdg_automata.grammar import Grammar, Rule
from sdg_automata.grammar.parse import load_grammar

cfg_module = pytest.importorskip("pyformlang.cfg")
from sdg_automata.grammar.interop import from_pyformlang, to_pyformlang  # noqa: E402

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


# ---------------------------------------------------------------------------
# automata-lib NFAs as Max-Grundy constraints (determinized)


@pytest.mark.parametrize("regex", ["b*a", "(ab)*a*", "a*b*", "b(a|b)*b"])
@pytest.mark.parametrize("method", ["onthefly", "explicit"])
def test_an_nfa_constraint_is_its_language(regex: str, method: str) -> None:
    import re

    from automata.fa.nfa import NFA

    from sdg_automata.search.decide import max_grundy

    g = example3()
    nfa = NFA.from_regex(regex, input_symbols={"a", "b"})
    verdict = max_grundy(g, "A", within=nfa, method=method)
    # independent: every word of length ≤ 8 in the language, by Python's re, valued by the DP
    brute = {grundy(g, "A", w) for w in all_words("ab", 8) if re.fullmatch(regex, w)} - {None}
    assert verdict.maximum == max(brute) and verdict.exact
    if method == "onthefly":  # it reports every value it meets; explicit only the maximum
        assert set(verdict.witnesses) == brute
    for value, w in verdict.witnesses.items():
        assert re.fullmatch(regex, w) and grundy(g, "A", w) == value
    assert verdict.witnesses == max_grundy(g, "A", within=regex, method=method).witnesses


def test_a_constraint_of_another_type_is_one_clear_error() -> None:
    from sdg_automata.search.decide import max_grundy

    with pytest.raises(InputError, match="^a constraint is a regular expression, an "
                                         "automata-lib DFA or NFA, or a pyformlang finite "
                                         "automaton, not a dict$"):
        max_grundy(example3(), "A", within={"states": []})  # type: ignore[arg-type]


# pyformlang's regex syntax separates the letters of a concatenation by blanks
PYFORMLANG_REGEXES = [("b* a", "b*a"), ("(a b)* a*", "(ab)*a*"), ("a* b*", "a*b*"),
                      ("b (a|b)* b", "b(a|b)*b")]


@pytest.mark.parametrize(("theirs", "regex"), PYFORMLANG_REGEXES)
@pytest.mark.parametrize("kind", ["epsilon-nfa", "nfa", "dfa", "minimal-dfa"])
@pytest.mark.parametrize("method", ["onthefly", "explicit"])
def test_a_pyformlang_automaton_constraint_is_its_language(theirs: str, regex: str, kind: str,
                                                          method: str) -> None:
    """Should take pyformlang's ε-NFAs, NFAs and DFAs as ``within`` (issue 22 §4), converted
    at the boundary: the verdict is the one Python's ``re`` and the DP give on every word."""
    import re

    from pyformlang.regular_expression import Regex

    from sdg_automata.search.decide import max_grundy

    enfa = Regex(theirs).to_epsilon_nfa()
    fa = {"epsilon-nfa": enfa, "nfa": enfa.remove_epsilon_transitions(),
          "dfa": enfa.to_deterministic(), "minimal-dfa": enfa.minimize()}[kind]
    g = example3()
    verdict = max_grundy(g, "A", within=fa, method=method)
    # independent: every word of length ≤ 8 in the language, by Python's re, valued by the DP
    brute = {grundy(g, "A", w) for w in all_words("ab", 8) if re.fullmatch(regex, w)} - {None}
    assert verdict.maximum == max(brute) and verdict.exact
    for value, w in verdict.witnesses.items():
        assert re.fullmatch(regex, w) and grundy(g, "A", w) == value


def test_nfa_from_pyformlang_keeps_every_start_state_and_epsilon_move() -> None:
    """Should accept what pyformlang accepts, word by word, for an ε-NFA with two start
    states, ε-moves, integer state names and a symbol Σ does not have."""
    from pyformlang.finite_automaton import Epsilon, EpsilonNFA

    from sdg_automata.grammar.interop import nfa_from_pyformlang

    fa = EpsilonNFA()
    fa.add_transitions([(0, "a", 1), (1, Epsilon(), 2), (2, "b", 2), (3, "c", 3),
                        (3, Epsilon(), 1)])
    for q in (0, 3):
        fa.add_start_state(q)
    fa.add_final_state(2)
    nfa = nfa_from_pyformlang(fa)
    for w in all_words("abc", 5):
        assert nfa.accepts_input(w) == fa.accepts(w), w
    empty = EpsilonNFA()
    empty.add_transition(0, "a", 1)
    empty.add_final_state(1)  # no start state: the empty language
    assert not any(nfa_from_pyformlang(empty).accepts_input(w) for w in ["", "a", "aa"])
    bad = EpsilonNFA()
    bad.add_transition(0, "ab", 1)
    with pytest.raises(InputError, match="a letter is one character"):
        nfa_from_pyformlang(bad)


# ---------------------------------------------------------------------------
# game graphs: networkx node-link JSON and plain objects of lists


def _random_dag(seed: int, n: int = 30) -> Any:
    import random

    nx = pytest.importorskip("networkx")
    rng = random.Random(seed)
    g = nx.DiGraph()
    g.add_nodes_from(range(n))
    g.add_edges_from((i, j) for i in range(n) for j in range(i + 1, n) if rng.random() < 0.15)
    return g


@pytest.mark.parametrize("seed", range(5))
def test_node_link_and_plain_json_are_the_same_game(seed: int, tmp_path: Path) -> None:
    import json

    import networkx as nx

    from sdg_automata.games.graphfile import load_game_graph
    from sdg_automata.games.solution import solve_game_graph

    g = _random_dag(seed)
    # independent route: the DiGraph itself, duck-typed, no JSON involved
    expected = {str(k): v for k, v in solve_game_graph(g).grundy.items()}
    files = {
        "node-link": nx.node_link_data(g, edges="edges"),
        "node-link (links)": nx.node_link_data(g, edges="links"),
        "plain": {str(u): [str(v) for v in g.successors(u)] for u in g.nodes},
        "positions": {"positions": {str(u): [str(v) for v in g.successors(u)] for u in g.nodes}},
    }
    for name, data in files.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        graph = load_game_graph(path)
        ids = {str(k): v for k, v in solve_game_graph(graph).grundy.items()}
        assert ids == expected, name
        # node-link keeps networkx's integer ids; the other shapes have string keys
        assert set(graph) == (set(g.nodes) if name.startswith("node-link") else set(expected))


def test_the_graph_command_reads_every_shape(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    import json

    import networkx as nx

    from sdg_automata.cli import main

    g = nx.DiGraph([("a", "b"), ("b", "c"), ("a", "c"), ("c", "t")])
    outputs = []
    for name, data in {"nl": nx.node_link_data(g, edges="edges"),
                       "plain": {u: list(g.successors(u)) for u in g.nodes}}.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        assert main(["graph", str(path), "--json"]) == 0
        outputs.append(json.loads(capsys.readouterr().out))
    assert outputs[0] == outputs[1]
    # by hand: t is a sink (0), c -> t (1), b -> c (0), a -> b, c (mex{0, 1} = 2)
    assert {p: v["grundy"] for p, v in outputs[0]["positions"].items()} == {
        "t": 0, "c": 1, "b": 0, "a": 2}
    assert outputs[0]["positions"]["b"]["outcome"] == "P"


def _networkx_grundy(g: Any) -> dict[Any, int]:
    """Grundy numbers straight from networkx's own graph: mex along a topological order."""
    import networkx as nx

    values: dict[Any, int] = {}
    for node in reversed(list(nx.topological_sort(g))):
        options = {values[s] for s in g.successors(node)}
        values[node] = next(v for v in range(len(options) + 1) if v not in options)
    return values


def _mixed_dag(seed: int, n: int = 12) -> Any:
    """A random DAG whose nodes are the integers 0..n-1 and the strings of some of them."""
    import random

    import networkx as nx

    rng = random.Random(seed)
    nodes: list[Any] = list(range(n)) + [str(i) for i in range(n) if rng.random() < 0.6]
    rng.shuffle(nodes)  # the topological order mixes 1 and "1"
    g = nx.DiGraph()
    g.add_nodes_from(nodes)
    g.add_edges_from((u, v) for i, u in enumerate(nodes) for v in nodes[i + 1:]
                     if rng.random() < 0.25)
    return g


@pytest.mark.parametrize("seed", range(8))
def test_node_identity_is_the_json_value(seed: int, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """Should keep networkx's 1 and "1" apart and print integer ids as integers (issue 21
    §11: they were merged, and an edge 1 -> "1" was refused as a cycle)."""
    import json

    import networkx as nx

    from sdg_automata.cli import main

    pytest.importorskip("networkx")
    # seed 0: the reported case, x -> 1, x -> "1" and an edge from the integer to the string
    g = nx.DiGraph([("x", 1), ("x", "1"), (1, "1")]) if seed == 0 else _mixed_dag(seed)
    path = tmp_path / "g.json"
    path.write_text(json.dumps(nx.node_link_data(g, edges="edges")), encoding="utf-8")
    assert main(["graph", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)["positions"]
    got = {(rec["id"] if "id" in rec else (json.loads(key) if key.startswith('"') else key)):
           rec["grundy"] for key, rec in out.items()}
    assert got == _networkx_grundy(g)  # every node, each with networkx's own value
    assert all(isinstance(rec["id"], int) for key, rec in out.items() if "id" in rec)
    assert main(["graph", str(path)]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[1:]]
    assert sorted(r[0] for r in rows) == sorted(
        json.dumps(p) if isinstance(p, str) and p.isdigit() and int(p) in g else str(p)
        for p in g.nodes)


def test_a_sum_names_integer_and_string_nodes(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """Should read --sum 1 as the integer node, '"1"' as the string, and refuse bare 1 when
    both exist."""
    import json

    from sdg_automata.cli import main

    data = {"directed": True, "nodes": [{"id": 2}, {"id": 1}, {"id": "1"}, {"id": "x"}],
            "edges": [{"source": 2, "target": 1}, {"source": 1, "target": "1"},
                      {"source": "x", "target": 2}]}
    path = tmp_path / "g.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["graph", str(path), "--sum", "2", '"1"', "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    # by hand: "1" is a sink (0), 1 -> "1" (1), 2 -> 1 (0), x -> 2 (1)
    assert out["components"] == [{"position": 2, "grundy": 0}, {"position": "1", "grundy": 0}]
    with pytest.raises(SystemExit) as e:
        main(["graph", str(path), "--sum", "1"])
    assert e.value.code == 2 and "both the integer node 1" in capsys.readouterr().err
    assert main(["graph", str(path), "--sum", "x", "2"]) == 0
    text = capsys.readouterr().out
    assert "winning move: component 0: x -> 2" in text


@pytest.mark.parametrize(("data", "match"), [
    ({"directed": False, "nodes": [{"id": "a"}], "edges": []}, "undirected"),
    ({"nodes": [{"id": [1]}], "edges": []}, "node id .* must be a string or an integer"),
    ({"nodes": [{"name": "a"}], "edges": []}, 'an object with an "id"'),
    ({"nodes": [{"id": "a"}], "links": [{"source": "a"}]}, '"source" and "target"'),
    ({"nodes": [{"id": "a"}, {"id": "b"}],
      "edges": [{"source": "a", "target": "b"}, {"source": "b", "target": "a"}]}, "cycle"),
    ({"a": ["b"], "b": ["a"]}, "cycle a -> b -> a"),
    ({"a": ["b"], "b": [1]}, "follower 1 of position 'b' must be a string"),
])
def test_bad_graph_shapes_are_one_clear_error(data: Any, match: str, tmp_path: Path) -> None:
    import json

    from sdg_automata.errors import GameGraphError
    from sdg_automata.games.graphfile import load_game_graph

    path = tmp_path / "g.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(GameGraphError, match=match):
        load_game_graph(path)
