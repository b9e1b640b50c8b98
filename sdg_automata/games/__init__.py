"""Impartial games in general, whatever defines them (SPEC §6–§7).

* :mod:`~sdg_automata.games.mex` — mex and nim sums;
* :mod:`~sdg_automata.games.solution`, :mod:`~sdg_automata.games.impartial`,
  :mod:`~sdg_automata.games.graphfile` — finite game graphs: Grundy numbers, outcomes in
  normal and misère play, sums, JSON files;
* :mod:`~sdg_automata.games.octal` — octal games; :mod:`~sdg_automata.games.imark` — i-Mark
  and the convergence technique.

The game a grammar defines, the successful derivation game, and its analyses are
:mod:`sdg_automata.derivation`.
"""
