"""Which way an engine for right-linear grammars reads a user's word (SPEC §1, §4).

Every exact engine of this package (the Step 1–5 automaton, the suffix DP)
needs a right-linear grammar.  A left-linear grammar G is served through its
mirror G′ (:meth:`~sdg_automata.grammar.Grammar.mirror`), because
𝒢_{G,A}(w) = 𝒢_{G′,A}(wᴿ): every split of w is mirrored by a split of wᴿ.
This module decides that **once**: a :class:`Reading` holds the user's
grammar, the right-linear grammar that serves it, and translates words and
rules between the two, so that no caller reverses anything itself.

The Step 1–5 automaton of a right-linear grammar reads its words from right to
left (SPEC §4), so for the user's w it reads wᴿ, or w itself when it serves a
mirror: :meth:`Reading.automaton_input` and its inverse :meth:`Reading.witness`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import InputError
from ..grammar import Grammar, Rule

__all__ = ["Reading", "reading_of", "servable"]

#: the refusal for grammars that are neither right- nor left-linear; ``{kind}``
#: is replaced by the grammar's class (callers may word it for their task)
REFUSAL = ("automata are built for right-linear grammars (and left-linear ones through their "
           "mirror); this one is {kind}")


def servable(grammar: Grammar) -> bool:
    """Whether a right-linear engine can serve ``grammar`` (right- or left-linear)."""
    return grammar.is_right_linear or grammar.is_left_linear


@dataclass(frozen=True, eq=False, kw_only=True)
class Reading:
    """How a right-linear engine serves ``grammar``.

    Attributes
    ----------
    grammar:
        G, as the user gave it.
    right_linear:
        G itself when it is right-linear, else its mirror G′.
    mirrored:
        Whether ``right_linear`` is the mirror (G is left-linear, not right-linear).
    """

    grammar: Grammar
    right_linear: Grammar
    mirrored: bool

    def __post_init__(self) -> None:
        if not self.right_linear.is_right_linear:
            raise InputError(f"a right-linear engine needs a right-linear grammar; this one is "
                             f"{self.right_linear.kind}")

    def restricted_to(self, head: str) -> Reading:
        """The same reading of the cone of influence of ``head``
        (:meth:`~sdg_automata.grammar.Grammar.restricted_to`): the direction stays the
        whole grammar's, even when the cone alone would be right-linear."""
        cone = self.grammar.restricted_to(head)
        right_linear = self.right_linear.restricted_to(head) if self.mirrored else cone
        return Reading(grammar=cone, right_linear=right_linear, mirrored=self.mirrored)

    def word(self, w: str) -> str:
        """The word of ``right_linear`` that stands for the user's ``w`` (w, or wᴿ).

        Mirroring is an involution, so the same map takes a word of
        ``right_linear`` back to the user's word.
        """
        return w[::-1] if self.mirrored else w

    def rule(self, r: Rule) -> Rule:
        """The user's rule for a rule ``r`` of ``right_linear`` (and back)."""
        return Rule(r.head, r.body[::-1]) if self.mirrored else r

    def automaton_input(self, w: str) -> str:
        """The letters the Step 1–5 automaton of ``right_linear`` reads for the user's ``w``.

        The automaton reads its grammar's words right to left (SPEC §4): wᴿ
        for a right-linear G, w itself for a mirrored one.
        """
        return w if self.mirrored else w[::-1]

    def witness(self, read: str) -> str:
        """The user's word for which the automaton reads ``read`` (inverse of
        :meth:`automaton_input`)."""
        return read if self.mirrored else read[::-1]


def reading_of(grammar: Grammar, *, refusal: str = REFUSAL) -> Reading:
    """The :class:`Reading` that serves ``grammar``: itself, or its mirror.

    Parameters
    ----------
    grammar:
        A right- or left-linear grammar.
    refusal:
        The message for any other grammar, with ``{kind}`` for its class.

    Raises
    ------
    InputError
        For a grammar that is neither right- nor left-linear.
    """
    if grammar.is_right_linear:
        return Reading(grammar=grammar, right_linear=grammar, mirrored=False)
    if grammar.is_left_linear:
        return Reading(grammar=grammar, right_linear=grammar.mirror(), mirrored=True)
    raise InputError(refusal.format(kind=grammar.kind))
