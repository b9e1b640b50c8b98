"""The benchmark suites still run (small sizes) and their routes still agree.

Performance is measured by ``python -m benchmarks``, never asserted here; this
only keeps the suites from rotting.  Each suite asserts internally that the
routes it compares give the same answers.  One test per suite, marked ``bench``:
CI runs each once (``python -m pytest -n auto`` deselects no mark; xdist gives each
test to one worker), and ``-m "not bench"`` leaves them out of a local run.
"""

from __future__ import annotations

import pytest

from benchmarks.run import SUITES, main

pytestmark = pytest.mark.bench


@pytest.mark.parametrize("suite", SUITES)
def test_quick_run(suite: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Should run the suite at its quick sizes and print a table."""
    assert main(["--quick", suite]) == 0
    out = capsys.readouterr().out
    assert "┃" in out  # a rich table was printed
