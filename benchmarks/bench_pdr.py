"""The portfolio of ``max --strategy pdr`` (issue 35) against ABC run directly on our AIGER, and
against k-induction and bounded model checking (``--strategy sat``), side by side in one run.

Every process is measured whole, with what it runs and waits for (``wait4``: ABC's CPU
time counts): CPU time, user + sys, and the largest peak RSS.  Answers are checked
against families whose answers are known without any automaton:

* **ring** (``family ring K``, issue 27): K DFAs counting a's modulo 3, 5, 7, …, the last
  modulo 3 again with another residue; max 𝒢(A) = K − 1 (witness ``bb``), K unreachable.
  The portfolio against k-induction (``--strategy sat --max-seconds S``).
* **counting, empty** (``family counting K``): ring i counts a's modulo 2·pᵢ; the first
  K − 1 accept even counts, the last odd ones: max 𝒢(A) = K − 1 (``bb``).  The portfolio
  against ABC's ``pdr`` on the unreduced AIGER of ``--dump-circuit`` (output K), ABC's
  own reductions first (``scorr; dc2; pdr``), and k-induction, each given S seconds.
* **counting, with a common word** (``family counting K --length 2K+2``): a^(2K+2) is the
  shortest common word (Chinese remainder theorem): max 𝒢(A) = K.  The portfolio against
  ABC's ``bmc3`` on the unreduced AIGER (output K) and the bounded search of
  ``--strategy sat``, each given S seconds.
* **deep** (``family counting K --length N --noise M``): a^N with M random DFAs that accept
  it too; the portfolio against the breadth-first search in an address space of
  :data:`MEMORY_CAP`, which runs out of memory first.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.bench_sat import measured
from benchmarks.common import show
from sdg_automata.generators.families import (
    counting_intersection,
    counting_truth,
    intersection_grammar,
    ring_intersection,
)
from sdg_automata.grammar.parse import grammar_to_json
from sdg_automata.search.dump import circuit_file
from sdg_automata.search.pdr import abc_command

#: K of the rings, K of the counting rings, seconds for the others, deep (K, N, M)
FULL = {"ring": (6, 10, 16, 24, 48), "counting": (6, 12, 16, 24, 32), "seconds": 60,
        "deep": ((5, 100, 6),)}
QUICK = {"ring": (3,), "counting": (4,), "seconds": 1, "deep": ((3, 12, 1),)}
#: the address space of the breadth-first search on the deep instances
MEMORY_CAP = 2500 << 20


def run(quick: bool = False) -> list[dict[str, Any]]:
    plan: dict[str, Any] = QUICK if quick else FULL
    seconds = plan["seconds"]
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rows += _rings(folder, plan["ring"], seconds)
        rows += _counting(folder, plan["counting"], seconds)
        rows += _deep(folder, plan["deep"])
    return rows


def _write(folder: Path, name: str, dfas: list[Any]) -> Path:
    path = folder / f"{name}.json"
    path.write_text(grammar_to_json(intersection_grammar(dfas)), encoding="utf-8")
    return path


def _portfolio(path: Path, best: int, exact_witness: str) -> tuple[dict[str, Any], float, int]:
    """``max --strategy pdr --json`` on ``path``, checked: max ``best``, exact, the witness."""
    cpu, rss, code, out, err = measured(["max", str(path), "A", "--strategy", "pdr", "--json"])
    assert code == 0, err
    verdict = json.loads(out)
    assert (verdict["max"], verdict["exact"], verdict["witness"]) == (
        best, True, exact_witness), verdict
    return verdict, cpu, rss


def _k_induction(path: Path, seconds: int, best: int | None = None) -> tuple[str, float, int]:
    """``max --strategy sat --max-seconds S``: what it said, its CPU and peak RSS."""
    cpu, rss, code, out, err = measured(["max", str(path), "A", "--strategy", "sat",
                                         "--max-seconds", str(seconds), "--json"])
    if code == 0:
        verdict = json.loads(out)
        assert best is None or verdict["max"] == best, verdict
        said = (f"proven at k = {verdict['evidence']['induction_depth']}" if verdict["exact"]
                and verdict["proof"] == "k-induction" else f"max {verdict['max']}")
        if verdict["proof"] == "bound":
            said = f"witness of {len(verdict['witness'])} letters"
    else:
        assert code == 3, (code, err)
        reached = re.findall(r"(\d+) letters unrolled", err) or ["0"]
        said = f"unproven at length {reached[-1]}" if "budget of" in err else err.strip()
    return said, cpu, rss


def _abc(folder: Path, aig: Path, script: str, seconds: int) -> tuple[str, float]:
    """ABC on ``aig``'s output K (extracted with ``cone``), ``script`` with ``-T seconds``:
    what it said and its CPU time (``wait4``)."""
    with tempfile.TemporaryFile("w+") as out:
        proc = subprocess.Popen([abc_command(), "-c", f"read_aiger {aig}; {script}"],
                                stdout=out, stderr=subprocess.STDOUT, cwd=folder)
        _, status, usage = os.wait4(proc.pid, 0)
        out.seek(0)
        said = out.read()
    cpu = usage.ru_utime + usage.ru_stime
    if "Property proved" in said:
        return "proved", cpu
    asserted = re.search(r"asserted in frame (\d+)", said)
    if asserted is not None:
        return f"cex at {asserted[1]}", cpu
    return f"no answer in {seconds} s", cpu


def _rings(folder: Path, counts: tuple[int, ...], seconds: int) -> list[dict[str, Any]]:
    rows = []
    for k in counts:
        path = _write(folder, f"ring{k}", ring_intersection(k))
        verdict, cpu, rss = _portfolio(path, k - 1, "bb")
        assert verdict["proof"] == "pdr", verdict
        said, sat_cpu, sat_rss = _k_induction(path, seconds, k - 1) if k <= 24 else (
            "not run", 0.0, 0)
        solver = verdict["evidence"]["solver"]
        rows.append({"family": "ring", "k": k, "pdr_cpu_s": cpu, "pdr_mb": rss / 2**20,
                     "rounds": solver["pdr_rounds"], "invariant": solver["invariant_clauses"],
                     "latches": f"{solver['lean_latches']:,} of {solver['latches']:,}",
                     "k_induction": said, "sat_cpu_s": sat_cpu, "sat_mb": sat_rss / 2**20})
    show(f"ring family: max 𝒢 = K − 1, proven; the portfolio (PDR) against k-induction given "
         f"{seconds} s; whole processes, CPU = user + sys including ABC",
         ["K", "portfolio CPU s", "MB", "ABC rounds", "invariant clauses", "lean latches",
          "k-induction", "its CPU s", "its MB"],
         [[r["k"], r["pdr_cpu_s"], r["pdr_mb"], r["rounds"], r["invariant"], r["latches"],
           r["k_induction"], r["sat_cpu_s"], r["sat_mb"]] for r in rows])
    return rows


def _counting(folder: Path, counts: tuple[int, ...], seconds: int) -> list[dict[str, Any]]:
    empty, common = [], []
    for k in counts:
        dfas = counting_intersection(k)
        path = _write(folder, f"count{k}", dfas)
        aig = folder / f"count{k}.aig"
        aig.write_bytes(circuit_file(intersection_grammar(dfas), "A", "aig"))
        verdict, cpu, rss = _portfolio(path, k - 1, "bb")
        assert verdict["proof"] == "pdr", verdict
        cone = f"cone -O {k} -s"
        direct, direct_cpu = _abc(folder, aig, f"{cone}; pdr -T {seconds}", seconds)
        reduced, reduced_cpu = _abc(folder, aig, f"{cone}; scorr; dc2; pdr -T {seconds}",
                                    seconds)
        assert direct in ("proved", f"no answer in {seconds} s"), direct
        said, sat_cpu, _ = _k_induction(path, seconds, k - 1)
        solver = verdict["evidence"]["solver"]
        empty.append({"family": "counting", "k": k, "pdr_cpu_s": cpu, "pdr_mb": rss / 2**20,
                      "latches": f"{solver['lean_latches']:,} of {solver['latches']:,}",
                      "invariant": solver["invariant_clauses"], "abc": direct,
                      "abc_cpu_s": direct_cpu, "abc_scorr": reduced,
                      "abc_scorr_cpu_s": reduced_cpu, "k_induction": said,
                      "sat_cpu_s": sat_cpu})
        length = 2 * k + 2
        best, shortest = counting_truth(k, length=length)
        dfas = counting_intersection(k, length=length)
        path = _write(folder, f"common{k}", dfas)
        aig = folder / f"common{k}.aig"
        aig.write_bytes(circuit_file(intersection_grammar(dfas), "A", "aig"))
        verdict, cpu, rss = _portfolio(path, best, "a" * shortest)
        bmc3, bmc3_cpu = _abc(folder, aig, f"{cone}; bmc3 -T {seconds}", seconds)
        assert bmc3 in (f"cex at {shortest}", f"no answer in {seconds} s"), bmc3
        said, sat_cpu, _ = _k_induction(path, seconds, best)
        common.append({"family": "counting-common", "k": k, "length": shortest,
                       "pdr_cpu_s": cpu, "pdr_mb": rss / 2**20, "abc_bmc3": bmc3,
                       "abc_bmc3_cpu_s": bmc3_cpu, "sat": said, "sat_cpu_s": sat_cpu})
    show(f"counting family, empty: max 𝒢 = K − 1 (bb), proven by the portfolio; ABC on the "
         f"unreduced AIGER (--dump-circuit, output K) given {seconds} s, with and without "
         "its own reductions; k-induction given as long; CPU = user + sys including ABC",
         ["K", "portfolio CPU s", "MB", "lean latches", "invariant", "ABC pdr", "CPU s",
          "ABC scorr; dc2; pdr", "CPU s", "k-induction", "CPU s"],
         [[r["k"], r["pdr_cpu_s"], r["pdr_mb"], r["latches"], r["invariant"], r["abc"],
           r["abc_cpu_s"], r["abc_scorr"], r["abc_scorr_cpu_s"], r["k_induction"],
           r["sat_cpu_s"]] for r in empty])
    show(f"counting family with a common word a^(2K+2): max 𝒢 = K, the shortest witness found "
         f"by the portfolio; ABC's bmc3 on the unreduced AIGER (output K) and the bounded "
         f"search of --strategy sat given {seconds} s",
         ["K", "witness length", "portfolio CPU s", "MB", "ABC bmc3", "CPU s",
          "--strategy sat", "CPU s"],
         [[r["k"], r["length"], r["pdr_cpu_s"], r["pdr_mb"], r["abc_bmc3"],
           r["abc_bmc3_cpu_s"], r["sat"], r["sat_cpu_s"]] for r in common])
    return empty + common


def _deep(folder: Path, plans: tuple[tuple[int, int, int], ...]) -> list[dict[str, Any]]:
    rows = []
    for k, length, noise in plans:
        best, shortest = counting_truth(k, length=length, noise=noise)
        path = _write(folder, f"deep{k}_{length}",
                      counting_intersection(k, length=length, noise=noise))
        verdict, cpu, rss = _portfolio(path, best, "a" * shortest)
        bfs_cpu, bfs_rss, code, out, err = measured(["max", str(path), "A", "--json"],
                                                    cap=MEMORY_CAP)
        if code == 0:
            assert json.loads(out)["max"] == best
            bfs = "answered"
        else:
            assert code == 3, err
            reached = re.findall(r"(\d+) states", err) or ["?"]
            bfs = ("out of memory" if "memory" in err else "out of budget") + \
                f" after {int(reached[-1]):,} states"
        rows.append({"family": "deep", "k": k, "noise": noise, "length": shortest,
                     "pdr_cpu_s": cpu, "pdr_mb": rss / 2**20, "bfs": bfs, "bfs_cpu_s": bfs_cpu,
                     "bfs_mb": bfs_rss / 2**20})
    show(f"deep witnesses: K counting rings and M random DFAs accepting a^N; the portfolio "
         f"against the breadth-first search in {MEMORY_CAP >> 20} MB of address space",
         ["K", "M", "witness length", "portfolio CPU s", "MB", "bfs", "its CPU s", "its MB"],
         [[r["k"], r["noise"], r["length"], r["pdr_cpu_s"], r["pdr_mb"], r["bfs"],
           r["bfs_cpu_s"], r["bfs_mb"]] for r in rows])
    return rows


def main() -> None:
    run()


if __name__ == "__main__":
    main()
