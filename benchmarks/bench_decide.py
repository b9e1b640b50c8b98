"""Max-Grundy: the explicit route (automata-lib DFAs + emptiness) against the on-the-fly search.

Every measurement is a whole process, ``python -m sdg_automata max GRAMMAR A [K]
--json --method ...``, timed and measured (peak RSS from ``wait4``) side by side
on the same instance.  Instances come from the hardness family (SPEC §5):

* *early yes* — the top value m_A occurs; the search stops at its first witness;
* *early no* — asked "max = 1?" where a larger value occurs early;
* *full* — the maximum is below m_A (one congruence contradicts another), so
  the whole reachable part must be explored to prove it;
* *random* — three random binary DFAs (SPEC §5 with automata-lib ground truth).
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from benchmarks.common import child, show
from sdg_automata.generators.families import (
    ModularSpec,
    intersection_grammar,
    modular_family,
    modular_truth,
    product_truth,
    random_family,
)
from sdg_automata.grammar.parse import grammar_to_json

CASES = [
    # (kind, spec or seed, K); "early yes": the CRT's least solution (12) is small, the lcm large
    ("early yes", "3:0 5:2 7:5 11:1 13:12", None),
    ("early yes", "16:12 9:3 5:2 7:5 11:1", None),
    ("early yes", "16:12 27:12 5:2 7:5 11:1", None),
    # "late yes": the least solution is close to the lcm, so the witness is deep
    ("late yes", "3:0 5:2 7:3 11:5 13:1", None),
    ("late yes", "16:0 27:6 5:0 7:3 11:5", None),
    ("early no", "3:0 5:2 7:3 11:5 13:1", 1),
    ("early no", "16:0 27:6 5:0 7:3 11:5", 1),
    ("full", "3:0 5:2 7:3 11:5 13:1 3:1", None),
    ("full", "16:0 9:6 5:0 7:3 11:5 3:1", None),
    ("full", "16:0 27:6 5:0 7:3 11:5 3:1", None),
    ("random", "seed 7, 3 DFAs x 12 states", None),
]
QUICK = [("early yes", "3:0 5:2 7:5 11:1", None), ("early no", "3:0 5:2 7:3 11:5", 1),
         ("full", "3:0 5:2 7:3 11:5 3:1", None), ("random", "seed 7, 3 DFAs x 8 states", None)]


def _instance(spec: str, folder: Path) -> tuple[Path, int | None]:
    if spec.startswith("seed"):
        states = int(spec.split("x")[1].split()[0])
        dfas = random_family(3, states, seed=int(spec.split()[1].rstrip(",")))
        g, truth = intersection_grammar(dfas), product_truth(dfas)[0]
    else:
        specs = [ModularSpec.parse(s) for s in spec.split()]
        g, truth = modular_family(specs), modular_truth(specs)[0]
    path = folder / (spec.replace(" ", "_").replace(":", "-").replace(",", "") + ".json")
    path.write_text(grammar_to_json(g), encoding="utf-8")
    return path, truth


EXAMPLE3 = Path(__file__).resolve().parent.parent / "examples" / "example3.txt"


def run(quick: bool = False) -> list[dict]:
    rows = []
    # each route's floor: the same command on a 10-state grammar (interpreter + its imports)
    floor = {m: min(child(["-m", "sdg_automata", "max", str(EXAMPLE3), "A", "--json",
                           "--method", m])[1] for _ in range(3))
             for m in ("explicit", "onthefly")}
    with tempfile.TemporaryDirectory() as tmp:
        for kind, spec, k in QUICK if quick else CASES:
            path, truth = _instance(spec, Path(tmp))
            result = {}
            for method in ("explicit", "onthefly"):
                args = ["-m", "sdg_automata", "max", str(path), "A", *([str(k)] if k is not None
                                                                       else []),
                        "--json", "--method", method]
                seconds, rss, out = child(args)
                verdict = json.loads(out)
                result[method] = (seconds, rss, verdict)
            (te, me, ve), (to, mo, vo) = result["explicit"], result["onthefly"]
            assert ve["max"] == truth or not vo["exact"], (spec, ve, truth)
            assert ve["answer"] == vo["answer"], (spec, ve, vo)
            rows.append({
                "kind": kind, "instance": spec, "k": k, "answer": vo["answer"], "max": ve["max"],
                "truth": truth, "reachable": ve["states"], "explored": vo["states"],
                "explicit_s": te, "onthefly_s": to, "time_ratio": te / to,
                "explicit_mb": me / 2**20, "onthefly_mb": mo / 2**20, "memory_ratio": me / mo,
                "explicit_delta_mb": (me - floor["explicit"]) / 2**20,
                "onthefly_delta_mb": (mo - floor["onthefly"]) / 2**20,
                "delta_ratio": (me - floor["explicit"]) / max(mo - floor["onthefly"], 2**16),
                "search_states_per_s": vo["states"] / max(vo["seconds"], 1e-9),
            })
        startup = [child(["-m", "sdg_automata", "--help"])[0] for _ in range(3)]
        bare = [child(["-m", "this"])[0] for _ in range(3)]
    show("max: explicit (automata-lib) vs on the fly, whole processes "
         "(ratios = explicit / on the fly)",
         ["kind", "instance", "K", "max (truth)", "reachable", "explored", "explicit s",
          "on-the-fly s", "time ratio", "explicit MB", "on-the-fly MB", "memory ratio",
          "Δ explicit MB", "Δ on-the-fly MB", "Δ ratio", "states/s"],
         [[r["kind"], r["instance"], "-" if r["k"] is None else r["k"],
           f"{r['max']} ({r['truth']})", r["reachable"], r["explored"], r["explicit_s"],
           r["onthefly_s"], r["time_ratio"], r["explicit_mb"], r["onthefly_mb"],
           r["memory_ratio"], r["explicit_delta_mb"], r["onthefly_delta_mb"], r["delta_ratio"],
           r["search_states_per_s"]] for r in rows])
    print(f"Δ = peak RSS above the same route's floor on a 10-state grammar (explicit "
          f"{floor['explicit'] / 2**20:.1f} MB: automata-lib and networkx imported; on the fly "
          f"{floor['onthefly'] / 2**20:.1f} MB); Δ ratio floors the on-the-fly Δ at 64 KB.")
    show("CLI start-up", ["command", "seconds (best of 3)"],
         [["python -m this (bare interpreter)", min(bare)],
          ["python -m sdg_automata --help", min(startup)]])
    return rows + [{"startup_s": min(startup), "bare_python_s": min(bare),
                    "floor_explicit_mb": floor["explicit"] / 2**20,
                    "floor_onthefly_mb": floor["onthefly"] / 2**20}]


def main() -> None:
    run()


if __name__ == "__main__":
    main()
