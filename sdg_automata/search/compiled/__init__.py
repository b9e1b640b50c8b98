"""The compiled breadth-first, depth-first and lasso searches: one home for their parts.

The kernels (:mod:`sdg_automata.kernels`) work on numpy arrays only; this package holds
everything that turns an automaton into their arrays and drives them:

* :mod:`~sdg_automata.search.compiled.tables` — the step tables: states as vectors of
  per-group part ids, the plans the kernels execute;
* :mod:`~sdg_automata.search.compiled.stores` — the visited sets of a walk (records in
  growing memory maps, the exact compact table);
* :mod:`~sdg_automata.search.compiled.drive` — the drivers, which call a kernel in quanta
  and serve budgets, progress, Ctrl-C and memory between calls;
* :mod:`~sdg_automata.search.compiled.explore` — the compiled twin of
  ``GrundyAutomaton.explore``, which the automaton reaches by name through
  :data:`sdg_automata.runtime.engines.COMPILED`.
"""
