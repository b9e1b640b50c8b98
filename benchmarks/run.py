"""Run every benchmark: ``python -m benchmarks [--quick] [NAME ...]``.

Each module exposes ``run(quick: bool) -> list[dict]`` (it prints its own
tables) and is listed in ``SUITES``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys

SUITES = [
    "bench_grundy",
    "bench_construction",
    "bench_decide",
    "bench_imark",
    "bench_explore",
    "bench_search",
    "bench_store",
    "bench_sharded",
    "bench_sweep",
    "bench_octal",
    "bench_octal_resume",
    "bench_misere",
    "bench_count",
    "bench_parse",
    "bench_startup",
    "bench_whole",
    "bench_sat",
    "bench_pdr",
    "bench_floor",
    "bench_native",
]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"subset of {SUITES}")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    parser.add_argument("--json", metavar="FILE", help="also write every row to FILE")
    args = parser.parse_args(argv)
    rows: dict[str, list[dict]] = {}
    for name in args.names or SUITES:
        if name not in SUITES:
            parser.error(f"unknown benchmark {name!r} (choose from {', '.join(SUITES)})")
        try:
            module = importlib.import_module(f"benchmarks.{name}")
        except ModuleNotFoundError as e:
            print(f"skipping {name}: {e}", file=sys.stderr)
            continue
        rows[name] = module.run(quick=args.quick)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
