"""The engine registry (sdg_automata.runtime.engines) and the engines of dfa, count, explore.

One auto policy, one threshold table, one table of compiled parts reached by name;
every public entry point that explores takes ``engine=`` and gives the same
automaton, DFA and count on every engine: the Python reference, the compiled
kernels, and a brute-force count of the words by the game's definition.
"""

from __future__ import annotations

import importlib
import warnings
from collections import Counter
from itertools import product

import pytest

import sdg_automata
from sdg_automata.automaton.construction import automaton_for, dfa
from sdg_automata.automaton.counting import count
from sdg_automata.derivation.semantics import grundy
from sdg_automata.errors import BudgetExceeded, EngineNotice, InputError
from sdg_automata.generators.families import ModularSpec, modular_family, subtraction_grammar
from sdg_automata.grammar import Grammar
from sdg_automata.grammar.parse import load_grammar
from sdg_automata.runtime import engines
from sdg_automata.runtime.budget import Budget
from sdg_automata.runtime.engines import (
    COMPILED,
    ENGINES,
    THRESHOLDS,
    Unfit,
    check_engine,
    run_engine,
    use_compiled,
)

numba = pytest.importorskip("numba")

#: small grammars: from examples/ (one group: the compiled engine falls back) and from
#: the families (several groups: the kernels run)
GRAMMARS = {
    "example3": lambda: load_grammar("examples/example3.txt"),
    "csub": lambda: load_grammar("examples/csub.txt"),
    "subtraction": lambda: subtraction_grammar([1, 3]),
    "modular": lambda: modular_family([ModularSpec.parse(s) for s in ("2:1", "3:2")]),
    "modular3": lambda: modular_family([ModularSpec.parse(s) for s in ("2:0", "3:1", "5:4")]),
}


def _grammar(name: str) -> Grammar:
    return GRAMMARS[name]()


def _quiet(f, *args, **kw):  # type: ignore[no-untyped-def]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EngineNotice)
        return f(*args, **kw)


# -- the registry ---------------------------------------------------------------------


def test_the_registry_is_the_one_place() -> None:
    assert ENGINES == ("auto", "compiled", "python")


def test_every_threshold_is_in_the_table() -> None:
    from sdg_automata.games import octal
    from sdg_automata.games.octal import period, verify

    assert octal.COMPILED_FROM == THRESHOLDS["octal values"] == verify.COMPILED_FROM
    assert period.PERIOD_COMPILED_FROM == THRESHOLDS["octal period values"]
    assert all(isinstance(v, int) and v > 0 for v in THRESHOLDS.values())


def test_every_compiled_part_resolves() -> None:
    for name, where in COMPILED.items():
        module, _, attribute = where.partition(":")
        assert callable(getattr(importlib.import_module(module), attribute)), name
        assert callable(engines.compiled(name))


def test_check_engine() -> None:
    assert check_engine("auto") == "auto"
    with pytest.raises(InputError, match="unknown engine 'fast'"):
        check_engine("fast")


def test_use_compiled_is_the_auto_policy(monkeypatch: pytest.MonkeyPatch) -> None:
    assert not use_compiled("python", work=10**9, threshold=1)
    assert not use_compiled("auto", work=9, threshold=10)
    assert use_compiled("auto", work=10, threshold=10)
    assert use_compiled("compiled", work=0, threshold=10)
    from sdg_automata import kernels

    monkeypatch.setattr(kernels, "numba_missing", lambda: "numba cannot be imported (test)")
    assert not use_compiled("auto", work=10, threshold=10)  # auto: silently the reference
    with pytest.raises(InputError, match="needs numba: numba cannot be imported"):
        use_compiled("compiled", work=0, threshold=10)


def _walk(limit: int):  # type: ignore[no-untyped-def]
    """A stand-in walk of ``limit`` states under a budget."""
    def walk(budget: Budget) -> int:
        if budget.max_states is not None and limit > budget.max_states:
            raise BudgetExceeded("too many", explored=budget.max_states)
        return limit
    return walk


def test_run_engine_restarts_compiled_past_the_threshold() -> None:
    ran: list[str] = []

    def compiled(budget: Budget) -> int:
        ran.append("compiled")
        return -1

    assert run_engine("auto", Budget(), _walk(5), compiled, what="t", threshold=8) == (5, "python")
    assert run_engine("auto", Budget(), _walk(9), compiled, what="t", threshold=8) == (
        -1, "compiled")
    assert run_engine("python", Budget(), _walk(9), compiled, what="t") == (9, "python")
    assert ran == ["compiled"]


def test_run_engine_falls_back_when_the_kernels_cannot_take_the_input() -> None:
    def unfit(budget: Budget) -> int:
        raise Unfit("too wide")

    with pytest.warns(EngineNotice, match="the t runs in Python: too wide"):
        assert run_engine("compiled", Budget(), _walk(3), unfit, what="t") == (3, "python")


# -- every engine, the same results ---------------------------------------------------


@pytest.mark.parametrize("name", sorted(GRAMMARS))
def test_explore_is_the_same_on_every_engine(name: str) -> None:
    g = _grammar(name)
    python = automaton_for(g).explore(engine="python")
    for engine in ("compiled", "auto"):
        other = _quiet(automaton_for(g).explore, engine=engine)
        assert list(other.states) == list(python.states), engine
        assert other.rows == python.rows and other.parent == python.parent
        for head in g.nonterminals:
            assert other.values(head) == python.values(head)


def test_the_families_do_run_compiled() -> None:
    from sdg_automata.search.compiled.tables import PartStates

    found = automaton_for(_grammar("modular3")).explore(engine="compiled")
    assert isinstance(found.states, PartStates)


@pytest.mark.parametrize("name", sorted(GRAMMARS))
@pytest.mark.parametrize("forward", [False, True])
def test_dfa_is_the_same_on_every_engine(name: str, forward: bool) -> None:
    g = _grammar(name)
    head = sorted(g.nonterminals)[0]
    for i in range(3):
        python = dfa(g, head, i, forward=forward, engine="python")
        for engine in ("compiled", "auto"):
            other = _quiet(dfa, g, head, i, forward=forward, engine=engine)
            assert (other.states, other.transitions, other.final_states) == (
                python.states, python.transitions, python.final_states), (engine, i)


def _brute(g: Grammar, head: str, length: int) -> Counter[int | None]:
    letters = sorted(g.terminals)
    return Counter(grundy(g, head, "".join(t), method="brute")
                   for t in product(letters, repeat=length))


@pytest.mark.parametrize("name", sorted(GRAMMARS))
def test_count_is_the_same_on_every_engine_and_by_brute_force(name: str) -> None:
    g = _grammar(name)
    head = sorted(g.nonterminals)[0]
    for length in range(5):
        brute = _brute(g, head, length)
        for value in sorted(brute, key=lambda v: -1 if v is None else v):
            for engine in ENGINES:
                assert _quiet(count, g, head, value, length, engine=engine) == brute[value], (
                    engine, length, value)


def test_the_package_root_takes_engine() -> None:
    g = _grammar("modular")
    assert sdg_automata.count(g, "A", 0, 6, engine="compiled") == count(g, "A", 0, 6)
    assert sdg_automata.dfa(g, "A", 0, engine="compiled").transitions == dfa(
        g, "A", 0).transitions
    with pytest.raises(InputError, match="unknown engine"):
        sdg_automata.count(g, "A", 0, 3, engine="fast")  # type: ignore[arg-type]
