"""Conway's genus of an impartial game: g^(γ₀γ₁γ₂…), in Unicode and in ASCII.

The genus of G is its normal-play nim value g = G⁺(G) with the sequence
γₙ = G⁻(G + 2 + 2 + ⋯ + 2), n copies of ``*2``, of misère nim values (Conway, ONAG
ch. 12; Winning Ways ch. 13).  Since the options of G + n·``*2`` are G' + n·``*2`` and
G + (n − 1)·``*2`` (+ ``*1`` or not), and G⁻(X + ``*1``) = G⁻(X) ⊕ 1,

    γ₀ = G⁻(G) = mex{γ₀(G')} (1 when G has no move),
    γₙ = mex({γₙ(G') : G' an option} ∪ {γₙ₋₁, γₙ₋₁ ⊕ 1}),

so a genus is computed from the options' genera.  The sequence is eventually
periodic with period 2 (Conway); it is written up to the point from which it
alternates its last two terms, at least two of them: 0^(120) is 0 with 1, 2, 0, 2,
0, ….  Two further abbreviations follow Winning Ways and CGSuite: a nim heap's genus
is its size alone (``*2`` is ``2``), and a *tame* or *restive* genus — g = γ₀, or g and
γ₀ both 0 or 1 (tame), or g ≤ 1 (restive) — whose sequence continues as such genera
do, c ⊕ 2, c, c ⊕ 2, … from γ₁ on (c = g; for a restive genus c = γ₀ when γ₀ < 4),
is written with γ₀ alone (``2^2`` is 2, 0, 2, 0, …; ``1^2`` is 2, 0, 2, …).  (CGSuite
writes two terms for a *wild* game of such a genus, ``2^20``, because it classifies
games as tame or wild; we do not, so the symbol says the sequence only.)

The text form uses superscripts (``0¹²⁰``); the ASCII form is CGSuite's plain text
(``0^120``, and ``6^(1,9,10,8)`` when a term has two digits).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..mex import mex
from .canonical import MisereGame

__all__ = ["Genus", "genus_of"]

_SUPERSCRIPTS = str.maketrans("0123456789(),", "⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾˒")


@dataclass(frozen=True, kw_only=True)
class Genus:
    """g^(γ₀γ₁…): ``g`` and the written terms ``gammas`` (continued by alternating the
    last two; one term: alternating γ₀, γ₀ ⊕ 2 — see the module docstring), and
    whether the game is a nim heap (then written ``g``)."""

    g: int
    gammas: tuple[int, ...]
    nim_heap: bool = False

    def gamma(self, n: int) -> int:
        """γₙ = G⁻(G + n·``*2``), for any n ≥ 0."""
        k = len(self.gammas)
        if n < k:
            return self.gammas[n]
        if k == 1:
            c = _tail(self.g, self.gammas[0])
            assert c is not None
            return c ^ (2 if n % 2 else 0)
        return self.gammas[k - 2 + (n - k) % 2]

    def sequence(self, n: int) -> list[int]:
        """γ₀, …, γₙ₋₁."""
        return [self.gamma(i) for i in range(n)]

    def _sup(self) -> str:
        if self.nim_heap:
            return ""
        if any(x >= 10 for x in self.gammas):
            return "(" + ",".join(map(str, self.gammas)) + ")"
        return "".join(map(str, self.gammas))

    @property
    def text(self) -> str:
        """Conway's symbol with superscripts: ``0¹²⁰``, ``2``."""
        return str(self.g) + self._sup().translate(_SUPERSCRIPTS)

    @property
    def ascii(self) -> str:
        """CGSuite's plain text: ``0^120``, ``2``."""
        sup = self._sup()
        return str(self.g) + ("^" + sup if sup else "")

    def __str__(self) -> str:
        return self.text


def _tail(g: int, gamma0: int) -> int | None:
    """c of a tame or restive genus g^γ₀, continued c ⊕ 2, c, … (``None``: neither)."""
    if g == gamma0 or (g < 2 and gamma0 < 2):
        return g
    if g < 2:
        return gamma0 if gamma0 < 4 else g
    return None


def _written(g: int, seq: Sequence[int]) -> tuple[int, ...]:
    """The shortest prefix that the continuation rules extend to ``seq`` (which ends in
    its alternating part)."""
    n = len(seq)
    c = _tail(g, seq[0])
    if c is not None and all(seq[i] == c ^ (2 if i % 2 else 0) for i in range(1, n)):
        return (seq[0],)
    k = n
    while k > 2 and seq[k - 1] == seq[k - 3]:
        k -= 1
    return tuple(seq[:k])


_CACHE: dict[int, Genus] = {}


def genus_of(game: MisereGame) -> Genus:
    """The genus of a misère canonical form, from its options' genera (module docstring).

    >>> from sdg_automata.games.misere.canonical import misere_form, nim_heap
    >>> [genus_of(nim_heap(n)).text for n in range(4)]
    ['0', '1', '2', '3']
    >>> g = genus_of(misere_form([nim_heap(2)]))  # {*2}: 0 with 0, 2, 0, 2, ...
    >>> g.ascii, g.sequence(4)
    ('0^0', [0, 2, 0, 2])
    """
    got = _CACHE.get(game.id)
    if got is not None:
        return got
    stack = [game]
    while stack:  # the options first, without recursion
        top = stack[-1]
        pending = [o for o in top.options if o.id not in _CACHE]
        if pending:
            stack.extend(pending)
            continue
        stack.pop()
        if top.id not in _CACHE:
            _CACHE[top.id] = _compute(top)
    return _CACHE[game.id]


def _compute(game: MisereGame) -> Genus:
    options = [_CACHE[o.id] for o in game.options]
    # every option alternates from its written length on: two more terms settle ours
    length = max([len(o.gammas) for o in options] + [1]) + 3
    seq: list[int] = []
    for n in range(length):
        excluded = {o.gamma(n) for o in options}
        if n == 0:
            seq.append(mex(excluded) if options else 1)
        else:
            excluded |= {seq[-1], seq[-1] ^ 1}
            seq.append(mex(excluded))
    return Genus(g=game.nim_value, gammas=_written(game.nim_value, seq),
                 nim_heap=game.is_nim_heap)
