"""Max-Grundy-Number-in-SDG (SPEC §5): is max_{w ∈ L(G,A)} 𝒢_{G,A}(w) = k?

The facade of the decision: :func:`max_grundy`, its :class:`Verdict`, and
:func:`spectrum` (every nonterminal at once, with its ``SpectrumRow``: defined in
:mod:`sdg_automata.search.spectrum`, loaded from there on first use).  Two routes answer
the same questions and return the same :class:`Verdict`:

* ``method="explicit"`` — the paper's: build the reachable automaton, turn
  each M_{A,i} into an automata-lib DFA and test L(M_{A,i}) for emptiness
  (:mod:`sdg_automata.search.explicit`).
* ``method="onthefly"`` (default) — a search over the implicit automaton of
  :mod:`sdg_automata.automaton.construction` that never builds the powerset, nor any
  automata-lib object: states are int bitsets made by ``step`` as they are
  reached.  Membership in PSPACE rests on exactly this (each state has
  polynomial size).  One exploration answers every k, because all M_{A,i}
  share δ; it stops as soon as the question is settled (A^{m_A} seen: the
  maximum is m_A; asked "max = k?" and A^j with j > k seen: no), and only the
  cone of influence of A (the nonterminals A reaches) is kept.

The on-the-fly route runs one of the search strategies of the registry
:mod:`sdg_automata.search.strategies` (bfs, dfs, lasso, sat, pdr; a new one is
one module and one :func:`~sdg_automata.search.strategies.register` call), on
the question :mod:`sdg_automata.search.request` defines; each strategy's module
says what it stores and proves.  Every strategy but those that run solvers
runs on the engine ``engine=`` chooses
(:func:`sdg_automata.runtime.engines.run_engine`): the compiled kernels of
:mod:`sdg_automata.kernels.automaton` over states stored as vectors of
per-group part ids (:mod:`sdg_automata.search.compiled.tables`,
:mod:`sdg_automata.search.compiled.drive`), or the Python reference of the strategy's
module; both give the same values, witnesses and state counts.

Subset subsumption (antichains) is *not* used: it is unsound here.  On
``A -> a a | b | b B``, ``B -> a A | a b | b``, ``C -> B`` it would prune ``aa``
(state {A¹}) in favour of ``b`` (state {A¹, B¹, C⁰, bE⁰}) and report max 𝒢_C = 0, but
𝒢_C(aaa) = 1 (``SUBSUMPTION_COUNTEREXAMPLE`` in ``tests/search/test_decide.py``).

A regular constraint ``within`` (an automata-lib DFA or NFA on the words w, a
pyformlang finite automaton, or a regular expression) restricts the positions to
L(G, A) ∩ L(within) (:mod:`sdg_automata.search.constraint`); the search walks the
product on the fly.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, cast, get_args

from ..automaton.construction import GrundyAutomaton
from ..automaton.reading import Reading, reading_of
from ..errors import InputError
from ..grammar import Grammar
from ..grammar.words import Word, word_json
from ..runtime.budget import UNLIMITED, Budget, as_budget
from ..runtime.lazy import lazy_names
from . import engines, strategies
from .constraint import constraint, one_letter
from .request import EngineRun, Evidence, Search

if TYPE_CHECKING:
    from automata.fa.dfa import DFA
    from automata.fa.nfa import NFA
    from pyformlang.finite_automaton import EpsilonNFA

    from ..runtime.engines import Engine
    from .spectrum import SpectrumRow, spectrum

__all__ = ["EXPLORERS", "ROUTES", "SOLVED", "Route", "SpectrumRow", "Strategy", "Verdict",
           "max_grundy", "question", "spectrum"]

#: every nonterminal at once: a module of its own, loaded on first use (PEP 562), so that
#: a decision does not define the row's class (a dataclass costs start-up)
__getattr__, __dir__ = lazy_names(__name__, {"spectrum": "spectrum", "SpectrumRow": "spectrum"},
                                  base=__package__)

#: how Max-Grundy is decided (``max_grundy(method=...)``; the command line's ``--method``)
Route = Literal["onthefly", "explicit"]
#: the built-in on-the-fly strategies (``max_grundy(strategy=...)``; the registry
#: :data:`STRATEGIES` may hold more)
Strategy = Literal["bfs", "dfs", "lasso", "sat", "pdr"]
#: the routes of :func:`max_grundy` (``method=``), in the order the command line lists them
ROUTES: tuple[str, ...] = get_args(Route)
#: the built-in strategies that run solvers rather than our engines, and what they run
SOLVED = strategies.solved()
#: the engines of the explicit route's exploration (:data:`sdg_automata.runtime.engines.ENGINES`)
EXPLORERS = ("auto", "python", "compiled")

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
    method, strategy:
        How it was decided: the route, and the on-the-fly strategy (``None``: the
        explicit route).
    engine:
        What explored (:class:`~sdg_automata.search.request.EngineRun`: the engine's
        name, the store of its states, its workers); for the explicit route, the engine
        of its exploration; ``None`` for strategies that run solvers.
    proof:
        Why ``maximum`` is exact: ``"exhaustive"`` (every reachable state seen),
        ``"bound"`` (m_A reached), ``"k-induction"`` (strategy sat), ``"pdr"``
        (strategy pdr: an inductive invariant, checked); ``None``
        when it is not.
    evidence:
        What the strategy adds (:class:`~sdg_automata.search.request.Evidence`: its
        JSON fields, its note, what it leaves unsettled), or ``None`` (the explicit
        route).  The sat and pdr strategies' is a
        :class:`~sdg_automata.search.strategies.solver_evidence.SolverEvidence`: ``max_length``
        (every word up to this length was searched), ``induction_depth`` (the k of a
        k-induction proof) and ``solver`` (the solver's work).

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
    engine: EngineRun | None = None
    proof: str | None = None
    evidence: Evidence | None = None

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
            "method": self.method, "seconds": round(self.seconds, 6),
            "peak_bytes": self.peak_bytes, "proof": self.proof,
            # the strategy's own fields, nested (schema max/3): a plugin strategy's
            # evidence changes no other verdict
            "evidence": None if self.strategy is None else {
                "strategy": self.strategy,
                **(self.evidence.to_json() if self.evidence is not None else {})},
            "engine": None if self.engine is None else self.engine.to_json(),
        }



# ---------------------------------------------------------------------------
# the decision


def max_grundy(
    grammar: Grammar,
    head: str,
    k: int | None = None,
    *,
    method: Route = "onthefly",
    strategy: Strategy | str | None = None,
    within: DFA | NFA | EpsilonNFA | str | None = None,
    engine: str = "auto",
    options: Mapping[str, Any] | None = None,
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
        A key of the registry :data:`STRATEGIES`: ``"bfs"`` (shortest witnesses),
        ``"dfs"`` (less memory), ``"lasso"`` (one-letter walks, constant
        memory, shortest witnesses), ``"sat"`` (bounded model checking with
        CaDiCaL: no states stored, shortest witnesses) or ``"pdr"`` (sat's
        witnesses and ABC's PDR taking turns, its proofs' invariants checked); ``None``
        (default): ``"lasso"`` for a one-letter walk, else ``"bfs"``.  On the fly only.
    within:
        Restrict positions to the words of this automata-lib DFA or NFA (determinized),
        pyformlang DFA, NFA or ε-NFA (converted by
        :func:`~sdg_automata.grammar.interop.nfa_from_pyformlang`), or regular expression.
    engine:
        ``"auto"`` (default) or a key of the engine registry
        :data:`sdg_automata.search.engines.ENGINES`: ``"python"`` (each strategy's
        pure-Python reference), ``"compiled"`` (the numba kernels over a table store),
        ``"compact"`` (bfs on the kernels over an exact compact store: a few bytes per
        state, frontier and tree in temporary files) or ``"dask"`` (bfs sharded over
        the workers of a Dask cluster: ``options={"scheduler": "tcp://HOST:PORT"}``).
        The same verdict on every engine (``Verdict.engine`` says which ran); ``auto``
        runs the Python reference up to ``THRESHOLDS["walk states"]`` states, the
        kernels beyond.  Strategies sat and pdr run solvers, not our engines.
    options:
        The chosen strategy's and engine's options by keyword (the fields of their
        ``options`` classes: the sat strategy's ``max_length``, the longest word
        searched; the SAT solver of sat and pdr, ``sat_solver``, e.g. ``"glucose4"``;
        the dask engine's ``scheduler``, ``connect_timeout`` and ``usage``); an option
        of another strategy or engine than the ones run is refused, and so is an
        unknown one.
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
    keywords = dict(options or {})
    engines.check(engine)
    chosen = None
    if method == "onthefly":
        chosen = None if strategy is None else strategies.get(strategy)
        strategies.check(chosen, keywords, budget, engine=engine)
    elif method in ROUTES:  # a route takes no option: each strategy and engine says why
        strategies.check(None, keywords, budget, route=f"the {method} route")
        if engine not in EXPLORERS:
            raise InputError(f"the {method} route explores the automaton in this process "
                             f"(engine {' or '.join(EXPLORERS)}), not on the {engine} engine")
    else:
        raise InputError(f"unknown method {method!r} (expected {' or '.join(ROUTES)})")
    started = time.perf_counter()
    if method != "onthefly":
        from .explicit import explicit  # the route through automata-lib: its own module

        automaton = GrundyAutomaton(reading.right_linear, reading=reading)
        found, states, explored = explicit(automaton, head, within, budget, started,
                                           engine=cast("Engine", engine))
        return _verdict(head, k, automaton.bounds[head], found, states, True, started,
                        method=method, engine=EngineRun(name=explored))
    asked = _question(reading, head, k, within, budget)
    automaton, bound, table = asked.automaton, asked.bound, asked.constraint
    if chosen is None:
        chosen = strategies.default(one_letter(
            automaton.alphabet, table, letters=automaton.grammar.letters_of(head)) is not None,
            engine)
    engine = strategies.prepare(chosen, keywords, engine, automaton)
    engine_options = None if engine == engines.AUTO else engines.get(engine).make_options(
        keywords)
    result = chosen.run(Search(
        automaton=automaton, head=head, k=k, bound=bound, budget=budget, constraint=table,
        strategy=chosen.name, engine=engine, options=chosen.make_options(keywords),
        engine_options=engine_options))
    return _verdict(head, k, bound, result.found, result.explored, result.complete, started,
                    method="onthefly", strategy=chosen.name, peak_bytes=result.peak_bytes,
                    engine=result.engine, proof=result.proof,
                    evidence=Evidence() if result.evidence is None else result.evidence)


def question(grammar: Grammar, head: str, k: int | None = None, *,
             within: DFA | NFA | EpsilonNFA | str | None = None,
             budget: Budget = UNLIMITED) -> Search:
    """The question :func:`max_grundy` asks a strategy on the fly, for a search or a circuit
    made elsewhere (:mod:`sdg_automata.search.dump`): the automaton restricted to A's cone,
    m_A, the constraint's tables.  Raises as :func:`max_grundy` does."""
    return _question(_reading(grammar, head, k), head, k, within, budget)


def _question(reading: Reading, head: str, k: int | None,
              within: DFA | NFA | EpsilonNFA | str | None, budget: Budget) -> Search:
    automaton = GrundyAutomaton(reading.right_linear, reading=reading)
    table = None if within is None else constraint(within, automaton.alphabet,
                                                   reverse=not reading.mirrored)
    return Search(automaton=automaton, head=head, k=k, bound=automaton.bounds[head],
                  budget=budget, constraint=table)


def _reading(grammar: Grammar, head: str, k: int | None) -> Reading:
    """The question checked, and the reading of G restricted to the cone of influence of A
    (the direction is the whole grammar's; the cone keeps it)."""
    grammar.check_nonterminal(head)
    if k is not None and k < 0:
        raise InputError(f"k must be a natural number, not {k}")
    return reading_of(grammar, refusal=_REFUSAL).restricted_to(head)


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
