"""The one status-dispatch loop of the compiled search (issue 33 §3).

Every driver of a kernel (:mod:`sdg_automata.search.compiled.drive`: bfs on either store,
dfs, lasso's phases; :mod:`sdg_automata.search.shard`: the expansion and the absorption)
calls :func:`~sdg_automata.search.compiled.loop.dispatch` with a table of handlers.  Here
the loop itself against a scripted kernel, a status no handler expects, and a miss that
the lesson does not cure (the same miss twice, on a real walk whose learning is broken).
The drivers' behaviour (states, numbering, witnesses, budgets, Ctrl-C) is pinned by
tests/search/test_engines.py, test_compact.py and test_sharded.py.
"""

from __future__ import annotations

import pytest

from sdg_automata.errors import SdgBug
from sdg_automata.search.compiled.loop import STATUS_NAMES, Misses, dispatch, stop

pytest.importorskip("numba")

from sdg_automata.kernels import protocol  # noqa: E402


def test_the_names_are_the_kernels_statuses() -> None:
    assert [getattr(protocol, name) for name in STATUS_NAMES] == list(range(len(STATUS_NAMES)))


def test_dispatch_calls_until_a_handler_stops() -> None:
    script = iter([protocol.MISS, protocol.PAUSE, protocol.MISS, protocol.FULL, protocol.DONE,
                   protocol.PAUSE])
    seen: list[str] = []
    status = dispatch(lambda: next(script), {
        protocol.MISS: lambda: seen.append("miss"), protocol.PAUSE: lambda: seen.append("pause"),
        protocol.FULL: lambda: seen.append("full") or False, protocol.DONE: stop})
    assert status == protocol.DONE and seen == ["miss", "pause", "miss", "full"]
    assert next(script) == protocol.PAUSE  # not called past the stop


def test_a_status_no_handler_expects_is_a_bug() -> None:
    with pytest.raises(SdgBug, match="a kernel returned CAP, which its driver does not expect "
                                     "\\(it expects DONE, MISS\\)"):
        dispatch(lambda: protocol.CAP, {protocol.DONE: stop, protocol.MISS: stop})
    with pytest.raises(SdgBug, match="returned 99"):
        dispatch(lambda: 99, {protocol.DONE: stop})


def test_the_same_miss_twice_is_a_bug() -> None:
    misses = Misses()
    misses.seen((3, 1, 7))
    misses.seen((3, 2, 7))
    with pytest.raises(SdgBug, match="missed twice at \\(3, 2, 7\\)"):
        misses.seen((3, 2, 7))
    misses.forget()
    misses.seen((3, 2, 7))  # after a pause the walk may miss there again


def test_a_lesson_that_does_not_take_stops_the_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    """A real compiled walk whose step tables learn nothing: the kernel misses at the same
    place again, and the driver's loop says so instead of spinning."""
    from sdg_automata.generators.families import ModularSpec, modular_family
    from sdg_automata.search.compiled.tables import StepTables
    from sdg_automata.search.decide import max_grundy

    monkeypatch.setattr(StepTables, "learn", lambda self, source, k: None)
    g = modular_family([ModularSpec.parse(s) for s in "3:0 5:2".split()])
    for strategy in ("bfs", "dfs", "lasso"):
        with pytest.raises(SdgBug, match="missed twice"):
            max_grundy(g, "A", strategy=strategy, engine="compiled")
