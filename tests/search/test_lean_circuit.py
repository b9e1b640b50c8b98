"""The lean relation (issue 35 §1): the latch correspondence is true of every reachable state,
a wrong one is caught before anything rests on it, and the circuit is lean.

Independent sources: the reachable states of the automaton, explored breadth first
(:meth:`GrundyAutomaton.step`, no circuit), against which every claimed constant and
equivalence is checked state by state; the counting family's residues for what must
be constant; answers of the bfs strategy.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from clirun import run
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import left_linear_grammars, right_linear_grammars

pytest.importorskip("pysat")

from sdg_automata.automaton.construction import automaton_for  # noqa: E402
from sdg_automata.generators.families import (  # noqa: E402
    counting_intersection,
    intersection_grammar,
    ring_intersection,
)
from sdg_automata.grammar import Grammar  # noqa: E402
from sdg_automata.grammar.parse import grammar_to_json, parse_grammar  # noqa: E402
from sdg_automata.runtime.budget import UNLIMITED  # noqa: E402
from sdg_automata.search import lean  # noqa: E402
from sdg_automata.search.circuit import StepEncoding  # noqa: E402
from sdg_automata.search.decide import max_grundy  # noqa: E402
from sdg_automata.search.decide import question as asked  # noqa: E402
from sdg_automata.search.reduce import (  # noqa: E402
    Correspondence,
    correspondence,
    initial_bits,
    reachable_samples,
)
from sdg_automata.search.strategies.solver_evidence import SolverEvidence  # noqa: E402

EXAMPLE3 = Path(__file__).resolve().parents[2] / "examples" / "example3.txt"
LINEAR = st.one_of(right_linear_grammars(), left_linear_grammars())
REGEXES = ["a*", "(a|b)*b", "b(a|b|c)*", "(ab)*", "((a|b)(a|b))*"]
SOME = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def meter():  # type: ignore[no-untyped-def]
    return UNLIMITED.start("test", unit="checks")


def reachable(encoding: StepEncoding) -> list[list[int]]:
    """Every reachable state of the relation as its latches (item bits, then the
    constraint's one-hot state), by breadth-first search through the automaton."""
    automaton, table = encoding.automaton, encoding.within
    size = 0 if table is None else table.size
    start = (automaton.initial, -1 if table is None else table.initial)
    seen, todo = {start}, [start]
    while todo:
        q, d = todo.pop()
        for a in automaton.alphabet:
            e = -1 if table is None or d < 0 else table.rows[a][d]
            nxt = (automaton.step(q, a), e)
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return [[q >> p & 1 for p in range(encoding.width)] + [int(d == e) for e in range(size)]
            for q, d in seen]


def holds_everywhere(claim: Correspondence, states: list[list[int]]) -> bool:
    return all(s[p] == (int(flip) if r < 0 else s[r] ^ flip)
               for s in states for p, (r, flip) in enumerate(zip(claim.rep, claim.flip,
                                                                  strict=True)))


@SOME
@given(LINEAR, st.sampled_from([None, *REGEXES]), st.data())
def test_every_claim_holds_on_every_reachable_state(g: Grammar, within: str | None,
                                                    data: st.DataObject) -> None:
    """On random small grammars, each constant and equivalence the reducer claims is true of
    every state the automaton reaches, and the claim passes our check."""
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    question = asked(g, head, within=within)
    encoding = StepEncoding(question.automaton, head, question.constraint)
    claim = correspondence(encoding, meter(), "cadical195")
    assert holds_everywhere(claim, reachable(encoding))
    built = lean.lean_relation(question.automaton, head, question.constraint, meter(),
                               "cadical195")
    built.checker.close()
    assert built.correspondence == claim


def test_the_counting_family_is_lean() -> None:
    """Six counting rings: every latch the reachable states never set is found constant (a
    ring's value bits of the wrong parity among them), the claims hold on every reachable
    state, and the lean circuit keeps under half of the latches."""
    g = intersection_grammar(counting_intersection(4))
    encoding = StepEncoding(automaton_for(g.restricted_to("A")), "A")
    claim = correspondence(encoding, meter(), "cadical195")
    states = reachable(encoding)
    assert holds_everywhere(claim, states)
    init = initial_bits(encoding)
    never = {p for p in range(len(init)) if all(s[p] == init[p] for s in states)}
    found = {p for p, r in enumerate(claim.rep) if r < 0}
    assert found <= never
    assert len(found) >= 0.9 * len(never), (len(found), len(never))
    assert len(claim.representatives) < len(init) / 2, (len(claim.representatives), len(init))


def test_samples_are_reachable() -> None:
    g = intersection_grammar(ring_intersection(4))
    encoding = StepEncoding(automaton_for(g.restricted_to("A")), "A")
    states = {sum(bit << p for p, bit in enumerate(s)) for s in reachable(encoding)}
    samples = reachable_samples(encoding)
    assert samples[0] == encoding.automaton.initial and set(samples) <= states


# ---------------------------------------------------------------------------
# a wrong reducer is caught


def _wrong(kind: str):  # type: ignore[no-untyped-def]
    """A reducer that adds one false claim to the true correspondence: two latches that some
    reachable state tells apart merged (``"merge"``), or one such latch made constant."""
    def reducer(encoding: StepEncoding, meter, solver):  # type: ignore[no-untyped-def]
        true = correspondence(encoding, meter, solver)
        states = reachable(encoding)
        init = initial_bits(encoding)
        rep, flip = list(true.rep), list(true.flip)
        reps = true.representatives
        if kind == "constant":
            p = next(p for p in reps if any(s[p] != init[p] for s in states))
            rep[p], flip[p] = -1, init[p]
        else:
            p, r = next((p, r) for p in reps for r in reps if r < p
                        and any(s[p] ^ s[r] != init[p] ^ init[r] for s in states))
            rep[p], flip[p] = r, init[p] != init[r]
        for q in range(len(rep)):  # latches merged with p follow it
            if rep[q] == p and q != p:
                rep[q], flip[q] = rep[p], flip[q] != flip[p]
        return Correspondence(rep=tuple(rep), flip=tuple(flip))

    return reducer


GRAMMARS = {
    "example 3": lambda: parse_grammar(EXAMPLE3.read_text(encoding="utf-8")),
    "ring 5": lambda: intersection_grammar(ring_intersection(5)),
    "counting 4": lambda: intersection_grammar(counting_intersection(4)),
}


@pytest.mark.parametrize("kind", ["merge", "constant"])
@pytest.mark.parametrize("name", list(GRAMMARS))
@pytest.mark.parametrize("strategy", ["pdr", "sat"])
def test_a_false_claim_is_never_an_answer(monkeypatch: pytest.MonkeyPatch, kind: str,
                                          name: str, strategy: str) -> None:
    """A reducer that claims a false equivalence or constant: our check on the unreduced
    relation refuses it, and the verdict is not exact (never a wrong exact answer)."""
    monkeypatch.setattr(lean, "REDUCER", _wrong(kind))
    g = GRAMMARS[name]()
    v = max_grundy(g, "A", strategy=strategy, options={"max_length": 6}
                   if strategy == "sat" else None)
    assert (v.exact, v.proof) == (False, None)
    solver = v.evidence.solver if isinstance(v.evidence, SolverEvidence) else None
    assert solver is not None
    assert solver["unproven"].startswith("the circuit reduction fails our check of"), solver
    truth = max_grundy(g, "A")
    assert v.maximum is None or v.maximum <= truth.maximum


def test_a_false_claim_is_exit_3(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(lean, "REDUCER", _wrong("merge"))
    path = tmp_path / "ring.json"
    path.write_text(grammar_to_json(intersection_grammar(ring_intersection(5))),
                    encoding="utf-8")
    for strategy in ("pdr", "sat"):
        code, out, err = run(["max", path, "A", "--strategy", strategy], capsys)
        assert (code, out) == (3, ""), err
        lines = err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(
            "error: not proven: the circuit reduction fails our check of consecution"), err
