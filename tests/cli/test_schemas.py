"""Every ``--json`` output has a published JSON Schema under sdg_automata/schemas/ and obeys it.

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
from sdg_automata.cli.jsonout import SCHEMA_VERSIONS  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
E3 = str(EXAMPLES / "example3.txt")
DYCK = str(EXAMPLES / "dyck.txt")
UNARY = "UNARY"  # replaced by a subtraction-game grammar file
SWEEP_ROWS = "SWEEP_ROWS"  # replaced by the rows of a small sweep, written with --out
OCTAL_CERTIFICATE = "OCTAL_CERTIFICATE"  # replaced by a certificate of 0.45
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
              ["graph", str(EXAMPLES / "graphs" / "nim_heaps.json"), "--sum", "h3", "h4"],
              ["graph", str(EXAMPLES / "graphs" / "dag.json"), "--misere", "--quotient"],
              ["graph", str(EXAMPLES / "graphs" / "nim_heaps.json"), "--misere", "--sum", "h1",
               "h2"],
              ["graph", str(EXAMPLES / "graphs" / "dag.json"), "--misere", "--forms"]],
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
    "family ring": [["family", "ring", "3"]],
    "family counting": [["family", "counting", "3"], ["family", "counting", "3", "--length", "8",
                                                      "--noise", "1"]],
    "octal": [["octal", "0.07"], ["octal", "0.16", "--upto", "100"],
              ["octal", "0.75", "--misere", "--upto", "12"],
              ["octal", "0.77", "--misere", "--outcome", "3,5,7"],
              ["octal", "0.77", "--misere", "--forms", "--upto", "6"],
              ["octal", "0.3F", "--misere", "--upto", "12", "--max-order", "16"],
              ["octal", "verify", OCTAL_CERTIFICATE],
              ["octal", "survey", "--digits", "2", "--upto", "100", "--jobs", "1", "--format",
               "json"]],
    "sweep grammars": [["sweep", "grammars", "--nonterminals", "2", "--letters", "ab",
                        "--max-rules", "2", "--max-body", "1", "--jobs", "1"],
                       ["sweep", "grammars", "--nonterminals", "2", "--letters", "ab",
                        "--max-rules", "2", "--max-body", "1", "--count-only"]],
    "sweep summarize": [["sweep", "summarize", SWEEP_ROWS]],
}
#: commands whose mode prints objects of another schema: --misere (schemas/misere.json)
MODES = {"octal": {"misere/1"}, "graph": {"misere/1"}}
#: exchange formats: their shape is another format's, so no "schema" field
EXCHANGE = {"dfa": "dfa", "family modular": "grammar", "family random": "grammar",
            "family intersection": "grammar", "family subtraction": "grammar",
            "family ring": "grammar", "family counting": "grammar"}


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
    if OCTAL_CERTIFICATE in argv:
        cert = str(tmp_path / "0.45.cert")
        assert main(["octal", "0.45", "--certificate", cert]) == 0
        capsys.readouterr()
        argv = [cert if a == OCTAL_CERTIFICATE else a for a in argv]
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
        version = SCHEMA_VERSIONS.get(name, 1)
        assert schema["$id"] == f"urn:sdg-automata:schema:{name}/{version}"
        if "schema" in schema.get("properties", {}):
            assert schema["properties"]["schema"] == {"const": f"{name}/{version}"}


def test_every_json_command_is_covered() -> None:
    commands = set(_json_commands(build_parser()))
    assert commands == set(CASES), ("commands with a JSON form but no case here (and maybe no "
                                    "schema in sdg_automata/schemas/): "
                                    f"{sorted(commands - set(CASES))}")
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
            elif obj["schema"] == "stopped/1":  # exit 3: the one object of every command
                assert obj["command"] == command
                validate(obj)
            elif obj["schema"] in MODES.get(command, ()):  # a mode with a schema of its own
                validate(obj)
            else:
                name = command.replace(" ", "-")
                assert obj["schema"] == f"{name}/{SCHEMA_VERSIONS.get(name, 1)}"
                validate(obj)
            seen += 1
    assert seen >= 1


#: commands stopped by a budget, a limit, a refusal up front or an unprovable value (exit 3)
STOPS: list[tuple[list[str], str]] = [
    (["max", E3, "A", "--max-states", "3", "--json"], "budget"),
    (["max", E3, "A", "1", "--method", "explicit", "--max-states", "2", "--json"], "budget"),
    (["spectrum", E3, "--max-states", "3", "--json"], "budget"),
    (["count", E3, "A", "0", "--length", "8", "--max-states", "2", "--json"], "budget"),
    (["count", E3, "A", "0", "--length", "10^12", "--max-seconds", "0.01", "--json"], "budget"),
    (["count", E3, "A", "0", "--gf", "--max-dfa-states", "2", "--json"], "budget"),
    (["regex", E3, "A", "0", "--max-dfa-states", "3", "--json"], "budget"),
    (["dfa", E3, "A", "0", "--max-states", "2", "--format", "json"], "budget"),
    (["game-graph", E3, "--max-nodes", "4", "--format", "json"], "budget"),
    (["period", UNARY, "A", "--max-states", "2", "--json"], "budget"),
    (["imark", "value", "--S", "1", "--D", "2,3", "10^30", "--c", "1", "--json"], "unproven"),
    (["imark", "value", "--S", "1", "--D", "2,3", "10^30", "--max-states", "1", "--json"],
     "budget"),
    (["imark", "sequence", "--S", "1", "--D", "2", "--upto", "10^15", "--json"], "budget"),
    (["octal", "0.16", "--upto", "100", "--json"], "unproven"),
]


@pytest.mark.parametrize(("argv", "reason"), STOPS, ids=[" ".join(a[:2]) for a, _ in STOPS])
def test_every_exit_3_prints_one_stopped_object(argv: list[str], reason: str, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Should end with exit 3, one error line, and the stopped/1 object as stdout's last line
    (one rule for every command; README "Exit codes"), whatever the command prints otherwise."""
    if UNARY in argv:
        (tmp_path / "s134.txt").write_text("A -> a A | a a a A | a | a a a\n", encoding="utf-8")
        argv = [str(tmp_path / "s134.txt") if a == UNARY else a for a in argv]
    try:
        code = main(argv)
    except SystemExit as e:
        code = int(e.code or 0)
    out, err = capsys.readouterr()
    assert code == 3, err
    assert err.count("\n") == 1 and err.startswith("error: "), err
    last = json.loads(out.splitlines()[-1])
    validate(last)
    command = "imark " + argv[1] if argv[0] == "imark" else argv[0]
    assert last["schema"] == "stopped/1" and last["command"] == command
    assert last["reason"] == reason and last["error"] == err[len("error: "):].rstrip("\n")
    for line in out.splitlines()[:-1]:  # complete results before the stop
        assert json.loads(line)["schema"] == command.replace(" ", "-") + "/1"


def test_a_stop_writes_nothing_to_the_output_file(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Should leave -o FILE unwritten and put the stopped/1 object on stdout."""
    target = tmp_path / "g.json"
    with pytest.raises(SystemExit) as e:
        main(["game-graph", E3, "--max-nodes", "4", "--format", "json", "-o", str(target)])
    out, _ = capsys.readouterr()
    assert e.value.code == 3 and not target.exists()
    assert json.loads(out)["command"] == "game-graph"


def test_the_schemas_can_fail() -> None:
    good = {"schema": "count/1", "nonterminal": "A", "grundy": 0, "length": 4, "count": 7}
    validate(good)
    for bad in ({**good, "count": -1}, {**good, "extra": 1}, {**good, "schema": "count/2"},
                {k: v for k, v in good.items() if k != "nonterminal"},
                {"schema": "count/1", "nonterminal": "A", "grundy": 0}):
        with pytest.raises((jsonschema.ValidationError, AssertionError)):
            validate(bad)
