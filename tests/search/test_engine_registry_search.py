"""The search engine registry (issue 33 §1): one module and one line add an engine everywhere.

A toy engine (``tests/toy_engine.py``: bfs over the Python step with a dict store,
written from scratch) registered by one line is reached from ``max_grundy(engine=...)``,
from ``max --engine`` with its own argument, and from a fresh interpreter that registers
it before the package loads; its verdicts equal the Python reference's on random
grammars.  The one dispatch (:func:`sdg_automata.search.engines.run`) refuses what an
engine cannot run, falls back as declared, and under ``auto`` runs the stages in order.
"""

from __future__ import annotations

import ast
import dataclasses
import warnings
from pathlib import Path
from typing import Any

import pytest
import toy_engine
from clirun import fresh, run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import Definition, left_linear_grammars, right_linear_grammars

import sdg_automata
from sdg_automata.errors import BudgetExceeded, EngineNotice, InputError
from sdg_automata.grammar import Grammar
from sdg_automata.grammar.parse import load_grammar
from sdg_automata.runtime.engines import THRESHOLDS, Unfit
from sdg_automata.search import engines
from sdg_automata.search.decide import max_grundy
from sdg_automata.search.engines.base import Auto, SearchEngine

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = str(ROOT / "examples" / "example3.txt")


@pytest.fixture
def toy(monkeypatch: pytest.MonkeyPatch) -> None:
    """The toy, registered for one test (the one registry line)."""
    monkeypatch.setitem(engines.ENGINES, "toy", toy_engine.ENGINE)


def verdict(g: Grammar, head: str, k: int | None = None, **kw: Any) -> tuple[object, ...]:
    v = max_grundy(g, head, k, **kw)
    return (v.maximum, v.answer, v.exact, v.stopped_early, v.states, v.witnesses, v.proof)


def test_the_registry_lists_the_engines_in_order() -> None:
    assert engines.names() == ("python", "compiled", "compact", "dask")
    assert engines.choices() == ("auto", "python", "compiled", "compact", "dask")
    assert engines.get("compact").fallback == "compiled"
    with pytest.raises(InputError, match="unknown engine 'fast' \\(choose from auto, python"):
        engines.get("fast")
    with pytest.raises(InputError, match="unknown engine 'fast'"):
        max_grundy(load_grammar(EXAMPLE), "A", engine="fast")
    with pytest.raises(InputError, match="registry's own choice"):
        engines.register(dataclasses.replace(toy_engine.ENGINE, name="auto"))


@pytest.mark.usefixtures("toy")
def test_a_registered_engine_runs_in_max_grundy() -> None:
    g = load_grammar(EXAMPLE)
    v = max_grundy(g, "A", engine="toy", options={"toy_label": "hash map"})
    assert verdict(g, "A", engine="toy") == verdict(g, "A", engine="python")
    assert (v.engine.name, v.engine.store, v.engine.workers) == ("toy", "hash map", None)
    assert v.strategy == "bfs"  # the default strategy, since the toy runs no lasso
    with pytest.raises(InputError, match="toy_label is an option of the toy engine; the "
                                         "python engine does not take it"):
        max_grundy(g, "A", engine="python", options={"toy_label": "x"})
    with pytest.raises(InputError, match="the toy engine does not run the dfs strategy "
                                         "\\(it runs bfs\\)"):
        max_grundy(g, "A", strategy="dfs", engine="toy")
    with pytest.raises(InputError, match="unknown option 'toy_lable'"):
        max_grundy(g, "A", engine="toy", options={"toy_lable": "x"})


FAST = settings(max_examples=30, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@FAST
@given(st.one_of(right_linear_grammars(), left_linear_grammars()), st.data())
def test_the_toy_equals_the_reference_on_random_grammars(g: Grammar, data: st.DataObject
                                                         ) -> None:
    """Should give the Python reference's verdict (states, stops, shortest witnesses), whose
    witnesses the definition of the game confirms."""
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    k = data.draw(st.one_of(st.none(), st.integers(0, 3)), label="k")
    within = data.draw(st.sampled_from([None, "a*", "(ab)*", "b(a|b)*", "(a|b)*aa"]))
    with pytest.MonkeyPatch.context() as m:
        m.setitem(engines.ENGINES, "toy", toy_engine.ENGINE)
        toy = verdict(g, head, k, strategy="bfs", engine="toy", within=within)
    assert toy == verdict(g, head, k, strategy="bfs", engine="python", within=within)
    oracle = Definition(g.rules)
    for value, w in toy[5].items():  # type: ignore[attr-defined]
        assert oracle(head, str(w)) == value


@pytest.mark.usefixtures("toy")
def test_the_toy_obeys_the_state_budget_as_the_reference_does() -> None:
    g = load_grammar(EXAMPLE)

    def outcome(engine: str, limit: int) -> object:
        try:
            return verdict(g, "A", engine=engine, max_states=limit)
        except BudgetExceeded as e:
            return str(e), e.explored

    for limit in range(1, 11):
        assert outcome("toy", limit) == outcome("python", limit), limit


@pytest.mark.usefixtures("toy")
def test_a_registered_engine_is_on_the_command_line(capsys: pytest.CaptureFixture[str]
                                                    ) -> None:
    code, out, _ = run(["max", "--help"], capsys)
    assert code == 0 and "toy}" in out and "--toy-label L" in out
    assert "toy: bfs over the Python step with a dict store" in " ".join(out.split())
    code, out, err = run(["max", EXAMPLE, "A", "--engine", "toy"], capsys)
    assert (code, out, err) == (0, "max 2, witness 'aa' (10 states explored)\n", "")
    code, _, err = run(["max", EXAMPLE, "A", "--toy-label", "x"], capsys)
    assert code == 2 and err == ("error: toy_label is an option of the toy engine; engine auto "
                                 "does not take it\n")


def test_without_the_toy_nothing_knows_it(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["max", EXAMPLE, "A", "--engine", "toy"], capsys)
    assert code == 2 and "invalid choice: 'toy'" in err


def test_an_engine_registered_first_thing_is_served_everywhere() -> None:
    """The recipe's one line, first thing in a fresh interpreter: the API and the command
    line both reach the engine (no import-time snapshot of the table misses it)."""
    script = (
        "import sys; sys.path.insert(0, sys.argv[1])\n"
        "import toy_engine\n"
        "from sdg_automata.search.engines import register\n"
        "register(toy_engine.ENGINE)\n"
        "import sdg_automata\n"
        "from sdg_automata.grammar.parse import load_grammar\n"
        "v = sdg_automata.max_grundy(load_grammar(sys.argv[2]), 'A', engine='toy')\n"
        "print(v.engine.name, v.engine.store, v.maximum, v.states)\n"
        "from sdg_automata.cli import main\n"
        "sys.exit(main(['max', sys.argv[2], 'A', '2', '--engine', 'toy', '--toy-label', 'd',"
        " '--json']))\n")
    done = fresh(script, EXAMPLE)
    assert done.returncode == 0, done.stderr[-2000:]
    first, second = done.stdout.splitlines()
    assert first == "toy dict 2 10"
    assert '"answer": true' in second and '"toy"' in second


# ---------------------------------------------------------------------------
# the one dispatch: fallbacks and auto


def _giving_up(search: Any, budget: Any) -> Any:
    raise Unfit("the toy gives up")


def test_an_engine_that_gives_up_falls_back_once(monkeypatch: pytest.MonkeyPatch) -> None:
    quitter = SearchEngine(name="quitter", describe="gives up", implements={"bfs": _giving_up},
                           fallback="python")
    monkeypatch.setitem(engines.ENGINES, "quitter", quitter)
    g = load_grammar(EXAMPLE)
    with pytest.warns(EngineNotice, match="the search runs on the python engine, not quitter: "
                                          "the toy gives up") as notes:
        v = max_grundy(g, "A", engine="quitter")
    assert len(notes) == 1 and v.engine.name == "python"
    with pytest.warns(EngineNotice):
        assert verdict(g, "A", engine="quitter") == verdict(g, "A", engine="python")
    refuses = dataclasses.replace(quitter, fallback=None)
    monkeypatch.setitem(engines.ENGINES, "quitter", refuses)
    with pytest.raises(InputError, match="the quitter engine cannot run this search: the toy"):
        max_grundy(g, "A", engine="quitter")


def test_a_search_outside_the_scope_is_refused_or_falls_back(monkeypatch: pytest.MonkeyPatch
                                                             ) -> None:
    narrow = dataclasses.replace(toy_engine.ENGINE, name="narrow", letters=1, constraints=False)
    monkeypatch.setitem(engines.ENGINES, "narrow", narrow)
    g = load_grammar(EXAMPLE)  # two letters
    with pytest.raises(InputError, match="the grammar reads 2 letters, over the narrow "
                                         "engine's 1"):
        max_grundy(g, "A", engine="narrow")
    monkeypatch.setitem(engines.ENGINES, "narrow", dataclasses.replace(narrow, fallback="python"))
    with warnings.catch_warnings(record=True) as notes:
        warnings.simplefilter("always")
        assert verdict(g, "A", engine="narrow") == verdict(g, "A", engine="python")
    assert [str(n.message) for n in notes] == [
        "the search runs on the python engine, not narrow: the grammar reads 2 letters, over "
        "the narrow engine's 1"]


@pytest.mark.parametrize("threshold", [1, 4, 9, 10, 11])
def test_auto_runs_the_stages_in_order(monkeypatch: pytest.MonkeyPatch, threshold: int) -> None:
    """A toy second stage after Python: the walk restarts on it past the threshold, with
    the same verdict, progress that never goes back, and the budget's states exact."""
    monkeypatch.setitem(THRESHOLDS, "walk states", threshold)
    monkeypatch.setitem(engines.ENGINES, "compiled", dataclasses.replace(
        toy_engine.ENGINE, name="compiled", auto=Auto(stage=1)))
    g = load_grammar(EXAMPLE)  # 10 states, searched to the end
    seen: list[int] = []
    v = max_grundy(g, "A", progress=seen.append)
    assert v.engine.name == ("python" if threshold >= 10 else "compiled")
    assert verdict(g, "A") == verdict(g, "A", engine="python")
    assert seen == sorted(seen)
    with pytest.raises(BudgetExceeded) as e:
        max_grundy(g, "A", max_states=9)
    assert e.value.explored == 9


def test_auto_skips_engines_that_do_not_fit_without_a_note(monkeypatch: pytest.MonkeyPatch
                                                           ) -> None:
    """Example 3's nonterminals form one group: auto never gets to the kernels."""
    monkeypatch.setitem(THRESHOLDS, "walk states", 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v = max_grundy(load_grammar(EXAMPLE), "A")
    assert v.engine.name == "python"


@pytest.mark.parametrize("path", ["search/decide.py", "cli/automata.py", "render/verdict.py"])
def test_the_facade_names_no_engine(path: str) -> None:
    """Should ask the registry: no engine's name or option compared, keyed or called for."""
    tree = ast.parse((Path(sdg_automata.__file__).parent / path).read_text(encoding="utf-8"))
    named = {"compact", "dask", "scheduler", "connect_timeout", "store"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            assert node.value not in named, ast.unparse(node)
        if isinstance(node, ast.Attribute):
            assert node.attr not in named - {"store"}, ast.unparse(node)
