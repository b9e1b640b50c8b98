"""The stopping module (issue 26 §4): Ctrl-C, SIGTERM and a budget's alarm held over native
code and delivered after it, once each, in order; the alarm; SIGTERM as Ctrl-C."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from sdg_automata.errors import BudgetExceeded
from sdg_automata.runtime import stopping
from sdg_automata.runtime.budget import Budget
from sdg_automata.runtime.stopping import HELD, alarm, held_signals

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGALRM"), reason="POSIX signals")

#: what the recording handlers of :func:`recorded` saw, in order
Calls = list[int]


@pytest.fixture
def recorded() -> Iterator[Calls]:
    """Handlers that note each signal of HELD, put in place for the test and taken out after."""
    calls: Calls = []

    def note(signum: int, frame: Any) -> None:
        calls.append(signum)

    previous = {sig: signal.signal(sig, note) for sig in HELD}
    try:
        yield calls
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


def _send(signum: int) -> None:
    """``signum`` to this process, given a moment to arrive (Python runs handlers between
    bytecodes, so a short sleep lets a handler that is not held run inside the block)."""
    os.kill(os.getpid(), signum)
    time.sleep(0.01)


@pytest.mark.parametrize("block", [False, True], ids=["python", "blocked"])
def test_a_signal_in_the_section_comes_after_it_once(recorded: Calls, block: bool) -> None:
    handlers = {sig: signal.getsignal(sig) for sig in HELD}
    with held_signals(block=block):
        _send(signal.SIGINT)
        _send(signal.SIGINT)  # the same signal again: delivered once
        assert recorded == []
    assert recorded == [signal.SIGINT]
    assert {sig: signal.getsignal(sig) for sig in HELD} == handlers  # ours, put back


def test_signals_come_in_the_order_they_came(recorded: Calls) -> None:
    with held_signals():
        for signum in (signal.SIGTERM, signal.SIGALRM, signal.SIGINT, signal.SIGTERM):
            _send(signum)
    assert recorded == [signal.SIGTERM, signal.SIGALRM, signal.SIGINT]


def test_blocked_signals_come_once_each(recorded: Calls) -> None:
    """The system keeps no order among blocked signals: each still comes once."""
    with held_signals(block=True):
        for signum in (signal.SIGTERM, signal.SIGINT, signal.SIGTERM):
            _send(signum)
    assert sorted(recorded) == [signal.SIGINT, signal.SIGTERM]


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="no signal masks here")
def test_the_blocked_section_blocks_at_the_system_level(recorded: Calls) -> None:
    """Should keep a signal pending in the kernel, where no C handler (pysat's) can see it."""
    with held_signals(block=True):
        assert set(HELD) <= signal.pthread_sigmask(signal.SIG_BLOCK, [])
        # to this thread: a mask is per thread, and a signal sent to the process goes to any
        # thread that does not block it (pytest-xdist's workers run a thread of their own)
        signal.pthread_kill(threading.get_ident(), signal.SIGINT)
        time.sleep(0.01)
        assert signal.SIGINT in signal.sigpending()
    assert recorded == [signal.SIGINT]
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])
    assert signal.SIGINT not in signal.sigpending()


def test_ctrl_c_is_raised_after_the_section() -> None:
    steps = []
    with pytest.raises(KeyboardInterrupt):
        with held_signals(block=True):
            _send(signal.SIGINT)
            steps.append("done")
        steps.append("after")  # not reached: the Ctrl-C comes first
    assert steps == ["done"]


@pytest.mark.parametrize("block", [False, True], ids=["python", "blocked"])
def test_a_signal_in_a_section_that_raises_is_not_lost(block: bool) -> None:
    """A kernel call that fails after a Ctrl-C (a full table, and the run would go on in
    Python) still ends in the Ctrl-C, with the failure as its context."""
    with pytest.raises(KeyboardInterrupt) as stopped:
        with held_signals(block=block):
            _send(signal.SIGINT)
            raise OverflowError("the table is full")
    assert isinstance(stopped.value.__context__, OverflowError)


@pytest.mark.parametrize("inner", [False, True], ids=["python", "blocked"])
def test_sections_nest(recorded: Calls, inner: bool) -> None:
    with held_signals():
        with held_signals(block=inner):
            _send(signal.SIGTERM)
        assert recorded == []  # handed to the outer section, which holds it on
        _send(signal.SIGINT)
    assert recorded == [signal.SIGTERM, signal.SIGINT]


def test_an_ignored_signal_stays_ignored(recorded: Calls) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    with held_signals():
        _send(signal.SIGTERM)
    assert recorded == []
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN


def test_off_the_main_thread_nothing_is_held(recorded: Calls) -> None:
    """Should run the block as it is where Python delivers no signal (signal.signal would
    raise there)."""
    failures: list[BaseException] = []

    def run() -> None:
        try:
            for block in (False, True):
                with held_signals(block=block), alarm(0.01, lambda: BudgetExceeded("no")):
                    time.sleep(0.03)
        except BaseException as e:  # noqa: BLE001  # reported below, on the main thread
            failures.append(e)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    assert failures == [] and recorded == []
    assert signal.getsignal(signal.SIGINT) is not signal.SIG_IGN


def test_the_alarm_raises_inside_the_block() -> None:
    with pytest.raises(BudgetExceeded, match="late"), alarm(0.02, lambda: BudgetExceeded("late")):
        time.sleep(1)
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


@pytest.mark.parametrize("seconds", [None, 1e300])
def test_no_alarm_without_a_near_deadline(seconds: float | None) -> None:
    handler = signal.getsignal(signal.SIGALRM)
    with alarm(seconds, lambda: BudgetExceeded("never")):
        assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
        assert signal.getsignal(signal.SIGALRM) is handler


@pytest.mark.parametrize("block", [False, True], ids=["python", "blocked"])
def test_a_budget_alarm_in_the_section_fires_after_it(block: bool) -> None:
    """Should hold a budget's deadline (Meter.library's SIGALRM) that falls inside the block
    and raise it right after: numba's import and a kernel's first load are not cut."""
    budget = Budget(max_seconds=0.02)
    meter = budget.start("job")
    steps = []
    with pytest.raises(BudgetExceeded, match="0.02 s"), meter.library("job"):
        with held_signals(block=block):
            time.sleep(0.1)  # the deadline passes in here
            steps.append("block done")
        steps.append("after the block")  # not reached: the held alarm fires first
    assert steps == ["block done"]


def test_ctrl_c_inside_a_c_callback_is_held_not_lost() -> None:
    """Should deliver a Ctrl-C that comes while C code calls back into Python (as LLVM does
    while numba compiles a kernel) right after the block: raised inside the callback, the
    KeyboardInterrupt was printed and lost, and a command ran on to exit 0 (fresh-clone CI)."""
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
        with held_signals():
            libc.qsort(numbers, 4, ctypes.sizeof(ctypes.c_int), compare(slow))
            steps.append("sorted")
    assert sent and steps == ["sorted"] and list(numbers) == [0, 1, 2, 3]


def test_sigterm_raises_ctrl_c_while_the_command_runs() -> None:
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        with pytest.raises(KeyboardInterrupt), stopping.sigterm_as_interrupt():
            assert stopping.is_stop_handler(signal.getsignal(signal.SIGTERM))
            _send(signal.SIGTERM)
        assert stopping.received() == signal.SIGTERM
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    finally:
        signal.signal(signal.SIGTERM, previous)
