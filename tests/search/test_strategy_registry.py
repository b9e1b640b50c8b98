"""The strategy registry (issue 26 §2): one module and one line add a strategy everywhere.

A toy strategy (``tests/toy_strategy.py``) registered by one line shows up in
``max_grundy``, in ``max --help`` with its own argument, in ``--strategy`` and in
``--json``, whose schema max/3 takes its evidence without changing any other verdict;
every real strategy's evidence gives the fields max/3 lists for it; and the facade, the
command line and the renderer ask the registry (and the evidence) rather than naming a
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
    assert v.to_json()["evidence"] == {"strategy": "toy", "toy_values": 3, "toy_bonus": 7}
    assert bfs.to_json()["evidence"] == {"strategy": "bfs"}  # untouched by the toy
    with pytest.raises(InputError, match="toy_bonus is an option of the toy strategy; dfs"):
        max_grundy(g, "A", strategy="dfs", options={"toy_bonus": 1})


@pytest.mark.usefixtures("toy")
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
    # printed through the schema check of conftest.py: max/3 takes a plugin's evidence
    assert main(["max", EXAMPLE, "A", "--strategy", "toy", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["evidence"], out["max"]) == ({"strategy": "toy", "toy_values": 3,
                                              "toy_bonus": 0}, 2)


def test_without_the_toy_nothing_knows_it(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["max", EXAMPLE, "A", "--strategy", "toy"])
    assert "invalid choice: 'toy'" in capsys.readouterr().err
    with pytest.raises(InputError, match="unknown strategy 'toy'"):
        max_grundy(load_grammar(EXAMPLE), "A", strategy="toy")


@pytest.mark.parametrize("name", ["bfs", "dfs", "lasso", "sat", "pdr"])
def test_each_evidence_gives_its_json_fields(name: str) -> None:
    """Should give the evidence object of schema max/3: the strategy's name, and the
    solvers' three fields for sat and pdr (induction_depth set exactly when k-induction
    proved the verdict)."""
    pytest.importorskip("jsonschema")
    from schemas import validate

    if strategies.get(name).solver is not None:
        pytest.importorskip("pysat")
    g = (parse_grammar("A -> a A | a a B | a\nB -> a A | a") if name == "lasso"
         else load_grammar(str(ROOT / "examples" / "csub.json")))
    try:
        v = max_grundy(g, "A", strategy=name, engine="python" if name == "bfs" else "auto")
    except InputError as e:  # pdr without ABC
        pytest.skip(str(e))
    out = v.to_json()
    validate({"schema": "max/3", **out})
    evidence = out["evidence"]
    solved = strategies.get(name).solver is not None
    assert list(out)[-3:] == ["proof", "evidence", "engine"]
    assert set(evidence) == ({"strategy", "max_length", "induction_depth", "solver",
                                             "settled"} if solved
                             else {"strategy"})
    assert evidence["strategy"] == name
    if solved:
        assert out["engine"] is None and evidence["solver"]["name"]
        assert (evidence["induction_depth"] is not None) == (v.proof == "k-induction")
    else:
        assert out["engine"]["name"] in ("python", "compiled")


@pytest.mark.usefixtures("toy")
def test_a_plugin_strategy_validates_without_changing_other_verdicts(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """With the toy strategy and the toy engine registered, the published schema max/3
    (with its check on) takes the toy's verdict, a bfs verdict, and a verdict of the toy
    engine, and still refuses a published strategy's evidence with a stray field."""
    jsonschema = pytest.importorskip("jsonschema")
    import toy_engine
    from schemas import validate

    from sdg_automata.search import engines

    monkeypatch.setitem(engines.ENGINES, "toy", toy_engine.ENGINE)
    g = load_grammar(EXAMPLE)
    toy = max_grundy(g, "A", strategy="toy", options={"toy_bonus": 2}).to_json()
    bfs = max_grundy(g, "A", strategy="bfs").to_json()
    engine = max_grundy(g, "A", engine="toy").to_json()
    for out in (toy, bfs, engine):
        validate({"schema": "max/3", **out})
    assert engine["engine"] == {"name": "toy", "store": "dict", "workers": None}
    with pytest.raises(jsonschema.ValidationError):
        validate({"schema": "max/3", **bfs, "evidence": {"strategy": "bfs", "toy_values": 3}})
    with pytest.raises(jsonschema.ValidationError):
        validate({"schema": "max/3", **bfs, "evidence": {"strategy": "sat"}})
    with pytest.raises(jsonschema.ValidationError):
        validate({"schema": "max/3", **bfs, "evidence": {"toy_values": 3}})


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
    from clirun import fresh

    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import toy_strategy\n"
        "from sdg_automata.search.strategies import register\n"
        "register(toy_strategy.STRATEGY)\n"
        "import sdg_automata\n"
        "from sdg_automata.grammar.parse import load_grammar\n"
        "v = sdg_automata.max_grundy(load_grammar(sys.argv[2]), 'A', strategy='toy')\n"
        "print(v.strategy, v.evidence.values)\n")
    done = fresh(script, EXAMPLE)
    assert (done.returncode, done.stdout) == (0, "toy 3\n"), done.stderr[-2000:]
