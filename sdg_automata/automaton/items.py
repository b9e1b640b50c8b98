"""The items of Step 2 and the read-only transition relation of Steps 3–4 (SPEC §4).

A state of the Step 1–5 automaton (:class:`~sdg_automata.automaton.construction.GrundyAutomaton`)
is a set of items x B^j, an int bitset over :class:`Item`; :class:`TransitionTables`
is δ as plain tables, per letter a :class:`LetterTable`, for the strategies that need
the relation itself (symbolic, SAT-based: :mod:`sdg_automata.search.bmc`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ..errors import BudgetExceeded
from ..grammar.words import Word
from ..runtime.budget import available_bytes

__all__ = ["Item", "LetterTable", "TransitionTables"]

_SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")


@dataclass(frozen=True, order=True)
class Item:
    """An item x B^j of Step 2 (``prefix`` is x, possibly empty)."""

    prefix: str
    nonterminal: str
    value: int

    def __str__(self) -> str:
        return f"{self.prefix}{self.nonterminal}{str(self.value).translate(_SUPERSCRIPT)}"

    def compact(self) -> str:
        """The item with its prefix run-length (``a^40E⁰`` for a forty-letter prefix)."""
        return f"{Word.of(self.prefix).compact()}{self.nonterminal}" \
               f"{str(self.value).translate(_SUPERSCRIPT)}"


class LetterTable(NamedTuple):
    """Steps 3–4 for one letter a, per item bit k (see :class:`TransitionTables`).

    A named tuple rather than a dataclass: :meth:`GrundyAutomaton.step` unpacks
    it on every transition.
    """

    #: the bits of the items that matter on a (a shift or a contribution)
    relevant: int
    #: ``shift[k]``: the bitset {a·x B^j} of Step 4 for item k = x B^j (0 when a·x ∉ Γ_N)
    shift: tuple[int, ...]
    #: ``contributions[k]``: pairs (nonterminal id of A, 1 << j) of Step 3 — item k = x B^j
    #: puts j into J_A for every rule A → a x B
    contributions: tuple[tuple[tuple[int, int], ...], ...]


@dataclass(frozen=True, kw_only=True)
class TransitionTables:
    """A read-only view of the transition relation δ of Steps 3–4 (SPEC §4).

    Enough to compute δ(q, a) without :meth:`GrundyAutomaton.step`, e.g. for a
    new search strategy (symbolic, SAT-based) that needs the relation itself:
    for q ∩ ``letters[a].relevant``, Step 4 ORs ``shift[k]`` over the bits k
    of q; Step 3 ORs each ``contributions[k]`` mask into J_A, then, for each
    (A, Cs) of ``unit_plan`` in the order <_Γ, adds 𝒢 of every unit C in Cs
    computed in the same step; A gets the item A^{mex J_A} at bit
    ``base[A] + mex J_A`` (never above ``bound[A]``, SPEC §3).

    Attributes
    ----------
    items:
        ``items[k]`` is the item of bit k.
    nonterminals:
        The nonterminal of each id used by ``contributions``, ``base``, ``bound``.
    base, bound:
        Per nonterminal id: the bit of A⁰ and m_A.
    letters:
        Per letter of Σ, its :class:`LetterTable`; a letter outside Σ leads to ∅.
    unit_plan:
        (A, (C, …)) for every A with unit rules A → C, in the order <_Γ.
    """

    items: tuple[Item, ...]
    nonterminals: tuple[str, ...]
    base: tuple[int, ...]
    bound: tuple[int, ...]
    letters: Mapping[str, LetterTable]
    unit_plan: tuple[tuple[int, tuple[int, ...]], ...]


#: bytes Step 2 takes per character of the suffixes it keeps (measured: 3.1–3.3 with the
#: per-letter tables built from them)
_SUFFIX_BYTES = 4


def _check_suffix_room(letter_rules: Sequence[tuple[str, str, str]]) -> None:
    """Refuse at once the grammars whose Step 2 suffixes cannot fit in memory.

    Γ_N holds every suffix of every rule body as a string, so a body of L letters costs
    L²/2 characters: a single 40,000-letter body needs about 2.5 GB.
    """
    chars = sum(len(letters) * (len(letters) - 1) // 2 for _, letters, _ in letter_rules)
    need = chars * _SUFFIX_BYTES
    free = available_bytes()
    if free is not None and need > free:
        longest = max(len(letters) for _, letters, _ in letter_rules)
        raise BudgetExceeded(
            f"the Step 1–5 construction keeps every suffix of every rule body (the longest has "
            f"{longest} letters): about {need / 2**20:,.0f} MB, but {free / 2**20:,.0f} MB is "
            "available; split long bodies into rules of a few letters each")
