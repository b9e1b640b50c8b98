"""One breadth-first crawl of an implicit automaton, in ints, under a budget.

An implicit automaton is an ``initial`` state, its ``letters`` and a
``follow(state, letter)`` that returns the successor (``-1``: no transition on
that letter).  :func:`crawl` numbers the reachable states 0, 1, … in breadth-first
order and keeps the breadth-first tree (``parent``/``via``), so the path to a
state is a shortest word reaching it.  It is greenery's ``crawl``
(``greenery/fsm.py``) with int states, a dict index and ``array`` tables.

Everything that walks an automaton breadth-first is derived from it: the
reachable part of the Step 1–5 automaton
(:meth:`sdg_automata.automaton.construction.GrundyAutomaton.explore`), the on-the-fly
Max-Grundy search (:mod:`sdg_automata.search.decide`), the lasso of a one-letter
automaton (:mod:`sdg_automata.derivation.periodicity`) and the subset construction that
reverses a DFA (:func:`sdg_automata.automaton.construction.dfa`).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..errors import BudgetExceeded
from ..runtime.budget import UNLIMITED, Budget

__all__ = ["Crawl", "ValuedStates", "crawl", "tree_path"]

L = TypeVar("L")


@runtime_checkable
class ValuedStates(Protocol):
    """States that read their own Grundy values: the compiled exploration keeps its
    states as part ids (:class:`~sdg_automata.search.compiled.tables.PartStates`) and reads
    the values by part, without building the bitsets."""

    def grundy(self, head: str) -> list[int | None]:
        """𝒢_{G,A} of every state, ``head`` naming A (``None`` where A has no item)."""


@dataclass(frozen=True, eq=False, repr=False, kw_only=True)
class Crawl:
    """The states an exploration reached, numbered breadth-first.

    Attributes
    ----------
    states:
        ``states[s]`` is state number ``s``; state 0 is the initial one (a list, or
        any sequence of ints: the compiled exploration keeps them as part ids).
    index:
        The inverse of ``states``.
    parent, via:
        The breadth-first tree: state ``s > 0`` was first reached from
        ``parent[s]`` on letter ``via[s]``.
    rows:
        ``rows[k][s]``: the number of the successor of ``s`` on letter ``k``
        (``-1`` for none); ``()`` unless asked for.
    complete:
        Whether every reachable state was expanded (``False``: ``stop`` ended it).
    stopped:
        The state number at which ``stop`` ended the crawl, else ``-1``.

    Compared by identity and shown by the default ``repr`` (it holds every state; each
    generated method costs start-up).
    """

    states: Sequence[int]
    index: Mapping[int, int]
    parent: array[int]
    via: array[int]
    rows: tuple[array[int], ...]
    complete: bool
    stopped: int = -1

    def path(self, s: int) -> list[int]:
        """The letters (as indices) of the breadth-first path from state 0 to ``s``."""
        return tree_path(self.parent, self.via, s)


def tree_path(parent: array[int], via: array[int], s: int) -> list[int]:
    """The letters (as indices) of the path from the root 0 to ``s`` in a breadth-first
    tree given by ``parent``/``via`` (a :class:`Crawl`'s, or a search's own)."""
    letters = []
    while s > 0:
        letters.append(via[s])
        s = parent[s]
    letters.reverse()
    return letters


def crawl(
    initial: int,
    follow: Callable[[int, L], int],
    letters: Sequence[L],
    budget: Budget = UNLIMITED,
    *,
    what: str = "construction",
    rows: bool = True,
    stop: Callable[[int, int], Any] | None = None,
) -> Crawl:
    """Explore breadth-first from ``initial``; see the module docstring.

    Parameters
    ----------
    initial:
        The initial state (a non-negative int).
    follow:
        ``follow(q, letters[k])`` is the successor of ``q`` on letter ``k``
        (``-1``: none), e.g. :meth:`GrundyAutomaton.step
        <sdg_automata.automaton.construction.GrundyAutomaton.step>` itself.
    letters:
        The letters, in the order that numbers the states; ``via`` and
        ``rows`` index into it.
    budget:
        ``max_states`` stops the crawl exactly when a state beyond it would be
        numbered; the clock, memory and ``progress`` are consulted between
        expansions as often as the meter asks (:meth:`~sdg_automata.runtime.budget.Meter.check`:
        about every 0.05 s of work, however costly one state is).
    what:
        The phase's name in budget and Ctrl-C messages.
    rows:
        Keep the transition tables (``False``: only the tree, for searches).
    stop:
        Called as ``stop(s, q)`` for every new state but the initial one; the
        crawl ends (incomplete) as soon as it returns a true value.

    Raises
    ------
    BudgetExceeded
        At the budget, or when memory is about to run out or has (``MemoryError``),
        saying how many states were reached.
    Interrupted
        On Ctrl-C, saying the same.
    """
    meter = budget.start(what, unit="states")
    limit = budget.max_states
    cap = -1 if limit is None else limit  # numbering state `cap` would exceed the budget
    width = len(letters)
    index = {initial: 0}
    states = [initial]
    parent = array("l", [-1])
    via = array("b" if width < 128 else "l", [-1])
    tables = tuple(array("l") for _ in range(width)) if rows else ()
    record = [table.append for table in tables] if rows else None
    numbered = list(enumerate(letters))
    sid = 0
    due = meter.due  # the time goes into expanding states: that is the step the meter paces
    try:
        while sid < len(states):
            if sid >= due:
                due = meter.check(len(states), step=sid)
            q = states[sid]
            for k, a in numbered:
                nq = follow(q, a)
                t = index.get(nq)
                if t is None:
                    if nq < 0:  # no transition on this letter
                        t = -1
                    else:
                        t = len(states)
                        if t == cap:
                            raise meter.exceeded(t, f"{limit} states")
                        index[nq] = t
                        states.append(nq)
                        parent.append(sid)
                        via.append(k)
                        if stop is not None and stop(t, nq):
                            return Crawl(states=states, index=index, parent=parent, via=via,
                                         rows=tables, complete=False, stopped=t)
                if record is not None:
                    record[k](t)
            sid += 1
    except KeyboardInterrupt:
        raise meter.interrupted(len(states)) from None
    except MemoryError:
        n = len(states)
        del index, states, parent, via, tables, record  # give the memory back first
        raise BudgetExceeded(f"{what} ran out of memory after {n} states", explored=n) from None
    return Crawl(states=states, index=index, parent=parent, via=via, rows=tables, complete=True)
