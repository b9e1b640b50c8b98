"""The ``octal`` command line: one code, --grammar, survey; errors and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sdg_automata.cli import main
from sdg_automata.derivation.semantics import SubstringTable
from sdg_automata.games.octal import OctalGame, naive_values
from sdg_automata.grammar.parse import load_grammar


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
                          "values", "values_total"]
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


def test_time_budget_is_exit_3(capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Should stop at --max-seconds with exit 3 and the values reached: heaps to 10⁹ (the
    native kernels ended 0.16's default run inside 0.2 s), on a clock that moves with the
    budget's readings (tests/workclock.py), so the stop does not depend on the load."""
    from workclock import work_clock

    work_clock(monkeypatch, step=0.05)
    code, out, err = run(capsys, "0.16", "--upto", str(10**9), "--max-seconds", "0.2")
    assert (code, out) == (3, ""), (code, out, err)
    assert "values reached" in err and err.count("\n") == 1, err


@pytest.mark.parametrize("argv", [
    ["0.G"], ["4.07"], ["0.00"], ["survey"], ["survey", "--digits", "4"],
    ["0.77", "--digits", "2"], ["survey", "--digits", "1", "--grammar"], ["0.77", "--upto", "0"],
    ["0.77", "--jobs", "2"], ["0.77", "--connect-timeout", "5"], ["verify"],
    ["verify", "a.cert", "--digits", "2"],
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
    # --json: the same grammar in the JSON format (it printed the text form)
    code, shown, _ = run(capsys, "0.137", "--grammar", "--json")
    assert code == 0 and json.loads(shown)["start"] == "A"
    as_json = tmp_path / "dawson.json"
    as_json.write_text(shown, encoding="utf-8")
    assert load_grammar(as_json) == grammar


def test_one_output_option(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """Should write one code's result to --out FILE, or -o FILE (its alias), exactly what stdout
    shows, replacing the file atomically (issue 22 §3); a survey's --out appends instead."""
    code, shown, _ = run(capsys, "0.77", "--json")
    assert code == 0
    for option in ("--out", "-o"):
        path = tmp_path / f"kayles{option}.json"
        path.write_text("old content, replaced\n")
        assert run(capsys, "0.77", "--json", option, str(path))[:2] == (0, "")
        assert path.read_text() == shown
    # a survey's -o is its --out: it appends, resuming (a file given to it loses nothing)
    rows = tmp_path / "rows.jsonl"
    assert run(capsys, "survey", "--digits", "1", "--upto", "600", "--jobs", "1", "-o",
               str(rows))[0] == 0
    first = rows.read_text()
    assert len(first.splitlines()) == 7
    assert run(capsys, "survey", "--digits", "2", "--upto", "600", "--jobs", "1", "-o",
               str(rows))[0] == 0
    kept = rows.read_text()
    assert kept.startswith(first) and len(kept.splitlines()) == 7 + 56


@pytest.mark.parametrize(("form", "has", "lacks"), [
    ("survey", ["--digits", "--jobs", "--scheduler", "--retry-budget", "-o FILE, --out FILE"],
     ["--certificate", "--checkpoint", "--values", "CODE"]),
    ("verify", ["FILE", "the certificate", "--json"],
     ["--digits", "--jobs", "--certificate", "--upto", "CODE"]),
])
def test_forms_have_their_own_help(form: str, has: list[str], lacks: list[str]) -> None:
    """Should show under 'octal survey --help' and 'octal verify --help' that form's own
    usage, description, options and examples on stdout, exit 0, as a shell sees them."""
    done = subprocess.run([sys.executable, "-m", "sdg_automata", "octal", form, "--help"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == ""
    text = done.stdout
    assert text.startswith(f"usage: sdg-automata octal {form} ")
    assert all(h in text for h in has), text
    usage, options = text.split("\n\n")[0], text.split("options:")[1].split("exit codes:")[0]
    assert not any(f" {w}" in usage + options for w in lacks), text
    examples = text.split("examples:")[1].strip().splitlines()
    assert examples and all(f"octal {form} " in e for e in examples)
    whole = subprocess.run([sys.executable, "-m", "sdg_automata", "octal", "0.77", "--help"],
                           capture_output=True, text=True, timeout=60)
    assert whole.returncode == 0 and "--certificate" in whole.stdout  # a code's own help


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


def test_survey_default_budget_says_how_far(capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Should stop each code at the survey's default per-code budget (made tiny here) with
    a "budget" row that says how many values it reached; --max-seconds overrides it."""
    from sdg_automata.cli import octal as cli_octal

    monkeypatch.setattr(cli_octal, "SURVEY_SECONDS", 0.05)
    code, out, _ = run(capsys, "survey", "--digits", "1", "--upto", "2^20", "--jobs", "1",
                       "--format", "jsonl")
    officers = [json.loads(line) for line in out.splitlines()][5]
    assert code == 0 and officers["code"] == "0.6" and officers["status"] == "budget"
    assert officers["checked_to"] > 0
    assert f"{officers['checked_to']} values reached" in officers["error"]
    code, out, _ = run(capsys, "survey", "--digits", "1", "--upto", "3000", "--jobs", "1",
                       "--format", "jsonl", "--max-seconds", "600")
    officers = [json.loads(line) for line in out.splitlines()][5]
    assert (officers["status"], officers["checked_to"]) == ("ok", 3000)


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

    from sdg_automata.cli import build_parser
    from sdg_automata.games import octal

    usage = build_parser()._subparsers._group_actions[0].choices["octal"]  # type: ignore[union-attr]
    assert f"default {octal.DEFAULT_MAX_N}" in usage.format_help().replace("\n", " ")
    loaded = subprocess.run([sys.executable, "-c", "import sys; from sdg_automata.cli import "
                             "build_parser; build_parser(lazy=True); "
                             "print('numpy' in sys.modules)"],
                            capture_output=True, text=True, check=True).stdout.strip()
    assert loaded == "False"


@pytest.mark.parametrize("argv, what", [
    (["0.1", "--values", "2^64"], "listing --values 18446744073709551616"),
    (["0.77", "--values", "10^12"], "listing --values 1000000000000"),
    (["0.1", "--upto", "2^64"], "--upto 18446744073709551616 values"),
])
def test_what_cannot_fit_is_refused_up_front(capsys: pytest.CaptureFixture[str],
                                             argv: list[str], what: str) -> None:
    """Should refuse at once (exit 3, one line) what memory cannot hold (issue 21 §10)."""
    code, out, err = run(capsys, *argv)
    assert code == 3 and out == ""
    assert err.startswith(f"error: {argv[0]}: {what} needs about ") and err.count("\n") == 1


def test_default_budget_stops_a_long_run(capsys: pytest.CaptureFixture[str],
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """Should stop a run without --max-seconds at the default budget, with exit 3 saying how
    far it got (0.007 has no sparse space: its full mex to 2^20 is long)."""
    from sdg_automata.cli import octal as cli_octal

    monkeypatch.setattr(cli_octal, "DEFAULT_SECONDS", 0.3)
    monkeypatch.setattr(cli_octal, "SECONDS_PER_VALUE", 1e-9)
    code, out, err = run(capsys, "0.007", "--json", "--engine", "python")
    assert code == 3 and "budget of 0.3 s" in err and "values reached" in err
    assert err.count("\n") == 1
    stopped = json.loads(out)  # the one JSON rule of an exit 3 (README, "Exit codes")
    assert stopped["schema"] == "stopped/1" and stopped["reason"] == "budget"
    assert stopped["error"] in err and stopped["explored"] > 0


def test_engines_give_the_same_answer(capsys: pytest.CaptureFixture[str]) -> None:
    outs = []
    for engine in ("python", "compiled"):
        code, out, _ = run(capsys, "0.127", "--json", "--engine", engine)
        assert code == 0
        outs.append(json.loads(out))
    assert outs[0] == outs[1] and outs[0]["preperiod"] == 46578


def test_json_listing_is_capped_and_counted(capsys: pytest.CaptureFixture[str]) -> None:
    """Should list at most 1000 values by default and say how many define the sequence."""
    code, out, _ = run(capsys, "0.16", "--json")
    data = json.loads(out)
    assert code == 0 and len(data["values"]) == 1000
    assert data["values_total"] == 105351 + 149459
    assert data["values"] == naive_values(OctalGame.parse("0.16"), 1000)
    code, out, _ = run(capsys, "0.16", "--json", "--values", "1200")
    assert len(json.loads(out)["values"]) == 1200


def test_checkpoint_from_the_command_line(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    """Should keep the values at --max-states and finish from them on the next run."""
    path = tmp_path / "c.ckpt"
    code, _, err = run(capsys, "0.56", "--max-states", "100000", "--checkpoint", str(path))
    assert code == 3 and path.exists()
    code, out, _ = run(capsys, "0.56", "--checkpoint", str(path), "--json")
    assert code == 0 and json.loads(out)["preperiod"] == 326640


@pytest.mark.parametrize("argv", [
    ["verify"], ["verify", "a", "--values", "3"], ["0.77", "extra"],
    ["survey", "--digits", "1", "--certificate", "x"], ["verify", "x", "--upto", "5"],
    ["0.77", "--certificate", ""],
])
def test_misplaced_octal_options_exit_2(capsys: pytest.CaptureFixture[str],
                                        argv: list[str]) -> None:
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and err.startswith("error: ") and err.count("\n") == 1


def test_ctrl_c_inside_the_kernels_keeps_the_checkpoint(tmp_path: Path) -> None:
    """Should stop within moments of Ctrl-C while the compiled kernels run (they return to
    Python every ~0.1 s), exit 130 with one line, and leave the checkpoint written."""
    import signal
    import time

    path = tmp_path / "run.ckpt"
    child = subprocess.Popen([sys.executable, "-m", "sdg_automata", "octal", "0.1777", "--upto",
                              "2^27", "--engine", "compiled", "--checkpoint", str(path)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ticks = os.sysconf("SC_CLK_TCK")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # until it has computed for ~3 s of CPU (under load
        time.sleep(0.2)                 # numba alone may take seconds to load)
        fields = Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()
        if (int(fields[11]) + int(fields[12])) / ticks > 3:
            break
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=60)
    assert child.returncode == 130 and out == "", err
    assert err.startswith("error: interrupted after ") and err.count("\n") == 1
    assert path.exists()  # communicate's timeout catches a hang; no time bound (issue 34 §7)
    from sdg_automata.games.octal.valuefile import CHECKPOINT, read

    kept = read(str(path), schema=CHECKPOINT).values
    assert len(kept) > 0 and kept[:30].tolist() == naive_values(OctalGame.parse("0.1777"), 30)
