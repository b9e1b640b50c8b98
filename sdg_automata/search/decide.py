"""Max-Grundy-Number-in-SDG (SPEC §5): is max_{w ∈ L(G,A)} 𝒢_{G,A}(w) = k?

Two routes answer the same questions and return the same :class:`Verdict`:

* ``method="explicit"`` — the paper's: build the reachable automaton, turn
  each M_{A,i} into an automata-lib DFA and test L(M_{A,i}) for emptiness,
  for i = m_A, m_A − 1, … (SPEC §5: max = k iff L(M_{A,k}) ≠ ∅ and
  L(M_{A,i}) = ∅ for k < i ≤ m_A).
* ``method="onthefly"`` (default) — a search over the implicit automaton of
  :mod:`sdg_automata.automaton.construction` that never builds the powerset, nor any
  automata-lib object: states are int bitsets made by ``step`` as they are
  reached.  Membership in PSPACE rests on exactly this (each state has
  polynomial size).  One exploration answers every k, because all M_{A,i}
  share δ; it stops as soon as the question is settled (A^{m_A} seen: the
  maximum is m_A; asked "max = k?" and A^j with j > k seen: no), and only the
  cone of influence of A (the nonterminals A reaches) is kept.

Search strategies of the on-the-fly route (:data:`STRATEGIES`; a new one is
a function ``(_Search) -> _SearchResult`` added there, and the command line
offers it at once):

* ``"bfs"`` keeps every reached state with its breadth-first parent: witnesses
  are shortest words.  Memory: the states packed in a
  :class:`~sdg_automata.runtime.store.PackedStates` (fixed-width records, about 65
  bytes per state on the hardness family), the frontier, two small int arrays.
* ``"dfs"`` keeps only a hash set of the reached states and the current path
  (no index, no parents): about a third less memory for the same states
  visited, but the witnesses are not shortest and an early stop may come later
  or sooner than with bfs.  Both are linear in the reachable states; the PSPACE
  bound of SPEC §5 would need iterative deepening without a visited set,
  which takes time exponential in the number of states and is not offered.
* ``"lasso"`` is for *one-letter walks*: a grammar over one letter, or any
  grammar with a constraint whose words use one letter only (the letters of
  its trimmed DFA, over the grammar's alphabet, are one).  The walk reads that
  letter alone, so its reachable part is a lasso q₀, q₁, …, q_{μ+λ} = q_μ;
  Brent's cycle detection walks it storing O(1) states, and each value's
  first position n gives a shortest witness aⁿ.  It is chosen automatically
  for one-letter walks (``strategy=None``).  ``states`` is μ + λ (or the
  settling position plus one).  A state budget N holds exactly: a lasso of at
  most N states is closed before the walk passes position 3N (Brent's first
  phase meets by then), so reaching 3N, or a lasso found longer than N, is
  over the budget.

* ``"sat"`` stores no state: bounded model checking of the Step 3–4 relation
  with CaDiCaL (:mod:`sdg_automata.search.bmc`, the ``sat`` extra), length by length
  up to ``max_length``, with shortest witnesses.  A witness is exact; nothing
  found up to the length is not a "no" unless k-induction proves it (then
  ``proof="k-induction"``); otherwise the verdict is not exact and, asked
  about k, its answer is ``None``.
* ``"pdr"`` stores no state either: ABC's property-directed reachability
  proves that no value above those found occurs (:mod:`sdg_automata.search.pdr`; ABC
  is an executable, ``berkeley-abc`` on Debian), and the proof counts only
  once its inductive invariant passes our own CaDiCaL check
  (``proof="pdr"``); its counterexamples send the bounded search of sat to
  their length for shortest witnesses.  It closes where k-induction never
  does: unreachable states that loop inside the bad set.

Every strategy but sat and pdr runs on the engine ``engine=`` chooses
(:func:`sdg_automata.search.walks.run_engine`): the compiled kernels of
:mod:`sdg_automata.kernels.automaton` over states stored as vectors of
per-group part ids (:mod:`sdg_automata.automaton.vectors`, :mod:`sdg_automata.search.walks`), or
the Python reference
below; both give the same values, witnesses and state counts.

Subset subsumption (antichains) is *not* used: it is unsound here.  On
``A -> a a | b | b B``, ``B -> a A | a b | b``, ``C -> B`` it would prune ``aa``
(state {A¹}) in favour of ``b`` (state {A¹, B¹, C⁰, bE⁰}) and report max 𝒢_C = 0, but
𝒢_C(aaa) = 1 (``SUBSUMPTION_COUNTEREXAMPLE`` in ``tests/test_decide.py``).

A regular constraint ``within`` (an automata-lib DFA or NFA on the words w, a
pyformlang finite automaton, or a regular expression) restricts the positions to
L(G, A) ∩ L(within); the search walks the product on the fly.
"""

from __future__ import annotations

import dataclasses
import sys
import time
from array import array
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, Literal, get_args

from ..automaton.construction import GrundyAutomaton, automaton_for
from ..automaton.crawl import tree_path
from ..automaton.reading import Reading, reading_of
from ..errors import BudgetExceeded, InputError, SdgBug
from ..grammar import Grammar
from ..grammar.interop import is_pyformlang_automaton, nfa_from_pyformlang
from ..grammar.words import LONG_WORD, Word, word_json
from ..runtime.budget import UNLIMITED, Budget, Meter, as_budget
from ..runtime.store import PackedStates

if TYPE_CHECKING:
    from automata.fa.dfa import DFA
    from automata.fa.nfa import NFA
    from pyformlang.finite_automaton import EpsilonNFA

    from ..automaton.vectors import StepTables
    from ..kernels import Engine

__all__ = ["ROUTES", "STRATEGIES", "Constraint", "Route", "Strategy", "Verdict", "bfs_search",
           "bfs_verdict", "constraint", "max_grundy", "read_witness", "spectrum"]

#: how Max-Grundy is decided (``max_grundy(method=...)``; the command line's ``--method``)
Route = Literal["onthefly", "explicit"]
#: the on-the-fly search order (``max_grundy(strategy=...)``; keys of :data:`STRATEGIES`)
Strategy = Literal["bfs", "dfs", "lasso", "sat", "pdr"]

#: the refusal for grammars no automaton serves
_REFUSAL = ("Max-Grundy is decided here for right- and left-linear grammars; this one is "
            "{kind}")


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
        shortest for bfs, lasso and the explicit route.  A ``str``, or a
        :class:`~sdg_automata.grammar.words.Word` (run-length) beyond
        :data:`~sdg_automata.grammar.words.LONG_WORD` letters.
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
    method, strategy, engine:
        How it was decided (``engine``: ``"compiled"`` or ``"python"``; ``None`` for
        strategies sat and pdr, which run solvers: see ``solver``).
    store:
        The store of a compiled breadth-first search: ``"table"`` or ``"compact"``
        (:func:`max_grundy`'s ``store``; ``"table"`` when the compact one was asked
        for but the states did not fit its keys); ``None`` for any other run.  Not in
        :meth:`to_json` (a new field would be a new schema version).
    proof:
        Why ``maximum`` is exact: ``"exhaustive"`` (every reachable state seen),
        ``"bound"`` (m_A reached), ``"k-induction"`` (strategy sat), ``"pdr"``
        (strategy pdr: an inductive invariant, checked); ``None``
        when it is not.
    max_length:
        Strategies sat and pdr: every word up to this length was searched.
    induction_depth:
        The k of a k-induction proof.
    solver:
        Strategies sat and pdr: the solver's name, variables, clauses, conflicts, calls;
        pdr adds the rounds of ABC, the clauses of its last invariant, and why a proof
        was not accepted (``unproven``).

    Examples
    --------
    The verdicts of :func:`max_grundy` on Example 3 (maximum 2, witness ``aa``):

    >>> from sdg_automata import load_grammar
    >>> g = load_grammar("examples/example3.txt")
    >>> v = max_grundy(g, "A")
    >>> v.maximum, v.exact, v.proof, v.witness, v.witnesses
    (2, True, 'exhaustive', 'aa', {0: 'b', 1: 'a', 2: 'aa'})
    >>> max_grundy(g, "A", 3).answer
    False
    """

    nonterminal: str
    k: int | None
    answer: bool | None
    maximum: int | None
    exact: bool
    witnesses: dict[int, str | Word] = field(default_factory=dict)
    states: int
    bound: int
    peak_bytes: int | None = None
    seconds: float = 0.0
    stopped_early: bool = False
    method: str = "onthefly"
    strategy: str | None = None
    engine: str | None = "python"
    proof: str | None = None
    max_length: int | None = None
    induction_depth: int | None = None
    solver: dict[str, Any] | None = None
    store: str | None = None

    @property
    def witness(self) -> str | Word | None:
        """A word reaching ``maximum``."""
        return None if self.maximum is None else self.witnesses.get(self.maximum)

    def to_json(self, *, full_witness: bool = False) -> dict[str, Any]:
        """The CLI's JSON object: a :class:`~sdg_automata.grammar.words.Word` witness as its runs
        (``{"runs": [["a", n]], "length": n, "compact": "a^n"}``) unless ``full_witness``."""
        return {
            "nonterminal": self.nonterminal, "k": self.k, "answer": self.answer,
            "max": self.maximum, "exact": self.exact,
            "witness": word_json(self.witness, full=full_witness),
            "witnesses": {str(v): word_json(w, full=full_witness)
                          for v, w in self.witnesses.items()},
            "states": self.states, "bound": self.bound, "stopped_early": self.stopped_early,
            "method": self.method, "strategy": self.strategy, "engine": self.engine,
            "seconds": round(self.seconds, 6), "peak_bytes": self.peak_bytes,
            "proof": self.proof, "max_length": self.max_length,
            "induction_depth": self.induction_depth, "solver": self.solver,
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
        if is_pyformlang_automaton(within):  # converted at the boundary, then as an NFA
            return nfa_from_pyformlang(within)
        if not isinstance(within, DFA):
            raise InputError(f"a constraint is a regular expression, an automata-lib DFA or "
                             f"NFA, or a pyformlang finite automaton, not a "
                             f"{type(within).__name__}")
        return NFA.from_dfa(within)
    except (AutomatonException, RegexException) as e:
        raise InputError(f"invalid constraint {within!r}: {e}") from None


# ---------------------------------------------------------------------------
# the searched automaton and the search's request and result


@dataclass(frozen=True, eq=False, kw_only=True)
class _Walk:
    """The automaton a search walks: M itself, or M × within packed as q << shift | d.

    ``follow(s, letters[c])`` is the successor on letter c (``-1``: the
    constraint forbids it), as :func:`~sdg_automata.automaton.crawl.crawl` takes it;
    ``value(s)`` is 𝒢_A read off s where the constraint accepts, else ``None``.
    ``marks[v]`` is the bit of s meaning A^v ∈ q, and ``accepting`` (``None``:
    always) the constraint's acceptance: a search can test ``s & marks`` first
    and call nothing on most states.  Every s is below ``2**bits``.
    """

    initial: int
    follow: Callable[[int, Any], int]
    letters: Sequence[Any]
    value: Callable[[int], int | None]
    marks: tuple[int, ...]
    accepting: Callable[[int], bool] | None
    bits: int


def _walk(automaton: GrundyAutomaton, head: str, within: Constraint | None) -> _Walk:
    step, grundy_at = automaton.step, automaton.grundy_at
    fields = automaton.value_bits(head)
    if within is None:
        return _Walk(initial=automaton.initial, follow=automaton.follow, letters=automaton.alphabet,
                     value=partial(grundy_at, head=head), marks=fields, accepting=None,
                     bits=len(automaton.items))
    shift = within.size.bit_length()
    dmask = (1 << shift) - 1
    final = within.final

    def follow(s: int, letter: tuple[array[int], str]) -> int:
        row, a = letter
        nd = row[s & dmask]
        # a dead constraint state: no word through here is allowed
        return step(s >> shift, a) << shift | nd if nd >= 0 else -1

    def value(s: int) -> int | None:
        return grundy_at(s >> shift, head) if final[s & dmask] else None

    return _Walk(initial=automaton.initial << shift | within.initial, follow=follow,
                 letters=[(within.rows[a], a) for a in automaton.alphabet], value=value,
                 marks=tuple(m << shift for m in fields),
                 accepting=lambda s: bool(final[s & dmask]), bits=len(automaton.items) + shift)


@dataclass(frozen=True, eq=False, kw_only=True)
class _Search:
    """What a search strategy is asked: the values of A on the walk, until settled.

    Attributes
    ----------
    automaton, head, k, bound:
        M (restricted to the cone of A), A, the question's k (or ``None``), m_A.
    budget:
        States and seconds (every strategy counts the states it reaches).
    constraint:
        The constraint's tables (strategies that read the relation, not ``walk``).
    engine:
        The engine asked for (:func:`sdg_automata.search.walks.run_engine`; sat and pdr run
        solvers).
    store:
        The compiled breadth-first search's store (:func:`sdg_automata.search.walks.breadth_first`).
    max_length:
        The longest word a bounded strategy (sat) searches; ``None``: no limit.
    """

    automaton: GrundyAutomaton
    head: str
    k: int | None
    bound: int
    budget: Budget
    constraint: Constraint | None = None
    engine: Engine = "auto"
    store: str = "table"
    max_length: int | None = None

    @cached_property
    def walk(self) -> _Walk:
        """The automaton searched (M, or M × the constraint)."""
        return _walk(self.automaton, self.head, self.constraint)

    def settled(self, value: int) -> bool:
        """Whether seeing ``value`` settles the question (SPEC §5)."""
        return value >= self.settle

    @property
    def settle(self) -> int:
        """The least value that settles the question (values never exceed m_A)."""
        return self.bound if self.k is None else min(self.bound, self.k + 1)

    def tables(self) -> StepTables:
        """The compiled step of the automaton (:mod:`sdg_automata.automaton.vectors`)."""
        from ..automaton.vectors import StepTables

        return StepTables(self.automaton)

    def constraint_arrays(self) -> tuple[int, Any, bytes] | None:
        """The constraint as the kernels take it: (initial, rows[k][d], final)."""
        c = self.constraint
        if c is None:
            return None
        import numpy as np

        rows = np.array([c.rows[a] for a in self.automaton.alphabet], dtype=np.int32)
        return c.initial, rows.reshape(len(self.automaton.alphabet), c.size), c.final

    def run(self, python: Callable[[_Search, Budget], _SearchResult],
            compiled: Callable[[_Search, Budget], _SearchResult]) -> _SearchResult:
        """``python`` or ``compiled`` on the engine ``engine`` chooses."""
        from .walks import run_engine, unfit

        result, engine = run_engine(self.engine, self.budget, partial(python, self),
                                    partial(compiled, self), reason=unfit(self.automaton),
                                    what="search")
        return dataclasses.replace(result, engine=engine)


@dataclass(frozen=True, kw_only=True)
class _SearchResult:
    """What a strategy found: a witness per value, states reached, and how it ended.

    ``complete`` says that no other value occurs, shown as ``proof`` says; the
    other fields go into the :class:`Verdict` as they are.
    """

    found: dict[int, str | Word]
    explored: int
    complete: bool
    peak_bytes: int | None
    engine: str | None = "python"
    proof: str = "exhaustive"
    max_length: int | None = None
    induction_depth: int | None = None
    solver: dict[str, Any] | None = None
    store: str | None = None


# ---------------------------------------------------------------------------
# the decision


def max_grundy(
    grammar: Grammar,
    head: str,
    k: int | None = None,
    *,
    method: Route = "onthefly",
    strategy: Strategy | None = None,
    within: DFA | NFA | EpsilonNFA | str | None = None,
    engine: Engine = "auto",
    store: str = "table",
    max_length: int | None = None,
    budget: Budget = UNLIMITED,
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
        A key of :data:`STRATEGIES`: ``"bfs"`` (shortest witnesses),
        ``"dfs"`` (less memory), ``"lasso"`` (one-letter walks, constant
        memory, shortest witnesses), ``"sat"`` (bounded model checking with
        CaDiCaL: no states stored, shortest witnesses) or ``"pdr"`` (sat's
        witnesses, proofs by ABC's PDR with a checked invariant); ``None`` (default):
        ``"lasso"`` for a one-letter walk, else ``"bfs"``.  On the fly only.
    within:
        Restrict positions to the words of this automata-lib DFA or NFA (determinized),
        pyformlang DFA, NFA or ε-NFA (converted by
        :func:`~sdg_automata.grammar.interop.nfa_from_pyformlang`), or regular expression.
    engine:
        ``"auto"`` (default), ``"compiled"`` or ``"python"``
        (:mod:`sdg_automata.kernels`): the same verdict either way (sat and pdr run solvers).
    store:
        The visited set of the compiled breadth-first search: ``"table"`` (default:
        the records of the states in memory, an open-addressing table of their
        numbers, the tree; the fastest) or ``"compact"``
        (:class:`~sdg_automata.search.walks.CompactStore`: an exact Cleary table of the
        states' keys, a few bytes per state; the frontier and the tree in temporary
        files).  The same states, verdict and witnesses either way
        (``Verdict.store`` says which ran).  Strategy bfs only (the default
        strategy is bfs with it); the Python engine has its own store.
    max_length:
        Strategy sat: search words up to this length (``None``: until the answer
        is settled or proven, or the budget runs out).
    budget:
        States, seconds and progress (:class:`~sdg_automata.runtime.budget.Budget`);
        :class:`~sdg_automata.errors.BudgetExceeded` when they run out.  The
        sat and pdr strategies count no states: they refuse ``max_states``;
        progress counts the letters unrolled (sat) or the rounds of ABC (pdr).
    max_states, max_seconds, progress:
        The same by keyword (put into ``budget``).

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
    >>> from sdg_automata.grammar.parse import parse_grammar
    >>> g = parse_grammar("A -> a A | a a A | B | a | a a\\nB -> b A | b")
    >>> v = max_grundy(g, "A", 2)
    >>> v.answer, v.maximum, v.witness
    (True, 2, 'aa')
    """
    budget = as_budget(budget, max_states=max_states, max_seconds=max_seconds,
                       progress=progress)
    reading = _reading(grammar, head, k)
    _check_bounded((strategy or "the default strategy") if method == "onthefly"
                   else f"the {method} route", max_length, budget)
    started = time.perf_counter()
    automaton = GrundyAutomaton(reading.right_linear, reading=reading)
    bound = automaton.bounds[head]
    if method == "explicit":
        if store != "table":  # it would be ignored: say so
            raise InputError(f"the {store} store is the on-the-fly breadth-first search's; "
                             "the explicit route builds every M_{A,i} with automata-lib")
        return _explicit(automaton, head, k, within, budget, started)
    if method != "onthefly":
        raise InputError(f"unknown method {method!r} (expected {' or '.join(ROUTES)})")
    from ..kernels import check_engine

    check_engine(engine)
    if strategy is not None and strategy not in STRATEGIES:
        raise InputError(f"unknown strategy {strategy!r} (expected {' or '.join(STRATEGIES)})")
    from .walks import STORES, unfit

    if store not in STORES:
        raise InputError(f"unknown store {store!r} (choose from {', '.join(STORES)})")
    if store != "table" and (strategy not in (None, "bfs") or engine == "python"):
        raise InputError(f"the {store} store is the compiled breadth-first search's: it goes "
                         "with strategy bfs and engine compiled or auto")
    if strategy in SOLVED and engine == "compiled":
        raise InputError(f"the {strategy} strategy runs {SOLVED[strategy]}, not the compiled "
                         "kernels: --engine compiled goes with bfs, dfs and lasso")
    if store != "table" and engine == "auto" and unfit(automaton) is None:
        engine = "compiled"  # asked for by name, whatever the size (auto: Python when small)
    table = None if within is None else constraint(within, automaton.alphabet,
                                                   reverse=not reading.mirrored)
    if strategy is None:  # the compact store is the breadth-first search's
        strategy = ("lasso" if store == "table" and _one_letter(automaton.alphabet, table)
                    is not None else "bfs")
    result = STRATEGIES[strategy](_Search(
        automaton=automaton, head=head, k=k, bound=bound,
        budget=budget, constraint=table, engine=engine, store=store, max_length=max_length))
    return _verdict(head, k, bound, result.found, result.explored, result.complete, started,
                    method="onthefly", strategy=strategy, peak_bytes=result.peak_bytes,
                    engine=result.engine, proof=result.proof, max_length=result.max_length,
                    induction_depth=result.induction_depth, solver=result.solver,
                    store=result.store)


def _reading(grammar: Grammar, head: str, k: int | None) -> Reading:
    """The question checked, and the reading of G restricted to the cone of influence of A
    (the direction is the whole grammar's; the cone keeps it)."""
    grammar.check_nonterminal(head)
    if k is not None and k < 0:
        raise InputError(f"k must be a natural number, not {k}")
    return reading_of(grammar, refusal=_REFUSAL).restricted_to(head)


def bfs_search(grammar: Grammar, head: str, k: int | None = None, *,
               within: DFA | NFA | EpsilonNFA | str | None = None,
               budget: Budget = UNLIMITED) -> _Search:
    """The question :func:`max_grundy` asks its bfs strategy, for a walk run elsewhere
    (the sharded search of :mod:`sdg_automata.search.sharded`): the automaton restricted to A's
    cone, m_A, the constraint's tables.  Raises as :func:`max_grundy` does."""
    reading = _reading(grammar, head, k)
    automaton = GrundyAutomaton(reading.right_linear, reading=reading)
    table = None if within is None else constraint(within, automaton.alphabet,
                                                   reverse=not reading.mirrored)
    return _Search(automaton=automaton, head=head, k=k, bound=automaton.bounds[head],
                   budget=budget, constraint=table, engine="compiled")


def bfs_verdict(search: _Search, found: dict[int, str | Word], states: int, complete: bool,
                started: float, **how: Any) -> Verdict:
    """The :class:`Verdict` of a breadth-first walk of ``search`` run elsewhere (as
    :func:`bfs_search` says), exactly as :func:`max_grundy` makes it."""
    return _verdict(search.head, search.k, search.bound, found, states, complete, started,
                    method="onthefly", strategy="bfs", **how)


def read_witness(automaton: GrundyAutomaton, read: Sequence[int]) -> str | Word:
    """The user's word for the letters (indices) read from q₀: a ``str``, or a
    :class:`~sdg_automata.grammar.words.Word` when longer than :data:`LONG_WORD`."""
    if len(read) <= LONG_WORD:
        return automaton.witness(read)
    runs = Word.of(automaton.alphabet[c] for c in read)
    return runs if automaton.reading.mirrored else runs.reversed()


def _check_bounded(strategy: str, max_length: int | None, budget: Budget) -> None:
    """``max_length`` goes with the sat strategy only; sat and pdr count no states."""
    if strategy in SOLVED and budget.max_states is not None:
        raise InputError(f"the {strategy} strategy stores no states: bound it by "
                         f"{'a maximum length or ' if strategy == 'sat' else ''}seconds, not "
                         "by states")
    if strategy == "sat":
        if max_length is not None and (isinstance(max_length, bool)
                                       or not isinstance(max_length, int) or max_length < 1):
            raise InputError(f"max_length must be a positive integer, not {max_length!r}")
    elif max_length is not None:
        raise InputError(f"a maximum length bounds the sat strategy only; {strategy} searches "
                         "every length")


def _verdict(
    head: str, k: int | None, bound: int, found: dict[int, str | Word], states: int,
    complete: bool, started: float, *, proof: str = "exhaustive", **how: Any,
) -> Verdict:
    top = max(found, default=None)
    exact = complete or top == bound
    if k is None:
        answer = None
    elif top is not None and top > k or k > bound:  # m_A bounds every value (SPEC §5)
        answer = False
    elif exact:
        answer = top == k
    else:  # a bounded search that found nothing above k: not settled either way
        answer = None
    how["proof"] = (proof if complete else "bound") if exact else None
    return Verdict(nonterminal=head, k=k, answer=answer, maximum=top, exact=exact,
                   witnesses=dict(sorted(found.items())), states=states, bound=bound,
                   seconds=time.perf_counter() - started, stopped_early=not complete, **how)


def _bytes(*structures: Any) -> int:
    total = 0
    for obj in structures:
        total += sys.getsizeof(obj)
        if isinstance(obj, (list, set, dict)):
            total += sum(sys.getsizeof(x) for x in obj)
    return total


def _bfs(search: _Search) -> _SearchResult:
    """Breadth-first search; shortest witnesses (:func:`_bfs_python`, or compiled)."""
    return search.run(_bfs_python, _bfs_compiled)


def _bfs_compiled(search: _Search, budget: Budget) -> _SearchResult:
    """:func:`_bfs_python` on the kernels: :func:`sdg_automata.search.walks.breadth_first`."""
    from .walks import CompactStore, breadth_first

    walked = breadth_first(search.tables(), budget, constraint=search.constraint_arrays(),
                           head=search.head, bound=search.bound, settle=search.settle,
                           store=search.store)
    store = walked.store
    assert store is not None
    try:
        if isinstance(store, CompactStore):
            found = {v: _runs_witness(search.automaton, *store.runs(u))
                     for v, u in walked.found.items()}
        else:
            assert store.parent is not None and store.via is not None
            found = {v: _tree_witness(search.automaton, store.parent.array, store.via.array, u)
                     for v, u in walked.found.items()}
    finally:
        store.close()
    return _SearchResult(found=found, explored=walked.states, complete=walked.complete,
                         peak_bytes=walked.peak_bytes, store=walked.store_kind)


def _tree_witness(automaton: GrundyAutomaton, parent: Any, via: Any, s: int) -> str | Word:
    """The user's word along the breadth-first tree to ``s``: a ``str``, or a
    :class:`~sdg_automata.grammar.words.Word` when longer than :data:`LONG_WORD` (run-length,
    never spelled out)."""
    if isinstance(parent, array):
        return read_witness(automaton, tree_path(parent, via, s))
    from ..kernels.automaton import tree_runs  # the kernels' arrays: the runs, compiled

    return _runs_witness(automaton, *tree_runs(parent, via, s))


def _runs_witness(automaton: GrundyAutomaton, letters: Any, counts: Any) -> str | Word:
    """:func:`_tree_witness` of a path given as runs (letter indices, counts) in the
    order read, as the kernels give it."""
    if int(counts.sum()) <= LONG_WORD:
        return automaton.witness([int(c) for c, m in zip(letters, counts, strict=True)
                                  for _ in range(int(m))])
    runs = Word.from_runs((automaton.alphabet[c], int(m))
                          for c, m in zip(letters.tolist(), counts.tolist(), strict=True))
    return runs if automaton.reading.mirrored else runs.reversed()


def _bfs_python(search: _Search, budget: Budget) -> _SearchResult:
    """Breadth-first search; shortest witnesses.

    :func:`~sdg_automata.automaton.crawl.crawl`'s loop written out for the search (issue
    11): the states reached in a :class:`~sdg_automata.runtime.store.PackedStates`,
    the frontier as ints in a queue, the tree in two arrays, and a new state
    costs one AND against the marks of the values not seen yet, with no call
    unless it shows one.
    """
    walk, settled = search.walk, search.settled
    follow, marks, accepting = walk.follow, walk.marks, walk.accepting
    meter: Meter = budget.start("search", unit="states")
    limit = budget.max_states
    cap = -1 if limit is None else limit  # numbering state `cap` would exceed the budget
    width = len(walk.letters)
    store = PackedStates(walk.bits)
    store.add(walk.initial)
    add = store.add
    frontier = deque([walk.initial])  # only the states reached but not expanded, as ints
    parent = array("i", [-1])  # 4 bytes: up to 2³¹ states, far beyond any memory here
    via = array("b" if width < 128 else "l", [-1])
    found_at: dict[int, int] = {}
    unseen = 0  # the marks of the values not found yet
    for m in marks:
        unseen |= m
    numbered = list(enumerate(walk.letters))
    due = meter.due  # paced on the states expanded, where the time goes (as in crawl)
    sid = t = 0  # the number of the state expanded, of the last state reached
    stopped = False
    try:
        while frontier and not stopped:
            if sid >= due:
                due = meter.check(t, step=sid)
            q = frontier.popleft()
            for k, a in numbered:
                ns = follow(q, a)
                if ns < 0 or not add(ns):
                    continue
                t += 1
                if t == cap:
                    raise meter.exceeded(t, f"{limit} states")
                frontier.append(ns)
                parent.append(sid)
                via.append(k)
                if ns & unseen and (accepting is None or accepting(ns)):
                    v = next(v for v, m in enumerate(marks) if ns & m & unseen)
                    found_at[v] = t
                    unseen &= ~marks[v]
                    if settled(v):
                        stopped = True
                        break
            sid += 1
    except KeyboardInterrupt:
        raise meter.interrupted(t + 1) from None
    except MemoryError:
        n = t + 1
        del store, frontier, parent, via  # give the memory back before reporting
        raise BudgetExceeded(f"search ran out of memory after {n} states", explored=n) from None
    return _SearchResult(found={v: _tree_witness(search.automaton, parent, via, u)
                                for v, u in found_at.items()},
                         explored=t + 1, complete=not stopped,
                         peak_bytes=store.nbytes + _bytes(parent, via, frontier))


def _dfs(search: _Search) -> _SearchResult:
    """Depth-first search (:func:`_dfs_python`, or compiled)."""
    return search.run(_dfs_python, _dfs_compiled)


def _dfs_compiled(search: _Search, budget: Budget) -> _SearchResult:
    """:func:`_dfs_python` on the kernels: :func:`sdg_automata.search.walks.depth_first`."""
    from .walks import depth_first

    walked = depth_first(search.tables(), budget, constraint=search.constraint_arrays(),
                         head=search.head, bound=search.bound, settle=search.settle)
    witness = search.automaton.witness
    return _SearchResult(found={v: witness(read) for v, read in walked.found.items()},
                         explored=walked.states, complete=walked.complete,
                         peak_bytes=walked.peak_bytes)


def _dfs_python(search: _Search, budget: Budget) -> _SearchResult:
    """Depth-first search keeping only a set of reached states and the current path.

    Not a crawl (the order is depth-first and no tree is kept), but the same
    budget (:class:`~sdg_automata.runtime.budget.Meter`) and the same witnesses
    (:meth:`GrundyAutomaton.witness` of the letters read).
    """
    walk, settled, witness = search.walk, search.settled, search.automaton.witness
    follow, value, letters = walk.follow, walk.value, walk.letters
    width = len(letters)
    meter: Meter = budget.start("search", unit="states")
    limit = budget.max_states
    cap = -1 if limit is None else limit
    seen = {walk.initial}
    path = [walk.initial]  # the states along the current path
    tried = [0]            # per path entry: how many of its letters were tried
    read: list[int] = []   # letters read along the path
    found: dict[int, str | Word] = {}
    deepest = 1
    due = meter.due
    try:
        while path:
            c = tried[-1]
            if c == width:
                path.pop()
                tried.pop()
                if read:
                    read.pop()
                continue
            tried[-1] = c + 1
            ns = follow(path[-1], letters[c])
            if ns < 0 or ns in seen:
                continue
            if len(seen) == cap:
                raise meter.exceeded(len(seen), f"{limit} states")
            seen.add(ns)
            if len(seen) >= due:
                due = meter.check(len(seen))
            v = value(ns)
            if v is not None and v not in found:
                found[v] = witness([*read, c])
                if settled(v):
                    return _SearchResult(found=found, explored=len(seen), complete=False,
                                         peak_bytes=_bytes(seen) + deepest * 3 * 8)
            path.append(ns)
            tried.append(0)
            read.append(c)
            deepest = max(deepest, len(path))
    except KeyboardInterrupt:
        raise meter.interrupted(len(seen)) from None
    except MemoryError:
        n = len(seen)
        del seen, path, tried, read  # give the memory back before reporting
        raise BudgetExceeded(f"search ran out of memory after {n} states", explored=n) from None
    return _SearchResult(found=found, explored=len(seen), complete=True,
                         peak_bytes=_bytes(seen) + deepest * 3 * 8)


def _one_letter(alphabet: Sequence[str], within: Constraint | None, *,
                trimmed: bool = False) -> int | None:
    """The letter (index) of a one-letter walk, else ``None``.

    Without a constraint: Σ has one letter.  With one: exactly one letter of Σ
    labels a transition of the constraint's trimmed DFA (between states reachable
    from its initial state and from which it can still accept), i.e. the
    constraint's words over Σ use that letter alone (``trimmed``: ``within`` is
    :func:`_trimmed` already).
    """
    if within is None:
        return 0 if len(alphabet) == 1 else None
    if not trimmed:
        within = _trimmed(within)
    if within.initial < 0:  # no word at all: a walk on any one letter finds no position
        return 0
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
    return used.pop() if len(used) == 1 else None


def _trimmed(within: Constraint) -> Constraint:
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


def _lasso(search: _Search) -> _SearchResult:
    """Brent's cycle detection on a one-letter walk (:func:`_lasso_python`, or compiled)."""
    # the walk leaves no position behind it: trim the constraint
    table = None if search.constraint is None else _trimmed(search.constraint)
    letter = _one_letter(search.automaton.alphabet, table, trimmed=True)
    if letter is None:
        letters = ", ".join(search.automaton.alphabet)
        raise InputError(f"--strategy lasso walks one letter: the grammar reads {{{letters}}}"
                         + (" and the constraint allows more than one of them"
                            if search.constraint is not None else "")
                         + " (use bfs or dfs)")
    if table is not None:
        if table.initial < 0:  # the constraint accepts nothing: no position at all
            return _SearchResult(found={}, explored=1, complete=True, peak_bytes=0)
        search = dataclasses.replace(search, constraint=table)
    return search.run(partial(_lasso_python, letter=letter),
                      partial(_lasso_compiled, letter=letter))


def _lasso_word(automaton: GrundyAutomaton, letter: int, n: int) -> str | Word:
    """aⁿ in the user's order (the same either way), a :class:`Word` when long."""
    a = automaton.alphabet[letter]
    return Word.power(a, n) if n > LONG_WORD else a * n


def _lasso_compiled(search: _Search, budget: Budget, *, letter: int) -> _SearchResult:
    """:func:`_lasso_python` on the kernels: :func:`sdg_automata.search.walks.lasso`."""
    from .walks import lasso

    walked = lasso(search.tables(), budget, letter=letter,
                   constraint=search.constraint_arrays(), head=search.head, bound=search.bound,
                   settle=search.settle)
    return _SearchResult(found={v: _lasso_word(search.automaton, letter, n)
                                for v, n in walked.found.items()},
                         explored=walked.states, complete=walked.complete,
                         peak_bytes=walked.peak_bytes)


def _lasso_python(search: _Search, budget: Budget, *, letter: int) -> _SearchResult:
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

    def result(states: int, complete: bool) -> _SearchResult:
        if 0 <= cap < states:
            raise meter.exceeded(cap, f"{limit} states")
        return _SearchResult(found={v: _lasso_word(search.automaton, letter, n)
                                    for v, n in first.items()},
                             explored=states, complete=complete, peak_bytes=_bytes(first))

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


def _pdr(search: _Search) -> _SearchResult:
    """ABC's PDR for the proof, its invariant checked by CaDiCaL, and bounded model checking
    for the shortest witnesses (:mod:`sdg_automata.search.pdr`)."""
    from .pdr import pdr_search

    found = pdr_search(search.automaton, search.head, settled=search.settled,
                       budget=search.budget, within=search.constraint)
    witness = search.automaton.witness
    solver = found.solver if found.why is None else {**found.solver, "unproven": found.why}
    return _SearchResult(found={v: witness(read) for v, read in found.found.items()},
                         explored=0, complete=found.proven, peak_bytes=None, engine=None,
                         proof=found.proof or "pdr", max_length=found.length,
                         induction_depth=found.depth, solver=solver)


def _sat(search: _Search) -> _SearchResult:
    """Bounded model checking with CaDiCaL, then k-induction (:mod:`sdg_automata.search.bmc`)."""
    from .bmc import bounded_search

    found = bounded_search(search.automaton, search.head, settled=search.settled,
                           budget=search.budget, max_length=search.max_length,
                           within=search.constraint)
    witness = search.automaton.witness
    return _SearchResult(found={v: witness(read) for v, read in found.found.items()},
                         explored=0, complete=found.proven, peak_bytes=None, engine=None,
                         proof="k-induction", max_length=found.length,
                         induction_depth=found.depth, solver=found.solver)


#: the strategies that run solvers rather than our engines, and what they run
SOLVED = {"sat": "CaDiCaL", "pdr": "ABC and CaDiCaL"}

#: the on-the-fly search strategies by name: each takes a :class:`_Search` and returns a
#: :class:`_SearchResult`; the ``Strategy`` type and the command line's choices follow
STRATEGIES: dict[str, Callable[[_Search], _SearchResult]] = {
    "bfs": _bfs, "dfs": _dfs, "lasso": _lasso, "sat": _sat, "pdr": _pdr}

#: the routes of :func:`max_grundy` (``method=``), in the order the command line lists them
ROUTES: tuple[str, ...] = get_args(Route)

if tuple(STRATEGIES) != get_args(Strategy):  # the table and the type are one list
    raise SdgBug("decide.STRATEGIES and decide.Strategy disagree")


def _explicit(
    automaton: GrundyAutomaton, head: str, k: int | None,
    within: DFA | NFA | EpsilonNFA | str | None, budget: Budget, started: float,
) -> Verdict:
    """The paper's route: emptiness of each L(M_{A,i}) with automata-lib (SPEC §5)."""
    bound = automaton.bounds[head]
    reachable = automaton.explore(budget)  # Ctrl-C: Interrupted
    meter = budget.start("emptiness tests", unit="states")
    meter.count = len(reachable)
    if budget.max_seconds is not None:  # the seconds count from the start of the decision
        meter.deadline = started + budget.max_seconds
    values = reachable.values(head)
    reading = automaton.reading
    guard = None
    if within is not None:
        guard = _constraint_dfa(within, automaton.alphabet, reading)
    found: dict[int, str | Word] = {}
    for i in range(bound, -1, -1):
        with meter.library("automata-lib emptiness"):
            # a private DFA: tested for emptiness, then dropped, so no need to freeze it
            machine = reachable.to_dfa((s for s, v in enumerate(values) if v == i),
                                       frozen=False)
            if guard is None:
                empty = machine.isempty()
                if not empty:
                    found[i] = reachable.word_to(values.index(i))
            else:
                product = machine.intersection(guard, minify=False)
                word = _shortest(product)
                if word is not None:
                    found[i] = reading.witness(word)
        if found:
            break  # the largest non-empty L(M_{A,i}) is the maximum (SPEC §5)
    return _verdict(head, k, bound, found, len(reachable), True, started, method="explicit")


def _constraint_dfa(within: DFA | NFA | EpsilonNFA | str, alphabet: tuple[str, ...],
                    reading: Reading) -> DFA:
    """``within`` read the automaton's way (wᴿ, or w for a mirror), over exactly Σ."""
    from automata.fa.dfa import DFA

    tables = constraint(within, alphabet, reverse=not reading.mirrored)
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
    grammar: Grammar, *, budget: Budget = UNLIMITED, max_states: int | None = None,
    progress: Callable[[int], None] | None = None, engine: Engine = "auto",
) -> list[SpectrumRow]:
    """For every nonterminal: m_A, the values reached and a shortest witness for each.

    One exploration of the whole grammar's automaton serves every nonterminal
    (left-linear grammars through their mirror; witnesses in the user's order),
    on the engine ``engine`` chooses (:meth:`GrundyAutomaton.explore`).

    Parameters
    ----------
    grammar:
        A right- or left-linear grammar.
    budget:
        States, seconds and progress for the exploration (:class:`Budget`).
    max_states, progress:
        The same by keyword (put into ``budget``).
    engine:
        ``"auto"`` (default), ``"compiled"`` or ``"python"``: the same rows.

    Returns
    -------
    list of SpectrumRow
        One row per nonterminal, in the grammar's order: ``bound`` (m_A, SPEC §3),
        ``witnesses`` (value -> a shortest word with that value) and ``states``
        (reachable states of the automaton).

    Raises
    ------
    InputError
        For a grammar that is neither right- nor left-linear.
    BudgetExceeded, Interrupted
        When the budget runs out or the exploration is interrupted.

    Examples
    --------
    >>> from sdg_automata import load_grammar
    >>> for row in spectrum(load_grammar("examples/example3.txt")):
    ...     print(row.nonterminal, row.bound, row.witnesses)
    A 4 {0: 'b', 1: 'a', 2: 'aa'}
    B 2 {0: 'ba', 1: 'b'}
    """
    automaton = automaton_for(grammar)
    reachable = automaton.explore(as_budget(budget, max_states=max_states, progress=progress),
                                  engine=engine)
    rows = []
    for head in grammar.nonterminals:
        found = reachable.shortest_witnesses(head)
        rows.append(SpectrumRow(nonterminal=head, bound=automaton.bounds[head], witnesses=found,
                                states=len(reachable)))
    return rows
