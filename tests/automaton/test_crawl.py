"""sdg_automata.automaton.crawl: one breadth-first exploration, against automata known by hand.

Ground truths: small explicit graphs written out here (a lasso, a complete
binary counter, a graph with missing edges), whose breadth-first numbering and
distances are computed independently with ``collections.deque``.
"""

from __future__ import annotations

from collections import deque
from itertools import pairwise

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sdg_automata.automaton.crawl import crawl
from sdg_automata.errors import BudgetExceeded, Interrupted
from sdg_automata.runtime.budget import MAX_STRIDE, Budget


def _bfs_order(initial: int, graph: dict[int, list[int]]) -> list[int]:
    """Breadth-first discovery order of an explicit graph (the oracle)."""
    order, seen, queue = [], {initial}, deque([initial])
    while queue:
        q = queue.popleft()
        order.append(q)
        for t in graph[q]:
            if t >= 0 and t not in seen:
                seen.add(t)
                queue.append(t)
    return order


graphs = st.integers(1, 30).flatmap(lambda n: st.lists(
    st.lists(st.integers(-1, n - 1), min_size=3, max_size=3), min_size=n, max_size=n))


@settings(max_examples=200, deadline=None)
@given(graphs)
def test_crawl_is_breadth_first_search(table: list[list[int]]) -> None:
    """Should number states in BFS order, keep every edge, and a shortest path to each."""
    graph = dict(enumerate(table))
    # states are shifted by 100 so that numbers and states cannot be confused
    c = crawl(100, lambda q, k: graph[q - 100][k] + 100 if graph[q - 100][k] >= 0 else -1,
              range(3))
    assert c.complete and c.stopped == -1
    assert [s - 100 for s in c.states] == _bfs_order(0, graph)
    assert c.index == {q: s for s, q in enumerate(c.states)}
    for s, q in enumerate(c.states):
        for k in range(3):
            t = graph[q - 100][k]
            assert c.rows[k][s] == (-1 if t < 0 else c.index[t + 100])
    # path(s) is a shortest path: replaying it reaches s, and BFS distances agree
    dist = {0: 0}
    queue = deque([0])
    while queue:
        q = queue.popleft()
        for t in graph[q]:
            if t >= 0 and t not in dist:
                dist[t] = dist[q] + 1
                queue.append(t)
    for s, q in enumerate(c.states):
        letters = c.path(s)
        r = 0
        for k in letters:
            r = graph[r][k]
        assert r == q - 100 and len(letters) == dist[q - 100]


def test_budget_is_exact_and_says_how_far() -> None:
    """Should keep exactly max_states states and stop on the next one."""
    def counter(q: int, a: int) -> int:
        return (2 * q + a) % 64

    assert len(crawl(0, counter, (0, 1), Budget(max_states=64)).states) == 64
    with pytest.raises(BudgetExceeded, match="budget of 63 states") as info:
        crawl(0, counter, (0, 1), Budget(max_states=63), what="counting")
    assert info.value.explored == 63 and "counting" in str(info.value)


def test_stop_ends_the_crawl_at_the_state() -> None:
    """Should stop at the first state the callback accepts, incomplete."""
    seen = []

    def stop(s: int, q: int) -> bool:
        seen.append((s, q))
        return q == 5

    c = crawl(0, lambda q, a: q + a, (1, 2), rows=False, stop=stop)
    assert not c.complete and c.states[c.stopped] == 5
    assert seen[0] == (1, 1)  # the initial state is never offered
    assert c.rows == ()


def test_clock_and_progress_are_consulted() -> None:
    """Should report progress as it goes, never less often than every MAX_STRIDE states,
    and honour max_seconds at the first look."""
    reported: list[int] = []
    n = 20 * MAX_STRIDE
    crawl(0, lambda q, a: q + 1 if q < n else q, (0,), Budget(progress=reported.append))
    assert reported and reported == sorted(reported) and reported[-1] > n - MAX_STRIDE
    assert all(b - a <= MAX_STRIDE + 1 for a, b in pairwise(reported))
    with pytest.raises(BudgetExceeded, match="budget of 1e-09 s") as info:
        crawl(0, lambda q, a: q + 1, (0,), Budget(max_seconds=1e-9))
    assert info.value.explored <= 2


def test_the_clock_holds_when_a_state_costs_milliseconds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should stop near max_seconds however long a state takes (issue 21 §9: a check every
    1,024 states at 10 ms each let a 3 s budget run 14 s).  As a count, not a time (a CPU
    bound failed under load, issue 34 §7): each state costs 5 ms of a clock that moves with
    the work (tests/workclock.py), so 0.3 s is 60 states, and the meter, aiming a check
    every TICK of work, stops within a stride of that (1,024 states would be 5 s)."""
    from workclock import work_clock

    clock = work_clock(monkeypatch, step=0.0)

    def costly(q: int, a: int) -> int:
        clock.now += 0.005
        return q + 1

    with pytest.raises(BudgetExceeded, match="budget of 0.3 s") as info:
        crawl(0, costly, (0,), Budget(max_seconds=0.3))  # type: ignore[arg-type]
    assert 60 <= info.value.explored <= 80


def test_memory_and_ctrl_c_say_how_far() -> None:
    """Should turn MemoryError into BudgetExceeded and Ctrl-C into Interrupted."""
    def failing(error: type[BaseException]) -> object:
        def follow(q: int, a: int) -> int:
            if q == 10:
                raise error
            return q + 1
        return follow

    with pytest.raises(BudgetExceeded, match="ran out of memory after 11 states"):
        crawl(0, failing(MemoryError), (0,))  # type: ignore[arg-type]
    with pytest.raises(Interrupted, match="interrupted after 11 states") as info:
        crawl(0, failing(KeyboardInterrupt), (0,))  # type: ignore[arg-type]
    assert info.value.explored == 11


def test_memory_pressure_stops_before_the_machine_runs_out(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Should stop with BudgetExceeded when memory_pressure reports a reason."""
    import sdg_automata.runtime.budget as budget

    monkeypatch.setattr(budget, "memory_pressure", lambda: "only 1 MB left")
    with pytest.raises(BudgetExceeded, match="before memory ran out.*only 1 MB left"):
        crawl(0, lambda q, a: q + 1, (0,))
    monkeypatch.undo()
    assert budget.memory_pressure() is None  # this machine is not out of memory
