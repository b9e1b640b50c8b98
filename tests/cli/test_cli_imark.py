"""The ``imark`` command line: value, sequence, survey; errors and exit codes."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from sdg_automata.cli import main
from sdg_automata.games.imark import imark_cache_clear, imark_sequence


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the CLI in-process; (exit code, stdout, stderr)."""
    try:
        code = main(["imark", *argv])
    except SystemExit as e:  # errors leave through _fail
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_value_plain_several_n(capsys):
    g = imark_sequence([1], [2, 3], upto=1000)
    code, out, err = run(capsys, "value", "--S", "1", "--D", "2,3", "0", "7", "1000")
    assert code == 0 and err == ""
    assert out.split() == [str(g[0]), str(g[7]), str(g[1000])]


def test_value_json_objects(capsys):
    imark_cache_clear()
    code, out, _ = run(capsys, "value", "--S", "1", "--D", "2,3", "1000000", "10^18", "--json")
    assert code == 0
    first, second = (json.loads(line) for line in out.splitlines())
    assert set(first) == {"schema", "S", "D", "n", "grundy", "c"}
    assert first["S"] == [1] and first["D"] == [2, 3] and first["n"] == 10**6
    assert first["grundy"] == 0 and first["c"] >= 1
    assert second["n"] == 10**18 and second["grundy"] == 2


def test_value_number_notations(capsys):
    code, out, _ = run(capsys, "value", "--S", "1", "--D", "2,3", "1e6", "10**6", "1_000_000",
                       "--json")
    assert code == 0
    assert {json.loads(line)["n"] for line in out.splitlines()} == {10**6}


def test_value_with_fixed_c(capsys):
    code, out, _ = run(capsys, "value", "--S", "1", "--D", "2,3", "10^30", "--c", "32", "--json")
    assert code == 0 and json.loads(out)["c"] == 32


def test_unprovable_value_is_exit_3_never_a_number(capsys):
    code, out, err = run(capsys, "value", "--S", "2", "--D", "2", "5", "10^6", "--max-c", "64")
    assert code == 3
    # the proven value, then the unprovable n's line (no number)
    assert out.split() == [str(imark_sequence([2], [2], upto=5)[5]), "unproven"]
    assert err.startswith("error: ") and err.count("\n") == 1
    assert "m = " in err and "c = 64" in err


@pytest.mark.parametrize("engine", ["layers", "reference"])
def test_batch_prints_every_provable_value(capsys, engine):
    # issue 15: an unprovable n no longer hides the values after it
    g = imark_sequence([2], [2], upto=10)
    code, out, err = run(capsys, "value", "--S", "2", "--D", "2", "999999", "10", "999998",
                         "--max-c", "32", "--engine", engine)
    assert code == 3
    lines = out.splitlines()
    assert len(lines) == 3 and lines[1] == str(g[10])
    assert lines[0] == "unproven" and lines[2] in ("unproven", "0", "1", "2")
    errors = err.splitlines()
    assert all(e.startswith("error: ") for e in errors)
    assert len(errors) == lines.count("unproven") and "n = 999999" in errors[0]
    code, out, _ = run(capsys, "value", "--S", "2", "--D", "2", "999999", "10", "--max-c", "32",
                       "--json", "--engine", engine)
    first, second = (json.loads(line) for line in out.splitlines())
    assert code == 3 and first["schema"] == "stopped/1" and first["reason"] == "unproven"
    at = first["at"]  # the unprovable n's line: the stopped/1 object, saying where it failed
    assert at["n"] == 999999 and at["tried"] == [8, 16, 32] and isinstance(at["m"], int)
    assert second == {"schema": "imark-value/1", "S": [2], "D": [2], "n": 10, "grundy": g[10],
                      "c": 8}


def test_engines_agree_and_10_to_the_1000(capsys):
    code, out, _ = run(capsys, "value", "--S", "1", "--D", "2,3", "10^60", "--json")
    code2, out2, _ = run(capsys, "value", "--S", "1", "--D", "2,3", "10^60", "--json",
                         "--engine", "reference")
    assert code == code2 == 0 and out == out2
    code, out, _ = run(capsys, "value", "--S", "1", "--D", "2,3", "10^1000")
    assert code == 0 and out.strip() in ("0", "1", "2", "3")


@pytest.mark.parametrize(("argv", "match"), [
    (["value", "--S", "0", "--D", "2", "5"], "S must contain integers ≥ 1"),
    (["value", "--S", "1", "--D", "1", "5"], "D must contain integers ≥ 2"),
    (["value", "--S", "", "--D", "", "5"], "both empty"),
    (["value", "--S", "1", "--D", "2,x", "5"], "comma-separated"),
    (["value", "--S", "1", "--D", "2", "five"], "not a natural number"),
    (["value", "--S", "1", "--D", "2", "-5"], ""),
    (["value", "--S", "1", "--D", "2", "5", "--c", "0"], "argument --c: '0' must be at least 1"),
    (["value", "--S", "1", "--D", "2", "5", "--c", "-1"], "argument --c: '-1' must be at least"),
    (["value", "--S", "1", "--D", "2", "5", "--max-c", "0"], "argument --max-c: '0'"),
    (["value", "--S", "1", "--D", "2", "5", "--max-seconds", "-1"], "--max-seconds"),
    (["value", "--S", "1", "--D", "2", "5", "--max-seconds", "nan"], "--max-seconds"),
    (["value", "--S", "1", "--D", "2", "5", "--engine", "fast"], "--engine"),
    (["value", "--S", "99999999999999999999", "--D", "2", "10"], "guess vectors"),
    (["value", "--S", "100000", "--D", "2", "10"], "guess vectors"),
    (["survey", "--max-c", "0"], "--max-c"),
    (["survey", "--max-s", "40"], "instances"),
    (["value", "--D", "2", "5"], "--S"),
    (["sequence", "--S", "1", "--D", "2"], "--upto"),

    (["survey", "--jobs", "0"], "--jobs"),
    ([], "subcommand"),
])
def test_input_errors_exit_2(capsys, argv, match):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and match in err


def test_sequence_streams_values(capsys):
    code, out, _ = run(capsys, "sequence", "--S", "1", "--D", "2,3", "--upto", "200")
    assert code == 0
    assert [int(x) for x in out.split()] == list(imark_sequence([1], [2, 3], upto=200))
    code, out, _ = run(capsys, "sequence", "--S", "", "--D", "2", "--upto", "8", "--json")
    rows = [json.loads(line) for line in out.splitlines()]
    assert rows[8] == {"schema": "imark-sequence/1", "n": 8, "grundy": 1} and len(rows) == 9


def test_survey_json(capsys):
    code, out, err = run(capsys, "survey", "--max-s", "2", "--max-d", "3", "--upto", "300",
                         "--format", "json", "--jobs", "1")
    assert code == 0 and err == ""  # no progress bar off a terminal
    rows = [json.loads(line) for line in out.splitlines()]
    assert [(r["S"], r["D"]) for r in rows][:3] == [([1], [2]), ([1], [3]), ([1], [2, 3])]
    by = {(tuple(r["S"]), tuple(r["D"])): r for r in rows}
    assert by[(1,), (2, 3)]["c"] == 9 and by[(1,), (2, 3)]["converges"]
    assert by[(2,), (2,)]["failed_start"] == 3 and by[(2,), (2,)]["c"] is None


def test_survey_csv_and_table(capsys):
    code, out, _ = run(capsys, "survey", "--max-s", "1", "--max-d", "3", "--upto", "200",
                       "--format", "csv", "--jobs", "2")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert [r["D"] for r in rows] == ["{2}", "{3}", "{2,3}"]
    assert rows[2]["c"] == "9" and rows[2]["failed_start"] == ""
    code, out, _ = run(capsys, "survey", "--max-s", "2", "--max-d", "2", "--upto", "100")
    assert code == 0
    assert "converges" in out and "no convergence from start 3" in out
    assert "1 of 3 instances converge" in out


def test_module_entry_point():
    proc = subprocess.run(
        [sys.executable, "-m", "sdg_automata", "imark", "value", "--S", "1", "--D", "2,3",
         "10^50", "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["n"] == 10**50


# ---------------------------------------------------------------------------
# budgets and impossible parameters (issue 15): one error line, exit 3, within seconds


def _cli(*argv: str, timeout: float = 60, limit_bytes: int | None = None
         ) -> tuple[int, str, str, float]:
    """The CLI as a separate process (optionally under an address-space limit)."""
    import time

    def limit() -> None:
        import resource

        if limit_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "sdg_automata", "imark", *argv],
                          capture_output=True, text=True, timeout=timeout, preexec_fn=limit)
    return proc.returncode, proc.stdout, proc.stderr, time.perf_counter() - t


def _one_error(err: str) -> None:
    assert "Traceback" not in err
    assert err.splitlines()[-1].startswith("error: ")


def test_survey_jobs_over_budget_are_rows():
    """A survey is a sweep: a job over its budget is a row saying so, not a failed survey."""
    code, out, err, seconds = _cli("survey", "--max-s", "1", "--max-d", "3", "--upto",
                                   "3000000", "--max-seconds", "0.5", "--jobs", "1",
                                   "--format", "json")
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    assert [r["status"] for r in rows] == ["budget"] * 3
    assert all("0.5 s" in r["error"] and r["converges"] is None for r in rows)
    del seconds  # the rows' budget messages are the proof; _cli's timeout catches a hang


@pytest.mark.parametrize(("argv", "match"), [
    (["value", "--S", "1", "--D", "2,3", "10^1000", "--max-seconds", "0.3"], "0.3 s"),
    (["value", "--S", "1", "--D", "2,3", "10^1000", "--max-states", "500"], "500 intervals"),
    (["value", "--S", "1", "--D", "2,3", "10^1000", "--max-states", "500", "--engine",
      "reference"], "intervals"),
    (["value", "--S", "1", "--D", "2,3,5,7", "10^1000"], "columns of intervals"),
    (["sequence", "--S", "1", "--D", "2", "--upto", "10^10"], "more than the limit"),
    (["sequence", "--S", "1", "--D", "", "--upto", "10^10", "--max-seconds", "0.5"], "0.5 s"),
])
def test_budgets_exit_3_quickly(argv, match):
    code, out, err, seconds = _cli(*argv)
    assert code == 3, err
    _one_error(err)
    assert match in err.splitlines()[-1]  # the budget's message: no clock of the test's
    del seconds  # (a loaded machine stretches it, issue 34 §7); _cli's timeout: a hang


def test_sequence_streams_in_bounded_memory():
    # D = ∅: nothing is read back beyond max S, so 10^6 values stream in a small table
    code, out, err, _ = _cli("sequence", "--S", "1,2", "--D", "", "--upto", "10^6")
    assert code == 0 and err == ""
    values = out.split()
    assert len(values) == 10**6 + 1 and values[:4] == ["0", "1", "2", "0"]
    assert values[-1] == str(10**6 % 3)


def test_memory_error_is_a_budget_row():
    # a survey table of 10^8 starts needs about 0.9 GB: under a 600 MB address space the
    # allocation fails, and the survey (a sweep) reports that job as over its budget
    # (--max-seconds: without a time budget a survey this long is refused up front)
    code, out, err, _ = _cli("survey", "--max-s", "1", "--max-d", "2", "--upto", "10^8",
                             "--jobs", "1", "--format", "json", "--max-seconds", "120",
                             limit_bytes=600 << 20)
    assert code == 0 and "Traceback" not in err, err
    (row,) = [json.loads(line) for line in out.splitlines()]
    assert row["status"] == "budget" and "out of memory" in row["error"]


def test_ctrl_c_is_exit_130():
    import signal
    import time

    proc = subprocess.Popen([sys.executable, "-m", "sdg_automata", "imark", "value", "--S", "1",
                             "--D", "2,3", "10^1000", "--engine", "reference"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert err.splitlines()[-1].startswith("error: interrupted") and "Traceback" not in err


@pytest.mark.parametrize("argv", [["survey", "--max-d", "64", "--jobs", "1"],
                                  ["survey", "--max-c", "100000", "--jobs", "1"]])
def test_survey_too_large_without_a_time_budget_is_refused(capsys, argv):
    # worst case instances × starts × max_c beyond 10^9 steps: refused up front (exit 3)
    code, out, err = run(capsys, *argv)
    assert code == 3 and out == ""
    assert err.startswith("error: this survey may run") and err.count("\n") == 1


@pytest.mark.parametrize("engine", ["layers", "reference"])
def test_a_huge_window_obeys_the_time_budget(capsys, engine, monkeypatch):
    """Should stop near --max-seconds (issue 21 §10: --c 10^9 --max-seconds 2 ran over 30 s
    and 707 MB, computing the naive table of 2c values outside the budget).

    As a count, not a time (CPU time failed on a loaded machine, issue 34 §7): the budgets'
    clock moves 0.05 s a reading (tests/workclock.py), so 0.5 s is about 10 checks, each
    after a chunk of the naive table, which must be inside the budget: it stops there,
    before its 2c = 10⁷ positions."""
    import re

    from workclock import work_clock

    clock = work_clock(monkeypatch, step=0.05)
    # its naive table (10⁷ positions) is estimated at ~1 s: started, and stopped at 0.5 s
    code, _, err = run(capsys, "value", "--S", "1", "--D", "2,3", "10^18", "--c", "5000000",
                       "--max-seconds", "0.5", "--engine", engine)
    assert code == 3 and "stopped at the budget of 0.5 s" in err and err.count("\n") == 1
    reached = re.search(r"naive i-Mark sequence stopped .* \((\d+) positions reached\)", err)
    assert reached is not None and int(reached.group(1)) < 10**7 and clock.readings <= 30
    # a window whose table is estimated at 200 s is refused before any work (with room for
    # its 18 GB: the memory refusal, which comes first, depends on the machine's state)
    from sdg_automata.games.imark import convergence

    monkeypatch.setattr(convergence, "available_bytes", lambda: 1 << 40)
    code, _, err = run(capsys, "value", "--S", "1", "--D", "2,3", "10^18", "--c", "10^9",
                       "--max-seconds", "2", "--engine", engine)
    assert code == 3 and "would take about 200 s" in err


def test_a_window_that_cannot_fit_is_refused_up_front(capsys, monkeypatch):
    """Should refuse at once, naming the bytes, when the window's table cannot fit."""

    from sdg_automata.games.imark import convergence

    monkeypatch.setattr(convergence, "available_bytes", lambda: 10**9)
    code, out, err = run(capsys, "value", "--S", "1", "--D", "2,3", "10^18", "--c", "10^9",
                         "--json")
    assert code == 3 and "the window c = 1,000,000,000 needs at least" in err
    # at once: nothing explored before the refusal (a count, not a clock: issue 34 §7)
    assert json.loads(out)["reason"] == "budget" and json.loads(out)["explored"] in (0, None)
