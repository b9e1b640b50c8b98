"""Minimal DFAs from the reachable automaton: the reversal (Brzozowski) and the canonical form.

A DFA that reads the other way than the Step 1–5 automaton is the subset construction
of its reverse, which by Brzozowski's theorem is minimal already
(:func:`reversed_dfa`, behind :func:`~sdg_automata.automaton.construction.dfa`);
:func:`canonical` renumbers any DFA breadth-first, so that every run prints the same
one; :func:`fast_automata` builds automata-lib objects from our own tables without
automata-lib's validation.
"""

from __future__ import annotations

import contextlib
import re
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import replace
from functools import cache
from typing import TYPE_CHECKING

from ..runtime.budget import Budget
from .crawl import crawl

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

__all__ = ["canonical", "fast_automata", "reversed_dfa"]

@contextlib.contextmanager
def fast_automata() -> Iterator[None]:
    """Build automata-lib objects without validation and without deep-freezing.

    Safe for DFAs made from our own tables: they are valid by construction
    (the tests call ``validate()``), and :meth:`ReachableAutomaton.to_dfa`
    passes an already frozen mapping (or, for DFAs that never leave the
    caller, a private dict).  automata-lib's switches are process-global, so
    this is not thread-safe; they are restored on exit.
    """
    import automata.base.config as config

    old = (config.should_validate_automata, config.allow_mutable_automata)
    config.should_validate_automata, config.allow_mutable_automata = False, True
    try:
        yield
    finally:
        config.should_validate_automata, config.allow_mutable_automata = old


def reversed_dfa(rows: Sequence[array[int]], alphabet: Sequence[str], states: int,
                 final: Iterable[int], budget: Budget) -> DFA:
    """The minimal DFA of the reversed language of a reachable automaton of ``states``
    states (``rows[k][s]``: the successor of ``s`` on ``alphabet[k]``; state 0 is q₀)
    with the accepting states ``final`` (Brzozowski).

    Subsets of the reachable states are int bitsets; the subset reached from
    F on a letter a is the union of the a-predecessors of its members, and it
    accepts when it holds q₀ (state 0).  The states are numbered breadth-first
    along the sorted letters, so the DFA is already :func:`canonical`.

    A subset's members are read from its bytes and its image is set in a
    ``bytearray``: linear in the n/8 bytes (in C) plus the members, where
    shifting and OR-ing n-bit ints costs n/30 digit operations per member
    (issue 21 §9: 10 ms per subset of a 94,055-state automaton, and 600 MB of
    predecessor masks, now lists of numbers).
    """
    from automata.base.utils import freeze_value
    from automata.fa.dfa import DFA

    n = states
    size = (n + 7) >> 3
    # the state limit is the subset construction's (below); this phase reads the n states
    meter = replace(budget, max_states=None).start("reversal", unit="states")
    pred: list[list[tuple[int, ...]]] = []  # per letter: the predecessors of every state
    try:
        done = 0
        for row in rows:
            groups: list[list[int]] = [[] for _ in range(n)]
            for s, t in enumerate(row):
                groups[t].append(s)
                if done + s >= meter.due:  # paced on the work; the count: the states read
                    meter.check(n, step=done + s)
            pred.append([tuple(g) for g in groups])
            done += n
    except KeyboardInterrupt:
        raise meter.interrupted(n) from None

    start = 0
    for s in final:
        start |= 1 << s
    # as automata-lib's from_nfa: the empty subset is left out (a partial DFA) unless it
    # is the initial one (the empty language: one state looping on every letter)
    empty = 0 if start == 0 else -1
    runs, bits = _byte_tables()

    def follow(subset: int, preds: list[tuple[int, ...]]) -> int:  # a letter: its predecessors
        image = bytearray(size)
        for run in runs(subset.to_bytes(size, "little")):
            base = run.start() << 3
            for byte in run.group():
                for b in bits[byte]:
                    for p in preds[base + b]:
                        image[p >> 3] |= 1 << (p & 7)
                base += 8
        return int.from_bytes(image, "little") or empty

    subsets = crawl(start, follow, pred, budget, what="subset construction")
    found = subsets.rows
    transitions = {d: {a: found[k][d] for k, a in enumerate(alphabet) if found[k][d] >= 0}
                   for d in range(len(subsets.states))}
    with fast_automata():
        return DFA(states=frozenset(range(len(subsets.states))),
                   input_symbols=frozenset(alphabet), transitions=freeze_value(transitions),
                   initial_state=0,
                   final_states=frozenset(d for d, q in enumerate(subsets.states) if q & 1),
                   allow_partial=True)


@cache
def _byte_tables() -> tuple[Callable[[bytes], Iterator[re.Match[bytes]]],
                            tuple[tuple[int, ...], ...]]:
    """The runs of non-zero bytes of a bitset's bytes, and the bits set in each byte value
    (made on first use: start-up pays for neither)."""
    return (re.compile(rb"[^\x00]+").finditer,
            tuple(tuple(b for b in range(8) if v >> b & 1) for v in range(256)))


def canonical(d: DFA) -> DFA:
    """``d`` with states renumbered 0, 1, … breadth-first from the initial state.

    automata-lib numbers the results of ``minify`` and ``from_nfa`` in an order
    that follows Python's per-process string hashing; renumbering along the
    sorted letters makes every run print the same DFA.
    """
    from automata.base.utils import freeze_value
    from automata.fa.dfa import DFA

    letters = sorted(d.input_symbols)
    order = {d.initial_state: 0}
    queue = [d.initial_state]
    for s in queue:
        row = d.transitions.get(s, {})
        for a in letters:
            t = row.get(a)
            if t is not None and t not in order:
                order[t] = len(order)
                queue.append(t)
    for s in sorted(d.states - order.keys(), key=repr):  # unreachable ones, if any, last
        order[s] = len(order)
    transitions = {order[s]: {a: order[t] for a, t in sorted(d.transitions.get(s, {}).items())}
                   for s in d.states}
    with fast_automata():
        return DFA(states=frozenset(order.values()), input_symbols=frozenset(letters),
                   transitions=freeze_value(transitions), initial_state=0,
                   final_states=frozenset(order[s] for s in d.final_states),
                   allow_partial=d.allow_partial)

