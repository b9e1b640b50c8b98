"""Max-Grundy instances for other tools: the Step 3–4 relation as binary AIGER, or one
unrolling of it as DIMACS CNF (``max … --dump-circuit FILE.aig|FILE.cnf``).

Both are written from the same gates every solver-backed search starts from
(:class:`~sdg_automata.search.circuit.StepEncoding`, unreduced: the reductions of
:mod:`sdg_automata.search.lean` are ours to prove, another tool makes its own), for A
restricted to its cone of influence, read in the automaton's direction (SPEC §4: the
reverse wᴿ of a word w of a right-linear grammar; w itself for the mirror of a
left-linear one).

* **AIGER** [1]_: one input per bit of the letter's code (code c reads the c-th
  letter of Σ, a code past Σ its first letter), one latch per item bit of SPEC §4
  and per state of the ``within`` constraint, every latch starting at 0 (a latch
  whose bit is 1 in q₀ holds its complement), and one output per value v = 0 … m_A:
  "the state shows A^v where the constraint accepts" (a bad state in the HWMCC
  sense: reachable iff some word has Grundy value v).  The symbol table names every
  input, latch and output; the comment section says the same in words.
* **DIMACS**: the unrolling from q₀ of ``length`` letters (frame 0 … length), each
  letter one-hot, and one last clause asking that the state after the last letter
  shows a value above K (with K; without it, the value m_A): satisfiable iff a word
  of exactly ``length`` letters does.  The comment lines give the variable of each
  letter of each frame, of each value in the last frame, and the constant true.

References
----------
.. [1] A. Biere, K. Heljanko, S. Wieringa, "AIGER 1.9 and beyond", FMV report 11/2,
   JKU Linz, 2011.
"""

from __future__ import annotations

from typing import Any

from ..grammar import Grammar
from .aig import AigGates, aiger
from .circuit import Frame, Gates, StepEncoding
from .reduce import initial_bits

__all__ = ["circuit_file"]


def circuit_file(grammar: Grammar, head: str, kind: str, *, k: int | None = None,
                 within: Any = None, length: int | None = None) -> bytes:
    """The instance "the values of A" as ``kind`` ``"aig"`` or ``"cnf"`` (see the module
    docstring); ``length`` is the DIMACS unrolling's number of letters.

    Raises
    ------
    InputError
        As :func:`~sdg_automata.search.decide.max_grundy` does for the question.
    """
    from .decide import question as asked

    question = asked(grammar, head, k, within=within)
    encoding = StepEncoding(question.automaton, head, question.constraint)
    if kind == "aig":
        return _aiger(encoding, head)
    assert length is not None
    return _dimacs(encoding, head, k, length)


def _reading(encoding: StepEncoding) -> str:
    reading = encoding.automaton.reading
    return ("the letters are read in the order of the word w itself (the mirror of a "
            "left-linear grammar)" if reading.mirrored else
            "the letters are read from the end of the word: the word is the reverse of the "
            "letters read (SPEC §4 reads wᴿ)")


def _aiger(encoding: StepEncoding, head: str) -> bytes:
    aig = AigGates()
    init = initial_bits(encoding)
    latches = [aig.latch() for _ in init]
    now = [-x if one else x for x, one in zip(latches, init, strict=True)]
    frame = Frame(letters=(), state=tuple(now[:encoding.width]),
                  within=tuple(now[encoding.width:]))
    after = encoding.step(aig, frame)
    nxt = [*after.state, *after.within]
    next_state = [-x if one else x for x, one in zip(nxt, init, strict=True)]
    accepting = encoding.accepting(aig, frame)
    outputs = [aig.and2(encoding.value(frame, v), accepting) for v in range(encoding.bound + 1)]
    alphabet = encoding.alphabet
    names = _latch_names(encoding)
    symbols = [f"i{i} letter code bit {i}" for i in range(len(aig.inputs))]
    symbols += [f"l{p} {'not ' if one else ''}{name}" for p, (name, one)
                in enumerate(zip(names, init, strict=True))]
    symbols += [f"o{v} value {v} of {head}" for v in range(len(outputs))]
    comments = [
        f"sdg_automata: the Step 3-4 relation of SPEC §4 for the values of {head} "
        f"(0 … {encoding.bound})",
        f"inputs: the code of the letter read, bit i in input i; code c reads "
        f"{', '.join(f'{c}={a!r}' for c, a in enumerate(alphabet))}; codes past them read "
        f"{alphabet[0]!r}",
        "latches: one per item bit of SPEC §4 (then per state of the constraint), all "
        "starting at 0: a latch named 'not X' holds the complement of X",
        "output v: the state shows the value v where the constraint accepts (a bad state: "
        "reachable iff some word has Grundy value v)",
        _reading(encoding),
    ]
    return aiger(aig, next_state, outputs, comments, symbols=symbols)


def _latch_names(encoding: StepEncoding) -> list[str]:
    names = [str(item) for item in encoding.automaton.items]
    if encoding.within is not None:
        names += [f"within state {d}" for d in range(encoding.within.size)]
    return names


def _dimacs(encoding: StepEncoding, head: str, k: int | None, length: int) -> bytes:
    from pysat.formula import IDPool

    clauses: list[list[int]] = []
    g = Gates(IDPool(), clauses.append)
    frames = [encoding.initial(g)]
    for _ in range(length):
        frames.append(encoding.step(g, frames[-1]))
    last = frames[-1]
    accept = encoding.accepting(g, last)
    asked = range(k + 1, encoding.bound + 1) if k is not None else [encoding.bound]
    bad = {v: g.and2(encoding.value(last, v), accept) for v in range(encoding.bound + 1)}
    clauses.append([bad[v] for v in asked if bad[v] != g.false] or [g.false])
    alphabet = encoding.alphabet
    what = (f"a value above {k}" if k is not None else f"the value {encoding.bound} (m_A)")
    lines = [
        f"c sdg_automata: one unrolling of the Step 3-4 relation of SPEC §4 for the values "
        f"of {head}: {length} letters from q0",
        f"c the last clause asks that the state after letter {length} shows {what} where the "
        "constraint accepts: satisfiable iff a word of exactly that many letters does",
        f"c {_reading(encoding)}",
        f"c variable {g.true} is the constant true",
        "c letter t = 1 … L of the word read: 'c letter t: a=x b=y …' names the variable that "
        "is true iff that letter is read (exactly one is)",
    ]
    for t, frame in enumerate(frames[1:], 1):
        lines.append(f"c letter {t}: " + " ".join(f"{a}={x}" for a, x in
                                                  zip(alphabet, frame.letters, strict=True)))
    lines += [f"c value {v} after letter {length}: {x}" for v, x in bad.items()]
    lines.append(f"p cnf {g.pool.top} {len(clauses)}")
    body = "\n".join(" ".join(map(str, c)) + " 0" for c in clauses)
    return ("\n".join(lines) + "\n" + body + "\n").encode("utf-8")
