"""An ABC that misbehaves (issue 34 §3): the pdr strategy stays within its budget and its
memory, says one ``error:`` line naming ABC (exit 3), and leaves nothing running.

Each fake ABC is a shell script named by ``SDG_ABC``; the command line runs in a child
process (a hang is a timeout here, not a stuck test), measured with ``wait4``.  The
portfolio reaches ABC after its first bounded-search turn: on Example 3 it has found the
values 0, 1, 2 (``b``, ``a``, ``aa``) and asks ABC about 3 and 4.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from clirun import one_error
from required import require_abc

pytest.importorskip("pysat")


EXAMPLE3 = Path(__file__).resolve().parents[2] / "examples" / "example3.txt"
#: the item bits of Example 3's automaton: the latches of its circuit (none is merged)
LATCHES = 15


@pytest.fixture(autouse=True)
def _abc() -> None:
    require_abc()


def fake(folder: Path, body: str) -> str:
    script = folder / "fake-abc"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(0o755)
    return str(script)


def run_max(abc: str, *extra: str, cap: int | None = None, timeout: float = 120
            ) -> tuple[int, str, str, float, int]:
    """``max Example3 A --strategy pdr`` in a child with ``SDG_ABC=abc``: (exit code, stdout,
    stderr, wall seconds, peak RSS in bytes of the child and what it waited for);
    ``cap``: its address space."""
    env = {**os.environ, "SDG_ABC": abc}

    def limit() -> None:
        if cap is not None:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen([sys.executable, "-m", "sdg_automata", "max", str(EXAMPLE3),
                                 "A", "--strategy", "pdr", *extra], stdout=out, stderr=err,
                                text=True, env=env, preexec_fn=limit)
        while True:  # wait4: this child's own peak RSS, with what it waited for (ABC)
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - started > timeout:
                proc.kill()
                os.wait4(proc.pid, 0)
                err.seek(0)
                pytest.fail(f"no answer in {timeout} s: {err.read()[-500:]}")
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        return (proc.returncode, out.read(), err.read(), time.perf_counter() - started,
                usage.ru_maxrss * 1024)




def test_an_invariant_that_is_a_fifo_is_not_waited_for(tmp_path: Path) -> None:
    """A FIFO nobody writes would block a plain read forever: refused at once, unproven."""
    abc = fake(tmp_path, "mkfifo invariant.pla; echo 'Property proved.'")
    code, out, err, seconds, _ = run_max(abc, "--max-seconds", "20", timeout=60)
    assert (code, out) == (3, ""), err
    one_error(err, "not proven: ABC proved it but wrote no invariant we can read", "FIFO")
    assert seconds < 50


def test_an_invariant_linked_to_dev_zero_takes_no_memory(tmp_path: Path) -> None:
    """A link to /dev/zero would be read until memory runs out: refused before a byte."""
    abc = fake(tmp_path, "ln -s /dev/zero invariant.pla; echo 'Property proved.'")
    code, out, err, _, peak = run_max(abc, "--max-seconds", "20", cap=3 << 30)
    assert (code, out) == (3, ""), err
    one_error(err, "not proven", "a device")
    assert peak < 600 << 20


@pytest.mark.parametrize("body, what", [
    ("printf '.i 1\\n.o 1\\n.ilb lo0\\n\\377 1\\n' > invariant.pla; echo 'Property proved.'",
     "invariant"),
    ("printf 'Property proved.\\n\\377\\n'", "output"),
])
def test_bytes_that_are_not_utf8_are_abcs_fault(tmp_path: Path, body: str, what: str) -> None:
    abc = fake(tmp_path, body)
    code, out, err, _, _ = run_max(abc)
    assert (code, out) == (3, ""), err
    assert "Traceback" not in err
    one_error(err, "ABC (", f"wrote {what} that is not UTF-8 text (byte 0xff")


def test_a_flood_of_output_is_not_kept(tmp_path: Path) -> None:
    """300 MB of output (a broken ABC wrote 460 MB in 3 s) cost neither memory nor disk: the
    last megabyte is kept, and ABC's verdict at its end is read."""
    gave_up = "echo 'Reached limit on the number of timeframes (10000).'"
    (tmp_path / "quiet").mkdir()
    quiet = fake(tmp_path / "quiet", gave_up)
    run_max(quiet)  # the first run may compile kernels (a fresh clone's numba cache)
    *_, baseline = run_max(quiet)
    abc = fake(tmp_path, f"yes | head -c 300000000; echo; {gave_up}")
    code, out, err, _, peak = run_max(abc)
    assert (code, out) == (3, ""), err
    one_error(err, "not proven: ABC gave up: Reached limit on the number of timeframes")
    assert peak < baseline + (100 << 20), (peak, baseline)  # not the 300 MB it wrote


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead: only its parent's wait is missing
    with open(f"/proc/{pid}/stat", encoding="ascii") as f:
        return f.read().rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("verdict", ["echo 'Property proved.'",
                                     "echo 'Reached limit on the number of timeframes.'"])
def test_what_abc_started_ends_with_the_run(tmp_path: Path, verdict: str) -> None:
    """ABC's children (here a sleep holding its output open) do not survive a finished run."""
    pid_file = tmp_path / "child.pid"
    abc = fake(tmp_path, f"sleep 300 & echo $! > {pid_file}\n{verdict}")
    code, _, err, seconds, _ = run_max(abc, timeout=60)
    assert code == 3, err
    pid = int(pid_file.read_text())
    for _ in range(50):
        if not _alive(pid):
            break
        time.sleep(0.1)
    else:
        os.kill(pid, 9)
        pytest.fail("ABC's child outlived the run")


def test_a_false_counterexample_is_abcs_fault_not_a_bug(tmp_path: Path) -> None:
    """ABC says a value of {3, 4} is reached in 2 steps, and its counterexample reads "aa",
    whose value is 2: our replay refutes it, exit 3 naming ABC (not exit 4, a bug of ours)."""
    cex = "0" * LATCHES + "\\n0\\n0\\n0\\n"
    abc = fake(tmp_path, f"printf '{cex}' > cex.txt\n"
                         "echo 'Output 0 of miter \"model\" was asserted in frame 2.'")
    code, out, err, _, _ = run_max(abc)
    assert (code, out) == (3, ""), err
    one_error(err, "ABC (", "reported a counterexample of 2 steps that our replay refutes")


def test_a_counterexample_without_its_trace_is_abcs_fault(tmp_path: Path) -> None:
    abc = fake(tmp_path, "echo 'Output 0 of miter \"model\" was asserted in frame 2.'")
    code, out, err, _, _ = run_max(abc)
    assert (code, out) == (3, ""), err
    one_error(err, "ABC (", "wrote no counterexample we can read")
