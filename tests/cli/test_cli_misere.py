"""``octal CODE --misere`` and ``graph FILE --misere``: outputs, exit codes, bad input.

The quotients' mathematics is tested in tests/games/; here the command line: what it
prints (text and ``misere/1`` JSON), exit 3 with a ``stopped/1`` object when the
quotient cannot be proven as far as asked, exit 2 for options that do not go together.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clirun import run

from sdg_automata import misere_quotient

GRAPHS = Path(__file__).resolve().parents[2] / "examples" / "graphs"


def test_the_quotient_in_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["octal", "0.75", "--misere", "--upto", "16"], capsys)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == "misère quotient of 0.75, heaps 1–16"
    assert "order       8" in lines and "P-portion   {a, b²}" in lines
    assert "proven for  heaps 1–16" in lines
    assert "multiplication table" in lines


def test_the_quotient_in_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["octal", "0.77", "--misere", "--upto", "12", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    q = misere_quotient("0.77", upto=12)
    assert data["schema"] == "misere/1" and data["code"] == "0.77"
    assert (data["order"], data["proven_to"], data["stopped"]) == (q.size, 12, None)
    assert data["orders"] == list(q.history) and len(data["elements"]) == q.size
    assert data["p_portion"] == [q.name_of(x, ascii=True) for x in range(q.size) if q.p[x]]


@pytest.mark.parametrize(("heaps", "outcome"), [("3,5,7", "N"), ("1,1,1", "P"), ("1,4", "N"),
                                                ("2,2", "P"), ("0,1", "P")])
def test_one_sum(capsys: pytest.CaptureFixture[str], heaps: str, outcome: str) -> None:
    code, out, _ = run(["octal", "0.77", "--misere", "--outcome", heaps], capsys)
    assert code == 0
    assert out.startswith(heaps.replace(",", " + ") + f": {outcome}-position")
    code, out, _ = run(["octal", "0.77", "--misere", "--outcome", heaps, "--json"], capsys)
    assert json.loads(out)["outcome"] == outcome


def test_the_forms_of_the_heaps(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["octal", "0.77", "--misere", "--forms", "--upto", "5"], capsys)
    assert code == 0
    rows = [line.split() for line in out.splitlines()[2:]]
    assert rows[0] == ["0", "0", "1", "N", "0", "*[0]"]
    assert rows[5] == ["5", "*4", "1", "N", "4¹⁴⁶", "*[2[2]321]"]  # genus: CGSuite's 4^146
    code, out, _ = run(["octal", "0.77", "--misere", "--forms", "--upto", "5", "--json"], capsys)
    games = json.loads(out)["games"]
    assert games[5] == {"position": "5", "nim_value": 4, "misere_nim_value": 1, "outcome": "N",
                        "genus": "4^146", "form": "*[2[2]321]"}


def test_not_proven_as_far_as_asked_is_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["octal", "0.07", "--misere", "--upto", "20", "--max-order", "16",
                          "--json"], capsys)
    assert code == 3 and err.startswith("error: the misère quotient of 0.07, heaps 1–20 is proven "
                                        "for heaps 1–") and err.count("\n") == 1
    first, stopped = (json.loads(line) for line in out.splitlines())
    assert first["schema"] == "misere/1" and first["proven_to"] < 20 and first["stopped"]
    assert stopped["schema"] == "stopped/1" and stopped["reason"] == "unproven"
    assert stopped["at"] == {"code": "0.07", "proven_to": first["proven_to"],
                             "order": first["order"]}
    assert f"heaps 1–{first['proven_to']} only (order {first['order']})" in err


def test_the_time_budget_is_exit_3(capsys: pytest.CaptureFixture[str]) -> None:
    # the quotient proven before the budget ran out is printed, as for --max-order
    argv = ["octal", "0.07", "--misere", "--upto", "200", "--max-seconds", "0.3"]
    code, out, err = run(argv, capsys)
    assert code == 3 and err.count("\n") == 1
    span = re.search(r"proven for (heaps 1–\d+|no heap) only \(order (\d+)\)", err)
    assert span is not None, err
    assert f"proven for  {span[1]} (not beyond: " in out and f"order       {span[2]}\n" in out
    code, out, err = run([*argv, "--json"], capsys)
    first, stopped = (json.loads(line) for line in out.splitlines())
    assert code == 3 and first["schema"] == "misere/1" and "budget" in first["stopped"]
    assert stopped["reason"] == "budget" and stopped["explored"] == first["proven_to"]
    assert stopped["at"] == {"code": "0.07", "proven_to": first["proven_to"],
                             "order": first["order"]}


@pytest.mark.parametrize("argv", [
    ["octal", "0.77", "--outcome", "1,2"], ["octal", "0.77", "--forms"],
    ["octal", "0.77", "--misere", "--certificate", "x.cert"],
    ["octal", "0.77", "--misere", "--outcome", "1,x"],
    ["octal", "0.77", "--misere", "--outcome", "9", "--upto", "5"],
    ["octal", "0.77", "--misere", "--forms", "--outcome", "1"],
    ["octal", "survey", "--misere", "--digits", "1"],
    ["graph", str(GRAPHS / "dag.json"), "--quotient"],
    ["graph", str(GRAPHS / "dag.json"), "--misere", "--quotient", "--sum", "a"],
    ["graph", str(GRAPHS / "dag.json"), "--misere", "--sum", "nowhere"],
])
def test_bad_input_is_one_line_exit_2(capsys: pytest.CaptureFixture[str],
                                      argv: list[str]) -> None:
    code, out, err = run(argv, capsys)
    assert code == 2 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1


def test_graph_quotient_and_forms(capsys: pytest.CaptureFixture[str]) -> None:
    nim = str(GRAPHS / "nim_heaps.json")
    code, out, _ = run(["graph", nim, "--misere", "--quotient", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["graph"] == nim and data["stopped"] is None
    # misère Nim with heaps up to 4: a² = 1 and b³ = b for the heaps 1 and 2, tame
    assert data["relations"][:2] == ["a^2 = 1", "b^3 = b"]
    code, out, _ = run(["graph", nim, "--misere", "--forms"], capsys)
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:]}
    assert rows["h4"] == ["*4", "4", "N", "4", "*[4]"]
    assert rows["h1"] == ["*", "0", "P", "1", "*[1]"]
