"""The items of Step 2 and the read-only transition relation of Steps 3–4 (SPEC §4).

A state of the Step 1–5 automaton (:class:`~sdg_automata.automaton.construction.GrundyAutomaton`)
is a set of items x B^j, an int bitset over :class:`Item`; :class:`TransitionTables`
is δ as plain tables, per letter a :class:`LetterTable`, for the strategies that need
the relation itself (symbolic, SAT-based: :mod:`sdg_automata.search.bmc`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from ..errors import BudgetExceeded
from ..grammar.words import Word
from ..runtime.budget import available_bytes

if TYPE_CHECKING:
    from ..grammar import Grammar

__all__ = ["Item", "LetterRule", "LetterTable", "TransitionTables", "letter_rules_of",
           "letter_tables", "number_items"]

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


class TransitionTables(NamedTuple):
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

    Tables, so a named tuple (made by keyword), as :class:`LetterTable` is: a dataclass's
    generated methods cost the start-up of every run, and few runs read the relation.
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


#: a rule of Step 1 as (A, letters, tail): A → letters tail, tail a nonterminal or E
LetterRule = tuple[str, str, str]


def letter_rules_of(grammar: Grammar, end: str) -> list[LetterRule]:
    """Step 1: R_N ∪ R′_T as (head, letters, tail), each terminal rule A → x made
    A → x ``end``; the unit rules (R_U) are left to Step 3's plan."""
    rules: list[LetterRule] = []
    for r in grammar.rules:
        if grammar.is_unit(r):
            continue
        tail = r.body[-1] if grammar.is_nonterminal(r.body[-1]) else end
        letters = "".join(r.body[:-1] if tail != end else r.body)
        rules.append((r.head, letters, tail))
    return rules


def number_items(nonterminals: Sequence[str], end: str, bound: Mapping[str, int],
             letter_rules: Sequence[LetterRule]
             ) -> tuple[list[Item], dict[tuple[str, str], int], dict[str, int]]:
    """Step 2: the items of Γ′ (x = ε) and Γ_N (x a non-empty suffix of y in A → a y B),
    numbered.

    Returns the items in bit order, the bit of x B⁰ for each (x, B), and the bit of B⁰
    for each B.  B⁰ … B^{m_B} come first and contiguous for every B, ``end`` last: the
    Grundy values of a state are read as one field per nonterminal.
    """
    prefixes: dict[str, set[str]] = {b: {""} for b in bound}
    for _, letters, tail in letter_rules:
        prefixes[tail].update(letters[i:] for i in range(1, len(letters)))
    items: list[Item] = []
    index: dict[tuple[str, str], int] = {}  # (x, B) -> bit of x B^0
    base: dict[str, int] = {}
    for b in (*nonterminals, end):
        index["", b] = base[b] = len(items)
        items.extend(Item("", b, j) for j in range(bound[b] + 1))
    for b in (*nonterminals, end):
        for x in sorted(prefixes[b] - {""}, key=lambda s: (len(s), s)):
            index[x, b] = len(items)
            items.extend(Item(x, b, j) for j in range(bound[b] + 1))
    return items, index, base


def letter_tables(alphabet: Sequence[str], width: int, index: Mapping[tuple[str, str], int],
                  bound: Mapping[str, int], letter_rules: Sequence[LetterRule],
                  nt_id: Mapping[str, int]) -> dict[str, LetterTable]:
    """Steps 3 and 4 as tables, one :class:`LetterTable` per letter a: for each item bit,
    the shifted item a·x B^j (Step 4) and the contributions (A, 1 << j) it makes to the
    sets J_A (Step 3); ``width`` is the number of items."""
    tables: dict[str, LetterTable] = {}
    for a in alphabet:
        shift = [0] * width
        contrib: list[list[tuple[int, int]]] = [[] for _ in range(width)]
        for (x, b), bit in index.items():
            target = index.get((a + x, b))
            if target is not None:
                for j in range(bound[b] + 1):
                    shift[bit + j] = 1 << (target + j)
        for head, letters, tail in letter_rules:
            if letters[0] == a:
                bit = index[letters[1:], tail]
                for j in range(bound[tail] + 1):
                    contrib[bit + j].append((nt_id[head], 1 << j))
        relevant = sum(1 << k for k in range(width) if shift[k] or contrib[k])
        tables[a] = LetterTable(relevant, tuple(shift), tuple(tuple(c) for c in contrib))
    return tables
