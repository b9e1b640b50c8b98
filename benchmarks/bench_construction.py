"""Building the reachable Step 1–5 automaton, and automata-lib on top of it.

For growing instances of the hardness family (SPEC §5): reachable states,
transitions per second of ``GrundyAutomaton.explore`` (int tables), its peak
memory (tracemalloc, in a separate run), the cost of turning the tables into an
automata-lib DFA with the fast configuration against the default one
(validation and deep-freezing), and the share of automata-lib's ``minify`` in
the whole explicit pipeline.
"""

from __future__ import annotations

import tracemalloc

from benchmarks.common import best_of, show
from sdg_automata.automaton.construction import GrundyAutomaton
from sdg_automata.generators.families import (
    ModularSpec,
    intersection_grammar,
    modular_family,
    random_family,
)
from sdg_automata.grammar import Grammar

#: above this many states the automata-lib steps (default build, minify) are not timed
AUTOMATA_LIB_CAP = 40_000

MODULAR = [
    "3:0 5:2",
    "3:0 5:1 7:3",
    "3:0 5:2 7:3 11:5",
    "3:0 5:2 7:3 11:5 13:1",
    "16:0 9:6 5:0 7:3 11:5",
    "16:0 27:6 5:0 7:3 11:5",
]


def instances(quick: bool) -> list[tuple[str, Grammar]]:
    out: list[tuple[str, Grammar]] = [
        (f"modular {spec}", modular_family([ModularSpec.parse(s) for s in spec.split()]))
        for spec in MODULAR[: 4 if quick else None]]
    out.extend((f"random 3 DFAs x {states} states",
                intersection_grammar(random_family(3, states, seed=7)))
               for states in ([6] if quick else [8, 12, 16]))
    return out


def run(quick: bool = False) -> list[dict]:
    import automata.base.config as config
    from automata.fa.dfa import DFA

    rows = []
    for name, g in instances(quick):
        automaton = GrundyAutomaton(g)
        t_explore, reachable = best_of(lambda g=g: GrundyAutomaton(g).explore(), 2 if quick else 1)
        n = len(reachable)
        transitions = n * len(reachable.alphabet)
        tracemalloc.start()
        GrundyAutomaton(g).explore()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        values = reachable.values(g.start)
        top = max(v for v in values if v is not None)
        finals = [s for s, v in enumerate(values) if v == top]
        # the first DFA of a structure pays for freezing the shared transitions once
        t_fast, machine = best_of(lambda r=reachable, f=finals: r.to_dfa(f), 1)
        others = [s for s, v in enumerate(values) if v != top]
        t_next, _ = best_of(lambda r=reachable, f=others: r.to_dfa(f), 1)  # shares the mapping
        params = {k: v for k, v in machine.input_parameters.items()}
        row = {"instance": name, "items": len(automaton.items), "states": n,
               "explore_s": t_explore, "transitions_per_s": transitions / t_explore,
               "peak_mb": peak / 2**20, "bytes_per_state": peak / n, "dfa_fast_s": t_fast,
               "next_dfa_s": t_next}
        rows.append(row)
        if n > AUTOMATA_LIB_CAP:  # automata-lib's Python minify needs ~1.6 KB/state and minutes
            continue

        def default_build(params: dict = params) -> DFA:
            old = (config.should_validate_automata, config.allow_mutable_automata)
            config.should_validate_automata, config.allow_mutable_automata = True, False
            try:
                return DFA(**params)
            finally:
                config.should_validate_automata, config.allow_mutable_automata = old

        t_default, _ = best_of(default_build, 1)
        t_min, small = best_of(machine.minify, 1)
        total = t_explore + t_fast + t_min
        row.update({"dfa_default_s": t_default, "default_over_fast": t_default / t_fast,
                    "minify_s": t_min, "minify_share": t_min / total,
                    "minimal_states": len(small.states)})
    show("Reachable automaton (int tables) and automata-lib DFAs of M_{A,max}",
         ["instance", "items", "states", "explore s", "transitions/s", "peak MB", "B/state",
          "first DFA s", "next DFA s", "default/first", "minify s", "minify share",
          "minimal"],
         [[r["instance"], r["items"], r["states"], r["explore_s"], r["transitions_per_s"],
           r["peak_mb"], r["bytes_per_state"], r["dfa_fast_s"], r["next_dfa_s"],
           r.get("default_over_fast", "—"),
           r.get("minify_s", "—"), f"{r['minify_share']:.0%}" if "minify_share" in r else "—",
           r.get("minimal_states", "—")] for r in rows])
    return rows


def main() -> None:
    run()


if __name__ == "__main__":
    main()
