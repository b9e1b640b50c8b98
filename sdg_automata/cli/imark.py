"""``imark value|sequence|survey``: i-Mark(S, D) (SPEC §6)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ..errors import InputError
from .common import ExitCode, Parser, emit, stamped

__all__ = ["register"]


def _add_imark(sub: Any) -> None:
    p = sub.add_parser(
        "imark", help="i-Mark(S, D): Grundy values by the convergence technique, the naive "
                      "sequence, the convergence survey",
        description="i-Mark(S, D) (SPEC §6): from n move to n-s (s in S, n-s >= 0) or to n/d "
                    "(d in D, d divides n, n >= 1).  'value' proves 𝒢(n) for huge n by the "
                    "convergence technique of Nivasch and Rubinstein (arXiv 2503.23196); "
                    "'sequence' prints the naive table; 'survey' measures convergence.")
    isub = p.add_subparsers(dest="imark_command", metavar="SUBCOMMAND", parser_class=Parser)
    p.set_defaults(func=_cmd_imark_missing)

    def game_args(q: Any) -> None:
        q.add_argument("--S", dest="S", metavar="S", type=_imark_ints, required=True,
                       help="subtractions, comma-separated, each >= 1 (e.g. 1 or 1,2; '' for "
                            "none: the pure division game)")
        q.add_argument("--D", dest="D", metavar="D", type=_imark_ints, required=True,
                       help="divisors, comma-separated, each >= 2 (e.g. 2,3)")

    v = isub.add_parser(
        "value", help="𝒢(n) by the convergence technique, one line per n",
        description="Print 𝒢(n) for each N, one line each, proven by the convergence technique "
                    "(SPEC §6) in time polylogarithmic in n.  N may be written 10^18, 10**18 or "
                    "1e18.  A value that cannot be proven is an error (exit 3), never a number.")
    game_args(v)
    v.add_argument("n", metavar="N", nargs="+", type=_imark_big, help="positions")
    v.add_argument("--c", type=int, default=None,
                   help="the window c (I_m = [m-2c, m], J_m = [m-c, m]); default: 8, doubled "
                        "on failure up to --max-c")
    v.add_argument("--max-c", type=int, default=512, help="largest automatic c (default 512)")
    v.add_argument("--json", action="store_true",
                   help='one JSON object per line: {"S": [1], "D": [2, 3], "n": ..., '
                        '"grundy": ..., "c": ...}')

    v.set_defaults(func=_cmd_imark_value)

    s = isub.add_parser(
        "sequence", help="the naive sequence 𝒢(0..N)",
        description="Stream 𝒢(0), ..., 𝒢(N) computed bottom up (Θ(N) time and memory; "
                    "N = 10^7 takes about a second), one value per line.")
    game_args(s)
    s.add_argument("--upto", metavar="N", type=_imark_big, required=True, help="last position")
    s.add_argument("--json", action="store_true",
                   help='one JSON object per line: {"n": ..., "grundy": ...}')
    s.set_defaults(func=_cmd_imark_sequence)

    y = isub.add_parser(
        "survey", help="which instances converge, and with which c",
        description="For every instance i-Mark(S, D) with S a non-empty subset of {1..MAX_S} and "
                    "D a non-empty subset of {2..MAX_D} with at most MAX_D_SIZE elements: run all "
                    "(|S|+|D|+1)^max(S) guess vectors from every start lo in max(S)+1..N with "
                    "the true division followers and report the smallest c such that all guess "
                    "sequences agree from lo+c on for every start (then 'value' proves every "
                    "n <= N+2c with that c), or the first start where they do not agree within "
                    "--max-c steps.  Instances run in parallel over local processes.")
    y.add_argument("--max-s", type=int, default=3, help="S ranges over subsets of {1..MAX_S} "
                                                        "(default 3)")
    y.add_argument("--max-d", type=int, default=6, help="D ranges over subsets of {2..MAX_D} "
                                                        "(default 6)")
    y.add_argument("--max-d-size", type=int, default=2, help="at most this many divisors "
                                                             "(default 2)")
    y.add_argument("--upto", metavar="N", type=_imark_big, default=2000,
                   help="last start checked (default 2000)")
    y.add_argument("--max-c", type=int, default=128,
                   help="a start needing more steps counts as not converging (default 128)")
    y.add_argument("--jobs", type=int, default=None,
                   help="worker processes (default: the number of CPUs)")
    y.add_argument("--format", choices=["table", "json", "csv"], default="table",
                   help="table (rich, with a progress bar on a terminal), JSON lines or CSV")
    y.set_defaults(func=_cmd_imark_survey)


def _imark_ints(text: str) -> tuple[int, ...]:
    parts = [t.strip() for t in text.replace(" ", ",").split(",") if t.strip()]
    try:
        return tuple(int(t) for t in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a comma-separated list of integers") from None


def _imark_big(text: str) -> int:
    import re

    t = text.strip().replace("_", "")
    match = re.fullmatch(r"(\d+)(?:(\^|\*\*)(\d+)|[eE](\d+))?", t)
    if not match:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a natural number (write e.g. 1000000, 10^18, 10**18 or 1e18)")
    base, _, power, exp10 = match.groups()
    if power is not None and len(str(int(base))) * int(power) > 10**6 or (
            exp10 is not None and int(exp10) > 10**6):
        raise argparse.ArgumentTypeError(f"{text!r} has more than a million digits")
    value: int = int(base)
    if power is not None:
        value = value ** int(power)
    elif exp10 is not None:
        value = value * 10 ** int(exp10)
    return value


def _cmd_imark_missing(args: argparse.Namespace) -> int:
    raise InputError("imark needs a subcommand: value, sequence or survey "
                     "(see 'sdg-automata imark --help')")


def _cmd_imark_value(args: argparse.Namespace) -> int:
    from ..imark import IMark, imark_value

    game = IMark.of(args.S, args.D)
    for n in args.n:
        v = imark_value(game, n=n, c=args.c, max_c=args.max_c)
        if args.json:
            emit(v.as_dict())
        else:
            print(v.grundy)
        sys.stdout.flush()  # each proven value is out before a later one fails
    return ExitCode.OK


def _cmd_imark_sequence(args: argparse.Namespace) -> int:
    from ..imark import IMark, imark_sequence_chunks

    game = IMark.of(args.S, args.D)
    if args.upto > 10**10:
        raise InputError(f"--upto {args.upto} is beyond the naive sequence (it keeps one byte "
                         "per position); use 'imark value' for single large positions")
    n = 0
    for chunk in imark_sequence_chunks(game, upto=args.upto):
        if args.json:
            lines = [json.dumps(stamped({"n": n + i, "grundy": g})) for i, g in enumerate(chunk)]
        else:
            lines = list(map(str, chunk))
        sys.stdout.write("\n".join(lines) + "\n")
        n += len(chunk)
    return ExitCode.OK


def _cmd_imark_survey(args: argparse.Namespace) -> int:
    import os

    from ..imark import SurveyRow, survey, survey_instances

    instances = survey_instances(args.max_s, args.max_d, max_d_size=args.max_d_size)
    if args.jobs is not None and args.jobs < 1:
        raise InputError("--jobs must be >= 1")
    if args.max_c < 1:
        raise InputError("--max-c must be >= 1")
    jobs = args.jobs or os.cpu_count() or 1
    show_progress = args.format == "table" and sys.stderr.isatty()

    def stream(row: SurveyRow) -> None:  # JSON lines as instances finish, not at the end
        emit(row.as_dict())
        sys.stdout.flush()

    if args.format == "json":
        survey(instances, upto=args.upto, max_c=args.max_c, jobs=jobs, on_result=stream)
        return ExitCode.OK
    if show_progress:
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

        with Progress("[progress.description]{task.description}", BarColumn(),
                      MofNCompleteColumn(), TimeElapsedColumn(),
                      console=Console(stderr=True), transient=True) as bar:
            task = bar.add_task(f"i-Mark survey ({jobs} jobs)", total=len(instances))
            rows = survey(instances, upto=args.upto, max_c=args.max_c, jobs=jobs,
                          on_result=lambda _row: bar.advance(task))
    else:
        rows = survey(instances, upto=args.upto, max_c=args.max_c, jobs=jobs)

    def show(t: tuple[int, ...]) -> str:
        return "{" + ",".join(map(str, t)) + "}"

    if args.format == "csv":
        import csv

        out = csv.writer(sys.stdout, lineterminator="\n")
        fields = ["S", "D", "upto", "max_c", "converges", "c", "worst_start", "failed_start",
                  "starts", "seconds"]
        out.writerow(fields)
        for row in rows:
            d = row.as_dict()
            d["S"], d["D"] = show(row.S), show(row.D)
            out.writerow(["" if d[f] is None else d[f] for f in fields])
    else:
        from rich.console import Console
        from rich.table import Table

        table = Table(title=f"i-Mark convergence, starts up to {args.upto} "
                            f"(c capped at {args.max_c})")
        for name in ("S", "D", "c", "worst start", "result", "seconds"):
            table.add_column(name, justify="right" if name in ("c", "worst start", "seconds")
                             else "left")

        def result(row: SurveyRow) -> str:
            if row.converges:
                return "[green]converges[/green]"
            return f"[red]no convergence from start {row.failed_start}[/red]"

        for row in rows:
            table.add_row(show(row.S), show(row.D), "" if row.c is None else str(row.c),
                          "" if row.worst_start is None else str(row.worst_start), result(row),
                          f"{row.seconds:.2f}")
        console = Console()
        console.print(table)
        good = sum(row.converges for row in rows)
        console.print(f"{good} of {len(rows)} instances converge for every start up to "
                      f"{args.upto}")
    return ExitCode.OK


def register(sub: Any) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    _add_imark(sub)
