"""``max --within FILE``: a DFA file is recognised by its name as grammars are (issue 33 §7:
found while documenting the formats; ``E.JSON`` was read as a regular expression and the
command answered "no positions" for a language nobody asked about)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import run

from sdg_automata import grundy, load_grammar

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE3 = ROOT / "examples" / "example3.txt"
#: the words over {a, b} that end in b
ENDS_IN_B = {"states": ["s", "t"], "input_symbols": ["a", "b"],
             "transitions": {"s": {"a": "s", "b": "t"}, "t": {"a": "s", "b": "t"}},
             "initial_state": "s", "final_states": ["t"], "allow_partial": False}


@pytest.mark.parametrize("name", ["ends.json", "ends.JSON", "ends.Json"])
def test_a_dfa_file_is_read_whatever_the_case_of_its_extension(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / name
    path.write_text(json.dumps(ENDS_IN_B), encoding="utf-8")
    code, out, err = run(["max", EXAMPLE3, "A", "--within", path, "--json"], capsys)
    assert code == 0, err
    verdict = json.loads(out)
    g = load_grammar(EXAMPLE3)
    # the definition agrees: 'aab' ends in b and has value 2, the largest of Example 3
    assert verdict["max"] == 2 and verdict["witness"].endswith("b")
    assert grundy(g, "A", verdict["witness"]) == 2
