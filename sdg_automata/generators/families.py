"""Instance families with known answers (SPEC §5 and §7).

* :func:`intersection_grammar` — the PSPACE-hardness reduction of SPEC §5 from
  DFA intersection non-emptiness: for DFAs D₁ … D_k accepting only words of even
  length it builds a right-linear grammar in which 𝒢(A, w) =
  mex{t − 1 : w ∈ L(D_t)}, so max 𝒢_A = k iff L(D₁) ∩ … ∩ L(D_k) ∖ {ε} ≠ ∅.
* :func:`modular_family` — unary DFAs accepting aⁿ with n ≡ rᵢ (mod pᵢ), n even;
  the answer follows from the Chinese remainder theorem (:func:`modular_truth`),
  independently of any automaton.
* :func:`random_family` — random binary DFAs, made even-length by a product
  with the even-length DFA; :func:`product_truth` answers with automata-lib's
  products.
* :func:`planted_intersection` — random DFAs, each accepting exactly the words
  that end where a planted word of even length ends: the planted word is in
  their intersection, so the maximum is their number, known without any
  product (the instances where explicit search runs out, issue 20).
* :func:`ring_intersection` — DFAs counting a's modulo odd primes, two of them
  modulo 3 with different residues: an empty intersection whose unreachable states
  loop (k-induction never proves it; PDR does).
* :func:`counting_intersection` — DFAs counting a's modulo twice the odd primes: with
  an empty intersection (two of them accept even and odd counts), or with a common
  word aⁿ that the Chinese remainder theorem makes the shortest, optionally with
  random DFAs that accept it too (deep witnesses where explicit search runs out).
* :func:`subtraction_grammar` — the unary grammar A → aᵏA | aᵏ (k ∈ S) of a
  subtraction game (SPEC §7).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from math import gcd, prod
from typing import TYPE_CHECKING, Any

from ..automaton.minimal import canonical
from ..errors import BudgetExceeded, InputError
from ..grammar import Grammar, Rule

if TYPE_CHECKING:
    from automata.fa.dfa import DFA

#: The largest instance written, in symbols of its grammar (about 10 MB of text).
#: ``family subtraction 1000000000`` asked for 2·10⁹ and took 15 GB before any
#: output; every size is known from the parameters, so it is checked first.
MAX_SYMBOLS = 10**6

#: The largest product :func:`product_truth` may build; each step is bounded before it
#: is built by |product so far| · |next DFA| (automata-lib needs about 1.6 KB per state).
MAX_PRODUCT_STATES = 10**6


def _refuse_over(size: int, limit: int, what: str, unit: str) -> None:
    """Raise :class:`BudgetExceeded` before building anything of ``size`` > ``limit``."""
    if size > limit:
        shown = f"{size:,}" if size < 10**15 else f"about 10^{len(str(size)) - 1}"
        raise BudgetExceeded(f"{what} would have up to {shown} {unit}, over the limit of "
                             f"{limit:,}: too large to build")

__all__ = [
    "ModularSpec",
    "counting_intersection",
    "counting_truth",
    "even_length_dfa",
    "intersection_grammar",
    "modular_dfa",
    "modular_family",
    "modular_truth",
    "planted_intersection",
    "product_truth",
    "random_family",
    "ring_intersection",
    "smallest_common_solution",
    "subtraction_grammar",
]

TOP = "A"


def _productive(d: DFA) -> set[Any]:
    """States from which some non-empty word reaches a final state: the predecessors of
    the final states, closed under predecessors (one backward search, linear; a fixpoint
    over every state took quadratic time on a cycle: 8.5 s for ``family modular 4097:0
    3:1``, so about 36 minutes for 65537; 1.9 s now)."""
    into: dict[Any, list[Any]] = {}
    for s, row in d.transitions.items():
        for t in row.values():
            into.setdefault(t, []).append(s)
    out: set[Any] = set()
    todo = [s for t in d.final_states for s in into.get(t, ())]
    while todo:
        s = todo.pop()
        if s not in out:
            out.add(s)
            todo.extend(into.get(s, ()))
    return out


def intersection_grammar(dfas: Sequence[DFA], *, top: str = TOP) -> Grammar:
    """The grammar of SPEC §5 for DFAs D₁ … D_k that accept only even-length words.

    Nonterminals: ``D{i}_{s}`` for state s of Dᵢ (its embedding, where every
    position (s, w) has exactly one move, so 𝒢 = |w| mod 2), ``V{i}_{t}`` for
    the chain Vᵢᵗ → Vᵢ⁰ | … | Vᵢ^{t−1} (𝒢 = t on L(Dᵢ)), and the top
    A → V₁⁰ | V₂¹ | … | V_k^{k−1}.  Rules into states that reach no final
    state are left out (they would have no positions).

    Raises
    ------
    InputError
        If a DFA accepts a word of odd length (the reduction needs even
        lengths), or if every language is empty or {ε}.
    """
    rules: list[Rule] = []
    top_rules: list[Rule] = []
    letters: set[str] = set()
    for i, d in enumerate(dfas, 1):
        letters |= set(d.input_symbols)
        odd = d.difference(even_length_dfa(d.input_symbols))
        if not odd.isempty():
            raise InputError(f"DFA {i} accepts words of odd length; take its product with the "
                             "even-length DFA first (SPEC §5)")
        name = {s: f"D{i}_{k}" for k, s in enumerate(sorted(d.states, key=repr))}
        live = _productive(d)
        for s in sorted(live, key=repr):
            for a, t in sorted(d.transitions[s].items()):
                if t in live:
                    rules.append(Rule(name[s], (a, name[t])))
                if t in d.final_states:
                    rules.append(Rule(name[s], (a,)))
        if d.initial_state not in live:
            continue  # L(Dᵢ) ⊆ {ε}: no position; V chains would have no rules
        chain = [name[d.initial_state]]
        for t in range(1, i):
            chain.append(f"V{i}_{t}")
            rules.extend(Rule(chain[t], (chain[u],)) for u in range(t))
        top_rules.append(Rule(top, (chain[i - 1],)))
    if not top_rules:
        raise InputError("every DFA accepts no non-empty word: the top nonterminal would have "
                         "no positions")
    return Grammar(rules=[*top_rules, *rules], start=top, terminals=letters)


# ---------------------------------------------------------------------------
# unary modular instances and their CRT ground truth


@dataclass(frozen=True)
class ModularSpec:
    """Dᵢ accepts aⁿ with n ≡ ``residue`` (mod ``modulus``) and n even."""

    modulus: int
    residue: int

    def __post_init__(self) -> None:
        if self.modulus < 1:
            raise InputError(f"modulus {self.modulus} must be at least 1")
        if not 0 <= self.residue < self.modulus:
            raise InputError(f"residue {self.residue} must be in 0..{self.modulus - 1}")

    @classmethod
    def parse(cls, text: str) -> ModularSpec:
        """``"p:r"``, e.g. ``"5:2"``."""
        p, sep, r = text.partition(":")
        try:
            if not sep:
                raise ValueError
            modulus, residue = int(p), int(r)
        except ValueError:
            raise InputError(f"{text!r} is not MODULUS:RESIDUE (e.g. 5:2)") from None
        # outside the try: InputError is a ValueError, and its message is the precise one
        return cls(modulus, residue)


def modular_dfa(spec: ModularSpec, letter: str = "a") -> DFA:
    """The unary DFA of aⁿ with n ≡ r (mod p) and n even (states n mod lcm(2, p))."""
    from automata.fa.dfa import DFA

    m = spec.modulus * 2 // gcd(spec.modulus, 2)
    return DFA(states=set(range(m)), input_symbols={letter},
               transitions={n: {letter: (n + 1) % m} for n in range(m)}, initial_state=0,
               final_states={n for n in range(m)
                             if n % 2 == 0 and n % spec.modulus == spec.residue})


def modular_family(specs: Iterable[ModularSpec]) -> Grammar:
    """The SPEC §5 grammar of the unary modular DFAs.

    Raises
    ------
    BudgetExceeded
        Before any work, when the grammar would have over :data:`MAX_SYMBOLS`
        symbols (about 4·lcm(p, 2) per DFA, plus the chains).
    """
    specs = list(specs)
    size = sum(4 * (s.modulus * 2 // gcd(s.modulus, 2)) for s in specs) + len(specs) ** 2
    _refuse_over(size, MAX_SYMBOLS, "the grammar", "symbols")
    return intersection_grammar([modular_dfa(s) for s in specs])


def smallest_common_solution(congruences: Iterable[tuple[int, int]]) -> int | None:
    """The least n ≥ 1 with n ≡ r (mod p) for every (p, r), or ``None``.

    Generalized Chinese remainder theorem: merge x ≡ r₁ (mod p₁) with
    x ≡ r₂ (mod p₂) when r₁ ≡ r₂ (mod gcd(p₁, p₂)).
    """
    r, m = 0, 1
    for p, q in congruences:
        g = gcd(m, p)
        if (q - r) % g:
            return None
        # r + m·t ≡ q (mod p)  ⟺  (m/g)·t ≡ (q − r)/g (mod p/g)
        t = ((q - r) // g * pow(m // g, -1, p // g)) % (p // g) if p // g > 1 else 0
        r, m = r + m * t, m * p // g
        r %= m
    return r if r >= 1 else r + m


def modular_truth(specs: Sequence[ModularSpec]) -> tuple[int | None, int | None]:
    """Ground truth for :func:`modular_family`: (max 𝒢_A, length of a shortest witness).

    𝒢(A, aⁿ) = mex{t − 1 : aⁿ ∈ L(D_t)} is the largest j with aⁿ ∈ L(D₁) ∩ … ∩
    L(D_j), so the maximum is the largest j whose first j congruences (and n
    even) have a common solution n ≥ 1.  Positions exist iff some D_t alone is
    solvable; the maximum is then at least 0.  Pure number theory: no automaton.
    """
    solvable = [smallest_common_solution([(2, 0), (s.modulus, s.residue)]) for s in specs]
    if all(n is None for n in solvable):
        return None, None
    best, length = 0, min(n for n in solvable if n is not None)
    for j in range(1, len(specs) + 1):
        n = smallest_common_solution([(2, 0)] + [(s.modulus, s.residue) for s in specs[:j]])
        if n is None:
            break
        best, length = j, n
    # value 0 is reached by a word in some L(D_t) but not in L(D₁); its length is not needed
    return best, (length if best > 0 else None)


# ---------------------------------------------------------------------------
# random binary DFAs and automata-lib ground truth


def random_family(count: int, states: int, *, seed: int, alphabet: str = "ab") -> list[DFA]:
    """``count`` random DFAs on ``states`` states, each crossed with the even-length DFA."""
    _refuse_family(count, states, alphabet)
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        transitions = _random_transitions(rng, states, alphabet)
        final = {s for s in range(states) if rng.random() < 0.5}
        out.append(_even(transitions, final, alphabet))
    return out


def _refuse_family(count: int, states: int, alphabet: str) -> None:
    """Refuse, before any work, no DFA or no state, and a grammar over MAX_SYMBOLS symbols."""
    if count < 1 or states < 1:
        raise InputError("need at least one DFA with at least one state")
    _refuse_over(count * 2 * states * (len(alphabet) + 1) * 3, MAX_SYMBOLS, "the grammar",
                 "symbols")


def _random_transitions(rng: random.Random, states: int, alphabet: str
                        ) -> dict[int, dict[str, int]]:
    """A complete transition table on states 0 … states − 1, uniformly at random."""
    return {s: {a: rng.randrange(states) for a in alphabet} for s in range(states)}


def _even(transitions: dict[int, dict[str, int]], final: set[int], alphabet: str) -> DFA:
    """The DFA of ``transitions`` from state 0 accepting ``final``, restricted to even
    lengths (SPEC §5 needs them), minimal and canonical."""
    from automata.fa.dfa import DFA

    d = DFA(states=set(transitions), input_symbols=set(alphabet), transitions=transitions,
            initial_state=0, final_states=final)
    # automata-lib numbers minify's classes by object ids: renumber, so a seed is a seed
    return canonical(d.intersection(even_length_dfa(d.input_symbols)))


def planted_intersection(count: int, states: int, *, length: int, seed: int,
                         alphabet: str = "abc") -> tuple[list[DFA], str]:
    """``count`` random DFAs with a planted word of ``length`` letters in their intersection.

    A random word w of even length is drawn first; each DFA gets random
    transitions on ``states`` states and one accepting state, the one w leads
    to, and is then crossed with the even-length DFA.  So w ∈ L(D₁) ∩ … ∩ L(D_k)
    and the grammar of :func:`intersection_grammar` has max 𝒢_A = ``count``
    exactly; a shortest witness may be shorter than w, rarely much (a random
    word reaches all k accepting states with probability about ``states`` to the power −k).

    Returns
    -------
    (dfas, w)

    Raises
    ------
    InputError
        For an odd or non-positive length, an empty alphabet or repeated letters.
    BudgetExceeded
        Before any work, for a grammar over :data:`MAX_SYMBOLS` symbols or a word longer.
    """
    if not alphabet or len(set(alphabet)) != len(alphabet):
        raise InputError(f"the letters must be distinct and at least one, not {alphabet!r}")
    if length < 2 or length % 2:
        raise InputError(f"the planted word's length must be even and positive (the reduction "
                         f"of SPEC §5 needs even lengths), not {length}")
    _refuse_family(count, states, alphabet)
    _refuse_over(length, MAX_SYMBOLS, "the planted word", "letters")
    rng = random.Random(seed)
    word = "".join(rng.choice(alphabet) for _ in range(length))
    out = []
    for _ in range(count):
        transitions = _random_transitions(rng, states, alphabet)
        end = 0
        for a in word:
            end = transitions[end][a]
        out.append(_even(transitions, {end}, alphabet))
    return out, word


def ring_intersection(count: int) -> list[DFA]:
    """``count`` ring DFAs over {a, b} whose intersection is empty, the first ``count`` − 1
    of them all accepting ``bb``.

    DFA i counts the a's modulo the i-th odd prime pᵢ (3, 5, 7, …) and accepts, at even
    lengths, when the count is ≡ 0; the last DFA counts modulo 3, like the first, and
    accepts when the count is ≡ 1.  So max 𝒢_A = ``count`` − 1 (witness ``bb``) in the
    grammar of :func:`intersection_grammar`, and ``count`` is unreachable for a reason
    no bounded unrolling sees: the states where the two mod-3 rings disagree, the bad
    one among them, loop among themselves (k-induction never closes on them; an
    inductive invariant says "the two mod-3 rings agree").  Known without any product.

    Raises
    ------
    InputError
        For fewer than 2 DFAs.
    BudgetExceeded
        Before any work, when the grammar would have over :data:`MAX_SYMBOLS` symbols.
    """
    if count < 2:
        raise InputError(f"a ring intersection needs at least 2 DFAs, not {count}")
    # the i-th odd prime is at least 2i + 1, so the primes sum to at least count²; each
    # ring of p states has 2p states at even lengths, 3 rules each, of up to 3 symbols
    _refuse_over(18 * count * count, MAX_SYMBOLS, "the grammar", "symbols")
    primes = _odd_primes(count - 1)
    _refuse_over(18 * (sum(primes) + 3), MAX_SYMBOLS, "the grammar", "symbols")
    rings = [(p, 0) for p in primes] + [(3, 1)]
    return [_even({k: {"a": (k + 1) % p, "b": k} for k in range(p)}, {r}, "ab")
            for p, r in rings]


def _odd_primes(count: int) -> list[int]:
    """The first ``count`` odd primes: 3, 5, 7, 11, …"""
    primes: list[int] = []
    n = 3
    while len(primes) < count:
        if all(n % p for p in primes):
            primes.append(n)
        n += 2
    return primes


def counting_intersection(count: int, *, length: int | None = None, noise: int = 0,
                          states: int = 10, seed: int = 0) -> list[DFA]:
    """``count`` DFAs over {a, b} counting a's, the i-th modulo 2·pᵢ (pᵢ the i-th odd
    prime: a ring of 2·pᵢ states, b loops), each crossed with the even-length DFA; then
    ``noise`` random DFAs that accept the common word.

    * ``length`` ``None`` (empty): the first ``count`` − 1 accept a count ≡ 0 (mod 2·pᵢ),
      all of them even, and the last every odd count.  The first and the last share no
      word, so max 𝒢_A = ``count`` − 1 (witness ``bb``, the first ``count`` − 1 accept it)
      in the grammar of :func:`intersection_grammar`, and ``count`` is unreachable: PDR
      proves it with an invariant relating the two parities.
    * ``length`` n (even): every ring accepts a count ≡ n (mod 2·pᵢ).  A common word
      has a count ≡ n modulo L = lcm(2·p₁, …) = 2·p₁⋯p_count (Chinese remainder
      theorem), so at least n a's when n < L: aⁿ is the shortest common word, max 𝒢_A =
      ``count`` + ``noise``.  The ``noise`` DFAs are random on ``states`` states, each
      accepting exactly the words that end where aⁿ ends (as
      :func:`planted_intersection` plants a word): aⁿ stays the shortest, while the
      product explicit search walks grows with them.

    Known without any product (:func:`counting_truth`).

    Raises
    ------
    InputError
        For fewer than 2 rings, an odd or non-positive length, a length not below L,
        noise without a length.
    BudgetExceeded
        Before any work, when the grammar would have over :data:`MAX_SYMBOLS` symbols.
    """
    if count < 2:
        raise InputError(f"a counting intersection needs at least 2 DFAs, not {count}")
    if noise and length is None:
        raise InputError("noise DFAs accept the common word: give its length")
    # the i-th odd prime is at least 2i + 1: each ring has 4·p states at even lengths, two
    # letters, rules of up to 2 symbols
    _refuse_over(24 * count * count, MAX_SYMBOLS, "the grammar", "symbols")
    primes = _odd_primes(count)
    _refuse_over(24 * sum(primes) + 24 * noise * states, MAX_SYMBOLS, "the grammar",
                 "symbols")
    if length is not None:
        if length < 2 or length % 2:
            raise InputError(f"the common word's length must be even and positive (the "
                             f"reduction of SPEC §5 needs even lengths), not {length}")
        period = 2 * prod(primes)
        if length >= period:
            raise InputError(f"the common word a^{length} would not be the shortest: counts "
                             f"repeat every {period:,} letters")
        _refuse_over(length, MAX_SYMBOLS, "the common word", "letters")
    out = []
    for i, p in enumerate(primes):
        ring = {k: {"a": (k + 1) % (2 * p), "b": k} for k in range(2 * p)}
        if length is not None:
            final = {length % (2 * p)}
        else:
            final = {k for k in range(2 * p) if k % 2} if i == count - 1 else {0}
        out.append(_even(ring, final, "ab"))
    rng = random.Random(seed)
    for _ in range(noise):
        transitions = _random_transitions(rng, states, "ab")
        end = 0
        for _ in range(length or 0):
            end = transitions[end]["a"]
        out.append(_even(transitions, {end}, "ab"))
    return out


def counting_truth(count: int, *, length: int | None = None, noise: int = 0
                   ) -> tuple[int, int]:
    """Ground truth for :func:`counting_intersection`, from the residues alone: (max 𝒢_A,
    length of a shortest witness)."""
    return (count - 1, 2) if length is None else (count + noise, length)


def even_length_dfa(alphabet: Iterable[str]) -> DFA:
    """The DFA of the words of even length over ``alphabet`` (SPEC §5 needs them)."""
    from automata.fa.dfa import DFA

    letters = set(alphabet)
    return DFA(states={0, 1}, input_symbols=letters,
               transitions={0: dict.fromkeys(letters, 1), 1: dict.fromkeys(letters, 0)},
               initial_state=0, final_states={0})


def product_truth(dfas: Sequence[DFA]) -> tuple[int | None, int | None]:
    """Ground truth for :func:`intersection_grammar` by automata-lib products:
    (max 𝒢_A, length of a shortest witness), as :func:`modular_truth` gives it.

    The maximum is the largest j with L(D₁) ∩ … ∩ L(D_j) ∖ {ε} ≠ ∅ (0 when
    only single languages are non-empty; ``None`` when all are ⊆ {ε}); the
    length is that of a shortest word of the j-fold intersection (``None``
    when the maximum is 0 or ``None``, as in :func:`modular_truth`).
    """
    from automata.fa.dfa import DFA

    nonempty = DFA.of_length(set().union(*(d.input_symbols for d in dfas)), min_length=1,
                             max_length=None)

    def has_word(d: DFA) -> bool:
        return not d.isdisjoint(nonempty)

    if not any(has_word(d) for d in dfas):
        return None, None
    best, length = 0, None
    acc = nonempty
    for j, d in enumerate(dfas, 1):
        # the reachable product is at most |acc|·|D_j| states: bounded before it is built
        _refuse_over(len(acc.states) * len(d.states), MAX_PRODUCT_STATES,
                     f"the product of the first {j} DFAs", "states")
        acc = acc.intersection(d)
        if not has_word(acc):
            break
        shortest = acc.minimum_word_length()  # bound to a name: a cached method
        best, length = j, shortest
    return best, length


# ---------------------------------------------------------------------------
# subtraction games


def subtraction_grammar(subtraction: Iterable[int], letter: str = "a") -> Grammar:
    """A → aᵏA | aᵏ for k ∈ S (SPEC §7).

    It plays the classic subtraction game with set S exactly when 1 ∈ S; without
    1, lengths outside the numerical semigroup generated by S are not positions
    and a move may not land on them.

    Raises
    ------
    InputError
        For an empty S or some k < 1.
    BudgetExceeded
        Before any work, when the grammar would have over :data:`MAX_SYMBOLS`
        symbols (Σ 2k + 1).
    """
    ks = sorted(set(subtraction))
    if not ks or ks[0] < 1:
        raise InputError(f"a subtraction set is a non-empty set of positive integers, not {ks}")
    _refuse_over(sum(2 * k + 1 for k in ks), MAX_SYMBOLS, "the grammar", "symbols")
    rules = []
    for k in ks:
        rules.append(Rule(TOP, (letter,) * k + (TOP,)))
        rules.append(Rule(TOP, (letter,) * k))
    return Grammar(rules=rules, start=TOP)
