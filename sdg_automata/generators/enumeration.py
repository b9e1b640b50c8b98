"""Right-linear grammars of a given size, one per isomorphism class.

The shape of the grammars (issue 12): exactly ``N`` nonterminals named
``N0, N1, …`` with ``N0`` the start symbol, between 1 and ``R`` rules for every
nonterminal, each body a word of at most ``L`` letters over Σ followed by at
most one nonterminal (never empty; a body without letters is a unit rule,
allowed only with ``unit_rules``).  Grammars with a cycle of unit rules (SPEC §1
refuses them) or with a nonterminal that derives no terminal word are skipped.

Two grammars are *isomorphic* when one becomes the other by renaming the
nonterminals other than the start (a permutation of ``N1 … N(N-1)``) and
permuting the letters of Σ.  Isomorphic grammars have the same Grundy values
up to that renaming (the game only looks at the shape of the rules), so a sweep
needs one grammar per class.

Canonical form
--------------
Bodies are numbered in the order (number of letters, letters as indices into Σ,
target nonterminal with "none" first); a nonterminal's rules are the sorted
tuple of their body numbers; the rule sets are numbered in lexicographic order
of those tuples; and a grammar's *code* is the tuple of the rule-set numbers of
``N0, N1, …``.  The **canonical form** of a class is its member whose code is
lexicographically least.  :func:`grammar_classes` yields exactly the grammars
that are canonical, in increasing code order: it builds codes one nonterminal at
a time and abandons a prefix as soon as some renaming is certain to map it to a
smaller code (an orderly generation), so no class is seen twice and no grammar
is stored.  ``tests/generators/test_sweep_enumeration.py`` checks the classes against a
brute-force enumeration that groups all grammars by explicit isomorphism tests.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property

from ..errors import BudgetExceeded, InputError
from ..grammar import Grammar, Rule

__all__ = ["GrammarShape", "count_classes", "grammar_classes", "nonterminal_name"]

#: letters a sweep may use: one lower-case letter or digit each (they must not be
#: mistaken for the nonterminals N0, N1, … in the text format)
_LETTER = re.compile(r"[a-z0-9]")

#: a body: its letters as indices into Σ, then the target nonterminal (-1: none)
Body = tuple[tuple[int, ...], int]


def nonterminal_name(i: int) -> str:
    """The name of the i-th nonterminal of a swept grammar: ``N0`` (the start), ``N1``, …"""
    return f"N{i}"


#: the most (rule set × renaming) entries the enumeration's tables may hold (about 1 GB)
MAX_TABLE = 10_000_000


@dataclass(frozen=True, kw_only=True)
class GrammarShape:
    """The size limits of a grammar sweep.

    Parameters
    ----------
    nonterminals:
        N, the exact number of nonterminals (≥ 1).
    letters:
        Σ, distinct lower-case letters or digits (``"ab"``).
    max_rules:
        R, the most rules of one nonterminal (≥ 1).
    max_body:
        L, the most letters before the optional nonterminal of a body (≥ 1).
    unit_rules:
        Whether bodies without letters (unit rules A → B) are allowed.
    """

    nonterminals: int
    letters: str
    max_rules: int
    max_body: int
    unit_rules: bool = False

    def __post_init__(self) -> None:
        for name in ("nonterminals", "max_rules", "max_body"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"{name} must be a positive integer, not {value!r}")
        if not self.letters or any(not _LETTER.fullmatch(c) for c in self.letters):
            raise InputError(f"letters must be lower-case letters or digits, not "
                             f"{self.letters!r}")
        if len(set(self.letters)) != len(self.letters):
            raise InputError(f"letters {self.letters!r} repeat a letter")
        self.check_size()  # arithmetic only: before any table is built

    # -- the building blocks ---------------------------------------------------

    @cached_property
    def bodies(self) -> tuple[Body, ...]:
        """Every allowed body, in the canonical order of the module docstring."""
        k, n = len(self.letters), self.nonterminals
        out: list[Body] = []
        for length in range(self.max_body + 1):
            for word in itertools.product(range(k), repeat=length):
                for target in range(-1, n):
                    if length == 0 and (target == -1 or not self.unit_rules):
                        continue
                    out.append((word, target))
        return tuple(out)

    def check_size(self) -> None:
        """Refuse at once the shapes whose tables cannot be built.

        The enumeration keeps every set of at most R bodies and its image under
        every renaming; past :data:`MAX_TABLE` entries that is gigabytes (three
        letters, bodies of four, four rules: 2·10⁹ sets).

        Raises
        ------
        BudgetExceeded
            Saying how many sets the shape has.
        """
        k, n = len(self.letters), self.nonterminals
        group = math.factorial(k) * math.factorial(n - 1)  # letter and name permutations
        if group > MAX_TABLE:
            raise BudgetExceeded(
                f"{k}! letter permutations × {n - 1}! renamings = {group:,} isomorphisms to "
                "check: too large to enumerate; use fewer letters or nonterminals")
        m = sum(k**length for length in range(self.max_body + 1)) * (n + 1)
        m -= 1 + (0 if self.unit_rules else n)  # no empty body, no unit rule unless allowed
        sets, term = 0, 1
        for r in range(1, self.max_rules + 1):
            term = term * (m - r + 1) // r
            sets += term
            if sets * group > MAX_TABLE:
                raise BudgetExceeded(
                    f"{m} possible bodies give more than {MAX_TABLE // group:,} sets of at "
                    f"most {self.max_rules} rules per nonterminal: too large to enumerate; "
                    "lower --max-rules, --max-body or the letters")

    @cached_property
    def rule_sets(self) -> tuple[tuple[int, ...], ...]:
        """Every set of 1 … R body numbers, as sorted tuples, in lexicographic order."""
        m = len(self.bodies)
        sets = [c for r in range(1, self.max_rules + 1)
                for c in itertools.combinations(range(m), r)]
        return tuple(sorted(sets))

    @cached_property
    def _set_index(self) -> dict[tuple[int, ...], int]:
        return {s: i for i, s in enumerate(self.rule_sets)}

    @cached_property
    def renamings(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """The group: pairs (σ on letter indices, π on nonterminals with π(0) = 0).

        The identity comes first.
        """
        letters = tuple(itertools.permutations(range(len(self.letters))))
        names = tuple((0, *p) for p in itertools.permutations(range(1, self.nonterminals)))
        return tuple((s, p) for p in names for s in letters)

    @cached_property
    def _images(self) -> tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]:
        """For each renaming g ≠ identity: (π⁻¹, image of every rule-set number under g)."""
        body_index = {b: i for i, b in enumerate(self.bodies)}
        out = []
        for sigma, pi in self.renamings[1:]:
            body_map = [body_index[(tuple(sigma[x] for x in w), t if t < 0 else pi[t])]
                        for w, t in self.bodies]
            image = tuple(self._set_index[tuple(sorted(body_map[b] for b in s))]
                          for s in self.rule_sets)
            inverse = [0] * len(pi)
            for i, j in enumerate(pi):
                inverse[j] = i
            out.append((tuple(inverse), image))
        return tuple(out)

    # -- grammars ---------------------------------------------------------------

    def rules(self, code: tuple[int, ...]) -> tuple[tuple[str, tuple[str, ...]], ...]:
        """The rules (head, body symbols) of the grammar with this code, in canonical order."""
        out = []
        for h, s in enumerate(code):
            for b in self.rule_sets[s]:
                word, target = self.bodies[b]
                body = tuple(self.letters[x] for x in word)
                if target >= 0:
                    body += (nonterminal_name(target),)
                out.append((nonterminal_name(h), body))
        return tuple(out)

    def grammar(self, code: tuple[int, ...]) -> Grammar:
        """The :class:`~sdg_automata.grammar.Grammar` of a code, with Σ the sweep's letters."""
        return Grammar(rules=(Rule(h, b) for h, b in self.rules(code)), start="N0",
                       terminals=self.letters)

    def _valid(self, code: tuple[int, ...]) -> bool:
        """No unit cycle, and every nonterminal derives some terminal word."""
        sets = [[self.bodies[b] for b in self.rule_sets[s]] for s in code]
        productive: set[int] = set()
        grew = True
        while grew:
            grew = False
            for h, bodies in enumerate(sets):
                if h not in productive and any(t < 0 or t in productive for _, t in bodies):
                    productive.add(h)
                    grew = True
        if len(productive) < len(sets):
            return False
        if not self.unit_rules:
            return True
        units = [[t for w, t in bodies if not w] for bodies in sets]
        state = [0] * len(sets)  # 0 new, 1 on the path, 2 done: a depth-first cycle search

        def cyclic(h: int) -> bool:
            state[h] = 1
            for t in units[h]:
                if state[t] == 1 or (state[t] == 0 and cyclic(t)):
                    return True
            state[h] = 2
            return False

        return not any(state[h] == 0 and cyclic(h) for h in range(len(sets)))


def _smaller_image(prefix: list[int], images: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...],
                   live: list[int]) -> tuple[bool, list[int]]:
    """Whether some renaming surely maps ``prefix`` below itself; the renamings still open.

    Renaming g maps the code c to g(c) with g(c)[i] = g(c[π⁻¹(i)]).  Position i
    of g(c) is known once π⁻¹(i) is in the prefix; the comparison of g(c) with
    c is settled at the first known position where they differ, and is open
    when an unknown position comes first.
    """
    n = len(prefix)
    still: list[int] = []
    for gi in live:
        inverse, image = images[gi]
        for i in range(len(inverse)):
            j = inverse[i]
            if j >= n or i >= n:
                still.append(gi)  # undecided until more nonterminals are chosen
                break
            mapped = image[prefix[j]]
            if mapped < prefix[i]:
                return True, still
            if mapped > prefix[i]:
                break  # g(c) > c whatever comes next: g never refutes this prefix
        # equal on every position: g fixes c, which is fine
    return False, still


def grammar_classes(shape: GrammarShape) -> Iterator[tuple[int, ...]]:
    """The codes of the canonical grammars of ``shape``, in increasing order.

    One per isomorphism class of the grammars described by ``shape`` (see the
    module docstring); :meth:`GrammarShape.grammar` turns a code into a grammar.

    Examples
    --------
    >>> shape = GrammarShape(nonterminals=1, letters="ab", max_rules=1, max_body=1)
    >>> [shape.rules(c) for c in grammar_classes(shape)]
    [(('N0', ('a',)),)]
    """
    n = shape.nonterminals
    images = shape._images
    sets = shape.rule_sets
    bodies = shape.bodies
    # a unit rule A -> A is a cycle by itself: leave those sets out per head
    allowed = [[i for i, s in enumerate(sets)
                if not any(bodies[b] == ((), h) for b in s)] for h in range(n)]
    prefix: list[int] = []

    def extend(live: list[int]) -> Iterator[tuple[int, ...]]:
        h = len(prefix)
        if h == n:
            code = tuple(prefix)
            if shape._valid(code):
                yield code
            return
        for s in allowed[h]:
            prefix.append(s)
            refuted, still = _smaller_image(prefix, images, live)
            if not refuted:
                yield from extend(still)
            prefix.pop()

    yield from extend(list(range(len(images))))


def count_classes(shape: GrammarShape) -> int:
    """How many isomorphism classes :func:`grammar_classes` yields."""
    return sum(1 for _ in grammar_classes(shape))
