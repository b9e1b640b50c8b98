"""The DFA construction of Steps 1–5 (SPEC §4), written once as an implicit automaton.

The automaton reads w **from right to left**.  After reading the reverse of a
suffix y of the input its state q is a set of items:

* ``B^j`` — y ∈ L(G, B) and 𝒢_{G,B}(y) = j;
* ``x B^j`` — y = x·z with z ∈ L(G, B), 𝒢_{G,B}(z) = j, and x a non-empty
  suffix of the letters of some rule A → a x′ B (Step 2's Γ_N).

A fresh nonterminal E with the single item E⁰ stands for the empty suffix
(Step 1 turns each terminal rule A → x into A → xE).  Items are numbered and a
state is a Python int used as a bitset, so that a transition is a handful of
integer operations (:meth:`GrundyAutomaton.step`).

Everything else is derived from ``initial`` and ``step``:
:meth:`GrundyAutomaton.grundy` (memoized transitions, O(|w|) after warm-up),
:meth:`GrundyAutomaton.explore` (the reachable part, as int tables shared by
every M_{A,i}) and from it the automata-lib DFAs (:func:`dfa`).  The on-the-fly
search of :mod:`sdg_automata.decide` walks the same ``step``.

References
----------
.. [1] Takata, Inoue, Seki, "Construction of a DFA for Computing Grundy Numbers
   in the Successful Derivation Games on Right-Linear Grammars",
   arXiv 2609.00871, Section 4 (Steps 1–5).
"""

from __future__ import annotations

import contextlib
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

from .bounds import upper_bounds
from .errors import BudgetExceeded, InputError, Interrupted
from .grammar import Grammar

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

__all__ = [
    "GrundyAutomaton",
    "Item",
    "ReachableAutomaton",
    "automaton_for",
    "automaton_grundy",
    "canonical",
    "dfa",
    "fast_automata",
]

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True, order=True)
class Item:
    """An item x B^j of Step 2 (``prefix`` is x, possibly empty)."""

    prefix: str
    nonterminal: str
    value: int

    def __str__(self) -> str:
        return f"{self.prefix}{self.nonterminal}{str(self.value).translate(_SUPERSCRIPT)}"


class GrundyAutomaton:
    """The implicit automaton M of Steps 1–5 for a right-linear grammar (SPEC §4).

    Parameters
    ----------
    grammar:
        A right-linear grammar (mirror a left-linear one first).

    Attributes
    ----------
    initial:
        q₀ = {E⁰}, as a bitset.
    alphabet:
        Σ, sorted.
    bounds:
        m_A for every nonterminal (SPEC §3); item values never exceed them.
    items:
        Every item of Γ′ ∪ Γ_N; bit k of a state stands for ``items[k]``.

    Notes
    -----
    Theorem (Section 4 of [1]_): after reading wᴿ from q₀, ``A^i`` is in the
    state iff 𝒢_{G,A}(w) = i.  The empty state ∅ is absorbing; a letter
    outside Σ leads to it.
    """

    def __init__(self, grammar: Grammar):
        if not grammar.is_right_linear:
            raise InputError(
                f"the Step 1–5 construction needs a right-linear grammar; this one is "
                f"{grammar.kind}" + (" (use grammar.mirror())" if grammar.is_left_linear else ""))
        self.grammar = grammar
        self.alphabet: tuple[str, ...] = grammar.terminals
        self.bounds = upper_bounds(grammar)
        nts = grammar.nonterminals
        end = "E"
        while end in self.bounds:  # the fresh nonterminal of Step 1 must not clash
            end += "′"
        self.end_symbol = end
        bound = {**self.bounds, end: 0}
        # Step 1: R_N ∪ R′_T as (head, letters, tail); R_U as unit pairs
        letter_rules: list[tuple[str, str, str]] = []
        for r in grammar.rules:
            if grammar.is_unit(r):
                continue
            tail = r.body[-1] if grammar.is_nonterminal(r.body[-1]) else end
            letters = "".join(r.body[:-1] if tail != end else r.body)
            letter_rules.append((r.head, letters, tail))
        # Step 2: Γ′ (x = ε) and Γ_N (x a non-empty suffix of y in A → a y B)
        prefixes: dict[str, set[str]] = {b: {""} for b in bound}
        for _, letters, tail in letter_rules:
            prefixes[tail].update(letters[i:] for i in range(1, len(letters)))
        items: list[Item] = []
        index: dict[tuple[str, str], int] = {}  # (x, B) -> bit of x B^0
        self._base: dict[str, int] = {}
        for b in (*nts, end):  # B^0..B^m first, contiguous: grundy_at reads them as a field
            index["", b] = len(items)
            self._base[b] = len(items)
            items.extend(Item("", b, j) for j in range(bound[b] + 1))
        for b in (*nts, end):
            for x in sorted(prefixes[b] - {""}, key=lambda s: (len(s), s)):
                index[x, b] = len(items)
                items.extend(Item(x, b, j) for j in range(bound[b] + 1))
        self.items: tuple[Item, ...] = tuple(items)
        self.initial: int = 1 << self._base[end]
        # Step 3/4 tables per letter: for each item bit, the shifted item a·x B^j and the
        # contributions (A, 1 << j) it makes to the sets J_A
        nt_id = {a: k for k, a in enumerate(nts)}
        self._tables: dict[str, tuple[int, list[int], list[tuple[tuple[int, int], ...]]]] = {}
        for a in self.alphabet:
            shift = [0] * len(items)
            contrib: list[list[tuple[int, int]]] = [[] for _ in items]
            for (x, b), bit in index.items():
                target = index.get((a + x, b))
                if target is not None:
                    for j in range(bound[b] + 1):
                        shift[bit + j] = 1 << (target + j)
            for head, letters, tail in letter_rules:
                if letters[0] == a:
                    bit = index[letters[1:], tail]
                    for j in range(bound[tail] + 1):
                        contrib[bit + j].append((nt_id[head], 1 << j))
            relevant = sum(1 << k for k in range(len(items)) if shift[k] or contrib[k])
            self._tables[a] = (relevant, shift, [tuple(c) for c in contrib])
        # Step 3 visits A in the order <_Γ so that δ′_C is known before A → C needs it;
        # heads without unit rules depend on nothing computed in the same step
        self._base_of = [self._base[a] for a in nts]
        self._bound_of = [self.bounds[a] for a in nts]
        self._unit_plan = tuple(
            (nt_id[a], tuple(nt_id[r.body[0]] for r in grammar.rules_of(a) if grammar.is_unit(r)))
            for a in grammar.unit_order
            if any(grammar.is_unit(r) for r in grammar.rules_of(a))
        )
        self._unit_heads = frozenset(h for h, _ in self._unit_plan)
        # memo of run(): state ids, their bitsets, and per-id successor dicts
        self._ids: dict[int, int] = {self.initial: 0}
        self._states: list[int] = [self.initial]
        self._succ: list[dict[str, int]] = [{}]

    # -- the automaton -------------------------------------------------------

    def step(self, q: int, a: str) -> int:
        """δ(q, a) by Steps 3 and 4 (SPEC §4).

        J_{A,q,a} collects j for every rule A → a x B with x B^j ∈ q, then, in
        the order <_Γ, the value of C for every unit rule A → C; δ′_A adds
        A^{mex J}.  Step 4 adds a x B^j for every x B^j ∈ q whose a·x is a
        suffix in Γ_N.
        """
        table = self._tables.get(a)
        if table is None:
            return 0
        relevant, shift, contrib = table
        q &= relevant
        out = 0
        sets: dict[int, int] = {}  # head -> J_A as a bitmask
        while q:
            low = q & -q
            k = low.bit_length() - 1
            out |= shift[k]
            for h, m in contrib[k]:
                sets[h] = sets.get(h, 0) | m
            q ^= low
        if not sets:
            return out
        base, bound, units = self._base_of, self._bound_of, self._unit_heads
        values: dict[int, int] = {}
        for h, j in sets.items():
            if h not in units:
                v = values[h] = (~j & (j + 1)).bit_length() - 1  # mex_mask(j), inlined: hot
                if v > bound[h]:
                    _bound_violated(v, bound[h])
                out |= 1 << (base[h] + v)
        for h, targets in self._unit_plan:
            j = sets.get(h, 0)
            for c in targets:
                if c in values:
                    j |= 1 << values[c]
            if j:
                v = values[h] = (~j & (j + 1)).bit_length() - 1  # mex_mask(j)
                if v > bound[h]:
                    _bound_violated(v, bound[h])
                out |= 1 << (base[h] + v)
        return out

    def grundy_at(self, q: int, head: str) -> int | None:
        """The i with A^i ∈ q (Step 5: q ∈ F_{A,i}), or ``None``."""
        base = self._base[head]
        field = (q >> base) & ((2 << self.bounds[head]) - 1)
        return field.bit_length() - 1 if field else None

    def run(self, letters: Iterable[str], start: int | None = None) -> int:
        """The state reached from ``start`` (default q₀) by reading ``letters``, memoized.

        States met so far get small ids and one dict of successors each, so a
        known transition costs one list index and one dict lookup; the memo
        persists across calls (a batch of words warms it once).
        """
        states, succ = self._states, self._succ
        s = 0 if start is None else self._id(start)
        it = iter(letters)
        while True:
            try:
                for a in it:
                    s = succ[s][a]
                return states[s]
            except KeyError:  # noqa: PERF203 -- only on a transition not taken before
                # compute it once; the try around the whole loop keeps known steps cheap
                t = succ[s][a] = self._id(self.step(states[s], a))
                s = t

    def _id(self, q: int) -> int:
        """The memo id of state ``q`` (registered on first sight)."""
        t = self._ids.get(q)
        if t is None:
            t = self._ids[q] = len(self._states)
            self._states.append(q)
            self._succ.append({})
        return t

    def grundy(self, head: str, w: str) -> int | None:
        """𝒢_{G,A}(w), by running the automaton on wᴿ (Theorem of SPEC §4)."""
        self.grammar.check_nonterminal(head)
        if not w:
            return None
        return self.grundy_at(self.run(reversed(w)), head)

    def item_set(self, q: int) -> tuple[Item, ...]:
        """The items of state ``q``."""
        return tuple(self.items[k] for k in range(q.bit_length()) if q >> k & 1)

    def label(self, q: int) -> str:
        """``{A¹, aE⁰}`` — the state as the paper writes it (``∅`` when empty)."""
        items = self.item_set(q)
        return "{" + ", ".join(map(str, items)) + "}" if items else "∅"

    # -- the reachable part ---------------------------------------------------

    def explore(
        self,
        *,
        max_states: int | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> ReachableAutomaton:
        """Build the part reachable from q₀, breadth-first.

        Parameters
        ----------
        max_states:
            Budget; :class:`~sdg_automata.errors.BudgetExceeded` once more
            states would be needed.
        progress:
            Called with the number of states found, every 4096 states.

        Returns
        -------
        ReachableAutomaton
            Int tables shared by every M_{A,i}; state 0 is q₀.
        """
        index = {self.initial: 0}
        states = [self.initial]
        rows = [array("l") for _ in self.alphabet]
        parent = array("l", [-1])
        via = array("b", [-1])
        step = self.step
        letters = list(enumerate(self.alphabet))
        sid = 0
        try:
            while sid < len(states):
                q = states[sid]
                for k, a in letters:
                    nq = step(q, a)
                    t = index.get(nq)
                    if t is None:
                        if max_states is not None and len(states) >= max_states:
                            raise BudgetExceeded(
                                f"construction stopped at the budget of {max_states} states "
                                f"({sid} fully expanded, {len(states) - sid} waiting)",
                                explored=len(states))
                        t = index[nq] = len(states)
                        states.append(nq)
                        parent.append(sid)
                        via.append(k)
                        if progress is not None and not len(states) & 4095:
                            progress(len(states))
                    rows[k].append(t)
                sid += 1
        except KeyboardInterrupt:
            raise Interrupted(f"interrupted after {len(states)} states built",
                              explored=len(states)) from None
        return ReachableAutomaton(
            automaton=self, states=tuple(states), rows=tuple(rows), parent=parent, via=via)


@dataclass(frozen=True, eq=False)
class ReachableAutomaton:
    """The reachable part of M as int tables; every M_{A,i} shares it (Step 5).

    ``rows[k][s]`` is the successor of state ``s`` on ``alphabet[k]``; state 0
    is q₀.  ``parent``/``via`` form the breadth-first tree, so the path to a
    state is a shortest word reaching it.
    """

    automaton: GrundyAutomaton
    states: tuple[int, ...]
    rows: tuple[array[int], ...]
    parent: array[int]
    via: array[int]

    def __len__(self) -> int:
        return len(self.states)

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.automaton.alphabet

    def values(self, head: str) -> list[int | None]:
        """𝒢_{G,A} read off every state (``None`` where A has no item)."""
        at = self.automaton.grundy_at
        return [at(q, head) for q in self.states]

    def accepting(self, head: str, i: int | None) -> frozenset[int]:
        """F_{A,i} restricted to the reachable states (Step 5)."""
        return frozenset(s for s, v in enumerate(self.values(head)) if v == i)

    def word_to(self, s: int) -> str:
        """The word w whose reverse is the breadth-first path to ``s`` (shortest)."""
        letters = []
        while s > 0:
            letters.append(self.alphabet[self.via[s]])
            s = self.parent[s]
        return "".join(letters)  # collected backwards, so this is w itself, not wᴿ

    def spectrum(self, head: str) -> dict[int, str]:
        """Every value 𝒢_{G,A} takes, with a shortest witness word, in increasing value."""
        found: dict[int, str] = {}
        for s, v in enumerate(self.values(head)):
            if v is not None and v not in found:
                found[v] = self.word_to(s)  # breadth-first: the first state is a nearest one
        return dict(sorted(found.items()))

    def transitions(self) -> Iterator[tuple[int, str, int]]:
        """Every transition (source, letter, target)."""
        for k, a in enumerate(self.alphabet):
            for s, t in enumerate(self.rows[k]):
                yield s, a, t

    @cached_property
    def _transitions(self) -> dict[int, dict[str, int]]:
        alphabet, rows = self.alphabet, self.rows
        return {s: {a: rows[k][s] for k, a in enumerate(alphabet)}
                for s in range(len(self.states))}

    @cached_property
    def _frozen_transitions(self) -> Any:
        from automata.base.utils import freeze_value

        # frozen once and shared by every M_{A,i}: DFAs handed out stay immutable
        return freeze_value(self._transitions)

    def to_dfa(self, final_states: Iterable[int], *, frozen: bool = True) -> DFA:
        """This transition structure as an automata-lib DFA (complete; states 0..n−1).

        Parameters
        ----------
        final_states:
            The accepting states, e.g. :meth:`accepting` (Step 5).
        frozen:
            ``True`` (default): the DFA is immutable, as automata-lib promises;
            its transitions are one frozen mapping shared by every DFA of this
            structure (frozen once, about 2 µs per state).  ``False`` shares a
            plain dict instead: only for DFAs that never leave the caller.
        """
        from automata.fa.dfa import DFA

        transitions = self._frozen_transitions if frozen else self._transitions
        with fast_automata():
            return DFA(states=frozenset(range(len(self.states))),
                       input_symbols=frozenset(self.alphabet), transitions=transitions,
                       initial_state=0, final_states=frozenset(final_states))


def _bound_violated(value: int, bound: int) -> None:
    # would contradict SPEC §3; never answer from a broken state
    raise AssertionError(f"Grundy value {value} exceeds the bound {bound}")


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


def automaton_for(grammar: Grammar) -> GrundyAutomaton:
    """The Step 1–5 automaton that serves ``grammar``.

    A right-linear grammar's own automaton reads wᴿ.  A left-linear grammar is
    served by its mirror G′ (𝒢_G(w) = 𝒢_{G′}(wᴿ)), whose automaton therefore
    reads w itself; callers tell the two apart by ``grammar.is_right_linear``.

    Raises
    ------
    InputError
        For a grammar that is neither right- nor left-linear.
    """
    if grammar.is_right_linear:
        return GrundyAutomaton(grammar)
    if grammar.is_left_linear:
        return GrundyAutomaton(grammar.mirror())
    raise InputError(f"automata are built for right-linear grammars (and left-linear ones "
                     f"through their mirror); this one is {grammar.kind}")


def automaton_grundy(grammar: Grammar, head: str, w: str) -> int | None:
    """𝒢_{G,A}(w) through the automaton (right-linear grammars)."""
    return GrundyAutomaton(grammar).grundy(head, w)


def dfa(
    grammar: Grammar,
    head: str,
    i: int,
    *,
    forward: bool = False,
    minimal: bool = False,
    reachable: ReachableAutomaton | None = None,
    max_states: int | None = None,
) -> DFA:
    """M_{A,i} as an automata-lib DFA (Step 5).

    Parameters
    ----------
    grammar, head, i:
        The grammar, the nonterminal A and the Grundy number i.
    forward:
        ``False`` (default): M_{A,i} exactly as in the paper, accepting
        { wᴿ : 𝒢_{G,A}(w) = i }.  ``True``: the DFA of { w : 𝒢_{G,A}(w) = i },
        by automata-lib's reversal and subset construction, minimal.
    minimal:
        Minimize with automata-lib's ``minify()`` (Hopcroft).
    reachable:
        A prebuilt :meth:`GrundyAutomaton.explore` result to share.
    max_states:
        Budget for the exploration.

    Notes
    -----
    Left-linear grammars go through their mirror G′: 𝒢_G(w) = 𝒢_{G′}(wᴿ), so
    M′_{A,i} accepts the forward language of G and its reversal the other one.
    """
    from automata.fa.dfa import DFA
    from automata.fa.nfa import NFA

    grammar.check_nonterminal(head)
    if reachable is None:
        reachable = automaton_for(grammar).explore(max_states=max_states)
    flip = not grammar.is_right_linear  # the mirror's automaton reads w, not wᴿ
    machine = reachable.to_dfa(reachable.accepting(head, i))
    if forward != flip:
        small = machine.minify()
        return canonical(DFA.from_nfa(NFA.from_dfa(small).reverse()))  # minimal already
    return canonical(machine.minify()) if minimal else machine


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
