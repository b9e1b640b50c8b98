"""``octal``: Grundy sequences and proven periods of octal games, and surveys of them."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable

from ..errors import InputError
from .common import (
    Commands,
    ExitCode,
    Parser,
    add_output,
    budget,
    emit_stopped,
    fail,
    output,
    positive,
    progress,
    stamped,
)

__all__ = ["register"]

#: how many values the text output shows when --values is not given
SHOWN = 100
#: the word that makes CODE a survey
SURVEY = "survey"


def _add_octal(p: Parser) -> None:
    from ..octal import DEFAULT_MAX_N, SURVEY_MAX_N
    from .sweep import add_sweep_options

    p.description = (
        "The octal game CODE (0.d1d2..., e.g. 0.77 Kayles, 0.07 Dawson's Kayles): "
        "its Grundy values by the sparse-space method and its least preperiod and "
        "period, proven by the octal periodicity theorem (Guy-Smith). Not proven "
        "within --upto values: exit 3, naming the values computed. "
        f"'octal {SURVEY} --digits D' does every code of up to D digits on the "
        "sweep engine (streamed rows, resumable with --out, local processes or "
        "Dask; see 'sweep --help').")
    p.add_argument("code", metavar="CODE", help=f"an octal code such as 0.77 or .07, or "
                                               f"'{SURVEY}'")
    p.add_argument("--upto", type=positive, metavar="N",
                   help=f"compute at most N values (default {DEFAULT_MAX_N}; "
                        f"{SURVEY_MAX_N} per code for a survey)")
    p.add_argument("--values", type=positive, metavar="K",
                   help=f"show the first K values (default: text {SHOWN}, JSON the first "
                        "preperiod + period)")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument("--grammar", action="store_true",
                   help="print the unary grammar whose SDG is the game (A -> a^k | a^k A | "
                        "A a^k A), for 'grundy' and 'period'; exit 2 when the game is not one")
    p.add_argument("--digits", type=int, choices=(1, 2, 3), metavar="D",
                   help=f"{SURVEY}: every code of 1..D digits (D = 1, 2 or 3)")
    add_output(p)
    add_sweep_options(p)  # the survey runs on the sweep engine: --out, --format, --jobs, ...
    for action in p._actions:
        if action.dest in ("max_states", "max_seconds"):
            action.help = (f"one code: stop with exit 3 after N values (--max-states) or S "
                           f"seconds; {SURVEY}: per code, a row with status 'budget'")
    p.set_defaults(func=_cmd_octal)


#: options of a survey only (the sweep engine's), with their defaults
_SURVEY_ONLY = {"digits": None, "out": None, "format": None, "jobs": None, "scheduler": None,
                "batch": None}
#: options of one code only
_CODE_ONLY = {"values": None, "grammar": False, "output": None, "json": False}


def _cmd_octal(args: argparse.Namespace) -> int:
    survey = args.code == SURVEY
    # --json and --format json are one flag wherever a JSON form exists
    if survey and args.json:
        args.json, args.format = False, args.format or "json"
    elif not survey and args.format in ("json", "jsonl"):
        args.json, args.format = True, None
    misplaced = _CODE_ONLY if survey else _SURVEY_ONLY
    wrong = [f"--{o}" for o, default in misplaced.items() if getattr(args, o) != default]
    if wrong:
        raise InputError(f"{', '.join(wrong)} {'does' if len(wrong) == 1 else 'do'} not apply "
                         f"to {'a survey' if survey else 'one code'}")
    return _HANDLERS[survey](args)


def _cmd_code(args: argparse.Namespace) -> int:
    from ..octal import DEFAULT_MAX_N, OctalGame
    from ..parse import grammar_to_text

    game = OctalGame.parse(args.code)
    if args.grammar:
        output(args, grammar_to_text(game.grammar()))
        return ExitCode.OK
    with progress(f"{game.code} values", enabled=not args.json, unit="values") as bar:
        result = game.period(max_n=args.upto or DEFAULT_MAX_N, budget=budget(args, bar))
    if not result.certified:
        message = (f"{game.code}: no period proven up to n = {result.checked_to - 1} "
                   f"({result.checked_to} values computed); raise --upto")
        emit_stopped(args, message, reason="unproven", explored=result.checked_to,
                     at={"code": game.code, "checked_to": result.checked_to})
        fail(message, ExitCode.BUDGET)
    data = result.to_json()
    if args.values is not None:
        data["values"] = [result.value(n) for n in range(args.values)]
    if args.json:
        output(args, json.dumps(stamped(data), ensure_ascii=False) + "\n")
    else:
        shown = data["values"] if args.values is not None else data["values"][:SHOWN]
        more = " ..." if args.values is None and len(data["values"]) > SHOWN else ""
        output(args, f"{game.code}: period {result.period}, preperiod {result.preperiod} "
                     f"(proven by the octal periodicity theorem from {result.checked_to} "
                     f"values)\nvalues from n = 0: {' '.join(map(str, shown))}{more}\n")
    return ExitCode.OK


def _cmd_survey(args: argparse.Namespace) -> int:
    from ..octal import SURVEY_MAX_N, survey_sweep
    from .sweep import run

    if args.digits is None:
        raise InputError(f"'octal {SURVEY}' needs --digits 1, 2 or 3")
    return run(args, survey_sweep(args.digits, max_n=args.upto or SURVEY_MAX_N), ordered=True)


_HANDLERS: dict[bool, Callable[[argparse.Namespace], int]] = {
    False: _cmd_code,
    True: _cmd_survey,
}


def register(sub: Commands) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    sub.command("octal", _add_octal,
                help="Grundy values and the proven period of an octal game, or a survey")
