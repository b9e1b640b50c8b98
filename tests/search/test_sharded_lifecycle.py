"""The sharded search's reliability (issue 34 §5): a run's shards go with their driver,
whatever way it goes.

Each test starts its own cluster (tests/cluster.py: a `dask scheduler` and two `dask
worker` processes on 127.0.0.1) and runs the driver in a child process, which it kills or
cuts off mid-search; the workers are then asked, through ``Client.run``, which
:class:`~sdg_automata.search.shard.Shard` objects they still hold."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cluster import ROOT, dask_cluster
from fakeservers import serving

pytest.importorskip("distributed")
pytest.importorskip("numba")

#: the longest the workers may take to free an abandoned run (a shard looks every second;
#: Dask's own timeout for a shard waiting on a dropped peer was SEND_TIMEOUT, 60 s)
FREED_WITHIN = 45.0

#: a driver that kills itself (SIGKILL) 50 ms after passing ``argv[2]`` states, that is
#: inside the next level, while the shards step and send (the exhaustive instance of
#: test_sharded: 1,256,764 states in 56 levels, the widest ~140,000 states)
KILLED_DRIVER = """
import os, signal, sys, threading
from sdg_automata.generators.families import even_length_dfa, intersection_grammar, random_family
from sdg_automata.search.decide import max_grundy

dfas = random_family(3, 16, seed=2)
dfas.append(dfas[0].complement().intersection(even_length_dfa(dfas[0].input_symbols)).minify())
g = intersection_grammar(dfas)
fired = []

def progress(n):
    if n > int(sys.argv[2]) and not fired:
        fired.append(n)
        threading.Timer(0.05, os.kill, (os.getpid(), signal.SIGKILL)).start()

max_grundy(g, g.start, engine="dask", options={"scheduler": sys.argv[1]}, progress=progress)
print("finished before it was killed")
"""


def _census() -> Callable[..., dict[str, int]]:
    """What a worker holds of sharded runs: live Shard objects, those whose memory is
    still mapped, and the actors Dask keeps.  A nested function: cloudpickle ships it by
    value (a test module is not importable there)."""

    def census(dask_worker: Any) -> dict[str, int]:
        import gc

        from sdg_automata.search.shard import Shard

        gc.collect()  # garbage in a cycle (an error's frames) is not kept, only not yet freed
        shards = [o for o in gc.get_objects() if isinstance(o, Shard)]
        return {"shards": len(shards),
                "holding": sum(not getattr(s, "closed", False) for s in shards),
                "actors": len(dask_worker.state.actors)}

    return census


def _freed(client: Any) -> dict[str, dict[str, int]]:
    """The workers' census once no shard is left, or as it is after FREED_WITHIN s."""
    deadline = time.monotonic() + FREED_WITHIN
    while True:
        held = client.run(_census())
        if not any(sum(c.values()) for c in held.values()) or time.monotonic() > deadline:
            return held
        time.sleep(0.2)


def _exhaustive(count: int, states: int, seed: int) -> Any:
    """test_sharded's exhaustive instance: ``random_family``'s DFAs and the complement of
    the first on even lengths (the search walks every reachable state)."""
    from sdg_automata.generators.families import (
        even_length_dfa,
        intersection_grammar,
        random_family,
    )

    dfas = random_family(count, states, seed=seed)
    dfas.append(dfas[0].complement().intersection(
        even_length_dfa(dfas[0].input_symbols)).minify())
    return intersection_grammar(dfas)


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=str(ROOT))


def test_a_killed_driver_leaves_no_shard_behind(tmp_path: Path) -> None:
    """Should free every shard of a run whose driver was killed (SIGKILL) mid-level, and
    not pile them up run after run (09b81bb: a shard sending to a peer Dask had dropped
    waited 60 s, then stayed alive, its stores mapped, for good: one more per run)."""
    from distributed import Client

    with dask_cluster(tmp_path) as running, Client(running.address) as client:
        for states in (450_000, 600_000, 750_000):  # three levels of the widest
            child = subprocess.run([sys.executable, "-c", KILLED_DRIVER, running.address,
                                    str(states)], env=_env(), capture_output=True, text=True,
                                   timeout=300, check=False)
            assert child.returncode == -signal.SIGKILL, child.stdout + child.stderr
            held = _freed(client)
            assert all(c == {"shards": 0, "holding": 0, "actors": 0} for c in held.values()), (
                states, held)


def _cut_off_driver() -> Callable[..., list[str]]:
    """Close, on the scheduler's side, the connection of each client holding a shard (a
    network cut): the scheduler forgets those clients and releases what they held."""

    def cut(dask_scheduler: Any) -> list[str]:
        holders = {cs.client_key for key, ts in dask_scheduler.tasks.items()
                   if str(key).startswith("sdg-shard-") for cs in ts.who_wants}
        for client in holders:
            dask_scheduler.client_comms[client].comm.abort()
        return sorted(holders)

    return cut


def _states_held() -> Callable[..., int]:
    """The states a worker's shards hold."""

    def held(dask_worker: Any) -> int:
        return sum(getattr(a, "n", 0) for a in dask_worker.state.actors.values())

    return held


def test_a_driver_cut_off_from_the_scheduler_stops_and_frees_its_shards(tmp_path: Path) -> None:
    """Should, when the driver's connection to the scheduler drops mid-search (the
    scheduler then releases the run), free the shards and stop the driver with one
    ``error:`` line, exit 3: never a traceback, a hang or a verdict."""
    from distributed import Client

    from sdg_automata.grammar.parse import grammar_to_json

    g = _exhaustive(3, 16, 2)  # KILLED_DRIVER's instance
    path = tmp_path / "g.json"
    path.write_text(grammar_to_json(g), encoding="utf-8")
    with dask_cluster(tmp_path / "dask") as running, Client(running.address) as client:
        driver = subprocess.Popen([sys.executable, "-m", "sdg_automata", "max", str(path),
                                   g.start, "--engine", "dask", "--scheduler", running.address],
                                  env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
        try:
            while sum(client.run(_states_held()).values()) < 300_000:  # mid-search
                assert driver.poll() is None, driver.communicate()
                time.sleep(0.02)
            assert client.run_on_scheduler(_cut_off_driver())
            out, err = driver.communicate(timeout=120)
        finally:
            driver.kill()
            driver.wait()
        assert driver.returncode == 3, (out, err)
        assert out == "" and err.startswith("error: ") and err.count("\n") == 1, err
        assert "released this search's shards" in err, err
        held = _freed(client)
        assert all(c == {"shards": 0, "holding": 0, "actors": 0} for c in held.values()), held


# ---------------------------------------------------------------------------
# addresses: exit 2 for one no scheduler can have, exit 3 where none answers


@pytest.fixture
def silent_port() -> Iterator[int]:
    """A port that takes connections and never says a word."""
    with serving(lambda conn: None) as port:
        yield port


def _answer_http(conn: socket.socket) -> None:
    conn.settimeout(2)
    conn.recv(1024)
    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-length: 0\r\n\r\n")


@pytest.fixture
def proxy_port() -> Iterator[int]:
    """A port that answers anything with an HTTP error, as the proxy of a network with no
    route out does (there, tcp://10.255.255.1:8786 answered this: "(MemoryError)")."""
    with serving(_answer_http) as port:
        yield port


def _free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as s:
        return int(s.getsockname()[1])


ADDRESSES = [
    # (address or fixture, exit code, what the line says)
    ("tcp://[::1", 2, "the bracket around its IPv6 host is not closed"),
    ("tcp://::1:8786", 2, "an IPv6 host goes in brackets"),
    ("tcp://[::g]:8786", 2, "is not an IPv6 address"),
    ("tcp://127.0.0.1:65536", 2, "port 65536 is out of range"),
    ("local-threads", 2, "its workers are threads of this process"),
    ("tcp://nonexistent.invalid:8786", 3, "the host name 'nonexistent.invalid' does not "
                                          "resolve"),
    ("refused", 3, "the connection was refused"),
    ("silent", 3, "no answer in Dask's protocol within 2 s"),
    ("proxy", 3, "does not speak Dask's protocol"),
    # whatever this network does with it (drops, refuses, or a proxy answers): exit 3
    ("tcp://10.255.255.1:8786", 3, ""),
]


@pytest.mark.parametrize(("target", "code", "says"), ADDRESSES,
                         ids=[a[0] for a in ADDRESSES])
def test_addresses_are_one_line_naming_them_and_the_cause(
        target: str, code: int, says: str, silent_port: int, proxy_port: int, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Should refuse a malformed address before any connection (exit 2) and say, within
    --connect-timeout, why no scheduler answers at a well-formed one (exit 3), in one
    ``error:`` line naming the address (09b81bb: "(ValueError)" for tcp://[::1, exit 2
    "(MemoryError)" for an unroutable host, a refused port "timed out")."""
    from clirun import run

    from sdg_automata.grammar.parse import grammar_to_json

    address = {"refused": f"tcp://127.0.0.1:{_free_port()}",
               "silent": f"tcp://127.0.0.1:{silent_port}",
               "proxy": f"tcp://127.0.0.1:{proxy_port}"}.get(target, target)
    path = tmp_path / "g.json"
    path.write_text(grammar_to_json(_exhaustive(3, 6, 0)), encoding="utf-8")
    got, out, err = run(["max", path, "A", "--engine", "dask", "--scheduler", address,
                         "--connect-timeout", "2"],
                        capsys)
    assert (got, out) == (code, ""), err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert repr(address) in err and says in err, err
    assert "Error)" not in err and "Error:" not in err, err  # no bare exception names


# ---------------------------------------------------------------------------
# a fresh cluster: the workers compile the kernels before the first level


class _Watching:
    """A progress callback that records what it is told; Ctrl-C once the workers are said
    to compile (or, if that is never said, at the first count), not before: the driver
    says what it does first too."""

    def __init__(self) -> None:
        self.counts: list[int] = []
        self.said: list[str | None] = []

    def __call__(self, n: int) -> None:
        self.counts.append(n)
        raise KeyboardInterrupt

    def describe(self, text: str | None) -> None:
        self.said.append(text)
        if text is not None and text.startswith("compiling"):
            raise KeyboardInterrupt


def test_a_fresh_cluster_says_it_compiles_and_keeps_the_deadline(tmp_path: Path) -> None:
    """Should, while the workers compile the kernels (a cold numba cache), keep the
    deadline (--max-seconds: 0 states reached, not a level later) and say so in the
    progress display instead of showing 0 states (09b81bb: 79 s at "0 states")."""
    from sdg_automata.errors import BudgetExceeded, Interrupted
    from sdg_automata.kernels import sharded_native
    from sdg_automata.search.decide import max_grundy

    g = _exhaustive(3, 6, 0)
    sharded_native.LIBRARY.build()  # the driver's, in its cache: the workers' is what is tested
    with dask_cluster(tmp_path / "dask", workers=0) as running:
        running.env["NUMBA_CACHE_DIR"] = str(tmp_path / "empty-cache")  # nothing compiled
        for _ in range(2):
            running.add_worker()
        running.wait_for(2)
        try:
            with pytest.raises(BudgetExceeded, match=r"budget of 1 s .*\(0 states reached\)"):
                max_grundy(g, g.start, engine="dask",
                           options={"scheduler": running.address}, max_seconds=1)
            watching = _Watching()
            with pytest.raises(Interrupted, match="interrupted after [01] states"):
                max_grundy(g, g.start, engine="dask",
                           options={"scheduler": running.address}, progress=watching)
            assert watching.counts == [], watching.counts
            # the driver's first walk (search.sharded._lessons), then the workers'
            assert watching.said[:2] == ["learning the first levels' steps", None], \
                watching.said
            assert len(watching.said) == 3, watching.said
            assert re.fullmatch(r"compiling the kernels on (1 of )?2 workers?…",
                                watching.said[2] or ""), watching.said
        finally:  # not waiting for them to finish compiling
            for worker in running.workers:
                worker.kill()


# ---------------------------------------------------------------------------
# deep, narrow searches: one process, with a note


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A cluster of two workers, for the searches that leave it as it was."""
    with dask_cluster(tmp_path_factory.mktemp("dask")) as running:
        yield running


def _same(one: Any, two: Any) -> None:
    assert (two.maximum, two.exact, two.answer, two.states, two.witnesses) == (
        one.maximum, one.exact, one.answer, one.states, one.witnesses)


def test_a_constraint_of_one_letter_is_searched_here(warm: Any) -> None:
    """Should search in this process, with a note, a two-letter grammar whose constraint
    lets one letter through (a level holds one state), with one process's verdict."""
    from sdg_automata.errors import EngineNotice
    from sdg_automata.search.decide import max_grundy

    g = _exhaustive(3, 8, 1)
    for within in ("(aa)*", "b*"):
        with pytest.warns(EngineNotice, match="reads one letter"):
            two = max_grundy(g, g.start, within=within, engine="dask",
                           options={"scheduler": warm.address})
        _same(max_grundy(g, g.start, within=within, strategy="bfs"), two)


def _two_letter_counters(moduli: list[int]) -> Any:
    """The SPEC §5 grammar of DFAs over {a, b} that count the letters read, both alike:
    D_p accepts the words of even length ≡ 0 (mod p).  Every level of the search holds one
    state (the length decides it), so it is as deep as lcm(2p…) and one state wide, yet it
    reads two letters; its maximum and shortest witness are modular_truth's."""
    from automata.fa.dfa import DFA

    from sdg_automata.generators.families import intersection_grammar

    dfas = []
    for p in moduli:
        m = 2 * p // (2 if p % 2 == 0 else 1)
        dfas.append(DFA(states=set(range(m)), input_symbols={"a", "b"},
                        transitions={n: {"a": (n + 1) % m, "b": (n + 1) % m} for n in range(m)},
                        initial_state=0, final_states={n for n in range(m) if n % 2 == 0
                                                       and n % p == 0}))
    return intersection_grammar(dfas)


def test_a_deep_narrow_search_is_searched_here(warm: Any,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Should, once the levels measured (PROBE_SECONDS after the first) prove narrower than
    MIN_WIDTH, stop the sharded run and search in this process, saying so, with one
    process's verdict (09b81bb: one barrier per level, 13,387 of 1,081,081 states of a
    unary instance in 10 minutes; here 2 letters, one state per level, 10,010 levels)."""
    from sdg_automata.errors import EngineNotice
    from sdg_automata.generators.families import ModularSpec, modular_truth
    from sdg_automata.search import sharded
    from sdg_automata.search.decide import max_grundy

    moduli = [7, 11, 13, 5]
    g = _two_letter_counters(moduli)
    monkeypatch.setattr(sharded, "PROBE_SECONDS", 1.0)  # the measure, sooner
    with pytest.warns(EngineNotice, match=r"too narrow to shard: [\d,]+ states in [\d,]+ "
                                          r"levels .* fewer than 1,000 a level"):
        two = max_grundy(g, g.start, engine="dask",
                           options={"scheduler": warm.address})
    one = max_grundy(g, g.start, strategy="bfs")
    _same(one, two)
    truth, length = modular_truth([ModularSpec(p, 0) for p in moduli])
    assert two.maximum == truth and len(str(two.witness)) == length
