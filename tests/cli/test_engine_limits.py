"""Every long phase of the engine obeys a budget (issue 15), from the library and the CLI.

Each case ends with one ``error:`` line and exit 3 (a budget or resource
limit) or 2 (the regex size guard, an input refusal), within seconds.  Ground
truth for sizes: the exploration itself (125 reachable states) and automata-lib.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import get_args

import pytest
from clirun import run

from sdg_automata.cli import build_parser
from sdg_automata.derivation.periodicity import proven_period
from sdg_automata.errors import BudgetExceeded
from sdg_automata.generators.families import ModularSpec, modular_family, subtraction_grammar
from sdg_automata.grammar.parse import grammar_to_json
from sdg_automata.search.decide import ROUTES, SOLVED, Route, Strategy, max_grundy
from sdg_automata.search.strategies import STRATEGIES

#: issue 15: 125 reachable states; its forward DFA has more than 175,000 states
ISSUE15 = """Y -> a Y | b B | b b C
C -> a a D | b C
S -> B | b c | c a | c b
D -> B | a S | c | c S
B -> a C | a c | b Y | c S
"""

#: issue 15: the lasso (and the search) would need about 5·10⁹ states
HUGE = "101:1 103:2 107:3 109:4 113:5"


def one_error(err: str, *fragments: str) -> None:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "Traceback" not in err
    for f in fragments:
        assert f in lines[0], (f, lines[0])


@pytest.fixture
def issue15(tmp_path: Path) -> Path:
    path = tmp_path / "issue15.txt"
    path.write_text(ISSUE15, encoding="utf-8")
    return path


def test_strategy_and_route_tables_feed_the_types_and_the_cli() -> None:
    """Should offer exactly the strategies of the table, from the Literal types."""
    assert tuple(STRATEGIES) == get_args(Strategy) and ROUTES == get_args(Route)
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    max_parser = sub.choices["max"]  # type: ignore[attr-defined]
    choices = {a.dest: tuple(a.choices) for a in max_parser._actions if a.choices}
    assert choices["strategy"] == ("auto", *STRATEGIES) and choices["method"] == ROUTES


def test_regex_size_guard_is_checked_while_the_dfa_is_built(
        issue15: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Should refuse at once (the old route spent minutes in automata-lib first): the guard
    names the states it counted, the proof that it stopped at them (no time bound: it
    fails on a loaded machine, issue 34 §7)."""
    code, out, err = run(["regex", issue15, "Y", "0"], capsys)
    assert code == 3 and out == ""
    one_error(err, "more than 500 states", "--max-dfa-states")
    code, out, err = run(["regex", issue15, "Y", "0", "--max-dfa-states", "5"], capsys)
    assert code == 3
    one_error(err, "more than 50 states", "--max-dfa-states 5")


def test_regex_keeps_the_users_own_budget(issue15: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["regex", issue15, "Y", "0", "--max-states", "200"], capsys)
    assert code == 3
    one_error(err, "subset construction", "budget of 200 states")


def test_forward_minimal_dfa_obeys_max_states(issue15: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["dfa", issue15, "Y", "0", "--forward", "--minimal",
                          "--max-states", "1000"], capsys)
    assert code == 3 and out == ""
    one_error(err, "budget of 1000 states", "1000 states reached")
    code, _, err = run(["dfa", issue15, "Y", "0", "--forward", "--max-seconds", "0.5"], capsys)
    assert code == 3
    one_error(err, "budget of 0.5 s")  # the budget's own message: no clock of the test's


def test_explore_budget_for_every_automaton_command(
        issue15: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Should stop the exploration of spectrum, dfa, regex and max at --max-states."""
    for argv in (["spectrum", issue15], ["dfa", issue15, "Y", "0"],
                 ["regex", issue15, "Y", "0"], ["max", issue15, "Y"]):
        code, _, err = run([*argv, "--max-states", "40"], capsys)
        assert code == 3, argv
        one_error(err, "budget of 40 states")


def test_period_and_max_have_seconds(tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "huge.json"
    path.write_text(grammar_to_json(modular_family([ModularSpec.parse(s)
                                                    for s in HUGE.split()])), encoding="utf-8")
    for argv in (["period", path, "A"], ["max", path, "A"], ["spectrum", path]):
        code, out, err = run([*argv, "--max-seconds", "0.3"], capsys)
        assert code == 3 and out == "", argv
        one_error(err, "budget of 0.3 s")  # the stop's proof; a time bound fails under load


def test_library_budgets_for_period_and_search() -> None:
    with pytest.raises(BudgetExceeded, match="lasso stopped at the budget of 3 states"):
        proven_period(subtraction_grammar({3, 5}), "A", max_states=3)
    g = modular_family([ModularSpec.parse(s) for s in HUGE.split()])
    for strategy in STRATEGIES:
        if strategy in SOLVED:  # store no states: seconds (and lengths) bound them
            continue            # (test_bmc.py, test_pdr.py)
        with pytest.raises(BudgetExceeded, match="search stopped at the budget of 2000 states"):
            max_grundy(g, "A", strategy=strategy, max_states=2000)  # type: ignore[arg-type]


# the crawl (period; max bfs is the same loop) and the depth-first search's own loop
@pytest.mark.parametrize("argv", [["period", "A"], ["max", "A", "--strategy", "dfs"]])
def test_memory_limit_ends_with_exit_3(tmp_path: Path, argv: list[str]) -> None:
    """Should stop before the address-space limit (RLIMIT_AS) with exit 3, not a traceback."""
    import resource

    path = tmp_path / "huge.json"
    path.write_text(grammar_to_json(modular_family([ModularSpec.parse(s)
                                                    for s in HUGE.split()])), encoding="utf-8")

    def limit() -> None:  # in the child: its own size now, plus its imports, plus ~40 MB
        with open("/proc/self/statm", encoding="ascii") as f:
            size = int(f.read().split()[0]) * resource.getpagesize()
        cap = size + 80 * 2**20
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    proc = subprocess.run([sys.executable, "-m", "sdg_automata", argv[0], str(path), *argv[1:]],
                          capture_output=True, text=True, preexec_fn=limit, timeout=300)
    assert proc.returncode == 3, proc.stderr
    one_error(proc.stderr, "memory")


def test_moves_and_play_bound_the_substring_table(capsys: pytest.CaptureFixture[str]) -> None:
    """Should stop a CFG component's O(|w|³) table at --max-seconds (exit 3, one line)."""
    dyck = Path(__file__).resolve().parents[2] / "examples" / "dyck.txt"
    word = "a" * 600 + "b" * 600  # the bitset table takes seconds here, far over 0.05 s
    for command in ("moves", "play"):
        code, out, err = run([command, dyck, f"S:{word}", "--max-seconds", "0.05"], capsys)
        assert code == 3, (command, err)
        one_error(err, "substring table", "budget of 0.05 s")
    code, out, _ = run(["moves", dyck, "S:aabb", "--max-seconds", "30"], capsys)
    assert code == 0 and out.startswith("position  S:aabb")


def test_long_rule_bodies_are_refused_up_front(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should refuse before Step 2 when its suffixes cannot fit (they grow as L² for a body
    of L letters), naming the longest body, instead of running out of memory."""
    from sdg_automata.automaton import items
    from sdg_automata.automaton.construction import GrundyAutomaton
    from sdg_automata.errors import BudgetExceeded
    from sdg_automata.grammar.parse import parse_grammar

    g = parse_grammar("A -> " + " ".join("a" * 2000) + " A | a\n")
    monkeypatch.setattr(items, "available_bytes", lambda: 1 << 20)  # 1 MB left
    with pytest.raises(BudgetExceeded, match="longest has 2000 letters"):
        GrundyAutomaton(g)
    monkeypatch.setattr(items, "available_bytes", lambda: 1 << 30)
    assert GrundyAutomaton(g).grundy("A", "a") == 1  # the same grammar, room enough
