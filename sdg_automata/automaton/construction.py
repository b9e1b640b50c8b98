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
search of :mod:`sdg_automata.search.decide` walks the same ``step``.

References
----------
.. [1] Takata, Inoue, Seki, "Construction of a DFA for Computing Grundy Numbers
   in the Successful Derivation Games on Right-Linear Grammars",
   arXiv 2609.00871, Section 4 (Steps 1–5).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property, partial
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from ..errors import InputError, SdgBug
from ..grammar import Grammar
from ..runtime.budget import UNLIMITED, Budget, as_budget
from ..runtime.engines import NATIVE, THRESHOLDS, Engine, compiled, run_engine
from .bounds import upper_bounds
from .crawl import Crawl, ValuedStates, crawl
from .groups import GroupLayout, _compile, _Group, _groups, _Plan, bits_of, group_layout
from .items import (
    Item,
    LetterTable,
    TransitionTables,
    _check_suffix_room,
    letter_rules_of,
    letter_tables,
    number_items,
)
from .reading import Reading, reading_of

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

__all__ = [
    "GrundyAutomaton",
    "ReachableAutomaton",
    "automaton_for",
    "dfa",
]

#: default cap on the entries of :meth:`GrundyAutomaton.step`'s memo (about 100 bytes each)
MEMO_LIMIT = 1 << 16


def _reading_for(grammar: Grammar, reading: Reading | None) -> Reading:
    """The reading of a :class:`GrundyAutomaton` on ``grammar``: ``reading``, or ``grammar``
    read as it is; :class:`~sdg_automata.errors.InputError` unless ``grammar`` is
    right-linear (the Step 1–5 construction's precondition)."""
    if not grammar.is_right_linear:
        raise InputError(
            f"the Step 1–5 construction needs a right-linear grammar; this one is "
            f"{grammar.kind}" + (" (use grammar.mirror())" if grammar.is_left_linear else ""))
    if reading is None:
        return Reading(grammar=grammar, right_linear=grammar, mirrored=False)
    if reading.right_linear is not grammar:
        raise SdgBug("a GrundyAutomaton must be built on its reading's right-linear grammar")
    return reading


def _fresh_end(bounds: dict[str, int]) -> str:
    """Step 1's fresh nonterminal E: ``E``, primed until it names no nonterminal."""
    end = "E"
    while end in bounds:
        end += "′"
    return end


def _unit_plan_of(grammar: Grammar, nt_id: dict[str, int]
                  ) -> tuple[tuple[int, tuple[int, ...]], ...]:
    """Step 3's unit rules: (A, (C, …)) for each A with unit rules A → C, in the order <_Γ,
    so that δ′_C is known before A → C needs it (heads without unit rules depend on
    nothing computed in the same step)."""
    return tuple(
        (nt_id[a], tuple(nt_id[r.body[0]] for r in grammar.rules_of(a) if grammar.is_unit(r)))
        for a in grammar.unit_order
        if any(grammar.is_unit(r) for r in grammar.rules_of(a))
    )


class GrundyAutomaton:
    """The implicit automaton M of Steps 1–5 for a right-linear grammar (SPEC §4).

    Parameters
    ----------
    grammar:
        A right-linear grammar (:func:`automaton_for` serves left-linear ones
        through their mirror).
    reading:
        How the grammar the user gave maps onto ``grammar`` (default: it *is*
        ``grammar``); set by :func:`automaton_for`.
    memo_limit:
        At most this many entries in the memo of :meth:`step` (all groups and
        letters together, default 65,536: a few MB); past it the memo is dropped
        and every step is :meth:`step_reference`.  ``0`` disables the memo.

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
    reading:
        Which way the user's words are read (:class:`~sdg_automata.automaton.reading.Reading`):
        :meth:`grundy` takes the user's w and witnesses are given back in the
        user's order, whether ``grammar`` is the user's or its mirror.

    Raises
    ------
    InputError
        For a grammar that is not right-linear.

    Notes
    -----
    Theorem (Section 4 of Takata, Inoue, Seki, arXiv 2609.00871): after
    reading wᴿ from q₀, ``A^i`` is in the state iff 𝒢_{G,A}(w) = i.  The empty
    state ∅ is absorbing; a letter outside Σ leads to it.

    Examples
    --------
    The automaton of the paper's Example 3, with its 10 reachable states:

    >>> from sdg_automata import load_grammar
    >>> m = GrundyAutomaton(load_grammar("examples/example3.txt"))
    >>> m.alphabet, m.bounds
    (('a', 'b'), {'A': 4, 'B': 2})
    >>> m.grundy("A", "aa"), m.grundy("B", "ba"), m.grundy("A", "c")
    (2, 0, None)
    >>> len(m.explore())
    10
    """

    #: the groups of nonterminals and what each reads and owns per letter (``None``: one
    #: group); the memo's key and part masks, kept when the memo is dropped, and the
    #: layout of the compiled step (:mod:`sdg_automata.search.compiled.tables`)
    layout: GroupLayout | None
    #: ``follow(q, a)``: δ(q, a) as :meth:`step` gives it, without the method call: the
    #: memo's compiled lookups (:func:`_compile`), or :meth:`step_reference` without a memo
    follow: Callable[[int, str], int]

    def __init__(self, grammar: Grammar, *, reading: Reading | None = None,
                 memo_limit: int = MEMO_LIMIT):
        self.reading = _reading_for(grammar, reading)
        self.grammar = grammar
        self.alphabet: tuple[str, ...] = grammar.terminals
        self.bounds = upper_bounds(grammar)
        self.end_symbol = end = _fresh_end(self.bounds)
        bound = {**self.bounds, end: 0}
        letter_rules = letter_rules_of(grammar, end)
        _check_suffix_room(letter_rules)
        items, index, self._base = number_items(grammar.nonterminals, end, bound, letter_rules)
        self.items: tuple[Item, ...] = tuple(items)
        self.initial: int = 1 << self._base[end]
        nt_id = {a: k for k, a in enumerate(grammar.nonterminals)}
        self._tables: dict[str, LetterTable] = letter_tables(
            self.alphabet, len(items), index, bound, letter_rules, nt_id)
        self._base_of = [self._base[a] for a in grammar.nonterminals]
        self._bound_of = [self.bounds[a] for a in grammar.nonterminals]
        self._unit_plan = _unit_plan_of(grammar, nt_id)
        self._unit_heads = frozenset(h for h, _ in self._unit_plan)
        self._set_up_memo(memo_limit, _groups(grammar, letter_rules, end))
        # memo of run(): state ids, their bitsets, and per-id successor dicts
        self._ids: dict[int, int] = {self.initial: 0}
        self._states: list[int] = [self.initial]
        self._succ: list[dict[str, int]] = [{}]

    def _set_up_memo(self, memo_limit: int, groups: list[tuple[str, ...]]) -> None:
        """The memo of :meth:`step`: the groups' layout, their empty tables and the
        compiled lookups of :attr:`follow` (without a memo, :meth:`step_reference`).

        ``groups`` are the nonterminal groups of :func:`_groups`, in dependency order;
        one group holding everything would only add lookups, so it gets no layout.
        """
        if memo_limit < 0:
            raise InputError(f"memo_limit must be a natural number, not {memo_limit}")
        self.memo_limit = memo_limit
        self._memo_size = 0
        self._plans: dict[str, _Plan] = {}
        self.layout = None
        if len(groups) > 1:
            self.layout = self._layout(groups + [(self.end_symbol,)])
        if memo_limit and self.layout is not None:
            self._plans = {a: _Plan(tuple(_Group(*masks, {}) for masks in groups), uncovered)
                           for a, (groups, uncovered) in self.layout.letters.items()}
        self.follow = self.step_reference
        if self._plans:
            self.follow = _compile(self._plans, self._miss)

    # -- the automaton -------------------------------------------------------

    def step(self, q: int, a: str) -> int:
        """δ(q, a) by Steps 3 and 4 (SPEC §4), memoized per group of nonterminals.

        The part of δ(q, a) that a group of nonterminals owns (the values A^v of
        its heads, the shifted items a x B^j of its B) depends only on the bits
        of q its rules read and, through unit rules A → C leaving the group, on
        the values of C just computed.  Each group keeps a table from those bits
        (``q & mask | out & deps``) to its part;
        groups come in dependency order, so a step whose parts are all known is
        one AND and one dict lookup per group (:attr:`follow`, compiled by
        :func:`_compile`).  The first unknown part sends the whole step to
        :meth:`step_reference`, whose answer fills every group's table
        (:meth:`_learn`).  Groups are :func:`_groups`.
        """
        return self.follow(q, a)

    def _miss(self, q: int, a: str) -> int:
        """δ(q, a) where the compiled lookups know no part: learn it, or no memo for ``a``."""
        plan = self._plans.get(a)
        if plan is None:  # a letter outside Σ, or the memo was dropped
            return self.step_reference(q, a)
        return self._learn(q, a, plan)

    def _learn(self, q: int, a: str, plan: _Plan) -> int:
        """δ(q, a) by :meth:`step_reference`, recorded in every group's table.

        Two checks cost nothing on the fast path: a key met before must give
        the same part (the key holds everything the part depends on), and the
        parts must cover δ(q, a) (groups left out for ``a`` contribute nothing).
        """
        out = self.step_reference(q, a)
        if out & plan.uncovered:
            raise SdgBug(f"step memo: letter {a!r} sets items outside its groups")
        added = 0
        for mask, deps, owned, memo in plan.groups:
            key, part = q & mask | out & deps, out & owned
            known = memo.get(key)
            if known is None:
                memo[key] = part
                added += 1
            elif known != part:
                raise SdgBug(f"step memo: letter {a!r}, key {key:#x} gives two parts")
        self._memo_size += added
        if self._memo_size > self.memo_limit:
            for plan in self._plans.values():  # a crawl may still hold the compiled follow
                for group in plan.groups:
                    group.memo.clear()
            self._plans = {}  # past the limit: memory back, reference steps from now on
            self.follow = self.step_reference
            self._memo_size = 0
        return out

    def memo_sizes(self) -> dict[str, list[int]]:
        """Entries of each group's memo of :meth:`step`, per letter (empty: no memo)."""
        return {a: [len(g.memo) for g in plan.groups] for a, plan in self._plans.items()}

    def _layout(self, groups: list[tuple[str, ...]]) -> GroupLayout:
        """What each of ``groups`` (in dependency order) reads and owns on every letter."""
        group_of = {b: g for g, members in enumerate(groups) for b in members}
        owner = [group_of[item.nonterminal] for item in self.items]
        members: list[list[int]] = [[] for _ in groups]
        for k, g in enumerate(owner):
            members[g].append(k)
        owned = tuple(bits_of(bits) for bits in members)
        nts = self.grammar.nonterminals
        # the fields of the unit targets outside each group: read on every letter alike
        deps_of = [sum(((2 << self.bounds[c]) - 1) << self._base[c]
                       for c in {r.body[0] for b in members if b != self.end_symbol
                                 for r in self.grammar.rules_of(b)
                                 if self.grammar.is_unit(r) and group_of[r.body[0]] != g})
                   for g, members in enumerate(groups)]
        return group_layout(groups, owner, owned, nts, self._tables, deps_of)

    def step_reference(self, q: int, a: str) -> int:
        """δ(q, a) by Steps 3 and 4 (SPEC §4), computed from scratch.

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

    @cached_property
    def tables(self) -> TransitionTables:
        """The transition relation of Steps 3–4, read-only (see :class:`TransitionTables`)."""
        return TransitionTables(
            items=self.items, nonterminals=self.grammar.nonterminals,
            base=tuple(self._base_of), bound=tuple(self._bound_of),
            letters=MappingProxyType(self._tables), unit_plan=self._unit_plan)

    def value_bits(self, head: str) -> tuple[int, ...]:
        """``bits[v]``: the bit of A^v (v = 0 … m_A); ``q & bits[v]`` tests Step 5's F_{A,v}."""
        base = self._base[head]
        return tuple(1 << (base + v) for v in range(self.bounds[head] + 1))

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
        """𝒢_{G,A}(w) for the user's grammar and word, by running the automaton on
        wᴿ (Theorem of SPEC §4) — on w itself when it serves a mirror."""
        self.grammar.check_nonterminal(head)
        if not w:
            return None
        return self.grundy_at(self.run(self.reading.automaton_input(w)), head)

    def witness(self, read: Iterable[int]) -> str:
        """The user's word for which the automaton reads the letters ``read`` (indices into
        :attr:`alphabet`, in reading order)."""
        alphabet = self.alphabet
        return self.reading.witness("".join([alphabet[k] for k in read]))

    def item_set(self, q: int) -> tuple[Item, ...]:
        """The items of state ``q``."""
        return tuple(self.items[k] for k in range(q.bit_length()) if q >> k & 1)

    def label(self, q: int, *, compact: bool = False, limit: int | None = None) -> str:
        """``{A¹, aE⁰}`` — the state as the paper writes it (``∅`` when empty).

        ``compact`` writes prefixes run-length (``a^40E⁰``, :meth:`Item.compact`);
        ``limit`` shows at most that many items, then ``… N more`` (notebooks: a
        state of a subtraction game can hold a hundred items of a hundred letters).
        """
        items = self.item_set(q)
        if not items:
            return "∅"
        shown = [item.compact() if compact else str(item) for item in items[:limit]]
        if limit is not None and len(items) > limit:
            shown.append(f"… {len(items) - limit} more")
        return "{" + ", ".join(shown) + "}"

    # -- the reachable part ---------------------------------------------------

    def explore(
        self,
        budget: Budget = UNLIMITED,
        *,
        max_states: int | None = None,
        progress: Callable[[int], None] | None = None,
        engine: Engine = "auto",
        what: str = "construction",
    ) -> ReachableAutomaton:
        """Build the part reachable from q₀, breadth-first (:func:`~.crawl.crawl`).

        Parameters
        ----------
        budget:
            :class:`~sdg_automata.errors.BudgetExceeded` once more than
            ``budget.max_states`` states would be needed or the time is up.
        max_states, progress:
            The same limits by keyword (put into ``budget``); ``progress`` is
            called with the number of states found now and then.
        engine:
            ``"python"``: :func:`~sdg_automata.automaton.crawl.crawl` over :attr:`follow`;
            ``"compiled"``: the kernel :func:`sdg_automata.kernels.automaton.bfs`
            over states stored as part ids (:mod:`sdg_automata.search.compiled.tables`), the
            same states in the same order, reached through the registry of
            :mod:`sdg_automata.runtime.engines` (``COMPILED["explore"]``); ``"auto"``
            (default): Python up to ``THRESHOLDS["walk states"]`` states, compiled
            beyond (the registry's auto policy).
        what:
            The phase's name in budget and Ctrl-C messages.

        Returns
        -------
        ReachableAutomaton
            Int tables shared by every M_{A,i}; state 0 is q₀.
        """
        budget = as_budget(budget, max_states=max_states, progress=progress)
        found, ran = run_engine(engine, budget, partial(self._crawl, what=what),
                                partial(compiled("explore"), self, what=what), what=what,
                                native=(NATIVE["explore"],
                                        THRESHOLDS["explore states, native"]))
        return ReachableAutomaton(automaton=self, found=found, engine=ran)

    def _crawl(self, budget: Budget, *, what: str) -> Crawl:
        return crawl(self.initial, self.follow, self.alphabet, budget, what=what)


@dataclass(frozen=True, eq=False, repr=False)
class ReachableAutomaton:
    """The reachable part of M as int tables; every M_{A,i} shares it (Step 5).

    ``rows[k][s]`` is the successor of state ``s`` on ``alphabet[k]``; state 0
    is q₀.  ``parent``/``via`` form the breadth-first tree, so the path to a
    state is a shortest word reaching it.  Made by :meth:`GrundyAutomaton.explore`
    from a :class:`~sdg_automata.automaton.crawl.Crawl`; ``engine`` is the engine that
    explored (``"python"`` or ``"compiled"``).  Compared by identity and shown by the
    default ``repr`` (it holds the automaton and every state; each generated method
    costs start-up).
    """

    automaton: GrundyAutomaton
    found: Crawl
    engine: str = "python"

    @property
    def states(self) -> Sequence[int]:
        """``states[s]``: the bitset of state ``s`` (a list, or, from the compiled engine,
        a :class:`~sdg_automata.search.compiled.tables.PartStates` that builds it on access)."""
        return self.found.states

    @property
    def rows(self) -> tuple[array[int], ...]:
        """``rows[k][s]``: the successor of ``s`` on ``alphabet[k]``."""
        return self.found.rows

    @property
    def parent(self) -> array[int]:
        return self.found.parent

    @property
    def via(self) -> array[int]:
        return self.found.via

    def __len__(self) -> int:
        return len(self.states)

    @property
    def alphabet(self) -> tuple[str, ...]:
        return self.automaton.alphabet

    def values(self, head: str) -> list[int | None]:
        """𝒢_{G,A} read off every state (``None`` where A has no item)."""
        if isinstance(self.states, ValuedStates):  # compiled: by part, without the bitsets
            return self.states.grundy(head)
        at = self.automaton.grundy_at
        return [at(q, head) for q in self.states]

    def accepting(self, head: str, i: int | None) -> frozenset[int]:
        """F_{A,i} restricted to the reachable states (Step 5)."""
        return frozenset(s for s, v in enumerate(self.values(head)) if v == i)

    def word_to(self, s: int) -> str:
        """A shortest user's word w that leads to ``s`` (the automaton reads it along the
        breadth-first path: wᴿ, or w for a mirror)."""
        return self.automaton.witness(self.found.path(s))

    def shortest_witnesses(self, head: str) -> dict[int, str]:
        """Every value 𝒢_{G,A} takes, with a shortest witness word, in increasing value
        (one row of :func:`sdg_automata.search.spectrum.spectrum`)."""
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

        from .minimal import fast_automata

        transitions = self._frozen_transitions if frozen else self._transitions
        with fast_automata():
            return DFA(states=frozenset(range(len(self.states))),
                       input_symbols=frozenset(self.alphabet), transitions=transitions,
                       initial_state=0, final_states=frozenset(final_states))


def _bound_violated(value: int, bound: int) -> None:
    # would contradict SPEC §3; never answer from a broken state
    raise SdgBug(f"Grundy value {value} exceeds the bound {bound}")


def automaton_for(grammar: Grammar, *, refusal: str | None = None) -> GrundyAutomaton:
    """The Step 1–5 automaton that serves ``grammar``, reading words the user's way.

    A right-linear grammar's own automaton reads wᴿ.  A left-linear grammar is
    served by its mirror G′ (𝒢_G(w) = 𝒢_{G′}(wᴿ)), whose automaton therefore
    reads w itself.  The automaton's :attr:`~GrundyAutomaton.reading` holds
    that decision: :meth:`~GrundyAutomaton.grundy` takes the user's word and
    witnesses come back in the user's order, so no caller reverses anything.

    Parameters
    ----------
    refusal:
        The message for a grammar that is neither (``{kind}``: its class).

    Raises
    ------
    InputError
        For a grammar that is neither right- nor left-linear.
    """
    reading = reading_of(grammar) if refusal is None else reading_of(grammar, refusal=refusal)
    return GrundyAutomaton(reading.right_linear, reading=reading)


def dfa(
    grammar: Grammar,
    head: str,
    i: int,
    *,
    forward: bool = False,
    minimal: bool = False,
    reachable: ReachableAutomaton | None = None,
    budget: Budget = UNLIMITED,
    max_states: int | None = None,
    engine: Engine = "auto",
) -> DFA:
    """M_{A,i} as an automata-lib DFA (Step 5).

    Parameters
    ----------
    grammar, head, i:
        The grammar, the nonterminal A and the Grundy number i.
    forward:
        ``False`` (default): M_{A,i} exactly as in the paper, accepting
        { wᴿ : 𝒢_{G,A}(w) = i }.  ``True``: the minimal DFA of
        { w : 𝒢_{G,A}(w) = i }, partial (no dead state; see Notes).
    minimal:
        Minimize with automata-lib's ``minify()`` (Hopcroft).
    reachable:
        A prebuilt :func:`automaton_for` ``(grammar).explore()`` result to share.
    budget:
        Covers every phase: the exploration and the subset construction count
        states against ``max_states`` (each phase on its own) as they are
        built; automata-lib's ``minify`` runs under the remaining seconds.
    max_states:
        The same state limit by keyword (put into ``budget``).
    engine:
        Which engine explores the reachable part (:meth:`GrundyAutomaton.explore`'s
        ``engine``: ``"auto"``, ``"compiled"`` or ``"python"``); the DFA is the same.

    Returns
    -------
    DFA
        An automata-lib :class:`~automata.fa.dfa.DFA` over Σ.

    Raises
    ------
    BudgetExceeded
        When a phase needs more states or time than ``budget`` allows.

    Notes
    -----
    A DFA that reads the other way than the automaton (``forward`` for a
    right-linear grammar; the paper's M_{A,i} for a left-linear one, served by
    its mirror G′ with 𝒢_G(w) = 𝒢_{G′}(wᴿ)) is the subset construction of the
    reversed reachable automaton, in int bitsets, counted against the budget
    as it is built (:func:`~sdg_automata.automaton.minimal.reversed_dfa`).  By
    Brzozowski's theorem the determinized reverse of a DFA whose states are all
    reachable is the minimal DFA of the reversed language
    [2]_, so no minimization follows.  Otherwise (``forward`` for a
    left-linear grammar, whose mirror's automaton reads w itself) the reachable
    automaton is minimized by automata-lib (Hopcroft, ``to_partial``), under
    the budget's remaining seconds.  Either way a forward DFA is the minimal
    *partial* DFA: the minimal complete one without its dead state, if any.

    References
    ----------
    .. [2] J. A. Brzozowski, "Canonical regular expressions and minimal state
       graphs for definite events", Symposium on Mathematical Theory of
       Automata, 1962.

    Examples
    --------
    In Example 3 the words of value 2 up to length 4 are ``aa``, ``aab``,
    ``aaba`` and ``aabb``; M_{A,2} reads them reversed:

    >>> from sdg_automata import load_grammar
    >>> g = load_grammar("examples/example3.txt")
    >>> m = dfa(g, "A", 2)
    >>> m.accepts_input("baa"), m.accepts_input("aab")  # 𝒢(A, aab) = 2, 𝒢(A, baa) = 1
    (True, False)
    >>> forward = dfa(g, "A", 2, forward=True)
    >>> len(forward.states), forward.accepts_input("aab")
    (4, True)
    """
    from .minimal import canonical, reversed_dfa  # the DFAs' own module: dfa() only

    budget = as_budget(budget, max_states=max_states)
    grammar.check_nonterminal(head)
    if reachable is None:
        reachable = automaton_for(grammar).explore(budget, engine=engine)
    final = reachable.accepting(head, i)
    # the automaton reads the user's w forwards exactly when it serves a mirror
    if forward != reachable.automaton.reading.mirrored:
        return reversed_dfa(reachable.rows, reachable.alphabet, len(reachable), final, budget)
    machine = reachable.to_dfa(final)
    if not (minimal or forward):
        return machine
    meter = budget.start("minimization", unit="states")
    with meter.library("automata-lib minify"):
        if forward:  # a mirror's own automaton reads w: minimal, and partial like Brzozowski's
            return canonical(machine.to_partial(minify=True))
        return canonical(machine.minify())
