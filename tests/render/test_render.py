"""Pictures and exports (sdg_automata.render): DOT, game graphs, JFLAP, regex, Jupyter.

DOT output is read back by the small parser below (quoted ids and labels,
attribute lists, ``->`` edges: the subset :mod:`sdg_automata.render` writes),
so the tests check the drawn states and edges, not the text layout.  SVG and
PNG tests need the optional ``visual`` extra and are skipped without it.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

import pytest
from automata.fa.dfa import DFA
from automata.fa.nfa import NFA
from golden import EXAMPLE3_GRUNDY, EXAMPLES, example3  # noqa: E402

from sdg_automata import render
from sdg_automata.automaton.construction import GrundyAutomaton, dfa
from sdg_automata.derivation.gamegraph import GameGraph, game_graph
from sdg_automata.derivation.semantics import grundy, grundy_position, successors
from sdg_automata.errors import BudgetExceeded, InputError, VisualUnavailable
from sdg_automata.grammar import Grammar
from sdg_automata.grammar.parse import load_grammar, parse_grammar
from sdg_automata.render import (
    Diagram,
    dfa_to_dot,
    dfa_to_html,
    dfa_to_jff,
    dfa_to_json,
    dfa_to_regex,
    dfa_to_table,
    diagram,
    display,
    game_graph_to_dot,
    reachable_to_dot,
)

# ---------------------------------------------------------------------------
# a small DOT reader

_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|->|[A-Za-z_][A-Za-z0-9_]*|[0-9.]+|[{}\[\];,=]')


def _unquote(token: str) -> str:
    if token.startswith('"'):
        return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), token[1:-1])
    return token


def parse_dot(text: str) -> tuple[dict[str, dict[str, str]], list[tuple[str, str, dict[str, str]]],
                                  dict[str, str]]:
    """(nodes with attributes, edges with attributes, graph attributes) of a digraph."""
    tokens = _TOKEN.findall(text)
    assert tokens[0] == "digraph" and tokens[2] == "{" and tokens[-1] == "}"
    nodes: dict[str, dict[str, str]] = {}
    edges: list[tuple[str, str, dict[str, str]]] = []
    graph: dict[str, str] = {}
    statements: list[list[str]] = [[]]
    for t in tokens[3:-1]:
        if t == ";":
            statements.append([])
        else:
            statements[-1].append(t)
    for st in filter(None, statements):
        attrs: dict[str, str] = {}
        if "[" in st:
            body = st[st.index("[") + 1: st.index("]")]
            for part in " ".join(body).split(" , "):
                key, _, value = part.partition(" = ")
                attrs[key] = _unquote(value)
            st = st[: st.index("[")]
        if len(st) == 3 and st[1] == "->":
            edges.append((_unquote(st[0]), _unquote(st[2]), attrs))
        elif len(st) == 3 and st[1] == "=":
            graph[st[0]] = _unquote(st[2])
        elif st[0] in ("node", "edge", "graph"):
            continue
        else:
            assert len(st) == 1, st
            nodes[_unquote(st[0])] = attrs
    return nodes, edges, graph


# ---------------------------------------------------------------------------
# DOT for DFAs


def test_dot_of_example3_m_a0_has_the_states_and_edges() -> None:
    reachable = GrundyAutomaton(example3()).explore()
    machine = dfa(example3(), "A", 0, reachable=reachable)
    nodes, edges, graph = parse_dot(dfa_to_dot(machine))
    assert graph["rankdir"] == "LR"
    states = {n: a for n, a in nodes.items() if n != "__start__"}
    assert len(states) == len(reachable.states) == 10
    assert nodes["__start__"]["shape"] == "point"
    assert [(s, t) for s, t, _ in edges if s == "__start__"] == [("__start__", "q0")]
    by_label = {a["label"]: n for n, a in states.items()}
    finals = {int(a["label"]) for a in states.values() if a["shape"] == "doublecircle"}
    assert finals == set(reachable.accepting("A", 0)) == {2, 6, 7}
    drawn = {(s, letter, t) for s, t, a in edges if s != "__start__"
             for letter in a["label"].split(",")}
    expected = {(by_label[str(s)], a, by_label[str(t)]) for s, a, t in reachable.transitions()}
    assert drawn == expected


def test_dot_with_item_labels_follows_spec_transitions() -> None:
    reachable = GrundyAutomaton(example3()).explore()
    nodes, edges, _ = parse_dot(reachable_to_dot(reachable, head="A", value=0))
    label = {n: a["label"] for n, a in nodes.items() if n != "__start__"}
    moves = {(label[s], letter): label[t] for s, t, a in edges if s != "__start__"
             for letter in a["label"].split(",")}
    # SPEC §4, Example 3, first transitions
    assert moves[("{E⁰}", "a")] == "{A¹, aE⁰}"
    assert moves[("{E⁰}", "b")] == "{A⁰, B¹}"
    assert moves[("{A¹, aE⁰}", "a")] == "{A², aA¹}"
    assert moves[("{A¹, aE⁰}", "b")] == "{A¹, B⁰}"
    assert moves[("{A², aA¹}", "a")] == "{A⁰, aA²}"
    assert moves[("{A¹, B⁰}", "b")] == "{A¹, B⁰}"
    finals = {label[n] for n, a in nodes.items() if a.get("shape") == "doublecircle"}
    assert all("A⁰" in f for f in finals) and len(finals) == 3
    nodes, _, _ = parse_dot(reachable_to_dot(reachable, labels="ids"))
    assert not any(a.get("shape") == "doublecircle" for a in nodes.values())


def test_dot_escapes_labels() -> None:
    d = DFA(states={'q"1', "q\\2"}, input_symbols={"a"},
            transitions={'q"1': {"a": "q\\2"}, "q\\2": {"a": 'q"1'}},
            initial_state='q"1', final_states={"q\\2"})
    text = dfa_to_dot(d, label=lambda s: s + "\nline")
    nodes, _, _ = parse_dot(text)
    assert {a["label"] for n, a in nodes.items() if n != "__start__"} == {
        'q"1\nline', "q\\2\nline"}
    assert "\nline" not in text  # the line break is escaped, not raw


def test_dot_of_a_partial_dfa_groups_letters() -> None:
    d = dfa(example3(), "A", 2, forward=True)  # partial, from automata-lib's reversal
    nodes, edges, _ = parse_dot(dfa_to_dot(d))
    assert len(nodes) - 1 == len(d.states)
    assert sum(len(a["label"].split(",")) for s, _, a in edges if s != "__start__") == sum(
        len(row) for row in d.transitions.values())


# ---------------------------------------------------------------------------
# game graphs


def test_game_graph_of_example3_has_spec_grundy_numbers() -> None:
    gg = game_graph(example3(), ["A", "B"], 3)
    singletons = {p[0]: v for p, v in zip(gg.nodes, gg.values, strict=True) if len(p) == 1}
    expected = {key: v for key, v in EXAMPLE3_GRUNDY.items() if len(key[1]) <= 3}
    assert singletons == expected
    assert gg.nodes[0] == () and gg.values[0] == 0  # ∅
    # B only derives words starting with b: (B, a…) is no position (Figure 7's remark)
    assert not any(h == "B" and w.startswith("a") for h, w in singletons)
    for k, p in enumerate(gg.nodes):
        if p:
            (head, w), = p
            assert {gg.nodes[t] for s, t in gg.edges if s == k} == set(
                successors(example3(), head, w))


def test_game_graph_dot_labels_and_p_positions() -> None:
    gg = game_graph(example3(), None, 3)
    nodes, edges, _ = parse_dot(game_graph_to_dot(gg))
    assert len(nodes) == len(gg.nodes) and len(edges) == len(gg.edges)
    for attrs in nodes.values():
        name, value = attrs["label"].split("\n𝒢 = ")
        match = re.fullmatch(r"\((\w), (\w+)\)", name)
        if match:
            assert EXAMPLE3_GRUNDY[(match.group(1), match.group(2))] == int(value)
        else:
            assert name == "∅" and value == "0" and attrs["shape"] == "box"
        assert ("filled" in attrs.get("style", "")) == (value == "0")


def test_game_graph_of_a_cfg_expands_multisets() -> None:
    g = parse_grammar("S -> S S | a | A\nA -> a b")
    gg = game_graph(g, ["S"], 4)
    assert (("S", "a"), ("S", "a")) in gg.nodes
    for p, v in zip(gg.nodes, gg.values, strict=True):
        assert v == (grundy_position(g, p) if p else 0)
    assert GameGraph.name((("S", "a"), ("S", "a"))) == "{(S, a), (S, a)}"
    assert gg.value("S", "aa") == grundy(g, "S", "aa")
    assert gg.value("S", "b") is None
    assert all(v == 0 for v in map(lambda p: gg.values[gg.nodes.index(p)], gg.p_positions()))


def test_game_graph_limits() -> None:
    with pytest.raises(BudgetExceeded, match="more than 5 positions"):
        game_graph(example3(), None, 3, max_nodes=5)
    with pytest.raises(InputError):
        game_graph(example3(), ["Z"], 2)


# ---------------------------------------------------------------------------
# exports: JSON, JFLAP, tables


def _from_json(text: str) -> DFA:
    data = json.loads(text)
    return DFA(states=set(data["states"]), input_symbols=set(data["input_symbols"]),
               transitions=data["transitions"], initial_state=data["initial_state"],
               final_states=set(data["final_states"]), allow_partial=data["allow_partial"])


def _from_jff(text: str) -> DFA:
    root = ElementTree.fromstring(text.split("-->", 1)[1])
    assert root.findtext("type") == "fa"
    automaton = root.find("automaton")
    assert automaton is not None
    states = {s.get("id"): s for s in automaton.iter("state")}
    transitions: dict[str, dict[str, str]] = {k: {} for k in states}
    for t in automaton.iter("transition"):
        transitions[t.findtext("from", "")][t.findtext("read", "")] = t.findtext("to", "")
    (initial,) = [k for k, s in states.items() if s.find("initial") is not None]
    letters = {a for row in transitions.values() for a in row}
    return DFA(states=set(states), input_symbols=letters, transitions=transitions,
               initial_state=initial, final_states={k for k, s in states.items()
                                                    if s.find("final") is not None},
               allow_partial=True)


@pytest.mark.parametrize("forward", [False, True])
def test_json_and_jff_round_trip(forward: bool) -> None:
    d = dfa(example3(), "A", 0, forward=forward)
    assert _from_json(dfa_to_json(d)) == d
    assert _from_jff(dfa_to_jff(d)) == d


@pytest.mark.parametrize("forward", [False, True])
def test_dfa_from_json_is_the_inverse_of_dfa_to_json(forward: bool) -> None:
    """Should read back the same automata-lib DFA, states renamed to strings (issue 22 §4);
    ``DFA(**json.loads(...))`` is refused by automata-lib, as dfa_to_json's docstring says."""
    from automata.fa.dfa import DFA

    from sdg_automata.render import dfa_from_json

    for d in (dfa(example3(), "A", 0, forward=forward), _partial_dfa()):
        e = dfa_from_json(dfa_to_json(d))
        assert e == d  # automata-lib's equality: the same language
        assert e.states == {str(s) for s in d.states}
        assert e.initial_state == str(d.initial_state)
        assert e.final_states == {str(s) for s in d.final_states}
        assert e.transitions == {str(s): {a: str(t) for a, t in row.items()}
                                 for s, row in d.transitions.items()}
        assert e.allow_partial == any(len(r) < len(d.input_symbols) for r in d.transitions.values())
        with pytest.raises(TypeError):  # JSON lists are not sets
            DFA(**json.loads(dfa_to_json(d)))


def _partial_dfa() -> DFA:
    from automata.fa.dfa import DFA

    return DFA(states={0, 1}, input_symbols={"a", "b"}, transitions={0: {"a": 1}, 1: {}},
               initial_state=0, final_states={1}, allow_partial=True)


def test_jff_carries_item_labels() -> None:
    automaton = GrundyAutomaton(example3())
    reachable = automaton.explore()
    d = reachable.to_dfa(reachable.accepting("A", 0))
    text = dfa_to_jff(d, label=lambda s: automaton.label(reachable.states[s]))
    root = ElementTree.fromstring(text.split("-->", 1)[1])
    labels = [s.findtext("label") for s in root.iter("state")]
    assert labels[0] == "{E⁰}" and "{A¹, aE⁰}" in labels
    assert text.startswith('<?xml version="1.0" encoding="UTF-8" standalone="no"?>')


def test_tables() -> None:
    d = dfa(example3(), "A", 0)
    table = dfa_to_table(d)
    assert table.splitlines()[1].startswith("→") and len(table.splitlines()) == 11
    short = dfa_to_table(d, limit=3)
    assert short.endswith("… 7 more states\n") and len(short.splitlines()) == 5
    html = dfa_to_html(d, label=lambda s: f"<{s}>", limit=4)
    assert "&lt;0&gt;" in html and "6 more rows" in html


# ---------------------------------------------------------------------------
# regular expressions


def _read_back(regex: str, letters: tuple[str, ...]) -> DFA:
    return DFA.from_nfa(NFA.from_regex(regex, input_symbols=set(letters)))


@pytest.mark.parametrize("name", ["example3.txt", "csub.txt"])
def test_regex_round_trips_to_the_minimal_dfa(name: str) -> None:
    g = load_grammar(EXAMPLES / name)
    for value in range(3):
        minimal = dfa(g, "A", value, forward=True)
        regex = dfa_to_regex(minimal)
        assert regex is not None
        assert _read_back(regex, g.terminals) == minimal


def test_regex_round_trips_on_random_right_linear_grammars() -> None:
    import random

    from sdg_automata.grammar import Rule

    rnd = random.Random(7)
    checked = 0
    for _ in range(15):
        names = rnd.sample("ABC", rnd.randint(1, 3))
        rules = [Rule(h, (*(rnd.choice("ab") for _ in range(rnd.randint(1, 2))),
                          *([rnd.choice(names)] if rnd.random() < 0.6 else [])))
                 for h in names for _ in range(rnd.randint(1, 3))]
        g = Grammar(rules=rules, terminals="ab")
        for value in range(3):
            minimal = dfa(g, g.start, value, forward=True)
            regex = dfa_to_regex(minimal)
            if regex is None:
                assert minimal.isempty()
                continue
            assert _read_back(regex, g.terminals) == minimal
            checked += 1
    assert checked > 10


def test_regex_guards() -> None:
    minimal = dfa(example3(), "A", 0, forward=True)
    with pytest.raises(BudgetExceeded, match="at most 3 states"):  # a limit, not bad input
        dfa_to_regex(minimal, limit=3)
    assert dfa_to_regex(dfa(example3(), "A", 3, forward=True)) is None  # 𝒢_A never reaches 3
    star = DFA(states={0}, input_symbols={"*"}, transitions={0: {"*": 0}}, initial_state=0,
               final_states={0})
    with pytest.raises(InputError, match="regular-expression syntax"):
        dfa_to_regex(star)


# ---------------------------------------------------------------------------
# Jupyter and optional Graphviz


def _no_pygraphviz(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pygraphviz", None)  # import raises ImportError


def test_without_graphviz_svg_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_pygraphviz(monkeypatch)
    assert not render.visual_available()
    with pytest.raises(VisualUnavailable, match=r'pip install "sdg_automata\[visual\]"'):
        render.dot_to_svg("digraph { a }")
    bundle = diagram(dfa(example3(), "A", 0))._repr_mimebundle_()
    assert set(bundle) == {"text/plain", "text/html"}


def test_mimebundles_of_engine_objects(monkeypatch: pytest.MonkeyPatch) -> None:
    _no_pygraphviz(monkeypatch)
    from sdg_automata.search.decide import max_grundy

    automaton = GrundyAutomaton(example3())
    reachable = automaton.explore()
    for obj in (automaton, reachable, max_grundy(example3(), "A"),
                game_graph(example3(), None, 2), dfa(example3(), "A", 1)):
        bundle = diagram(obj)._repr_mimebundle_()
        assert bundle["text/plain"] and bundle["text/html"].startswith(("<table>", "<p>"))
    text = diagram(reachable)._repr_mimebundle_()["text/plain"]
    assert "{A¹, aE⁰}" in text and "𝒢_A" in text
    verdict = diagram(max_grundy(example3(), "A"))._repr_mimebundle_()["text/plain"]
    assert "max 𝒢_A = 2" in verdict and "'aa'" in verdict
    only = diagram(reachable)._repr_mimebundle_(include=["text/plain"])
    assert set(only) == {"text/plain"}
    assert "text/html" not in diagram(reachable)._repr_mimebundle_(exclude=["text/html"])


def _shell() -> Any:
    """A real IPython shell (the process's one instance), with sdg_automata's displays."""
    pytest.importorskip("IPython")
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "sdg_automata")
    return shell


def _displayed(shell: Any, obj: object) -> dict[str, str]:
    data, _ = shell.display_formatter.format(obj)
    assert isinstance(data, dict)
    return data


def test_ipython_shows_engine_objects_and_automata_lib_dfas(
        monkeypatch: pytest.MonkeyPatch) -> None:
    _no_pygraphviz(monkeypatch)  # automata-lib's own drawing would raise ImportError here
    shell = _shell()
    from sdg_automata.search.decide import max_grundy

    automaton = GrundyAutomaton(example3())
    for obj in (automaton, automaton.explore(), max_grundy(example3(), "A"),
                game_graph(example3(), None, 2), dfa(example3(), "A", 1)):
        data = _displayed(shell, obj)
        assert data["text/html"] == diagram(obj).html, type(obj).__name__
        assert data["text/plain"] == diagram(obj).text
    with pytest.raises(ImportError):  # what a notebook showed before: automata-lib's drawing
        dfa(example3(), "A", 1)._repr_mimebundle_()
    shell.run_line_magic("unload_ext", "sdg_automata")
    assert "text/html" not in _displayed(shell, automaton)
    shell.run_line_magic("load_ext", "sdg_automata")


def test_importing_the_package_in_a_kernel_registers_the_displays() -> None:
    import importlib

    import sdg_automata

    shell = _shell()
    shell.run_line_magic("unload_ext", "sdg_automata")
    reachable = GrundyAutomaton(example3()).explore()
    assert "text/html" not in _displayed(shell, reachable)
    importlib.reload(sdg_automata)  # what `import sdg_automata` runs inside a kernel
    assert "10 reachable states" in _displayed(shell, reachable)["text/html"]


def test_ipython_shows_a_big_dfa_as_a_capped_table(monkeypatch: pytest.MonkeyPatch) -> None:
    shell = _shell()
    n = render.DRAW_LIMIT + 1
    cycle = DFA(states=set(range(n)), input_symbols={"a"},
                transitions={k: {"a": (k + 1) % n} for k in range(n)}, initial_state=0,
                final_states={0})
    data = _displayed(shell, cycle)
    assert "image/svg+xml" not in data  # too big to draw
    assert f"… {n - render.TABLE_LIMIT} more states" in data["text/plain"]
    monkeypatch.setattr(display, "LINE_LIMIT", 100)
    data = _displayed(shell, cycle)
    assert data["text/plain"].count("\n") == 1 and f"{n} states" in data["text/plain"]


def test_nfa_diagram_table_and_dot() -> None:
    n = NFA(states={"p", "q", "r"}, input_symbols={"a", "b"},
            transitions={"p": {"a": {"p", "q"}, "": {"r"}}, "q": {"b": {"r"}}, "r": {}},
            initial_state="p", final_states={"r"})
    shown = diagram(n)
    rows = [line.split() for line in shown.text.splitlines()]
    assert rows[0] == ["state", "a", "b", "ε"]
    assert rows[1] == ["→", "p", "{p,", "q}", "—", "{r}"]
    assert rows[3] == ["*", "r", "—", "—", "—"]
    assert shown.dot is not None
    nodes, edges, _ = parse_dot(shown.dot)
    named = {attrs["label"]: node for node, attrs in nodes.items() if "label" in attrs
             and node != "__start__"}
    drawn = {(s, t, a.get("label")) for s, t, a in edges if s != "__start__"}
    p, q, r = named["p"], named["q"], named["r"]
    assert drawn == {(p, p, "a"), (p, q, "a"), (p, r, "ε"), (q, r, "b")}
    assert nodes[r]["shape"] == "doublecircle"
    assert render.nfa_to_dot(n) == shown.dot.replace('"DFA"', '"NFA"')


def test_diagram_of_an_nfa_from_automata_lib_operations() -> None:
    # the forward reading of M_{A,0}: automata-lib's reversal, an NFA with ε-moves
    reversed_nfa = NFA.from_dfa(dfa(example3(), "A", 0)).reverse()
    shown = diagram(reversed_nfa)
    assert shown.text.splitlines()[0].split()[-1] == "ε"
    assert len(shown.text.splitlines()) == len(reversed_nfa.states) + 1


def test_diagram_dispatches_on_type() -> None:
    from sdg_automata.automaton.construction import ReachableAutomaton
    from sdg_automata.search.decide import Verdict

    assert {GrundyAutomaton, ReachableAutomaton, Verdict, GameGraph} <= set(diagram.registry)
    diagram(dfa(example3(), "A", 0))  # automata-lib's classes join on first use
    assert {DFA, NFA} <= set(diagram.registry)
    with pytest.raises(InputError, match="cannot draw a complex"):
        diagram(1j)


def test_importing_render_does_not_import_automata_lib() -> None:
    code = "import sys, sdg_automata.render; print('automata' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(Path(render.__file__).parents[1])})
    assert out.stdout.strip() == "False"
    code = "import sys, sdg_automata; print('sdg_automata.render' in sys.modules)"  # no kernel
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(Path(render.__file__).parents[1])})
    assert out.stdout.strip() == "False"


def test_size_caps_keep_big_automata_cheap(monkeypatch: pytest.MonkeyPatch) -> None:
    from sdg_automata.generators.families import ModularSpec, modular_family

    g = modular_family([ModularSpec(7, 1), ModularSpec(11, 3), ModularSpec(13, 5)])
    reachable = GrundyAutomaton(g).explore()
    assert len(reachable.states) > render.DRAW_LIMIT
    shown = diagram(reachable)
    assert shown.dot is None  # not drawn
    assert f"… {len(reachable.states) - render.TABLE_LIMIT} more states" in shown.text
    monkeypatch.setattr(display, "EXPLORE_LIMIT", 50)
    text = diagram(GrundyAutomaton(g))._repr_mimebundle_(include=["text/plain"])["text/plain"]
    assert "more than 50 reachable states" in text
    with pytest.raises(InputError, match="too large"):
        shown.svg()


def test_diagram_save_text_formats(tmp_path: Path) -> None:
    d = diagram(dfa(example3(), "A", 0))
    d.save(tmp_path / "m.dot")
    d.save(tmp_path / "m.txt")
    d.save(tmp_path / "m.html")
    assert parse_dot((tmp_path / "m.dot").read_text(encoding="utf-8"))[0]
    assert (tmp_path / "m.txt").read_text(encoding="utf-8") == d.text
    with pytest.raises(InputError, match="format"):
        d.save(tmp_path / "m.gif")
    with pytest.raises(InputError):
        diagram(object())


def test_svg_and_png_with_graphviz(tmp_path: Path) -> None:
    pytest.importorskip("pygraphviz")
    d = diagram(dfa(example3(), "A", 0, minimal=True))
    bundle = d._repr_mimebundle_()
    assert bundle["image/svg+xml"].lstrip().startswith(("<?xml", "<svg"))
    d.save(tmp_path / "m.svg")
    d.save(tmp_path / "m.png")
    assert (tmp_path / "m.svg").stat().st_size > 500
    assert (tmp_path / "m.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    gg = game_graph(example3(), None, 3)
    svg = render.dot_to_svg(game_graph_to_dot(gg))
    assert "(A, aab)" in svg and svg.count('class="node"') == len(gg.nodes) == 22


def test_a_drawing_is_what_every_frontend_renders(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should put the drawing in text/html, which JupyterLab, Notebook, VS Code and nbconvert
    render before image/svg+xml (issue 22 §1): the caption and the inline SVG, no table; the
    table only when nothing is drawn; Graphviz once per display, never for text alone."""
    pytest.importorskip("pygraphviz")
    from sdg_automata.search.decide import max_grundy

    calls: list[str] = []
    real = display.dot_to_svg

    def counted(dot: str, **kwargs: Any) -> str:
        calls.append(dot)
        return real(dot, **kwargs)

    monkeypatch.setattr(display, "dot_to_svg", counted)
    automaton = GrundyAutomaton(example3())
    for obj, caption in [(automaton, "GrundyAutomaton: 10 reachable states over {a, b}"),
                         (dfa(example3(), "A", 0), "DFA: 10 states, 3 final"),
                         (game_graph(example3(), None, 2), "game graph: 10 positions, 10 moves")]:
        calls.clear()
        bundle = diagram(obj)._repr_mimebundle_()
        assert len(calls) == 1
        page = bundle["text/html"]
        assert page.startswith(f"<p>{caption}</p>\n<svg ") and page.endswith("</svg>")
        assert "<table" not in page and "<?xml" not in page and "<!--" not in page
        assert bundle["image/svg+xml"].count('class="node"') == page.count('class="node"') >= 10
        assert bundle["text/plain"] == diagram(obj).text
        calls.clear()
        assert set(diagram(obj)._repr_mimebundle_(include=["text/plain"])) == {"text/plain"}
        assert set(diagram(obj)._repr_mimebundle_(exclude=["text/html", "image/svg+xml"])) == {
            "text/plain"}
        assert not calls  # nothing drawn that nobody shows
    calls.clear()
    verdict = diagram(max_grundy(example3(), "A"))._repr_mimebundle_()
    assert not calls and set(verdict) == {"text/plain", "text/html"}
    # the caption is a paragraph, not a <caption> as narrow as a two-column table
    assert verdict["text/html"].startswith("<p>max 𝒢_A = 2, witness &#x27;aa&#x27; — ")
    assert "<caption" not in verdict["text/html"]


def test_diagram_is_frozen() -> None:
    d = Diagram(text="t", html="h")
    with pytest.raises(AttributeError):
        d.text = "u"  # type: ignore[misc]


def test_a_slow_layout_shows_the_table_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pygraphviz")
    monkeypatch.setattr(display, "DRAW_SECONDS", 0.001)  # less than starting the layout child
    n = 30
    ring = DFA(states=set(range(n)), input_symbols={"a", "b"},
               transitions={k: {"a": (k + 1) % n, "b": (7 * k + 3) % n} for k in range(n)},
               initial_state=0, final_states={0})
    bundle = diagram(ring)._repr_mimebundle_()
    assert "image/svg+xml" not in bundle
    assert bundle["text/plain"].endswith("(not drawn: Graphviz's layout took more than 0.001 s)\n")
    assert "not drawn" in bundle["text/html"] and "<table>" in bundle["text/html"]


# ---------------------------------------------------------------------------
# the package of concepts (issue 26 §6)


def test_the_render_package_is_one_concept_per_module() -> None:
    """Should offer every name it lists, register the verdict display on import, and keep
    each module small."""
    from sdg_automata.render import dot, drawing, exports, notebook, tables, verdict

    assert all(hasattr(render, name) for name in render.__all__)
    assert verdict.Verdict in display.diagram.registry  # registered by importing the package
    for module in (dot, drawing, exports, notebook, tables, verdict, display):
        assert len(Path(module.__file__ or "").read_text(encoding="utf-8").splitlines()) <= 700


def test_classes_shown_by_name_are_where_their_name_says() -> None:
    """Should name each lazily shown class by the module IPython finds it in (its
    ``__module__``): ``for_type_by_name`` matches that, not a re-export."""
    import importlib

    for module, name in display.DISPLAYED_BY_NAME:
        cls = getattr(importlib.import_module(module), name)
        assert isinstance(cls, type) and cls.__module__ == module, (module, name)


def test_an_octal_period_is_shown() -> None:
    from sdg_automata.games.octal import OctalGame

    shown = diagram(OctalGame.parse("0.07").period())
    assert shown.caption.startswith("octal game 0.07: preperiod ")
