"""Unbounded "no" answers: PDR (``max --strategy pdr``) against k-induction (``--strategy sat``).

The instances are the ring family (``family ring K``, issue 27): K DFAs over {a, b}
counting a's modulo the odd primes 3, 5, 7, … and accepting a count ≡ 0, then one
more counting modulo 3 and accepting a count ≡ 1, through the reduction of SPEC §5.
So max 𝒢(A) = K − 1 (witness ``bb``) and K is unreachable, known from the residues
alone.  The unreachable states where the two mod-3 rings disagree loop among
themselves inside the bad set, so k-induction never closes; PDR learns the
invariant "the two mod-3 rings agree".

For each K, side by side in this run, one process runs ``max G A --strategy pdr``
and one runs ``max G A --strategy sat --max-seconds S``, each measured as a whole
process with what it runs (``wait4``: ABC's CPU time counts): CPU time, user + sys,
and the largest peak RSS.  PDR must answer K − 1 with witness ``bb`` and proof
``pdr``; k-induction proves K − 1 only when every loop of the product is short
(K = 3: lcm 15), and otherwise says how far its bounded search got before the
seconds ran out.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.bench_sat import measured
from benchmarks.common import show
from sdg_automata.generators.families import intersection_grammar, ring_intersection
from sdg_automata.grammar.parse import grammar_to_json

#: (K values, seconds given to k-induction)
FULL = ((6, 10, 16, 24), 60)
QUICK = ((3, 6), 5)


def run(quick: bool = False) -> list[dict[str, Any]]:
    ks, seconds = QUICK if quick else FULL
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in ks:
            path = Path(tmp) / f"ring{k}.json"
            g = intersection_grammar(ring_intersection(k))
            path.write_text(grammar_to_json(g), encoding="utf-8")
            pdr_cpu, pdr_rss, code, out, err = measured(["max", str(path), "A", "--strategy",
                                                         "pdr", "--json"])
            assert code == 0, err
            pdr = json.loads(out)
            assert (pdr["max"], pdr["exact"], pdr["proof"], pdr["witness"]) == (
                k - 1, True, "pdr", "bb"), pdr
            sat_cpu, sat_rss, code, out, err = measured(["max", str(path), "A", "--strategy",
                                                         "sat", "--max-seconds", str(seconds),
                                                         "--json"])
            if code == 0:  # few rings: every loop is short, and simple paths end
                sat = json.loads(out)
                assert (sat["max"], sat["proof"]) == (k - 1, "k-induction"), sat
                said = f"proven at k = {sat['evidence']['induction_depth']}"
            else:
                assert code == 3 and "budget of" in err, (code, err)
                reached = re.findall(r"(\d+) letters unrolled", err)[-1]
                said = f"unproven at length {reached}"
            solver = pdr["evidence"]["solver"]
            rows.append({"k": k, "product": _product(k), "pdr_cpu_s": pdr_cpu,
                         "pdr_mb": pdr_rss / 2**20, "rounds": solver["pdr_rounds"],
                         "invariant": solver["invariant_clauses"],
                         "sat_cpu_s": sat_cpu, "sat_mb": sat_rss / 2**20,
                         "sat": said})
    show(f"max on K ring DFAs with an empty intersection (max 𝒢 = K − 1, proven): PDR (ABC, "
         f"invariant checked by CaDiCaL) vs k-induction given {seconds} s; whole processes, "
         "CPU = user + sys including ABC",
         ["K", "product states", "PDR CPU s", "PDR MB", "ABC rounds", "invariant clauses",
          "k-induction CPU s", "k-induction MB", "k-induction"],
         [[r["k"], r["product"], r["pdr_cpu_s"], r["pdr_mb"], r["rounds"], r["invariant"],
           r["sat_cpu_s"], r["sat_mb"], r["sat"]] for r in rows])
    return rows


def _product(k: int) -> str:
    """The number of states of the product of the K DFAs, as a power of ten."""
    from math import log10, prod

    sizes = [len(d.states) for d in ring_intersection(k)]
    return f"10^{log10(prod(sizes)):.1f}"


def main() -> None:
    run()


if __name__ == "__main__":
    main()
