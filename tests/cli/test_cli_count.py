"""The command line's budgets for counting and for context-free words (issue 15).

``count`` refuses at once (exit 3, one ``error:`` line) what its estimate says
cannot fit in memory or in time, and is stopped by ``--max-seconds``;
``grundy`` on a context-free grammar has ``--max-seconds``, progress on a
terminal, an up-front memory refusal, and ``--method naive`` has no recursion
for a long word to exhaust.  Expected values come from the library's other
routes (automata-lib's count, the substring table), never from the command.
"""

from __future__ import annotations

import contextlib
import json
import resource
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from clirun import run

from sdg_automata.automaton.counting import ClassMachine
from sdg_automata.derivation.semantics import SubstringTable
from sdg_automata.grammar.parse import load_grammar

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE3 = ROOT / "examples" / "example3.txt"
DYCK = ROOT / "examples" / "dyck.txt"




def one_error(err: str) -> bool:
    return err.startswith("error: ") and err.count("\n") == 1 and "Traceback" not in err


def limited(argv: list[str], address_space: int) -> subprocess.CompletedProcess[str]:
    """``python -m sdg_automata ARGV`` under an address-space limit (``ulimit -v``)."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (address_space, address_space))

    return subprocess.run([sys.executable, "-m", "sdg_automata", *argv], capture_output=True,
                          text=True, timeout=120, preexec_fn=limit, cwd=ROOT)


# ---------------------------------------------------------------------------
# count


@pytest.mark.parametrize("method", ["auto", "levels", "power", "automata-lib"])
def test_count_methods_give_automata_libs_count(method: str,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    expected = ClassMachine.build(load_grammar(EXAMPLE3), "A").dfa(1).count_words_of_length(300)
    code, out, _ = run(["count", EXAMPLE3, "A", 1, "--length", 300, "--method", method,
                        "--json"], capsys)
    assert code == 0 and json.loads(out)["count"] == expected


def test_count_of_a_billion_letters_is_refused_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    # refused by the estimate, before any level is counted: the messages say so (no clock:
    # a time bound fails on a loaded machine, issue 34 §7)
    code, out, err = run(["count", EXAMPLE3, "A", 0, "--length", 10**9], capsys)
    assert code == 3 and out == "" and one_error(err) and "would take about" in err
    code, out, err = run(["count", EXAMPLE3, "A", 0, "--length", 10**7, "--max-seconds", 1],
                         capsys)
    assert code == 3 and one_error(err) and "over three times the budget of 1 s" in err


def test_count_under_a_memory_limit_is_refused_not_killed() -> None:
    done = limited(["count", str(EXAMPLE3), "A", "0", "--length", "3000000000",
                    "--max-seconds", "100000000"], 1500 * 2**20)
    assert done.returncode == 3 and one_error(done.stderr) and "of memory" in done.stderr


def test_count_stops_at_max_seconds(capsys: pytest.CaptureFixture[str],
                                    tmp_path: Path) -> None:
    # a 60-state cycle over {a, b}: the levels route, 6·10⁵ levels estimated at ~2 min
    cycle = tmp_path / "cycle.txt"
    n = 60
    cycle.write_text("\n".join(f"S{i} -> a S{(i + 1) % n} | b S{i}" for i in range(n))
                     + "\nS0 -> a\n", encoding="utf-8")
    code, _, err = run(["count", cycle, "S0", 0, "--length", 200_000, "--max-seconds", 0.5],
                       capsys)
    assert code == 3 and one_error(err)
    assert "levels reached" in err or "over three times" in err


def test_max_states_bounds_the_exploration_only(capsys: pytest.CaptureFixture[str]) -> None:
    """Should not count levels against --max-states (a state budget)."""
    code, out, _ = run(["count", EXAMPLE3, "A", 0, "--length", 5000, "--max-states", 100],
                       capsys)
    assert code == 0 and int(out) == ClassMachine.build(load_grammar(EXAMPLE3), "A").count(0, 5000)
    code, _, err = run(["count", EXAMPLE3, "A", 0, "--length", 5, "--max-states", 2], capsys)
    assert code == 3 and one_error(err)


def test_gf_limit_speaks_of_states(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["count", EXAMPLE3, "A", 0, "--gf", "--max-dfa-states", 3], capsys)
    assert code == 3 and one_error(err)  # a limit: exit 3
    assert "at most 3 states" in err and "--max-dfa-states" in err and "limit=" not in err


def test_memory_error_is_exit_3(capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    def exhausted(*args: Any, **kwargs: Any) -> int:
        raise MemoryError

    monkeypatch.setattr(ClassMachine, "count", exhausted)
    code, out, err = run(["count", EXAMPLE3, "A", 0, "--length", 10], capsys)
    assert code == 3 and out == "" and one_error(err) and "memory" in err


# ---------------------------------------------------------------------------
# grundy on a context-free grammar


def test_naive_on_a_180_letter_word(capsys: pytest.CaptureFixture[str]) -> None:
    word = "ab" * 45 + "a" * 45 + "b" * 45
    expected = SubstringTable(load_grammar(DYCK), word).grundy("S")
    code, out, err = run(["grundy", DYCK, "S", word, "--method", "naive"], capsys)
    assert code == 0 and out.strip() == str(expected) and "Traceback" not in err


def test_grundy_on_a_cfg_stops_at_max_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["grundy", DYCK, "S", "ab" * 2500, "--max-seconds", 0.3], capsys)
    assert code == 3 and out == "" and one_error(err) and "substrings reached" in err
    code, _, err = run(["grundy", DYCK, "S", "ab" * 600, "--method", "naive",
                        "--max-seconds", 0.3], capsys)
    assert code == 3 and one_error(err) and "subwords reached" in err  # the budget's message


def test_grundy_table_too_big_for_memory_is_refused() -> None:
    done = limited(["grundy", str(DYCK), "S", "ab" * 60_000], 1000 * 2**20)
    assert done.returncode == 3 and one_error(done.stderr) and "needs at least" in done.stderr


def test_grundy_progress_on_a_terminal(capsys: pytest.CaptureFixture[str],
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Should hand a progress callback to the substring table (drawn on a terminal)."""
    import sdg_automata.cli.grundy as command

    calls: list[tuple[bool, str]] = []
    reported: list[int] = []

    @contextlib.contextmanager
    def fake(description: str, *, enabled: bool = True,
             unit: str = "states") -> Iterator[Callable[[int], None] | None]:
        calls.append((enabled, unit))
        yield reported.append if enabled else None

    monkeypatch.setattr(command, "progress", fake)
    code, out, _ = run(["grundy", DYCK, "S", "ab" * 30], capsys)
    assert code == 0 and out.strip() == "1"
    assert calls == [(True, "substrings")] and reported[-1] == 60 * 61 // 2
    code, _, _ = run(["grundy", EXAMPLE3, "A", "abab"], capsys)  # the automaton: no bar
    assert code == 0 and calls[-1][0] is False
