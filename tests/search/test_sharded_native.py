"""The shards' kernels as a native library (:mod:`sdg_automata.kernels.sharded_native`)
against numba's dispatchers of the same kernels and against one process, in this process:
one to three shards (threads, calling each other directly) driven level by level as the
driver would, on the packed store and on records, with ids on the wire and in the records
widened from 16 to 32 bits mid-walk."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sdg_automata.generators.families import even_length_dfa, intersection_grammar, random_family
from sdg_automata.search.decide import max_grundy

pytest.importorskip("numba")


class _Caught(Exception):
    def __init__(self, search: Any) -> None:
        super().__init__()
        self.search = search


def _search(g: Any, monkeypatch: pytest.MonkeyPatch, required: bool = True,
            within: str | None = None) -> Any:
    """The :class:`~sdg_automata.search.request.Search` the dask engine is given for g
    (``None``, unless ``required``, when the question is answered without it), its words
    ``within`` a regular expression if given."""
    from sdg_automata.search import sharded

    def catch(search: Any, budget: Any, **_: Any) -> Any:
        raise _Caught(search)

    with monkeypatch.context() as m:
        m.setattr(sharded, "sharded_bfs", catch)
        try:
            max_grundy(g, g.start, engine="dask", options={"scheduler": "tcp://127.0.0.1:9"},
                       within=within)
        except _Caught as e:
            return e.search
    if not required:
        return None
    raise AssertionError("the dask engine was not asked")


class _Peer:
    """A shard as its peers call it, in this process: its async methods run on an event
    loop of their own (a thread), as on a Dask worker, each call's answer a future."""

    def __init__(self, shard: Any) -> None:
        self.shard = shard
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def _call(self, coroutine: Any) -> Future[Any]:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop)

    def receive(self, *args: Any) -> Future[Any]:
        return self._call(self.shard.receive(*args))

    def level_codes(self) -> Future[Any]:
        return self._call(self.shard.level_codes())

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join()
        self.loop.close()


class _Cluster:
    """The driver's cluster (:class:`sdg_automata.search.sharded._Cluster`) in this
    process: the shards are threads, each call of the driver made on all at once; every
    answer is kept."""

    def __init__(self, shards: list[Any], pool: ThreadPoolExecutor,
                 max_states: int | None = None) -> None:
        from sdg_automata.runtime.budget import Budget

        self.shards, self.pool, self.round = shards, pool, 1
        self.meter = Budget(max_states=max_states).start("search", unit="states")
        self.answers: list[Any] = []

    def call(self, method: str, *args: Any, what: str | None = None) -> list[Any]:
        call, self.round = self.round, self.round + 1
        got = list(self.pool.map(lambda s: getattr(s, method)("t", call, *args), self.shards))
        if method == "levels":
            self.answers.append(got)
        return got

    def counting(self) -> None:
        pass


def _levels(search: Any, store: str, kernel: Any, shards: int = 1, seconds: float = 0.0,
            max_states: int | None = None, ends: list[str] | None = None
            ) -> tuple[list[Any], Any, Any, int, Any, int]:
    """The shards' whole walk, driven by the driver's own loop
    (:func:`sdg_automata.search.sharded._walk`, ``seconds`` of levels a call: 0 is one
    level a call): what the shards said of each level, the codes and numbers of every
    shard's states (shard after shard), the states numbered, the witnesses and the peak
    bytes; how each call ended goes to ``ends``, also when the budget stops the walk."""
    import cloudpickle

    from sdg_automata.search import sharded
    from sdg_automata.search.shard import Shard

    blob = cloudpickle.dumps(search.tables())  # nothing learned: the shards learn every step
    made = [Shard(blob, i, shards, search.head, search.constraint_arrays(), "t", store)
            for i in range(shards)]
    peers = [_Peer(s) for s in made]
    for shard in made:
        shard.kernel = kernel
        shard.connect("t", 0, peers)
    try:
        with ThreadPoolExecutor(shards) as pool, pytest.MonkeyPatch.context() as m:
            m.setattr(sharded, "SLICE", seconds)
            cluster = _Cluster(made, pool, max_states)
            try:
                witnesses, states, _, peak = sharded._walk(cluster, search, None)  # type: ignore[arg-type]
            finally:
                if ends is not None:
                    ends += [got[0]["end"] for got in cluster.answers]
    finally:
        for peer in peers:
            peer.stop()
    codes = np.concatenate([s.codes.array[:s.n] for s in made])
    gids = np.concatenate([s.gids.array[:s.n] for s in made])
    walked = [level for got in cluster.answers for level in got[0]["levels"]]
    return walked, codes, gids, states, witnesses, peak


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(count=st.integers(2, 4), states=st.integers(3, 7), seed=st.integers(0, 10**6),
       store=st.sampled_from(["packed", "records"]), narrow=st.sampled_from([None, 8]),
       shards=st.sampled_from([1, 2, 3]))
def test_native_kernels_walk_as_numba_and_one_process(
        monkeypatch: pytest.MonkeyPatch, count: int, states: int, seed: int, store: str,
        narrow: int | None, shards: int) -> None:
    """Should give, level by level, the answers, codes and numbers that numba's
    dispatchers of the same kernels give, and one process's state count and numbers;
    ``narrow``: ids past 8 are 32-bit on the wire and in the records (the widening
    mid-walk, a shard's own stream converted, batches of both widths merged)."""
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
    native_walk = _levels(search, store, sharded_native, shards)
    assert all(callable(f) and not hasattr(f, "py_func")
               for f in sharded_native.functions().values())  # native code, not numba's
    numba_walk = _levels(search, store, sharded, shards, seconds=1e9)  # one call: all
    assert native_walk[0] == numba_walk[0] and native_walk[3:] == numba_walk[3:]
    for mine, theirs in zip(native_walk[1:3], numba_walk[1:3], strict=True):
        np.testing.assert_array_equal(mine, theirs)
    one = max_grundy(g, g.start, strategy="bfs", engine="python")
    assert not one.stopped_early and native_walk[3] == one.states
    assert native_walk[4][one.maximum] == one.witness
    # the numbers are one process's: 0 … states − 1, each once (q₀ is 0, its code −1)
    codes, gids = native_walk[1], native_walk[2]
    assert sorted(gids.tolist()) == list(range(one.states))
    order = np.argsort(gids)
    assert codes[order][0] == -1 and (np.diff(codes[order][1:]) > 0).all()


@settings(max_examples=10, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), store=st.sampled_from(["packed", "records"]),
       shards=st.sampled_from([1, 2, 3]), spare=st.sampled_from([1, 4]),
       within=st.sampled_from([None, "(ab|ba)*b*"]), narrow=st.sampled_from([None, 8]))
def test_owners_buffers_a_few_rows_long_walk_as_one_process(
        monkeypatch: pytest.MonkeyPatch, seed: int, store: str, shards: int, spare: int,
        within: str | None, narrow: int | None) -> None:
    """Should give one process's states, numbers and witnesses when every owner's buffer
    holds only ``spare`` rows past the kernel's block of successors: the kernel stops
    before a block whenever one buffer could not take it (FULL, counted: ten times a
    walk at least), and the buffers that could not go out mid-level, own rows and sent alike;
    with a constraint (its state a field of the rows) and ids widened mid-walk too."""
    from sdg_automata.kernels import protocol, sharded_native
    from sdg_automata.search import shard
    from sdg_automata.search.compiled import stores

    monkeypatch.setattr(shard, "BATCH_STATES", 1)
    monkeypatch.setattr(shard, "MIN_BUFFER_ROWS", protocol.BATCH + spare)
    if narrow is not None:
        monkeypatch.setattr(shard, "NARROW", narrow)
        monkeypatch.setattr(stores, "NARROW", narrow)
    dfas = random_family(3, 7, seed=seed)
    dfas.append(dfas[0].complement().intersection(even_length_dfa(dfas[0].input_symbols))
                .minify())  # an empty intersection: every reachable state is walked
    g = intersection_grammar(dfas)
    search = _search(g, monkeypatch, within=within)
    fulls = []

    class Counted:  # the native kernels, each status of expand kept
        def __getattr__(self, name: str) -> Any:
            return getattr(sharded_native, name)

        def expand(self, *args: Any) -> int:
            status = sharded_native.expand(*args)
            fulls.append(status == protocol.FULL)
            return status

    walked, codes, gids, states, witnesses, _ = _levels(search, store, Counted(), shards)
    one = max_grundy(g, g.start, strategy="bfs", engine="python", within=within)
    assert states == one.states and witnesses == {v: str(w) for v, w in one.witnesses.items()}
    assert sorted(gids.tolist()) == list(range(states))
    order = np.argsort(gids)
    assert codes[order][0] == -1 and (np.diff(codes[order][1:]) > 0).all()
    assert sum(fulls) >= 10, sum(fulls)


def test_kept_streams_keep_their_rows_across_growth_and_widening() -> None:
    """Should keep a level's first rows as they were when the kept memory grows, and
    when the ids widen mid-level (uint16 → int32: the own stream converted)."""
    from types import SimpleNamespace

    from sdg_automata.search.shard import Shard

    holder: Any = SimpleNamespace(kept={})
    rows = np.arange(3 * 5000, dtype=np.uint16).reshape(5000, 3)
    Shard._kept(holder, "raw", np.uint16, (3,), 5000)[:] = rows
    grown = Shard._kept(holder, "raw", np.uint16, (3,), 9000, keep=5000)  # past capacity
    np.testing.assert_array_equal(grown[:5000], rows)
    wide = Shard._kept(holder, "raw", np.int32, (3,), 100_000, keep=5000)
    assert wide.dtype == np.int32 and len(wide) == 100_000
    np.testing.assert_array_equal(wide[:5000], rows.astype(np.int32))
    Shard._trim_kept(holder, 100, ("raw",))  # a level that used under a quarter: given back
    assert holder.kept == {}


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), shards=st.sampled_from([1, 2, 3]),
       late=st.sampled_from([0, 40, 400]))
def test_levels_numbered_first_walk_as_levels_numbered_late(
        monkeypatch: pytest.MonkeyPatch, seed: int, shards: int, late: int) -> None:
    """Should give the same levels, codes, numbers and witnesses whether a level is
    numbered late (its codes sent with the last batches) or first (its codes fetched
    before it is expanded, past ``LATE_LIMIT``: one level a call), switching from one to
    the other mid-walk, as one process gives them.  (A level that settles is numbered
    without being stepped when a call ends before it, so the calls' last levels may
    differ: the levels both walked must agree.)"""
    from sdg_automata.kernels import sharded_native
    from sdg_automata.search import shard

    g = intersection_grammar(random_family(3, 6, seed=seed))
    search = _search(g, monkeypatch)
    every_late = _levels(search, "packed", sharded_native, shards, seconds=1e9)
    letters = len(search.automaton.alphabet)
    with monkeypatch.context() as m:  # late up to ~late states (this example only)
        m.setattr(shard, "LATE_LIMIT", late * letters ** 2)
        switched = _levels(search, "packed", sharded_native, shards, seconds=1e9)
    both = min(len(switched[0]), len(every_late[0]))
    assert switched[0][:both] == every_late[0][:both] and switched[3:] == every_late[3:]
    for mine, theirs in zip(switched[1:3], every_late[1:3], strict=True):
        np.testing.assert_array_equal(mine, theirs)
    one = max_grundy(g, g.start, strategy="bfs", engine="python")
    assert switched[3] == one.states
    assert {v: str(w) for v, w in switched[4].items()} == {
        v: str(w) for v, w in one.witnesses.items()}


@given(data=st.data(), shards=st.integers(1, 4), div=st.integers(1, 5),
       lead=st.integers(0, 3), tail=st.integers(0, 2))
@settings(max_examples=60, deadline=None)
def test_number_ranks_keys_among_the_bits_of_every_shard_s_codes(
        data: st.DataObject, shards: int, div: int, lead: int, tail: int) -> None:
    """:func:`~sdg_automata.kernels.sharded.number` should give each key's ⌊key / div⌋
    the count of codes below it (plus base) in place of itself, the remainder kept, as
    a binary search over all the codes does: the codes marked by
    :func:`~sdg_automata.kernels.sharded.mark`, each shard's into one bitmap, negative
    codes included (q₀'s code is −1), keys below and past the bitmap's words too."""
    from sdg_automata.kernels import sharded, sharded_native

    codes = data.draw(st.lists(st.integers(-1, 400), unique=True, max_size=60))
    owner = data.draw(st.lists(st.integers(0, shards - 1), min_size=len(codes),
                               max_size=len(codes)))
    keys = np.array(sorted(data.draw(st.lists(st.integers(-70 * div, 500 * div),
                                              max_size=60))), dtype=np.int64)
    every = np.sort(np.array(codes, dtype=np.int64))
    p = keys // div
    want = (7 + np.searchsorted(every, p)) * div + (keys - p * div)
    # the bitmap's words: from ``lead`` before the least code's to ``tail`` past the largest's
    first = (min(codes, default=0) >> 6) - lead
    words = (max(codes, default=0) >> 6) + 1 - first + tail
    for kernel in (sharded, sharded_native):
        bits = np.zeros(words, dtype=np.uint64)
        for s in range(shards):
            mine = np.array(sorted(c for c, o in zip(codes, owner, strict=True) if o == s),
                            dtype=np.int64)
            kernel.mark(mine, 0, len(mine), 64 * first, bits)
        assert sum(bin(int(w)).count("1") for w in bits) == len(codes)
        out = np.zeros_like(keys)
        kernel.number(keys, 0, len(keys), div, bits, 64 * first, 7, out)
        np.testing.assert_array_equal(out, want)


@given(data=st.data(), shards=st.integers(1, 4), spread=st.sampled_from([1, 3, 64, 5000]),
       div=st.integers(1, 4))
@settings(max_examples=80, deadline=None)
def test_a_level_s_codes_rank_as_a_binary_search_over_every_shard_s(
        data: st.DataObject, shards: int, spread: int, div: int) -> None:
    """Should rank keys among every shard's codes of a level as a binary search over them
    all does, each shard's codes sent as a bitmap or as codes (whichever is no bigger:
    ``spread`` makes them dense or sparse), ranked in one bitmap or in the codes sorted
    (a bitmap is never more words than there are codes), q₀'s code −1 and shards with no
    code included; and each value's first state numbered by its rank."""
    from types import SimpleNamespace

    from sdg_automata.kernels import sharded, sharded_native
    from sdg_automata.search.shard import Shard

    # a dense run -1 … dense − 1 (shard 0's, where ``clustered``: it sends a bitmap while
    # the others' codes may leave the level sparse) and codes spread far
    dense = data.draw(st.integers(0, 200))
    clustered = data.draw(st.booleans())
    codes = sorted(set(range(-1, dense)) | data.draw(st.sets(st.integers(-1, 60 * spread),
                                                             max_size=80)))
    owner = data.draw(st.lists(st.integers(0, shards - 1), min_size=len(codes),
                               max_size=len(codes)))
    owner = [0 if clustered and c < dense else o for c, o in zip(codes, owner, strict=True)]
    mine = [np.array([c for c, o in zip(codes, owner, strict=True) if o == s], np.int64)
            for s in range(shards)]
    every = np.array(codes, dtype=np.int64)
    for kernel in (sharded, sharded_native):
        made = []
        for s in range(shards):
            shard = object.__new__(Shard)  # what _wire_codes and _ranks read of a shard
            shard.codes = SimpleNamespace(array=mine[s])
            shard.level, shard.kernel, shard.kept = (0, len(mine[s])), kernel, {}
            shard.seconds = {"number": 0.0}
            made.append(shard)
        wire = [shard._wire_codes(0, len(mine[s])) for s, shard in enumerate(made)]
        for s, shard in enumerate(made):
            ranks = shard._ranks([w for t, w in enumerate(wire) if t != s])
            if ranks.bits is not None:
                assert len(ranks.bits) <= max(len(codes), 1)
            keys = np.array(sorted(data.draw(st.lists(
                st.integers(-div, (60 * spread + 2) * div), max_size=30))), np.int64)
            p = keys // div
            out = np.zeros_like(keys)
            ranks.number(kernel, keys, 0, len(keys), div, 3, out)
            np.testing.assert_array_equal(out, (3 + np.searchsorted(every, p)) * div
                                          + (keys - p * div))
            firsts = {v: int(c) for v, c in enumerate(mine[s][:3])}
            assert shard._numbered(ranks, firsts, 3) == {
                v: 3 + int(np.searchsorted(every, c)) for v, c in firsts.items()}
        for shard in made:
            for kept in shard.kept.values():
                kept.close()


@settings(max_examples=16, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10**6), shards=st.sampled_from([1, 2, 3]),
       seconds=st.sampled_from([0.0, 1e9]), cap=st.one_of(st.none(), st.integers(1, 400)),
       walk_all=st.booleans())
def test_the_walk_stops_where_one_process_stops_and_never_steps_past_the_cap(
        monkeypatch: pytest.MonkeyPatch, seed: int, shards: int, seconds: float,
        cap: int | None, walk_all: bool) -> None:
    """Should give one process's verdict (states, witnesses) or its budget error (the same
    count and message), walking one level a call or all in one; and a level whose states
    could pass the cap is decided by the driver before any shard steps it (no call ends
    at the cap inside the shards: a budget of states keeps its memory bound)."""
    from sdg_automata.errors import BudgetExceeded
    from sdg_automata.kernels import sharded_native

    dfas = random_family(3, 6, seed=seed)
    if walk_all:  # an empty intersection: no value settles, the cap decides
        dfas.append(dfas[0].complement().intersection(even_length_dfa(dfas[0].input_symbols))
                    .minify())
    g = intersection_grammar(dfas)
    search = _search(g, monkeypatch, required=False)
    assume(search is not None)  # a question answered before any search
    ends: list[str] = []
    try:
        one = max_grundy(g, g.start, strategy="bfs", engine="python", max_states=cap)
    except BudgetExceeded as e:
        with pytest.raises(BudgetExceeded) as two:
            _levels(search, "packed", sharded_native, shards, seconds, cap, ends)
        assert two.value.explored == e.explored and str(two.value) == str(e)
    else:
        walk = _levels(search, "packed", sharded_native, shards, seconds, cap, ends)
        assert walk[3] == one.states
        assert {v: str(w) for v, w in walk[4].items()} == {
            v: str(w) for v, w in one.witnesses.items()}
    assert "cap" not in ends
