"""Strategy ``lasso`` of Max-Grundy (SPEC §5): one-letter walks in constant memory.

It is for *one-letter walks*: a grammar over one letter, or any grammar with
a constraint whose words use one letter only (the letters of its trimmed DFA,
over the grammar's alphabet, are one: :func:`~sdg_automata.search.constraint.one_letter`).
The walk reads that letter alone, so its reachable part is a lasso q₀, q₁, …,
q_{μ+λ} = q_μ; Brent's cycle detection walks it storing O(1) states, and each
value's first position n gives a shortest witness aⁿ.  It is chosen
automatically for one-letter walks (``strategy=None``).  ``states`` is μ + λ
(or the settling position plus one).  A state budget N holds exactly: a lasso
of at most N states is closed before the walk passes position 3N (Brent's
first phase meets by then), so reaching 3N, or a lasso found longer than N, is
over the budget.
"""

from __future__ import annotations

import dataclasses

from ...errors import InputError
from ...runtime.budget import Budget, Meter
from ..constraint import one_letter, trim
from ..request import Search, SearchResult, nbytes, power_witness
from .base import SearchStrategy

__all__ = ["STRATEGY"]


def _lasso(search: Search) -> SearchResult:
    """Brent's cycle detection on a one-letter walk, on the engine the search names
    (:func:`sdg_automata.search.engines.run`; the Python reference: :func:`_lasso_python`)."""
    # the walk leaves no position behind it: trim the constraint
    table = None if search.constraint is None else trim(search.constraint)
    automaton = search.automaton
    used = automaton.grammar.letters_of(search.head)  # the letters of L(G, A), not all of Σ
    letter = one_letter(automaton.alphabet, table, trimmed=True, letters=used)
    if letter is None:
        letters = ", ".join(sorted(used))
        raise InputError(f"--strategy lasso walks one letter: the words of "
                         f"L(G, {search.head}) use {{{letters}}}"
                         + (" and the constraint allows more than one of them"
                            if search.constraint is not None else "")
                         + " (use bfs or dfs)")
    if table is not None:
        if table.initial < 0:  # the constraint accepts nothing: no position at all
            return SearchResult(found={}, explored=1, complete=True, peak_bytes=0)
        search = dataclasses.replace(search, constraint=table)
    from ..engines import run

    return run(search, _lasso_python, letter=letter)


def _lasso_python(search: Search, budget: Budget, *, letter: int) -> SearchResult:
    """The lasso q₀, q₁, … of a one-letter walk by Brent's cycle detection, O(1) states.

    Phase 1 moves the hare through positions 1, 2, … in rounds of 1, 2, 4, …
    steps, the tortoise waiting at the start of each round; it meets the hare
    in the first round of 2ʲ ≥ max(μ + 1, λ) steps, after λ steps, so the hare
    has then passed every state of the lasso and the first position of each
    value is known (a shortest witness).  Phase 2 finds μ: the hare λ ahead of
    q₀, then both until they meet.  ``explored`` is μ + λ.

    Budget: a lasso of at most N = ``max_states`` states meets before position
    3N (2ʲ < 2·max(μ + 1, λ) ≤ 2N, plus λ ≤ N), so position 3N, a settling
    value at a position ≥ N, or μ + λ > N is over the budget: the same verdict
    as a search that stores every state.
    """
    walk, settled = search.walk, search.settled
    follow, value, a = walk.follow, walk.value, walk.letters[letter]
    meter: Meter = budget.start("search", unit="states")
    limit = budget.max_states
    cap = -1 if limit is None else limit
    beyond = 3 * cap if cap >= 0 else -1
    first: dict[int, int] = {}

    def result(states: int, complete: bool) -> SearchResult:
        if 0 <= cap < states:
            raise meter.exceeded(cap, f"{limit} states")
        return SearchResult(found={v: power_witness(search.automaton, letter, n)
                                    for v, n in first.items()},
                             explored=states, complete=complete, peak_bytes=nbytes(first))

    pos, hare, power = 0, walk.initial, 1
    due = meter.due
    try:
        while True:  # phase 1
            tortoise, steps = hare, 0
            while steps < power:
                nxt = follow(hare, a)
                if nxt < 0:  # the constraint died: the walk is a path
                    return result(pos + 1, True)
                hare, pos, steps = nxt, pos + 1, steps + 1
                if pos >= due:
                    due = meter.check(pos + 1 if cap < 0 else min(pos + 1, cap), step=pos)
                    if 0 <= beyond <= pos:
                        raise meter.exceeded(cap, f"{limit} states")
                v = value(hare)
                if v is not None and v not in first:
                    first[v] = pos
                    if settled(v):
                        return result(pos + 1, False)
                if hare == tortoise:
                    break
            else:
                if 0 <= beyond <= pos:
                    raise meter.exceeded(cap, f"{limit} states")
                power *= 2
                continue
            break
        cycle = steps
        hare = tortoise = walk.initial  # phase 2
        for _ in range(cycle):
            hare = follow(hare, a)
        tail = 0
        due = meter.check(min(pos + 1, cap) if cap >= 0 else pos + 1, step=tail)  # a new loop
        while hare != tortoise:
            hare, tortoise, tail = follow(hare, a), follow(tortoise, a), tail + 1
            if tail >= due:
                due = meter.check(min(pos + 1, cap) if cap >= 0 else pos + 1, step=tail)
    except KeyboardInterrupt:
        raise meter.interrupted() from None
    return result(tail + cycle, True)



#: the registry's entry (:data:`sdg_automata.search.strategies.STRATEGIES`)
STRATEGY = SearchStrategy(
    name="lasso", run=_lasso, reference=_lasso_python,
    describe="walks a one-letter grammar (or a constraint of one letter) in constant memory "
             "with shortest witnesses")
