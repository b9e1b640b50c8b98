"""The command line on the inputs of issue 15: what a new user types and sees.

Damaged files and hostile arguments in bulk are the fuzz suite's
(``test_fuzz_cli.py``); here each wording and reading promise is pinned once.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from clirun import run

from sdg_automata.cli import build_parser
from sdg_automata.grammar.parse import grammar_from_json, grammar_from_text

ROOT = Path(__file__).resolve().parents[2]




def test_check_abbreviates_long_name_lists(capsys, tmp_path):
    path = tmp_path / "chain.txt"
    path.write_text("".join(f"A{i} -> A{i + 1}\n" for i in range(3000)) + "A3000 -> a\n",
                    encoding="utf-8")
    code, out, _ = run(["check", path], capsys)
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("nonterminals:"))
    assert len(line) < 200 and "A0, A1" in line and "A3000" in line and "3,001 in all" in line
    code, out, _ = run(["check", path, "--json"], capsys)
    assert len(json.loads(out)["nonterminals"]) == 3001  # --json keeps every name
    code, out, _ = run(["check", ROOT / "examples" / "example3.txt"], capsys)
    assert "nonterminals: A, B\n" in out


def test_check_reports_what_a_bom_used_to_hide(capsys, tmp_path):
    path = tmp_path / "g.txt"
    path.write_bytes(b"\xef\xbb\xbfA -> a A | a\n")
    code, out, _ = run(["check", path], capsys)
    assert code == 0 and "nonterminals: A\n" in out and "terminals:    a\n" in out


def test_empty_class_is_said_by_dfa_as_by_regex(capsys):
    g = ROOT / "examples" / "example3.txt"
    code, out, err = run(["dfa", g, "A", "99"], capsys)
    assert code == 0 and out  # the DFA is still printed: it is a valid answer
    assert err == "note: no word w has 𝒢(A, w) = 99: the DFA accepts nothing\n"
    code, out, err = run(["regex", g, "A", "99"], capsys)
    assert out == "∅\n" and "no word w has 𝒢(A, w) = 99" in err
    code, out, err = run(["dfa", g, "A", "1"], capsys)
    assert code == 0 and err == ""


def test_family_output_format_follows_the_suffix(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name, read in [("s134.txt", grammar_from_text), ("s134.json", grammar_from_json)]:
        code, _, _ = run(["family", "subtraction", "1,3,4", "-o", name], capsys)
        assert code == 0
        text = (tmp_path / name).read_text(encoding="utf-8")
        assert text.startswith("{") == name.endswith(".json")
        assert read(text).start == "A"
    code, _, _ = run(["family", "subtraction", "1,3,4", "-o", "s.txt", "--format", "json"],
                     capsys)
    assert (tmp_path / "s.txt").read_text(encoding="utf-8").startswith("{")  # asked for
    code, out, _ = run(["family", "subtraction", "1,3,4"], capsys)
    assert out.startswith("{")  # stdout: JSON, as before


def test_the_guides_subtraction_example_runs_as_written(capsys, tmp_path, monkeypatch):
    guide = (ROOT / "docs" / "automata.md").read_text(encoding="utf-8")
    assert "-o s134.txt" in guide or "-o s134.json" in guide
    monkeypatch.chdir(tmp_path)
    target = "s134.txt" if "-o s134.txt" in guide else "s134.json"
    run(["family", "subtraction", "1,3,4", "-o", target], capsys)
    code, out, _ = run(["period", target, "A", "--json"], capsys)
    assert code == 0 and json.loads(out)["period"] == 7


def _option_strings(parser) -> set[str]:
    return {s for a in parser._actions for s in a.option_strings if s.startswith("--max-")}


def test_the_command_table_names_every_budget_option():
    # issue 15: every budget is "reported in --help and the command table" (the README's
    # then; the command-line page of the documentation since issue 33 §7)
    table = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    rows = {}
    for line in table.splitlines():
        m = re.match(r"\| `(\w[\w-]*(?: \w+)?)", line)
        if m and line.count("|") >= 3:
            rows.setdefault(m.group(1).split()[0], []).append(line)
    sub = build_parser()._subparsers._group_actions[0]  # type: ignore[union-attr]
    missing = []
    for name, parser in sub.choices.items():
        children = [a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction"]
        parsers = [c for a in children for c in a.choices.values()] or [parser]
        options = set().union(*(_option_strings(p) for p in parsers))
        text = " ".join(rows.get(name, []))
        missing += [f"{name} {o}" for o in sorted(options) if o not in text]
    assert not missing, f"the command table of docs/cli.md lacks: {missing}"


@pytest.mark.parametrize("command", ["moves", "spectrum"])
def test_help_says_what_is_listed(capsys, command):
    code, out, _ = run([command, "--help"], capsys)
    assert code == 0
    flat = " ".join(out.split())
    if command == "moves":
        assert "every legal move" not in flat and "listed once" in flat
    else:
        assert "dead state" in flat


def test_limit_errors_name_the_option_not_a_keyword(capsys):
    g = ROOT / "examples" / "example3.txt"
    code, _, err = run(["game-graph", g, "--max-length", "3", "--max-nodes", "4"], capsys)
    assert code == 3 and "--max-nodes" in err and "--max-length" in err  # a limit: exit 3
    code, _, err = run(["regex", g, "A", "0", "--max-dfa-states", "1"], capsys)
    assert code == 3 and "--max-dfa-states" in err and "limit=" not in err


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["family", "subtraction", "1000000000"], "2,000,000,001 symbols"),
        (["family", "modular", "99999999:1", "99999999:1"], "symbols, over the limit"),
        (["family", "modular", "1000003:1"], "8,000,025 symbols"),
        (["family", "random", "--dfas", "50", "--states", "50"], "states, over the limit"),
    ],
)
def test_family_sizes_are_refused_before_any_work(capsys, tmp_path, argv, fragment):
    # these took 15 GB and minutes before (issue 15): now one line and exit 3, at once
    code, out, err = run([*argv, "-o", tmp_path / "x.json"], capsys)
    assert code == 3 and out == ""
    assert err.startswith("error: ") and err.count("\n") == 1 and fragment in err
    assert not (tmp_path / "x.json").exists()


def test_family_size_limits_in_the_library():
    from sdg_automata.errors import BudgetExceeded
    from sdg_automata.generators.families import (
        MAX_SYMBOLS,
        ModularSpec,
        modular_family,
        product_truth,
        random_family,
        subtraction_grammar,
    )

    k = (MAX_SYMBOLS - 1) // 2  # Σ 2k + 1 = MAX_SYMBOLS: the largest allowed
    with pytest.raises(BudgetExceeded):
        subtraction_grammar({k + 1})
    assert len(subtraction_grammar({1, 3, 4}).rules) == 6
    with pytest.raises(BudgetExceeded):
        modular_family([ModularSpec(MAX_SYMBOLS, 0)])
    dfas = random_family(9, 6, seed=0)  # a small reachable product: answered
    assert product_truth(dfas)[0] is not None
    with pytest.raises(BudgetExceeded, match="product of the first"):
        product_truth(random_family(4, 2000, seed=0))


def test_within_dfa_json_is_read_like_every_json_input(capsys, tmp_path):
    g = ROOT / "examples" / "example3.txt"
    cases = {"deep.json": "[" * 100_000 + "]" * 100_000,
             "dup.json": '{"states": ["0"],\n "states": ["1"]}'}
    for name, text in cases.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    code, out, err = run(["max", g, "A", "--within", tmp_path / "deep.json"], capsys)
    assert code == 2 and "nested more than 32 levels" in err and err.count("\n") == 1
    code, out, err = run(["max", g, "A", "--within", tmp_path / "dup.json"], capsys)
    assert code == 2 and "dup.json:2: duplicate key 'states'" in err
