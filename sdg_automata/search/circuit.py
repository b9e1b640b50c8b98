"""The Step 3–4 relation of SPEC §4 as a circuit: the gates the solver-backed strategies share.

Bounded model checking (:mod:`sdg_automata.search.bmc`, clauses for CaDiCaL) and
property-directed reachability (:mod:`sdg_automata.search.pdr`, an and-inverter
graph for ABC) unroll the same relation; :class:`StepEncoding` writes it once
over any :class:`Circuit`.

One **frame** per letter position t: a variable per letter of Σ (exactly one
true) and a literal per item bit of the state.  The state after the frame is
δ(q, a) of Steps 3–4 written as gates over
:class:`~sdg_automata.automaton.construction.TransitionTables`:

* Step 4, the shift: the item a·x B^j is ``letter a ∧ x B^j``;
* Step 3, the contributions: J_A[j] is the OR of ``letter a ∧ x B^j`` over the
  rules A → a x B, then, in the order <_Γ, of C^j just set for every unit
  rule A → C;
* the mex: A^v ⟺ J_A ≠ ∅ ∧ J_A[0] ∧ … ∧ J_A[v−1] ∧ ¬J_A[v], for v ≤ m_A
  (SPEC §3 bounds the mex by m_A).

Gates are Tseitin definitions on a :class:`pysat.formula.IDPool` with constant
folding (q₀ = {E⁰} is constant, so the first frames are small), written by
hand (:class:`Gates`) rather than through pysat's global ``Formula`` context.
The automaton reads the grammar's words its own way (SPEC §4: wᴿ, or w for the
mirror of a left-linear grammar, :mod:`sdg_automata.automaton.reading`); witnesses are
given back in the user's order.  A ``within`` constraint (its tables, as
:func:`sdg_automata.search.constraint.constraint` makes them) is a one-hot product
component; its dead transitions are forbidden letters.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ..automaton.construction import GrundyAutomaton

if TYPE_CHECKING:
    from pysat.formula import IDPool

    from .constraint import Constraint

__all__ = ["Circuit", "Frame", "Gates", "Relation", "StepEncoding", "fold_and"]


# ---------------------------------------------------------------------------
# gates


class Circuit(Protocol):
    """What :class:`StepEncoding` builds its gates with: :class:`Gates` (clauses for
    CaDiCaL) or :class:`sdg_automata.search.aig.AigGates` (an and-inverter graph for ABC).
    Literals are non-zero ints, ``-x`` the negation of ``x``."""

    true: int
    false: int

    def and2(self, a: int, b: int) -> int: ...

    def or_(self, lits: Sequence[int]) -> int: ...

    def one_of(self, n: int) -> tuple[int, ...]: ...

    def forbid(self, lits: Sequence[int]) -> None: ...


def fold_and(a: int, b: int, true: int) -> int | None:
    """a ∧ b when constants or equal literals decide it without a gate (``-true`` is
    false), else ``None``: the folding of every :class:`Circuit`."""
    false = -true
    if a == false or b == false or a == -b:
        return false
    if a == true or a == b:
        return b
    if b == true:
        return a
    return None


class Gates:
    """Tseitin gates on an :class:`~pysat.formula.IDPool`, with constant folding.

    Literals are non-zero ints; :attr:`true` is a variable fixed by a unit
    clause and ``-true`` is false, so constants are literals like any other and
    fold away: ``and2`` with a false input is false, with a true one is the other.

    Parameters
    ----------
    pool:
        Hands out the variables (``pool.id()``).
    add:
        Takes one clause (a list of literals), e.g. a solver's ``add_clause``.
    """

    __slots__ = ("pool", "add", "true", "false", "_hashed")

    def __init__(self, pool: IDPool, add: Callable[[list[int]], Any], *,
                 hashed: bool = False) -> None:
        self.pool = pool
        self.add = add
        self.true: int = int(pool.id())
        self.false: int = -self.true
        #: ``hashed``: structural hashing, two AND gates of the same inputs are one
        self._hashed: dict[tuple[int, int], int] | None = {} if hashed else None
        add([self.true])

    def new(self) -> int:
        """A fresh variable."""
        return int(self.pool.id())

    def and2(self, a: int, b: int) -> int:
        """a ∧ b."""
        folded = fold_and(a, b, self.true)
        if folded is not None:
            return folded
        hashed = self._hashed
        if hashed is not None:
            key = (a, b) if a < b else (b, a)
            known = hashed.get(key)
            if known is not None:
                return known
        y = int(self.pool.id())
        add = self.add
        add([-y, a])
        add([-y, b])
        add([y, -a, -b])
        if hashed is not None:
            hashed[key] = y
        return y

    def or_(self, lits: Sequence[int]) -> int:
        """The disjunction of ``lits`` (false when empty)."""
        true, false = self.true, self.false
        inputs = set()
        for x in lits:
            if x == true or -x in inputs:
                return true
            if x != false:
                inputs.add(x)
        if not inputs:
            return false
        if len(inputs) == 1:
            return inputs.pop()
        y = int(self.pool.id())
        add = self.add
        add([-y, *inputs])
        for x in inputs:
            add([y, -x])
        return y

    def xor(self, a: int, b: int) -> int:
        """a ⊕ b."""
        true, false = self.true, self.false
        if a == b:
            return false
        if a == -b:
            return true
        if a in (true, false):
            return -b if a == true else b
        if b in (true, false):
            return -a if b == true else a
        y = int(self.pool.id())
        add = self.add
        add([-y, a, b])
        add([-y, -a, -b])
        add([y, -a, b])
        add([y, a, -b])
        return y

    def clause(self, lits: Sequence[int]) -> None:
        """Add the clause OR(``lits``), folding constants (a true literal drops it)."""
        if self.true in lits:
            return
        self.add([x for x in lits if x != self.false])

    def at_most_one(self, lits: Sequence[int]) -> None:
        """At most one of ``lits``: pairwise for a few, a sequential counter for more."""
        lits = [x for x in lits if x != self.false]
        if len(lits) <= 6:
            for i, x in enumerate(lits):
                for y in lits[i + 1:]:
                    self.clause([-x, -y])
            return
        from pysat.card import CardEnc, EncType

        from .solvers import native

        with native():  # pysat's C code, without its SIGINT handler
            encoded = CardEnc.atmost(lits, 1, vpool=self.pool, encoding=EncType.seqcounter)
        for c in encoded.clauses:
            self.clause(c)

    def exactly_one(self, lits: Sequence[int]) -> None:
        """Exactly one of ``lits``."""
        self.clause(lits)
        self.at_most_one(lits)

    def one_of(self, n: int) -> tuple[int, ...]:
        """n literals of which exactly one holds: the letter a frame reads (one letter is
        the constant true, so a one-letter unrolling folds to constants)."""
        if n == 1:
            return (self.true,)
        x = tuple(self.new() for _ in range(n))
        self.exactly_one(x)
        return x

    def forbid(self, lits: Sequence[int]) -> None:
        """No path has all of ``lits`` (a dead move of the constraint)."""
        self.clause([-x for x in lits])


# ---------------------------------------------------------------------------
# the encoding of one step


@dataclass(frozen=True)
class Frame:
    """The literals of one letter position: the letter read to get here (one per letter of
    Σ, none for the first frame), the state's item bits, and the constraint's one-hot state
    (a lean relation, :mod:`sdg_automata.search.lean`, keeps its latches in ``state`` and
    the value and acceptance literals in ``outputs``)."""

    letters: tuple[int, ...]
    state: tuple[int, ...]
    within: tuple[int, ...] = ()
    outputs: tuple[int, ...] = ()


class Relation(Protocol):
    """A transition relation the unrollings of :mod:`sdg_automata.search.unrolling` take:
    :class:`StepEncoding` (the Step 3–4 relation itself) or the lean relation of
    :mod:`sdg_automata.search.lean`, which behaves as it on every reachable state."""

    @property
    def automaton(self) -> GrundyAutomaton:
        """The automaton whose relation it is (for the replay of witnesses)."""
        ...

    @property
    def within(self) -> Constraint | None:
        """The constraint's tables, or ``None``."""
        ...

    @property
    def bound(self) -> int:
        """m_A: the values are 0 … bound."""
        ...

    def initial(self, g: Circuit) -> Frame: ...

    def free(self, g: Gates, *, constrained: bool = True) -> Frame: ...

    def step(self, g: Circuit, prev: Frame) -> Frame: ...

    def value(self, frame: Frame, v: int) -> int: ...

    def accepting(self, g: Circuit, frame: Frame) -> int: ...


@dataclass(frozen=True, eq=False)
class _Head:
    """What Step 3 does for one nonterminal: where its values go, and what feeds J_A[j]."""

    base: int
    bound: int
    #: per j: the indices of the (letter, item) terms that put j into J_A
    terms: tuple[tuple[int, ...], ...]
    #: the unit targets C (base bit, m_C): C^j, set in the same step, puts j into J_A
    units: tuple[tuple[int, int], ...]


class StepEncoding:
    """δ of Steps 3–4 (SPEC §4) for one letter position, as gates (see the module docstring).

    Built once from :attr:`GrundyAutomaton.tables`; :meth:`step` adds one frame.

    Parameters
    ----------
    automaton:
        The automaton whose relation is encoded (its cone of influence of ``head``).
    head:
        The nonterminal A whose values are asked about.
    within:
        A constraint's tables in the automaton's reading order, or ``None``.
    """

    def __init__(self, automaton: GrundyAutomaton, head: str,
                 within: Constraint | None = None) -> None:
        tables = automaton.tables
        self.automaton = automaton
        self.width = len(tables.items)
        self.alphabet = automaton.alphabet
        self.within = within
        terms: list[tuple[int, int]] = []  # (letter index, item bit): "letter c ∧ item k"
        shifts: list[tuple[int, int]] = []  # (target bit, term)
        feeds: dict[tuple[int, int], list[int]] = {}  # (head id, j) -> terms
        top: dict[int, int] = {}  # head id -> the largest j fed to it
        for c, a in enumerate(self.alphabet):
            table = tables.letters[a]
            rest = table.relevant
            while rest:
                low = rest & -rest
                k = low.bit_length() - 1
                rest ^= low
                t = len(terms)
                terms.append((c, k))
                if table.shift[k]:
                    shifts.append((table.shift[k].bit_length() - 1, t))
                for h, mask in table.contributions[k]:
                    j = mask.bit_length() - 1
                    feeds.setdefault((h, j), []).append(t)
                    top[h] = max(top.get(h, 0), j)
        self.terms = tuple(terms)
        self.shifts = tuple(shifts)
        units = dict(tables.unit_plan)
        # heads without unit rules first (they depend on nothing of this step), then <_Γ
        order = [h for h in range(len(tables.nonterminals)) if h not in units]
        order += [h for h, _ in tables.unit_plan]
        heads = []
        for h in order:
            targets = tuple((tables.base[c], tables.bound[c]) for c in units.get(h, ()))
            largest = max([top.get(h, -1)] + [m for _, m in targets])
            if largest < 0:
                continue  # J_A is always empty: A never has a value
            heads.append(_Head(base=tables.base[h], bound=tables.bound[h],
                               terms=tuple(tuple(feeds.get((h, j), ()))
                                           for j in range(largest + 1)),
                               units=targets))
        self.heads = tuple(heads)
        self.value_bits = tuple(m.bit_length() - 1 for m in automaton.value_bits(head))
        # the constraint: per target state, its (source state, letter) pairs; dead pairs
        self.moves: tuple[tuple[tuple[int, int], ...], ...] = ()
        self.dead: tuple[tuple[int, int], ...] = ()
        if within is not None:
            moves: list[list[tuple[int, int]]] = [[] for _ in range(within.size)]
            dead = []
            for c, a in enumerate(self.alphabet):
                row = within.rows[a]
                for i in range(within.size):
                    j = row[i]
                    if j < 0:
                        dead.append((i, c))
                    else:
                        moves[j].append((i, c))
            self.moves = tuple(map(tuple, moves))
            self.dead = tuple(dead)

    def initial(self, g: Circuit) -> Frame:
        """q₀ (and the constraint's initial state) as constants."""
        q0 = self.automaton.initial
        state = tuple(g.true if q0 >> k & 1 else g.false for k in range(self.width))
        within: tuple[int, ...] = ()
        if self.within is not None:
            within = tuple(g.true if d == self.within.initial else g.false
                           for d in range(self.within.size))
        return Frame(letters=(), state=state, within=within)

    def free(self, g: Gates, *, constrained: bool = True) -> Frame:
        """An arbitrary state (k-induction's first frame), under the invariant every reachable
        state keeps: each field x B^0 … x B^{m_B} holds at most one value (the value of a
        suffix is unique), and the constraint is in exactly one state.  Not
        ``constrained``: any assignment of the bits (the check of an invariant someone
        else found, :mod:`sdg_automata.search.pdr`, must not lean on ours)."""
        state = tuple(g.new() for _ in range(self.width))
        if not constrained:
            return Frame(letters=(), state=state, within=() if self.within is None else
                         tuple(g.new() for _ in range(self.within.size)))
        for start, end in self.fields():
            g.at_most_one(state[start:end])
        within: tuple[int, ...] = ()
        if self.within is not None:
            within = tuple(g.new() for _ in range(self.within.size))
            g.exactly_one(within)
        return Frame(letters=(), state=state, within=within)

    def fields(self) -> list[tuple[int, int]]:
        """The item fields x B^0 … x B^{m_B}, as ranges of bits (start, end): at most one bit
        of each holds in a reachable state (the value of a suffix is unique)."""
        items = self.automaton.items
        out = []
        k = 0
        while k < self.width:
            end = k + 1
            while end < self.width and (items[end].prefix, items[end].nonterminal) == (
                    items[k].prefix, items[k].nonterminal):
                end += 1
            out.append((k, end))
            k = end
        return out

    def step(self, g: Circuit, prev: Frame) -> Frame:
        """The next frame: one letter read from ``prev``'s state (Steps 3 and 4)."""
        x = g.one_of(len(self.alphabet))
        s = prev.state
        and2, or_ = g.and2, g.or_
        false = g.false
        term = [and2(x[c], s[k]) for c, k in self.terms]
        new = [false] * self.width
        for target, t in self.shifts:
            new[target] = term[t]
        for h in self.heads:
            units = h.units
            spots = []
            for j, ts in enumerate(h.terms):
                inputs = [term[t] for t in ts]
                inputs += [new[base + j] for base, m in units if j <= m]
                spots.append(or_(inputs))
            # the mex: A^v ⟺ J ≠ ∅ ∧ J[0] ∧ … ∧ J[v−1] ∧ ¬J[v]
            prefix = g.true
            for v in range(h.bound + 1):
                bit = spots[v] if v < len(spots) else false
                new[h.base + v] = and2(prefix, -bit) if v else and2(or_(spots), -bit)
                prefix = and2(prefix, bit)
                if prefix == false:
                    break
        within: tuple[int, ...] = ()
        if self.within is not None:
            d = prev.within
            for i, c in self.dead:
                g.forbid([d[i], x[c]])
            within = tuple(or_([and2(d[i], x[c]) for i, c in sources]) for sources in self.moves)
        return Frame(letters=x, state=tuple(new), within=within)

    @property
    def bound(self) -> int:
        """m_A: the values of A are 0 … bound (SPEC §3)."""
        return len(self.value_bits) - 1

    def value(self, frame: Frame, v: int) -> int:
        """The literal "A^v is in the frame's state" (Step 5's F_{A,v})."""
        return frame.state[self.value_bits[v]]

    def accepting(self, g: Circuit, frame: Frame) -> int:
        """The literal "the constraint accepts here" (true without a constraint)."""
        if self.within is None:
            return g.true
        return g.or_([d for d, final in zip(frame.within, self.within.final, strict=True)
                      if final])
