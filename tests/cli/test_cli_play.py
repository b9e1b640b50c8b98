"""The ``moves``, ``play`` and ``period`` commands (SPEC §2, §7).

``play`` reads moves from standard input when it is not a terminal, so a game
is scripted here: in process through :func:`sdg_automata.cli.main` with a
replaced ``sys.stdin``, and once end to end with ``python -m sdg_automata``.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest

from sdg_automata.cli import main
from sdg_automata.derivation.play import Analyzer, Game
from sdg_automata.generators.families import subtraction_grammar
from sdg_automata.grammar.parse import grammar_to_text, load_grammar


def run(capsys, *argv: str, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    if stdin is not None:
        assert monkeypatch is not None
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    try:
        code = main(list(argv))
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture()
def ex3(examples_dir) -> str:
    return str(examples_dir / "example3.txt")


def subtraction_file(tmp_path, subtraction) -> str:
    path = tmp_path / ("sub" + "".join(map(str, sorted(subtraction))) + ".txt")
    path.write_text(grammar_to_text(subtraction_grammar(subtraction)), encoding="utf-8")
    return str(path)


# ---------------------------------------------------------------------------
# moves


def test_moves_text(capsys, ex3):
    code, out, err = run(capsys, "moves", ex3, "A:aab", "B:ba")
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "position  A:aab B:ba"
    assert "2 xor 0 = 2" in lines[1] and "N-position" in lines[1]
    assert any("A:aab → A:b" in line and "wins" in line for line in lines)
    assert lines[-1] == "winning moves: 2"


def test_moves_json(capsys, ex3):
    code, out, _ = run(capsys, "moves", ex3, "A:aab", "B:ba", "--json")
    data = json.loads(out)
    assert code == 0 and data["grundy"] == 2 and data["outcome"] == "N"
    assert [(m["rule"], m["grundy"], m["winning"]) for m in data["moves"]] == [
        ("A -> a A", 1, False), ("A -> a a A", 0, True), ("B -> b A", 3, False)]
    assert data["winning"] == [1]
    assert data["position"] == [{"nonterminal": "A", "word": "aab", "grundy": 2},
                                {"nonterminal": "B", "word": "ba", "grundy": 0}]


def test_moves_p_position_and_methods(capsys, ex3):
    for method in ("auto", "dfa", "cyk"):
        code, out, _ = run(capsys, "moves", ex3, "A:aab", "A:aab", "--json", "--method", method)
        data = json.loads(out)
        assert code == 0 and data["grundy"] == 0 and data["winning"] == []
    code, out, _ = run(capsys, "moves", ex3, "A:aab", "A:aab")
    assert "P-position" in out and out.splitlines()[-1] == "winning moves: none"


@pytest.mark.parametrize("command", ["moves", "play"])
@pytest.mark.parametrize("part, message", [
    ("Aaab", "NONTERMINAL:WORD"),
    ("Z:ab", "not a nonterminal"),
    ("B:a", "not a position"),
    ("A:", "not a position"),
    ("A:xy", "not a position"),
])
def test_bad_position_arguments(capsys, monkeypatch, ex3, command, part, message):
    code, out, err = run(capsys, command, ex3, "A:aab", part, stdin="1\n",
                         monkeypatch=monkeypatch)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ") and message in err


# ---------------------------------------------------------------------------
# play, scripted


def test_play_engine_first_wins_from_an_n_position(capsys, monkeypatch, ex3):
    code, out, _ = run(capsys, "play", ex3, "A:aab", "B:ba", "--first", "engine",
                       stdin="1\n" * 20, monkeypatch=monkeypatch)
    assert code == 0
    assert "engine plays A:aab → A:b" in out  # the winning move
    assert out.rstrip().endswith("The engine wins.")


def test_play_human_first_from_a_p_position(capsys, monkeypatch, ex3):
    # A:aab A:aab is a P-position: every human move is an error, the engine wins
    for choice in ("1", "2"):  # a number too large later is refused, then 1 is played
        code, out, _ = run(capsys, "play", ex3, "A:aab", "A:aab",
                           stdin=f"{choice}\n1\n" * 30, monkeypatch=monkeypatch)
        assert f"your move [1-2, h, q]: {choice}" in out
        assert code == 0 and out.rstrip().endswith("The engine wins."), out


def test_play_human_errs_from_an_n_position(capsys, monkeypatch, ex3):
    # move 1 (A:aab → A:ab, to XOR 1) throws away the win; then the engine wins
    code, out, _ = run(capsys, "play", ex3, "A:aab", "B:ba", stdin="1\n" * 20,
                       monkeypatch=monkeypatch)
    assert code == 0 and "you play A:aab → A:ab" in out
    assert out.rstrip().endswith("The engine wins.")


def perfect_script(position, grammar) -> str:
    """The numbers a perfect human types, found by replaying the engine's game."""
    game = Game(Analyzer(grammar), position, to_move="human")
    lines = []
    while not game.over:
        if game.to_move == "engine":
            game.engine_move()
            continue
        analysis = game.analysis()
        move = analysis.winning_moves[0]
        lines.append(str(analysis.moves.index(move) + 1))
        game.play(move)
    return "".join(line + "\n" for line in lines)


def test_play_perfect_human_wins_with_hint_and_bad_input(capsys, monkeypatch, ex3):
    position = (("A", "aab"), ("B", "ba"))
    script = "h\nnonsense\n99\n" + perfect_script(position, load_grammar(ex3))
    code, out, _ = run(capsys, "play", ex3, "A:aab", "B:ba", stdin=script,
                       monkeypatch=monkeypatch)
    assert code == 0
    assert "hint: the position has Grundy number 2" in out and "← wins" in out
    assert "not a move: 'nonsense'" in out and "not a move: '99'" in out
    assert out.rstrip().endswith("You win!")


def test_play_end_of_input_and_quit(capsys, monkeypatch, ex3):
    code, out, _ = run(capsys, "play", ex3, "A:aab", stdin="", monkeypatch=monkeypatch)
    assert code == 0 and "game abandoned" in out
    code, out, _ = run(capsys, "play", ex3, "A:aab", stdin="q\n", monkeypatch=monkeypatch)
    assert code == 0 and "game abandoned" in out and "wins" not in out.splitlines()[-1]


def test_play_end_to_end(examples_dir):
    proc = subprocess.run(
        [sys.executable, "-m", "sdg_automata", "play", str(examples_dir / "example3.txt"),
         "A:aab", "B:ba", "--first", "engine"],
        input="1\n" * 20, capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.rstrip().endswith("The engine wins.")


# ---------------------------------------------------------------------------
# period


def test_period_json(capsys, tmp_path):
    code, out, _ = run(capsys, "period", subtraction_file(tmp_path, {1, 2}), "A", "--json")
    assert code == 0
    period = {"schema": "period/1", "nonterminal": "A"}
    assert json.loads(out) == {**period, "preperiod": 0, "period": 3, "values": [1, 2, 0]}
    code, out, _ = run(capsys, "period", subtraction_file(tmp_path, {1, 3, 4}), "A", "--json")
    assert json.loads(out) == {**period, "preperiod": 0, "period": 7,
                               "values": [1, 0, 1, 2, 3, 2, 0]}
    code, out, _ = run(capsys, "period", subtraction_file(tmp_path, {2, 3}), "A", "--json")
    assert json.loads(out) == {**period, "preperiod": 1, "period": 5,
                               "values": [1, 1, 0, 0, 2]}


def test_period_text(capsys, tmp_path):
    code, out, _ = run(capsys, "period", subtraction_file(tmp_path, {2, 3}), "A")
    assert code == 0
    lines = out.splitlines()
    assert lines[1] == "preperiod    1  (s(1) … s(1): ⊥)"
    assert lines[2] == "period       5"
    assert lines[3] == "values       1 1 0 0 2  (s(2) … s(6))"
    assert "lasso" in lines[4]


def test_period_refusals(capsys, ex3, tmp_path):
    code, out, err = run(capsys, "period", ex3, "A")
    assert code == 2 and out == "" and err.startswith("error: ") and "one letter" in err
    cfg = tmp_path / "cfg.txt"
    cfg.write_text("A -> A A | a\n", encoding="utf-8")
    code, _, err = run(capsys, "period", str(cfg), "A")
    assert code == 2 and "right- or left-linear" in err and err.count("\n") == 1
    code, _, err = run(capsys, "period", subtraction_file(tmp_path, {1}), "Z")
    assert code == 2 and "not a nonterminal" in err
    code, _, err = run(capsys, "period", subtraction_file(tmp_path, {3, 5}), "A",
                       "--max-states", "2")
    assert code == 3 and err.startswith("error: ")
