"""Ours against the floors, side by side in one run (issue 36): a C search loop, tczajka's solver.

The floors:

* ``benchmarks/floor/search.c`` — the loops of our compiled search written in C
  (the step's table lookups, the record's hash, linear probing with tags,
  appends; Brent's cycle detection for the lasso), compiled here with the
  machine's C compiler (``$CC``, else ``cc``, ``-O2``) into a temporary directory
  and fed the *same* step tables our kernels use: a ``dump`` child runs our
  search first (unmeasured; it also warms the caches) and writes its finished
  ``StepTables`` to a file the C program reads.  No compiler: those rows are
  skipped, saying so.
* tczajka/octal-games' C++ solver (``old/src/analyze_exec.cc``; not in this
  repository): ``benchmarks/fetch_tczajka.sh`` clones it at a pinned commit and
  builds it; name the binary in ``SDG_TCZAJKA``.  Without it the octal rows are
  skipped, saying so.  It prints a line ``n=2^k largest G[i]=v ...`` at every
  power of two and stops at a proven period; the script's build goes on past the
  period when ``OCTAL_NO_STOP`` is set (for values to 2²⁴ of games it solves
  earlier).  A run "to 2^k" is stopped (SIGKILL) when it prints ``n=2^k``.

The cases (``--quick``: tiny ones of each kind, for the tests):

==========================  ==========================================  =================
case                        ours                                        floor
==========================  ==========================================  =================
lasso                       ``max_grundy(strategy="lasso")`` compiled,  C lasso
                            the 2.2·10⁸-state unary instance
bfs unary 10⁷, binary 10⁷   ``strategy="bfs"`` compiled, table store    C bfs
octal 0.6, 0.16, 0.56       ``OctalGame.values(2^k, engine="compiled")``  tczajka to 2^k
to 2²⁰ and 2²⁴
whole octal 0.16, 0.56      ``python -m sdg_automata octal CODE --json``  tczajka (stops
                                                                        at the period)
whole max 10⁶               ``python -m sdg_automata max FILE A         C bfs (reads
                            --strategy bfs`` (unary, 1,081,081 states)  its tables)
==========================  ==========================================  =================

Every run is a child process of its own, ours and the floor interleaved,
``SDG_FLOOR_REPEAT`` times (default 3; quick 1): its CPU time (user + sys of that
child, from ``wait4``) and peak RSS (``ru_maxrss``), the means over the runs, and
the ratios ours / floor; for the bfs rows also the bytes a state (ours: the peak over
the same child's peak on a 30,031-state walk, the process's fixed cost; the floor's:
its peak, whose fixed cost is a megabyte).  Inside the child, the CPU of the search or of the
values alone is printed too (ours: ``time.process_time`` around the call; the C
program: its walk; tczajka prints no such figure: its whole process, which starts in a
millisecond, counts as its walk).  The
children of this checkout run with bytecode caches written (an installed package
has them) and one OpenBLAS thread (as the command line sets).  Answers must
agree: states, maximum and shortest witness length (search); the largest value
below 2^k and its first heap (octal); the least preperiod and period (whole).
``SDG_FLOOR_CASES`` (comma-separated: lasso, bfs, octal, whole, max) runs a subset.

``python -m benchmarks bench_floor [--quick]`` prints the table; ``run()`` returns
the rows.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.common import show

ROOT = Path(__file__).resolve().parent.parent
FLOOR = Path(__file__).resolve().parent / "floor"

#: the walks of the compiled search, whose tables the dump child captures (the module
#: holding ``breadth_first`` and ``lasso``)
WALKS = "sdg_automata.search.compiled.drive"

#: (label, strategy, kind, instance) as benchmarks.bench_search builds them
SEARCH = [("lasso 2.2·10⁸", "lasso", "modular", "2:0 3:2 5:3 7:6 11:10 13:9 17:5 19:18 23:9 3:0"),
          ("bfs unary 1.1·10⁷", "bfs", "modular", "16:0 27:6 25:0 7:3 11:5 13:1 3:1"),
          ("bfs binary 1.3·10⁷", "bfs", "random", "4 14 6")]
QUICK_SEARCH = [("lasso 1.2·10⁴", "lasso", "modular", "3:2 5:3 7:6 11:10 3:0"),
                ("bfs unary 3·10⁴", "bfs", "modular", "3:0 5:2 7:3 11:5 13:1 3:1"),
                ("bfs binary 1.3·10⁴", "bfs", "random", "3 11 1")]
#: (code, log2 of the values): the long games of issue 36
OCTAL = [(code, k) for k in (20, 24) for code in ("0.6", "0.16", "0.56")]
QUICK_OCTAL = [("0.16", 12), ("0.56", 12)]
#: whole commands: ``octal CODE --json`` against tczajka's whole run on CODE
WHOLE = ["0.16", "0.56"]
QUICK_WHOLE = ["0.77"]
#: ``max`` on a 10⁶-state instance, against the C breadth-first walk
MAX = ("max unary 1.1·10⁶", "modular", "8:0 27:6 5:0 7:3 11:5 13:1 3:1")
QUICK_MAX = ("max unary 3·10⁴", "modular", "3:0 5:2 7:3 11:5 13:1 3:1")
CASES = ("lasso", "bfs", "octal", "whole", "max")


@dataclass(frozen=True)
class Run:
    """One child process: CPU seconds (user + sys), peak RSS bytes, what it printed."""

    cpu: float
    peak: int
    out: str


def _child_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH"))
                                        if p)
    return env


def measure(argv: Sequence[str], *, until: str | None = None, env: dict[str, str] | None = None,
            timeout: float = 7200) -> Run:
    """Run ``argv`` to its end, or until it prints a line starting with ``until`` (then it
    is killed): its CPU and peak RSS, its standard output (to that line).

    Through ``floor/measure.c`` when it is built (:data:`_LAUNCHER`): the usage is then
    the child's own (``wait4`` of a child forked from the harness reports the harness's
    RSS as the child's peak when that is larger, since Linux keeps the forking image's
    high-water mark at exec).
    """
    with tempfile.TemporaryDirectory(prefix="sdg-measure-") as tmp:
        usage_file = Path(tmp) / "usage"
        command = list(argv) if _LAUNCHER is None else [str(_LAUNCHER), str(usage_file),
                                                         *argv]
        with open(Path(tmp) / "stderr", "w+b") as err:
            child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err, text=True,
                                     env=env or _child_env(), cwd=ROOT)
            assert child.stdout is not None
            started = time.monotonic()
            lines: list[str] = []
            stopped = False
            try:
                for line in child.stdout:
                    lines.append(line)
                    if until is not None and line.startswith(until):
                        stopped = True
                        os.kill(child.pid, signal.SIGTERM if _LAUNCHER else signal.SIGKILL)
                        break
                    if time.monotonic() - started > timeout:
                        os.kill(child.pid, signal.SIGKILL)
                        raise TimeoutError(f"{' '.join(argv)}: over {timeout} s")
            finally:
                _, status, usage = os.wait4(child.pid, 0)
                child.stdout.close()
            code = os.waitstatus_to_exitcode(status)
            if _LAUNCHER is not None:
                user, system, peak_kb, raw = usage_file.read_text().split()
                cpu, peak = float(user) + float(system), int(peak_kb) * 1024
                code = os.waitstatus_to_exitcode(int(raw))
            else:
                cpu, peak = usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024
            if code not in (0, 1) and not (stopped and code == -signal.SIGKILL):
                err.seek(0)
                raise RuntimeError(f"{' '.join(argv)} exited {code}: "
                                   f"{err.read().decode(errors='replace')[-800:]}")
    return Run(cpu=cpu, peak=peak, out="".join(lines))


#: ``floor/measure.c`` built (by :func:`run`), or ``None``: children are then waited for
#: directly, and their peak RSS may be the harness's
_LAUNCHER: Path | None = None


def _compile(folder: Path) -> dict[str, Path] | str:
    """The C programs: the floor for narrow (uint16) and wide (int32) ids, and the launcher
    of :func:`measure`; or why not (no compiler)."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        return "no C compiler (set CC)"
    built = {}
    for name, source, flags in (("narrow", "search.c", []), ("wide", "search.c", ["-DWIDE"]),
                                ("measure", "measure.c", [])):
        out = folder / name
        done = subprocess.run([cc, "-O2", "-std=c11", *flags, "-o", str(out),
                               str(FLOOR / source)], capture_output=True, text=True)
        if done.returncode != 0:  # our source, a compiler that works: a bug to see
            raise RuntimeError(f"{cc} cannot build {FLOOR / source}: {done.stderr[-2000:]}")
        built[name] = out
    return built


def _tczajka() -> str | None:
    path = os.environ.get("SDG_TCZAJKA")
    return path if path and os.access(path, os.X_OK) else None


# -- the cases ---------------------------------------------------------------------------


def _search(label: str, strategy: str, kind: str, spec: str, folder: Path,
            floor: dict[str, Path] | str, repeat: int) -> dict[str, Any]:
    from benchmarks.bench_search import _instance

    path, truth, length = _instance(kind, spec, folder)
    tables = folder / f"{path.stem}.tables"
    dumped = json.loads(measure([sys.executable, "-m", "benchmarks.bench_floor", "dump",
                                 strategy, str(path), str(tables)]).out)
    assert (dumped["max"], dumped["length"]) == (truth, length), (label, dumped, truth, length)
    ours_argv = [sys.executable, "-m", "benchmarks.bench_floor", "search", strategy, str(path)]
    floor_argv = None if isinstance(floor, str) else [
        str(floor["wide" if dumped["wide"] else "narrow"]), strategy, str(tables)]
    row = _side_by_side(label, ours_argv, floor_argv, repeat, floor if isinstance(floor, str)
                        else None, check=lambda o, f: _same_search(label, o, f, dumped))
    if strategy == "bfs":  # bytes a state: our peak over the same child's on a tiny walk
        row["ours_bps"] = (row["ours_peak"] - _fixed_peak(folder)) / dumped["states"]
        if "floor_peak" in row:
            row["floor_bps"] = row["floor_peak"] / dumped["states"]
    return {**row, "states": dumped["states"]}


def _fixed_peak(folder: Path) -> int:
    """The peak RSS of our search child on a tiny bfs instance (30,031 states, about 1 MB
    of store): the process's fixed cost (interpreter, numpy, numba, the kernels), which
    the bytes a state of the bfs rows leave out."""
    from benchmarks.bench_search import _instance

    path, _, _ = _instance("modular", QUICK_SEARCH[1][3], folder)
    return min(measure([sys.executable, "-m", "benchmarks.bench_floor", "search", "bfs",
                        str(path)]).peak for _ in range(2))


def _same_search(label: str, ours: dict[str, Any], floor: dict[str, Any] | None,
                 truth: dict[str, Any]) -> None:
    for r in (ours, floor):
        if r is not None:
            assert (r["states"], r["max"], r["length"]) == (
                truth["states"], truth["max"], truth["length"]), (label, r, truth)


def _octal(code: str, k: int, tczajka: str | None, repeat: int) -> dict[str, Any]:
    label = f"octal {code} to 2^{k}"
    ours_argv = [sys.executable, "-m", "benchmarks.bench_floor", "values", code, str(1 << k)]
    floor_argv = None if tczajka is None else [tczajka, code]
    why = None if tczajka else "SDG_TCZAJKA not set (benchmarks/fetch_tczajka.sh builds it)"
    env = {**_child_env(), "OCTAL_NO_STOP": "1"}
    return _side_by_side(label, ours_argv, floor_argv, repeat, why,
                         check=lambda o, f: _same_values(label, o, f), until=f"n=2^{k} ",
                         env=env, whole_is_walk=True)


_STATS = re.compile(r"^n=2\^(\d+) largest G\[(\d+)\]=(\d+)", re.M)


def _tczajka_values(out: str) -> dict[str, Any]:
    found = _STATS.findall(out)
    if not found or "Found period" in out:
        raise _Skip("the binary stopped at its period before 2^k: build it with "
                    "benchmarks/fetch_tczajka.sh (OCTAL_NO_STOP)")
    _, index, value = found[-1]
    return {"max": int(value), "first": int(index)}


def _same_values(label: str, ours: dict[str, Any], floor: dict[str, Any] | None) -> None:
    if floor is not None:
        assert (ours["max"], ours["first"]) == (floor["max"], floor["first"]), (label, ours,
                                                                                floor)


def _whole(code: str, tczajka: str | None, repeat: int) -> dict[str, Any]:
    label = f"octal {code} --json (whole)"
    ours_argv = [sys.executable, "-m", "sdg_automata", "octal", code, "--json"]
    why = None if tczajka else "SDG_TCZAJKA not set (benchmarks/fetch_tczajka.sh builds it)"
    return _side_by_side(label, ours_argv, None if tczajka is None else [tczajka, code],
                         repeat, why, check=lambda o, f: _same_period(label, o, f),
                         parse_ours=_period_json, parse_floor=_tczajka_period)


def _period_json(out: str) -> dict[str, Any]:
    data = json.loads(out)
    return {"preperiod": data["preperiod"], "period": data["period"]}


def _tczajka_period(out: str) -> dict[str, Any]:
    found = re.search(r"Found period start=(\d+) period=(\d+)", out)
    if found is None:
        raise _Skip("tczajka's solver proved no period")
    return {"preperiod": int(found[1]), "period": int(found[2])}


def _same_period(label: str, ours: dict[str, Any], floor: dict[str, Any] | None) -> None:
    assert ours["preperiod"] is not None, (label, ours)
    if floor is not None:
        assert ours == floor, (label, ours, floor)


def _max(label: str, kind: str, spec: str, folder: Path, floor: dict[str, Path] | str,
         repeat: int) -> dict[str, Any]:
    from benchmarks.bench_search import _instance

    path, truth, length = _instance(kind, spec, folder)
    tables = folder / f"{path.stem}.max.tables"
    dumped = json.loads(measure([sys.executable, "-m", "benchmarks.bench_floor", "dump", "bfs",
                                 str(path), str(tables)]).out)
    ours_argv = [sys.executable, "-m", "sdg_automata", "max", str(path), "A", "--strategy",
                 "bfs", "--json"]
    floor_argv = None if isinstance(floor, str) else [
        str(floor["wide" if dumped["wide"] else "narrow"]), "bfs", str(tables)]

    def check(ours: dict[str, Any], c: dict[str, Any] | None) -> None:
        assert (ours["max"], ours["length"]) == (truth, length), (label, ours)
        if c is not None:
            assert (c["states"], c["max"], c["length"]) == (dumped["states"], truth, length)

    row = _side_by_side(f"{label} (whole)", ours_argv, floor_argv, repeat,
                        floor if isinstance(floor, str) else None, check=check,
                        parse_ours=_max_json)
    return {**row, "states": dumped["states"]}


def _max_json(out: str) -> dict[str, Any]:
    data = json.loads(out)
    witness = data["witness"]  # a string, or a long word's runs
    return {"max": data["max"],
            "length": witness["length"] if isinstance(witness, dict) else len(witness)}


class _Skip(Exception):
    """The floor cannot give this row (said in the table)."""


def _side_by_side(label: str, ours_argv: list[str], floor_argv: list[str] | None,
                  repeat: int, why: str | None, *,
                  check: Callable[[dict[str, Any], dict[str, Any] | None], None],
                  until: str | None = None, env: dict[str, str] | None = None,
                  parse_ours: Callable[[str], dict[str, Any]] = json.loads,
                  parse_floor: Callable[[str], dict[str, Any]] | None = None,
                  whole_is_walk: bool = False) -> dict[str, Any]:
    """Ours and the floor, interleaved ``repeat`` times: the means and the ratios (the
    floor's whole process counts as its walk where it prints no time of its own and
    starts in a millisecond: ``whole_is_walk``, tczajka's)."""
    parse = parse_floor or (_tczajka_values if until else json.loads)
    ours_runs: list[Run] = []
    floor_runs: list[Run] = []
    inner: dict[str, list[float]] = {"ours": [], "floor": []}
    for _ in range(repeat):
        run = measure(ours_argv, env=env)
        got = parse_ours(run.out)
        ours_runs.append(run)
        if "seconds" in got:
            inner["ours"].append(got["seconds"])
        floor_got = None
        if floor_argv is not None and why is None:
            try:
                f = measure(floor_argv, until=until, env=env)
                floor_got = parse(f.out)
            except _Skip as e:
                why = str(e)
            else:
                floor_runs.append(f)
                if "seconds" in floor_got:
                    inner["floor"].append(floor_got["seconds"])
        check(got, floor_got)
    row: dict[str, Any] = {"case": label, "ours_cpu": statistics.mean(r.cpu for r in ours_runs),
                           "ours_peak": max(r.peak for r in ours_runs), "runs": repeat}
    if inner["ours"]:
        row["ours_inner"] = statistics.mean(inner["ours"])
    if floor_runs:
        row["floor_cpu"] = statistics.mean(r.cpu for r in floor_runs)
        row["floor_peak"] = max(r.peak for r in floor_runs)
        row["ratio"] = row["ours_cpu"] / row["floor_cpu"]
        row["rss_ratio"] = row["ours_peak"] / row["floor_peak"]
        if inner["ours"] and (inner["floor"] or whole_is_walk):
            row["floor_inner"] = (statistics.mean(inner["floor"]) if inner["floor"]
                                  else row["floor_cpu"])
            row["inner_ratio"] = row["ours_inner"] / row["floor_inner"]
    else:
        row["skipped"] = why or "no floor"
    return row


def run(quick: bool = False) -> list[dict[str, Any]]:
    """Measure every case (or those of ``SDG_FLOOR_CASES``); one dict per row."""
    repeat = int(os.environ.get("SDG_FLOOR_REPEAT", "1" if quick else "3"))
    cases = os.environ.get("SDG_FLOOR_CASES", ",".join(CASES)).split(",")
    unknown = set(cases) - set(CASES)
    if unknown:
        raise ValueError(f"SDG_FLOOR_CASES: unknown {sorted(unknown)} (choose from {CASES})")
    tczajka = _tczajka()
    rows: list[dict[str, Any]] = []
    global _LAUNCHER
    with tempfile.TemporaryDirectory(prefix="sdg-floor-") as tmp:
        folder = Path(tmp)
        floor = _compile(folder)
        _LAUNCHER = None if isinstance(floor, str) else floor["measure"]
        for label, strategy, kind, spec in QUICK_SEARCH if quick else SEARCH:
            if strategy in cases:
                rows.append(_search(label, strategy, kind, spec, folder, floor, repeat))
        if "octal" in cases:
            rows += [_octal(code, k, tczajka, repeat) for code, k in
                     (QUICK_OCTAL if quick else OCTAL)]
        if "whole" in cases:
            rows += [_whole(code, tczajka, repeat) for code in
                     (QUICK_WHOLE if quick else WHOLE)]
        if "max" in cases:
            rows.append(_max(*(QUICK_MAX if quick else MAX), folder, floor, repeat))
        _LAUNCHER = None
    _show(rows, repeat)
    return rows


def _show(rows: list[dict[str, Any]], repeat: int) -> None:
    def cell(r: dict[str, Any], key: str, scale: float = 1.0, fmt: str = "{:.3g}") -> str:
        return fmt.format(r[key] / scale) if key in r else ""

    show(f"Ours against the floors (C search loop, tczajka's octal solver): CPU s (user + sys "
         f"of each child, mean of {repeat}), peak RSS MB; 'inner' = the walk or the values "
         "alone, measured inside the child",
         ["case", "ours CPU s", "floor CPU s", "ours / floor", "ours inner s", "floor inner s",
          "inner ratio", "ours MB", "floor MB", "RSS ratio", "ours B/state", "floor B/state",
          "note"],
         [[r["case"], cell(r, "ours_cpu"), cell(r, "floor_cpu"),
           cell(r, "ratio", fmt="{:.2f}×"), cell(r, "ours_inner"), cell(r, "floor_inner"),
           cell(r, "inner_ratio", fmt="{:.2f}×"), cell(r, "ours_peak", 2**20, "{:.0f}"),
           cell(r, "floor_peak", 2**20, "{:.0f}"), cell(r, "rss_ratio", fmt="{:.1f}×"),
           cell(r, "ours_bps", fmt="{:.1f}"), cell(r, "floor_bps", fmt="{:.1f}"),
           r.get("skipped", "")] for r in rows])
    if any("ours_bps" in r for r in rows):
        print("B/state (bfs): ours = (peak − the same child's peak on a 30,031-state walk) / "
              "states; the floor's = its peak / states (its fixed cost is about 1 MB)")


# -- the children -------------------------------------------------------------------------


def _child_search(strategy: str, path: str) -> None:
    """Our compiled search: one JSON line (states, max, witness length, CPU of the call)."""
    from sdg_automata.grammar.parse import load_grammar
    from sdg_automata.search.decide import max_grundy

    g = load_grammar(path)
    started = time.process_time()
    v = max_grundy(g, g.start, strategy=strategy, engine="compiled")  # type: ignore[arg-type]
    seconds = time.process_time() - started
    print(json.dumps({"states": v.states, "max": v.maximum, "seconds": seconds,
                      "length": None if v.witness is None else len(v.witness)}))


def _child_dump(strategy: str, path: str, out: str) -> None:
    """Our search, its finished step tables written to ``out`` for the C floor (the
    format ``search.c``'s ``load`` reads); one JSON line as :func:`_child_search`, and
    whether the ids need int32 (``wide``)."""
    import importlib

    import numpy as np

    from sdg_automata.grammar.parse import load_grammar
    from sdg_automata.search.decide import max_grundy

    walks = importlib.import_module(WALKS)
    seen: dict[str, Any] = {}
    for name in ("breadth_first", "lasso"):
        original = getattr(walks, name)

        def spy(tables: Any, budget: Any, *, _original: Any = original, **kw: Any) -> Any:
            walked = _original(tables, budget, **kw)
            seen.update(tables=tables, **kw)
            return walked

        setattr(walks, name, spy)
    g = load_grammar(path)
    v = max_grundy(g, g.start, strategy=strategy, engine="compiled")  # type: ignore[arg-type]
    tables = seen["tables"]
    if seen.get("constraint") is not None:
        raise SystemExit("the floor takes no constraint")
    group, values = tables.values(seen["head"])
    heap, plan = tables.heap, tables.plan
    header = [tables.groups, len(tables.alphabet), group, seen["settle"], seen["bound"],
              seen.get("letter", -1), len(heap), len(plan), len(values), 0, 0, 0]
    counts = tables.part_counts
    with open(out, "wb") as f:
        f.write(b"SDGFLOOR")
        for array, dtype in ((header, np.int64), (tables.starts, np.int64),
                             (tables.initial, np.int32), (heap, np.int32), (plan, np.int64),
                             (values, np.int32), (counts, np.int64)):
            f.write(np.ascontiguousarray(array, dtype=dtype).tobytes())
    print(json.dumps({"states": v.states, "max": v.maximum,
                      "length": None if v.witness is None else len(v.witness),
                      "wide": max(tables.part_counts) > 0xFFFF}))


def _child_values(code: str, n: str) -> None:
    """Our values to ``n`` (compiled): the CPU of the call, the largest value and its
    first heap (what tczajka's line says)."""
    from sdg_automata.games.octal import OctalGame

    game = OctalGame.parse(code)
    started = time.process_time()
    g = game.values(int(n), engine="compiled")
    seconds = time.process_time() - started
    top = int(g.max())
    print(json.dumps({"seconds": seconds, "max": top, "first": int((g == top).argmax())}))


CHILDREN: dict[str, Callable[..., None]] = {"search": _child_search, "dump": _child_dump,
                                            "values": _child_values}

if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] in CHILDREN:
        CHILDREN[sys.argv[1]](*sys.argv[2:])
    else:
        run(quick="--quick" in sys.argv)
