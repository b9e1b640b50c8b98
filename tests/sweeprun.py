"""Running the command line's sweeps as a user does, in processes of their own: shared by
the sweep reliability tests and the command-line fuzz suite."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def sweep_process(args: list[str], **kw: Any) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "sdg_automata", *args], text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)), start_new_session=True,
                            stderr=subprocess.PIPE, **kw)


def cli(*args: str, timeout: float = 120, **kw: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "sdg_automata", *args], capture_output=True,
                          text=True, env=dict(os.environ, PYTHONPATH=str(ROOT)),
                          timeout=timeout, stdin=subprocess.DEVNULL, **kw)


def rows_in(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def wait_rows(path: Path, n: int, p: subprocess.Popen[str], seconds: float = 60) -> None:
    """Until ``path`` holds ``n`` rows; the sweep must still be running then."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and p.poll() is None:
        if path.exists() and path.read_bytes().count(b"\n") >= n:
            return
        time.sleep(0.02)
    raise AssertionError(f"the sweep ended (exit {p.poll()}) or stalled before {n} rows")


def finish(p: subprocess.Popen[str], seconds: float = 60) -> tuple[int, str]:
    """The exit code and stderr of a sweep (killed with its group if it hangs)."""
    try:
        _, err = p.communicate(timeout=seconds)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        _, err = p.communicate()
        raise AssertionError(f"no end within {seconds} s; stderr: {err[-2000:]}") from None
    return p.returncode, err


def group_gone(pgid: int, seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False
