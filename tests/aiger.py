"""An independent reader of binary AIGER files, and a simulator of what it reads.

Written from the format's definition (A. Biere, "The AIGER And-Inverter Graph (AIG)
Format Version 20071012", and AIGER 1.9), not from sdg_automata's writer: the tests
read back what the writer wrote (the pdr strategy's lean circuit, ``--dump-circuit``)
and run it against :meth:`GrundyAutomaton.step_reference`.
"""

from __future__ import annotations


def read_aiger(data: bytes) -> tuple[int, int, list[int], list[int], list[tuple[int, int, int]]]:
    """(inputs, latches, next literals, outputs, ands) of a binary AIGER file."""
    header, _, rest = data.partition(b"\n")
    m, i, n, o, a = map(int, header.split()[1:])
    assert header.startswith(b"aig ") and m == i + n + a
    lines = rest.split(b"\n", n + o)
    nexts, outputs, body = [int(x) for x in lines[:n]], [int(x) for x in lines[n:n + o]], \
        lines[n + o]
    ands, at = [], 0

    def varint() -> int:
        nonlocal at
        x, shift = 0, 0
        while True:
            byte = body[at]
            at += 1
            x |= (byte & 0x7F) << shift
            shift += 7
            if byte < 0x80:
                return x

    for k in range(a):
        lhs = 2 * (i + n + 1 + k)
        r0 = lhs - varint()
        r1 = r0 - varint()
        assert lhs > r0 >= r1
        ands.append((lhs, r0, r1))
    return i, n, nexts, outputs, ands


def simulate(data: bytes, letters: list[int]) -> list[tuple[list[int], list[int]]]:
    """(latch values, output values) before each letter and after the last (codes as
    inputs)."""
    i, n, nexts, outputs, ands = read_aiger(data)
    latches = [0] * n
    out = []
    for t in range(len(letters) + 1):
        value = {0: 0}
        code = letters[t] if t < len(letters) else 0
        for k in range(i):
            value[2 * (1 + k)] = code >> k & 1
        for k in range(n):
            value[2 * (i + 1 + k)] = latches[k]

        def lit(x: int, value: dict[int, int] = value) -> int:
            return value[x & ~1] ^ (x & 1)

        for lhs, r0, r1 in ands:
            value[lhs] = lit(r0) & lit(r1)
        out.append((list(latches), [lit(x) for x in outputs]))
        latches = [lit(x) for x in nexts]
    return out
