"""``--solver NAME`` (issue 35 §3): any incremental SAT solver python-sat offers, the same
answers, one ``error:`` line for a name it does not, and the time budget held by every
solver (slices of conflicts; MiniSat's family also by ``interrupt()`` on a timer).

Ground truth: the breadth-first search (bfs) on the same questions.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from clirun import one_error, run

pytest.importorskip("pysat")

from sdg_automata.errors import InputError  # noqa: E402
from sdg_automata.generators.families import (  # noqa: E402
    counting_intersection,
    intersection_grammar,
    ring_intersection,
)
from sdg_automata.grammar.parse import grammar_to_json, parse_grammar  # noqa: E402
from sdg_automata.search import solvers  # noqa: E402
from sdg_automata.search.decide import max_grundy  # noqa: E402
from sdg_automata.search.solvers import DEFAULT, REFUSED, offered, resolve  # noqa: E402

EXAMPLE3 = Path(__file__).resolve().parents[2] / "examples" / "example3.txt"


def usable() -> list[str]:
    """The solvers this python-sat builds and that can serve (not Kissat; CryptoMiniSat only
    with its package)."""
    out = []
    for name in offered():
        try:
            resolve(name)
        except InputError:
            continue
        out.append(name)
    return out




def test_every_usable_solver_gives_bfs_answers() -> None:
    """Example 3 (a proof by k-induction) and 4 rings (a witness bb, then no proof within
    12 letters): every solver answers as bfs, witnesses as short."""
    names = usable()
    assert DEFAULT in names and "glucose4" in names and "minisat22" in names
    e3 = parse_grammar(EXAMPLE3.read_text(encoding="utf-8"))
    rings = intersection_grammar(ring_intersection(4))
    truth = max_grundy(e3, "A")
    for name in names:
        v = max_grundy(e3, "A", strategy="sat", options={"sat_solver": name})
        assert (v.maximum, v.exact) == (truth.maximum, True), name
        assert {k: len(w) for k, w in v.witnesses.items()} == {
            k: len(w) for k, w in truth.witnesses.items()}, name
        r = max_grundy(rings, "A", strategy="sat",
                       options={"sat_solver": name, "max_length": 12})
        assert (r.maximum, r.exact, r.witness) == (3, False, "bb"), name


def test_aliases_and_refusals(capsys: pytest.CaptureFixture[str]) -> None:
    assert resolve("cd19") == "cadical195" and resolve("g4") == "glucose4"
    assert resolve(None) == DEFAULT
    code, out, err = run(["max", EXAMPLE3, "A", "--strategy", "sat", "--solver", "nope"],
                         capsys)
    assert (code, out) == (2, "")
    line = one_error(err, "unknown SAT solver 'nope' (python-sat offers ")
    assert all(name in line for name in offered())
    for name in REFUSED:
        code, _, err = run(["max", EXAMPLE3, "A", "--strategy", "pdr", "--solver", name],
                           capsys)
        assert code == 2
        one_error(err, f"the SAT solver {name} cannot serve")
    for name in set(offered()) - set(usable()) - set(REFUSED):  # CryptoMiniSat, no package
        code, _, err = run(["max", EXAMPLE3, "A", "--strategy", "sat", "--solver", name],
                           capsys)
        assert code == 2
        one_error(err, f"python-sat cannot run the SAT solver {name} here")
    code, _, err = run(["max", EXAMPLE3, "A", "--strategy", "sat", "--solver", "lingeling",
                        "--max-seconds", "5"], capsys)
    assert code == 2
    one_error(err, "lingeling has neither budgets nor interrupt()", "--max-seconds")
    code, out, err = run(["max", EXAMPLE3, "A", "--strategy", "sat", "--solver", "lingeling"],
                         capsys)
    assert (code, err) == (0, "") and out.startswith("max 2, witness 'aa'")
    code, _, err = run(["max", EXAMPLE3, "A", "--solver", "glucose4"], capsys)
    assert code == 2
    one_error(err, "the SAT solver is an option of the sat and pdr strategies")


@pytest.mark.parametrize("name", ["glucose3", "glucose4", "minisat22", "cadical153"])
def test_the_time_budget_holds_in_every_solver(tmp_path: Path, name: str) -> None:
    """24 counting DFAs whose intersection is empty, so the search never ends (no witness
    at any length, and k-induction does not close; a planted intersection of 24 DFAs fell
    to the lean circuit in under 2 s): each solver stops at the budget (exit 3, one line)
    within seconds, MiniSat's family stopped mid-conflict by a timer."""
    dfas = counting_intersection(24)
    path = tmp_path / "planted.json"
    path.write_text(grammar_to_json(intersection_grammar(dfas)), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "sdg_automata", "max", str(path), "A",
                           "--strategy", "sat", "--solver", name, "--max-seconds", "2"],
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 3, done.stderr
    one_error(done.stderr, "SAT search stopped at the budget of 2 s")


class _LateSolver:
    """A solver that loses an interrupt sent before its search starts, as Glucose 3 did (a
    0.04 s slice ran 37 s past a 2 s budget on the instance above)."""

    def __init__(self) -> None:
        self.flag = threading.Event()

    def interrupt(self) -> None:
        self.flag.set()

    def solve_limited(self) -> bool:
        time.sleep(0.05)  # its set-up, before the search
        self.flag.clear()  # an interrupt that came during the set-up is forgotten
        return self.flag.wait(60)  # True: interrupted; False: it ran to its own end


def test_an_interrupt_lost_before_the_search_is_sent_again() -> None:
    solver, ended = _LateSolver(), threading.Event()
    watch = threading.Thread(target=solvers._interrupting, args=(solver, 0.0, ended),
                             daemon=True)
    watch.start()
    try:
        assert solver.solve_limited() is True
    finally:
        ended.set()
        watch.join()
