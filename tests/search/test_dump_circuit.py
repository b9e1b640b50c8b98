"""``max … --dump-circuit FILE.aig|FILE.cnf`` (issue 35 §3): the instance for another tool.

Independent sources: the AIGER reader of ``tests/aiger.py`` simulated against
:meth:`GrundyAutomaton.step_reference`; ABC itself run on the dumped file (``bmc3 -a``:
the shortest depth of each output, ``pdr -a``: the outputs it proves), compared with
the breadth-first search; for DIMACS, python-sat's own DIMACS reader and a solver, against
every word of the length enumerated and its Grundy value by the definition.
"""

from __future__ import annotations

import itertools
import re
import subprocess
from pathlib import Path

import pytest
from aiger import read_aiger, simulate
from clirun import one_error, run
from required import require_abc

pytest.importorskip("pysat")

from sdg_automata.automaton.construction import automaton_for  # noqa: E402
from sdg_automata.derivation.semantics import grundy  # noqa: E402
from sdg_automata.grammar.parse import parse_grammar  # noqa: E402
from sdg_automata.search.decide import max_grundy  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
EXAMPLE3 = EXAMPLES / "example3.txt"
GRAMMARS = {
    "example3": EXAMPLE3.read_text(encoding="utf-8"),
    "csub": "A -> a A | a a A | b A | a | a a | b",
    "left": "A -> A a | B b | a\nB -> A b | b",
    "three letters": "A -> a A | b B | c\nB -> c A | a | b b",
}




@pytest.mark.parametrize("name", list(GRAMMARS))
def test_abc_on_the_dumped_aiger_agrees(tmp_path: Path, name: str,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    """ABC's bmc3 finds output v at the depth of bfs's shortest witness of v, for every
    value bfs reaches; pdr proves every other output unreachable."""
    abc = require_abc()
    grammar = tmp_path / "g.txt"
    grammar.write_text(GRAMMARS[name], encoding="utf-8")
    path = tmp_path / "g.aig"
    code, out, err = run(["max", grammar, "A", "--dump-circuit", path], capsys)
    assert code == 0 and err == f"wrote {path}\n", err
    g = parse_grammar(GRAMMARS[name])
    bound = max_grundy(g, "A").bound
    # every value with a shortest witness, by breadth-first exhaustion
    witnesses = automaton_for(g.restricted_to("A")).explore().shortest_witnesses("A")
    _, _, _, outputs, _ = read_aiger(path.read_bytes())
    assert len(outputs) == bound + 1
    said = subprocess.run([abc, "-c", f"read_aiger {path}; bmc3 -a -F 12"],
                          capture_output=True, text=True, timeout=60, check=True).stdout
    depths = {int(v): int(d) for v, d in re.findall(r"Output (\d+) was asserted in frame +"
                                                    r"(\d+)", said)}
    assert depths == {v: len(w) for v, w in witnesses.items()}, said
    said = subprocess.run([abc, "-c", f"read_aiger {path}; pdr -a"], capture_output=True,
                          text=True, timeout=60, check=True).stdout
    proved = re.search(r"Proved = (\d+)\. Disproved = (\d+)\. Undecided = 0", said)
    assert proved is not None, said
    assert (int(proved[1]), int(proved[2])) == (bound + 1 - len(witnesses), len(witnesses))


def test_the_dumped_aiger_names_what_it_holds(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "e3.aig"
    code, _, _ = run(["max", EXAMPLE3, "A", "--dump-circuit", path], capsys)
    assert code == 0
    data = path.read_bytes()
    i, n, _, outputs, ands = read_aiger(data)
    text = data.decode("utf-8", errors="replace")
    assert "i0 letter code bit 0\n" in text and "\no0 value 0 of A\n" in text
    # q₀ = {E⁰} (SPEC §4): its one item is stored complemented, the 14 others as they are
    assert re.findall(r"^l\d+ not (.*)$", text, re.M) == ["E⁰"]
    assert len(re.findall(r"^l\d+ ", text, re.M)) == n == 15
    assert "code c reads 0='a', 1='b'" in text
    # a = 0, b = 1: 'aa' shows 2 (Example 3), read from the end
    assert simulate(data, [0, 0])[-1][1] == [0, 0, 1, 0, 0]


@pytest.mark.parametrize("name", list(GRAMMARS))
@pytest.mark.parametrize("k", [None, 0, 1])
def test_the_dumped_cnf_is_every_word_of_its_length(tmp_path: Path, name: str,
                                                    k: int | None,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Satisfiable iff a word of exactly L letters has a value above k (without k: the value
    m_A); a model's letters, read as the comments say, spell such a word."""
    from pysat.formula import CNF
    from pysat.solvers import Solver

    grammar = tmp_path / "g.txt"
    grammar.write_text(GRAMMARS[name], encoding="utf-8")
    g = parse_grammar(GRAMMARS[name])
    bound = max_grundy(g, "A").bound
    for length in (1, 2, 3, 4):
        path = tmp_path / f"g{length}.cnf"
        argv = ["max", grammar, "A", *([] if k is None else [str(k)]), "--dump-circuit",
                path, "--dump-length", str(length)]
        code, _, err = run(argv, capsys)
        assert code in (0, 1) and err.startswith(f"wrote {path}\n"), err
        text = path.read_text(encoding="utf-8")
        asked = set(range(k + 1, bound + 1)) if k is not None else {bound}
        words = ["".join(w) for w in itertools.product(g.terminals, repeat=length)]
        truth = any(grundy(g, "A", w) in asked for w in words)
        with Solver(name="cadical195", bootstrap_with=CNF(from_string=text).clauses) as s:
            assert s.solve() == truth, (length, k)
            if truth:
                model = set(s.get_model())
                letters = []
                for t in range(1, length + 1):
                    line = re.search(rf"^c letter {t}: (.*)$", text, re.M)
                    assert line is not None
                    pairs = [item.split("=") for item in line[1].split()]
                    letters += [a for a, x in pairs if int(x) in model]
                reverse = "read from the end of the word" in text
                word = "".join(reversed(letters) if reverse else letters)
                assert grundy(g, "A", word) in asked, (word, asked)


def test_refusals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    grammar = tmp_path / "g.txt"
    grammar.write_text(GRAMMARS["csub"], encoding="utf-8")
    before = grammar.read_bytes()
    link = tmp_path / "link.aig"
    link.symlink_to(grammar)
    for argv, fragment in (
            (["--dump-circuit", link], "refusing to write the output over the input"),
            (["--dump-circuit", tmp_path / "x.txt"], "FILE.aig (AIGER) or FILE.cnf"),
            (["--dump-circuit", tmp_path / "x.cnf"], "give its number of letters with "
                                                     "--dump-length L"),
            (["--dump-circuit", tmp_path / "x.aig", "--dump-length", "3"],
             "--dump-length goes with a DIMACS dump"),
            (["--dump-length", "3"], "--dump-length goes with --dump-circuit FILE.cnf"),
            (["--dump-circuit", tmp_path], "FILE.aig (AIGER) or FILE.cnf")):
        code, out, err = run(["max", grammar, "A", *argv], capsys)
        assert (code, out) == (2, ""), (argv, err)
        one_error(err, fragment)
    assert grammar.read_bytes() == before
    target = tmp_path / "old.aig"
    target.write_bytes(b"old")
    code, _, _ = run(["max", grammar, "A", "--dump-circuit", target], capsys)
    assert code == 0 and target.read_bytes().startswith(b"aig ")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".sdg-")] == []
