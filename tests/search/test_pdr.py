"""The pdr strategy (issue 27 §1, issue 35): ABC's PDR on our lean AIGER, its invariant checked
by CaDiCaL on the unreduced relation.

Independent sources: the AIGER files are read back and simulated by a reader written here
against :meth:`GrundyAutomaton.step_reference`; invariants, true and tampered, are judged
by brute force over every assignment of the state's bits; answers against breadth-first
exhaustion, the definition of 𝒢, and families whose answers are known without any
automaton (rings: residues; planted words).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from required import require_abc
from schemas import validate
from strategies import Definition, left_linear_grammars, right_linear_grammars

pytest.importorskip("pysat")

from aiger import read_aiger, simulate  # noqa: E402
from clirun import one_error, run  # noqa: E402

from sdg_automata.automaton.construction import GrundyAutomaton, automaton_for  # noqa: E402
from sdg_automata.derivation.semantics import grundy  # noqa: E402
from sdg_automata.errors import (  # noqa: E402
    BudgetExceeded,
    ResourceError,
    SdgBug,
)
from sdg_automata.generators.families import (  # noqa: E402
    intersection_grammar,
    planted_intersection,
    ring_intersection,
)
from sdg_automata.grammar import Grammar  # noqa: E402
from sdg_automata.grammar.parse import parse_grammar  # noqa: E402
from sdg_automata.runtime.budget import UNLIMITED  # noqa: E402
from sdg_automata.search.circuit import StepEncoding  # noqa: E402
from sdg_automata.search.decide import max_grundy  # noqa: E402
from sdg_automata.search.dump import circuit_file  # noqa: E402
from sdg_automata.search.lean import lean_relation  # noqa: E402
from sdg_automata.search.pdr import (  # noqa: E402
    abc_command,
    parse_invariant,
    prove_unreachable,
)
from sdg_automata.search.proofs import Invariant, OneStep  # noqa: E402
from sdg_automata.search.reduce import initial_bits  # noqa: E402

EXAMPLE3 = Path(__file__).resolve().parents[2] / "examples" / "example3.txt"
LINEAR = st.one_of(right_linear_grammars(), left_linear_grammars())
REGEXES = ["a*", "(a|b)*b", "b(a|b|c)*", "(ab)*", "a(a|c)*", "((a|b)(a|b))*"]
SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                      HealthCheck.data_too_large])


@pytest.fixture(autouse=True)
def _abc() -> None:
    require_abc()




def meter():  # type: ignore[no-untyped-def]
    return UNLIMITED.start("test", unit="checks")


# ---------------------------------------------------------------------------
# the AIGER files, read back by an independent reader (tests/aiger.py)


def bits_of(q: int, d: int | None, width: int, size: int) -> list[int]:
    """The relation's latches in state (q, d): the item bits, then the constraint's one-hot
    state (all zero after a dead move)."""
    return [q >> p & 1 for p in range(width)] + [int(d == e) for e in range(size)]


@settings(max_examples=150, **SETTINGS)
@given(LINEAR, st.sampled_from([None, *REGEXES]), st.data())
def test_aiger_simulates_the_automaton(tmp_path_factory: pytest.TempPathFactory, g: Grammar,
                                       within: str | None, data: st.DataObject) -> None:
    """Read back and run on a random word, the dumped AIG's latches are the states of
    GrundyAutomaton.run (complemented where q₀ has a 1) and its output v says "the state
    shows v where the constraint accepts"; the lean AIG ABC gets has the representatives'
    latches of the same states, and its one output says "a value of the set"."""
    from sdg_automata.search.decide import question as asked

    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    question = asked(g, head, within=within)
    automaton, table = question.automaton, question.constraint
    alphabet = automaton.alphabet
    encoding = StepEncoding(automaton, head, table)
    size = 0 if table is None else table.size
    init = initial_bits(encoding)
    bound = encoding.bound
    values = sorted(data.draw(st.sets(st.integers(0, bound), min_size=1), label="values"))
    dumped = circuit_file(g, head, "aig", within=within)
    lean = lean_relation(automaton, head, table, meter(), "cadical195")
    try:
        reduced = lean.aiger(values)
    finally:
        lean.checker.close()
    word = data.draw(st.lists(st.integers(0, len(alphabet) - 1), max_size=12), label="word")
    q, d = automaton.initial, None if table is None else table.initial
    for t, ((latches, shown), (kept, bad)) in enumerate(
            zip(simulate(dumped, word), simulate(reduced, word), strict=True)):
        state = bits_of(q, d, encoding.width, size)
        assert latches == [x ^ one for x, one in zip(state, init, strict=True)], (t, word)
        assert kept == [state[p] ^ init[p] for p in lean.reps], (t, word)
        accepts = table is None or (d is not None and table.final[d] == 1)
        value = automaton.grundy_at(q, head)
        assert shown == [int(accepts and value == v) for v in range(bound + 1)], (t, word)
        assert bad == [int(accepts and value in values)], (t, word, value, values)
        if t < len(word):
            a = alphabet[word[t]]
            q = automaton.step_reference(q, a)
            if table is not None and d is not None:
                d = table.rows[a][d] if table.rows[a][d] >= 0 else None


def test_codes_beyond_the_alphabet_read_its_first_letter() -> None:
    """Three letters take two input bits; code 3 must read letter 0, not nothing."""
    g = parse_grammar("A -> a A | b A | c A | a")
    blob = circuit_file(g, "A", "aig")
    assert read_aiger(blob)[0] == 2
    assert simulate(blob, [3, 1]) == simulate(blob, [0, 1])


# ---------------------------------------------------------------------------
# the check of an invariant, against brute force over every state


class Concrete:
    """The gates of StepEncoding evaluated on constants (1 true, −1 false), reading one
    given letter: δ on any assignment of the bits, where step_reference refuses states
    with two values in one field (their mex may exceed m_A; the encoding caps it)."""

    true, false = 1, -1

    def __init__(self, letter: int) -> None:
        self.letter = letter

    def and2(self, a: int, b: int) -> int:
        return 1 if a == b == 1 else -1

    def or_(self, lits: list[int]) -> int:
        return 1 if 1 in lits else -1

    def one_of(self, n: int) -> tuple[int, ...]:
        return tuple(1 if c == self.letter else -1 for c in range(n))

    def forbid(self, lits: list[int]) -> None:
        pass


def concrete_step(automaton: GrundyAutomaton, encoding: StepEncoding, q: int, c: int) -> int:
    from sdg_automata.search.circuit import Frame

    frame = Frame(letters=(), state=tuple(1 if q >> k & 1 else -1 for k in range(encoding.width)))
    after = encoding.step(Concrete(c), frame)
    out = sum(1 << k for k, x in enumerate(after.state) if x == 1)
    try:  # where the reference is defined, the two agree
        assert out == automaton.step_reference(q, automaton.alphabet[c])
    except SdgBug:
        pass
    return out


def brute_force(automaton: GrundyAutomaton, encoding: StepEncoding, invariant: Invariant,
                values: list[int], steps: list[list[int]]) -> str | None:
    """The first of initiation, consecution, safety that fails, over all 2^width states
    (cubes over the relation's bits: (bit, value))."""
    def inside(q: int) -> bool:
        return not any(all((q >> p & 1) == on for p, on in cube) for cube in invariant.cubes)

    if not inside(automaton.initial):
        return "initiation"
    everything = range(1 << encoding.width)
    bits = [encoding.value_bits[v] for v in values]
    for q in everything:  # relative to the property: from states that are not bad
        if (inside(q) and not any(q >> b & 1 for b in bits)
                and any(not inside(steps[q][c]) for c in range(len(automaton.alphabet)))):
            return "consecution"
    if any(inside(q) and any(q >> b & 1 for b in bits) for q in everything):
        return "safety"
    return None


def tampered(invariant: Invariant) -> list[Invariant]:
    cubes = invariant.cubes
    out = [Invariant(cubes=()), Invariant(cubes=(*cubes, ()))]  # nothing blocked; everything
    for k in range(len(cubes)):
        out.append(Invariant(cubes=cubes[:k] + cubes[k + 1:]))  # a cube dropped
        for j in range(len(cubes[k])):  # a literal flipped
            flipped = tuple((x, not v) if i == j else (x, v) for i, (x, v) in enumerate(cubes[k]))
            out.append(Invariant(cubes=cubes[:k] + (flipped,) + cubes[k + 1:]))
    return out


def check(encoding: StepEncoding, invariant: Invariant, values: list[int]) -> str | None:
    """Our check of ``invariant`` on the unreduced relation, with no correspondence."""
    one = OneStep(encoding, meter(), "cadical195")
    try:
        return one.check(invariant, values)
    finally:
        one.close()


def test_invariant_checks_agree_with_brute_force(tmp_path: Path) -> None:
    """ABC's invariant for Example 3 (values 3, 4 unreachable) passes, and each of its
    tamperings is accepted or rejected exactly as brute force over all 2^15 states says."""
    automaton = automaton_for(parse_grammar(EXAMPLE3.read_text(encoding="utf-8")))
    encoding = StepEncoding(automaton, "A")
    values = [3, 4]
    assert encoding.width <= 16 and encoding.within is None
    real = _proof(automaton, values, tmp_path)
    assert check(encoding, real, values) is None
    verdicts = []
    steps = [[concrete_step(automaton, encoding, q, c) for c in range(len(automaton.alphabet))]
             for q in range(1 << encoding.width)]
    assert brute_force(automaton, encoding, real, values, steps) is None
    for invariant in tampered(real):
        ours = check(encoding, invariant, values)
        truth = brute_force(automaton, encoding, invariant, values, steps)
        assert (ours is None) == (truth is None), (invariant, ours, truth)
        if truth is not None:
            assert ours is not None and ours.startswith(truth), (ours, truth)
        verdicts.append(truth)
    # the tamperings exercise every check, and some keep a valid invariant
    assert {"initiation", "consecution", "safety", None} <= set(verdicts), verdicts


def _proof(automaton: GrundyAutomaton, values: list[int], folder: Path) -> Invariant:
    """ABC's invariant on the lean circuit, mapped back to the relation's bits."""
    lean = lean_relation(automaton, "A", None, meter(), "cadical195")
    try:
        (folder / "m.aig").write_bytes(lean.aiger(values))
        done = subprocess.run([abc_command(), "-c", "read_aiger m.aig; pdr -f -d -I inv.pla"],
                              cwd=folder, capture_output=True, text=True, timeout=60,
                              check=False)
        assert "Property proved" in done.stdout, done.stdout
        return lean.original(parse_invariant((folder / "inv.pla").read_text(),
                                             len(lean.latches)))
    finally:
        lean.checker.close()


def test_a_tampered_invariant_is_never_a_result(monkeypatch: pytest.MonkeyPatch,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """ABC's file altered after it proved: the verdict is not exact, and the command line
    exits 3 naming the check that failed."""
    import sdg_automata.search.pdr as pdr

    real = pdr.parse_invariant

    def parse(text: str, latches: int) -> tuple[tuple[tuple[int, bool], ...], ...]:
        return real(text, latches)[1:] + ((),)  # blocks q₀ too

    monkeypatch.setattr(pdr, "parse_invariant", parse)
    g = parse_grammar(EXAMPLE3.read_text(encoding="utf-8"))
    v = max_grundy(g, "A", strategy="pdr")
    assert (v.exact, v.proof, v.maximum) == (False, None, 2)
    assert v.evidence.solver is not None and "initiation" in v.evidence.solver["unproven"]
    from sdg_automata.render import diagram

    assert "not proven: ABC's invariant fails our check of initiation" in diagram(v).text
    code, out, err = run(["max", EXAMPLE3, "A", "--strategy", "pdr"], capsys)
    assert (code, out) == (3, "")
    one_error(err, "not proven: ABC's invariant fails our check of initiation", "max ≥ 2")


# ---------------------------------------------------------------------------
# answers


@settings(max_examples=200, **SETTINGS)
@given(LINEAR, st.sampled_from([None, *REGEXES]), st.one_of(st.none(), st.integers(0, 3)),
       st.data())
def test_pdr_agrees_with_bfs(g: Grammar, within: str | None, k: int | None,
                             data: st.DataObject) -> None:
    """200 random small grammars: PDR's maximum is exact and BFS's, its witnesses have their
    values (by the definition) and BFS's shortest lengths."""
    head = data.draw(st.sampled_from(g.nonterminals), label="head")
    exact = max_grundy(g, head, k, within=within, strategy="bfs")
    v = max_grundy(g, head, k, within=within, strategy="pdr")
    oracle = Definition(g.rules)
    for value, w in v.witnesses.items():
        assert grundy(g, head, w) == value == oracle(head, w), (value, w)
        assert within is None or re.fullmatch(within, w)
        if value in exact.witnesses:  # both shortest (bfs may settle before seeing all)
            assert len(w) == len(exact.witnesses[value]), (value, w, exact.witnesses)
    assert v.answer == exact.answer
    if k is None:
        assert (v.maximum, v.exact) == (exact.maximum, True)
        assert v.proof in ("pdr", "bound", "k-induction")  # the last: SAT's unrolling closed


@pytest.mark.parametrize("count", [2, 3, 6, 10, 16, 24])
def test_rings_are_proven_where_k_induction_never_closes(count: int) -> None:
    """K ring DFAs with an empty intersection: max 𝒢_A = K − 1 (witness bb), proven."""
    g = intersection_grammar(ring_intersection(count))
    v = max_grundy(g, "A", strategy="pdr", max_seconds=120)
    assert (v.maximum, v.exact, v.proof, v.witness) == (count - 1, True, "pdr", "bb")
    assert v.evidence.solver is not None and v.evidence.solver["invariant_clauses"] > 0
    assert max_grundy(g, "A", count, strategy="pdr").answer is False


def test_k_induction_does_not_prove_the_rings() -> None:
    """The contrast: the SAT strategy's k-induction finds bb but proves nothing."""
    v = max_grundy(intersection_grammar(ring_intersection(6)), "A", strategy="sat",
                   options={"max_length": 24})
    assert (v.maximum, v.exact, v.proof, v.evidence.max_length) == (5, False, None, 24)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_planted_family(seed: int) -> None:
    """The planted word puts max 𝒢_A = count; the witness is accepted by every DFA."""
    dfas, _ = planted_intersection(6, 5, length=12, seed=seed, alphabet="ab")
    v = max_grundy(intersection_grammar(dfas), "A", strategy="pdr")
    assert (v.maximum, v.exact) == (6, True)
    w = v.witness
    assert isinstance(w, str) and all(d.accepts_input(w) for d in dfas)


def test_ring_family_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ring.json"
    code, out, err = run(["family", "ring", "8", "-o", path], capsys)
    assert (code, out) == (0, "")
    assert err.startswith("ground truth (residues): max 𝒢(A) = 7, shortest witness bb")
    code, out, err = run(["max", path, "A", "--strategy", "pdr", "--json"], capsys)
    assert code == 0, err
    verdict = json.loads(out)
    assert validate(verdict) == "max"
    assert (verdict["max"], verdict["exact"], verdict["proof"], verdict["witness"]) == (
        7, True, "pdr", "bb")
    evidence = verdict["evidence"]
    assert evidence["strategy"] == "pdr" and evidence["solver"]["pdr_rounds"] >= 1
    code, out, err = run(["max", path, "A", "--strategy", "pdr"], capsys)
    assert code == 0 and re.fullmatch(r"max 7, witness 'bb' \(PDR: words up to length 8, "
                                      r"invariant of \d+ clauses, checked; 0, 7 by bmc; 8 by "
                                      r"pdr\)\n", out), out
    code, _, err = run(["family", "ring", "1"], capsys)
    assert code == 2
    one_error(err, "at least 2 DFAs")
    # refused before any prime is sought (the fuzzer's 10^20 DFAs hung the command): the size
    # is the estimate 18·count², about 10^41 symbols, never a count of primes found
    code, _, err = run(["family", "ring", str(10**20)], capsys)
    assert code == 3
    one_error(err, "about 10^41 symbols", "too large to build")
    code, _, err = run(["family", "ring", "150"], capsys)  # primes to 863: 1,066,860 symbols
    assert code == 3
    one_error(err, "1,066,860 symbols")


# ---------------------------------------------------------------------------
# refusals, budgets and Ctrl-C around the subprocess


def test_refusals(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    for argv, fragment in ((["--max-states", "9"], "stores no states: bound it by seconds"),
                           (["--max-length", "3"], "bounds the sat strategy only"),
                           (["--engine", "compiled"], "runs ABC and CaDiCaL")):
        code, out, err = run(["max", EXAMPLE3, "A", "--strategy", "pdr", *argv], capsys)
        assert (code, out) == (2, "")
        one_error(err, fragment)
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.delenv("SDG_ABC", raising=False)
    code, out, err = run(["max", EXAMPLE3, "A", "--strategy", "pdr"], capsys)
    assert (code, out) == (2, "")
    one_error(err, "runs ABC, which is not installed", "apt-get install berkeley-abc")
    monkeypatch.setenv("SDG_ABC", "no-such-abc")
    code, _, err = run(["max", EXAMPLE3, "A", "--strategy", "pdr"], capsys)
    assert code == 2
    one_error(err, "SDG_ABC names 'no-such-abc'")


@pytest.fixture
def stuck_abc(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An "ABC" that writes its pid and hangs: where the budget and Ctrl-C must reach."""
    fake = tmp_path / "abc"
    fake.write_text(f"#!/bin/sh\necho $$ > {tmp_path / 'pid'}\nexec sleep 300\n")
    fake.chmod(0o755)
    monkeypatch.setenv("SDG_ABC", str(fake))
    return tmp_path / "pid"


def _gone(pid_file: Path) -> bool:
    pid = int(pid_file.read_text())
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.1)
    return False


def test_seconds_hold_while_abc_runs(stuck_abc: Path) -> None:
    with pytest.raises(BudgetExceeded, match="PDR stopped at the budget of 1 s"):
        max_grundy(parse_grammar(EXAMPLE3.read_text(encoding="utf-8")), "A", strategy="pdr",
                   max_seconds=1)  # the budget's message is the proof (no clock: issue 34 §7)
    assert _gone(stuck_abc)  # killed, not left running


def test_ctrl_c_while_abc_runs(stuck_abc: Path) -> None:
    """Exit 130 and one line; ABC, in a session of its own, is killed with the run."""
    proc = subprocess.Popen([sys.executable, "-m", "sdg_automata", "max", str(EXAMPLE3), "A",
                             "--strategy", "pdr"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    for _ in range(1200):  # a loaded machine may take many seconds to get there
        if stuck_abc.exists() and stuck_abc.read_text().strip():
            break
        time.sleep(0.05)
    else:
        proc.kill()
        pytest.fail(f"ABC was never started: {proc.communicate()}")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130 and out == "", (out, err)
    one_error(err, "interrupted after 1 rounds of ABC (PDR)")
    assert _gone(stuck_abc)


def test_abc_saying_something_else_is_not_an_answer(tmp_path: Path) -> None:
    """An answer that is neither proved nor asserted is never read as either: ABC failed."""
    fake = tmp_path / "abc"
    fake.write_text("#!/bin/sh\necho 'Wrong input file format.'\n")
    fake.chmod(0o755)
    automaton = automaton_for(parse_grammar(EXAMPLE3.read_text(encoding="utf-8")))
    lean = lean_relation(automaton, "A", None, meter(), "cadical195")
    try:
        with pytest.raises(ResourceError, match="answered neither.*Wrong input file format"):
            prove_unreachable(lean, "A", [3], meter(), str(fake))
    finally:
        lean.checker.close()


def fake_abc(folder: Path, body: str) -> str:
    fake = folder / "abc"
    fake.write_text("#!/bin/sh\n" + body + "\n")
    fake.chmod(0o755)
    return str(fake)


def test_abc_failing_is_exit_3_not_a_bug(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """A crash or a failing status of ABC is a resource that failed (exit 3), naming ABC."""
    for body, fragment in (("echo 'out of memory'; exit 1", "exited with status 1: 'out of"),
                           ("kill -SEGV $$", "was killed by signal 11"),
                           ("true", "answered neither proved nor asserted: 'no output'")):
        monkeypatch.setenv("SDG_ABC", fake_abc(tmp_path, body))
        code, out, err = run(["max", EXAMPLE3, "A", "--strategy", "pdr"], capsys)
        assert (code, out) == (3, ""), err
        one_error(err, "ABC (", fragment)


def test_a_proof_without_its_invariant_is_not_a_proof(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SDG_ABC", fake_abc(tmp_path, "echo 'Property proved.'"))
    v = max_grundy(parse_grammar(EXAMPLE3.read_text(encoding="utf-8")), "A", strategy="pdr")
    assert (v.exact, v.proof) == (False, None)
    assert v.evidence.solver is not None and "wrote no invariant" in v.evidence.solver["unproven"]


def test_an_unreadable_invariant_is_not_a_proof(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Another ABC's format (latches named otherwise) proves nothing, and is no bug of ours."""
    body = ("printf '.i 1\\n.o 1\\n.ilb x0\\n.ob inv\\n1 1\\n.e\\n' > invariant.pla; "
            "echo 'Property proved.'")
    monkeypatch.setenv("SDG_ABC", fake_abc(tmp_path, body))
    v = max_grundy(parse_grammar(EXAMPLE3.read_text(encoding="utf-8")), "A", strategy="pdr")
    assert (v.exact, v.proof) == (False, None)
    assert v.evidence.solver is not None
    assert v.evidence.solver["unproven"].startswith(
        "ABC's invariant could not be read: ABC's invariant names 'x0'"), v.evidence.solver


def test_abc_giving_up_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    """ABC's own frame limit is an unproven verdict quoting ABC's reason."""
    import sdg_automata.search.pdr as pdr

    monkeypatch.setattr(pdr, "PDR_OPTIONS", "-f -F 1")
    v = max_grundy(intersection_grammar(ring_intersection(6)), "A", strategy="pdr")
    assert (v.exact, v.proof) == (False, None)
    assert v.evidence.solver is not None
    assert v.evidence.solver["unproven"].startswith("ABC gave up: Reached limit"), v.evidence.solver


def test_relative_abc_paths_and_huge_budgets(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """SDG_ABC relative to the working folder (ABC runs in another), and --max-seconds far
    beyond ABC's int -T, both prove Example 3."""
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "abc").symlink_to(abc_command())
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SDG_ABC", "bin/abc")
    g = parse_grammar(EXAMPLE3.read_text(encoding="utf-8"))
    for seconds in (None, 1e300):
        v = max_grundy(g, "A", strategy="pdr", max_seconds=seconds)
        assert (v.maximum, v.exact, v.proof) == (2, True, "pdr")
