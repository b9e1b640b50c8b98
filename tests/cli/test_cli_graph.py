"""The ``graph`` subcommand (SPEC §7): tables, JSON, sums, and one-line input errors."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from sdg_automata.cli import main

GRAPHS = Path(__file__).resolve().parents[2] / "examples" / "graphs"
SUB = str(GRAPHS / "subtraction_123.json")
DAG = str(GRAPHS / "dag.json")
NIM = str(GRAPHS / "nim_heaps.json")


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run the command line in-process: (exit code, stdout, stderr)."""
    try:
        code = main(["graph", *argv])
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, DAG)
    assert code == 0 and err == ""
    assert out.splitlines() == [
        "position  grundy  outcome",
        "a              2  N",
        "b              0  P",
        "c              0  P",
        "d              1  N",
        "e              2  N",
        "t              0  P",
    ]


def test_misere_table(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, DAG, "--misere")
    assert code == 0
    rows = [line.split() for line in out.splitlines()[1:]]
    assert dict(rows) == {"a": "N", "b": "N", "c": "P", "d": "P", "e": "N", "t": "N"}
    assert "grundy" not in out


def test_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, SUB, "--json")
    assert code == 0
    data = json.loads(out)
    assert data == {"schema": "graph/1",
                    "positions": {str(n): {"grundy": n % 4, "outcome": "P" if n % 4 == 0 else "N"}
                                  for n in range(12, -1, -1)}}


def test_misere_json_has_outcomes_only(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, SUB, "--misere", "--json")
    assert code == 0
    positions = json.loads(out)["positions"]
    # misère subtraction {1,2,3}: P iff n ≡ 1 (mod 4)
    assert positions == {str(n): {"outcome": "P" if n % 4 == 1 else "N"}
                         for n in range(12, -1, -1)}


def test_sum_with_a_winning_move(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, SUB, "--sum", "5", "6", "10")
    assert code == 0
    assert out.splitlines() == [
        "component  position  grundy",
        "        0  5              1",
        "        1  6              2",
        "        2  10             2",
        "xor: 1",
        "winning move: component 0: 5 -> 4 (2 other winning moves)",
    ]


def test_sum_p_position(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, SUB, "--sum", "5", "6", "7")
    assert code == 0
    assert "xor: 0" in out and "P-position: no winning move" in out


def test_sum_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, str(GRAPHS / "nim_heaps.json"), "--sum", "h3", "h4", "h2",
                       "--json")
    assert code == 0
    assert json.loads(out) == {
        "schema": "graph/1",
        "components": [{"position": "h3", "grundy": 3}, {"position": "h4", "grundy": 4},
                       {"position": "h2", "grundy": 2}],
        "grundy": 5, "outcome": "N",
        "winning_moves": [{"component": 1, "from": "h4", "to": "h1"}],
    }
    code, out, _ = run(capsys, SUB, "--sum", "4", "4", "--json")
    data = json.loads(out)
    assert (data["grundy"], data["outcome"], data["winning_moves"]) == (0, "P", [])


def test_a_large_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    n = 100_000
    path = tmp_path / "path.json"
    path.write_text(json.dumps({"positions": {str(i): [str(i + 1)] for i in range(n - 1)}}))
    code, out, _ = run(capsys, str(path), "--json")
    assert code == 0
    positions = json.loads(out)["positions"]
    assert len(positions) == n and positions["0"] == {"grundy": 1, "outcome": "N"}


def write(tmp_path: Path, name: str, content: str | bytes) -> str:
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    return str(p)


BAD_INPUTS = {
    "missing file": (None, "no such file"),
    "directory": ("DIR", "is a directory"),
    "not UTF-8": (b'{"positions": {"\xff": []}}', "not UTF-8"),
    "bad JSON": ('{"positions": {\n  "x": ["y",]\n}}', r":2: invalid JSON: .*\(column 13\)"),
    "empty file": ("", ":1: invalid JSON"),
    "not an object": ('["x"]', ":1: a game graph must be a JSON object"),
    "unknown key": ('{"positions": {}, "edges": []}', ":1: unknown key 'edges'"),
    "no positions": ("{}", ":1: missing key 'positions'"),
    "followers not a list": ('{"positions": {\n"x": "y"}}', ":2: the followers of position 'x'"),
    "follower not a string": ('{"positions": {\n"x": [1]}}', ":2: follower 1 of position 'x'"),
    "duplicate": ('{"positions": {\n"x": [],\n"x": []}}', ":3: duplicate key 'x'"),
    "cycle": ('{"positions": {\n"s": ["x"],\n"x": ["y"],\n"y": ["z"],\n"z": ["x"]}}',
              ":3: the game graph has a cycle x -> y -> z -> x"),
}


@pytest.mark.parametrize("case", list(BAD_INPUTS))
def test_bad_inputs_in_process(case: str, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    content, message = BAD_INPUTS[case]
    if content is None:
        path = str(tmp_path / "missing.json")
    elif content == "DIR":
        path = str(tmp_path)
    else:
        path = write(tmp_path, "g.json", content)
    code, out, err = run(capsys, path)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith("error: ")
    assert re.search(message, err), err


@pytest.mark.parametrize("case", ["missing file", "bad JSON", "follower not a string", "cycle"])
def test_bad_inputs_subprocess(case: str, tmp_path: Path) -> None:
    content, message = BAD_INPUTS[case]
    path = str(tmp_path / "missing.json") if content is None else write(tmp_path, "g.json",
                                                                         content)
    proc = subprocess.run([sys.executable, "-m", "sdg_automata", "graph", path],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.splitlines()) == 1 and proc.stderr.startswith("error: ")


def test_unknown_position_in_sum(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, DAG, "--sum", "a", "nowhere")
    assert code == 2 and out == ""
    assert err == f"error: {DAG}: unknown position 'nowhere'\n"


def test_misere_sum_is_decided_by_the_quotient(capsys: pytest.CaptureFixture[str]) -> None:
    """Misère Nim (Bouton): a sum of heaps of 0 and 1 only is P iff it has an odd number of
    1s; otherwise P iff the XOR is 0.  The graph's heaps decide sums through its quotient."""
    cases = {("h1", "h1", "h1"): "P", ("h1", "h1"): "N", ("h2", "h2"): "P", ("h1", "h2"): "N",
             ("h3", "h2", "h1"): "P", ("h0",): "N", ("h1", "h0"): "P"}
    for parts, outcome in cases.items():
        code, out, err = run(capsys, NIM, "--sum", *parts, "--misere")
        assert code == 0 and err == ""
        assert out.startswith(" + ".join(parts) + f": {outcome}-position"), out
    code, out, _ = run(capsys, NIM, "--sum", "h1", "h3", "--misere", "--json")
    data = json.loads(out)
    assert data["schema"] == "misere/1" and data["outcome"] == "N"
    assert data["components"] == ["h1", "h3"]


def test_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys)
    assert code == 2 and err.startswith("error: ")
    code, _, err = run(capsys, DAG, "--sum")
    assert code == 2 and err.startswith("error: ")
