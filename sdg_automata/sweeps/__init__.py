"""The sweeps of the command line: every grammar of a size, every i-Mark of a range.

Each sweep is a :class:`~sdg_automata.sweeps.runner.Sweep` (jobs, keys, a job → row
function) run by :func:`~sdg_automata.sweeps.runner.run_sweep`.
"""
