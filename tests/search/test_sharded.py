"""The breadth-first search sharded over a Dask cluster (issue 27, item 3), the ``dask``
search engine: the same verdict as one process (maximum, witnesses, states, budget
stops), the command line's ``max --engine dask --scheduler ADDR``, and a worker killed
mid-search (a clean error, and a rerun that gives the right answer); the shards' stores
(random families on two workers against the Python reference, ids that outgrow a packed
key).

One real cluster (tests/cluster.py: a `dask scheduler` and two `dask worker` processes on
127.0.0.1) serves the module; the killed-worker test starts its own."""

from __future__ import annotations

import asyncio
import json
import math
import os
import re
import subprocess
import sys
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from clirun import run
from cluster import Cluster, dask_cluster
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from sdg_automata.errors import BudgetExceeded, InputError, Interrupted, ResourceError
from sdg_automata.generators.families import (
    ModularSpec,
    even_length_dfa,
    intersection_grammar,
    modular_family,
    modular_truth,
    product_truth,
    random_family,
)
from sdg_automata.grammar import Grammar
from sdg_automata.grammar.parse import grammar_to_json
from sdg_automata.search.decide import max_grundy

pytest.importorskip("distributed")
pytest.importorskip("numba")

def family(count: int, states: int, seed: int, empty: bool) -> tuple[Grammar, list[Any]]:
    """``random_family``'s DFAs (and, with ``empty``, the complement of the first on even
    lengths: the intersection is then empty, so the search walks every reachable state, as
    bench_search); the grammar and the DFAs."""
    dfas = random_family(count, states, seed=seed)
    if empty:
        dfas.append(dfas[0].complement().intersection(
            even_length_dfa(dfas[0].input_symbols)).minify())
    return intersection_grammar(dfas), dfas


def exhaustive(count: int, states: int, seed: int) -> Grammar:
    """:func:`family` with the search walking every reachable state."""
    return family(count, states, seed, True)[0]


ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Cluster]:
    with dask_cluster(tmp_path_factory.mktemp("dask")) as running:
        yield running


@pytest.fixture(autouse=True)
def wide_enough(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests hold the sharded walk itself to one process: its narrow-level rule (a
    search whose levels stay under MIN_WIDTH states after PROBE_SECONDS runs here, issue 34
    §5) is off, since their instances are narrow and a loaded machine reaches the probe
    (test_sharded_lifecycle tests the rule).  And the driver learns the steps of the first
    64 states only (LESSON_STATES), so that on these small instances the shards still
    learn steps of their own and send each other the parts they make."""
    from sdg_automata.search import sharded as module

    monkeypatch.setattr(module, "PROBE_SECONDS", math.inf)
    monkeypatch.setattr(module, "LESSON_STATES", 64)


def sharded(g: Grammar, address: str, k: int | None = None, *,
            options_usage: list[dict[str, float]] | None = None, **kw: Any) -> Any:
    options: dict[str, Any] = {"scheduler": address}
    if options_usage is not None:  # each shard's usage (CPU, lessons, …) once it ends
        options["usage"] = options_usage.extend
    v = max_grundy(g, g.start, k, engine="dask", options=options, **kw)
    assert (v.engine.name, v.engine.store) == ("dask", "table") and v.engine.workers >= 1
    return v


def same(one: Any, two: Any) -> None:
    assert (two.maximum, two.exact, two.answer, two.states, two.stopped_early, two.proof) == (
        one.maximum, one.exact, one.answer, one.states, one.stopped_early, one.proof)
    assert two.witnesses == one.witnesses


CASES = [
    ("random 3×6 seed 0", intersection_grammar(random_family(3, 6, seed=0)), None, None),
    ("random 3×8 seed 1, exhaustive", exhaustive(3, 8, 1), None, None),
    ("random 3×12 seed 2, exhaustive", exhaustive(3, 12, 2), None, None),  # 151,760 states
    ("random 4×6 seed 3", intersection_grammar(random_family(4, 6, seed=3)), None, None),
    ("random 4×6 seed 3, k = 1", intersection_grammar(random_family(4, 6, seed=3)), 1, None),
    ("random 3×8 seed 1, within", exhaustive(3, 8, 1), None, "(ab|ba)*b*"),
    ("random 3×8 seed 1, k = 0, within", exhaustive(3, 8, 1), 0, "a(a|b)*"),
]


@pytest.mark.parametrize(("g", "k", "within"), [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_the_same_verdict_as_one_process(cluster: Cluster, g: Grammar, k: int | None,
                                         within: str | None) -> None:
    """Should give one process's maximum, answer, witnesses (the shortlex-first shortest
    ones the one-process walk finds) and state count, stopping where it stops."""
    one = max_grundy(g, g.start, k, strategy="bfs", engine="compiled", within=within)
    same(one, sharded(g, cluster.address, k, within=within))


@pytest.mark.parametrize("first", [1, 64, 10**6])
def test_the_shards_learn_only_the_steps_the_driver_did_not(
        cluster: Cluster, monkeypatch: pytest.MonkeyPatch, first: int) -> None:
    """Should give one process's verdict whatever the driver learned before the shards
    started (q₀'s steps, the first 64 states', every state's), and leave the shards no step
    to learn once the driver walked every state, but some otherwise (each shard learns the
    steps its own states take)."""
    from sdg_automata.search import sharded as module

    monkeypatch.setattr(module, "LESSON_STATES", first)
    g = exhaustive(3, 8, 1)
    one = max_grundy(g, g.start, strategy="bfs", engine="compiled")
    usage: list[dict[str, float]] = []
    two = sharded(g, cluster.address, options_usage=usage)
    same(one, two)
    lessons = [u["lessons"] for u in usage]
    assert len(lessons) == 2
    if first >= one.states:
        assert lessons == [0, 0]
    else:
        assert all(n > 0 for n in lessons), lessons


def test_the_drivers_first_walk_ends_the_search_as_the_search_would(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Should learn the first levels' steps under the search's budget (no more states
    than max_states, the display told what the driver does and of no count), and end the
    search as it would end later, with 0 states numbered: at its deadline, at Ctrl-C, as
    memory runs out; a table over the kernels' limit goes to the engine's fallback
    (OverflowError)."""
    from sdg_automata.runtime import budget as budgets
    from sdg_automata.runtime.budget import Budget
    from sdg_automata.search import sharded as module
    from sdg_automata.search.compiled import drive
    from sdg_automata.search.decide import question

    g = exhaustive(3, 8, 1)
    search = question(g, g.start)
    said: list[str | None] = []

    class Display:
        def __call__(self, n: int) -> None:
            raise AssertionError(f"told of {n} states")

        def describe(self, text: str | None) -> None:
            said.append(text)

    monkeypatch.setattr(module, "LESSON_STATES", 1000)
    fresh = sum(search.tables().part_counts)
    learned = module._lessons(search, Budget(progress=Display()).start())
    assert sum(learned.part_counts) > fresh
    assert said == ["learning the first levels' steps", None]
    caps: list[int | None] = []
    walk = drive.breadth_first

    def spied(tables: Any, budget: Any, **kw: Any) -> Any:
        caps.append(budget.max_states)
        return walk(tables, budget, **kw)

    monkeypatch.setattr(drive, "breadth_first", spied)
    module._lessons(search, Budget(max_states=10).start())
    module._lessons(search, Budget(max_states=10**9).start())
    assert caps == [10, 1000]
    with pytest.raises(BudgetExceeded, match=r"budget of 1e-09 s .*\(0 states reached\)"):
        module._lessons(search, Budget(max_seconds=1e-9).start())

    def failing(error: BaseException) -> Any:
        def walk(*_: Any, **__: Any) -> Any:
            raise error
        return walk

    monkeypatch.setattr(drive, "breadth_first", failing(Interrupted("interrupted after 9 "
                                                                    "states", explored=9)))
    with pytest.raises(Interrupted, match=r"^interrupted after 0 states") as stopped:
        module._lessons(search, Budget().start())
    assert stopped.value.explored == 0
    monkeypatch.setattr(drive, "breadth_first", failing(OverflowError("a table too large")))
    with pytest.raises(OverflowError, match="a table too large"):
        module._lessons(search, Budget().start())
    monkeypatch.setattr(drive, "breadth_first", failing(BudgetExceeded("memory", explored=9)))
    monkeypatch.setattr(budgets, "memory_pressure", lambda: "1 MB left")
    with pytest.raises(BudgetExceeded, match=r"before memory ran out \(1 MB left\) after 0"):
        module._lessons(search, Budget().start())
    monkeypatch.setattr(budgets, "memory_pressure", lambda: None)  # the walk's own cap
    assert module._lessons(search, Budget().start()).part_counts == search.tables().part_counts


def test_unary_modular_families(cluster: Cluster) -> None:
    """Should agree with one process and with number theory (modular_truth) on a
    one-letter family: one state per level, which the cluster would pay two round trips
    for, so it is searched in this process (the compiled engine, the dask engine's
    fallback), with a note (issue 34 §5)."""
    from sdg_automata.errors import EngineNotice

    specs = [ModularSpec.parse(s) for s in "3:0 5:2 7:3 3:1".split()]
    g = modular_family(specs)
    truth, length = modular_truth(specs)
    with pytest.warns(EngineNotice, match="runs on the compiled engine, not dask: every word "
                                          "searched reads one letter.*in this process"):
        two = max_grundy(g, g.start, engine="dask", options={"scheduler": cluster.address})
    assert two.maximum == truth and len(str(two.witness)) == length
    same(max_grundy(g, g.start, strategy="bfs", engine="compiled"), two)
    assert two.engine.name == "compiled"


@pytest.mark.parametrize("limit", [1, 2, 600, 5176, 5177])
def test_the_state_budget_stops_where_one_process_stops(cluster: Cluster, limit: int) -> None:
    """Should pass the state budget exactly where one process does (the same count)."""
    g = exhaustive(3, 8, 1)  # 5,177 states
    try:
        one = max_grundy(g, g.start, strategy="bfs", engine="compiled", max_states=limit)
    except BudgetExceeded as e:
        with pytest.raises(BudgetExceeded) as two:
            sharded(g, cluster.address, max_states=limit)
        assert two.value.explored == e.explored and str(two.value) == str(e)
    else:
        same(one, sharded(g, cluster.address, max_states=limit))


def test_ctrl_c_and_seconds_stop_between_levels(cluster: Cluster) -> None:
    """Should turn Ctrl-C into Interrupted and the clock into BudgetExceeded, each saying
    how many states were numbered, and leave the cluster ready for the next search."""
    g = exhaustive(3, 8, 1)

    def interrupt(n: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(Interrupted) as stopped:
        sharded(g, cluster.address, progress=interrupt)
    assert 0 < stopped.value.explored < 5177
    with pytest.raises(BudgetExceeded, match="budget of 1e-09 s"):
        sharded(g, cluster.address, max_seconds=1e-9)
    assert sharded(g, cluster.address).states == 5177


def test_progress_counts_numbered_states(cluster: Cluster) -> None:
    seen: list[int] = []
    v = sharded(exhaustive(3, 8, 1), cluster.address, progress=seen.append)
    assert seen == sorted(seen) and 0 < seen[-1] <= v.states


def test_the_command_line(cluster: Cluster, tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    """``max GRAMMAR A --engine dask --scheduler ADDR`` prints what ``max GRAMMAR A`` prints
    (but the seconds, bytes and engine); refusals are one error line, exit 2
    (addresses: test_sharded_lifecycle)."""
    path = tmp_path / "g.json"
    g = exhaustive(3, 8, 1)
    path.write_text(grammar_to_json(g), encoding="utf-8")
    one = run(["max", path, g.start, "--strategy", "bfs", "--engine", "compiled", "--json"],
              capsys)
    dask = ["--engine", "dask", "--scheduler", cluster.address]
    two = run(["max", path, g.start, *dask, "--json"], capsys)
    assert one[0] == two[0] == 0, two[2]
    a, b = json.loads(one[1]), json.loads(two[1])
    for key in ("seconds", "peak_bytes", "engine"):
        a.pop(key), b.pop(key)
    assert a == b
    assert run(["max", path, g.start, "1", *dask], capsys)[:2] == (1, "no\n")
    for args, message in (
            [[*dask, "--strategy", "dfs"], "the dask engine does not run the dfs strategy"],
            [["--engine", "python", "--scheduler", cluster.address],
             "scheduler is an option of the dask engine; the python engine does not take it"],
            [["--scheduler", cluster.address], "; engine auto does not take it"],
            [[*dask, "--max-length", "3"], "bounds the sat strategy"],
            [["--engine", "dask"], "the dask engine needs a scheduler"],
            [["--connect-timeout", "5"], "connect_timeout is an option of the dask engine; "
                                         "engine auto does not take it"]):
        code, _, err = run(["max", path, g.start, *args], capsys)
        assert code == 2, err
        assert err.startswith("error: ") and err.count("\n") == 1, err
        assert message in err


def test_a_bad_address_is_an_input_error() -> None:
    with pytest.raises(InputError, match="scheduler"):
        sharded(exhaustive(3, 8, 1), "bogus://x")


def test_a_killed_worker_is_a_clean_error_and_a_rerun_is_right(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should, when a worker is killed while the search runs, stop within seconds with
    ResourceError (exit 3 on the command line), never an answer; run again on the
    cluster as it is then, the search gives the right verdict.  One level a call of the
    driver (``SLICE`` 0), so that the progress it reports between calls, which kills the
    worker, comes mid-search (the shards would walk these 36 levels in one call)."""
    from sdg_automata.search import sharded as driver

    monkeypatch.setattr(driver, "SLICE", 0.0)
    g = exhaustive(3, 12, 2)  # 151,760 states in 36 levels
    one = max_grundy(g, g.start, strategy="bfs", engine="compiled")
    with dask_cluster(tmp_path) as running:
        sharded(exhaustive(3, 6, 0), running.address)  # the kernels loaded on both workers
        victim = running.workers[1]
        killed = threading.Event()

        def kill(n: int) -> None:
            if n > 1000 and not killed.is_set():  # mid-search: between levels, or in one
                killed.set()
                threading.Timer(0.01, victim.kill).start()

        try:
            got = sharded(g, running.address, progress=kill)
        except ResourceError as e:
            assert re.search("was lost while expanding level .*: nothing was concluded; run "
                             "the search again", str(e)), str(e)
        else:
            pytest.fail(f"a verdict with a worker killed: {got}")
        assert killed.is_set()
        victim.wait(timeout=20)
        running.add_worker()
        running.wait_for(2)
        same(one, sharded(g, running.address))


# ---------------------------------------------------------------------------
# bounded waits without a cluster: a frozen worker, a silent one, a malformed address


def test_a_worker_silent_for_a_minute_is_lost(monkeypatch: pytest.MonkeyPatch) -> None:
    """The scheduler lists a frozen worker until its worker-ttl (5 minutes); the driver
    counts it lost once its heartbeat (last_seen) has not moved for SILENT_SECONDS."""
    from sdg_automata.search import sharded

    seen = {"tcp://a:1": 1.0, "tcp://b:2": 1.0}

    class Scheduler:
        async def identity(self, n_workers: int = 0) -> dict[str, Any]:
            return {"workers": {a: {"last_seen": t} for a, t in seen.items()}
                    if n_workers == -1 else {}}

    class Client:
        scheduler = Scheduler()

        def sync(self, f: Any, *args: Any, **kwargs: Any) -> Any:
            return asyncio.run(f(*args, **kwargs))

    cluster = sharded._Cluster.__new__(sharded._Cluster)
    cluster.client, cluster.addresses, cluster._beats = Client(), sorted(seen), {}
    clock = [0.0]
    monkeypatch.setattr(sharded.time, "monotonic", lambda: clock[0])
    assert cluster.lost() == []
    clock[0], seen["tcp://b:2"] = 40.0, 2.0  # b beats, a does not
    assert cluster.lost() == []
    clock[0], seen["tcp://b:2"] = sharded.SILENT_SECONDS + 1, 3.0
    assert cluster.lost() == [f"tcp://a:1 (no heartbeat for {sharded.SILENT_SECONDS:g} s)"]
    del seen["tcp://b:2"]
    assert "tcp://b:2" in cluster.lost()


@pytest.mark.parametrize("released", [True, False])
@pytest.mark.parametrize("closed", ["pool", "client"])
def test_a_driver_that_cannot_ask_the_scheduler_ends_with_one_error(
        monkeypatch: pytest.MonkeyPatch, released: bool, closed: str) -> None:
    """A client whose connection pool is closed (the scheduler cut it off) raises
    RuntimeError on every call, and one that gave up reconnecting has no scheduler: the
    driver should end the run with the scheduler's release once the client sees its
    futures cancelled, else with the lost connection, never a traceback (the pool's
    RuntimeError was seen once in ten runs of the cut-off test)."""
    from sdg_automata.search import sharded

    class Scheduler:
        async def identity(self, n_workers: int = 0) -> dict[str, Any]:
            raise AssertionError("not asked: the pool is closed")

    class Client:
        scheduler = Scheduler() if closed == "pool" else None

        def sync(self, f: Any, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("ConnectionPool is closed")

    class Future:
        status = "cancelled" if released else "pending"

    cluster = sharded._Cluster.__new__(sharded._Cluster)
    cluster.client, cluster.addresses, cluster._beats = Client(), ["tcp://a:1"], {}
    cluster.futures = [Future()]
    monkeypatch.setattr(sharded, "LOSS_GRACE", 0.3)
    with pytest.raises(ResourceError) as caught:
        cluster.lost("expanding level 3")
    said = str(caught.value)
    if released:
        assert said.startswith("the Dask scheduler released this search's shards while "
                               "expanding level 3"), said
    else:
        why = {"pool": "RuntimeError: ConnectionPool is closed",
               "client": "ConnectionError: the client closed its connection"}[closed]
        assert said.startswith("lost the connection to the Dask scheduler while expanding "
                               f"level 3 ({why})"), said


@pytest.mark.parametrize("cause", ["error", "released", "key too wide"])
def test_a_shard_failing_because_another_stopped_reports_why_that_one_did(
        cause: str) -> None:
    """A shard that stops makes its peers' calls fail as they send it a batch
    (PeerStopped), and the driver reads the answers in shard order: it should report
    the first shard's own error, its release, or raise KeyTooWide (the search then runs
    on records), not the peer's complaint."""
    from concurrent.futures import Future

    from sdg_automata.search import sharded
    from sdg_automata.search.compiled.stores import KeyTooWide
    from sdg_automata.search.shard import PeerStopped

    def done(outcome: Any) -> Future[Any]:
        future: Future[Any] = Future()
        if isinstance(outcome, BaseException):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)
        return future

    root = {"error": ResourceError("shard 1: another shard ended no level for 60 s"),
            "released": None, "key too wide": KeyTooWide("ids past 64 bits")}[cause]

    class Actor:
        def __init__(self, outcome: Any) -> None:
            self.outcome = outcome

        def levels(self, *args: Any) -> Future[Any]:
            return done(self.outcome)

    cluster = sharded._Cluster.__new__(sharded._Cluster)
    cluster.token, cluster.round, cluster.futures = "t", 0, []
    cluster.actors = [Actor(PeerStopped("shard 1 was stopped: it takes no batch")),
                      Actor(root)]
    expected = {"error": (ResourceError, "ended no level"),
                "released": (ResourceError, "released this search's shards"),
                "key too wide": (KeyTooWide, "64 bits")}[cause]
    with pytest.raises(expected[0], match=expected[1]) as caught:
        cluster.call("levels", what="expanding level 3")
    assert not isinstance(caught.value, PeerStopped)


def test_a_shard_stopped_by_a_dead_worker_is_reported_as_the_lost_worker(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker that dies answers nothing, and its shard's comm closes: the other shard
    stops (PeerStopped) at once. The driver should say which worker was lost, not
    repeat the stopped shard's complaint."""
    from concurrent.futures import Future

    from sdg_automata.search import sharded
    from sdg_automata.search.shard import PeerStopped

    stopped: Future[Any] = Future()
    stopped.set_exception(PeerStopped("shard 1 stopped: it ends no level"))
    silent: Future[Any] = Future()  # the dead worker's call: never answered

    class Actor:
        def __init__(self, future: Future[Any]) -> None:
            self.future = future

        def levels(self, *args: Any) -> Future[Any]:
            return self.future

    class Scheduler:
        async def identity(self, n_workers: int = 0) -> dict[str, Any]:
            return {"workers": {"tcp://a:1": {"last_seen": 1.0}}}  # b is gone

    class Client:
        scheduler = Scheduler()

        def sync(self, f: Any, *args: Any, **kwargs: Any) -> Any:
            return asyncio.run(f(*args, **kwargs))

    cluster = sharded._Cluster.__new__(sharded._Cluster)
    cluster.token, cluster.round, cluster.futures, cluster._beats = "t", 0, [], {}
    cluster.client, cluster.addresses = Client(), ["tcp://a:1", "tcp://b:2"]
    cluster.actors = [Actor(stopped), Actor(silent)]
    monkeypatch.setattr(sharded, "LOSS_GRACE", 0.3)
    with pytest.raises(ResourceError, match="Dask worker tcp://b:2 was lost while expanding "
                                            "level 3") as caught:
        cluster.call("levels", what="expanding level 3")
    assert not isinstance(caught.value, PeerStopped)


def test_a_level_waiting_for_a_stopped_shard_fails_at_once(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Once a peer's channel has closed (its shard stopped, or its worker died), a shard
    waiting for that peer's last batch of the level should stop with PeerStopped at
    once, not wait SEND_TIMEOUT and blame no one (the driver reads answers in shard
    order, so shard 0's wait hid shard 1's own error for a minute)."""
    from sdg_automata.search import shard as module
    from sdg_automata.search.shard import PeerStopped, Shard

    monkeypatch.setattr(module, "SEND_TIMEOUT", 30.0)  # else: a timeout, no PeerStopped
    waiting = Shard.__new__(Shard)
    waiting.ended, waiting.told, waiting.gone = threading.Condition(), {}, set()
    waiting.depth, waiting.shards, waiting.index, waiting.worker = 0, 3, 0, None
    waiting.aborted, waiting.seconds, waiting.waited = False, {"send": 0.0}, 0.0
    waiting.told[0] = {2: ({}, None)}  # shard 2 has ended the level; shard 1 has not
    threading.Timer(0.2, waiting._peer_gone, args=(1,)).start()
    # a wait that ignored the closed channel would end only when the driver says stop
    # (another error: _Stopped), long after the channel closed, not with PeerStopped
    later = threading.Timer(10.0, setattr, args=(waiting, "aborted", True))
    later.start()
    try:
        with pytest.raises(PeerStopped, match="shard 1 stopped: it ends no level"):
            waiting._all_sent()
    finally:
        later.cancel()
    # a channel that closed after its shard ended the level is no matter, and the word
    # of another shard still on its way is waited for
    waiting.gone, waiting.aborted = {2}, False
    waiting.told[0] = {2: ({}, None)}

    def word_of_1() -> None:
        with waiting.ended:
            waiting.told[0][1] = ({}, None)
            waiting.ended.notify_all()

    threading.Timer(0.2, word_of_1).start()
    assert sorted(waiting._all_sent()) == [1, 2]


def test_the_heap_is_held_while_any_shard_runs_and_its_end_keeps_no_shard() -> None:
    """Should count the shards of a process that hold the heap (glibc's mmap threshold),
    set it back only when the last lets go, and let go through a finalizer that holds
    nothing of the shard: Dask drops an idle shard without closing it."""
    import gc
    import weakref

    from sdg_automata.search import shard as module

    calls: list[object] = []
    with pytest.MonkeyPatch.context() as m:
        m.setattr(module, "_heap_thresholds", calls.append)
        m.setattr(module, "_trim_heap", lambda: calls.append(0))
        before = module._HOLDING[0]
        assert before == 0  # no shard of this process holds it (none runs on a worker)
        module._hold_heap()
        module._hold_heap()

        class Owner:  # a shard as far as its finalizer goes
            pass

        closed: list[int] = []

        class Channel:
            def close(self) -> None:
                closed.append(1)

        class Source:
            def close(self) -> None:
                closed.append(2)

        owner = Owner()
        sources: dict[int, Any] = {1: Source()}
        finalizer = weakref.finalize(owner, module._let_go, [Channel()], sources)
        alive = weakref.ref(owner)
        del owner
        gc.collect()
        assert alive() is None and not finalizer.alive and closed == [1, 2] and not sources
        module._let_go([], {})
        assert module._HOLDING[0] == 0
    assert calls == [True, False, 0]


_FAULTS = """
import resource, sys
import numpy as np
from sdg_automata.search import shard

def faults():  # of taking, filling and freeing a batch's buffer (2 MB) 20 times
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(20):  # (numpy asks for 2 MB pages from 4 MB on: 2 faults a buffer)
        np.empty(1 << 18, dtype=np.int64).fill(1)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

if shard._glibc() is None:
    sys.exit(3)
faults()
free = faults()
shard._hold_heap()
faults()
held = faults()
shard._let_go([], {})
print(free, held, faults())
"""


def test_a_running_shard_keeps_the_heap_s_pages_and_gives_them_back_after() -> None:
    """Should let a worker (started as Dask's nanny starts it: ``MALLOC_TRIM_THRESHOLD_``
    of 64 KiB) reuse a batch's pages while a shard runs, where each buffer was faulted in
    anew (glibc's thresholds, seen in the page faults), and give the process its own
    thresholds back after."""
    env = {**os.environ, "MALLOC_TRIM_THRESHOLD_": "65536",
           "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                         if p)}
    done = subprocess.run([sys.executable, "-c", _FAULTS], capture_output=True, text=True,
                          env=env, timeout=120, check=False)
    if done.returncode == 3:
        pytest.skip("not glibc: the heap's thresholds are glibc's")
    assert done.returncode == 0, done.stderr
    free, held, after = map(int, done.stdout.split())
    if free < 20 * 100:  # a host that faults anonymous memory in larger pieces (mTHP)
        pytest.skip(f"{free} page faults for 20 fresh 2 MB buffers: too few to tell")
    assert free >= 20 * 500  # each buffer's 512 pages, faulted in anew
    assert held < 200  # reused
    assert after >= 20 * 500


def test_a_channel_acks_every_batch_but_a_level_s_last_once_taken() -> None:
    """Should hand a channel's batches to the shard in the order sent, answer each batch's
    send once the shard took it, and a level's last batch (its word) unacked: the next
    batch's ack then answers for both (two workers of one process, a real comm)."""
    import distributed

    from sdg_automata.search import shard as module

    taken: list[tuple[int, bool]] = []

    class Taker:  # a shard as far as the handler goes
        def _share(self, sender: int, source: Any) -> bool:
            return False  # the batches come over the comm

        def _take(self, sender: int, depth: int, parts: Any, rows: Any, codes: Any,
                  word: Any) -> None:
            taken.append((depth, word is not None))

        def _peer_gone(self, sender: int) -> None:
            taken.append((-1, False))

    with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                  protocol="tcp://", host="127.0.0.1", dashboard_address=":0",
                                  scheduler_kwargs={"dashboard": False}) as cluster:
        sender, receiver = cluster.workers.values()
        receiver.state.actors["k"] = Taker()
        receiver.handlers[module.CHANNEL_OP] = module._take_batches(receiver)
        channel = module._Channel(sender, receiver.address, 1, 0, "k")
        try:
            for depth, last in [(0, False), (0, True), (1, False), (1, False), (1, True),
                                (2, True), (3, False)]:
                channel.send(0, depth, [], np.zeros((0, 2), np.uint16), np.zeros(0, np.int64),
                             ({}, None) if last else None).result(timeout=30)
                if not last:  # acked: taken, and every batch before it
                    assert taken[-1] == (depth, False)
            assert taken == [(0, False), (0, True), (1, False), (1, False), (1, True),
                             (2, True), (3, False)]
        finally:
            channel.close()


def test_a_channel_s_batches_lie_in_the_arena_its_peer_maps() -> None:
    """Should, where the receiving worker maps the sender's arena (both on this machine),
    hold a level's batches there and send where they lie with the level's last, a batch
    that could not be placed taking those before it along over the comm; and give the
    shard the arrays sent, in order, each level's in its parity's arena (two workers of
    one process, a real comm).  Where the shard declines the arena, each batch should go
    over the comm as it is."""
    import distributed

    from sdg_automata.search import arena
    from sdg_automata.search import shard as module

    if not arena.available():
        pytest.skip("no shared memory here")
    rng = np.random.default_rng(6)
    # (depth, states, whether it is the level's last, whether the arena refuses it)
    plan = [(0, 5, False, False), (0, 200_000, False, False), (0, 0, True, False),
            (1, 70_000, False, False), (1, 9, False, True), (1, 4, False, False),
            (1, 3, True, False), (2, 3, True, False), (3, 10, False, False),
            (3, 0, True, False)]
    batches = [(depth, rng.integers(0, 1 << 16, size=(n, 3)).astype(np.uint16),
                np.sort(rng.integers(0, 1 << 40, size=n)), last, refused)
               for depth, n, last, refused in plan]

    class Taker:
        def __init__(self, share: bool) -> None:
            self.share, self.source, self.got = share, None, []
            self.unread: list[int] = []  # the batches got and not read, in place

        def _share(self, sender: int, source: Any) -> bool:
            self.source = source if self.share else None
            return self.share

        def _take(self, sender: int, depth: int, parts: Any, rows: Any, codes: Any,
                  word: Any) -> None:
            placed = isinstance(rows, arena.Placed)
            self.got.append((depth, rows, codes, word is not None, placed))
            if placed:
                self.unread.append(len(self.got) - 1)
            if word is not None:  # a level is in: read the level before it, as late as a
                # shard may (its merge of level d comes before its last batch of d + 1,
                # which the sender waits for before it writes level d + 2)
                self.read(depth - 1)

        def read(self, depth: int) -> None:
            for i in [i for i in self.unread if self.got[i][0] <= depth]:
                d, rows, codes, last, placed = self.got[i]
                self.source.ensure(rows.parity, max(rows.end, codes.end))
                self.got[i] = (d, self.source.view(rows).copy(), self.source.view(codes).copy(),
                               last, placed)
                self.unread.remove(i)

        def _peer_gone(self, sender: int) -> None:
            pass

    for share in (True, False):
        with distributed.LocalCluster(n_workers=2, processes=False, threads_per_worker=1,
                                      protocol="tcp://", host="127.0.0.1",
                                      dashboard_address=":0",
                                      scheduler_kwargs={"dashboard": False}) as cluster:
            sender, receiver = cluster.workers.values()
            taker = receiver.state.actors["k"] = Taker(share)
            receiver.handlers[module.CHANNEL_OP] = module._take_batches(receiver)
            channel = module._Channel(sender, receiver.address, 1, 0, "k")
            try:
                assert (channel.arena is not None) == share
                place = channel.arena.place if channel.arena is not None else None
                for depth, rows, codes, last, refused in batches:
                    # as a shard: no batch of level d + 2 before the peer merged level d
                    deadline = time.monotonic() + 30
                    while (any(taker.got[i][0] <= depth - 2 for i in taker.unread)
                           and time.monotonic() < deadline):
                        time.sleep(0.01)
                    if channel.arena is not None:
                        channel.arena.place = ((lambda *_: None) if refused  # type: ignore
                                               else place)
                    was = len(taker.got)
                    channel.send(0, depth, [], rows, codes, ({}, None) if last else None
                                 ).result(timeout=30)
                    if share and not last and not refused:  # held: not sent yet
                        assert len(taker.got) == was
                deadline = time.monotonic() + 30  # a level's last is not acked
                while len(taker.got) < len(batches) and time.monotonic() < deadline:
                    time.sleep(0.01)
                taker.read(batches[-1][0])
            finally:
                channel.close()
                if taker.source is not None:
                    taker.source.close()
            assert len(taker.got) == len(batches)
            for (depth, rows, codes, last, refused), (d, r, c, w, placed) in zip(
                    batches, taker.got, strict=True):
                assert (d, w, placed) == (depth, last, share and not refused)
                assert r.dtype == rows.dtype and c.dtype == codes.dtype
                assert np.array_equal(r, rows) and np.array_equal(c, codes)


def test_checking_the_workers_is_bounded() -> None:
    """Client.run waits for ever on a frozen worker; check_workers does not."""

    from sdg_automata.runtime.cluster import check_workers

    never = threading.Event()

    class Client:
        def run(self, function: Any) -> Any:
            never.wait()

    with pytest.raises(ResourceError, match="did not all answer within 0.5 s"):
        check_workers(Client(), timeout=0.5)  # its own timeout's message; no clock of the
    never.set()                               # test's (a loaded machine: issue 34 §7)


@pytest.mark.parametrize("address", ["foo", "tcp://127.0.0.1", "", "tcp://127.0.0.1:99999",
                                     "tcp://:8786"])
def test_malformed_addresses_are_refused_before_any_connection(address: str) -> None:
    from sdg_automata.runtime.cluster import dask_client

    with pytest.raises(InputError, match="expected tcp://HOST:PORT"), \
            dask_client(address, timeout=30):
        pass


def _housekeeping(every: dict[str, float]) -> dict[str, float]:
    """Of the milliseconds between a Dask server's periodic calls, those of the
    housekeeping that :data:`~sdg_automata.runtime.cluster.LOCAL_CONFIG` sets."""
    return {name: every[name] for name in ("tick", "monitor", "memory_monitor") if name in every}


def _periods(server: Any) -> dict[str, float]:
    """The milliseconds between a Dask server's periodic calls, by name."""
    return {name: c.callback_time for name, c in server.periodic_callbacks.items()}


def test_a_local_cluster_runs_without_dashboard_or_profiler() -> None:
    """Should start ``--scheduler local``'s cluster without a dashboard (its port is never
    told) and its worker processes without Dask's profiler (it samples every 10 ms for
    the dashboard only), its scheduler, nannies and workers checking their event loop
    every 500 ms, sampling their resources every 2 s and their memory every 500 ms (as
    the servers run them: Dask's defaults are 20, 500 and 100 ms), and leave this
    process's configuration as it was."""
    import urllib.error
    import urllib.request

    import dask

    from sdg_automata.runtime.cluster import LOCAL_CONFIG, dask_client

    before = {k: dask.config.get(k) for k in LOCAL_CONFIG}
    with dask_client("local", workers=1, timeout=60) as client:
        profiling = client.run(lambda dask_worker: "profile" in dask_worker.periodic_callbacks)
        workers = client.run(lambda dask_worker: {  # (inline: the worker cannot import us)
            name: c.callback_time for name, c in dask_worker.periodic_callbacks.items()})
        nannies = [_housekeeping(_periods(n)) for n in client.cluster.workers.values()]
        scheduler = _housekeeping(_periods(client.cluster.scheduler))
        port = client.cluster.scheduler.http_server.port
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=30) as page:
            assert page.status == 200  # the scheduler's plain routes: this is its server
        with pytest.raises(urllib.error.HTTPError) as missing:  # bokeh's dashboard page
            urllib.request.urlopen(f"http://127.0.0.1:{port}/status", timeout=30)
        missing.value.close()  # its socket: else the garbage collector's ResourceWarning
    assert missing.value.code == 404  # lands in a later test's pytest.warns
    assert list(profiling.values()) == [False]
    assert [_housekeeping(w) for w in workers.values()] == nannies == [
        {"tick": 500, "monitor": 2000, "memory_monitor": 500}]
    assert scheduler == {"tick": 500, "monitor": 2000}
    assert {k: dask.config.get(k) for k in LOCAL_CONFIG} == before


def test_the_docs_give_a_cluster_of_ones_own_the_local_housekeeping(
        tmp_path: Path) -> None:
    """Should, with the environment variables docs/max.md gives for a cluster of one's own,
    start a ``dask worker`` whose housekeeping runs as the local cluster's
    (:data:`~sdg_automata.runtime.cluster.LOCAL_CONFIG`): the variables are Dask's names
    of those settings, and a real worker started with them runs its callbacks at them."""
    import dask
    from cluster import start
    from distributed import Client

    from sdg_automata.runtime.cluster import LOCAL_CONFIG

    text = (ROOT / "docs" / "max.md").read_text(encoding="utf-8")
    env = dict(re.findall(r"^export (DASK_\w+)=(\S+)$", text, flags=re.MULTILINE))
    said = dask.config.collect_env(env)["distributed"]
    housekeeping = {k: v for k, v in LOCAL_CONFIG.items() if k.endswith("interval")}
    assert {k: dask.config.get(k, config={"distributed": said}) for k in housekeeping} \
        == housekeeping
    with dask_cluster(tmp_path, workers=0) as running:
        running.workers.append(start(
            ["distributed.cli.dask_worker", running.address, "--nthreads", "1",
             "--no-nanny", "--host", "127.0.0.1", "--no-dashboard"],
            dict(running.env, **env)))
        running.wait_for(1)
        with Client(running.address, timeout=60) as client:
            workers = client.run(lambda dask_worker: {
                name: c.callback_time for name, c in dask_worker.periodic_callbacks.items()})
    assert [_housekeeping(w) for w in workers.values()] == [
        {"tick": 500, "monitor": 2000, "memory_monitor": 500}]


def test_automata_the_kernels_refuse_are_searched_here(cluster: Cluster) -> None:
    """One group of nonterminals (Example 3): one note, and one process's verdict (the
    kernels' fallback, Python, since they cannot take it either)."""
    from sdg_automata.errors import EngineNotice
    from sdg_automata.grammar.parse import parse_grammar

    g = parse_grammar((Path(__file__).resolve().parents[2] / "examples" / "example3.txt")
                      .read_text(encoding="utf-8"))
    with pytest.warns(EngineNotice, match="the search runs on the python engine, not dask: "
                                          "its nonterminals form one group") as notes:
        v = max_grundy(g, "A", engine="dask", options={"scheduler": cluster.address})
    assert len(notes) == 1 and v.engine.name == "python", [str(n.message) for n in notes]
    one = max_grundy(g, "A", strategy="bfs")
    assert (v.maximum, v.witnesses, v.states) == (one.maximum, one.witnesses, one.states)


# ---------------------------------------------------------------------------
# the shards' stores (issue 36 item 6)


def verdict(v: Any) -> tuple[Any, ...]:
    return v.maximum, v.exact, v.answer, v.states, v.stopped_early, v.witnesses


@settings(max_examples=6, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(count=st.integers(2, 4), states=st.integers(3, 7), seed=st.integers(0, 10**6),
       empty=st.booleans(), k=st.sampled_from([None, 0, 1, 2]))
def test_two_workers_give_the_reference_verdict(cluster: Cluster, count: int, states: int,
                                                seed: int, empty: bool, k: int | None) -> None:
    """Should give, on two workers (successors routed to their owners, merged by code
    and deduped in packed tables), the Python reference's verdict (maximum, witnesses,
    states, where it stops), whose maximum automata-lib's products confirm."""
    from sdg_automata.errors import EngineNotice

    g, dfas = family(count, states, seed, empty)
    one = max_grundy(g, g.start, k, strategy="bfs", engine="python")
    with warnings.catch_warnings(record=True) as notes:
        warnings.simplefilter("always", EngineNotice)
        two = max_grundy(g, g.start, k, engine="dask", options={"scheduler": cluster.address})
    # the kernels refuse one group of nonterminals (the search then runs here, noted)
    assume(not any("form one group" in str(n.message) for n in notes))
    assert (two.engine.name, two.engine.workers) == ("dask", 2)
    assert verdict(two) == verdict(one)
    if k is None:
        assert two.maximum == product_truth(dfas)[0]


def _batch_states(n: int | None) -> int:
    """On a worker: a shard's batches of up to ``n`` states (``None``: as they were)."""
    from sdg_automata.search import shard

    saved = vars(shard).setdefault("_saved_batch", shard.BATCH_STATES)
    shard.BATCH_STATES = saved if n is None else n
    return int(saved)


@pytest.mark.parametrize("batch", [None, 1])
def test_batches_lie_in_shared_memory_between_workers_of_one_machine(
        cluster: Cluster, batch: int | None) -> None:
    """Should give, on two workers of one machine, every batch through its sender's arena
    (the receiver reads it in place: issue 36 item 6) and one process's verdict; with
    batches as small as the buffers allow (4,096 states and more), many a level."""
    import cloudpickle
    import distributed

    from sdg_automata.search import arena

    if not arena.available():
        pytest.skip("no shared memory here, or SDG_AUTOMATA_SHARED_BATCHES=0")
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import it
    g = exhaustive(3, 12, 2)
    one = max_grundy(g, g.start, strategy="bfs", engine="compiled")
    usage: list[dict[str, float]] = []
    with distributed.Client(cluster.address, timeout=30) as client:
        client.run(_batch_states, batch)
        try:
            same(one, sharded(g, cluster.address, options_usage=usage))
        finally:
            client.run(_batch_states, None)
    received = [u["received"] for u in usage]
    assert len(received) == 2 and all(r > 0 for r in received)
    assert [u["placed"] for u in usage] == received


def test_batches_go_over_the_comm_where_shared_memory_is_off(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Should, with ``SDG_AUTOMATA_SHARED_BATCHES=0`` in the workers' environment, send
    every batch over the comm (a cluster of machines of their own does) and give one
    process's verdict."""
    monkeypatch.setenv("SDG_AUTOMATA_SHARED_BATCHES", "0")
    with dask_cluster(tmp_path) as own:
        for g in (exhaustive(3, 12, 2), intersection_grammar(random_family(4, 6, seed=3))):
            one = max_grundy(g, g.start, strategy="bfs", engine="compiled")
            usage: list[dict[str, float]] = []
            same(one, sharded(g, own.address, options_usage=usage))
            assert sum(u["received"] for u in usage) > 0
            assert [u["placed"] for u in usage] == [0, 0]


def _narrow_keys(bits: int | None) -> list[tuple[str, int]]:
    """On a worker: keys of ``bits`` bits, the shards' stores and their failures to fit
    logged (``None``: as they were); the log so far."""
    from sdg_automata.kernels import protocol
    from sdg_automata.search import shard_stores
    from sdg_automata.search.compiled.stores import KeyTooWide

    saved = vars(shard_stores).setdefault("_saved", {})
    log: list[tuple[str, int]] = vars(shard_stores).setdefault("_log", [])
    if bits is None:
        if saved:
            protocol.KEY_BITS = saved.pop("bits")
            shard_stores.PackedShard.fit = saved.pop("fit")
            shard_stores.STORES.update(saved.pop("stores"))
        return log
    saved.update(bits=protocol.KEY_BITS, fit=shard_stores.PackedShard.fit,
                 stores=dict(shard_stores.STORES))
    fit = saved["fit"]

    def logged_fit(self: Any, tables: Any, n: int) -> None:
        try:
            fit(self, tables, n)
        except KeyTooWide:
            log.append(("too wide", n))
            raise

    def maker(name: str, store: Any) -> Any:
        def make(*args: Any) -> Any:
            log.append((name, 0))
            return store(*args)
        return make

    shard_stores.PackedShard.fit = logged_fit
    for name, store in saved["stores"].items():
        shard_stores.STORES[name] = maker(name, store)
    protocol.KEY_BITS = bits
    return log


@pytest.mark.parametrize("first", [1, 10**6])
def test_ids_that_outgrow_a_key_walk_again_on_records(cluster: Cluster,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      first: int) -> None:
    """Should, when the part ids outgrow a packed key (keys of 22 bits on the workers
    here), search again on the record store and give one process's verdict: in the middle
    of the walk where the driver learned q₀'s steps only (the shards' keys start narrow),
    or as the shards are made where it learned every step (their keys are too wide from
    the start)."""
    import sys

    import cloudpickle
    import distributed

    from sdg_automata.search import sharded as module

    monkeypatch.setattr(module, "LESSON_STATES", first)

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # the workers cannot import it
    g, _ = family(3, 8, 1, True)
    one = max_grundy(g, g.start, strategy="bfs", engine="compiled")
    with distributed.Client(cluster.address, timeout=30) as client:
        # (a worker's log keeps the runs before this one)
        before = {w: len(log) for w, log in client.run(_narrow_keys, 22).items()}
        try:
            two = max_grundy(g, g.start, engine="dask", options={"scheduler": cluster.address})
        finally:
            logs = {w: log[before[w]:] for w, log in client.run(_narrow_keys, None).items()}
    assert verdict(two) == verdict(one)
    for log in logs.values():  # per worker: a packed shard that failed to fit, then records
        assert log[0] == ("packed", 0) and log[-1] == ("records", 0), log
        assert all(n > 1 for what, n in log if what == "too wide"), log  # mid-walk
    # where the shards start from every part, no key fits from the start: no walk to fit
    assert any(what == "too wide" for log in logs.values() for what, _ in log) == (
        first == 1), logs
