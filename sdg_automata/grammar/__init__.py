"""Context-free grammars for the successful derivation game (SPEC §1).

A :class:`Grammar` is immutable and validated once, when it is made: no ε
rules, terminals of one character (automata-lib's convention), a start symbol
that has rules, and no cycle of unit rules (a unit cycle would make plays
infinite).  Nonterminals are exactly the heads of the rules; every other body
symbol is a terminal.

Left-linear grammars are served by :meth:`Grammar.mirror`: reversing every
right-hand side gives a right-linear grammar whose game on wᴿ is the game of
the original on w (every split of w is mirrored by a split of wᴿ).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import ClassVar, Literal

from ..errors import GrammarError, UnitCycleError, brief

__all__ = ["EPSILON_SPELLINGS", "Grammar", "GrammarKind", "Rule", "check_letter",
           "check_name"]

#: Spellings of the empty word, pyformlang's (``epsilon``, ``$``, ``ε``, ``ϵ``, ``Є``)
#: among them; the SDG has no ε rules, so they are refused.
EPSILON_SPELLINGS = frozenset({"ε", "ϵ", "Є", "$", "epsilon", "eps", "λ", '""', "''"})

#: What may not occur in a nonterminal name: the text format's arrows (a name
#: holding one could not be written back), besides blanks and control characters.
_ARROWS = ("->", "→", "::=")


def check_name(name: object) -> str | None:
    """Why ``name`` cannot be a nonterminal, or ``None`` when it can.

    A name is a non-empty string of printable characters without blanks
    (:meth:`str.isprintable` refuses control, format and separator characters,
    NUL and a stray byte-order mark among them), without an arrow of the text
    format (``->``, ``→``, ``::=``), and
    not an ε spelling: so every name can be written in the text format.
    """
    if not isinstance(name, str):
        return f"a nonterminal must be a string, not {type(name).__name__}"
    if not name or name.isspace():
        return "empty or blank nonterminal name"
    if not name.isprintable() or " " in name:
        return (f"nonterminal name {brief(name)} contains a blank or a control character "
                f"({_first_unprintable(name)})")
    if any(arrow in name for arrow in _ARROWS):
        return f"nonterminal name {brief(name)} contains an arrow"
    if name in EPSILON_SPELLINGS:
        return f"{name!r} spells ε and cannot name a nonterminal"
    return None


def check_letter(letter: object) -> str | None:
    """Why ``letter`` cannot be a terminal, or ``None`` when it can: one printable,
    non-blank character that does not spell ε."""
    if not isinstance(letter, str):
        return f"a terminal must be a string, not {type(letter).__name__}"
    if letter in EPSILON_SPELLINGS:
        return f"{letter!r} spells ε: the game has no ε rules"
    if len(letter) != 1:
        return f"terminal {brief(letter)} is not one character"
    if not letter.isprintable() or letter == " ":
        return (f"terminal {letter!r} is a blank or a control character "
                f"({_first_unprintable(letter)})")
    return None


def _first_unprintable(text: str) -> str:
    c = next((c for c in text if not c.isprintable() or c == " "), " ")
    return f"U+{ord(c):04X}"

GrammarKind = Literal["right-linear", "left-linear", "linear", "context-free"]


@dataclass(frozen=True, order=True)
class Rule:
    """A rule ``head -> body``; ``body`` is a non-empty tuple of symbols (SPEC §1).

    Whether a body symbol is a nonterminal is decided by the grammar that holds
    the rule: nonterminals are exactly the rule heads.  A rule is checked by the
    :class:`Grammar` that holds it, not here.

    Parameters
    ----------
    head:
        The nonterminal on the left.
    body:
        The symbols on the right: terminals (one character each) and nonterminals.

    Examples
    --------
    >>> r = Rule("A", ("a", "a", "A"))
    >>> r.head, r.body, str(r)
    ('A', ('a', 'a', 'A'), 'A -> a a A')
    """

    head: str
    body: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.head} -> {' '.join(self.body)}"


@dataclass(frozen=True, init=False, eq=False)
class Grammar:
    """A context-free grammar G = (Γ, Σ, R, I) without ε rules (SPEC §1).

    Parameters
    ----------
    rules:
        The rules; duplicates are dropped, the first occurrence fixes the order
        used for display.
    start:
        The initial symbol I; defaults to the head of the first rule.
    terminals:
        Extra letters of Σ that occur in no rule (they matter for automata,
        whose alphabet is Σ).

    Raises
    ------
    GrammarError
        For an empty grammar, an ε rule, a terminal that is not one character,
        a start symbol without rules.
    UnitCycleError
        For a cycle of unit rules, naming it (``A -> B -> A``).

    Notes
    -----
    Equality compares the start symbol, Σ and the *set* of rules.

    Examples
    --------
    Grammars are usually read (:func:`~sdg_automata.grammar.parse.load_grammar`,
    :func:`~sdg_automata.grammar.parse.parse_grammar`); built directly:

    >>> g = Grammar(rules=[Rule("A", ("a", "A")), Rule("A", ("a", "a")), Rule("A", ("b",))])
    >>> g.start, g.nonterminals, g.terminals, g.kind
    ('A', ('A',), ('a', 'b'), 'right-linear')
    >>> Grammar(rules=[Rule("A", ("B",)), Rule("B", ("A",))])
    Traceback (most recent call last):
    ...
    sdg_automata.errors.UnitCycleError: unit-rule cycle A -> B -> A
    """

    start: str
    nonterminals: tuple[str, ...]
    terminals: tuple[str, ...]
    rules: tuple[Rule, ...]
    _by_head: dict[str, tuple[Rule, ...]] = field(repr=False)

    __hash__: ClassVar[None] = None  # type: ignore[assignment]

    def __init__(
        self, *, rules: Iterable[Rule], start: str | None = None, terminals: Iterable[str] = ()
    ) -> None:
        rules = tuple(dict.fromkeys(rules))
        if not rules:
            raise GrammarError("the grammar has no rules")
        heads = tuple(dict.fromkeys(r.head for r in rules))
        for h in heads:
            fault = check_name(h)
            if fault:
                raise GrammarError(fault, rule=next(r for r in rules if r.head == h))
        if start is None:
            start = rules[0].head
        if start not in heads:
            raise GrammarError(f"start symbol {brief(start)} has no rules")
        heads = (start,) + tuple(h for h in heads if h != start)
        nts = frozenset(heads)
        letters = set()
        for r in rules:
            if not r.body:
                raise GrammarError(f"rule {brief(r.head)} -> ε: the game has no ε rules", rule=r)
            for s in r.body:
                if s in nts or s in letters:
                    continue
                fault = check_letter(s)
                if fault:
                    raise GrammarError(f"rule {brief(str(r), 60)}: {fault}", rule=r)
                letters.add(s)
        for t in terminals:
            fault = check_letter(t)
            if fault:
                raise GrammarError(f"declared terminals: {fault}")
            if t in nts:
                raise GrammarError(f"declared terminal {t!r} is also a nonterminal")
            letters.add(t)
        by_head: dict[str, list[Rule]] = {h: [] for h in heads}
        for r in rules:
            by_head[r.head].append(r)
        object.__setattr__(self, "start", start)
        object.__setattr__(self, "nonterminals", heads)
        object.__setattr__(self, "terminals", tuple(sorted(letters)))
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "_by_head", {h: tuple(rs) for h, rs in by_head.items()})
        self.unit_order  # noqa: B018 -- validates: raises UnitCycleError

    # -- basic queries -------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Grammar):
            return NotImplemented
        return (
            self.start == other.start
            and self.terminals == other.terminals
            and set(self.rules) == set(other.rules)
        )

    def __repr__(self) -> str:
        return f"Grammar(start={self.start!r}, rules={len(self.rules)}, kind={self.kind!r})"

    def is_nonterminal(self, symbol: str) -> bool:
        """Whether ``symbol`` is a nonterminal (a rule head) of this grammar."""
        return symbol in self._by_head

    def rules_of(self, head: str) -> tuple[Rule, ...]:
        """The rules with left-hand side ``head``, in input order."""
        try:
            return self._by_head[head]
        except KeyError:
            raise GrammarError(f"{head!r} is not a nonterminal of the grammar") from None

    def check_nonterminal(self, symbol: str) -> str:
        """Return ``symbol`` if it is a nonterminal, else raise a clear :class:`GrammarError`."""
        if symbol not in self._by_head:
            known = ", ".join(self.nonterminals)
            raise GrammarError(f"{symbol!r} is not a nonterminal (the nonterminals are {known})")
        return symbol

    def nonterminals_in(self, rule: Rule) -> tuple[str, ...]:
        """The nonterminal occurrences in ``rule.body``, left to right."""
        return tuple(s for s in rule.body if s in self._by_head)

    def is_unit(self, rule: Rule) -> bool:
        """Whether ``rule`` is a unit rule A → B."""
        return len(rule.body) == 1 and rule.body[0] in self._by_head

    # -- classification (SPEC §1) -------------------------------------------

    @cached_property
    def is_linear(self) -> bool:
        """Every right-hand side holds at most one nonterminal."""
        return all(len(self.nonterminals_in(r)) <= 1 for r in self.rules)

    @cached_property
    def is_right_linear(self) -> bool:
        """Every right-hand side is in Σ⁺ ∪ Σ*Γ."""
        return all(
            all(s not in self._by_head for s in r.body[:-1]) for r in self.rules
        )

    @cached_property
    def is_left_linear(self) -> bool:
        """Every right-hand side is in Σ⁺ ∪ ΓΣ*."""
        return all(all(s not in self._by_head for s in r.body[1:]) for r in self.rules)

    @property
    def kind(self) -> GrammarKind:
        """The narrowest class: right-linear, left-linear, linear or context-free.

        A grammar that is both right- and left-linear (no rule body mixes a
        nonterminal with letters on both sides) is reported as right-linear.
        """
        if self.is_right_linear:
            return "right-linear"
        if self.is_left_linear:
            return "left-linear"
        return "linear" if self.is_linear else "context-free"

    # -- derived grammars ---------------------------------------------------

    def mirror(self) -> Grammar:
        """The grammar with every right-hand side reversed.

        𝒢_{G,A}(w) = 𝒢_{mirror(G),A}(wᴿ); the mirror of a left-linear grammar
        is right-linear.
        """
        return Grammar(
            rules=(Rule(r.head, r.body[::-1]) for r in self.rules),
            start=self.start,
            terminals=self.terminals,
        )

    def restricted_to(self, head: str) -> Grammar:
        """The grammar of the nonterminals reachable from ``head``, with start ``head``.

        The game at (head, w) only ever involves these nonterminals (the cone
        of influence); Σ is kept whole so that automata keep their alphabet.
        """
        keep = self.reachable_from(head)
        return Grammar(
            rules=(r for r in self.rules if r.head in keep),
            start=head,
            terminals=self.terminals,
        )

    def reachable_from(self, head: str) -> frozenset[str]:
        """Nonterminals that occur in some sentential form derived from ``head``."""
        self.check_nonterminal(head)
        seen = {head}
        stack = [head]
        while stack:
            for r in self._by_head[stack.pop()]:
                for s in self.nonterminals_in(r):
                    if s not in seen:
                        seen.add(s)
                        stack.append(s)
        return frozenset(seen)

    @cached_property
    def productive(self) -> frozenset[str]:
        """The nonterminals that derive some word (a least fixpoint: a rule whose
        nonterminals are all productive makes its head productive)."""
        found: set[str] = set()
        grew = True
        while grew:
            grew = False
            for r in self.rules:
                if r.head not in found and all(s in found for s in self.nonterminals_in(r)):
                    found.add(r.head)
                    grew = True
        return frozenset(found)

    def letters_of(self, head: str) -> frozenset[str]:
        """The letters the words of L(G, ``head``) use: those of the rules reachable from
        ``head`` through rules whose nonterminals all derive words (SPEC §1).  Empty when
        ``head`` derives no word."""
        self.check_nonterminal(head)
        productive = self.productive
        if head not in productive:
            return frozenset()
        live = [r for r in self.rules if all(s in productive for s in self.nonterminals_in(r))]
        seen, todo, letters = {head}, [head], set()
        while todo:
            at = todo.pop()
            for r in live:
                if r.head != at:
                    continue
                for s in r.body:
                    if s in self._by_head:
                        if s not in seen:
                            seen.add(s)
                            todo.append(s)
                    else:
                        letters.add(s)
        return frozenset(letters)

    # -- unit rules (Step 1's order <_Γ) --------------------------------------

    @cached_property
    def unit_order(self) -> tuple[str, ...]:
        """All nonterminals, with B before A whenever A → B is a unit rule.

        This is the order <_Γ of Step 1 of the construction; it exists exactly
        when there is no unit cycle.

        Raises
        ------
        UnitCycleError
            Naming one cycle, e.g. ``A -> B -> A``.
        """
        succ = {h: [r.body[0] for r in rs if self.is_unit(r)] for h, rs in self._by_head.items()}
        order: list[str] = []
        state = dict.fromkeys(self.nonterminals, 0)  # 0 new, 1 on stack, 2 done
        for root in self.nonterminals:
            if state[root]:
                continue
            state[root] = 1
            path, iters = [root], [iter(succ[root])]
            while iters:
                nxt = next(iters[-1], None)
                if nxt is None:
                    iters.pop()
                    done = path.pop()
                    state[done] = 2
                    order.append(done)
                elif state[nxt] == 1:
                    cycle = tuple(path[path.index(nxt):]) + (nxt,)
                    raise UnitCycleError(cycle, rule=Rule(path[-1], (nxt,)))
                elif state[nxt] == 0:
                    state[nxt] = 1
                    path.append(nxt)
                    iters.append(iter(succ[nxt]))
        return tuple(order)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)
