"""The portfolio of ``--strategy pdr`` (issue 35 §2): the bounded search witnesses first, ABC
is asked only about the values above, the verdict says which engine settled each value,
and deep witnesses come where the explicit search runs out.

Ground truths: the residues of the ring and counting families (answers and shortest
witnesses known without any automaton), automata-lib's ``accepts_input`` on the DFAs,
and the definition of 𝒢 on the witnesses.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clirun import run
from required import require_abc
from schemas import validate

pytest.importorskip("pysat")

from sdg_automata.derivation.semantics import grundy  # noqa: E402
from sdg_automata.errors import BudgetExceeded  # noqa: E402
from sdg_automata.generators.families import (  # noqa: E402
    counting_intersection,
    counting_truth,
    intersection_grammar,
    ring_intersection,
)
from sdg_automata.grammar.parse import grammar_to_json  # noqa: E402
from sdg_automata.search import portfolio  # noqa: E402
from sdg_automata.search.decide import max_grundy  # noqa: E402


@pytest.fixture(autouse=True)
def _abc() -> None:
    require_abc()


def test_no_pdr_round_on_a_value_already_witnessed(monkeypatch: pytest.MonkeyPatch) -> None:
    """Ten rings: bb shows 9 and a^6 (length 6) shows 0, both by the bounded search's first
    turn; ABC is asked once, about 10 alone (not "anything above 0", which bb answers)."""
    asked = []
    real = portfolio.prove_unreachable

    def spy(lean, head, values, *args, **kwargs):  # type: ignore[no-untyped-def]
        asked.append(list(values))
        return real(lean, head, values, *args, **kwargs)

    monkeypatch.setattr(portfolio, "prove_unreachable", spy)
    g = intersection_grammar(ring_intersection(10))
    v = max_grundy(g, "A", strategy="pdr")
    assert (v.maximum, v.exact, v.proof, v.witness) == (9, True, "pdr", "bb")
    assert asked == [[10]]
    assert v.evidence is not None
    assert v.evidence.to_json()["settled"] == {"0": "bmc", "9": "bmc", "10": "pdr"}


def test_which_engine_settled_each_value(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """The verdict names the engine per value, in JSON and in the text."""
    path = tmp_path / "counting.json"
    path.write_text(grammar_to_json(intersection_grammar(counting_intersection(6))),
                    encoding="utf-8")
    code, out, err = run(["max", path, "A", "--strategy", "pdr", "--json"], capsys)
    assert code == 0, err
    verdict = json.loads(out)
    assert validate(verdict) == "max"
    assert (verdict["max"], verdict["exact"], verdict["proof"], verdict["witness"]) == (
        5, True, "pdr", "bb")
    settled = verdict["evidence"]["settled"]
    assert settled["5"] == "bmc" and settled["6"] == "pdr"
    assert set(settled.values()) <= {"bmc", "pdr"}
    solver = verdict["evidence"]["solver"]
    assert solver["lean_latches"] < solver["latches"] and solver["constant_latches"] > 0
    code, out, err = run(["max", path, "A", "--strategy", "pdr"], capsys)
    assert code == 0 and out.startswith("max 5, witness 'bb' (PDR: ") and out.endswith(
        "checked; 0, 5 by bmc; 6 by pdr)\n"), out
    code, out, err = run(["max", path, "A", "--strategy", "sat", "--max-length", "4",
                          "--json"], capsys)
    assert code == 3, err
    assert json.loads(out)["at"]["evidence"]["settled"] == {"0": "bmc", "5": "bmc"}


@pytest.mark.parametrize("count, length", [(3, 12), (5, 26), (12, 26)])
def test_the_shortest_common_word(count: int, length: int) -> None:
    """Counting rings with a common word a^n: the Chinese remainder theorem makes it the
    shortest; found by the bounded search, exact (m_A reached)."""
    dfas = counting_intersection(count, length=length)
    v = max_grundy(intersection_grammar(dfas), "A", strategy="pdr")
    best, shortest = counting_truth(count, length=length)
    assert (v.maximum, v.exact, v.witness) == (best, True, "a" * shortest)
    assert v.evidence is not None and v.evidence.to_json()["settled"][str(best)] == "bmc"


def test_a_deep_witness_where_explicit_search_runs_out(tmp_path: Path) -> None:
    """Four rings and three random DFAs accepting a^40: the witness is 40 letters deep; the
    breadth-first search stops at its state budget long before."""
    dfas = counting_intersection(4, length=40, noise=3, states=8, seed=3)
    g = intersection_grammar(dfas)
    with pytest.raises(BudgetExceeded):
        max_grundy(g, "A", max_states=20_000)
    v = max_grundy(g, "A", strategy="pdr")
    best, shortest = counting_truth(4, length=40, noise=3)
    assert (v.maximum, v.exact, v.witness) == (best, True, "a" * shortest)
    assert all(d.accepts_input(v.witness) for d in dfas)
    assert grundy(g, "A", v.witness) == best
