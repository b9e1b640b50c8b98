"""The phylum of a misère canonical form: nim heap, tame, restive, restless or wild.

Conway's theory of *tame* games (ONAG ch. 12; Winning Ways ch. 13) singles out the
games that act like nim positions in every sum with one another.  Their genus, and
that of *restive* games, is one of a few kinds and determined by g^γ₀ — that is why
such a genus is written with one term.  The genus alone does not decide it: a game
can have a tame-looking genus and still be wild (CGSuite's test case
``*[((2#0)2[#1]2#)(2#1)[1]]``, genus ``0^120``, the sequence of 0^1).  CGSuite
classifies every form into *phyla* (Dan Hoey's ``Phylum``), and writes the genus of a
tame or restive form with γ₀ alone and every other genus in full; this module
computes the same phyla, bottom-up from the options:

* the *kind* of a genus g^γ₀ (g = G⁺, γ₀ = G⁻): tame when g = γ₀ or g, γ₀ ≤ 1;
  otherwise restive when g ≤ 1, restless when γ₀ ≤ 1, else wild;
* a nim heap is a nim heap;
* a form whose options are all hereditarily tame (nim heaps included) is
  *hereditarily tame* when its genus is tame, *hereditarily restive* when it is
  restive;
* a form whose options are all (generally) tame is *reversibly tame*, *reversibly
  restive* or *restless* by its genus (tame, restive, restless);
* a form with a non-tame option is still *reversibly tame* (tame genus) or *reversibly
  restive* (restive genus) when every non-tame option reverses — has options S of
  the right phylum (tame; restive or tame) with G⁻(S) = γ₀ and G⁺(S) = g (for a
  restive genus, an S with G⁻(S) = γ₀ must also have G⁺(S) ≤ 1 or G⁺(S) ⊕ γ₀ ≤ 1, and
  an S with G⁺(S) = g must have G⁻(S) ≤ 1 or G⁻(S) ⊕ γ₀ ≤ 1) — and the tame options
  alone give g and γ₀ as their mex (ONAG ch. 12: reversible moves may be ignored);
* anything else is wild.

A form and its sum with ``*`` share their phylum: it is computed on the *even* one
(:attr:`MisereGame.even_part`), as CGSuite stores the pair.  CGSuite splits wild games
further (*tameable*, Allemang's games that fix the genus of any sum with tame games);
that split never changes how a genus is written and is not made here.

References
----------
.. [1] J. H. Conway, *On Numbers and Games*, 2nd ed., ch. 12 (tame, restive and
   restless games; reversible moves).
.. [2] E. R. Berlekamp, J. H. Conway, R. K. Guy, *Winning Ways*, 2nd ed., ch. 13.
.. [3] CGSuite, ``org/cgsuite/core/misere/Phylum.java`` and ``MisereCanonicalGameOps``
   (D. Hoey): the phyla and the rules above; its test suite
   (``MisereCanonicalGameTestCase.scala``) gives each test form's phylum.
"""

from __future__ import annotations

from enum import Enum
from typing import Literal

from ..mex import mex
from .canonical import MisereGame, bottom_up

__all__ = ["Phylum", "phylum_of"]

Kind = Literal["tame", "restive", "restless", "wild"]


class Phylum(Enum):
    """A misère form's phylum (module docstring); ``.value`` is its name in words."""

    NIM_HEAP = "nim heap"
    HEREDITARILY_TAME = "hereditarily tame"
    REVERSIBLY_TAME = "reversibly tame"
    HEREDITARILY_RESTIVE = "hereditarily restive"
    REVERSIBLY_RESTIVE = "reversibly restive"
    RESTLESS = "restless"
    WILD = "wild"

    @property
    def tame(self) -> bool:
        """Generally tame (CGSuite's ``IsGenerallyTame``): a nim heap, hereditarily or
        reversibly tame."""
        return self in _TAME

    @property
    def hereditarily_tame(self) -> bool:
        """CGSuite's ``IsTame``: a nim heap or hereditarily tame."""
        return self in _HEREDITARILY_TAME

    @property
    def restive(self) -> bool:
        """Generally restive (CGSuite's ``IsGenerallyRestive``)."""
        return self in _RESTIVE

    @property
    def one_term_genus(self) -> bool:
        """Whether the genus is written g^γ₀ (or g, for a nim heap): tame or restive."""
        return self in _TAME or self in _RESTIVE


_HEREDITARILY_TAME = frozenset({Phylum.NIM_HEAP, Phylum.HEREDITARILY_TAME})
_TAME = _HEREDITARILY_TAME | {Phylum.REVERSIBLY_TAME}
_RESTIVE = frozenset({Phylum.HEREDITARILY_RESTIVE, Phylum.REVERSIBLY_RESTIVE})

#: (how tame the options are: 0 hereditarily, 1 generally; the genus's kind) -> phylum
_BY_OPTIONS: dict[tuple[int, Kind], Phylum] = {
    (0, "tame"): Phylum.HEREDITARILY_TAME,
    (0, "restive"): Phylum.HEREDITARILY_RESTIVE,
    (0, "restless"): Phylum.RESTLESS,
    (1, "tame"): Phylum.REVERSIBLY_TAME,
    (1, "restive"): Phylum.REVERSIBLY_RESTIVE,
    (1, "restless"): Phylum.RESTLESS,
}
#: the genus's kind -> the phylum of a form whose non-tame options all reverse
_IF_REVERSIBLE: dict[Kind, Phylum] = {
    "tame": Phylum.REVERSIBLY_TAME,
    "restive": Phylum.REVERSIBLY_RESTIVE,
}


def kind_of(g_plus: int, g_minus: int) -> Kind:
    """The kind of the genus g^γ₀ with g = ``g_plus``, γ₀ = ``g_minus``."""
    if g_plus == g_minus or (g_plus < 2 and g_minus < 2):
        return "tame"
    if g_plus < 2:
        return "restive"
    return "restless" if g_minus < 2 else "wild"


_CACHE: dict[int, Phylum] = {}


def phylum_of(game: MisereGame) -> Phylum:
    """The phylum of a misère canonical form (module docstring).

    >>> from sdg_automata.games.misere.canonical import misere_form, nim_heap
    >>> two = nim_heap(2)
    >>> phylum_of(two).value, phylum_of(two + two).value
    ('nim heap', 'hereditarily tame')
    >>> phylum_of(misere_form([misere_form([two]), nim_heap(1)])).value  # *[2#1]
    'restless'
    """
    return bottom_up(game.even_part, _CACHE, _below, _classify)


def _below(game: MisereGame) -> list[MisereGame]:
    """The even parts of the options and second options whose phyla classify ``game``."""
    return [x.even_part for o in game.options for x in (o, *o.options)]


def _known(game: MisereGame) -> Phylum:
    return _CACHE[game.even_part.id]


def _classify(game: MisereGame) -> Phylum:
    if game.is_nim_heap:
        return Phylum.NIM_HEAP
    kind = kind_of(game.nim_value, game.misere_nim_value)
    phyla = [_known(o) for o in game.options]
    if all(p.hereditarily_tame for p in phyla):
        return _BY_OPTIONS.get((0, kind), Phylum.WILD)
    if all(p.tame for p in phyla):
        return _BY_OPTIONS.get((1, kind), Phylum.WILD)
    if kind in _IF_REVERSIBLE and _reversible(game, kind):
        return _IF_REVERSIBLE[kind]
    return Phylum.WILD


def _reversible(game: MisereGame, kind: Kind) -> bool:
    """Whether every non-tame option reverses through forms of the right phylum to the
    game's genus, and the tame options alone give the game's G⁺ and G⁻."""
    g, gamma0 = game.nim_value, game.misere_nim_value
    tame = []
    for option in game.options:
        if _known(option).tame:
            tame.append(option)
            continue
        seconds = [s for s in option.options
                   if _known(s).tame or (kind == "restive" and _known(s).restive)]
        reverts_minus = any(s.misere_nim_value == gamma0
                            and _close(s.nim_value, gamma0, kind) for s in seconds)
        reverts_plus = any(s.nim_value == g
                           and _close(s.misere_nim_value, gamma0, kind) for s in seconds)
        if not (reverts_minus and reverts_plus):
            return False
    return (mex(o.nim_value for o in tame) == g
            and mex(o.misere_nim_value for o in tame) == gamma0)


def _close(value: int, gamma0: int, kind: Kind) -> bool:
    """A restive genus's side condition on a reverting form's other value (none for a
    tame genus): at most 1, or at most 1 apart from γ₀ in the nim sense."""
    return kind == "tame" or value < 2 or (value ^ gamma0) < 2
