"""sdg_automata.runtime.budget: limits validated once, and a meter that holds them in time.

The meter's stride is checked against a fake clock, where each unit of work
costs a known number of seconds: the truth is arithmetic (a check every
TICK seconds of work means a stride of TICK / cost units, never more than
MAX_STRIDE, and never more than twice the last).
"""

from __future__ import annotations

import time
from dataclasses import replace
from itertools import pairwise

import pytest

from sdg_automata.errors import BudgetExceeded, InputError
from sdg_automata.runtime import budget as budget_module
from sdg_automata.runtime.budget import MAX_STRIDE, TICK, Budget, Meter


class FakeClock:
    """``time.perf_counter`` that moves only when work is done."""

    def __init__(self) -> None:
        self.now = 1000.0

    def perf_counter(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    fake = FakeClock()
    monkeypatch.setattr(budget_module, "time", fake)
    monkeypatch.setattr(budget_module, "memory_pressure", lambda: None)
    return fake


def _run(meter: Meter, clock: FakeClock, cost: float, units: int, start: int = 0) -> list[int]:
    """Do ``units`` units of ``cost`` seconds each, checking when due; the checked counts."""
    checked = []
    due = meter.due
    for t in range(start, start + units):
        clock.now += cost
        if t >= due:
            due = meter.check(t)
            checked.append(t)
    return checked


def test_cheap_units_reach_the_largest_stride(clock: FakeClock) -> None:
    """Should double the stride while a stride takes less than TICK, up to MAX_STRIDE."""
    meter = Budget().start()
    checked = _run(meter, clock, 1e-7, 40 * MAX_STRIDE)
    strides = [b - a for a, b in pairwise(checked)]
    assert strides[:3] == [2, 4, 8] and max(strides) == MAX_STRIDE
    assert all(b <= 2 * a for a, b in pairwise(strides))


def test_costly_units_are_checked_every_tick(clock: FakeClock) -> None:
    """Should check about every TICK seconds of work when a unit costs milliseconds."""
    meter = Budget().start()
    checked = _run(meter, clock, 0.01, 500)
    strides = [b - a for a, b in pairwise(checked)]
    assert max(strides) == round(TICK / 0.01)


def test_a_sudden_cost_is_caught_within_a_stride(clock: FakeClock) -> None:
    """Should fall back to short strides at once when units become 10⁴ times dearer."""
    meter = Budget(max_seconds=3.0).start()
    _run(meter, clock, 1e-6, 20 * MAX_STRIDE)
    started = clock.now
    with pytest.raises(BudgetExceeded, match="budget of 3 s"):
        _run(meter, clock, 0.01, 10**6, start=20 * MAX_STRIDE)
    overrun = clock.now - meter.deadline
    # at most one stride at the old (cheap) rate of the dear units, then TICK-sized ones
    assert 0 <= overrun <= MAX_STRIDE * 0.01 and clock.now - started < 3 + MAX_STRIDE * 0.01


def test_a_shared_deadline_spans_phases(clock: FakeClock) -> None:
    """Should count max_seconds from ``since`` across phases (a command's whole run)."""
    whole = Budget(max_seconds=2.0, since=clock.now)
    clock.now += 1.5
    second = whole.start("second phase")
    assert second.deadline == pytest.approx(clock.now + 0.5)
    clock.now += 0.6
    with pytest.raises(BudgetExceeded, match="budget of 2 s"):
        second.check(1)
    sub = Budget(max_seconds=2.0).start().shared()  # a sub-phase keeps the phase's deadline
    assert sub.max_states is None and sub.since == pytest.approx(clock.now)


def test_new_loop_under_one_meter_is_measured_anew(clock: FakeClock) -> None:
    """Should restart at stride 1 when a loop's count starts again below the last check."""
    meter = Budget().start()
    _run(meter, clock, 1e-7, 20 * MAX_STRIDE)
    clock.now += 1e-7
    assert meter.check(0) == 1


def test_the_state_limit_stays_exact(clock: FakeClock) -> None:
    """Should stop at max_states whatever the stride."""
    meter = Budget(max_states=10).start()
    meter.check(10)
    with pytest.raises(BudgetExceeded, match="10 states"):
        meter.check(11)


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), -1.0, 0, True, "1"])
def test_limits_are_validated_once(bad: object) -> None:
    with pytest.raises(InputError):
        Budget(max_seconds=bad)  # type: ignore[arg-type]
    with pytest.raises(InputError):
        replace(Budget(), since=bad if not isinstance(bad, float) else float("nan"))


def test_real_clock_smoke() -> None:
    """Should work on the real clock: a budget already spent stops the first check."""
    meter = Budget(max_seconds=1e-9).start()
    time.sleep(0.001)
    with pytest.raises(BudgetExceeded):
        meter.check(1)
