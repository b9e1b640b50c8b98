"""The command line: ``python -m sdg_automata COMMAND ...`` (also ``sdg-automata``).

Results go to stdout, progress and warnings to stderr.  Every failure caused
by the input is one line ``error: ...`` on stderr, never a traceback.

Exit codes (a public promise, see :class:`ExitCode`): 0 success or "yes",
1 "no", 2 usage or input error, 3 budget exhausted without an answer,
130 interrupted.
"""

from __future__ import annotations

import argparse
import enum
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

from . import __version__
from .errors import BudgetExceeded, ConvergenceError, InputError, SdgError
from .grammar import Grammar
from .parse import load_grammar

__all__ = ["ExitCode", "main"]


class ExitCode(enum.IntEnum):
    """Exit statuses of the command line."""

    #: success; for decision commands, the answer is "yes"
    OK = 0
    #: a decision command's answer is "no"
    NO = 1
    #: bad usage or bad input (file, grammar, word, option)
    INPUT_ERROR = 2
    #: a budget (--max-states, --max-seconds) ran out, or no value could be proven
    BUDGET = 3
    #: interrupted by Ctrl-C
    INTERRUPTED = 130


EPILOG = """exit codes: 0 success / yes, 1 no, 2 usage or input error,
3 budget exhausted (or value not provable), 130 interrupted"""


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser whose usage errors are one ``error:`` line and exit 2."""

    def error(self, message: str) -> NoReturn:
        _fail(f"{message} (see '{self.prog} --help')")


def _fail(message: str, code: int = ExitCode.INPUT_ERROR) -> NoReturn:
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(code)


def _emit(obj: Any) -> None:
    print(json.dumps(obj, ensure_ascii=False))


def _grammar(args: argparse.Namespace) -> Grammar:
    return load_grammar(args.grammar)


# ---------------------------------------------------------------------------
# check


def _add_check(sub: Any) -> None:
    p = sub.add_parser("check", help="validate a grammar and print its classification",
                       description="Validate a grammar file and print its classification, "
                                   "alphabet, nonterminals and rule count.")
    p.add_argument("grammar", metavar="GRAMMAR", help="grammar file (.json or text format)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=_cmd_check)


def _cmd_check(args: argparse.Namespace) -> int:
    g = _grammar(args)
    info = {
        "grammar": args.grammar,
        "kind": g.kind,
        "start": g.start,
        "nonterminals": list(g.nonterminals),
        "terminals": "".join(g.terminals),
        "rules": len(g.rules),
    }
    if args.json:
        _emit(info)
    else:
        print(f"{args.grammar}: valid {g.kind} grammar")
        print(f"start:        {g.start}")
        print(f"nonterminals: {', '.join(g.nonterminals)}")
        print(f"terminals:    {', '.join(g.terminals) or '(none)'}")
        print(f"rules:        {len(g.rules)}")
    return ExitCode.OK


# ---------------------------------------------------------------------------
# grundy


def _add_grundy(sub: Any) -> None:
    p = sub.add_parser(
        "grundy", help="Grundy numbers of words or of a multiset position",
        description="Print 𝒢_{G,A}(w) for each word, one line per word (a number or "
                    "'not a position'); or, with --position, the XOR of a multiset position.")
    p.add_argument("grammar", metavar="GRAMMAR", help="grammar file (.json or text format)")
    p.add_argument("nonterminal", metavar="NONTERMINAL", nargs="?", help="the nonterminal A")
    p.add_argument("words", metavar="WORD", nargs="*", help="words to evaluate")
    p.add_argument("--words-from", metavar="FILE",
                   help="read further words from FILE, one per line ('-' for stdin)")
    p.add_argument("--position", metavar="A:w", nargs="+",
                   help="a multiset position, e.g. --position A:aab B:ba")
    p.add_argument("--method", choices=["auto", "dfa", "brute", "cyk", "naive"], default="auto",
                   help="auto: the automaton for right/left-linear grammars, the substring DP "
                        "otherwise; dfa: the automaton; brute: the exact dynamic programs; "
                        "cyk: the substring DP; naive: the definition (exponential)")
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.set_defaults(func=_cmd_grundy)


def _words(args: argparse.Namespace) -> list[str]:
    words = list(args.words)
    if args.words_from:
        try:
            if args.words_from == "-":
                text = sys.stdin.read()
            else:
                with open(args.words_from, encoding="utf-8") as f:
                    text = f.read()
        except OSError as e:
            raise InputError(f"cannot read {args.words_from!r}: {e.strerror}") from None
        except UnicodeDecodeError as e:
            raise InputError(f"{args.words_from!r} is not UTF-8 text ({e.reason})") from None
        words.extend(line.strip() for line in text.splitlines() if line.strip())
    return words


def _outside(g: Grammar, w: str) -> str:
    bad = sorted(set(w) - set(g.terminals))
    if bad:
        return (f"{w!r} has letter(s) {', '.join(map(repr, bad))} outside the alphabet "
                f"{{{', '.join(g.terminals)}}}: not a position")
    return ""


def _cmd_grundy(args: argparse.Namespace) -> int:
    from .semantics import evaluator

    g = _grammar(args)
    value = evaluator(g, method=args.method)
    if args.position:
        if args.nonterminal or args.words or args.words_from:
            raise InputError("--position takes the place of NONTERMINAL and WORDs")
        parts = []
        for item in args.position:
            head, sep, w = item.partition(":")
            if not sep:
                raise InputError(f"position part {item!r} must be written NONTERMINAL:WORD")
            g.check_nonterminal(head)
            parts.append((head, w))
        values = []
        for head, w in parts:
            if _outside(g, w):
                print("warning: " + _outside(g, w), file=sys.stderr)
            values.append(value(head, w))
        total = None if None in values else _xor(v for v in values if v is not None)
        if args.json:
            _emit({"position": [{"nonterminal": h, "word": w, "grundy": v}
                                for (h, w), v in zip(parts, values)], "grundy": total})
        else:
            for (h, w), v in zip(parts, values):
                print(f"{h}:{w}\t{_show(v)}")
            print(f"xor\t{_show(total)}")
        return ExitCode.OK
    if not args.nonterminal:
        raise InputError("give NONTERMINAL and WORDs, or --position A:w ...")
    head = g.check_nonterminal(args.nonterminal)
    words = _words(args)
    if not words:
        raise InputError("no words given (WORD arguments or --words-from FILE)")
    for w in words:
        if _outside(g, w):
            print("warning: " + _outside(g, w), file=sys.stderr)
        v = value(head, w)
        if args.json:
            _emit({"nonterminal": head, "word": w, "grundy": v})
        else:
            print(_show(v))
    return ExitCode.OK


def _xor(values: Any) -> int:
    from .impartial import nim_sum

    return nim_sum(values)


def _show(v: int | None) -> str:
    return "not a position" if v is None else str(v)


# ---------------------------------------------------------------------------
# the parser and main


#: every subcommand: a function that adds its parser to the subparsers
COMMANDS: list[Callable[[Any], None]] = [_add_check, _add_grundy]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser with every subcommand."""
    parser = _Parser(
        prog="sdg_automata",
        description="Impartial games as automata: Grundy numbers of successful derivation "
                    "games on grammars, their DFAs, Max-Grundy decisions, i-Mark.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("-V", "--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for add in COMMANDS:
        add(sub)
    for p in sub.choices.values():
        p.epilog = p.epilog or EPILOG
        p.formatter_class = argparse.RawDescriptionHelpFormatter
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return ExitCode.INPUT_ERROR
    try:
        return int(args.func(args))
    except InputError as e:
        _fail(str(e))
    except BudgetExceeded as e:
        _fail(str(e), ExitCode.BUDGET)
    except ConvergenceError as e:
        _fail(str(e), ExitCode.BUDGET)
    except SdgError as e:  # pragma: no cover - every SdgError should be one of the above
        _fail(str(e), ExitCode.INPUT_ERROR)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return ExitCode.INTERRUPTED
    except BrokenPipeError:  # `... | head`: not an error of ours
        sys.stderr.close()
        return ExitCode.OK
