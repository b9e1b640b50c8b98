"""Misère play of impartial games: quotients, canonical forms and genus.

One module per concept (``docs/misere.md`` has the mathematics):

* :mod:`~sdg_automata.games.misere.monoid` — finite commutative monoids given by
  generators (:class:`Monoid`): products, reduction by a P-portion, presentations;
* :mod:`~sdg_automata.games.misere.components` — families of games whose positions
  are sums of components (:class:`Components`): a code's heaps, a game graph (the
  derivation game of a grammar, words up to a length, is such a family too:
  :class:`sdg_automata.derivation.misere.DerivationFamily`, in the layer above);
* :mod:`~sdg_automata.games.misere.quotient` — the misère quotient of a family,
  built and proven (:func:`misere_quotient`, :class:`MisereQuotient`);
* :mod:`~sdg_automata.games.misere.canonical` — misère canonical forms (Conway),
  written in CGSuite's notation, with the misère nim value;
* :mod:`~sdg_automata.games.misere.phylum` — the phyla of forms (nim heap, tame, restive,
  restless, wild), which decide how a genus is written;
* :mod:`~sdg_automata.games.misere.genus` — Conway's genus symbol.

The names below load their module on first use (PEP 562).

>>> from sdg_automata.games.misere import misere_quotient
>>> misere_quotient("0.77", upto=3).size   # Kayles, heaps up to 3: tame, like Nim
6
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...runtime.lazy import lazy_names
from .limits import DEFAULT_MAX_ORDER

if TYPE_CHECKING:
    from .canonical import MisereGame, heap_forms, misere_form
    from .components import Components, GraphFamily, HeapFamily
    from .genus import Genus, genus_of
    from .monoid import Monoid
    from .phylum import Phylum, phylum_of
    from .quotient import MisereQuotient, misere_quotient, quotient_of

__all__ = [
    "DEFAULT_MAX_ORDER",
    "Components",
    "Genus",
    "GraphFamily",
    "HeapFamily",
    "MisereGame",
    "MisereQuotient",
    "Monoid",
    "Phylum",
    "genus_of",
    "heap_forms",
    "misere_form",
    "misere_quotient",
    "phylum_of",
    "quotient_of",
]

#: each name of the package -> the module that defines it
_LAZY = {
    "Monoid": "monoid",
    "Components": "components", "GraphFamily": "components", "HeapFamily": "components",
    "MisereQuotient": "quotient", "misere_quotient": "quotient", "quotient_of": "quotient",
    "MisereGame": "canonical", "heap_forms": "canonical", "misere_form": "canonical",
    "Genus": "genus", "genus_of": "genus",
    "Phylum": "phylum", "phylum_of": "phylum",
}


__getattr__, __dir__ = lazy_names(__name__, _LAZY)
