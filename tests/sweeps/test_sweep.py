"""The sweep engine: rows checked by brute force; local, process-pool and Dask runs agree;
resuming after SIGKILL; torn lines; failing jobs and dying workers as rows."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from cluster import dask_cluster

import sdg_automata
from sdg_automata.derivation.semantics import naive_grundy, suffix_grundy
from sdg_automata.errors import InputError, Interrupted
from sdg_automata.generators.enumeration import GrammarShape
from sdg_automata.grammar.parse import parse_grammar
from sdg_automata.runtime.budget import Budget, Meter
from sdg_automata.runtime.cluster import check_workers, fingerprint
from sdg_automata.sweeps.grammars import COLUMNS, grammar_sweep
from sdg_automata.sweeps.pool import process_pool
from sdg_automata.sweeps.resume import locked, resume
from sdg_automata.sweeps.runner import Status, Sweep, run_sweep
from sdg_automata.sweeps.sinks import CsvSink, JsonlSink

ROOT = Path(__file__).resolve().parents[2]
SMALL = GrammarShape(nonterminals=1, letters="ab", max_rules=3, max_body=2)  # 130 classes
TWO = GrammarShape(nonterminals=2, letters="ab", max_rules=2, max_body=1)  # 139 classes


def rows_of(sweep: Sweep[Any], **kw: Any) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    run_sweep(sweep, rows.append, **kw)
    return rows


def timeless(rows: list[dict[str, Any]]) -> dict[str, str]:
    """Rows by key, without their timing, as canonical JSON."""
    out = {}
    for r in rows:
        assert r["key"] not in out, f"duplicate row {r['key']}"
        out[r["key"]] = json.dumps({k: v for k, v in r.items() if k != "seconds"},
                                   sort_keys=True)
    return out


@pytest.fixture(scope="module")
def local_rows() -> dict[str, str]:
    return timeless(rows_of(grammar_sweep(TWO)))


# -- the rows are right ---------------------------------------------------------------


def test_grammar_rows_against_brute_force() -> None:
    """Should give, for every nonterminal, the maximum over all words up to length
    states - 1 (every reachable state is reached by such a word) and a witness
    whose value the definition confirms."""
    rows = rows_of(grammar_sweep(SMALL))
    assert len(rows) == 130 and all(r["status"] == "ok" for r in rows)
    checked = 0
    for r in rows:
        if r["states"] > 11:
            continue
        g = parse_grammar(r["grammar"])
        best: dict[str, int] = {}
        for n in range(1, r["states"]):
            for w in itertools.product(g.terminals, repeat=n):
                for head, v in suffix_grundy(g, "".join(w)).items():
                    if v is not None:
                        best[head] = max(best.get(head, 0), v)
        assert r["max"] == best, r["key"]
        for head, word in r["witness"].items():
            assert naive_grundy(g, head, word) == r["max"][head]
        checked += 1
    assert checked > 100


def test_first_grammar_with_value_three() -> None:
    """Should find value 3 first at N0 -> a | a N0 | a a N0 | a a a N0 (one nonterminal,
    four rules, bodies of up to three letters), witness aaaa, confirmed by the definition.

    Only grammars whose bound m_A (SPEC §3) reaches 3 can reach 3, so the sweep of
    four rules runs those alone; the smaller sweeps run whole and stop at 2.
    """
    from dataclasses import replace

    from sdg_automata.automaton.bounds import upper_bounds
    from sdg_automata.sweeps.summarize import summarize

    small = [GrammarShape(nonterminals=1, letters="ab", max_rules=r, max_body=b)
             for r, b in [(3, 3), (4, 2)]]
    assert all(max(r["max"]["N0"] for r in rows_of(grammar_sweep(s))) == 2 for s in small)
    sweep = grammar_sweep(GrammarShape(nonterminals=1, letters="ab", max_rules=4, max_body=3))
    hopeful = [j for j in sweep.jobs if upper_bounds(j.grammar())["N0"] >= 3]
    rows = rows_of(replace(sweep, jobs=hopeful))
    table = summarize(rows).tables["smallest grammar reaching each value"]
    assert table[-1] == [3, 1, 4, 7, "N0", "aaaa", "ab: N0 -> a | a N0 | a a N0 | a a a N0"]
    assert sum(1 for r in rows if r["max"]["N0"] == 3) == 14
    g = parse_grammar("N0 -> a | a N0 | a a N0 | a a a N0")
    assert naive_grundy(g, "N0", "aaaa") == 3
    assert all(naive_grundy(g, "N0", "a" * n) < 3 for n in range(1, 4))


# -- every backend gives the same rows ---------------------------------------------------


def test_process_pool_rows_equal_local(local_rows: dict[str, str]) -> None:
    with process_pool(2) as pool:
        rows = rows_of(grammar_sweep(TWO), executor=pool, batch=3, window=4)
    assert timeless(rows) == local_rows


def test_local_cluster_rows_equal_local(local_rows: dict[str, str]) -> None:
    pytest.importorskip("distributed")
    from sdg_automata.runtime.cluster import dask_executor

    with dask_executor("local-threads", workers=2) as (executor, width):
        assert width == 2
        rows = rows_of(grammar_sweep(TWO), executor=executor, batch=5, window=8)
    assert timeless(rows) == local_rows


class _RacedTask:
    """A Dask task whose result was fetched just before its worker died: Dask marks it lost
    while the fetch returns (``Future._result`` then ``Future.status``, in that order)."""

    status = "lost"

    async def _result(self, raiseit: bool = True) -> tuple[str, str, list[Any]]:
        return ("fingerprint", "worker", [])  # a Batch: three fields

    def cancelled(self) -> bool:
        return False


def test_a_result_fetched_as_its_worker_dies_is_a_result() -> None:
    """Should hand over the result a task gave even when its status reads "lost" by then;
    Dask's own executor unpacks that result as an error triple (CI: a sweep stopped with
    "AttributeError: 'str' object has no attribute 'with_traceback'")."""
    pytest.importorskip("distributed")
    from concurrent.futures import Future

    from distributed.cfexecutor import _cascade_future

    from sdg_automata.runtime.cluster import _cascade

    async def witness() -> None:
        await _cascade_future(_RacedTask(), theirs)

    theirs: Future[Any] = Future()
    asyncio.run(witness())
    assert isinstance(theirs.exception(), AttributeError)
    ours: Future[Any] = Future()
    asyncio.run(_cascade(_RacedTask(), ours))
    assert ours.result() == ("fingerprint", "worker", [])


class _CutTask(_RacedTask):
    """A task whose fetch is cut by the client's loop closing (asyncio's CancelledError)."""

    status = "pending"

    async def _result(self, raiseit: bool = True) -> tuple[str, str, list[Any]]:
        raise asyncio.CancelledError


def test_a_fetch_cut_by_the_loop_is_the_executor_lost() -> None:
    """Should fail the future with concurrent.futures' CancelledError (an Exception: the
    sweep reports its executor lost), not asyncio's (a BaseException: it would escape)."""
    pytest.importorskip("distributed")
    from concurrent.futures import CancelledError, Future

    from sdg_automata.runtime.cluster import _cascade

    future: Future[Any] = Future()
    asyncio.run(_cascade(_CutTask(), future))
    assert isinstance(future.exception(), CancelledError)
    assert isinstance(future.exception(), Exception)


def test_dask_executor_futures_carry_results_errors_and_cancels() -> None:
    """Should keep the Executor contract: results, errors, a cancel that wakes ``wait``
    (a cancelled future left unmarked kept ``wait`` for its whole timeout: review), and a
    ``shutdown(wait=True)`` that returns once every future has its outcome."""
    pytest.importorskip("distributed")
    from concurrent.futures import wait

    from sdg_automata.runtime.cluster import dask_executor

    with dask_executor("local-threads", workers=1) as (executor, _):
        assert executor.submit(divmod, 17, 5).result(timeout=60) == (3, 2)
        with pytest.raises(ZeroDivisionError):
            executor.submit(divmod, 1, 0).result(timeout=60)
        slow = executor.submit(time.sleep, 3)
        assert slow.cancel() and slow.cancelled()
        done, _ = wait([slow], timeout=60)
        assert done == {slow}
        many = [executor.submit(time.sleep, 0.2) for _ in range(3)]
        executor.shutdown(wait=True)
        assert all(f.done() and not f.cancelled() for f in many)
        assert "cancelled" in {t.status for t in executor._tasks}  # the cancel reached Dask
    with dask_executor("local-threads", workers=1) as (executor, _):
        left = [executor.submit(time.sleep, 1) for _ in range(4)]
        executor.shutdown(wait=True, cancel_futures=True)
        assert all(f.done() for f in left) and any(f.cancelled() for f in left)


def test_real_dask_cluster(tmp_path: Path, local_rows: dict[str, str]) -> None:
    """Should give the local rows exactly on a `dask scheduler` with two `dask worker`
    processes on 127.0.0.1 (free ports), and refuse a worker that runs other code."""
    pytest.importorskip("distributed")
    from sdg_automata.runtime.cluster import dask_executor

    with dask_cluster(tmp_path, workers=2) as cluster:
        with dask_executor(cluster.address) as (executor, width):
            assert width == 2
            rows = rows_of(grammar_sweep(TWO), executor=executor, batch=4, window=8)
        assert timeless(rows) == local_rows
        # a third worker running a changed copy of the package: refused, named
        cluster.add_worker(changed_copy(tmp_path))
        cluster.wait_for(3)
        version = re.escape(sdg_automata.__version__)
        with pytest.raises(InputError, match=rf"Dask worker .* runs sdg_automata {version}\+\w+ "
                                             r"from .*other.* but this client runs"):
            with dask_executor(cluster.address):
                pass


def changed_copy(tmp_path: Path) -> Path:
    """A copy of the package with one comment more: other code, another fingerprint."""
    other = tmp_path / "other"
    shutil.copytree(ROOT / "sdg_automata", other / "sdg_automata",
                    ignore=shutil.ignore_patterns("__pycache__"))
    with open(other / "sdg_automata" / "grammar" / "__init__.py", "a") as f:
        f.write("\n# changed\n")
    return other


def test_check_workers_names_the_difference() -> None:
    class Client:
        def run(self, fn: Any) -> dict[str, dict[str, str]]:
            return {"tcp://w1": fn(), "tcp://w2": {"fingerprint": "0.0.9+abc", "path": "/x"}}

    with pytest.raises(InputError, match=r"tcp://w2 runs sdg_automata 0\.0\.9\+abc from /x"):
        check_workers(Client())

    class Broken:
        def run(self, fn: Any) -> Any:
            raise ModuleNotFoundError("No module named 'sdg_automata'")

    with pytest.raises(InputError, match="cannot run sdg_automata.*install"):
        check_workers(Broken())
    from sdg_automata import __version__

    assert fingerprint().startswith(__version__ + "+")


# -- failures are rows ---------------------------------------------------------------------


@dataclass(frozen=True)
class ToyRow:
    key: str
    status: Status
    value: int | None = None
    error: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"key": self.key, "status": self.status, "value": self.value,
                "error": self.error}


def toy_work(job: int, meter: Meter) -> ToyRow:
    if job == 3:
        raise ValueError("three is bad")
    if job == 5 and os.environ.get("SWEEP_TEST_DIE") == "1":
        os._exit(7)  # the worker process dies
    if job == 7:
        meter.check(10**6)  # over any state budget
    return ToyRow(str(job), "ok", job * job)


def toy_failed(job: int, status: Status, message: str, reached: int) -> ToyRow:
    return ToyRow(str(job), status, error=message)


TOY = Sweep(name="toy", jobs=list(range(12)), key=str, work=toy_work, failed=toy_failed,
            columns=("key", "status", "value", "error"))


def test_failing_jobs_are_rows() -> None:
    rows = {r["key"]: r for r in rows_of(TOY, budget=Budget(max_states=100))}
    assert len(rows) == 12
    assert rows["3"]["status"] == "error" and "ValueError: three is bad" in rows["3"]["error"]
    assert rows["7"]["status"] == "budget" and "100 states" in rows["7"]["error"]
    assert rows["4"] == {"key": "4", "status": "ok", "value": 16, "error": None}


def late_work(job: int, meter: Meter) -> ToyRow:
    """Past the deadline (the main thread's alarm does not fire: a ThreadPool worker
    runs it), then a row of its own: "budget" with how far it got, or "ok"."""
    time.sleep(0.05)
    return ToyRow(str(job), "budget" if job else "ok", 1234, "stopped at my own budget")


def test_a_late_budget_row_of_the_job_stands() -> None:
    """Should keep the row a job returns as over budget (it says how far the job got)
    even when it comes back after the deadline; a late "ok" row is over the budget."""
    late = Sweep(name="late", jobs=[0, 1], key=str, work=late_work, failed=toy_failed,
                 columns=("key", "status", "value", "error"))
    with ThreadPoolExecutor(1) as pool:
        rows = {r["key"]: r for r in rows_of(late, budget=Budget(max_seconds=0.01),
                                              executor=pool)}
    assert rows["1"] == {"key": "1", "status": "budget", "value": 1234,
                         "error": "stopped at my own budget"}
    assert rows["0"]["status"] == "budget" and rows["0"]["value"] is None
    assert "0.01 s" in rows["0"]["error"]


def test_dying_worker_is_one_error_row(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should rerun the jobs in flight alone on a fresh pool and blame only the killer."""
    monkeypatch.setenv("SWEEP_TEST_DIE", "1")
    with process_pool(2) as pool:
        rows = rows_of(TOY, executor=pool, restart=lambda: process_pool(2), batch=2, window=3)
    by_key = {r["key"]: r for r in rows}
    assert sorted(by_key, key=int) == [str(i) for i in range(12)] and len(rows) == 12
    assert by_key["5"]["status"] == "error" and "died" in by_key["5"]["error"]
    assert by_key["3"]["status"] == "error"
    assert all(by_key[str(i)] == {"key": str(i), "status": "ok", "value": i * i, "error": None}
               for i in range(12) if i not in (3, 5, 7))


def test_skip_and_interrupt() -> None:
    rows = rows_of(TOY, skip={"0", "1", "2"})
    assert sorted(int(r["key"]) for r in rows) == list(range(3, 12))

    def stop(row: dict[str, Any]) -> None:
        if row["key"] == "2":
            raise KeyboardInterrupt

    with pytest.raises(Interrupted, match="after 2 rows.*resume"):  # 0 and 1 were taken
        run_sweep(TOY, stop)
    with ThreadPoolExecutor(2) as pool, pytest.raises(Interrupted):
        run_sweep(TOY, stop, executor=pool)


# -- files: resuming, torn lines, locks ------------------------------------------------------


def test_resume_cuts_a_torn_jsonl_line(tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    rows = rows_of(grammar_sweep(TWO))
    with open(out, "w") as f:
        for r in rows[:10]:
            JsonlSink(f).write(r)
        f.write(json.dumps(rows[10])[:40])  # killed mid-write
    found = resume(out, "jsonl", COLUMNS)
    assert found.done == {r["key"] for r in rows[:10]} and found.torn_bytes == 40
    assert out.read_text().count("\n") == 10 and out.read_text().endswith("}\n")
    # a complete last line (it has its newline) that is not a row is no torn write: a row
    # is one write ending in its newline, so it is refused and kept, never cut (issue 21 §7)
    with open(out, "a") as f:
        f.write("{not json\n")
    kept = out.read_bytes()
    with pytest.raises(InputError, match=r"rows\.jsonl:11: not a JSON row"):
        resume(out, "jsonl", COLUMNS)
    assert out.read_bytes() == kept
    with open(out, "a") as f:
        f.write(json.dumps(rows[11]) + "\n")
    with pytest.raises(InputError, match=r"rows\.jsonl:11: not a JSON row"):
        resume(out, "jsonl", COLUMNS)
    other = tmp_path / "other.jsonl"
    other.write_text('{"key": "x", "S": [1]}\n')
    with pytest.raises(InputError, match="no field 'status'"):
        resume(other, "jsonl", COLUMNS)


def test_resume_cuts_a_torn_csv_record(tmp_path: Path) -> None:
    """Should read CSV records that span lines (grammar texts) and cut a torn one."""
    out = tmp_path / "rows.csv"
    rows = rows_of(grammar_sweep(TWO))
    with open(out, "w", newline="") as f:
        sink = CsvSink(COLUMNS, f)
        for r in rows[:5]:
            sink.write(r)
    whole = out.read_bytes()
    found = resume(out, "csv", COLUMNS)
    assert found.done == {r["key"] for r in rows[:5]} and found.header and not found.torn_bytes
    for cut in (1, 10, 30):  # inside the quoted grammar, or before it
        out.write_bytes(whole[:-cut])
        found = resume(out, "csv", COLUMNS)
        assert found.done == {r["key"] for r in rows[:4]}
        assert out.read_bytes() == whole[:len(out.read_bytes())]
        out.write_bytes(whole)
    out.write_text("a,b\n1,2\n")
    with pytest.raises(InputError, match="header is not this sweep's columns"):
        resume(out, "csv", COLUMNS)


def test_lock_refuses_a_second_writer(tmp_path: Path) -> None:
    out = tmp_path / "rows.jsonl"
    with locked(out), pytest.raises(InputError, match="being written by another sweep"):
        with locked(out):
            pass


def _cli(*args: str, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sdg_automata", *args], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)), timeout=120,
                          **kw)


KILLED = GrammarShape(nonterminals=1, letters="ab", max_rules=3, max_body=3)
GRAMMARS = ["sweep", "grammars", "--nonterminals", "1", "--letters", "ab", "--max-rules", "3",
            "--max-body", "3"]  # 1610 classes
# 15770 classes, ~3 s on 2 processes: a signal sent after 100 rows lands mid-run even when a
# loaded machine leaves the test's polling loop asleep for a second (1610 take ~0.3 s)
LONG = [*GRAMMARS[:-1], "4"]


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_sigkill_and_resume(tmp_path: Path, jobs: str) -> None:
    """Should, after SIGKILL (to the whole process group) mid-run and a rerun, hold the
    same keys as an uninterrupted run, each once."""
    out = tmp_path / "killed.jsonl"
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    p = subprocess.Popen([sys.executable, "-m", "sdg_automata", *GRAMMARS, "--jobs", jobs,
                          "--out", str(out)], env=env, start_new_session=True,
                         stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and p.poll() is None:
            if out.exists() and out.read_bytes().count(b"\n") >= 200:
                break
            time.sleep(0.02)
        assert p.poll() is None, "the sweep ended before it could be killed"
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    before = out.read_bytes()
    assert 200 <= before.count(b"\n") < 1610
    with open(out, "ab") as f:  # as if the kill had come in the middle of a write
        f.write(b'{"key": "ab: N0 -> a", "sta')
    done = _cli(*GRAMMARS, "--jobs", jobs, "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert "cut off a torn last line" in done.stderr
    keys = [json.loads(line)["key"] for line in out.read_text().splitlines()]
    whole = [r["key"] for r in rows_of(grammar_sweep(KILLED))]  # uninterrupted
    assert len(keys) == len(set(keys)) == len(whole) == 1610
    assert set(keys) == set(whole)


# -- the command line ------------------------------------------------------------------------


def test_cli_count_budget_and_formats(tmp_path: Path) -> None:
    shape = ["sweep", "grammars", "--nonterminals", "2", "--letters", "ab", "--max-rules", "2",
             "--max-body", "1"]
    count = _cli(*shape, "--count-only")
    assert count.returncode == 0 and count.stdout == "139\n"
    run = _cli(*shape, "--max-states", "4", "--jobs", "1")
    rows = [json.loads(line) for line in run.stdout.splitlines()]
    assert len(rows) == 139 and {r["status"] for r in rows} == {"ok", "budget"}
    assert run.stderr == ""  # rows on a pipe: stderr stays quiet
    csv_out = tmp_path / "rows.csv"
    first = _cli(*shape, "--format", "csv", "--out", str(csv_out))
    assert first.returncode == 0 and "139 rows (139 ok, 0 budget, 0 error)" in first.stderr
    again = _cli(*shape, "--format", "csv", "--out", str(csv_out))
    assert again.returncode == 0 and "0 rows" in again.stderr and "139 skipped" in again.stderr
    from sdg_automata.sweeps.summarize import load_rows

    assert len(load_rows(csv_out)) == 139
    table = _cli(*shape, "--format", "table", "--jobs", "1").stdout.splitlines()
    assert table[0].split() == ["status", "states", "bounds", "max", "witness", "grammar", "(key)"]
    assert len(table) == 140 and "max" in table[0]
    assert table[1].split() == ["ok", "3", "N0=1", "N1=1", "N0=1", "N1=1", "N0=a", "N1=a",
                                "ab:", "N0", "->", "a;", "N1", "->", "a"]


@pytest.mark.parametrize(("args", "message"), [
    (["--letters", "AB"], "letters must be lower-case"),
    (["--letters", "aa"], "repeat a letter"),
    (["--format", "table", "--out", "x.jsonl"], "table format is for the terminal"),
    (["--jobs", "0"], "must be at least 1"),
    (["--max-seconds", "nan"], "positive finite"),
])
def test_cli_bad_input(tmp_path: Path, args: list[str], message: str) -> None:
    base = {"--nonterminals": "1", "--letters": "ab", "--max-rules": "1", "--max-body": "1"}
    base.update(zip(args[::2], args[1::2], strict=True))
    if "--scheduler" in base:
        pytest.importorskip("distributed")
    flat = [x for kv in base.items() for x in kv]
    done = _cli("sweep", "grammars", *flat, cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith("error: ")
    assert message in done.stderr


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_ctrl_c_says_how_far(tmp_path: Path, jobs: str) -> None:
    """Should stop on SIGINT to the process group with exit 130 and one line that counts
    exactly the rows in the file."""
    out = tmp_path / "rows.jsonl"
    p = subprocess.Popen([sys.executable, "-m", "sdg_automata", *LONG, "--jobs", jobs,
                          "--out", str(out)], env=dict(os.environ, PYTHONPATH=str(ROOT)),
                         start_new_session=True, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and p.poll() is None:
            if out.exists() and out.read_bytes().count(b"\n") >= 100:
                break
            time.sleep(0.02)
        assert p.poll() is None, "the sweep ended before it could be interrupted"
        os.killpg(p.pid, signal.SIGINT)
        _, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    assert p.returncode == 130, err
    assert err.count("\n") == 1 and err.startswith("error: sweep grammars interrupted after ")
    written = out.read_text().count("\n")
    assert 100 <= written < 15770
    assert f"after {written} rows; rerun" in err


class LosingExecutor(ThreadPoolExecutor):
    """Fails every task that holds job 5, as Dask fails a task with KilledWorker."""

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        if 5 in args[2]:
            from concurrent.futures import Future

            from distributed import KilledWorker

            lost: Future[Any] = Future()
            worker = SimpleNamespace(address="tcp://127.0.0.1:1")
            lost.set_exception(KilledWorker("_run_batch-5", worker, 3))
            return lost
        return super().submit(fn, *args, **kwargs)


def test_a_lost_batch_is_rerun_job_by_job() -> None:
    pytest.importorskip("distributed")
    with LosingExecutor(2) as pool:
        rows = {r["key"]: r for r in rows_of(TOY, executor=pool, batch=4, window=2,
                                             ordered=True)}
    assert list(rows) == [str(i) for i in range(12)]
    assert rows["5"]["status"] == "error" and "KilledWorker" in rows["5"]["error"]
    assert [k for k, r in rows.items() if r["status"] == "error"] == ["3", "5"]


@pytest.mark.parametrize("pool", [False, True], ids=["here", "pool"])
def test_ctrl_c_inside_a_write_is_counted(pool: bool) -> None:
    """A Ctrl-C that lands while a row is being written (after its bytes are out, before the
    engine counts it) should still count that row: the message equals the rows written."""
    written: list[dict[str, Any]] = []

    def on_row(row: dict[str, Any]) -> None:
        written.append(row)
        if len(written) == 5:  # Python runs the handler at the next bytecode: in here
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)

    with contextlib.ExitStack() as stack:
        executor = stack.enter_context(process_pool(2)) if pool else None
        with pytest.raises(Interrupted, match=r"interrupted after \d+ rows") as caught:
            run_sweep(grammar_sweep(SMALL), on_row, executor=executor, window=2)
    assert caught.value.explored == len(written) >= 5
    assert f"after {len(written)} rows" in str(caught.value)
    if not pool:  # jobs run here are cut at once, right after the row being written
        assert len(written) == 5


@pytest.mark.parametrize("shape", [dict(nonterminals=3, letters="abc", max_rules=4, max_body=4),
                                   dict(nonterminals=9, letters="abcdef", max_rules=9,
                                        max_body=9),
                                   dict(nonterminals=2, letters="ab", max_rules=1, max_body=40)])
def test_shapes_too_large_to_enumerate_are_refused_at_once(shape: dict[str, Any]) -> None:
    """Should refuse before building any table (these took 14 GB or minutes before)."""
    from sdg_automata.errors import BudgetExceeded

    with pytest.raises(BudgetExceeded, match="too large to enumerate") as info:
        GrammarShape(**shape)
    assert not info.value.explored  # refused by the count, before any table: no clock
