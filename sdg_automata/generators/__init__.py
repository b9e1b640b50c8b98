"""Instance generators: grammars built from parameters, each with its own ground truth.

* :mod:`~sdg_automata.generators.families` — the PSPACE-hardness family of SPEC §5 and
  other instance families, with truths independent of the engine (the Chinese remainder
  theorem, automata-lib products, subtraction games);
* :mod:`~sdg_automata.generators.enumeration` — every right-linear grammar of a size, once
  per isomorphism class.

They sit just above the automaton layer, below the games and the searches they feed.
"""
