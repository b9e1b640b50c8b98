"""A toy Max-Grundy strategy, defined in this one module, for
tests/search/test_strategy_registry.py.

It runs the breadth-first strategy and adds evidence of its own: how many values it
found, and the ``--toy-bonus`` it was given (an option with a command-line argument).
Registering it is one line: ``register(STRATEGY)`` (or ``setitem`` on the table).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from sdg_automata.search.options import Argument
from sdg_automata.search.request import Evidence, Search, SearchResult
from sdg_automata.search.strategies import get
from sdg_automata.search.strategies.base import SearchStrategy


@dataclass(frozen=True)
class ToyOptions:
    """The toy's one option."""

    toy_bonus: int = 0


@dataclass(frozen=True)
class ToyEvidence(Evidence):
    """The values bfs found, and the bonus asked for."""

    values: int
    bonus: int

    def to_json(self) -> dict[str, Any]:
        return {"toy_values": self.values, "toy_bonus": self.bonus}

    def summary(self, proof: str | None) -> str | None:
        return f"toy: {self.values} values, bonus {self.bonus}, proof {proof}"

    def searched(self) -> str | None:
        return f"{self.values} toy values"


def _toy(search: Search) -> SearchResult:
    """bfs with the toy's options out of the way, then the toy's evidence."""
    found = get("bfs").run(dataclasses.replace(search, strategy="bfs", options=None))
    return dataclasses.replace(found, evidence=ToyEvidence(values=len(found.found),
                                                           bonus=search.options.toy_bonus))


STRATEGY = SearchStrategy(
    name="toy", describe="bfs, counting the values it finds", run=_toy, options=ToyOptions,
    arguments=(Argument(flag="--toy-bonus", field="toy_bonus", kind="natural", metavar="B",
                        help="--strategy toy: a bonus it reports"),))
