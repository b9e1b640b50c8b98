"""Conway's genus of an impartial game: g^(γ₀γ₁γ₂…), in Unicode and in ASCII.

The genus of G is its normal-play nim value g = G⁺(G) with the sequence
γₙ = G⁻(G + 2 + 2 + ⋯ + 2), n copies of ``*2``, of misère nim values (Conway, ONAG
ch. 12; Winning Ways ch. 13).  Since the options of G + n·``*2`` are G' + n·``*2`` and
G + (n − 1)·``*2`` (+ ``*1`` or not), and G⁻(X + ``*1``) = G⁻(X) ⊕ 1,

    γ₀ = G⁻(G) = mex{γ₀(G')} (1 when G has no move),
    γₙ = mex({γₙ(G') : G' an option} ∪ {γₙ₋₁, γₙ₋₁ ⊕ 1}),

so a genus is computed from the options' genera.  The sequence is eventually
periodic with period 2 (Conway).  How it is written is CGSuite's rule, which follows
the game's phylum (:mod:`~sdg_automata.games.misere.phylum`), not the sequence alone:

* a nim heap's genus is its size alone (``*2`` is ``2``);
* a tame or restive game's genus is g with γ₀ alone, the rest following from the
  theory of such games: c ⊕ 2, c, c ⊕ 2, … from γ₁ on, with c = g (for a restive genus
  c = γ₀ when γ₀ < 4) — ``2^2`` is 2, 0, 2, 0, …;
* any other genus is written up to the point from which it alternates its last two
  terms, at least two of them: ``0^120`` is 0 with 1, 2, 0, 2, 0, … — even when the
  sequence is that of a tame genus (``0^1``), as for the wild game of CGSuite's test
  case ``*[((2#0)2[#1]2#)(2#1)[1]]`` or Kayles' heap 16 (``1^13``).

How many terms settle it: if every option's sequence has γᵢ = γᵢ₋₂ from i = K ≥ 2 on,
the maps x ↦ mex(Sₙ ∪ {x, x ⊕ 1}) repeat with period 2 from n = K − 2 and take at most
two values each, so their two-step composite is idempotent on its image (it is not a
swap: that would make the sequence 4-periodic, against Conway's theorem) and the game's
sequence has γᵢ = γᵢ₋₂ from i = max(K + 2, 5) on.  The terms are computed two past that
point, and a sequence that has not settled there is reported as a bug.

The text form uses superscripts (``0¹²⁰``); the ASCII form is CGSuite's plain text
(``0^120``, and ``6^(1,9,10,8)`` when a term has two digits).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import SdgBug
from ..mex import mex
from .canonical import MisereGame, bottom_up
from .phylum import Phylum, phylum_of

__all__ = ["Genus", "genus_of"]

_SUPERSCRIPTS = str.maketrans("0123456789(),", "⁰¹²³⁴⁵⁶⁷⁸⁹⁽⁾˒")


@dataclass(frozen=True, kw_only=True)
class Genus:
    """g^(γ₀γ₁…): ``g``, the written terms ``gammas`` and the game's ``phylum``.

    A tame or restive game writes γ₀ alone (continued c ⊕ 2, c, …; the module
    docstring), any other game its terms up to the alternating pair, which is
    continued.  A nim heap is written ``g`` alone.
    """

    g: int
    gammas: tuple[int, ...]
    phylum: Phylum = Phylum.WILD

    @property
    def nim_heap(self) -> bool:
        """Whether the game is a nim heap (its genus is written ``g``)."""
        return self.phylum is Phylum.NIM_HEAP

    def gamma(self, n: int) -> int:
        """γₙ = G⁻(G + n·``*2``), for any n ≥ 0."""
        k = len(self.gammas)
        if n < k:
            return self.gammas[n]
        if k == 1:
            return _tail(self.g, self.gammas[0]) ^ (2 if n % 2 else 0)
        return self.gammas[k - 2 + (n - k) % 2]

    def sequence(self, n: int) -> list[int]:
        """γ₀, …, γₙ₋₁."""
        return [self.gamma(i) for i in range(n)]

    @property
    def settled(self) -> int:
        """The least k ≥ 2 with γᵢ = γᵢ₋₂ for every i ≥ k."""
        if len(self.gammas) > 1:
            return len(self.gammas)
        return 2 if self.gamma(2) == self.gamma(0) else 3

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


def _tail(g: int, gamma0: int) -> int:
    """c of a tame or restive genus g^γ₀, continued c ⊕ 2, c, … from γ₁ on."""
    if g == gamma0 or (g < 2 and gamma0 < 2):
        return g  # tame
    if g < 2:
        return gamma0 if gamma0 < 4 else g  # restive
    raise SdgBug(f"the genus {g}^{gamma0} is neither tame nor restive")


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
    return bottom_up(game, _CACHE, lambda g: g.options, _compute)


def _compute(game: MisereGame) -> Genus:
    options = [_CACHE[o.id] for o in game.options]
    # settled from max(K + 2, 5) on (module docstring); two more terms confirm it
    bound = max(max([o.settled for o in options] + [2]) + 2, 5)
    seq: list[int] = []
    for n in range(bound + 2):
        excluded = {o.gamma(n) for o in options}
        if n == 0:
            seq.append(mex(excluded) if options else 1)
        else:
            excluded |= {seq[-1], seq[-1] ^ 1}
            seq.append(mex(excluded))
    k = len(seq)
    while k > 2 and seq[k - 1] == seq[k - 3]:
        k -= 1
    if k > bound:
        raise SdgBug(f"the genus sequence {seq} of {game} has not settled by its {bound}th term")
    phylum = phylum_of(game)
    if phylum.one_term_genus:
        genus = Genus(g=game.nim_value, gammas=(seq[0],), phylum=phylum)
        if genus.sequence(len(seq)) != seq:
            raise SdgBug(f"the {phylum.value} game {game} has the genus sequence {seq}, "
                         f"not that of {genus.ascii}")
        return genus
    return Genus(g=game.nim_value, gammas=tuple(seq[:k]), phylum=phylum)
