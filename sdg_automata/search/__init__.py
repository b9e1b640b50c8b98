"""Max-Grundy-Number-in-SDG (SPEC §5): is the maximum of 𝒢_{G,A} over L(G, A) equal to k?

* :mod:`~sdg_automata.search.decide` — the facade: :func:`~sdg_automata.search.decide.max_grundy`,
  ``spectrum`` and the ``Verdict``; :mod:`~sdg_automata.search.spectrum` — every nonterminal
  at once (``spectrum`` and its rows, the facade's names loaded on first use);
* :mod:`~sdg_automata.search.strategies` — the registry of search strategies, one module each;
* :mod:`~sdg_automata.search.engines` — the registry of the engines that run a search (the
  Python reference, the kernels over a table or a compact store, a Dask cluster), one module
  each, and the one dispatch; :mod:`~sdg_automata.search.options` — what both registries'
  entries share (their options, arguments and refusals);
* :mod:`~sdg_automata.search.compiled` — the compiled search: step tables, stores, the one
  loop around a kernel, drivers;
* :mod:`~sdg_automata.search.packed` — the packed set of states of the Python search;
* :mod:`~sdg_automata.search.circuit`, :mod:`~sdg_automata.search.bmc`,
  :mod:`~sdg_automata.search.pdr` — the solver-backed encodings;
* :mod:`~sdg_automata.search.sharded`, :mod:`~sdg_automata.search.shard` — one search over a
  Dask cluster (the ``dask`` engine).
"""
