"""Option handling a user trips on (issue 21 §14): positionals after options, what
``--start`` means for each command, an empty file name.

Truth: Grundy numbers from :class:`strategies.Definition` (SPEC §2 on the raw
rules) and the game graph of the library call, never from the command itself.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import run
from golden import example3
from strategies import Definition

from sdg_automata.derivation.gamegraph import game_graph

EXAMPLE3 = str(Path(__file__).resolve().parents[2] / "examples" / "example3.txt")


def one_error(code: int, out: str, err: str, *fragments: str) -> None:
    assert code == 2 and out == "" and err.count("\n") == 1 and err.startswith("error: "), err
    for fragment in fragments:
        assert fragment in err, (fragment, err)


def test_words_may_follow_options(capsys: pytest.CaptureFixture[str]) -> None:
    """Should read `grundy G --start B ba` as 𝒢(B, ba) (it was "unrecognized arguments")."""
    oracle = Definition(example3().rules)
    code, out, err = run(["grundy", EXAMPLE3, "--start", "B", "ba", "b"], capsys)
    assert code == 0 and out.split() == [str(oracle("B", "ba")), str(oracle("B", "b"))], err
    code, out, _ = run(["grundy", EXAMPLE3, "A", "--json", "ab", "aab"], capsys)
    assert code == 0 and [json.loads(line)["grundy"] for line in out.splitlines()] == [
        oracle("A", "ab"), oracle("A", "aab")]
    code, out, _ = run(["grundy", EXAMPLE3, "--start", "B", "B", "ba"], capsys)  # both: agree
    assert code == 0 and out.split() == [str(oracle("B", "ba"))]


def test_a_word_without_nonterminal_or_start_is_one_error(capsys) -> None:
    code, out, err = run(["grundy", EXAMPLE3, "ba"], capsys)
    one_error(code, out, err, "'ba' is not a nonterminal", "--start")


@pytest.mark.parametrize("argv", [
    ["max", EXAMPLE3, "A", "--start", "B"],
    ["dfa", EXAMPLE3, "A", "0", "--start", "B"],
    ["grundy", EXAMPLE3, "--start", "B", "A", "ab"],
    ["game-graph", EXAMPLE3, "A", "--start", "B"],
])
def test_a_start_that_disagrees_with_the_nonterminal_is_one_error(argv, capsys) -> None:
    """Should refuse `max G A --start B` (it silently ignored --start)."""
    one_error(*run(argv, capsys), "--start B", "different nonterminals")


@pytest.mark.parametrize("argv", [
    ["spectrum", EXAMPLE3, "--start", "A"],
    ["moves", EXAMPLE3, "A:ab", "--start", "A"],
])
def test_a_start_that_means_nothing_is_refused(argv, capsys) -> None:
    one_error(*run(argv, capsys), "--start does not apply")


def test_a_start_that_agrees_changes_nothing(capsys) -> None:
    plain = run(["max", EXAMPLE3, "A", "--json"], capsys)
    same = run(["max", EXAMPLE3, "A", "--start", "A", "--json"], capsys)
    strip = lambda r: {k: v for k, v in json.loads(r[1]).items() if k != "seconds"}  # noqa: E731
    assert plain[0] == same[0] == 0 and strip(plain) == strip(same)


def test_game_graph_draws_from_the_start_symbol(capsys) -> None:
    code, out, _ = run(["game-graph", EXAMPLE3, "--start", "B", "--max-length", "2",
                        "--format", "json"], capsys)
    nodes = [tuple(map(tuple, n["position"])) for n in json.loads(out)["nodes"]]
    assert code == 0 and nodes == list(game_graph(example3(), ["B"], 2).nodes)


def test_an_empty_file_name_says_so(capsys) -> None:
    """Should not say "'.' is a directory" for `spectrum ""`."""
    one_error(*run(["spectrum", ""], capsys), "file name is empty")
    one_error(*run(["grundy", EXAMPLE3, "A", "--words-from", ""], capsys), "name is empty")


@pytest.mark.parametrize("flags", [["--json", "--format", "text"], ["--format", "text", "--json"]])
def test_json_and_format_text_together_are_refused(flags, capsys) -> None:
    """Should refuse the contradiction in either order (it printed text for a --json)."""
    code, out, err = run(["max", EXAMPLE3, "A", *flags], capsys)
    one_error(code, out, err, "contradict")


@pytest.mark.parametrize("flags", [["--json", "--format", "json"], ["--format", "json"]])
def test_json_said_twice_is_json(flags, capsys) -> None:
    code, out, _ = run(["max", EXAMPLE3, "A", *flags], capsys)
    assert code == 0 and json.loads(out)["max"] == 2
