"""The successful derivation game itself and its analyses (SPEC §2, §7).

Where :mod:`sdg_automata.games` holds impartial games in general, this package holds the
game a grammar defines, the successful derivation game (SDG):

* :mod:`~sdg_automata.derivation.semantics` — its moves, exact Grundy numbers by dynamic
  programming over substrings, and the brute-force oracle (the definition);
* :mod:`~sdg_automata.derivation.play` — positions, their moves and the game against the
  engine;
* :mod:`~sdg_automata.derivation.gamegraph` — the game graph of a grammar's positions;
* :mod:`~sdg_automata.derivation.periodicity` — periods of n ↦ 𝒢(A, aⁿ), proven from the
  Step 1–5 automaton;
* :mod:`~sdg_automata.derivation.misere` — the pairs (A, w) up to a length as a family of
  components, for the misère quotient of :mod:`sdg_automata.games.misere`.
"""
