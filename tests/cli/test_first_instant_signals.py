"""SIGINT and SIGTERM in the first instant of a command (issue 34 §2).

A process that runs the command line answers both signals from the first line of the
package on: one ``error:`` line and the documented exit code (130, 143), never a
``KeyboardInterrupt`` traceback (old: 4 in 9 signals in the first second) or a silent
death by the signal (old: 6 in 7 SIGTERMs).  Two ways, both on real processes:

* deterministic: a ``sitecustomize`` put on the child's path (a test harness only) makes
  the child send itself the signal as it starts importing a given module — while the
  package loads, while the command line loads, while a command's parser is built, and
  inside the run — so every phase is hit exactly;
* as a user would: the signal sent 0 to 1 s after the package's first line has taken
  over (the child's ``SigCgt`` in /proc shows SIGTERM caught).  What comes before that
  line, the interpreter's own start, takes the system's default action (docs: README,
  "Exit codes").
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

#: a long command: 0.007 has no sparse space, its 2²⁰ values take minutes
LONG = ["octal", "0.007", "--upto", "2^20"]
#: what the two signals say and their exit codes
SAID = {signal.SIGINT: ("error: interrupted", 130),
        signal.SIGTERM: ("error: terminated (SIGTERM)", 143)}

SITECUSTOMIZE = '''
import os, sys
_AT = os.environ.get("SDG_TEST_SIGNAL_AT")
class _Finder:
    fired = False
    def find_spec(self, name, path=None, target=None):
        if not self.fired and name == _AT:
            self.fired = True
            os.kill(os.getpid(), int(os.environ["SDG_TEST_SIGNAL"]))
        return None
if _AT:
    sys.meta_path.insert(0, _Finder())
'''


def _env(extra: Path | None = None, **more: str) -> dict[str, str]:
    env = dict(os.environ)
    paths = [str(extra)] if extra is not None else []
    env["PYTHONPATH"] = os.pathsep.join(paths + [p for p in [env.get("PYTHONPATH")] if p])
    env.update(more)
    return env


def _check(done_code: int, err: str, sig: int, where: str) -> None:
    words, code = SAID[signal.Signals(sig)]
    assert done_code == code, (where, done_code, err)
    assert err.startswith(words) and err.count("\n") == 1, (where, err)
    assert "Traceback" not in err


#: modules the child starts importing at each phase: the package's first import, numpy
#: (while the package loads), the command line, the octal parser's engine import (while
#: the arguments are parsed) and the compiled kernels (inside the run, held over numba)
PHASES = ["sdg_automata.errors", "numpy", "sdg_automata.cli", "sdg_automata.sweeps.octal",
          "sdg_automata.kernels.octal"]


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["INT", "TERM"])
@pytest.mark.parametrize("at", PHASES)
def test_a_signal_at_each_phase_is_one_line(at: str, sig: int, tmp_path: Path) -> None:
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    env = _env(tmp_path, SDG_TEST_SIGNAL_AT=at, SDG_TEST_SIGNAL=str(int(sig)))
    done = subprocess.run([sys.executable, "-m", "sdg_automata", *LONG], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.stdout == ""
    _check(done.returncode, done.stderr, sig, at)


def _caught(pid: int) -> set[int]:
    """The signals process ``pid`` has a handler for (/proc/PID/status, SigCgt)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return set()
    mask = int(next(line.split()[1] for line in text.splitlines()
                    if line.startswith("SigCgt:")), 16)
    return {n for n in range(1, 65) if mask >> (n - 1) & 1}


def _signal_after(argv: list[str], sig: int, delay: float) -> tuple[int, str]:
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True, env=_env())
    try:
        while child.poll() is None and signal.SIGTERM not in _caught(child.pid):
            time.sleep(0.001)  # until the package's first line answers signals
        time.sleep(delay)
        child.send_signal(sig)
        _, err = child.communicate(timeout=300)
    finally:
        child.kill()
        child.wait()
    return child.returncode, err


@pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="needs /proc")
def test_signals_in_the_first_second(tmp_path: Path) -> None:
    """Should answer a signal sent 0 to 1 s after the package has taken over, in every
    phase the delay lands in, as ``python -m`` and as the installed script."""
    script = Path(sys.executable).with_name("sdg-automata")
    delays = [0.0, 0.01, 0.03, 0.1, 0.3, 1.0]
    for i, delay in enumerate(delays):
        sig = (signal.SIGINT, signal.SIGTERM)[i % 2]
        code, err = _signal_after([sys.executable, "-m", "sdg_automata", *LONG], sig, delay)
        _check(code, err, sig, f"python -m, {delay} s")
    if script.exists():
        for delay, sig in ((0.0, signal.SIGTERM), (0.05, signal.SIGINT)):
            code, err = _signal_after([sys.executable, str(script), *LONG], sig, delay)
            _check(code, err, sig, f"script, {delay} s")
