"""The lasso on states packed in one word (sdg_automata.kernels.packed_lasso, issue 36 item 1).

Truths, none of them the code under test: the table step on vectors
(:func:`sdg_automata.kernels.step.step`, itself held to ``step_reference`` by
tests/search/test_engines.py) for the packed step, on random automata and the
hardness family, state by state and letter by letter, misses included; the vector
walk (:func:`sdg_automata.kernels.automaton.walk`/``meet``) and the Python engine for
the lasso's verdicts (maximum, witnesses, states); the Chinese remainder theorem
(``modular_truth``) for the hardness family.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import left_linear_grammars, right_linear_grammars

from sdg_automata.automaton.construction import automaton_for
from sdg_automata.generators.families import (
    ModularSpec,
    intersection_grammar,
    modular_family,
    modular_truth,
    random_family,
)
from sdg_automata.grammar import Grammar
from sdg_automata.search.compiled.tables import StepTables
from sdg_automata.search.decide import max_grundy

pytest.importorskip("numba")

from sdg_automata.kernels import packed_lasso as words  # noqa: E402
from sdg_automata.kernels import protocol  # noqa: E402
from sdg_automata.kernels import step as kernel  # noqa: E402
from sdg_automata.search.compiled import drive  # noqa: E402


def _word_step(tables: StepTables, k: int, vector: list[int]) -> tuple[int, list[int]]:
    """(miss, the ids of the successor) by the packed step: one step of :func:`words.walk`
    on letter k, the fields fitted to the ids interned so far as the driver fits them."""
    import numpy as np

    from sdg_automata.kernels import automaton

    layout = drive._WordFields(tables, None).fit()
    assert layout is not None
    cur = np.zeros((4, tables.groups), dtype=np.int32)
    cur[automaton.HARE] = vector
    cur[automaton.TORTOISE] = -1
    cursor = np.zeros(8, dtype=np.int64)
    none = np.zeros(1, dtype=np.int32)
    status = words.walk(tables.heap, tables.plan, int(tables.starts[k]), k,
                        np.zeros((1, 1), np.int32), np.ones(1, np.uint8), 0, none, 0, -1,
                        np.zeros(1, np.int64), 0, cur, *layout, 1, cursor, 10)
    if status == protocol.MISS:
        assert cur[automaton.HARE].tolist() == vector and cursor[protocol.POS] == 0
        return 1, []
    assert status == protocol.DONE and cursor[protocol.POS] == 1
    return 0, cur[automaton.HARE].tolist()


def _steps_agree(g: Grammar, limit: int = 300) -> None:
    """A breadth-first walk of up to ``limit`` states: at every state and letter the packed
    step misses when the table step misses, and else gives the same ids; the lesson of a
    miss is then learned and both step again."""
    import numpy as np

    m = automaton_for(g)
    if m.layout is None:
        return  # one group: no compiled step
    tables = StepTables(m)
    seen = {tuple(tables.initial.tolist())}
    queue = [tables.initial.tolist()]
    rows = np.zeros((2, tables.groups), dtype=np.int32)
    for source in queue:
        if len(seen) > limit:
            break
        rows[0] = source
        for k in range(len(m.alphabet)):
            while True:
                missed = kernel.step(tables.heap, tables.plan, tables.starts[k], rows, 0, rows, 1)
                packed, target = _word_step(tables, k, source)
                assert packed == missed, (source, k)
                if not missed:
                    break
                tables.learn(source, k)
            assert target == rows[1].tolist()
            if tuple(target) not in seen:
                seen.add(tuple(target))
                queue.append(target)


@pytest.mark.parametrize("seed", range(4))
def test_the_packed_step_is_the_table_step_on_random_automata(seed: int) -> None:
    _steps_agree(intersection_grammar(random_family(3, 8, seed=seed)))


def test_the_packed_step_is_the_table_step_on_the_hardness_family() -> None:
    _steps_agree(modular_family([ModularSpec.parse(s) for s in "2:0 3:1 5:2 7:3 3:0".split()]))


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(right_linear_grammars() | left_linear_grammars())
def test_the_packed_step_is_the_table_step_on_random_grammars(g: Grammar) -> None:
    _steps_agree(g, limit=60)


def _lasso(g: Grammar, head: str, words_on: bool, **kw: Any) -> tuple[object, ...]:
    original = drive._WordFields.fit
    try:
        if not words_on:
            drive._WordFields.fit = lambda self: None  # type: ignore[method-assign]
        v = max_grundy(g, head, strategy="lasso", engine="compiled", **kw)
    finally:
        drive._WordFields.fit = original  # type: ignore[method-assign]
    return (v.maximum, v.exact, v.states, v.witnesses)


UNARY = ["3:0 5:2 7:3 3:1", "3:2 5:3 7:6 11:10 3:0", "2:0 3:2 5:3 7:6 11:10 3:0",
         "3:0 5:1 7:3", "4:2 3:1 9:4"]


@pytest.mark.parametrize("spec", UNARY)
def test_the_lasso_on_words_gives_the_vector_walks_verdicts(spec: str) -> None:
    specs = [ModularSpec.parse(s) for s in spec.split()]
    g = modular_family(specs)
    packed = _lasso(g, g.start, True)
    assert packed == _lasso(g, g.start, False)
    python = max_grundy(g, g.start, strategy="lasso", engine="python")
    assert packed == (python.maximum, python.exact, python.states, python.witnesses)
    truth, length = modular_truth(specs)
    assert packed[0] == truth
    if length is not None:
        assert len(packed[3][truth]) == length  # type: ignore[index]


def test_the_lasso_on_words_finds_tail_and_cycle() -> None:
    """A lasso with a tail (μ > 0: the constraint's first four states come once):
    Brent's second phase (:func:`words.move`, ``meeting``) moves two words; μ + λ as the vector walk
    and the Python engine find them."""
    g = modular_family([ModularSpec.parse(s) for s in "3:0 5:2 7:3 3:1".split()])
    packed = _lasso(g, g.start, True, within="aaaaa(aa)*")
    assert packed == _lasso(g, g.start, False, within="aaaaa(aa)*")
    python = max_grundy(g, g.start, strategy="lasso", engine="python", within="aaaaa(aa)*")
    assert packed == (python.maximum, python.exact, python.states, python.witnesses)
    # μ = 4: after aaaa the constraint's language is a(aa)*, again after six letters and
    # every two more; λ = lcm(2·3, 5, 7, 3) = 210 (the cycle of the hardness family)
    assert packed[2] == 4 + 210


@pytest.mark.parametrize("within", ["(aa)*", "a(aaa)*", "aaaa"])
def test_the_lasso_on_words_with_a_constraint(within: str) -> None:
    """The constraint's state is one more field of the word."""
    g = modular_family([ModularSpec.parse(s) for s in "3:0 5:2 7:3 3:1".split()])
    packed = _lasso(g, g.start, True, within=within)
    assert packed == _lasso(g, g.start, False, within=within)
    python = max_grundy(g, g.start, strategy="lasso", engine="python", within=within)
    assert packed == (python.maximum, python.exact, python.states, python.witnesses)


def test_fields_outgrowing_the_word_hand_the_walk_to_the_vectors(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Fields refitted after every lesson; once they need more bits than a word has (here
    a word of 12 bits), the same walk goes on over vectors: the same verdict."""
    g = modular_family([ModularSpec.parse(s) for s in "3:2 5:3 7:6 11:10 3:0".split()])
    whole = _lasso(g, g.start, True)
    kinds: list[str] = []
    original = drive._WordFields.fit

    def fit(self: Any) -> Any:
        layout = original(self)
        kinds.append("vector" if layout is None else "word")
        return layout

    monkeypatch.setattr(drive, "MAX_KEY_BITS", 12)
    monkeypatch.setattr(drive._WordFields, "fit", fit)
    assert _lasso(g, g.start, True) == whole
    assert "word" in kinds and kinds[-1] == "vector"
