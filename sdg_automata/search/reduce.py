"""Latch correspondence: which item bits of the Step 3–4 relation are constant, or equal
(up to complement) to others, on every reachable state.

The Step 3–4 circuit has one latch per item bit of SPEC §4 and per state of a
``within`` constraint, and many of them are redundant on reachable states: an
item x B^j whose value j never goes with the parity x forces (the embedded DFAs of
SPEC §5 accept only even lengths, so half their value bits stay 0), the value bits
V^j of a unit chain Vᵗ → V⁰ | … | V^{t−1} other than j = t, an item equal to
another one of a different DFA.  Van Eijk's method [1]_ finds the largest set of
such equivalences that is *inductive*:

1. candidates from simulation: the latches' values on reachable states (a
   breadth-first layer and random walks from q₀, through
   :meth:`~sdg_automata.automaton.construction.GrundyAutomaton.step`), each
   latch's vector complemented when it is 1 in q₀, latches grouped by equal
   vectors (the group of the all-zero vector: constant at their value in q₀);
2. refinement until the candidates hold in q₀ (by construction) and are preserved
   by one step from every state where they hold: the step is built once more as an
   and-inverter graph over a state in which every candidate is *assumed*, each
   latch replaced by its group's representative (or its constant); a candidate
   whose next literal is then structurally its representative's (or its constant)
   is preserved, the others are asked of the SAT solver one by one, and every
   model (a state where the candidates hold and one breaks after a step) splits
   the groups by the values it gives after the step.  A question that the solver
   does not settle within :data:`CONFLICTS` conflicts drops its candidate (the
   result is then smaller, still sound).

What comes out is a claim: :mod:`sdg_automata.search.lean` checks it against the
unreduced relation with its own query before anything is built on it, so a wrong
reducer (a bug, or the fake one of the tests) is caught, never believed.

References
----------
.. [1] C. A. J. van Eijk, "Sequential equivalence checking based on structural
   similarities", IEEE TCAD 19(7), 2000 (signal correspondence by induction).
.. [2] A. Mishchenko, M. Case, R. Brayton, S. Jang, "Scalable and scalably-verifiable
   sequential synthesis", ICCAD 2008 (ABC's ``scorr``: candidates from simulation,
   speculative reduction).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from ..runtime.budget import Meter
from .aig import AigGates, cone, instantiate, literal
from .circuit import Frame, StepEncoding
from .solvers import Budgeted
from .unrolling import holds

__all__ = ["CONFLICTS", "SAMPLES", "Correspondence", "Substituted", "correspondence",
           "initial_bits", "reachable_samples", "substitute"]

#: reachable states the candidates are drawn from: a breadth-first layer of SAMPLES
#: states, then a random walk of WALK letters per letter (up to BIASED of them), reading
#: that letter with probability BIAS (so that a count of one letter goes deep), and one
#: reading letters uniformly
SAMPLES = 256
WALK = 512
BIASED = 3
BIAS = 0.9
#: conflicts a candidate's question may take before the candidate is dropped
CONFLICTS = 2_000


@dataclass(frozen=True, kw_only=True)
class Correspondence:
    """Latch p equals latch ``rep[p]`` complemented when ``flip[p]`` (``rep[p] == p``: p
    represents its group), or the constant ``flip[p]`` when ``rep[p] == -1``.

    Latches are the item bits of the state (positions 0 … width − 1) then the states of
    the constraint (width …).
    """

    rep: tuple[int, ...]
    flip: tuple[bool, ...]

    @property
    def representatives(self) -> tuple[int, ...]:
        """The latches that stay, in order."""
        return tuple(p for p, r in enumerate(self.rep) if r == p)

    @property
    def constants(self) -> int:
        """How many latches are constant."""
        return sum(r < 0 for r in self.rep)

    @classmethod
    def trivial(cls, n: int) -> Correspondence:
        """Nothing merged: every latch its own."""
        return cls(rep=tuple(range(n)), flip=(False,) * n)


def initial_bits(encoding: StepEncoding) -> tuple[bool, ...]:
    """Every latch's value in q₀ (the item bits, then the constraint's one-hot state)."""
    q0 = encoding.automaton.initial
    init = [bool(q0 >> k & 1) for k in range(encoding.width)]
    if encoding.within is not None:
        init += [d == encoding.within.initial for d in range(encoding.within.size)]
    return tuple(init)


def reachable_samples(encoding: StepEncoding, *, seed: int = 0) -> list[int]:
    """Reachable states as ints over the latches (bit p: latch p), q₀ first: a
    breadth-first layer of :data:`SAMPLES`, then the random walks of :data:`WALK` letters
    the constants say."""
    automaton, within = encoding.automaton, encoding.within
    follow, alphabet, width = automaton.follow, automaton.alphabet, encoding.width
    rows = within.rows if within is not None else None
    start = (automaton.initial, within.initial if within is not None else 0)

    def pack(q: int, d: int) -> int:
        return q | (1 << (width + d) if within is not None and d >= 0 else 0)

    def move(state: tuple[int, int], a: str) -> tuple[int, int]:
        q, d = state
        if rows is not None:
            d = rows[a][d] if d >= 0 else -1
        return follow(q, a), d

    seen = {start}
    out = [pack(*start)]
    layer = [start]
    while layer and len(out) < SAMPLES:
        nxt = []
        for state in layer:
            for a in alphabet:
                s = move(state, a)
                if s not in seen:
                    seen.add(s)
                    nxt.append(s)
                    out.append(pack(*s))
        layer = nxt
    rng = random.Random(seed)
    walks: tuple[str | None, ...] = tuple(alphabet[:BIASED])
    if len(alphabet) > 1:
        walks += (None,)  # uniform
    for favourite in walks:
        state = start
        for _ in range(WALK):
            a = (favourite if favourite is not None and rng.random() < BIAS
                 else rng.choice(alphabet))
            state = move(state, a)
            out.append(pack(*state))
    return out


def _classes(samples: Sequence[int], init: Sequence[bool]) -> tuple[list[int], list[list[int]]]:
    """Latches grouped by their values on ``samples`` (complemented where 1 in q₀): the
    constant ones, and the groups of two or more."""
    import numpy as np

    n = len(init)
    width = (n + 7) // 8
    q0 = sum(1 << p for p, one in enumerate(init) if one)
    rows = np.frombuffer(b"".join((s ^ q0).to_bytes(width, "little") for s in samples),
                         dtype=np.uint8).reshape(len(samples), width)
    bits = np.unpackbits(rows, axis=1, count=n, bitorder="little")
    columns = np.ascontiguousarray(np.packbits(bits, axis=0, bitorder="little").T)
    keys = columns.view(np.dtype((np.void, columns.shape[1])))[:, 0]
    _, label = np.unique(keys, return_inverse=True)
    constant: list[int] = np.flatnonzero(np.all(columns == 0, axis=1)).tolist()
    fixed = set(constant)
    groups: dict[int, list[int]] = {}
    for p, c in enumerate(label.ravel().tolist()):
        if p not in fixed:
            groups.setdefault(c, []).append(p)
    return constant, [g for g in groups.values() if len(g) > 1]


def correspondence(encoding: StepEncoding, meter: Meter, solver: str, *,
                   samples: Sequence[int] | None = None) -> Correspondence:
    """The inductive latch correspondence of ``encoding``'s relation (van Eijk's method,
    see the module docstring), a claim for :mod:`sdg_automata.search.lean` to check.

    Parameters
    ----------
    encoding:
        The Step 3–4 relation.
    meter:
        Checked between rounds and questions (the clock, Ctrl-C).
    solver:
        The SAT solver's name.
    samples:
        Reachable states to draw candidates from (default :func:`reachable_samples`).
    """
    init = initial_bits(encoding)
    constant, groups = _classes(samples if samples is not None
                                else reachable_samples(encoding), init)
    while True:
        meter.check(meter.count)
        candidates = _as_correspondence(constant, groups, init)
        step = substitute(encoding, candidates)
        residual = _unproven(constant, groups, step.after, init, step.aig.true)
        if not residual:
            return candidates
        values, models, dropped = _refute(step, residual, groups, init, meter, solver)
        if not models and not dropped:
            return candidates  # each holds after a step from any state where all hold
        constant, groups = _split(constant, groups, values, dropped)


@dataclass(frozen=True, eq=False, kw_only=True)
class Substituted:
    """One step as an AIG from a state where a correspondence holds: each latch replaced by
    its representative's latch (complemented as the correspondence says) or its constant.

    ``latches[p]``: the graph's latch of representative p (its value is latch p's);
    ``now[p]``: latch p's literal in the state; ``after[p]``: its next literal;
    ``frame``: the step's frame (its letters are the decoded inputs).
    """

    aig: AigGates
    latches: dict[int, int]
    now: tuple[int, ...]
    after: tuple[int, ...]
    frame: Frame
    start: Frame


def substitute(encoding: StepEncoding, correspondence: Correspondence) -> Substituted:
    """The step of ``encoding`` from a state where ``correspondence`` holds (see
    :class:`Substituted`): the lean circuit's step, and the reducer's structural check."""
    aig = AigGates()
    latches: dict[int, int] = {}
    now: list[int] = []
    for r, flip in zip(correspondence.rep, correspondence.flip, strict=True):
        if r < 0:
            now.append(aig.true if flip else aig.false)
            continue
        if r not in latches:
            latches[r] = aig.latch()
        now.append(-latches[r] if flip else latches[r])
    width = encoding.width
    start = Frame(letters=(), state=tuple(now[:width]), within=tuple(now[width:]))
    frame = encoding.step(aig, start)
    return Substituted(aig=aig, latches=latches, now=tuple(now),
                       after=(*frame.state, *frame.within), frame=frame, start=start)


def _as_correspondence(constant: list[int], groups: list[list[int]], init: Sequence[bool]
                       ) -> Correspondence:
    """The candidates as a :class:`Correspondence` (each group's first latch represents it)."""
    n = len(init)
    rep, flip = list(range(n)), [False] * n
    for p in constant:
        rep[p], flip[p] = -1, init[p]
    for group in groups:
        r = group[0]
        for p in group[1:]:
            rep[p], flip[p] = r, init[p] != init[r]
    return Correspondence(rep=tuple(rep), flip=tuple(flip))


def _unproven(constant: list[int], groups: list[list[int]], after: Sequence[int],
              init: Sequence[bool], true: int) -> list[tuple[int, int]]:
    """The candidates whose next literal is not structurally what they claim: (latch,
    the literal it should equal)."""
    out = []
    for p in constant:
        want = true if init[p] else -true
        if after[p] != want:
            out.append((p, want))
    for group in groups:
        r = group[0]
        for p in group[1:]:
            want = after[r] if init[p] == init[r] else -after[r]
            if after[p] != want:
                out.append((p, want))
    return out


def _refute(step: Substituted, residual: list[tuple[int, int]], groups: list[list[int]],
            init: Sequence[bool], meter: Meter, solver: str
            ) -> tuple[dict[int, int], int, set[int]]:
    """Ask the solver about each candidate of ``residual`` (latch, the literal it should
    equal after the step).  Returns the latches' values after the step in the models
    found (bit k: model k, complemented where the latch is 1 in q₀), for every latch of
    ``residual`` and every representative of a group holding one; how many models; the
    candidates given up on."""
    from pysat.formula import IDPool

    from .circuit import Gates

    aig, after = step.aig, step.after
    rep = {p: group[0] for group in groups for p in group}
    asked = {p for p, _ in residual} | {rep[p] for p, _ in residual if p in rep}
    sat = Budgeted(solver, meter)
    try:
        g = Gates(IDPool(), sat.add_clause)
        known = {x: g.new() for x in (*aig.inputs, *step.latches.values())}
        known = instantiate(cone(aig, [after[p] for p in asked]), g, known)
        shown = {p: literal(known, after[p]) for p in asked}
        models: list[list[int]] = []
        dropped: set[int] = set()
        for p, want in residual:
            meter.check(meter.count)
            mine, theirs = shown[p], literal(known, want)
            if any(holds(m, mine) != holds(m, theirs) for m in models):
                continue  # a model found for another candidate breaks this one too
            model = sat.solve([g.xor(mine, theirs)], conflicts=CONFLICTS)
            if model is False:
                dropped.add(p)
            elif model is not None:
                models.append(model)
        values = {p: sum((holds(m, x) != init[p]) << k for k, m in enumerate(models))
                  for p, x in shown.items()}
        return values, len(models), dropped
    finally:
        sat.delete()


def _split(constant: list[int], groups: list[list[int]], values: dict[int, int],
           dropped: set[int]) -> tuple[list[int], list[list[int]]]:
    """The candidates refined by the models' ``values`` after the step (normalized by q₀, as
    :func:`_refute` gives them; a latch not there moves as its representative, or stays
    constant) and without those ``dropped``."""
    kept: list[int] = []
    fresh: dict[int, list[int]] = {}
    for p in constant:
        if p in dropped:
            continue
        s = values.get(p, 0)
        if s == 0:
            kept.append(p)
        else:
            fresh.setdefault(s, []).append(p)
    out = [g for g in fresh.values() if len(g) > 1]
    for group in groups:
        parts: dict[int, list[int]] = {}
        same = values.get(group[0], 0)
        for p in group:
            if p not in dropped:
                parts.setdefault(values.get(p, same), []).append(p)
        out += [g for g in parts.values() if len(g) > 1]
    return kept, out
