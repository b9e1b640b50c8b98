"""The strategy registry (issue 26 §2): one module and one line add a strategy everywhere.

A toy strategy (``tests/toy_strategy.py``) registered by one line shows up in
``max_grundy``, in ``max --help`` with its own argument, in ``--strategy`` and in
``--json``; every real strategy's evidence gives the JSON fields of schema max/2; and
the facade, the command line and the renderer ask the registry rather than naming a
strategy.
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest
import toy_strategy

import sdg_automata
from sdg_automata.cli import main
from sdg_automata.errors import InputError
from sdg_automata.grammar.parse import load_grammar, parse_grammar
from sdg_automata.search import strategies
from sdg_automata.search.decide import max_grundy
from sdg_automata.search.strategies import STRATEGIES

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "example3.txt")


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy, registered for one test (the one registry line)."""
    monkeypatch.setitem(strategies.STRATEGIES, "toy", toy_strategy.STRATEGY)


def test_the_registry_lists_the_strategies_in_order() -> None:
    assert strategies.names() == ("bfs", "dfs", "lasso", "sat", "pdr")
    assert STRATEGIES is strategies.STRATEGIES  # the facade's table is the registry
    assert strategies.solved() == {"sat": "CaDiCaL", "pdr": "ABC and CaDiCaL"}
    assert strategies.get("dfs").name == "dfs"
    with pytest.raises(InputError, match="unknown strategy 'nope'"):
        strategies.get("nope")


@pytest.mark.usefixtures("toy")
def test_a_registered_strategy_runs_in_max_grundy() -> None:
    g = load_grammar(EXAMPLE)
    v = max_grundy(g, "A", strategy="toy", options={"toy_bonus": 7})
    bfs = max_grundy(g, "A", strategy="bfs")
    assert (v.strategy, v.maximum, v.witnesses) == ("toy", bfs.maximum, bfs.witnesses)
    assert v.evidence == toy_strategy.ToyEvidence(values=len(bfs.witnesses), bonus=7)
    assert v.to_json()["toy_values"] == 3 and v.to_json()["toy_bonus"] == 7
    assert v.max_length is None and v.solver is None  # the solvers' fields: absent
    with pytest.raises(InputError, match="toy_bonus is an option of the toy strategy; dfs"):
        max_grundy(g, "A", strategy="dfs", options={"toy_bonus": 1})


@pytest.fixture
def unpublished(monkeypatch: pytest.MonkeyPatch) -> None:
    """``max --json`` printing without the schema check of conftest.py: schema max/2 lists
    the published strategies and their fields only (a new one is a new schema version)."""
    from sdg_automata.cli import automata

    monkeypatch.setattr(automata, "emit", lambda obj: print(json.dumps(obj)))


@pytest.mark.usefixtures("toy", "unpublished")
def test_a_registered_strategy_is_on_the_command_line(capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    with pytest.raises(SystemExit):
        main(["max", "--help"])
    out = capsys.readouterr().out
    assert "toy}" in out and "toy: bfs, counting the values it finds" in " ".join(out.split())
    assert "--toy-bonus B" in out
    assert main(["max", EXAMPLE, "A", "--strategy", "toy", "--toy-bonus", "5"]) == 0
    assert capsys.readouterr().out == "max 2, witness 'aa' (toy: 3 values, bonus 5, " \
                                      "proof exhaustive)\n"
    assert main(["max", EXAMPLE, "A", "--strategy", "toy", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["strategy"], out["toy_values"], out["toy_bonus"], out["max"]) == ("toy", 3, 0, 2)


def test_without_the_toy_nothing_knows_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["max", EXAMPLE, "A", "--strategy", "toy"])
    assert "invalid choice: 'toy'" in capsys.readouterr().err
    with pytest.raises(InputError, match="unknown strategy 'toy'"):
        max_grundy(load_grammar(EXAMPLE), "A", strategy="toy")


@pytest.mark.parametrize("name", ["bfs", "dfs", "lasso", "sat", "pdr"])
def test_each_evidence_gives_its_json_fields(name: str) -> None:
    """Should give the fields of schema max/2 (every strategy's, null where absent), the
    evidence's own read back by the verdict's properties."""
    if strategies.get(name).solver is not None:
        pytest.importorskip("pysat")
    g = (parse_grammar("A -> a A | a a B | a\nB -> a A | a") if name == "lasso"
         else load_grammar(str(ROOT / "examples" / "csub.json")))
    try:
        v = max_grundy(g, "A", strategy=name, engine="python" if name == "bfs" else "auto")
    except InputError as e:  # pdr without ABC
        pytest.skip(str(e))
    out = v.to_json()
    assert list(out)[-4:] == ["proof", "max_length", "induction_depth", "solver"]
    fields = ("max_length", "induction_depth", "solver") if strategies.get(
        name).solver is not None else ()
    if v.evidence is not None:
        assert set(v.evidence.to_json()) <= set(fields)
    for f in ("max_length", "induction_depth", "solver"):
        assert out[f] == getattr(v, f)
        assert (out[f] is not None) == (f in fields and f != "induction_depth"
                                        or f == "induction_depth" and v.proof == "k-induction")


@pytest.mark.parametrize("path", ["search/decide.py", "cli/automata.py", "render/verdict.py"])
def test_the_facade_names_no_solver_strategy(path: str) -> None:
    """Should ask the registry: no comparison with, or table keyed by, "sat" or "pdr"."""
    tree = ast.parse((Path(sdg_automata.__file__).parent / path).read_text(encoding="utf-8"))
    named = {"sat", "pdr"}

    def constants(node: ast.AST) -> set[str]:
        return {n.value for n in ast.walk(node)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)}

    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            assert not constants(node) & named, ast.unparse(node)
        if isinstance(node, ast.Dict):
            assert not {k.value for k in node.keys if isinstance(k, ast.Constant)} & named


def test_the_built_in_type_names_the_built_in_strategies() -> None:
    from typing import get_args

    from sdg_automata.search.decide import Strategy

    assert get_args(Strategy) == strategies.names()


def test_a_strategy_registered_before_the_facade_loads_is_served() -> None:
    """The recipe's one line may run first thing in a program: no import-time snapshot of
    the table may refuse or miss it (a fresh interpreter, so decide is not loaded yet)."""
    import subprocess
    import sys

    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import toy_strategy\n"
        "from sdg_automata.search.strategies import register\n"
        "register(toy_strategy.STRATEGY)\n"
        "import sdg_automata\n"
        "from sdg_automata.grammar.parse import load_grammar\n"
        "v = sdg_automata.max_grundy(load_grammar(sys.argv[2]), 'A', strategy='toy')\n"
        "print(v.strategy, v.evidence.values)\n")
    done = subprocess.run([sys.executable, "-c", script, str(ROOT / "tests"), EXAMPLE],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert (done.returncode, done.stdout) == (0, "toy 3\n"), done.stderr[-2000:]
