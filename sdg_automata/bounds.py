"""Upper bounds m_A on Grundy numbers of right-linear grammars (SPEC §3).

With T_{A,a} = {x : A → a x ∈ R}, N_{A,a} = {xB : A → a x B ∈ R} and
U_A = {C : A → C ∈ R}, a position (A, a·y) has at most

    n_{A,a} = |T_{A,a}| + |N_{A,a}| + |{C ∈ U_A : n_{C,a} > 0}|

successors, so 𝒢_{G,A}(w) ≤ m_A = max_a n_{A,a} (Section 3.1 of the seed
paper).  Each rule yields at most one successor of a given position (the split
of a right-linear rule is determined by its letters), which is why the count
of rules bounds the count of successors.
"""

from __future__ import annotations

from .errors import InputError
from .grammar import Grammar

__all__ = ["upper_bound", "upper_bounds"]


def upper_bounds(grammar: Grammar) -> dict[str, int]:
    """m_A for every nonterminal A of a right-linear grammar (SPEC §3).

    Examples
    --------
    >>> from sdg_automata.parse import parse_grammar
    >>> upper_bounds(parse_grammar("A -> a A | a a A | B | a | a a\\nB -> b A | b"))
    {'A': 4, 'B': 2}
    """
    if not grammar.is_right_linear:
        raise InputError(f"the bound m_A is defined for right-linear grammars; this one is "
                         f"{grammar.kind}")
    n: dict[str, dict[str, int]] = {}
    for head in grammar.unit_order:  # units C of A come before A
        counts = dict.fromkeys(grammar.terminals, 0)
        for r in grammar.rules_of(head):
            if grammar.is_unit(r):
                for a, k in n[r.body[0]].items():
                    counts[a] += k > 0
            else:
                counts[r.body[0]] += 1
        n[head] = counts
    return {a: max(n[a].values(), default=0) for a in grammar.nonterminals}


def upper_bound(grammar: Grammar, head: str) -> int:
    """m_A for one nonterminal A; see :func:`upper_bounds`."""
    grammar.check_nonterminal(head)
    return upper_bounds(grammar)[head]
