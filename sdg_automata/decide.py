"""Max-Grundy-Number-in-SDG (SPEC §5): is max_{w ∈ L(G,A)} 𝒢_{G,A}(w) = k?

Two routes answer the same questions and return the same :class:`Verdict`:

* ``method="explicit"`` — the paper's: build the reachable automaton, turn
  each M_{A,i} into an automata-lib DFA and test L(M_{A,i}) for emptiness,
  for i = m_A, m_A − 1, … (SPEC §5: max = k iff L(M_{A,k}) ≠ ∅ and
  L(M_{A,i}) = ∅ for k < i ≤ m_A).
* ``method="onthefly"`` (default) — a search over the implicit automaton of
  :mod:`sdg_automata.construction` that never builds the powerset, nor any
  automata-lib object: states are int bitsets made by ``step`` as they are
  reached.  Membership in PSPACE rests on exactly this (each state has
  polynomial size).  One exploration answers every k, because all M_{A,i}
  share δ; it stops as soon as the question is settled (A^{m_A} seen: the
  maximum is m_A; asked "max = k?" and A^j with j > k seen: no), and only the
  cone of influence of A (the nonterminals A reaches) is kept.

Search strategies of the on-the-fly route:

* ``"bfs"`` keeps every reached state with its breadth-first parent: witnesses
  are shortest words.  Memory: the state set, a dict index and two small
  int arrays.
* ``"dfs"`` keeps only a hash set of the reached states and the current path
  (no index, no parents): about a third less memory for the same states
  visited, but the witnesses are not shortest and an early stop may come later
  or sooner than with bfs.  Both are linear in the reachable states; the PSPACE
  bound of SPEC §5 would need iterative deepening without a visited set,
  which takes time exponential in the number of states and is not offered.

Subset subsumption (antichains) is *not* used: it is unsound here
(``notes/literature.md`` §D gives a counterexample).

A regular constraint ``within`` (an automata-lib DFA on the words w, or a
regular expression) restricts the positions to L(G, A) ∩ L(within); the
search walks the product on the fly.
"""

from __future__ import annotations

import sys
import time
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from .construction import GrundyAutomaton, automaton_for
from .errors import BudgetExceeded, InputError, Interrupted
from .grammar import Grammar

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

__all__ = ["Constraint", "Verdict", "constraint", "decide_max_grundy", "max_grundy", "spectrum"]

Method = Literal["onthefly", "explicit"]
Strategy = Literal["bfs", "dfs"]


@dataclass(frozen=True, kw_only=True)
class Verdict:
    """The answer to a Max-Grundy query, with its evidence.

    Attributes
    ----------
    nonterminal, k:
        The question: is the maximum of 𝒢_{G,A} over L(G,A) equal to k?
        (``k`` is ``None`` when only the maximum is asked.)
    answer:
        ``True``/``False`` for a question about k; ``None`` without k.
    maximum:
        The maximum when ``exact``; else the largest value seen, a lower bound
        (the search stopped early with "no").  ``None``: no position.
    exact:
        Whether ``maximum`` is proven.
    witnesses:
        For each value found, a word w ∈ L(G, A) (∩ L(within)) with that value;
        shortest for bfs and for the explicit route.
    states:
        States explored (on the fly) or reachable states built (explicit).
    bound:
        m_A of SPEC §3.
    peak_bytes:
        Bytes held by the search structures at their largest (states, index,
        parents, path); ``None`` for the explicit route.
    seconds:
        Wall time of the decision.
    stopped_early:
        Whether the exploration ended before the reachable part was exhausted.
    method, strategy:
        How it was decided.
    """

    nonterminal: str
    k: int | None
    answer: bool | None
    maximum: int | None
    exact: bool
    witnesses: dict[int, str] = field(default_factory=dict)
    states: int
    bound: int
    peak_bytes: int | None = None
    seconds: float = 0.0
    stopped_early: bool = False
    method: str = "onthefly"
    strategy: str | None = None

    @property
    def witness(self) -> str | None:
        """A word reaching ``maximum``."""
        return None if self.maximum is None else self.witnesses.get(self.maximum)

    def to_json(self) -> dict[str, Any]:
        """The CLI's JSON object."""
        return {
            "nonterminal": self.nonterminal, "k": self.k, "answer": self.answer,
            "max": self.maximum, "exact": self.exact, "witness": self.witness,
            "witnesses": {str(v): w for v, w in self.witnesses.items()},
            "states": self.states, "bound": self.bound, "stopped_early": self.stopped_early,
            "method": self.method, "strategy": self.strategy,
            "seconds": round(self.seconds, 6), "peak_bytes": self.peak_bytes,
        }


# ---------------------------------------------------------------------------
# regular constraints as int tables


@dataclass(frozen=True, eq=False)
class Constraint:
    """A DFA on the letters the search reads, as int tables.

    ``rows[a][d]`` is the successor of state d on letter a, ``-1`` for dead;
    ``final[d]`` is 1 for accepting states.  Made by :func:`constraint`.
    """

    initial: int
    rows: dict[str, array[int]]
    final: bytes

    @property
    def size(self) -> int:
        return len(self.final)


def constraint(within: DFA | str, alphabet: tuple[str, ...], *, reverse: bool) -> Constraint:
    """Tables for ``within`` (an automata-lib DFA or a regular expression on w).

    With ``reverse`` the tables read wᴿ, as the automaton does: reversal and
    determinization are automata-lib's.  Letters of Σ unknown to ``within`` lead
    to the dead state.
    """
    from automata.fa.dfa import DFA

    if reverse:
        d = DFA.from_nfa(_nfa(within, alphabet).reverse())
    else:
        d = within if isinstance(within, DFA) else DFA.from_nfa(_nfa(within, alphabet))
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


# ---------------------------------------------------------------------------
# the decision


def _settled(value: int, k: int | None, bound: int) -> bool:
    """Whether seeing ``value`` settles the question (SPEC §5)."""
    return value == bound or (k is not None and value > k)


def max_grundy(
    grammar: Grammar,
    head: str,
    k: int | None = None,
    *,
    method: Method = "onthefly",
    strategy: Strategy = "bfs",
    within: DFA | str | None = None,
    max_states: int | None = None,
    max_seconds: float | None = None,
    progress: Callable[[int], None] | None = None,
) -> Verdict:
    """Decide Max-Grundy-Number-in-SDG (SPEC §5) for a right- or left-linear grammar.

    Parameters
    ----------
    grammar, head:
        The grammar G and the nonterminal A.
    k:
        Ask "is the maximum equal to k?"; ``None`` asks for the maximum.
    method:
        ``"onthefly"`` (default) or ``"explicit"`` (see the module docstring).
    strategy:
        ``"bfs"`` (shortest witnesses) or ``"dfs"`` (less memory); on the fly only.
    within:
        Restrict positions to the words of this DFA or regular expression.
    max_states, max_seconds:
        Budgets; :class:`~sdg_automata.errors.BudgetExceeded` when they run out.
    progress:
        Called with the number of states explored, now and then.

    Returns
    -------
    Verdict

    Raises
    ------
    InputError
        For a grammar that is neither right- nor left-linear, an unknown
        nonterminal, a negative k, a bad constraint.
    BudgetExceeded, Interrupted
        Saying how many states were explored.

    Examples
    --------
    >>> from sdg_automata.parse import parse_grammar
    >>> g = parse_grammar("A -> a A | a a A | B | a | a a\\nB -> b A | b")
    >>> v = max_grundy(g, "A", 2)
    >>> v.answer, v.maximum, v.witness
    (True, 2, 'aa')
    """
    grammar.check_nonterminal(head)
    if k is not None and k < 0:
        raise InputError(f"k must be a natural number, not {k}")
    if not grammar.is_right_linear:
        if not grammar.is_left_linear:
            raise InputError(f"Max-Grundy is decided here for right- and left-linear grammars; "
                             f"this one is {grammar.kind}")
        mirror_within = None if within is None else _mirrored(within, grammar.terminals)
        mirrored = max_grundy(grammar.mirror(), head, k, method=method, strategy=strategy,
                              within=mirror_within, max_states=max_states,
                              max_seconds=max_seconds, progress=progress)
        return _replace_witnesses(mirrored, {v: w[::-1] for v, w in mirrored.witnesses.items()})
    started = time.perf_counter()
    automaton = GrundyAutomaton(grammar.restricted_to(head))  # the cone of influence of A
    bound = automaton.bounds[head]
    if method == "explicit":
        return _explicit(automaton, head, k, within, max_states, max_seconds, progress, started)
    if method != "onthefly":
        raise InputError(f"unknown method {method!r} (expected onthefly or explicit)")
    table = None if within is None else constraint(within, automaton.alphabet, reverse=True)
    search = _bfs if strategy == "bfs" else _dfs if strategy == "dfs" else None
    if search is None:
        raise InputError(f"unknown strategy {strategy!r} (expected bfs or dfs)")
    found, explored, complete, peak = search(
        automaton, head, k, bound, table, max_states, max_seconds, progress)
    return _verdict(head, k, bound, found, explored, complete, started, method="onthefly",
                    strategy=strategy, peak_bytes=peak)


#: the name the decision procedure goes by in the issue tracker; the on-the-fly search is
#: :func:`max_grundy`'s default method
decide_max_grundy = max_grundy


def _mirrored(within: DFA | str, alphabet: tuple[str, ...]) -> DFA:
    """The constraint on wᴿ (a left-linear grammar's mirror reads wᴿ where G reads w)."""
    from automata.fa.dfa import DFA

    return DFA.from_nfa(_nfa(within, alphabet).reverse())


def _nfa(within: DFA | str, alphabet: tuple[str, ...]) -> Any:
    """``within`` as an automata-lib NFA; a regex may use Σ and its own letters."""
    from automata.base.exceptions import AutomatonException, RegexException
    from automata.fa.nfa import NFA
    from automata.regex.parser import RESERVED_CHARACTERS

    try:
        if isinstance(within, str):
            letters = set(alphabet) | (set(within) - RESERVED_CHARACTERS - {"\\"})
            return NFA.from_regex(within, input_symbols=letters)
        return NFA.from_dfa(within)
    except (AutomatonException, RegexException) as e:
        raise InputError(f"invalid constraint {within!r}: {e}") from None


def _replace_witnesses(v: Verdict, witnesses: dict[int, str]) -> Verdict:
    from dataclasses import replace

    return replace(v, witnesses=witnesses)


def _verdict(
    head: str, k: int | None, bound: int, found: dict[int, str], states: int, complete: bool,
    started: float, **how: Any,
) -> Verdict:
    top = max(found, default=None)
    exact = complete or top == bound
    if k is None:
        answer = None
    elif top is not None and top > k:
        answer = False
    else:
        answer = exact and top == k
    return Verdict(nonterminal=head, k=k, answer=answer, maximum=top, exact=exact,
                   witnesses=dict(sorted(found.items())), states=states, bound=bound,
                   seconds=time.perf_counter() - started, stopped_early=not complete, **how)


def _budget(max_states: int | None, max_seconds: float | None, started: float, explored: int,
            ) -> None:
    if max_states is not None and explored > max_states:
        raise BudgetExceeded(f"search stopped at the budget of {max_states} states without an "
                             f"answer ({explored} states reached)", explored=explored)
    if max_seconds is not None and time.perf_counter() - started > max_seconds:
        raise BudgetExceeded(f"search stopped at the budget of {max_seconds:g} s without an "
                             f"answer ({explored} states explored)", explored=explored)


_SearchResult = tuple[dict[int, str], int, bool, int]
#: a successor in the searched automaton: (letter index, state, automaton state q, accepting)
_Successor = tuple[int, int, int, bool]


def _product(
    automaton: GrundyAutomaton, within: Constraint | None,
) -> tuple[int, Callable[[int], Iterator[_Successor]]]:
    """The automaton the searches walk: M itself, or M × within packed as q << shift | d.

    ``accepting`` says whether the constraint accepts there (always, without one).
    """
    step, letters = automaton.step, list(enumerate(automaton.alphabet))
    if within is None:
        def plain(q: int) -> Iterator[_Successor]:
            for c, a in letters:
                nq = step(q, a)
                yield c, nq, nq, True

        return automaton.initial, plain
    shift = within.size.bit_length()
    dmask = (1 << shift) - 1
    rows = [within.rows[a] for _, a in letters]
    final = within.final

    def product(s: int) -> Iterator[_Successor]:
        q, d = s >> shift, s & dmask
        for c, a in letters:
            nd = rows[c][d]
            if nd >= 0:  # a dead constraint state: no word through here is allowed
                nq = step(q, a)
                yield c, nq << shift | nd, nq, bool(final[nd])

    return automaton.initial << shift | within.initial, product


def _bfs(
    automaton: GrundyAutomaton, head: str, k: int | None, bound: int, within: Constraint | None,
    max_states: int | None, max_seconds: float | None, progress: Callable[[int], None] | None,
) -> _SearchResult:
    """Breadth-first search; the BFS tree gives shortest witnesses."""
    started = time.perf_counter()
    grundy_at = automaton.grundy_at
    start, successors = _product(automaton, within)
    index = {start: 0}
    states = [start]
    parent = array("l", [-1])
    via = array("b", [-1])
    found: dict[int, int] = {}
    sid = 0
    try:
        while sid < len(states):
            for c, ns, nq, accepting in successors(states[sid]):
                if ns in index:
                    continue
                t = index[ns] = len(states)
                states.append(ns)
                parent.append(sid)
                via.append(c)
                if not t & 1023:
                    _budget(max_states, max_seconds, started, t)
                    if progress:
                        progress(t)
                v = grundy_at(nq, head)
                if v is not None and v not in found and accepting:
                    found[v] = t
                    if _settled(v, k, bound):
                        return (_words(found, parent, via, automaton.alphabet), len(states),
                                False, _bytes(index, states, parent, via))
            sid += 1
            if max_states is not None and len(states) > max_states:
                _budget(max_states, None, started, len(states))
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted after {len(states)} states explored",
                          explored=len(states)) from None
    return (_words(found, parent, via, automaton.alphabet), len(states), True,
            _bytes(index, states, parent, via))


def _words(found: dict[int, int], parent: array[int], via: array[int],
           alphabet: tuple[str, ...]) -> dict[int, str]:
    """Witness words from the breadth-first tree: the path read is wᴿ, walked back it is w."""
    out = {}
    for v, s in found.items():
        w = []
        while s > 0:
            w.append(alphabet[via[s]])
            s = parent[s]
        out[v] = "".join(w)
    return out


def _bytes(*structures: Any) -> int:
    total = 0
    for obj in structures:
        total += sys.getsizeof(obj)
        if isinstance(obj, (list, set, dict)):
            total += sum(sys.getsizeof(x) for x in obj)
    return total


def _dfs(
    automaton: GrundyAutomaton, head: str, k: int | None, bound: int, within: Constraint | None,
    max_states: int | None, max_seconds: float | None, progress: Callable[[int], None] | None,
) -> _SearchResult:
    """Depth-first search keeping only a set of reached states and the current path."""
    started = time.perf_counter()
    grundy_at, alphabet = automaton.grundy_at, automaton.alphabet
    start, successors = _product(automaton, within)
    seen = {start}
    pending = [successors(start)]  # per path entry: its successors not tried yet
    read: list[str] = []           # letters read along the path (wᴿ)
    found: dict[int, str] = {}
    deepest = 1
    try:
        while pending:
            nxt = next(pending[-1], None)
            if nxt is None:
                pending.pop()
                if read:
                    read.pop()
                continue
            c, ns, nq, accepting = nxt
            if ns in seen:
                continue
            seen.add(ns)
            if not len(seen) & 1023:
                _budget(max_states, max_seconds, started, len(seen))
                if progress:
                    progress(len(seen))
            v = grundy_at(nq, head)
            if v is not None and v not in found and accepting:
                found[v] = alphabet[c] + "".join(reversed(read))
                if _settled(v, k, bound):
                    return found, len(seen), False, _bytes(seen) + deepest * 3 * 8
            pending.append(successors(ns))
            read.append(alphabet[c])
            deepest = max(deepest, len(pending))
        if max_states is not None and len(seen) > max_states:
            _budget(max_states, None, started, len(seen))
    except KeyboardInterrupt:
        raise Interrupted(f"interrupted after {len(seen)} states explored",
                          explored=len(seen)) from None
    return found, len(seen), True, _bytes(seen) + deepest * 3 * 8


def _explicit(
    automaton: GrundyAutomaton, head: str, k: int | None, within: DFA | str | None,
    max_states: int | None, max_seconds: float | None, progress: Callable[[int], None] | None,
    started: float,
) -> Verdict:
    """The paper's route: emptiness of each L(M_{A,i}) with automata-lib (SPEC §5)."""
    bound = automaton.bounds[head]

    def tick(n: int) -> None:  # explore() calls it now and then: the clock is checked there
        _budget(None, max_seconds, started, n)
        if progress:
            progress(n)

    reachable = automaton.explore(max_states=max_states, progress=tick)  # Ctrl-C: Interrupted
    values = reachable.values(head)
    guard = None
    if within is not None:
        guard = _constraint_dfa(within, automaton.alphabet)
    found: dict[int, str] = {}
    for i in range(bound, -1, -1):
        _budget(None, max_seconds, started, len(reachable))
        # a private DFA: tested for emptiness, then dropped, so no need to freeze it
        machine = reachable.to_dfa((s for s, v in enumerate(values) if v == i), frozen=False)
        if guard is None:
            empty = machine.isempty()
            if not empty:
                found[i] = reachable.word_to(values.index(i))
        else:
            product = machine.intersection(guard, minify=False)
            word = _shortest(product)
            if word is not None:
                found[i] = word[::-1]
        if found:
            break  # the largest non-empty L(M_{A,i}) is the maximum (SPEC §5)
    return _verdict(head, k, bound, found, len(reachable), True, started, method="explicit")


def _constraint_dfa(within: DFA | str, alphabet: tuple[str, ...]) -> DFA:
    """``within`` reversed (it constrains w, M reads wᴿ), over exactly Σ."""
    from automata.fa.dfa import DFA

    tables = constraint(within, alphabet, reverse=True)
    dead = tables.size
    transitions = {d: {a: (tables.rows[a][d] if tables.rows[a][d] >= 0 else dead)
                       for a in alphabet} for d in range(dead)}
    transitions[dead] = dict.fromkeys(alphabet, dead)
    return DFA(states=frozenset(range(dead + 1)), input_symbols=frozenset(alphabet),
               transitions=transitions, initial_state=tables.initial,
               final_states=frozenset(d for d in range(dead) if tables.final[d]))


def _shortest(machine: DFA) -> str | None:
    """A shortest word of an automata-lib DFA, by breadth-first search; ``None`` if empty."""
    from collections import deque

    parent: dict[Any, tuple[Any, str] | None] = {machine.initial_state: None}
    queue = deque([machine.initial_state])
    while queue:
        s = queue.popleft()
        if s in machine.final_states:
            word = []
            step = parent[s]
            while step is not None:
                s, a = step
                word.append(a)
                step = parent[s]
            return "".join(reversed(word))
        for a, t in sorted(machine.transitions[s].items()):
            if t not in parent:
                parent[t] = (s, a)
                queue.append(t)
    return None


# ---------------------------------------------------------------------------
# every nonterminal at once


@dataclass(frozen=True, kw_only=True)
class SpectrumRow:
    """What values 𝒢_{G,A} takes: the bound, each value with a shortest witness."""

    nonterminal: str
    bound: int
    witnesses: dict[int, str]
    states: int

    @property
    def maximum(self) -> int | None:
        return max(self.witnesses, default=None)


def spectrum(
    grammar: Grammar, *, max_states: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> list[SpectrumRow]:
    """For every nonterminal: m_A, the values reached and a shortest witness for each.

    One exploration of the whole grammar's automaton serves every nonterminal.
    Left-linear grammars go through their mirror (witnesses reversed back).
    """
    automaton = automaton_for(grammar)
    reachable = automaton.explore(max_states=max_states, progress=progress)
    rows = []
    for head in grammar.nonterminals:
        found = reachable.spectrum(head)
        if not grammar.is_right_linear:  # the mirror's witnesses read backwards
            found = {v: w[::-1] for v, w in found.items()}
        rows.append(SpectrumRow(nonterminal=head, bound=automaton.bounds[head], witnesses=found,
                                states=len(reachable)))
    return rows
