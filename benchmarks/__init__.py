"""Benchmarks of sdg_automata: ratio tables measured side by side in one run."""
