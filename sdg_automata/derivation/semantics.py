"""The successful derivation game: moves and exact Grundy numbers (SPEC §2).

Three independent routes compute 𝒢_{G,A}(w):

* :func:`naive_grundy` — the definition itself: a word is a position iff it has
  a move, and its value is the mex of its successors' XORs.  Exponential; the
  oracle the others are tested against.
* :class:`SubstringTable` — for any CFG, dynamic programming over the
  substrings of w in the style of CYK: for every rule it keeps the *set* of
  XOR values reachable by splitting a substring among the rule's nonterminals
  (the proposition quoted in Section 2 of the seed paper).  Polynomial.
* :func:`suffix_grundy` — for right-linear grammars, every successor's word is
  a suffix of w (SPEC §2 table), so one right-to-left pass over the suffixes
  suffices: linear in |w|, iterative.

Sets of Grundy values are int bitmasks (bit v set ⟺ v is in the set) and mex
is :func:`~sdg_automata.games.mex.mex_mask`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Literal

from ..automaton.reading import reading_of, servable
from ..errors import BudgetExceeded, InputError
from ..games.mex import mex, mex_mask, nim_sum
from ..grammar import Grammar, Rule
from ..runtime.budget import UNLIMITED, Budget, available_bytes

__all__ = [
    "Method",
    "Pair",
    "Position",
    "ReferenceSubstringTable",
    "Span",
    "SubstringTable",
    "evaluator",
    "grundy",
    "grundy_position",
    "make_position",
    "split_spans",
    "naive_grundy",
    "position_moves",
    "successors",
    "suffix_grundy",
    "table_bytes",
]

Pair = tuple[str, str]
"""One component (A, w) of a position."""

Position = tuple[Pair, ...]
"""A position: a multiset of components, kept as a sorted tuple."""

Method = Literal["auto", "dfa", "brute", "cyk", "naive"]


def make_position(pairs: Iterable[Pair]) -> Position:
    """The multiset of ``pairs`` in canonical (sorted) form."""
    return tuple(sorted(pairs))


def _xor_shift(mask: int, g: int) -> int:
    """{x ^ g : x ∈ mask} for a bitmask set."""
    if g == 0:
        return mask
    out = 0
    while mask:
        low = mask & -mask
        out |= 1 << ((low.bit_length() - 1) ^ g)
        mask ^= low
    return out


# ---------------------------------------------------------------------------
# the definition (oracle of oracles)


Span = tuple[str, int, int]
"""A part (B, i, j) of a split: the nonterminal B takes the subword w[i:j]."""


def split_spans(
    grammar: Grammar, rule: Rule, w: str, is_position: Callable[[str, int, int], bool]
) -> Iterator[tuple[Span, ...]]:
    """Every split of ``w`` by ``rule`` (SPEC §2, a move): the nonterminals' parts in body order.

    Terminals must match letter for letter; a nonterminal B may take w[i:j]
    when ``is_position(B, i, j)``.  Shorter first parts come out first.
    """
    body = rule.body
    n = len(w)
    # iterative depth-first search over (index in body, position in w, parts so far)
    stack: list[tuple[int, int, tuple[Span, ...]]] = [(0, 0, ())]
    while stack:
        k, p, spans = stack.pop()
        if k == len(body):
            if p == n:
                yield spans
            continue
        sym = body[k]
        if not grammar.is_nonterminal(sym):
            if p < n and w[p] == sym:
                stack.append((k + 1, p + 1, spans))
            continue
        # each later symbol needs at least one letter; pushed longest first, popped shortest
        stack.extend((k + 1, q, (*spans, (sym, p, q)))
                     for q in range(n - (len(body) - k - 1), p, -1)
                     if is_position(sym, p, q))


def naive_grundy(grammar: Grammar, head: str, w: str, *,
                 budget: Budget = UNLIMITED) -> int | None:
    r"""𝒢_{G,A}(w) straight from the definition (SPEC §2); ``None`` for ⊥.

    A word is a position of A iff it has a move (SPEC §2: a word of L(G, A)
    always has one, the first step of a derivation, and a move is one).  Every
    move of (B, u) is enumerated by :func:`split_spans` and its value is the
    nim-sum of its parts' values; 𝒢 is the mex.  No parser is consulted.

    The values of the parts are those of shorter subwords of w (or of the same
    subword, for a unit rule), so they are computed bottom-up: the distinct
    subwords of w by increasing length, the nonterminals in the unit-rule order
    <_Γ.  There is no recursion for the word's length to drive (a 180-letter
    word used to raise ``RecursionError``).  The number of moves enumerated is
    exponential in the length of the bodies; the method is meant for short
    words in tests.

    Parameters
    ----------
    grammar, head, w:
        Any grammar, the nonterminal A and the word.
    budget:
        ``budget.max_seconds`` bounds the computation (unit: subwords).

    Returns
    -------
    int or None
        The Grundy number, or ``None`` when w is not a position of A.

    Raises
    ------
    GrammarError
        For a nonterminal ``head`` the grammar does not have.
    BudgetExceeded
        When ``budget`` runs out.

    Examples
    --------
    The oracle agrees with :func:`grundy` on the paper's Example 3:

    >>> from sdg_automata import parse_grammar
    >>> g = parse_grammar("A -> a A | a a A | B | a | a a\nB -> b A | b")
    >>> [naive_grundy(g, "A", w) for w in ("a", "aa", "b", "ba", "c")]
    [1, 2, 0, 1, None]
    """
    grammar.check_nonterminal(head)
    n = len(w)
    if n == 0:
        return None
    heads = grammar.unit_order
    rules = {a: grammar.rules_of(a) for a in heads}
    memo: dict[Pair, int | None] = {}
    meter = budget.start("definition", unit="subwords")
    done = 0
    try:
        for length in range(1, n + 1):
            for u in dict.fromkeys(w[i:i + length] for i in range(n - length + 1)):
                def is_position(b: str, i: int, j: int, u: str = u) -> bool:
                    return memo[(b, u[i:j])] is not None

                for a in heads:
                    options = {nim_sum(memo[(b, u[i:j])] or 0 for b, i, j in spans)
                               for r in rules[a]
                               for spans in split_spans(grammar, r, u, is_position)}
                    memo[(a, u)] = mex(options) if options else None
                done += 1
                meter.check(done)  # a long subword alone may take a while: check each
    except KeyboardInterrupt:
        raise meter.interrupted(done) from None
    return memo[(head, w)]


# ---------------------------------------------------------------------------
# general CFGs: dynamic programming over substrings


class _Program:
    """A grammar compiled for the substring tables: bodies as interned suffixes.

    ``suffixes[s] = (first symbol, is a nonterminal, id of the rest or −1)``;
    ``tops[b]`` are the ids of b's non-unit bodies, ``unit[b]`` the targets of
    its unit rules, ``order`` the nonterminal ids in the unit-rule order <_Γ.
    """

    def __init__(self, grammar: Grammar):
        self.nts = grammar.nonterminals
        self.nt_id = {a: k for k, a in enumerate(self.nts)}
        self.suffix_id: dict[tuple[str, ...], int] = {}
        self.suffixes: list[tuple[str, bool, int]] = []
        self.unit: list[list[int]] = [[] for _ in self.nts]
        self.tops: list[list[int]] = [[] for _ in self.nts]
        for r in grammar.rules:
            if grammar.is_unit(r):
                self.unit[self.nt_id[r.head]].append(self.nt_id[r.body[0]])
            else:
                self.tops[self.nt_id[r.head]].append(self._intern(grammar, r.body))
        self.order = [self.nt_id[a] for a in grammar.unit_order]
        # a suffix that is one nonterminal is known only once that nonterminal is
        self.early = [s for s, (_, is_nt, rest) in enumerate(self.suffixes)
                      if not is_nt or rest >= 0]
        self.late = [s for s, (_, is_nt, rest) in enumerate(self.suffixes)
                     if is_nt and rest < 0]

    def _intern(self, grammar: Grammar, body: tuple[str, ...]) -> int:
        # iterative: bodies may be long; the rest of a suffix is interned first
        k = len(body)
        rest = -1
        while k > 0 and body[k - 1:] in self.suffix_id:
            k -= 1
        if k < len(body):
            rest = self.suffix_id[body[k:]]
        for i in range(k - 1, -1, -1):
            self.suffix_id[body[i:]] = len(self.suffixes)
            self.suffixes.append((body[i], grammar.is_nonterminal(body[i]), rest))
            rest = len(self.suffixes) - 1
        return rest


def table_bytes(grammar: Grammar, n: int) -> int:
    """A lower estimate of the memory :class:`SubstringTable` needs for a word of n letters.

    Each nonterminal keeps, for every start, a map from values to bitsets of
    n bits (one value counted), plus one column of every suffix.
    """
    program = _Program(grammar)
    return len(program.nts) * n * (n // 8 + 300) + len(program.suffixes) * n * 16


class SubstringTable:
    """𝒢_{G,B}(w[i:j]) for every nonterminal B and every substring of ``w``.

    For each suffix s of a right-hand side and each substring w[p:j], the table
    computes X(s, p, j), the set of XOR values of the splits of w[p:j] among
    the nonterminals of s (terminals must match).  Then for a non-unit rule
    A → β, the successors of (A, w[i:j]) through it have exactly the values
    X(β, i, j); a unit rule A → B contributes 𝒢_B(w[i:j]).

    Substrings are taken column by column (by end j, then by decreasing start
    p), so every substring read is shorter or already done, and within one
    substring nonterminals follow the unit-rule order <_Γ.  Sets of values are
    int bitmasks, and the splits of a suffix B·s′ are all examined at once with
    bitsets over split points: for each value v of B and u of s′,

        v ⊕ u ∈ X(B·s′, p, j)  ⟺  ends_B(p, v) ∧ starts_{s′}(j, u) ≠ 0,

    where ``ends_B(p, v)`` has bit q when 𝒢_B(w[p:q]) = v and
    ``starts_{s′}(j, u)`` has bit q when u ∈ X(s′, q, j) (issue 11 §4; the
    per-split loop is kept as :class:`ReferenceSubstringTable`).  Only the
    current column of X is kept, so memory is the ``ends`` bitsets:
    about |N|·|w|²/8 bytes per value that occurs.

    Time O(|w|² · |G| · V²) big-int ANDs of |w| bits, for V the values that occur.

    Parameters
    ----------
    grammar:
        Any grammar (SPEC §1).
    w:
        The word; letters outside Σ simply match no terminal.
    budget:
        ``max_seconds`` stops the fill (unit: substrings); ``progress`` gets the
        number of substrings done.

    Raises
    ------
    BudgetExceeded
        When the table would not fit in the available memory
        (:func:`table_bytes`, checked before any work) or at the budget.
    """

    def __init__(self, grammar: Grammar, w: str, *, budget: Budget = UNLIMITED):
        self.grammar = grammar
        self.word = w
        n = len(w)
        needed = table_bytes(grammar, n)
        free = available_bytes()
        if free is not None and needed > free:
            raise BudgetExceeded(f"the substring table of a {n}-letter word needs at least "
                                 f"{needed / 2**20:.0f} MB; {free / 2**20:.0f} MB is available")
        prog = _Program(grammar)
        suffixes, order, tops, unit = prog.suffixes, prog.order, prog.tops, prog.unit
        nts = prog.nts
        # ends[b][p]: {value v: bitset of q with 𝒢_b(w[p:q]) = v}
        ends: list[list[dict[int, int]]] = [[{} for _ in range(n + 1)] for _ in nts]
        any_end: list[list[int]] = [[0] * (n + 1) for _ in nts]
        rests = sorted({rest for (_, is_nt, rest) in suffixes if is_nt and rest >= 0})
        first_nt = [(s, prog.nt_id[sym], rest) for s, (sym, is_nt, rest) in enumerate(suffixes)
                    if is_nt and rest >= 0]
        first_t = [(s, sym, rest) for s, (sym, is_nt, rest) in enumerate(suffixes)
                   if not is_nt]
        late = [(s, prog.nt_id[suffixes[s][0]]) for s in prog.late]
        meter = budget.start("substring table", unit="substrings")
        done = 0
        try:
            for j in range(1, n + 1):
                x = [[0] * (j + 1) for _ in suffixes]  # X(s, p, j) for this column
                starts: dict[int, dict[int, int]] = {r: {} for r in rests}
                any_start = dict.fromkeys(rests, 0)
                for p in range(j - 1, -1, -1):
                    letter = w[p]
                    for s, sym, rest in first_t:
                        if letter == sym:
                            if rest < 0:
                                if p + 1 == j:
                                    x[s][p] = 1
                            elif p + 1 < j:
                                x[s][p] = x[rest][p + 1]
                    for s, b, rest in first_nt:
                        ends_bp = ends[b][p]
                        if not any_end[b][p] & any_start[rest]:
                            continue
                        acc = 0
                        starts_r = starts[rest]
                        for v, e in ends_bp.items():
                            for u, st in starts_r.items():
                                if e & st:
                                    acc |= 1 << (v ^ u)
                        x[s][p] = acc
                    gcur = [-1] * len(nts)
                    bit = 1 << j
                    for b in order:
                        mask = 0
                        for s in tops[b]:
                            mask |= x[s][p]
                        for c in unit[b]:
                            if gcur[c] >= 0:
                                mask |= 1 << gcur[c]
                        if mask:
                            v = mex_mask(mask)
                            gcur[b] = v
                            row = ends[b][p]
                            row[v] = row.get(v, 0) | bit
                            any_end[b][p] |= bit
                    for s, b in late:
                        if gcur[b] >= 0:
                            x[s][p] = 1 << gcur[b]
                    pbit = 1 << p
                    for r in rests:
                        mask = x[r][p]
                        if mask:
                            any_start[r] |= pbit
                            col = starts[r]
                            while mask:
                                low = mask & -mask
                                u = low.bit_length() - 1
                                col[u] = col.get(u, 0) | pbit
                                mask ^= low
                done += j
                meter.check(done)
        except KeyboardInterrupt:
            raise meter.interrupted(done) from None
        self._ends = ends
        self._nt_id = prog.nt_id

    def grundy(self, head: str, i: int = 0, j: int | None = None) -> int | None:
        """𝒢_{G,head}(w[i:j]), or ``None`` when w[i:j] ∉ L(G, head)."""
        self.grammar.check_nonterminal(head)
        j = len(self.word) if j is None else j
        if not 0 <= i < j <= len(self.word):
            return None
        for v, e in self._ends[self._nt_id[head]][i].items():
            if e >> j & 1:
                return v
        return None

    def is_position(self, head: str, i: int, j: int) -> bool:
        """Whether w[i:j] ∈ L(G, head)."""
        return self.grundy(head, i, j) is not None


class ReferenceSubstringTable:
    """The substring table with one Python step per split point: the reference.

    The same values as :class:`SubstringTable`, by the direct recurrence:
    X(B·s′, p, j) = ⋃_q {𝒢_B(w[p:q]) ⊕ u : u ∈ X(s′, q, j)}, substrings by
    increasing length, the whole O(|w|²·|G|) table kept.  Time O(|w|³ · |G|)
    set operations.  Kept for the tests and ``benchmarks/bench_grundy``.
    """

    def __init__(self, grammar: Grammar, w: str):
        self.grammar = grammar
        self.word = w
        n = len(w)
        prog = _Program(grammar)
        suffixes, order, tops, unit = prog.suffixes, prog.order, prog.tops, prog.unit
        nts, nt_id = prog.nts, prog.nt_id
        # g[b][p][j]: value or -1; defined[b][p]: [(j, value)] in increasing j
        g = [[[-1] * (n + 1) for _ in range(n + 1)] for _ in nts]
        defined: list[list[list[tuple[int, int]]]] = [[[] for _ in range(n + 1)] for _ in nts]
        x = [[[0] * (n + 1) for _ in range(n + 1)] for _ in suffixes]

        def fill(s: int, p: int, j: int) -> None:
            sym, is_nt, rest = suffixes[s]
            if not is_nt:
                if w[p] == sym:
                    x[s][p][j] = (1 if p + 1 == j else 0) if rest < 0 else x[rest][p + 1][j]
                return
            b = nt_id[sym]
            if rest < 0:
                v = g[b][p][j]
                x[s][p][j] = 1 << v if v >= 0 else 0
                return
            acc = 0
            xr = x[rest]
            for q, v in defined[b][p]:
                if q >= j:
                    break
                m = xr[q][j]
                if m:
                    acc |= _xor_shift(m, v)
            x[s][p][j] = acc

        for length in range(1, n + 1):
            for p in range(n - length + 1):
                j = p + length
                for s in prog.early:
                    fill(s, p, j)
                for b in order:
                    mask = 0
                    for s in tops[b]:
                        mask |= x[s][p][j]
                    for c in unit[b]:
                        if g[c][p][j] >= 0:
                            mask |= 1 << g[c][p][j]
                    if mask:
                        v = mex_mask(mask)
                        g[b][p][j] = v
                        defined[b][p].append((j, v))
                for s in prog.late:
                    fill(s, p, j)
        self._g = g
        self._nt_id = nt_id

    def grundy(self, head: str, i: int = 0, j: int | None = None) -> int | None:
        """𝒢_{G,head}(w[i:j]), or ``None`` when w[i:j] ∉ L(G, head)."""
        self.grammar.check_nonterminal(head)
        j = len(self.word) if j is None else j
        if not 0 <= i < j <= len(self.word):
            return None
        v = self._g[self._nt_id[head]][i][j]
        return v if v >= 0 else None


# ---------------------------------------------------------------------------
# right-linear grammars: one pass over the suffixes


def suffix_grundy(grammar: Grammar, w: str) -> dict[str, int | None]:
    """𝒢_{G,B}(w) for every nonterminal B of a right-linear grammar.

    Every successor of (B, y) is (C, y′) with y′ a suffix of y (SPEC §2
    table), so the values of all suffixes are computed right to left; only the
    last ``max |x| + 1`` rows are kept.  Linear in |w|, iterative.

    Raises
    ------
    InputError
        If the grammar is not right-linear.
    """
    if not grammar.is_right_linear:
        raise InputError(f"suffix_grundy needs a right-linear grammar, this one is {grammar.kind}")
    nts = grammar.nonterminals
    nt_id = {a: k for k, a in enumerate(nts)}
    # per head, rules by first letter: (letters x, successor id or -1 for a terminal rule)
    by_letter: list[dict[str, list[tuple[str, int]]]] = [{} for _ in nts]
    units: list[list[int]] = [[] for _ in nts]
    width = 1
    for r in grammar.rules:
        h = nt_id[r.head]
        if grammar.is_unit(r):
            units[h].append(nt_id[r.body[0]])
            continue
        last = r.body[-1]
        tail = nt_id[last] if grammar.is_nonterminal(last) else -1
        letters = "".join(r.body[:-1] if tail >= 0 else r.body)
        by_letter[h].setdefault(letters[0], []).append((letters, tail))
        width = max(width, len(letters) + 1)
    order = [nt_id[a] for a in grammar.unit_order]
    n = len(w)
    rows = [[-1] * len(nts) for _ in range(width)]
    for p in range(n - 1, -1, -1):
        row = rows[p % width]
        first = w[p]
        for h in order:
            mask = 0
            for letters, tail in by_letter[h].get(first, ()):
                end = p + len(letters)
                if not w.startswith(letters, p):
                    continue
                if tail < 0:
                    if end == n:
                        mask |= 1
                elif end < n:
                    v = rows[end % width][tail]
                    if v >= 0:
                        mask |= 1 << v
            for c in units[h]:
                if row[c] >= 0:
                    mask |= 1 << row[c]
            row[h] = mex_mask(mask) if mask else -1
    if n == 0:
        return dict.fromkeys(nts)
    return {a: (v if v >= 0 else None) for a, v in zip(nts, rows[0], strict=True)}


# ---------------------------------------------------------------------------
# the public entry points


def evaluator(grammar: Grammar, *, method: Method = "auto",
              budget: Budget = UNLIMITED) -> Callable[[str, str], int | None]:
    """A function ``(A, w) -> 𝒢_{G,A}(w)`` that keeps its precomputation across calls.

    Use it for batches of words: with the automaton, transitions computed for
    one word serve every later one.  See :func:`grundy` for ``method``.
    ``budget`` bounds each word's substring table or definition (its clock
    starts anew for every word); the linear routes need none.
    """
    linear = servable(grammar)
    if method == "naive":
        return lambda head, w: naive_grundy(grammar, head, w, budget=budget) if w else None
    if method == "cyk" or (method in ("auto", "brute") and not linear):
        return lambda head, w: (SubstringTable(grammar, w, budget=budget)
                                .grundy(grammar.check_nonterminal(head)) if w else None)
    if method not in ("auto", "brute", "dfa"):
        raise InputError(f"unknown method {method!r} (expected auto, dfa, brute, cyk or naive)")
    # left-linear grammars are served by their mirror: the reading decides it, once
    reading = reading_of(grammar, refusal=f"method {method!r} needs a right- or left-linear "
                                          f"grammar, this one is {{kind}}")
    if method == "brute":
        rlg = reading.right_linear

        def by_suffixes(head: str, w: str) -> int | None:
            rlg.check_nonterminal(head)
            return suffix_grundy(rlg, reading.word(w))[head] if w else None

        return by_suffixes
    from ..automaton.construction import GrundyAutomaton  # lazily: the heavy module

    return GrundyAutomaton(reading.right_linear, reading=reading).grundy


def grundy(grammar: Grammar, head: str, w: str, *, method: Method = "auto") -> int | None:
    """𝒢_{G,A}(w): the Grundy number of the position {(A, w)}, or ``None`` (⊥).

    Parameters
    ----------
    grammar, head, w:
        The grammar, the nonterminal A and the word.  A letter outside Σ
        makes ``w`` not a position, and so does the empty word.
    method:
        ``"auto"`` picks the fastest exact route: the Step 1–5 automaton for
        right- and left-linear grammars, the substring DP otherwise.
        ``"dfa"`` forces the automaton (right/left-linear only), ``"brute"``
        the dynamic programs of this module (suffix DP for right/left-linear
        grammars, substring DP otherwise), ``"cyk"`` the substring DP always,
        ``"naive"`` the exponential definition.

    Returns
    -------
    int or None
        𝒢_{G,A}(w), or ``None`` when w is not a position of A (w ∉ L(G, A)).

    Raises
    ------
    GrammarError
        For a nonterminal ``head`` the grammar does not have.
    InputError
        For an unknown ``method``, or ``"dfa"`` on a grammar that is neither
        right- nor left-linear.

    Examples
    --------
    >>> from sdg_automata.grammar.parse import parse_grammar
    >>> csub = parse_grammar("A -> a A | a a A | b A | a | a a | b")
    >>> grundy(csub, "A", "a"), grundy(csub, "A", "aa"), grundy(csub, "A", "c")
    (1, 2, None)
    """
    grammar.check_nonterminal(head)
    return evaluator(grammar, method=method)(head, w)


def grundy_position(
    grammar: Grammar, position: Iterable[Pair], *, method: Method = "auto"
) -> int | None:
    r"""𝒢 of a multiset position: the XOR of its parts (a sum of games), or ``None``
    when some part is not a position (SPEC §2).

    Parameters
    ----------
    grammar:
        The grammar G.
    position:
        The pairs (A, w) of the multiset, in any order; a pair may repeat.
    method:
        As :func:`grundy`'s, for each part.

    Returns
    -------
    int or None
        The nim-sum of the parts' Grundy numbers; 0 for the empty position (no
        move: the player to move loses).

    Raises
    ------
    GrammarError
        For a nonterminal the grammar does not have.
    InputError
        As :func:`grundy`, for a bad ``method``.

    Examples
    --------
    >>> from sdg_automata import parse_grammar
    >>> g = parse_grammar("A -> a A | a a A | B | a | a a\nB -> b A | b")
    >>> grundy(g, "A", "aa"), grundy(g, "B", "ba")
    (2, 0)
    >>> grundy_position(g, [("A", "aa"), ("B", "ba"), ("A", "a")])  # 2 ^ 0 ^ 1
    3
    >>> grundy_position(g, [("A", "aa"), ("A", "aa")])  # a game plus itself is 0
    0
    """
    value = evaluator(grammar, method=method)
    total = 0
    for head, w in position:
        v = value(grammar.check_nonterminal(head), w)
        if v is None:
            return None
        total ^= v
    return total


def successors(grammar: Grammar, head: str, w: str) -> list[Position]:
    r"""The successor multisets of the position {(A, w)} (SPEC §2, a move), each once.

    Membership of the parts is decided by one :class:`SubstringTable` of ``w``.

    Parameters
    ----------
    grammar, head, w:
        Any grammar, the nonterminal A and the word.

    Returns
    -------
    list of tuple
        Each position one move leads to, as a sorted tuple of pairs (B, u); the
        empty tuple is the position with no pairs (a terminal rule was used).  The
        list is empty when w is not a position of A.

    Raises
    ------
    GrammarError
        For a nonterminal ``head`` the grammar does not have.

    Examples
    --------
    In Example 3, (A, aa) moves by ``A -> a A`` to {(A, a)} and by ``A -> a a`` to
    the empty position, so its value is mex{1, 0} = 2:

    >>> from sdg_automata import parse_grammar
    >>> g = parse_grammar("A -> a A | a a A | B | a | a a\nB -> b A | b")
    >>> successors(g, "A", "aa")
    [(('A', 'a'),), ()]
    """
    grammar.check_nonterminal(head)
    table = SubstringTable(grammar, w)
    out = dict.fromkeys(make_position((b, w[i:j]) for b, i, j in spans)
                        for r in grammar.rules_of(head)
                        for spans in split_spans(grammar, r, w, table.is_position))
    return list(out)


def position_moves(grammar: Grammar, position: Iterable[Pair]) -> Iterator[tuple[int, Position]]:
    """Every move of a multiset position: (index of the component played, result)."""
    parts = list(position)
    for k, (head, w) in enumerate(parts):
        rest = parts[:k] + parts[k + 1 :]
        for succ in successors(grammar, head, w):
            yield k, make_position(rest + list(succ))
