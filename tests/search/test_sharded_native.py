"""The shards' kernels as a native library (:mod:`sdg_automata.kernels.sharded_native`)
against numba's dispatchers of the same kernels and against one process, in this process:
one shard driven level by level as the driver would, on the packed store and on records,
with ids on the wire and in the records widened from 16 to 32 bits mid-walk."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sdg_automata.generators.families import even_length_dfa, intersection_grammar, random_family
from sdg_automata.search.decide import max_grundy

pytest.importorskip("numba")


class _Caught(Exception):
    def __init__(self, search: Any) -> None:
        super().__init__()
        self.search = search


def _search(g: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """The :class:`~sdg_automata.search.request.Search` the dask engine is given for g."""
    from sdg_automata.search import sharded

    def catch(search: Any, budget: Any, **_: Any) -> Any:
        raise _Caught(search)

    with monkeypatch.context() as m:
        m.setattr(sharded, "sharded_bfs", catch)
        try:
            max_grundy(g, g.start, engine="dask", options={"scheduler": "tcp://127.0.0.1:9"})
        except _Caught as e:
            return e.search
    raise AssertionError("the dask engine was not asked")


def _levels(search: Any, store: str, kernel: Any) -> tuple[list[Any], Any, Any, int]:
    """One shard's whole walk: each level's answer, the codes and numbers of its states."""
    import cloudpickle

    from sdg_automata.search.shard import Shard

    shard = Shard(cloudpickle.dumps(search.automaton), 0, 1, search.head,
                  search.constraint_arrays(), "t", store)
    shard.kernel = kernel
    shard.connect("t", 0, [shard])
    answers, offset, call = [], 1, 1
    answer = shard.next_level("t", call, None, True)
    while answer is not None and answer["merged"]["new"]:
        answers.append({k: v for k, v in answer["merged"].items() if k != "bytes"})
        new = answer["merged"]["new"]
        call += 1
        answer = shard.next_level("t", call, offset, True)
        answers.append(answer["numbered"])
        offset += new
    n = shard.n
    return answers, shard.codes.array[:n].copy(), shard.gids.array[:n].copy(), offset


@settings(max_examples=8, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(count=st.integers(2, 4), states=st.integers(3, 7), seed=st.integers(0, 10**6),
       store=st.sampled_from(["packed", "records"]), narrow=st.sampled_from([None, 8]))
def test_native_kernels_walk_as_numba_and_one_process(
        monkeypatch: pytest.MonkeyPatch, count: int, states: int, seed: int, store: str,
        narrow: int | None) -> None:
    """Should give, level by level, the answers, codes and numbers that numba's
    dispatchers of the same kernels give, and one process's state count; ``narrow``:
    ids past 8 are 32-bit on the wire and in the records (the widening mid-walk)."""
    from sdg_automata.kernels import native, sharded, sharded_native
    from sdg_automata.search import shard
    from sdg_automata.search.compiled import stores

    if not native.enabled():
        pytest.skip("native libraries are off here")
    dfas = random_family(count, states, seed=seed)
    dfas.append(dfas[0].complement().intersection(even_length_dfa(dfas[0].input_symbols))
                .minify())  # an empty intersection: every reachable state is walked
    g = intersection_grammar(dfas)
    search = _search(g, monkeypatch)
    if narrow is not None:
        monkeypatch.setattr(shard, "NARROW", narrow)
        monkeypatch.setattr(stores, "NARROW", narrow)
    native_walk = _levels(search, store, sharded_native)
    assert all(callable(f) and not hasattr(f, "py_func")
               for f in sharded_native.functions().values())  # native code, not numba's
    numba_walk = _levels(search, store, sharded)
    assert native_walk[0] == numba_walk[0]
    for mine, theirs in zip(native_walk[1:3], numba_walk[1:3], strict=True):
        np.testing.assert_array_equal(mine, theirs)
    one = max_grundy(g, g.start, strategy="bfs", engine="python")
    assert not one.stopped_early and native_walk[3] == one.states
