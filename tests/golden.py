"""Golden tables from the seed paper's worked examples (SPEC §2) and loaders of the
bundled example grammars, shared by the test modules (named after their source)."""

from __future__ import annotations

from functools import cache
from itertools import groupby
from pathlib import Path

from sdg_automata.grammar import Grammar
from sdg_automata.grammar.parse import load_grammar

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


@cache
def example3() -> Grammar:
    """Example 3: A → aA | aaA | B | a | aa, B → bA | b."""
    return load_grammar(EXAMPLES / "example3.txt")


@cache
def csub() -> Grammar:
    """CSub (Examples 1/2): A → aA | aaA | bA | a | aa | b."""
    return load_grammar(EXAMPLES / "csub.txt")


# SPEC §2, Example 3: every word w of length ≤ 4, listed as wᴿ

EXAMPLE3_REVERSED_A_0 = {"b", "bb", "aaa", "aba", "bbb", "aaab", "aaba", "abab", "abba", "baaa",
                         "baba", "bbbb"}
EXAMPLE3_REVERSED_A_1 = {"a", "ab", "ba", "aab", "abb", "bab", "bba", "aaaa", "aabb", "abbb",
                         "baab", "babb", "bbab", "bbba"}
EXAMPLE3_REVERSED_A_2 = {"aa", "baa", "abaa", "bbaa"}
EXAMPLE3_REVERSED_B_0 = {"ab", "aab", "abb", "bab", "aabb", "abbb", "baab", "babb", "bbab"}
EXAMPLE3_REVERSED_B_1 = {"b", "bb", "bbb", "aaab", "abab", "bbbb"}

EXAMPLE3_REVERSED = {
    "A": {0: EXAMPLE3_REVERSED_A_0, 1: EXAMPLE3_REVERSED_A_1, 2: EXAMPLE3_REVERSED_A_2},
    "B": {0: EXAMPLE3_REVERSED_B_0, 1: EXAMPLE3_REVERSED_B_1},
}


def example3_expected(head: str, w: str) -> int | None:
    """𝒢_{Example 3, head}(w) for |w| ≤ 4, read off SPEC §2's tables."""
    hits = [i for i, table in EXAMPLE3_REVERSED[head].items() if w[::-1] in table]
    assert len(hits) <= 1, (head, w, hits)  # the tables are disjoint
    return hits[0] if hits else None


#: 𝒢_{Example 3, X}(w) for every w of length ≤ 4 that is a position, keyed (X, w)
EXAMPLE3_GRUNDY = {(head, w[::-1]): v for head, table in EXAMPLE3_REVERSED.items()
                   for v, ws in table.items() for w in ws}


def csub_is_p_position(w: str) -> bool:
    """SPEC §2's closed form: 𝒢(A, w) = 0 for CSub, written from the statement alone.

    w = a^{d₁} b^{e₁} … a^{d_k} b^{e_k} (d₁, e_k may be 0), d′ᵢ = dᵢ mod 3.
    """
    runs = [(letter, len(list(group))) for letter, group in groupby(w)]
    if runs and runs[0][0] == "b":
        runs.insert(0, ("a", 0))
    if runs and runs[-1][0] == "a":
        runs.append(("b", 0))
    d = [n for letter, n in runs[0::2]]
    e = [n for letter, n in runs[1::2]]
    assert all(letter == "a" for letter, _ in runs[0::2])
    dp = [x % 3 for x in d]
    if 2 not in dp:
        return (sum(dp) + sum(e)) % 2 == 0
    m = dp.index(2)  # d′₁ … d′_{m−1} ≠ 2 = d′_m
    return (sum(dp[:m]) + sum(e[:m])) % 2 == 1
