"""The derivation game as a family of components for the misère quotient (issue 37 §2).

The oracle is written here from the rules alone: the misère outcome of a multiset of
pairs (A, w) by memoized recursion over the derivation game's moves
(:func:`sdg_automata.derivation.semantics.successors`); a position with no move is won
by the player to move.  Every sum of up to three pairs with |w| ≤ 3 is compared with the
quotient's outcome.
"""

from __future__ import annotations

import functools
import itertools

from sdg_automata.derivation.misere import DerivationFamily
from sdg_automata.derivation.semantics import successors
from sdg_automata.games.misere import quotient_of
from sdg_automata.grammar.parse import parse_grammar


def test_derivation_game_sums_are_the_brute_force() -> None:
    g = parse_grammar("A -> a A | a a A | B | a | a a\nB -> b A | b")  # Example 3
    family = DerivationFamily(grammar=g, max_length=3)
    q = quotient_of(family)

    @functools.cache
    def wins(position: tuple[tuple[str, str], ...]) -> bool:
        some = False
        for i, (a, w) in enumerate(position):
            for s in successors(g, a, w):
                some = True
                if not wins(tuple(sorted(position[:i] + position[i + 1:] + s))):
                    return True
        return not some

    pairs = list(family.components)
    assert ("A", "aab") in pairs and ("B", "ba") in pairs
    for k in range(4):
        for parts in itertools.combinations_with_replacement(pairs, k):
            assert q.outcome(parts) == ("N" if wins(tuple(sorted(parts))) else "P"), parts
    assert q.outcome(["A:a", "A:a", "A:a"]) == "P"  # a heap of 1 three times
