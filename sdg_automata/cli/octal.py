"""``octal``: Grundy sequences and proven periods of octal games, certificates, surveys."""

from __future__ import annotations

import argparse
import copy
import functools
import json
import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import BudgetExceeded, InputError, InvalidCertificate
from ..games.misere.limits import DEFAULT_MAX_ORDER
from .arguments import positive
from .budgets import add_engine, budget, progress
from .exits import ExitCode, fail
from .jsonout import emit_stopped, stamped
from .misere import add_misere_options
from .parser import Commands, Formatter, Parser, epilog
from .sweep import CONNECT_TIMEOUT
from .writing import check_plot, output, write_plot

if TYPE_CHECKING:
    from ..games.octal import OctalPeriod

__all__ = ["EXAMPLES", "register"]

#: example command lines of this group's commands (``--help`` ends with them; a test runs them)
EXAMPLES = {
    "octal": ("sdg-automata octal 0.77 --values 12 && "
              "sdg-automata octal 0.75 --misere --upto 20",
              "sdg-automata octal 0.77 --certificate kayles.cert && "
              "sdg-automata octal verify kayles.cert",
              "sdg-automata octal survey --digits 2 --upto 512 --jobs 1 --out octal.jsonl"),
}

#: how many values the text output shows when --values is not given
SHOWN = 100
#: the words that make CODE a survey or a check
SURVEY = "survey"
VERIFY = "verify"

#: one code's default time budget: 10 minutes, or 2 µs per value of --upto when more
#: (the compiled engine does 1-5 M values/s where there is a sparse space, so this
#: only stops runs without one, whose full mex is O(n²): 0.007 to 2^20 would take an hour)
DEFAULT_SECONDS = 600.0
SECONDS_PER_VALUE = 2e-6
#: a survey's default budget per code: every code with a sparse space of up to a few
#: hundred rare heaps reaches 2^20 values well within it at 1-5 M values/s; the codes
#: without one run the O(n²) full mex, which no budget finishes (0.007 would take an hour),
#: and stop with the values they reached; 10 s keeps 3 digits under half an hour on 2 cores
SURVEY_SECONDS = 10.0
#: what one value costs at least while being computed (1 byte; the array grows by doubling
#: up to --upto), and what one listed value costs (a Python int in a list, its text)
BYTES_PER_VALUE = 1
BYTES_PER_LISTED = 48


def _add_octal(p: Parser) -> None:
    from ..games.octal.period import DEFAULT_MAX_N
    from ..sweeps.octal import SURVEY_MAX_N
    from .sweep import add_sweep_options

    p.description = (
        "The octal game CODE (0.d1d2..., e.g. 0.77 Kayles, 0.07 Dawson's Kayles; "
        "hexadecimal digits 8-F may also split a heap in three, e.g. 0.3F): "
        "its Grundy values by the sparse-space method and its least preperiod and "
        "period, proven by the periodicity theorem (Guy-Smith; for three heaps its "
        "hexadecimal form). --misere: misère play (the quotient, --outcome, --forms). "
        "Not proven "
        "within --upto values: exit 3, naming the values computed. One code stops "
        f"after {DEFAULT_SECONDS / 60:g} minutes by default (or "
        f"{SECONDS_PER_VALUE * 1e6:g} us per value of --upto when that is more): "
        "--max-seconds sets another limit. "
        f"'octal {VERIFY} FILE' checks a certificate written by --certificate from "
        "the game's rules alone (exit 0 valid, 1 invalid, 2 unreadable). "
        f"'octal {SURVEY} --digits D' does every code of up to D digits on the "
        "sweep engine (streamed rows, resumable with --out, local processes or "
        "Dask; see 'sweep --help').")
    p.add_argument("code", metavar="CODE", help=f"an octal or hexadecimal code such as 0.77, .07 "
                                               f"or 0.3F, or '{SURVEY}', or '{VERIFY}'")
    p.add_argument("file", nargs="?", metavar="FILE", help=f"{VERIFY}: the certificate")
    p.add_argument("--upto", type=positive, metavar="N",
                   help=f"compute at most N values (default {DEFAULT_MAX_N}; "
                        f"{SURVEY_MAX_N} per code for a survey)")
    p.add_argument("--values", type=positive, metavar="K",
                   help=f"show the first K values (default: text {SHOWN}, JSON the first "
                        "preperiod + period, at most 1000); with no period proven, the first K "
                        "computed are still written, marked unproven, before exit 3")
    p.add_argument("--json", action="store_true", help="one JSON object on stdout")
    p.add_argument("--certificate", metavar="FILE",
                   help="write a certificate of the proven period to FILE (atomically), for "
                        f"'octal {VERIFY} FILE'")
    p.add_argument("--checkpoint", metavar="FILE",
                   help="keep the values computed in FILE (atomically, every minute or so, "
                        "and when stopped by the budget or Ctrl-C); resume from it when it "
                        "exists (its sealed header checked; the resumed values a claim rests "
                        "on re-derived by the independent checker before it is made)")
    p.add_argument("--plot", metavar="FILE",
                   help="also draw G(n) with the proven preperiod and period marked, as a "
                        ".png, .svg or .pdf FILE (atomically; needs matplotlib: the plot extra)")
    p.add_argument("--grammar", action="store_true",
                   help="print the unary grammar whose SDG is the game (A -> a^k | a^k A | "
                        "A a^k A), for 'grundy' and 'period'; exit 2 when the game is not one")
    p.add_argument("--ignore-mask", action="store_true",
                   help=f"{VERIFY}: ignore the certificate's sparse mask and check every value "
                        "directly, by the mex over all its options (slower; accepted exactly "
                        "when the values, period and preperiod are right, whatever the mask "
                        "claims)")
    p.add_argument("--digits", type=int, choices=(1, 2, 3), metavar="D",
                   help=f"{SURVEY}: every code of 1..D digits (D = 1, 2 or 3)")
    add_misere_options(p, octal=True)
    add_engine(p)
    # One output option, -o/--out FILE (issue 22 §3): one code and verify write their
    # result there atomically (never over an input); a survey appends its rows (resumable,
    # as every sweep's --out does), so a file given to it loses nothing either
    add_sweep_options(p, short_out=True)  # the survey runs on the sweep engine: --jobs, ...
    for action in p._actions:
        if action.dest in ("max_states", "max_seconds"):
            action.help = (f"one code: stop with exit 3 after N values (--max-states) or S "
                           f"seconds; {SURVEY}: per code (default {SURVEY_SECONDS:g} s), a row "
                           "with status 'budget' saying how many values it reached")
        if action.dest == "out":
            action.help = ("one code, verify: write the result to FILE (atomically, never over "
                           f"an input); {SURVEY}: append rows to FILE, skipping codes already "
                           "in it (resumable)")
    p.set_defaults(func=_cmd_octal)
    p.form_help = functools.partial(_form_help, p)


#: what ``octal survey --help`` and ``octal verify --help`` say first
_FORMS = {
    SURVEY: ("Every octal code of 1..D digits (--digits D) on the sweep engine: one row per "
             "code, certified (its least preperiod and period, proven by the octal "
             "periodicity theorem) or open as far as its values reached within --upto and "
             f"its budget (default {SURVEY_SECONDS:g} s per code). Rows stream as they "
             "come, resumable with --out; local processes or a Dask cluster (see 'sweep "
             "--help')."),
    VERIFY: ("Check a certificate written by 'octal CODE --certificate FILE' from the "
             "game's rules alone: every stored value re-derived, the periodicity condition, "
             "and that no smaller preperiod or period works; --ignore-mask checks every value "
             "directly, without the certificate's sparse mask. Exit 0 valid, 1 invalid, 2 "
             "unreadable."),
}


def _form_help(p: Parser, word: str) -> str | None:
    """The ``--help`` of ``octal survey`` or ``octal verify``; ``None`` for a code."""
    form = form_parser(p, word)
    return None if form is None else form.format_help()


def form_parser(p: Parser, word: str) -> Parser | None:
    """``octal survey`` or ``octal verify`` as a parser of its own, for its ``--help`` and
    the documentation's command-line page: its own description, the options of the
    ``octal`` parser ``p`` that apply to it (:data:`_APPLIES`) and its examples; ``None``
    for a code."""
    mode = {SURVEY: _SURVEY, VERIFY: _VERIFY}.get(word)
    if mode is None:
        return None
    form = Parser(prog=f"{p.prog} {word}", description=_FORMS[word], add_help=False,
                  formatter_class=Formatter,
                  epilog=epilog([e for e in EXAMPLES["octal"] if f" octal {word} " in e]))
    for action in p._actions:
        modes = _APPLIES.get(action.dest, ({_CODE, _SURVEY, _VERIFY}, None))[0]
        if action.dest == "file" and mode == _VERIFY:
            action = copy.copy(action)  # the certificate, not optional here
            action.nargs, action.help = None, "the certificate"
        elif action.dest in ("code", "file") or mode not in modes:
            continue
        form._add_action(action)
    return form


_CODE, _SURVEY, _VERIFY = "one code", "a survey", VERIFY
#: the modes each option applies to, with its default
_APPLIES: dict[str, tuple[set[str], Any]] = {
    "digits": ({_SURVEY}, None), "format": ({_SURVEY}, None), "jobs": ({_SURVEY}, None),
    "scheduler": ({_SURVEY}, None), "batch": ({_SURVEY}, None),
    "retry_errors": ({_SURVEY}, False), "retry_budget": ({_SURVEY}, False),
    "values": ({_CODE}, None), "grammar": ({_CODE}, False), "certificate": ({_CODE}, None),
    "checkpoint": ({_CODE}, None), "plot": ({_CODE}, None), "upto": ({_CODE, _SURVEY}, None),
    "max_states": ({_CODE, _SURVEY}, None), "json": ({_CODE, _VERIFY}, False),
    "ignore_mask": ({_VERIFY}, False),
    "misere": ({_CODE}, False), "outcome": ({_CODE}, None), "forms": ({_CODE}, False),
    "max_order": ({_CODE}, DEFAULT_MAX_ORDER),
    "connect_timeout": ({_SURVEY}, CONNECT_TIMEOUT),
}


def _cmd_octal(args: argparse.Namespace) -> int:
    mode = {SURVEY: _SURVEY, VERIFY: _VERIFY}.get(args.code, _CODE)
    args.output = args.out  # one code's and verify's result: written as every -o is
    # --json and --format json are one flag wherever a JSON form exists
    if mode == _SURVEY and args.json:
        args.json, args.format = False, args.format or "json"
    elif mode != _SURVEY and args.format in ("json", "jsonl"):
        args.json, args.format = True, None
    wrong = [f"--{o.replace('_', '-')}" for o, (modes, default) in _APPLIES.items()
             if mode not in modes and getattr(args, o) != default]
    if wrong:
        raise InputError(f"{', '.join(wrong)} {'does' if len(wrong) == 1 else 'do'} not apply "
                         f"to {mode if mode != _VERIFY else VERIFY}")
    if (args.file is None) != (mode != _VERIFY):
        raise InputError(f"'octal {VERIFY}' takes one FILE" if mode == _VERIFY else
                         f"unexpected argument {args.file!r} (FILE is for 'octal {VERIFY}')")
    return _HANDLERS[mode](args)


def _refuse_what_cannot_fit(args: argparse.Namespace, code: str, max_n: int) -> None:
    """Exit 3 before any work when the values or the listing asked for cannot fit."""
    from ..runtime.budget import available_bytes

    left = available_bytes()
    if left is None:
        return
    asks = [(max_n * BYTES_PER_VALUE, f"--upto {max_n} values")]
    if args.values is not None:
        asks.append((args.values * BYTES_PER_LISTED, f"listing --values {args.values}"))
    for need, what in asks:
        if need > left:
            raise BudgetExceeded(f"{code}: {what} needs about {_size(need)}, more than the "
                                 f"{_size(left)} this process can allocate; ask for fewer")


def _size(n: int) -> str:
    for unit, scale in (("TB", 1 << 40), ("GB", 1 << 30), ("MB", 1 << 20)):
        if n >= scale:
            return f"{n / scale:,.1f} {unit}"
    return f"{n:,} bytes"


def _cmd_code(args: argparse.Namespace) -> int:
    from ..games.octal.certificate import write_certificate
    from ..games.octal.period import DEFAULT_MAX_N
    from ..games.octal.rules import OctalGame
    from ..grammar.parse import grammar_to_json, grammar_to_text

    game = OctalGame.parse(args.code)
    if args.misere:
        from .misere import run_octal

        normal = [f"--{o}" for o in ("certificate", "checkpoint", "plot", "values", "grammar")
                  if getattr(args, o) not in (None, False)]
        if normal:
            raise InputError(f"{', '.join(normal)} {'does' if len(normal) == 1 else 'do'} not "
                             "apply with --misere")
        return run_octal(args, game)
    if args.outcome is not None or args.forms:
        raise InputError(f"{'--outcome' if args.outcome is not None else '--forms'} needs "
                         "--misere")
    if args.plot is not None:  # refused before any work: a wrong suffix, no matplotlib
        if args.grammar:
            raise InputError("--plot does not apply to --grammar")
        check_plot(args.plot)
    if args.grammar:  # --json: the grammar in the JSON format every command reads
        output(args, (grammar_to_json if args.json else grammar_to_text)(game.grammar()))
        return ExitCode.OK
    max_n = args.upto or DEFAULT_MAX_N
    _refuse_what_cannot_fit(args, game.code, max_n)
    for name in ("certificate", "checkpoint"):
        path = getattr(args, name)
        if path is not None and (path == "" or os.path.isdir(path)):
            raise InputError(f"--{name} needs a file name, not {path!r}")
    if args.max_seconds is None:
        args.max_seconds = max(DEFAULT_SECONDS, SECONDS_PER_VALUE * max_n)
    with progress(f"{game.code} values", unit="values", rate=True) as bar:
        try:
            result = game.period(max_n=max_n, budget=budget(args, bar), engine=args.engine,
                                 checkpoint=args.checkpoint)
        except BudgetExceeded as e:  # the stopped/1 object names the code, as when unproven
            emit_stopped(args, str(e), explored=e.explored,
                         at={"code": game.code, "checked_to": e.explored})
            fail(str(e), ExitCode.BUDGET)
    if not result.certified:
        message = (f"{game.code}: no period proven up to n = {result.checked_to - 1} "
                   f"({result.checked_to} values computed); raise --upto"
                   + ("; no certificate written" if args.certificate else ""))
        if args.values is not None:  # the values asked for are exact: kept, marked unproven
            _write_unproven(args, result)
        emit_stopped(args, message, reason="unproven", explored=result.checked_to,
                     at={"code": game.code, "checked_to": result.checked_to})
        fail(message, ExitCode.BUDGET)
    if args.certificate is not None:
        write_certificate(result, args.certificate)
    if args.plot is not None:
        from ..render.plots import plot_octal

        write_plot(args, plot_octal(result))
    if args.json:
        data = result.to_json(shown=args.values)
        output(args, json.dumps(stamped(data), ensure_ascii=False) + "\n")
    else:
        shown = result.first(args.values or min(SHOWN, len(result.values)))
        more = " ..." if args.values is None and len(result.values) > SHOWN else ""
        output(args, f"{game.code}: period {result.period}, preperiod {result.preperiod} "
                     f"(proven by the octal periodicity theorem from {result.checked_to} "
                     f"values)\nvalues from n = 0: {' '.join(map(str, shown))}{more}\n")
    return ExitCode.OK


def _write_unproven(args: argparse.Namespace, result: OctalPeriod) -> None:
    """The first --values K values of a run that proved no period, to -o or stdout: each
    one exact (computed, or re-derived from a checkpoint by the checker), the period
    unproven (``"certified": false``; text: "no period proven")."""
    if args.json:
        output(args, json.dumps(stamped(result.to_json(shown=args.values)),
                                ensure_ascii=False) + "\n")
        return
    shown = result.computed[:args.values].tolist()
    cut = (f" (all {result.checked_to} computed)" if args.values > result.checked_to else "")
    output(args, f"{result.code}: no period proven up to n = {result.checked_to - 1}\n"
                 f"values from n = 0, no period proven{cut}: {' '.join(map(str, shown))}\n")


def _cmd_verify(args: argparse.Namespace) -> int:
    from ..games.octal.verify import verify

    with progress(f"checking {args.file}", unit="values", rate=True) as bar:
        try:
            proof = verify(args.file, engine=args.engine, budget=budget(args, bar),
                           ignore_mask=args.ignore_mask)
        except InvalidCertificate as e:
            fail(f"{args.file}: invalid certificate: {e}", ExitCode.NO)
    # the text says so when --ignore-mask was asked (the JSON's "mode" always does)
    how = ", every option enumerated, the mask ignored" if args.ignore_mask else ""
    if args.json:
        output(args, json.dumps(stamped({"file": args.file, **proof.to_json()})) + "\n")
    else:
        output(args, f"{args.file}: valid certificate: {proof.code} has least preperiod "
                     f"{proof.preperiod} and least period {proof.period} ({proof.values} "
                     f"values re-derived from the rules{how})\n")
    return ExitCode.OK


def _cmd_survey(args: argparse.Namespace) -> int:
    from ..games.octal.values import load_kernels
    from ..sweeps.octal import SURVEY_MAX_N, survey_sweep
    from .sweep import run

    if args.digits is None:
        raise InputError(f"'octal {SURVEY}' needs --digits 1, 2 or 3")
    if args.max_seconds is None:
        args.max_seconds = SURVEY_SECONDS
    max_n = args.upto or SURVEY_MAX_N
    if args.scheduler is None:
        load_kernels(args.engine, max_n)  # here, so that the local workers fork with them
    return run(args, survey_sweep(args.digits, max_n=max_n, engine=args.engine),
               ordered=True)


_HANDLERS: dict[str, Callable[[argparse.Namespace], int]] = {
    _CODE: _cmd_code,
    _SURVEY: _cmd_survey,
    _VERIFY: _cmd_verify,
}


def register(sub: Commands) -> None:
    """Add this group's commands to the subparsers ``sub``."""
    sub.command("octal", _add_octal,
                help="Grundy values and the proven period of an octal game; certificates, "
                     "surveys")
