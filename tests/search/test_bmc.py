"""``max --strategy sat``: bounded model checking with CaDiCaL and k-induction (issue 20).

Ground truths, none of them the code under test:

* the breadth-first exploration of the reachable automaton
  (:meth:`~sdg_automata.automaton.construction.ReachableAutomaton.shortest_witnesses`):
  every value of A with a shortest witness, and by exhaustion the exact maximum;
* :func:`sdg_automata.derivation.semantics.grundy` and the from-scratch oracle of
  ``strategies.py`` (SPEC §2's definition on the raw rules) on every witness;
* the Chinese remainder theorem for the unary modular family (the reachable part
  is 1 + lcm of the moduli, ``test_families.py``);
* automata-lib: ``accepts_input`` on the planted family's DFAs, and its products
  (:func:`~sdg_automata.generators.families.product_truth`) for shortest witness lengths;
* :meth:`~sdg_automata.automaton.construction.GrundyAutomaton.step_reference` for the
  encoding of one step, on states drawn at random.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from math import lcm
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemas import validate
from strategies import Definition, left_linear_grammars, right_linear_grammars

pytest.importorskip("pysat")

from clirun import one_error, run  # noqa: E402

from sdg_automata.automaton.construction import GrundyAutomaton, automaton_for  # noqa: E402
from sdg_automata.derivation.semantics import grundy  # noqa: E402
from sdg_automata.errors import InputError  # noqa: E402
from sdg_automata.generators.families import (  # noqa: E402
    ModularSpec,
    counting_intersection,
    intersection_grammar,
    modular_family,
    modular_truth,
    planted_intersection,
    product_truth,
)
from sdg_automata.grammar import Grammar  # noqa: E402
from sdg_automata.grammar.parse import grammar_to_json, parse_grammar  # noqa: E402
from sdg_automata.search.circuit import Frame, Gates, StepEncoding  # noqa: E402
from sdg_automata.search.decide import max_grundy  # noqa: E402

EXAMPLE3 = Path(__file__).resolve().parents[2] / "examples" / "example3.txt"
LINEAR = st.one_of(right_linear_grammars(), left_linear_grammars())
MANY = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
SOME = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
REGEXES = ["a*", "(a|b)*b", "b(a|b|c)*", "(ab)*", "a(a|c)*", "((a|b)(a|b))*"]


def truth(g: Grammar, head: str) -> dict[int, str]:
    """Every value of A with a shortest witness, by breadth-first exhaustion."""
    return automaton_for(g.restricted_to(head)).explore().shortest_witnesses(head)


# ---------------------------------------------------------------------------
# the encoding of one step


@st.composite
def states_of(draw: st.DrawFn, automaton: GrundyAutomaton) -> int:
    """A state with at most one value per item field (the invariant of reachable states,
    under which Step 3's mex never exceeds m_A)."""
    q, k, items = 0, 0, automaton.items
    while k < len(items):
        end = k + 1
        while end < len(items) and (items[end].prefix, items[end].nonterminal) == (
                items[k].prefix, items[k].nonterminal):
            end += 1
        pick = draw(st.integers(k - 1, end - 1))
        if pick >= k:
            q |= 1 << pick
        k = end
    return q


@SOME
@given(LINEAR, st.data())
def test_one_step_of_the_encoding_is_step_reference(g: Grammar, data: st.DataObject) -> None:
    """The frame's literals, under the letter's assumption, are δ(q, a) bit for bit."""
    from pysat.formula import IDPool
    from pysat.solvers import Solver

    automaton = automaton_for(g)
    q = data.draw(states_of(automaton), label="q")
    head = g.nonterminals[0]
    encoding = StepEncoding(automaton, head)
    with Solver(name="cadical195") as solver:
        gates = Gates(IDPool(), solver.add_clause)
        before = Frame(letters=(), state=tuple(gates.true if q >> k & 1 else gates.false
                                              for k in range(encoding.width)))
        after = encoding.step(gates, before)
        for c, a in enumerate(automaton.alphabet):
            assert solver.solve(assumptions=[after.letters[c]]) if len(after.letters) > 1 \
                else solver.solve()
            model = set(solver.get_model())
            shown = sum(1 << k for k, x in enumerate(after.state)
                        if x == gates.true or (x != gates.false and x in model))
            assert shown == automaton.step_reference(q, a), (g, automaton.label(q), a)


def test_gates_fold_constants() -> None:
    from pysat.formula import IDPool

    clauses: list[list[int]] = []
    g = Gates(IDPool(), clauses.append)
    t, f, x = g.true, g.false, g.new()
    assert (g.and2(x, t), g.and2(x, f), g.and2(x, -x), g.and2(x, x)) == (x, f, f, x)
    assert (g.or_([]), g.or_([f, x]), g.or_([x, -x]), g.or_([t, x])) == (f, x, t, t)
    assert (g.xor(x, t), g.xor(x, f), g.xor(x, x), g.xor(x, -x)) == (-x, x, f, t)
    assert clauses == [[t]]  # nothing but the constant itself was needed


# ---------------------------------------------------------------------------
# the search against breadth-first exhaustion and the definition


@MANY
@given(LINEAR, st.integers(1, 8), st.data())
def test_sat_agrees_with_bfs(g: Grammar, length: int, data: st.DataObject) -> None:
    """Witnesses have their values, lengths are BFS's, bounded "no" and proofs agree."""
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    shortest = truth(g, head)
    v = max_grundy(g, head, strategy="sat", options={"max_length": length})
    oracle = Definition(g.rules)
    for value, w in v.witnesses.items():
        assert grundy(g, head, w) == value == oracle(head, w), (value, w)
        assert len(w) == len(shortest[value]), (value, w, shortest)
    covered = v.evidence.max_length
    assert covered is not None and covered <= length
    # every value with a witness within the covered lengths was found (unless settled)
    missed = {u for u, w in shortest.items() if len(w) <= covered and u not in v.witnesses}
    assert not missed or v.maximum == v.bound, (missed, v)
    if v.exact:
        assert v.maximum == max(shortest, default=None)
        assert v.proof in ("bound", "k-induction")
        assert (v.proof == "k-induction") == (v.evidence.induction_depth is not None)
    else:  # bounded "no": no value above the largest found has a witness this short
        assert covered == length and v.proof is None and v.answer is None
        above = -1 if v.maximum is None else v.maximum
        assert all(len(w) > length for u, w in shortest.items() if u > above), shortest


@SOME
@given(LINEAR, st.integers(1, 8), st.sampled_from([None, *REGEXES]),
       st.one_of(st.none(), st.integers(0, 3)), st.data())
def test_sat_answers_with_k_and_within(g: Grammar, length: int, within: str | None,
                                       k: int | None, data: st.DataObject) -> None:
    """Asked about k and restricted to a regular language, SAT never contradicts BFS."""
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    exact = max_grundy(g, head, k, within=within)
    v = max_grundy(g, head, k, strategy="sat", options={"max_length": length}, within=within)
    for value, w in v.witnesses.items():
        assert grundy(g, head, w) == value
        assert within is None or re.fullmatch(within, w)
        if value in exact.witnesses:  # both shortest
            assert len(w) == len(exact.witnesses[value])
    if v.answer is not None:
        assert v.answer == exact.answer
    if v.exact:
        assert v.maximum == max_grundy(g, head, within=within).maximum


@SOME
@given(LINEAR, st.sampled_from([None, *REGEXES]), st.one_of(st.none(), st.integers(0, 3)),
       st.booleans(), st.integers(1, 4), st.data())
def test_the_unrolling_never_runs_ahead_of_the_lengths_searched(
        g: Grammar, within: str | None, k: int | None, portfolio: bool, lengths: int,
        data: st.DataObject) -> None:
    """Memory: the bounded search unrolls no frame beyond the length it searches next (and
    k-induction's depth, one more), turn after turn, as sat and the portfolio drive it.  A
    search that looked ahead for the settling values while their literals folded to false
    unrolled without end (tests/search ran to 9.4 GB); every extension is checked as it is
    asked for, so such a search fails here at once instead of filling the memory."""
    from sdg_automata.runtime.budget import UNLIMITED
    from sdg_automata.search.bmc import BoundedSearch
    from sdg_automata.search.decide import question as asked
    from sdg_automata.search.lean import lean_relation
    from sdg_automata.search.unrolling import Unrolling

    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    question = asked(g, head, k, within=within)
    meter = UNLIMITED.start("test", unit="letters")
    lean = lean_relation(question.automaton, head, question.constraint, meter, "cadical195")
    bmc = BoundedSearch(lean, head, settled=question.settled, meter=meter, solver="cadical195",
                        induction=not portfolio, above=portfolio)
    extend = Unrolling.extend

    def watched(unrolling: Unrolling, length: int) -> None:
        assert length <= bmc.length + 1, (length, bmc.length)
        extend(unrolling, length)

    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(Unrolling, "extend", watched)
            for _ in range(4):
                bmc.advance(lengths=lengths, conflicts=10_000 if portfolio else None)
                if bmc.finished:
                    break
    finally:
        bmc.close()
        lean.checker.close()
    assert max(len(bmc.base.frames) - 1, 0) <= bmc.length + 1


def test_example3_proof_and_shortest_witnesses() -> None:
    g = parse_grammar(EXAMPLE3.read_text(encoding="utf-8"))
    v = max_grundy(g, "A", strategy="sat")
    assert (v.maximum, v.exact, v.proof) == (2, True, "k-induction")  # SPEC §2: max 𝒢_A = 2
    assert v.witnesses == {0: "b", 1: "a", 2: "aa"}  # SPEC §2's table, shortest words
    assert max_grundy(g, "A", 2, strategy="sat").answer is True
    assert max_grundy(g, "B", 2, strategy="sat").answer is False  # 𝒢_B never reaches 2
    bounded = max_grundy(g, "A", 2, strategy="sat", options={"max_length": 1})
    assert (bounded.answer, bounded.exact, bounded.evidence.max_length) == (None, False, 1)
    from sdg_automata.render import diagram

    shown = diagram(bounded).text.splitlines()
    assert shown[0] == "is max 𝒢_A = 2? not settled; max 𝒢_A ≥ 1, witness 'a'"
    assert shown[1].startswith("words up to length 1 (onthefly, sat, stopped early)")


def test_left_linear_witnesses_in_the_users_order() -> None:
    g = parse_grammar("S -> S a | S b b | c")  # left-linear: words start with c
    v = max_grundy(g, "S", strategy="sat", options={"max_length": 6})
    for value, w in v.witnesses.items():
        assert w.startswith("c") and grundy(g, "S", w) == value
    assert v.witnesses == max_grundy(g, "S").witnesses


# ---------------------------------------------------------------------------
# proofs on the modular family (CRT), and the planted family (automata-lib)


@pytest.mark.parametrize("spec", ["4:0 4:2", "3:0 5:2 3:1", "5:0 7:3 5:1",
                                  "9:2 8:0 16:1 3:2", "5:0 7:3 13:2 5:1"])
def test_k_induction_closes_on_empty_modular_intersections(spec: str) -> None:
    """Unary, ≤ 1,000 states, the last congruence contradicts: proven, and the CRT's max."""
    specs = [ModularSpec.parse(s) for s in spec.split()]
    states = 1 + lcm(*(s.modulus * 2 // (2 if s.modulus % 2 == 0 else 1) for s in specs))
    assert states <= 1000
    best, length = modular_truth(specs)
    assert best is not None and best < len(specs)  # the full intersection is empty
    v = max_grundy(modular_family(specs), "A", strategy="sat")
    assert (v.maximum, v.exact, v.proof) == (best, True, "k-induction")
    assert v.evidence.induction_depth is not None and v.evidence.induction_depth <= states + 1
    assert len(v.witnesses[best]) == length
    asked = max_grundy(modular_family(specs), "A", len(specs), strategy="sat")
    assert (asked.answer, asked.exact) == (False, True)


@pytest.mark.parametrize("seed", range(4))
def test_planted_family_witness_is_accepted_by_every_dfa(seed: int) -> None:
    dfas, word = planted_intersection(4, 6, length=12, seed=seed, alphabet="abc")
    assert len(word) == 12 and all(d.accepts_input(word) for d in dfas)
    best, length = product_truth(dfas)
    assert best == 4
    v = max_grundy(intersection_grammar(dfas), "A", strategy="sat")
    assert (v.maximum, v.exact, v.proof) == (4, True, "bound")
    assert v.witness is not None and len(v.witness) == length
    assert all(d.accepts_input(v.witness) for d in dfas)


def test_planted_family_inputs() -> None:
    for bad in ({"length": 7}, {"length": 0}, {"alphabet": "aa"}, {"alphabet": ""}):
        with pytest.raises(InputError):
            planted_intersection(2, 3, **{"length": 4, "seed": 0, **bad})  # type: ignore[arg-type]
    a = planted_intersection(3, 5, length=10, seed=9)
    b = planted_intersection(3, 5, length=10, seed=9)
    assert a[1] == b[1] and all(x == y for x, y in zip(a[0], b[0], strict=True))


# ---------------------------------------------------------------------------
# the library's and the command line's contract


def test_library_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    g = parse_grammar(EXAMPLE3.read_text(encoding="utf-8"))
    with pytest.raises(InputError, match="stores no states"):
        max_grundy(g, "A", strategy="sat", max_states=10)
    with pytest.raises(InputError, match="bounds the sat strategy only"):
        max_grundy(g, "A", options={"max_length": 3})
    with pytest.raises(InputError, match="positive integer"):
        max_grundy(g, "A", strategy="sat", options={"max_length": 0})
    monkeypatch.setitem(sys.modules, "pysat.solvers", None)  # python-sat not installed
    with pytest.raises(InputError, match=re.escape('pip install "sdg_automata[sat]"')):
        max_grundy(g, "A", strategy="sat")


def test_cli_outputs_and_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    e3 = str(EXAMPLE3)
    code, out, err = run(["max", e3, "A", "--strategy", "sat"], capsys)
    assert (code, err) == (0, "")
    assert out == ("max 2, witness 'aa' (SAT: words up to length 2, k-induction at k = 3; "
                   "0–2 by bmc; 3–4 by k-induction)\n")
    code, out, _ = run(["max", e3, "A", "2", "--strategy", "sat"], capsys)
    assert (code, out) == (0, "yes\n")
    code, out, _ = run(["max", e3, "A", "1", "--strategy", "sat"], capsys)
    assert (code, out) == (1, "no\n")  # a witness of 2: exact
    code, out, _ = run(["max", e3, "B", "2", "--strategy", "sat"], capsys)
    assert (code, out) == (1, "no\n")  # proven by k-induction
    # nothing found up to L is not a "no"
    code, out, err = run(["max", e3, "A", "2", "--strategy", "sat", "--max-length", "1"], capsys)
    assert (code, out) == (3, "")
    one_error(err, "no witness of length ≤ 1; not proven beyond")
    code, out, err = run(["max", e3, "A", "--strategy", "sat", "--max-length", "1", "--json"],
                         capsys)
    assert code == 3
    one_error(err, "no witness of length ≤ 1; not proven beyond")
    stopped = json.loads(out)  # exit 3: a stopped/1 object, never a verdict read as an answer
    validate(stopped)
    assert (stopped["schema"], stopped["reason"], stopped["command"]) == (
        "stopped/1", "unproven", "max")
    at = stopped["at"]
    assert (at["exact"], at["evidence"]["max_length"], at["max"], at["witness"]) == (
        False, 1, 1, "a")
    # above m_A (4 for A) no value can be: "no" at any length, as every strategy says
    code, out, _ = run(["max", e3, "A", "5", "--strategy", "sat", "--max-length", "1"], capsys)
    assert (code, out) == (1, "no\n")
    code, out, _ = run(["max", e3, "B", "2", "--strategy", "sat", "--json"], capsys)
    verdict = json.loads(out)
    assert code == 1 and verdict["exact"] and verdict["proof"] == "k-induction"
    assert verdict["evidence"]["induction_depth"] >= 1
    assert verdict["evidence"]["solver"]["name"] == "cadical195"
    for argv, fragment in ((["--max-length", "2"], "bounds the sat strategy only"),
                           (["--strategy", "sat", "--max-states", "9"], "stores no states"),
                           (["--strategy", "sat", "--max-length", "0"], "at least 1")):
        code, _, err = run(["max", e3, "A", *argv], capsys)
        assert code == 2
        one_error(err, fragment)


def test_cli_without_python_sat(monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "pysat.solvers", None)
    code, out, err = run(["max", EXAMPLE3, "A", "--strategy", "sat"], capsys)
    assert (code, out) == (2, "")
    one_error(err, 'pip install "sdg_automata[sat]"')


@pytest.fixture(scope="module")
def hard(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """24 counting DFAs whose intersection is empty: the SAT search never ends (no witness
    at any length, and k-induction does not close), so a signal or a budget always finds
    it inside the solver (24 planted DFAs took seconds once the circuit was lean, and a
    loaded CI machine saw the run end before the signal)."""
    dfas = counting_intersection(24)
    path = tmp_path_factory.mktemp("sat") / "counting24.json"
    path.write_text(grammar_to_json(intersection_grammar(dfas)), encoding="utf-8")
    return path


def test_seconds_hold_inside_the_solver(hard: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["max", hard, "A", "--strategy", "sat", "--max-seconds", "1"], capsys)
    assert (code, out) == (3, "")  # the budget's exit code and message prove the stop (a
    one_error(err, "SAT search stopped at the budget of 1 s", "letters unrolled")  # clock
    # of the test's would fail on a loaded machine, issue 34 §7)


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="no signal masks here")
def test_ctrl_c_is_held_while_cadical_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should call the solver only with SIGINT blocked, and raise a Ctrl-C that came during a
    call once it returns: pysat's own handler jumps out of CaDiCaL mid-search (1 Ctrl-C in 40
    ended in "munmap_chunk(): invalid pointer", exit -6, in a fresh-clone CI run)."""
    from pysat.solvers import Solver

    from sdg_automata.errors import Interrupted

    masks: list[bool] = []
    for name in ("solve", "solve_limited"):
        def call(self: Solver, *args: object, _original: object = getattr(Solver, name),
                 **kwargs: object) -> object:
            masks.append(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))
            if len(masks) == 3:  # Ctrl-C during the third call: pending until it returns
                signal.raise_signal(signal.SIGINT)
            return _original(self, *args, **kwargs)  # type: ignore[operator]
        monkeypatch.setattr(Solver, name, call)
    dfas, _ = planted_intersection(4, 6, length=10, seed=3)
    with pytest.raises(Interrupted, match="letters unrolled"):
        max_grundy(intersection_grammar(dfas), "A", strategy="sat")
    assert masks == [True] * 3
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])


def test_ctrl_c_inside_the_solver(hard: Path) -> None:
    """Should turn Ctrl-C into exit 130 and one line saying how far the search got."""
    proc = subprocess.Popen([sys.executable, "-m", "sdg_automata", "max", str(hard), "A",
                             "--strategy", "sat"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and out == "", (out, err)
    line = one_error(err, "interrupted")
    assert "letters unrolled (SAT search)" in line or line == "error: interrupted", line


def test_family_intersection_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "planted.json"
    code, out, err = run(["family", "intersection", "--dfas", "3", "--states", "5", "--letters",
                          "ab", "--length", "8", "--seed", "2", "-o", path], capsys)
    assert (code, out) == (0, "")
    assert err.startswith("ground truth (planted word): max 𝒢(A) = 3; every DFA accepts '")
    word = re.search(r"accepts '([ab]+)' \(length 8\)", err)
    assert word is not None
    dfas, planted = planted_intersection(3, 5, length=8, seed=2, alphabet="ab")
    assert planted == word.group(1)
    code, out, _ = run(["max", path, "A", "3", "--strategy", "sat"], capsys)
    assert (code, out) == (0, "yes\n")
    code, _, err = run(["family", "intersection", "--length", "7"], capsys)
    assert code == 2
    one_error(err, "even")
