"""And-inverter graphs: the Step 3–4 relation as a sequential circuit, and binary AIGER.

:class:`AigGates` builds an and-inverter graph through the
:class:`~sdg_automata.search.circuit.Circuit` interface the Step 3–4 gates are
written for (:class:`~sdg_automata.search.circuit.StepEncoding`), with constant
folding and structural hashing (two AND gates of the same inputs are one gate).
The lean relation (:mod:`sdg_automata.search.lean`) is such a graph; ABC reads it
as binary AIGER [1]_ (:func:`aiger`), and CNF unrollings instantiate its gates
frame by frame (:func:`cone`, :func:`instantiate`).

References
----------
.. [1] A. Biere, K. Heljanko, S. Wieringa, "AIGER 1.9 and beyond", FMV report
   11/2, JKU Linz, 2011.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence

from .circuit import Circuit, fold_and

__all__ = ["AigGates", "aiger", "cone", "decode", "instantiate", "literal", "tree_or"]


class AigGates:
    """An and-inverter graph built through the interface of
    :class:`~sdg_automata.search.circuit.Gates` (:class:`~sdg_automata.search.circuit.Circuit`),
    with constant folding and structural hashing.

    Literals are non-zero ints: variable 1 is the constant true, ``-x`` negates
    ``x``.  Variables are numbered in the order they are made, so every AND
    gate comes after its inputs, as binary AIGER requires.
    """

    __slots__ = ("true", "false", "inputs", "latches", "ands", "_count", "_hashed")

    def __init__(self) -> None:
        self.true = 1
        self.false = -1
        self.inputs: list[int] = []
        self.latches: list[int] = []
        #: (gate, a, b): gate = a ∧ b
        self.ands: list[tuple[int, int, int]] = []
        self._count = 1
        self._hashed: dict[tuple[int, int], int] = {}

    def _new(self) -> int:
        self._count += 1
        return self._count

    def input(self) -> int:
        """A fresh input."""
        x = self._new()
        self.inputs.append(x)
        return x

    def latch(self) -> int:
        """A fresh latch (its next value is given to :func:`aiger`)."""
        x = self._new()
        self.latches.append(x)
        return x

    def and2(self, a: int, b: int) -> int:
        """a ∧ b."""
        folded = fold_and(a, b, self.true)
        if folded is not None:
            return folded
        key = (a, b) if a < b else (b, a)
        y = self._hashed.get(key)
        if y is None:
            y = self._hashed[key] = self._new()
            self.ands.append((y, a, b))
        return y

    def or_(self, lits: Sequence[int]) -> int:
        """The disjunction of ``lits`` (false when empty), as a balanced tree."""
        return tree_or(self.and2, self.true, lits)

    def one_of(self, n: int) -> tuple[int, ...]:
        """The letter read: ⌈log₂ n⌉ inputs decoded, codes ≥ n read as letter 0."""
        return decode(self.and2, self.true, self.input, n)

    def forbid(self, lits: Sequence[int]) -> None:
        """Nothing to add: a dead move of a constraint leaves its one-hot state all zero, a
        sink that never accepts (the CNF forbids the move instead: the same reachable
        accepting states)."""


def tree_or(and2: Callable[[int, int], int], true: int, lits: Sequence[int]) -> int:
    """The disjunction of ``lits`` (``-true`` when empty) as a balanced tree of ``and2``:
    the OR of every and-inverter graph here, also when mirrored in CNF
    (:mod:`sdg_automata.search.proofs`), so that the two build the same gates."""
    layer = sorted({x for x in lits if x != -true})
    if true in layer:
        return true
    if not layer:
        return -true
    while len(layer) > 1:
        paired = [-and2(-layer[i], -layer[i + 1]) for i in range(0, len(layer) - 1, 2)]
        layer = paired + layer[len(layer) - len(layer) % 2:]
    return layer[0]


def decode(and2: Callable[[int, int], int], true: int, fresh: Callable[[], int], n: int
           ) -> tuple[int, ...]:
    """The letter read among ``n``: ⌈log₂ n⌉ fresh inputs decoded by ``and2``, codes ≥ n
    read as letter 0 (so every assignment of the inputs is a letter)."""
    if n == 1:
        return (true,)
    bits = [fresh() for _ in range((n - 1).bit_length())]
    letters = []
    for c in range(n):
        x = true
        for i, b in enumerate(bits):
            x = and2(x, b if c >> i & 1 else -b)
        letters.append(x)
    letters[0] = -tree_or(and2, true, letters[1:])
    return tuple(letters)


def cone(aig: AigGates, roots: Iterable[int]) -> list[tuple[int, int, int]]:
    """The AND gates ``roots`` (literals) depend on, in the graph's order (inputs first)."""
    gates = {y: (a, b) for y, a, b in aig.ands}
    seen: set[int] = set()
    stack = [abs(x) for x in roots]
    while stack:
        y = stack.pop()
        if y in seen or y not in gates:
            continue
        seen.add(y)
        a, b = gates[y]
        stack += (abs(a), abs(b))
    return [(y, a, b) for y, a, b in aig.ands if y in seen]


def instantiate(ands: Iterable[tuple[int, int, int]], g: Circuit, known: dict[int, int]
                ) -> dict[int, int]:
    """The gates ``ands`` (in order) rebuilt in the circuit ``g``: ``known`` maps the graph's
    variables that feed them (latches, inputs) to literals of ``g``; returns it extended by
    every gate (the constant, variable 1, is ``g.true``)."""
    known[1] = g.true
    and2 = g.and2
    for y, a, b in ands:
        p = known[a] if a > 0 else -known[-a]
        q = known[b] if b > 0 else -known[-b]
        known[y] = and2(p, q)
    return known


def literal(known: Mapping[int, int], x: int) -> int:
    """The literal of ``g`` that the graph's literal ``x`` became (:func:`instantiate`)."""
    return known[x] if x > 0 else -known[-x]


def aiger(aig: AigGates, next_state: Sequence[int], outputs: Sequence[int],
          comments: Sequence[str] = (), *, symbols: Sequence[str] = ()) -> bytes:
    """Binary AIGER: the inputs, then the latches (``next_state[i]`` is latch i's next
    literal, initial value 0), the ``outputs`` (bad states), then the AND gates of their
    cone, the symbol table ``symbols`` (lines such as ``l3 A^2``) and ``comments`` (one
    line each) in the comment section."""
    ands = cone(aig, (*next_state, *outputs))
    number = {1: 0}  # our variable -> AIGER's; the constant is variable 0
    for x in (*aig.inputs, *aig.latches, *(y for y, _, _ in ands)):
        number[x] = len(number)

    def lit(x: int) -> int:
        if abs(x) == 1:
            return 1 if x == 1 else 0
        return 2 * number[abs(x)] + (x < 0)

    i, n, a = len(aig.inputs), len(aig.latches), len(ands)
    out = bytearray(f"aig {i + n + a} {i} {n} {len(outputs)} {a}\n".encode())
    for x in next_state:
        out += b"%d\n" % lit(x)
    for x in outputs:
        out += b"%d\n" % lit(x)
    for y, p, q in ands:
        lhs, r0, r1 = 2 * number[y], lit(p), lit(q)
        if r0 < r1:
            r0, r1 = r1, r0
        for delta in (lhs - r0, r0 - r1):
            while delta >= 0x80:
                out.append(delta & 0x7F | 0x80)
                delta >>= 7
            out.append(delta)
    for line in symbols:
        out += line.replace("\n", " ").encode("utf-8") + b"\n"
    out += b"c\n"
    for line in comments:
        out += line.replace("\n", " ").encode("utf-8") + b"\n"
    return bytes(out)
