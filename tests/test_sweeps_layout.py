"""The sweeps layer and the Dask code as laid out in 0.3 (issue 26), and their 0.2 paths.

The runner's machinery has a module each (:mod:`sdg_automata.sweeps.sinks`,
``.resume``, ``.pool``; Dask in :mod:`sdg_automata.runtime.cluster`), yet every
name of the 0.2 module ``sdg_automata.sweep`` is still importable from
:mod:`sdg_automata.sweeps.runner`.  The survey of many i-Mark instances moved to
:mod:`sdg_automata.sweeps.imark`; the 0.2 paths ``sdg_automata.imark.survey`` (a
module) and ``sdg_automata.imark.survey`` (a function of the package) still reach it
through :mod:`sdg_automata._moved`.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from sdg_automata import _moved
from sdg_automata.runtime import cluster
from sdg_automata.sweeps import imark, pool, resume, runner, sinks

ROOT = Path(__file__).resolve().parent.parent
#: the public names of the 0.2 module sdg_automata.sweep
SWEEP_0_2 = ["FORMATS", "Batch", "CsvSink", "Format", "JsonlSink", "Resumed", "Row", "Sink",
             "Status", "Sweep", "SweepStats", "TableSink", "check_workers", "dask_client",
             "dask_executor", "default_jobs", "fingerprint", "locked", "plain_cells",
             "process_pool", "resume", "run_sweep"]
#: the public names of the 0.2 module sdg_automata.imark.survey
SURVEY_0_2 = ["MAX_INSTANCES", "MAX_SURVEY_STEPS", "SurveyRow", "coalescence_steps",
              "default_jobs", "survey", "survey_instance", "survey_instances", "survey_steps"]


def test_the_runner_still_offers_every_name_of_the_0_2_sweep_module() -> None:
    assert set(SWEEP_0_2) <= set(runner.__all__)
    homes = {"JsonlSink": sinks, "locked": resume, "resume": resume, "process_pool": pool,
             "dask_client": cluster, "check_workers": cluster, "fingerprint": cluster}
    for name, home in homes.items():
        assert getattr(runner, name) is getattr(home, name), name


def test_the_survey_module_offers_every_name_of_the_0_2_one() -> None:
    assert all(hasattr(imark, name) for name in SURVEY_0_2)


def test_the_fingerprint_hashes_the_whole_package() -> None:
    import sdg_automata

    package = Path(sdg_automata.__file__).resolve().parent
    assert cluster._worker_identity()["path"] == str(package)
    assert cluster.fingerprint().startswith(sdg_automata.__version__ + "+")


@pytest.mark.parametrize(("old", "new"), [
    ("sdg_automata.imark", "sdg_automata.games.imark"),
    ("sdg_automata.imark.survey", "sdg_automata.sweeps.imark"),
    ("sdg_automata.imark.naive", "sdg_automata.games.imark.naive"),
    ("sdg_automata.sweep", "sdg_automata.sweeps.runner"),
    ("sdg_automata.sharded", "sdg_automata.search.sharded"),
    ("sdg_automata.sweeps.imark", None),
    ("sdg_automata.games.imark.survey", None),
    ("sdg_automata", None),
    ("other.imark", None),
])
def test_the_longest_moved_key_wins(old: str, new: str | None) -> None:
    assert _moved.new_name(old) == new


def test_the_0_2_survey_paths_reach_the_survey() -> None:
    """In a fresh interpreter: the module path, the package's names, and a warning each."""
    script = textwrap.dedent("""
        import warnings
        warnings.simplefilter("error")
        import sdg_automata
        from sdg_automata.sweeps import imark as new
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            from sdg_automata.imark import survey, survey_instances, default_jobs, imark_grundy
            import sdg_automata.imark.survey as module
        assert survey is new.survey and survey_instances is new.survey_instances
        assert default_jobs is new.default_jobs and module is new
        assert all(w.category is DeprecationWarning for w in seen)
        said = {str(w.message).split(" moved to ")[0] for w in seen}
        assert said == {"sdg_automata.imark", "sdg_automata.imark.survey",  # both survey's
                        "sdg_automata.imark.survey_instances",
                        "sdg_automata.imark.default_jobs"}, said
        import sdg_automata.games.imark as game
        try:
            game.no_such_name
        except AttributeError as e:
            assert "sdg_automata.games.imark" in str(e), e
        else:
            raise AssertionError("an unknown name was found")
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, env={"PYTHONPATH": str(ROOT),
                                                      "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr[-2000:]


def test_the_game_package_leaves_the_survey_of_many_to_the_sweeps() -> None:
    import sdg_automata.games.imark as game

    assert {"survey", "survey_instances", "default_jobs"}.isdisjoint(game.__all__)
    assert game.survey_instance is imark.survey_instance


def test_the_0_2_octal_paths_reach_the_survey_and_the_game() -> None:
    """In a fresh interpreter: sdg_automata.octal's survey names (now sweeps.octal) and its
    lazy game names (games.octal) through one module, a warning each."""
    script = textwrap.dedent("""
        import warnings
        warnings.simplefilter("error")
        from sdg_automata.sweeps import octal as new
        from sdg_automata.games.octal import rules
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            from sdg_automata.octal import OctalGame, SurveyRow, codes, survey
        assert (survey, codes, SurveyRow) == (new.survey, new.codes, new.SurveyRow)
        assert OctalGame is rules.OctalGame
        assert {w.category for w in seen} == {DeprecationWarning}
        said = {str(w.message).split(" moved to ")[0] for w in seen}
        assert said == {"sdg_automata.octal", "sdg_automata.octal.survey",
                        "sdg_automata.octal.codes", "sdg_automata.octal.SurveyRow"}, said
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          cwd=ROOT, timeout=120, env={"PYTHONPATH": str(ROOT),
                                                      "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr[-2000:]
