"""The sparse kernel's search of a rare-class value learns whether the value index pays
(:func:`sdg_automata.kernels.octal.sparse`, issue 36 §5).

The value index finds the XOR of a frequent and an infrequent value at once (0.376,
issue 19) and wastes its random reads where the values are spread evenly (Officers,
0.6: 2.8x slower with it).  The kernel searches about one heap in 128 both ways, on the
same heap, and keeps the way whose sampled cost is lower by half, by counts of splits
visited, so the choice is the same on every run; the values never depend on it (the
reference and the definition say so).
"""

from __future__ import annotations

import numpy as np
import pytest

from sdg_automata.games.octal import OctalGame, naive_values
from sdg_automata.games.octal import values as octal_values
from sdg_automata.kernels import octal
from sdg_automata.runtime.budget import Budget

pytest.importorskip("numba")


def _engine(code: str, n: int) -> octal_values._Engine:
    run = octal_values._Engine(OctalGame.parse(code), method="auto", engine="compiled")
    run.extend(n, Budget().start("test", unit="values"))
    return run


@pytest.mark.parametrize(("code", "probes"), [("0.376", True), ("0.6", False)])
def test_the_search_keeps_the_index_where_it_pays(code: str, probes: bool) -> None:
    """Should search with the index on 0.376 and without it on 0.6 from 2^17 values on
    (the costs as counted, the same on every run), the plain scan's sampled cost on 0.6
    under half the index's."""
    tune = _engine(code, 1 << 17).kernels._tune
    assert tune[octal._SAMPLES] > 0
    assert tune[octal._PLAIN] == int(not probes), tune
    if not probes:
        assert octal._MARGIN * tune[octal._COST_PLAIN] < tune[octal._COST_WITH], tune


@pytest.mark.parametrize("code", ["0.376", "0.6", "0.16"])
def test_the_values_do_not_depend_on_the_search(code: str) -> None:
    """Should give the reference's values (the definition's, where it can be run) whichever
    way the search goes: as it learns, and with the index off."""
    n = 6000
    truth = octal_values._Engine(OctalGame.parse(code), method="auto", engine="python")
    truth.extend(n, Budget().start("test", unit="values"))
    assert truth.g[:1500].tolist() == naive_values(OctalGame.parse(code), 1500)
    for probes in (octal_values._PROBES, 0):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(octal_values, "_PROBES", probes)
            got = _engine(code, n)
        assert np.array_equal(got.g[:n], truth.g[:n]), probes
