"""The octal package's structure (issue 26 §5): one module per concept, a light package
root whose names load their module on first use, a checker that does not load the solver,
and the survey above it, in the sweeps layer."""

from __future__ import annotations

import importlib
import json
import subprocess
import sys

import pytest

import sdg_automata.games.octal as octal

SOLVER = ["sdg_automata.games.octal.values", "sdg_automata.games.octal.period",
          "sdg_automata.games.octal.rules", "sdg_automata.games.octal.checkpoint",
          "sdg_automata.games.octal.space", "sdg_automata.kernels.octal"]


def _loaded_after(statement: str) -> list[str]:
    script = f"import sys, json\n{statement}\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          check=True, timeout=120)
    loaded: list[str] = json.loads(done.stdout)
    return loaded


def test_importing_the_checker_loads_no_solver() -> None:
    """Should check certificates independently: importing verify (in a fresh interpreter)
    loads neither the value engine nor the period search, rules or their kernels."""
    loaded = _loaded_after("import sdg_automata.games.octal.verify")
    assert "sdg_automata.games.octal.verify" in loaded
    assert [m for m in SOLVER if m in loaded] == []


def test_the_package_root_loads_nothing_until_asked() -> None:
    loaded = _loaded_after("import sdg_automata.games.octal as o")
    assert [m for m in loaded if m.startswith("sdg_automata.games.octal.")] == []
    loaded = _loaded_after("from sdg_automata.games.octal import OctalGame")
    assert "sdg_automata.games.octal.rules" in loaded and "sdg_automata.sweeps" not in {
        m.rpartition(".")[0] for m in loaded}


@pytest.mark.parametrize("name", sorted(octal._LAZY))
def test_every_name_of_the_package_is_its_modules(name: str) -> None:
    module = importlib.import_module(f"sdg_automata.games.octal.{octal._LAZY[name]}")
    assert getattr(octal, name) is getattr(module, name)
    assert name in dir(octal)


def test_all_names_are_lazy_and_unknown_names_fail() -> None:
    assert set(octal.__all__) <= set(octal._LAZY)
    with pytest.raises(AttributeError, match="no_such_name"):
        octal.no_such_name  # noqa: B018
    with pytest.raises(ImportError):  # the survey is in the sweeps layer, above games
        from sdg_automata.games.octal import survey  # noqa: F401


def test_the_survey_lives_in_sweeps() -> None:
    """Should build the survey in the sweeps layer, one job per code, on the octal engine."""
    from sdg_automata.runtime.budget import Budget
    from sdg_automata.sweeps import octal as survey

    sweep = survey.survey_sweep(1, max_n=200, engine="python")
    assert [job[0] for job in sweep.jobs] == [f"0.{d}" for d in range(1, 8)]
    meter = Budget().start("0.7", unit="values")
    row = survey.survey_row(("0.7", 200, "python"), meter)
    assert row.status == "ok" and row.result is not None and row.result.certified
