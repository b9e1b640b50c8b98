"""The ``octal`` command line: one code, --grammar, survey; errors and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from sdg_automata.cli import main
from sdg_automata.octal import OctalGame, naive_values
from sdg_automata.parse import load_grammar
from sdg_automata.semantics import SubstringTable


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the CLI in-process; (exit code, stdout, stderr)."""
    try:
        code = main(["octal", *argv])
    except SystemExit as e:  # errors leave through fail()
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_json_is_the_issue_shape(capsys: pytest.CaptureFixture[str]) -> None:
    """Should print one JSON object with the first preperiod + period values."""
    code, out, err = run(capsys, "0.07", "--json")
    assert code == 0 and err == ""
    data = json.loads(out)
    assert list(data) == ["schema", "code", "preperiod", "period", "certified", "checked_to",
                          "values"]
    assert (data["code"], data["preperiod"], data["period"], data["certified"]) == \
        ("0.07", 53, 34, True)
    assert data["values"] == naive_values(OctalGame.parse("0.07"), 53 + 34)
    assert data["checked_to"] >= 2 * 53 + 2 * 34 + 2


def test_text_and_values(capsys: pytest.CaptureFixture[str]) -> None:
    """Should print the period and as many values as --values asks, past the period too."""
    code, out, _ = run(capsys, ".77", "--values", "200")
    assert code == 0
    head, values = out.splitlines()
    assert head.startswith("0.77: period 12, preperiod 71")
    assert values.split()[5:] == [str(v) for v in naive_values(OctalGame.parse("0.77"), 200)]
    code, out, _ = run(capsys, "0.77", "--values", "5", "--json")
    assert json.loads(out)["values"] == [0, 1, 2, 3, 1]


def test_open_game_is_exit_3_with_the_values_reached(capsys: pytest.CaptureFixture[str]) -> None:
    """Should exit 3 naming how far it got, and print the stopped/1 object in JSON."""
    code, out, err = run(capsys, "0.6", "--upto", "2000")
    assert code == 3 and out == ""
    assert err.startswith("error: 0.6: no period proven up to n = 1999 (2000 values computed)")
    code, out, err = run(capsys, "0.6", "--upto", "2000", "--json")
    stop = json.loads(out)
    assert code == 3 and stop["reason"] == "unproven" and err.count("\n") == 1
    assert stop["at"] == {"code": "0.6", "checked_to": 2000} and stop["explored"] == 2000


def test_time_budget_is_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    """Should stop at --max-seconds with exit 3 and the values reached."""
    code, out, err = run(capsys, "0.16", "--max-seconds", "0.2")
    assert code == 3 and out == ""
    assert "values reached" in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [
    ["0.8"], ["4.07"], ["0.00"], ["survey"], ["survey", "--digits", "4"],
    ["0.77", "--digits", "2"], ["survey", "--digits", "1", "--grammar"], ["0.77", "--upto", "0"],
    ["0.77", "--jobs", "2"], ["0.77", "--out", "x.jsonl"],
    ["0.77", "--max-seconds", "nan"], ["0.07", "--grammar"],
])
def test_bad_input_is_one_line_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    """Should refuse bad codes, misplaced options and non-SDG grammars with one line, exit 2."""
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1


def test_grammar_round_trips_through_grundy(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    """Should write a grammar that the grundy command (and the CFG table) evaluates as the game."""
    path = tmp_path / "dawson.txt"
    code, _, _ = run(capsys, "0.137", "--grammar", "-o", str(path))
    assert code == 0
    grammar = load_grammar(path)
    table = SubstringTable(grammar, "a" * 40)
    truth = naive_values(OctalGame.parse("0.137"), 41)
    assert [table.grundy("A", 0, n) for n in range(1, 41)] == truth[1:]
    assert main(["grundy", str(path), "A", "a" * 13]) == 0
    assert capsys.readouterr().out.split() == [str(truth[13])]


def test_survey_rows_and_resume(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Should stream one JSON row per code on the sweep engine, and resume from --out."""
    code, out, err = run(capsys, "survey", "--digits", "1", "--upto", "1500", "--jobs", "1",
                         "--format", "jsonl")
    assert code == 0
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["code"] for r in rows] == [f"0.{d}" for d in range(1, 8)]
    assert rows[3]["preperiod"] == 54 and rows[3]["period"] == 34  # 0.4
    assert rows[5]["certified"] is False and rows[5]["checked_to"] == 1500  # 0.6, open
    path = tmp_path / "survey.jsonl"
    path.write_text(out.splitlines()[0] + "\n")  # as if killed after the first row
    code, out, err = run(capsys, "survey", "--digits", "1", "--upto", "1500", "--jobs", "2",
                         "--out", str(path))
    assert code == 0 and "6 rows (6 ok" in err and "1 skipped" in err
    done = [json.loads(line) for line in path.read_text().splitlines()]
    assert sorted(r["code"] for r in done) == [f"0.{d}" for d in range(1, 8)]


def test_survey_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Should show open codes as "open" in the terminal table."""
    code, out, _ = run(capsys, "survey", "--digits", "1", "--upto", "1500", "--jobs", "1",
                       "--format", "table")
    assert code == 0
    lines = out.splitlines()
    assert lines[0].split() == ["code", "preperiod", "period", "values", "seconds"]
    assert lines[6].split()[:2] == ["0.6", "open"] and lines[3].split()[:3] == ["0.3", "0", "2"]


def test_as_a_process() -> None:
    """Should run as ``python -m sdg_automata octal`` with the documented exit code."""
    done = subprocess.run([sys.executable, "-m", "sdg_automata", "octal", "0.77", "--json"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and json.loads(done.stdout)["period"] == 12


def test_help_defaults_are_the_librarys() -> None:
    """The help names the library's limits (its own constants), and only ``octal`` loads numpy."""
    import subprocess
    import sys

    from sdg_automata import octal
    from sdg_automata.cli import build_parser

    usage = build_parser()._subparsers._group_actions[0].choices["octal"]  # type: ignore[union-attr]
    assert f"default {octal.DEFAULT_MAX_N}" in usage.format_help().replace("\n", " ")
    loaded = subprocess.run([sys.executable, "-c", "import sys; from sdg_automata.cli import "
                             "build_parser; build_parser(lazy=True); "
                             "print('numpy' in sys.modules)"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "False"
