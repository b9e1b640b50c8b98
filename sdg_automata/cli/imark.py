"""``imark value|sequence|survey``: i-Mark(S, D) (SPEC §6)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, get_args

from ..errors import BudgetExceeded, InputError
from .arguments import natural, positive
from .budgets import add_budget, budget, progress
from .exits import ExitCode
from .jsonout import emit, emit_stopped, stamped
from .parser import Commands, Parser
from .writing import check_plot, unlimited_digits, write_plot

__all__ = ["EXAMPLES", "register"]

#: example command lines of this group's commands (``--help`` ends with them; a test runs them)
EXAMPLES = {
    "imark": ("sdg-automata imark value -S 1 -D 2,3 10^18",),
    "imark value": ("sdg-automata imark value -S 1 -D 2,3 1000000 10^18",
                    "sdg-automata imark value --S 1 --D 2,3 10^1000 --json"),
    "imark sequence": ("sdg-automata imark sequence -S 1 -D 2,3 --upto 20",),
    "imark survey": ("sdg-automata imark survey --max-s 2 --max-d 3 --upto 200 --jobs 1",),
}


def _add_imark(p: Parser) -> None:
    p.description = (
        "i-Mark(S, D) (SPEC §6): from n move to n-s (s in S, n-s >= 0) or to n/d "
        "(d in D, d divides n, n >= 1).  'value' proves 𝒢(n) for huge n by the "
        "convergence technique of Nivasch and Rubinstein (arXiv 2503.23196); "
        "'sequence' prints the naive table; 'survey' measures convergence.")
    isub = p.add_subparsers(dest="imark_command", metavar="SUBCOMMAND")
    p.set_defaults(func=_cmd_imark_missing)
    isub.command("value", _add_value,
                 help="𝒢(n) by the convergence technique, one line per n")
    isub.command("sequence", _add_sequence, help="the naive sequence 𝒢(0..N)")
    isub.command("survey", _add_survey, help="which instances converge, and with which c")


def _game_args(q: Parser) -> None:
    q.add_argument("-S", "--S", dest="S", metavar="S", type=_imark_ints, required=True,
                   help="subtractions, comma-separated, each >= 1 (e.g. 1 or 1,2; '' for "
                        "none: the pure division game)")
    q.add_argument("-D", "--D", dest="D", metavar="D", type=_imark_ints, required=True,
                   help="divisors, comma-separated, each >= 2 (e.g. 2,3)")


def _add_value(v: Parser) -> None:
    from ..games.imark.convergence import C_MAX, C_START, Engine

    v.description = (
        "Print 𝒢(n) for each N, one line each in the order given, proven by the "
        "convergence technique (SPEC §6) in time polylogarithmic in n "
        "(10^1000 takes seconds).  N may be written 10^18, 10**18 or 1e18.  A "
        "value that cannot be proven is never a number: its line reads "
        "'unproven' (JSON: a \"stopped/1\" object), stderr says why in one 'error:' "
        "line, the other values are still printed, and the exit status is 3.")
    _game_args(v)
    v.add_argument("n", metavar="N", nargs="+", type=natural, help="positions")
    v.add_argument("--c", type=positive, default=None,
                   help=f"the window c >= 1 (I_m = [m-2c, m], J_m = [m-c, m]); default: "
                        f"{C_START}, doubled on failure up to --max-c")
    v.add_argument("--max-c", type=positive, default=C_MAX,
                   help=f"largest automatic c (default {C_MAX})")
    v.add_argument("--engine", choices=get_args(Engine), default="layers",
                   help="layers: the exponent grid a layer at a time (default); reference: "
                        "the first implementation, one interval at a time (for comparison)")
    v.add_argument("--max-states", type=positive, metavar="N",
                   help="stop with exit 3 once N intervals J_m have been computed (all N "
                        "values and windows together)")
    add_budget(v, states=False)
    v.add_argument("--json", action="store_true",
                   help='one JSON object per line: {"S": [1], "D": [2, 3], "n": ..., '
                        '"grundy": ..., "c": ...}')
    v.set_defaults(func=_cmd_imark_value)


def _add_sequence(s: Parser) -> None:
    from ..games.imark.naive import MAX_TABLE_BYTES

    s.description = (
        "Stream 𝒢(0), ..., 𝒢(N) computed bottom up, one value per line "
        "(Θ(N) time; N = 10^7 takes about a second).  Memory: only 𝒢 on "
        "[0, N/min D] and the last max S values are kept; beyond "
        f"{MAX_TABLE_BYTES >> 30} GiB of them the command refuses at once "
        "(exit 3).")
    _game_args(s)
    s.add_argument("--upto", metavar="N", type=natural, required=True, help="last position")
    add_budget(s, states=False)
    s.add_argument("--json", action="store_true",
                   help='one JSON object per line: {"n": ..., "grundy": ...}')
    s.add_argument("--plot", metavar="FILE",
                   help="also draw G(n) for n <= N (N below 10^6) as a .png, .svg or .pdf "
                        "FILE (atomically; needs matplotlib: the plot extra)")
    s.set_defaults(func=_cmd_imark_sequence)


def _add_survey(y: Parser) -> None:
    from .sweep import add_sweep_options

    y.description = (
        "For every instance i-Mark(S, D) with S a non-empty subset of {1..MAX_S} and "
        "D a non-empty subset of {2..MAX_D} with at most MAX_D_SIZE elements: run all "
        "(|S|+|D|+1)^max(S) guess vectors from every start lo in max(S)+1..N with "
        "the true division followers and report the smallest c such that all guess "
        "sequences agree from lo+c on for every start (then 'value' proves every "
        "n <= N+2c with that c), or the first start where they do not agree within "
        "--max-c steps.  Instances run on the sweep engine (see 'sweep --help'): "
        "local processes or a Dask cluster, rows streamed in the order of the "
        "instances, --out resumable.")
    y.add_argument("--max-s", type=positive, default=3,
                   help="S ranges over subsets of {1..MAX_S} (default 3)")
    y.add_argument("--max-d", type=positive, default=6,
                   help="D ranges over subsets of {2..MAX_D} (default 6)")
    y.add_argument("--max-d-size", type=positive, default=2,
                   help="at most this many divisors (default 2)")
    y.add_argument("--upto", metavar="N", type=natural, default=2000,
                   help="last start checked (default 2000)")
    y.add_argument("--max-c", type=positive, default=128,
                   help="a start needing more steps counts as not converging (default 128)")
    add_sweep_options(y, states=False)
    y.set_defaults(func=_cmd_imark_survey)


def _imark_ints(text: str) -> tuple[int, ...]:
    parts = [t.strip() for t in text.replace(" ", ",").split(",") if t.strip()]
    try:
        return tuple(int(t) for t in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a comma-separated list of integers") from None


def _cmd_imark_missing(args: argparse.Namespace) -> int:
    raise InputError("imark needs a subcommand: value, sequence or survey "
                     "(see 'sdg-automata imark --help')")


def _cmd_imark_value(args: argparse.Namespace) -> int:
    from ..games.imark.convergence import IMarkConvergenceError, imark_prove
    from ..games.imark.game import IMark

    game = IMark.of(args.S, args.D)
    failed = 0
    with unlimited_digits(), progress("i-Mark intervals", enabled=not args.json,
                                      unit="intervals") as bar:
        for v in imark_prove(game, ns=args.n, c=args.c, max_c=args.max_c, engine=args.engine,
                             budget=budget(args, bar)):
            if isinstance(v, IMarkConvergenceError):
                failed += 1
                print(f"error: {v}", file=sys.stderr)
                if args.json:  # this n's line: the stopped/1 object (docs/cli.md, "Exit codes")
                    emit_stopped(args, str(v), reason="unproven", at=v.to_json())
                else:
                    print("unproven")
            elif args.json:
                emit(v.to_json())
            else:
                print(v.grundy)
            sys.stdout.flush()  # each value is out before a later one runs out of budget
    return ExitCode.BUDGET if failed else ExitCode.OK


def _cmd_imark_sequence(args: argparse.Namespace) -> int:
    from ..games.imark.game import IMark
    from ..games.imark.naive import imark_sequence_chunks

    game = IMark.of(args.S, args.D)
    if args.plot is not None:  # refused before any work
        check_plot(args.plot, args.upto, option="--upto")
    n = 0
    kept = bytearray()  # the values drawn by --plot (at most 10^6 bytes)
    chunks = imark_sequence_chunks(game, upto=args.upto, budget=budget(args))
    for chunk in chunks:
        if args.plot is not None:
            kept += chunk
        if args.json:
            lines = [json.dumps(stamped({"n": n + i, "grundy": g})) for i, g in enumerate(chunk)]
        else:
            lines = list(map(str, chunk))
        sys.stdout.write("\n".join(lines) + "\n")
        n += len(chunk)
    if args.plot is not None:
        from ..render.plots import IMarkSequence, plot_imark

        sequence = IMarkSequence(S=tuple(game.S), D=tuple(game.D), values=bytes(kept))
        write_plot(args, plot_imark(sequence))
    return ExitCode.OK


def _cmd_imark_survey(args: argparse.Namespace) -> int:
    from ..sweeps.imark import MAX_SURVEY_STEPS, imark_sweep, survey_instances, survey_steps
    from .sweep import run

    instances = survey_instances(args.max_s, args.max_d, max_d_size=args.max_d_size)
    steps = survey_steps(len(instances), args.upto, args.max_c)
    if steps > MAX_SURVEY_STEPS and args.max_seconds is None:
        raise BudgetExceeded(
            f"this survey may run {steps:,} guess steps ({len(instances):,} instances × "
            f"{args.upto:,} starts × --max-c {args.max_c}), more than {MAX_SURVEY_STEPS:,}: "
            "give --max-seconds, or fewer instances, starts or a smaller --max-c")
    if args.format is None and not args.out:
        args.format = "table"  # the survey's default, on a terminal or not
    converging = [0, 0]

    def count(row: dict[str, Any]) -> None:
        converging[0] += bool(row["converges"])
        converging[1] += 1

    code = run(args, imark_sweep(instances, upto=args.upto, max_c=args.max_c), ordered=True,
               observe=count)
    if args.format == "table":
        print(f"{converging[0]} of {converging[1]} instances converge for every start up to "
              f"{args.upto}")
    return code


def register(sub: Commands) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    sub.command("imark", _add_imark,
                help="i-Mark(S, D): Grundy values by the convergence technique, the naive "
                     "sequence, the convergence survey")
