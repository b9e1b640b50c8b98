"""Misère canonical forms of impartial games (Conway), in CGSuite's notation.

Two impartial games are *misère equal* when adding either to any game gives the
same misère outcome.  Every game is equal to a unique *simplest form*, reached by
the Grundy–Smith simplification alone (Conway, ONAG ch. 12; Siegel, CGT V.1): build
the forms bottom-up from the options' forms, and

* if every option has 0 as an option and some option is a misère P-position, the
  game is 0 (the *proviso*: 0 is an N-position, so the game must be one too);
* if the options split, by birthday, into a lower part H and an upper part whose
  every member has H as an option, with a birthday gap of two between them (a
  member's option H has birthday max(H) + 1), the game is H: a move to an upper
  option is answered by the move back to H.

(Proof of the second rule: G + X and H + X have the same outcome for every X, by
induction on X — an upper option C + X of G + X has the option H + X, so it wins
for the mover only where H + X loses, and there G + X already loses.)  The forms
are interned: equal games are the same :class:`MisereGame`.

``str(game)`` is CGSuite's plain-text notation (its ``MisereCanonicalForm``): ``*[``,
the form, ``]``.  A nim heap is its size (``*[2]``); a game with several options
lists them, largest first in CGSuite's canonical order, compound ones in
parentheses (``*[42]`` has options ``*[4]`` and ``*[2]``); a game with one option is
that option followed by ``#`` (``*[2#]`` = {``*[2]``}); G + ``*i`` with a smaller
birthday than G is written with the subscript i, in plain text in brackets
(``*[2[2]]`` = ``*[2] + *[2]``), ``[-i]`` for G − … (the form's sum with ``*i`` is
simpler), and an odd game E + ``*`` as E with the subscript 1.  The strings match
CGSuite's own test suite (``MisereCanonicalGameTestCase.scala``, ``GameHeapTest.scala``).

References
----------
.. [1] J. H. Conway, *On Numbers and Games*, 2nd ed., ch. 12 ("How to lose when you must").
.. [2] A. N. Siegel, *Combinatorial Game Theory*, AMS 2013, ch. V.
.. [3] CGSuite, ``org/cgsuite/core/misere/MisereCanonicalGameOps`` (the notation).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Literal, TypeVar

from ...errors import InputError
from ...runtime.budget import UNLIMITED, Budget
from ..mex import mex
from ..octal.rules import OctalGame
from ..solution import GameGraphLike, _finish_order, adjacency_of
from .components import heap_options

__all__ = ["MisereGame", "bottom_up", "graph_forms", "heap_forms", "misere_form", "nim_heap"]

T = TypeVar("T")


class _Table:
    """The interned forms: id → sorted option ids, with each form's data."""

    def __init__(self) -> None:
        self.options: list[tuple[int, ...]] = [()]
        self.birthday: list[int] = [0]
        self.g_minus: list[int] = [1]  # the misère nim value: 1 for 0 (no move)
        self.g_plus: list[int] = [0]  # the normal-play nim value
        self.index: dict[tuple[int, ...], int] = {(): 0}
        self.sums: dict[tuple[int, int], int] = {}
        self.heaps: list[int] = [0]  # nim_heap(n) for n < len

    def intern(self, options: tuple[int, ...]) -> int:
        got = self.index.get(options)
        if got is None:
            got = self.index[options] = len(self.options)
            self.options.append(options)
            self.birthday.append(1 + max(self.birthday[o] for o in options))
            self.g_minus.append(mex(self.g_minus[o] for o in options))
            self.g_plus.append(mex(self.g_plus[o] for o in options))
        return got

    def simplest(self, given: Iterable[int]) -> int:
        """The simplest form of the game whose options are the forms ``given``."""
        options = tuple(sorted(set(given)))
        if not options:
            return 0
        got = self.index.get(options)
        if got is not None:
            return got
        # the proviso: every option has the move to 0 and some option is a P-position
        if all(0 in self.options[o] for o in options) and any(
                self.g_minus[o] == 0 for o in options):
            return 0
        by_birthday = sorted(options, key=self.birthday.__getitem__)
        for j in range(1, len(by_birthday)):
            if self.birthday[by_birthday[j]] <= self.birthday[by_birthday[j - 1]] + 1:
                continue
            lower = tuple(sorted(by_birthday[:j]))
            h = self.index.get(lower)  # the lower part must itself be a simplest form
            if h is not None and all(h in self.options[c] for c in by_birthday[j:]):
                return h
        return self.intern(options)

    def add(self, a: int, b: int) -> int:
        """The simplest form of a + b."""
        if a == 0 or b == 0:
            return a or b
        key = (a, b) if a <= b else (b, a)
        got = self.sums.get(key)
        if got is None:
            got = self.sums[key] = self.simplest(
                [self.add(x, b) for x in self.options[a]]
                + [self.add(a, y) for y in self.options[b]])
        return got

    def nim_heap(self, n: int) -> int:
        while len(self.heaps) <= n:
            self.heaps.append(self.simplest(self.heaps))
        return self.heaps[n]


_TABLE = _Table()


@dataclass(frozen=True)
class MisereGame:
    """An impartial game's misère canonical form (interned: equal games are identical).

    ``str()`` is CGSuite's notation (the module docstring), e.g. ``*[2#]``; its genus is
    :func:`~sdg_automata.games.misere.genus.genus_of`.

    Examples
    --------
    >>> two = nim_heap(2)
    >>> str(two), str(two + two), str(misere_form([two]))
    ('*[2]', '*[2[2]]', '*[2#]')
    >>> nim_heap(1) + nim_heap(1) == nim_heap(0)  # * + * = 0 in misère play too
    True
    >>> (two + two).outcome, two.misere_nim_value, two.nim_value
    ('P', 2, 2)
    """

    id: int

    @property
    def options(self) -> tuple[MisereGame, ...]:
        """The options of the form."""
        return tuple(MisereGame(o) for o in _TABLE.options[self.id])

    @property
    def birthday(self) -> int:
        """The birthday of the form."""
        return _TABLE.birthday[self.id]

    @property
    def misere_nim_value(self) -> int:
        """G⁻: 1 for the game with no move, else the mex of the options' G⁻; 0 exactly at
        misère P-positions (G + ``*n`` is a P-position exactly for n = G⁻)."""
        return _TABLE.g_minus[self.id]

    @property
    def nim_value(self) -> int:
        """G⁺, the normal-play Grundy number."""
        return _TABLE.g_plus[self.id]

    @property
    def outcome(self) -> Literal["P", "N"]:
        """The misère outcome: ``"P"`` when the player to move loses."""
        return "P" if self.misere_nim_value == 0 else "N"

    @property
    def is_nim_heap(self) -> bool:
        """Whether the form is a nim heap ``*n`` (n = its birthday)."""
        return _TABLE.nim_heap(self.birthday) == self.id

    @property
    def even_part(self) -> MisereGame:
        """E with ``self`` = E or E + ``*``, E *even* (CGSuite's ``IsEven``: E has a smaller
        birthday than E + ``*``); the game itself when it is even.

        >>> nim_heap(3).even_part, nim_heap(0).even_part
        (MisereGame(*[2]), MisereGame(*[0]))
        """
        even = _odd_part(self.id)
        return self if even is None else MisereGame(even)

    def __add__(self, other: MisereGame) -> MisereGame:
        if not isinstance(other, MisereGame):
            return NotImplemented
        return MisereGame(_TABLE.add(self.id, other.id))

    def __str__(self) -> str:
        return "*[" + _notation(self.id) + "]"

    def __repr__(self) -> str:
        return f"MisereGame({self})"


def nim_heap(n: int) -> MisereGame:
    """The nim heap ``*n`` as a misère form (``*n = {*0, …, *(n − 1)}``)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InputError(f"a nim heap's size is a natural number, not {n!r}")
    return MisereGame(_TABLE.nim_heap(n))


def misere_form(options: Iterable[MisereGame]) -> MisereGame:
    """The simplest form of the game whose options are ``options``."""
    return MisereGame(_TABLE.simplest(o.id for o in options))


def heap_forms(code: str | OctalGame, upto: int, *,
               budget: Budget = UNLIMITED) -> list[MisereGame]:
    """The misère canonical forms of the heaps 0, …, ``upto`` of an octal or hexadecimal
    game (each option, a sum of heaps, added in canonical form).

    >>> [str(g) for g in heap_forms("0.77", 5)]  # Kayles
    ['*[0]', '*[1]', '*[2]', '*[3]', '*[1]', '*[2[2]321]']
    """
    game = OctalGame.parse(code) if isinstance(code, str) else code
    if isinstance(upto, bool) or not isinstance(upto, int) or upto < 0:
        raise InputError(f"the largest heap must be a natural number, not {upto!r}")
    meter = budget.start(f"misère forms of {game.code}", unit="heaps")
    forms = [0]
    try:
        for n in range(1, upto + 1):
            moves = []
            for move in heap_options(game, n):
                x = 0
                for h in move:
                    x = _TABLE.add(x, forms[h])
                moves.append(x)
            forms.append(_TABLE.simplest(moves))
            meter.check(n)
    except KeyboardInterrupt:
        raise meter.interrupted(len(forms) - 1) from None
    return [MisereGame(f) for f in forms]


def graph_forms(graph: GameGraphLike[Hashable], *,
                budget: Budget = UNLIMITED) -> dict[Hashable, MisereGame]:
    """The misère canonical form of every position of a finite acyclic game graph."""
    adjacency = adjacency_of(graph)
    meter = budget.start("misère forms", unit="positions")
    forms: dict[Hashable, int] = {}
    try:
        for i, position in enumerate(_finish_order(adjacency)):
            forms[position] = _TABLE.simplest(forms[f] for f in adjacency[position])
            meter.check(i + 1)
    except KeyboardInterrupt:
        raise meter.interrupted(len(forms)) from None
    return {p: MisereGame(forms[p]) for p in adjacency}


# ---------------------------------------------------------------------------------------
# CGSuite's notation


@cache
def _odd_part(g: int) -> int | None:
    """E when g = E + * for an even E (CGSuite's parity: E is g's largest option in the
    canonical order, and g's options are exactly E's options plus * and E), else None."""
    opts = _TABLE.options[g]
    if not opts:
        return None
    top = max(opts, key=_key)
    if _odd_part(top) is not None:
        return None
    star = _TABLE.nim_heap(1)
    return top if _TABLE.add(top, star) == g else None


@cache
def _key(g: int) -> tuple[object, ...]:
    """CGSuite's canonical order: the even part's birthday, number of options, G⁺, G⁻ and
    options (in this order), then even before odd."""
    even = _odd_part(g)
    odd = even is not None
    e = g if even is None else even
    opts = sorted(_TABLE.options[e], key=_key)
    return (_TABLE.birthday[e], len(opts), _TABLE.g_plus[e], _TABLE.g_minus[e],
            tuple(_key(o) for o in opts), odd)


def _digit(n: int) -> str:
    return str(n) if n < 10 else f"&{n};"


def _subtract(g: int, h: int) -> int | None:
    """The option d of g with d + h = g, if any (by cancellation, at most one)."""
    for d in _TABLE.options[g]:
        if _TABLE.add(d, h) == g:
            return d
    return None


def _notation(g: int) -> str:
    out: list[str] = []
    opened = [0]
    _emit(g, False, opened, out)
    if opened[0]:
        out.append("]")
    return "".join(out)


def _emit(g: int, parenthesize: bool, opened: list[int], out: list[str]) -> None:
    """Append g's notation; ``opened[0]`` says on entry that a subscript must open after
    the base ("[" in plain text) and on exit whether one was opened."""
    b = _TABLE.birthday[g]
    if g == _TABLE.nim_heap(b):
        out.append(_digit(b))
        if opened[0]:
            out.append("[")
        return
    odd = _odd_part(g) is not None
    for i in range(2 + odd, b, 2):  # g = d + *i, or g = s − *i, with a simpler d or s
        heap = _TABLE.nim_heap(i)
        d = _subtract(g, heap)
        if d is not None and _TABLE.birthday[d] < b:
            opened[0] = 1
            _emit(d, True, opened, out)
            out.append(_digit(i))
            return
        s = _TABLE.add(g, heap)
        if _TABLE.birthday[s] < b:
            opened[0] = 1
            _emit(s, True, opened, out)
            out.append("-" + _digit(i))
            return
    even = _odd_part(g)
    if even is not None:
        opened[0] = 1
        _emit(even, True, opened, out)
        out.append("1")
        return
    opts = sorted(_TABLE.options[g], key=_key)
    if len(opts) == 1:
        _emit(opts[0], True, opened, out)
        out.append("#")
        return
    before = opened[0]
    if parenthesize:
        out.append("(")
    for o in reversed(opts):
        opened[0] = 0
        _emit(o, True, opened, out)
        if opened[0]:
            out.append("]")
    if parenthesize:
        out.append(")")
    opened[0] = before
    if opened[0]:
        out.append("[")


def bottom_up(game: MisereGame, cache: dict[int, T],
              below: Callable[[MisereGame], Iterable[MisereGame]],
              compute: Callable[[MisereGame], T]) -> T:
    """``cache[game.id]``, after computing (without recursion: forms can be deep) every
    form ``below`` says it needs, each from forms of smaller birthday."""
    stack = [game]
    while stack:
        top = stack[-1]
        pending = [g for g in below(top) if g.id not in cache]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        if top.id not in cache:
            cache[top.id] = compute(top)
    return cache[game.id]


def forms_of(positions: Sequence[MisereGame]) -> MisereGame:
    """The form of the sum of ``positions``."""
    x = 0
    for g in positions:
        x = _TABLE.add(x, g.id)
    return MisereGame(x)
