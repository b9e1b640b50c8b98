"""Grundy number of one long word: the Step 1–5 automaton against the exact DPs.

Rows: Example 3 and CSub words of 10⁴–10⁶ random letters; the automaton
(`grundy --method dfa`, construction and warm-up included) against the linear
suffix DP (`--method brute`), as a ratio and in letters per second.  Then the
substring table for a context-free (non-linear) grammar on its worst case (ab)^k,
k = 100 … 800: the per-split reference against the bitset table (issue 11 §4).
"""

from __future__ import annotations

import random
from pathlib import Path

from benchmarks.common import SEED, best_of, show
from sdg_automata import load_grammar
from sdg_automata.derivation.semantics import ReferenceSubstringTable, SubstringTable, evaluator
from sdg_automata.grammar.parse import parse_grammar

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"

#: a context-free grammar that is not linear: balanced words over {a, b} (a = open, b = close)
DYCK = "S -> a S b | S S | a b"


def run(quick: bool = False) -> list[dict]:
    rows = []
    rng = random.Random(SEED)
    lengths = [10**3, 10**4] if quick else [10**4, 10**5, 10**6]
    for name in ("example3", "csub"):
        g = load_grammar(EXAMPLES / f"{name}.txt")
        for n in lengths:
            w = "".join(rng.choice(g.terminals) for _ in range(n))
            repeat = 1 if n >= 10**6 else 3
            t_dfa, v1 = best_of(lambda g=g, w=w: evaluator(g, method="dfa")(g.start, w), repeat)
            t_dp, v2 = best_of(lambda g=g, w=w: evaluator(g, method="brute")(g.start, w), repeat)
            assert v1 == v2, (name, n, v1, v2)
            rows.append({"grammar": name, "length": n, "dfa_s": t_dfa, "dp_s": t_dp,
                         "ratio": t_dp / t_dfa, "dfa_letters_per_s": n / t_dfa,
                         "dp_letters_per_s": n / t_dp})
    show("Grundy of one word: automaton vs suffix DP (ratio = DP time / automaton time)",
         ["grammar", "|w|", "automaton s", "suffix DP s", "ratio", "automaton letters/s",
          "DP letters/s"],
         [[r["grammar"], r["length"], r["dfa_s"], r["dp_s"], r["ratio"], r["dfa_letters_per_s"],
           r["dp_letters_per_s"]] for r in rows])
    dyck = parse_grammar(DYCK)
    cfg_rows = []
    for k in ([10, 20] if quick else [100, 200, 400, 800]):
        u = "ab" * k  # the worst case: every even span is balanced, in many ways
        t_old, v_old = best_of(lambda u=u: ReferenceSubstringTable(dyck, u).grundy("S"), 1)
        t_new, v_new = best_of(lambda u=u: SubstringTable(dyck, u).grundy("S"), 1 if k > 200
                               else 3)
        assert v_old == v_new, (k, v_old, v_new)
        cfg_rows.append({"grammar": "dyck", "length": len(u), "reference_s": t_old,
                         "bitset_s": t_new, "ratio": t_old / t_new, "grundy": v_new})
    show("Substring table, S -> a S b | S S | a b on (ab)^k: per-split reference vs bitsets",
         ["|w|", "reference s", "bitsets s", "ratio", "grundy"],
         [[r["length"], r["reference_s"], r["bitset_s"], r["ratio"], r["grundy"]]
          for r in cfg_rows])
    return rows + cfg_rows


def main() -> None:
    run()


if __name__ == "__main__":
    main()
