"""The engine choice of :mod:`sdg_automata.kernels` (the kernels themselves are tested
beside the engines that use them, against their Python references)."""

from __future__ import annotations

import subprocess
import sys
import time
from typing import Any

import pytest

from sdg_automata import kernels
from sdg_automata.budget import Budget
from sdg_automata.errors import BudgetExceeded, InputError


def test_engines_are_the_literal() -> None:
    assert kernels.ENGINES == ("auto", "compiled", "python")
    for e in kernels.ENGINES:
        assert kernels.check_engine(e) == e
    with pytest.raises(InputError, match="unknown engine 'fast'"):
        kernels.check_engine("fast")


def test_python_never_and_auto_only_from_the_threshold() -> None:
    assert not kernels.use_compiled("python", work=10**9, threshold=1)
    assert not kernels.use_compiled("auto", work=99, threshold=100)
    assert kernels.use_compiled("auto", work=100, threshold=100) == (
        kernels.numba_missing() is None)


def test_without_numba_auto_falls_back_and_compiled_says_why(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(kernels, "numba_missing", lambda: "numba cannot be imported (test)")
    assert not kernels.use_compiled("auto", work=10**9, threshold=1)
    with pytest.raises(InputError, match="compiled engine needs numba.*--engine python"):
        kernels.use_compiled("compiled", work=1, threshold=10)


def test_numba_hidden_is_reported() -> None:
    code = ("import sys; sys.modules['numba'] = None\n"
            "from sdg_automata.kernels import numba_missing\n"
            "print(numba_missing())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={"PATH": "/usr/bin:/bin"}).stdout
    assert out.startswith("numba cannot be imported (ModuleNotFoundError")


def test_importing_the_package_does_not_import_numba() -> None:
    code = "import sys, sdg_automata, sdg_automata.kernels; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"


@pytest.mark.parametrize("command_line", [True, False])
def test_the_command_line_loads_numba_without_scipy(command_line: bool) -> None:
    """A command-line process runs only our kernels, which need no BLAS: numba loads there
    without importing scipy (0.3-0.5 s); a library process keeps numba's BLAS for the
    user's own numba code."""
    pytest.importorskip("scipy", reason="scipy not installed: numba cannot import it anyway")
    pytest.importorskip("numba")
    run = ("from sdg_automata.cli import main; main(['octal', '0.77', '--json', "
           "'--engine', 'compiled'])" if command_line else
           "from sdg_automata.octal import OctalGame; "
           "OctalGame.parse('0.77').period(engine='compiled')")
    code = (f"import sys\n{run}\n"
            "from numba.np import arraymath\n"
            "print('SCIPY', 'scipy' in sys.modules, arraymath._HAVE_BLAS, file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    if command_line:
        assert '"period": 12' in done.stdout  # Kayles: 𝒢 periodic with period 12
    assert f"SCIPY {not command_line} {not command_line}" in done.stderr


def test_held_signals_fires_after_the_block() -> None:
    """Should hold a budget's deadline (Meter.library's SIGALRM) that falls inside the block
    and raise it right after: numba's import and a kernel's first load are not cut."""
    budget = Budget(max_seconds=0.02)
    meter = budget.start("job")
    steps = []
    with pytest.raises(BudgetExceeded, match="0.02 s"), meter.library("job"):
        with kernels.held_signals():
            time.sleep(0.1)  # the deadline passes in here
            steps.append("block done")
        steps.append("after the block")  # not reached: the held alarm fires first
    assert steps == ["block done"]


def test_ctrl_c_inside_a_c_callback_is_held_not_lost() -> None:
    """Should deliver a Ctrl-C that comes while C code calls back into Python (as LLVM does
    while numba compiles a kernel) right after the block: raised inside the callback, the
    KeyboardInterrupt was printed and lost, and a command ran on to exit 0 (fresh-clone CI)."""
    import ctypes
    import ctypes.util
    import os
    import signal

    name = ctypes.util.find_library("c")
    if name is None:
        pytest.skip("no C library to call back from")
    libc = ctypes.CDLL(name)
    compare = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(ctypes.c_int),
                               ctypes.POINTER(ctypes.c_int))
    sent: list[bool] = []

    def slow(a: Any, b: Any) -> int:
        if not sent:
            sent.append(True)
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # delivered here, inside the callback, unless held
        return int(a[0] - b[0])

    numbers = (ctypes.c_int * 4)(3, 1, 2, 0)
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with kernels.held_signals():
            libc.qsort(numbers, 4, ctypes.sizeof(ctypes.c_int), compare(slow))
            steps.append("sorted")
    assert sent and steps == ["sorted"] and list(numbers) == [0, 1, 2, 3]
