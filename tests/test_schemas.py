"""Every ``--json`` output has a published JSON Schema under docs/schemas/ and obeys it.

Each command's JSON form runs on the bundled examples (in-process, through
``main``) and every object it prints is validated against the schema its
``"schema"`` field names; the exchange formats (``dfa --format json``, the
grammar JSON of ``family``) are validated by name.  The parser is walked to
find every command with a JSON form, so a new command without a schema or a
case here fails :func:`test_every_json_command_is_covered`.  (The conftest also
validates every object any other CLI test prints.)
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import pytest

jsonschema = pytest.importorskip("jsonschema")
from schemas import SCHEMAS, validate, validator  # noqa: E402

from sdg_automata.cli import build_parser, main  # noqa: E402

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
E3 = str(EXAMPLES / "example3.txt")
DYCK = str(EXAMPLES / "dyck.txt")
UNARY = "UNARY"  # replaced by a subtraction-game grammar file
SWEEP_ROWS = "SWEEP_ROWS"  # replaced by the rows of a small sweep, written with --out
CASES: dict[str, list[list[str]]] = {
    "check": [["check", E3], ["check", DYCK, "--start", "S"]],
    "grundy": [["grundy", E3, "A", "aab", "b", "ba"], ["grundy", E3, "--position", "A:a", "A:aa"],
               ["grundy", DYCK, "S", "aabb", "ba"]],
    "max": [["max", E3, "A"], ["max", E3, "A", "1"], ["max", E3, "B", "--method", "explicit"],
            ["max", E3, "A", "--max-states", "3"], ["max", E3, "B", "2", "--strategy", "sat"],
            ["max", E3, "A", "--strategy", "sat", "--max-length", "1"]],
    "spectrum": [["spectrum", E3]],
    "regex": [["regex", E3, "A", "0"], ["regex", E3, "A", "5"]],
    "count": [["count", E3, "A", "0", "--length", "8"], ["count", E3, "A", "1", "--gf"],
              ["count", E3, "A", "2", "--density"]],
    "moves": [["moves", E3, "A:aab", "B:ba"], ["moves", DYCK, "S:aabb"]],
    "period": [["period", UNARY, "A"]],
    "graph": [["graph", str(EXAMPLES / "graphs" / "dag.json")],
              ["graph", str(EXAMPLES / "graphs" / "nim_heaps.json"), "--sum", "h3", "h4"]],
    "game-graph": [["game-graph", E3, "--max-length", "3"], ["game-graph", DYCK, "--max-length",
                                                             "4"]],
    "imark value": [["imark", "value", "--S", "1", "--D", "2,3", "100", "10^18"],
                    ["imark", "value", "--S", "2", "--D", "2", "5", "999999", "--max-c", "32"]],
    "imark sequence": [["imark", "sequence", "--S", "1", "--D", "2,3", "--upto", "30"]],
    "imark survey": [["imark", "survey", "--max-s", "2", "--max-d", "3", "--upto", "60",
                      "--jobs", "1"]],
    "dfa": [["dfa", E3, "A", "0"], ["dfa", E3, "A", "1", "--forward", "--minimal"]],
    "family modular": [["family", "modular", "3:1", "5:2"]],
    "family random": [["family", "random", "--dfas", "2", "--states", "3", "--seed", "1"]],
    "family intersection": [["family", "intersection", "--dfas", "2", "--states", "3",
                             "--length", "4"]],
    "family subtraction": [["family", "subtraction", "1,3,4"]],
    "octal": [["octal", "0.07"], ["octal", "0.16", "--upto", "100"],
              ["octal", "survey", "--digits", "2", "--upto", "100", "--jobs", "1", "--format",
               "json"]],
    "sweep grammars": [["sweep", "grammars", "--nonterminals", "2", "--letters", "ab",
                        "--max-rules", "2", "--max-body", "1", "--jobs", "1"]],
    "sweep summarize": [["sweep", "summarize", SWEEP_ROWS]],
}
#: exchange formats: their shape is another format's, so no "schema" field
EXCHANGE = {"dfa": "dfa", "family modular": "grammar", "family random": "grammar",
            "family intersection": "grammar", "family subtraction": "grammar"}


def _json_commands(parser: argparse.ArgumentParser, path: str = "") -> list[str]:
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                found += _json_commands(sub, f"{path} {name}".strip())
        elif "--json" in action.option_strings:
            found.append(path)
    return found


def _run(argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> list[Any]:
    if UNARY in argv:
        (tmp_path / "s134.txt").write_text("A -> a A | a a a A | a a a a A | a | a a a | a a a a\n",
                                           encoding="utf-8")
        argv = [str(tmp_path / "s134.txt") if a == UNARY else a for a in argv]
    if SWEEP_ROWS in argv:
        rows = str(tmp_path / "rows.jsonl")
        assert main(["sweep", "grammars", "--nonterminals", "1", "--letters", "ab",
                     "--max-rules", "2", "--max-body", "2", "--jobs", "1", "--out", rows]) == 0
        capsys.readouterr()
        argv = [rows if a == SWEEP_ROWS else a for a in argv]
    try:
        code = main(argv if "--format" in argv else [*argv, "--json"])
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    assert code in (0, 1, 3), err
    if code == 3:  # a budget ran out or a value is not provable: one error line
        assert err.startswith("error: ") and err.count("\n") == 1
    text = out.strip()
    if not text:
        return []
    try:
        return [json.loads(text)]  # one (possibly indented) document
    except json.JSONDecodeError:
        return [json.loads(line) for line in text.splitlines()]  # JSON lines


def test_every_schema_is_a_valid_json_schema() -> None:
    names = sorted(p.stem for p in SCHEMAS.glob("*.json"))
    assert len(names) >= 15
    for name in names:
        schema = validator(name).schema
        assert schema["$schema"].endswith("2020-12/schema") and schema["description"]
        assert schema["$id"] == f"urn:sdg-automata:schema:{name}/1"


def test_every_json_command_is_covered() -> None:
    commands = set(_json_commands(build_parser()))
    assert commands == set(CASES), (f"commands with a JSON form but no case here (and maybe no "
                                    f"schema in docs/schemas/): {sorted(commands - set(CASES))}")
    for command in commands:
        validator(EXCHANGE.get(command, command.replace(" ", "-")))  # the schema exists


@pytest.mark.parametrize("command", sorted(CASES))
def test_json_outputs_obey_their_schemas(command: str, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    seen = 0
    for argv in CASES[command]:
        for obj in _run(argv, tmp_path, capsys):
            if command in EXCHANGE:
                assert "schema" not in obj
                validate(obj, EXCHANGE[command])
            else:
                assert obj["schema"] == command.replace(" ", "-") + "/1"
                validate(obj)
            seen += 1
    assert seen >= 1


def test_the_schemas_can_fail() -> None:
    good = {"schema": "count/1", "nonterminal": "A", "grundy": 0, "length": 4, "count": 7}
    validate(good)
    for bad in ({**good, "count": -1}, {**good, "extra": 1}, {**good, "schema": "count/2"},
                {k: v for k, v in good.items() if k != "nonterminal"},
                {"schema": "count/1", "nonterminal": "A", "grundy": 0}):
        with pytest.raises((jsonschema.ValidationError, AssertionError)):
            validate(bad)
