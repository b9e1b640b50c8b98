"""The command line for pictures and counting: dfa --format, game-graph, regex, count.

Expected figures come from SPEC §2 and from brute-force enumeration (409 words
of length 10 have 𝒢(A, w) = 0 in Example 3: all 2¹⁰ words evaluated with
semantics.grundy), never from running the command under test.  SVG/PNG tests
need the optional ``visual`` extra and are skipped without it.
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from itertools import product
from pathlib import Path
from typing import Any

import pytest
from automata.fa.dfa import DFA
from automata.fa.nfa import NFA
from clirun import run

from sdg_automata.automaton.construction import dfa
from sdg_automata.cli import main
from sdg_automata.derivation.semantics import grundy
from sdg_automata.grammar.parse import load_grammar
from sdg_automata.render import REGEX_STATE_LIMIT

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE3 = EXAMPLES / "example3.txt"




def assert_input_error(code: int, out: str, err: str, *fragments: str, exit: int = 2) -> None:
    assert code == exit and out == ""
    lines = err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    for fragment in fragments:
        assert fragment in lines[0], (fragment, lines[0])


def _no_pygraphviz(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pygraphviz", None)


# ---------------------------------------------------------------------------
# dfa --format


def test_dfa_dot_and_jff(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, _ = run(["dfa", EXAMPLE3, "A", "0", "--format", "dot", "--labels", "items"], capsys)
    assert code == 0 and out.startswith('digraph "DFA" {') and 'label="{A¹, aE⁰}"' in out
    assert out.count("doublecircle") == 3
    target = tmp_path / "m.jff"
    code, out, _ = run(["dfa", EXAMPLE3, "A", "0", "--minimal", "--format", "jff", "-o", target],
                       capsys)
    assert code == 0 and out == ""
    assert "<type>fa</type>" in target.read_text(encoding="utf-8")


def test_dfa_svg_without_graphviz_says_what_to_install(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    _no_pygraphviz(monkeypatch)
    for fmt in ("svg", "png"):
        code, out, err = run(["dfa", EXAMPLE3, "A", "0", "--format", fmt, "-o", "x"], capsys)
        assert_input_error(code, out, err, 'pip install "sdg_automata[visual]"', fmt.upper())
    code, out, _ = run(["dfa", EXAMPLE3, "A", "0", "--format", "dot"], capsys)
    assert code == 0 and "digraph" in out  # DOT still works


def test_dfa_svg_and_png(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("pygraphviz")
    code, out, _ = run(["dfa", EXAMPLE3, "A", "0", "--minimal", "--format", "svg"], capsys)
    assert code == 0 and "<svg" in out
    png = tmp_path / "m.png"
    code, out, _ = run(["dfa", EXAMPLE3, "A", "0", "--forward", "--format", "png", "-o", png],
                       capsys)
    assert code == 0 and out == ""
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 1000


# ---------------------------------------------------------------------------
# game-graph


def test_game_graph_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["game-graph", EXAMPLE3, "A", "--max-length", "2"], capsys)
    assert code == 0
    rows = {line.split("\t")[0]: line.split("\t")[1:] for line in out.splitlines()}
    assert rows["(A, aa)"] == ["2", "(A, a), ∅"]
    assert rows["(B, ba)"] == ["0", "(A, a)"]  # reached from (A, ba) by the unit rule
    assert rows["∅"] == ["0", "(no move)"]
    code, out, _ = run(["game-graph", EXAMPLE3, "--max-length", "3", "--format", "json"], capsys)
    nodes = json.loads(out)["nodes"]
    values = {tuple(map(tuple, n["position"])): n["grundy"] for n in nodes}
    # SPEC §2 lists wᴿ: 𝒢_A(w) = 2 for wᴿ ∈ {aa, baa}, 𝒢_B(w) = 0 for wᴿ ∈ {ab, aab, abb, bab}
    assert values[(("A", "aab"),)] == 2 and values[(("A", "aa"),)] == 2
    assert all(values[(("B", w[::-1]),)] == 0 for w in ("ab", "aab", "abb", "bab"))


def test_game_graph_dot_and_errors(capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(["game-graph", EXAMPLE3, "A", "B", "--format", "json"], capsys)
    moves = sum(len(n["moves"]) for n in json.loads(out)["nodes"])
    code, out, _ = run(["game-graph", EXAMPLE3, "A", "B", "--format", "dot"], capsys)
    assert code == 0 and out.startswith('digraph "SDG" {') and out.count(" -> ") == moves
    code, out, err = run(["game-graph", EXAMPLE3, "Z"], capsys)
    assert_input_error(code, out, err, "Z")
    code, out, err = run(["game-graph", EXAMPLE3, "--max-nodes", "4"], capsys)
    assert_input_error(code, out, err, "more than 4 positions", exit=3)  # a limit: exit 3
    _no_pygraphviz(monkeypatch)
    code, out, err = run(["game-graph", EXAMPLE3, "--format", "png", "-o", "x.png"], capsys)
    assert_input_error(code, out, err, "sdg_automata[visual]")


def test_game_graph_svg(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pytest.importorskip("pygraphviz")
    target = tmp_path / "g.svg"
    code, _, _ = run(["game-graph", EXAMPLE3, "A", "--max-length", "3", "--format", "svg",
                      "-o", target], capsys)
    assert code == 0 and target.stat().st_size > 1000
    assert "(A, aab)" in target.read_text(encoding="utf-8")


# ---------------------------------------------------------------------------
# regex


@pytest.mark.parametrize("value", [0, 1, 2])
def test_regex_reads_back_to_the_minimal_dfa(capsys: pytest.CaptureFixture[str],
                                             value: int) -> None:
    code, out, _ = run(["regex", EXAMPLE3, "A", value], capsys)
    assert code == 0
    back = DFA.from_nfa(NFA.from_regex(out.strip(), input_symbols={"a", "b"}))
    minimal = dfa(load_grammar(EXAMPLE3), "A", value, forward=True)
    assert back == minimal


def test_regex_json_empty_and_guard(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["regex", EXAMPLE3, "A", "2", "--json"], capsys)
    obj = json.loads(out)
    assert code == 0 and obj["nonterminal"] == "A" and obj["grundy"] == 2 and not obj["empty"]
    code, out, err = run(["regex", EXAMPLE3, "B", "2"], capsys)  # 𝒢_B never reaches 2
    assert code == 0 and out == "∅\n" and "no word" in err
    code, out, err = run(["regex", EXAMPLE3, "A", "0", "--max-dfa-states", "3"], capsys)
    assert_input_error(code, out, err, "8 states", "--max-dfa-states", exit=3)
    assert REGEX_STATE_LIMIT == 50  # the CLI's documented default


# ---------------------------------------------------------------------------
# count


def test_count_example3_length_10_matches_brute_force(capsys: pytest.CaptureFixture[str]) -> None:
    g = load_grammar(EXAMPLE3)
    brute = Counter(grundy(g, "A", "".join(t)) for t in product("ab", repeat=10))
    assert brute[0] == 409
    code, out, _ = run(["count", EXAMPLE3, "A", "0", "--length", "10", "--json"], capsys)
    assert code == 0
    assert json.loads(out) == {"schema": "count/1", "nonterminal": "A", "grundy": 0, "length": 10,
                               "count": 409}
    for value in (1, 2):
        code, out, _ = run(["count", EXAMPLE3, "A", value, "--length", "10"], capsys)
        assert out == f"{brute[value]}\n"


def test_count_gf_and_density(capsys: pytest.CaptureFixture[str]) -> None:
    import sympy

    code, out, _ = run(["count", EXAMPLE3, "A", "0", "--length", "10", "--gf", "--density",
                        "--json"], capsys)
    obj = json.loads(out)
    assert code == 0 and obj["count"] == 409
    gf = sympy.sympify(obj["gf"])
    x = sympy.Symbol("x")
    num, den = sympy.fraction(sympy.together(gf))
    # the coefficient of x¹⁰ by long division of the parsed expression
    p = sympy.Poly(num, x).all_coeffs()[::-1]
    q = sympy.Poly(den, x).all_coeffs()[::-1]
    coeffs: list[Any] = []
    for k in range(11):
        acc = p[k] if k < len(p) else 0
        acc -= sum(q[i] * coeffs[k - i] for i in range(1, min(k, len(q) - 1) + 1))
        coeffs.append(acc / q[0])
    assert coeffs[10] == 409
    assert obj["density"] == {"limit": "2/5", "period": 1, "limits": ["2/5"], "mean": "2/5"}
    code, out, _ = run(["count", EXAMPLE3, "A", "0", "--gf", "--density"], capsys)
    assert out.splitlines() == [f"gf: {obj['gf']}", "density: 2/5"]


def test_count_long_words_fast_and_exact(capsys: pytest.CaptureFixture[str]) -> None:
    # fast: the count's plan refuses up front a method estimated to be slow (budget.refuse_slow);
    # no clock here (a time bound fails on a loaded machine, issue 34 §7)
    code, out, _ = run(["count", EXAMPLE3, "A", "0", "--length", "2000"], capsys)
    assert code == 0
    assert abs(int(out) * 5 - 2 * 2**2000) < 2**1000
    code, out, _ = run(["count", EXAMPLE3, "A", "0", "--length", "16000", "--json"], capsys)
    digits = out.split('"count": ')[1].rstrip("}\n")
    assert digits.isdigit() and len(digits) > 4300  # beyond Python's default str limit


def test_count_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(["count", EXAMPLE3, "A", "0"], capsys)
    assert_input_error(code, out, err, "--length")
    code, out, err = run(["count", EXAMPLE3, "A", "0", "--length", "-1"], capsys)
    assert_input_error(code, out, err, "natural")
    cfg = tmp_path / "dyck.txt"
    cfg.write_text("S -> a S b | S S | a b\n", encoding="utf-8")
    code, out, err = run(["count", cfg, "S", "0", "--length", "4"], capsys)
    assert_input_error(code, out, err, "right-linear")
    code, out, err = run(["count", EXAMPLE3, "A", "0", "--length", "4", "--max-states", "2"],
                         capsys)
    assert code == 3 and "budget" in err
    code, out, err = run(["count", EXAMPLE3, "A", "0", "--gf", "--max-dfa-states", "2"], capsys)
    assert_input_error(code, out, err, "4 states", "--max-dfa-states", exit=3)


# ---------------------------------------------------------------------------
# conventions shared by every command (issue 13)


def test_start_option_wherever_a_grammar_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["check", EXAMPLE3, "--start", "B", "--json"], capsys)
    assert code == 0 and json.loads(out)["start"] == "B"
    code, out, _ = run(["check", EXAMPLE3, "--json"], capsys)
    assert json.loads(out)["start"] == "A"
    code, out, err = run(["check", EXAMPLE3, "--start", "Z"], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("error: --start 'Z': not a nonterminal") and "A, B" in err
    from sdg_automata.cli import build_parser

    def grammar_commands(parser: Any) -> list[Any]:
        found = []
        for action in parser._actions:
            if hasattr(action, "choices") and isinstance(action.choices, dict):
                for sub in action.choices.values():
                    found += grammar_commands(sub)
        if any(a.dest == "grammar" and not a.option_strings for a in parser._actions):
            found.append(parser)  # a GRAMMAR file argument
        return found

    commands = grammar_commands(build_parser())
    assert len(commands) >= 10
    assert all(any("--start" in a.option_strings for a in p._actions) for p in commands)


@pytest.mark.parametrize("argv", [
    ["max", EXAMPLE3, "A"], ["spectrum", EXAMPLE3], ["check", EXAMPLE3],
    ["grundy", EXAMPLE3, "A", "aab"], ["dfa", EXAMPLE3, "A", "0"],
    ["game-graph", EXAMPLE3, "--max-length", "2"], ["count", EXAMPLE3, "A", "0", "--length", "4"],
    ["period", "UNARY", "A"], ["graph", EXAMPLES / "graphs" / "dag.json"],
    ["imark", "value", "--S", "1", "--D", "2,3", "100"],
], ids=lambda argv: str(argv[0]) if argv[0] != "imark" else "imark value")
def test_json_and_format_json_are_the_same(argv: list[Any], tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    if "UNARY" in argv:  # a subtraction game, S = {1, 2}
        (tmp_path / "s12.txt").write_text("A -> a A | a a A | a | a a\n", encoding="utf-8")
        argv = [tmp_path / "s12.txt" if a == "UNARY" else a for a in argv]
    def without_timing(text: str) -> Any:
        data = json.loads(text) if text.lstrip().startswith("{") and "\n{" not in text.strip() \
            else [json.loads(line) for line in text.splitlines()]
        rows = data if isinstance(data, list) else [data]
        for row in rows:
            row.pop("seconds", None)
        return data

    code_a, a, _ = run([*argv, "--json"], capsys)
    code_b, b, _ = run([*argv, "--format", "json"], capsys)
    assert code_a == code_b == 0
    assert without_timing(a) == without_timing(b)
    code_c, c, _ = run(argv, capsys)
    assert code_c == 0 and c != a  # the default is the text form


def test_no_abbreviated_options_and_the_installed_name(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["max", EXAMPLE3, "A", "--max-st", "5"], capsys)
    assert code == 2 and "unrecognized arguments: --max-st 5" in err
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("usage: sdg-automata ")
    with pytest.raises(SystemExit):
        main(["imark", "survey", "--help"])
    assert capsys.readouterr().out.startswith("usage: sdg-automata imark survey ")


def test_imark_survey_json_streams_rows_as_they_finish(monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from sdg_automata.sweeps import imark, sinks

    real, seen = sinks.JsonlSink.write, []

    def spy(self: Any, row: dict[str, Any]) -> None:
        real(self, row)
        seen.append(capsys.readouterr().out)  # on stdout already, while the survey runs

    monkeypatch.setattr(sinks.JsonlSink, "write", spy)
    code, out, _ = run(["imark", "survey", "--max-s", "2", "--max-d", "3", "--upto", "40",
                        "--jobs", "1", "--format", "json"], capsys)
    assert code == 0 and out == ""  # nothing was left for the end
    assert len(seen) == len(imark.survey_instances(2, 3, max_d_size=2)) > 3
    rows = [json.loads(text) for text in seen]
    assert all(text.count("\n") == 1 for text in seen)
    assert all(row["schema"] == "imark-survey/1" and row["upto"] == 40 for row in rows)
