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

from ..errors import InputError
from ..grammar import Grammar

__all__ = ["upper_bound", "upper_bounds"]


def upper_bounds(grammar: Grammar) -> dict[str, int]:
    r"""m_A for every nonterminal A of a right-linear grammar (SPEC §3).

    m_A = max over letters a of n_{A,a}, the number of rules of A whose body starts
    with a (a unit rule A → C counting once when C has one): a position (A, a·y)
    has at most n_{A,a} successors, so m_A bounds 𝒢_{G,A}.  The automaton's item
    values never exceed it.

    Parameters
    ----------
    grammar:
        A right-linear grammar.

    Returns
    -------
    dict of str to int
        m_A for each nonterminal, in the grammar's order.

    Raises
    ------
    InputError
        For a grammar that is not right-linear.

    Examples
    --------
    In the paper's Example 3 the bound of A is 4 while its values are 0, 1, 2
    (:func:`~sdg_automata.search.decide.max_grundy` finds the maximum 2):

    >>> from sdg_automata.grammar.parse import parse_grammar
    >>> upper_bounds(parse_grammar("A -> a A | a a A | B | a | a a\nB -> b A | b"))
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
    """m_A for one nonterminal A (SPEC §3); see :func:`upper_bounds`.

    Parameters
    ----------
    grammar:
        A right-linear grammar.
    head:
        The nonterminal A.

    Returns
    -------
    int
        m_A: no position of A has a larger Grundy number.

    Raises
    ------
    GrammarError
        For a nonterminal ``head`` the grammar does not have.
    InputError
        For a grammar that is not right-linear.

    Examples
    --------
    The bound can be loose: in the subtraction game S = {1, 2, 3} (A → aᵏA | aᵏ)
    the six rules all start with ``a``, so m_A = 6, while the values are
    n mod 4, at most 3:

    >>> from sdg_automata.grammar.parse import parse_grammar
    >>> upper_bound(parse_grammar("A -> a A | a a A | a a a A | a | a a | a a a"), "A")
    6
    """
    grammar.check_nonterminal(head)
    return upper_bounds(grammar)[head]
