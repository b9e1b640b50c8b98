"""Counting the words of a Grundy class: automata-lib's ``count_words_of_length`` against
the int-table methods of :mod:`sdg_automata.automaton.counting` (issue 11 §2).

Table 1, in one process, the count alone (minimization done beforehand, the
same minimal DFA for both): automata-lib (every level kept, dict lookups)
against ``method="auto"`` (two rolling levels, or transfer-matrix powers by the
cost rule), N = 10³ and 10⁴, on Example 3 (4-state classes) and on a random
family instance whose class has 396 states (``family random --dfas 3 --states
7 --seed 5``, class 3 of A).

Table 2, whole processes (``python -m sdg_automata count ...``) with the
process's peak resident memory (VmHWM): old and new at N = 10⁴ on the
396-state class, then the new route alone at N = 10⁵ there and N = 10⁶ on
Example 3, which automata-lib cannot reach (N = 10⁴ already takes 1.4 GB).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from benchmarks.common import best_of, child, show
from sdg_automata import load_grammar
from sdg_automata.automaton.counting import ClassMachine
from sdg_automata.generators.families import intersection_grammar, random_family
from sdg_automata.grammar import Grammar
from sdg_automata.grammar.parse import grammar_to_text

EXAMPLE3 = Path(__file__).resolve().parent.parent / "examples" / "example3.txt"


def random396() -> Grammar:
    """The random-family instance with a 396-state class (value 3 of A)."""
    return intersection_grammar(random_family(3, 7, seed=5))


def run(quick: bool = False) -> list[dict]:
    cases = [("example3", load_grammar(EXAMPLE3), 0), ("random", random396(), 3)]
    lengths = [100, 1000] if quick else [10**3, 10**4]
    rows = []
    for name, g, value in cases:
        machine = ClassMachine.build(g, "A")
        states = len(machine.dfa(value).states)
        for n in lengths:
            repeat = 1 if n >= 10**4 else 3
            # a freshly minimized DFA per run: automata-lib caches every level it counted
            fresh = [machine.reachable.to_dfa(machine.reachable.accepting("A", value)).minify()
                     for _ in range(repeat)]
            t_old, c_old = min(best_of(lambda d=d, n=n: int(d.count_words_of_length(n)), 1)
                               for d in fresh)
            del fresh
            t_new, c_new = best_of(lambda machine=machine, value=value, n=n:
                                   machine.count(value, n), 3)
            assert c_old == c_new, (name, n)
            rows.append({"grammar": name, "states": states, "length": n, "old_s": t_old,
                         "new_s": t_new, "method": machine.plan(value, n).method,
                         "ratio": t_old / t_new})
    show("count alone: automata-lib count_words_of_length vs int tables (ratio = old / new)",
         ["grammar", "class states", "N", "automata-lib s", "new s", "method", "ratio"],
         [[r["grammar"], r["states"], r["length"], r["old_s"], r["new_s"], r["method"],
           r["ratio"]] for r in rows])
    procs = []
    with tempfile.TemporaryDirectory() as tmp:
        rand = Path(tmp) / "random396.txt"
        rand.write_text(grammar_to_text(random396()), encoding="utf-8")
        jobs = ([(rand, 3, 1000, "automata-lib"), (rand, 3, 1000, "auto"),
                 (EXAMPLE3, 0, 10**4, "auto")] if quick else
                [(rand, 3, 10**4, "automata-lib"), (rand, 3, 10**4, "auto"),
                 (rand, 3, 10**5, "auto"), (EXAMPLE3, 0, 10**6, "auto")])
        for path, value, n, method in jobs:
            seconds, peak, out = child(["-m", "sdg_automata", "count", str(path), "A",
                                        str(value), "--length", str(n), "--method", method,
                                        "--max-seconds", "100000"])
            procs.append({"grammar": path.stem, "length": n, "method": method,
                          "seconds": seconds, "peak_mb": peak / 2**20, "digits": len(out) - 1})
    show("whole process `count --length N` (wall seconds, peak RSS)",
         ["grammar", "N", "method", "seconds", "peak MB", "digits"],
         [[p["grammar"], p["length"], p["method"], p["seconds"], p["peak_mb"], p["digits"]]
          for p in procs])
    return rows + procs


def main() -> None:
    run()


if __name__ == "__main__":
    main()
