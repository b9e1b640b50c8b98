"""The groups of nonterminals behind the memo of the automaton's step, and its lookups.

:meth:`GrundyAutomaton.step <sdg_automata.automaton.construction.GrundyAutomaton.step>`
memoizes δ by parts: the nonterminals are split into groups (:func:`_groups`,
dependencies first, a cycle of unit rules in one group), a state's items of one
group are one part, and a letter's step reads each group's new part off a table
keyed by the parts it depends on (:class:`_Plan`, compiled into a closure by
:func:`_compile`).  :class:`GroupLayout` is the same split as bit masks, for the
compiled step tables (:class:`~sdg_automata.search.compiled.tables.StepTables`).
"""

from __future__ import annotations

import graphlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, NamedTuple

from ..errors import SdgBug
from ..grammar import Grammar
from .items import LetterTable

__all__ = ["GroupLayout", "bits_of", "group_layout"]

class _Group(NamedTuple):
    """One group's memo for one letter: key ``q & mask | out & deps`` → part ``δ & owned``.

    ``mask`` and ``deps`` are disjoint: ``deps`` holds the fields C^j of unit
    targets outside the group, whose items the group's rules never read.
    """

    mask: int
    deps: int
    owned: int
    memo: dict[int, int]


class _Plan(NamedTuple):
    """The memo of one letter: its groups in dependency order, and the bits none owns."""

    groups: tuple[_Group, ...]
    uncovered: int


class GroupLayout(NamedTuple):
    """The groups of nonterminals of :meth:`GrundyAutomaton.step`'s memo, as bit masks.

    ``owned[g]``: the items of group g (the groups in dependency order; they
    partition the items).  ``letters[a]``: the groups that read something on
    ``a``, in order, each as ``(mask, deps, owned)`` (the key is ``q & mask |
    δ(q, a) & deps``, the part ``δ(q, a) & owned``), and the bits no group of
    ``a`` owns (never set by δ(·, a)).
    """

    owned: tuple[int, ...]
    letters: Mapping[str, tuple[tuple[tuple[int, int, int], ...], int]]


def _compile(plans: dict[str, _Plan], miss: Callable[[int, str], int],
             ) -> Callable[[int, str], int]:
    """The memo's hit path as one straight-line function ``follow(q, a) -> δ(q, a)``.

    Per letter, ``out = m0[q & MASK0] | m1[q & MASK1] | …``, then one line per
    group that waits for others, with the masks as constants; an unknown key
    (``KeyError``) or another letter goes to ``miss``.  Written out rather
    than looped over: the loop's per-group unpacking and stores cost a third
    of a step, the per-letter dispatch another call (measured in
    ``benchmarks/bench_explore.py``).  The source holds only ints made here
    and the letters' ``repr``.
    """
    names: dict[str, Any] = {"miss": miss}
    body: list[str] = []
    for c, (a, plan) in enumerate(plans.items()):
        plain = [f"m{c}_{g}[q & {group.mask:#x}]" for g, group in enumerate(plan.groups)
                 if not group.deps]
        body += [f"if a == {a!r}:", f"    out = {' | '.join(plain) or '0'}"]
        for g, group in enumerate(plan.groups):
            names[f"m{c}_{g}"] = group.memo
            if group.deps:
                key = f"out & {group.deps:#x}"
                if group.mask:
                    key = f"q & {group.mask:#x} | {key}"
                body.append(f"    out |= m{c}_{g}[{key}]")
        body.append("    return out")
    source = ("def follow(q, a):\n    try:\n" + "".join(f"        {line}\n" for line in body)
              + "    except KeyError:\n        pass\n    return miss(q, a)\n")
    exec(source, names)  # our own ints and letters only, see the docstring
    return names["follow"]  # type: ignore[no-any-return]


def _groups(grammar: Grammar, letter_rules: list[tuple[str, str, str]], end: str,
            ) -> list[tuple[str, ...]]:
    """Nonterminals grouped for the memo of :meth:`GrundyAutomaton.step`, dependencies first.

    A rule A → a x B ties A to B (A reads B's items), so groups start as the
    connected components of those ties (the end symbol E ties nothing: every
    terminal rule reads it).  A unit rule A → C makes A's group wait for C's;
    groups on a cycle of such waits are merged.  A group that reads no item
    (unit rules only) and waits for one group alone joins it: its values are a
    function of that group's, so the joint key is no larger.  On the hardness
    family of SPEC §5 this gives one group per DFA (with its V chain) and A.
    """
    nts = grammar.nonterminals
    root = {b: b for b in nts}

    def find(b: str) -> str:
        while root[b] != b:
            root[b] = root[root[b]]
            b = root[b]
        return b

    def waits() -> dict[str, list[str]]:
        # (lists in the grammar's order, not sets: a set's order, and so the groups' and
        # the state vectors' layout, followed the process's string hashing)
        graph: dict[str, dict[str, None]] = {find(b): {} for b in nts}
        for r in grammar.rules:
            if grammar.is_unit(r) and find(r.head) != find(r.body[0]):
                graph[find(r.head)][find(r.body[0])] = None
        return {g: list(ds) for g, ds in graph.items()}

    for head, _, tail in letter_rules:
        if tail != end:
            root[find(head)] = find(tail)
    while True:  # merge waits on a cycle until the groups form a DAG
        try:
            order = list(graphlib.TopologicalSorter(waits()).static_order())
            break
        except graphlib.CycleError as e:
            cycle = e.args[1]
            for b in cycle[1:]:
                root[find(b)] = find(cycle[0])
    reads = {find(head) for head, _, _ in letter_rules}
    # a group is merged only into groups before it in ``order``: when its turn comes, its
    # members are still those of the order (looked up once, not per group: K = 24 rings of
    # SPEC §5 have 5,000 nonterminals)
    initial: dict[str, list[str]] = {}
    for b in nts:
        initial.setdefault(find(b), []).append(b)
    for g in order:  # dependencies first, so a chain of unit-only groups folds in one pass
        if g in reads:
            continue
        targets = {find(r.body[0]) for b in initial[g]
                   for r in grammar.rules_of(b) if grammar.is_unit(r)} - {find(g)}
        if len(targets) == 1:
            root[find(g)] = targets.pop()
    members: dict[str, list[str]] = {}
    for b in nts:
        members.setdefault(find(b), []).append(b)
    order = list(graphlib.TopologicalSorter(waits()).static_order())
    return [tuple(members[g]) for g in order]


def bits_of(positions: Iterable[int]) -> int:
    """The int with the bits at ``positions`` set (one pass, not a sum of shifted ints,
    which costs the width once per bit)."""
    out = bytearray()
    for k in positions:
        if k >> 3 >= len(out):
            out.extend(bytes((k >> 3) + 1 - len(out)))
        out[k >> 3] |= 1 << (k & 7)
    return int.from_bytes(out, "little")


def group_layout(groups: list[tuple[str, ...]], owner: Sequence[int], owned: tuple[int, ...],
                 nonterminals: Sequence[str], tables: Mapping[str, LetterTable],
                 deps_of: Sequence[int]) -> GroupLayout:
    """What each of ``groups`` (in dependency order) reads and owns on every letter.

    ``owner[k]`` is the group of item bit ``k`` and ``owned[g]`` the items of group
    ``g``; ``nonterminals`` numbers the ids of ``tables`` (one
    :class:`~sdg_automata.automaton.items.LetterTable` per letter); ``deps_of[g]``
    are the fields of the unit targets outside group ``g``, read on every letter.
    """
    group_of = {b: g for g, members in enumerate(groups) for b in members}
    nts, width = nonterminals, len(owner)
    letters = {}
    for a in tables:
        _, shift, contrib = tables[a]
        every: list[tuple[int, int, int]] = []
        covered = 0
        read: list[set[int]] = [set() for _ in groups]  # per group, the bits it reads on a
        for k in range(width):
            if shift[k]:
                read[owner[k]].add(k)
            for h, _ in contrib[k]:
                read[group_of[nts[h]]].add(k)
        for g, members in enumerate(groups):
            mask = bits_of(read[g])
            deps = deps_of[g]
            if not mask and not deps:
                continue  # reads nothing: no item of the group is set on this letter
            if mask & deps:  # a rule A → a C would have put C in A's group
                raise SdgBug(f"step memo: group {members} reads the items of a unit target")
            covered |= owned[g]
            every.append((mask, deps, owned[g]))
        letters[a] = (tuple(every), ((1 << width) - 1) & ~covered)
    return GroupLayout(owned=owned, letters=MappingProxyType(letters))
