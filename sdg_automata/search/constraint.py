"""Regular constraints as int tables: the ``within`` of Max-Grundy (SPEC §5).

A constraint (an automata-lib DFA or NFA, a pyformlang finite automaton, or a
regular expression on the words w) restricts the positions of a search to
L(G, A) ∩ L(within).  Every route reads it as a :class:`Constraint`: the
tables of a minimal partial DFA on the letters the automaton reads (wᴿ, or w
for a mirror, SPEC §4).  The on-the-fly strategies walk the product with it
(:mod:`sdg_automata.search.request`), the solver-backed ones encode it as a
one-hot product component (:mod:`sdg_automata.search.circuit`), and the
lasso asks :func:`one_letter` whether its words use one letter only.
"""

from __future__ import annotations

from array import array
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import InputError

if TYPE_CHECKING:
    from automata.fa.dfa import DFA
    from automata.fa.nfa import NFA
    from pyformlang.finite_automaton import EpsilonNFA

__all__ = ["Constraint", "constraint", "one_letter", "trim"]


class Constraint(NamedTuple):
    """A DFA on the letters the search reads, as int tables.

    ``rows[a][d]`` is the successor of state d on letter a, ``-1`` for dead;
    ``final[d]`` is 1 for accepting states.  Made by :func:`constraint`.  A named tuple,
    as the automaton's :class:`~sdg_automata.automaton.items.LetterTable` is: tables
    need no dataclass, whose generated methods cost every run's start-up.
    """

    initial: int
    rows: dict[str, array[int]]
    final: bytes

    @property
    def size(self) -> int:
        return len(self.final)


def constraint(within: DFA | NFA | EpsilonNFA | str, alphabet: tuple[str, ...], *,
               reverse: bool) -> Constraint:
    """Tables for ``within`` (an automata-lib DFA or NFA, a pyformlang DFA, NFA or
    ε-NFA (:func:`~sdg_automata.grammar.interop.nfa_from_pyformlang`), or a regular
    expression on w).

    With ``reverse`` the tables read wᴿ (the automaton of a right-linear
    grammar does); without, they read w (the automaton of a mirror does).
    Either way the DFA is the subset construction of a reversed NFA, so it is
    the minimal partial DFA of its language (Brzozowski); reversal and
    determinization are automata-lib's.  Letters of Σ unknown to ``within``
    lead to the dead state.
    """
    from automata.fa.dfa import DFA
    from automata.fa.nfa import NFA

    d = DFA.from_nfa(_nfa(within, alphabet).reverse())
    if not reverse:
        d = DFA.from_nfa(NFA.from_dfa(d).reverse())
    number = {s: k for k, s in enumerate(sorted(d.states, key=repr))}
    rows: dict[str, array[int]] = {}
    for a in alphabet:
        row = array("l", [-1] * len(number))
        if a in d.input_symbols:
            for s, k in number.items():
                t = d.transitions.get(s, {}).get(a)
                if t is not None:
                    row[k] = number[t]
        rows[a] = row
    final = bytes(1 if s in d.final_states else 0 for s in sorted(d.states, key=repr))
    return Constraint(initial=number[d.initial_state], rows=rows, final=final)


def _nfa(within: DFA | NFA | EpsilonNFA | str, alphabet: tuple[str, ...]) -> Any:
    """``within`` as an automata-lib NFA; a regex may use Σ and its own letters."""
    from automata.base.exceptions import AutomatonException, RegexException
    from automata.fa.dfa import DFA
    from automata.fa.nfa import NFA
    from automata.regex.parser import RESERVED_CHARACTERS

    try:
        if isinstance(within, str):
            letters = set(alphabet) | (set(within) - RESERVED_CHARACTERS - {"\\"})
            return NFA.from_regex(within, input_symbols=letters)
        if isinstance(within, NFA):  # determinized by the caller's subset construction
            return within
        from ..grammar.interop import is_pyformlang_automaton, nfa_from_pyformlang

        if is_pyformlang_automaton(within):  # converted at the boundary, then as an NFA
            return nfa_from_pyformlang(within)
        if not isinstance(within, DFA):
            raise InputError(f"a constraint is a regular expression, an automata-lib DFA or "
                             f"NFA, or a pyformlang finite automaton, not a "
                             f"{type(within).__name__}")
        return NFA.from_dfa(within)
    except (AutomatonException, RegexException) as e:
        raise InputError(f"invalid constraint {within!r}: {e}") from None


def one_letter(alphabet: Sequence[str], within: Constraint | None, *,
               trimmed: bool = False, letters: Collection[str] | None = None) -> int | None:
    """The letter (index) of a one-letter walk, else ``None``.

    A walk reading one letter finds every position when every word of L(G, A) ∩
    L(within) uses that letter alone, which holds when at most one letter is both one of
    ``letters`` (those of the words of L(G, A): :meth:`~sdg_automata.grammar.Grammar.letters_of`;
    ``None``: all of Σ) and one that labels a transition of the constraint's trimmed DFA
    (between states reachable from its initial state and from which it can still
    accept; ``trimmed``: ``within`` is a :func:`trim` one already).  When no letter is
    both, no non-empty word is a position, and a walk on any letter (the first) finds
    none, as every other strategy answers.
    """
    allowed = {k for k, a in enumerate(alphabet) if letters is None or a in letters}
    if within is not None:
        if not trimmed:
            within = trim(within)
        allowed &= _labels(alphabet, within)
    if len(allowed) > 1:
        return None
    return min(allowed, default=0)


def _labels(alphabet: Sequence[str], within: Constraint) -> set[int]:
    """The letters (indices) that label a transition of the trimmed ``within`` reachable
    from its initial state."""
    if within.initial < 0:  # no word at all
        return set()
    reach = {within.initial}
    todo = [within.initial]
    used: set[int] = set()
    for d in todo:
        for k, a in enumerate(alphabet):
            t = within.rows[a][d]
            if t >= 0:
                used.add(k)
                if t not in reach:
                    reach.add(t)
                    todo.append(t)
    return used


def trim(within: Constraint) -> Constraint:
    """``within`` with every transition into a state that can no longer accept removed
    (``-1``): a walk that enters such a state has no position ahead of it."""
    before: list[list[int]] = [[] for _ in range(within.size)]  # the transitions reversed
    for row in within.rows.values():
        for d, t in enumerate(row):
            if t >= 0:
                before[t].append(d)
    todo = [d for d in range(within.size) if within.final[d]]
    live = set(todo)
    for t in todo:  # backwards from the accepting states, once per state
        for d in before[t]:
            if d not in live:
                live.add(d)
                todo.append(d)
    rows = {a: array("l", [t if t in live else -1 for t in row])
            for a, row in within.rows.items()}
    return Constraint(initial=within.initial if within.initial in live else -1, rows=rows,
                      final=within.final)

