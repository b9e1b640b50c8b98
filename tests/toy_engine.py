"""A toy search engine, defined in this one module, for
tests/search/test_engine_registry_search.py (the "How to add an engine" recipe of
docs/architecture.md).

It implements the bfs strategy as a breadth-first search over the Python step
(``search.walk.follow``) with a plain dict as its store (state → number), written
from scratch, not by calling the reference: the tests hold its verdicts equal to the
``python`` engine's (the same states, stops and shortest witnesses, hence the same
order of expansion: states in discovery order, letters in the alphabet's order).
It takes no constraint beyond what the walk gives, and one option with an argument,
to show that an engine's options reach it.  Registering it is one line:
``register(ENGINE)`` (or ``setitem`` on the table).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

from sdg_automata.runtime.budget import Budget
from sdg_automata.search.engines.base import SearchEngine
from sdg_automata.search.options import Argument
from sdg_automata.search.request import Search, SearchResult, nbytes, read_witness


@dataclass(frozen=True)
class ToyOptions:
    """The toy's one option: a label it gives its store."""

    toy_label: str = "dict"


def _bfs(search: Search, budget: Budget) -> SearchResult:
    """Breadth-first search over ``search.walk`` with a dict of states."""
    walk = search.walk
    meter = budget.start("search", unit="states")
    limit = budget.max_states
    number = {walk.initial: 0}
    parent, via = [-1], [-1]
    frontier = deque([walk.initial])
    found: dict[int, int] = {}
    complete = True
    try:
        while frontier and complete:
            meter.check(len(number))
            q = frontier.popleft()
            for k, a in enumerate(walk.letters):
                s = walk.follow(q, a)
                if s < 0 or s in number:
                    continue
                if limit is not None and len(number) == limit:
                    raise meter.exceeded(limit, f"{limit} states")
                number[s] = len(number)
                parent.append(number[q])
                via.append(k)
                frontier.append(s)
                v = walk.value(s)
                if v is not None and v not in found:
                    found[v] = number[s]
                    if search.settled(v):
                        complete = False
                        break
    except KeyboardInterrupt:
        raise meter.interrupted(len(number)) from None

    def path(t: int) -> list[int]:
        read = []
        while t > 0:
            read.append(via[t])
            t = parent[t]
        return read[::-1]

    return SearchResult(found={v: read_witness(search.automaton, path(t))
                               for v, t in found.items()},
                        explored=len(number), complete=complete,
                        peak_bytes=nbytes(number, parent, via),
                        store=search.engine_options.toy_label)


#: the registry's entry
ENGINE = SearchEngine(
    name="toy", describe="bfs over the Python step with a dict store", implements={"bfs": _bfs},
    options=ToyOptions,
    arguments=(Argument(flag="--toy-label", field="toy_label", metavar="L",
                        help="--engine toy: what the verdict calls its store"),))
