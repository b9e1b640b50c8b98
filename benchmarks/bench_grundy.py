"""Grundy number of one long word: the Step 1–5 automaton against the exact DPs.

Rows: Example 3 and CSub words of 10⁴–10⁶ random letters; the automaton
(`grundy --method dfa`, construction and warm-up included) against the linear
suffix DP (`--method brute`), as a ratio and in letters per second.  Then the
substring DP for a context-free (non-linear) grammar at 50–200 letters.
"""

from __future__ import annotations

import random
from pathlib import Path

from benchmarks.common import SEED, best_of, show
from sdg_automata import load_grammar
from sdg_automata.parse import parse_grammar
from sdg_automata.semantics import evaluator

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
    for n in ([20, 50] if quick else [50, 100, 200]):
        w = "".join(rng.choice("ab") for _ in range(n // 2))  # a random prefix, then close it
        depth = 0
        word = []
        for c in w:
            if c == "b" and depth == 0:
                c = "a"
            depth += 1 if c == "a" else -1
            word.append(c)
        word.extend("b" * depth)
        word += ["a", "b"] * ((n - len(word)) // 2)
        u = "".join(word)
        t, v = best_of(lambda u=u: evaluator(dyck, method="cyk")("S", u), 1)
        cfg_rows.append({"grammar": "dyck", "length": len(u), "cyk_s": t, "grundy": v})
    show("Substring DP on a non-linear CFG (S -> a S b | S S | a b), one balanced word",
         ["|w|", "seconds", "grundy"], [[r["length"], r["cyk_s"], r["grundy"]] for r in cfg_rows])
    return rows + cfg_rows


def main() -> None:
    run()


if __name__ == "__main__":
    main()
