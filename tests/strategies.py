"""Hypothesis strategies for grammars and words, and a from-scratch oracle.

Strategies
----------
* :func:`cfgs` — small context-free grammars without unit cycles: 1–3
  nonterminals, 1–3 letters, bodies of length 1–3, and some unit rules, made
  acyclic by allowing A_i → A_j only for j > i (the names are shuffled, so the
  acyclic order is not the alphabetical one).
* :func:`right_linear_grammars` — A → x, A → xB, A → B with |x| ≤ 3.
* :func:`left_linear_grammars` — A → x, A → Bx, A → B with |x| ≤ 3, and at least
  one rule A → Bx (so the grammar is not also right-linear).
* :func:`words` — words over an alphabet.

The oracle :func:`definition_grundy` is the definition of SPEC §2 written again
here, on the raw rules, sharing no code with the package — the role sympy's
``testutil`` brute-force implementations play for their fast counterparts.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import product

from hypothesis import strategies as st

from sdg_automata.grammar import Grammar, Rule

NAMES = ("A", "B", "C", "D")
LETTERS = ("a", "b", "c")


# ---------------------------------------------------------------------------
# words


def all_words(alphabet: tuple[str, ...] | str, max_length: int, min_length: int = 1) -> list[str]:
    """Every word over ``alphabet`` of length ``min_length`` … ``max_length``, shortlex."""
    return ["".join(t) for n in range(min_length, max_length + 1)
            for t in product(sorted(alphabet), repeat=n)]


def count_words(alphabet_size: int, max_length: int) -> int:
    """How many words :func:`all_words` gives (without building them)."""
    return sum(alphabet_size**n for n in range(1, max_length + 1))


def words(alphabet: tuple[str, ...] | str, *, min_size: int = 1, max_size: int = 6
          ) -> st.SearchStrategy[str]:
    """Words over ``alphabet`` (non-empty by default)."""
    return st.text(alphabet=sorted(alphabet), min_size=min_size, max_size=max_size)


# ---------------------------------------------------------------------------
# grammars


@st.composite
def _names_and_alphabet(draw: st.DrawFn, max_nonterminals: int
                        ) -> tuple[list[str], tuple[str, ...]]:
    k = draw(st.integers(1, max_nonterminals))
    names = draw(st.permutations(NAMES[:k]))
    sigma = LETTERS[: draw(st.integers(1, 3))]
    return list(names), sigma


def _unit_rules(draw: st.DrawFn, names: list[str]) -> list[Rule]:
    """Unit rules names[i] → names[j] with j > i only: never a cycle."""
    out = []
    for i, head in enumerate(names):
        later = names[i + 1 :]
        if later:
            targets = draw(st.lists(st.sampled_from(later), max_size=2, unique=True))
            out.extend(Rule(head, (target,)) for target in targets)
    return out


@st.composite
def cfgs(draw: st.DrawFn, max_nonterminals: int = 3) -> Grammar:
    """A random small CFG without unit cycles (see the module docstring)."""
    names, sigma = draw(_names_and_alphabet(max_nonterminals))
    symbols = st.sampled_from([*names, *sigma])
    rules: list[Rule] = []
    for head in names:
        # non-unit bodies: length 1 means one letter, length 2-3 any symbols
        short = st.sampled_from(sigma).map(lambda a: (a,))
        long = st.lists(symbols, min_size=2, max_size=3).map(tuple)
        bodies = draw(st.lists(st.one_of(short, long), min_size=1, max_size=3))
        rules.extend(Rule(head, body) for body in bodies)
    rules += _unit_rules(draw, names)
    rules = draw(st.permutations(rules))
    start = draw(st.sampled_from(names))
    return Grammar(rules=rules, start=start, terminals=sigma)


def _letters(sigma: tuple[str, ...]) -> st.SearchStrategy[tuple[str, ...]]:
    return st.lists(st.sampled_from(sigma), min_size=1, max_size=3).map(tuple)


@st.composite
def right_linear_grammars(draw: st.DrawFn, max_nonterminals: int = 4) -> Grammar:
    """A random right-linear grammar: A → x | xB | B with 1 ≤ |x| ≤ 3."""
    names, sigma = draw(_names_and_alphabet(max_nonterminals))
    rules: list[Rule] = []
    for head in names:
        terminal = _letters(sigma)
        chained = st.tuples(_letters(sigma), st.sampled_from(names)).map(
            lambda t: (*t[0], t[1]))
        bodies = draw(st.lists(st.one_of(terminal, chained), min_size=1, max_size=4))
        rules.extend(Rule(head, body) for body in bodies)
    rules += _unit_rules(draw, names)
    start = draw(st.sampled_from(names))
    return Grammar(rules=draw(st.permutations(rules)), start=start, terminals=sigma)


@st.composite
def left_linear_grammars(draw: st.DrawFn, max_nonterminals: int = 4) -> Grammar:
    """A random left-linear grammar (A → x | Bx | B) that is not right-linear."""
    names, sigma = draw(_names_and_alphabet(max_nonterminals))
    rules: list[Rule] = []
    for head in names:
        terminal = _letters(sigma)
        chained = st.tuples(st.sampled_from(names), _letters(sigma)).map(
            lambda t: (t[0], *t[1]))
        bodies = draw(st.lists(st.one_of(terminal, chained), min_size=1, max_size=4))
        rules.extend(Rule(head, body) for body in bodies)
    if not any(len(r.body) > 1 and r.body[0] in names for r in rules):
        rules.append(Rule(names[0], (draw(st.sampled_from(names)), *draw(_letters(sigma)))))
    rules += _unit_rules(draw, names)
    start = draw(st.sampled_from(names))
    return Grammar(rules=draw(st.permutations(rules)), start=start, terminals=sigma)


# ---------------------------------------------------------------------------
# the oracle: SPEC §2 from scratch


def _mex(values: set[int]) -> int:
    m = 0
    while m in values:
        m += 1
    return m


class Definition:
    """𝒢_{G,A}(w) straight from SPEC §2, on the raw list of rules.

    A move from (A, w) picks a rule A → u₀A₁u₁…A_ℓu_ℓ and words wᵢ ∈ L(G, Aᵢ)
    with w = u₀w₁u₁…w_ℓu_ℓ; the successor's value is the XOR of the parts'.
    (A, w) is a position iff w ∈ L(G, A), i.e. iff it has a move.  Values are
    memoized per (A, w) for the lifetime of the object (one grammar).
    """

    def __init__(self, rules: tuple[Rule, ...] | list[Rule]):
        self.heads = {r.head for r in rules}
        self.bodies: dict[str, list[tuple[str, ...]]] = {}
        for r in rules:
            self.bodies.setdefault(r.head, []).append(r.body)
        self.memo: dict[tuple[str, str], int | None] = {}
        self.active: set[tuple[str, str]] = set()

    def splits(self, body: tuple[str, ...], w: str) -> Iterator[list[tuple[str, str]]]:
        """Every assignment of the nonterminals of ``body`` to positions, spelling ``w``."""
        if not body:
            if not w:
                yield []
            return
        sym, rest = body[0], body[1:]
        if sym not in self.heads:
            if w[:1] == sym:
                yield from self.splits(rest, w[1:])
            return
        # every later symbol spells at least one letter (no ε rules), so a part of a
        # body of length ≥ 2 is strictly shorter than w
        for cut in range(1, len(w) - len(rest) + 1):
            if self(sym, w[:cut]) is not None:
                for tail in self.splits(rest, w[cut:]):
                    yield [(sym, w[:cut]), *tail]

    def successors(self, head: str, w: str) -> set[tuple[tuple[str, str], ...]]:
        """The successor multisets (as sorted tuples) of {(head, w)}."""
        return {tuple(sorted(parts)) for body in self.bodies[head]
                for parts in self.splits(body, w)}

    def __call__(self, head: str, w: str) -> int | None:
        key = (head, w)
        if key in self.active:
            raise RecursionError(f"unit cycle through {key}")  # inputs have none
        if key not in self.memo:
            self.active.add(key)
            options = set()
            for body in self.bodies[head]:
                for parts in self.splits(body, w):
                    x = 0
                    for b, u in parts:
                        x ^= self(b, u)  # type: ignore[operator]
                    options.add(x)
            self.memo[key] = _mex(options) if options else None
            self.active.discard(key)
        return self.memo[key]


def positions_of(grammar: Grammar, oracle: Definition, max_length: int = 6
                 ) -> list[tuple[str, str]]:
    """Every (A, w) with |w| ≤ ``max_length`` and w ∈ L(G, A), by the oracle.

    Random words are mostly not positions; tests draw from this list too.
    """
    return [(head, w) for w in all_words(grammar.terminals, max_length)
            for head in grammar.nonterminals if oracle(head, w) is not None]


def sample_positions(data: st.DataObject, grammar: Grammar, oracle: Definition, *,
                     max_length: int = 6, max_size: int = 6) -> list[tuple[str, str]]:
    """Draw up to ``max_size`` positions of length ≤ ``max_length`` (none if there are none)."""
    found = positions_of(grammar, oracle, max_length)
    if not found:
        return []
    return data.draw(st.lists(st.sampled_from(found), max_size=max_size), label="positions")


def definition_grundy(grammar: Grammar, head: str, w: str) -> int | None:
    """One-shot :class:`Definition` on ``grammar.rules``."""
    return Definition(grammar.rules)(head, w)
