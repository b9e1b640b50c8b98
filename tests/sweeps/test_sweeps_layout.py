"""The sweeps layer and the Dask code as laid out in 0.3 (issue 26).

The runner's machinery has a module each (:mod:`sdg_automata.sweeps.sinks`,
``.resume``, ``.pool``; Dask in :mod:`sdg_automata.runtime.cluster`).  The survey of
many i-Mark instances is :mod:`sdg_automata.sweeps.imark`, above the game package.
"""

from __future__ import annotations

from pathlib import Path

from sdg_automata.runtime import cluster


def test_the_fingerprint_hashes_the_whole_package() -> None:
    import sdg_automata

    package = Path(sdg_automata.__file__).resolve().parent
    assert cluster._worker_identity()["path"] == str(package)
    assert cluster.fingerprint().startswith(sdg_automata.__version__ + "+")


def test_the_game_package_leaves_the_survey_of_many_to_the_sweeps() -> None:
    import sdg_automata.games.imark as game
    from sdg_automata.sweeps import imark

    assert {"survey", "survey_instances", "default_jobs"}.isdisjoint(game.__all__)
    assert not any(hasattr(game, name) for name in ("survey", "survey_instances"))
    assert callable(imark.survey) and callable(imark.survey_instances)
