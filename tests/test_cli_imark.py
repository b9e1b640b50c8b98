"""The ``imark`` command line: value, sequence, survey; errors and exit codes."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys

import pytest

from sdg_automata.cli import main
from sdg_automata.imark import imark_cache_clear, imark_sequence


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
    assert out.split() == [str(imark_sequence([2], [2], upto=5)[5])]  # only the proven one
    assert err.startswith("error: ") and err.count("\n") == 1
    assert "m = " in err and "c = 64" in err


@pytest.mark.parametrize(("argv", "match"), [
    (["value", "--S", "0", "--D", "2", "5"], "S must contain integers ≥ 1"),
    (["value", "--S", "1", "--D", "1", "5"], "D must contain integers ≥ 2"),
    (["value", "--S", "", "--D", "", "5"], "both empty"),
    (["value", "--S", "1", "--D", "2,x", "5"], "comma-separated"),
    (["value", "--S", "1", "--D", "2", "five"], "not a natural number"),
    (["value", "--S", "1", "--D", "2", "-5"], ""),
    (["value", "--S", "1", "--D", "2", "5", "--c", "0"], "c must be"),
    (["value", "--D", "2", "5"], "--S"),
    (["sequence", "--S", "1", "--D", "2"], "--upto"),
    (["sequence", "--S", "1", "--D", "2", "--upto", "10^20"], "beyond the naive"),
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
